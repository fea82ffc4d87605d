// The web page of `hnsim ui` (issue 18), built for the browser into dist/ui/ by `npm run build`:
// src/ui/page/main.tsx and everything it imports — Preact, elkjs's bundled build, the model and the
// simulator itself — bundled by esbuild into one classic script (app.js: an IIFE, so the page also
// runs from file://, where module scripts are refused), its stylesheet (app.css) and index.html.
// The simulator's few Node-only imports are aliased: `node:module` to a shim whose createRequire
// hands over the bundled `yaml` and `ip-num` (src/ui/page/shims/node-module.ts); any other
// `node:*` to a stub whose every export throws a clear error when called (files are not read in the
// browser: the page gets its scenario as data); Node's global `Buffer` is the `buffer` package's
// (src/ui/page/shims/buffer.ts). `hnsim ui` adds lesson-data.js beside these.
//
//   node bin/build-ui.js [OUTDIR]      (default dist/ui)
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const page = join(root, 'src', 'ui', 'page');

/** A stub of `node:NAME`: the same export names, each a function that throws when called. */
async function nodeStub(name) {
  const real = await import(`node:${name}`);
  const names = Object.keys(real).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
  const lines = [
    `const fail = (what) => function () { throw new Error('hnsim ui: node:${name} ' + what + ' is not available in the browser (the page gets its scenario as data, not from files)'); };`,
    ...names.map((n) => `export const ${n} = fail(${JSON.stringify(n)});`),
    `export default new Proxy({}, { get: (_, k) => fail(String(k)) });`,
  ];
  return lines.join('\n');
}

const nodeAliases = {
  name: 'hnsim-node-aliases',
  setup(build) {
    // elkjs's worker script as text (src/ui/page/elk.ts starts it as a blob worker)
    build.onResolve({ filter: /^hnsim:elk-worker$/ }, () => ({
      path: createRequire(join(root, 'package.json')).resolve('elkjs/lib/elk-worker.min.js'),
      namespace: 'hnsim-text',
    }));
    build.onLoad({ filter: /.*/, namespace: 'hnsim-text' }, (args) => ({
      contents: readFileSync(args.path, 'utf8'),
      loader: 'text',
    }));
    build.onResolve({ filter: /^node:/ }, (args) =>
      args.path === 'node:module'
        ? { path: join(page, 'shims', 'node-module.ts') }
        : { path: args.path.slice('node:'.length), namespace: 'hnsim-node-stub' },
    );
    build.onLoad({ filter: /.*/, namespace: 'hnsim-node-stub' }, async (args) => ({
      contents: await nodeStub(args.path),
      loader: 'js',
    }));
  },
};

/**
 * Build the page into `outdir`; resolves to the sizes of what it wrote, by file name. `plugins`: more
 * esbuild plugins, resolved before the node aliases.
 */
export async function buildUi(outdir = join(root, 'dist', 'ui'), plugins = []) {
  const require = createRequire(join(root, 'package.json'));
  const esbuild = await import(pathToFileURL(require.resolve('esbuild')).href);
  // only its own files: tsc's output of src/ui/model (dist/ui/model) shares the folder
  mkdirSync(outdir, { recursive: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: { app: join(page, 'main.tsx') },
    outdir,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    // the simulator's createRequire(import.meta.url) goes to the shim, which ignores its argument
    define: { 'process.env.NODE_ENV': '"production"', 'import.meta.url': '"hnsim:ui"' },
    // Node's global Buffer (the CNI code's bytes): the `buffer` package, where the code names it
    inject: [join(page, 'shims', 'buffer.ts')],
    plugins: [...plugins, nodeAliases],
    logLevel: 'warning',
  });
  copyFileSync(join(page, 'index.html'), join(outdir, 'index.html'));
  const sizes = {};
  for (const f of ['index.html', 'app.js', 'app.css']) sizes[f] = statSync(join(outdir, f)).size;
  return sizes;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ? resolve(process.argv[2]) : undefined;
  await buildUi(out);
}
