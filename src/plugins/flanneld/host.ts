/**
 * What flanneld uses on a Windows node (reference cni-windows.md §5.2, §5.3): the hcsshim v1 and
 * hcn clients, the host's adapters (`net.Interfaces`, `Get-NetIPAddress`) and route table
 * (`Get-NetRoute`, `New-NetRoute`, `Remove-NetRoute`), and its clock; plus the pieces of flanneld
 * every backend shares: the external interface (`pkg/ipmatch` `LookupExtIface`, IPv4 only),
 * `ip.GetInterfaceByIP`, apimachinery's `wait.PollUntilContextTimeout` on simulated time, and a log.
 */
import { HcnClient } from '../../api/hcn/client.js';
import { HcsClient } from '../../api/hcs/client.js';
import { HnsV1Client } from '../../api/hnsv1/client.js';
import type { Clock } from '../../core/clock.js';
import type { JsonObject } from '../../core/json.js';
import type { HostRoute, RouteSpec } from '../../vswitch/routes.js';
import type { Host } from '../../host/host.js';
import { fmt, ip4 } from '../../vswitch/v4.js';
import { goParseIP } from '../../cni/goip.js';

/** flanneld's handle on one node: typed clients plus the host's adapter and route APIs. */
export interface FlanneldHost {
  readonly name: string;
  readonly clock: Clock;
  readonly hns: HnsV1Client;
  readonly hcn: HcnClient;
  /** `Get-NetAdapter` + `Get-NetIPAddress` of the host compartment (src/host/host.ts). */
  adapters(): readonly JsonObject[];
  routes(): readonly HostRoute[];
  addRoute(spec: RouteSpec): HostRoute;
  removeRoute(destinationPrefix: string, nextHop?: string): number;
}

/** A FlanneldHost on a simulated node: clients on `host.transport`, so injected faults apply. */
export function flanneldHost(host: Host): FlanneldHost {
  const hcs = HcsClient.forHost(host);
  return {
    name: host.name,
    clock: host.clock,
    hns: new HnsV1Client(host.transport, hcs),
    hcn: HcnClient.forHost(host),
    adapters: () => host.adapters(),
    routes: () => host.routes(),
    addRoute: (spec) => host.addRoute(spec),
    removeRoute: (prefix, nextHop) => host.removeRoute(prefix, nextHop),
  };
}

// ─────────────────────────────────────────── the log ───────────────────────────────────────────

export type FlanneldLogLevel = 'I' | 'W' | 'E';

/** One klog line: level, simulated time, message. */
export interface FlanneldLogEntry {
  readonly level: FlanneldLogLevel;
  readonly time: number;
  readonly message: string;
}

// ───────────────────────────────────────── interfaces ─────────────────────────────────────────

/** A `net.Interface` as flanneld reads it from the host's adapters. */
export interface NetInterface {
  readonly index: number;
  readonly name: string;
  readonly mtu: number;
  /** IPv4 addresses, as uint32. */
  readonly ipv4: readonly number[];
}

function interfaces(host: FlanneldHost): NetInterface[] {
  return host.adapters().map((a) => {
    const v4 = typeof a['IPv4Address'] === 'string' ? ip4(a['IPv4Address']) : undefined;
    return {
      index: typeof a['ifIndex'] === 'number' ? a['ifIndex'] : 0,
      name: typeof a['Name'] === 'string' ? a['Name'] : '',
      mtu: typeof a['MtuSize'] === 'number' ? a['MtuSize'] : 0,
      ipv4: v4 === undefined ? [] : [v4],
    };
  });
}

/** `ip.GetInterfaceByIP(ip)`: the first interface holding the address. */
export function getInterfaceByIP(host: FlanneldHost, ip: number): NetInterface {
  const found = interfaces(host).find((i) => i.ipv4.includes(ip));
  if (!found) throw new Error('no interface with given IP found');
  return found;
}

/** `net.InterfaceByIndex`. */
export function interfaceByIndex(host: FlanneldHost, index: number): NetInterface | undefined {
  return interfaces(host).find((i) => i.index === index);
}

/** `backend.ExternalInterface`: the interface flanneld uses and its addresses. */
export interface ExternalInterface {
  readonly iface: NetInterface;
  /** `IfaceAddr`: the interface's first IPv4 address. */
  readonly ifaceAddr: number;
  /** `ExtAddr`: `--public-ip`, else the interface address. */
  readonly extAddr: number;
}

export interface ExtIfaceOptions {
  /** `--iface`: an interface name or one of its IPv4 addresses (default: the default route's interface). */
  readonly iface?: string;
  /** `--public-ip`. */
  readonly publicIp?: string;
}

/** `ip.ParseIP4`: `invalid IP address format` / `invalid IPv4 address format`. */
export function parseIP4(s: string): number {
  const ip = goParseIP(s);
  if (!ip) throw new Error('invalid IP address format');
  if (ip.family !== 4) throw new Error('invalid IPv4 address format');
  return ip.v4;
}

/**
 * `ipmatch.LookupExtIface` for an IPv4 stack on Windows: `--iface` by address or name, else the
 * interface of the default route (`Get-NetRoute` 0.0.0.0/0); its first IPv4 address; the public IP.
 */
export function lookupExtIface(host: FlanneldHost, opts: ExtIfaceOptions = {}): ExternalInterface {
  const all = interfaces(host);
  let iface: NetInterface | undefined;
  let ifaceAddr: number | undefined;
  if (opts.iface !== undefined && opts.iface !== '') {
    const byIp = goParseIP(opts.iface);
    if (byIp) {
      ifaceAddr = byIp.family === 4 ? byIp.v4 : undefined;
      iface = ifaceAddr === undefined ? undefined : all.find((i) => i.ipv4.includes(ifaceAddr!));
      if (!iface)
        throw new Error(`error looking up interface ${opts.iface}: no interface with given IP found`);
    } else {
      iface = all.find((i) => i.name === opts.iface);
      if (!iface)
        throw new Error(`error looking up interface ${opts.iface}: route ip+net: no such network interface`);
    }
  } else {
    const dflt = host.routes().find((r) => r.dest.len === 0 && r.dest.addr === 0);
    iface = dflt && all.find((i) => i.name.toLowerCase() === dflt.iface.toLowerCase());
    if (!iface)
      throw new Error('failed to get default interface: unable to find default gateway interface index');
  }
  if (ifaceAddr === undefined) {
    ifaceAddr = iface.ipv4[0];
    if (ifaceAddr === undefined) throw new Error(`failed to find IPv4 address for interface ${iface.name}`);
  }
  if (iface.mtu === 0) throw new Error(`failed to determine MTU for ${fmt(ifaceAddr)} interface`);
  let extAddr = ifaceAddr;
  if (opts.publicIp !== undefined && opts.publicIp !== '') {
    const p = goParseIP(opts.publicIp);
    if (!p) throw new Error(`invalid public IP address: ${opts.publicIp}`);
    if (p.family !== 4)
      throw new Error(`public IP ${opts.publicIp} is not an IPv4 address (only IPv4 is modelled)`);
    extAddr = p.v4;
  }
  return { iface, ifaceAddr, extAddr };
}

// ─────────────────────────────────────────── waiting ───────────────────────────────────────────

/** How flanneld waits: by default simulated time passes on the node's clock (timers fire). */
export type Sleep = (ms: number) => Promise<void>;

export function clockSleep(clock: Clock): Sleep {
  return (ms) => {
    clock.advance(ms);
    return Promise.resolve();
  };
}

/** apimachinery's `context.DeadlineExceeded` text, what a timed-out poll returns. */
export const DEADLINE_EXCEEDED = 'context deadline exceeded';

/**
 * `wait.PollUntilContextTimeout(ctx, interval, timeout, immediate=true, condition)`: the condition
 * at once, then every `interval` while the deadline has not passed; true when it held, false on
 * timeout (the caller builds its error from the last one seen).
 */
export async function pollUntil(
  clock: Clock,
  sleep: Sleep,
  intervalMs: number,
  timeoutMs: number,
  condition: () => Promise<boolean>,
): Promise<boolean> {
  const start = clock.now();
  for (;;) {
    if (await condition()) return true;
    const left = timeoutMs - (clock.now() - start);
    if (left <= intervalMs) {
      if (left > 0) await sleep(left);
      return false;
    }
    await sleep(intervalMs);
  }
}

/** `errors.Wrapf(err, msg)`'s text. */
export function wrap(message: string, err: unknown): Error {
  return new Error(`${message}: ${err instanceof Error ? err.message : String(err)}`);
}
