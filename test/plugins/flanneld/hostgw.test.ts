/**
 * flanneld host-gw on Windows (flannel-io/flannel @ cdf76059 `pkg/backend/hostgw/hostgw_windows.go`,
 * `pkg/backend/route_network_windows.go`; reference cni-windows.md §5.2, P11, P16) against a
 * simulated node: the v1 L2Bridge network and its reuse rules, `cbr0_ep` at S+2 attached to the
 * host (already attached = success), the config errors, and the routes to other nodes' subnets.
 */
import { describe, expect, it } from 'vitest';
import type { HnsCall } from '../../../src/api/transport.js';
import { createHost, type Host } from '../../../src/host/host.js';
import {
  FlanneldHostGw,
  flanneldHost,
  ROUTE_CHECK_INTERVAL_MS,
} from '../../../src/plugins/flanneld/index.js';
import { LEASE, NIC } from './fixture.js';

function node(): Host {
  return createHost({ seed: 5, adapters: [NIC] });
}

/** Record every HNSCall the node receives (a fault rule that never fires). */
function spy(host: Host): HnsCall[] {
  const calls: HnsCall[] = [];
  host.faults.fail((c) => {
    calls.push(c);
    return false;
  }, 'E_FAIL');
  return calls;
}

function v1(call: HnsCall): string {
  return call.method === 'HNSCall' ? `${String(call.args[0])} ${String(call.args[1])}` : call.method;
}

function userRoutes(host: Host): string[] {
  return host
    .routes()
    .filter((r) => r.origin === 'User')
    .map((r) => `${fmtPrefix(r.dest.addr, r.dest.len)} via ${fmtIp(r.nextHop)} on ${r.iface}`);
}

function fmtIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}
function fmtPrefix(a: number, len: number): string {
  return `${fmtIp(a)}/${len}`;
}

describe('host-gw setup', () => {
  it('creates cbr0 (L2Bridge, S/24 with gateway S+1) and cbr0_ep at S+2 attached to the host', async () => {
    const host = node();
    const calls = spy(host);
    const gw = new FlanneldHostGw(flanneldHost(host));
    const net = await gw.setup(LEASE);
    const post = calls.find((c) => v1(c) === 'POST /networks/');
    expect(post?.args[2]).toBe(
      '{"Name":"cbr0","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}]}',
    );
    const ep = calls.find((c) => v1(c) === 'POST /endpoints/');
    expect(JSON.parse(String(ep?.args[2]))).toEqual({
      Name: 'cbr0_ep',
      VirtualNetwork: net.networkId,
      IPAddress: '10.244.1.2',
    });
    const attach = calls.find((c) => v1(c) === `POST /endpoints/${net.endpointId}/attach`);
    expect(JSON.parse(String(attach?.args[2]))).toEqual({ SystemType: 'Host', CompartmentId: 1 });
    expect(net).toMatchObject({
      name: 'cbr0',
      managementIp: '10.0.0.11',
      endpointIp: '10.244.1.2',
      linkName: 'vEthernet (Ethernet)',
      mtu: 1500,
      forwarding: ['vEthernet (Ethernet)', 'vEthernet (cbr0_ep)'],
    });
    // the endpoint is a host vNIC carrying S+2
    expect(host.adapters().find((a) => a['Name'] === 'vEthernet (cbr0_ep)')?.['IPv4Address']).toBe(
      '10.244.1.2',
    );
    expect(host.clock.now()).toBe(0);
  });

  it('a restart reuses the network and the endpoint; "already attached" counts as attached (flannel#1391)', async () => {
    const host = node();
    const first = await new FlanneldHostGw(flanneldHost(host)).setup(LEASE);
    const calls = spy(host);
    const again = new FlanneldHostGw(flanneldHost(host));
    // after the first run the default route goes out of the vNIC, which is now the external interface
    expect(again.ext.iface.name).toBe('vEthernet (Ethernet)');
    const second = await again.setup(LEASE);
    expect(second.networkId).toBe(first.networkId);
    expect(second.endpointId).toBe(first.endpointId);
    expect(calls.map(v1).filter((c) => c.startsWith('POST') || c.startsWith('DELETE'))).toEqual([
      `POST /endpoints/${first.endpointId}/attach`,
    ]);
    expect(again.log.map((l) => l.message)).toContain('Found existing HNSNetwork cbr0');
    expect(again.log.map((l) => l.message)).toContain('Found existing bridge HNSEndpoint cbr0_ep');
  });

  it('P16: a new lease subnet deletes and recreates the network; its endpoints go with it', async () => {
    const host = node();
    const first = await new FlanneldHostGw(flanneldHost(host)).setup(LEASE);
    const fh = flanneldHost(host);
    const pod = await fh.hns.createEndpoint({
      Name: 'pod1',
      VirtualNetwork: first.networkId,
      IPAddress: '10.244.1.5',
    });
    const gw = new FlanneldHostGw(fh);
    const second = await gw.setup({ subnet: '10.244.9.0/24', publicIp: '10.0.0.11' });
    expect(second.networkId).not.toBe(first.networkId);
    expect(second.endpointIp).toBe('10.244.9.2');
    const names = (await fh.hns.listEndpoints()).map((e) => e.Name);
    expect(names).toEqual(['cbr0_ep']);
    expect(names).not.toContain(pod.Name);
    expect(gw.log.map((l) => l.message)).toContain('Deleted stale HNSNetwork cbr0');
  });

  it('a cbr0_ep with another address is deleted and recreated at S+2', async () => {
    const host = node();
    const fh = flanneldHost(host);
    const net = await fh.hns.hnsNetworkRequest(
      'POST',
      '',
      '{"Name":"cbr0","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}]}',
    );
    const stale = await fh.hns.createEndpoint({
      Name: 'cbr0_ep',
      VirtualNetwork: net.ID,
      IPAddress: '10.244.1.9',
    });
    const gw = new FlanneldHostGw(fh);
    const out = await gw.setup(LEASE);
    expect(out.networkId).toBe(net.ID);
    expect(out.endpointId).not.toBe(stale.ID);
    expect(out.endpointIp).toBe('10.244.1.2');
    expect(gw.log.map((l) => l.message)).toContain('Deleted stale bridge HNSEndpoint cbr0_ep');
  });

  it('Backend Name and DNSServerList (keys case-sensitive, as apimachinery decodes)', async () => {
    const host = node();
    const calls = spy(host);
    const gw = new FlanneldHostGw(flanneldHost(host), {
      backend: { Type: 'host-gw', Name: 'l2net', DNSServerList: '10.96.0.10', name: 'ignored' },
    });
    const net = await gw.setup(LEASE);
    expect(net.name).toBe('l2net');
    expect(calls.find((c) => v1(c) === 'POST /networks/')?.args[2]).toBe(
      // hcsshim's HNSNetwork field order: DNSServerList after Subnets
      '{"Name":"l2net","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}],"DNSServerList":"10.96.0.10"}',
    );
    expect((await flanneldHost(host).hns.getEndpointByName('l2net_ep')).IPAddress).toBe('10.244.1.2');
  });

  it('config errors', async () => {
    const host = node();
    await expect(
      new FlanneldHostGw(flanneldHost(host), { backend: { Name: 5 } }).setup(LEASE),
    ).rejects.toThrow(
      'error decoding windows host-gw backend config: json: cannot unmarshal number into Go struct field .Name of type string',
    );
    await expect(
      new FlanneldHostGw(flanneldHost(host), { backend: '{"Name":' }).setup(LEASE),
    ).rejects.toThrow('error decoding windows host-gw backend config: unexpected end of JSON input');
    expect(() => new FlanneldHostGw(flanneldHost(host), { publicIp: '203.0.113.7' })).toThrow(
      "your PublicIP differs from interface IP, meaning that probably you're on a NAT, which is not supported by host-gw backend",
    );
    expect(() => new FlanneldHostGw(flanneldHost(host), { iface: 'Wi-Fi' })).toThrow(
      'error looking up interface Wi-Fi: route ip+net: no such network interface',
    );
    await expect(
      new FlanneldHostGw(flanneldHost(host)).setup({ subnet: '10.244.1.5/24', publicIp: '10.0.0.11' }),
    ).rejects.toThrow('host bits set');
    // nothing was created
    expect(await flanneldHost(host).hns.listNetworks()).toEqual([]);
  });

  it('the ManagementIP wait retries every 500 ms on simulated time', async () => {
    const host = node();
    host.faults.fail({ method: 'HNSCall', httpMethod: 'GET', path: '/networks/' }, 'HCN_E_MANAGER_STOPPED', {
      times: 2,
    });
    const gw = new FlanneldHostGw(flanneldHost(host));
    // the by-name lookup (a GET /networks/) uses the first failure: it counts as "no network"
    const net = await gw.setup(LEASE);
    expect(net.managementIp).toBe('10.0.0.11');
    expect(host.clock.now()).toBe(500);
  });

  it('HostAttach failing for 5 s: the last error, wrapped', async () => {
    const host = node();
    host.faults.fail({ method: 'HNSCall', path: '/endpoints/', httpMethod: 'POST' }, 'E_ACCESSDENIED', {
      times: 100,
    });
    const fh = flanneldHost(host);
    const net = await fh.hns.hnsNetworkRequest(
      'POST',
      '',
      '{"Name":"cbr0","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}]}',
    );
    host.faults.clear();
    await fh.hns.createEndpoint({ Name: 'cbr0_ep', VirtualNetwork: net.ID, IPAddress: '10.244.1.2' });
    host.faults.fail({ method: 'HNSCall', path: '/endpoints/', httpMethod: 'POST' }, 'E_ACCESSDENIED');
    const err = await new FlanneldHostGw(fh).setup(LEASE).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe(
      'failed to hot attach bridge HNSEndpoint cbr0_ep to host compartment: failed during hnsCallRawResponse: hnsCall failed in Win32: Access is denied. (0x5)',
    );
    // ten tries, 500 ms apart, then the 5 s deadline
    expect(host.clock.now()).toBe(5000);
  });
});

describe('host-gw routes', () => {
  async function ready() {
    const host = node();
    const gw = new FlanneldHostGw(flanneldHost(host));
    await gw.setup(LEASE);
    return { host, gw };
  }

  it('a route per other node: its subnet via its public IP, out of the management interface', async () => {
    const { host, gw } = await ready();
    await gw.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
    await gw.onLeaseAdded({ subnet: '10.244.3.0/24', publicIp: '10.0.0.13', backendType: 'HOST-GW' });
    expect(userRoutes(host)).toEqual([
      '10.244.2.0/24 via 10.0.0.12 on vEthernet (Ethernet)',
      '10.244.3.0/24 via 10.0.0.13 on vEthernet (Ethernet)',
    ]);
    expect(gw.routeList.map((r) => r.destination)).toEqual(['10.244.2.0/24', '10.244.3.0/24']);
  });

  it("the node's own lease and other backends' leases are not routed", async () => {
    const { host, gw } = await ready();
    await gw.onLeaseAdded(LEASE);
    await gw.onLeaseAdded({ subnet: '10.244.4.0/24', publicIp: '10.0.0.14', backendType: 'vxlan' });
    expect(userRoutes(host)).toEqual([]);
    expect(gw.log.at(-1)).toMatchObject({
      level: 'W',
      message: 'Ignoring non-host-gw subnet(10.244.4.0/24): type=vxlan',
    });
  });

  it('a lease that moves to another node replaces the route', async () => {
    const { host, gw } = await ready();
    await gw.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
    await gw.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.22' });
    expect(userRoutes(host)).toEqual(['10.244.2.0/24 via 10.0.0.22 on vEthernet (Ethernet)']);
    expect(gw.log.map((l) => l.message)).toContain(
      'Replacing existing route 10.244.2.0/24 via 10.0.0.12 with 10.244.2.0/24 via 10.0.0.22',
    );
  });

  it('removal deletes the route it would have added, and a removal of an unknown lease is logged', async () => {
    const { host, gw } = await ready();
    await gw.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
    await gw.onLeaseRemoved({ subnet: '10.244.2.0/24', publicIp: '10.0.0.99' });
    // the watcher passes on the lease as it was added (via .12), so the route goes
    expect(userRoutes(host)).toEqual([]);
    expect(gw.routeList).toEqual([]);
    await gw.onLeaseRemoved({ subnet: '10.244.5.0/24', publicIp: '10.0.0.15' });
    expect(
      gw.log.some((l) => l.level === 'E' && l.message.startsWith('Removed subnet (10.244.5.0/24)')),
    ).toBe(true);
  });

  it('the route check puts back a route that went missing, every 10 s', async () => {
    const { host, gw } = await ready();
    await gw.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
    const stop = gw.startRouteCheck();
    host.removeRoute('10.244.2.0/24');
    expect(userRoutes(host)).toEqual([]);
    host.clock.advance(ROUTE_CHECK_INTERVAL_MS - 1);
    expect(userRoutes(host)).toEqual([]);
    host.clock.advance(1);
    expect(userRoutes(host)).toEqual(['10.244.2.0/24 via 10.0.0.12 on vEthernet (Ethernet)']);
    expect(gw.log.at(-1)?.message).toBe('Recovered route to 10.244.2.0/24 via 10.0.0.12 on 15.');
    stop();
    host.removeRoute('10.244.2.0/24');
    host.clock.advance(ROUTE_CHECK_INTERVAL_MS * 3);
    expect(userRoutes(host)).toEqual([]);
  });

  it('a route that already existed is left alone and is not one the check restores', async () => {
    const { host, gw } = await ready();
    host.addRoute({
      destinationPrefix: '10.244.2.0/24',
      nextHop: '10.0.0.12',
      interfaceAlias: 'vEthernet (Ethernet)',
    });
    await gw.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
    expect(gw.routeList).toEqual([]);
    host.removeRoute('10.244.2.0/24');
    expect(gw.checkRoutes()).toEqual([]);
    expect(userRoutes(host)).toEqual([]);
  });

  it('resync: a snapshot adds new leases and removes vanished ones', async () => {
    const { host, gw } = await ready();
    await gw.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' });
    await gw.resync([LEASE, { subnet: '10.244.3.0/24', publicIp: '10.0.0.13' }]);
    expect(userRoutes(host)).toEqual(['10.244.3.0/24 via 10.0.0.13 on vEthernet (Ethernet)']);
  });

  it('events before setup are refused', async () => {
    const gw = new FlanneldHostGw(flanneldHost(node()));
    await expect(gw.onLeaseAdded({ subnet: '10.244.2.0/24', publicIp: '10.0.0.12' })).rejects.toThrow(
      'setup() has not run',
    );
  });
});
