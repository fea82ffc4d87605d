/**
 * Shared pieces of the CNI pitfall scenarios (reference cni-windows.md §7, P1–P17): simulated nodes
 * as the real deployments build them (an HNS v1 L2Bridge `cbr0` as flanneld host-gw makes it, which
 * the containerd path reaches through HCN), the reference plugins installed in one CNI bin directory,
 * libcni's runner over them, and small readers of what a node is left with (endpoints, host-local
 * reservations, flannel's saved configs, libcni's cache).
 */
import { expect } from 'vitest';
import { confListFromBytes, type NetworkConfigList } from '../../src/cni/conf.js';
import type { CniError, RuntimeConf } from '../../src/cni/contracts.js';
import type { CniExecEvent } from '../../src/core/events.js';
import { pluginHost, type CniHost } from '../../src/cni/host.js';
import type { PluginRegistry } from '../../src/cni/registry.js';
import { CniRunner, cniErrorOf } from '../../src/cni/runner.js';
import { createHost, type Host, type HostOptions } from '../../src/host/host.js';
import type { EndpointRec } from '../../src/hns/model.js';
import { FlanneldHostGw, flanneldHost, writeSubnetEnv } from '../../src/plugins/flanneld/index.js';
import { referenceRegistry } from '../../src/plugins/index.js';
import type { CniNetwork, PodSandboxConfig } from '../../src/runtime/contracts.js';

/** containerd's CNI bin directory on the simulated nodes. */
export const BIN = 'C:\\opt\\cni\\bin';
/** host-local's default data directory for the network `cbr0`. */
export const HOST_LOCAL_CBR0 = '/var/lib/cni/networks/cbr0';
/** flannel's default `dataDir`. */
export const FLANNEL_DIR = '/var/lib/cni/flannel';

/** The node's uplink: one NIC with the node IP (flanneld and the HNS switch bind to it). */
export const NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.1.11/24',
  gateway: '192.168.1.1',
  macAddress: '00-0D-3A-11-22-33',
} as const;

export function bareNode(seed: number, opts: HostOptions = {}): Host {
  return createHost({ seed, adapters: [NIC], ...opts });
}

/**
 * The HNS v1 L2Bridge network `cbr0` on 10.244.1.0/24 with gateway .1, exactly what flanneld
 * host-gw POSTs (reference §5.2 step 2) — without flanneld's `cbr0_ep`.
 */
export function v1BridgeNode(seed: number, opts: HostOptions = {}): Host {
  const host = bareNode(seed, opts);
  const r = host.api.HNSCall(
    'POST',
    '/networks/',
    JSON.stringify({
      Name: 'cbr0',
      Type: 'L2Bridge',
      NetworkAdapterName: 'Ethernet',
      Subnets: [{ AddressPrefix: '10.244.1.0/24', GatewayAddress: '10.244.1.1' }],
    }),
  );
  if (!r.ok) throw new Error(r.message);
  return host;
}

/** flanneld host-gw on a bare node (cbr0 + cbr0_ep at .2, lease 10.244.1.0/24) and its subnet.env. */
export async function flannelHostGwNode(seed: number): Promise<Host> {
  const host = bareNode(seed);
  await new FlanneldHostGw(flanneldHost(host)).setup({ subnet: '10.244.1.0/24', publicIp: '192.168.1.11' });
  writeSubnetEnv(host.files, { network: '10.244.0.0/16', subnet: '10.244.1.0/24', mtu: 1500, ipMasq: true });
  return host;
}

/** Every reference plugin installed in BIN, and a plugin host over the node. */
export function cniHost(host: Host, registry: PluginRegistry = referenceRegistry([BIN])): CniHost {
  return pluginHost(host, registry);
}

/** libcni's runner over the reference plugins in BIN (its cache under `cacheDir`, default /var/lib/cni). */
export function runner(host: Host | CniHost, opts: { cacheDir?: string; path?: string[] } = {}): CniRunner {
  const ph = 'run' in host ? host : cniHost(host);
  return new CniRunner(ph, {
    path: opts.path ?? [BIN],
    ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
  });
}

export function conflist(doc: object): NetworkConfigList {
  return confListFromBytes(JSON.stringify(doc));
}

/** A CNI network a pod runtime attaches pods to. */
export function network(
  host: Host | CniHost,
  doc: object,
  opts: { cacheDir?: string; path?: string[] } = {},
): CniNetwork {
  return { list: conflist(doc), runner: runner(host, opts) };
}

/** host-local over the node's pod subnet. */
export const HOST_LOCAL = { type: 'host-local', subnet: '10.244.1.0/24' };
/** win-bridge's gateway is network + 2 (.2): its pods start at .3 (P2). */
const HOST_LOCAL_FROM_3 = { ...HOST_LOCAL, rangeStart: '10.244.1.3' };

/** The conflist document of win-bridge (v1 path, or HCN with `apiVersion: 2`), host-local from .3 by default. */
export function winBridgeDoc(apiVersion?: number, ipam: object = HOST_LOCAL_FROM_3): object {
  return {
    cniVersion: '0.3.1',
    name: 'cbr0',
    plugins: [{ type: 'win-bridge', ...(apiVersion ? { apiVersion } : {}), ipam }],
  };
}

/** {@link winBridgeDoc} parsed. */
export function winBridge(apiVersion?: number, ipam: object = HOST_LOCAL_FROM_3): NetworkConfigList {
  return conflist(winBridgeDoc(apiVersion, ipam));
}

/** sdnbridge with host-local over the whole subnet. */
export const SDNBRIDGE = conflist({
  cniVersion: '0.4.0',
  name: 'cbr0',
  plugins: [{ type: 'sdnbridge', ipam: HOST_LOCAL }],
});

/**
 * `cni.exec` events from now on, as `<depth>:<plugin> <command> <exit code>`, in the order the
 * invocations finished (a delegate before the plugin that called it).
 */
export function recordExecs(host: Host): string[] {
  const out: string[] = [];
  host.events.on('cni.exec', (e: CniExecEvent) =>
    out.push(`${e.depth}:${e.plugin} ${e.command} ${e.exitCode}`),
  );
  return out;
}

/** A RuntimeConf as a runtime builds it. */
export function rtConf(containerId: string, netns: string, over: Partial<RuntimeConf> = {}): RuntimeConf {
  return { containerId, netns, ifName: 'eth0', ...over };
}

/** A fixed 64-hex-digit container ID, as docker and containerd make them (`0101…01` for 1). */
export function cid(n: number): string {
  return `${n}`.padStart(2, '0').repeat(32);
}

/** The endpoints on the node, by name, in creation order. */
export function endpointNames(host: Host): string[] {
  return [...host.hns.store.endpoints.values()].map((e) => e.Name);
}

export function endpointNamed(host: Host, name: string): EndpointRec | undefined {
  return [...host.hns.store.endpoints.values()].find((e) => e.Name === name);
}

/** The IPv4 address an endpoint holds. */
export function ipOf(host: Host, name: string): string | undefined {
  return endpointNamed(host, name)?.IpConfigurations[0]?.IpAddress;
}

/** host-local's reservations of a network: `ip → "<cid>\r\n<ifname>"` (bookkeeping files left out). */
export function reservations(host: Host, dir = HOST_LOCAL_CBR0): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of host.files.list(dir)) {
    if (name === 'lock' || name.startsWith('last_reserved_ip.')) continue;
    out[name] = host.files.read(`${dir}/${name}`) ?? '';
  }
  return out;
}

/** The namespaces a runtime created (the HostDefault one left out). */
export function podNamespaces(host: Host): string[] {
  return [...host.hns.store.namespaces.values()].filter((n) => n.Type !== 'HostDefault').map((n) => n.ID);
}

/** The rejection of a promise (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    if (e instanceof Error) return e;
    throw new Error(`rejected with a non-Error: ${String(e)}`);
  }
  throw new Error('expected a rejection');
}

/**
 * The plugin's CNI error (code, msg) inside a libcni error, itself maybe inside a runtime's
 * `fmt.Errorf("…: %w")` chain; fails the test when there is none.
 */
export function cniError(e: unknown): CniError {
  let cur: unknown = e;
  for (let i = 0; i < 16 && cur !== undefined; i++) {
    const inner = cniErrorOf(cur);
    if (inner) return inner;
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  expect.fail(`no CniError inside ${String(e)}`);
}

/** Let queued promise callbacks run (one real event-loop turn; the simulated clock does not move). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A promise with a `done` flag. */
export function track<T>(p: Promise<T>): { readonly done: boolean; readonly p: Promise<T> } {
  const state = { done: false, p };
  p.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
}

/** The sandbox ID in a containerd setup error (`… for sandbox "<64 hex>" …`). */
export function sandboxIdIn(message: string): string {
  const m = /sandbox "([0-9a-f]{64})"/.exec(message);
  if (!m) throw new Error(`no sandbox ID in: ${message}`);
  return m[1]!;
}

/** A pod config as kubelet sends it for `default/<name>` (DNS from the cluster's kube-dns). */
export function pod(name = 'web-0', over: Partial<PodSandboxConfig> = {}): PodSandboxConfig {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, attempt: 0 },
    hostname: name,
    dnsConfig: {
      servers: ['10.96.0.10'],
      searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      options: ['ndots:5'],
    },
    ...over,
  };
}

/** An HCN namespace, as containerd creates one for a pod (`HostComputeNamespace{}`): its GUID. */
export function newNamespace(host: Host): string {
  const r = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
  if (!r.ok) throw new Error(r.message);
  return (r.result as { ID: string }).ID;
}

/** A docker-created pause/workload container (HCS schema 1, no network), as dockershim makes them. */
export function dockerContainer(host: Host, id: string): void {
  const r = host.api.HcsCreateComputeSystem(id, { SystemType: 'Container', Owner: 'docker' });
  if (!r.ok) throw new Error(r.message);
}
