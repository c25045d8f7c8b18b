// Validates the GitLab CI/CD component file against GitLab's CI JSON schema
// (the schema GitLab's pipeline editor uses), as the gitlab-ci-local package
// bundles it: the header document (spec: inputs:) and the configuration,
// as written and with its inputs interpolated. A deliberately broken copy
// must fail, so a validator that accepts everything is caught too.
// Usage: node check.mjs TEMPLATE.yml   (docs/gitlab-ci.md)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import Ajv from 'ajv';
import { parseAllDocuments } from 'yaml';

const require = createRequire(import.meta.url);

/** GitLab's CI schema: the object literal gitlab-ci-local's bundle holds under $id https://gitlab.com/.gitlab-ci.yml. */
function gitlabSchema() {
  const bundle = readFileSync(require.resolve('gitlab-ci-local/dist/index.js'), 'utf8');
  const start = bundle.indexOf('{$schema:"http://json-schema.org/draft-07/schema#",$id:"https://gitlab.com/.gitlab-ci.yml"');
  if (start < 0) throw new Error('GitLab CI schema not found in gitlab-ci-local');
  let depth = 0;
  let quote = '';
  let end = start;
  for (; end < bundle.length; end++) {
    const c = bundle[end];
    if (quote !== '') {
      if (c === '\\') end++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) break;
  }
  // A plain object literal (keys, strings, numbers, !0/!1, arrays): no call, no identifier.
  const literal = bundle.slice(start, end + 1);
  return JSON.parse(JSON.stringify(new Function(`return ${literal}`)()));
}

const file = process.argv[2];
if (!file) throw new Error('usage: node check.mjs TEMPLATE.yml');
const text = readFileSync(file, 'utf8');
const schema = gitlabSchema();
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const validate = ajv.compile(schema);

const docs = (t) => parseAllDocuments(t).map((d) => {
  if (d.errors.length > 0) throw new Error(`YAML: ${d.errors[0].message}`);
  return d.toJS();
});

/** The file with every $[[ inputs.X ]] replaced by the given value or the input's default. */
function interpolate(t, given) {
  const inputs = docs(t)[0].spec.inputs;
  return t.replace(/\$\[\[\s*inputs\.([A-Za-z0-9_-]+)\s*\]\]/g, (_, name) => {
    if (name in given) return given[name];
    if (!('default' in inputs[name])) throw new Error(`required input ${name} not given`);
    return String(inputs[name].default);
  });
}

const sample = { image: 'registry.example.com/tools/sops-aws-sync@sha256:0000', 'aws-region': 'eu-west-1' };
const cases = [
  ['as written', text, true],
  ['interpolated', interpolate(text, sample), true],
  ['broken copy (allow_failure exit_codes is text, id_tokens without aud)', interpolate(text, sample)
    .replace('exit_codes: [2]', 'exit_codes: two')
    .replace('aud: sts.amazonaws.com', 'audience: sts.amazonaws.com'), false],
];
let passed = 0;
let failed = 0;
for (const [what, t, valid] of cases) {
  const ds = docs(t);
  if (ds.length !== 2) throw new Error(`${what}: expected the header and the configuration, got ${ds.length} documents`);
  const errors = ds.flatMap((d, i) => (validate(d) ? [] : validate.errors.map((e) => `document ${i + 1}: ${e.instancePath} ${e.message}`)));
  if ((errors.length === 0) === valid) {
    passed++;
    console.log(`ok: ${what}: ${valid ? 'valid' : `refused (${errors.length} errors)`}`);
  } else {
    failed++;
    console.log(`FAIL: ${what}: ${valid ? errors.join('; ') : 'accepted'}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
