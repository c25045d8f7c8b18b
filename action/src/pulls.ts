/**
 * The facts a run without a plan is judged on (src/unplanned.ts), read at
 * the edge: the files of the pull request (GitHub REST API, GET
 * /repos/{owner}/{repo}/pulls/{pull_number}/files, 100 per page, at most
 * 3000 files in all) and the source roots the CLI resolved (validate
 * --source-roots-file, schema sops-aws-sync/source-roots/v1,
 * docs/validate.md).
 */
import { existsSync } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GitHubRest } from './comment.js';
import {
  MAX_LISTED_FILES,
  mayReachAws,
  pullRequestFacts,
  type ChangedFile,
  type FilesRead,
  type ForkPolicy,
  type RunFacts,
} from './unplanned.js';

/** A failed listing in our own words: the request and the HTTP status, never a body or the token. */
export class PullFilesError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'PullFilesError';
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const PER_PAGE = 100;

/** The pull-request files listing over the REST API. */
export class GitHubPullFiles extends GitHubRest {
  protected fail(reason: string): Error {
    return new PullFilesError(reason);
  }

  /**
   * Every file of pull request number in repo (owner/repo), page by page
   * until a page is not full or MAX_LISTED_FILES are listed. Only the path
   * (filename) and, for a rename, the former path (previous_filename) are
   * kept; an entry without a filename fails the listing.
   */
  async list(repo: string, number: number): Promise<ChangedFile[]> {
    const what = `Listing the files of pull request #${number}`;
    const files: ChangedFile[] = [];
    for (let page = 1; files.length < MAX_LISTED_FILES; page++) {
      const url = `${this.base}/repos/${repo}/pulls/${number}/files?per_page=${PER_PAGE}&page=${page}`;
      const res = await this.send(what, () => this.http.get(url, this.headers()), 200);
      const doc = this.json(res.body, what);
      if (!Array.isArray(doc)) throw this.fail(`${what} returned an unexpected document`);
      for (const f of doc as unknown[]) {
        if (!isRecord(f) || typeof f.filename !== 'string' || f.filename === '') throw this.fail(`${what} returned a file without a name`);
        files.push(typeof f.previous_filename === 'string' ? { filename: f.filename, previousFilename: f.previous_filename } : { filename: f.filename });
      }
      if (doc.length < PER_PAGE) break;
    }
    return files;
  }
}

/** Lists the pull request's files; a failure is a FilesRead of kind failed with its reason. */
export async function readPullFiles(api: GitHubPullFiles, repo: string, number: number): Promise<FilesRead> {
  try {
    return { kind: 'listed', files: await api.list(repo, number) };
  } catch (e) {
    if (e instanceof PullFilesError) return { kind: 'failed', reason: e.message };
    throw e;
  }
}

/** The source-roots file's schema_version (docs/validate.md). */
export const SOURCE_ROOTS_SCHEMA = 'sops-aws-sync/source-roots/v1';

/** The most bytes of a source-roots file read (the CLI caps it at 1 MiB). */
const MAX_SOURCE_ROOTS_BYTES = 1 << 20;

/**
 * Parses a source-roots file: exactly schema_version and scopes, each scope
 * exactly name and source_root (strings). Undefined for anything else:
 * the caller then cannot tell what a pull request touches, and fails.
 */
export function parseSourceRoots(text: string): string[] | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(doc) || Object.keys(doc).sort().join(',') !== 'schema_version,scopes') return undefined;
  if (doc.schema_version !== SOURCE_ROOTS_SCHEMA || !Array.isArray(doc.scopes) || doc.scopes.length === 0) return undefined;
  const roots: string[] = [];
  for (const s of doc.scopes as unknown[]) {
    if (!isRecord(s) || Object.keys(s).sort().join(',') !== 'name,source_root') return undefined;
    if (typeof s.name !== 'string' || typeof s.source_root !== 'string' || s.source_root === '') return undefined;
    roots.push(s.source_root);
  }
  return roots;
}

/** Reads the source-roots file the CLI wrote at path, or undefined (absent, not a regular file, too large, malformed). */
export async function readSourceRoots(path: string): Promise<string[] | undefined> {
  try {
    const st = await lstat(path);
    if (!st.isFile() || st.size > MAX_SOURCE_ROOTS_BYTES) return undefined;
    return parseSourceRoots(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The facts chooseRun decides on, read from the runner: the pull request
 * of the event payload (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH; an unreadable
 * payload is no pull request) and whether the job may reach AWS
 * (mayReachAws, the shared files at AWS_SHARED_CREDENTIALS_FILE and
 * AWS_CONFIG_FILE or under ~/.aws).
 */
export async function readRunFacts(
  env: NodeJS.ProcessEnv,
  mode: RunFacts['mode'],
  forkPolicy: ForkPolicy,
): Promise<RunFacts> {
  let payload: unknown;
  const event = env.GITHUB_EVENT_NAME ?? '';
  if (event.startsWith('pull_request') && (env.GITHUB_EVENT_PATH ?? '') !== '') {
    try {
      payload = JSON.parse(await readFile(env.GITHUB_EVENT_PATH ?? '', 'utf8'));
    } catch {
      payload = undefined;
    }
  }
  const home = env.HOME || homedir();
  const shared = [env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials'), env.AWS_CONFIG_FILE || join(home, '.aws', 'config')];
  return {
    mode,
    forkPolicy,
    pullRequest: pullRequestFacts(event, payload),
    awsReachable: mayReachAws(env, shared.some((p) => existsSync(p))),
  };
}
