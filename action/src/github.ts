/**
 * The GitHub REST API calls the installer needs: the release for one exact
 * tag, the commit that tag points at, and asset downloads. The API base comes
 * from GITHUB_API_URL (https only, except loopback hosts used by tests).
 * Errors are ActionFailures with the fixed installation message; reasons name
 * the request and the HTTP status, never the token or a response body.
 */
import { HttpClient } from '@actions/http-client';
import * as tc from '@actions/tool-cache';
import { installFailure } from './messages.js';

export interface ReleaseAsset {
  name: string;
  /** API URL of the asset; downloading it with Accept: application/octet-stream yields the bytes. */
  url: string;
  /** "sha256:<hex>" when GitHub recorded the asset's digest. */
  digest: string | undefined;
}

export interface Release {
  tag: string;
  assets: ReleaseAsset[];
}

const USER_AGENT = 'sops-aws-sync-action';
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Returns the API base URL without a trailing slash. GITHUB_API_URL defaults
 * to https://api.github.com; plain http is accepted only for loopback hosts.
 */
export function apiBase(env: NodeJS.ProcessEnv): string {
  const raw = env.GITHUB_API_URL || 'https://api.github.com';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw installFailure('GITHUB_API_URL is not a URL.');
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK.has(u.hostname))) {
    throw installFailure('GITHUB_API_URL must use https.');
  }
  return u.toString().replace(/\/+$/, '');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class GitHubApi {
  private readonly http = new HttpClient(USER_AGENT, [], { allowRetries: true, maxRetries: 2 });
  private readonly origin: string;

  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {
    this.origin = new URL(base).origin;
  }

  private headers(accept: string): Record<string, string> {
    return {
      accept,
      authorization: `Bearer ${this.token}`,
      'x-github-api-version': '2022-11-28',
    };
  }

  private async getBody(url: string, accept: string, what: string, maxBytes: number): Promise<string> {
    let res: Awaited<ReturnType<HttpClient['get']>>;
    try {
      res = await this.http.get(url, this.headers(accept));
    } catch {
      throw installFailure(`${what} could not reach the GitHub API.`);
    }
    const status = res.message.statusCode ?? 0;
    if (status !== 200) {
      res.message.resume();
      throw installFailure(`${what} returned HTTP ${status}.`);
    }
    const body = await res.readBody();
    if (Buffer.byteLength(body) > maxBytes) throw installFailure(`${what} is larger than expected.`);
    return body;
  }

  private async getJson(path: string, what: string): Promise<Record<string, unknown>> {
    const body = await this.getBody(`${this.base}${path}`, 'application/vnd.github+json', what, 4 << 20);
    let doc: unknown;
    try {
      doc = JSON.parse(body);
    } catch {
      throw installFailure(`${what} did not return JSON.`);
    }
    if (!isRecord(doc)) throw installFailure(`${what} returned an unexpected document.`);
    return doc;
  }

  /** GET /repos/{repo}/releases/tags/{tag}: the published release of one exact tag. */
  async release(repo: string, tag: string): Promise<Release> {
    const what = `Release lookup for ${tag}`;
    const doc = await this.getJson(`/repos/${repo}/releases/tags/${encodeURIComponent(tag)}`, what);
    if (doc.tag_name !== tag || doc.draft === true || !Array.isArray(doc.assets)) {
      throw installFailure(`${what} returned unexpected release metadata.`);
    }
    const assets: ReleaseAsset[] = [];
    for (const a of doc.assets as unknown[]) {
      if (!isRecord(a) || typeof a.name !== 'string' || typeof a.url !== 'string') {
        throw installFailure(`${what} returned a malformed asset.`);
      }
      assets.push({ name: a.name, url: a.url, digest: typeof a.digest === 'string' ? a.digest : undefined });
    }
    return { tag, assets };
  }

  /**
   * The full commit SHA a tag points at, peeling annotated tags:
   * GET /repos/{repo}/git/ref/tags/{tag}, then /git/tags/{sha} per tag object.
   */
  async tagCommit(repo: string, tag: string): Promise<string> {
    const what = `Tag lookup for ${tag}`;
    let doc = await this.getJson(`/repos/${repo}/git/ref/tags/${encodeURIComponent(tag)}`, what);
    for (let depth = 0; depth < 4; depth++) {
      const obj = doc.object;
      if (!isRecord(obj) || typeof obj.sha !== 'string' || !/^[0-9a-f]{40}$/.test(obj.sha)) break;
      if (obj.type === 'commit') return obj.sha;
      if (obj.type !== 'tag') break;
      doc = await this.getJson(`/repos/${repo}/git/tags/${obj.sha}`, what);
    }
    throw installFailure(`${what} did not resolve to a commit.`);
  }

  private assetUrl(asset: ReleaseAsset): string {
    let u: URL;
    try {
      u = new URL(asset.url);
    } catch {
      throw installFailure(`Release asset ${asset.name} has no usable URL.`);
    }
    // The token goes only to the API host; GitHub then redirects to storage
    // and the HTTP client drops the authorization header on a host change.
    if (u.origin !== this.origin) throw installFailure(`Release asset ${asset.name} is not served by the API host.`);
    return u.toString();
  }

  /** Downloads a small text asset (checksums.txt) into memory. */
  async downloadText(asset: ReleaseAsset, maxBytes: number): Promise<string> {
    return this.getBody(this.assetUrl(asset), 'application/octet-stream', `Download of ${asset.name}`, maxBytes);
  }

  /** Downloads an asset to a fresh file under RUNNER_TEMP and returns its path. */
  async downloadFile(asset: ReleaseAsset): Promise<string> {
    const url = this.assetUrl(asset);
    try {
      return await tc.downloadTool(url, undefined, `Bearer ${this.token}`, {
        accept: 'application/octet-stream',
        'x-github-api-version': '2022-11-28',
      });
    } catch (e) {
      const code = e instanceof tc.HTTPError ? ` (HTTP ${e.httpStatusCode})` : '';
      throw installFailure(`Download of ${asset.name} failed${code}.`);
    }
  }
}
