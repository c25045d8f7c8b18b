/**
 * The drift check's comparison of the committed scopes file with AWS
 * Organizations (SPEC §17, inputs scopes-generate and
 * organizations-role-arn): the verified CLI runs `scopes generate
 * --from-organizations --check` on the config-file, which writes nothing
 * to it, exits 0 when the file is what the organization gives now and 2
 * when it differs, and writes the difference as a Markdown section (the
 * accounts added, suspended or closed, moved) that the drift issue shows
 * under the plan. The Action adds no text of its own to that section.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { Inputs } from './inputs.js';

/** Milliseconds the comparison may take (the organization is read paced: 500 accounts take some 7 s). */
export const SCOPES_CHECK_TIMEOUT_MS = 120_000;

/** Bytes of the Markdown section read at most. */
const MAX_SECTION_BYTES = 256 * 1024;

/** The comparison's outcome: the same file, a difference and its section, or a failure and why (our words). */
export type ScopesCheck = { kind: 'same' } | { kind: 'differs'; markdown: string } | { kind: 'failed'; reason: string };

/** The CLI's arguments of the comparison of inputs' config-file, its section written to markdownFile. */
export function scopesCheckArgs(inputs: Pick<Inputs, 'configFile' | 'scopesGenerate' | 'organizationsRoleArn'>, markdownFile: string): string[] {
  const args = ['scopes', 'generate', '--from-organizations', '--check', ...(inputs.scopesGenerate ?? [])];
  if (inputs.organizationsRoleArn !== '') args.push(`--organizations-role-arn=${inputs.organizationsRoleArn}`);
  args.push(`--output=${inputs.configFile}`, `--diff-markdown=${markdownFile}`);
  return args;
}

/**
 * Runs the comparison: exit 0 is same, exit 2 differs with the section
 * markdownFile holds, anything else (or no section) failed. Each line the
 * CLI prints (account names, statuses, OU paths; never an account id) goes
 * to log; its stderr is read by nobody.
 */
export function runScopesCheck(
  binary: string,
  args: string[],
  markdownFile: string,
  cwd: string,
  env: Record<string, string>,
  log: (line: string) => void,
  timeoutMs = SCOPES_CHECK_TIMEOUT_MS,
): Promise<ScopesCheck> {
  return new Promise<ScopesCheck>((resolve) => {
    let out = '';
    let timedOut = false;
    const child = spawn(binary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      if (out.length < MAX_SECTION_BYTES) out += d.toString('utf8');
    });
    child.stderr.resume();
    child.on('error', () => {
      clearTimeout(timer);
      resolve({ kind: 'failed', reason: 'sops-aws-sync scopes generate could not be started' });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      for (const line of out.split('\n')) if (line.trim() !== '') log(line);
      if (timedOut) {
        resolve({ kind: 'failed', reason: `sops-aws-sync scopes generate --check did not finish within ${timeoutMs} ms` });
      } else if (signal !== null) {
        resolve({ kind: 'failed', reason: `sops-aws-sync scopes generate --check was ended by ${signal}` });
      } else if (code === 0) {
        resolve({ kind: 'same' });
      } else if (code !== 2) {
        resolve({ kind: 'failed', reason: `sops-aws-sync scopes generate --check exited ${String(code)}` });
      } else {
        void readFile(markdownFile, 'utf8').then(
          (md) => {
            if (md.trim() === '' || md.length > MAX_SECTION_BYTES) {
              resolve({ kind: 'failed', reason: 'sops-aws-sync scopes generate --check wrote no usable difference' });
            } else {
              resolve({ kind: 'differs', markdown: md });
            }
          },
          () => {
            resolve({ kind: 'failed', reason: 'sops-aws-sync scopes generate --check wrote no difference' });
          },
        );
      }
    });
  });
}
