/**
 * Open vSwitch's OpenFlow engine for hnsim (issue 17 §2): a bridge with flow tables, groups and
 * conntrack, the ovs-ofctl flow syntax and dump-flows text, and ofproto/trace. Independent of
 * HNS; the dataplane hands it packets when the OVS extension is enabled (later work).
 *
 *   const br = new Bridge({ name: 'br0', clock });
 *   br.addPort('p1', 1); br.addPort('p2', 2);
 *   br.addFlows('in_port=1,actions=output:2');
 *   trace(br, 'in_port=1,tcp').datapathActions; // "2"
 *
 * Bridges and ports can also come from the Open_vSwitch database (./ovsdb.ts) through ovs-vsctl
 * (./vsctl.ts): `vsctl(db, 'add-br br-int -- add-port br-int p1 -- set interface p1
 * type=internal')`, then `db.bridge('br-int')` is the engine bridge with p1 at its ofport.
 */
import { Bridge, type TimeSource } from './bridge.js';
import type { Flow } from './fields.js';
import { parsePacket } from './flowmod.js';
import { type Effects, type TraceOptions, type TraceResult, translate } from './xlate.js';

export { Bridge, dummyDpPort, formatFlowStats, parseGroup } from './bridge.js';
export type {
  BridgeOptions,
  Bucket,
  DumpOptions,
  FlowEntry,
  Group,
  OvsPort,
  PacketIn,
  TimeSource,
} from './bridge.js';
export { OvsError } from './errors.js';
export { formatAction, formatActions, parseActionList } from './actions.js';
export type { Action } from './actions.js';
export { Conntrack } from './conntrack.js';
export type { Connection } from './conntrack.js';
export { FIELDS, W, fieldByName, newFlow } from './fields.js';
export type { FieldDef, Flow } from './fields.js';
export { parseFlowMod, parsePacket } from './flowmod.js';
export { Match, formatFlow, formatMatch } from './match.js';
export { printNodes, selectBucket } from './xlate.js';
export type { Effects, Lookup, Output, Pass, TraceNode, TraceOptions, TraceResult } from './xlate.js';

/** `ovs-appctl ofproto/trace <bridge> <flow> [--ct-next …]`: no side effects. */
export function trace(bridge: Bridge, flow: string | Flow, opts: TraceOptions = {}): TraceResult {
  const packet = typeof flow === 'string' ? parsePacket(flow, bridge) : flow;
  return translate(bridge, packet, { ...opts, run: false });
}

/**
 * A real packet through the bridge: counters, learn, NORMAL's MAC learning and conntrack commits
 * happen; recirculations run with the real connection state. `text: false` skips the trace text
 * (the fast path the dataplane uses).
 */
export function receive(
  bridge: Bridge,
  flow: string | Flow,
  opts: {
    bytes?: number;
    text?: boolean;
    names?: boolean;
    /** Defer the side effects (a dataplane trace; `send` applies them): see `Effects`. */
    effects?: Effects;
    selectBuckets?: 'dp_hash' | 'pick';
  } = {},
): TraceResult {
  const packet = typeof flow === 'string' ? parsePacket(flow, bridge) : flow;
  return translate(bridge, packet, { ...opts, run: true });
}

export interface DifferentialTrace {
  /** The last `Datapath actions:` string. */
  readonly datapathActions: string;
  /** The last pass's `Final flow:` text: `unchanged`, or the flow as flow_format prints it. */
  readonly finalFlow: string;
  readonly text: string;
}

function freshBridge(ports: number, opts: { seed?: number; clock?: TimeSource }): Bridge {
  const br = new Bridge({ name: 'br0', clock: opts.clock, seed: opts.seed });
  for (let i = 1; i <= ports; i++) br.addPort(`p${i}`, i);
  return br;
}

function outcome(br: Bridge, packet: string, ctNext?: readonly string[]): DifferentialTrace {
  const r = trace(br, packet, ctNext ? { ctNext } : {});
  return {
    datapathActions: r.datapathActions,
    finalFlow: r.passes[r.passes.length - 1]!.finalFlowText,
    text: r.text,
  };
}

/**
 * For differential tests against a real ovs-vswitchd (test/ovs/peer): a fresh bridge `br0` with
 * dummy ports `p1`…`pN` at ofports 1…N (datapath ports 1…N, LOCAL at 100 as the dummy datapath
 * numbers them), the groups and flows loaded as ovs-ofctl add-group / add-flows do, and the packet
 * traced as ofproto/trace does: the last `Datapath actions:` and the last `Final flow:`.
 */
export function traceFlows(
  flowsText: string,
  packet: string,
  opts: {
    ports?: number;
    ctNext?: readonly string[];
    groups?: readonly string[];
    clock?: TimeSource;
    seed?: number;
  } = {},
): DifferentialTrace {
  const br = freshBridge(opts.ports ?? 4, opts);
  for (const g of opts.groups ?? []) br.addGroup(g);
  br.addFlows(flowsText);
  return outcome(br, packet, opts.ctNext);
}

/**
 * The engine as a trace provider of test/ovs/peer/differential.ts (`{name, load, trace}`): `load`
 * replaces the whole table atomically (a bad table throws OvsError and keeps the previous one),
 * `trace` answers `{datapathActions, finalFlow}` as the peer does. Ports p1…p4 by default, as the
 * peer's bridge has.
 */
export function engineProvider(opts: { ports?: number; seed?: number; clock?: TimeSource } = {}): {
  readonly name: string;
  load(table: { readonly flows: string; readonly groups?: readonly string[] }): void;
  trace(packet: { readonly flow: string; readonly ctNext?: readonly string[] }): {
    datapathActions: string;
    finalFlow: string;
  };
} {
  let br = freshBridge(opts.ports ?? 4, opts);
  return {
    name: 'hnsim ovs engine',
    load(table) {
      const next = freshBridge(opts.ports ?? 4, opts);
      for (const g of table.groups ?? []) next.addGroup(g);
      next.addFlows(table.flows);
      br = next;
    },
    trace(packet) {
      const o = outcome(br, packet.flow, packet.ctNext);
      return { datapathActions: o.datapathActions, finalFlow: o.finalFlow };
    },
  };
}

export { IMMUTABLE, Ovsdb, OvsdbError, SCHEMA, formatAtom, formatDatum, parseDatum } from './ovsdb.js';
export type {
  Atom,
  BoundInterface,
  ColumnType,
  Datum,
  OvsdbOptions,
  Platform,
  Row,
  TableName,
} from './ovsdb.js';
export { Vsctl, addPortArgs, shellWords, vsctl, vsctlOrThrow } from './vsctl.js';
export type { InterfaceSpec, VsctlResult } from './vsctl.js';
