/**
 * The CLI's changes file (sync --changes-file, schema
 * sops-aws-sync/changes/v1, docs/results.md): what a sync changed, by ARN
 * and version id, and each scope's state digest. It names secrets (an ARN
 * holds the name): the Action asks for it only with the input changes,
 * turns it into the outputs changed and state-digests, and never prints
 * any of it to the log or the job summary.
 */
import { lstat, readFile } from 'node:fs/promises';
import { TARGET_ROWS } from './inputs.js';

export const CHANGES_SCHEMA = 'sops-aws-sync/changes/v1';

/** Largest changes file the Action reads (the CLI's own read cap). */
export const MAX_CHANGES_BYTES = 16 * 1024 * 1024;

/** One change as the output changed carries it (the file's own keys). */
export interface Change {
  scope: string;
  action: string;
  name: string;
  arn: string;
  version_id: string;
}

/** The outputs made from a valid changes file, as JSON text. */
export interface ChangesOutputs {
  /** The changes array, compact JSON ('[]' when nothing changed). */
  changed: string;
  /** An object scope name → state digest, for the scopes that converged. */
  stateDigests: string;
}

export class ChangesError extends Error {}

const CHANGE_KEYS = ['scope', 'action', 'name', 'arn', 'version_id'] as const;
const SCOPE_KEYS = ['name', 'region', 'status', 'state_digest'] as const;
const TOP_KEYS = ['schema_version', 'tool_version', 'git_revision', 'status', 'changes', 'scopes'] as const;
const ACTIONS = new Set(['restore', 'create', 'adopt', 'update', 'schedule-delete']);

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * An ARN of one of the targets (the CLI's target table: a secret's
 * arn:…:secretsmanager:…:secret:…, a parameter's arn:…:ssm:…:parameter/…).
 */
const TARGET_ARN = new RegExp(
  `^arn:[a-z0-9-]+:(?:${Object.values(TARGET_ROWS)
    .map((r) => `${escape(r.arnService)}:[a-z0-9-]+:\\d{12}:${escape(r.arnResource)}`)
    .join('|')})`,
);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function exactKeys(v: Record<string, unknown>, keys: readonly string[], what: string): void {
  const got = Object.keys(v);
  if (got.length !== keys.length || !keys.every((k) => got.includes(k))) throw new ChangesError(`${what} does not have exactly the v1 keys`);
}

/**
 * Parses a changes file's text: exactly the v1 keys at every level, the
 * schema, string fields, actions that are operations, ARNs of one of the
 * targets (TARGET_ROWS: a secret's or a parameter's; empty only in a scope
 * that did not converge), digests of the form sha256:<64 hex>. The error messages never
 * quote the file.
 */
export function parseChanges(text: string): ChangesOutputs {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ChangesError('changes file is not JSON');
  }
  if (!isObject(doc)) throw new ChangesError('changes file is not a JSON object');
  exactKeys(doc, TOP_KEYS, 'changes file');
  if (doc.schema_version !== CHANGES_SCHEMA) throw new ChangesError('changes file has an unknown schema_version');
  if (!Array.isArray(doc.changes) || !Array.isArray(doc.scopes)) throw new ChangesError('changes and scopes must be lists');
  const digests: Record<string, string> = {};
  const status: Record<string, string> = {};
  for (const s of doc.scopes as unknown[]) {
    if (!isObject(s)) throw new ChangesError('a scope is not an object');
    exactKeys(s, SCOPE_KEYS, 'a scope');
    if (typeof s.name !== 'string' || typeof s.state_digest !== 'string' || typeof s.status !== 'string') {
      throw new ChangesError("a scope's name, status or digest is not a string");
    }
    status[s.name] = s.status;
    if (s.state_digest === '') continue;
    if (!/^sha256:[0-9a-f]{64}$/.test(s.state_digest)) throw new ChangesError('a state digest is not sha256:<64 hex>');
    digests[s.name] = s.state_digest;
  }
  const changed: Change[] = doc.changes.map((c: unknown) => {
    if (!isObject(c)) throw new ChangesError('a change is not an object');
    exactKeys(c, CHANGE_KEYS, 'a change');
    for (const k of CHANGE_KEYS) if (typeof c[k] !== 'string') throw new ChangesError(`a change's ${k} is not a string`);
    const ch = c as unknown as Change;
    if (!ACTIONS.has(ch.action)) throw new ChangesError("a change's action is not an operation");
    // An empty arn only in a scope that did not converge: a Parameter
    // Store create (PutParameter answers no ARN) that the stopped run
    // never observed (the CLI's changes.Validate).
    if (ch.arn === '' ? status[ch.scope] === 'converged' : !TARGET_ARN.test(ch.arn)) {
      throw new ChangesError("a change's arn is not an ARN of a target (a secret's or a parameter's)");
    }
    return { scope: ch.scope, action: ch.action, name: ch.name, arn: ch.arn, version_id: ch.version_id };
  });
  return { changed: JSON.stringify(changed), stateDigests: JSON.stringify(digests) };
}

/** What reading the changes file found. */
export type ChangesRead =
  | { kind: 'absent' }
  | { kind: 'broken'; reason: string }
  | { kind: 'valid'; outputs: ChangesOutputs };

/** Reads and validates the changes file at path, if the CLI left one. */
export async function readChanges(path: string): Promise<ChangesRead> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return { kind: 'absent' };
  }
  if (!st.isFile()) return { kind: 'broken', reason: 'changes file is not a regular file' };
  if (st.size > MAX_CHANGES_BYTES) return { kind: 'broken', reason: 'changes file is larger than expected' };
  try {
    return { kind: 'valid', outputs: parseChanges(await readFile(path, 'utf8')) };
  } catch (e) {
    if (e instanceof ChangesError) return { kind: 'broken', reason: e.message };
    throw e;
  }
}
