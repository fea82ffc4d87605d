/**
 * Helpers for the dataplane property tests: hosts are built only through the flat HCN API with HNS
 * JSON documents as a CNI plugin writes them (JSON text, as computenetwork.dll takes it), and read
 * back only through it (HcnQueryEndpointProperties, HcnQueryEndpointStats) and host.snapshot().
 * Traces are summarised as one line per observation so a failing property prints a readable walk.
 */
import type { HcnResult } from '../../src/api/flat.js';
import type { JsonObject } from '../../src/core/json.js';
import { traceJson, type TraceResult } from '../../src/dataplane/trace.js';
import { createHost, type Host } from '../../src/host/host.js';

/** The host's one physical adapter, fixed so that two seeds give the same addresses. */
export const HOST_IP = '10.0.0.4';
export const ADAPTER = { name: 'Ethernet', ipAddress: `${HOST_IP}/24`, gateway: '10.0.0.1' } as const;

/** The L2Bridge network of the properties (reference vfp-dataplane.md §6: gateway .1). */
export const POD_PREFIX = '10.244.1.0/24';
export const POD_GATEWAY = '10.244.1.1';

export const SCHEMA = { Major: 2, Minor: 0 } as const;

/** The result of a flat API call that must succeed, with the failure printed otherwise. */
export function ok<T>(r: HcnResult<T>, what = 'call'): T {
  if (!r.ok) throw new Error(`${what} failed: ${r.name} ${r.message}`);
  return r.result;
}

/** A host with the fixed adapter (the seed still picks IDs, MACs and load-balancer choices). */
export function newHost(seed: number): Host {
  return createHost({ seed, adapters: [{ ...ADAPTER }] });
}

/** `a.b.c.d` of the `n`-th address of 10.244.1.0/24. */
export function podIp(n: number): string {
  return `10.244.1.${n}`;
}

/** An L2Bridge network document (win-bridge / flannel host-gw shape) as JSON text. */
export function l2bridgeJson(policies: readonly JsonObject[] = [], name = 'cbr0'): string {
  const doc: JsonObject = {
    Name: name,
    Type: 'L2Bridge',
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: POD_PREFIX,
            Routes: [{ NextHop: POD_GATEWAY, DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
    SchemaVersion: { ...SCHEMA },
  };
  if (policies.length) doc['Policies'] = [...policies];
  return JSON.stringify(doc);
}

/** An endpoint document as JSON text: a name, maybe a fixed address, maybe policies. */
export function endpointJson(
  networkId: string,
  name: string,
  opts: { readonly ip?: string; readonly policies?: readonly JsonObject[] } = {},
): string {
  const doc: JsonObject = { Name: name, HostComputeNetwork: networkId, SchemaVersion: { ...SCHEMA } };
  if (opts.ip) doc['IpConfigurations'] = [{ IpAddress: opts.ip, PrefixLength: 24 }];
  if (opts.policies?.length) doc['Policies'] = [...opts.policies];
  return JSON.stringify(doc);
}

/**
 * Creates a network of `type` with one static subnet `prefix` (default route via `gateway`); its ID.
 */
export function createNetwork(
  host: Host,
  name: string,
  type: string,
  prefix: string,
  gateway: string,
): string {
  const net = ok(
    host.api.HcnCreateNetwork(null, {
      Name: name,
      Type: type,
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            { IpAddressPrefix: prefix, Routes: [{ NextHop: gateway, DestinationPrefix: '0.0.0.0/0' }] },
          ],
        },
      ],
      SchemaVersion: { ...SCHEMA },
    }),
    'HcnCreateNetwork',
  );
  return String(net['ID']);
}

/** Creates an endpoint on `net` at `ip`/24 with `policies`; its ID. */
export function createEndpoint(
  host: Host,
  net: string,
  name: string,
  ip: string,
  policies: readonly JsonObject[] = [],
): string {
  const ep = ok(
    host.api.HcnCreateEndpoint(net, null, {
      Name: name,
      IpConfigurations: [{ IpAddress: ip, PrefixLength: 24 }],
      Policies: [...policies],
      SchemaVersion: { ...SCHEMA },
    }),
    'HcnCreateEndpoint',
  );
  return String(ep['ID']);
}

/** What HcnQueryEndpointProperties reports of an endpoint that the properties use. */
export interface EndpointFacts {
  readonly id: string;
  readonly name: string;
  readonly ip: string;
  /** Upper case, dashes (as HNS writes it). */
  readonly mac: string;
}

export function queryEndpoint(host: Host, id: string): EndpointFacts {
  const e = ok(host.api.HcnQueryEndpointProperties(id, ''), 'HcnQueryEndpointProperties');
  const configs = (e['IpConfigurations'] ?? []) as JsonObject[];
  return {
    id: e.ID,
    name: String(e['Name'] ?? ''),
    ip: String(configs[0]?.['IpAddress'] ?? ''),
    mac: normMac(String(e['MacAddress'] ?? '')),
  };
}

/** `00:15:5d:aa:00:01` and `00-15-5D-AA-00-01` alike, as the latter. */
export function normMac(mac: string): string {
  return mac.replace(/:/g, '-').toUpperCase();
}

/** Everything a trace must not change: the HNS state and every endpoint's counters (via the API). */
export function observable(host: Host): string {
  const ids = ok(host.api.HcnEnumerateEndpoints(''), 'HcnEnumerateEndpoints');
  return JSON.stringify({
    snapshot: host.snapshot(),
    stats: ids.map((id) => ok(host.api.HcnQueryEndpointStats(id, ''), 'HcnQueryEndpointStats')),
  });
}

/** One line per observation: `ACL:Denied[ACL_ENDPOINT_LAYER b1 @500] 10.244.1.2:80>10.244.1.3:53/6`. */
export function walkText(r: TraceResult): string {
  const j = traceJson(r);
  const obs = j['observations'] as JsonObject[];
  const lines = obs.map((o) => {
    const rule = o['rule'] as JsonObject | undefined;
    const p = o['packetAfter'] as JsonObject;
    const ref = rule
      ? `[${String(rule['layer'] ?? '')} ${String(rule['ruleId'] ?? rule['rule'] ?? '')}${rule['priority'] !== undefined ? ` @${String(rule['priority'])}` : ''}]`
      : '';
    return `  ${String(o['component'])}:${String(o['action'])}${ref} ${String(p['srcIp'])}:${String(p['srcPort'])}>${String(p['dstIp'])}:${String(p['dstPort'])}/${String(p['protocol'])}`;
  });
  return `${r.disposition}${r.at ? ` at ${r.at}` : ''}\n${lines.join('\n')}`;
}
