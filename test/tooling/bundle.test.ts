/**
 * What `npm run build` writes for node to compile at every start (bench/README.md §5: start-up):
 * the CLI bundle leaves `@viz-js/viz` (1.6 MB, only `diagram --format svg` needs it) to an import
 * from the package's dependencies, and every bundle is ASCII and minified for whitespace (V8
 * reads a file with one non-ASCII character as two-byte text, and comments and indentation were a
 * third of the bytes) while keeping its names (a stack frame names the real function). Checked on
 * the build in dist/ when it is up to date with src/ (`npm ci` makes it; after an edit the `hnsim`
 * command runs the sources and this waits for `npm run build`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildState } from '../../bin/build-state.js';
import { root } from '../cli/hnsim.js';

const fresh = buildState(root).fresh;
const dist = (path: string): string => join(root, 'dist', path);
const bundles = (): string[] => [
  'cli/hnsim.js',
  'index.js',
  'testing/index.js',
  ...readdirSync(dist('lib'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => `lib/${f}`),
];

describe.skipIf(!fresh)('the bundles in dist/', () => {
  it('the CLI imports @viz-js/viz when it draws instead of carrying it', () => {
    const cli = readFileSync(dist('cli/hnsim.js'), 'utf8');
    expect(cli).toMatch(/import\("@viz-js\/viz"\)/);
    // viz is Graphviz compiled by Emscripten: a bundled copy carries its loader
    expect(cli).not.toContain('emscripten');
    expect(cli).not.toContain('WebAssembly.instantiate');
    expect(cli.length).toBeLessThan(2_000_000);
  });

  it('are ASCII, without comments or indentation', () => {
    const nonAscii: string[] = [];
    for (const b of bundles()) {
      // read as latin1: a byte above 0x7f is one character of U+0080 to U+00FF
      const text = readFileSync(dist(b), 'latin1');
      const at = text.search(/[\u0080-\u00ff]/);
      if (at >= 0) nonAscii.push(`${b}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}`);
      expect(text, b).not.toContain('/**');
      // tsc's output, bundled as it is, has ~40 characters a line; minified, whole modules are one
      if (text.length > 10_000) expect(text.length / text.split('\n').length, b).toBeGreaterThan(400);
    }
    expect(nonAscii).toEqual([]);
  });

  it('keep the names of classes and functions (what a stack frame and console.log show)', async () => {
    const lib = (await import(pathToFileURL(dist('index.js')).href)) as Record<string, { name: string }>;
    const names = ['Host', 'HcnError', 'HcsService', 'createHost', 'renderTrace', 'runScenario'];
    expect(names.map((n) => lib[n]?.name)).toEqual(names);
  });
});
