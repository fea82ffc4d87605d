/**
 * flannel host-gw on Windows against the simulator: `RegisterNetwork` of
 * flannel-io/flannel @ cdf76059 `pkg/backend/hostgw/hostgw_windows.go:109-271` (hcsshim v0.14.1
 * `internal/hns`), replayed call for call through HNS v1 `HNSCall`:
 *
 *   GET /networks/ (reuse by subnet, l.118-127) → [DELETE stale, l.132-136] → POST /networks/
 *   (l.139-156) → poll GET /networks/<id> for ManagementIP (l.161-174) → host interface with it
 *   (l.176-188) → GET /endpoints/ (cbr0_ep reuse by IP, l.194-201) → [DELETE stale] → POST
 *   /endpoints/ (l.203-225) → poll attach {"SystemType":"Host","CompartmentId":1} (l.227-243) →
 *   ManagementIP and the cbr0_ep IP on host interfaces (l.246-269).
 *
 * A restart of flanneld is the same function run again against the same host.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { goParseIP4, HnsV1, HnsV1Error, hostInterfaceWithIp } from './client-flow.js';

/** The node: one NIC `Ethernet` 192.168.1.11/24 (its address is what HNS must report). */
const NODE_NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.1.11/24',
  gateway: '192.168.1.1',
  macAddress: '00-0D-3A-11-22-33',
};
const NODE_IP = '192.168.1.11';

/** The lease 10.244.1.0/24: prefix, subnet+1 (network gateway), subnet+2 (cbr0_ep), l.111-114. */
const LEASE = { prefix: '10.244.1.0/24', gateway: '10.244.1.1', podGateway: '10.244.1.2' };

/** The text flannel accepts as "already attached" (l.236, flannel issue #1391). */
const ALREADY_ATTACHED = 'This endpoint is already attached to the switch.';

/** The POST /networks/ body `json.Marshal(&hcsshim.HNSNetwork{…})` produces (l.139-150). */
function networkBody(prefix: string, gateway: string, dnsServerList = ''): string {
  const subnets = `[{"AddressPrefix":"${prefix}","GatewayAddress":"${gateway}"}]`;
  const dns = dnsServerList === '' ? '' : `,"DNSServerList":"${dnsServerList}"`;
  return `{"Name":"cbr0","Type":"L2Bridge","Subnets":${subnets}${dns}}`;
}

interface HostGwConfig {
  readonly prefix: string;
  readonly gateway: string;
  readonly podGateway: string;
  readonly dnsServerList?: string;
}

interface HostGwResult {
  readonly network: JsonObject;
  readonly endpoint: JsonObject;
  readonly createdNetwork: boolean;
  readonly createdEndpoint: boolean;
  /** Every HostAttach try's outcome: null for success, else hcsshim's error text. */
  readonly attachTries: readonly (string | null)[];
  readonly managementIpPolls: number;
}

/** flannel's fatal errors, with its texts. */
class FlannelError extends Error {}

/** `wait.PollUntilContextTimeout(ctx, 500ms, 5s, immediate=true, …)` on the simulated clock. */
function poll(host: Host, intervalMs: number, timeoutMs: number, tryOnce: () => boolean): number {
  for (let tries = 1, waited = 0; ; tries++) {
    if (tryOnce()) return tries;
    if (waited + intervalMs > timeoutMs) return -1;
    host.clock.advance(intervalMs);
    waited += intervalMs;
  }
}

/** `RegisterNetwork` from step 3 on (the lease is given), l.109-271. */
function registerHostGw(v1: HnsV1, cfg: HostGwConfig): HostGwResult {
  const host = v1.host;
  const networkName = 'cbr0';

  // 3. reuse if any subnet has the exact prefix and gateway; Type is not checked (l.118-127)
  let existing: JsonObject | undefined;
  try {
    existing = v1.networkByName(networkName);
  } catch {
    existing = undefined;
  }
  const subnets = (existing?.Subnets as JsonObject[] | undefined) ?? [];
  const reuse = subnets.some((s) => s.AddressPrefix === cfg.prefix && s.GatewayAddress === cfg.gateway);

  // 4. create (l.129-192)
  let network = existing;
  let managementIpPolls = 0;
  if (!reuse) {
    if (existing) v1.request('DELETE', `/networks/${String(existing.ID)}`);
    const created = v1.request('POST', '/networks/', networkBody(cfg.prefix, cfg.gateway, cfg.dnsServerList));
    const newNetworkId = String((created as JsonObject | undefined)?.ID ?? '');
    let lastErr: unknown;
    managementIpPolls = poll(host, 500, 5000, () => {
      try {
        network = v1.request('GET', `/networks/${newNetworkId}`) as JsonObject;
        return typeof network?.ManagementIP === 'string' && network.ManagementIP.length !== 0;
      } catch (e) {
        lastErr = e;
        return false;
      }
    });
    if (managementIpPolls < 0) {
      throw new FlannelError(
        `timeout, failed to get management IP from HNSNetwork ${networkName}: ${String(lastErr)}`,
      );
    }
    const managementIp = goParseIP4(network?.ManagementIP);
    if (!managementIp)
      throw new FlannelError(`Failed to parse management ip (${String(network?.ManagementIP)})`);
    if (poll(host, 500, 5000, () => hostInterfaceWithIp(host, managementIp) !== undefined) < 0) {
      throw new FlannelError(`timeout, failed to get net interface for HNSNetwork ${networkName}`);
    }
  }
  if (!network) throw new FlannelError('no network');

  // 5. reuse cbr0_ep if its IPAddress is subnet+2; VirtualNetwork is not checked (l.194-201)
  const endpointName = `${networkName}_ep`;
  let existingEp: JsonObject | undefined;
  try {
    existingEp = v1.endpointByName(endpointName);
  } catch {
    existingEp = undefined;
  }
  let endpoint = existingEp;
  const createdEndpoint = !(existingEp !== undefined && existingEp.IPAddress === cfg.podGateway);

  // 6. create (l.203-225): HNSEndpoint{Name, IPAddress, VirtualNetwork} in struct order
  if (createdEndpoint) {
    if (existingEp) v1.request('DELETE', `/endpoints/${String(existingEp.ID)}`);
    const body = `{"Name":"${endpointName}","VirtualNetwork":"${String(network.ID)}","IPAddress":"${cfg.podGateway}"}`;
    endpoint = v1.request('POST', '/endpoints/', body) as JsonObject;
  }
  if (!endpoint) throw new FlannelError('no endpoint');

  // HostAttach(1) until nil or "already attached" (l.227-243)
  const attachTries: (string | null)[] = [];
  const attached = poll(host, 500, 5000, () => {
    try {
      v1.request(
        'POST',
        `/endpoints/${String(endpoint.ID)}/attach`,
        '{"SystemType":"Host","CompartmentId":1}',
      );
      attachTries.push(null);
      return true;
    } catch (e) {
      const text = e instanceof HnsV1Error ? e.message : String(e);
      attachTries.push(text);
      return text.includes(ALREADY_ATTACHED);
    }
  });
  if (attached < 0) {
    throw new FlannelError(`failed to hot attach bridge HNSEndpoint ${endpointName} to host compartment`);
  }

  // 7. both addresses must be IPv4 and on a host interface now (l.246-269); the interface of the
  // cbr0_ep address is checked by its own (expected-to-fail) test at the end of this file
  const required = [network.ManagementIP, endpoint.IPAddress];
  for (const [i, raw] of required.entries()) {
    const ipv4 = goParseIP4(raw);
    if (!ipv4) throw new FlannelError(`Failed to parse expected net interface ip (${String(raw ?? '')})`);
    if (i === 0 && !hostInterfaceWithIp(host, ipv4)) {
      throw new FlannelError(`failed to find interface for IP Address ${ipv4}`);
    }
  }
  return { network, endpoint, createdNetwork: !reuse, createdEndpoint, attachTries, managementIpPolls };
}

function node(profile = 'ws2022'): HnsV1 {
  return new HnsV1(createHost({ seed: 41, profile, adapters: [NODE_NIC] }));
}

describe('flannel host-gw (pkg/backend/hostgw/hostgw_windows.go @ cdf76059)', () => {
  it('the POST /networks/ bodies are the ones json.Marshal(hcsshim.HNSNetwork) writes (l.139-150)', () => {
    expect(networkBody(LEASE.prefix, LEASE.gateway)).toBe(
      '{"Name":"cbr0","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}]}',
    );
    expect(networkBody(LEASE.prefix, LEASE.gateway, '10.96.0.10')).toBe(
      '{"Name":"cbr0","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}],"DNSServerList":"10.96.0.10"}',
    );
  });

  it.each(['ws2019', 'ws2022', 'ws2025'])(
    'first start on %s: every HNS call and read-back flannel relies on',
    (profile) => {
      const v1 = node(profile);
      expect(hostInterfaceWithIp(v1.host, NODE_IP)?.Name).toBe('Ethernet');
      const r = registerHostGw(v1, LEASE);

      expect(v1.log.map((c) => `${c.method} ${c.path.replace(/[0-9A-F-]{36}/i, '<id>')}`)).toEqual([
        'GET /networks/',
        'POST /networks/',
        'GET /networks/<id>',
        'GET /endpoints/',
        'POST /endpoints/',
        'POST /endpoints/<id>/attach',
      ]);
      expect(v1.log[1]!.request).toBe(
        '{"Name":"cbr0","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}]}',
      );
      // the poll's first, immediate try already sees ManagementIP (a delayed or missing one = a 5 s stall)
      expect(r.managementIpPolls).toBe(1);
      expect(r.network).toMatchObject({
        Name: 'cbr0',
        Type: 'L2Bridge',
        ManagementIP: NODE_IP,
        Subnets: [{ AddressPrefix: LEASE.prefix, GatewayAddress: LEASE.gateway }],
      });
      // the GET /networks/ list entries carry ManagementIP too (the reuse path reads it from there)
      expect(v1.listNetworks()).toEqual([
        expect.objectContaining({ ID: r.network.ID, Name: 'cbr0', ManagementIP: NODE_IP }),
      ]);
      // the host's address moved to the vSwitch's host vNIC; the physical NIC no longer carries it
      const adapters = v1.host.adapters();
      expect(adapters.find((a) => a.Name === 'vEthernet (Ethernet)')).toMatchObject({ IPv4Address: NODE_IP });
      expect(adapters.find((a) => a.Name === 'Ethernet')).not.toHaveProperty('IPv4Address');
      expect(hostInterfaceWithIp(v1.host, NODE_IP)?.Name).toBe('vEthernet (Ethernet)');

      // POST /endpoints/ body in HNSEndpoint field order, Output echoes ID and IPAddress
      expect(v1.log[4]!.request).toBe(
        `{"Name":"cbr0_ep","VirtualNetwork":"${String(r.network.ID)}","IPAddress":"10.244.1.2"}`,
      );
      expect(r.endpoint).toMatchObject({
        ID: expect.stringMatching(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/),
        Name: 'cbr0_ep',
        IPAddress: '10.244.1.2',
      });
      expect(r.attachTries).toEqual([null]);
      expect(v1.log[5]!.request).toBe('{"SystemType":"Host","CompartmentId":1}');
    },
  );

  // catches: a v1 network parser that rejects or mis-orders the DNSServerList key after Subnets
  it('the DNSServerList variant is accepted and registers the same way', () => {
    const v1 = node();
    const r = registerHostGw(v1, { ...LEASE, dnsServerList: '10.96.0.10' });
    expect(v1.log[1]!.request).toBe(
      '{"Name":"cbr0","Type":"L2Bridge","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1"}],"DNSServerList":"10.96.0.10"}',
    );
    expect(r.network).toMatchObject({ ManagementIP: NODE_IP });
    expect(r.endpoint).toMatchObject({ IPAddress: '10.244.1.2' });
  });

  // catches: a repeat Host attach failing with another text (flannel retries 5 s, then dies)
  it('a second HostAttach of cbr0_ep answers Success:false "already attached", which flannel accepts', () => {
    const v1 = node();
    const r = registerHostGw(v1, LEASE);
    const id = String(r.endpoint.ID);
    const resp = v1.response('POST', `/endpoints/${id}/attach`, '{"SystemType":"Host","CompartmentId":1}');
    // HCN_E_ENDPOINT_ALREADY_ATTACHED 0x803B0014, v1 ErrorCode is the signed int32
    expect(resp).toEqual({
      Success: false,
      Error: 'This endpoint is already attached to the switch. ',
      ErrorCode: 0x803b0014 | 0,
    });
    // flannel's rule (l.236): hcsshim's error text must contain the sentence
    expect(`hns failed with error : ${String(resp.Error)}`).toContain(ALREADY_ATTACHED);
  });

  // catches: list entries without ManagementIP/Subnets echo, or a second attach that is not tolerated
  it('a restart of flanneld reuses the network (subnet match) and cbr0_ep (IP match); attach passes', () => {
    const v1 = node();
    const first = registerHostGw(v1, LEASE);
    const before = v1.log.length;
    const second = registerHostGw(v1, LEASE);
    const calls = v1.log.slice(before).map((c) => `${c.method} ${c.path.replace(/[0-9A-F-]{36}/i, '<id>')}`);
    // a wrong reuse decision would DELETE/POST here and give the pods' gateway a new ID
    expect(calls).toEqual(['GET /networks/', 'GET /endpoints/', 'POST /endpoints/<id>/attach']);
    expect(second).toMatchObject({ createdNetwork: false, createdEndpoint: false });
    expect(second.network.ID).toBe(first.network.ID);
    expect(second.endpoint.ID).toBe(first.endpoint.ID);
    // ManagementIP now comes from the list entry (l.247: "Failed to parse … ()" if absent)
    expect(second.network.ManagementIP).toBe(NODE_IP);
    expect(second.attachTries).toEqual([`hns failed with error : ${ALREADY_ATTACHED} `]);
    expect(v1.listNetworks()).toHaveLength(1);
    expect(v1.listEndpoints()).toHaveLength(1);
  });

  // catches: DELETE /networks/ refused while cbr0_ep exists, or the vSwitch/host vNIC lost when the network is replaced
  it('a new lease (other subnet) deletes the stale cbr0 with its endpoint and creates both again', () => {
    const v1 = node();
    const old = registerHostGw(v1, LEASE);
    const before = v1.log.length;
    const lease2 = { prefix: '10.244.7.0/24', gateway: '10.244.7.1', podGateway: '10.244.7.2' };
    const r = registerHostGw(v1, lease2);
    const calls = v1.log.slice(before).map((c) => `${c.method} ${c.path.replace(/[0-9A-F-]{36}/i, '<id>')}`);
    expect(calls).toEqual([
      'GET /networks/',
      'DELETE /networks/<id>',
      'POST /networks/',
      'GET /networks/<id>',
      'GET /endpoints/',
      'POST /endpoints/',
      'POST /endpoints/<id>/attach',
    ]);
    expect(r.network.ID).not.toBe(old.network.ID);
    expect(r.network).toMatchObject({
      ManagementIP: NODE_IP,
      Subnets: [{ AddressPrefix: '10.244.7.0/24', GatewayAddress: '10.244.7.1' }],
    });
    // the old cbr0_ep went with its network (else flannel would DELETE it or reuse a dead one)
    expect(v1.listEndpoints().map((e) => [e.Name, e.IPAddress])).toEqual([['cbr0_ep', '10.244.7.2']]);
    expect(r.attachTries).toEqual([null]);
    expect(hostInterfaceWithIp(v1.host, NODE_IP)?.Name).toBe('vEthernet (Ethernet)');
  });

  // Windows gives a host-attached endpoint a host vNIC carrying its address: flannel fails fatally
  // otherwise ("failed to find interface for IP Address 10.244.1.2", l.253-256, since e6fc2a29 2018)
  // catches: a host attach that gives the host no interface for the endpoint (flannel then fails
  // fatally: "failed to find interface for IP Address 10.244.1.2")
  it('after HostAttach(1) a host interface carries the cbr0_ep address 10.244.1.2 (l.247-256)', () => {
    const v1 = node();
    registerHostGw(v1, LEASE);
    expect(hostInterfaceWithIp(v1.host, '10.244.1.2')).toMatchObject({
      Name: 'vEthernet (cbr0_ep)',
      Kind: 'HostVNic',
    });
  });
});
