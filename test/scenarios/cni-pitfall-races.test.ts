/**
 * CNI pitfalls of repetition, races and slow HNS (reference cni-windows.md §7: P6, P7, P8): ADD run
 * again for a pod that has its endpoint, ADD and DEL crossing each other, HNS calls that hang or
 * crawl — reproduced on a simulated node through the fault layer (`host.faults.fail/delay/hang`)
 * with the reference plugins, libcni's runner and the pod runtimes.
 */
import { describe, expect, it } from 'vitest';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { DockershimRuntime } from '../../src/runtime/dockershim.js';
import {
  cid,
  cniError,
  endpointNamed,
  endpointNames,
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
  SDNBRIDGE,
  settle,
  track,
  v1BridgeNode,
  winBridge,
  winBridgeDoc,
} from './cni-pitfall-kit.js';

// ───────────────────────────── P6 ─────────────────────────────

describe('P6: ADD must be idempotent on Windows (kubernetes#70279, #64188; ovn-kubernetes#580; microsoft/SDN#222)', () => {
  it('the dockershim pattern works on the v1 path: PodSandboxStatus re-runs ADD; the endpoint is reused, IPAM is not called again', async () => {
    const host = v1BridgeNode(601);
    const net = network(host, winBridgeDoc(), { cacheDir: '/var/lib/cni/cache' });
    const rt = new DockershimRuntime(host, { network: net });
    const config = pod();
    const id = await rt.runPodSandbox(config);
    const epId = endpointNamed(host, `${id}_cbr0`)!.ID;
    const app = await rt.createContainer(id, { metadata: { name: 'app' } }, config);
    await rt.startContainer(app);
    const execs = recordExecs(host);
    // GetPodNetworkStatus: "assuming addToNetwork is idempotent" — workload first, then the pause container
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('10.244.1.3');
    expect(execs).toEqual(['0:win-bridge ADD 0', '0:win-bridge ADD 0']);
    const ep = endpointNamed(host, `${id}_cbr0`)!;
    expect(ep.ID).toBe(epId);
    expect(ep.SharedContainers).toEqual([id, app]);
    expect(reservations(host)).toEqual({ '10.244.1.3': `${id}\r\neth0` });
  });

  it('reproduced (code-derived): a repeated v2 ADD reuses the endpoint, the namespace add fails, and cmdAdd’s IPAM DEL frees the running pod’s address', async () => {
    const host = v1BridgeNode(602);
    // a two-address range, so host-local wraps around quickly
    const list = winBridge(2, { ...HOST_LOCAL, rangeStart: '10.244.1.3', rangeEnd: '10.244.1.4' });
    const r = runner(host);
    const a = rtConf(cid(1), newNamespace(host));
    await r.addNetworkList(list, a);
    expect(reservations(host)).toEqual({ '10.244.1.3': `${cid(1)}\r\neth0` });
    // the same ADD again (a runtime retry): the endpoint is already in the namespace. HNS's answer
    // to a repeated namespace add is unverified (reference §8); the simulator answers 0x803b002b
    const err = await rejection(r.addNetworkList(list, a));
    expect(err.message).toBe(
      `plugin type="win-bridge" failed (add): error while adding HostComputeEndpoint: ` +
        `failed to add HostComputeEndpoint ${cid(1)}_cbr0 to HostComputeNamespace ${a.netns}: ` +
        'hcnModifyNamespace failed in Win32: This requested operation is invalid as endpoint is already part of a network namespace. (0x803b002b) ' +
        '{"Success":false,"Error":"This requested operation is invalid as endpoint is already part of a network namespace. ","ErrorCode":2151350315}',
    );
    expect(cniError(err).code).toBe(999);
    // the endpoint (not new) stays with .3, but host-local no longer reserves it
    expect(ipOf(host, `${cid(1)}_cbr0`)).toBe('10.244.1.3');
    expect(reservations(host)).toEqual({});
    // two pods later .3 is handed out again, and HNS refuses it: the address is in use
    await r.addNetworkList(list, rtConf(cid(2), newNamespace(host)));
    expect(ipOf(host, `${cid(2)}_cbr0`)).toBe('10.244.1.4');
    const third = await rejection(r.addNetworkList(list, rtConf(cid(3), newNamespace(host))));
    expect(third.message).toContain(
      'failed to create the new HostComputeEndpoint: hcnCreateEndpoint failed in Win32: The object already exists. (0x1392)',
    );
  });

  it('reproduced (code-derived): any failure after reuse does it — an HNS failure on the re-ADD’s namespace add frees the address', async () => {
    const host = v1BridgeNode(603);
    const r = runner(host);
    const id = cid(1);
    const ns = newNamespace(host);
    await r.addNetworkList(winBridge(2), rtConf(id, ns));
    host.faults.fail({ method: 'HcnModifyNamespace' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    await rejection(r.addNetworkList(winBridge(2), rtConf(id, ns)));
    expect(ipOf(host, `${id}_cbr0`)).toBe('10.244.1.3');
    expect(reservations(host)).toEqual({});
  });

  it('fix: WCN’s ADD finds its endpoint on the network and returns it — no namespace add, no IPAM call, the reservation stays', async () => {
    const host = v1BridgeNode(604);
    const r = runner(host);
    const a = rtConf(cid(1), newNamespace(host));
    const first = await r.addNetworkList(SDNBRIDGE, a);
    const execs = recordExecs(host);
    const again = await r.addNetworkList(SDNBRIDGE, a);
    expect(execs).toEqual(['0:sdnbridge ADD 0']);
    expect(again?.ips).toEqual(first?.ips);
    expect(reservations(host)).toEqual({ '10.244.1.2': `${cid(1)}\r\neth0` });
  });
});

// ───────────────────────────── P7 ─────────────────────────────

describe('P7: ADD/DEL races (Azure/azure-container-networking#218, #4540)', () => {
  it('reproduced: a killed ADD whose HNS create completes after DEL leaves an endpoint nobody owns', async () => {
    const host = v1BridgeNode(701);
    const r = runner(host);
    const rt = rtConf(cid(1), newNamespace(host));
    const create = host.faults.hang({ method: 'HcnCreateEndpoint' }, { times: 1 });
    const add = track(r.addNetworkList(winBridge(2), rt));
    await settle();
    expect(create.held).toBe(1);
    // the runtime gives up on the ADD: DEL (the endpoint does not exist yet), then the namespace goes
    await r.delNetworkList(winBridge(2), rt);
    expect(host.api.HcnDeleteNamespace(rt.netns).ok).toBe(true);
    expect(reservations(host)).toEqual({});
    // the plugin process is killed: its next HNS call never comes back …
    const dead = host.faults.hang({ method: 'HcnModifyNamespace' });
    // … while HNS finishes the create it already had
    create.release();
    await settle();
    expect(dead.held).toBe(1);
    expect(add.done).toBe(false);
    const ep = endpointNamed(host, `${cid(1)}_cbr0`)!;
    expect(ep.IpConfigurations[0]!.IpAddress).toBe('10.244.1.3');
    expect(ep.HostComputeNamespace).toBeUndefined();
    expect(reservations(host)).toEqual({});
    expect(podNamespaces(host)).toEqual([]);
    dead.remove();
    await rejection(add.p);
  });

  it('fix (a plugin that lives on): when its namespace add fails on the deleted namespace, win-bridge removes the late endpoint', async () => {
    const host = v1BridgeNode(702);
    const r = runner(host);
    const rt = rtConf(cid(1), newNamespace(host));
    const create = host.faults.hang({ method: 'HcnCreateEndpoint' }, { times: 1 });
    const add = track(r.addNetworkList(winBridge(2), rt));
    await settle();
    await r.delNetworkList(winBridge(2), rt);
    expect(host.api.HcnDeleteNamespace(rt.netns).ok).toBe(true);
    create.release();
    const err = await rejection(add.p);
    expect(err.message).toMatch(
      new RegExp(
        `failed to add HostComputeEndpoint ${cid(1)}_cbr0 to HostComputeNamespace ${rt.netns}: ` +
          'hcnOpenNamespace failed in Win32: Element not found\\. \\(0x490\\)',
      ),
    );
    expect(endpointNames(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });

  it('reproduced (WCN): a late ADD after DEL and namespace removal — sdnbridge creates the endpoint, cannot add it to the namespace, and keeps it', async () => {
    const host = v1BridgeNode(703);
    const r = runner(host);
    const rt = rtConf(cid(1), newNamespace(host));
    await r.addNetworkList(SDNBRIDGE, rt);
    await r.delNetworkList(SDNBRIDGE, rt);
    expect(host.api.HcnDeleteNamespace(rt.netns).ok).toBe(true);
    // the late ADD for the same infra container
    const err = await rejection(r.addNetworkList(SDNBRIDGE, rt));
    expect(err.message).toMatch(
      /^plugin type="sdnbridge" failed \(add\): error adding endpoint to namespace hcnOpenNamespace failed in Win32: Element not found\. \(0x490\)/,
    );
    expect(endpointNames(host)).toEqual([`${cid(1)}_cbr0`]);
    expect(ipOf(host, `${cid(1)}_cbr0`)).toBe('10.244.1.3');
    expect(reservations(host)).toEqual({});
  });

  it('fix (v1, dockershim): a late ADD for a removed pause container fails at HotAttach and win-bridge removes the endpoint', async () => {
    const host = v1BridgeNode(704);
    const r = runner(host);
    const pause = cid(1);
    host.api.HcsCreateComputeSystem(pause, { SystemType: 'Container', Owner: 'docker' });
    await r.addNetworkList(winBridge(), rtConf(pause, 'none'));
    await r.delNetworkList(winBridge(), rtConf(pause, 'none'));
    host.api.HcsTerminateComputeSystem(pause, '');
    host.api.HcsCloseComputeSystem(pause);
    const err = await rejection(r.addNetworkList(winBridge(), rtConf(pause, 'none')));
    expect(err.message).toMatch(
      /A virtual machine or container with the specified identifier does not exist\.$/,
    );
    expect(endpointNames(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });
});

// ───────────────────────────── P8 ─────────────────────────────

/** kubelet's `--runtime-request-timeout` default: 2 minutes. */
const RUNTIME_REQUEST_TIMEOUT_MS = 2 * 60_000;

describe('P8: HNS hangs or is slow (antrea PR#650, PR#8172; Azure/azure-container-networking PR#1369; Windows-Containers#430; moby#40699)', () => {
  it('reproduced: Remove-HnsEndpoint never returns — StopPodSandbox outlives kubelet’s timeout with the address already released', async () => {
    const host = v1BridgeNode(801);
    const rt = new ContainerdRuntime(host, {
      networks: [network(host, winBridgeDoc(2))],
    });
    const id = await rt.runPodSandbox(pod());
    const gate = host.faults.hang({ method: 'HcnDeleteEndpoint' });
    const stop = track(rt.stopPodSandbox(id));
    await settle();
    host.clock.advance(RUNTIME_REQUEST_TIMEOUT_MS);
    await settle();
    expect(stop.done).toBe(false);
    expect(gate.held).toBe(1);
    // IPAM DEL ran first: .2 is free while the endpoint still holds it; libcni's cache stays
    expect(reservations(host)).toEqual({});
    expect(ipOf(host, `${id}_cbr0`)).toBe('10.244.1.3');
    expect(host.files.exists(`/var/lib/cni/results/cbr0-${id}-eth0`)).toBe(true);
    // HNS comes back: the teardown finishes
    gate.release(true);
    await stop.p;
    expect(endpointNames(host)).toEqual([]);
    expect(podNamespaces(host)).toEqual([]);
    expect(host.files.exists(`/var/lib/cni/results/cbr0-${id}-eth0`)).toBe(false);
  });

  it('reproduced: slow endpoint creation — the pod’s ADD takes as long as HNS does (simulated time)', async () => {
    const host = v1BridgeNode(802);
    const r = runner(host);
    host.faults.delay({ method: 'HcnCreateEndpoint' }, 45_000);
    host.faults.delay({ method: 'HcnModifyNamespace' }, 30_000);
    const add = track(r.addNetworkList(winBridge(2), rtConf(cid(1), newNamespace(host))));
    await settle();
    host.clock.advance(44_999);
    await settle();
    expect(add.done).toBe(false);
    expect(endpointNames(host)).toEqual([]);
    host.clock.advance(1);
    await settle();
    expect(endpointNames(host)).toEqual([`${cid(1)}_cbr0`]);
    expect(add.done).toBe(false);
    host.clock.advance(30_000);
    const result = await add.p;
    expect(result?.ips?.[0]?.address).toBe('10.244.1.3/24');
    expect(host.clock.now()).toBe(75_000);
  });

  it('reproduced: a hung create holds the ADD past the runtime’s DEL; the ADD then succeeds for an address host-local released', async () => {
    const host = v1BridgeNode(803);
    const r = runner(host);
    const rt = rtConf(cid(1), newNamespace(host));
    const gate = host.faults.hang({ method: 'HcnCreateEndpoint' });
    const add = track(r.addNetworkList(winBridge(2), rt));
    await settle();
    host.clock.advance(RUNTIME_REQUEST_TIMEOUT_MS);
    // the runtime's DEL: IPAM releases .2; there is no endpoint yet
    await r.delNetworkList(winBridge(2), rt);
    expect(add.done).toBe(false);
    gate.release(true);
    // the namespace still exists (the runtime has not removed it yet): the late ADD completes
    const result = await add.p;
    expect(result?.ips?.[0]?.address).toBe('10.244.1.3/24');
    expect(ipOf(host, `${cid(1)}_cbr0`)).toBe('10.244.1.3');
    expect(reservations(host)).toEqual({});
    expect(host.files.exists(`/var/lib/cni/results/cbr0-${cid(1)}-eth0`)).toBe(true);
  });
});
