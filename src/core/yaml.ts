/**
 * The yaml package, loaded at its first use rather than with the module that needs it: `import
 * 'hnsim'` would otherwise compile and run its ~250 KB for every user, most of whom never parse
 * YAML (a scenario file, a node's kubeconfig; bench/README.md, start-up, and
 * test/tooling/import-cost.test.ts). CommonJS, so a synchronous `require` on every Node 20.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let yamlLib: typeof Yaml | undefined;

export const yaml = (): typeof Yaml => (yamlLib ??= createRequire(import.meta.url)('yaml') as typeof Yaml);
