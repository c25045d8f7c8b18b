import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** action/src, whose modules must import one another without a cycle. */
const src = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * The modules of action/src a module's text imports (static imports and
 * re-exports, `import type` included, and dynamic import('./x.js')), by
 * name without extension.
 */
export function localImports(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]\.\/([\w.-]+)\.js['"]/g)) {
    names.add(m[1] ?? '');
  }
  return [...names].sort();
}

/** Every cycle of graph (module → the modules it imports), each as a path that starts and ends at its least module. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found = new Map<string, string[]>();
  const visit = (path: string[]): void => {
    const last = path[path.length - 1] ?? '';
    for (const next of graph.get(last) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const loop = path.slice(at);
        const least = loop.indexOf([...loop].sort()[0] ?? '');
        const canon = [...loop.slice(least), ...loop.slice(0, least)];
        found.set(canon.join(' → '), [...canon, canon[0] ?? '']);
      } else {
        visit([...path, next]);
      }
    }
  };
  for (const start of graph.keys()) visit([start]);
  return [...found.values()];
}

describe('action/src imports', () => {
  it('has no import cycle: a pure module owns the types it shares, the I/O edge imports it', () => {
    const graph = new Map<string, string[]>();
    for (const f of readdirSync(src).filter((n) => n.endsWith('.ts'))) {
      graph.set(f.slice(0, -3), localImports(readFileSync(resolve(src, f), 'utf8')));
    }
    expect(graph.size).toBeGreaterThan(15);
    expect(graph.get('issue')).toContain('identity');
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle through a type-only import and a dynamic import', () => {
    const a = "import { x } from './b.js';";
    const b = "import type { Y } from './c.js';\nexport { z } from './d.js';";
    const c = "const m = await import('./a.js');";
    expect(localImports(b)).toEqual(['c', 'd']);
    const graph = new Map([
      ['a', localImports(a)],
      ['b', localImports(b)],
      ['c', localImports(c)],
      ['d', []],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    graph.set('c', []);
    expect(cycles(graph)).toEqual([]);
  });
});
