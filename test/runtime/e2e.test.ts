/**
 * Pod lifecycles end to end with the real plugins through the libcni runner (src/cni/runner.ts):
 * containerd with win-bridge (`apiVersion: 2`) + host-local, sdnbridge + host-local, flannel over
 * flanneld host-gw, a Hyper-V pod; dockershim with win-bridge's v1 path. Pods get addresses, the
 * node's HNS state is what kubernetes-windows.md §3 says, and after teardown nothing is left — no
 * endpoint, namespace, compute system, IP reservation or cached result (host-local's
 * `last_reserved_ip.0` and `lock` stay, as on a real node). Where the real stack leaks, the test
 * shows the leak (cni-windows.md §7 P1, P2, P4/WCN, P5; kubernetes-windows.md §4 #2, #18).
 */
import { describe, expect, it } from 'vitest';
import { PluginRegistry } from '../../src/cni/registry.js';
import type { Json } from '../../src/core/json.js';
import type { Host } from '../../src/host/host.js';
import { flannel } from '../../src/plugins/flannel/index.js';
import { FlanneldHostGw, flanneldHost, writeSubnetEnv } from '../../src/plugins/flanneld/index.js';
import { hostLocal } from '../../src/plugins/host-local/index.js';
import { sdnbridge } from '../../src/plugins/wcn/index.js';
import { winBridge } from '../../src/plugins/win-bridge.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import type { CniNetwork } from '../../src/runtime/contracts.js';
import { DockershimRuntime } from '../../src/runtime/dockershim.js';
import { cniNetwork } from '../../src/runtime/network.js';
import {
  bareNode,
  BIN,
  endpointNamed,
  HOST_LOCAL_CBR0 as HOST_LOCAL_DIR,
  v1BridgeNode,
} from '../scenarios/cni-pitfall-kit.js';
import { addL2Bridge, leftovers, podConfig, podFiles, recordSteps, rejection } from './kit.js';

/** The HCN L2Bridge `cbr0` on 10.244.1.0/24 (gateway .1) over the node's NIC. */
function l2bridgeNode(seed: number): Host {
  const host = bareNode(seed);
  addL2Bridge(host);
  return host;
}

/** A conflist over the four plugins these tests use, installed in BIN. */
function network(host: Host, conflist: Json, cacheDir?: string): CniNetwork {
  const registry = new PluginRegistry()
    .register(winBridge, [BIN])
    .register(hostLocal, [BIN])
    .register(sdnbridge, [BIN])
    .register(flannel, [BIN]);
  return cniNetwork(host, conflist, { registry, path: [BIN], ...(cacheDir ? { cacheDir } : {}) });
}

const OUTBOUND_NAT_V2 = {
  name: 'EndpointPolicy',
  value: { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } },
};

/** win-bridge over HCN (cni.dev win-bridge `apiVersion: 2`) with host-local. */
function winBridgeV2(host: Host): CniNetwork {
  return network(host, {
    cniVersion: '0.3.1',
    name: 'cbr0',
    plugins: [
      {
        type: 'win-bridge',
        apiVersion: 2,
        capabilities: { portMappings: true, dns: true },
        ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
        policies: [OUTBOUND_NAT_V2],
      },
    ],
  });
}

describe('containerd + win-bridge (apiVersion 2) + host-local', () => {
  it('three pods get .2, .3, .4 in their namespaces with the DNS and port mapping of their config; teardown leaves nothing', async () => {
    const host = l2bridgeNode(21);
    const rt = new ContainerdRuntime(host, { networks: [winBridgeV2(host)] });
    const ids: string[] = [];
    for (const [i, hostPort] of [8080, 8081, 8082].entries()) {
      const config = podConfig({
        metadata: { name: `web-${i}`, namespace: 'default', uid: `uid-${i}` },
        portMappings: [{ containerPort: 80, hostPort }],
      });
      const id = await rt.runPodSandbox(config);
      await rt.startContainer(await rt.createContainer(id, { metadata: { name: 'app' } }, config));
      ids.push(id);
    }
    const statuses = await Promise.all(ids.map((id) => rt.podSandboxStatus(id)));
    expect(statuses.map((s) => s.network.ip)).toEqual(['10.244.1.2', '10.244.1.3', '10.244.1.4']);
    for (const [i, id] of ids.entries()) {
      const ep = endpointNamed(host, `${id}_cbr0`)!;
      expect(ep.HostComputeNamespace).toBe(statuses[i]!.netns);
      // runtimeConfig decoded from go-cni's Go field names: the DNS and the host port reach HNS
      expect(ep.Dns).toMatchObject({
        ServerList: ['10.96.0.10'],
        Search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      });
      expect(ep.Policies.map((p) => p.type)).toEqual(['OutBoundNAT', 'PortMapping']);
      expect(ep.Policies[1]!.settings).toMatchObject({ internalPort: 80, externalPort: 8080 + i });
      expect(host.files.read(`${HOST_LOCAL_DIR}/${statuses[i]!.network.ip}`)).toBe(`${id}\r\neth0`);
      expect(host.files.exists(`/var/lib/cni/results/cbr0-${id}-eth0`)).toBe(true);
      // the pod's containers all see the one endpoint
      for (const c of rt.listContainers(id))
        expect(host.hcs.attachedEndpoints(host.hcs.get(c.id))).toEqual([ep.ID]);
    }
    for (const id of ids) {
      await rt.stopPodSandbox(id);
      await rt.removePodSandbox(id);
    }
    expect(leftovers(host)).toMatchObject({ endpoints: [], namespaces: [], systems: [] });
    expect(podFiles(host)).toEqual([]);
  });

  it('a Hyper-V pod: the win-bridge endpoint is hot-added to the utility VM with its MAC; teardown leaves nothing', async () => {
    const host = l2bridgeNode(22);
    const rt = new ContainerdRuntime(host, { networks: [winBridgeV2(host)] });
    const id = await rt.runPodSandbox(podConfig(), 'runhcs-wcow-hypervisor');
    const ep = endpointNamed(host, `${id}_cbr0`)!;
    expect(host.hcs.get(`${id}@vm`).nics).toEqual([
      { nicId: expect.any(String), endpointId: ep.ID, macAddress: ep.MacAddress },
    ]);
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('10.244.1.2');
    await rt.removePodSandbox(id);
    expect(leftovers(host)).toMatchObject({ endpoints: [], namespaces: [], systems: [] });
    expect(podFiles(host)).toEqual([]);
  });

  // hcsshim's createEndpoint is hcnCreateEndpoint then a query: a failed query fails the ADD with the
  // endpoint made; the deferred DEL would delete it, but when that DEL fails too containerd ignores
  // it ("the sandbox network setup result is nil") and forgets the pod
  it('LEAK: the ADD fails after HNS made the endpoint and the deferred DEL fails: the endpoint outlives the pod', async () => {
    const host = l2bridgeNode(28);
    const rt = new ContainerdRuntime(host, { networks: [winBridgeV2(host)] });
    host.faults.fail({ method: 'HcnQueryEndpointProperties' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    host.faults.fail({ method: 'HcnDeleteEndpoint' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    const id = /sandbox "([0-9a-f]{64})"/.exec(msg)![1]!;
    expect(msg).toMatch(
      /failed to create the new HostComputeEndpoint: hcnQueryEndpointProperties failed in Win32/,
    );
    expect(rt.listPodSandbox()).toEqual([]);
    expect(leftovers(host)).toMatchObject({ endpoints: [`${id}_cbr0`], namespaces: [], systems: [] });
    expect(podFiles(host)).toEqual([]);
  });

  it('P1: without apiVersion (the v1 path) the namespace GUID is taken for a shared endpoint and ADD fails; containerd unwinds', async () => {
    const host = l2bridgeNode(23);
    const net = network(host, {
      cniVersion: '0.3.1',
      name: 'cbr0',
      plugins: [{ type: 'win-bridge', ipam: { type: 'host-local', subnet: '10.244.1.0/24' } }],
    });
    const rt = new ContainerdRuntime(host, { networks: [net] });
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    const id = /sandbox "([0-9a-f]{64})"/.exec(msg)![1]!;
    // reference §3.3 E1, wrapped by libcni and containerd
    expect(msg).toBe(
      `failed to setup network for sandbox "${id}": plugin type="win-bridge" failed (add): error while adding HNSEndpoint: failed to find HNSEndpoint ${id}_cbr0: Endpoint ${id}_cbr0 not found`,
    );
    expect(leftovers(host)).toMatchObject({ endpoints: [], namespaces: [], systems: [] });
    expect(podFiles(host)).toEqual([]);
  });
});

describe('containerd + flannel over flanneld host-gw', () => {
  async function flannelNode() {
    const host = l2bridgeNode(24);
    host.api.HcnDeleteNetwork(host.hns.store.networks.values().next().value!.ID);
    const hg = new FlanneldHostGw(flanneldHost(host));
    await hg.setup({ subnet: '10.244.1.0/24', publicIp: '192.168.1.11' });
    writeSubnetEnv(host.files, {
      network: '10.244.0.0/16',
      subnet: '10.244.1.0/24',
      mtu: 1500,
      ipMasq: true,
    });
    const net = network(host, {
      cniVersion: '0.3.0',
      name: 'cbr0',
      plugins: [
        {
          type: 'flannel',
          capabilities: { portMappings: true, dns: true },
          delegate: { type: 'win-bridge', apiVersion: 2, policies: [OUTBOUND_NAT_V2] },
        },
      ],
    });
    return { host, rt: new ContainerdRuntime(host, { networks: [net] }) };
  }

  it('P2: the first pod is handed .2, which cbr0_ep holds (0x1392); containerd unwinds, the retry gets .3', async () => {
    const { host, rt } = await flannelNode();
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    expect(msg).toMatch(
      /^failed to setup network for sandbox "[0-9a-f]{64}": plugin type="flannel" failed \(add\): .*The object already exists\. \(0x1392\)/,
    );
    // the unwind ran flannel's DEL: its saved delegate config and the reservation are gone
    expect(podFiles(host).filter((p) => !p.startsWith('/run/flannel'))).toEqual([]);
    const id = await rt.runPodSandbox(podConfig());
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('10.244.1.3');
    expect(host.files.exists(`/var/lib/cni/flannel/${id}`)).toBe(true);
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expect(leftovers(host).endpoints).toEqual(['cbr0_ep']);
    expect(leftovers(host).namespaces).toEqual([]);
    expect(podFiles(host)).toEqual(['/run/flannel/subnet.env']);
  });
});

describe('containerd + sdnbridge (windows-container-networking) + host-local', () => {
  function sdnNetwork(host: Host): CniNetwork {
    return network(host, {
      cniVersion: '0.4.0',
      name: 'cbr0',
      plugins: [
        {
          type: 'sdnbridge',
          capabilities: { portMappings: true, dns: true },
          ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
          dns: { Nameservers: ['10.96.0.10'], Search: ['svc.cluster.local'] },
          optionalFlags: { forceBridgeGateway: true },
        },
      ],
    });
  }

  it('pods get addresses on eth0 (the result names CNI_IFNAME); teardown leaves nothing', async () => {
    const host = l2bridgeNode(25);
    const rt = new ContainerdRuntime(host, { networks: [sdnNetwork(host)] });
    const a = await rt.runPodSandbox(podConfig());
    const b = await rt.runPodSandbox(
      podConfig({ metadata: { name: 'web-1', namespace: 'default', uid: 'u1' } }),
    );
    expect((await rt.podSandboxStatus(a)).network.ip).toBe('10.244.1.2');
    expect((await rt.podSandboxStatus(b)).network.ip).toBe('10.244.1.3');
    expect(endpointNamed(host, `${a}_cbr0`)!.HostComputeNamespace).toBe((await rt.podSandboxStatus(a)).netns);
    for (const id of [a, b]) await rt.removePodSandbox(id);
    expect(leftovers(host)).toMatchObject({ endpoints: [], namespaces: [], systems: [] });
    expect(podFiles(host)).toEqual([]);
  });

  // P4 (WCN): AddNamespaceEndpoint fails and sdnbridge does not delete the endpoint it created
  it('the namespace add fails: sdnbridge leaves its endpoint; containerd’s deferred DEL deletes it', async () => {
    const host = l2bridgeNode(26);
    const rt = new ContainerdRuntime(host, { networks: [sdnNetwork(host)] });
    const rec = recordSteps(host);
    let atFailure: ReturnType<typeof leftovers> | undefined;
    host.events.on('runtime.step', (e) => {
      if (e.step === 'cni.add' && !e.ok) atFailure = leftovers(host);
    });
    host.faults.fail({ method: 'HcnModifyNamespace' }, 'HCN_E_NAMESPACE_ATTACH_FAILED', { times: 1 });
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    const id = /sandbox "([0-9a-f]{64})"/.exec(msg)![1]!;
    expect(atFailure!.endpoints).toEqual([`${id}_cbr0`]);
    expect(rec.steps.slice(2)).toEqual([
      'RunPodSandbox/cni.add!',
      'RunPodSandbox/cni.del',
      'RunPodSandbox/namespace.remove',
    ]);
    expect(leftovers(host)).toMatchObject({ endpoints: [], namespaces: [] });
    expect(podFiles(host)).toEqual([]);
  });

  it('LEAK: the namespace add fails and the deferred DEL cannot delete the endpoint: containerd ignores it, the endpoint stays, its IP is released', async () => {
    const host = l2bridgeNode(27);
    const rt = new ContainerdRuntime(host, { networks: [sdnNetwork(host)] });
    host.faults.fail({ method: 'HcnModifyNamespace' }, 'HCN_E_NAMESPACE_ATTACH_FAILED', { times: 1 });
    host.faults.fail({ method: 'HcnDeleteEndpoint' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    const id = /sandbox "([0-9a-f]{64})"/.exec(msg)![1]!;
    expect(rt.listPodSandbox()).toEqual([]);
    expect(leftovers(host)).toMatchObject({ endpoints: [`${id}_cbr0`], namespaces: [], systems: [] });
    expect(endpointNamed(host, `${id}_cbr0`)!.IpConfigurations[0]!.IpAddress).toBe('10.244.1.2');
    // host-local let .2 go (DEL releases IPAM first): the endpoint holds an address nobody owns
    expect(podFiles(host)).toEqual([]);
  });
});

describe('dockershim + win-bridge (v1) + host-local', () => {
  function dockerNode(seed: number) {
    const host = v1BridgeNode(seed);
    const net = network(
      host,
      {
        cniVersion: '0.3.1',
        name: 'cbr0',
        plugins: [
          {
            type: 'win-bridge',
            capabilities: { portMappings: true, dns: true },
            ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
            policies: [
              { name: 'EndpointPolicy', value: { Type: 'OutBoundNAT', ExceptionList: ['10.244.0.0/16'] } },
            ],
          },
        ],
      },
      '/var/lib/cni/cache',
    );
    return { host, rt: new DockershimRuntime(host, { network: net }) };
  }

  it('the pause endpoint is hot-attached; status ADDs attach each workload; LEAK: the workloads’ cached results are never deleted', async () => {
    const { host, rt } = dockerNode(31);
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    const ep = endpointNamed(host, `${id}_cbr0`)!;
    expect(ep.IpConfigurations[0]!.IpAddress).toBe('10.244.1.3');
    expect(ep.SharedContainers).toEqual([id]);
    const c = await rt.createContainer(id, { metadata: { name: 'app' } }, config);
    await rt.startContainer(c);
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('10.244.1.3');
    expect(endpointNamed(host, `${id}_cbr0`)!.SharedContainers).toEqual([id, c]);
    // kubelet: containers first, then the sandbox
    await rt.stopContainer(c, 30);
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expect(leftovers(host)).toMatchObject({ endpoints: [], namespaces: [], systems: [] });
    // the pause container's result went with its DEL; the workload's ADD never gets one
    expect(podFiles(host)).toEqual([`/var/lib/cni/cache/results/cbr0-${c}-eth0`]);
  });

  it('LEAK: the pause container removed out of band, the DEL (netns "") frees the IP but leaves the endpoint', async () => {
    const { host, rt } = dockerNode(32);
    const id = await rt.runPodSandbox(podConfig());
    await rt.removeContainer(id); // docker rm -f
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expect(leftovers(host)).toMatchObject({ endpoints: [`${id}_cbr0`], systems: [] });
    expect(podFiles(host)).toEqual([]);
  });
});
