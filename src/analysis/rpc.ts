/**
 * The analysis over JSON-RPC, served beside the flat API by `hnsim serve`, `hnsim call` and the
 * Wine face (`RpcServerOptions.methods`): `Analyze({from, to})` → reachability, every packet from
 * one to the other by disposition; `Analyze({endpoint})` and `AnalyzePort({endpoint})` → the
 * port's ACL analysis — each as src/analysis/json.ts writes it. `from`/`to` name what a trace
 * names. `endpoint` is an endpoint's ID or name, a container or namespace
 * ID. Errors: invalid params (-32602) for a bad parameter; an HNS failure ERROR_NOT_FOUND (no such
 * local endpoint) or E_INVALIDARG (an endpoint without an IPv4 address).
 */
import { invalidParams, objectParam, type RpcMethod } from '../api/rpc.js';
import type { Host } from '../host/host.js';
import { analysisJson, reachJson } from './json.js';
import { analyzePort } from './port.js';
import { analyzeReach } from './reach.js';

export function analysisRpcMethods(host: Host): Record<string, RpcMethod> {
  const port = (method: string, o: Record<string, unknown>) => {
    const endpoint = o['endpoint'];
    if (typeof endpoint !== 'string' || endpoint === '')
      throw invalidParams(`${method}: endpoint (an endpoint ID or name) is required`);
    return analysisJson(analyzePort(host, endpoint));
  };
  return {
    Analyze: {
      arity: 1,
      run(params) {
        const o = objectParam('Analyze', params[0], ['from', 'to', 'endpoint']);
        if (o['endpoint'] !== undefined) {
          if (o['from'] !== undefined || o['to'] !== undefined)
            throw invalidParams('Analyze: give {from, to} (reachability) or {endpoint} (a port), not both');
          return port('Analyze', o);
        }
        for (const k of ['from', 'to'])
          if (typeof o[k] !== 'string' || o[k] === '')
            throw invalidParams(`Analyze: ${k} (what a trace names) is required, or endpoint for a port`);
        return reachJson(analyzeReach(host, { from: o['from'] as string, to: o['to'] as string }));
      },
    },
    AnalyzePort: {
      arity: 1,
      run(params) {
        return port('AnalyzePort', objectParam('AnalyzePort', params[0], ['endpoint']));
      },
    },
  };
}
