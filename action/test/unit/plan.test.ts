import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  capMarkdown,
  COMMENT_LIMIT,
  COMMENT_PLAN_MAX_BYTES,
  legacyPlanMarker,
  planMarker,
  renderMarkdown,
  STEP_SUMMARY_LIMIT,
  SUMMARY_PLAN_MAX_BYTES,
  truncationNote,
} from '../../src/plan.js';
import { identityOf } from '../fixtures/identity.js';
import { planMarkdown } from '../fixtures/rendering.js';

function rendering(n: number, line?: (i: number) => string): string {
  return planMarkdown(n, { line });
}

/** Open code fences and <details> blocks left after the whole text (CommonMark fences, ``` only here). */
function openBlocks(md: string): { fence: boolean; details: number } {
  let fence: string | undefined;
  let details = 0;
  for (const line of md.split('\n')) {
    if (fence !== undefined) {
      if (new RegExp(`^${fence}\`* *$`).test(line)) fence = undefined;
      continue;
    }
    const m = /^(`{3,}|~{3,})/.exec(line);
    if (m?.[1] !== undefined) {
      fence = m[1];
      continue;
    }
    details += (line.match(/<details[\s>]/g) ?? []).length - (line.match(/<\/details>/g) ?? []).length;
  }
  return { fence: fence !== undefined, details };
}

describe('planMarker', () => {
  it('is a hidden HTML comment of the run identity’s digest, never the prefix, so a prefix with --> cannot end it early', () => {
    const m = planMarker(identityOf({ secretPrefix: 'x --> <b>y</b>' }));
    expect(m).toMatch(/^<!-- sops-aws-sync:plan:[0-9a-f]{16} -->$/);
    expect(m).not.toContain('x -->');
    expect(m.indexOf('-->')).toBe(m.length - 3);
    expect(legacyPlanMarker(identityOf({ secretPrefix: 'x --> <b>y</b>' }))).toMatch(/^<!-- sops-aws-sync:plan:[0-9a-f]{16} -->$/);
  });
});

describe('capMarkdown', () => {
  it('returns a rendering that fits unchanged', () => {
    const md = rendering(5);
    expect(capMarkdown(md, COMMENT_PLAN_MAX_BYTES)).toEqual({ text: md, truncated: false });
  });

  it('cuts an oversized rendering below the limit, closes the fence and <details>, and adds the note', () => {
    const md = rendering(5000);
    expect(Buffer.byteLength(md)).toBeGreaterThan(COMMENT_LIMIT);
    const { text, truncated } = capMarkdown(md, COMMENT_PLAN_MAX_BYTES);
    expect(truncated).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(COMMENT_PLAN_MAX_BYTES);
    expect(openBlocks(text)).toEqual({ fence: false, details: 0 });
    expect(text.startsWith(md.slice(0, 500))).toBe(true);
    // Every line kept is a whole line of the original.
    const kept = text.slice(0, text.indexOf('_Truncated')).split('\n');
    const original = new Set(md.split('\n'));
    for (const l of kept) expect(original.has(l)).toBe(true);
    const shownOps = kept.filter((l) => l.startsWith('  ~ ')).length;
    expect(text).toContain(truncationNote(5000 - shownOps).trim());
    expect(text.endsWith(truncationNote(5000 - shownOps))).toBe(true);
  });

  it('closes a longer fence with the same fence and leaves <details> balanced after a cut outside the fence', () => {
    const md = ['<details><summary>x</summary>', '', '````text', ...Array.from({ length: 400 }, () => 'y'.repeat(20)), '````', '', '</details>'].join('\n');
    const { text } = capMarkdown(md, 2048);
    expect(text).toContain('\n````\n');
    expect(openBlocks(text)).toEqual({ fence: false, details: 0 });

    const afterFence = ['a', '<details>', ...Array.from({ length: 400 }, () => 'plain text line')].join('\n');
    expect(openBlocks(capMarkdown(afterFence, 2048).text)).toEqual({ fence: false, details: 0 });
  });

  it('measures bytes, so multi-byte characters never push a comment over the character limit', () => {
    const md = rendering(3000, (i) => `  ~ 名前-${i} update: ~1 +0 -0 (value differs) ·`);
    const { text } = capMarkdown(md, COMMENT_PLAN_MAX_BYTES);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(COMMENT_PLAN_MAX_BYTES);
    expect(text.length).toBeLessThan(COMMENT_LIMIT);
  });

  it('keeps the summary section below the step-summary limit', () => {
    const md = rendering(40_000);
    expect(Buffer.byteLength(md)).toBeGreaterThan(STEP_SUMMARY_LIMIT);
    const { text, truncated } = capMarkdown(md, SUMMARY_PLAN_MAX_BYTES);
    expect(truncated).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(SUMMARY_PLAN_MAX_BYTES);
    expect(openBlocks(text)).toEqual({ fence: false, details: 0 });
  });

  it('adds nothing but the fixed closers and note (no text of its own from the input)', () => {
    const md = rendering(5000);
    const { text } = capMarkdown(md, 4096);
    const head = text.slice(0, text.indexOf('_Truncated'));
    expect(md.startsWith(head.slice(0, head.lastIndexOf('```')))).toBe(true);
  });
});

describe('capMarkdown on the CLI\'s own renderings (internal/planview golden files)', () => {
  const dir = resolve(dirname(fileURLToPath(import.meta.url)), '../../../internal/planview/testdata');
  const goldens = readdirSync(dir).filter((f) => f.endsWith('.md.golden'));

  it('finds the golden Markdown files', () => {
    expect(goldens.length).toBeGreaterThan(0);
  });

  it.each(goldens)('%s: cut to 1,024 bytes it stays a well-formed prefix with the note', (file) => {
    // Repeat the operations so every golden is over the limit.
    const md = readFileSync(join(dir, file), 'utf8');
    const big = md.replace(/^( {2}[~+^x-] .*)$/gm, (l) => `${l}\n`.repeat(40).trimEnd());
    const { text, truncated } = capMarkdown(big, 1024);
    expect(truncated).toBe(Buffer.byteLength(big) > 1024);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024);
    expect(openBlocks(text)).toEqual({ fence: false, details: 0 });
    // The kept lines are the rendering's own first lines, unchanged.
    const kept = truncated ? text.slice(0, text.lastIndexOf('\n', text.indexOf('_Truncated') - 2)) : text;
    expect(big.startsWith(kept.split('\n').slice(0, 8).join('\n'))).toBe(true);
    if (truncated) expect(text).toContain('_Truncated by the sops-aws-sync Action');
  });
});

describe('renderMarkdown', () => {
  // The timeout is renderMarkdown's setTimeout on a fake clock: it fires only
  // when a test advances the clock, never because a loaded machine was slow
  // to start the child (docs/testing.md, "No test waits for the machine").
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const script = (body: string): string => {
    const dir = mkdtempSync(join(tmpdir(), 'show-'));
    const bin = join(dir, 'cli');
    writeFileSync(bin, `#!/usr/bin/env bash\n${body}\n`);
    chmodSync(bin, 0o755);
    return bin;
  };

  it('runs `show PLAN_FILE --format=markdown` without a shell and returns stdout, dropping stderr', async () => {
    const bin = script('printf "%s|" "$@"; echo; echo "### plan"; echo "on stderr" >&2');
    const r = await renderMarkdown(bin, '/tmp/p $(x).json', '/', { PATH: process.env.PATH ?? '' }, 200);
    expect(r).toEqual({ ok: true, markdown: 'show|/tmp/p $(x).json|--format=markdown|\n### plan\n' });
  });

  it.each([
    ['a non-zero exit', 'echo partial; exit 3', 'sops-aws-sync show exited 3'],
    ['an empty output', 'exit 0', 'sops-aws-sync show printed nothing'],
  ])('gives no Markdown on %s', async (_what, body, reason) => {
    // 200 ms on the fake clock, which never moves: however long the
    // machine takes to start bash, the child's own end decides.
    const r = await renderMarkdown(script(body), '/p.json', '/', { PATH: process.env.PATH ?? '' }, 200);
    expect(r).toEqual({ ok: false, reason });
  });

  it('regression: a show slower than the timeout\'s figure (a loaded machine) is judged by its exit, not timed out', async () => {
    // Half a second of wall time against a 200 ms timeout: with a real timer
    // this was "did not finish within 200 ms" (issue 42, item 13).
    const r = await renderMarkdown(script('sleep 0.5; echo partial; exit 3'), '/p.json', '/', { PATH: process.env.PATH ?? '' }, 200);
    expect(r).toEqual({ ok: false, reason: 'sops-aws-sync show exited 3' });
  });

  it('gives no Markdown on a hang: SIGKILL once the timeout passes on the clock', async () => {
    const r = renderMarkdown(script('exec sleep 30'), '/p.json', '/', { PATH: process.env.PATH ?? '' }, 200);
    vi.advanceTimersByTime(199);
    let settled = false;
    void r.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await r).toEqual({ ok: false, reason: 'sops-aws-sync show did not finish within 200 ms' });
  });

  it('gives no Markdown when the binary cannot be started', async () => {
    const r = await renderMarkdown('/no/such/cli', '/p.json', '/', {}, 200);
    expect(r.ok).toBe(false);
  });
});
