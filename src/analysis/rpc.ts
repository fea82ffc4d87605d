/**
 * The analysis over JSON-RPC, served beside the flat API by `hnsim serve`, `hnsim call` and the
 * Wine face (`RpcServerOptions.methods`): `AnalyzePort({endpoint})` → the port's ACL analysis as
 * src/analysis/json.ts writes it. `endpoint` is an endpoint's ID or name, a container or namespace
 * ID. Errors: invalid params (-32602) for a bad parameter; an HNS failure ERROR_NOT_FOUND (no such
 * local endpoint) or E_INVALIDARG (an endpoint without an IPv4 address).
 */
import { invalidParams, objectParam, type RpcMethod } from '../api/rpc.js';
import type { Host } from '../host/host.js';
import { analysisJson } from './json.js';
import { analyzePort } from './port.js';

export function analysisRpcMethods(host: Host): Record<string, RpcMethod> {
  return {
    AnalyzePort: {
      arity: 1,
      run(params) {
        const o = objectParam('AnalyzePort', params[0], ['endpoint']);
        const endpoint = o['endpoint'];
        if (typeof endpoint !== 'string' || endpoint === '')
          throw invalidParams('AnalyzePort: endpoint (an endpoint ID or name) is required');
        return analysisJson(analyzePort(host, endpoint));
      },
    },
  };
}
