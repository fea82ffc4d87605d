/**
 * Fixtures of the HCS API tests: a host of either spelling with an HNS namespace, a NAT network and
 * endpoints, and the compute-system documents hcsshim and moby send (reference hcs-lifecycle.md
 * §3, §4): a schema 2 process container in the namespace, a schema 1 container with an
 * EndpointList, a utility VM.
 */
import type { HcnResult, HcsApi } from '../../src/api/flat.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';

export interface HcsFixture {
  readonly host: Host;
  readonly ns: string;
  readonly net: string;
  /** Endpoints on the NAT network: the first is in `ns`, the others free. */
  readonly eps: readonly string[];
}

/** The result of a call that must succeed; otherwise an error naming `what` and the failure. */
export function ok<T>(r: HcnResult<T>, what = 'call'): T {
  if (!r.ok) throw new Error(`${what} failed: ${r.name} ${r.message}`);
  return r.result;
}

/** HcnModifyNamespace Add: the endpoint joins the namespace, as the CNI plugin does before the pod starts. */
export function addToNamespace(host: Host, ns: string, endpointId: string): void {
  ok(
    host.api.HcnModifyNamespace(ns, {
      ResourceType: 'Endpoint',
      RequestType: 'Add',
      Settings: { EndpointId: endpointId },
    }),
    'HcnModifyNamespace',
  );
}

export function setupHcs(api: HcsApi = 'computecore', seed = 5): HcsFixture {
  const host = createHost({ seed, hcs: { api } });
  const net = ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'nat',
      Type: 'NAT',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '172.30.0.0/24',
              Routes: [{ NextHop: '172.30.0.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
    }),
  ).ID;
  const eps = ['eth0', 'v1', 'vm'].map((Name) => ok(host.api.HcnCreateEndpoint(net, null, { Name })).ID);
  const ns = ok(host.api.HcnCreateNamespace(null, { Type: 'Host' })).ID;
  addToNamespace(host, ns, eps[0]!);
  return { host, ns, net, eps };
}

/** hcsshim's WCOW process-isolated container document (schema 2), in namespace `ns`. */
export function containerDoc(ns?: string, extra: JsonObject = {}): JsonObject {
  return {
    Owner: 'containerd-shim-runhcs-v1.exe',
    SchemaVersion: { Major: 2, Minor: 1 },
    Container: { Networking: ns ? { Namespace: ns } : {} },
    ShouldTerminateOnLastHandleClosed: true,
    ...extra,
  };
}

/** moby's schema 1 ContainerConfig with an EndpointList. */
export function v1ContainerDoc(endpoints: readonly string[], name = 'v1'): JsonObject {
  return { SystemType: 'Container', Name: name, Owner: 'docker', EndpointList: [...endpoints] };
}

/** A utility VM (schema 2 VirtualMachine, no NICs yet). */
export function vmDoc(): JsonObject {
  return {
    Owner: 'containerd-shim-runhcs-v1.exe',
    SchemaVersion: { Major: 2, Minor: 1 },
    VirtualMachine: { Chipset: {}, ComputeTopology: {}, Devices: {} },
    ShouldTerminateOnLastHandleClosed: true,
  };
}

/** The failure of `r` as `{hr, name}` (fails the test on success). */
export function failed(r: HcnResult<unknown>): { hr: number; name: string } {
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.result as Json)}`);
  return { hr: r.hr, name: r.name };
}

/** The State of a system, as HcsGetComputeSystemProperties reports it. */
export function stateOf(host: Host, id: string): string {
  return String(ok(host.api.HcsGetComputeSystemProperties(id, '')).State);
}
