/**
 * Kubernetes NetworkPolicy (networking.k8s.io/v1) in a cluster, for its Antrea nodes (reference
 * ovs-windows.md §2.6; docs/antrea.md): the objects, and their groups resolved the way Antrea's
 * controller resolves them for each node — the pods a policy applies to, the peers of each rule as
 * addresses (pods by `podSelector`/`namespaceSelector`, `ipBlock` CIDRs minus their `except`s), its
 * ports — and which pods each direction isolates. The agent compiles them into its policy tables.
 *
 *   cluster.addNetworkPolicy({ namespace: 'default', name: 'db', podSelector: { app: 'db' },
 *     ingress: [{ from: [{ podSelector: { app: 'web' } }], ports: [{ port: 5432 }] }] });
 */
import { isJsonObject } from '../core/json.js';
import { hnsError } from '../core/errors.js';
import { contains, fmtPrefix, parsePrefix4, prefix4, type Prefix4 } from '../vswitch/v4.js';
import type { AntreaPolicyRule } from '../plugins/antrea/agent.js';
import type { PodRec } from './types.js';

export type Labels = Readonly<Record<string, string>>;

/** A rule's peer: pods (by their labels and their namespace's), or an IP block. */
export interface NetworkPolicyPeer {
  readonly podSelector?: Labels;
  readonly namespaceSelector?: Labels;
  readonly ipBlock?: { readonly cidr: string; readonly except?: readonly string[] };
}

export interface NetworkPolicyPort {
  readonly protocol?: 'TCP' | 'UDP';
  readonly port?: number;
  readonly endPort?: number;
}

export interface NetworkPolicyRule {
  /** `from` (ingress) or `to` (egress): absent or empty = every peer (Kubernetes' rule). */
  readonly from?: readonly NetworkPolicyPeer[];
  readonly to?: readonly NetworkPolicyPeer[];
  /** Absent or empty = every port. */
  readonly ports?: readonly NetworkPolicyPort[];
}

export interface NetworkPolicySpec {
  readonly namespace: string;
  readonly name: string;
  /** `{}` selects every pod of the namespace. */
  readonly podSelector: Labels;
  /** Default: Ingress, plus Egress when `egress` is given. */
  readonly policyTypes?: readonly ('Ingress' | 'Egress')[];
  readonly ingress?: readonly NetworkPolicyRule[];
  readonly egress?: readonly NetworkPolicyRule[];
}

/** A label selector's matchLabels: `{}` matches everything. */
export function matchLabels(selector: Labels, labels: Labels): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/** The labels a namespace has in a cluster with no Namespace objects: Kubernetes' own one. */
function namespaceLabels(ns: string): Labels {
  return { 'kubernetes.io/metadata.name': ns };
}

/** The policy's types: given (non-empty), else Ingress, and Egress when it has egress rules (Kubernetes' default). */
export function policyTypesOf(
  p: Pick<NetworkPolicySpec, 'policyTypes' | 'egress'>,
): ('Ingress' | 'Egress')[] {
  return p.policyTypes?.length
    ? [...p.policyTypes]
    : ['Ingress', ...(p.egress?.length ? (['Egress'] as const) : [])];
}

/** Check a spec's shape and values (E_INVALIDARG naming what is wrong); nothing else is trusted later. */
export function checkNetworkPolicy(p: NetworkPolicySpec): void {
  const bad = (what: string): never => {
    throw hnsError('E_INVALIDARG', `NetworkPolicy ${String(p.namespace)}/${String(p.name)}: ${what}`);
  };
  if (typeof p.namespace !== 'string' || !p.namespace || typeof p.name !== 'string' || !p.name)
    bad('namespace and name are required');
  const labels = (v: unknown, what: string): void => {
    if (!isJsonObject(v)) bad(`${what} must be a map of labels`);
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === 'matchLabels' || k === 'matchExpressions')
        bad(`${what}: give the labels themselves (${k} is not modelled: ${what}: {app: web})`);
      if (typeof x !== 'string') bad(`${what}.${k} must be a string`);
    }
  };
  labels(p.podSelector, 'podSelector');
  const list = (v: unknown, what: string): void => {
    if (v !== undefined && !Array.isArray(v)) bad(`${what} must be a list`);
  };
  list(p.policyTypes, 'policyTypes');
  list(p.ingress, 'ingress');
  list(p.egress, 'egress');
  for (const t of p.policyTypes ?? [])
    if (t !== 'Ingress' && t !== 'Egress') bad(`policyTypes: "${String(t)}"`);
  for (const [k, r] of [
    ...(p.ingress ?? []).map((r) => ['from', r] as const),
    ...(p.egress ?? []).map((r) => ['to', r] as const),
  ]) {
    if (!isJsonObject(r)) bad('a rule must be a map');
    list((r as Record<string, unknown>)[k], k);
    list(r.ports, 'ports');
    for (const peer of ((r as Record<string, unknown>)[k] as unknown[] | undefined) ?? [])
      if (!isJsonObject(peer)) bad(`a ${k} peer must be a map`);
  }
  const rules = [...(p.ingress ?? []).map((r) => r.from), ...(p.egress ?? []).map((r) => r.to)];
  for (const peers of rules)
    for (const peer of peers ?? []) {
      if (peer.podSelector !== undefined) labels(peer.podSelector, 'podSelector');
      if (peer.namespaceSelector !== undefined) labels(peer.namespaceSelector, 'namespaceSelector');
      if (peer.ipBlock !== undefined) {
        const b: unknown = peer.ipBlock;
        if (!isJsonObject(b) || typeof b['cidr'] !== 'string') bad('ipBlock must be a map with a cidr');
        list((b as Record<string, unknown>)['except'], 'ipBlock except');
        for (const e of (peer.ipBlock.except ?? []) as unknown[])
          if (typeof e !== 'string') bad('ipBlock except must be a list of CIDRs');
        if (peer.podSelector || peer.namespaceSelector) bad('ipBlock cannot be combined with a selector');
        const c = parsePrefix4(peer.ipBlock.cidr);
        if (!c) bad(`ipBlock cidr "${peer.ipBlock.cidr}"`);
        for (const e of peer.ipBlock.except ?? []) {
          const x = parsePrefix4(e);
          if (!x || !contains(c!, x.addr) || x.len <= c!.len)
            bad(`ipBlock except "${e}" is not strictly inside ${peer.ipBlock.cidr}`);
        }
      } else if (!peer.podSelector && !peer.namespaceSelector) bad('a peer needs a selector or an ipBlock');
    }
  for (const r of [...(p.ingress ?? []), ...(p.egress ?? [])])
    for (const pt of r.ports ?? []) {
      if (pt.protocol !== undefined && pt.protocol !== 'TCP' && pt.protocol !== 'UDP')
        bad(`protocol "${String(pt.protocol)}" (TCP or UDP here)`);
      const ok = (n: number | undefined) => n === undefined || (Number.isInteger(n) && n >= 1 && n <= 65535);
      if (!ok(pt.port) || !ok(pt.endPort)) bad('ports are 1..65535');
      if (pt.endPort !== undefined && (pt.port === undefined || pt.endPort < pt.port))
        bad('endPort needs a port ≤ it');
    }
}

/** A CIDR minus prefixes inside it, as the fewest prefixes covering the rest. */
export function subtractPrefixes(whole: Prefix4, holes: readonly Prefix4[]): Prefix4[] {
  const inside = holes.filter((h) => contains(whole, h.addr) && h.len >= whole.len);
  if (inside.some((h) => h.len === whole.len)) return [];
  if (!inside.length) return [whole];
  const half = 2 ** (31 - whole.len);
  const lo = prefix4(whole.addr, whole.len + 1);
  const hi = prefix4((whole.addr + half) >>> 0, whole.len + 1);
  return [...subtractPrefixes(lo, inside), ...subtractPrefixes(hi, inside)];
}

/** A rule's peers as prefixes: undefined when the rule names none (every peer). */
function peerPrefixes(
  policy: NetworkPolicySpec,
  peers: readonly NetworkPolicyPeer[] | undefined,
  pods: Iterable<PodRec>,
): string[] | undefined {
  if (!peers?.length) return undefined;
  const out = new Set<string>();
  for (const peer of peers) {
    if (peer.ipBlock) {
      const c = parsePrefix4(peer.ipBlock.cidr)!;
      const holes = (peer.ipBlock.except ?? []).map((e) => parsePrefix4(e)!);
      for (const p of subtractPrefixes(c, holes)) out.add(fmtPrefix(p));
      continue;
    }
    for (const pod of pods) {
      const nsOk = peer.namespaceSelector
        ? matchLabels(peer.namespaceSelector, namespaceLabels(pod.namespace))
        : pod.namespace === policy.namespace;
      if (nsOk && matchLabels(peer.podSelector ?? {}, pod.labels)) out.add(`${pod.ip}/32`);
    }
  }
  return [...out];
}

/**
 * Every rule of every policy, its groups resolved (Antrea's controller), numbered from 1 in policy
 * and rule order; and the pods each direction isolates.
 */
export function compileNetworkPolicies(
  policies: Iterable<NetworkPolicySpec>,
  pods: readonly PodRec[],
): { rules: AntreaPolicyRule[]; isolated: { in: string[]; out: string[] } } {
  const rules: AntreaPolicyRule[] = [];
  const isoIn = new Set<string>();
  const isoOut = new Set<string>();
  let id = 1;
  for (const p of policies) {
    const applied = pods
      .filter((x) => x.namespace === p.namespace && matchLabels(p.podSelector, x.labels))
      .map((x) => x.ip);
    const types = policyTypesOf(p);
    const dir = (t: 'Ingress' | 'Egress') => types.includes(t);
    if (dir('Ingress')) for (const ip of applied) isoIn.add(ip);
    if (dir('Egress')) for (const ip of applied) isoOut.add(ip);
    const add = (direction: 'In' | 'Out', r: NetworkPolicyRule) => {
      const peers = peerPrefixes(p, direction === 'In' ? r.from : r.to, pods);
      rules.push({
        id: id++,
        policy: `${p.namespace}/${p.name}`,
        direction,
        appliedTo: applied,
        ...(peers ? { peers } : {}),
        ...(r.ports?.length
          ? {
              ports: r.ports.map((pt) => ({
                protocol: pt.protocol ?? 'TCP',
                ...(pt.port !== undefined ? { port: pt.port } : {}),
                ...(pt.endPort !== undefined ? { endPort: pt.endPort } : {}),
              })),
            }
          : {}),
      });
    };
    if (dir('Ingress')) for (const r of p.ingress ?? []) add('In', r);
    if (dir('Egress')) for (const r of p.egress ?? []) add('Out', r);
  }
  return { rules, isolated: { in: [...isoIn], out: [...isoOut] } };
}
