/**
 * Pods as the runtimes build them from HNS and HCS calls (reference kubernetes-windows.md §3,
 * hcs-lifecycle.md §4–§6, hns-hcs.md §7.3):
 * (a) a process-isolated pod, containerd + hcsshim: one HCN namespace, the CNI endpoint in it, a pause
 *     container and workloads naming it in `Container.Networking.Namespace`;
 * (b) a Hyper-V pod, the runhcs shim: a utility VM, the guest namespace, per endpoint a guest PreAdd
 *     then a host NIC Add, a hosted workload; teardown by requests or by the VM's exit;
 * (c) dockershim-era docker: v1 `ContainerConfig` with `EndpointList`, workloads sharing the pause
 *     container's stack (`NetworkSharedContainerName`), hot attach/detach by the v1 network Modify.
 * The HNS side goes through the flat API (`host.api`), the HCS side through `host.hcs`.
 */
import { describe, expect, it } from 'vitest';
import type { HcnDocument } from '../../src/api/flat.js';
import { HnsError, type HResultName } from '../../src/core/errors.js';
import type { HcsNotificationEvent } from '../../src/core/events.js';
import type { JsonObject } from '../../src/core/json.js';
import type { HcsOptions } from '../../src/hcs/service.js';
import { createHost, type Host } from '../../src/host/host.js';
import { addToNamespace, ok } from '../api/hcs-helpers.js';

// ───────────────────────────── helpers ─────────────────────────────

/** A host with the flannel-style L2Bridge network `cbr0` (10.244.1.0/24, gateway .2). */
function node(seed = 5, hcs?: HcsOptions): { host: Host; net: string } {
  const host = createHost({ seed, ...(hcs ? { hcs } : {}) });
  const net = ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'cbr0',
      Type: 'L2Bridge',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Routes: [{ NextHop: '10.244.1.2', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
      SchemaVersion: { Major: 2, Minor: 0 },
    }),
    'HcnCreateNetwork',
  ).ID;
  return { host, net };
}

/** win-bridge's endpoint (kubernetes-windows.md §3.1 step 4): name, address, DNS, OutBoundNAT. */
function cniEndpoint(host: Host, net: string, name: string, ip: string): string {
  return ok(
    host.api.HcnCreateEndpoint(net, null, {
      Name: name,
      IpConfigurations: [{ IpAddress: ip, PrefixLength: 24 }],
      Dns: { Search: ['default.svc.cluster.local'], ServerList: ['10.96.0.10'] },
      Policies: [{ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } }],
      SchemaVersion: { Major: 2, Minor: 0 },
    }),
    'HcnCreateEndpoint',
  ).ID;
}

function namespaceResources(host: Host, ns: string): { Type: string; ID: string }[] {
  const doc = ok(host.api.HcnQueryNamespaceProperties(ns), 'HcnQueryNamespaceProperties');
  return ((doc.Resources ?? []) as { Type: string; Data: { ID: string } }[]).map((r) => ({
    Type: r.Type,
    ID: r.Data.ID,
  }));
}

/** `[notification, system, ExitType?]` of every HCS notification from now on. */
function record(host: Host): (string | undefined)[][] {
  const out: (string | undefined)[][] = [];
  host.events.on('hcs.notification', (e: HcsNotificationEvent) =>
    out.push(
      e.data?.ExitType !== undefined
        ? [e.notification, e.system, String(e.data.ExitType)]
        : [e.notification, e.system],
    ),
  );
  return out;
}

/** The call fails with `code` (and `hresult`) and leaves the host's snapshot exactly as it was. */
function expectFailure(host: Host, code: HResultName, hresult: number, fn: () => unknown): HnsError {
  const before = host.snapshot();
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(HnsError);
  const e = error as HnsError;
  expect({ code: e.code, hresult: e.hresult.toString(16) }).toEqual({ code, hresult: hresult.toString(16) });
  expect(host.snapshot()).toEqual(before);
  return e;
}

function attached(host: Host, id: string): string[] {
  return host.hcs.attachedEndpoints(host.hcs.get(id));
}

function vmPortOf(host: Host, ep: string) {
  return host.hns.store.endpoints.get(ep)?.VmPort;
}

/** containerd sandbox and container IDs are 64 hex digits. */
const SANDBOX = 'c0ffee'.padEnd(64, '1');
const WORK1 = 'beef01'.padEnd(64, '2');
const WORK2 = 'beef02'.padEnd(64, '3');

/** The schema 2 document hcsshim (hcsdoc_wcow.go) gives a process-isolated container of a pod. */
function processContainerDoc(ns: string): JsonObject {
  return {
    Owner: 'containerd-shim-runhcs-v1.exe',
    SchemaVersion: { Major: 2, Minor: 1 },
    Container: {
      Storage: { Layers: [], Path: '\\\\?\\Volume{0}\\' },
      MappedDirectories: [],
      Networking: {
        AllowUnqualifiedDnsQuery: true,
        DnsSearchList: 'default.svc.cluster.local,svc.cluster.local,cluster.local',
        Namespace: ns.toLowerCase(),
      },
    },
  };
}

// ───────────────────────────── (a) process-isolated pod ─────────────────────────────

describe('(a) a process-isolated pod: containerd + hcsshim', () => {
  function runPod(hcs?: HcsOptions) {
    const { host, net } = node(5, hcs);
    const notes = record(host);
    // RunPodSandbox: the HCN namespace (no Type), then CNI ADD puts the endpoint in it
    const ns = ok(host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } }), 'ns').ID;
    const ep = cniEndpoint(host, net, `${SANDBOX}_cbr0`, '10.244.1.5');
    addToNamespace(host, ns, ep);
    // the pause container, then the workloads, every one naming the namespace
    for (const id of [SANDBOX, WORK1, WORK2]) {
      host.hcs.create(id, processContainerDoc(ns));
      host.hcs.start(id);
    }
    return { host, ns, ep, notes };
  }

  it('every container joins the namespace at Start and sees its one endpoint', () => {
    const { host, ns, ep, notes } = runPod();
    expect(notes).toEqual([
      ['SystemCreateCompleted', SANDBOX],
      ['SystemStartCompleted', SANDBOX],
      ['SystemCreateCompleted', WORK1],
      ['SystemStartCompleted', WORK1],
      ['SystemCreateCompleted', WORK2],
      ['SystemStartCompleted', WORK2],
    ]);
    expect(namespaceResources(host, ns)).toEqual([
      { Type: 'Endpoint', ID: ep },
      { Type: 'Container', ID: SANDBOX },
      { Type: 'Container', ID: WORK1 },
      { Type: 'Container', ID: WORK2 },
    ]);
    for (const id of [SANDBOX, WORK1, WORK2]) expect(attached(host, id), id).toEqual([ep]);
    // the namespace endpoint is attached to the compartment, not shared into containers (v1 field)
    const e = host.hns.store.endpoints.get(ep)!;
    expect(e.HostComputeNamespace).toBe(ns);
    expect(e.SharedContainers).toEqual([]);
    expect(e.VmPort).toBeUndefined();
  });

  it('a container created but not started is not in the namespace yet, and sees nothing', () => {
    const { host, ns, ep } = runPod();
    host.hcs.create('late', processContainerDoc(ns));
    expect(namespaceResources(host, ns).map((r) => r.ID)).not.toContain('late');
    expect(attached(host, 'late')).toEqual([]);
    host.hcs.start('late');
    expect(namespaceResources(host, ns).at(-1)).toEqual({ Type: 'Container', ID: 'late' });
    expect(attached(host, 'late')).toEqual([ep]);
  });

  it('teardown: workloads Shutdown, pause Terminate, Close each; HNS endpoint and namespace remain until deleted (§6)', () => {
    const { host, ns, ep, notes } = runPod();
    notes.length = 0;
    host.hcs.shutdown(WORK1);
    host.hcs.shutdown(WORK2);
    host.hcs.terminate(SANDBOX);
    expect(notes).toEqual([
      ['SystemExited', WORK1, 'GracefulExit'],
      ['SystemExited', WORK2, 'GracefulExit'],
      ['SystemExited', SANDBOX, 'ForcedExit'],
    ]);
    // stopped, not yet closed: they see nothing, but the namespace still lists them
    for (const id of [SANDBOX, WORK1, WORK2]) expect(attached(host, id)).toEqual([]);
    expect(namespaceResources(host, ns)).toHaveLength(4);
    for (const id of [WORK1, WORK2, SANDBOX]) expect(host.hcs.close(id)).toBe(true);
    expect(notes).toHaveLength(3); // Close sends no notification
    expect(namespaceResources(host, ns)).toEqual([{ Type: 'Endpoint', ID: ep }]);
    for (const id of [SANDBOX, WORK1, WORK2])
      expect(() => host.hcs.get(id)).toThrow(expect.objectContaining({ code: 'HCS_E_SYSTEM_NOT_FOUND' }));
    // the pod's IP stays allocated until CNI DEL; the namespace until containerd removes it
    const epDoc = ok(host.api.HcnQueryEndpointProperties(ep), 'endpoint');
    expect(epDoc).toMatchObject({
      HostComputeNamespace: ns,
      IpConfigurations: [{ IpAddress: '10.244.1.5' }],
    });
    // CNI DEL, then NetNS.Remove
    ok(
      host.api.HcnModifyNamespace(ns, {
        ResourceType: 'Endpoint',
        RequestType: 'Remove',
        Settings: { EndpointId: ep },
      }),
      'remove',
    );
    ok(host.api.HcnDeleteEndpoint(ep), 'HcnDeleteEndpoint');
    ok(host.api.HcnDeleteNamespace(ns), 'HcnDeleteNamespace');
    expect(ok(host.api.HcnEnumerateEndpoints(), 'enum')).toEqual([]);
    expect(host.hcs.systems.size).toBe(0);
  });

  it('with detachOnClose: false, closed containers stay listed (microsoft/Windows-Containers#485), and the namespace still deletes', () => {
    const { host, ns, ep } = runPod({ detachOnClose: false });
    for (const id of [WORK1, WORK2, SANDBOX]) host.hcs.terminate(id);
    for (const id of [WORK1, WORK2, SANDBOX]) host.hcs.close(id);
    expect(namespaceResources(host, ns).map((r) => r.ID)).toEqual([ep, SANDBOX, WORK1, WORK2]);
    ok(host.api.HcnDeleteNamespace(ns), 'HcnDeleteNamespace');
    expect(host.hns.store.endpoints.get(ep)!.HostComputeNamespace).toBeUndefined();
  });

  it('the namespace deleted out of band (containerd sandbox_clean_remove_windows_test): containers see nothing, the endpoint and its IP stay', () => {
    const { host, ns, ep } = runPod();
    host.hcs.injectExit(SANDBOX); // the sandbox process is killed
    ok(host.api.HcnDeleteNamespace(ns), 'hnsdiag delete namespaces');
    for (const id of [WORK1, WORK2]) expect(attached(host, id)).toEqual([]);
    expect(host.hns.store.endpoints.get(ep)).toMatchObject({ HostComputeNamespace: undefined });
    expect(host.hns.store.endpoints.get(ep)!.IpConfigurations[0]!.IpAddress).toBe('10.244.1.5');
    // StopPodSandbox: force-stop and close; leaving a namespace that is gone is no error
    for (const id of [WORK1, WORK2]) host.hcs.terminate(id);
    for (const id of [SANDBOX, WORK1, WORK2]) expect(host.hcs.close(id)).toBe(true);
    // a container naming the deleted namespace cannot be created or started
    expectFailure(host, 'ERROR_NOT_FOUND', 0x80070490, () =>
      host.hcs.create('again', processContainerDoc(ns)),
    );
  });

  it('a container whose namespace was deleted between Create and Start fails to start and changes nothing', () => {
    const { host, net } = node();
    const ns = ok(host.api.HcnCreateNamespace(null, {}), 'ns').ID;
    addToNamespace(host, ns, cniEndpoint(host, net, 'x_cbr0', '10.244.1.9'));
    host.hcs.create(SANDBOX, processContainerDoc(ns));
    ok(host.api.HcnDeleteNamespace(ns), 'delete');
    expectFailure(host, 'ERROR_NOT_FOUND', 0x80070490, () => host.hcs.start(SANDBOX));
    expect(host.hcs.get(SANDBOX).state).toBe('Created');
  });
});

// ───────────────────────────── (b) Hyper-V pod ─────────────────────────────

const UVM = `${SANDBOX}@vm`;
const HOSTED = WORK1;
/** New random NIC GUIDs, not the endpoint IDs (reference §4). */
const NIC_ETH0 = '6A0E0000-0000-4000-8000-0000000E7400';
const NIC_ETH1 = '6A0E0000-0000-4000-8000-0000000E7401';

const UVM_DOC: JsonObject = {
  Owner: 'containerd-shim-runhcs-v1.exe',
  SchemaVersion: { Major: 2, Minor: 1 },
  ShouldTerminateOnLastHandleClosed: true,
  VirtualMachine: {
    StopOnReset: true,
    Chipset: { Uefi: { BootThis: { DevicePath: 'primary', DiskNumber: 0, DeviceType: 'VmbFs' } } },
    ComputeTopology: { Memory: { SizeInMB: 1024, AllowOvercommit: true }, Processor: { Count: 2 } },
    Devices: { Scsi: {}, HvSocket: {} },
    GuestConnection: { UseVsock: true, UseConnectedSuspend: true },
  },
};

const nicPath = (nic: string) => `VirtualMachine/Devices/NetworkAdapters/${nic}`;

describe('(b) a Hyper-V pod: the runhcs shim', () => {
  /** Namespace with two endpoints, the eth1 one first (the shim sorts eth0 first). */
  function hypervPod() {
    const { host, net } = node(9);
    const notes = record(host);
    const ns = ok(host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } }), 'ns').ID;
    const eth1 = cniEndpoint(host, net, `${SANDBOX}_cbr0-eth1`, '10.244.1.11');
    const eth0 = cniEndpoint(host, net, `${SANDBOX}_cbr0-eth0`, '10.244.1.10');
    addToNamespace(host, ns, eth1);
    addToNamespace(host, ns, eth0);
    host.hcs.create(UVM, UVM_DOC);
    host.hcs.start(UVM);
    return { host, ns, eth0, eth1, notes };
  }

  /** uvm.SetupNetworkNamespace: guest namespace Add, then per endpoint (eth0 first) PreAdd + host Add. */
  function configureNetworking(host: Host, ns: string): { nic: string; ep: string }[] {
    const caps = host.hcs.properties(UVM, { PropertyTypes: ['GuestConnection'] });
    expect(caps).toMatchObject({
      GuestConnectionInfo: { GuestDefinedCapabilities: { NamespaceAddRequestSupported: true } },
    });
    const nsDoc = ok(host.api.HcnQueryNamespaceProperties(ns), 'namespace');
    host.hcs.modify(UVM, {
      GuestRequest: { ResourceType: 'NetworkNamespace', RequestType: 'Add', Settings: nsDoc },
    });
    const endpoints = namespaceResources(host, ns)
      .filter((r) => r.Type === 'Endpoint')
      .map((r) => ok(host.api.HcnQueryEndpointProperties(r.ID), 'endpoint'))
      .sort((a, b) => Number(String(b.Name).endsWith('eth0')) - Number(String(a.Name).endsWith('eth0')));
    const nics = [NIC_ETH0, NIC_ETH1];
    return endpoints.map((e: HcnDocument, i) => {
      const nic = nics[i]!;
      // hns-hcs.md §7.3, step 1: the guest-only PreAdd carrying the HostComputeEndpoint
      host.hcs.modify(UVM, {
        GuestRequest: {
          RequestType: 'Add',
          ResourceType: 'Network',
          Settings: { AdapterId: nic, RequestType: 'PreAdd', Settings: e },
        },
      });
      // step 2: the host Add of the NIC with the guest Add
      host.hcs.modify(UVM, {
        ResourcePath: nicPath(nic),
        RequestType: 'Add',
        Settings: { EndpointId: e.ID, MacAddress: e.MacAddress as string },
        GuestRequest: {
          RequestType: 'Add',
          ResourceType: 'Network',
          Settings: { AdapterId: nic, RequestType: 'Add' },
        },
      });
      return { nic, ep: e.ID };
    });
  }

  function hostedDoc(ns: string): JsonObject {
    return {
      Owner: 'containerd-shim-runhcs-v1.exe',
      SchemaVersion: { Major: 2, Minor: 1 },
      HostingSystemId: UVM,
      HostedSystem: {
        SchemaVersion: { Major: 2, Minor: 1 },
        Container: { Storage: { Layers: [] }, Networking: { Namespace: ns } },
      },
    };
  }

  function podWithWorkload() {
    const pod = hypervPod();
    const nics = configureNetworking(pod.host, pod.ns);
    pod.host.hcs.create(HOSTED, hostedDoc(pod.ns));
    pod.host.hcs.start(HOSTED);
    return { ...pod, nics };
  }

  it('ConfigureNetworking: guest namespace, eth0 NIC first, VM ports on both endpoints, hosted container sees them', () => {
    const { host, ns, eth0, eth1, notes, nics } = podWithWorkload();
    expect(nics).toEqual([
      { nic: NIC_ETH0, ep: eth0 },
      { nic: NIC_ETH1, ep: eth1 },
    ]);
    const vm = host.hcs.get(UVM);
    expect(vm.guestNamespace).toBe(ns);
    expect(vm.nics.map((n) => [n.nicId, n.endpointId])).toEqual([
      [NIC_ETH0, eth0],
      [NIC_ETH1, eth1],
    ]);
    expect(vm.nics.map((n) => n.macAddress)).toEqual(
      [eth0, eth1].map((e) => host.hns.store.endpoints.get(e)!.MacAddress),
    );
    expect(vm.guestAdapters).toEqual([
      { adapterId: NIC_ETH0, state: 'Add' },
      { adapterId: NIC_ETH1, state: 'Add' },
    ]);
    for (const [ep, nic] of [
      [eth0, NIC_ETH0],
      [eth1, NIC_ETH1],
    ] as const) {
      expect(vmPortOf(host, ep)).toMatchObject({
        VirtualMachineId: vm.runtimeId,
        VirtualNicName: `${vm.runtimeId}--${nic}`,
      });
      const q = ok(
        host.api.HcnQueryEndpointProperties(ep, { SchemaVersion: { Major: 2, Minor: 0 }, Flags: 1 }),
        'q',
      );
      expect(q).toMatchObject({
        HostComputeNamespace: ns,
        Health: { Extra: { VirtualMachine: vm.runtimeId } },
      });
    }
    expect(attached(host, UVM)).toEqual([eth0, eth1]);
    expect(attached(host, HOSTED)).toEqual([eth0, eth1]);
    // the host namespace does not list the VM or the container hosted in it
    expect(namespaceResources(host, ns).map((r) => r.Type)).toEqual(['Endpoint', 'Endpoint']);
    expect(notes).toEqual([
      ['SystemCreateCompleted', UVM],
      ['SystemStartCompleted', UVM],
      ['SystemModifyCompleted', UVM], // guest NetworkNamespace Add
      ['SystemModifyCompleted', UVM], // PreAdd eth0
      ['SystemModifyCompleted', UVM], // NIC Add eth0
      ['SystemModifyCompleted', UVM], // PreAdd eth1
      ['SystemModifyCompleted', UVM], // NIC Add eth1
      ['SystemCreateCompleted', HOSTED],
      ['SystemStartCompleted', HOSTED],
    ]);
  });

  it('teardown by requests: per NIC guest Remove then host Remove, then the guest namespace; HNS objects stay', () => {
    const { host, ns, eth0, eth1, nics } = podWithWorkload();
    host.hcs.terminate(HOSTED);
    host.hcs.close(HOSTED);
    for (const { nic, ep } of nics) {
      const e = ok(host.api.HcnQueryEndpointProperties(ep), 'endpoint');
      const guest: JsonObject =
        nic === NIC_ETH1
          ? // the legacy WCOW guest remove omits ResourceType (reference §5: be lenient)
            { RequestType: 'Remove', Settings: { AdapterId: nic, RequestType: 'Remove' } }
          : {
              RequestType: 'Remove',
              ResourceType: 'Network',
              Settings: { AdapterId: nic, RequestType: 'Remove', Settings: e },
            };
      host.hcs.modify(UVM, { GuestRequest: guest });
      expect(host.hcs.get(UVM).guestAdapters.map((a) => a.adapterId)).not.toContain(nic);
      expect(vmPortOf(host, ep)).toBeDefined();
      host.hcs.modify(UVM, {
        ResourcePath: nicPath(nic),
        RequestType: 'Remove',
        Settings: { EndpointId: ep, MacAddress: e.MacAddress as string },
      });
      expect(vmPortOf(host, ep)).toBeUndefined();
    }
    const nsDoc = ok(host.api.HcnQueryNamespaceProperties(ns), 'namespace');
    host.hcs.modify(UVM, {
      GuestRequest: { ResourceType: 'NetworkNamespace', RequestType: 'Remove', Settings: nsDoc },
    });
    const vm = host.hcs.get(UVM);
    expect({ nics: vm.nics, guestAdapters: vm.guestAdapters, guestNamespace: vm.guestNamespace }).toEqual({
      nics: [],
      guestAdapters: [],
      guestNamespace: undefined,
    });
    expect(attached(host, UVM)).toEqual([]);
    // uvm.Close: ShouldTerminateOnLastHandleClosed ends it
    expect(host.hcs.close(UVM)).toBe(true);
    expect(host.hcs.systems.size).toBe(0);
    expect(namespaceResources(host, ns)).toEqual([
      { Type: 'Endpoint', ID: eth1 },
      { Type: 'Endpoint', ID: eth0 },
    ]);
  });

  for (const how of ['Terminate', 'InjectExit'] as const) {
    it(`the VM exits (${how}): NICs vanish, VM ports are cleared, the hosted container stops; HNS keeps namespace and endpoints`, () => {
      const { host, ns, eth0, eth1, notes } = podWithWorkload();
      notes.length = 0;
      const exitType = how === 'Terminate' ? 'ForcedExit' : 'UnexpectedExit';
      if (how === 'Terminate') host.hcs.terminate(UVM);
      else host.hcs.injectExit(UVM);
      expect(notes).toEqual([
        ['SystemExited', HOSTED, exitType],
        ['SystemExited', UVM, exitType],
      ]);
      const vm = host.hcs.get(UVM);
      expect(vm).toMatchObject({ state: 'Stopped', exitType, nics: [], guestAdapters: [] });
      expect(vm.guestNamespace).toBeUndefined();
      expect(host.hcs.get(HOSTED)).toMatchObject({ state: 'Stopped', exitType });
      expect(vmPortOf(host, eth0)).toBeUndefined();
      expect(vmPortOf(host, eth1)).toBeUndefined();
      expect(attached(host, HOSTED)).toEqual([]);
      expect(namespaceResources(host, ns).map((r) => r.ID)).toEqual([eth1, eth0]);
      // TearDownNetworking after the exit: HCS says the VM is not running (hcsshim ignores it)
      expectFailure(host, 'HCS_E_SYSTEM_ALREADY_STOPPED', 0x80370110, () =>
        host.hcs.modify(UVM, {
          ResourcePath: nicPath(NIC_ETH0),
          RequestType: 'Remove',
          Settings: { EndpointId: eth0 },
        }),
      );
      // the shim's uvm.Close: Terminate is "already stopped", Close takes the VM and its hosted container
      expectFailure(host, 'HCS_E_SYSTEM_ALREADY_STOPPED', 0x80370110, () => host.hcs.terminate(UVM));
      expect(host.hcs.close(UVM)).toBe(true);
      expect(host.hcs.systems.size).toBe(0);
      // the endpoints are free for another VM
      host.hcs.create('vm2', UVM_DOC);
      host.hcs.start('vm2');
      host.hcs.modify('vm2', {
        ResourcePath: nicPath(NIC_ETH0),
        RequestType: 'Add',
        Settings: { EndpointId: eth0 },
      });
      expect(vmPortOf(host, eth0)?.VirtualMachineId).toBe(host.hcs.get('vm2').runtimeId);
    });
  }

  it('errors along the way are sensible and change nothing', () => {
    const { host, ns, eth0, nics } = podWithWorkload();
    const nsDoc = ok(host.api.HcnQueryNamespaceProperties(ns), 'namespace');
    // AddNetNS twice ("network namespace already added" in hcsshim)
    expectFailure(host, 'ERROR_ALREADY_EXISTS', 0x800700b7, () =>
      host.hcs.modify(UVM, {
        GuestRequest: { ResourceType: 'NetworkNamespace', RequestType: 'Add', Settings: nsDoc },
      }),
    );
    // the guest refuses to remove a namespace that still has adapters (GCS network.go)
    expectFailure(host, 'HCS_E_INVALID_STATE', 0x80370105, () =>
      host.hcs.modify(UVM, {
        GuestRequest: { ResourceType: 'NetworkNamespace', RequestType: 'Remove', Settings: nsDoc },
      }),
    );
    // the same NIC ID again (gap 2; the GCS says "adapter with id … already present")
    expectFailure(host, 'ERROR_ALREADY_EXISTS', 0x800700b7, () =>
      host.hcs.modify(UVM, {
        ResourcePath: nicPath(nics[0]!.nic),
        RequestType: 'Add',
        Settings: { EndpointId: eth0 },
      }),
    );
    // the same endpoint on a second NIC: it already has a VM port
    expectFailure(host, 'HCN_E_ENDPOINT_ALREADY_ATTACHED', 0x803b0014, () =>
      host.hcs.modify(UVM, {
        ResourcePath: nicPath('6A0E0000-0000-4000-8000-0000000E74FF'),
        RequestType: 'Add',
        Settings: { EndpointId: eth0 },
      }),
    );
    // an endpoint that does not exist
    expectFailure(host, 'HCN_E_ENDPOINT_NOT_FOUND', 0x803b0002, () =>
      host.hcs.modify(UVM, {
        ResourcePath: nicPath('6A0E0000-0000-4000-8000-0000000E74FF'),
        RequestType: 'Add',
        Settings: { EndpointId: '0C0FFEE0-0000-4000-8000-00000000DEAD' },
      }),
    );
    // removing a NIC the VM does not have
    expectFailure(host, 'ERROR_NOT_FOUND', 0x80070490, () =>
      host.hcs.modify(UVM, {
        ResourcePath: nicPath('6A0E0000-0000-4000-8000-0000000E74FF'),
        RequestType: 'Remove',
      }),
    );
    // a guest Add for an adapter the host does not have
    expectFailure(host, 'ERROR_NOT_FOUND', 0x80070490, () =>
      host.hcs.modify(UVM, {
        GuestRequest: {
          RequestType: 'Add',
          ResourceType: 'Network',
          Settings: { AdapterId: '6A0E0000-0000-4000-8000-0000000E74FF', RequestType: 'Add' },
        },
      }),
    );
    // a NIC for a container (process or hosted): NICs belong to VMs
    expectFailure(host, 'ERROR_NOT_SUPPORTED', 0x80070032, () =>
      host.hcs.modify(HOSTED, { ResourcePath: nicPath(NIC_ETH0), RequestType: 'Remove' }),
    );
    // a container hosted by a VM that is not running, or by something that is not a VM
    host.hcs.pause(UVM);
    expectFailure(host, 'HCS_E_INVALID_STATE', 0x80370105, () => host.hcs.create('w9', hostedDoc(ns)));
    host.hcs.resume(UVM);
    expectFailure(host, 'E_INVALIDARG', 0x80070057, () =>
      host.hcs.create('w9', { ...hostedDoc(ns), HostingSystemId: HOSTED }),
    );
    expectFailure(host, 'HCS_E_SYSTEM_NOT_FOUND', 0x8037010e, () =>
      host.hcs.create('w9', { ...hostedDoc(ns), HostingSystemId: 'no-such-vm' }),
    );
  });

  // Regression (fixed; was src/hcs/service.ts attachPort): the port ID is drawn from the host's Rng (`newGuid`) before
  // HNS refuses the port, outside HNS's atomic rollback; a NIC Add of a remote endpoint therefore
  // fails with HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION but leaves the Rng advanced — host.snapshot()
  // changes (DESIGN contract 2: a failed call changes nothing).
  it('a NIC Add of a remote endpoint fails and changes nothing', () => {
    const { host, net } = node(9);
    const remote = ok(
      host.api.HcnCreateEndpoint(net, null, {
        Name: 'remote',
        Flags: 1,
        IpConfigurations: [{ IpAddress: '10.244.2.7' }],
        MacAddress: '00-15-5D-99-99-99',
      }),
      'remote endpoint',
    ).ID;
    host.hcs.create(UVM, UVM_DOC);
    host.hcs.start(UVM);
    expectFailure(host, 'HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION', 0x803b000f, () =>
      host.hcs.modify(UVM, {
        ResourcePath: nicPath(NIC_ETH0),
        RequestType: 'Add',
        Settings: { EndpointId: remote },
      }),
    );
  });

  // Regression (fixed; was src/hcs/service.ts exit → detachPort): when a VM stops, the VM port of each of its NICs'
  // endpoints is removed without checking that the port is this VM's (`VmPort.VirtualMachineId`). A
  // Created VM whose document names an endpoint that a running VM holds takes the running VM's port
  // away when it is terminated (or closed): the running VM keeps its NIC but HNS no longer shows
  // the endpoint attached to it (reference §5: a VM's NICs — and only its own — vanish with it).
  it("stopping a VM never takes another VM's port", () => {
    const { host, net } = node(9);
    const ep = cniEndpoint(host, net, 'shared', '10.244.1.20');
    const withDocNic = structuredClone(UVM_DOC) as { VirtualMachine: { Devices: JsonObject } };
    withDocNic.VirtualMachine.Devices = { NetworkAdapters: { [NIC_ETH1]: { EndpointId: ep } } };
    host.hcs.create('never-started', withDocNic as unknown as JsonObject);
    host.hcs.create(UVM, UVM_DOC);
    host.hcs.start(UVM);
    host.hcs.modify(UVM, {
      ResourcePath: nicPath(NIC_ETH0),
      RequestType: 'Add',
      Settings: { EndpointId: ep },
    });
    host.hcs.terminate('never-started');
    expect(host.hcs.get(UVM).nics.map((n) => n.endpointId)).toEqual([ep]);
    expect(vmPortOf(host, ep)?.VirtualMachineId).toBe(host.hcs.get(UVM).runtimeId);
  });

  // Regression (fixed; was src/hcs/service.ts create/start): a VirtualMachine document may give two NICs the same
  // endpoint; Start validates each NIC's endpoint against the ports that exist *before* it commits,
  // so both pass, the first port is attached and the second attach throws
  // HCN_E_ENDPOINT_ALREADY_ATTACHED — Start fails half-done: the VM stays Created while the endpoint
  // keeps a port for it and the Rng has moved. Either Create refuses the document or Start fails
  // atomically.
  it('two NICs of a create document on one endpoint: refused, or Start fails changing nothing', () => {
    const { host, net } = node(9);
    const ep = cniEndpoint(host, net, 'twice', '10.244.1.21');
    const doc = structuredClone(UVM_DOC) as { VirtualMachine: { Devices: JsonObject } };
    doc.VirtualMachine.Devices = {
      NetworkAdapters: { [NIC_ETH0]: { EndpointId: ep }, [NIC_ETH1]: { EndpointId: ep } },
    };
    try {
      host.hcs.create(UVM, doc as unknown as JsonObject);
    } catch {
      return; // refused at Create: fine
    }
    expectFailure(host, 'HCN_E_ENDPOINT_ALREADY_ATTACHED', 0x803b0014, () => host.hcs.start(UVM));
    expect(vmPortOf(host, ep)).toBeUndefined();
  });
});

// ───────────────────────────── (c) dockershim-era docker ─────────────────────────────

describe('(c) dockershim-era: v1 ContainerConfig, NetworkSharedContainerName, HotAttach/HotDetach', () => {
  const PAUSE = 'd0cce7'.padEnd(64, '4');
  const W1 = 'd0cce8'.padEnd(64, '5');
  const W2 = 'd0cce9'.padEnd(64, '6');

  /** moby's v1 document for the pause container: the endpoints to attach at start. */
  function pauseDoc(endpoints: readonly string[]): JsonObject {
    return {
      SystemType: 'Container',
      Name: PAUSE,
      Owner: 'docker',
      IgnoreFlushesDuringBoot: true,
      LayerFolderPath: `C:\\ProgramData\\docker\\windowsfilter\\${PAUSE}`,
      Layers: [],
      HostName: 'pod-a',
      HvPartition: false,
      EndpointList: [...endpoints],
      AllowUnqualifiedDNSQuery: true,
      DNSSearchList: 'default.svc.cluster.local,svc.cluster.local',
    };
  }
  function workloadDoc(id: string): JsonObject {
    return {
      SystemType: 'Container',
      Name: id,
      Owner: 'docker',
      HvPartition: false,
      NetworkSharedContainerName: PAUSE,
    };
  }
  const hot = (RequestType: 'Add' | 'Remove', ep: string): JsonObject => ({
    ResourceType: 'Network',
    RequestType,
    Settings: ep,
  });

  /** What `HNSCall GET /endpoints/<id>` shows as SharedContainers (absent when none). */
  function sharedContainers(host: Host, ep: string): unknown {
    const r = ok(host.api.HNSCall('GET', `/endpoints/${ep}`, ''), 'HNSCall GET');
    expect(r.Success).toBe(true);
    return (r.Output as JsonObject).SharedContainers;
  }

  /** hcsshim HotAttachEndpoint: read SharedContainers first; skip the Modify when already listed. */
  function hotAttachEndpoint(host: Host, id: string, ep: string): boolean {
    const listed = (sharedContainers(host, ep) as string[] | undefined) ?? [];
    if (listed.some((c) => c.toLowerCase() === id.toLowerCase())) return false;
    host.hcs.modify(id, hot('Add', ep));
    return true;
  }

  function dockerPod() {
    const { host, net } = node(13);
    const notes = record(host);
    const ep = cniEndpoint(host, net, `${PAUSE}_cbr0`, '10.244.1.30');
    host.hcs.create(PAUSE, pauseDoc([ep]));
    expect(sharedContainers(host, ep)).toBeUndefined(); // attached at Start, not at Create
    host.hcs.start(PAUSE);
    for (const w of [W1, W2]) {
      host.hcs.create(w, workloadDoc(w));
      host.hcs.start(w);
    }
    return { host, net, ep, notes };
  }

  it('the pause container attaches its EndpointList at Start; workloads share its stack', () => {
    const { host, ep, notes } = dockerPod();
    expect(sharedContainers(host, ep)).toEqual([PAUSE]);
    for (const id of [PAUSE, W1, W2]) expect(attached(host, id), id).toEqual([ep]);
    expect(notes.map((n) => n[0])).toEqual([
      'SystemCreateCompleted',
      'SystemStartCompleted',
      'SystemCreateCompleted',
      'SystemStartCompleted',
      'SystemCreateCompleted',
      'SystemStartCompleted',
    ]);
    // vmcompute ContainerProperties carry the attached endpoints' counters (reference §3)
    const stats = host.hcs.properties(PAUSE, { PropertyTypes: ['Statistics'] }).Statistics as JsonObject;
    expect((stats.Network as JsonObject[]).map((n) => n.EndpointId)).toEqual([ep]);
    expect(host.hcs.properties(PAUSE)).toMatchObject({ SiloGuid: host.hcs.get(PAUSE).runtimeId });
  });

  it('HotAttach/HotDetach by the v1 network Modify, as HNSCall GET /endpoints/<id> shows it', () => {
    const { host, net, ep } = dockerPod();
    // CNI ADD for a workload (`container:<pause>`): the sandbox endpoint is hot-attached to it too
    expect(hotAttachEndpoint(host, W1, ep)).toBe(true);
    expect(sharedContainers(host, ep)).toEqual([PAUSE, W1]);
    expect(attached(host, W1)).toEqual([ep]);
    // a second endpoint hot-attached to the pause container: every container of the pod sees it
    const ep2 = cniEndpoint(host, net, `${PAUSE}_second`, '10.244.1.31');
    expect(hotAttachEndpoint(host, PAUSE, ep2)).toBe(true);
    expect(hotAttachEndpoint(host, PAUSE, ep2)).toBe(false); // hcsshim's client-side dedup: no Modify
    expect(sharedContainers(host, ep2)).toEqual([PAUSE]);
    for (const id of [PAUSE, W1, W2]) expect(attached(host, id), id).toEqual([ep, ep2]);
    // HotDetach
    host.hcs.modify(PAUSE, hot('Remove', ep2));
    expect(sharedContainers(host, ep2)).toBeUndefined();
    for (const id of [PAUSE, W1, W2]) expect(attached(host, id), id).toEqual([ep]);
    host.hcs.modify(W1, hot('Remove', ep.toLowerCase()));
    expect(sharedContainers(host, ep)).toEqual([PAUSE]);
  });

  it('errors: missing container, attaching twice, detaching an unattached endpoint, a stopped container', () => {
    const { host, net, ep } = dockerPod();
    // hot-attach to a container that is gone: 0x8037010E here (the flat vmcompute API spells it 0xC037010E)
    expectFailure(host, 'HCS_E_SYSTEM_NOT_FOUND', 0x8037010e, () => host.hcs.modify('gone', hot('Add', ep)));
    // attaching twice (hcsshim never sends it: it reads SharedContainers first): the HCN "already attached"
    expectFailure(host, 'HCN_E_ENDPOINT_ALREADY_ATTACHED', 0x803b0014, () =>
      host.hcs.modify(PAUSE, hot('Add', ep)),
    );
    // detaching an endpoint that is not attached (hcsshim's HotDetach would return nil without asking)
    const ep2 = cniEndpoint(host, net, 'other', '10.244.1.32');
    expectFailure(host, 'HCN_E_ENDPOINT_NOT_ATTACHED', 0x803b0034, () =>
      host.hcs.modify(PAUSE, hot('Remove', ep2)),
    );
    // an endpoint that does not exist; a Settings string that is not a GUID
    expectFailure(host, 'HCN_E_ENDPOINT_NOT_FOUND', 0x803b0002, () =>
      host.hcs.modify(PAUSE, hot('Add', '0C0FFEE0-0000-4000-8000-00000000DEAD')),
    );
    expectFailure(host, 'HCS_E_INVALID_JSON', 0x8037010d, () =>
      host.hcs.modify(PAUSE, hot('Add', 'not-a-guid')),
    );
    // the v1 network request is for containers: a VM takes NICs by ResourcePath
    host.hcs.create('vm', UVM_DOC);
    host.hcs.start('vm');
    expectFailure(host, 'ERROR_NOT_SUPPORTED', 0x80070032, () => host.hcs.modify('vm', hot('Add', ep2)));
    // a stopped container
    host.hcs.shutdown(W2);
    expectFailure(host, 'HCS_E_SYSTEM_ALREADY_STOPPED', 0x80370110, () =>
      host.hcs.modify(W2, hot('Add', ep2)),
    );
  });

  it('a workload whose shared container is missing or not running does not start', () => {
    const { host, net } = node(13);
    const ep = cniEndpoint(host, net, 'p', '10.244.1.33');
    host.hcs.create(W1, workloadDoc(W1));
    expectFailure(host, 'HCS_E_SYSTEM_NOT_FOUND', 0x8037010e, () => host.hcs.start(W1));
    host.hcs.create(PAUSE, pauseDoc([ep]));
    expectFailure(host, 'HCS_E_INVALID_STATE', 0x80370105, () => host.hcs.start(W1));
    host.hcs.start(PAUSE);
    host.hcs.start(W1);
    expect(attached(host, W1)).toEqual([ep]);
    // the pause container stops: the workload's shared stack is gone with it
    host.hcs.terminate(PAUSE);
    expect(attached(host, W1)).toEqual([]);
  });

  it('moby teardown: the HCS containers go first, HotDetach then meets SYSTEM_NOT_FOUND, the endpoint is deleted', () => {
    const { host, ep } = dockerPod();
    hotAttachEndpoint(host, W1, ep);
    for (const id of [W1, W2, PAUSE]) host.hcs.terminate(id);
    for (const id of [W1, W2, PAUSE]) host.hcs.close(id);
    // Leave → HotDetachEndpoint: NotExist, which moby ignores
    expectFailure(host, 'HCS_E_SYSTEM_NOT_FOUND', 0x8037010e, () =>
      host.hcs.modify(PAUSE, hot('Remove', ep)),
    );
    // closing a container takes it out of its endpoints' SharedContainers: its vNICs went with it
    // (detachOnClose, docs/model.md "HCS")
    expect(sharedContainers(host, ep)).toBeUndefined(); // the v1 view omits an empty list
    const del = ok(host.api.HNSCall('DELETE', `/endpoints/${ep}`, ''), 'HNSCall DELETE');
    expect(del.Success).toBe(true);
    expect(ok(host.api.HcnEnumerateEndpoints(), 'enum')).toEqual([]);
  });

  // Regression (fixed; was src/hcs/service.ts attachedEndpoints + exit/close): a container's v1 endpoints are read
  // back from the endpoints' SharedContainers by container ID, and neither exit nor close takes the
  // ID out of them. A new container that reuses a closed container's ID — here with no networking
  // at all — therefore "sees" the old container's endpoint. Per reference §4 a v1 container's
  // endpoints are its EndpointList (attached at start) plus what is hot-added *to it*; a new system
  // (runtimes never restart one, §1) starts with nothing.
  it("a new container reusing a closed container's ID does not inherit its v1 endpoints", () => {
    const { host, ep } = dockerPod();
    for (const id of [W1, W2, PAUSE]) host.hcs.terminate(id);
    for (const id of [W1, W2, PAUSE]) host.hcs.close(id);
    host.hcs.create(PAUSE, { SystemType: 'Container', Name: PAUSE, Owner: 'docker', HvPartition: false });
    host.hcs.start(PAUSE);
    expect(attached(host, PAUSE)).not.toContain(ep);
  });

  it('network mode "none" for the pause container: no EndpointList, then the CNI hot-attaches the endpoint', () => {
    // dockershim (kubernetes-windows.md §3): the pause container starts with `none`, CNI ADD then
    // HotAttachEndpoint; workloads join with `container:<pause>` (NetworkSharedContainerName)
    const { host, net } = node(14);
    host.hcs.create(PAUSE, pauseDoc([]));
    host.hcs.start(PAUSE);
    expect(attached(host, PAUSE)).toEqual([]);
    const ep = cniEndpoint(host, net, `${PAUSE}_cbr0`, '10.244.1.40');
    expect(hotAttachEndpoint(host, PAUSE, ep)).toBe(true);
    host.hcs.create(W1, workloadDoc(W1));
    host.hcs.start(W1);
    for (const id of [PAUSE, W1]) expect(attached(host, id), id).toEqual([ep]);
    expect(sharedContainers(host, ep)).toEqual([PAUSE]);
  });
});
