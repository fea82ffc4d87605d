/**
 * flanneld's host-gw backend on Windows (flannel-io/flannel @ cdf76059
 * `pkg/backend/hostgw/hostgw_windows.go`, `pkg/backend/route_network_windows.go`,
 * `pkg/routing/router_windows.go`; reference cni-windows.md §5.2, pitfalls P2, P11, P16): an HNS v1
 * L2Bridge network on the lease subnet (gateway S+1), the bridge endpoint `<name>_ep` at S+2
 * attached to the host compartment, forwarding on both host interfaces, and a host route per other
 * node's subnet via that node's public IP, re-added by a periodic check when it goes missing.
 *
 *   const gw = new FlanneldHostGw(flanneldHost(host));
 *   await gw.setup({ subnet: '10.244.1.0/24', publicIp: '10.0.0.11' });
 *   await gw.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
 */
import { FlanneldBackend, WAIT_INTERVAL, WAIT_TIMEOUT, type LeaseBatch } from './backend.js';
import { marshalNetwork, type HNSEndpoint, type HNSNetwork } from '../../api/hnsv1/types.js';
import { field, goParse, goString, goUnmarshal, type GoType } from '../../cni/gojson.js';
import { goCanonicalIP } from '../../cni/goip.js';
import { isJsonObject, type Json } from '../../core/json.js';
import { fmt } from '../../vswitch/v4.js';
import {
  DEADLINE_EXCEEDED,
  getInterfaceByIP,
  interfaceByIndex,
  parseIP4,
  wrap,
  type ExtIfaceOptions,
  type FlanneldHost,
  type NetInterface,
  type Sleep,
} from './host.js';
import { LeaseWatcher, parseLease, subnetText, type Lease, type ParsedLease } from './lease.js';

export interface FlanneldOptions extends ExtIfaceOptions {
  /** net-conf.json's `Backend` object (or its JSON text); absent: every default. */
  readonly backend?: unknown;
  /** How waiting passes (default: the node's clock advances). */
  readonly sleep?: Sleep;
}

/** What host-gw set up (`backend.RouteNetwork` after `RegisterNetwork`). */
export interface HostGwNetwork {
  readonly name: string;
  readonly networkId: string;
  readonly managementIp: string;
  readonly endpointId: string;
  readonly endpointIp: string;
  /** `LinkIndex`/`Name`: the interface holding the management IP (the routes go out of it). */
  readonly linkIndex: number;
  readonly linkName: string;
  /** The interface's MTU (what subnet.env gets). */
  readonly mtu: number;
  readonly lease: Lease;
  /** Interfaces flanneld enabled forwarding on (`Set-NetIPInterface -Forwarding Enabled`). */
  readonly forwarding: readonly string[];
}

/** A route flanneld keeps (`routing.Route`). */
export interface FlannelRoute {
  readonly interfaceIndex: number;
  readonly destination: string;
  readonly gateway: string;
}

/** The Backend config, decoded as `k8s.io/apimachinery/pkg/util/json` does: keys case-sensitive. */
const HOSTGW_CONFIG: GoType = {
  k: 'struct',
  name: 'struct { Name string; DNSServerList string }',
  short: '',
  fields: [field('Name', goString), field('DNSServerList', goString)],
};

/** Read a Backend config given as an object or JSON text (Go's syntax errors for bad text). */
export function backendJson(backend: unknown): Json | undefined {
  if (backend === undefined) return undefined;
  if (typeof backend === 'string') return backend === '' ? undefined : goParse(backend);
  return JSON.parse(JSON.stringify(backend)) as Json;
}

/** `routeCheckRetries * time.Second`. */
export const ROUTE_CHECK_INTERVAL_MS = 10_000;

export class FlanneldHostGw extends FlanneldBackend {
  protected readonly backendName = 'host-gw';
  static readonly backendType = 'host-gw';
  #network: HostGwNetwork | undefined;
  /** `n.routes`: what the route check restores. */
  #routes: FlannelRoute[] = [];
  #linkIndex = 0;

  /**
   * `hostgw.New`: the external interface, and host-gw's refusal of a public IP that differs from it
   * (`your PublicIP differs from interface IP, …`).
   */
  constructor(host: FlanneldHost, options: FlanneldOptions = {}) {
    super(host, options);
    if (this.ext.extAddr !== this.ext.ifaceAddr) {
      throw new Error(
        "your PublicIP differs from interface IP, meaning that probably you're on a NAT, which is not supported by host-gw backend",
      );
    }
    this.#linkIndex = this.ext.iface.index;
  }

  /** What `setup` built, once it has run. */
  get network(): HostGwNetwork | undefined {
    return this.#network;
  }

  /** The routes the backend keeps (`n.routes`), in the order added. */
  get routeList(): readonly FlannelRoute[] {
    return this.#routes;
  }

  /**
   * `RegisterNetwork` with the node's lease (the subnet manager's part is the caller's): reuse or
   * recreate the network and the bridge endpoint, attach it to the host, enable forwarding.
   */
  async setup(lease: Lease): Promise<HostGwNetwork> {
    const own = parseLease({ ...lease, backendType: lease.backendType ?? FlanneldHostGw.backendType });
    // 1. the Backend config
    let cfg: { Name?: string; DNSServerList?: string } = {};
    try {
      const raw = backendJson(this.options.backend);
      if (raw !== undefined) {
        const exact = isJsonObject(raw)
          ? Object.fromEntries(Object.entries(raw).filter(([k]) => k === 'Name' || k === 'DNSServerList'))
          : raw;
        cfg = (goUnmarshal(exact, HOSTGW_CONFIG) ?? {}) as typeof cfg;
      }
    } catch (e) {
      throw wrap('error decoding windows host-gw backend config', e);
    }
    const name = cfg.Name || 'cbr0';
    const dnsServerList = cfg.DNSServerList ?? '';
    this.logEntry('I', `HOST-GW config: {Name:${name} DNSServerList:${dnsServerList}}`);

    // 3. the network: reused when a subnet has the lease's prefix and S+1 as gateway
    const hns = this.host.hns;
    const prefix = subnetText(own.subnet);
    const gateway = fmt(own.subnet.addr + 1);
    const podGateway = fmt(own.subnet.addr + 2);
    let existing: HNSNetwork | undefined;
    try {
      existing = await hns.getNetworkByName(name);
    } catch {
      existing = undefined;
    }
    let create = true;
    if (existing) {
      for (const s of existing.Subnets ?? []) {
        if ((s.AddressPrefix ?? '') === prefix && (s.GatewayAddress ?? '') === gateway) {
          create = false;
          this.logEntry('I', `Found existing HNSNetwork ${name}`);
          break;
        }
      }
    }

    // 4. a new network
    let network = existing;
    if (create) {
      if (existing) {
        try {
          await hns.deleteNetwork(existing.ID ?? '');
        } catch (e) {
          throw wrap(`failed to delete existing HNSNetwork ${name}`, e);
        }
        this.logEntry('I', `Deleted stale HNSNetwork ${name}`);
      }
      const request: HNSNetwork = {
        Name: name,
        Type: 'L2Bridge',
        ...(dnsServerList !== '' ? { DNSServerList: dnsServerList } : {}),
        Subnets: [{ AddressPrefix: prefix, GatewayAddress: gateway }],
      };
      const body = JSON.stringify(marshalNetwork(request));
      this.logEntry('I', `Attempting to create HNSNetwork ${body}`);
      let created: HNSNetwork;
      try {
        created = await hns.hnsNetworkRequest('POST', '', body);
      } catch (e) {
        throw wrap(`failed to create HNSNetwork ${name}`, e);
      }
      this.logEntry('I', `Waiting to get ManagementIP from HNSNetwork ${name}`);
      const id = created.ID ?? '';
      let lastErr: unknown;
      let got: HNSNetwork | undefined;
      const ok = await this.pollUntil(WAIT_INTERVAL, WAIT_TIMEOUT, async () => {
        try {
          got = await hns.hnsNetworkRequest('GET', id, '');
          lastErr = undefined;
        } catch (e) {
          got = undefined;
          lastErr = e;
        }
        return got !== undefined && (got.ManagementIP ?? '') !== '';
      });
      if (!ok) {
        // "do not swallow the root cause"
        throw wrap(
          `timeout, failed to get management IP from HNSNetwork ${name}`,
          lastErr ?? DEADLINE_EXCEEDED,
        );
      }
      const managementIp = got!.ManagementIP!;
      this.logEntry('I', `Waiting to get net interface for HNSNetwork ${name} (${managementIp})`);
      let mgmt: number;
      try {
        mgmt = parseIP4(managementIp);
      } catch (e) {
        throw wrap(`Failed to parse management ip (${managementIp})`, e);
      }
      let ifErr: unknown;
      const found = await this.pollUntil(WAIT_INTERVAL, WAIT_TIMEOUT, () => {
        try {
          getInterfaceByIP(this.host, mgmt);
          ifErr = undefined;
          return Promise.resolve(true);
        } catch (e) {
          ifErr = e;
          return Promise.resolve(false);
        }
      });
      if (!found)
        throw wrap(`timeout, failed to get net interface for HNSNetwork ${name} (${managementIp})`, ifErr);
      this.logEntry('I', `Created HNSNetwork ${name}`);
      network = got!;
    }
    const net = network!;

    // 5. the bridge endpoint at S+2
    const epName = `${name}_ep`;
    let existingEp: HNSEndpoint | undefined;
    try {
      existingEp = await hns.getEndpointByName(epName);
    } catch {
      existingEp = undefined;
    }
    let endpoint = existingEp;
    if (existingEp && ipText(existingEp.IPAddress) === podGateway) {
      this.logEntry('I', `Found existing bridge HNSEndpoint ${epName}`);
    } else {
      // 6. a new bridge endpoint
      if (existingEp) {
        try {
          await hns.deleteEndpoint(existingEp.ID ?? '');
        } catch (e) {
          throw wrap(`failed to delete existing bridge HNSEndpoint ${epName}`, e);
        }
        this.logEntry('I', `Deleted stale bridge HNSEndpoint ${epName}`);
      }
      try {
        endpoint = await hns.createEndpoint({
          Name: epName,
          VirtualNetwork: net.ID ?? '',
          IPAddress: podGateway,
        });
      } catch (e) {
        throw wrap(`failed to create bridge HNSEndpoint ${epName}`, e);
      }
      this.logEntry('I', `Created bridge HNSEndpoint ${epName}`);
    }
    const ep = endpoint!;

    // attach it to the host compartment; "already attached" (flannel-io/flannel#1391) is success
    this.logEntry('I', `Waiting to attach bridge endpoint ${epName} to host`);
    let attachErr: unknown;
    const attached = await this.pollUntil(WAIT_INTERVAL, WAIT_TIMEOUT, async () => {
      try {
        await hns.hostAttach(ep.ID ?? '', 1);
        attachErr = undefined;
        return true;
      } catch (e) {
        attachErr = e;
        return e instanceof Error && e.message.includes('This endpoint is already attached to the switch.');
      }
    });
    if (!attached)
      throw wrap(`failed to hot attach bridge HNSEndpoint ${epName} to host compartment`, attachErr);
    this.logEntry('I', `Attached bridge endpoint ${epName} to host successfully`);

    // 7. forwarding on the management interface and the endpoint's interface
    const managementIp = net.ManagementIP ?? '';
    const forwarding: string[] = [];
    let linkName = this.ext.iface.name;
    for (const address of [managementIp, ipText(ep.IPAddress)]) {
      let v4: number;
      try {
        v4 = parseIP4(address);
      } catch (e) {
        throw wrap(`Failed to parse expected net interface ip (${address})`, e);
      }
      let iface: NetInterface;
      try {
        iface = getInterfaceByIP(this.host, v4);
      } catch (e) {
        throw wrap(`failed to find interface for IP Address ${address}`, e);
      }
      if (managementIp === fmt(v4)) {
        this.#linkIndex = iface.index;
        linkName = iface.name;
      }
      forwarding.push(iface.name);
      this.logEntry('I', `Enabled forwarding on ${iface.name} index ${iface.index}`);
    }

    this.watcher = new LeaseWatcher(own.subnet, (level, message) => this.logEntry(level, message));
    this.#routes = [];
    this.#network = {
      name,
      networkId: net.ID ?? '',
      managementIp,
      endpointId: ep.ID ?? '',
      endpointIp: ipText(ep.IPAddress),
      linkIndex: this.#linkIndex,
      linkName,
      mtu: this.ext.iface.mtu,
      lease: own.lease,
      forwarding,
    };
    return this.#network;
  }

  /** `GetRoute`: the lease's subnet via its public IP out of the link interface. */
  #routeFor(l: ParsedLease): FlannelRoute {
    return { interfaceIndex: this.#linkIndex, destination: subnetText(l.subnet), gateway: fmt(l.publicIp) };
  }

  /** `GetRoutesFromInterfaceToSubnet` (Get-NetRoute -InterfaceIndex -DestinationPrefix). */
  #routesOn(index: number, destination: string): FlannelRoute[] {
    const iface = interfaceByIndex(this.host, index);
    if (!iface) return [];
    return this.host
      .routes()
      .filter(
        (r) =>
          r.iface.toLowerCase() === iface.name.toLowerCase() &&
          `${fmt(r.dest.addr)}/${r.dest.len}` === destination,
      )
      .map((r) => ({ interfaceIndex: index, destination, gateway: fmt(r.nextHop) }));
  }

  /** `New-NetRoute -InterfaceIndex -DestinationPrefix -NextHop`; failures are logged. */
  #createRoute(r: FlannelRoute): string | undefined {
    const iface = interfaceByIndex(this.host, r.interfaceIndex);
    if (!iface)
      return `No MSFT_NetIPInterface objects found with property 'InterfaceIndex' equal to '${r.interfaceIndex}'`;
    try {
      this.host.addRoute({
        destinationPrefix: r.destination,
        nextHop: r.gateway,
        interfaceAlias: iface.name,
      });
      return undefined;
    } catch (e) {
      return (e as Error).message;
    }
  }

  protected async handle(batch: LeaseBatch): Promise<void> {
    for (const evt of batch) {
      const l = evt.lease;
      const type = l.lease.backendType ?? FlanneldHostGw.backendType;
      if (type.toLowerCase() !== FlanneldHostGw.backendType) {
        this.logEntry('W', `Ignoring non-host-gw subnet(${subnetText(l.subnet)}): type=${type}`);
        continue;
      }
      const expected = this.#routeFor(l);
      if (evt.type === 'added') {
        this.logEntry('I', `Subnet added: ${subnetText(l.subnet)} via ${fmt(l.publicIp)}`);
        const existing = this.#routesOn(expected.interfaceIndex, expected.destination)[0];
        if (existing) {
          // an equal route is left alone, and not added to the list the route check restores
          if (existing.gateway === expected.gateway) continue;
          this.logEntry(
            'W',
            `Replacing existing route ${subnetText(l.subnet)} via ${existing.gateway} with ${subnetText(l.subnet)} via ${fmt(l.publicIp)}`,
          );
          this.host.removeRoute(existing.destination, existing.gateway);
        }
        const err = this.#createRoute(expected);
        if (err !== undefined) {
          this.logEntry('E', `Error creating route: ${err}`);
          continue;
        }
        if (!this.#routes.some((r) => sameRoute(r, expected))) this.#routes.push(expected);
      } else {
        this.logEntry('I', `Subnet removed: ${subnetText(l.subnet)}`);
        const existing = this.#routesOn(expected.interfaceIndex, expected.destination)[0];
        if (existing && existing.gateway === expected.gateway) {
          this.logEntry('I', `Removing existing route ${subnetText(l.subnet)} via ${existing.gateway}`);
          this.host.removeRoute(existing.destination, existing.gateway);
        }
        const i = this.#routes.findIndex((r) => sameRoute(r, expected));
        if (i >= 0) this.#routes.splice(i, 1);
      }
    }
  }

  /**
   * `checkSubnetExistInRoutes`: every kept route that no longer exists on any interface (the same
   * destination and next hop) is created again. Returns the routes recovered.
   */
  checkRoutes(): FlannelRoute[] {
    const all = this.host
      .routes()
      .map((r) => ({ destination: `${fmt(r.dest.addr)}/${r.dest.len}`, gateway: fmt(r.nextHop) }));
    const recovered: FlannelRoute[] = [];
    for (const expected of this.#routes) {
      if (all.some((r) => r.destination === expected.destination && r.gateway === expected.gateway)) continue;
      const err = this.#createRoute(expected);
      if (err !== undefined) {
        this.logEntry(
          'W',
          `Error recovering route to ${expected.destination} via ${expected.gateway} on ${expected.interfaceIndex} (${err}).`,
        );
        continue;
      }
      this.logEntry(
        'I',
        `Recovered route to ${expected.destination} via ${expected.gateway} on ${expected.interfaceIndex}.`,
      );
      recovered.push(expected);
    }
    return recovered;
  }

  /** Run `checkRoutes` every 10 s of simulated time (`routeCheck`); returns a stop function. */
  startRouteCheck(): () => void {
    const clock = this.host.clock;
    let handle = 0;
    const tick = (): void => {
      this.checkRoutes();
      handle = clock.schedule(ROUTE_CHECK_INTERVAL_MS, tick);
    };
    handle = clock.schedule(ROUTE_CHECK_INTERVAL_MS, tick);
    return () => clock.cancel(handle);
  }
}

/** `Route.Equal`: destination and gateway (the interface is not compared). */
function sameRoute(a: FlannelRoute, b: FlannelRoute): boolean {
  return a.destination === b.destination && a.gateway === b.gateway;
}

/** `net.IP.String()` of an endpoint's `IPAddress` (`<nil>` when it has none). */
function ipText(ip: string | undefined): string {
  if (ip === undefined || ip === '') return '<nil>';
  return goCanonicalIP(ip) ?? '<nil>';
}
