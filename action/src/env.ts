/**
 * Environment handed to child processes (gh, the CLI). The runner puts every
 * input, the github-token included, into INPUT_* variables and a few runner
 * credentials into ACTIONS_*; none of them is for a child, so they are
 * removed. AWS and SOPS settings (AWS_*, SOPS_*) pass through unchanged.
 */

const DROP = new Set([
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_RUNTIME_URL',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
]);

/** A copy of env without INPUT_* variables and runner tokens. */
export function scrubbedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || k.toUpperCase().startsWith('INPUT_') || DROP.has(k.toUpperCase())) continue;
    out[k] = v;
  }
  return out;
}
