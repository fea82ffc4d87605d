/**
 * What a click asks of one object at one step, and a packet's path: each answered by the
 * simulator on the state of that step — the flat API's own `HcnQuery*Properties` and `HNSCall`
 * documents, `hnsim show rules`' text of a port, a container's `ipconfig /all` and `route print`,
 * and `hnsim trace` / `hnsim explain` for a packet.
 */
import type { JsonObject } from '../../core/json.js';
import type { TraceRequest, TraceResult } from '../../dataplane/trace.js';
import { containerView } from '../../hcs/view.js';
import type { Host } from '../../host/host.js';
import { renderIpconfigAll, renderRoutePrint } from '../../render/container.js';
import { explainTrace, policyOnHost, renderExplanation } from '../../render/explain.js';
import { collectObjects } from '../../render/objects.js';
import { renderTrace, traceNames, type NameLookup } from '../../render/trace.js';
import { renderPortRules } from '../../render/vfp.js';
import type { Observation, RuleRef } from '../../vswitch/contracts.js';
import { listPortRules } from '../../vswitch/rules.js';
import { fmt } from '../../vswitch/v4.js';
import type { UiDetails, UiHop, UiRef, UiTrace, UiTraceRequest } from './contract.js';
import { upper } from '../../render/objects.js';

type Query = (id: string) => { readonly ok: boolean; readonly result?: unknown };

/** The v2 query and v1 path of each HNS object kind. */
function hnsCalls(host: Host, kind: UiRef['kind']): { v2?: Query; v1?: string } {
  const api = host.api;
  switch (kind) {
    case 'endpoint':
    case 'port':
      return { v2: (id) => api.HcnQueryEndpointProperties(id), v1: 'endpoints' };
    case 'network':
      return { v2: (id) => api.HcnQueryNetworkProperties(id), v1: 'networks' };
    case 'namespace':
      return { v2: (id) => api.HcnQueryNamespaceProperties(id) };
    case 'loadbalancer':
      return { v2: (id) => api.HcnQueryLoadBalancerProperties(id), v1: 'policylists' };
    default:
      return {};
  }
}

const asObject = (r: { readonly ok: boolean; readonly result?: unknown }): JsonObject | undefined =>
  r.ok && typeof r.result === 'object' && r.result !== null && !Array.isArray(r.result)
    ? (r.result as JsonObject)
    : undefined;

function str(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** An object of a Windows node, on `host` (its state at the step asked). */
export function hostDetails(host: Host, ref: UiRef, lines: readonly string[]): UiDetails {
  const title = lines[0] ?? `${ref.kind} ${ref.id}`;
  const calls = hnsCalls(host, ref.kind);
  const out: { -readonly [K in keyof UiDetails]: UiDetails[K] } = { ref, title };
  if (calls.v2 && !ref.id.startsWith('remote:')) {
    const v2 = asObject(calls.v2(ref.id));
    if (v2) out.v2 = v2;
    if (calls.v1) {
      const v1 = asObject(host.api.HNSCall('GET', `/${calls.v1}/${ref.id}`, ''));
      if (v1) out.v1 = v1;
    }
  }
  // a vSwitch is its network's (the first HNS network on it), a compartment its namespace's
  if (ref.kind === 'vswitch') {
    const net = [...host.hns.store.networks.values()].find(
      (n) => upper(String(n.SwitchGuid ?? '')) === ref.id,
    );
    if (net)
      Object.assign(out, hostDetails(host, { ...ref, kind: 'network', id: upper(net.ID) }, []), {
        ref,
        title,
      });
  }
  if (ref.kind === 'compartment') {
    const ns = collectObjects(host).compartments.find((c) => String(c.CompartmentId) === ref.id)?.Namespace;
    const v2 = ns ? asObject(host.api.HcnQueryNamespaceProperties(ns)) : undefined;
    if (v2) out.v2 = v2;
  }
  if (ref.kind === 'port' && !ref.id.startsWith('remote:'))
    out.rules = renderPortRules(listPortRules(host.dataplane.view(), ref.id));
  const system =
    ref.kind === 'container'
      ? ref.id
      : ref.kind === 'compartment'
        ? collectObjects(host).compartments.find((c) => String(c.CompartmentId) === ref.id)?.Containers[0]
        : undefined;
  if (system !== undefined) {
    try {
      const view = containerView(host.hcs, system, host);
      out.ipconfig = renderIpconfigAll(view);
      out.routePrint = renderRoutePrint(view);
      out.facts = [
        ['compute system', view.id],
        ['state', view.state],
      ];
    } catch (e) {
      out.facts = [['compute system', `${system}: ${(e as Error).message}`]];
    }
  }
  const record =
    ref.kind === 'nic' || ref.kind === 'vnic'
      ? host.adapters().find((a) => a['Name'] === ref.id)
      : ref.kind === 'vswitch'
        ? host.switches().find((s) => upper(String(s['ID'])) === ref.id)
        : undefined;
  if (record) out.facts = Object.entries(record).map(([k, v]) => [k, str(v)] as const);
  if (ref.kind === 'node')
    out.facts = [
      ['HNS profile', `${host.profile.name}: ${host.profile.description}`],
      ['networks', String(host.hns.store.networks.size)],
      ['endpoints', String(host.hns.store.endpoints.size)],
      ['load balancers', String(host.hns.store.loadBalancers.size)],
    ];
  if (!out.facts && lines.length) out.facts = lines.slice(1).map((l) => ['', l] as const);
  return out;
}

// ───────────────────────────── traces ─────────────────────────────

/** Where a packet is: trace through it, look hosts up by node name, name endpoints. */
export interface TraceWorld {
  trace(req: TraceRequest): TraceResult;
  host(node: string): Host | undefined;
  readonly hosts: readonly Host[];
  /** A user's reference as the trace scope takes it. */
  ref(r: string): string;
  /** Pod names by endpoint ID (upper case). */
  readonly pods: ReadonlyMap<string, string>;
}

export function traceRequest(w: TraceWorld, r: UiTraceRequest): TraceRequest {
  const protocol = r.protocol;
  return {
    from: w.ref(r.from),
    to: w.ref(r.to),
    protocol,
    ...(protocol !== 'ICMP' && protocol !== 1 && r.port !== undefined ? { destinationPort: r.port } : {}),
    ...(r.sourcePort !== undefined ? { sourcePort: r.sourcePort } : {}),
  };
}

function names(w: TraceWorld): NameLookup {
  const base = traceNames(...w.hosts);
  return (id) => w.pods.get(upper(id)) ?? base(id);
}

function endpointByIp(host: Host | undefined, ip: number): string | undefined {
  if (!host) return undefined;
  const text = fmt(ip);
  for (const [id, e] of host.hns.store.endpoints)
    if (!(e.Flags & 1) && e.IpConfigurations.some((c) => c.IpAddress === text)) return upper(id);
  return undefined;
}

/** The box an observation happened at. */
function hopRef(w: TraceWorld, o: Observation, last: boolean, at: string | undefined): UiRef | undefined {
  const node = o.host;
  const host = w.host(node);
  const rule: RuleRef | undefined = o.rule;
  if (last && o.component === 'Delivery' && at?.startsWith('endpoint:'))
    return { node, kind: 'endpoint', id: upper(at.slice(9)) };
  if (rule?.kind === 'Endpoint') return { node, kind: 'port', id: upper(rule.id) };
  if (rule?.kind === 'LoadBalancer') return { node, kind: 'loadbalancer', id: upper(rule.id) };
  if (o.component === 'Container') {
    const ep = endpointByIp(host, o.packetBefore.srcIp);
    return ep ? { node, kind: 'endpoint', id: ep } : undefined;
  }
  if (o.component === 'Underlay') {
    const seg = /segment (\S+)/.exec(o.detail ?? '');
    return seg ? { kind: 'segment', id: seg[1]! } : undefined;
  }
  if (!host) return undefined;
  if (o.component === 'Port' || o.component === 'HostStack') {
    const nic = host.adapters().find((a) => a['Kind'] === 'Physical');
    if (o.component === 'Port' && nic) return { node, kind: 'nic', id: String(nic['Name']) };
    return { node, kind: 'node', id: node };
  }
  const ep = endpointByIp(host, o.packetAfter.dstIp) ?? endpointByIp(host, o.packetBefore.srcIp);
  if (ep) return { node, kind: 'port', id: ep };
  const sw = host.switches()[0];
  return sw ? { node, kind: 'vswitch', id: upper(String(sw['ID'])) } : { node, kind: 'node', id: node };
}

const PROTO: Readonly<Record<number, string>> = { 1: 'ICMP', 6: 'TCP', 17: 'UDP' };

function packetText(o: Observation): string {
  const p = o.packetAfter;
  const ported = p.proto === 6 || p.proto === 17;
  const a = (ip: number, port: number) => (ported ? `${fmt(ip)}:${port}` : fmt(ip));
  return `${PROTO[p.proto] ?? p.proto} ${a(p.srcIp, p.srcPort)} → ${a(p.dstIp, p.dstPort)}`;
}

function ruleLine(r: RuleRef | undefined): string | undefined {
  if (!r) return undefined;
  const where = [r.layer, r.rule].filter(Boolean).join(' ');
  const prio = r.priority !== undefined ? ` @${r.priority}` : '';
  return where
    ? `${where}${prio}`
    : `${r.kind}${r.policy ? ` ${r.policy}` : ''}${r.name ? ` ${r.name}` : ''}`;
}

/** A trace result as the page shows it. */
function uiTrace(w: TraceWorld, request: UiTraceRequest, r: TraceResult, look: NameLookup): UiTrace {
  const hops: UiHop[] = r.observations.map((o, i) => {
    const at = hopRef(w, o, i === r.observations.length - 1, r.at);
    const rule = ruleLine(o.rule);
    return {
      node: o.host,
      stage: o.component,
      action: o.action,
      ...(rule ? { rule } : {}),
      packet: packetText(o),
      ...(at ? { at } : {}),
    };
  });
  return {
    request,
    disposition: r.disposition,
    hops,
    text: renderTrace(r, 'detailed', { names: look }),
  };
}

/** The packet, its branches (one per backend), its reply, and why when it is not delivered. */
export function tracePacket(w: TraceWorld, request: UiTraceRequest): UiTrace {
  const req = traceRequest(w, request);
  const look = names(w);
  const main = w.trace(req);
  const out = uiTrace(w, request, main, look);
  const branched = w.trace({ ...req, allBranches: true });
  const branches = (branched.branches ?? []).map((b) => uiTrace(w, request, b, look));
  const replied = main.disposition === 'Delivered' ? w.trace({ ...req, reply: true }).reply : undefined;
  const explain =
    main.disposition !== 'Delivered'
      ? renderExplanation(
          explainTrace(main, {
            names: look,
            from: request.from,
            to: request.to,
            policy: (node, rule) => {
              const host = w.host(node);
              return host ? policyOnHost(host, rule) : undefined;
            },
          }),
        )
      : undefined;
  return {
    ...out,
    ...(explain !== undefined ? { explain } : {}),
    ...(branches.length ? { branches } : {}),
    ...(replied
      ? { reply: uiTrace(w, { ...request, from: request.to, to: request.from }, replied, look) }
      : {}),
  };
}
