/**
 * containerView (src/hcs/view.ts): what a compute system sees from inside, built only through the
 * flat HNS API (JSON documents as hcsshim and the CNI plugins send them) and the HCS service
 * (create/start/modify documents of reference hns-hcs.md §7.1, §7.3). Expected values are read back
 * from the HNS documents (HcnQuery*Properties), never from the module under test.
 */
import { describe, expect, it } from 'vitest';
import type { HcnDocument } from '../../src/api/flat.js';
import { isHnsError } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import { containerView, type ContainerNetworkView } from '../../src/hcs/view.js';
import { createHost, type Host } from '../../src/host/host.js';
import { addToNamespace, ok } from '../api/hcs-helpers.js';

const SCHEMA = { Major: 2, Minor: 0 };
const HCS_SCHEMA = { Major: 2, Minor: 1 };

function node(): Host {
  return createHost({
    seed: 5,
    profile: 'ws2022',
    adapters: [
      { name: 'Ethernet', ipAddress: '10.0.0.4/24', gateway: '10.0.0.1', macAddress: '00-0D-3A-11-22-33' },
    ],
  });
}

/** An L2Bridge network as win-bridge creates it (gateway .1, endpoints routed via .2). */
function bridge(host: Host, name = 'cbr0', prefix = '10.244.1.0/24', gw = '10.244.1.1'): JsonObject {
  return ok(
    host.api.HcnCreateNetwork(null, {
      Name: name,
      Type: 'L2Bridge',
      Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
      Ipams: [
        {
          Type: 'Static',
          Subnets: [{ IpAddressPrefix: prefix, Routes: [{ NextHop: gw, DestinationPrefix: '0.0.0.0/0' }] }],
        },
      ],
      SchemaVersion: SCHEMA,
    }),
  );
}

function overlay(host: Host): JsonObject {
  return ok(
    host.api.HcnCreateNetwork(null, {
      Name: 'flannel.4096',
      Type: 'Overlay',
      Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.244.2.0/24',
              Routes: [{ NextHop: '10.244.2.1', DestinationPrefix: '0.0.0.0/0' }],
              Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
            },
          ],
        },
      ],
      SchemaVersion: SCHEMA,
    }),
  );
}

/** A pod endpoint as win-bridge's HCN path creates it: IP, gateway route, DNS. */
function podEndpoint(
  host: Host,
  net: JsonObject,
  name: string,
  ip: string,
  gw: string,
  extra: JsonObject = {},
) {
  return ok(
    host.api.HcnCreateEndpoint(net.ID, null, {
      Name: name,
      HostComputeNetwork: net.ID as string,
      IpConfigurations: [{ IpAddress: ip, PrefixLength: 24 }],
      Routes: [{ NextHop: gw, DestinationPrefix: '0.0.0.0/0' }],
      Dns: {
        Search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
        ServerList: ['10.96.0.10'],
      },
      SchemaVersion: SCHEMA,
      ...extra,
    }),
  );
}

function namespace(host: Host): HcnDocument {
  return ok(host.api.HcnCreateNamespace(null, { SchemaVersion: SCHEMA }));
}

function query(host: Host, kind: 'endpoint' | 'namespace' | 'network', id: unknown): JsonObject {
  if (kind === 'endpoint') return ok(host.api.HcnQueryEndpointProperties(id));
  if (kind === 'namespace') return ok(host.api.HcnQueryNamespaceProperties(id));
  return ok(host.api.HcnQueryNetworkProperties(id));
}

function container(host: Host, id: string, networking: JsonObject, extra: JsonObject = {}): void {
  host.hcs.create(id, {
    SchemaVersion: HCS_SCHEMA,
    Owner: 'test',
    Container: { GuestOs: { HostName: 'pod-a' }, Networking: networking, ...extra },
  });
  host.hcs.start(id);
}

/** A process-isolated pod: pause + workload naming one HNS namespace with one endpoint. */
function pod() {
  const host = node();
  const net = bridge(host);
  const ep = podEndpoint(host, net, 'pod-a_cbr0', '10.244.1.5', '10.244.1.2');
  const ns = namespace(host);
  addToNamespace(host, ns.ID, ep.ID);
  container(host, 'pause', { Namespace: ns.ID as string, AllowUnqualifiedDnsQuery: true });
  container(host, 'workload', {
    Namespace: ns.ID as string,
    AllowUnqualifiedDnsQuery: true,
    DnsSearchList: 'default.svc.cluster.local,svc.cluster.local',
  });
  return { host, net, ep, ns };
}

function stripId(v: ContainerNetworkView) {
  const { id: _id, dns, ...rest } = v;
  return { ...rest, dnsServers: dns.servers };
}

describe('a process-isolated pod (pause + workload in one namespace)', () => {
  it('both containers see the one endpoint: interface, address, gateway, DNS, compartment', () => {
    const { host, ep, ns } = pod();
    const doc = query(host, 'endpoint', ep.ID);
    const nsDoc = query(host, 'namespace', ns.ID);
    const ipc = (doc.IpConfigurations as JsonObject[])[0]!;
    const route = (doc.Routes as JsonObject[])[0]!;
    const dns = doc.Dns as JsonObject;

    const pause = containerView(host.hcs, 'pause');
    expect(pause.state).toBe('Running');
    expect(pause.compartment).toBe(nsDoc.NamespaceId);
    expect(pause.hostName).toBe('pod-a');
    expect(pause.interfaces).toHaveLength(1);
    const nic = pause.interfaces[0]!;
    expect(nic.name).toBe(`vEthernet (${doc.Name as string})`);
    expect(nic.description).toBe('Hyper-V Virtual Ethernet Container Adapter');
    expect(nic.endpointId).toBe(doc.ID);
    expect(nic.macAddress).toBe(doc.MacAddress);
    expect(nic.dhcpEnabled).toBe(false);
    expect(nic.ipv4).toEqual([
      { address: ipc.IpAddress, prefixLength: ipc.PrefixLength, subnetMask: '255.255.255.0' },
    ]);
    expect(nic.ipv6).toEqual([]);
    expect(nic.defaultGateway).toBe(route.NextHop);
    expect(nic.dnsServers).toEqual(dns.ServerList);
    expect(nic.connectionSpecificSuffix).toBe((dns.Search as string[])[0]);
    expect(nic.suffixSearchList).toEqual(dns.Search);
    expect(nic.mtu).toBe(1500);
    expect(pause.routes).toEqual(
      expect.arrayContaining([
        { destinationPrefix: '10.244.1.0/24', nextHop: '0.0.0.0', interfaceName: nic.name, metric: 256 },
        {
          destinationPrefix: route.DestinationPrefix,
          nextHop: route.NextHop,
          interfaceName: nic.name,
          metric: 256,
        },
      ]),
    );
    expect(pause.routes).toHaveLength(2);
    expect(pause.dns).toEqual({
      suffixSearchList: dns.Search,
      allowUnqualifiedDnsQuery: true,
      servers: dns.ServerList,
    });

    const workload = containerView(host.hcs, 'workload');
    expect(stripId(workload)).toEqual(stripId({ ...pause, state: 'Running' }));
    // the workload's own DnsSearchList (the HCS document) is its compartment's search list
    expect(workload.dns.suffixSearchList).toEqual(['default.svc.cluster.local', 'svc.cluster.local']);
  });

  it('an endpoint added to the running pod’s namespace shows up at once (Host namespaces need no sync)', () => {
    const { host, net, ns } = pod();
    const second = podEndpoint(host, net, 'pod-a_second', '10.244.1.6', '10.244.1.2', {
      Dns: { Domain: 'corp.example', Search: ['corp.example'], ServerList: ['10.0.0.53'] },
    });
    addToNamespace(host, ns.ID, second.ID);
    const doc = query(host, 'endpoint', second.ID);
    for (const id of ['pause', 'workload']) {
      const v = containerView(host.hcs, id);
      expect(v.interfaces.map((i) => i.endpointId)).toEqual([expect.any(String), doc.ID]);
      const nic = v.interfaces[1]!;
      expect(nic.name).toBe(`vEthernet (${doc.Name as string})`);
      expect(nic.description).toBe('Hyper-V Virtual Ethernet Container Adapter #2');
      expect(nic.ipv4[0]!.address).toBe((doc.IpConfigurations as JsonObject[])[0]!.IpAddress);
      expect(nic.connectionSpecificSuffix).toBe((doc.Dns as JsonObject).Domain);
      expect(v.dns.servers).toEqual(['10.96.0.10', '10.0.0.53']);
    }
    // pause has no DnsSearchList: the endpoints' search lists, in order, once each
    expect(containerView(host.hcs, 'pause').dns.suffixSearchList).toEqual([
      'default.svc.cluster.local',
      'svc.cluster.local',
      'cluster.local',
      'corp.example',
    ]);
    // a third endpoint whose Domain is not its first suffix, repeating a DNS server and a suffix of
    // the first, with a route of its own metric
    const third = podEndpoint(host, net, 'pod-a_third', '10.244.1.7', '10.244.1.2', {
      Dns: {
        Domain: 'corp.example',
        Search: ['branch.corp.example', 'svc.cluster.local'],
        ServerList: ['10.96.0.10'],
      },
      Routes: [{ NextHop: '10.244.1.2', DestinationPrefix: '10.0.0.0/8', Metric: 10 }],
    });
    addToNamespace(host, ns.ID, third.ID);
    for (const id of ['pause', 'workload']) {
      const v = containerView(host.hcs, id);
      const nic = v.interfaces[2]!;
      expect(nic.endpointId).toBe(third.ID);
      expect(nic.connectionSpecificSuffix).toBe('corp.example');
      expect(v.dns.servers).toEqual(['10.96.0.10', '10.0.0.53']);
      expect(v.routes).toContainEqual({
        destinationPrefix: '10.0.0.0/8',
        nextHop: '10.244.1.2',
        interfaceName: nic.name,
        metric: 10,
      });
    }
    expect(containerView(host.hcs, 'pause').dns.suffixSearchList).toEqual([
      'default.svc.cluster.local',
      'svc.cluster.local',
      'cluster.local',
      'corp.example',
      'branch.corp.example',
    ]);
  });

  it('a stopped workload sees nothing; the pause container still sees the interface', () => {
    const { host } = pod();
    host.hcs.shutdown('workload');
    const w = containerView(host.hcs, 'workload');
    expect(w.state).toBe('Stopped');
    expect(w.interfaces).toEqual([]);
    expect(w.routes).toEqual([]);
    expect(w.compartment).toBeUndefined();
    expect(w.dns.servers).toEqual([]);
    expect(containerView(host.hcs, 'pause').interfaces).toHaveLength(1);
  });

  it('a Created system sees nothing; an unknown one is HCS_E_SYSTEM_NOT_FOUND', () => {
    const { host, ns } = pod();
    host.hcs.create('late', {
      SchemaVersion: HCS_SCHEMA,
      Owner: 'test',
      Container: { Networking: { Namespace: ns.ID as string } },
    });
    const v = containerView(host.hcs, 'late');
    expect(v.state).toBe('Created');
    expect(v.interfaces).toEqual([]);
    let err: unknown;
    try {
      containerView(host.hcs, 'nope');
    } catch (e) {
      err = e;
    }
    expect(isHnsError(err) && err.code).toBe('HCS_E_SYSTEM_NOT_FOUND');
  });

  it('NetworkSharedContainerName: the container sees the named container’s stack', () => {
    const { host, ns } = pod();
    container(host, 'sidecar', { NetworkSharedContainerName: 'pause' });
    const v = containerView(host.hcs, 'sidecar');
    const pause = containerView(host.hcs, 'pause');
    expect(v.compartment).toBe(query(host, 'namespace', ns.ID).NamespaceId);
    expect(v.interfaces).toEqual(pause.interfaces);
    expect(v.routes).toEqual(pause.routes);
    host.hcs.terminate('pause');
    expect(containerView(host.hcs, 'sidecar').interfaces).toEqual([]);
  });

  it('the Windows Server 2016 naming: vEthernet (Container NIC <first 8 hex of the endpoint ID>)', () => {
    const { host, ep } = pod();
    const v = containerView(host.hcs, 'pause', undefined, { interfaceNames: 'containerNic' });
    const id = query(host, 'endpoint', ep.ID).ID as string;
    expect(v.interfaces[0]!.name).toBe(`vEthernet (Container NIC ${id.slice(0, 8).toLowerCase()})`);
    expect(v.routes.every((r) => r.interfaceName === v.interfaces[0]!.name)).toBe(true);
  });
});

describe('addresses and MTU from the network', () => {
  it('an overlay endpoint has MTU 1450; an address given without a prefix gets its subnet’s', () => {
    const host = node();
    const net = overlay(host);
    const ep = ok(
      host.api.HcnCreateEndpoint(net.ID, null, {
        Name: 'pod-b_flannel.4096',
        IpConfigurations: [{ IpAddress: '10.244.2.7' }],
        Dns: { Search: ['default.svc.cluster.local'], ServerList: ['10.96.0.10'] },
        SchemaVersion: SCHEMA,
      }),
    );
    const ns = namespace(host);
    addToNamespace(host, ns.ID, ep.ID);
    container(host, 'pod-b', { Namespace: ns.ID as string });
    const netDoc = query(host, 'network', net.ID);
    const subnet = ((netDoc.Ipams as JsonObject[])[0]!.Subnets as JsonObject[])[0]!;
    const v = containerView(host.hcs, 'pod-b');
    const nic = v.interfaces[0]!;
    expect(nic.mtu).toBe(1450);
    expect(nic.ipv4[0]!.prefixLength).toBe(Number((subnet.IpAddressPrefix as string).split('/')[1]));
    expect(nic.defaultGateway).toBe(
      ((query(host, 'endpoint', ep.ID).Routes as JsonObject[]) ?? [])[0]?.NextHop,
    );
  });

  it('a dual-stack endpoint shows both families, each with its on-link and default route', () => {
    const host = node();
    const net = ok(
      host.api.HcnCreateNetwork(null, {
        Name: 'dual',
        Type: 'NAT',
        Ipams: [
          {
            Type: 'Static',
            Subnets: [
              {
                IpAddressPrefix: '192.168.128.0/20',
                Routes: [{ NextHop: '192.168.128.1', DestinationPrefix: '0.0.0.0/0' }],
              },
              {
                IpAddressPrefix: 'fd00::100/120',
                Routes: [{ NextHop: 'fd00::101', DestinationPrefix: '::/0' }],
              },
            ],
          },
        ],
        SchemaVersion: SCHEMA,
      }),
    );
    const ep = ok(
      host.api.HcnCreateEndpoint(net.ID, null, {
        Name: 'lcow-style',
        IpConfigurations: [
          { IpAddress: '192.168.128.4', PrefixLength: 20 },
          { IpAddress: 'fd00::106', PrefixLength: 120 },
        ],
        Routes: [
          { NextHop: '192.168.128.1', DestinationPrefix: '0.0.0.0/0' },
          { NextHop: 'fd00::101', DestinationPrefix: '::/0' },
        ],
        SchemaVersion: SCHEMA,
      }),
    );
    const ns = namespace(host);
    addToNamespace(host, ns.ID, ep.ID);
    container(host, 'dual', { Namespace: ns.ID as string });
    const nic = containerView(host.hcs, 'dual').interfaces[0]!;
    expect(nic.ipv4).toEqual([{ address: '192.168.128.4', prefixLength: 20, subnetMask: '255.255.240.0' }]);
    expect(nic.ipv6).toEqual([{ address: 'fd00::106', prefixLength: 120 }]);
    expect(nic.defaultGateway).toBe('192.168.128.1');
    expect(nic.ipv6DefaultGateway).toBe('fd00::101');
    expect(containerView(host.hcs, 'dual').routes.map((r) => `${r.destinationPrefix} ${r.nextHop}`)).toEqual([
      '192.168.128.0/20 0.0.0.0',
      'fd00::100/120 ::',
      '0.0.0.0/0 192.168.128.1',
      '::/0 fd00::101',
    ]);
  });
});

describe('schema 1 (vmcompute ContainerConfig)', () => {
  it('EndpointList: the v1 endpoint’s address and DNSSuffix, the document’s DNSSearchList and HostName', () => {
    const host = node();
    const net = bridge(host);
    const v1 = ok(
      host.api.HNSCall(
        'POST',
        '/endpoints',
        JSON.stringify({
          Name: 'Ethernet',
          VirtualNetwork: net.ID,
          IPAddress: '10.244.1.9',
          GatewayAddress: '10.244.1.2',
          DNSSuffix: 'svc.cluster.local,cluster.local',
          DNSServerList: '10.96.0.10,10.96.0.11',
        }),
      ),
    );
    const epId = (v1.Output as JsonObject).ID as string;
    host.hcs.create('docker-1', {
      SystemType: 'Container',
      Name: 'docker-1',
      Owner: 'docker',
      HostName: 'b06044b1d6b1',
      EndpointList: [epId],
      AllowUnqualifiedDNSQuery: true,
      DNSSearchList: 'corp.example',
    });
    expect(containerView(host.hcs, 'docker-1').interfaces).toEqual([]);
    host.hcs.start('docker-1');
    const doc = query(host, 'endpoint', epId);
    const v = containerView(host.hcs, 'docker-1');
    expect(v.hostName).toBe('b06044b1d6b1');
    expect(v.compartment).toBeUndefined();
    expect(v.interfaces).toHaveLength(1);
    const nic = v.interfaces[0]!;
    expect(nic.name).toBe('vEthernet (Ethernet)');
    expect(nic.ipv4[0]!.address).toBe((doc.IpConfigurations as JsonObject[])[0]!.IpAddress);
    expect(nic.defaultGateway).toBe('10.244.1.2');
    expect(nic.connectionSpecificSuffix).toBe('svc.cluster.local');
    expect(nic.dnsServers).toEqual(['10.96.0.10', '10.96.0.11']);
    expect(v.dns).toEqual({
      suffixSearchList: ['corp.example'],
      allowUnqualifiedDnsQuery: true,
      servers: ['10.96.0.10', '10.96.0.11'],
    });
  });
});

describe('a utility VM and the container it hosts', () => {
  function uvm() {
    const host = node();
    const net = bridge(host);
    const eth0 = podEndpoint(host, net, 'pod-c_eth0', '10.244.1.20', '10.244.1.2');
    const eth1 = podEndpoint(host, net, 'pod-c_eth1', '10.244.1.21', '10.244.1.2', {
      Dns: { Search: ['storage.local'], ServerList: ['10.0.0.53'] },
    });
    const ns = namespace(host);
    addToNamespace(host, ns.ID, eth0.ID);
    addToNamespace(host, ns.ID, eth1.ID);
    host.hcs.create('uvm', { SchemaVersion: HCS_SCHEMA, Owner: 'test', VirtualMachine: {} });
    host.hcs.start('uvm');
    // hcsshim adds the endpoint whose name ends in eth0 first
    const nics = ['0d5e8a3c-1111-4c1e-9c1a-000000000001', '0d5e8a3c-1111-4c1e-9c1a-000000000002'];
    [eth0, eth1].forEach((ep, i) =>
      host.hcs.modify('uvm', {
        ResourcePath: `VirtualMachine/Devices/NetworkAdapters/${nics[i]!}`,
        RequestType: 'Add',
        Settings: { EndpointId: ep.ID as string, MacAddress: ep.MacAddress as string },
      }),
    );
    host.hcs.create('hosted', {
      SchemaVersion: HCS_SCHEMA,
      Owner: 'test',
      HostingSystemId: 'uvm',
      HostedSystem: { SchemaVersion: HCS_SCHEMA, Container: { Networking: { Namespace: ns.ID as string } } },
    });
    host.hcs.start('hosted');
    return { host, eth0, eth1 };
  }

  it('the VM sees its hot-added NICs in order, named as a Windows guest names them', () => {
    const { host, eth0, eth1 } = uvm();
    const v = containerView(host.hcs, 'uvm');
    const d0 = query(host, 'endpoint', eth0.ID);
    const d1 = query(host, 'endpoint', eth1.ID);
    expect(v.compartment).toBeUndefined();
    expect(v.interfaces.map((i) => [i.name, i.description, i.endpointId, i.macAddress])).toEqual([
      ['Ethernet', 'Microsoft Hyper-V Network Adapter', d0.ID, d0.MacAddress],
      ['Ethernet 2', 'Microsoft Hyper-V Network Adapter #2', d1.ID, d1.MacAddress],
    ]);
    expect(v.interfaces.map((i) => i.ipv4[0]!.address)).toEqual([
      (d0.IpConfigurations as JsonObject[])[0]!.IpAddress,
      (d1.IpConfigurations as JsonObject[])[0]!.IpAddress,
    ]);
    expect(v.dns.servers).toEqual(['10.96.0.10', '10.0.0.53']);
  });

  it('a hosted container sees the VM’s adapters; they go when the VM stops', () => {
    const { host } = uvm();
    const vm = containerView(host.hcs, 'uvm');
    const hosted = containerView(host.hcs, 'hosted');
    expect(hosted.interfaces).toEqual(vm.interfaces);
    expect(hosted.routes).toEqual(vm.routes);
    host.hcs.modify('uvm', {
      ResourcePath: 'VirtualMachine/Devices/NetworkAdapters/0d5e8a3c-1111-4c1e-9c1a-000000000001',
      RequestType: 'Remove',
    });
    expect(containerView(host.hcs, 'hosted').interfaces.map((i) => i.name)).toEqual(['Ethernet']);
    host.hcs.terminate('uvm');
    expect(containerView(host.hcs, 'hosted').interfaces).toEqual([]);
    expect(containerView(host.hcs, 'uvm').interfaces).toEqual([]);
  });
});

describe('HostProcess containers', () => {
  it('see the host’s adapters and routes when given the host, compartment 1', () => {
    const host = node();
    bridge(host);
    container(host, 'hpc', {}, { IsolationType: 'HostProcess' });
    const blind = containerView(host.hcs, 'hpc');
    expect(blind.hostNetwork).toBe(true);
    expect(blind.compartment).toBe(1);
    expect(blind.interfaces).toEqual([]);
    const v = containerView(host.hcs, 'hpc', host);
    const adapters = host.adapters();
    expect(v.interfaces.map((i) => i.name)).toEqual(adapters.map((a) => a.Name));
    const vnic = adapters.find((a) => a.Name === 'vEthernet (Ethernet)')!;
    const seen = v.interfaces.find((i) => i.name === vnic.Name)!;
    expect(seen.ipv4[0]!.address).toBe(vnic.IPv4Address);
    expect(seen.macAddress).toBe(vnic.MacAddress);
    expect(v.routes).toContainEqual({
      destinationPrefix: '0.0.0.0/0',
      nextHop: '10.0.0.1',
      interfaceName: 'vEthernet (Ethernet)',
      metric: 256,
    });
  });
});
