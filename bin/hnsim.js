#!/usr/bin/env node
// The `hnsim` command. Runs the compiled CLI when `npm run build` has produced dist/, else the
// TypeScript sources through tsx (a runtime dependency), so it works right after `npm ci`.
import { existsSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
let cli;
if (existsSync(fileURLToPath(compiled))) {
  cli = await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
process.exitCode = await cli.main(process.argv.slice(2));
