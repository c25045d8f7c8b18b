/**
 * The wire contract between the CLI and the Action. The Go side generates
 * internal/vocab/testdata/wire.golden.json from its declarations
 * (TestWireContractGolden); every test here asserts that one of the Action's
 * own declarations equals it. A status, verification, count key, exit code
 * or setting rule changed in Go only fails here until the Action agrees.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliArgs } from '../../src/cli.js';
import {
  INPUT_NAMES,
  isPositiveGoDuration,
  PARAMETER_TIERS,
  parseInputs,
  TARGET_ROWS,
  TARGETS,
  type InputName,
  type Inputs,
} from '../../src/inputs.js';
import { COUNT_VIEW, OUTPUT_NAMES } from '../../src/main.js';
import { COMMENT_LIMIT, STEP_SUMMARY_LIMIT } from '../../src/plan.js';
import {
  COUNT_KEYS,
  EXIT_STATUS,
  failureMessageFor,
  isDocumentedExit,
  OPTIONAL_REPORT_KEYS,
  parseReport,
  plannedOperations,
  REPORT_KEYS,
  SCOPE_KEYS,
  REPORT_SCHEMA,
  STATUSES,
  VERIFICATIONS,
  type Counts,
} from '../../src/report.js';

interface WireContract {
  report_schema: string;
  report_keys: string[];
  report_optional_keys: string[];
  report_scope_keys: string[];
  count_keys: string[];
  operation_count_keys: string[];
  statuses: string[];
  verifications: string[];
  exit_codes: number[];
  exit_statuses: Record<string, string[]>;
  status_exit: Record<string, { default: number; detailed: number }>;
  settings: { name: string; kind: string; required?: boolean; flag_only?: boolean; plan_only?: boolean }[];
  int_ranges: Record<string, { min: number; max: number }>;
  durations: { value: string; accepted: boolean }[];
  choices: Record<string, string[]>;
  github_comment_limit: number;
  github_step_summary_limit: number;
  targets: { target: string; arn_service: string; arn_resource: string; service: string; resources: string; deletion_undoable: boolean }[];
}

const golden = resolve(dirname(fileURLToPath(import.meta.url)), '../../../internal/vocab/testdata/wire.golden.json');
const wire = JSON.parse(readFileSync(golden, 'utf8')) as WireContract;

const env = { GITHUB_SHA: 'a'.repeat(40), GITHUB_REPOSITORY: 'acme/infra' };
const required: Partial<Record<InputName, string>> = {
  'secret-prefix': 'apps/prod',
  'cli-version': '1.2.3',
  'github-token': 'ghs_example',
};
function parse(over: Partial<Record<InputName, string>>): Inputs {
  const all = { ...required, ...over };
  return parseInputs((n) => all[n] ?? '', env);
}
function accepts(over: Partial<Record<InputName, string>>): boolean {
  try {
    parse(over);
    return true;
  } catch {
    return false;
  }
}

describe('the report (wire.golden.json)', () => {
  it('has the schema, keys, statuses and verifications the CLI writes', () => {
    expect(REPORT_SCHEMA).toBe(wire.report_schema);
    expect([...REPORT_KEYS]).toEqual(wire.report_keys);
    expect([...OPTIONAL_REPORT_KEYS]).toEqual(wire.report_optional_keys);
    expect([...SCOPE_KEYS]).toEqual(wire.report_scope_keys);
    expect([...COUNT_KEYS]).toEqual(wire.count_keys);
    expect([...STATUSES]).toEqual(wire.statuses);
    expect([...VERIFICATIONS]).toEqual(wire.verifications);
  });

  it('reads a report with every key of the contract, and one without its optional keys', () => {
    const counts = Object.fromEntries(wire.count_keys.map((k) => [k, 1]));
    const values: Record<string, unknown> = {
      schema_version: wire.report_schema,
      tool_version: '1.2.3',
      git_revision: '',
      status: wire.statuses[0],
      counts,
      verification: wire.verifications[0],
      duration_ms: 3,
      scopes: [
        Object.fromEntries(
          wire.report_scope_keys.map((k) => [
            k,
            ({ name: 'prod', region: 'eu-west-1', status: wire.statuses[0], verification: wire.verifications[0], counts } as Record<string, unknown>)[k],
          ]),
        ),
      ],
    };
    const full = Object.fromEntries(wire.report_keys.map((k) => [k, values[k]]));
    expect(parseReport(JSON.stringify(full)).scopes?.[0]?.name).toBe('prod');
    const older = Object.fromEntries(wire.report_keys.filter((k) => !wire.report_optional_keys.includes(k)).map((k) => [k, values[k]]));
    expect(parseReport(JSON.stringify(older)).scopes).toBeUndefined();
  });

  it('counts as planned operations the count keys the CLI counts', () => {
    for (const key of COUNT_KEYS) {
      const counts = Object.fromEntries(COUNT_KEYS.map((k) => [k, k === key ? 1 : 0])) as Counts;
      expect(plannedOperations(counts), key).toBe(wire.operation_count_keys.includes(key) ? 1 : 0);
    }
  });

  it('gives every count an output declared in action.yml', () => {
    expect(Object.keys(COUNT_VIEW).sort()).toEqual([...wire.count_keys].sort());
    for (const v of Object.values(COUNT_VIEW)) expect(OUTPUT_NAMES).toContain(v.output);
  });
});

describe('exit codes (wire.golden.json)', () => {
  it('documents exactly the CLI exit codes, each with the statuses the CLI maps to it', () => {
    expect([...EXIT_STATUS.keys()].sort((a, b) => a - b)).toEqual(wire.exit_codes);
    for (const code of wire.exit_codes) {
      expect(isDocumentedExit(code), `exit ${code}`).toBe(true);
      expect([...(EXIT_STATUS.get(code) ?? [])].sort(), `exit ${code}`).toEqual(
        [...(wire.exit_statuses[String(code)] ?? [])].sort(),
      );
    }
  });

  it('has a fixed failure message for every failing exit code', () => {
    for (const code of wire.exit_codes) {
      if (code === 0) expect(failureMessageFor(code)).toBeUndefined();
      else expect(failureMessageFor(code), `exit ${code}`).toBeDefined();
    }
  });
});

describe('settings the Action passes (wire.golden.json)', () => {
  const setting = (name: string) => wire.settings.find((s) => s.name === name);
  const everyInput: Partial<Record<InputName, string>> = {
    mode: 'plan',
    'fail-on-drift': 'true',
    'source-root': 'secrets',
    'aws-region': 'eu-west-1',
    'recovery-window-days': '7',
    'run-timeout': '10m',
    'operation-timeout': '30s',
    'verification-timeout': '2m',
    'max-deletions': '3',
    target: 'parameter-store',
    'parameter-tier': 'advanced',
    'kms-key-id': 'alias/k',
    description: 'd',
    tags: 'team=platform',
    'key-services': 'age,aws-kms',
    'show-resource-names': 'true',
  };
  const flagsOf = (args: string[]) =>
    args.filter((a) => a.startsWith('--')).map((a) => (a.slice(2).split('=')[0] ?? '').trim());

  it('passes only flags the CLI declares, with values of their kind', () => {
    for (const mode of ['plan', 'sync'] as const) {
      const args = cliArgs(parse({ ...everyInput, mode }), '/repo', '/tmp/r.json', '/tmp/p.json');
      for (const arg of args.filter((a) => a.startsWith('--'))) {
        const [name = '', value] = arg.slice(2).split(/=(.*)/s);
        const s = setting(name);
        expect(s, `--${name}`).toBeDefined();
        if (mode === 'sync') expect(s?.plan_only, `--${name} is plan-only`).toBeFalsy();
        if (s?.kind === 'bool' && value !== undefined) expect(['true', 'false']).toContain(value);
        if (s?.kind === 'int') expect(value, `--${name}`).toMatch(/^\d+$/);
        if (s?.kind === 'duration') expect(isPositiveGoDuration(value ?? ''), `--${name}`).toBe(true);
      }
      for (const s of wire.settings.filter((x) => x.required === true)) {
        expect(flagsOf(args), `required --${s.name}`).toContain(s.name);
      }
    }
  });

  it('with config-file and scopes passes --config and --scope, declared flag-only settings, and no required setting the file may hold', () => {
    const args = cliArgs(
      parse({ 'secret-prefix': '', 'config-file': 'deploy/scopes.yaml', scopes: 'prod-eu,staging' }),
      '/repo',
      '/tmp/r.json',
      '/tmp/p.json',
    );
    expect(setting('config')?.flag_only).toBe(true);
    expect(setting('scope')?.flag_only).toBe(true);
    for (const name of flagsOf(args)) expect(setting(name), `--${name}`).toBeDefined();
    expect(flagsOf(args)).toEqual(expect.arrayContaining(['config', 'scope']));
    for (const s of wire.settings.filter((x) => x.required === true)) {
      expect(flagsOf(args), `--${s.name} is left to the file`).not.toContain(s.name);
    }
  });

  it('checks each input that is an integer setting with the CLI range', () => {
    for (const [name, range] of Object.entries(wire.int_ranges)) {
      if (!(INPUT_NAMES as readonly string[]).includes(name)) continue;
      const input = name as InputName;
      expect(accepts({ [input]: String(range.min) }), `${name}=${range.min}`).toBe(true);
      expect(accepts({ [input]: String(range.max) }), `${name}=${range.max}`).toBe(true);
      expect(accepts({ [input]: String(range.min - 1) }), `${name}=${range.min - 1}`).toBe(false);
      expect(accepts({ [input]: String(range.max + 1) }), `${name}=${range.max + 1}`).toBe(false);
    }
  });

  it('checks each input with a fixed list of values against the CLI list', () => {
    const ours: Record<string, readonly string[]> = { target: TARGETS, 'parameter-tier': PARAMETER_TIERS };
    const withInput = Object.keys(wire.choices).filter((n) => (INPUT_NAMES as readonly string[]).includes(n));
    expect(withInput.sort()).toEqual(Object.keys(ours).sort());
    for (const name of withInput) {
      expect(ours[name], name).toEqual(wire.choices[name]);
      const input = name as InputName;
      for (const v of wire.choices[name] ?? []) {
        expect(accepts({ [input]: v }), `${name}=${v}`).toBe(true);
        expect(cliArgs(parse({ [input]: v }), '/repo', '/tmp/r.json', '/tmp/p.json')).toContain(`--${name}=${v}`);
      }
      expect(accepts({ [input]: 'other' }), `${name}=other`).toBe(false);
      expect(accepts({ [input]: (wire.choices[name]?.[0] ?? '').toUpperCase() }), `${name} upper-cased`).toBe(false);
      // Empty: the CLI default (or the config file's key), so no flag.
      expect(cliArgs(parse({}), '/repo', '/tmp/r.json', '/tmp/p.json').some((a) => a.startsWith(`--${name}=`))).toBe(false);
    }
  });

  it('checks each duration input the way the CLI parses it', () => {
    const durationInputs = INPUT_NAMES.filter((n) => setting(n)?.kind === 'duration');
    expect(durationInputs.length).toBeGreaterThan(0);
    for (const d of wire.durations) {
      expect(isPositiveGoDuration(d.value), JSON.stringify(d.value)).toBe(d.accepted);
    }
  });
});

describe('the target table (wire.golden.json)', () => {
  it("holds the CLI's rows: ARN form and words of every target", () => {
    expect(Object.keys(TARGET_ROWS)).toEqual(wire.targets.map((t) => t.target));
    for (const t of wire.targets) {
      expect(TARGET_ROWS[t.target as keyof typeof TARGET_ROWS], t.target).toEqual({
        arnService: t.arn_service,
        arnResource: t.arn_resource,
        service: t.service,
        resources: t.resources,
        deletionUndoable: t.deletion_undoable,
      });
    }
  });
});

describe('Markdown limits (wire.golden.json)', () => {
  it('cuts to the limits the CLI renders for', () => {
    expect(COMMENT_LIMIT).toBe(wire.github_comment_limit);
    expect(STEP_SUMMARY_LIMIT).toBe(wire.github_step_summary_limit);
  });
});
