import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INPUT_NAMES } from '../../src/inputs.js';
import { OUTPUT_NAMES } from '../../src/main.js';
import { Message } from '../../src/messages.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

interface ActionYml {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
}
const action = parse(read('action.yml')) as ActionYml;

interface Step {
  uses?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  permissions?: Record<string, string>;
  jobs: Record<string, { if?: string; steps: Step[] }>;
}

describe('action.yml', () => {
  it('declares exactly the inputs the code reads and the outputs it sets', () => {
    expect(Object.keys(action.inputs)).toEqual([...INPUT_NAMES]);
    expect(Object.keys(action.outputs)).toEqual([...OUTPUT_NAMES]);
    // secret-prefix is required unless config-file is set: the Action checks
    // it (parseInputs), so the runner does not.
    expect(action.inputs['secret-prefix']?.required).toBe(false);
    expect(action.inputs['config-file']?.default).toBe('');
    expect(action.inputs.scopes?.default).toBe('');
    expect(action.inputs.mode?.default).toBe('plan');
    expect(action.inputs['github-token']?.default).toBe('${{ github.token }}');
  });

  it('runs the committed bundle on node24', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'action/dist/index.js' });
    expect(readFileSync(join(root, action.runs.main), 'utf8').length).toBeGreaterThan(1000);
  });
});

describe('example workflows', () => {
  const dir = '.github/workflows/examples';
  const files = readdirSync(join(root, dir)).filter((f) => f.endsWith('.yml'));
  const cliVersion = action.inputs['cli-version']?.default ?? '';

  it.each(files)('%s uses only declared inputs, pinned to the release the Action installs', (file) => {
    const wf = parse(read(join(dir, file))) as Workflow;
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
    const ours = steps.filter((s) => s.uses?.startsWith('sops-aws-sync/sops-aws-sync@'));
    expect(ours.length).toBeGreaterThan(0);
    for (const s of ours) {
      expect(s.uses).toBe(`sops-aws-sync/sops-aws-sync@v${cliVersion}`);
      for (const k of Object.keys(s.with ?? {})) expect(INPUT_NAMES as readonly string[]).toContain(k);
      // A prefix, or a config file that names one per scope.
      expect(typeof s.with?.['secret-prefix'] === 'string' || typeof s.with?.['config-file'] === 'string').toBe(true);
    }
    expect(wf.permissions?.['id-token']).toBe('write');
    expect(steps.some((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@'))).toBe(true);
  });

  it('plans with the drift gate and syncs as the single writer of the scope', () => {
    const plan = parse(read(join(dir, 'secrets-plan.yml'))) as Workflow;
    const sync = parse(read(join(dir, 'secrets-sync.yml'))) as Workflow;
    const with_ = (wf: Workflow) =>
      Object.values(wf.jobs)
        .flatMap((j) => j.steps)
        .find((s) => s.uses?.startsWith('sops-aws-sync/sops-aws-sync@'))?.with ?? {};
    expect(with_(plan)).toMatchObject({ mode: 'plan', 'fail-on-drift': true });
    expect(with_(sync)).toMatchObject({ mode: 'sync' });
    expect(sync.concurrency?.['cancel-in-progress']).toBe(false);
    expect(sync.concurrency?.group).toContain(String(with_(sync)['secret-prefix']));
  });

  it('plans every scope of a config file in one run, with one comment and no per-scope input', () => {
    const wf = parse(read(join(dir, 'secrets-scopes.yml'))) as Workflow;
    const step = Object.values(wf.jobs)
      .flatMap((j) => j.steps)
      .find((s) => s.uses?.startsWith('sops-aws-sync/sops-aws-sync@'));
    expect(step?.with).toMatchObject({ mode: 'plan', 'pull-request-comment': true, 'config-file': 'sops-aws-sync.yaml' });
    for (const perScope of ['secret-prefix', 'source-root', 'aws-region', 'kms-key-id', 'description', 'tags', 'max-deletions', 'recovery-window-days', 'allow-empty']) {
      expect(step?.with?.[perScope], perScope).toBeUndefined();
    }
    expect(wf.permissions).toEqual({ contents: 'read', 'id-token': 'write', 'pull-requests': 'write' });
  });

  it('checks drift on a schedule and by hand in one never-cancelling group of its own, with issues: write', () => {
    const check = parse(read(join(dir, 'secrets-drift-check.yml'))) as Workflow;
    const sync = parse(read(join(dir, 'secrets-sync.yml'))) as Workflow;
    const step = Object.values(check.jobs)
      .flatMap((j) => j.steps)
      .find((s) => s.uses?.startsWith('sops-aws-sync/sops-aws-sync@'));
    expect(step?.with).toMatchObject({ mode: 'plan', 'drift-issue': true });
    expect(step?.with?.['fail-on-drift']).toBeUndefined();
    expect(Object.keys(check.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    // One group for the schedule and manual runs (the workflow-level group
    // covers both triggers), never cancelling a running check...
    expect(check.concurrency?.['cancel-in-progress']).toBe(false);
    expect(check.concurrency?.group).toContain(String(step?.with?.['secret-prefix']));
    expect(check.concurrency?.group).not.toContain('github.ref');
    expect(check.concurrency?.group).not.toContain('github.event_name');
    // ...and not the sync's: a waiting check must never replace a waiting sync.
    expect(check.concurrency?.group).not.toBe(sync.concurrency?.group);
    expect(check.permissions).toEqual({ contents: 'read', 'id-token': 'write', issues: 'write' });
    expect(Object.values(check.jobs).every((j) => j.if === "github.ref == 'refs/heads/main'")).toBe(true);
  });
});

describe('docs/github-action.md', () => {
  const doc = read('docs/github-action.md');

  it('documents every input, output and fixed message', () => {
    for (const name of [...INPUT_NAMES, ...OUTPUT_NAMES]) expect(doc).toContain(`\`${name}\``);
    for (const m of Object.values(Message)) expect(doc).toContain(m);
  });

  it('shows every example workflow verbatim', () => {
    const files = readdirSync(join(root, '.github/workflows/examples')).filter((f) => f.endsWith('.yml'));
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const f of files) {
      expect(doc, f).toContain(read(join('.github/workflows/examples', f)).trim());
    }
  });

  // Every CLI setting is an input, set by the Action, or reachable through
  // config-file: the table under "Settings without an input" says how, and
  // lists exactly the settings that have no input of their own.
  it('says how to set every CLI setting that has no input', () => {
    const wire = JSON.parse(read('internal/vocab/testdata/wire.golden.json')) as { settings: { name: string }[] };
    const section = doc.slice(doc.indexOf('### Settings without an input'), doc.indexOf('## Outputs'));
    const rows = [...section.matchAll(/^\| `([a-z-]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]] as const);
    const documented = rows.map(([name]) => name).sort();
    const missing = wire.settings.map((s) => s.name).filter((n) => !(INPUT_NAMES as readonly string[]).includes(n));
    expect(documented).toEqual([...missing].sort());
    for (const [name, how] of rows) expect(how, name).toMatch(/set by the Action|input|config-file/);
  });
});

// The files a run reads: the config file (with config-file) and each source
// root. A trigger's paths must cover all of them, or a merge that changes one
// (an adopt-only change of the config file) never plans or syncs.
describe('example workflow triggers', () => {
  const dir = '.github/workflows/examples';
  const files = readdirSync(join(root, dir)).filter((f) => f.endsWith('.yml'));
  const doc = read('docs/github-action.md');
  // The config file every config-file example names is the one docs/github-action.md shows.
  const configBlock = doc.slice(doc.indexOf('# sops-aws-sync.yaml, at the repository root'));
  const config = parse(configBlock.slice(0, configBlock.indexOf('```'))) as { scopes: { 'source-root': string }[] };

  const covers = (pattern: string, file: string) =>
    pattern === file || pattern === '**' || (pattern.endsWith('/**') && file.startsWith(pattern.slice(0, -2)));

  it.each(files)('%s: every trigger with paths covers the files the run reads', (file) => {
    const wf = parse(read(join(dir, file))) as Workflow;
    const step = Object.values(wf.jobs)
      .flatMap((j) => j.steps)
      .find((s) => s.uses?.startsWith('sops-aws-sync/sops-aws-sync@'));
    const w = step?.with ?? {};
    const reads: string[] = [];
    if (typeof w['config-file'] === 'string') {
      reads.push(w['config-file']);
      for (const s of config.scopes) reads.push(`${s['source-root']}/x/y.sops.json`);
    } else {
      reads.push(`${typeof w['source-root'] === 'string' ? w['source-root'] : 'secrets'}/x/y.sops.json`);
    }
    for (const [event, spec] of Object.entries(wf.on)) {
      const paths = (spec as { paths?: string[] } | null)?.paths;
      if (!paths) continue;
      for (const f of reads) expect(paths.some((p) => covers(p, f)), `${event} paths ${JSON.stringify(paths)} miss ${f}`).toBe(true);
    }
  });

  it('syncs a config file as one writer, in a group of its own for the drift check', () => {
    const sync = parse(read(join(dir, 'secrets-scopes-sync.yml'))) as Workflow;
    const check = parse(read(join(dir, 'secrets-scopes-drift-check.yml'))) as Workflow;
    expect(sync.concurrency?.['cancel-in-progress']).toBe(false);
    expect(sync.concurrency?.group).toContain('sops-aws-sync.yaml');
    expect(sync.concurrency?.group).toContain('${{ github.repository }}');
    expect(check.concurrency?.['cancel-in-progress']).toBe(false);
    expect(check.concurrency?.group).toContain('sops-aws-sync.yaml');
    expect(check.concurrency?.group).not.toBe(sync.concurrency?.group);
    expect(check.permissions).toMatchObject({ issues: 'write' });
    expect(Object.keys((sync.on as { push: { paths: string[] } }).push)).toContain('paths');
  });
});
