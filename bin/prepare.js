// npm's `prepare` script: build dist/ (`npm run build`) when it is missing or older than the sources,
// and only then, saying on stderr why; a fresh dist/ is kept. npm runs prepare after `npm ci` and
// `npm install` in a checkout, when a checkout is installed as a dependency (`npm install
// ../hnsim`), and when `npx hnsim` links the checkout into npx's cache. In an installed package
// (no src/) there is nothing to build; `npm run build` builds whatever the state.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildState } from './build-state.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const state = buildState(root);

if (!state.sources) process.exit(0);
if (state.fresh) {
  process.stderr.write('hnsim: dist/ is up to date with src/: not rebuilt (npm run build forces it)\n');
  process.exit(0);
}
// The build's tools are devDependencies: a git clone installed as a dependency (`npm install
// ../hnsim`) has none until `npm ci` runs in it
const require = createRequire(join(root, 'package.json'));
const tools = ['typescript/package.json', 'esbuild/package.json'];
const absent = tools.filter((t) => {
  try {
    require.resolve(t);
    return false;
  } catch {
    return true;
  }
});
if (absent.length > 0) {
  process.stderr.write(
    `hnsim: dist/ needs a build (${state.why}) and ${absent.map((t) => t.split('/')[0]).join(' and ')} ` +
      `${absent.length > 1 ? 'are' : 'is'} not installed in ${root}: run \`npm ci\` there first\n`,
  );
  process.exit(1);
}
process.stderr.write(`hnsim: building dist/ (${state.why}): npm run build, 15-90 s\n`);
// npm runs this script with npm_execpath set to its own CLI: run that one (npm is npm.cmd on
// Windows, which only a shell runs)
const npm = process.env.npm_execpath;
const r = npm
  ? spawnSync(process.execPath, [npm, 'run', '-s', 'build'], { cwd: root, stdio: 'inherit' })
  : spawnSync('npm', ['run', '-s', 'build'], {
      cwd: root,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    });
if (r.status !== 0) {
  process.stderr.write(`hnsim: npm run build failed in ${root} (see above)\n`);
  process.exit(1);
}
