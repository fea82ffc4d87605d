/**
 * The packet path of one Windows host (reference vfp-dataplane.md §1–§6, kubernetes-windows.md §1):
 * the container's own routes, the VFP layers of its vSwitch port in their order (ACL → load
 * balancing → OutBoundNAT → routes → encapsulation / MAC rewrite, and the reverse inbound), the
 * vSwitch, the host's TCP/IP stack (routes, forwarding, WinNAT, NodePorts) and the uplink. Every
 * decision comes from the HNS state compiled into a HostView (src/vswitch/view.ts), recompiled when
 * the store's generation moves. The walk (src/dataplane/walk.ts) records each step; the underlay
 * carries what leaves the host.
 *
 * HostPlane is the host as the walk sees it: its compiled view, its route table, its addresses and
 * the stages a packet enters — each stage in its own module, and a stage hands a packet to another
 * through these methods:
 * - container.ts: the container's own next hop and MACs (`sendFromPort`);
 * - port.ts: a port's VFP layers out (`portEgress`) and in (`portIngress`);
 * - switch.ts: where a packet goes after its port (other ports, VXLAN, the uplink, the host);
 * - uplink.ts: encapsulation and the wire out, a frame from the underlay in (`receive`);
 * - host-stack.ts: the host's TCP/IP stack (`hostStack`, `sendFromHost`);
 * - lb.ts, nat.ts, refs.ts: load balancing, translations, rule references;
 * - the host's route table is src/vswitch/routes.ts (HCS reads it too).
 *
 * The choices where Windows is undocumented are options (DataplaneOptions) and docs/model.md
 * ("Dataplane") gives each with its evidence.
 */
import type { HnsService } from '../hns/service.js';
import type { AclOptions } from '../vswitch/acl.js';
import type { Packet } from '../vswitch/contracts.js';
import { compileHostView, type HostInterfaceView, type HostView, type PortView } from '../vswitch/view.js';
import { containerNextHop, sendFromPort } from './container.js';
import { hostStack, sendFromHost, sourceFor } from './host-stack.js';
import { portEgress, portIngress } from './port.js';
import { HostRoutes, type HostRoute, type RouteSpec } from '../vswitch/routes.js';
import { contains, fmt, fmtPrefix, ip4, prefixArg, type Prefix4 } from '../vswitch/v4.js';
import { hnsError } from '../core/errors.js';
import type { JsonObject } from '../core/json.js';
import { receive } from './uplink.js';
import type { NetNode, Walk } from './walk.js';
import type { SwitchDatapath } from './extension.js';

export { mix } from './lb.js';
/** The route records, from src/vswitch/routes.ts (re-exported for the importers of this module). */
export type { HostRoute, RouteSpec } from '../vswitch/routes.js';

/** Choices where Windows is silent or configurable (docs/model.md, "Dataplane"). */
export interface DataplaneOptions {
  /** ACL tie-break and default-deny scope (reference §2.2, §2.3). */
  readonly acl?: AclOptions;
  /**
   * What an outbound ACL sees of a packet to a load-balanced VIP: the VIP (`vip`, default: the ACL
   * layer comes before the load balancer on the way out, reference §1.3) or the chosen backend
   * (`dip`).
   */
  readonly egressAclSees?: 'vip' | 'dip';
  /** Whether the host stack forwards between its interfaces (default true, as flannel sets it). */
  readonly ipForwarding?: boolean;
  /** Whether the node reaches its own NodePorts (default false: a documented limitation). */
  readonly localNodePort?: boolean;
  /** The dynamic port range SNAT draws from (default 49152–65535). */
  readonly snatPortRange?: readonly [number, number];
  /** Ports each non-DSR load balancer reserves from that range (default 64: one block). */
  readonly lbPortBlock?: number;
}

/** What `Add-NetNatStaticMapping` takes (addresses as text, as PowerShell takes them). */
export interface NetNatStaticMappingSpec {
  readonly natName: string;
  readonly protocol: 'TCP' | 'UDP';
  /** `0.0.0.0`: any of the host's addresses. */
  readonly externalIp: string;
  readonly externalPort: number;
  readonly internalIp: string;
  readonly internalPort: number;
}

/** A NetNat static mapping (Get-NetNatStaticMapping's fields; addresses as uint32). */
export interface NetNatStaticMapping {
  /** StaticMappingID. */
  readonly id: number;
  readonly natName: string;
  readonly protocol: 'TCP' | 'UDP';
  /** 0: any of the host's addresses. */
  readonly externalIp: number;
  readonly externalPort: number;
  readonly internalIp: number;
  readonly internalPort: number;
}

/**
 * Whether two static mappings take the same traffic, which Add-NetNatStaticMapping refuses: one
 * protocol and external port on overlapping external addresses (0.0.0.0 overlaps every one).
 */
function mappingsClash(
  a: Pick<NetNatStaticMapping, 'protocol' | 'externalPort' | 'externalIp'>,
  b: Pick<NetNatStaticMapping, 'protocol' | 'externalPort' | 'externalIp'>,
): boolean {
  return (
    a.protocol === b.protocol &&
    a.externalPort === b.externalPort &&
    (a.externalIp === 0 || b.externalIp === 0 || a.externalIp === b.externalIp)
  );
}

export class HostPlane implements NetNode {
  readonly kind = 'Windows' as const;
  private cached: HostView | undefined;
  /** Datapaths bound to switches with a forwarding extension (src/dataplane/extension.ts). */
  private readonly datapaths = new Map<string, SwitchDatapath>();
  private datapathGeneration = 0;
  private readonly routeTable = new HostRoutes(
    () => this.view(),
    () => this.generation(),
  );

  constructor(
    readonly name: string,
    private readonly hns: HnsService,
    readonly options: DataplaneOptions = {},
  ) {}

  /** The compiled vSwitch state, recompiled after any HNS change. */
  view(): HostView {
    const gen = this.hns.store.generation;
    if (!this.cached || this.cached.generation !== gen) {
      this.cached = compileHostView({
        store: this.hns.store,
        generation: gen,
        version: this.hns.profile.version,
        ...(this.options.acl ? { acl: this.options.acl } : {}),
      });
    }
    return this.cached;
  }

  /** A number that moves whenever the answer of a trace through this host could. */
  generation(): number {
    // the parts each move on their own; the number given out moves whenever any of them does
    let dp = 0;
    for (const d of this.datapaths.values()) dp += d.generation?.() ?? 0;
    const p = this.#parts;
    const now = [
      this.hns.store.generation,
      this.routeTable.userGeneration,
      this.datapathGeneration,
      dp,
      this.natGeneration,
    ];
    if (now.some((x, i) => x !== p[i])) {
      this.#parts = now;
      this.#epoch++;
    }
    return this.#epoch;
  }

  #parts: readonly number[] = [];
  #epoch = 0;

  // ───────────────────────────── forwarding extensions (src/dataplane/extension.ts) ─────────────────────────────

  /**
   * Bind the datapath that forwards a switch's packets while a forwarding extension (OVS) is
   * enabled on it — "the OVS bridge bound to this switch" — or unbind it (`undefined`: the
   * extension then has nothing to hand packets to, and the switch forwards nothing). `'*'` binds
   * it to every switch without one of its own (ovs-vswitchd attaches to whichever switch the
   * extension is enabled on).
   */
  bindSwitchDatapath(switchId: string, datapath: SwitchDatapath | undefined): void {
    if (datapath) this.datapaths.set(switchId.toUpperCase(), datapath);
    else this.datapaths.delete(switchId.toUpperCase());
    this.datapathGeneration++;
  }

  /** The datapath bound to a switch, if any. */
  switchDatapath(switchId: string): SwitchDatapath | undefined {
    return this.datapaths.get(switchId.toUpperCase()) ?? this.datapaths.get('*');
  }

  // ───────────────────────────── NetNat (New-NetNat) ─────────────────────────────

  private readonly nats = new Map<string, { readonly name: string; readonly prefix: Prefix4 }>();
  /** The NetNats' static mappings (Add-NetNatStaticMapping), in creation order. */
  private readonly natMappings: NetNatStaticMapping[] = [];
  private nextMappingId = 0;
  private natGeneration = 0;

  /** The NetNats' static mappings (`Get-NetNatStaticMapping`), in creation order. */
  staticMappings(): readonly NetNatStaticMapping[] {
    return this.natMappings;
  }

  /**
   * `New-NetNat -Name name -InternalIPInterfaceAddressPrefix prefix`: what the host forwards from
   * that prefix out of an interface outside it is SNATed to that interface's address (WinNAT), and
   * replies un-NATed. Errors: a taken name, a bad prefix (E_INVALIDARG).
   */
  addNetNat(name: string, internalPrefix: string): void {
    if (!name || this.nats.has(name.toLowerCase()))
      throw hnsError('E_INVALIDARG', `a NetNat named "${name}" exists (or the name is empty)`);
    const prefix = prefixArg(internalPrefix, 'InternalIPInterfaceAddressPrefix');
    this.nats.set(name.toLowerCase(), { name, prefix });
    this.natGeneration++;
  }

  /** `Remove-NetNat`: whether it existed (its static mappings go with it). */
  removeNetNat(name: string): boolean {
    const gone = this.nats.delete(name.toLowerCase());
    if (gone) {
      for (let i = this.natMappings.length - 1; i >= 0; i--)
        if (this.natMappings[i]!.natName.toLowerCase() === name.toLowerCase()) this.natMappings.splice(i, 1);
      this.natGeneration++;
    }
    return gone;
  }

  /**
   * `Add-NetNatStaticMapping -NatName -Protocol -ExternalIPAddress -ExternalPort -InternalIPAddress
   * -InternalPort`: TCP/UDP arriving on one of the host's interfaces for its address (any of them
   * when the external address is 0.0.0.0) and that port is DNATed to the internal address and port,
   * then routed; replies are un-DNATed (docs/model.md "NetNat static mappings"). Errors:
   * ERROR_NOT_FOUND (no such NetNat); E_INVALIDARG (a protocol other than TCP/UDP, an address that
   * is not IPv4, a port outside 1..65535, an internal address outside the NetNat's internal prefix,
   * or the protocol and external port taken on an overlapping external address) — nothing changes.
   */
  addNetNatStaticMapping(spec: NetNatStaticMappingSpec): NetNatStaticMapping {
    const nat = this.nats.get(spec.natName.toLowerCase());
    if (!nat) throw hnsError('ERROR_NOT_FOUND', `no NetNat named "${spec.natName}"`);
    const proto = String(spec.protocol).toUpperCase();
    if (proto !== 'TCP' && proto !== 'UDP')
      throw hnsError('E_INVALIDARG', `Protocol "${spec.protocol}" is not TCP or UDP`);
    const addr = (text: string, what: string): number => {
      const v = ip4(text);
      if (v === undefined) throw hnsError('E_INVALIDARG', `${what} "${text}" is not an IPv4 address`);
      return v;
    };
    const externalIp = addr(spec.externalIp, 'ExternalIPAddress');
    const internalIp = addr(spec.internalIp, 'InternalIPAddress');
    for (const [k, v] of [
      ['ExternalPort', spec.externalPort],
      ['InternalPort', spec.internalPort],
    ] as const)
      if (!Number.isInteger(v) || v < 1 || v > 65535)
        throw hnsError('E_INVALIDARG', `${k} ${v} is not 1..65535`);
    if (!contains(nat.prefix, internalIp))
      throw hnsError(
        'E_INVALIDARG',
        `InternalIPAddress ${spec.internalIp} is outside ${nat.name}'s internal prefix ${fmtPrefix(nat.prefix)}`,
      );
    const taken = this.natMappings.find((m) =>
      mappingsClash(m, { protocol: proto, externalPort: spec.externalPort, externalIp }),
    );
    if (taken)
      throw hnsError(
        'E_INVALIDARG',
        `${proto} port ${spec.externalPort} on ${fmt(externalIp)} is mapped already (${taken.natName}, StaticMappingID ${taken.id})`,
      );
    const m: NetNatStaticMapping = {
      id: this.nextMappingId++,
      natName: nat.name,
      protocol: proto as 'TCP' | 'UDP',
      externalIp,
      externalPort: spec.externalPort,
      internalIp,
      internalPort: spec.internalPort,
    };
    this.natMappings.push(m);
    this.natGeneration++;
    return m;
  }

  /**
   * `Remove-NetNatStaticMapping -NatName … -StaticMappingID …`, or each of the NetNat's mappings
   * `where` matches (all of them when not given): how many went.
   */
  removeNetNatStaticMapping(
    natName: string,
    where: { readonly id?: number; readonly protocol?: string; readonly externalPort?: number } = {},
  ): number {
    const before = this.natMappings.length;
    for (let i = this.natMappings.length - 1; i >= 0; i--) {
      const m = this.natMappings[i]!;
      if (
        m.natName.toLowerCase() === natName.toLowerCase() &&
        (where.id === undefined || m.id === where.id) &&
        (where.protocol === undefined || m.protocol === where.protocol.toUpperCase()) &&
        (where.externalPort === undefined || m.externalPort === where.externalPort)
      )
        this.natMappings.splice(i, 1);
    }
    const n = before - this.natMappings.length;
    if (n) this.natGeneration++;
    return n;
  }

  /** The NetNats' static mappings, in creation order (Get-NetNatStaticMapping). */
  netNatStaticMappings(): readonly NetNatStaticMapping[] {
    return [...this.natMappings];
  }

  /** The static mapping a packet arriving for the host's `dst` address and port hits, if any. */
  staticMappingFor(proto: number, dstIp: number, dstPort: number): NetNatStaticMapping | undefined {
    const name = proto === 6 ? 'TCP' : proto === 17 ? 'UDP' : undefined;
    if (!name) return undefined;
    return this.natMappings.find(
      (m) =>
        m.protocol === name && m.externalPort === dstPort && (m.externalIp === 0 || m.externalIp === dstIp),
    );
  }

  /** The host's NetNats, in creation order. */
  netNats(): readonly { readonly name: string; readonly prefix: Prefix4 }[] {
    return [...this.nats.values()];
  }

  // ───────────────────────────── snapshots ─────────────────────────────

  /**
   * What users and agents added to the host's network beside HNS — NetNats, their static mappings,
   * routes (`New-NetNat`, `Add-NetNatStaticMapping`, `New-NetRoute`) — as plain JSON: the host
   * snapshot's `hostNet`; undefined when there is none.
   */
  netState(): JsonObject | undefined {
    const routes = this.routeTable.userState();
    if (!this.nats.size && !this.natMappings.length && !routes.length && !this.nextMappingId)
      return undefined;
    return {
      netNats: [...this.nats.values()].map((n) => ({ name: n.name, internalPrefix: fmtPrefix(n.prefix) })),
      staticMappings: this.natMappings.map((m) => ({
        id: m.id,
        natName: m.natName,
        protocol: m.protocol,
        externalIp: fmt(m.externalIp),
        externalPort: m.externalPort,
        internalIp: fmt(m.internalIp),
        internalPort: m.internalPort,
      })),
      nextMappingId: this.nextMappingId,
      routes,
    };
  }

  /**
   * Check a snapshot's `hostNet` (undefined: none) without changing anything — E_INVALIDARG naming
   * what is wrong (a bad or repeated NetNat, a mapping of no NetNat, outside its prefix, a bad
   * protocol, address or port, a repeated ID, a bad route) —; the function returned replaces the
   * host's NetNats, mappings and routes with it.
   */
  readNetState(section: unknown): () => void {
    const bad = (what: string): never => {
      throw hnsError('E_INVALIDARG', `snapshot: hostNet: ${what}`);
    };
    const obj = (v: unknown, what: string): Record<string, unknown> =>
      typeof v === 'object' && v !== null && !Array.isArray(v)
        ? (v as Record<string, unknown>)
        : bad(`${what} must be an object`);
    const list = (v: unknown, what: string): unknown[] =>
      Array.isArray(v) ? v : bad(`${what} must be a list`);
    const s =
      section === undefined
        ? { netNats: [], staticMappings: [], nextMappingId: 0, routes: [] }
        : obj(section, 'hostNet');
    const nats = new Map<string, { readonly name: string; readonly prefix: Prefix4 }>();
    list(s['netNats'], 'netNats').forEach((x, i) => {
      const o = obj(x, `netNats[${i}]`);
      const name = o['name'];
      if (typeof name !== 'string' || !name || nats.has(name.toLowerCase()))
        bad(`netNats[${i}].name must be a name no other NetNat has`);
      let prefix: Prefix4;
      try {
        prefix = prefixArg(String(o['internalPrefix']), 'InternalIPInterfaceAddressPrefix');
      } catch {
        return bad(`netNats[${i}].internalPrefix must be an IPv4 prefix`);
      }
      nats.set((name as string).toLowerCase(), { name: name as string, prefix });
    });
    const ids = new Set<number>();
    const mappings: NetNatStaticMapping[] = list(s['staticMappings'], 'staticMappings').map((x, i) => {
      const o = obj(x, `staticMappings[${i}]`);
      const at = `staticMappings[${i}]`;
      const id = o['id'];
      if (typeof id !== 'number' || !Number.isInteger(id) || id < 0 || ids.has(id))
        bad(`${at}.id must be an integer ≥ 0 no other mapping has`);
      ids.add(id as number);
      const nat = typeof o['natName'] === 'string' ? nats.get(o['natName'].toLowerCase()) : undefined;
      if (!nat) return bad(`${at}.natName names no NetNat of the section`);
      if (o['protocol'] !== 'TCP' && o['protocol'] !== 'UDP') bad(`${at}.protocol must be TCP or UDP`);
      const ip = (k: string): number => {
        const v = typeof o[k] === 'string' ? ip4(o[k]) : undefined;
        return v === undefined ? bad(`${at}.${k} must be an IPv4 address`) : v;
      };
      const port = (k: string): number => {
        const v = o[k];
        return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535
          ? v
          : bad(`${at}.${k} must be 1..65535`);
      };
      const internalIp = ip('internalIp');
      if (!contains(nat.prefix, internalIp)) bad(`${at}.internalIp is outside ${nat.name}'s internal prefix`);
      return {
        id: id as number,
        natName: nat.name,
        protocol: o['protocol'] as 'TCP' | 'UDP',
        externalIp: ip('externalIp'),
        externalPort: port('externalPort'),
        internalIp,
        internalPort: port('internalPort'),
      };
    });
    // what Add-NetNatStaticMapping refuses, a snapshot may not hold either: one protocol and port
    // on overlapping external addresses
    mappings.forEach((m, i) => {
      const clash = mappings.findIndex((o, j) => j < i && mappingsClash(o, m));
      if (clash >= 0)
        bad(
          `staticMappings[${i}] maps ${m.protocol} port ${m.externalPort} as staticMappings[${clash}] does`,
        );
    });
    const next = s['nextMappingId'];
    if (typeof next !== 'number' || !Number.isInteger(next) || next < 0 || [...ids].some((i) => i >= next))
      bad('nextMappingId must be an integer above every mapping ID');
    const routes = this.routeTable.readUserState(s['routes']);
    return () => {
      this.nats.clear();
      for (const [k, v] of nats) this.nats.set(k, v);
      this.natMappings.length = 0;
      this.natMappings.push(...mappings);
      this.nextMappingId = next as number;
      this.natGeneration++;
      routes();
    };
  }

  // ───────────────────────────── host routes (src/vswitch/routes.ts) ─────────────────────────────

  /** A number that moves whenever a user route is added, removed or restored. */
  get userRoutesGeneration(): number {
    return this.routeTable.userGeneration;
  }

  /** Add a route to the host's default compartment; errors: bad prefix/next hop, no interface. */
  addRoute(spec: RouteSpec): HostRoute {
    return this.routeTable.add(spec);
  }

  /** Remove the user routes to a prefix (and via a next hop, when given); how many went. */
  removeRoute(destinationPrefix: string, nextHop?: string): number {
    return this.routeTable.remove(destinationPrefix, nextHop);
  }

  /** The host's route table: connected subnets, default routes, user routes (Get-NetRoute). */
  routes(): readonly HostRoute[] {
    return this.routeTable.all();
  }

  /** Longest prefix, then lowest metric. */
  lookupRoute(dst: number, exclude?: (r: HostRoute) => boolean): HostRoute | undefined {
    return this.routeTable.lookup(dst, exclude);
  }

  // ───────────────────────────── addresses ─────────────────────────────

  /** @internal The host interface of a name (as a route names it). */
  hostInterface(name: string): HostInterfaceView | undefined {
    return this.view().hostIfs.find((i) => i.name === name);
  }

  /** The host's primary address: its uplink's (HostView.uplink), else its first interface's. */
  primaryIp(): number {
    const v = this.view();
    return v.uplink?.ip ?? v.hostIfs[0]?.ip ?? 0;
  }

  /** The host's MAC on the wire (the uplink's). */
  hostMac(): number {
    return this.view().uplink?.mac ?? 0;
  }

  /** Whether an address is the host's own (any interface of compartment 1). */
  ownsIp(ip: number): boolean {
    return this.view().hostIfByIp.has(ip);
  }

  /** The source address the host picks for `dst`: its outgoing interface's. */
  sourceFor(dst: number): number {
    return sourceFor(this, dst);
  }

  // ───────────────────────────── the stages a packet enters ─────────────────────────────

  /**
   * A container (or the host, for a packet it originates towards a local port) sends `p` from
   * `port`. `p` carries addresses and ports; MACs are filled in here.
   */
  sendFromPort(w: Walk, port: PortView, p0: Packet): void {
    sendFromPort(this, w, port, p0);
  }

  /** The container's next hop for `dst`: on its subnet, by its Routes, or by its gateway. */
  containerNextHop(port: PortView, dst: number): { nextHop: number; onLink: boolean } | undefined {
    return containerNextHop(port, dst);
  }

  /**
   * The VFP pipeline of a port, outbound (container → switch): ACL, load balancing, OutBoundNAT,
   * routes, then forwarding (vSwitch, encapsulation, MAC rewrite, uplink or host stack). A reply of
   * an allowed flow skips the rules (stateful layers).
   */
  portEgress(w: Walk, port: PortView, p: Packet, nextHop: number, fromHost: boolean): void {
    portEgress(this, w, port, p, nextHop, fromHost);
  }

  /** The VFP pipeline of a port, inbound: un-NAT, ACL In (unless established), delivery. */
  portIngress(w: Walk, port: PortView, p0: Packet): void {
    portIngress(this, w, port, p0);
  }

  /** A frame arrives on the host's uplink from the underlay. */
  receive(w: Walk, p0: Packet): void {
    receive(this, w, p0);
  }

  /**
   * The host's TCP/IP stack (compartment 1): a packet the host sends (`inIf` undefined) or one
   * arriving on one of its interfaces. Delivers what is for the host (after NodePorts, external
   * IPs and port mappings), else routes it (forwarding, WinNAT).
   */
  hostStack(w: Walk, p0: Packet, inIf: HostInterfaceView | undefined, reply = false, fromWire = false): void {
    hostStack(this, w, p0, inIf, reply, fromWire);
  }

  /** The host sends a packet (node → pod, node → outside). */
  sendFromHost(w: Walk, p0: Packet): void {
    sendFromHost(this, w, p0);
  }
}
