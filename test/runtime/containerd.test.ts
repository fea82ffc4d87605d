/**
 * containerd + hcsshim on one node with a fake CNI runner (test/runtime/kit.ts): the pod lifecycle
 * of kubernetes-windows.md §3.1–§3.3 step by step, the CNI inputs containerd builds, the
 * idempotence of Stop/Remove, and every failure's unwinding as containerd's defers do it
 * (containerd 301026e5 `internal/cri/server/sandbox_run.go`, `sandbox_stop.go`,
 * `sandbox_remove.go`; hcsshim 7c9ff7f4 `internal/uvm/network.go`).
 */
import { describe, expect, it } from 'vitest';
import { CniError } from '../../src/cni/contracts.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import type { ContainerConfig } from '../../src/runtime/contracts.js';
import {
  expectClean,
  fakeNetwork,
  leftovers,
  node,
  podConfig,
  recordSteps,
  rejection,
  type FakeCni,
} from './kit.js';

function setup(seed = 5) {
  const host = node(seed);
  const { cni, network } = fakeNetwork(host);
  const rt = new ContainerdRuntime(host, { networks: [network] });
  const rec = recordSteps(host);
  return { host, cni, rt, rec };
}

const app: ContainerConfig = {
  metadata: { name: 'app' },
  image: 'mcr.microsoft.com/windows/nanoserver:ltsc2022',
};

function namespaceResources(host: ReturnType<typeof node>, ns: string): string[] {
  return (host.hns.store.namespaces.get(ns)?.Resources ?? []).map((r) => `${r.Type}:${r.ID}`);
}

function lastAdd(cni: FakeCni) {
  return cni.calls.filter((c) => c.op === 'ADD').at(-1)!.rt;
}

describe('containerd: a process-isolated pod', () => {
  it('RunPodSandbox: namespace, CNI ADD with the namespace GUID, pause container in the namespace', async () => {
    const { host, cni, rt, rec } = setup();
    const id = await rt.runPodSandbox(podConfig());
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(rec.steps).toEqual([
      'RunPodSandbox/name.reserve',
      'RunPodSandbox/namespace.create',
      'RunPodSandbox/cni.add',
      'RunPodSandbox/cni.result',
      'RunPodSandbox/pause.create',
      'RunPodSandbox/pause.start',
      'RunPodSandbox/sandbox.ready',
    ]);
    const status = await rt.podSandboxStatus(id);
    const ns = status.netns;
    expect(rec.events.map((e) => [e.runtime, e.pod, e.ok])).toEqual(
      rec.events.map(() => ['containerd', id, true]),
    );
    expect(rec.events.find((e) => e.step === 'namespace.create')!.detail).toBe(ns);
    expect(rec.events.find((e) => e.step === 'cni.result')!.detail).toBe('10.244.1.1');
    // netns_windows.go: an HCN namespace with no Type; its GUID is the netns "path"
    expect(host.hns.store.namespaces.get(ns)!.Type).toBeUndefined();
    const add = lastAdd(cni);
    expect(add).toMatchObject({ containerId: id, netns: ns, ifName: 'eth0' });
    // toCNILabels (order ours: Go's map order is random)
    expect(add.args).toEqual([
      ['K8S_POD_NAMESPACE', 'default'],
      ['K8S_POD_NAME', 'web-0'],
      ['K8S_POD_INFRA_CONTAINER_ID', id],
      ['K8S_POD_UID', '7c1c0c5e-1f6a-4b7e-9a53-2f0d3c1e9a10'],
      ['IgnoreUnknown', '1'],
    ]);
    // go-cni's DNS struct has no JSON tags: Go field names
    expect(add.capabilityArgs).toEqual({
      'io.kubernetes.cri.pod-annotations': null,
      dns: {
        Servers: ['10.96.0.10'],
        Searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
        Options: ['ndots:5'],
      },
    });
    // win-bridge names its interface after the endpoint and sets no IP index: the IP lands on eth0
    expect(status).toMatchObject({
      id,
      state: 'SANDBOX_READY',
      network: { ip: '10.244.1.1', additionalIps: [] },
      metadata: { name: 'web-0', namespace: 'default' },
    });
    // hcsdoc_wcow.go: Container.Networking.Namespace; the pause container joined the namespace at start
    expect(host.hcs.get(id).document).toMatchObject({
      Owner: 'containerd-shim-runhcs-v1.exe',
      Container: { Networking: { Namespace: ns } },
    });
    const ep = host.hns.store.endpoints.get([...host.hns.store.endpoints.keys()][0]!)!;
    expect(ep.Name).toBe(`${id}_cbr0`);
    expect(namespaceResources(host, ns)).toEqual([`Endpoint:${ep.ID}`, `Container:${id}`]);
    expect(host.hcs.attachedEndpoints(host.hcs.get(id))).toEqual([ep.ID]);
  });

  it('workload containers join the namespace at start and see the pod endpoint; ContainerStatus follows', async () => {
    const { host, rt } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    const c1 = await rt.createContainer(id, app, config);
    // CreateContainer makes no compute system
    expect(host.hcs.find(c1)).toBeUndefined();
    expect(rt.containerStatus(c1)).toMatchObject({ state: 'CONTAINER_CREATED', podSandboxId: id });
    await rt.startContainer(c1);
    const ns = (await rt.podSandboxStatus(id)).netns;
    expect(namespaceResources(host, ns).at(-1)).toBe(`Container:${c1}`);
    const ep = [...host.hns.store.endpoints.keys()][0]!;
    expect(host.hcs.attachedEndpoints(host.hcs.get(c1))).toEqual([ep]);
    expect(rt.containerStatus(c1)).toMatchObject({ state: 'CONTAINER_RUNNING' });
    // a second start is refused: containerd's setContainerStarting
    expect(await rejection(rt.startContainer(c1))).toBe(
      `failed to set starting state for container "${c1}": container is in CONTAINER_RUNNING state`,
    );
    // the same container name again in the pod: the name registrar
    expect(await rejection(rt.createContainer(id, app, config))).toBe(
      `failed to reserve container name "app_web-0_default_7c1c0c5e-1f6a-4b7e-9a53-2f0d3c1e9a10_0": name "app_web-0_default_7c1c0c5e-1f6a-4b7e-9a53-2f0d3c1e9a10_0" is reserved for "${c1}"`,
    );
    // StopContainer with a grace period: HCS Shutdown, exit code 0
    await rt.stopContainer(c1, 30);
    expect(rt.containerStatus(c1)).toMatchObject({
      state: 'CONTAINER_EXITED',
      exitCode: 0,
      reason: 'Completed',
    });
    expect(host.hcs.find(c1)).toBeUndefined();
    expect(namespaceResources(host, ns)).not.toContain(`Container:${c1}`);
    await rt.stopContainer(c1, 30); // not running: nothing to do
    await rt.removeContainer(c1);
    expect(await rejection(Promise.resolve().then(() => rt.containerStatus(c1)))).toBe(
      `an error occurred when try to find container "${c1}": not found`,
    );
    await rt.removeContainer(c1); // unknown: already removed
  });

  it('StopPodSandbox: containers killed, pause stopped, CNI DEL with the namespace, namespace deleted; twice is fine', async () => {
    const { host, cni, rt, rec } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    const ns = (await rt.podSandboxStatus(id)).netns;
    const c1 = await rt.createContainer(id, app, config);
    await rt.startContainer(c1);
    rec.steps.length = 0;
    await rt.stopPodSandbox(id);
    expect(rec.steps).toEqual([
      'StopPodSandbox/container.stop',
      'StopPodSandbox/pause.stop',
      'StopPodSandbox/cni.del',
      'StopPodSandbox/namespace.remove',
    ]);
    expect(cni.summary().at(-1)).toEqual(['DEL', id, ns, 'eth0']);
    expect(rt.containerStatus(c1)).toMatchObject({
      state: 'CONTAINER_EXITED',
      exitCode: 1067,
      reason: 'Error',
    });
    expect((await rt.podSandboxStatus(id)).state).toBe('SANDBOX_NOTREADY');
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('');
    expectClean(host);
    // again: the namespace is gone, so CNI DEL runs with an empty netns; removing it again is fine
    await rt.stopPodSandbox(id);
    expect(cni.summary().at(-1)).toEqual(['DEL', id, '', 'eth0']);
    await rt.removePodSandbox(id);
    expect(rt.listPodSandbox()).toEqual([]);
    expect(rt.listContainers()).toEqual([]);
    expect(await rejection(rt.podSandboxStatus(id))).toBe(
      'an error occurred when try to find sandbox: not found',
    );
    await rt.stopPodSandbox(id); // unknown: nothing to do
    await rt.removePodSandbox(id);
    // the name is free again
    await rt.runPodSandbox(config);
  });

  it('RemovePodSandbox without a Stop first stops everything itself', async () => {
    const { host, rt } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    await rt.startContainer(await rt.createContainer(id, app, config));
    await rt.removePodSandbox(id);
    expectClean(host);
    expect(rt.listContainers()).toEqual([]);
  });

  it('a HostProcess pod: no namespace, no CNI call, no compute system; no IP reported', async () => {
    const { host, cni, rt, rec } = setup();
    const config = podConfig({ hostProcess: true });
    const id = await rt.runPodSandbox(config);
    expect(rec.steps).toEqual([
      'RunPodSandbox/name.reserve',
      'RunPodSandbox/pause.start',
      'RunPodSandbox/sandbox.ready',
    ]);
    expect(cni.calls).toEqual([]);
    expect(await rt.podSandboxStatus(id)).toMatchObject({
      state: 'SANDBOX_READY',
      netns: '',
      network: { ip: '' },
    });
    // containers of a HostProcess pod must be HostProcess too (container_create.go)
    expect(await rejection(rt.createContainer(id, app, config))).toBe(
      'pod spec and all containers inside must have the HostProcess field set to be valid',
    );
    const c = await rt.createContainer(id, { ...app, hostProcess: true }, config);
    await rt.startContainer(c);
    expect(rt.containerStatus(c).state).toBe('CONTAINER_RUNNING');
    expect(host.hcs.systems.size).toBe(0);
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expect(cni.calls).toEqual([]);
    expectClean(host);
  });

  it('capabilities: portMappings with a host port, bandwidth from annotations (go-cni field names)', async () => {
    const { cni, rt } = setup();
    await rt.runPodSandbox(
      podConfig({
        dnsConfig: { servers: ['10.96.0.10'] },
        portMappings: [
          { protocol: 'UDP', containerPort: 1234, hostPort: 5678, hostIp: '123.124.125.126' },
          { containerPort: 4321, hostPort: 8765 },
          { protocol: 'TCP', containerPort: 80 },
        ],
        annotations: { 'kubernetes.io/ingress-bandwidth': '10M', 'kubernetes.io/egress-bandwidth': '1Mi' },
      }),
    );
    expect(lastAdd(cni).capabilityArgs).toEqual({
      'io.kubernetes.cri.pod-annotations': {
        'kubernetes.io/ingress-bandwidth': '10M',
        'kubernetes.io/egress-bandwidth': '1Mi',
      },
      portMappings: [
        { HostPort: 5678, ContainerPort: 1234, Protocol: 'udp', HostIP: '123.124.125.126' },
        { HostPort: 8765, ContainerPort: 4321, Protocol: 'tcp', HostIP: '' },
      ],
      bandwidth: {
        IngressRate: 10_000_000,
        IngressBurst: 4294967295,
        EgressRate: 1048576,
        EgressBurst: 4294967295,
      },
      // a CRI DNSConfig with empty lists: nil slices marshal as null
      dns: { Servers: ['10.96.0.10'], Searches: null, Options: null },
    });
  });

  it('an unreasonable bandwidth annotation fails the setup before any CNI call, and nothing is left', async () => {
    const { host, cni, rt } = setup();
    const msg = await rejection(
      rt.runPodSandbox(podConfig({ annotations: { 'kubernetes.io/ingress-bandwidth': '10' } })),
    );
    expect(msg).toMatch(
      /^failed to setup network for sandbox "[0-9a-f]{64}": get cni namespace options: reading pod bandwidth annotations: resource is unreasonably small \(< 1kbit\)$/,
    );
    expect(cni.calls).toEqual([]);
    expectClean(host);
  });

  it('an unknown runtime handler is refused before anything is made', async () => {
    const { host, cni, rt } = setup();
    expect(await rejection(rt.runPodSandbox(podConfig(), 'kata'))).toMatch(
      /^unable to get OCI runtime for sandbox "[0-9a-f]{64}": no runtime for "kata" is configured$/,
    );
    expect(cni.calls).toEqual([]);
    expectClean(host);
    await rt.runPodSandbox(podConfig()); // the name was released
  });

  it('same seed, same IDs; the sandbox name is reserved while the pod exists', async () => {
    const a = setup(9);
    const b = setup(9);
    const [ia, ib] = [await a.rt.runPodSandbox(podConfig()), await b.rt.runPodSandbox(podConfig())];
    expect(ia).toBe(ib);
    expect(await rejection(a.rt.runPodSandbox(podConfig()))).toMatch(
      new RegExp(
        `^failed to reserve sandbox name "web-0_default_7c1c0c5e-1f6a-4b7e-9a53-2f0d3c1e9a10_0": name "web-0_default_7c1c0c5e-1f6a-4b7e-9a53-2f0d3c1e9a10_0" is reserved for "${ia}"$`,
      ),
    );
  });
});

describe('containerd: its IDs are its own', () => {
  it('a runtime and its node on one seed draw different bits: no sandbox ID spells an HNS GUID', async () => {
    for (const seed of [1, 5, 7]) {
      const host = node(seed);
      const { network } = fakeNetwork(host);
      const rt = new ContainerdRuntime(host, { networks: [network], seed });
      const id = await rt.runPodSandbox(podConfig());
      const s = host.hns.store;
      const guids = [...s.networks.keys(), ...s.endpoints.keys(), ...s.namespaces.keys()].map((g) =>
        g.replace(/-/g, '').toLowerCase(),
      );
      // a shared stream made the first sandbox ID start with the digits of the host's first GUID
      for (const g of guids) expect(id.slice(0, 12)).not.toBe(g.slice(0, 12));
    }
  });
});

describe('containerd: failures unwind as the defers do', () => {
  it('CNI ADD fails: the deferred teardown runs CNI DEL, then the namespace goes; the name is released', async () => {
    const { host, cni, rt, rec } = setup();
    cni.failAdd = new CniError(999, 'error while adding HNSEndpoint: boom');
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    const id = cni.calls[0]!.rt.containerId;
    expect(msg).toBe(`failed to setup network for sandbox "${id}": error while adding HNSEndpoint: boom`);
    expect(rec.steps).toEqual([
      'RunPodSandbox/name.reserve',
      'RunPodSandbox/namespace.create',
      'RunPodSandbox/cni.add!',
      'RunPodSandbox/cni.del',
      'RunPodSandbox/namespace.remove',
    ]);
    expect(cni.summary().map((c) => c[0])).toEqual(['ADD', 'DEL']);
    expect(cni.calls[1]!.rt.netns).toBe(cni.calls[0]!.rt.netns);
    expectClean(host);
    expect(rt.listPodSandbox()).toEqual([]);
    cni.failAdd = undefined;
    await rt.runPodSandbox(podConfig());
  });

  it('a DEL failure during that unwind is ignored (setup never completed): the namespace still goes', async () => {
    const { host, cni, rt } = setup();
    cni.failAdd = new CniError(999, 'add failed');
    cni.failDel = new CniError(999, 'del failed too');
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    expect(msg).toMatch(/: add failed$/);
    expect(leftovers(host).namespaces).toEqual([]);
    expect(rt.listPodSandbox()).toEqual([]);
  });

  it('a result with no IP on eth0: "failed to find network info", then DEL (its error ignored) and the namespace', async () => {
    const { host, cni, rt, rec } = setup();
    // an IP bound by index to an interface that is not eth0 (go-cni attaches it there)
    cni.result = (r) => ({ ...r, ips: [{ ...r.ips![0]!, interface: 0 }] });
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    const id = cni.calls[0]!.rt.containerId;
    expect(msg).toBe(
      `failed to setup network for sandbox "${id}": failed to find network info for sandbox "${id}"`,
    );
    expect(rec.steps.slice(3)).toEqual([
      'RunPodSandbox/cni.result!',
      'RunPodSandbox/cni.del',
      'RunPodSandbox/namespace.remove',
    ]);
    expectClean(host);
  });

  it('the pause container does not start: the task is deleted, then DEL and the namespace', async () => {
    const { host, cni, rt, rec } = setup();
    host.faults.fail({ method: 'HcsStartComputeSystem' }, 'HCS_E_TERMINATED_DURING_START', { times: 1 });
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    const id = cni.calls[0]!.rt.containerId;
    expect(msg).toMatch(
      new RegExp(
        `^failed to start sandbox "${id}": failed to start sandbox container task "${id}": hcs::System::Start ${id}: `,
      ),
    );
    expect(rec.steps.slice(4)).toEqual([
      'RunPodSandbox/pause.create',
      'RunPodSandbox/pause.start!',
      'RunPodSandbox/cni.del',
      'RunPodSandbox/namespace.remove',
    ]);
    expectClean(host);
  });

  it('the pause container cannot be created: DEL and the namespace', async () => {
    const { host, cni, rt } = setup();
    host.faults.fail({ method: 'HcsCreateComputeSystem' }, 'HCS_E_INVALID_JSON', { times: 1 });
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    expect(msg).toMatch(
      /^failed to start sandbox "[0-9a-f]{64}": failed to create containerd task: hcs::CreateComputeSystem /,
    );
    expect(cni.summary().map((c) => c[0])).toEqual(['ADD', 'DEL']);
    expectClean(host);
  });

  it('the namespace cannot be created: no CNI call at all', async () => {
    const { host, cni, rt } = setup();
    host.faults.fail({ method: 'HcnCreateNamespace' }, 'E_ACCESSDENIED', { times: 1 });
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    expect(msg).toMatch(
      /^failed to create network namespace for sandbox "[0-9a-f]{64}": hcnCreateNamespace failed in Win32: /,
    );
    expect(cni.calls).toEqual([]);
    expectClean(host);
  });

  it('a failed teardown after a completed setup stops the unwind: the namespace stays and the sandbox is kept UNKNOWN', async () => {
    const { host, cni, rt } = setup();
    host.faults.fail({ method: 'HcsStartComputeSystem' }, 'HCS_E_TERMINATED_DURING_START', { times: 1 });
    cni.failDel = new CniError(999, 'hns is down');
    await rejection(rt.runPodSandbox(podConfig()));
    const id = cni.calls[0]!.rt.containerId;
    // cleanupErr: the namespace defer does not run, the sandbox goes to the store, its name stays reserved
    expect(leftovers(host).namespaces).toHaveLength(1);
    expect(leftovers(host).endpoints).toEqual([`${id}_cbr0`]);
    expect(rt.listPodSandbox()).toEqual([expect.objectContaining({ id, state: 'SANDBOX_NOTREADY' })]);
    expect(await rejection(rt.runPodSandbox(podConfig()))).toMatch(/^failed to reserve sandbox name /);
    // kubelet's StopPodSandbox then finishes the job; while DEL fails it reports it (setup completed)
    expect(await rejection(rt.stopPodSandbox(id))).toBe(
      `failed to destroy network for sandbox "${id}": hns is down`,
    );
    cni.failDel = undefined;
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expectClean(host);
  });

  it('StopPodSandbox: a DEL failure after a completed setup is an error and keeps the namespace; a retry finishes', async () => {
    const { host, cni, rt } = setup();
    const id = await rt.runPodSandbox(podConfig());
    cni.failDel = new CniError(11, 'try again later');
    expect(await rejection(rt.stopPodSandbox(id))).toBe(
      `failed to destroy network for sandbox "${id}": try again later`,
    );
    expect(leftovers(host).namespaces).toHaveLength(1);
    // RemovePodSandbox refuses too (it stops first)
    expect(await rejection(rt.removePodSandbox(id))).toBe(
      `failed to forcibly stop sandbox "${id}": failed to destroy network for sandbox "${id}": try again later`,
    );
    cni.failDel = undefined;
    await rt.removePodSandbox(id);
    expectClean(host);
  });

  // hcsshim's createNamespace is hcnCreateNamespace then hcnQueryNamespaceProperties: when the
  // query fails, NewNetNS returns the error and nobody holds the new namespace's ID
  it('LEAK: the query right after the namespace is created fails: the namespace is orphaned', async () => {
    const { host, cni, rt } = setup();
    host.faults.fail({ method: 'HcnQueryNamespaceProperties' }, 'RPC_S_SERVER_UNAVAILABLE', { times: 1 });
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    expect(msg).toMatch(
      /^failed to create network namespace for sandbox "[0-9a-f]{64}": hcnQueryNamespaceProperties failed in Win32: The RPC server is unavailable\. \(0x6ba\)/,
    );
    expect(cni.calls).toEqual([]);
    expect(rt.listPodSandbox()).toEqual([]);
    expect(leftovers(host)).toMatchObject({ namespaces: [expect.any(String)], endpoints: [], systems: [] });
  });

  it('LEAK: a DEL error that says "not found" is skipped by go-cni', async () => {
    const { host, cni, rt } = setup();
    const id = await rt.runPodSandbox(podConfig());
    cni.failDel = new CniError(999, 'Endpoint web not found');
    await rt.stopPodSandbox(id);
    // the namespace is deleted; the endpoint the plugin never removed is left behind
    expect(leftovers(host)).toMatchObject({ namespaces: [], endpoints: [`${id}_cbr0`] });
  });

  it('a workload that does not start is EXITED with 128/StartError and its task is deleted', async () => {
    const { host, rt } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    const c = await rt.createContainer(id, app, config);
    host.faults.fail({ method: 'HcsStartComputeSystem', id: c }, 'HCS_E_TERMINATED_DURING_START', {
      times: 1,
    });
    const msg = await rejection(rt.startContainer(c));
    expect(msg).toMatch(new RegExp(`^failed to start containerd task "${c}": hcs::System::Start ${c}: `));
    expect(rt.containerStatus(c)).toMatchObject({
      state: 'CONTAINER_EXITED',
      exitCode: 128,
      reason: 'StartError',
      message: msg,
    });
    expect(host.hcs.find(c)).toBeUndefined();
    expect(await rejection(rt.createContainer('nope', app, config))).toBe(
      'failed to find sandbox id "nope": not found',
    );
    await rt.stopPodSandbox(id);
    expect(await rejection(rt.createContainer(id, { metadata: { name: 'late' } }, config))).toBe(
      `sandbox container "${id}" is not running`,
    );
  });
});

describe('containerd: the sandbox dies, the namespace is deleted out of band', () => {
  // containerd integration/sandbox_clean_remove_windows_test.go: kill the pause, `hnsdiag delete
  // namespaces`; the sandbox is NOTREADY, its IP still allocated until StopPodSandbox runs CNI DEL
  it('NOTREADY at once; CNI DEL then runs with an empty netns and frees what the plugin holds', async () => {
    const { host, cni, rt } = setup();
    const id = await rt.runPodSandbox(podConfig());
    const ns = (await rt.podSandboxStatus(id)).netns;
    host.hcs.injectExit(id);
    expect((await rt.podSandboxStatus(id)).state).toBe('SANDBOX_NOTREADY');
    await rt.settle();
    expect(host.hcs.find(id)).toBeUndefined(); // the shim closed it
    expect(host.api.HcnDeleteNamespace(ns).ok).toBe(true);
    expect(await rt.podSandboxStatus(id)).toMatchObject({ network: { ip: '' } });
    expect(leftovers(host).endpoints).toEqual([`${id}_cbr0`]);
    await rt.stopPodSandbox(id);
    expect(cni.summary().at(-1)).toEqual(['DEL', id, '', 'eth0']);
    await rt.removePodSandbox(id);
    expectClean(host);
  });

  // the leak: a plugin whose DEL does nothing without a netns (win-bridge's v1 path, reference §2.4)
  it('LEAK: with a plugin that ignores a DEL without netns, the endpoint outlives the pod', async () => {
    const { host, cni, rt } = setup();
    const id = await rt.runPodSandbox(podConfig());
    const ns = (await rt.podSandboxStatus(id)).netns;
    host.api.HcnDeleteNamespace(ns);
    const del = cni.delNetworkList.bind(cni);
    cni.delNetworkList = async (list, r) =>
      r.netns === '' ? void cni.calls.push({ op: 'DEL', rt: r }) : del(list, r);
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expect(rt.listPodSandbox()).toEqual([]);
    expect(leftovers(host)).toEqual({ endpoints: [`${id}_cbr0`], namespaces: [], systems: [], files: [] });
  });

  it('vmcompute restarts (ServiceDisconnect): every pod is NOTREADY; StopPodSandbox and RemovePodSandbox still clean up', async () => {
    const { host, rt } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    const c = await rt.createContainer(id, app, config);
    await rt.startContainer(c);
    host.restartHcs();
    await rt.settle();
    expect((await rt.podSandboxStatus(id)).state).toBe('SANDBOX_NOTREADY');
    expect(rt.containerStatus(c).state).toBe('CONTAINER_EXITED');
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expectClean(host);
  });

  it('a workload that dies on its own is EXITED with the kill exit code and closed', async () => {
    const { host, rt } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    const c = await rt.createContainer(id, app, config);
    await rt.startContainer(c);
    host.hcs.injectExit(c);
    expect(rt.containerStatus(c)).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 1067 });
    await rt.settle();
    expect(host.hcs.find(c)).toBeUndefined();
    expect((await rt.podSandboxStatus(id)).state).toBe('SANDBOX_READY');
  });
});

describe('containerd: several networks (go-cni eth0, eth1)', () => {
  it('each network gets its ifname; IPs without an index all land on eth0 (pod IP + additional)', async () => {
    const host = node(5);
    const a = fakeNetwork(host, 'cbr0');
    const b = fakeNetwork(host, 'second');
    const rt = new ContainerdRuntime(host, { networks: [a.network, b.network] });
    const id = await rt.runPodSandbox(podConfig());
    expect(a.cni.summary()[0]!.slice(3)).toEqual(['eth0']);
    expect(b.cni.summary()[0]!.slice(3)).toEqual(['eth1']);
    expect((await rt.podSandboxStatus(id)).network).toEqual({
      ip: '10.244.1.1',
      additionalIps: ['10.244.1.3'],
    });
    await rt.stopPodSandbox(id);
    expect(b.cni.summary().at(-1)).toEqual(['DEL', id, expect.any(String), 'eth1']);
    expectClean(host);
  });

  it('one network failing: the others were still attached (go-cni attaches all), and the teardown removes all', async () => {
    const host = node(5);
    const a = fakeNetwork(host, 'cbr0');
    const b = fakeNetwork(host, 'second');
    b.cni.failAdd = new CniError(7, 'invalid network config');
    const rt = new ContainerdRuntime(host, { networks: [a.network, b.network] });
    expect(await rejection(rt.runPodSandbox(podConfig()))).toMatch(/: invalid network config$/);
    expect(a.cni.summary().map((c) => c[0])).toEqual(['ADD', 'DEL']);
    expect(b.cni.summary().map((c) => c[0])).toEqual(['ADD', 'DEL']);
    expectClean(host);
  });

  it('no network at all: go-cni is not initialized', async () => {
    const host = node(5);
    const rt = new ContainerdRuntime(host);
    expect(await rejection(rt.runPodSandbox(podConfig()))).toMatch(
      /^failed to setup network for sandbox "[0-9a-f]{64}": cni plugin not initialized$/,
    );
    expectClean(host);
  });
});
