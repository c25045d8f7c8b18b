/**
 * End-to-end harness: runs action/dist/index.js the way the runner does
 * (INPUT_* variables, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_*), against
 * a loopback HTTP server that plays the GitHub REST API for release
 * directories on disk, a stand-in `gh` (attestations cannot be produced
 * offline) and, for the real CLI, the secretsmanager-emulator binary.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const distEntry = join(repoRoot, 'action', 'dist', 'index.js');
export const RELEASE_REPO = 'sops-aws-sync/sops-aws-sync';
export const SIGNER_WORKFLOW = `${RELEASE_REPO}/.github/workflows/release.yml`;

/** The runner's RUNNER_OS/RUNNER_ARCH and Go's GOOS/GOARCH for this machine. */
export function hostPlatform(): { runnerOs: string; runnerArch: string; goos: string; goarch: string } {
  const goos = process.platform === 'darwin' ? 'darwin' : 'linux';
  const goarch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  return {
    runnerOs: goos === 'darwin' ? 'macOS' : 'Linux',
    runnerArch: goarch === 'arm64' ? 'ARM64' : 'X64',
    goos,
    goarch,
  };
}

export interface Exec {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program without a shell and returns its exit code and output (never rejects on exit code). */
export function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Exec> {
  return new Promise((done, fail) => {
    execFile(cmd, args, { ...opts, maxBuffer: 64 << 20, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err !== null && typeof err.code !== 'number') {
        fail(new Error(`${cmd} could not be started`));
        return;
      }
      done({ code: err === null ? 0 : (err.code as number), stdout, stderr });
    });
  });
}

/** Like run, but throws with the output when the exit code is not 0. */
export async function must(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

export async function sha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

// ---------------------------------------------------------------------------
// A loopback server playing the GitHub REST API for release directories.

interface ServedRelease {
  tag: string;
  dir: string;
  commit: string;
  tagObject: string;
  withDigests: boolean;
  assets: { id: number; name: string; digest: string }[];
}

export interface SeenRequest {
  method: string;
  path: string;
  /** The query string without "?" ('' when none). */
  query: string;
  authorization: string | undefined;
  accept: string | undefined;
}

/** One issue comment as the stand-in API stores it. */
export interface StoredComment {
  id: number;
  body: string;
  /** The author as GitHub returns it: user.login and user.type ("User" or "Bot"). */
  user: { login: string; type: 'User' | 'Bot' };
}

/** One issue as the stand-in API stores it (GET /repos/{owner}/{repo}/issues). */
export interface StoredIssue {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  state_reason: 'completed' | 'not_planned' | 'reopened' | null;
  labels: string[];
  user: { login: string; type: 'User' | 'Bot' };
  /** A pull request: the issues list returns it too, with a pull_request key. */
  pullRequest?: boolean;
}

/** A write to an issue endpoint and its JSON payload, in arrival order. */
export interface IssueWrite {
  method: string;
  path: string;
  payload: Record<string, unknown>;
}

/** The account GITHUB_TOKEN's comments are written by. */
export const ACTIONS_BOT = { login: 'github-actions[bot]', type: 'Bot' } as const;

export class ReleaseServer {
  private server: Server | undefined;
  private readonly releases = new Map<string, ServedRelease>();
  private readonly byId = new Map<number, { rel: ServedRelease; name: string }>();
  private nextId = 1000;
  /** Asset names served with one byte flipped (the release's checksums stay genuine). */
  readonly tampered = new Set<string>();
  readonly requests: SeenRequest[] = [];
  /** Issue comments by "owner/repo#number" (the issue-comments endpoints of the REST API). */
  readonly comments = new Map<string, StoredComment[]>();
  /** When set, every issue-comment request answers with this HTTP status. */
  commentFault: number | undefined;
  /**
   * The login GET /user answers for the token (a user token); undefined:
   * an installation token, which GitHub answers 403 and whose comments
   * ACTIONS_BOT writes.
   */
  userLogin: string | undefined;
  private nextCommentId = 5000;
  /** Issues by "owner/repo" (the issues endpoints of the REST API). */
  readonly issues = new Map<string, StoredIssue[]>();
  /** Every POST and PATCH to an issue or issue-comment endpoint, with its payload. */
  readonly issueWrites: IssueWrite[] = [];
  /** When set, every request to the issues endpoints (list, create, edit) answers with this HTTP status. */
  issueFault: number | undefined;
  /** When set, only PATCH /repos/{owner}/{repo}/issues/{number} answers with this HTTP status. */
  issueEditFault: number | undefined;
  /** False: POST .../issues drops the labels silently, as GitHub does for a token without push access. */
  labelsSettable = true;
  private nextIssueNumber = 100;
  /** The files of each pull request by "owner/repo#number" (GET /repos/{owner}/{repo}/pulls/{number}/files). */
  readonly pullFiles = new Map<string, { filename: string; previous_filename?: string }[]>();
  /** When set, every pull-request files request answers with this HTTP status. */
  pullFilesFault: number | undefined;
  /** Further endpoints another file's stand-in serves (test/e2e/github-stand-in.ts); resolves true when it answered. */
  extra: ((req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>) | undefined;
  base = '';

  constructor(
    private readonly attestedFile: string,
    private readonly commitsFile: string,
  ) {}

  /**
   * Serves every file of dir as an asset of release tag. Its binaries are
   * recorded as attested for the stand-in gh (digest from checksums.txt).
   */
  async addRelease(tag: string, dir: string, opts: { withDigests?: boolean; attest?: boolean } = {}): Promise<void> {
    const rel: ServedRelease = {
      tag,
      dir,
      commit: createHash('sha1').update(`commit:${tag}`).digest('hex'),
      tagObject: createHash('sha1').update(`tag:${tag}`).digest('hex'),
      withDigests: opts.withDigests ?? true,
      assets: [],
    };
    for (const name of (await readdir(dir)).sort()) {
      const id = this.nextId++;
      rel.assets.push({ id, name, digest: await sha256(join(dir, name)) });
      this.byId.set(id, { rel, name });
    }
    this.releases.set(tag, rel);
    await appendLine(this.commitsFile, `${tag} ${rel.commit}`);
    if (opts.attest ?? true) {
      const sums = await readFile(join(dir, 'checksums.txt'), 'utf8');
      for (const line of sums.trim().split('\n')) await appendLine(this.attestedFile, `${line.slice(0, 64)} ${tag}`);
    }
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => {
        res.writeHead(500).end();
      });
    });
    await new Promise<void>((ok) => this.server?.listen(0, '127.0.0.1', ok));
    const addr = this.server.address();
    if (addr === null || typeof addr === 'string') throw new Error('no address');
    this.base = `http://127.0.0.1:${addr.port}`;
    return this.base;
  }

  close(): Promise<void> {
    return new Promise((ok) => {
      this.server?.closeAllConnections();
      this.server?.close(() => {
        ok();
      });
    });
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.base);
    const path = url.pathname;
    this.requests.push({
      method: req.method ?? '',
      path,
      query: url.search.replace(/^\?/, ''),
      authorization: req.headers.authorization,
      accept: req.headers.accept,
    });
    const api = `/repos/${RELEASE_REPO}`;
    let m: RegExpExecArray | null;
    if ((m = new RegExp(`^${api}/releases/tags/([^/]+)$`).exec(path)) !== null) {
      const rel = this.releases.get(decodeURIComponent(m[1] ?? ''));
      if (rel === undefined) {
        this.json(res, 404, { message: 'Not Found' });
        return;
      }
      this.json(res, 200, {
        tag_name: rel.tag,
        draft: false,
        prerelease: rel.tag.includes('-'),
        assets: rel.assets.map((a) => ({
          id: a.id,
          name: a.name,
          state: 'uploaded',
          url: `${this.base}${api}/releases/assets/${a.id}`,
          browser_download_url: `${this.base}/download/${rel.tag}/${a.name}`,
          ...(rel.withDigests ? { digest: `sha256:${a.digest}` } : {}),
        })),
      });
      return;
    }
    if ((m = new RegExp(`^${api}/git/ref/tags/([^/]+)$`).exec(path)) !== null) {
      const rel = this.releases.get(decodeURIComponent(m[1] ?? ''));
      if (rel === undefined) {
        this.json(res, 404, { message: 'Not Found' });
        return;
      }
      // An annotated tag: the Action must peel the tag object to its commit.
      this.json(res, 200, { ref: `refs/tags/${rel.tag}`, object: { type: 'tag', sha: rel.tagObject } });
      return;
    }
    if ((m = new RegExp(`^${api}/git/tags/([0-9a-f]{40})$`).exec(path)) !== null) {
      const rel = [...this.releases.values()].find((r) => r.tagObject === m?.[1]);
      if (rel === undefined) {
        this.json(res, 404, { message: 'Not Found' });
        return;
      }
      this.json(res, 200, { sha: rel.tagObject, object: { type: 'commit', sha: rel.commit } });
      return;
    }
    if ((m = new RegExp(`^${api}/releases/assets/(\\d+)$`).exec(path)) !== null) {
      const hit = this.byId.get(Number(m[1]));
      if (hit === undefined) {
        this.json(res, 404, { message: 'Not Found' });
        return;
      }
      if (req.headers.accept !== 'application/octet-stream') {
        this.json(res, 200, { id: Number(m[1]) });
        return;
      }
      // Like GitHub: the API answers with a redirect to the storage URL.
      res.writeHead(302, { location: `${this.base}/download/${hit.rel.tag}/${hit.name}` }).end();
      return;
    }
    if (path === '/user' && req.method === 'GET') {
      if (req.headers.authorization === undefined) this.json(res, 401, { message: 'Requires authentication' });
      else if (this.userLogin === undefined) this.json(res, 403, { message: 'Resource not accessible by integration' });
      else this.json(res, 200, { login: this.userLogin, type: 'User' });
      return;
    }
    if (
      (m = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(path)) !== null ||
      (m = /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(path)) !== null
    ) {
      await this.handleComments(req, res, path, m[1] ?? '', Number(m[2]));
      return;
    }
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)\/files$/.exec(path)) !== null && req.method === 'GET') {
      // GitHub's listing: per_page (default 30, at most 100), page from 1, at most 3000 files in all.
      if (this.pullFilesFault !== undefined) {
        this.json(res, this.pullFilesFault, { message: 'stand-in fault' });
        return;
      }
      const files = this.pullFiles.get(`${m[1] ?? ''}#${m[2] ?? ''}`);
      if (files === undefined) {
        this.json(res, 404, { message: 'Not Found' });
        return;
      }
      const per = Math.min(Number(url.searchParams.get('per_page') ?? '30') || 30, 100);
      const page = Math.max(Number(url.searchParams.get('page') ?? '1') || 1, 1);
      const listed = files.slice(0, 3000);
      this.json(
        res,
        200,
        listed.slice((page - 1) * per, page * per).map((f) => ({ sha: 'e'.repeat(40), status: 'modified', additions: 1, deletions: 1, changes: 2, ...f })),
      );
      return;
    }
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/issues(?:\/(\d+))?$/.exec(path)) !== null) {
      await this.handleIssues(req, res, m[1] ?? '', m[2] === undefined ? undefined : Number(m[2]));
      return;
    }
    if ((m = /^\/download\/([^/]+)\/([^/]+)$/.exec(path)) !== null) {
      const rel = this.releases.get(decodeURIComponent(m[1] ?? ''));
      const name = decodeURIComponent(m[2] ?? '');
      if (rel?.assets.some((a) => a.name === name) !== true) {
        this.json(res, 404, { message: 'Not Found' });
        return;
      }
      const bytes = await readFile(join(rel.dir, name));
      if (this.tampered.has(name)) bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] ?? 0) ^ 0xff;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length }).end(bytes);
      return;
    }
    if (this.extra !== undefined && (await this.extra(req, res, url))) return;
    this.json(res, 404, { message: 'Not Found' });
  }

  /** Adds a comment to pull request repo#number; by default one someone else (octocat) wrote. */
  addComment(repo: string, number: number, body: string, user: StoredComment['user'] = { login: 'octocat', type: 'User' }): number {
    const key = `${repo}#${number}`;
    const list = this.comments.get(key) ?? [];
    const id = this.nextCommentId++;
    list.push({ id, body, user });
    this.comments.set(key, list);
    return id;
  }

  /** Adds an issue to repo; by default an open one someone else (octocat) opened. Returns its number. */
  addIssue(repo: string, over: Partial<Omit<StoredIssue, 'number'>> = {}): number {
    const list = this.issues.get(repo) ?? [];
    const number = this.nextIssueNumber++;
    list.push({
      number,
      title: 'an issue',
      body: '',
      state: 'open',
      state_reason: null,
      labels: [],
      user: { login: 'octocat', type: 'User' },
      ...over,
    });
    this.issues.set(repo, list);
    return number;
  }

  /**
   * GitHub's issues, as far as the Action uses them: GET .../issues (state
   * open|closed|all, default open; labels, a comma-separated list every
   * issue must carry; sort=created with direction asc|desc, default desc;
   * per_page at most 100; page; a Link header with rel="next" while more
   * follow; pull requests included, marked with a pull_request key), POST
   * .../issues (201; labels dropped silently unless labelsSettable), PATCH
   * .../issues/N (200; state_reason only alongside state, else 422). A body
   * over 65,536 characters is refused with 422.
   */
  private async handleIssues(req: IncomingMessage, res: ServerResponse, repo: string, n: number | undefined): Promise<void> {
    const raw = await readRequest(req);
    if (this.issueFault !== undefined) {
      this.json(res, this.issueFault, { message: 'stand-in fault' });
      return;
    }
    if (req.headers.authorization === undefined) {
      this.json(res, 401, { message: 'Requires authentication' });
      return;
    }
    const all = this.issues.get(repo) ?? [];
    const view = (i: StoredIssue) => ({
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      state_reason: i.state_reason,
      labels: i.labels.map((name) => ({ name })),
      user: i.user,
      ...(i.pullRequest === true ? { pull_request: { url: `${this.base}/repos/${repo}/pulls/${i.number}` } } : {}),
    });
    if (req.method === 'GET' && n === undefined) {
      const q = new URL(req.url ?? '/', this.base).searchParams;
      const state = q.get('state') ?? 'open';
      const labels = (q.get('labels') ?? '').split(',').filter((l) => l !== '');
      const perPage = Math.min(Number(q.get('per_page') ?? '30'), 100);
      const page = Number(q.get('page') ?? '1');
      let hits = all.filter((i) => (state === 'all' || i.state === state) && labels.every((l) => i.labels.includes(l)));
      hits = [...hits].sort((a, b) => a.number - b.number);
      if ((q.get('direction') ?? 'desc') === 'desc') hits.reverse();
      const slice = hits.slice((page - 1) * perPage, page * perPage);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (page * perPage < hits.length) {
        q.set('page', String(page + 1));
        headers.link = `<${this.base}/repos/${repo}/issues?${q.toString()}>; rel="next"`;
      }
      res.writeHead(200, headers).end(JSON.stringify(slice.map(view)));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    const payload = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    if (req.headers['content-type'] !== 'application/json' || payload !== parsed) {
      this.json(res, 400, { message: 'Problems parsing JSON' });
      return;
    }
    const path = `/repos/${repo}/issues${n === undefined ? '' : `/${n}`}`;
    if (req.method === 'POST' || req.method === 'PATCH') this.issueWrites.push({ method: req.method, path, payload });
    if (typeof payload.body === 'string' && payload.body.length > 65_536) {
      this.json(res, 422, { message: 'Validation Failed' });
      return;
    }
    const self = this.userLogin === undefined ? ACTIONS_BOT : { login: this.userLogin, type: 'User' as const };
    if (req.method === 'POST' && n === undefined) {
      if (typeof payload.title !== 'string' || payload.title === '') {
        this.json(res, 422, { message: 'Validation Failed' });
        return;
      }
      const labels = Array.isArray(payload.labels) && this.labelsSettable ? payload.labels.filter((l): l is string => typeof l === 'string') : [];
      const number = this.addIssue(repo, {
        title: payload.title,
        body: typeof payload.body === 'string' ? payload.body : null,
        labels,
        user: self,
      });
      const created = this.issues.get(repo)?.find((i) => i.number === number);
      this.json(res, 201, created === undefined ? {} : view(created));
      return;
    }
    if (req.method === 'PATCH' && n !== undefined) {
      if (this.issueEditFault !== undefined) {
        this.json(res, this.issueEditFault, { message: 'stand-in fault' });
        return;
      }
      const issue = all.find((i) => i.number === n);
      if (issue === undefined) {
        this.json(res, 404, { message: 'Not Found' });
        return;
      }
      const state = payload.state;
      const reason = payload.state_reason;
      if ((state !== undefined && state !== 'open' && state !== 'closed') || (reason !== undefined && state === undefined)) {
        this.json(res, 422, { message: 'Validation Failed' });
        return;
      }
      if (typeof payload.body === 'string') issue.body = payload.body;
      if (state === 'open' || state === 'closed') {
        issue.state = state;
        issue.state_reason = reason === 'completed' || reason === 'not_planned' || reason === 'reopened' ? reason : null;
      }
      this.json(res, 200, view(issue));
      return;
    }
    this.json(res, 404, { message: 'Not Found' });
  }

  /**
   * GitHub's issue comments, as far as the Action uses them: GET .../issues/N/comments
   * (per_page at most 100, page, a Link header with rel="next" while more
   * follow), POST .../issues/N/comments (201; a body over 65,536 characters is
   * refused with 422, as GitHub does), PATCH .../issues/comments/ID (200).
   */
  private async handleComments(req: IncomingMessage, res: ServerResponse, path: string, repo: string, n: number): Promise<void> {
    const raw = await readRequest(req);
    if (req.method === 'POST' || req.method === 'PATCH') {
      let payload: Record<string, unknown> = {};
      try {
        payload = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // recorded as an empty payload; refused below
      }
      this.issueWrites.push({ method: req.method, path, payload });
    }
    if (this.commentFault !== undefined) {
      this.json(res, this.commentFault, { message: 'stand-in fault' });
      return;
    }
    if (req.headers.authorization === undefined) {
      this.json(res, 401, { message: 'Requires authentication' });
      return;
    }
    const byId = path.includes('/issues/comments/');
    if (req.method === 'GET' && !byId) {
      const q = new URL(req.url ?? '/', this.base).searchParams;
      const perPage = Math.min(Number(q.get('per_page') ?? '30'), 100);
      const page = Number(q.get('page') ?? '1');
      const all = this.comments.get(`${repo}#${n}`) ?? [];
      const slice = all.slice((page - 1) * perPage, page * perPage);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (page * perPage < all.length) {
        headers.link = `<${this.base}${path}?per_page=${perPage}&page=${page + 1}>; rel="next"`;
      }
      res.writeHead(200, headers).end(JSON.stringify(slice.map((c) => ({ id: c.id, body: c.body, user: c.user }))));
      return;
    }
    let body: unknown;
    try {
      body = (JSON.parse(raw) as { body?: unknown }).body;
    } catch {
      body = undefined;
    }
    if (typeof body !== 'string' || req.headers['content-type'] !== 'application/json') {
      this.json(res, 400, { message: 'Problems parsing JSON' });
      return;
    }
    if (body.length > 65_536) {
      this.json(res, 422, { message: 'Validation Failed' });
      return;
    }
    if (req.method === 'POST' && !byId) {
      const id = this.addComment(repo, n, body, this.userLogin === undefined ? ACTIONS_BOT : { login: this.userLogin, type: 'User' });
      this.json(res, 201, { id, body });
      return;
    }
    if (req.method === 'PATCH' && byId) {
      for (const [key, list] of this.comments) {
        const c = key.startsWith(`${repo}#`) ? list.find((x) => x.id === n) : undefined;
        if (c !== undefined) {
          c.body = body;
          this.json(res, 200, { id: c.id, body });
          return;
        }
      }
    }
    this.json(res, 404, { message: 'Not Found' });
  }
}

function readRequest(req: IncomingMessage): Promise<string> {
  return new Promise<string>((ok) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (data += d));
    req.on('end', () => {
      ok(data);
    });
  });
}

async function appendLine(file: string, line: string): Promise<void> {
  const old = existsSync(file) ? await readFile(file, 'utf8') : '';
  await writeFile(file, `${old}${line}\n`);
}

// ---------------------------------------------------------------------------
// The stand-in gh: plays `gh attestation verify` against the list of
// digests the server recorded as attested, and checks the Action's policy.

const GH_HELP = `Verify the integrity and provenance of an artifact using its associated cryptographically signed attestations.

USAGE
  gh attestation verify [<file-path> | oci://<image-uri>] [--owner | --repo] [flags]

FLAGS
      --bundle string                Path to bundle on disk
      --deny-self-hosted-runners     Fail verification for attestations generated on self-hosted runners
      --digest-alg string            The algorithm used to compute a digest of the artifact: {sha256|sha512} (default "sha256")
  -o, --owner string                 GitHub organization to scope attestation lookup by
      --predicate-type string        Filter attestations by provided predicate type (default "https://slsa.dev/provenance/v1")
  -R, --repo string                  Repository name in the format <owner>/<repo>
      --signer-digest string         Digest associated with the signer workflow
      --signer-repo string           Repository of reusable workflow that signed attestation in the format <owner>/<repo>
      --signer-workflow string       Workflow that signed attestation in the format [host/]<owner>/<repo>/<path>/<to>/<workflow>
      --source-digest string         Digest associated with the source repository ref
      --source-ref string            Ref associated with the source repository
`;

const GH_OLD_HELP = `USAGE
  gh attestation verify [<file-path> | oci://<image-uri>] [--owner | --repo] [flags]

FLAGS
  -o, --owner string                 GitHub organization to scope attestation lookup by
  -R, --repo string                  Repository name in the format <owner>/<repo>
      --signer-workflow string       Workflow that signed attestation
`;

/** Writes the stand-in gh into binDir; it logs every invocation to GH_STANDIN_LOG. */
export async function writeStandInGh(binDir: string): Promise<void> {
  await mkdir(binDir, { recursive: true });
  await writeFile(join(binDir, 'gh-help.txt'), GH_HELP);
  await writeFile(join(binDir, 'gh-old-help.txt'), GH_OLD_HELP);
  const script = `#!/usr/bin/env bash
# Stand-in for the GitHub CLI (attestations cannot be produced offline).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
printf '%s\\n' "$*" >> "$GH_STANDIN_LOG"
[ "\${1:-} \${2:-}" = "attestation verify" ] || { echo "stand-in gh: unsupported" >&2; exit 1; }
if [ "\${3:-}" = "--help" ]; then
  if [ -n "\${GH_STANDIN_OLD:-}" ]; then cat "$here/gh-old-help.txt"; else cat "$here/gh-help.txt"; fi
  exit 0
fi
[ -n "\${GH_TOKEN:-}" ] || { echo "stand-in gh: no GH_TOKEN" >&2; exit 4; }
file=$3; shift 3
declare -A f=()
deny=
while [ $# -gt 0 ]; do
  case "$1" in
    --deny-self-hosted-runners) deny=1; shift ;;
    --*) f[$1]=$2; shift 2 ;;
    *) echo "stand-in gh: stray argument" >&2; exit 1 ;;
  esac
done
[ -n "$deny" ] || exit 20
[ "\${f[--repo]:-}" = "${RELEASE_REPO}" ] || exit 21
[ "\${f[--signer-workflow]:-}" = "${SIGNER_WORKFLOW}" ] || exit 22
[ "\${f[--predicate-type]:-}" = "https://slsa.dev/provenance/v1" ] || exit 23
ref=\${f[--source-ref]:-}
tag=\${ref#refs/tags/}
[ "refs/tags/$tag" = "$ref" ] || exit 24
commit=$(awk -v t="$tag" '$1 == t { print $2 }' "$GH_STANDIN_COMMITS")
[ -n "$commit" ] && [ "\${f[--source-digest]:-}" = "$commit" ] && [ "\${f[--signer-digest]:-}" = "$commit" ] || exit 25
digest=$(sha256sum "$file" | cut -d' ' -f1)
grep -qx "$digest $tag" "$GH_STANDIN_ATTESTED" || { echo "stand-in gh: no attestation for this artifact" >&2; exit 1; }
echo "Loaded digest sha256:$digest"
`;
  await writeFile(join(binDir, 'gh'), script);
  await chmod(join(binDir, 'gh'), 0o755);
}

// ---------------------------------------------------------------------------
// A stand-in CLI release: a script whose report, plan file, exit code and
// `show` rendering the test picks through STANDIN_* variables. Its checksum
// in checksums.txt is genuine.

export async function makeStandInRelease(dir: string, version: string, goos: string, goarch: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const name = `sops-aws-sync_${version}_${goos}_${goarch}`;
  const script = `#!/usr/bin/env bash
# Stand-in sops-aws-sync for the Action's end-to-end tests.
set -euo pipefail
# show PLAN_FILE --format markdown: print the canned rendering in
# STANDIN_SHOW_MARKDOWN (a file) when PLAN_FILE exists; STANDIN_SHOW_EXIT
# makes it fail instead. Its arguments go to STANDIN_SHOW_ARGS.
if [ "\${1:-}" = "show" ]; then
  shift
  printf '%s\\n' "$@" > "\${STANDIN_SHOW_ARGS:-/dev/null}"
  file= format=text
  while [ $# -gt 0 ]; do
    case "$1" in
      --format=*) format=\${1#--format=}; shift ;;
      --format) format=$2; shift 2 ;;
      -*) echo "stand-in show: unknown flag" >&2; exit 3 ;;
      *) file=$1; shift ;;
    esac
  done
  [ "$format" = markdown ] && [ -f "$file" ] || exit 3
  if [ -n "\${STANDIN_SHOW_EXIT:-}" ]; then echo partial; exit "$STANDIN_SHOW_EXIT"; fi
  cat "$STANDIN_SHOW_MARKDOWN"
  exit 0
fi
# scopes generate --check: write the canned section in
# STANDIN_SCOPES_MARKDOWN (a file) to --diff-markdown, print
# STANDIN_SCOPES_LINE and exit STANDIN_SCOPES_EXIT (default 0); its
# arguments go to STANDIN_SCOPES_ARGS.
if [ "\${1:-}" = "scopes" ]; then
  printf '%s\\n' "$@" > "\${STANDIN_SCOPES_ARGS:-/dev/null}"
  for a in "$@"; do
    case "$a" in
      --diff-markdown=*) if [ -n "\${STANDIN_SCOPES_MARKDOWN:-}" ]; then cp "$STANDIN_SCOPES_MARKDOWN" "\${a#--diff-markdown=}"; fi ;;
    esac
  done
  if [ -n "\${STANDIN_SCOPES_LINE:-}" ]; then echo "$STANDIN_SCOPES_LINE"; fi
  exit "\${STANDIN_SCOPES_EXIT:-0}"
fi
report=
plan=
roots=
changes=
for a in "$@"; do
  case "$a" in
    --report-file=*) report=\${a#--report-file=} ;;
    --plan-file=*) plan=\${a#--plan-file=} ;;
    --source-roots-file=*) roots=\${a#--source-roots-file=} ;;
    --reviewed-plan=*) if [ -n "\${STANDIN_REVIEWED:-}" ]; then cp "\${a#--reviewed-plan=}" "$STANDIN_REVIEWED"; fi ;;
    --changes-file=*) changes=\${a#--changes-file=} ;;
  esac
done
printf '%s\\n' "$@" > "$STANDIN_ARGS"
env > "$STANDIN_ENV"
echo '{"level":"INFO","msg":"stand-in run","phase":"complete"}'
echo '::error::a workflow command printed by the CLI'
if [ -n "\${STANDIN_LOG_LINE:-}" ]; then echo "$STANDIN_LOG_LINE"; fi
if [ -n "\${STANDIN_STDERR:-}" ]; then echo "$STANDIN_STDERR" >&2; fi
finish() {
  if [ -n "\${STANDIN_REPORT:-}" ] && [ -n "$report" ]; then printf '%s' "$STANDIN_REPORT" > "$report"; fi
  if [ -n "\${STANDIN_PLAN:-}" ] && [ -n "$plan" ]; then (umask 077; printf '%s' "$STANDIN_PLAN" > "$plan"); fi
  if [ -n "\${STANDIN_SOURCE_ROOTS:-}" ] && [ -n "$roots" ]; then printf '%s' "$STANDIN_SOURCE_ROOTS" > "$roots"; fi
  if [ -n "\${STANDIN_CHANGES:-}" ] && [ -n "$changes" ]; then (umask 077; printf '%s' "$STANDIN_CHANGES" > "$changes"); fi
  exit "\${STANDIN_EXIT:-0}"
}
# STANDIN_BLOCK: wait for a signal instead of finishing at once. "trap":
# record each signal in STANDIN_SIGNALS, then finish as above (the CLI's
# behaviour); "ignore": ignore SIGINT and SIGTERM and block until killed.
# Both write their pids to STANDIN_PID, so a test can check none is left.
case "\${STANDIN_BLOCK:-}" in
  trap)
    on_signal() { printf '%s\\n' "$1" >> "$STANDIN_SIGNALS"; kill "$blocker" 2>/dev/null || true; wait "$blocker" 2>/dev/null || true; finish; }
    trap 'on_signal INT' INT
    trap 'on_signal TERM' TERM
    sleep 100000 </dev/null >/dev/null 2>&1 &
    blocker=$!
    printf '%s %s\\n' "$$" "$blocker" > "$STANDIN_PID"
    echo '{"level":"INFO","msg":"stand-in waiting for a signal"}'
    wait "$blocker" || true
    echo "stand-in: the blocker ended without a signal" >&2
    exit 99
    ;;
  ignore)
    trap '' INT TERM
    printf '%s\\n' "$$" > "$STANDIN_PID"
    echo '{"level":"INFO","msg":"stand-in waiting for a signal"}'
    exec sleep 100000
    ;;
esac
finish
`;
  await writeFile(join(dir, name), script);
  await chmod(join(dir, name), 0o755);
  await writeFile(join(dir, 'checksums.txt'), `${await sha256(join(dir, name))}  ${name}\n`);
  return name;
}

/** A schema v1 report with overrides, as the stand-in CLI writes it. */
export function reportJson(over: Record<string, unknown> = {}, counts: Record<string, number> = {}): string {
  return JSON.stringify({
    schema_version: 'sops-aws-sync/report/v1',
    tool_version: '0.0.0',
    git_revision: '',
    status: 'converged',
    counts: { create: 0, update: 0, restore: 0, schedule_delete: 0, unchanged: 0, conflicts: 0, ...counts },
    verification: 'not-run',
    duration_ms: 3,
    ...over,
  });
}

// ---------------------------------------------------------------------------
// Running the Action as the runner does.

export interface ActionRun extends Exec {
  outputs: Record<string, string>;
  summary: string;
  runnerTemp: string;
}

/** Parses a GITHUB_OUTPUT file (name=value and name<<delimiter blocks). */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc !== null) {
      const [, name = '', delim = ''] = heredoc;
      const value: string[] = [];
      while (++i < lines.length && lines[i] !== delim) value.push(lines[i] ?? '');
      out[name] = value.join('\n');
    } else if (line.includes('=')) {
      out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return out;
}

export interface RunOptions {
  inputs: Record<string, string>;
  env?: Record<string, string>;
  /** A tool cache shared between runs; a fresh one per run when absent. */
  toolCache?: string;
}

/** A running Action: its Node process, a way to wait for a log line, and its end. */
export interface StartedAction {
  /** The Node process running dist/index.js (the runner's step entry process). */
  readonly process: ChildProcess;
  /** Sends signal to the Node process's whole process group (what Ctrl-C in a terminal does). */
  killGroup(signal: NodeJS.Signals): void;
  /**
   * Resolves once the Action's stdout so far contains text; rejects when the
   * Action exits first (with what it printed), so a test never hangs on a
   * line that will not come.
   */
  waitForStdout(text: string): Promise<void>;
  /** Resolves when the Action has exited, with its outputs and summary. */
  readonly done: Promise<ActionRun>;
}

export class Runner {
  constructor(
    readonly work: string,
    readonly baseEnv: Record<string, string>,
  ) {}

  async runAction(opts: RunOptions): Promise<ActionRun> {
    return (await this.startAction(opts)).done;
  }

  /** Starts the Action as the runner does and returns while it runs. */
  async startAction(opts: RunOptions): Promise<StartedAction> {
    const dir = await mkdtemp(join(this.work, 'run-'));
    const runnerTemp = join(dir, 'temp');
    const toolCache = opts.toolCache ?? join(dir, 'toolcache');
    await mkdir(runnerTemp, { recursive: true });
    await mkdir(toolCache, { recursive: true });
    const outputFile = join(dir, 'output');
    const summaryFile = join(dir, 'summary.md');
    await writeFile(outputFile, '');
    await writeFile(summaryFile, '');
    const env: Record<string, string> = {
      ...this.baseEnv,
      RUNNER_TEMP: runnerTemp,
      RUNNER_TOOL_CACHE: toolCache,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      ...opts.env,
    };
    for (const [k, v] of Object.entries(opts.inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
    // Its own process group, so a test can signal the whole group as a
    // terminal's Ctrl-C does without signalling the test runner.
    const proc = spawn(process.execPath, [distEntry], {
      env,
      cwd: env.GITHUB_WORKSPACE ?? dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    const waiters: { text: string; ok: () => void; fail: (e: Error) => void }[] = [];
    proc.stdout.setEncoding('utf8');
    proc.stderr.setEncoding('utf8');
    proc.stdout.on('data', (d: string) => {
      stdout += d;
      for (const w of waiters.filter((x) => stdout.includes(x.text))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.ok();
      }
    });
    proc.stderr.on('data', (d: string) => {
      stderr += d;
    });
    const exited = new Promise<number>((ok, fail) => {
      proc.on('error', () => {
        fail(new Error('node could not be started'));
      });
      proc.on('close', (code, signal) => {
        for (const w of waiters.splice(0)) {
          w.fail(new Error(`the Action exited before printing ${JSON.stringify(w.text)}:\n${stdout}\n${stderr}`));
        }
        ok(code ?? (signal === null ? -1 : 128));
      });
    });
    const done = exited.then(async (code) => ({
      code,
      stdout,
      stderr,
      outputs: parseOutputFile(await readFile(outputFile, 'utf8')),
      summary: await readFile(summaryFile, 'utf8'),
      runnerTemp,
    }));
    return {
      process: proc,
      killGroup: (signal) => {
        if (proc.pid !== undefined) process.kill(-proc.pid, signal);
      },
      done,
      waitForStdout: (text) =>
        stdout.includes(text)
          ? Promise.resolve()
          : proc.exitCode !== null || proc.signalCode !== null
            ? Promise.reject(new Error(`the Action had exited before printing ${JSON.stringify(text)}`))
            : new Promise<void>((ok, fail) => waiters.push({ text, ok, fail })),
    };
  }
}

/** A PATH with binDir first, so the stand-in gh shadows any real one. */
/**
 * A pull_request event payload as GitHub sends it, as far as the Action
 * reads it: the number, and the head and base repositories (the same one
 * unless headRepo names a fork).
 */
export function pullRequestPayload(number: number, repo = 'acme/infra', headRepo = repo): Record<string, unknown> {
  const side = (fullName: string) => ({ repo: { id: fullName === repo ? 1 : 2, full_name: fullName } });
  return { action: 'synchronize', number, pull_request: { number, head: side(headRepo), base: side(repo) } };
}

export function pathWith(binDir: string): string {
  return [binDir, process.env.PATH ?? ''].join(delimiter);
}

export async function freshDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function isFile(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isFile(),
    () => false,
  );
}

// ---------------------------------------------------------------------------
// Real parts for the real CLI: an age key, sops-encrypted documents in a Git
// repository, and the emulator binary.

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

function bech32Polymod(values: number[]): number {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= gen[i] ?? 0;
  }
  return chk >>> 0;
}

/** BIP 173 bech32 encoding, as age uses for its keys. */
function bech32(hrp: string, data: Buffer): string {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const b of data) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  const codes = Array.from(Buffer.from(hrp, 'ascii'));
  const expand = codes.map((c) => c >> 5).concat([0], codes.map((c) => c & 31));
  const mod = bech32Polymod([...expand, ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => BECH32[w]).join('')}`;
}

/** A fresh X25519 age identity: the identity file line and its recipient. */
export function ageKey(): { identity: string; recipient: string } {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const priv = Buffer.from(privateKey.export({ format: 'jwk' }).d ?? '', 'base64url');
  return { identity: bech32('age-secret-key-', priv).toUpperCase(), recipient: bech32('age', pub) };
}

/** Finds the sops CLI on PATH or in $(go env GOPATH)/bin (make tools installs it there). */
export async function findSops(): Promise<string | undefined> {
  for (const d of (process.env.PATH ?? '').split(delimiter)) {
    if (d !== '' && (await isFile(join(d, 'sops')))) return join(d, 'sops');
  }
  const gopath = (await run('go', ['env', 'GOPATH'])).stdout.trim();
  for (const d of gopath.split(delimiter)) if (await isFile(join(d, 'bin', 'sops'))) return join(d, 'bin', 'sops');
  return undefined;
}

export interface Fixture {
  repo: string;
  commit: string;
  keyFile: string;
  home: string;
}

/**
 * A Git repository with documents encrypted by the real sops CLI for a fresh
 * age key: secrets/app.sops.json and secrets/db.sops.yaml (two secrets).
 */
export async function makeFixture(root: string, sops: string): Promise<Fixture> {
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await mkdir(join(repo, 'secrets'), { recursive: true });
  await mkdir(home, { recursive: true });
  const key = ageKey();
  const keyFile = join(root, 'age.key');
  await writeFile(keyFile, `# public key: ${key.recipient}\n${key.identity}\n`, { mode: 0o600 });
  const env = { PATH: process.env.PATH ?? '', HOME: home, GIT_CONFIG_NOSYSTEM: '1', SOPS_AGE_KEY_FILE: keyFile };
  const canary = randomBytes(6).toString('hex');
  const docs: [string, string][] = [
    ['secrets/app.sops.json', `{"user": "svc", "password": "CANARY-${canary}", "port": 5432}\n`],
    ['secrets/db.sops.yaml', `host: db.internal\npassword: CANARY-${canary}\n`],
  ];
  for (const [rel, plain] of docs) {
    await writeFile(join(repo, rel), plain);
    await must(sops, ['--disable-version-check', 'encrypt', '--in-place', '--age', key.recipient, join(repo, rel)], {
      env,
    });
    if ((await readFile(join(repo, rel), 'utf8')).includes(`CANARY-${canary}`)) throw new Error('sops left plaintext');
  }
  const git = (...args: string[]) => must('git', args, { cwd: repo, env });
  await git('init', '-q', '-b', 'main');
  await git('config', 'user.email', 'e2e@example.invalid');
  await git('config', 'user.name', 'e2e');
  await git('config', 'commit.gpgsign', 'false');
  await git('add', '.');
  await git('commit', '-q', '-m', 'desired state');
  const commit = (await git('rev-parse', 'HEAD')).trim();
  return { repo, commit, keyFile, home };
}

/** The emulator binary, started on a free loopback port. */
export class Emulator {
  private proc: ChildProcess | undefined;
  url = '';

  async start(bin: string): Promise<string> {
    const proc = spawn(bin, ['--listen', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.proc = proc;
    this.url = await new Promise<string>((ok, fail) => {
      let buf = '';
      proc.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(buf);
        if (m?.[1] !== undefined) ok(m[1]);
      });
      proc.on('exit', (code) => {
        fail(new Error(`emulator exited ${String(code)}`));
      });
    });
    return this.url;
  }

  /** Calls one Secrets Manager operation on the emulator (AWS JSON 1.1). */
  async call(operation: string, body: Record<string, unknown>): Promise<unknown> {
    const res = await fetch(this.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `secretsmanager.${operation}` },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${operation}: HTTP ${res.status}`);
    return res.json();
  }

  /** Replaces the emulator's whole fault set (PUT /_emulator/faults; {} turns every fault off). */
  async setFaults(faults: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${this.url}/_emulator/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(faults),
    });
    if (!res.ok) throw new Error(`PUT /_emulator/faults: HTTP ${res.status}`);
  }

  stop(): void {
    this.proc?.kill('SIGTERM');
  }
}
