/**
 * CNI pitfalls of teardown and failed setups (reference cni-windows.md §7: P3, P4, P5, P15):
 * what DEL leaves behind when IPAM fails or the netns is empty, endpoints leaked when an attach
 * fails, namespaces gone before DEL, and flannel's saved delegate configs — each reproduced on a
 * simulated node with the reference plugins, and the fix shown where the reference names one.
 */
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../src/api/hcn/client.js';
import { hostLocal, referenceRegistry } from '../../src/plugins/index.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import {
  BIN,
  cid,
  cniError,
  cniHost,
  conflist,
  dockerContainer,
  endpointNamed,
  endpointNames,
  FLANNEL_DIR,
  flannelHostGwNode,
  HOST_LOCAL,
  ipOf,
  network,
  newNamespace,
  pod,
  podNamespaces,
  recordExecs,
  rejection,
  reservations,
  rtConf,
  runner,
  sandboxIdIn,
  SDNBRIDGE,
  v1BridgeNode,
  winBridge,
  winBridgeDoc,
} from './cni-pitfall-kit.js';

// ───────────────────────────── P3 ─────────────────────────────

describe('P3: DEL runs IPAM DEL first and returns before removing the endpoint; v1 DEL with an empty netns does nothing (code §2.5, §4.3; plugins PR#286)', () => {
  for (const [label, list, ip] of [
    ['win-bridge (apiVersion 2)', winBridge(2), '10.244.1.3'],
    ['sdnbridge', SDNBRIDGE, '10.244.1.2'],
  ] as const) {
    it(`reproduced (${label}): host-local is gone from the bin directory at DEL time; the error returns and the endpoint stays`, async () => {
      const host = v1BridgeNode(301);
      const registry = referenceRegistry([BIN]);
      const r = runner(cniHost(host, registry));
      const id = cid(1);
      const rt = rtConf(id, newNamespace(host));
      await r.addNetworkList(list, rt);
      expect(ipOf(host, `${id}_cbr0`)).toBe(ip);
      registry.unregister('host-local', [BIN]);
      const err = await rejection(r.delNetworkList(list, rt));
      const type = list.plugins[0]!.network.type;
      const lookup = `failed to find plugin "host-local" in path [${BIN}]`;
      // win-bridge returns IPAM's error as it is; WCN prefixes "ipam deletion failed, "
      expect(err.message).toBe(
        `plugin type="${type}" failed (delete): ${type === 'sdnbridge' ? `ipam deletion failed, ${lookup}` : lookup}`,
      );
      expect(cniError(err).code).toBe(999);
      // the endpoint, its reservation and libcni's cached result all stay
      expect(ipOf(host, `${id}_cbr0`)).toBe(ip);
      expect(reservations(host)).toEqual({ [ip]: `${id}\r\neth0` });
      expect(host.files.exists(`/var/lib/cni/results/cbr0-${id}-eth0`)).toBe(true);
      // fix: IPAM back in place, the retried DEL removes everything, and DEL stays repeatable
      registry.register(hostLocal, [BIN]);
      await r.delNetworkList(list, rt);
      await r.delNetworkList(list, rt);
      expect(endpointNames(host)).toEqual([]);
      expect(reservations(host)).toEqual({});
      expect(host.files.exists(`/var/lib/cni/results/cbr0-${id}-eth0`)).toBe(false);
    });
  }

  it('reproduced: a v1 DEL with CNI_NETNS "" succeeds, releases the address and leaves the endpoint holding it (reference D1)', async () => {
    const host = v1BridgeNode(302);
    const r = runner(host);
    // a two-address range, so host-local comes back to the leaked address quickly
    const list = winBridge(undefined, { ...HOST_LOCAL, rangeStart: '10.244.1.3', rangeEnd: '10.244.1.4' });
    const [pause, next, third] = [cid(1), cid(2), cid(3)];
    for (const c of [pause, next, third]) dockerContainer(host, c);
    await r.addNetworkList(list, rtConf(pause, 'none'));
    expect(endpointNamed(host, `${pause}_cbr0`)!.SharedContainers).toEqual([pause]);
    // dockershim: the pause container is gone, `docker inspect` gives no NetworkMode
    await r.delNetworkList(list, rtConf(pause, ''));
    expect(endpointNames(host)).toEqual([`${pause}_cbr0`]);
    expect(ipOf(host, `${pause}_cbr0`)).toBe('10.244.1.3');
    expect(reservations(host)).toEqual({});
    // host-local hands .4, then .3 again — which the leaked endpoint still holds
    await r.addNetworkList(list, rtConf(next, 'none'));
    expect(ipOf(host, `${next}_cbr0`)).toBe('10.244.1.4');
    const err = await rejection(r.addNetworkList(list, rtConf(third, 'none')));
    expect(err.message).toBe(
      'plugin type="win-bridge" failed (add): error while adding HNSEndpoint: failed to create the new HNSEndpoint: ' +
        'failed during hnsCallRawResponse: hnsCall failed in Win32: The object already exists. (0x1392)',
    );
  });

  it('fix: with netns `none` (or `apiVersion: 2`, whose DEL ignores netns) the endpoint is detached and deleted', async () => {
    const host = v1BridgeNode(303);
    const r = runner(host);
    const pause = cid(1);
    dockerContainer(host, pause);
    await r.addNetworkList(winBridge(), rtConf(pause, 'none'));
    await r.delNetworkList(winBridge(), rtConf(pause, 'none'));
    expect(endpointNames(host)).toEqual([]);
    // v2: DEL with an empty netns (containerd's when the namespace is already gone) still deletes
    const id = cid(2);
    const ns = newNamespace(host);
    await r.addNetworkList(winBridge(2), rtConf(id, ns));
    await r.delNetworkList(winBridge(2), rtConf(id, ''));
    expect(endpointNames(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });
});

// ───────────────────────────── P4 ─────────────────────────────

describe('P4: endpoint leaks when an attach fails or a pod fails to start (ovn-kubernetes#390/PR#391, aws/amazon-vpc-cni-plugins#47/PR#48, kubernetes#68511, Windows-Containers#631)', () => {
  it('reproduced (WCN): AddNamespaceEndpoint fails; sdnbridge keeps the endpoint it created and releases its address', async () => {
    const host = v1BridgeNode(401);
    const r = runner(host);
    const id = cid(1);
    const rt = rtConf(id, newNamespace(host));
    host.faults.fail({ method: 'HcnModifyNamespace' }, 'HCN_E_NAMESPACE_ATTACH_FAILED', { times: 1 });
    const err = await rejection(r.addNetworkList(SDNBRIDGE, rt));
    expect(err.message).toMatch(
      /^plugin type="sdnbridge" failed \(add\): .*hcnModifyNamespace failed in Win32: The requested operation for attach namespace failed\. \(0x803b002e\)/,
    );
    expect(cniError(err).code).toBe(999);
    // the leak: an endpoint in no namespace, holding .2, which host-local no longer reserves
    const ep = endpointNamed(host, `${id}_cbr0`)!;
    expect(ep.IpConfigurations[0]!.IpAddress).toBe('10.244.1.2');
    expect(ep.HostComputeNamespace).toBeUndefined();
    expect(reservations(host)).toEqual({});
    // what stops the leak: the runtime's DEL after a failed ADD (containerd does it; kubernetes#68511)
    await r.delNetworkList(SDNBRIDGE, rt);
    expect(endpointNames(host)).toEqual([]);
  });

  it('fix (in win-bridge): the same failure with apiVersion 2 — the new endpoint is removed before the error returns', async () => {
    const host = v1BridgeNode(402);
    const id = cid(1);
    const ns = newNamespace(host);
    host.faults.fail({ method: 'HcnModifyNamespace' }, 'HCN_E_NAMESPACE_ATTACH_FAILED', { times: 1 });
    const err = await rejection(runner(host).addNetworkList(winBridge(2), rtConf(id, ns)));
    expect(err.message).toBe(
      `plugin type="win-bridge" failed (add): error while adding HostComputeEndpoint: ` +
        `failed to add HostComputeEndpoint ${id}_cbr0 to HostComputeNamespace ${ns}: ` +
        'hcnModifyNamespace failed in Win32: The requested operation for attach namespace failed. (0x803b002e) ' +
        '{"Success":false,"Error":"The requested operation for attach namespace failed. ","ErrorCode":2151350318}',
    );
    expect(endpointNames(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });

  it('fix (in win-bridge v1): HotAttach to a container HCS does not know (0xc037010e) — the new endpoint is removed', async () => {
    const host = v1BridgeNode(403);
    const id = cid(1); // never created in HCS: the pause container is already gone
    const err = await rejection(runner(host).addNetworkList(winBridge(), rtConf(id, 'none')));
    // hcsshim's ErrComputeSystemDoesNotExist is syscall.Errno(0xc037010e): Go prints its system text only
    expect(err.message).toMatch(
      new RegExp(
        `^plugin type="win-bridge" failed \\(add\\): error while adding HNSEndpoint: failed to attach container ${id} ` +
          'to HNSEndpoint [0-9A-F-]{36}: A virtual machine or container with the specified identifier does not exist\\.$',
      ),
    );
    expect(cniError(err).code).toBe(999);
    expect(endpointNames(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });

  it('fix (in the runtime, kubernetes#68511): the pause container fails to start after CNI ADD; containerd runs DEL and nothing leaks', async () => {
    const host = v1BridgeNode(404);
    const rt = new ContainerdRuntime(host, {
      networks: [network(host, winBridgeDoc(2))],
    });
    host.faults.fail({ method: 'HcsCreateComputeSystem' }, 'HCS_E_SYSTEM_NOT_FOUND', { times: 1 });
    const err = await rejection(rt.runPodSandbox(pod()));
    const id = sandboxIdIn(err.message);
    expect(err.message).toMatch(
      new RegExp(`^failed to start sandbox "${id}": failed to create containerd task: `),
    );
    expect(endpointNames(host)).toEqual([]);
    expect(podNamespaces(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });

  it('reproduced (the runtime cannot clean up): the deferred DEL fails too; the endpoint stays, its address is released', async () => {
    const host = v1BridgeNode(405);
    const rt = new ContainerdRuntime(host, { networks: [{ list: SDNBRIDGE, runner: runner(host) }] });
    host.faults.fail({ method: 'HcnModifyNamespace' }, 'HCN_E_NAMESPACE_ATTACH_FAILED', { times: 1 });
    host.faults.fail({ method: 'HcnDeleteEndpoint' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    const err = await rejection(rt.runPodSandbox(pod()));
    const id = sandboxIdIn(err.message);
    expect(rt.listPodSandbox()).toEqual([]);
    expect(endpointNames(host)).toEqual([`${id}_cbr0`]);
    expect(reservations(host)).toEqual({});
  });
});

// ───────────────────────────── P5 ─────────────────────────────

describe('P5: the namespace is deleted before DEL (Azure/azure-container-networking PR#1272/#774, antrea#2301/PR#2306, WCN PR#46)', () => {
  it('reproduced: removing an endpoint from a deleted namespace → hcnOpenNamespace … Element not found (0x490)', async () => {
    const host = v1BridgeNode(501);
    const id = cid(1);
    const ns = newNamespace(host);
    await runner(host).addNetworkList(winBridge(2), rtConf(id, ns));
    const ep = endpointNamed(host, `${id}_cbr0`)!;
    expect(host.api.HcnDeleteNamespace(ns).ok).toBe(true);
    const hcn = HcnClient.forHost(host);
    const err = await rejection(hcn.removeNamespaceEndpoint(ns, ep.ID));
    expect(err.message).toBe(
      'hcnOpenNamespace failed in Win32: Element not found. (0x490) ' +
        '{"Success":false,"Error":"Element not found. ","ErrorCode":2147943568}',
    );
  });

  it('fix (in win-bridge v2 and sdnbridge): DEL skips the namespace it cannot find and deletes the endpoint', async () => {
    for (const list of [winBridge(2), SDNBRIDGE]) {
      const host = v1BridgeNode(502);
      const r = runner(host);
      const id = cid(1);
      const ns = newNamespace(host);
      await r.addNetworkList(list, rtConf(id, ns));
      expect(host.api.HcnDeleteNamespace(ns).ok).toBe(true);
      await r.delNetworkList(list, rtConf(id, ns));
      expect(endpointNames(host)).toEqual([]);
      expect(reservations(host)).toEqual({});
    }
  });

  it('fix (in containerd): the namespace deleted out of band; StopPodSandbox calls DEL with an empty netns and nothing is left', async () => {
    const host = v1BridgeNode(503);
    const rt = new ContainerdRuntime(host, {
      networks: [network(host, winBridgeDoc(2))],
    });
    const id = await rt.runPodSandbox(pod());
    const { netns } = await rt.podSandboxStatus(id);
    const dels: string[] = [];
    host.events.on('cni.exec', (e) =>
      dels.push(`${e.depth}:${e.plugin} ${e.command} netns="${e.netns}" ${e.exitCode}`),
    );
    expect(host.api.HcnDeleteNamespace(netns).ok).toBe(true);
    await rt.stopPodSandbox(id);
    expect(dels).toEqual(['1:host-local DEL netns="" 0', '0:win-bridge DEL netns="" 0']);
    await rt.removePodSandbox(id);
    expect(endpointNames(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });

  it('a docker-era endpoint is in no namespace; a v2 DEL looks that namespace up, does not find it, and deletes the endpoint', async () => {
    const host = v1BridgeNode(504);
    const id = cid(1);
    dockerContainer(host, id);
    // created through v1 (docker / dockershim), so never in an HCN namespace; real HNS reports
    // 00000000-0000-0000-0000-000000000000 there (antrea PR#2306), the simulator leaves it out
    await runner(host).addNetworkList(winBridge(), rtConf(id, 'none'));
    const view = await HcnClient.forHost(host).getEndpointByName(`${id}_cbr0`);
    expect(view.HostComputeNamespace).toBe('');
    await runner(host).delNetworkList(winBridge(2), rtConf(id, ''));
    expect(endpointNames(host)).toEqual([]);
  });
});

// ───────────────────────────── P15 ─────────────────────────────

describe('P15: flannel’s saved delegate config (containernetworking/plugins#426; code §5.1)', () => {
  const FLANNEL = conflist({
    cniVersion: '0.3.1',
    name: 'cbr0',
    plugins: [{ type: 'flannel', delegate: { type: 'win-bridge' } }],
  });

  it('reproduced: a failed ADD leaves /var/lib/cni/flannel/<id>; only a DEL removes it', async () => {
    const host = await flannelHostGwNode(1501);
    const r = runner(host);
    const id = cid(1);
    dockerContainer(host, id);
    // .2 is cbr0_ep's (P2): the delegate fails after flannel saved its config
    await rejection(r.addNetworkList(FLANNEL, rtConf(id, 'none')));
    const saved = host.files.read(`${FLANNEL_DIR}/${id}`);
    expect(JSON.parse(saved!)).toEqual({
      cniVersion: '0.3.1',
      ipMasq: true,
      ipMasqNetwork: '10.244.0.0/16',
      ipam: { subnet: '10.244.1.0/24', type: 'host-local' },
      name: 'cbr0',
      type: 'win-bridge',
    });
    // fix: the runtime's DEL after a failed ADD (what containerd's and dockershim's unwinds do)
    await r.delNetworkList(FLANNEL, rtConf(id, 'none'));
    expect(host.files.exists(`${FLANNEL_DIR}/${id}`)).toBe(false);
  });

  it('reproduced: DEL without the saved file succeeds without calling the delegate — the endpoint and the address leak', async () => {
    const host = await flannelHostGwNode(1502);
    const r = runner(host);
    const [burn, id] = [cid(1), cid(2)];
    for (const c of [burn, id]) dockerContainer(host, c);
    await rejection(r.addNetworkList(FLANNEL, rtConf(burn, 'none'))); // .2 collides; the next gets .3
    await r.delNetworkList(FLANNEL, rtConf(burn, 'none'));
    await r.addNetworkList(FLANNEL, rtConf(id, 'none'));
    expect(ipOf(host, `${id}_cbr0`)).toBe('10.244.1.3');
    host.files.remove(`${FLANNEL_DIR}/${id}`);
    const execs = recordExecs(host);
    await r.delNetworkList(FLANNEL, rtConf(id, 'none'));
    expect(execs).toEqual(['0:flannel DEL 0']);
    expect(ipOf(host, `${id}_cbr0`)).toBe('10.244.1.3');
    expect(reservations(host)).toEqual({ '10.244.1.3': `${id}\r\neth0` });
  });

  it('reproduced (code-derived hypothesis): with dockershim a workload DEL (container:<pause>) consumes the pause container’s file; the pause DEL then leaks', async () => {
    const host = await flannelHostGwNode(1503);
    const r = runner(host, { cacheDir: '/var/lib/cni/cache' });
    const [burn, pause, app] = [cid(1), cid(2), cid(3)];
    for (const c of [burn, pause, app]) dockerContainer(host, c);
    await rejection(r.addNetworkList(FLANNEL, rtConf(burn, 'none')));
    await r.delNetworkList(FLANNEL, rtConf(burn, 'none'));
    await r.addNetworkList(FLANNEL, rtConf(pause, 'none'));
    await r.addNetworkList(FLANNEL, rtConf(app, `container:${pause}`));
    expect(endpointNamed(host, `${pause}_cbr0`)!.SharedContainers).toEqual([pause, app]);
    // the file is keyed by the sandbox ID: both ADDs wrote /var/lib/cni/flannel/<pause>
    expect(host.files.list(FLANNEL_DIR)).toEqual([pause]);
    const execs = recordExecs(host);
    await r.delNetworkList(FLANNEL, rtConf(app, `container:${pause}`));
    expect(execs).toEqual(['2:host-local DEL 0', '1:win-bridge DEL 0', '0:flannel DEL 0']);
    expect(host.files.list(FLANNEL_DIR)).toEqual([]);
    expect(endpointNamed(host, `${pause}_cbr0`)!.SharedContainers).toEqual([pause]);
    execs.length = 0;
    await r.delNetworkList(FLANNEL, rtConf(pause, 'none'));
    expect(execs).toEqual(['0:flannel DEL 0']);
    expect(ipOf(host, `${pause}_cbr0`)).toBe('10.244.1.3');
    expect(reservations(host)).toEqual({ '10.244.1.3': `${pause}\r\neth0` });
  });
});
