/**
 * The web page bundles src/ui/model and everything it imports. The model's own files import no
 * `node:*` module; what it reaches of the simulator imports only the few it already did, which the
 * page's build stubs or shims (bin/build-ui.js): `node:module` for yaml and ip-num, `node:fs` for
 * scenario files, and the JSON-RPC server's sockets (src/api/rpc.ts, reached through the
 * reference plugins' registry; never called by the model). A new one fails here. A static scan
 * of the import graph; `import type` is erased and not counted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../cli/hnsim.js';

/** Where the page's build aliases a Node module (docs/ui.md): the file and the module. */
const KNOWN = new Set([
  'src/core/yaml.ts node:module',
  'src/addr/ip.ts node:module',
  'src/scenario/load.ts node:fs',
  'src/api/rpc.ts node:net',
  'src/api/rpc.ts node:readline',
]);

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s)?[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The modules a file imports at run time (not `import type`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  return [...text.matchAll(IMPORT)].filter((m) => m[2] === undefined).map((m) => (m[3] ?? m[4] ?? m[5])!);
}

function graph(entry: string): { files: Set<string>; node: string[] } {
  const files = new Set<string>();
  const node: string[] = [];
  const todo = [resolve(root, entry)];
  while (todo.length) {
    const f = todo.pop()!;
    if (files.has(f)) continue;
    files.add(f);
    for (const spec of importsOf(f)) {
      if (spec.startsWith('node:')) {
        const rel = relative(root, f);
        node.push(`${rel} ${spec}`);
        continue;
      }
      if (!spec.startsWith('.')) continue; // a package (yaml, ip-num, eventemitter3, inversify)
      const ts = resolve(dirname(f), spec.replace(/\.js$/, '.ts'));
      const target = existsSync(ts) ? ts : join(resolve(dirname(f), spec), 'index.ts');
      if (existsSync(target)) todo.push(target);
    }
  }
  return { files, node };
}

describe('src/ui/model is browser-safe', () => {
  it('nothing it imports, transitively, imports a node: module the page does not alias', () => {
    const { files, node } = graph('src/ui/model/index.ts');
    expect(files.size).toBeGreaterThan(50);
    expect([...files].some((f) => f.endsWith(join('scenario', 'run.ts')))).toBe(true);
    expect(node.filter((n) => n.startsWith('src/ui/'))).toEqual([]);
    expect(node.filter((n) => !KNOWN.has(n))).toEqual([]);
  });

  it('the scan sees a node: import where there is one', () => {
    expect(graph('src/cli/node.ts').node.length).toBeGreaterThan(0);
  });
});
