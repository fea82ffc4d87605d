/**
 * What `import 'hnsim'` evaluates (issue 15: an import costs ≤ 100 ms beyond node's start, measured
 * by bench/startup.bench.ts). ip-num's top-level code builds IPv6 ranges, so it is loaded at the
 * first IPv6 string (src/addr/ip.ts), and no module of the package may parse an IPv6 address while
 * it loads. Checked in a fresh node process (vitest's workers share one module graph, so ip-num may
 * already be loaded here), on the sources through tsx.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const src = (path: string): string => pathToFileURL(`${ROOT}src/${path}`).href;

/** Runs `code` as an ES module in a child node with tsx; answers its last stdout line, parsed. */
function child(code: string): unknown {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`child exited with ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

const ipNumLoaded = [
  "const { createRequire } = await import('node:module');",
  'const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\\\/]ip-num[\\\\/]/.test(k));',
].join(' ');

describe('import cost', () => {
  it('importing hnsim and hnsim/testing loads no ip-num; the first IPv6 string does', () => {
    const out = child(
      [
        ipNumLoaded,
        `await import('${src('index.ts')}');`,
        `await import('${src('testing/index.ts')}');`,
        'const atImport = loaded();',
        `const { parseIp } = await import('${src('addr/ip.ts')}');`,
        "const v4 = parseIp('10.0.0.1');",
        'const afterV4 = loaded();',
        "const v6 = parseIp('fd00::1');",
        'console.log(JSON.stringify({ atImport, afterV4, v4: v4?.value, v6: v6?.value.toString(16), afterV6: loaded() }));',
      ].join(' '),
    );
    expect(out).toEqual({
      atImport: false,
      afterV4: false,
      v4: 0x0a000001,
      v6: 'fd000000000000000000000000000001',
      afterV6: true,
    });
  });
});
