/**
 * CNI pitfalls that come from HNS itself (reference cni-windows.md §7: P10, P11, P13, P16): DSR
 * loopback and the HNS version, what an HNS restart or a reboot does to pods, host-port conflicts,
 * flanneld recreating its network — reproduced on a simulated node with the reference plugins, the
 * flanneld backends, the containerd runtime and the dataplane (`host.trace`).
 */
import { describe, expect, it } from 'vitest';
import { HcnClient } from '../../src/api/hcn/client.js';
import { HnsV1Client } from '../../src/api/hnsv1/client.js';
import { traceJson } from '../../src/dataplane/trace.js';
import type { Host } from '../../src/host/host.js';
import {
  FlanneldHostGw,
  FlanneldVxlan,
  flanneldHost,
  writeSubnetEnv,
} from '../../src/plugins/flanneld/index.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { DockershimRuntime } from '../../src/runtime/dockershim.js';
import {
  bareNode,
  cid,
  cniError,
  conflist,
  endpointNamed,
  endpointNames,
  flannelHostGwNode,
  ipOf,
  network,
  newNamespace,
  NIC,
  pod,
  podNamespaces,
  rejection,
  reservations,
  rtConf,
  runner,
  sandboxIdIn,
  v1BridgeNode,
  winBridgeDoc,
} from './cni-pitfall-kit.js';

/** The trace's steps as `[component, action, detail]`. */
interface TraceView {
  readonly disposition: string;
  readonly steps: [string, string, string | undefined][];
}
function trace(host: Host, from: string, to: string, destinationPort: number): TraceView {
  const t = traceJson(host.trace({ from, to, destinationPort })) as unknown as {
    disposition: string;
    observations: { component: string; action: string; detail?: string }[];
  };
  return { disposition: t.disposition, steps: t.observations.map((o) => [o.component, o.action, o.detail]) };
}

// ───────────────────────────── P9 ─────────────────────────────

describe('P9: OutBoundNAT/SDNRoute misconfiguration (containerd#5729, projectcalico/felix#2893, calico#8465; code §2.1)', () => {
  /** win-bridge v2 with the service CIDR of a deployment template (filled in, or not). */
  function templated(serviceCidr: string) {
    return {
      cniVersion: '0.3.1',
      name: 'cbr0',
      plugins: [
        {
          type: 'win-bridge',
          apiVersion: 2,
          ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
          policies: [
            {
              name: 'EndpointPolicy',
              value: { Type: 'OutBoundNAT', Settings: { Exceptions: [serviceCidr, '10.244.0.0/16'] } },
            },
            {
              name: 'EndpointPolicy',
              value: { Type: 'SDNROUTE', Settings: { DestinationPrefix: serviceCidr, NeedEncap: true } },
            },
          ],
        },
      ],
    };
  }

  it('reproduced: `<your service cidr>` left in — ADD succeeds with a Degraded endpoint, the pause container cannot join the namespace', async () => {
    const host = v1BridgeNode(901);
    const rt = new ContainerdRuntime(host, { networks: [network(host, templated('<your service cidr>'))] });
    const degraded: number[] = [];
    host.events.on('runtime.step', (e) => {
      if (e.step === 'cni.add' && e.ok) {
        const ep = [...host.hns.store.endpoints.values()][0]!;
        const q = host.api.HcnQueryEndpointProperties(ep.ID, { SchemaVersion: { Major: 2, Minor: 0 } });
        degraded.push(q.ok ? (q.result as unknown as { State: number }).State : -1);
      }
    });
    const err = await rejection(rt.runPodSandbox(pod()));
    const id = sandboxIdIn(err.message);
    // CNI ADD went through; the endpoint it left was Degraded (EndpointState 5)
    expect(degraded).toEqual([5]);
    // containerd#5729: "failed to create containerd task: hcsshim::CreateComputeSystem windows-server-iis:
    // The requested operation for attach namespace failed." (the shim modelled here prints `hcs::`)
    expect(err.message).toBe(
      `failed to start sandbox "${id}": failed to create containerd task: ` +
        `hcs::CreateComputeSystem ${id}: The requested operation for attach namespace failed.`,
    );
    // containerd's unwind ran DEL: nothing is left
    expect(endpointNames(host)).toEqual([]);
    expect(podNamespaces(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });

  it('reproduced: the sig-windows-tools containerd template not filled (`DestinationPrefix: ""`) — hcnCreateEndpoint refuses it (0x803b000d)', async () => {
    const host = v1BridgeNode(902);
    const list = conflist({
      cniVersion: '0.3.0',
      name: 'cbr0',
      plugins: [
        {
          type: 'sdnbridge',
          ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
          optionalFlags: { forceBridgeGateway: true },
          AdditionalArgs: [
            { Name: 'EndpointPolicy', Value: { Type: 'OutBoundNAT', Settings: { Exceptions: [] } } },
            {
              Name: 'EndpointPolicy',
              Value: { Type: 'SDNROUTE', Settings: { DestinationPrefix: '', NeedEncap: true } },
            },
          ],
        },
      ],
    });
    const err = await rejection(runner(host).addNetworkList(list, rtConf(cid(1), newNamespace(host))));
    // the text of calico#8465
    expect(err.message).toContain(
      'hcnCreateEndpoint failed in Win32: The provided policy configuration is invalid or missing parameters. (0x803b000d)',
    );
    expect(endpointNames(host)).toEqual([]);
    expect(reservations(host)).toEqual({});
  });

  it('fix: the template filled in (service CIDR 10.96.0.0/12) — the pod runs', async () => {
    const host = v1BridgeNode(903);
    const rt = new ContainerdRuntime(host, { networks: [network(host, templated('10.96.0.0/12'))] });
    const id = await rt.runPodSandbox(pod());
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('10.244.1.3');
    const q = host.api.HcnQueryEndpointProperties(endpointNamed(host, `${id}_cbr0`)!.ID, {
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(q.ok && (q.result as unknown as { State: number }).State).toBe(2);
  });

  it('since plugins v1.0.0 `ipMasqNetwork` not already listed appends a second OutBoundNAT (v0.8 merged it); listing it avoids that (vector W1)', async () => {
    const host = v1BridgeNode(904);
    const conf = (exceptions: string[]) =>
      conflist({
        cniVersion: '0.3.1',
        name: 'cbr0',
        plugins: [
          {
            type: 'win-bridge',
            ipMasqNetwork: '10.244.0.0/16',
            ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
            policies: [{ Name: 'EndpointPolicy', Value: { Type: 'OutBoundNAT', ExceptionList: exceptions } }],
          },
        ],
      });
    const [a, b] = [cid(1), cid(2)];
    for (const c of [a, b]) host.api.HcsCreateComputeSystem(c, { SystemType: 'Container', Owner: 'docker' });
    await runner(host).addNetworkList(conf(['10.96.0.0/12']), rtConf(a, 'none'));
    expect(endpointNamed(host, `${a}_cbr0`)!.Policies.map((p) => [p.type, p.settings])).toMatchObject([
      ['OutBoundNAT', { exceptions: ['10.96.0.0/12'] }],
      ['OutBoundNAT', { exceptions: ['10.244.0.0/16'] }],
    ]);
    await runner(host).addNetworkList(conf(['10.96.0.0/12', '10.244.0.0/16']), rtConf(b, 'none'));
    expect(endpointNamed(host, `${b}_cbr0`)!.Policies.map((p) => [p.type, p.settings])).toMatchObject([
      ['OutBoundNAT', { exceptions: ['10.96.0.0/12', '10.244.0.0/16'] }],
    ]);
  });
});

// ───────────────────────────── P10 ─────────────────────────────

describe('P10: DSR loopback (kubernetes PR#76406; sig-windows-tools#119; calico#5522/PR#5523; Azure/AKS#2608; ACN#2597)', () => {
  /** win-bridge v2 with host-local from .3 (the gateway .2 is the bridge's), OutBoundNAT as kube deployments set it. */
  function winBridge(loopbackDSR?: boolean) {
    return conflist({
      cniVersion: '0.3.1',
      name: 'cbr0',
      plugins: [
        {
          type: 'win-bridge',
          apiVersion: 2,
          ...(loopbackDSR === undefined ? {} : { loopbackDSR }),
          ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
          policies: [
            {
              name: 'EndpointPolicy',
              value: { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } },
            },
          ],
        },
      ],
    });
  }

  /** kube-proxy's DSR load balancer for a service 10.96.0.12:80 whose only backend is the pod (:8080). */
  function dsrService(host: Host, endpointId: string) {
    return host.api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [endpointId],
      FrontendVIPs: ['10.96.0.12'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
      Flags: 1,
      SchemaVersion: { Major: 2, Minor: 0 },
    });
  }

  it('reproduced: without loopbackDSR a pod reaching a DSR service that picks itself is dropped (Unsupported)', async () => {
    const host = v1BridgeNode(1001, { profile: 'ws2022' });
    const id = cid(1);
    await runner(host).addNetworkList(winBridge(), rtConf(id, newNamespace(host)));
    const ep = endpointNamed(host, `${id}_cbr0`)!;
    expect(dsrService(host, ep.ID).ok).toBe(true);
    const t = trace(host, ep.Name, '10.96.0.12', 80);
    expect(t.disposition).toBe('Unsupported');
    expect(t.steps).toContainEqual(['LB', 'DNAT', 'backend 1 of 1: 10.244.1.3:8080']);
    expect(t.steps.at(-1)).toEqual([
      'LB',
      'Unsupported',
      'a pod reaching itself through a DSR VIP needs loopback DSR (an OutBoundNAT policy with Destinations = its own IP)',
    ]);
  });

  it('fix: `loopbackDSR: true` on a DSR-capable HNS adds OutBoundNAT {Destinations:[podIP]}; the hairpin is SNATed and delivered', async () => {
    const host = v1BridgeNode(1002, { profile: 'ws2022' });
    const id = cid(1);
    await runner(host).addNetworkList(winBridge(true), rtConf(id, newNamespace(host)));
    const ep = endpointNamed(host, `${id}_cbr0`)!;
    // reference §2.3 ApplyLoopbackDSRPolicy (v2): appended after the user's policies
    expect(ep.Policies.map((p) => [p.type, p.settings])).toMatchObject([
      ['OutBoundNAT', { exceptions: ['10.244.0.0/16', '10.96.0.0/12'], destinations: [] }],
      ['OutBoundNAT', { exceptions: [], destinations: ['10.244.1.3'] }],
    ]);
    expect(dsrService(host, ep.ID).ok).toBe(true);
    const t = trace(host, ep.Name, '10.96.0.12', 80);
    expect(t.disposition).toBe('Delivered');
    expect(t.steps).toContainEqual(['NAT', 'SNAT', '10.244.1.3 is in Destinations']);
    expect(t.steps).toContainEqual(['vSwitch', 'Hairpin', 'back into the sending port']);
  });

  it('HNS without DSR (9.2, WS2019 before its DSR update): win-bridge skips loopbackDSR silently, sdnbridge refuses it, HNS refuses the DSR load balancer', async () => {
    // hcsshim's DSR gate: 9.3–9.x or ≥ 10.2 (reference §2.8)
    const host = v1BridgeNode(1003, { profile: '9.2' });
    const id = cid(1);
    await runner(host).addNetworkList(winBridge(true), rtConf(id, newNamespace(host)));
    const ep = endpointNamed(host, `${id}_cbr0`)!;
    expect(ep.Policies.map((p) => p.type)).toEqual(['OutBoundNAT']);
    const lb = dsrService(host, ep.ID);
    expect(lb).toMatchObject({ ok: false, name: 'E_INVALIDARG' });
    // WCN asks hcn.DSRSupported() and fails the ADD
    const err = await rejection(
      runner(host).addNetworkList(
        conflist({
          cniVersion: '0.4.0',
          name: 'cbr0',
          plugins: [
            {
              type: 'sdnbridge',
              ipam: { type: 'host-local', subnet: '10.244.1.0/24' },
              optionalFlags: { loopbackDSR: true },
            },
          ],
        }),
        rtConf(cid(2), newNamespace(host)),
      ),
    );
    expect(err.message).toBe(
      'plugin type="sdnbridge" failed (add): Platform does not support feature Direct Server Return (DSR)',
    );
    expect(cniError(err).code).toBe(999);
    expect(endpointNames(host)).toEqual([`${id}_cbr0`]);
  });
});

// ───────────────────────────── P11 ─────────────────────────────

describe('P11: HNS restart and node reboot (calico#5164, docker/for-win#12425, ACN#283, moby#47576, flannel#1391/#1423/#1112, sig-windows-tools#94)', () => {
  it('reproduced: an HNS restart drops the pod’s endpoint; the pod keeps its IP and its reservation but has no network', async () => {
    const host = v1BridgeNode(1101);
    const rt = new ContainerdRuntime(host, { networks: [network(host, winBridgeDoc(2))] });
    const id = await rt.runPodSandbox(pod());
    const epName = `${id}_cbr0`;
    expect(trace(host, epName, '8.8.8.8', 80).disposition).toBe('ExitsNetwork');
    host.restartHns();
    expect(endpointNames(host)).toEqual([]);
    // the network and the namespace survive (SERVICE_RESTART_DEFAULT), the runtime still reports the IP
    expect(podNamespaces(host)).toHaveLength(1);
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('10.244.1.3');
    expect(reservations(host)).toEqual({ '10.244.1.3': `${id}\r\neth0` });
    expect(() => host.trace({ from: epName, to: '8.8.8.8' })).toThrow(
      `Element not found. (trace source "${epName}" is not an endpoint, container, pod, node or address here)`,
    );
    // recovery is the pod's teardown and a new sandbox: DEL tolerates the missing endpoint
    await rt.stopPodSandbox(id);
    await rt.removePodSandbox(id);
    expect(reservations(host)).toEqual({});
    const again = await rt.runPodSandbox(pod());
    expect((await rt.podSandboxStatus(again)).network.ip).toBe('10.244.1.4');
  });

  it('reproduced: after a reboot the non-persistent flannel vxlan network (Flags 8) is gone and ADD fails; flanneld re-creating it is the fix', async () => {
    const host = bareNode(1102, { adapters: [{ ...NIC, ipAddress: '10.0.0.11/24', gateway: '10.0.0.1' }] });
    const lease = { subnet: '10.244.1.0/24', publicIp: '10.0.0.11' };
    const vx = await new FlanneldVxlan(flanneldHost(host)).setup(lease);
    writeSubnetEnv(host.files, {
      network: '10.244.0.0/16',
      subnet: '10.244.1.0/24',
      mtu: vx.mtu,
      ipMasq: true,
    });
    const list = conflist({
      cniVersion: '0.3.1',
      name: 'flannel.4096',
      plugins: [{ type: 'flannel', delegate: { type: 'win-overlay', apiVersion: 2 } }],
    });
    const before = await runner(host).addNetworkList(list, rtConf(cid(1), newNamespace(host)));
    expect(before?.ips?.[0]?.address).toBe('10.244.1.2/24');
    host.reboot();
    expect([...host.hns.store.networks.values()].map((n) => n.Name)).toEqual([]);
    const err = await rejection(runner(host).addNetworkList(list, rtConf(cid(2), newNamespace(host))));
    // win-overlay v2 looks the network up through v1 and HCN; the HCN error is the one kept
    expect(err.message).toBe(
      'plugin type="flannel" failed (add): error while hcn.GetNetworkByName(flannel.4096): Network name "flannel.4096" not found',
    );
    // the files on disk survived the reboot: host-local still holds the first pod's reservation
    expect(reservations(host, '/var/lib/cni/networks/flannel.4096')).toEqual({
      '10.244.1.2': `${cid(1)}\r\neth0`,
    });
    await new FlanneldVxlan(flanneldHost(host)).setup(lease);
    const after = await runner(host).addNetworkList(list, rtConf(cid(3), newNamespace(host)));
    // the failed ADD never reached IPAM (the network lookup comes first): round-robin goes on at .3
    expect(after?.ips?.[0]?.address).toBe('10.244.1.3/24');
  });

  it('reproduced: flanneld restarted — attaching cbr0_ep to the host again is refused (0x803b0014); flanneld counts it as attached (the fix of flannel#1391)', async () => {
    const host = bareNode(1103);
    const lease = { subnet: '10.244.1.0/24', publicIp: '192.168.1.11' };
    const first = await new FlanneldHostGw(flanneldHost(host)).setup(lease);
    const err = await rejection(HnsV1Client.forHost(host).hostAttach(first.endpointId, 1));
    // 0x803b0014 (HCN_E_ENDPOINT_ALREADY_ATTACHED), as the v1 answer's Error text hcsshim wraps
    expect(err.message).toBe('hns failed with error : This endpoint is already attached to the switch. ');
    const again = await new FlanneldHostGw(flanneldHost(host)).setup(lease);
    expect(again.endpointId).toBe(first.endpointId);
    expect(ipOf(host, 'cbr0_ep')).toBe('10.244.1.2');
  });
});

// ───────────────────────────── P13 ─────────────────────────────

describe('P13: a host-port conflict between port mappings (moby#41094)', () => {
  const CONF = {
    cniVersion: '0.3.1',
    name: 'cbr0',
    plugins: [
      {
        type: 'win-bridge',
        apiVersion: 2,
        capabilities: { portMappings: true },
        ipam: { type: 'host-local', subnet: '10.244.1.0/24', rangeStart: '10.244.1.3' },
      },
    ],
  };

  it('reproduced: two pods asking for host port 8080/TCP — the second endpoint is refused with HCN_E_PORT_ALREADY_EXISTS (0x803b0013)', async () => {
    const host = v1BridgeNode(1301);
    const rt = new ContainerdRuntime(host, { networks: [network(host, CONF)] });
    const web = (name: string) => pod(name, { portMappings: [{ containerPort: 80, hostPort: 8080 }] });
    const a = await rt.runPodSandbox(web('web-0'));
    expect(endpointNamed(host, `${a}_cbr0`)!.Policies.map((p) => [p.type, p.settings])).toMatchObject([
      ['PortMapping', { internalPort: 80, externalPort: 8080 }],
    ]);
    const err = await rejection(rt.runPodSandbox(web('web-1')));
    const b = sandboxIdIn(err.message);
    expect(err.message).toBe(
      `failed to setup network for sandbox "${b}": plugin type="win-bridge" failed (add): ` +
        'error while adding HostComputeEndpoint: failed to create the new HostComputeEndpoint: ' +
        'hcnCreateEndpoint failed in Win32: The specified port already exists. (0x803b0013) ' +
        '{"Success":false,"Error":"The specified port already exists. ","ErrorCode":2151350291}',
    );
    expect(cniError(err).code).toBe(999);
    // the second sandbox is unwound: no endpoint, reservation or namespace of it is left
    expect(endpointNames(host)).toEqual([`${a}_cbr0`]);
    expect(reservations(host)).toEqual({ '10.244.1.3': `${a}\r\neth0` });
    expect(podNamespaces(host)).toHaveLength(1);
  });

  it('reproduced on the v1 path (docker, dockershim): the NAT policy’s port is taken — `hns failed with error : The specified port already exists.`', async () => {
    const host = v1BridgeNode(1303);
    const list = conflist({ ...CONF, plugins: [{ ...CONF.plugins[0]!, apiVersion: undefined }] });
    const [a, b] = [cid(1), cid(2)];
    for (const c of [a, b]) host.api.HcsCreateComputeSystem(c, { SystemType: 'Container', Owner: 'docker' });
    const cap = { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] };
    await runner(host).addNetworkList(list, rtConf(a, 'none', { capabilityArgs: cap }));
    const err = await rejection(
      runner(host).addNetworkList(list, rtConf(b, 'none', { capabilityArgs: cap })),
    );
    expect(err.message).toBe(
      'plugin type="win-bridge" failed (add): error while adding HNSEndpoint: failed to create the new HNSEndpoint: ' +
        'hns failed with error : The specified port already exists. ',
    );
    expect(endpointNames(host)).toEqual([`${a}_cbr0`]);
  });

  it('fix: another host port, or the same port on another protocol', async () => {
    const host = v1BridgeNode(1302);
    const rt = new ContainerdRuntime(host, { networks: [network(host, CONF)] });
    await rt.runPodSandbox(pod('web-0', { portMappings: [{ containerPort: 80, hostPort: 8080 }] }));
    await rt.runPodSandbox(pod('web-1', { portMappings: [{ containerPort: 80, hostPort: 8081 }] }));
    await rt.runPodSandbox(
      pod('dns-0', { portMappings: [{ containerPort: 80, hostPort: 8080, protocol: 'UDP' }] }),
    );
    expect(endpointNames(host)).toHaveLength(3);
  });
});

// ───────────────────────────── P14 ─────────────────────────────

describe('P14: V1 endpoints are invisible to an HCN list-by-network (kubernetes#110591)', () => {
  it('reproduced: dockershim + win-bridge (v1) — kube-proxy’s hcn.ListEndpointsOfNetwork finds no local endpoint', async () => {
    const host = v1BridgeNode(1401);
    const net = network(host, winBridgeDoc(), { cacheDir: '/var/lib/cni/cache' });
    const rt = new DockershimRuntime(host, { network: net });
    const id = await rt.runPodSandbox(pod());
    const hcn = HcnClient.forHost(host);
    const cbr0 = await hcn.getNetworkByName('cbr0');
    // winkernel's getAllEndpointsByNetwork (hns.go): GetNetworkByName, then ListEndpointsOfNetwork
    expect(await hcn.listEndpointsOfNetwork(cbr0.ID)).toEqual([]);
    // the endpoint is there: the v1 listing (kube-proxy's hnsV1 path, the fix of PR#110592) sees it
    const v1 = await HnsV1Client.forHost(host).listEndpoints();
    expect(v1.filter((e) => e.VirtualNetwork === cbr0.ID).map((e) => e.Name)).toEqual([`${id}_cbr0`]);
  });

  it('fix: containerd + `apiVersion: 2` — the endpoint is an HCN endpoint and is listed', async () => {
    const host = v1BridgeNode(1402);
    const rt = new ContainerdRuntime(host, { networks: [network(host, winBridgeDoc(2))] });
    const id = await rt.runPodSandbox(pod());
    const hcn = HcnClient.forHost(host);
    const listed = await hcn.listEndpointsOfNetwork((await hcn.getNetworkByName('cbr0')).ID);
    expect(listed.map((e) => [e.Name, e.IpConfigurations[0]?.IpAddress])).toEqual([
      [`${id}_cbr0`, '10.244.1.3'],
    ]);
  });
});

// ───────────────────────────── P16 ─────────────────────────────

describe('P16: flanneld re-creates the network when the lease subnet changes (code §5.2/§5.3)', () => {
  async function flannelPod(seed: number) {
    const host = await flannelHostGwNode(seed);
    const lease = { subnet: '10.244.1.0/24', publicIp: '192.168.1.11' };
    const net = network(host, {
      cniVersion: '0.3.1',
      name: 'cbr0',
      plugins: [{ type: 'flannel', delegate: { type: 'win-bridge', apiVersion: 2 } }],
    });
    const rt = new ContainerdRuntime(host, { networks: [net] });
    // .2 is cbr0_ep's (P2): the first sandbox fails, the retry gets .3
    await rejection(rt.runPodSandbox(pod()));
    const id = await rt.runPodSandbox(pod());
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('10.244.1.3');
    return { host, rt, id, lease };
  }

  it('reproduced: a new lease (10.244.9.0/24) deletes cbr0 with the pod’s endpoint; the pod keeps reporting 10.244.1.3', async () => {
    const { host, rt, id } = await flannelPod(1601);
    const netBefore = [...host.hns.store.networks.values()][0]!.ID;
    await new FlanneldHostGw(flanneldHost(host)).setup({ subnet: '10.244.9.0/24', publicIp: '192.168.1.11' });
    const nets = [...host.hns.store.networks.values()];
    expect(nets.map((n) => n.Name)).toEqual(['cbr0']);
    expect(nets[0]!.ID).not.toBe(netBefore);
    expect(endpointNames(host)).toEqual(['cbr0_ep']);
    expect(ipOf(host, 'cbr0_ep')).toBe('10.244.9.2');
    expect((await rt.podSandboxStatus(id)).network.ip).toBe('10.244.1.3');
    // its reservation stays until the pod is torn down (flannel DELs with the saved old config)
    expect(reservations(host)).toEqual({ '10.244.1.3': `${id}\r\neth0` });
    await rt.stopPodSandbox(id);
    expect(reservations(host)).toEqual({});
  });

  it('fix: the same lease — flanneld reuses cbr0 and the pod keeps its endpoint', async () => {
    const { host, id, lease } = await flannelPod(1602);
    await new FlanneldHostGw(flanneldHost(host)).setup(lease);
    expect(endpointNames(host)).toEqual(['cbr0_ep', `${id}_cbr0`]);
  });
});
