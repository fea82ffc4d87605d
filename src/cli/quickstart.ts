/**
 * The quick-start walkthrough `npm start` runs: one simulated Windows host taken through a real HNS
 * lifecycle with the flat API (reference hns-hcs.md §1, §5.3, §6): networks, a namespace,
 * endpoints with HNS-assigned addresses and a PortMapping, attachment, a load balancer, an
 * hnsdiag-like listing, one failure with its HRESULT and ErrorRecord, and teardown in reverse.
 * Every value printed comes from an API result or an HNS event; only the requests are written here.
 */
import type { Json, JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import { formatHResult } from '../core/errors.js';
import { isFailure, type FlatApiMethod } from '../api/flat.js';
import { createHost, type Host } from '../host/host.js';
import { formatVersion, type HostProfile } from '../hns/versions.js';
import {
  collectListing,
  endpointAddresses,
  protocolName,
  subnetGateway,
  type HnsListing,
} from '../render/listing.js';
import type { NarratedCall, NarratedEvent, NarratedStep, Walkthrough } from '../render/narration.js';
import { demoCluster, kubernetesFlows } from '../cluster/flows.js';
import type { CliIo } from './main.js';

export interface QuickstartOptions {
  readonly seed?: number;
  readonly profile?: string | HostProfile;
}

const V2: JsonObject = { Major: 2, Minor: 0 };

/** Raised inside the walk when a call that should succeed fails; the walk stops there. */
class Stop {}

function str(o: Json | undefined, key: string): string {
  if (!isJsonObject(o)) return '';
  const v = o[key];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
}

function list(o: Json | undefined, key: string): JsonObject[] {
  if (!isJsonObject(o)) return [];
  const v = o[key];
  return Array.isArray(v) ? v.filter(isJsonObject) : [];
}

function policyTypes(o: Json | undefined): string[] {
  return list(o, 'Policies').map((p) => str(p, 'Type'));
}

/** Records the calls of a walk, with the events each one caused. */
class Recorder {
  private pending: NarratedEvent[] = [];
  /** Object names by upper-case ID, learned from results. */
  readonly names = new Map<string, string>();

  constructor(readonly host: Host) {
    host.events.on('hns.notification', (event) => this.pending.push({ type: 'notification', event }));
    host.events.on('hns.change', (event) => this.pending.push({ type: 'change', event }));
  }

  name(id: string): string {
    return this.names.get(id.toUpperCase()) ?? id;
  }

  /** Make a call; `expect: 'failure'` marks the one call meant to fail. */
  call(
    method: FlatApiMethod,
    params: Json[],
    summarize?: (result: Json) => string,
    expect: 'success' | 'failure' = 'success',
  ): NarratedCall {
    this.pending = [];
    const r = this.host.api.call(method, params)!;
    const events = this.pending;
    this.pending = [];
    if (isFailure(r)) {
      const c: NarratedCall = {
        method,
        params,
        hresult: r.hr >>> 0,
        name: r.name,
        message: r.message,
        errorRecord: r.errorRecord,
        events,
      };
      if (expect === 'success') throw Object.assign(new Stop(), { call: c });
      return c;
    }
    const result = r.result;
    if (
      isJsonObject(result) &&
      typeof result.ID === 'string' &&
      typeof result.Name === 'string' &&
      result.Name
    ) {
      this.names.set(result.ID.toUpperCase(), result.Name);
    }
    const c: NarratedCall = { method, params, hresult: 0, name: 'S_OK', result, events };
    const summary = summarize?.(result);
    if (expect === 'failure') {
      throw Object.assign(new Stop(), { call: { ...c, summary: 'unexpectedly succeeded' } });
    }
    return summary ? { ...c, summary } : c;
  }
}

function describeNetwork(n: Json, chosenByHns: boolean): string {
  const subnets = list(n, 'Ipams').flatMap((i) => list(i, 'Subnets'));
  const nets = subnets.map((s) => {
    const gw = subnetGateway(s);
    return `${str(s, 'IpAddressPrefix')}${gw ? ` via gateway ${gw}` : ''}`;
  });
  const pools = list(isJsonObject(n) ? n.MacPool : undefined, 'Ranges').map(
    (r) => `${str(r, 'StartMacAddress')}..${str(r, 'EndMacAddress')}`,
  );
  const policies = [...policyTypes(n), ...subnets.flatMap((s) => policyTypes(s))];
  const parts = [
    `${str(n, 'Type') || 'NAT'} network "${str(n, 'Name')}" ID ${str(n, 'ID')}`,
    `subnet ${nets.join(', ') || 'none'}${chosenByHns ? ' (chosen by HNS)' : ''}`,
    `MAC pool ${pools.join(', ') || 'none'}`,
  ];
  if (policies.length) parts.push(`policies ${policies.join(', ')}`);
  return parts.join('; ');
}

function describeEndpoint(rec: Recorder, e: Json): string {
  const parts = [
    `endpoint "${str(e, 'Name')}" ID ${str(e, 'ID')} on "${rec.name(str(e, 'HostComputeNetwork'))}"`,
    `IP ${isJsonObject(e) ? endpointAddresses(e) || 'none' : 'none'}`,
    `MAC ${str(e, 'MacAddress') || 'none'}`,
  ];
  const mappings = list(e, 'Policies')
    .filter((p) => str(p, 'Type') === 'PortMapping')
    .map((p) => {
      const s = isJsonObject(p.Settings) ? p.Settings : {};
      return `${protocolName(s.Protocol)} host port ${str(s, 'ExternalPort')} -> container port ${str(s, 'InternalPort')}`;
    });
  if (mappings.length) parts.push(`PortMapping ${mappings.join(', ')}`);
  const others = policyTypes(e).filter((t) => t !== 'PortMapping');
  if (others.length) parts.push(`policies ${others.join(', ')}`);
  return parts.join('; ');
}

function describeNamespace(rec: Recorder, ns: Json): string {
  const eps = list(ns, 'Resources')
    .filter((r) => str(r, 'Type') === 'Endpoint')
    .map((r) => rec.name(str(r.Data, 'ID')));
  return (
    `namespace ID ${str(ns, 'ID')}, compartment ${str(ns, 'NamespaceId')}` +
    (str(ns, 'Type') ? `, type ${str(ns, 'Type')}` : '') +
    `; endpoints: ${eps.join(', ') || 'none'}`
  );
}

function describeLoadBalancer(rec: Recorder, lb: Json, ips: ReadonlyMap<string, string>): string {
  const vips = isJsonObject(lb) && Array.isArray(lb.FrontendVIPs) ? lb.FrontendVIPs.join(', ') : '';
  const ports = list(lb, 'PortMappings').map(
    (pm) => `${protocolName(pm.Protocol)} ${str(pm, 'ExternalPort')} -> ${str(pm, 'InternalPort')}`,
  );
  const backends = isJsonObject(lb) && Array.isArray(lb.HostComputeEndpoints) ? lb.HostComputeEndpoints : [];
  const be = backends.map((id) => {
    const k = String(id);
    const ip = ips.get(k.toUpperCase());
    return `${rec.name(k)}${ip ? ` (${ip})` : ''}`;
  });
  return `load balancer ID ${str(lb, 'ID')}: VIP ${vips || 'none'}, ${ports.join(', ')}, backends ${be.join(', ')}`;
}

function countLine(l: HnsListing): string {
  return (
    `${l.networks.length} network(s), ${l.endpoints.length} endpoint(s), ${l.namespaces.length} namespace(s) ` +
    `(${l.namespaces.map((n) => str(n, 'Type') || 'untyped').join(', ')}), ${l.loadbalancers.length} load balancer(s), ` +
    `${l.routes.length} SDN route(s)`
  );
}

/** Run the walkthrough on a fresh host. Deterministic for a given seed and profile. */
export function runQuickstart(opts: QuickstartOptions = {}): Walkthrough {
  const seed = opts.seed ?? 1;
  const host = createHost({ seed, ...(opts.profile !== undefined ? { profile: opts.profile } : {}) });
  const rec = new Recorder(host);
  const p = host.profile;
  const steps: NarratedStep[] = [];
  const header = [
    `seed ${seed}, host ${host.name}, profile ${p.name}: ${p.description}, HNS ${formatVersion(p.version)}, HCN schema ${formatVersion(p.schema)}`,
  ];
  const title = 'hnsim quickstart: one simulated Windows host, from an empty HNS to teardown';

  // Calls in flight for the current step, so a stop still shows what ran.
  let calls: NarratedCall[] = [];
  const call = (...a: Parameters<Recorder['call']>): NarratedCall => {
    const c = rec.call(...a);
    calls.push(c);
    return c;
  };
  const step = (
    title: string,
    extra: Omit<NarratedStep, 'title' | 'calls' | 'notes'> = {},
    notes: string[] = [],
  ) => {
    steps.push({ title, calls, notes, ...extra });
    calls = [];
  };
  const id = (c: NarratedCall): string => str(c.result, 'ID');

  try {
    const boot = collectListing(host.api, host);
    const nic = boot.adapters[0];
    step('The host at boot', { listing: { data: boot, kinds: ['namespaces', 'adapters'] } }, [
      `HNS starts with ${countLine(boot)}.`,
      `The host has one physical adapter, ${str(nic, 'Name')}, at ${str(nic, 'IPv4Address')}/${str(nic, 'PrefixLength')}.`,
    ]);

    // Networks
    const nat = call('HcnCreateNetwork', [null, { Name: 'nat', Type: 'NAT', SchemaVersion: V2 }], (r) =>
      describeNetwork(r, true),
    );
    step('Create a NAT network without Ipams: HNS chooses the subnet');
    const natId = id(nat);

    const overlay = call(
      'HcnCreateNetwork',
      [
        null,
        {
          Name: 'vxlan0',
          Type: 'Overlay',
          Policies: [
            { Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } },
            { Type: 'HostRoute', Settings: {} },
          ],
          Ipams: [
            {
              Type: 'Static',
              Subnets: [
                {
                  IpAddressPrefix: '10.244.1.0/24',
                  Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
                  Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
                },
              ],
            },
          ],
          SchemaVersion: V2,
        },
      ],
      (r) => describeNetwork(r, false),
    );
    const overlayId = id(overlay);
    const afterOverlay = collectListing(host.api, host);
    const vnic = afterOverlay.adapters.find((a) => str(a, 'Name') === `vEthernet (${str(nic, 'Name')})`);
    const reported = list(overlay.result, 'Policies').filter(
      (p) => str(p, 'Type') === 'ProviderAddress' || str(p, 'Type') === 'DrMacAddress',
    );
    step(
      'Create an Overlay network on Ethernet: HNS builds the external vSwitch',
      { listing: { data: afterOverlay, kinds: ['adapters'] } },
      [
        `The host's address moved to the host vNIC ${str(vnic, 'Name')} (${str(vnic, 'IPv4Address')}): the network's management IP.`,
        `HNS reports it on the network: ${reported
          .map((p) => {
            const s = isJsonObject(p) && isJsonObject(p.Settings) ? p.Settings : {};
            return `${str(p, 'Type')} ${str(s, 'ProviderAddress') || str(s, 'Address')}`;
          })
          .join(', ')} (flannel and Calico wait for these).`,
      ],
    );

    // Namespace
    const ns = call('HcnCreateNamespace', [null, { SchemaVersion: V2 }], (r) => describeNamespace(rec, r));
    step('Create a host namespace for a pod (as containerd does: no Type)');
    const nsId = id(ns);

    // Endpoints
    const web1 = call(
      'HcnCreateEndpoint',
      [
        natId,
        null,
        {
          Name: 'web-1',
          HostComputeNetwork: natId,
          Policies: [
            { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } },
          ],
          SchemaVersion: V2,
        },
      ],
      (r) => describeEndpoint(rec, r),
    );
    const podA = call(
      'HcnCreateEndpoint',
      [
        overlayId,
        null,
        {
          Name: 'pod-a',
          HostComputeNetwork: overlayId,
          Policies: [{ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16'] } }],
          SchemaVersion: V2,
        },
      ],
      (r) => describeEndpoint(rec, r),
    );
    const podB = call(
      'HcnCreateEndpoint',
      [overlayId, null, { Name: 'pod-b', HostComputeNetwork: overlayId, SchemaVersion: V2 }],
      (r) => describeEndpoint(rec, r),
    );
    step('Create endpoints: HNS assigns IP and MAC addresses; web-1 publishes a host port');
    const [web1Id, podAId, podBId] = [id(web1), id(podA), id(podB)];

    // Attach
    for (const ep of [web1Id, podAId]) {
      call('HcnModifyNamespace', [
        nsId,
        { ResourceType: 'Endpoint', RequestType: 'Add', Settings: { EndpointId: ep } },
      ]);
    }
    call('HcnQueryNamespaceProperties', [nsId], (r) => describeNamespace(rec, r));
    call(
      'HcnQueryEndpointProperties',
      [web1Id],
      (r) =>
        `endpoint "${str(r, 'Name')}" now has HostComputeNamespace ${str(r, 'HostComputeNamespace') || 'none'}`,
    );
    step('Attach web-1 and pod-a to the namespace');

    // Load balancer
    const ips = new Map<string, string>();
    for (const c of [web1, podA, podB]) {
      const ip = list(c.result, 'IpConfigurations')[0];
      if (ip) ips.set(id(c).toUpperCase(), str(ip, 'IpAddress'));
    }
    const lb = call(
      'HcnCreateLoadBalancer',
      [
        null,
        {
          HostComputeEndpoints: [podAId, podBId],
          FrontendVIPs: ['10.96.0.10'],
          PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
          SchemaVersion: V2,
        },
      ],
      (r) => describeLoadBalancer(rec, r, ips),
    );
    step('Add a load balancer: a service VIP with two backends');
    const lbId = id(lb);

    // Listing
    const full = collectListing(host.api, host);
    step('What HNS holds now (hnsdiag list …)', {
      listing: { data: full, kinds: ['networks', 'endpoints', 'namespaces', 'loadbalancers', 'routes'] },
    });

    // One object's JSON
    const detailed = call('HcnQueryEndpointProperties', [web1Id, { SchemaVersion: V2, Flags: 1 }]);
    step('One object as HNS returns it: web-1, detailed query', {
      json: { label: 'HcnQueryEndpointProperties result', value: detailed.result ?? null },
    });

    // A failure
    const before = JSON.stringify(host.snapshot());
    const failed = call(
      'HcnCreateEndpoint',
      [
        natId,
        null,
        {
          Name: 'web-2',
          HostComputeNetwork: natId,
          Policies: [
            { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } },
          ],
          SchemaVersion: V2,
        },
      ],
      undefined,
      'failure',
    );
    const after = JSON.stringify(host.snapshot());
    const count = call(
      'HcnEnumerateEndpoints',
      [],
      (r) => `${Array.isArray(r) ? r.length : 0} endpoint(s) exist`,
    );
    const endpointCount = Array.isArray(count.result) ? count.result.length : 0;
    const unchanged = before === after;
    step(`A failure: web-2 asks for host port 8080 too`, {}, [
      `HNS answered ${failed.name} = ${formatHResult(failed.hresult)} (${failed.hresult} unsigned).`,
      unchanged
        ? `State unchanged: the host snapshot after the failed call is identical to the one before (${endpointCount} endpoints).`
        : 'State CHANGED by a failed call: the snapshots before and after differ.',
    ]);
    if (!unchanged) throw new Stop();

    // Teardown, reverse order
    call('HcnDeleteLoadBalancer', [lbId], () => 'load balancer deleted');
    for (const ep of [podAId, web1Id]) {
      call(
        'HcnModifyNamespace',
        [nsId, { ResourceType: 'Endpoint', RequestType: 'Remove', Settings: { EndpointId: ep } }],
        () => `${rec.name(ep)} detached`,
      );
    }
    for (const ep of [podBId, podAId, web1Id])
      call('HcnDeleteEndpoint', [ep], () => `${rec.name(ep)} deleted`);
    call('HcnDeleteNamespace', [nsId], () => 'namespace deleted');
    for (const n of [overlayId, natId]) call('HcnDeleteNetwork', [n], () => `network ${rec.name(n)} deleted`);
    const end = collectListing(host.api, host);
    step(
      'Tear down in reverse order: load balancer, attachments, endpoints, namespace, networks',
      { listing: { data: end, kinds: ['networks', 'endpoints', 'namespaces', 'loadbalancers', 'adapters'] } },
      [
        `Left: ${countLine(end)}.`,
        'The last network on the vSwitch took it away: the address is back on Ethernet.',
      ],
    );
    packetSteps(step, seed);
    return { title, header, steps, completed: true };
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const failedCall = (e as Stop & { call?: NarratedCall }).call;
    if (failedCall) calls.push(failedCall);
    step('Stopped', {}, ['A call that should have succeeded failed; see the last call above.']);
    return { title, header, steps, completed: false };
  }
}

type StepFn = (
  title: string,
  extra?: Omit<NarratedStep, 'title' | 'calls' | 'notes'>,
  notes?: string[],
) => void;

/**
 * The packet part: two two-node clusters programmed as flannel, win-bridge/win-overlay and
 * kube-proxy would (src/cluster), and the nine flows of the Kubernetes docs traced on each.
 */
function packetSteps(step: StepFn, seed: number): void {
  for (const mode of ['l2bridge', 'overlay'] as const) {
    const { cluster, names } = demoCluster(mode, { seed });
    const rows = kubernetesFlows(cluster, names);
    const client = cluster.pod(names.client)!;
    const server = cluster.pod(names.server)!;
    step(
      mode === 'l2bridge'
        ? 'Packets, L2Bridge (flannel host-gw): the nine flows of the Kubernetes docs, traced'
        : 'Packets, Overlay (flannel VXLAN, VNI 4096): the same flows',
      {
        table: {
          headers: ['Flow', 'Disposition', 'Packet changes on the way'],
          rows: rows.map((r) => [r.flow, r.disposition, r.changes || '(none)']),
        },
      },
      [
        `Two nodes, win-1 and win-2; ${names.client} (${client.ip}) on win-1, ${names.server} (${server.ip}) on win-2 behind service ${names.service}; CoreDNS on win-2; ${names.externalName} outside.`,
        mode === 'l2bridge'
          ? 'Pod IPs cross the wire unchanged (only the MAC becomes the host’s); OutBoundNAT hides them only towards the outside.'
          : 'Cross-node pod traffic is VXLAN-encapsulated between the node addresses; Node → Pod reaches only local pods, as the docs say of flannel VXLAN.',
      ],
    );
  }
}

// ───────────────────────────── the quick-start scenario ─────────────────────────────

/** scenarios/quick-start.yaml of this package (beside src/ and dist/, so both find it). */
export const QUICKSTART_SCENARIO = new URL('../../scenarios/quick-start.yaml', import.meta.url);

export interface QuickstartScenarioOptions {
  readonly seed?: number;
  /** A profile name or HNS version, as --profile takes it (checked by the caller). */
  readonly profile?: string;
  readonly format: 'text' | 'json';
  readonly trace?: boolean;
}

/**
 * `hnsim quickstart` (and `npm start`): scenarios/quick-start.yaml run as `hnsim run` runs it —
 * the narrated lifecycle, then the traces, truth table and audit; exit 0, 1 (an expectation
 * failed) or 4 (the simulator refused the scenario, e.g. a profile without the HCN API).
 */
export async function runQuickstartScenario(io: CliIo, o: QuickstartScenarioOptions): Promise<number> {
  const [{ fileURLToPath }, { loadScenarioFile }, { reportScenario }] = await Promise.all([
    import('node:url'),
    import('../scenario/index.js'),
    import('./run.js'),
  ]);
  const scenario = loadScenarioFile(fileURLToPath(QUICKSTART_SCENARIO));
  return reportScenario(
    io,
    {
      ...scenario,
      file: 'scenarios/quick-start.yaml',
      doc: {
        ...scenario.doc,
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
        ...(o.profile !== undefined ? { profile: o.profile } : {}),
      },
    },
    { format: o.format, trace: o.trace === true },
  );
}
