/**
 * What `import 'hnsim'` evaluates (issue 15: an import costs ≤ 100 ms beyond node's start, measured
 * by bench/startup.bench.ts). ip-num's top-level code builds IPv6 ranges and yaml is ~250 KB to
 * compile, and most users need neither: ip-num is loaded at the first IPv6 string
 * (src/addr/ip.ts), yaml at the first scenario (src/scenario/load.ts), and no module of the
 * package may parse an IPv6 address or a scenario while it loads. Checked in a fresh node process
 * (vitest's workers share one module graph, so either may already be loaded here), on the sources
 * through tsx.
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

describe('import cost', () => {
  it('importing hnsim and hnsim/testing loads neither ip-num nor yaml; their first use does', () => {
    const out = child(
      [
        "const { createRequire } = await import('node:module');",
        'const cache = createRequire(import.meta.url).cache;',
        "const loaded = () => ['ip-num', 'yaml'].filter((p) => Object.keys(cache).some((k) => /node_modules[\\\\/]([^\\\\/]+)[\\\\/]/.exec(k)?.[1] === p));",
        `const hnsim = await import('${src('index.ts')}');`,
        `await import('${src('testing/index.ts')}');`,
        'const atImport = loaded();',
        "const v4 = hnsim.ipv4('10.0.0.1');",
        `const { parseIp } = await import('${src('addr/ip.ts')}');`,
        "const v6 = parseIp('fd00::1');",
        'const afterV6 = loaded();',
        "const s = hnsim.loadScenario('hnsim: scenario/v1\\nname: t\\nhosts:\\n  - name: n1\\n');",
        'console.log(JSON.stringify({ atImport, v4, v6: v6?.value.toString(16), afterV6, name: s.doc.name, afterScenario: loaded() }));',
      ].join(' '),
    );
    expect(out).toEqual({
      atImport: [],
      v4: 0x0a000001,
      v6: 'fd000000000000000000000000000001',
      afterV6: ['ip-num'],
      name: 't',
      afterScenario: ['ip-num', 'yaml'],
    });
  });
});
