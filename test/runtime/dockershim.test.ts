/**
 * kubelet's dockershim on one node with a fake v1 CNI runner (test/runtime/kit.ts, the HNS v1 path
 * of win-bridge: netns `none` creates the endpoint and HotAttaches it, `container:<id>` HotAttaches
 * the pause container's endpoint, DEL with an empty netns does nothing): kubernetes-windows.md §3.4;
 * kubernetes `pkg/kubelet/dockershim/docker_sandbox.go`, `helpers_windows.go`,
 * `network/cni/cni.go`, `cni_windows.go`.
 */
import { describe, expect, it } from 'vitest';
import { CniError } from '../../src/cni/contracts.js';
import { DockershimRuntime } from '../../src/runtime/dockershim.js';
import type { ContainerConfig } from '../../src/runtime/contracts.js';
import { expectClean, fakeNetwork, leftovers, node, podConfig, recordSteps, rejection } from './kit.js';

function setup() {
  const host = node(11);
  const { cni, network } = fakeNetwork(host);
  cni.v1 = true;
  const rt = new DockershimRuntime(host, { network });
  const rec = recordSteps(host);
  return { host, cni, rt, rec };
}

const app: ContainerConfig = { metadata: { name: 'app' } };

function sharedContainers(host: ReturnType<typeof node>): string[] {
  return [...host.hns.store.endpoints.values()][0]?.SharedContainers.slice() ?? [];
}

describe('dockershim: a pod', () => {
  it('RunPodSandbox: the pause container (NetworkMode none, no endpoints), then CNI ADD with netns none', async () => {
    const { host, cni, rt, rec } = setup();
    const id = await rt.runPodSandbox(podConfig({ portMappings: [{ containerPort: 80, hostPort: 8080 }] }));
    expect(rec.steps).toEqual([
      'RunPodSandbox/docker.create',
      'RunPodSandbox/docker.start',
      'RunPodSandbox/cni.add',
      'RunPodSandbox/sandbox.ready',
    ]);
    expect(host.hcs.get(id).document).toMatchObject({
      SystemType: 'Container',
      Name: id,
      Owner: 'docker',
      HvPartition: false,
      EndpointList: [],
    });
    const add = cni.calls[0]!.rt;
    expect(add).toEqual({
      containerId: id,
      netns: 'none',
      ifName: 'eth0',
      args: [
        ['IgnoreUnknown', '1'],
        ['K8S_POD_NAMESPACE', 'default'],
        ['K8S_POD_NAME', 'web-0'],
        ['K8S_POD_INFRA_CONTAINER_ID', id],
      ],
      // cniPortMapping / cniIPRange / cniDNSConfig carry JSON tags (lower-case)
      capabilityArgs: {
        portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp', hostIP: '' }],
        ipRanges: [[{ subnet: '' }]],
        dns: {
          servers: ['10.96.0.10'],
          searches: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
          options: ['ndots:5'],
        },
      },
      cacheDir: '/var/lib/cni/cache',
      // where aks-engine starts kubelet: its plugins start there too (ACN #698)
      cwd: 'C:\\k',
    });
    // the v1 path hot-attached the endpoint to the pause container
    expect(leftovers(host).endpoints).toEqual([`${id}_cbr0`]);
    expect(sharedContainers(host)).toEqual([id]);
    expect(await rt.podSandboxStatus(id)).toMatchObject({ state: 'SANDBOX_READY', netns: 'none' });
  });

  it('workloads share the pause container stack; PodSandboxStatus runs ADD for each (container:<pause>) then for the pause', async () => {
    const { host, cni, rt } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    const c1 = await rt.createContainer(id, app, config);
    const c2 = await rt.createContainer(id, { metadata: { name: 'side' } }, config);
    await rt.startContainer(c1);
    await rt.startContainer(c2);
    expect(host.hcs.get(c1).document).toMatchObject({ NetworkSharedContainerName: id, EndpointList: [] });
    const ep = [...host.hns.store.endpoints.keys()][0]!;
    expect(host.hcs.attachedEndpoints(host.hcs.get(c1))).toEqual([ep]);
    cni.calls.length = 0;
    const status = await rt.podSandboxStatus(id);
    // newest workload first (docker ps), then the sandbox; the status ADDs carry no DNS capability
    expect(cni.summary()).toEqual([
      ['ADD', c2, `container:${id}`, 'eth0'],
      ['ADD', c1, `container:${id}`, 'eth0'],
      ['ADD', id, 'none', 'eth0'],
    ]);
    expect(cni.calls[0]!.rt.args).toContainEqual(['K8S_POD_INFRA_CONTAINER_ID', c2]);
    expect(cni.calls[0]!.rt.capabilityArgs).toEqual({ portMappings: [], ipRanges: [[{ subnet: '' }]] });
    expect(status.network).toEqual({ ip: '10.244.1.1', additionalIps: [] });
    // each workload got the endpoint hot-attached too; a second status attaches nothing new
    expect(sharedContainers(host)).toEqual([id, c2, c1]);
    await rt.podSandboxStatus(id);
    expect(sharedContainers(host)).toEqual([id, c2, c1]);
  });

  it('teardown as kubelet drives it: containers stopped, StopPodSandbox (DEL with none, docker stop), RemovePodSandbox', async () => {
    const { host, cni, rt, rec } = setup();
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    const c1 = await rt.createContainer(id, app, config);
    await rt.startContainer(c1);
    await rt.podSandboxStatus(id);
    await rt.stopContainer(c1, 30);
    expect(rt.containerStatus(c1)).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 0 });
    rec.steps.length = 0;
    await rt.stopPodSandbox(id);
    expect(rec.steps).toEqual(['StopPodSandbox/cni.del', 'StopPodSandbox/docker.stop']);
    expect(cni.summary().at(-1)).toEqual(['DEL', id, 'none', 'eth0']);
    expect(leftovers(host).endpoints).toEqual([]);
    expect(await rt.podSandboxStatus(id)).toMatchObject({ state: 'SANDBOX_NOTREADY', network: { ip: '' } });
    // torn down already: a second stop sends no DEL
    const n = cni.calls.length;
    await rt.stopPodSandbox(id);
    expect(cni.calls.length).toBe(n);
    await rt.removePodSandbox(id);
    expect(rt.listPodSandbox()).toEqual([]);
    expectClean(host);
  });

  it('the ADD fails: DEL and docker stop follow, errors are aggregated, and the network is then marked ready', async () => {
    const { host, cni, rt } = setup();
    cni.failAdd = new CniError(999, 'error while adding HNSEndpoint: boom');
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    const id = cni.calls[0]!.rt.containerId;
    expect(msg).toBe(
      `failed to set up sandbox container "${id}" network for pod "web-0": error while adding HNSEndpoint: boom`,
    );
    expect(cni.summary().map((c) => c[0])).toEqual(['ADD', 'DEL']);
    expect(rt.listPodSandbox()).toEqual([expect.objectContaining({ id, state: 'SANDBOX_NOTREADY' })]);
    expect(host.hcs.systems.size).toBe(0);
    // dockershim's deferred setNetworkReady sees the last `err` (docker stop's nil): "ready"; so the
    // next status ADDs again for the dead sandbox and the next stop DELs again
    cni.failAdd = undefined;
    cni.calls.length = 0;
    await rt.podSandboxStatus(id);
    expect(cni.summary()).toEqual([['ADD', id, 'none', 'eth0']]);
    await rt.stopPodSandbox(id);
    expect(cni.summary().at(-1)).toEqual(['DEL', id, 'none', 'eth0']);
  });

  it('both ADD and DEL fail: the two errors come back together', async () => {
    const { cni, rt } = setup();
    cni.failAdd = new CniError(999, 'add failed');
    cni.failDel = new CniError(999, 'del failed');
    const msg = await rejection(rt.runPodSandbox(podConfig()));
    const id = cni.calls[0]!.rt.containerId;
    expect(msg).toBe(
      `[failed to set up sandbox container "${id}" network for pod "web-0": add failed, failed to clean up sandbox container "${id}" network for pod "web-0": del failed]`,
    );
  });

  // the leak: the pause container is gone (docker rm -f) before StopPodSandbox; dockershim takes the
  // pod's name from the checkpoint and tears down with an empty netns, which the v1 DEL ignores
  it('LEAK: the sandbox container removed out of band, StopPodSandbox DELs with an empty netns and the endpoint stays', async () => {
    const { host, cni, rt } = setup();
    const id = await rt.runPodSandbox(podConfig());
    await rt.removeContainer(id); // docker rm -f <pause>
    await rt.stopPodSandbox(id);
    expect(cni.summary().at(-1)).toEqual(['DEL', id, '', 'eth0']);
    expect(cni.calls.at(-1)!.rt.args).toContainEqual(['K8S_POD_NAME', 'web-0']);
    await rt.removePodSandbox(id);
    expect(leftovers(host)).toEqual({ endpoints: [`${id}_cbr0`], namespaces: [], systems: [], files: [] });
  });

  it('errors: runtime handler, name conflict, a workload whose pause container is not running', async () => {
    const { rt } = setup();
    expect(await rejection(rt.runPodSandbox(podConfig(), 'runhcs'))).toBe(
      'RuntimeHandler "runhcs" not supported',
    );
    const config = podConfig();
    const id = await rt.runPodSandbox(config);
    expect(await rejection(rt.runPodSandbox(config))).toBe(
      `failed to create a sandbox for pod "web-0": Error response from daemon: Conflict. The container name "/k8s_POD_web-0_default_7c1c0c5e-1f6a-4b7e-9a53-2f0d3c1e9a10_0" is already in use by container "${id}". You have to remove (or rename) that container to be able to reuse that name.`,
    );
    const c = await rt.createContainer(id, app, config);
    await rt.stopPodSandbox(id);
    expect(await rejection(rt.startContainer(c))).toBe(
      `failed to start container "${c}": Error response from daemon: cannot join network of a non running container: ${id}`,
    );
    expect(await rejection(rt.podSandboxStatus('nope'))).toBe('Error: No such container: nope');
  });
});
