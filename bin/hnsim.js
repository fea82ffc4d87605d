#!/usr/bin/env node
// The `hnsim` command. It runs dist/cli/hnsim.js: the CLI that `npm run build` compiles with tsc and
// bundles with esbuild into one file (`npm ci` and `npm install` build through the `prepare`
// script; the published package ships it). One file instead of ~340 module files (inversify alone
// is ~300) is what lets `hnsim serve` answer within a few node start-up times.
//
// In a source checkout (src/ next to dist/) the build can be missing (`npm ci --ignore-scripts`)
// or older than the sources being edited (bin/build-state.js decides). Then the TypeScript sources
// run through tsx, a devDependency, so the command always runs the code in src/. Without tsx, a missing build is a
// one-line error (exit 1) and a stale one runs after a one-line warning.
//
// HNSIM_RUN=dist runs the build whatever its age (what the start-up benchmark measures: an
// installed package has no src/ to compare with); HNSIM_RUN=src runs the sources through tsx.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildState, mtimeOf } from './build-state.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bundle = join(root, 'dist', 'cli', 'hnsim.js');

/** tsx's ESM loader API, or null when tsx is not installed (an install without devDependencies). */
async function importTsx() {
  try {
    return await import('tsx/esm/api');
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw e;
  }
}

const fileUrl = (path) => pathToFileURL(path).href;
const missing = `hnsim: the compiled CLI (${bundle}) is missing; run \`npm run build\` in ${root} (npm ci and npm install build it unless run with --ignore-scripts)`;

/** The module to run, or the one-line reason there is none. */
async function entry() {
  const mode = process.env.HNSIM_RUN;
  const built = mtimeOf(bundle) >= 0;
  if (mode === 'dist') return built ? { url: fileUrl(bundle) } : { error: missing };
  const state = buildState(root);
  if (mode !== 'src' && built && state.fresh) return { url: fileUrl(bundle) };
  const tsx = await importTsx();
  if (tsx) {
    tsx.register();
    return { url: fileUrl(join(root, 'src', 'cli', 'main.ts')) };
  }
  if (mode === 'src')
    return { error: `hnsim: HNSIM_RUN=src needs tsx (a devDependency); run \`npm install\` in ${root}` };
  if (!built) return { error: missing };
  process.stderr.write(
    `hnsim: warning: dist/ is not up to date (${state.why}); run \`npm run build\` to compile the sources\n`,
  );
  return { url: fileUrl(bundle) };
}

const { url, error } = await entry();
if (error !== undefined) {
  process.stderr.write(error + '\n');
  process.exitCode = 1;
} else {
  const cli = await import(url);
  process.exitCode = await cli.main(process.argv.slice(2));
}
