/**
 * A Hyper-V isolated pod under containerd + the runhcs shim (kubernetes-windows.md §3.1 step 6,
 * hcs-lifecycle.md §5): no pause container, a utility VM `<id>@vm` whose guest gets the pod's
 * namespace and one hot-added NIC per endpoint (guest PreAdd, then the host `NetworkAdapters/<nic>`
 * Add with the guest Add; hcsshim 7c9ff7f4 `internal/uvm/network.go`); workloads hosted in the VM;
 * teardown by NIC removal, guest namespace removal and the VM's close, then CNI DEL and the
 * namespace.
 */
import { describe, expect, it } from 'vitest';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { expectClean, fakeNetwork, leftovers, node, podConfig, recordSteps, rejection } from './kit.js';

const HV = 'runhcs-wcow-hypervisor';

function setup() {
  const host = node(7);
  const { cni, network } = fakeNetwork(host);
  const rt = new ContainerdRuntime(host, { networks: [network] });
  const rec = recordSteps(host);
  return { host, cni, rt, rec };
}

describe('containerd: a Hyper-V pod', () => {
  it('RunPodSandbox: a utility VM, the namespace in its guest, the endpoint hot-added as a NIC', async () => {
    const { host, rt, rec } = setup();
    const id = await rt.runPodSandbox(podConfig(), HV);
    expect(rec.steps).toEqual([
      'RunPodSandbox/name.reserve',
      'RunPodSandbox/namespace.create',
      'RunPodSandbox/cni.add',
      'RunPodSandbox/cni.result',
      'RunPodSandbox/uvm.create',
      'RunPodSandbox/uvm.start',
      'RunPodSandbox/uvm.namespace.add',
      'RunPodSandbox/uvm.nic.add',
      'RunPodSandbox/sandbox.ready',
    ]);
    const status = await rt.podSandboxStatus(id);
    expect(status).toMatchObject({
      state: 'SANDBOX_READY',
      runtimeHandler: HV,
      network: { ip: '10.244.1.1' },
    });
    // "HCS/HNS hold the namespace open": no pause container, only the VM
    expect(leftovers(host).systems).toEqual([`${id}@vm`]);
    const vm = host.hcs.get(`${id}@vm`);
    expect(vm).toMatchObject({ systemType: 'VirtualMachine', owner: 'containerd-shim-runhcs-v1.exe' });
    const ep = [...host.hns.store.endpoints.values()][0]!;
    const uvm = rt.utilityVm(id)!;
    expect(uvm.nics).toEqual([[expect.stringMatching(/^[0-9a-f-]{36}$/), ep.ID]]);
    const nic = uvm.nics[0]![0];
    // the NIC GUID is a fresh one, not the endpoint's; the MAC is the endpoint's
    expect(nic.toUpperCase()).not.toBe(ep.ID);
    expect(vm.nics).toEqual([{ nicId: nic.toUpperCase(), endpointId: ep.ID, macAddress: ep.MacAddress }]);
    expect(vm.guestNamespace).toBe(status.netns);
    expect(vm.guestAdapters).toEqual([{ adapterId: nic.toUpperCase(), state: 'Add' }]);
    expect(ep.VmPort?.VirtualMachineId).toBe(vm.runtimeId);
    // the namespace lists the endpoint only (the VM is not a container of it)
    expect(host.hns.store.namespaces.get(status.netns)!.Resources.map((r) => r.Type)).toEqual(['Endpoint']);
  });

  it('workloads are hosted in the VM and see its NICs; StopPodSandbox removes NICs, guest namespace, VM, then DEL and the namespace', async () => {
    const { host, cni, rt, rec } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config, HV);
    const ns = (await rt.podSandboxStatus(id)).netns;
    const c = await rt.createContainer(id, { metadata: { name: 'app' } }, config);
    await rt.startContainer(c);
    const rec2 = host.hcs.get(c);
    expect(rec2).toMatchObject({ isolation: 'Hosted', hostingSystemId: `${id}@vm` });
    expect(rec2.document).toMatchObject({ HostedSystem: { Container: { Networking: { Namespace: ns } } } });
    const ep = [...host.hns.store.endpoints.keys()][0]!;
    expect(host.hcs.attachedEndpoints(rec2)).toEqual([ep]);
    rec.steps.length = 0;
    await rt.stopPodSandbox(id);
    expect(rec.steps).toEqual([
      'StopPodSandbox/container.stop',
      'StopPodSandbox/uvm.nic.remove',
      'StopPodSandbox/uvm.namespace.remove',
      'StopPodSandbox/uvm.close',
      'StopPodSandbox/cni.del',
      'StopPodSandbox/namespace.remove',
    ]);
    expect(cni.summary().at(-1)).toEqual(['DEL', id, ns, 'eth0']);
    expectClean(host);
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expectClean(host);
  });

  it('endpoints whose name ends in eth0 are hot-added first', async () => {
    const host = node(7);
    const second = fakeNetwork(host, 'pod-eth1');
    const first = fakeNetwork(host, 'pod-eth0');
    // the eth1 network is attached first, so HNS lists its endpoint first in the namespace
    const rt = new ContainerdRuntime(host, { networks: [second.network, first.network] });
    const id = await rt.runPodSandbox(podConfig(), HV);
    const names = rt.utilityVm(id)!.nics.map(([, ep]) => host.hns.store.endpoints.get(ep)!.Name);
    expect(names).toEqual([`${id}_pod-eth0`, `${id}_pod-eth1`]);
  });

  it('a NIC hot-add fails: the guest namespace is removed (best effort), the VM closed, then DEL and the namespace', async () => {
    const { host, cni, rt, rec } = setup();
    host.faults.fail(
      (call) => call.method === 'HcsModifyComputeSystem' && String(call.args[1]).includes('NetworkAdapters/'),
      'HCS_E_INVALID_STATE',
      { times: 1 },
    );
    const msg = await rejection(rt.runPodSandbox(podConfig(), HV));
    const id = cni.calls[0]!.rt.containerId;
    expect(msg).toMatch(
      new RegExp(
        `^failed to start sandbox "${id}": failed to create containerd task: failed to setup networking for pod "${id}": hcs::System::Modify ${id}@vm: `,
      ),
    );
    expect(rec.steps.slice(4)).toEqual([
      'RunPodSandbox/uvm.create',
      'RunPodSandbox/uvm.start',
      'RunPodSandbox/uvm.namespace.add',
      'RunPodSandbox/uvm.nic.add!',
      // the guest still holds the pre-added adapter: it refuses to drop the namespace (only logged)
      'RunPodSandbox/uvm.namespace.remove!',
      'RunPodSandbox/uvm.close',
      'RunPodSandbox/cni.del',
      'RunPodSandbox/namespace.remove',
    ]);
    expectClean(host);
  });

  it('the VM dies: the pod is NOTREADY, its containers EXITED; the shim closes the VM; Stop then frees the network', async () => {
    const { host, rt } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config, HV);
    const c = await rt.createContainer(id, { metadata: { name: 'app' } }, config);
    await rt.startContainer(c);
    host.hcs.injectExit(`${id}@vm`);
    expect((await rt.podSandboxStatus(id)).state).toBe('SANDBOX_NOTREADY');
    expect(rt.containerStatus(c).state).toBe('CONTAINER_EXITED');
    await rt.settle();
    expect(leftovers(host).systems).toEqual([]);
    // the endpoint and the namespace survive the VM (hcs-lifecycle.md §6)
    expect(leftovers(host).endpoints).toEqual([`${id}_cbr0`]);
    expect(leftovers(host).namespaces).toHaveLength(1);
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expectClean(host);
  });
});
