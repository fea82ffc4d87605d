/**
 * Checkers for trace tests (STYLE.md: composable checkers, as netstack's `checker.IPv4(...)`): a
 * trace is read as its JSON form (`traceJson`: addresses and MACs as text), so expected values are
 * literals taken from the reference documents, never computed with the code under test. A step is
 * found by host, component and action; `changes` lists the packet fields a step changed (the outer
 * VXLAN header as `outer.*`); `wire` is the frame a host put on its uplink; `gaps` lists the field
 * changes no step recorded (a trace must account for every change of the packet). `natWebHost` is
 * the small host the trace renderings and the JSON-RPC Trace tests share.
 */
import { traceJson, type TraceResult } from '../../src/dataplane/trace.js';
import { createHost, type Host } from '../../src/host/host.js';
import { ok } from './prop-kit.js';

export interface OuterJ {
  readonly srcMac: string;
  readonly dstMac: string;
  readonly srcIp: string;
  readonly dstIp: string;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly vni: number;
}

export interface PacketJ {
  readonly srcMac: string;
  readonly dstMac: string;
  readonly srcIp: string;
  readonly dstIp: string;
  readonly protocol: number;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly ttl: number;
  readonly outer?: OuterJ;
}

export interface RuleJ {
  readonly kind: string;
  readonly id: string;
  readonly name?: string;
  readonly policy?: string;
  readonly index?: number;
  readonly layer?: string;
  readonly rule?: string;
}

export interface StepJ {
  readonly host: string;
  readonly component: string;
  readonly action: string;
  readonly rule?: RuleJ;
  readonly detail?: string;
  readonly packetBefore: PacketJ;
  readonly packetAfter: PacketJ;
}

export interface DnsJ {
  readonly name: string;
  readonly tried: readonly string[];
  readonly fqdn?: string;
  readonly address?: string;
  readonly reason?: string;
}

export interface TraceJ {
  readonly request: {
    readonly from: string;
    readonly to: string;
    readonly protocol: number;
    readonly sourcePort: number;
    readonly destinationPort: number;
  };
  readonly disposition: string;
  readonly host: string;
  readonly at?: string;
  readonly detail?: string;
  readonly packet: PacketJ;
  readonly final: PacketJ;
  readonly observations: readonly StepJ[];
  readonly lbChoices?: readonly { host: string; lb: string; count: number; chosen: number }[];
  readonly dns?: DnsJ;
  readonly branches?: readonly TraceJ[];
  readonly reply?: TraceJ;
}

/** The dynamic port range SNAT and VXLAN source ports come from (vfp-dataplane.md §3; RFC 7348 §5). */
export const DYNAMIC_PORTS = { min: 49152, max: 65535 } as const;

export function tj(r: TraceResult): TraceJ {
  return traceJson(r) as unknown as TraceJ;
}

/** One line per step, for failure messages. */
export function path(t: TraceJ): string {
  return t.observations
    .map((o) => `${o.host} ${o.component} ${o.action}${o.rule?.rule ? ` [${o.rule.rule}]` : ''}`)
    .join('\n');
}

/** The steps of a host (and component, and action). */
export function steps(t: TraceJ, host: string, component?: string, action?: string): StepJ[] {
  return t.observations.filter(
    (o) =>
      o.host === host &&
      (component === undefined || o.component === component) &&
      (action === undefined || o.action === action),
  );
}

/** The one step of a host with that component (and action); throws with the trace's path otherwise. */
export function step(t: TraceJ, host: string, component: string, action?: string): StepJ {
  const found = steps(t, host, component, action);
  if (found.length !== 1)
    throw new Error(
      `expected one ${host} ${component} ${action ?? '*'} step, found ${found.length} in:\n${path(t)}`,
    );
  return found[0]!;
}

/** Whether any step has this component (and action), on any host. */
export function has(t: TraceJ, component: string, action?: string): boolean {
  return t.observations.some(
    (o) => o.component === component && (action === undefined || o.action === action),
  );
}

function flat(p: PacketJ): Record<string, unknown> {
  const { outer, ...rest } = p;
  const o: Record<string, unknown> = { ...rest };
  if (outer) for (const [k, v] of Object.entries(outer)) o[`outer.${k}`] = v;
  else o['outer'] = 'none';
  return o;
}

function diff(a: PacketJ, b: PacketJ): Record<string, [unknown, unknown]> {
  const x = flat(a);
  const y = flat(b);
  const out: Record<string, [unknown, unknown]> = {};
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) if (x[k] !== y[k]) out[k] = [x[k], y[k]];
  return out;
}

/** The packet fields a step changed, `field: [before, after]` (`outer.*` for the VXLAN header). */
export function changes(s: StepJ): Record<string, [unknown, unknown]> {
  return diff(s.packetBefore, s.packetAfter);
}

/** The frame a host put on its uplink (its `Port Transmitted` step; the first one when several). */
export function wire(t: TraceJ, host: string): PacketJ {
  const s = steps(t, host, 'Port', 'Transmitted')[0];
  if (!s) throw new Error(`${host} transmitted nothing in:\n${path(t)}`);
  return s.packetAfter;
}

/**
 * Field changes between consecutive steps that no step recorded: the packet a step starts with
 * should be the one the step before it ended with. (A NameNotResolved trace starts with the DNS
 * query's own walk, another packet: compare walks separately.)
 */
export function gaps(t: TraceJ): string[] {
  const out: string[] = [];
  const obs = t.observations;
  for (let i = 1; i < obs.length; i++) {
    const d = diff(obs[i - 1]!.packetAfter, obs[i]!.packetBefore);
    if (Object.keys(d).length)
      out.push(
        `between "${obs[i - 1]!.host} ${obs[i - 1]!.component} ${obs[i - 1]!.action}" and "${obs[i]!.host} ${obs[i]!.component} ${obs[i]!.action}": ${JSON.stringify(d)}`,
      );
  }
  return out;
}

/** A port number drawn from the dynamic range. */
export function isDynamicPort(v: unknown): boolean {
  return typeof v === 'number' && v >= DYNAMIC_PORTS.min && v <= DYNAMIC_PORTS.max;
}

/**
 * A host (default adapter) with a NAT network `nat`, `web` — a PortMapping host 8080 → 80 and ACLs
 * that let in TCP 80 only (`allow-80` @100, `deny-in` Block @200) and everything out (`allow-out`
 * @100) — and `client`, without policies.
 */
export function natWebHost(seed: number): { host: Host; net: string; web: string; client: string } {
  const host = createHost({ seed });
  const V2 = { Major: 2, Minor: 0 };
  const net = ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT', SchemaVersion: V2 })).ID;
  const web = ok(
    host.api.HcnCreateEndpoint(net, null, {
      Name: 'web',
      SchemaVersion: V2,
      Policies: [
        { Type: 'PortMapping', Settings: { InternalPort: 80, ExternalPort: 8080, Protocol: 6 } },
        {
          Type: 'ACL',
          Settings: {
            Id: 'allow-80',
            Action: 'Allow',
            Direction: 'In',
            Protocols: '6',
            LocalPorts: '80',
            Priority: 100,
          },
        },
        { Type: 'ACL', Settings: { Id: 'allow-out', Action: 'Allow', Direction: 'Out', Priority: 100 } },
        { Type: 'ACL', Settings: { Id: 'deny-in', Action: 'Block', Direction: 'In', Priority: 200 } },
      ],
    }),
  ).ID;
  const client = ok(host.api.HcnCreateEndpoint(net, null, { Name: 'client', SchemaVersion: V2 })).ID;
  return { host, net, web, client };
}
