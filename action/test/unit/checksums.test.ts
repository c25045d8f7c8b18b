import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChecksumsError, parseChecksums, sha256File } from '../../src/checksums.js';

const A = 'a'.repeat(64);
const B = '0123456789abcdef'.repeat(4);

describe('parseChecksums', () => {
  it('reads sha256sum lines, with or without a final newline', () => {
    const text = `${A}  sops-aws-sync_1.2.3_linux_amd64\n${B}  sops-aws-sync_1.2.3_darwin_arm64\n`;
    const m = parseChecksums(text);
    expect(m.get('sops-aws-sync_1.2.3_linux_amd64')).toBe(A);
    expect(m.get('sops-aws-sync_1.2.3_darwin_arm64')).toBe(B);
    expect(parseChecksums(text.trimEnd()).size).toBe(2);
  });

  it.each([
    ['empty', ''],
    ['only a newline', '\n'],
    ['one space', `${A} x`],
    ['binary marker', `${A} *x`],
    ['upper-case hex', `${A.toUpperCase()}  x`],
    ['short digest', `${A.slice(1)}  x`],
    ['CRLF', `${A}  x\r\n`],
    ['blank line', `${A}  x\n\n${B}  y\n`],
    ['path separator', `${A}  dir/x`],
    ['space in name', `${A}  x y`],
    ['duplicate asset', `${A}  x\n${B}  x\n`],
    ['trailing garbage', `${A}  x\nhello\n`],
  ])('rejects %s', (_what, text) => {
    expect(() => parseChecksums(text)).toThrow(ChecksumsError);
  });
});

describe('sha256File', () => {
  it('hashes file contents', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sums-'));
    const p = join(dir, 'f');
    writeFileSync(p, 'abc');
    // FIPS 180-2 test vector for "abc".
    expect(await sha256File(p)).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
