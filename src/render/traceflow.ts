/**
 * A trace through Antrea nodes as Antrea's Traceflow reports it (reference ovs-windows.md §2.7;
 * antrea-io/antrea pkg/agent/controller/traceflow/packetin.go, pkg/apis/crd/v1beta1/types.go):
 * per node that OVS forwarded on, the observations its agent's packet-ins would give — the sender's
 * `SpoofGuard`/`Forwarded` (`srcPodIP`) or the receiver's `Forwarding`/`Received`; `LB`/`Forwarded`
 * with `translatedDstIP` (and `translatedSrcIP`) when conntrack translated the packet; a
 * `NetworkPolicy` observation where a policy table decided; and `Forwarding` from the `Output` table:
 * `Forwarded` with `tunnelDstIP` into the tunnel, `Delivered` to a pod (or to the gateway when the
 * gateway is the destination), `ForwardedOutOfNetwork` through the gateway otherwise. A view of the
 * walk: nothing is traced again.
 *
 *   traceflowResults(cluster.trace({ from: 'default/client', to: 'svc:default/web' }));
 */
import type { TraceResult } from '../dataplane/trace.js';
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
  const nat = steps.filter((o) => o.component === 'NAT' && (o.action === 'DNAT' || o.action === 'DNAT+SNAT'));
  if (nat.length) {
    const after = nat[nat.length - 1]!.packetAfter;
    const before = nat[0]!.packetBefore;
    out.push({
      component: 'LB',
      action: 'Forwarded',
      ...(after.srcIp !== before.srcIp ? { translatedSrcIP: fmt(after.srcIp) } : {}),
      translatedDstIP: fmt(after.dstIp),
    });
  }
  // a policy table's own rule (not its table-miss flow) decided
  for (const o of ovs) {
    const table = o.rule?.policy;
    // (a rule's flow: not the table miss, nor the established/related bypass at 64990)
    const prio = o.rule?.priority ?? 0;
    if (o.action === 'Matched' && table && POLICY_TABLES.has(table) && prio > 0 && prio !== 64990)
      out.push({ component: 'NetworkPolicy', componentInfo: table, action: 'Forwarded' });
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

/** The Traceflow results of a trace: one per node OVS forwarded on, in the order the packet met them. */
export function traceflowResults(r: TraceResult): TraceflowNodeResult[] {
  const out: TraceflowNodeResult[] = [];
  byHost(r.observations).forEach(({ host, steps }, i) => {
    const obs = nodeObservations(steps, i === 0 && steps[0]!.component === 'Container');
    if (!obs) return;
    // a node met twice (a hairpin through the tunnel) keeps one result per visit, as packet-ins do
    out.push({ node: host, observations: obs });
  });
  return out;
}
