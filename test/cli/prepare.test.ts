// npm's `prepare` and the freshness rule it shares with bin/hnsim.js and the benchmarks
// (bin/build-state.js), on a package folder made here: src/ and dist/ files with chosen times,
// and a stand-in for npm (npm_execpath) that records the build it is asked for.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildState } from '../../bin/build-state.js';
import { root } from './hnsim.js';

const OUTPUTS = [
  'dist/cli/hnsim.js',
  'dist/index.js',
  'dist/index.d.ts',
  'dist/testing/index.js',
  'dist/testing/index.d.ts',
  'dist/ui/app.js',
];
const INPUTS = ['src/index.ts', 'src/cli/main.ts', 'tsconfig.json', 'tsconfig.build.json'];

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Write `rel` under `dir` with its time set to `t` seconds (its folder's time too). */
function put(dir: string, rel: string, t: number, text = ''): void {
  const path = join(dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, t, t);
  utimesSync(dirname(path), t, t);
}

/** A package folder: inputs at time 1000, outputs at 2000 (a build after the last edit). */
function built(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-prepare-'));
  dirs.push(dir);
  for (const rel of INPUTS) put(dir, rel, 1000);
  for (const rel of OUTPUTS) put(dir, rel, 2000);
  utimesSync(join(dir, 'src'), 1000, 1000);
  return dir;
}

describe('bin/build-state.js', () => {
  it('a build newer than every input is fresh', () => {
    expect(buildState(built())).toEqual({ sources: true, fresh: true });
  });

  it('a missing output is not fresh, and says which', () => {
    for (const out of OUTPUTS) {
      const dir = built();
      rmSync(join(dir, out));
      expect(buildState(dir)).toEqual({ sources: true, fresh: false, why: `${out} is missing` });
    }
  });

  it('a source file, a tsconfig, or src/ itself (a file removed) changed after the build: not fresh', () => {
    for (const rel of ['src/cli/main.ts', 'tsconfig.build.json', 'tsconfig.json']) {
      const dir = built();
      utimesSync(join(dir, rel), 3000, 3000);
      expect(buildState(dir)).toEqual({ sources: true, fresh: false, why: `${rel} changed after the build` });
    }
    const dir = built();
    utimesSync(join(dir, 'src'), 3000, 3000);
    expect(buildState(dir)).toEqual({ sources: true, fresh: false, why: 'src/ changed after the build' });
  });

  it('the oldest output counts: an input between two outputs is newer than the build', () => {
    const dir = built();
    utimesSync(join(dir, 'dist/index.d.ts'), 1500, 1500);
    utimesSync(join(dir, 'src/index.ts'), 1700, 1700);
    expect(buildState(dir)).toMatchObject({ fresh: false, why: 'src/index.ts changed after the build' });
  });

  it('an installed package (no src/) is fresh when the bundle is there', () => {
    const dir = built();
    rmSync(join(dir, 'src'), { recursive: true });
    expect(buildState(dir)).toEqual({ sources: false, fresh: true });
    rmSync(join(dir, 'dist/cli/hnsim.js'));
    expect(buildState(dir)).toEqual({ sources: false, fresh: false });
  });
});

describe('bin/prepare.js (npm prepare)', () => {
  /**
   * Run prepare in `dir` (bin/ copied in) with npm standing in as a script that records its
   * arguments and exits with `npmExit`; `tools` puts typescript and esbuild in node_modules.
   */
  function prepare(dir: string, opts: { tools?: boolean; npmExit?: number } = {}) {
    mkdirSync(join(dir, 'bin'), { recursive: true });
    for (const f of ['prepare.js', 'build-state.js']) copyFileSync(join(root, 'bin', f), join(dir, 'bin', f));
    writeFileSync(join(dir, 'package.json'), '{"name":"hnsim","type":"module"}');
    if (opts.tools !== false) {
      for (const t of ['typescript', 'esbuild'])
        put(dir, `node_modules/${t}/package.json`, 1000, `{"name":"${t}"}`);
    }
    const npm = join(dir, 'fake-npm.cjs');
    writeFileSync(
      npm,
      `require('fs').writeFileSync(${JSON.stringify(join(dir, 'npm-called'))}, process.argv.slice(2).join(' ') + ' in ' + process.cwd());\n` +
        `process.exit(${opts.npmExit ?? 0});\n`,
    );
    const r = spawnSync(process.execPath, [join(dir, 'bin', 'prepare.js')], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, npm_execpath: npm },
    });
    const called = existsSync(join(dir, 'npm-called'))
      ? readFileSync(join(dir, 'npm-called'), 'utf8')
      : undefined;
    return { status: r.status, stderr: r.stderr, stdout: r.stdout, called };
  }

  it('a fresh dist/ is kept: no build, one line on stderr, exit 0', () => {
    const r = prepare(built());
    expect(r).toEqual({
      status: 0,
      stdout: '',
      stderr: 'hnsim: dist/ is up to date with src/: not rebuilt (npm run build forces it)\n',
      called: undefined,
    });
  });

  it('a stale or missing dist/ is built with npm run build, saying why', () => {
    const dir = built();
    utimesSync(join(dir, 'src/cli/main.ts'), 3000, 3000);
    const r = prepare(dir);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      'hnsim: building dist/ (src/cli/main.ts changed after the build): npm run build, 15-90 s\n',
    );
    expect(r.called).toBe(`run -s build in ${dir}`);

    const fresh = built();
    rmSync(join(fresh, 'dist'), { recursive: true });
    const m = prepare(fresh);
    expect(m.stderr).toContain('(dist/cli/hnsim.js is missing)');
    expect(m.called).toBe(`run -s build in ${fresh}`);
  });

  it('a failed build fails prepare (exit 1), naming the folder', () => {
    const dir = built();
    rmSync(join(dir, 'dist'), { recursive: true });
    const r = prepare(dir, { npmExit: 2 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`hnsim: npm run build failed in ${dir} (see above)`);
  });

  it('without its devDependencies (a git clone installed as a dependency): exit 1, the fix named, no build', () => {
    const dir = built();
    rmSync(join(dir, 'dist'), { recursive: true });
    const r = prepare(dir, { tools: false });
    expect(r.status).toBe(1);
    expect(r.called).toBeUndefined();
    expect(r.stderr).toBe(
      `hnsim: dist/ needs a build (dist/cli/hnsim.js is missing) and typescript and esbuild are not installed in ${dir}: run \`npm ci\` there first\n`,
    );
  });

  it('an installed package (no src/): nothing to do, silently', () => {
    const dir = built();
    rmSync(join(dir, 'src'), { recursive: true });
    expect(prepare(dir)).toEqual({ status: 0, stdout: '', stderr: '', called: undefined });
  });

  it('is what package.json runs as prepare', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.prepare).toBe('node bin/prepare.js');
  });
});
