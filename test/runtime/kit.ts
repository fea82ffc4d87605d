/**
 * Test kit for the pod runtimes: a node with an L2Bridge network, a tiny fake CNI runner that does
 * what an HCN-v2 plugin does (win-bridge `apiVersion: 2`, cni-windows.md §2.5: endpoint
 * `<sandbox>_<net>`, added to the namespace CNI_NETNS names; DEL removes it from the namespace if
 * that still exists, then deletes it) or, for dockershim, what the v1 path does (HotAttach), the
 * recorders of `runtime.step` events, and the leak audit (what is left on the node).
 */
import { expect } from 'vitest';
import { HcnClient } from '../../src/api/hcn/client.js';
import { isNotFoundError } from '../../src/api/hcn/errors.js';
import { isNotExist } from '../../src/api/hcs/errors.js';
import { HnsV1Client } from '../../src/api/hnsv1/client.js';
import { CniError, type CniResult, type RuntimeConf } from '../../src/cni/contracts.js';
import type { RuntimeStepEvent } from '../../src/core/events.js';
import { createHost, type Host } from '../../src/host/host.js';
import { addL2Bridge } from '../../src/testing/commands.js';
import type { CniListRunner, CniNetwork, PodSandboxConfig } from '../../src/runtime/contracts.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { cniNetwork } from '../../src/runtime/network.js';
import { endpointNames, podNamespaces } from '../scenarios/cni-pitfall-kit.js';

/**
 * Adds the HCN L2Bridge network `cbr0` on 10.244.1.0/24 (default route via `gateway`), as flannel
 * host-gw makes it; returns its ID.
 */
export { addL2Bridge };

/** A node with the L2Bridge network `cbr0` (10.244.1.0/24, gateway .2), as flannel host-gw makes it. */
export function node(seed = 5, opts: Parameters<typeof createHost>[0] = {}): Host {
  const host = createHost({ seed, ...opts });
  addL2Bridge(host, '10.244.1.2');
  return host;
}

/**
 * containerd on `host` with the real plugins: win-bridge (`apiVersion: 2`) on the `cbr0` network and
 * host-local on 10.244.1.0/24 from `rangeStart`, as a cluster node's kubelet runs pods.
 */
export function winBridgeRuntime(host: Host, rangeStart: string): ContainerdRuntime {
  return new ContainerdRuntime(host, {
    networks: [
      cniNetwork(host, {
        cniVersion: '1.0.0',
        name: 'cbr0',
        plugins: [
          {
            type: 'win-bridge',
            apiVersion: 2,
            ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart },
          },
        ],
      }),
    ],
  });
}

/** The conflist the fake runner takes: a network name and the HNS network it uses. */
export interface FakeList {
  readonly name: string;
  readonly network: string;
}

export interface FakeCall {
  readonly op: 'ADD' | 'DEL';
  readonly rt: RuntimeConf;
}

/**
 * The fake "plugin chain". Knobs: `failAdd`/`failDel` (a CniError thrown before anything is done),
 * `result` (rewrite the result it returns), `v1` (dockershim's HNS v1 path: netns `none` creates
 * the endpoint and hot-attaches it, `container:<id>` hot-attaches the existing one, DEL with an
 * empty netns does nothing), `delIgnoresEmptyNetns` (the v1 DEL no-op for `''`).
 */
export class FakeCni implements CniListRunner<FakeList> {
  readonly calls: FakeCall[] = [];
  failAdd: CniError | undefined;
  failDel: CniError | undefined;
  result: ((r: CniResult) => CniResult) | undefined;
  v1 = false;
  readonly #hcn: HcnClient;
  readonly #hns: HnsV1Client;

  constructor(host: Host) {
    this.#hcn = HcnClient.forHost(host);
    this.#hns = HnsV1Client.forHost(host);
  }

  /** `hns.GetSandboxContainerID`. */
  static sandboxId(rt: RuntimeConf): string {
    if (rt.netns !== '' && rt.netns !== 'none') {
      const i = rt.netns.indexOf(':');
      if (i >= 0) return rt.netns.slice(i + 1);
    }
    return rt.containerId;
  }

  async addNetworkList(list: FakeList, rt: RuntimeConf): Promise<CniResult> {
    this.calls.push({ op: 'ADD', rt });
    if (this.failAdd) throw this.failAdd;
    const name = `${FakeCni.sandboxId(rt)}_${list.name}`;
    let ip: string;
    let mac: string;
    if (this.v1) {
      let ep;
      try {
        ep = await this.#hns.getEndpointByName(name);
      } catch {
        if (rt.netns !== 'none') throw new CniError(999, `failed to find HNSEndpoint ${name}`);
        const net = await this.#hns.getNetworkByName(list.network);
        ep = await this.#hns.createEndpoint({ Name: name, VirtualNetwork: net.ID! });
      }
      await this.#hns.hotAttachEndpoint(rt.containerId, ep.ID!).catch((e: unknown) => {
        if (!isNotExist(e)) throw e;
      });
      ip = ep.IPAddress!;
      mac = ep.MacAddress!;
    } else {
      const net = await this.#hcn.getNetworkByName(list.network);
      const ep = await this.#hcn.createEndpoint({
        Name: name,
        HostComputeNetwork: net.ID,
        SchemaVersion: { Major: 2, Minor: 0 },
      });
      try {
        await this.#hcn.addNamespaceEndpoint(rt.netns, ep.ID);
      } catch (e) {
        await ep.delete();
        throw e;
      }
      ip = ep.IpConfigurations[0]!.IpAddress!;
      mac = ep.MacAddress;
    }
    // win-bridge's result: the interface is named after the endpoint, the IP has no index
    const r: CniResult = {
      cniVersion: '1.0.0',
      interfaces: [{ name, mac }],
      ips: [{ address: `${ip}/24`, gateway: '10.244.1.2' }],
    };
    return this.result ? this.result(r) : r;
  }

  async delNetworkList(list: FakeList, rt: RuntimeConf): Promise<void> {
    this.calls.push({ op: 'DEL', rt });
    if (this.failDel) throw this.failDel;
    const name = `${FakeCni.sandboxId(rt)}_${list.name}`;
    if (this.v1) {
      if (rt.netns === '') return;
      let ep;
      try {
        ep = await this.#hns.getEndpointByName(name);
      } catch {
        return;
      }
      if (rt.netns !== 'none') {
        await this.#hns.containerDetach(ep.ID!, rt.containerId).catch(() => undefined);
        return;
      }
      await this.#hns.hotDetachEndpoint(rt.containerId, ep.ID!).catch(() => undefined);
      await this.#hns.deleteEndpoint(ep.ID!).catch(() => undefined);
      return;
    }
    let ep;
    try {
      ep = await this.#hcn.getEndpointByName(name);
    } catch (e) {
      if (isNotFoundError(e)) return;
      throw e;
    }
    if (ep.HostComputeNamespace) {
      try {
        await this.#hcn.removeNamespaceEndpoint(ep.HostComputeNamespace, ep.ID);
      } catch (e) {
        if (!isNotFoundError(e)) throw e;
      }
    }
    await ep.delete();
  }

  /** The calls as `[op, containerId, netns, ifName]`. */
  summary(): [string, string, string, string][] {
    return this.calls.map((c) => [c.op, c.rt.containerId, c.rt.netns, c.rt.ifName]);
  }
}

/** One network `cbr0` on the fake runner. */
export function fakeNetwork(host: Host, name = 'cbr0'): { cni: FakeCni; network: CniNetwork<FakeList> } {
  const cni = new FakeCni(host);
  return { cni, network: { list: { name, network: 'cbr0' }, runner: cni } };
}

/** `runtime.step` events from now on, as `operation/step` (with `!` when it failed). */
export function recordSteps(host: Host): { steps: string[]; events: RuntimeStepEvent[] } {
  const out = { steps: [] as string[], events: [] as RuntimeStepEvent[] };
  host.events.on('runtime.step', (e) => {
    out.events.push(e);
    out.steps.push(`${e.operation}/${e.step}${e.ok ? '' : '!'}`);
  });
  return out;
}

/** host-local's bookkeeping files (`last_reserved_ip.0`, `lock`), which stay on a node after its pods. */
export function isHostLocalBookkeeping(path: string): boolean {
  return path.endsWith('/last_reserved_ip.0') || path.endsWith('/lock');
}

/**
 * What a pod leaves on the node: endpoints, namespaces (the HostDefault one aside), compute systems,
 * files (those `ignore` accepts left out).
 */
export function leftovers(
  host: Host,
  ignore: (path: string) => boolean = () => false,
): {
  endpoints: string[];
  namespaces: string[];
  systems: string[];
  files: string[];
} {
  return {
    endpoints: endpointNames(host),
    namespaces: podNamespaces(host),
    systems: [...host.hcs.systems.values()].map((s) => s.id),
    files: host.files
      .entries()
      .map(([p]) => p)
      .filter((p) => !ignore(p)),
  };
}

/** Files a pod may leave: host-local's reservations and libcni's cache (its bookkeeping aside). */
export function podFiles(host: Host): string[] {
  return leftovers(host, isHostLocalBookkeeping).files;
}

export function expectClean(host: Host): void {
  expect(leftovers(host)).toEqual({ endpoints: [], namespaces: [], systems: [], files: [] });
}

/** A pod config as kubelet sends it for `default/web-0`. */
export function podConfig(over: Partial<PodSandboxConfig> = {}): PodSandboxConfig {
  return {
    metadata: {
      name: 'web-0',
      namespace: 'default',
      uid: '7c1c0c5e-1f6a-4b7e-9a53-2f0d3c1e9a10',
      attempt: 0,
    },
    hostname: 'web-0',
    dnsConfig: {
      servers: ['10.96.0.10'],
      searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      options: ['ndots:5'],
    },
    ...over,
  };
}

/** The rejection's message (fails the test when the promise resolves). */
export async function rejection(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  throw new Error('expected a rejection');
}
