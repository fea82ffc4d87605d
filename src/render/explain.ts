/**
 * `hnsim explain`: a trace told in plain words (anchors.md key finding 2: "tell me which policy or
 * rule dropped it"). Everything comes from the trace's own observations — the step that decided,
 * the HNS object and policy its rule cites, the packet as that step saw it — and from the policy
 * document HNS holds, quoted as HNS returns it; nothing is looked up in a table of canned answers.
 * What to change is written as the ACL (or other policy) that would turn the verdict, with the
 * fields taken from the packet.
 *
 *   const e = explainTrace(cluster.trace({ from, to }), { names, policy });
 *   process.stdout.write(renderExplanation(e));
 */
import type { Json, JsonObject } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { TraceResult } from '../dataplane/trace.js';
import type { Host } from '../host/host.js';
import type { Observation, Packet, RuleRef } from '../vswitch/contracts.js';
import { fmt } from '../vswitch/v4.js';
import type { NameLookup } from './trace.js';

export interface ExplainContext {
  /** Names of endpoints and networks by ID (traceNames). */
  readonly names?: NameLookup;
  /** A policy as HNS holds it: the `index`-th of the object's Policies on that node. */
  readonly policy?: (node: string, rule: RuleRef) => JsonObject | undefined;
  /** How the user named the two ends (`default/client`, `svc:default/web`). */
  readonly from?: string;
  readonly to?: string;
}

/**
 * The policy a rule cites as HNS on `host` returns it: the `index`-th of the endpoint's or
 * network's Policies (`HcnQuery*Properties`), for ExplainContext.policy.
 */
export function policyOnHost(host: Host, rule: RuleRef): JsonObject | undefined {
  if (rule.index === undefined) return undefined;
  const q =
    rule.kind === 'Endpoint'
      ? host.api.HcnQueryEndpointProperties(rule.id)
      : rule.kind === 'Network'
        ? host.api.HcnQueryNetworkProperties(rule.id)
        : undefined;
  if (!q || !q.ok) return undefined;
  const list = (q.result as JsonObject)['Policies'];
  const p = Array.isArray(list) ? list[rule.index] : undefined;
  return isJsonObject(p) ? p : undefined;
}

export interface Explanation {
  /** `allowed` when the packet arrived (or left the modelled network), else `denied`. */
  readonly verdict: 'allowed' | 'denied';
  readonly disposition: string;
  /** `TCP 10.244.1.3:50000 → 10.96.0.11:80`. */
  readonly flow: string;
  /** One sentence: what happened. */
  readonly headline: string;
  /** The step that decided, in words, and the rule behind it. */
  readonly decidedBy?: {
    readonly node: string;
    readonly component: string;
    readonly action: string;
    readonly rule?: string;
    readonly detail?: string;
    /** The policy document HNS holds for that rule. */
    readonly policy?: JsonObject;
  };
  /** The rules met on the way (one line each). */
  readonly path: readonly string[];
  /** Why, in a few sentences. */
  readonly why: readonly string[];
  /** Which policy to change, and how. */
  readonly change: readonly string[];
}

const PROTO: Readonly<Record<number, string>> = { 1: 'ICMP', 6: 'TCP', 17: 'UDP' };
const ported = (p: number): boolean => p === 6 || p === 17;

function flowText(p: Packet): string {
  const a = (ip: number, port: number) => (ported(p.proto) ? `${fmt(ip)}:${port}` : fmt(ip));
  return `${PROTO[p.proto] ?? `protocol ${p.proto}`} ${a(p.srcIp, p.srcPort)} → ${a(p.dstIp, p.dstPort)}`;
}

/** `ACL policy #2 (Id deny-web, priority 100) of endpoint web-0 (VFP ACL_ENDPOINT_LAYER rule …)`. */
export function ruleText(r: RuleRef, names?: NameLookup): string {
  const name = names?.(r.id) ?? r.name ?? r.id;
  const what = r.policy
    ? `${r.policy}${r.index !== undefined ? ` policy #${r.index}` : ''} of ${r.kind.toLowerCase()} ${name}`
    : `${r.kind.toLowerCase()} ${name}`;
  const extra = [r.ruleId ? `Id ${r.ruleId}` : '', r.priority !== undefined ? `priority ${r.priority}` : '']
    .filter(Boolean)
    .join(', ');
  const vfp = r.layer ? ` — ${r.layer}${r.rule ? ` rule ${r.rule}` : ''}` : '';
  return `${what}${extra ? ` (${extra})` : ''}${vfp}`;
}

function stepText(o: Observation, names?: NameLookup): string {
  return `${o.host}: ${o.component} ${o.action}${o.rule ? ` by ${ruleText(o.rule, names)}` : ''}${o.detail ? ` (${o.detail})` : ''}`;
}

/** The ACL that matches this packet in a direction, as an HNS ACL policy document. */
function aclFor(p: Packet, dir: 'In' | 'Out', action: 'Allow' | 'Block', priority: number): JsonObject {
  const settings: JsonObject = { Action: action, Direction: dir, Protocols: String(p.proto) };
  if (dir === 'In') {
    settings['RemoteAddresses'] = fmt(p.srcIp);
    if (ported(p.proto)) settings['LocalPorts'] = String(p.dstPort);
  } else {
    settings['RemoteAddresses'] = fmt(p.dstIp);
    if (ported(p.proto)) settings['RemotePorts'] = String(p.dstPort);
  }
  settings['Priority'] = priority;
  return { Type: 'ACL', Settings: settings };
}

function settingsOf(policy: JsonObject | undefined): JsonObject | undefined {
  const s = policy?.['Settings'];
  return isJsonObject(s) ? s : undefined;
}

function num(v: Json | undefined): number | undefined {
  return typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** The last trace of a chain: a DNS query that failed, or the packet's own trace. */
function decisive(r: TraceResult): TraceResult {
  if (r.disposition === 'NameNotResolved' && r.dns?.query && r.dns.query.disposition !== 'Delivered')
    return r.dns.query;
  return r;
}

/** `endpoint default/web-0`, `host`, `external 8.8.8.8` for a trace's `at`. */
function atText(at: string, names?: NameLookup): string {
  if (at.startsWith('endpoint:')) return `endpoint ${names?.(at.slice(9)) ?? at.slice(9)}`;
  return at.replace(':', ' ');
}

/** Explain a trace: the verdict, the step and rule that decided, and what to change. */
export function explainTrace(result: TraceResult, ctx: ExplainContext = {}): Explanation {
  const names = ctx.names;
  const r = decisive(result);
  const obs = r.observations;
  const last = obs[obs.length - 1];
  const verdict =
    result.disposition === 'Delivered' || result.disposition === 'ExitsNetwork' ? 'allowed' : 'denied';
  const from = ctx.from ?? result.request.from;
  const to = ctx.to ?? result.request.to;
  const flow = flowText(result.packet);
  const path = obs.filter((o) => o.rule).map((o) => stepText(o, names));
  const why: string[] = [];
  const change: string[] = [];
  const policyOf = (o: Observation | undefined) =>
    o?.rule && ctx.policy ? ctx.policy(o.host, o.rule) : undefined;
  const decider = [...obs].reverse().find((o) => o.rule) ?? last;
  const decidedPolicy = policyOf(last?.rule ? last : undefined);
  const where = (o: Observation | undefined) => (o ? `on ${o.host}` : '');
  const endpointName = (o: Observation) => names?.(o.rule?.id ?? '') ?? o.rule?.name ?? o.rule?.id ?? '?';
  let headline: string;

  switch (result.disposition) {
    case 'Delivered':
    case 'ExitsNetwork': {
      headline =
        result.disposition === 'Delivered'
          ? `${from} → ${to} is allowed: the packet is delivered${result.at ? ` to ${atText(result.at, names)}` : ''} on ${result.host}.`
          : `${from} → ${to} is allowed: the packet leaves the modelled network from ${result.host}.`;
      const allows = obs.filter((o) => o.component === 'ACL' && o.action === 'Allowed');
      const changes = obs.filter((o) => /NAT|Encap|Rewrit/i.test(o.action) && o.rule);
      if (allows.length)
        why.push(
          `ACL rules let it through: ${allows.map((o) => `${ruleText(o.rule!, names)} ${where(o)}`).join('; ')}.`,
        );
      else
        why.push('No endpoint on the way has an ACL policy, and an endpoint without ACLs allows everything.');
      if (changes.length)
        why.push(
          `On the way: ${changes.map((o) => `${o.action} by ${ruleText(o.rule!, names)}`).join('; ')}.`,
        );
      // to deny it: a Block ACL on the destination endpoint (or the source's, going out)
      const inAllow = [...allows].reverse().find((o) => /\bIn\b/.test(o.detail ?? ''));
      const delivered = obs.find((o) => o.component === 'Delivery' || o.action === 'Delivered');
      const dstEp = result.at?.startsWith('endpoint:')
        ? (names?.(result.at.slice(9)) ?? result.at.slice(9))
        : undefined;
      const prio = inAllow?.rule?.priority;
      const block = aclFor(
        inAllow?.packetBefore ?? delivered?.packetBefore ?? result.final,
        'In',
        'Block',
        prio !== undefined ? Math.max(0, prio - 1) : 100,
      );
      const seen = inAllow?.packetBefore ?? delivered?.packetBefore ?? result.final;
      if (dstEp && seen.srcIp !== result.packet.srcIp)
        why.push(
          `The destination sees the packet from ${fmt(seen.srcIp)}, not ${fmt(result.packet.srcIp)}: SNAT on the way changed its source, so an ACL there must name ${fmt(seen.srcIp)}.`,
        );
      if (dstEp)
        change.push(
          `To deny it, add to endpoint ${dstEp}${delivered ? ` on ${delivered.host}` : ''} the policy ${JSON.stringify(block)}` +
            (prio !== undefined
              ? ` — its Priority below ${prio} (${ruleText(inAllow!.rule!, names)}), since the lower number wins.`
              : allows.length
                ? '.'
                : ' — once an endpoint has ACLs, what no rule allows is blocked, so add the Allow rules it still needs.'),
        );
      else {
        const src = obs.find((o) => o.component === 'ACL' || o.component === 'Container');
        const srcEp = obs.find((o) => o.rule?.kind === 'Endpoint')?.rule;
        const srcName = srcEp ? ` ${names?.(srcEp.id) ?? srcEp.name ?? srcEp.id}` : '';
        change.push(
          `To deny it, add to the source's endpoint${srcName}${src ? ` on ${src.host}` : ''} the policy ${JSON.stringify(aclFor(result.packet, 'Out', 'Block', 100))}.`,
        );
      }
      break;
    }
    case 'DeniedIn':
    case 'DeniedOut': {
      const dir = result.disposition === 'DeniedIn' ? 'In' : 'Out';
      const deny = [...obs].reverse().find((o) => o.component === 'ACL' && o.action === 'Denied') ?? last!;
      const ep = endpointName(deny);
      const byRule =
        deny.rule?.ruleId !== undefined ||
        deny.rule?.priority !== undefined ||
        deny.rule?.index !== undefined;
      const isDefault = /default/.test(deny.detail ?? '') || /default/i.test(deny.rule?.rule ?? '');
      headline = `${from} → ${to} is denied ${dir === 'In' ? 'on the way into' : 'on the way out of'} endpoint ${ep} on ${deny.host}.`;
      const pol = policyOf(deny);
      const seenSrc = deny.packetBefore.srcIp;
      if (dir === 'In' && seenSrc !== result.packet.srcIp)
        why.push(
          `Endpoint ${ep} sees the packet from ${fmt(seenSrc)}, not ${fmt(result.packet.srcIp)}: SNAT on the way (a non-DSR load balancer, OutBoundNAT) changed its source, and its ACLs match ${fmt(seenSrc)}.`,
        );
      if (deny.rule && byRule && !isDefault) {
        why.push(`The rule that decided: ${ruleText(deny.rule, names)}.`);
        if (pol) why.push(`HNS holds it as ${JSON.stringify(pol)}.`);
        const prio = deny.rule.priority ?? num(settingsOf(pol)?.['Priority']);
        change.push(
          `To allow it, change that policy's Action to Allow or narrow what it matches, or add to endpoint ${ep} the policy ${JSON.stringify(
            aclFor(deny.packetBefore, dir, 'Allow', prio !== undefined ? Math.max(0, prio - 1) : 100),
          )}${prio !== undefined ? ` — a Priority below ${prio}, since the lower number wins` : ''}.`,
        );
      } else {
        why.push(
          `No ACL rule of endpoint ${ep} matches this packet ${dir === 'In' ? 'inbound' : 'outbound'}; an endpoint that has ACL policies blocks what none of them allows (${deny.detail ?? 'default deny'}).`,
        );
        change.push(
          `To allow it, add to endpoint ${ep} on ${deny.host} the policy ${JSON.stringify(aclFor(deny.packetBefore, dir, 'Allow', 100))}.`,
        );
      }
      break;
    }
    case 'NameNotResolved': {
      const dns = result.dns;
      headline = `${from} → ${to}: the name does not resolve, so no packet is sent.`;
      if (dns) {
        why.push(
          `The DNS client tried ${dns.tried.map((t) => `"${t}"`).join(', ') || 'nothing'}${dns.reason ? `: ${dns.reason}` : ''}.`,
        );
        if (dns.query && dns.query.disposition !== 'Delivered')
          why.push(
            `The DNS query itself ends ${dns.query.disposition}${last ? ` at ${stepText(last, names)}` : ''}.`,
          );
      }
      change.push(
        "Name a service or pod that exists (a name without a dot gets the search suffixes of the source's DNS settings), or make the DNS server reachable.",
      );
      break;
    }
    default: {
      headline = `${from} → ${to} ends ${result.disposition}${decider ? ` ${where(decider)}` : ''}.`;
      if (decider) {
        why.push(
          `The step that decided: ${decider.component} ${decider.action}${decider.detail ? ` — ${decider.detail}` : ''}.`,
        );
        if (decider.rule) why.push(`The rule behind it: ${ruleText(decider.rule, names)}.`);
      }
      if (result.detail) why.push(result.detail.endsWith('.') ? result.detail : `${result.detail}.`);
      const rule = decider?.rule;
      const pol = policyOf(decider);
      if (rule?.policy === 'OutBoundNAT') {
        const dst = decider!.packetBefore.dstIp;
        const src = decider!.packetBefore.srcIp;
        const owner = `${rule.kind.toLowerCase()} ${names?.(rule.id) ?? rule.name ?? rule.id}`;
        change.push(
          result.disposition === 'Unsupported'
            ? `The OutBoundNAT policy of ${owner}${pol ? ` (${JSON.stringify(pol)})` : ''} takes this packet. Adding ${fmt(dst)} (or its prefix) to its Exceptions takes it out of SNAT — which helps only if ${fmt(dst)} routes replies back to ${fmt(src)}; otherwise this is a limit of the platform, not of the policy: use ${PROTO[decider!.packetBefore.proto] === 'ICMP' ? 'TCP or UDP' : 'another protocol'} to test the path.`
            : `The OutBoundNAT policy of ${owner}${pol ? ` (${JSON.stringify(pol)})` : ''} decided: its Exceptions say which destinations are not SNATed.`,
        );
      } else if (result.disposition === 'NoRoute')
        change.push(
          `Give ${decider?.host ?? result.host} a route to ${fmt((decider ?? last)?.packetBefore.dstIp ?? result.final.dstIp)}: where the step above looked (${decider?.component ?? 'the host'}) — a host route (flannel host-gw), a RemoteSubnetRoute on the network, an SDNRoute on the endpoint, or a remote endpoint (overlay).`,
        );
      else if (result.disposition === 'NoBackend')
        change.push(
          'Give the service ready backends (pods its selector matches), or remove the load balancer.',
        );
      else if (result.disposition === 'DroppedMacSpoofing')
        change.push(
          "Allow MAC address spoofing on the node's NIC (Set-VMNetworkAdapter -MacAddressSpoofing On), or use a network type that does not put container MACs on the wire (L2Bridge rewrites them).",
        );
      else if (rule)
        change.push(
          `Look at ${ruleText(rule, names)}${pol ? `, held as ${JSON.stringify(pol)}` : ''}: it decided this step.`,
        );
      break;
    }
  }
  return {
    verdict,
    disposition: result.disposition,
    flow,
    headline,
    ...(last
      ? {
          decidedBy: {
            node: last.host,
            component: last.component,
            action: last.action,
            ...(last.rule ? { rule: ruleText(last.rule, names) } : {}),
            ...(last.detail ? { detail: last.detail } : {}),
            ...(decidedPolicy ? { policy: decidedPolicy } : {}),
          },
        }
      : {}),
    path,
    why,
    change,
  };
}

/** The explanation as text: the headline, why, the rules on the way, what to change. */
export function renderExplanation(e: Explanation): string {
  const out = [
    `${e.verdict === 'allowed' ? 'ALLOWED' : 'DENIED'} (${e.disposition}): ${e.flow}`,
    e.headline,
    '',
  ];
  out.push('Why:', ...e.why.map((l) => `  ${l}`));
  if (e.path.length) out.push('', 'Rules on the way:', ...e.path.map((l) => `  ${l}`));
  if (e.change.length) out.push('', 'What to change:', ...e.change.map((l) => `  ${l}`));
  return out.join('\n') + '\n';
}
