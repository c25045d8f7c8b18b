/**
 * A loopback stand-in for the parts of GitHub the reviewed plan (SPEC §14,
 * src/reviewed.ts) talks to, served on the ReleaseServer's port through its
 * extra-endpoint hook. Exactly what the Action's code paths call, read off
 * @actions/artifact 6.2.1 and src/reviewed.ts:
 *
 * - the Actions results service (ACTIONS_RESULTS_URL, Twirp JSON,
 *   `Authorization: Bearer ACTIONS_RUNTIME_TOKEN`):
 *   `POST /twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact`
 *   (answers a signed upload URL on this server) and `.../FinalizeArtifact`
 *   (answers the artifact id); every other method is a Twirp bad_route;
 * - the blob storage the Azure client writes to through that URL: `PUT
 *   ?comp=block&blockid=ID` (a staged block), `PUT ?comp=blocklist` (the
 *   commit, an XML block list), or one `PUT` of the whole blob;
 * - ACTIONS_RUNTIME_TOKEN: a JWT whose `scp` claim holds
 *   `Actions.Results:<run backend id>:<job backend id>`, the ids the toolkit
 *   sends (runtimeToken builds one per workflow run);
 * - the REST API with github-token: `GET /repos/{o}/{r}/commits/{sha}/pulls`,
 *   `GET /repos/{o}/{r}/actions/runs` (filtered by head_sha, event and
 *   status, as GitHub does), `GET .../actions/runs/{id}/artifacts` (filtered
 *   by name), and `GET .../actions/artifacts/{id}/zip`, a 302 to a signed
 *   blob URL here that serves the uploaded zip (410 once expired).
 *
 * Every request is recorded; the uploaded zips are read back with unzip.
 */
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inflateRawSync } from 'node:zlib';
import type { ReleaseServer } from './harness.js';

const TWIRP = '/twirp/github.actions.results.api.v1.ArtifactService/';

/** A workflow run as the stand-in stores it. */
export interface StoredRun {
  id: number;
  event: string;
  headSha: string;
  status: 'completed' | 'in_progress';
  conclusion: 'success' | 'failure' | null;
  /** The pull requests the run lists (pull_requests[].number). */
  pullRequests: number[];
  /** ISO 8601 time the run was created. */
  createdAt: string;
  /** The results-service ids of the run and of its one job (the runtime token's claim). */
  backendId: string;
  jobBackendId: string;
}

/** A finalized artifact: the zip the client uploaded and what GitHub records of it. */
export interface StoredArtifact {
  id: number;
  name: string;
  runId: number;
  zip: Buffer;
  /** "sha256:<hex>" of the zip, as FinalizeArtifact reported it. */
  digest: string;
  expired: boolean;
}

/** A pull request as GET /repos/{o}/{r}/commits/{sha}/pulls lists it. */
export interface StoredPull {
  number: number;
  mergedAt: string | null;
  mergeCommitSha: string | null;
  baseRef: string;
  headSha: string;
}

/** One Twirp call: its method, its JSON body and the bearer token it carried. */
export interface TwirpCall {
  method: string;
  body: Record<string, unknown>;
  bearer: string | undefined;
}

/** An upload in progress: the staged blocks and, once committed, the blob. */
interface Upload {
  runId: number;
  name: string;
  blocks: Map<string, Buffer>;
  blob: Buffer | undefined;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      ok(Buffer.concat(chunks));
    });
    req.on('error', fail);
  });
}

const b64url = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

export class GitHubStandIn {
  readonly runs = new Map<number, StoredRun>();
  readonly artifacts: StoredArtifact[] = [];
  /** Pull requests by the commit SHA they are listed for. */
  readonly pulls = new Map<string, StoredPull[]>();
  readonly twirpCalls: TwirpCall[] = [];
  /** Artifact ids whose zip was fetched from blob storage, in order. */
  readonly downloads: number[] = [];
  /** Artifact ids whose blob storage serves these bytes instead of the upload (the recorded digest stays the uploaded one's). */
  readonly served = new Map<number, Buffer>();
  private readonly uploads = new Map<string, Upload>();
  private readonly tokens = new Map<string, number>();
  private readonly jwtKey = randomBytes(32);
  private nextArtifactId = 9000;
  private nextRunId = 700;

  constructor(
    private readonly server: ReleaseServer,
    /** owner/repo of the workflow runs. */
    readonly repo: string,
    /** The github-token the REST calls must carry. */
    private readonly githubToken: string,
  ) {
    server.extra = (req, res, url) => this.handle(req, res, url);
  }

  /** ACTIONS_RESULTS_URL: the toolkit keeps only its origin. */
  get resultsUrl(): string {
    return `${this.server.base}/`;
  }

  /** Adds a workflow run; createdAt orders runs (later is newer). */
  addRun(over: Partial<StoredRun> & Pick<StoredRun, 'headSha' | 'pullRequests' | 'createdAt'>): StoredRun {
    const run: StoredRun = {
      id: this.nextRunId++,
      event: 'pull_request',
      status: 'completed',
      conclusion: 'success',
      backendId: randomUUID(),
      jobBackendId: randomUUID(),
      ...over,
    };
    this.runs.set(run.id, run);
    return run;
  }

  /** Lists pull request pr for commit sha (GitHub lists a merged pull request for its merge commit). */
  addPull(sha: string, pr: StoredPull): void {
    this.pulls.set(sha, [...(this.pulls.get(sha) ?? []), pr]);
  }

  /**
   * The ACTIONS_RUNTIME_TOKEN of a job of run: a signed JWT whose scp claim
   * names the run's and the job's backend ids, as the toolkit parses it.
   */
  runtimeToken(run: StoredRun): string {
    const head = b64url({ typ: 'JWT', alg: 'HS256' });
    const claims = b64url({
      scp: `Actions.ExampleScope Actions.Results:${run.backendId}:${run.jobBackendId}`,
      iss: 'stand-in',
      exp: Math.floor(Date.now() / 1000) + 3600,
    });
    const sig = createHmac('sha256', this.jwtKey).update(`${head}.${claims}`).digest('base64url');
    const token = `${head}.${claims}.${sig}`;
    this.tokens.set(token, run.id);
    return token;
  }

  /** The run whose job runtimeToken issued token, if any. */
  runOfToken(token: string | undefined): StoredRun | undefined {
    const id = token === undefined ? undefined : this.tokens.get(token);
    return id === undefined ? undefined : this.runs.get(id);
  }

  /** The artifacts of run, oldest first. */
  artifactsOf(run: StoredRun): StoredArtifact[] {
    return this.artifacts.filter((a) => a.runId === run.id);
  }

  reset(): void {
    this.runs.clear();
    this.artifacts.length = 0;
    this.pulls.clear();
    this.twirpCalls.length = 0;
    this.downloads.length = 0;
    this.served.clear();
    this.uploads.clear();
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  private async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const path = url.pathname;
    if (path.startsWith(TWIRP) && req.method === 'POST') {
      await this.twirp(req, res, path.slice(TWIRP.length));
      return true;
    }
    let m: RegExpExecArray | null;
    if ((m = /^\/blob\/upload\/([0-9a-f-]+)$/.exec(path)) !== null && req.method === 'PUT') {
      await this.blobPut(req, res, m[1] ?? '', url.searchParams);
      return true;
    }
    if ((m = /^\/blob\/download\/(\d+)\.zip$/.exec(path)) !== null && req.method === 'GET') {
      const a = this.artifacts.find((x) => x.id === Number(m?.[1]));
      if (a === undefined || url.searchParams.get('sig') === null) {
        res.writeHead(404).end();
        return true;
      }
      this.downloads.push(a.id);
      const bytes = this.served.get(a.id) ?? a.zip;
      res.writeHead(200, { 'content-type': 'application/zip', 'content-length': bytes.length }).end(bytes);
      return true;
    }
    const repoPath = `/repos/${this.repo}`;
    if (!path.startsWith(`${repoPath}/`) || req.method !== 'GET') return false;
    if (req.headers.authorization !== `token ${this.githubToken}`) {
      this.json(res, 401, { message: 'Bad credentials' });
      return true;
    }
    const rest = path.slice(repoPath.length);
    const q = url.searchParams;
    if ((m = /^\/commits\/([0-9a-f]{40})\/pulls$/.exec(rest)) !== null) {
      this.json(
        res,
        200,
        (this.pulls.get(m[1] ?? '') ?? []).map((p) => ({
          number: p.number,
          state: p.mergedAt === null ? 'open' : 'closed',
          merged_at: p.mergedAt,
          merge_commit_sha: p.mergeCommitSha,
          base: { ref: p.baseRef },
          head: { sha: p.headSha },
        })),
      );
      return true;
    }
    if (rest === '/actions/runs') {
      const runs = [...this.runs.values()]
        .filter(
          (r) =>
            (q.get('head_sha') === null || r.headSha === q.get('head_sha')) &&
            (q.get('event') === null || r.event === q.get('event')) &&
            (q.get('status') === null || r.status === q.get('status') || r.conclusion === q.get('status')),
        )
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
      this.json(res, 200, {
        total_count: runs.length,
        workflow_runs: runs.map((r) => ({
          id: r.id,
          event: r.event,
          head_sha: r.headSha,
          status: r.status,
          conclusion: r.conclusion,
          created_at: r.createdAt,
          pull_requests: r.pullRequests.map((number) => ({ number, head: { sha: r.headSha }, base: { ref: 'main' } })),
        })),
      });
      return true;
    }
    if ((m = /^\/actions\/runs\/(\d+)\/artifacts$/.exec(rest)) !== null) {
      const run = this.runs.get(Number(m[1]));
      if (run === undefined) {
        this.json(res, 404, { message: 'Not Found' });
        return true;
      }
      const list = this.artifactsOf(run).filter((a) => q.get('name') === null || a.name === q.get('name'));
      this.json(res, 200, {
        total_count: list.length,
        artifacts: list.map((a) => ({
          id: a.id,
          name: a.name,
          size_in_bytes: a.zip.length,
          expired: a.expired,
          digest: a.digest,
          workflow_run: { id: run.id, head_sha: run.headSha },
        })),
      });
      return true;
    }
    if ((m = /^\/actions\/artifacts\/(\d+)\/zip$/.exec(rest)) !== null) {
      const a = this.artifacts.find((x) => x.id === Number(m?.[1]));
      if (a === undefined) this.json(res, 404, { message: 'Not Found' });
      else if (a.expired) this.json(res, 410, { message: 'Artifact has expired' });
      else res.writeHead(302, { location: `${this.server.base}/blob/download/${a.id}.zip?sig=${randomBytes(8).toString('hex')}` }).end();
      return true;
    }
    return false;
  }

  /** The Twirp methods the upload calls; a bearer token not issued by runtimeToken is 401. */
  private async twirp(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    const raw = (await readBody(req)).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // recorded empty; refused below
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    this.twirpCalls.push({ method, body, bearer });
    const run = this.runOfToken(bearer);
    if (run === undefined) {
      this.json(res, 401, { code: 'unauthenticated', msg: 'stand-in: unknown runtime token' });
      return;
    }
    if (body.workflow_run_backend_id !== run.backendId || body.workflow_job_run_backend_id !== run.jobBackendId || typeof body.name !== 'string') {
      this.json(res, 400, { code: 'invalid_argument', msg: 'stand-in: backend ids or name' });
      return;
    }
    const key = `${run.id}\n${body.name}`;
    if (method === 'CreateArtifact') {
      const id = randomUUID();
      this.uploads.set(id, { runId: run.id, name: body.name, blocks: new Map(), blob: undefined });
      this.uploads.set(key, this.uploads.get(id) as Upload);
      this.json(res, 200, { ok: true, signed_upload_url: `${this.server.base}/blob/upload/${id}?sig=${randomBytes(8).toString('hex')}&sp=cw` });
      return;
    }
    if (method === 'FinalizeArtifact') {
      const up = this.uploads.get(key);
      const blob = up?.blob;
      if (up === undefined || blob === undefined || String(body.size) !== String(blob.length)) {
        this.json(res, 400, { code: 'invalid_argument', msg: 'stand-in: nothing uploaded, or another size' });
        return;
      }
      const digest = `sha256:${createHash('sha256').update(blob).digest('hex')}`;
      if (body.hash !== undefined && body.hash !== digest) {
        this.json(res, 400, { code: 'invalid_argument', msg: 'stand-in: hash' });
        return;
      }
      const id = this.nextArtifactId++;
      this.artifacts.push({ id, name: up.name, runId: run.id, zip: blob, digest, expired: false });
      this.uploads.delete(key);
      this.json(res, 200, { ok: true, artifact_id: String(id) });
      return;
    }
    this.json(res, 404, { code: 'bad_route', msg: `stand-in: ${method} is not served` });
  }

  /** Azure Put Block, Put Block List and Put Blob on a signed upload URL. */
  private async blobPut(req: IncomingMessage, res: ServerResponse, id: string, q: URLSearchParams): Promise<void> {
    const body = await readBody(req);
    const up = this.uploads.get(id);
    if (up === undefined || q.get('sig') === null) {
      res.writeHead(403).end();
      return;
    }
    const headers = { 'x-ms-request-id': randomUUID(), 'x-ms-version': '2025-11-05', 'x-ms-request-server-encrypted': 'true' };
    const comp = q.get('comp');
    if (comp === 'block') {
      up.blocks.set(q.get('blockid') ?? '', body);
      res.writeHead(201, headers).end();
      return;
    }
    if (comp === 'blocklist') {
      const ids = [...body.toString('utf8').matchAll(/<(?:Latest|Uncommitted|Committed)>([^<]*)<\//g)].map((x) => x[1] ?? '');
      const parts = ids.map((b) => up.blocks.get(b));
      if (parts.some((p) => p === undefined)) {
        res.writeHead(400, headers).end();
        return;
      }
      up.blob = Buffer.concat(parts as Buffer[]);
    } else if (comp === null) {
      up.blob = body;
    } else {
      res.writeHead(400, headers).end();
      return;
    }
    res.writeHead(201, { ...headers, etag: `"0x${randomBytes(8).toString('hex')}"`, 'last-modified': new Date().toUTCString() }).end();
  }
}

/**
 * The entries of a zip archive (PKWARE APPNOTE: the end of central
 * directory record, the central directory, each local header), stored or
 * deflated. Throws on anything else, so a test never reads a malformed
 * archive as empty.
 */
export function unzip(zip: Buffer): { name: string; data: Buffer }[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip: no end of central directory');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const out: { name: string; data: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error('zip: bad central directory entry');
    const method = zip.readUInt16LE(p + 10);
    const compressed = zip.readUInt32LE(p + 20);
    const size = zip.readUInt32LE(p + 24);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error('zip: bad local header');
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) data = inflateRawSync(raw);
    else throw new Error(`zip: compression method ${method}`);
    if (data.length !== size) throw new Error('zip: size differs from the central directory');
    out.push({ name, data });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}
