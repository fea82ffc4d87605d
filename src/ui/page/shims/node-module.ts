/**
 * `node:module` in the page's bundle (bin/build-ui.js aliases it here): the simulator's few
 * `createRequire(import.meta.url)(name)` calls (src/core/yaml.ts, src/addr/ip.ts) load their library
 * lazily in Node; in the browser the libraries are bundled and handed over by name.
 */
import * as IpNum from 'ip-num';
import * as Yaml from 'yaml';

const LIBRARIES: Readonly<Record<string, unknown>> = { yaml: Yaml, 'ip-num': IpNum };

export function createRequire(_from: string | URL): (name: string) => unknown {
  return (name: string) => {
    const lib = LIBRARIES[name];
    if (lib === undefined) throw new Error(`hnsim ui: require('${name}') is not available in the browser`);
    return lib;
  };
}

export default { createRequire };
