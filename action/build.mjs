// Bundles src/index.ts into dist/index.js (the file action.yml runs).
// `node build.mjs --check` rebuilds in memory and fails when the committed
// dist/index.js differs, so a stale bundle never lands.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, 'dist', 'index.js');
const check = process.argv.includes('--check');

const result = await build({
  entryPoints: [join(here, 'src', 'index.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  legalComments: 'eof',
  charset: 'utf8',
  write: false,
  outfile,
  logLevel: 'warning',
  // ESM dependencies (@actions/artifact reads its version with
  // createRequire(import.meta.url)) are bundled as CommonJS, where
  // import.meta is empty: give them this file's URL.
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
const text = result.outputFiles[0].text;

if (check) {
  const committed = await readFile(outfile, 'utf8').catch(() => '');
  if (committed !== text) {
    console.error('dist/index.js is stale: run `npm run build` in action/ and commit dist/index.js');
    process.exit(1);
  }
  console.log('dist/index.js matches the source');
} else {
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(outfile, text);
  console.log(`wrote dist/index.js (${Buffer.byteLength(text)} bytes)`);
}
