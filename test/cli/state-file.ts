// A node for the analysis' CLI and JSON-RPC tests: its pods (name, address, policies) sit on the
// L2Bridge network cbr0; stateFile writes it where the test keeps its files.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHost, type Host } from '../../src/host/host.js';
import { addL2Bridge } from '../../src/testing/commands.js';
import type { JsonObject } from '../../src/core/json.js';
import { endpointJson, ok } from '../dataplane/prop-kit.js';

export type PodList = readonly (readonly [name: string, ip: string, policies: readonly JsonObject[]])[];

export function analysisNode(pods: PodList): Host {
  const host = createHost({
    seed: 2,
    adapters: [{ name: 'Ethernet', ipAddress: '10.0.0.4/24', gateway: '10.0.0.1' }],
  });
  const net = addL2Bridge(host);
  for (const [name, ip, policies] of pods)
    ok(host.api.HcnCreateEndpoint(net, null, endpointJson(net, name, { ip, policies })), 'HcnCreateEndpoint');
  return host;
}

export function stateFile(dir: string, file: string, pods: PodList): string {
  const path = join(dir, file);
  writeFileSync(path, JSON.stringify(analysisNode(pods).snapshot()));
  return path;
}
