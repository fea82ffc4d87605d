// Whether dist/ is up to date with the sources: one rule for the three places that ask it — the
// `hnsim` command (bin/hnsim.js: run the bundle, or the sources through tsx), npm's `prepare`
// (bin/prepare.js: build only when needed) and the benchmarks (bench/harness.ts).
//
// dist/ is fresh when every file the build writes last or the package exports exists and is newer
// than every input: each file and directory under src/ (a directory's time moves when a file is
// added, removed or renamed) and the two tsconfig files. `npm run build` empties dist/ first and
// writes the CLI bundle last, so a bundle newer than the inputs means a whole build after the last
// edit. Dependencies are not inputs: after changing them, `npm run build`.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What `npm run build` writes that something runs or imports (the bundle first: bin/hnsim.js runs it;
 * dist/ui/app.js: the page `hnsim ui` serves, bin/build-ui.js). */
export const BUILD_OUTPUTS = [
  'dist/cli/hnsim.js',
  'dist/index.js',
  'dist/index.d.ts',
  'dist/testing/index.js',
  'dist/testing/index.d.ts',
  'dist/ui/app.js',
];

/** The inputs besides src/. */
const CONFIG_INPUTS = ['tsconfig.json', 'tsconfig.build.json'];

/** Modification time in ms, or -1 when the file does not exist. */
export function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * The state of the build in the package folder `root`:
 * - `{ sources: false, fresh }`: no src/ (an installed package): fresh when the bundle exists;
 * - `{ sources: true, fresh: true }`;
 * - `{ sources: true, fresh: false, why }`: `why` names a missing output or an input newer than the
 *   build, in a few words ("dist/cli/hnsim.js is missing", "src/cli/main.ts changed after the build").
 */
export function buildState(root) {
  const src = join(root, 'src');
  let names;
  try {
    names = readdirSync(src, { recursive: true });
  } catch {
    return { sources: false, fresh: mtimeOf(join(root, BUILD_OUTPUTS[0])) >= 0 };
  }
  let builtAt = Infinity;
  for (const out of BUILD_OUTPUTS) {
    const t = mtimeOf(join(root, out));
    if (t < 0) return { sources: true, fresh: false, why: `${out} is missing` };
    builtAt = Math.min(builtAt, t);
  }
  const changed = (rel) => mtimeOf(join(root, rel)) > builtAt;
  const stale = (rel) => ({ sources: true, fresh: false, why: `${rel} changed after the build` });
  for (const rel of CONFIG_INPUTS) if (changed(rel)) return stale(rel);
  if (changed('src')) return stale('src/');
  for (const name of names) {
    const rel = join('src', String(name));
    if (changed(rel)) return stale(rel);
  }
  return { sources: true, fresh: true };
}
