/**
 * Release checksums (SPEC §8): checksums.txt holds one line per asset,
 * "<sha256>␣␣<asset>", as sha256sum and scripts/release.sh write it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Largest checksums.txt the Action accepts; a real one is under 1 KiB. */
export const MAX_CHECKSUMS_BYTES = 64 * 1024;

const LINE = /^([0-9a-f]{64}) {2}([A-Za-z0-9._+-]{1,255})$/;

/** checksums.txt is malformed. The message names the line number, never its text. */
export class ChecksumsError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ChecksumsError';
  }
}

/**
 * Parses checksums.txt into asset name → lower-case hex SHA-256. Strict: every
 * line must match exactly (64 lower-case hex digits, two spaces, a plain file
 * name), LF line endings, an optional final newline, no blank lines and no
 * asset listed twice. Throws ChecksumsError otherwise.
 */
export function parseChecksums(text: string): Map<string, string> {
  if (text.length > MAX_CHECKSUMS_BYTES) throw new ChecksumsError('checksums.txt is too large');
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (body === '') throw new ChecksumsError('checksums.txt is empty');
  const out = new Map<string, string>();
  body.split('\n').forEach((line, i) => {
    const m = LINE.exec(line);
    if (m === null) throw new ChecksumsError(`checksums.txt line ${i + 1} is malformed`);
    const [, digest, name] = m as unknown as [string, string, string];
    if (out.has(name)) throw new ChecksumsError(`checksums.txt lists an asset twice (line ${i + 1})`);
    out.set(name, digest);
  });
  return out;
}

/** Streams a file through SHA-256 and returns the lower-case hex digest. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
