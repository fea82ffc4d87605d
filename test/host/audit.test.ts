/**
 * `host.audit()`: each kind of leak is produced by the real flow that leaks it (the pitfalls of
 * cni-windows.md §7) and goes when the leak is cleaned up; a live pod and a torn-down one are clean.
 */
import { describe, expect, it } from 'vitest';
import { auditStore } from '../../src/hns/audit.js';
import { createHost, type Host } from '../../src/host/host.js';
import { execPlugin } from '../../src/plugins/index.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { cniNetwork } from '../../src/runtime/network.js';
import { KIT_CONFLIST } from '../../src/testing/commands.js';
import { ok } from '../api/hcs-helpers.js';
import { addL2Bridge } from '../runtime/kit.js';

function node(): { host: Host; networkId: string } {
  const host = createHost({ seed: 3 });
  return { host, networkId: addL2Bridge(host, '10.244.1.1') };
}

const kinds = (h: Host) => h.audit().map((f) => f.kind);

/** win-bridge (`apiVersion: 2`) + host-local from .3 on `cbr0`: the kit's conflist. */
const CONFLIST = JSON.stringify(KIT_CONFLIST);

describe('host.audit()', () => {
  it('a fresh node, a live pod and a torn-down pod are clean', async () => {
    const { host } = node();
    expect(host.audit()).toEqual([]);
    const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, CONFLIST)] });
    const pod = await rt.runPodSandbox({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } });
    expect(host.audit()).toEqual([]);
    await rt.stopPodSandbox(pod);
    await rt.removePodSandbox(pod);
    expect(host.audit()).toEqual([]);
  });

  it('an endpoint nobody uses, until a namespace with a container holds it', () => {
    const { host, networkId } = node();
    const ep = ok(
      host.api.HcnCreateEndpoint(networkId, null, { Name: 'lost', SchemaVersion: { Major: 2, Minor: 0 } }),
    );
    expect(host.audit()).toEqual([
      {
        kind: 'endpoint-unused',
        object: ep.ID,
        detail: 'endpoint lost is in no namespace, attached to no container or VM and named by nothing',
      },
    ]);
    const ns = ok(host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } }));
    ok(
      host.api.HcnModifyNamespace(ns.ID, {
        ResourceType: 'Endpoint',
        RequestType: 'Add',
        Settings: { EndpointId: ep.ID },
      }),
    );
    // now the namespace holds it, but no container joined the namespace (pitfall P4's shape)
    expect(host.audit().map((f) => [f.kind, f.detail])).toEqual([
      ['namespace-without-container', expect.stringMatching(/has no container and holds 1 endpoint$/)],
    ]);
    ok(
      host.api.HcsCreateComputeSystem('pause', {
        SchemaVersion: { Major: 2, Minor: 1 },
        Container: { Networking: { Namespace: ns.ID } },
      }),
    );
    ok(host.api.HcsStartComputeSystem('pause', ''));
    expect(host.audit()).toEqual([]);
  });

  it('a remote endpoint no load balancer names', () => {
    const { host, networkId } = node();
    const remote = ok(
      host.api.HcnCreateEndpoint(networkId, null, {
        Name: 'remote',
        Flags: 1,
        IpConfigurations: [{ IpAddress: '10.244.2.5' }],
        SchemaVersion: { Major: 2, Minor: 0 },
      }),
    );
    expect(kinds(host)).toEqual(['remote-endpoint-unreferenced']);
    ok(
      host.api.HcnCreateLoadBalancer(null, {
        HostComputeEndpoints: [remote.ID],
        FrontendVIPs: ['10.96.0.20'],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
        SchemaVersion: { Major: 2, Minor: 0 },
      }),
    );
    expect(host.audit()).toEqual([]);
  });

  it('a host-local reservation with no endpoint (pitfall P3: IPAM ran, the endpoint never came), until DEL', async () => {
    const { host } = node();
    const env = { CNI_CONTAINERID: 'c1', CNI_NETNS: 'x', CNI_IFNAME: 'eth0', CNI_PATH: 'C:\\cni' };
    const ipam = { type: 'host-local', subnet: '10.244.1.0/24' };
    // host-local invoked directly: the network config with its ipam section flattened in
    const stdin = JSON.stringify({ cniVersion: '1.0.0', name: 'cbr0', ipam, ...ipam });
    const add = await execPlugin(host, 'host-local', { env: { ...env, CNI_COMMAND: 'ADD' }, stdin });
    expect(add.exitCode, add.stdout).toBe(0);
    expect(host.audit()).toEqual([
      {
        kind: 'ip-reservation-orphaned',
        object: '/var/lib/cni/networks/cbr0/10.244.1.2',
        detail: 'host-local reserved 10.244.1.2 for c1 on cbr0, and no endpoint has it',
      },
    ]);
    const del = await execPlugin(host, 'host-local', { env: { ...env, CNI_COMMAND: 'DEL' }, stdin });
    expect(del.exitCode).toBe(0);
    expect(host.audit()).toEqual([]);
  });

  it('a libcni cache entry whose namespace was deleted out of band (pitfall P5), beside the endpoint it strands', async () => {
    const { host } = node();
    const net = cniNetwork(host, CONFLIST);
    const ns = ok(host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } }));
    await net.runner.addNetworkList(net.list, { containerId: 'c2', netns: ns.ID, ifName: 'eth0' });
    ok(host.api.HcnDeleteNamespace(ns.ID));
    const found = host.audit();
    expect(found.map((f) => f.kind)).toEqual(['endpoint-unused', 'cni-cache-stale']);
    expect(found[1]).toEqual({
      kind: 'cni-cache-stale',
      object: '/var/lib/cni/results/cbr0-c2-eth0',
      detail: `cached attachment of c2 names namespace ${ns.ID}, which is gone`,
    });
    // CNI DEL with the namespace gone (containerd sends an empty netns) cleans both up
    await net.runner.delNetworkList(net.list, { containerId: 'c2', netns: '', ifName: 'eth0' });
    expect(host.audit()).toEqual([]);
  });

  it('flannel’s saved delegate for a sandbox that is gone (pitfall P15: ADD failed after saving it)', async () => {
    const { host } = node();
    host.files.write(
      '/run/flannel/subnet.env',
      'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.9.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n',
    );
    const out = await execPlugin(host, 'flannel', {
      env: {
        CNI_COMMAND: 'ADD',
        CNI_CONTAINERID: 'sb1',
        CNI_NETNS: 'none',
        CNI_IFNAME: 'eth0',
        CNI_PATH: 'C:\\cni',
      },
      // the delegate's network (cbr9) does not exist: win-bridge fails after flannel saved its config
      stdin: JSON.stringify({
        cniVersion: '0.3.1',
        name: 'cbr9',
        type: 'flannel',
        delegate: { type: 'win-bridge' },
      }),
    });
    expect(out.exitCode).toBe(1);
    expect(host.audit()).toEqual([
      {
        kind: 'flannel-config-stale',
        object: '/var/lib/cni/flannel/sb1',
        detail: "flannel's saved delegate for sandbox sb1, which no compute system is",
      },
    ]);
  });

  // Was: HNS refused the delete, so only a broken store had such a load balancer, reported as
  // store-inconsistent. Windows deletes the endpoint and keeps what names it (kubernetes#112836):
  // a leak of its own kind, produced here by the real flow — a pod's CNI DEL while kube-proxy's
  // load balancer (and a route, and a v1 list) still name the pod's endpoint.
  it('a load balancer, route or policy list naming a deleted endpoint is endpoint-reference-stale', async () => {
    const { host, networkId } = node();
    const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, CONFLIST)] });
    const pod = await rt.runPodSandbox({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } });
    const ep = [...host.hns.store.endpoints.values()].find((e) => e.Name === `${pod}_cbr0`)!;
    const V2 = { Major: 2, Minor: 0 };
    const lb = ok(
      host.api.HcnCreateLoadBalancer(null, {
        HostComputeEndpoints: [ep.ID],
        FrontendVIPs: ['10.96.0.30'],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
        HostComputeNetwork: networkId,
        SchemaVersion: V2,
      }),
    );
    const route = ok(
      host.api.HcnCreateSdnRoute(null, {
        HostComputeEndpoints: [ep.ID],
        Setting: [{ DestinationPrefix: '10.96.0.0/12', NeedEncap: true }],
        SchemaVersion: V2,
      }),
    );
    const list = ok(
      host.api.HNSCall(
        'POST',
        '/policylists/',
        JSON.stringify({
          References: [`/endpoints/${ep.ID}`],
          Policies: [{ Type: 'ROUTE', DestinationPrefix: '10.0.0.0/8' }],
        }),
      ),
    ) as { Output: { ID: string } };
    expect(host.audit()).toEqual([]);
    await rt.stopPodSandbox(pod); // win-bridge's DEL deletes the endpoint: it succeeds
    await rt.removePodSandbox(pod);
    expect(host.hns.store.endpoints.has(ep.ID)).toBe(false);
    expect(host.audit()).toEqual(
      [
        {
          kind: 'endpoint-reference-stale',
          object: lb.ID,
          detail: `load balancer ${lb.ID} names endpoint ${ep.ID}, deleted since`,
        },
        {
          kind: 'endpoint-reference-stale',
          object: route.ID,
          detail: `SDN route ${route.ID} names endpoint ${ep.ID}, deleted since`,
        },
        {
          kind: 'endpoint-reference-stale',
          object: list.Output.ID,
          detail: `policy list ${list.Output.ID} names endpoint ${ep.ID}, deleted since`,
        },
      ].sort((a, b) => (a.object < b.object ? -1 : 1)),
    );
    // the network goes too: the load balancer names it as well
    ok(host.api.HcnDeleteNetwork(networkId));
    expect(host.audit().find((f) => f.object === lb.ID)?.detail).toBe(
      `load balancer ${lb.ID} names endpoint ${ep.ID} and network ${networkId}, deleted since`,
    );
    // deleting them cleans up (what kube-proxy's next sync does)
    ok(host.api.HcnDeleteLoadBalancer(lb.ID));
    ok(host.api.HcnDeleteSdnRoute(route.ID));
    ok(host.api.HNSCall('DELETE', `/policylists/${list.Output.ID}`, ''));
    expect(host.audit()).toEqual([]);
  });

  it('an inconsistent store is reported with the store audit’s own lines', () => {
    const { host, networkId } = node();
    const ep = ok(
      host.api.HcnCreateEndpoint(networkId, null, { Name: 'x', SchemaVersion: { Major: 2, Minor: 0 } }),
    );
    // break an invariant behind the service's back: the network's allocation forgets the endpoint
    host.hns.store.alloc.get(networkId)!.endpoints.delete(ep.ID);
    const found = host.audit();
    expect(found[0]!.kind).toBe('store-inconsistent');
    const lines = auditStore(host.hns.store);
    expect(lines.length).toBeGreaterThan(0);
    expect(found.filter((f) => f.kind === 'store-inconsistent').map((f) => f.detail)).toEqual(lines);
    expect(found.some((f) => f.kind === 'endpoint-unused')).toBe(true);
  });
});
