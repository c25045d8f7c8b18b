/**
 * The plan section of the job summary and the pull-request comment. Both are built only from the plan file the CLI wrote
 * (--plan-file, schema sops-aws-sync/plan/v3: one section per scope),
 * rendered by the verified CLI
 * itself (`show PLAN_FILE --format markdown`), never from log text: the
 * redaction rule lives in the CLI's view model (docs/results.md), and the
 * Action adds nothing to that Markdown but fixed text (the comment's hidden
 * marker and, when it has to cut, the truncation note).
 */
import { spawn } from 'node:child_process';
import { lstat } from 'node:fs/promises';
import { legacyDigest, scopeDigest, type ScopeIdentity } from './identity.js';

/** GitHub's limit on one step's job summary: 1 MiB (GITHUB_STEP_SUMMARY). */
export const STEP_SUMMARY_LIMIT = 1 << 20;

/** GitHub's limit on an issue or pull-request comment body: 65,536 characters. */
export const COMMENT_LIMIT = 65_536;

/**
 * Bytes the plan section may take in the job summary: the limit less room
 * for the heading and the table of counts the Action writes before it.
 */
export const SUMMARY_PLAN_MAX_BYTES = STEP_SUMMARY_LIMIT - 64 * 1024;

/**
 * Bytes the rendered plan may take in the comment: the limit less room for
 * the marker line. Bytes of UTF-8 are never fewer than characters (in code
 * points or UTF-16 units), so a body under this many bytes is under the
 * character limit too.
 */
export const COMMENT_PLAN_MAX_BYTES = COMMENT_LIMIT - 1024;

/** Bytes of `show`'s stdout kept; the rest is read and dropped (a cut follows anyway). */
const MAX_SHOW_BYTES = 2 * STEP_SUMMARY_LIMIT;

/** Room kept for the truncation note (its count varies). */
const NOTE_RESERVE = 400;

/**
 * The hidden marker that identifies the plan comment of one run: an HTML
 * comment (invisible on GitHub) holding the run's digest
 * (src/identity.ts scopeDigest). Two runs that differ in any part of their
 * identity (repository id, source root, prefix, Region, account or role,
 * config file and scopes) keep two comments; the digest keeps the prefix
 * itself (and any `-->` in it) out of the comment.
 */
export function planMarker(id: ScopeIdentity): string {
  return `<!-- sops-aws-sync:plan:${scopeDigest(id)} -->`;
}

/** The marker earlier releases wrote for the same repository and prefix (legacyDigest): looked for only when the run has no comment of its own. */
export function legacyPlanMarker(id: ScopeIdentity): string {
  return `<!-- sops-aws-sync:plan:${legacyDigest(id)} -->`;
}

/** The fixed note that ends a cut rendering; missing counts the lines of content left out. */
export function truncationNote(missing: number): string {
  const lines = missing === 1 ? '1 line is' : `${missing} lines are`;
  return (
    `_Truncated by the sops-aws-sync Action to stay under GitHub's size limit: ${lines} not shown. ` +
    'The plan file (output `plan-file-path`) holds every operation; `sops-aws-sync show PLAN_FILE` renders it in full._\n'
  );
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Markdown state after a line: the open code fence (if any) and the open <details> depth. */
interface BlockState {
  fence: string | undefined;
  details: number;
}

function advance(state: BlockState, line: string): BlockState {
  if (state.fence !== undefined) {
    // CommonMark: a fence closes on a line of at least as many of the same
    // character, nothing else but spaces.
    const m = /^ {0,3}(`+|~+) *$/.exec(line);
    const closes = m?.[1] !== undefined && m[1][0] === state.fence[0] && m[1].length >= state.fence.length;
    return closes ? { fence: undefined, details: state.details } : state;
  }
  const open = FENCE_OPEN.exec(line);
  if (open?.[1] !== undefined && !(open[1][0] === '`' && (open[2] ?? '').includes('`'))) {
    return { fence: open[1], details: state.details };
  }
  const opened = (line.match(/<details[\s>]/gi) ?? []).length;
  const closed = (line.match(/<\/details\s*>/gi) ?? []).length;
  return { fence: undefined, details: Math.max(0, state.details + opened - closed) };
}

function closers(state: BlockState): string {
  return (state.fence !== undefined ? `${state.fence}\n` : '') + '\n</details>\n'.repeat(state.details) + '\n';
}

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/**
 * Cuts Markdown to at most maxBytes bytes of UTF-8 when it is longer: whole
 * lines are kept from the start while the closers of whatever is open at
 * the cut (a code fence, `<details>` blocks) and the truncation note still
 * fit, then those closers and the note are appended, so the result stays
 * well-formed. Text that fits is returned unchanged. maxBytes must leave
 * room for the note (at least 1,024).
 */
export function capMarkdown(markdown: string, maxBytes: number): { text: string; truncated: boolean } {
  if (byteLength(markdown) <= maxBytes) return { text: markdown, truncated: false };
  const lines = markdown.split('\n');
  let state: BlockState = { fence: undefined, details: 0 };
  let out = '';
  let used = 0;
  let shown = 0;
  for (const line of lines) {
    const next = advance(state, line);
    const cost = byteLength(line) + 1;
    if (used + cost + byteLength(closers(next)) + NOTE_RESERVE > maxBytes) break;
    out += `${line}\n`;
    used += cost;
    state = next;
    shown++;
  }
  // Lines of content left out: blank lines and the closers re-added above do not count.
  const missing = lines.slice(shown).filter((l) => l.trim() !== '' && !/^ {0,3}(`{3,}|~{3,}) *$/.test(l) && !/^\s*<\/details\s*>\s*$/i.test(l)).length;
  return { text: out + closers(state) + truncationNote(missing), truncated: true };
}

/** True when path is a regular file (the CLI wrote its plan file there). */
export async function planFileExists(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch {
    return false;
  }
}

/** The result of `show`: the Markdown, or why there is none (our words, never the CLI's output). */
export type Rendered = { ok: true; markdown: string } | { ok: false; reason: string };

/**
 * Runs `binary show PLAN_FILE --format=markdown` without a shell, with env
 * and no stdin, and returns its stdout (the first 2 MiB; a longer rendering
 * is cut by capMarkdown anyway). stderr is dropped. A non-zero exit, a
 * signal, an empty output or no exit within timeoutMs (then SIGKILL) gives
 * no Markdown. Never rejects.
 */
export function renderMarkdown(
  binary: string,
  planFile: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<Rendered> {
  return new Promise<Rendered>((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let timedOut = false;
    const child = spawn(binary, ['show', planFile, '--format=markdown'], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      if (kept >= MAX_SHOW_BYTES) return;
      const part = d.subarray(0, MAX_SHOW_BYTES - kept);
      chunks.push(part);
      kept += part.length;
    });
    child.stderr.resume();
    child.on('error', () => {
      clearTimeout(timer);
      resolve({ ok: false, reason: 'sops-aws-sync show could not be started' });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) resolve({ ok: false, reason: `sops-aws-sync show did not finish within ${timeoutMs} ms` });
      else if (signal !== null) resolve({ ok: false, reason: `sops-aws-sync show was ended by ${signal}` });
      else if (code !== 0) resolve({ ok: false, reason: `sops-aws-sync show exited ${String(code)}` });
      else {
        const markdown = Buffer.concat(chunks).toString('utf8');
        if (markdown.trim() === '') resolve({ ok: false, reason: 'sops-aws-sync show printed nothing' });
        else resolve({ ok: true, markdown });
      }
    });
  });
}
