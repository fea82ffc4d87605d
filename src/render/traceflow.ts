/**
 * A trace through Antrea nodes as Antrea's Traceflow reports it (reference ovs-windows.md §2.7;
 * antrea-io/antrea pkg/agent/controller/traceflow/packetin.go, pkg/apis/crd/v1beta1/types.go):
 * per node that OVS forwarded on, the observations its agent's packet-ins would give — the sender's
 * `SpoofGuard`/`Forwarded` (`srcPodIP`) or the receiver's `Forwarding`/`Received`; `LB`/`Forwarded`
 * with `translatedDstIP` (and `translatedSrcIP`) when conntrack translated the packet; a
 * `NetworkPolicy` observation where a policy table decided; and `Forwarding` from the `Output` table:
 * `Forwarded` with `tunnelDstIP` into the tunnel, `Delivered` to a pod (or to the gateway when the
 * gateway is the destination), `ForwardedOutOfNetwork` through the gateway otherwise. A view of the
 * walk: nothing is traced again. Given the cluster, the observations also name what Antrea's agent
 * knows by name: the LB's endpoint `pod` and the `networkPolicy` (`K8sNetworkPolicy:<ns>/<name>`)
 * whose rule allowed the packet.
 *
 *   traceflowResults(cluster.trace({ from: 'default/client', to: 'svc:default/web' }), cluster);
 */
import type { Cluster } from '../cluster/cluster.js';
import type { TraceResult } from '../dataplane/trace.js';
import type { AntreaPolicyRule } from '../plugins/antrea/agent.js';
import type { Observation } from '../vswitch/contracts.js';
import { fmt } from '../vswitch/v4.js';

/** `crdv1beta1.Observation`: the fields hnsim can fill (Egress is not on Windows). */
export interface TraceflowObservation {
  readonly component: 'SpoofGuard' | 'LB' | 'Routing' | 'NetworkPolicy' | 'Forwarding';
  readonly componentInfo?: string;
  readonly action: 'Delivered' | 'Received' | 'Forwarded' | 'Dropped' | 'Rejected' | 'ForwardedOutOfNetwork';
  readonly translatedSrcIP?: string;
  readonly translatedDstIP?: string;
  readonly tunnelDstIP?: string;
  readonly srcPodIP?: string;
  /** LB: the endpoint pod (`namespace/name`). */
  readonly pod?: string;
  /** NetworkPolicy: `K8sNetworkPolicy:<namespace>/<name>` (Antrea's `NetworkPolicyReference` type and name). */
  readonly networkPolicy?: string;
}

/** What the view can name from the cluster: pods by address, each node's policy rules. */
interface Names {
  podAt(ip: number): string | undefined;
  rules(node: string): readonly AntreaPolicyRule[];
}

function clusterNames(c: Cluster): Names {
  let byIp: Map<number, string> | undefined;
  return {
    podAt: (ip) =>
      (byIp ??= new Map([...c.podRecs()].map((p) => [p.ipNum, `${p.namespace}/${p.name}`]))).get(ip),
    rules: (node) => {
      const n = c.nodeOf(node);
      return n && n.kind === 'Windows' && n.antrea ? n.antrea.policyRules() : [];
    },
  };
}

/** The rule behind a policy table's flow: its `conj_id` (the rule's conjunction, as `reg5`/`reg6` tell packetin.go). */
function ruleOf(rules: readonly AntreaPolicyRule[], flowText: string): AntreaPolicyRule | undefined {
  const conj = /(?:^|,)conj_id=(\d+)(?:,|$)/.exec(flowText);
  return conj ? rules.find((r) => r.id === Number(conj[1])) : undefined;
}

/** `crdv1beta1.NodeResult` without the timestamp (hnsim's traces take no time). */
export interface TraceflowNodeResult {
  readonly node: string;
  readonly observations: readonly TraceflowObservation[];
}

const POLICY_TABLES = new Set([
  'AntreaPolicyEgressRule',
  'EgressRule',
  'EgressDefaultRule',
  'EgressMetric',
  'AntreaPolicyIngressRule',
  'IngressRule',
  'IngressDefaultRule',
  'IngressMetric',
]);

/** The tables whose rule (a conjunction's `conj_id` flow) allowing a packet is a `Forwarded` observation. */
const RULE_TABLES = new Set([
  'AntreaPolicyEgressRule',
  'EgressRule',
  'AntreaPolicyIngressRule',
  'IngressRule',
]);

/** The consecutive steps of each host, in the order the packet met them. */
function byHost(obs: readonly Observation[]): { host: string; steps: Observation[] }[] {
  const out: { host: string; steps: Observation[] }[] = [];
  for (const o of obs) {
    const last = out[out.length - 1];
    if (last && last.host === o.host) last.steps.push(o);
    else out.push({ host: o.host, steps: [o] });
  }
  return out;
}

/** One node's observations, from its steps (undefined: OVS did not forward there). */
function nodeObservations(
  steps: readonly Observation[],
  sender: boolean,
  names: Names | undefined,
): TraceflowObservation[] | undefined {
  const ovs = steps.filter((o) => o.component === 'OVS');
  if (!ovs.length) return undefined;
  const out: TraceflowObservation[] = [];
  const first = steps[0]!;
  out.push(
    sender
      ? { component: 'SpoofGuard', action: 'Forwarded', srcPodIP: fmt(first.packetBefore.srcIp) }
      : { component: 'Forwarding', action: 'Received' },
  );
  // conntrack's translations in OVS (a Service's DNAT in zone 65520, a hairpin's SNAT in 65521):
  // packetin.go compares ct_nw_dst/ct_nw_src with the packet's
  const inOvs = steps.filter((o) => o.component === 'NAT' && /conntrack zone/.test(o.detail ?? ''));
  const dnat = inOvs.filter((o) => o.action === 'DNAT' || o.action === 'DNAT+SNAT');
  if (dnat.length) {
    const after = inOvs[inOvs.length - 1]!.packetAfter;
    const before = dnat[0]!.packetBefore;
    const pod = names?.podAt(after.dstIp);
    out.push({
      component: 'LB',
      action: 'Forwarded',
      ...(pod ? { pod } : {}),
      ...(after.srcIp !== before.srcIp ? { translatedSrcIP: fmt(after.srcIp) } : {}),
      translatedDstIP: fmt(after.dstIp),
    });
  }
  // a policy table's own rule (not its table-miss flow) decided
  for (const o of ovs) {
    const table = o.rule?.policy;
    // (a rule's flow: not the table miss, nor the established/related bypass at 64990)
    // and not a flow that drops: the drop is the observation below)
    const prio = o.rule?.priority ?? 0;
    const text = o.rule?.rule ?? '';
    if (
      o.action !== 'Matched' ||
      !table ||
      !RULE_TABLES.has(table) ||
      prio === 0 ||
      prio === 64990 ||
      /actions=drop$/.test(text)
    )
      continue;
    const rule = names && ruleOf(names.rules(o.host), text);
    out.push({
      component: 'NetworkPolicy',
      componentInfo: table,
      action: 'Forwarded',
      ...(rule?.policy ? { networkPolicy: `K8sNetworkPolicy:${rule.policy}` } : {}),
    });
  }
  const last = steps[steps.length - 1]!;
  if (last.component === 'OVS' && last.action === 'Dropped') {
    const table = /\(([A-Za-z]+)\) \(/.exec(last.detail ?? '')?.[1];
    out.push({
      component: table && POLICY_TABLES.has(table) ? 'NetworkPolicy' : 'Forwarding',
      ...(table ? { componentInfo: table } : {}),
      action: 'Dropped',
    });
    return out;
  }
  // the Output table's decision for the packet itself (not the outer packet's LOCAL → uplink pass)
  const out1 = ovs.find((o) => o.action === 'Output');
  if (out1) {
    const to = out1.detail ?? '';
    const encap = steps.find((o) => o.action === 'Encapsulated');
    let action: TraceflowObservation['action'] = 'Delivered';
    let tunnelDstIP: string | undefined;
    if (encap?.packetAfter.outer) {
      action = 'Forwarded';
      tunnelDstIP = fmt(encap.packetAfter.outer.dstIp);
    } else if (/the host vNIC antrea-gw0/.test(to)) {
      // Delivered when the gateway itself is the destination (L3Forwarding's flow for its address)
      const toGateway = ovs.some(
        (o) =>
          o.rule?.policy === 'L3Forwarding' &&
          o.rule.priority === 210 &&
          /^ip,nw_dst=/.test(o.rule.rule ?? ''),
      );
      action = toGateway ? 'Delivered' : 'ForwardedOutOfNetwork';
    }
    out.push({
      component: 'Forwarding',
      componentInfo: 'Output',
      action,
      ...(tunnelDstIP ? { tunnelDstIP } : {}),
    });
  }
  return out;
}

/**
 * The Traceflow results of a trace: one per node OVS forwarded on, in the order the packet met
 * them. With the cluster the trace ran in, LB and NetworkPolicy observations carry their names.
 */
export function traceflowResults(r: TraceResult, cluster?: Cluster): TraceflowNodeResult[] {
  const out: TraceflowNodeResult[] = [];
  const names = cluster && clusterNames(cluster);
  byHost(r.observations).forEach(({ host, steps }, i) => {
    const obs = nodeObservations(steps, i === 0 && steps[0]!.component === 'Container', names);
    if (!obs) return;
    // a node met twice (a hairpin through the tunnel) keeps one result per visit, as packet-ins do
    out.push({ node: host, observations: obs });
  });
  return out;
}
