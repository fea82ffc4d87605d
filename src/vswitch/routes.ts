/**
 * The route table of a host's default compartment (`Get-NetRoute`; reference vfp-dataplane.md
 * §1.6): connected subnets of its interfaces, their default routes, the HostRoute policy's routes
 * of overlay networks through the switch's host vNIC, and the routes a user (or flannel host-gw)
 * adds with `New-NetRoute`, which go with their interface. Recomputed when the HNS state or the
 * user routes move; looked up by longest prefix, then lowest metric.
 *
 * It lives here, beside the compiled host view it is derived from, because the layers above read
 * it as siblings: the packet path (src/dataplane) routes by it, HCS (src/hcs/view.ts) shows it to
 * a HostProcess container, and flanneld's host-gw backend adds to it.
 */
import { hnsError } from '../core/errors.js';
import type { HostInterfaceView, HostView } from './view.js';
import { contains, fmtPrefix, ip4, prefix4, prefixArg, type Prefix4 } from './v4.js';

/** A prefix text, or undefined when it is not one (prefixArg throws instead). */
function prefix4From(text: string): Prefix4 | undefined {
  try {
    return prefixArg(text, 'DestinationPrefix');
  } catch {
    return undefined;
  }
}

/** A route of the host's default compartment (`Get-NetRoute`). */
export interface HostRoute {
  readonly dest: Prefix4;
  /** 0 = on-link. */
  readonly nextHop: number;
  readonly iface: string;
  readonly metric: number;
  readonly origin: 'Connected' | 'Default' | 'User' | 'HostRoute';
}

/** A route a user (or flannel host-gw) adds: `New-NetRoute -DestinationPrefix … -NextHop …`. */
export interface RouteSpec {
  readonly destinationPrefix: string;
  readonly nextHop?: string;
  /** The interface; default: the one whose subnet holds the next hop. */
  readonly interfaceAlias?: string;
  readonly metric?: number;
}

/** Whether two routes are one to New-NetRoute (its "already exists"): prefix, next hop, interface, metric. */
function sameRoute(a: HostRoute, b: HostRoute): boolean {
  return (
    a.dest.addr === b.dest.addr &&
    a.dest.len === b.dest.len &&
    a.nextHop === b.nextHop &&
    a.iface.toLowerCase() === b.iface.toLowerCase() &&
    a.metric === b.metric
  );
}

/** A route a user added, validated: the route, and its next hop as given (RemoveRoute matches the text). */
interface UserRoute {
  readonly route: HostRoute;
  readonly nextHopText: string | undefined;
}

/** One host's route table over its compiled view (`view`) and the routes users added. */
export class HostRoutes {
  private table: HostRoute[] | undefined;
  private tableGen = -1;
  private readonly userRoutes: UserRoute[] = [];
  private userGen = 0;

  /** `view`: the host's compiled state; `generation`: a number that moves with it. */
  constructor(
    private readonly view: () => HostView,
    private readonly generation: () => number,
  ) {}

  /** A number that moves whenever a user route is added or removed. */
  get userGeneration(): number {
    return this.userGen;
  }

  /** Add a route to the host's default compartment; errors: bad prefix/next hop, no interface. */
  add(spec: RouteSpec): HostRoute {
    const dest = prefixArg(spec.destinationPrefix, 'DestinationPrefix');
    const nh = spec.nextHop === undefined ? 0 : ip4(spec.nextHop);
    if (nh === undefined) throw hnsError('E_INVALIDARG', `NextHop "${spec.nextHop}" is not an IPv4 address`);
    if (spec.metric !== undefined && (!Number.isInteger(spec.metric) || spec.metric < 0))
      throw hnsError('E_INVALIDARG', `RouteMetric must be an integer ≥ 0`);
    const iface = this.routeInterface(spec.interfaceAlias, nh);
    if (!iface) {
      throw hnsError(
        'ERROR_NOT_FOUND',
        spec.interfaceAlias
          ? `no interface "${spec.interfaceAlias}"`
          : `no interface reaches next hop ${spec.nextHop ?? '(on-link)'}`,
      );
    }
    const route: HostRoute = {
      dest,
      nextHop: nh,
      iface: iface.name,
      metric: spec.metric ?? 256,
      origin: 'User',
    };
    const dup = this.all().some((r) => r.origin === 'User' && sameRoute(r, route));
    // New-NetRoute: "Instance MSFT_NetRoute already exists"
    if (dup)
      throw hnsError(
        'ERROR_OBJECT_ALREADY_EXISTS',
        `route ${spec.destinationPrefix} via ${spec.nextHop ?? 'on-link'} on ${iface.name}`,
      );
    this.userRoutes.push({ route, nextHopText: spec.nextHop });
    this.userGen++;
    return { ...route };
  }

  /** Remove the user routes to a prefix (and via a next hop, when given); how many went. */
  remove(destinationPrefix: string, nextHop?: string): number {
    const dest = prefixArg(destinationPrefix, 'DestinationPrefix');
    const before = this.userRoutes.length;
    for (let i = this.userRoutes.length - 1; i >= 0; i--) {
      const { route: r, nextHopText } = this.userRoutes[i]!;
      if (
        r.dest.addr === dest.addr &&
        r.dest.len === dest.len &&
        (nextHop === undefined || nextHopText === nextHop)
      )
        this.userRoutes.splice(i, 1);
    }
    if (this.userRoutes.length !== before) this.userGen++;
    return before - this.userRoutes.length;
  }

  /**
   * The user routes as plain JSON, in the order added (the host snapshot's `hostNet.routes`): each
   * with its interface by name, its next hop as given (absent: on-link) and its metric.
   */
  userState(): { destinationPrefix: string; nextHop?: string; interfaceAlias: string; metric: number }[] {
    return this.userRoutes.map(({ route, nextHopText }) => ({
      destinationPrefix: `${fmtPrefix(route.dest)}`,
      ...(nextHopText !== undefined ? { nextHop: nextHopText } : {}),
      interfaceAlias: route.iface,
      metric: route.metric,
    }));
  }

  /**
   * Check `userState()`'s JSON (E_INVALIDARG naming what is wrong: a bad prefix, next hop, interface
   * name or metric); the function returned replaces the user routes with it. An interface the node
   * no longer has is kept by name: its routes stay out of the table, as when a network goes.
   */
  readUserState(state: unknown): () => void {
    const bad = (what: string): never => {
      throw hnsError('E_INVALIDARG', `snapshot: hostNet.routes: ${what}`);
    };
    if (!Array.isArray(state)) return bad('must be a list');
    const routes: UserRoute[] = state.map((r: unknown, i) => {
      if (typeof r !== 'object' || r === null || Array.isArray(r)) return bad(`[${i}] must be an object`);
      const o = r as Record<string, unknown>;
      const dest =
        typeof o['destinationPrefix'] === 'string' ? prefix4From(o['destinationPrefix']) : undefined;
      if (!dest) return bad(`[${i}].destinationPrefix must be an IPv4 prefix`);
      const nhText = o['nextHop'];
      if (nhText !== undefined && (typeof nhText !== 'string' || ip4(nhText) === undefined))
        return bad(`[${i}].nextHop must be an IPv4 address`);
      const iface = o['interfaceAlias'];
      if (typeof iface !== 'string' || !iface) return bad(`[${i}].interfaceAlias must be a name`);
      const metric = o['metric'];
      if (typeof metric !== 'number' || !Number.isInteger(metric) || metric < 0)
        return bad(`[${i}].metric must be an integer ≥ 0`);
      return {
        route: {
          dest,
          nextHop: nhText === undefined ? 0 : ip4(nhText as string)!,
          iface,
          metric,
          origin: 'User',
        },
        nextHopText: nhText as string | undefined,
      };
    });
    // what New-NetRoute refuses ("already exists"), a snapshot may not hold either
    routes.forEach(({ route: r }, i) => {
      const dup = routes.findIndex(({ route: o }, j) => j < i && sameRoute(o, r));
      if (dup >= 0) bad(`[${i}] repeats [${dup}]`);
    });
    return () => {
      this.userRoutes.length = 0;
      this.userRoutes.push(...routes);
      this.userGen++;
    };
  }

  private routeInterface(alias: string | undefined, nh: number): HostInterfaceView | undefined {
    const ifs = this.view().hostIfs;
    if (alias) return ifs.find((i) => i.name.toLowerCase() === alias.toLowerCase());
    if (nh === 0) return undefined;
    return ifs.find((i) => contains(i.prefix, nh));
  }

  /** The host's route table: connected subnets, default routes, user routes (Get-NetRoute). */
  all(): readonly HostRoute[] {
    const view = this.view();
    const gen = this.generation();
    if (this.table && this.tableGen === gen) return this.table;
    const out: HostRoute[] = [];
    for (const i of view.hostIfs) {
      if (i.kind === 'Physical' && i.switchId) continue; // bound to a switch: the vNIC holds the address
      out.push({ dest: i.prefix, nextHop: 0, iface: i.name, metric: 256, origin: 'Connected' });
    }
    for (const i of view.hostIfs) {
      if (i.kind === 'Physical' && i.switchId) continue;
      if (i.gateway && i.kind !== 'EndpointVNic')
        out.push({ dest: prefix4(0, 0), nextHop: i.gateway, iface: i.name, metric: 256, origin: 'Default' });
    }
    // HostRoute (flannel, Calico): the host reaches the pods of its overlay networks through the
    // switch's host vNIC
    for (const n of view.networks.values()) {
      if (n.type !== 'Overlay' || !n.hostRoute || !n.switchId) continue;
      const vnic = view.switches.get(n.switchId)?.hostVnic;
      if (!vnic) continue;
      for (const s of n.subnets)
        out.push({ dest: s.prefix, nextHop: 0, iface: vnic.name, metric: 256, origin: 'HostRoute' });
    }
    for (const { route } of this.userRoutes) {
      const iface = view.hostIfs.find((i) => i.name.toLowerCase() === route.iface.toLowerCase());
      if (!iface) continue; // the interface went with its network: Windows drops its routes
      out.push({ ...route, iface: iface.name });
    }
    this.table = out;
    this.tableGen = gen;
    return out;
  }

  /** Longest prefix, then lowest metric. */
  lookup(dst: number, exclude?: (r: HostRoute) => boolean): HostRoute | undefined {
    let best: HostRoute | undefined;
    for (const r of this.all()) {
      if (!contains(r.dest, dst) || exclude?.(r)) continue;
      if (!best || r.dest.len > best.dest.len || (r.dest.len === best.dest.len && r.metric < best.metric))
        best = r;
    }
    return best;
  }
}
