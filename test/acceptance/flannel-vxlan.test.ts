/**
 * flannel vxlan on Windows against the simulator.
 *
 * Current design — flannel-io/flannel @ cdf76059 (hcsshim v0.14.1, HCN v2 plus one v1 call):
 *   `pkg/backend/vxlan/vxlan_windows.go:129-205` RegisterNetwork: `hcn.RemoteSubnetSupported()`
 *   (v1 GET /globals/version ≥ 9.2), newVXLANDevice, GetNetworkByName, the last DrMacAddress
 *   policy → `net.ParseMAC` → VtepMAC (`hardwareAddr.MarshalJSON`, l.208-213);
 *   `pkg/backend/vxlan/device_windows.go:50-253` newVXLANDevice / ensureNetwork (reuse by Type and
 *   prefix, create, poll GetNetworkByID for the first ProviderAddress, HostRoute AddPolicy);
 *   `pkg/backend/vxlan/vxlan_network_windows.go:90-169` handleSubnetEvents (RemoteSubnetRoute
 *   Remove-then-Add per remote lease, Remove on EventRemoved).
 *
 * Legacy design — flannel-io/flannel @ e6fc2a29 (2018-09-24, hcsshim v0.7.4, HNS v1 only):
 *   `backend/vxlan/device_windows.go:44-224` (ensureNetwork by POST /networks/ with a VSID subnet
 *   policy, one `remote_<ip>` endpoint per remote pod address with IsRemoteEndpoint and a PA
 *   policy, reused when the PA matches), `backend/vxlan/vxlan_network_windows.go:81-125`.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import {
  goHardwareAddrString,
  goParseIP4,
  goParseMac,
  hcnFilterQuery,
  HcnV2,
  HnsV1,
  hostInterfaceWithIp,
} from './client-flow.js';

const NODE_NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.1.11/24',
  gateway: '192.168.1.1',
  macAddress: '00-0D-3A-11-22-33',
};
const NODE_IP = '192.168.1.11';
const REMOTE_IP = '192.168.1.12';
const GUID36 = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The create document of device_windows.go:50-92 for lease 10.244.1.0/24, VNI 4096, `Ethernet`. */
const FLANNEL_NETWORK_DOC =
  '{"Name":"flannel.4096","Type":"Overlay","Policies":[{"Type":"NetAdapterName","Settings":{"NetworkAdapterName":"Ethernet"}}],' +
  '"MacPool":{},"Dns":{},"Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":"10.244.1.0/24",' +
  '"Policies":[{"Type":"VSID","Settings":{"IsolationId":4096}}],"Routes":[{"NextHop":"10.244.1.1","DestinationPrefix":"0.0.0.0/0"}]}]}],' +
  '"Flags":8,"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}';

const HOST_ROUTE_ADD =
  '{"ResourceType":"Policy","RequestType":"Add","Settings":{"Policies":[{"Type":"HostRoute","Settings":{}}]}}';

class FlannelError extends Error {}

function node(profile = 'ws2022', seed = 61): { host: Host; hcn: HcnV2; v1: HnsV1 } {
  const host = createHost({ seed, profile, adapters: [NODE_NIC] });
  return { host, hcn: new HcnV2(host), v1: new HnsV1(host) };
}

/** `wait.PollUntilContextTimeout(…, immediate=true, …)` on the simulated clock: the try count, -1 on timeout. */
function poll(host: Host, intervalMs: number, timeoutMs: number, tryOnce: () => boolean): number {
  for (let tries = 1, waited = 0; ; tries++) {
    if (tryOnce()) return tries;
    if (waited + intervalMs > timeoutMs) return -1;
    host.clock.advance(intervalMs);
    waited += intervalMs;
  }
}

function policies(net: JsonObject | undefined): JsonObject[] {
  return (net?.Policies as JsonObject[] | undefined) ?? [];
}

/** `getManagementIP` (device_windows.go:183-195): the first ProviderAddress policy's address. */
function getManagementIP(net: JsonObject | undefined): string {
  const pa = policies(net).find((p) => p.Type === 'ProviderAddress');
  const s = pa?.Settings as JsonObject | undefined;
  return typeof s?.ProviderAddress === 'string' ? s.ProviderAddress : '';
}

/** `checkHostNetworkReady` (device_windows.go:231-253): IPv4, then a host interface (5 s / 45 s). */
function checkHostNetworkReady(host: Host, net: JsonObject): void {
  const ip = goParseIP4(getManagementIP(net));
  if (!ip) throw new FlannelError(`Failed to parse management ip (${getManagementIP(net)})`);
  if (poll(host, 5000, 45000, () => hostInterfaceWithIp(host, ip) !== undefined) < 0) {
    throw new FlannelError(`timeout, failed to get net interface for HostComputeNetwork ${String(net.Name)}`);
  }
}

interface VxlanResult {
  readonly network: JsonObject;
  readonly vtepMac: string;
  readonly drMac: string;
  readonly createdNetwork: boolean;
  readonly managementIpPolls: number;
}

/** vxlan_windows.go RegisterNetwork from `RemoteSubnetSupported` on (lease 10.244.1.0/24, VNI 4096). */
function registerVxlan(host: Host, hcn: HcnV2, v1: HnsV1, doc = FLANNEL_NETWORK_DOC): VxlanResult {
  // l.129-132: GET /globals/version, RemoteSubnet needs ≥ 9.2
  const version = v1.request('GET', '/globals/version') as JsonObject;
  const major = Number(version.Major);
  const minor = Number(version.Minor);
  if (!(major > 9 || (major === 9 && minor >= 2))) {
    throw new FlannelError('platform does not support feature Remote Subnet');
  }
  const expected = JSON.parse(doc) as JsonObject;
  const name = String(expected.Name);
  const prefix = '10.244.1.0/24';

  // ensureNetwork (device_windows.go:104-181)
  let existing: JsonObject | undefined;
  try {
    existing = hcn.byName('Network', name);
  } catch {
    existing = undefined;
  }
  let reuse = false;
  // hcsshim presets Type = "NAT" before unmarshalling (hcnnetwork.go:142-146)
  if (existing && (existing.Type ?? 'NAT') === 'Overlay') {
    const ipams = existing.Ipams as JsonObject[]; // Go would panic on a missing index here
    reuse = (ipams[0]!.Subnets as JsonObject[])[0]!.IpAddressPrefix === prefix;
  }
  let network = existing;
  let managementIpPolls = 0;
  if (!reuse) {
    if (existing) hcn.deleteNetwork(String(existing.ID));
    const created = hcn.createNetwork(doc);
    managementIpPolls = poll(host, 500, 5000, () => {
      try {
        network = hcn.byId('Network', String(created.ID));
      } catch {
        network = undefined;
      }
      return network !== undefined && getManagementIP(network) !== '';
    });
    if (managementIpPolls < 0) {
      throw new FlannelError(`timeout, failed to get management IP from HostComputeNetwork ${name}`);
    }
    checkHostNetworkReady(host, network!);
  }
  if (!policies(network).some((p) => p.Type === 'HostRoute')) {
    try {
      hcn.modifyNetwork(String(network!.ID), HOST_ROUTE_ADD);
    } catch {
      // only logged: "Could not apply HostRoute policy …" (l.174-177)
    }
  }

  // l.167-187: read again, the last DrMacAddress wins, must parse with net.ParseMAC
  const hcnNetwork = hcn.byName('Network', name);
  if (!hcnNetwork) throw new FlannelError('failed to get HNS network');
  let drMac = '';
  for (const p of policies(hcnNetwork)) {
    if (p.Type === 'DrMacAddress') {
      const s = p.Settings as JsonObject | undefined;
      drMac = typeof s?.Address === 'string' ? s.Address : '';
    }
  }
  const mac = goParseMac(drMac);
  if (!mac) throw new FlannelError(`cannot parse DR MAC ${drMac}`);
  checkHostNetworkReady(host, hcnNetwork);
  // l.208-213: the lease publishes `"VtepMAC":"<HardwareAddr.String()>"`
  return {
    network: hcnNetwork,
    vtepMac: goHardwareAddrString(mac),
    drMac,
    createdNetwork: !reuse,
    managementIpPolls,
  };
}

interface LeaseEvent {
  readonly type: 'added' | 'removed';
  readonly subnet: string;
  readonly publicIP: string;
  /** The lease's BackendData JSON, e.g. `{"VNI":4096,"VtepMAC":"00:15:5d:ab:cd:ef"}`. */
  readonly backendData: string;
  readonly backendType?: string;
}

/** The 4-field `hcn.RemoteSubnetRoutePolicySetting`, marshalled in struct order, no omitempty. */
function rsrSettings(s: JsonObject): string {
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
  return JSON.stringify({
    DestinationPrefix: str(s.DestinationPrefix),
    IsolationId: num(s.IsolationId),
    ProviderAddress: str(s.ProviderAddress),
    DistributedRouterMacAddress: str(s.DistributedRouterMacAddress),
  });
}

function rsrRequest(requestType: 'Add' | 'Remove', settingsJson: string): string {
  return `{"ResourceType":"Policy","RequestType":"${requestType}","Settings":{"Policies":[{"Type":"RemoteSubnetRoute","Settings":${settingsJson}}]}}`;
}

/** vxlan_network_windows.go:90-169 for one event; returns the modify requests sent. Errors are ignored. */
function handleSubnetEvent(hcn: HcnV2, networkName: string, ev: LeaseEvent): string[] {
  const sent: string[] = [];
  if ((ev.backendType ?? 'vxlan').toLowerCase() !== 'vxlan') return sent;
  const attrs = JSON.parse(ev.backendData) as JsonObject;
  let vtepMac = '';
  if ('VtepMAC' in attrs) {
    const mac = goParseMac(attrs.VtepMAC); // "" and null fail → the event is skipped
    if (!mac) return sent;
    vtepMac = goHardwareAddrString(mac);
  }
  const vni = typeof attrs.VNI === 'number' ? attrs.VNI : 0;
  if (vni < 4096) return sent;
  let net: JsonObject | undefined;
  try {
    net = hcn.byName('Network', networkName);
  } catch {
    net = undefined;
  }
  if (!net) return sent;
  const settings = rsrSettings({
    DestinationPrefix: ev.subnet,
    IsolationId: vni,
    ProviderAddress: ev.publicIP,
    DistributedRouterMacAddress: vtepMac,
  });
  const send = (req: string): void => {
    sent.push(req);
    try {
      hcn.modifyNetwork(String(net.ID), req);
    } catch {
      // RemovePolicy / AddPolicy results are ignored
    }
  };
  if (ev.type === 'added') {
    for (const p of policies(net)) {
      if (p.Type !== 'RemoteSubnetRoute') continue;
      const existing = (p.Settings as JsonObject | undefined) ?? {};
      if (existing.DestinationPrefix === ev.subnet) send(rsrRequest('Remove', rsrSettings(existing)));
    }
    if (vtepMac !== '') send(rsrRequest('Add', settings));
  } else if (vtepMac !== '') {
    send(rsrRequest('Remove', settings));
  }
  return sent;
}

function remoteRoutes(hcn: HcnV2, name = 'flannel.4096'): JsonObject[] {
  return policies(hcn.byName('Network', name))
    .filter((p) => p.Type === 'RemoteSubnetRoute')
    .map((p) => p.Settings as JsonObject);
}

const REMOTE_LEASE: LeaseEvent = {
  type: 'added',
  subnet: '10.244.2.0/24',
  publicIP: REMOTE_IP,
  backendData: '{"VNI":4096,"VtepMAC":"00:15:5d:ab:cd:ef"}',
};

describe('flannel vxlan RegisterNetwork (vxlan_windows.go, device_windows.go @ cdf76059)', () => {
  // catches: a version document with extra keys or strings (hcsshim unmarshals {Major,Minor} ints)
  it.each([
    ['ws2019', 9, 5],
    ['ws2022', 15, 0],
    ['ws2025', 15, 4],
  ])(
    'RemoteSubnetSupported on %s: GET /globals/version answers {Major,Minor} ≥ 9.2',
    (profile, major, minor) => {
      const { v1 } = node(profile);
      const out = v1.request('GET', '/globals/version');
      expect(out).toEqual({ Major: major, Minor: minor });
    },
  );

  it("GetNetworkByName sends hcsshim's exact filter query and the enumerate honours it", () => {
    const { host, hcn } = node();
    const query = hcnFilterQuery({ Name: 'flannel.4096' });
    expect(query).toBe('{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Name\\":\\"flannel.4096\\"}"}');
    // another network first: an enumerate ignoring the filter would hand flannel element 0
    hcn.createNetwork(
      FLANNEL_NETWORK_DOC.replace('"flannel.4096"', '"other"').replaceAll('10.244.1.', '10.250.1.'),
    );
    expect(host.api.HcnEnumerateNetworks(query)).toMatchObject({ ok: true, result: [] });
    const net = hcn.createNetwork(FLANNEL_NETWORK_DOC);
    const ids = host.api.HcnEnumerateNetworks(query);
    expect(ids).toMatchObject({ ok: true, result: [net.ID] });
    // guid.FromString needs 36 characters, no braces
    expect((ids as { result: string[] }).result[0]).toMatch(GUID36);
    // the per-ID query carries the same filter string
    expect(host.api.HcnQueryNetworkProperties(String(net.ID), query)).toMatchObject({
      ok: true,
      result: { ID: net.ID, Name: 'flannel.4096' },
    });
  });

  it.each(['ws2019', 'ws2022', 'ws2025'])(
    'first start on %s: create, ProviderAddress, DR MAC, HostRoute',
    (profile) => {
      const { host, hcn, v1 } = node(profile);
      const r = registerVxlan(host, hcn, v1);
      expect(r.createdNetwork).toBe(true);

      const create = hcn.calls('HcnCreateNetwork');
      expect(create).toHaveLength(1);
      expect(create[0]!.args[1]).toBe(FLANNEL_NETWORK_DOC);
      // the first GetNetworkByID poll already carries the ProviderAddress (else a 5 s stall or failure)
      expect(r.managementIpPolls).toBe(1);

      expect(r.network).toMatchObject({
        Name: 'flannel.4096',
        Type: 'Overlay',
        Flags: 8,
        Ipams: [
          {
            Type: 'Static',
            Subnets: [
              {
                IpAddressPrefix: '10.244.1.0/24',
                Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
                Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
              },
            ],
          },
        ],
      });
      expect(r.network.ID).toMatch(GUID36);
      const ps = policies(r.network);
      expect(ps).toContainEqual({ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } });
      // getManagementIP takes the first ProviderAddress; it must be the NIC's address
      expect(getManagementIP(r.network)).toBe(NODE_IP);
      expect(ps.filter((p) => p.Type === 'ProviderAddress')).toEqual([
        { Type: 'ProviderAddress', Settings: { ProviderAddress: NODE_IP } },
      ]);
      // the last DrMacAddress must parse the way Go's net.ParseMAC parses
      const drs = ps.filter((p) => p.Type === 'DrMacAddress');
      expect(drs.length).toBeGreaterThan(0);
      expect(goParseMac((drs.at(-1)!.Settings as JsonObject).Address)).toHaveLength(6);
      // the VtepMAC flannel publishes: the DR MAC in HardwareAddr.String() form
      expect(r.vtepMac).toBe(goHardwareAddrString(goParseMac(r.drMac)!));
      expect(r.vtepMac).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);

      // HostRoute: the exact request once, and visible on the re-read (else re-added every restart)
      expect(hcn.calls('HcnModifyNetwork').map((c) => c.args[1])).toEqual([HOST_ROUTE_ADD]);
      expect(ps).toContainEqual({ Type: 'HostRoute', Settings: {} });
      // the host interface carrying the ProviderAddress is the vSwitch's host vNIC
      expect(hostInterfaceWithIp(host, NODE_IP)?.Name).toBe('vEthernet (Ethernet)');
    },
  );

  // catches: HostRoute not visible on re-read (re-added on every start) or Type/Ipams missing in the filtered query
  it('a restart reuses the network (Type + prefix), sends no create and no second HostRoute', () => {
    const { host, hcn, v1 } = node();
    const first = registerVxlan(host, hcn, v1);
    const second = registerVxlan(host, hcn, v1);
    expect(second.createdNetwork).toBe(false);
    expect(second.network.ID).toBe(first.network.ID);
    expect(second.vtepMac).toBe(first.vtepMac);
    expect(hcn.calls('HcnCreateNetwork')).toHaveLength(1);
    expect(hcn.calls('HcnDeleteNetwork')).toHaveLength(0);
    expect(hcn.calls('HcnModifyNetwork')).toHaveLength(1);
    expect(policies(second.network).filter((p) => p.Type === 'HostRoute')).toHaveLength(1);
  });

  // catches: Flags 8 (EnableNonPersistent) ignored at reboot, or a stale ProviderAddress after re-creation
  it('after a host reboot the non-persistent (Flags 8) network is gone and flannel creates it again', () => {
    const { host, hcn, v1 } = node();
    const first = registerVxlan(host, hcn, v1);
    host.reboot();
    expect(hcn.byName('Network', 'flannel.4096')).toBeUndefined();
    const again = registerVxlan(host, hcn, v1);
    expect(again.createdNetwork).toBe(true);
    expect(again.network.ID).not.toBe(first.network.ID);
    expect(getManagementIP(again.network)).toBe(NODE_IP);
    expect(policies(again.network)).toContainEqual({ Type: 'HostRoute', Settings: {} });
  });
});

describe('flannel vxlan remote leases (vxlan_network_windows.go:90-169 @ cdf76059)', () => {
  function started() {
    const n = node();
    registerVxlan(n.host, n.hcn, n.v1);
    return n;
  }

  // catches: RemoteSubnetRoute Settings normalised (MAC case/separator) or fields dropped on echo
  it('EventAdded: RemoteSubnetRoute Add with the colon lower-case MAC, stored with its four fields', () => {
    const { hcn } = started();
    const sent = handleSubnetEvent(hcn, 'flannel.4096', REMOTE_LEASE);
    expect(sent).toEqual([
      '{"ResourceType":"Policy","RequestType":"Add","Settings":{"Policies":[{"Type":"RemoteSubnetRoute","Settings":' +
        '{"DestinationPrefix":"10.244.2.0/24","IsolationId":4096,"ProviderAddress":"192.168.1.12","DistributedRouterMacAddress":"00:15:5d:ab:cd:ef"}}]}}',
    ]);
    expect(remoteRoutes(hcn)).toEqual([
      {
        DestinationPrefix: '10.244.2.0/24',
        IsolationId: 4096,
        ProviderAddress: REMOTE_IP,
        DistributedRouterMacAddress: '00:15:5d:ab:cd:ef',
      },
    ]);
  });

  it('the same lease again: Remove re-marshalled from the read-back, then Add → exactly one route', () => {
    const { hcn } = started();
    handleSubnetEvent(hcn, 'flannel.4096', REMOTE_LEASE);
    const sent = handleSubnetEvent(hcn, 'flannel.4096', REMOTE_LEASE);
    expect(sent[0]).toBe(
      '{"ResourceType":"Policy","RequestType":"Remove","Settings":{"Policies":[{"Type":"RemoteSubnetRoute","Settings":' +
        '{"DestinationPrefix":"10.244.2.0/24","IsolationId":4096,"ProviderAddress":"192.168.1.12","DistributedRouterMacAddress":"00:15:5d:ab:cd:ef"}}]}}',
    );
    expect(sent).toHaveLength(2);
    // a Remove that misses (errors are ignored) leaves a duplicate or makes the Add fail
    expect(remoteRoutes(hcn)).toHaveLength(1);
    expect(remoteRoutes(hcn)[0]).toMatchObject({ DistributedRouterMacAddress: '00:15:5d:ab:cd:ef' });
  });

  // catches: Remove matched on all fields of the new lease instead of the echoed old ones
  it('the remote node re-registers with another DR MAC: the old route is replaced, not duplicated', () => {
    const { hcn } = started();
    handleSubnetEvent(hcn, 'flannel.4096', REMOTE_LEASE);
    handleSubnetEvent(hcn, 'flannel.4096', {
      ...REMOTE_LEASE,
      backendData: '{"VNI":4096,"VtepMAC":"00:15:5d:12:34:56"}',
    });
    expect(remoteRoutes(hcn)).toEqual([
      {
        DestinationPrefix: '10.244.2.0/24',
        IsolationId: 4096,
        ProviderAddress: REMOTE_IP,
        DistributedRouterMacAddress: '00:15:5d:12:34:56',
      },
    ]);
  });

  // catches: Remove dropping every RemoteSubnetRoute instead of the one named
  it('EventRemoved: Remove with the freshly built settings removes the route; other leases stay', () => {
    const { hcn } = started();
    handleSubnetEvent(hcn, 'flannel.4096', REMOTE_LEASE);
    const third: LeaseEvent = {
      type: 'added',
      subnet: '10.244.3.0/24',
      publicIP: '192.168.1.13',
      backendData: '{"VNI":4096,"VtepMAC":"00:15:5d:00:00:03"}',
    };
    handleSubnetEvent(hcn, 'flannel.4096', third);
    expect(remoteRoutes(hcn)).toHaveLength(2);
    const sent = handleSubnetEvent(hcn, 'flannel.4096', { ...REMOTE_LEASE, type: 'removed' });
    expect(sent).toEqual([
      '{"ResourceType":"Policy","RequestType":"Remove","Settings":{"Policies":[{"Type":"RemoteSubnetRoute","Settings":' +
        '{"DestinationPrefix":"10.244.2.0/24","IsolationId":4096,"ProviderAddress":"192.168.1.12","DistributedRouterMacAddress":"00:15:5d:ab:cd:ef"}}]}}',
    ]);
    expect(remoteRoutes(hcn).map((s) => s.DestinationPrefix)).toEqual(['10.244.3.0/24']);
  });

  // catches: Remove comparing the MAC as text instead of as an address
  it("a route stored with a dash upper-case MAC is matched by flannel's colon lower-case Remove", () => {
    const { hcn } = started();
    const net = hcn.byName('Network', 'flannel.4096')!;
    // written by another client in Windows' own MAC notation; HNS echoes it as given
    const dash = rsrSettings({
      DestinationPrefix: '10.244.2.0/24',
      IsolationId: 4096,
      ProviderAddress: REMOTE_IP,
      DistributedRouterMacAddress: '00-15-5D-AB-CD-EF',
    });
    hcn.modifyNetwork(String(net.ID), rsrRequest('Add', dash));
    expect(remoteRoutes(hcn)).toEqual([
      expect.objectContaining({ DistributedRouterMacAddress: '00-15-5D-AB-CD-EF' }),
    ]);
    // EventRemoved builds the MAC from the lease: colon lower-case; it must still match
    handleSubnetEvent(hcn, 'flannel.4096', { ...REMOTE_LEASE, type: 'removed' });
    expect(remoteRoutes(hcn)).toEqual([]);
  });

  // catches: the echoed dash Remove missing the dash-stored route, so the colon Add duplicates the prefix
  it('re-add over a dash-stored route: the echoed Remove matches, one colon route remains', () => {
    const { hcn } = started();
    const net = hcn.byName('Network', 'flannel.4096')!;
    const dash = rsrSettings({
      DestinationPrefix: '10.244.2.0/24',
      IsolationId: 4096,
      ProviderAddress: REMOTE_IP,
      DistributedRouterMacAddress: '00-15-5D-AB-CD-EF',
    });
    hcn.modifyNetwork(String(net.ID), rsrRequest('Add', dash));
    const sent = handleSubnetEvent(hcn, 'flannel.4096', REMOTE_LEASE);
    expect(sent[0]).toBe(rsrRequest('Remove', dash));
    expect(remoteRoutes(hcn)).toEqual([
      expect.objectContaining({ DistributedRouterMacAddress: '00:15:5d:ab:cd:ef' }),
    ]);
  });
});

// ─────────────────────────────── legacy 2018 design (HNS v1 only) ───────────────────────────────

/** `json.Marshal(hcsshim.HNSNetwork{Name, Type, Subnets[{AddressPrefix, GatewayAddress, Policies}]})` (l.89-98). */
const LEGACY_NETWORK_BODY =
  '{"Name":"flannel.4096","Type":"Overlay","Subnets":[{"AddressPrefix":"10.244.1.0/24","GatewayAddress":"10.244.1.1",' +
  '"Policies":[{"Type":"VSID","VSID":4096}]}]}';

/** `ConjureMac` (l.217-220): the prefix as configured, the IPv4 bytes as lower-case hex. */
function conjureMac(prefix: string, ip: string): string {
  return [prefix, ...ip.split('.').map((o) => Number(o).toString(16).padStart(2, '0'))].join('-');
}

/** legacy ensureNetwork (l.61-136); returns the network as flannel keeps it. */
function legacyEnsureNetwork(host: Host, v1: HnsV1): { network: JsonObject; created: boolean } {
  const existing = v1.networkByName('flannel.4096');
  if (
    existing &&
    existing.Type === 'Overlay' &&
    ((existing.Subnets as JsonObject[] | undefined) ?? []).some(
      (s) => s.AddressPrefix === '10.244.1.0/24' && s.GatewayAddress === '10.244.1.1',
    )
  ) {
    return { network: existing, created: false };
  }
  if (existing) v1.request('DELETE', `/networks/${String(existing.ID)}`);
  const created = v1.request('POST', '/networks/', LEGACY_NETWORK_BODY) as JsonObject;
  let network = created;
  const tries = poll(host, 500, 5000, () => {
    network = v1.request('GET', `/networks/${String(created.ID)}`) as JsonObject;
    return typeof network.ManagementIP === 'string' && network.ManagementIP.length !== 0;
  });
  if (tries !== 1) throw new FlannelError(`ManagementIP not there at once (${tries})`);
  if (!hostInterfaceWithIp(host, String(network.ManagementIP))) throw new FlannelError('no interface');
  return { network, created: true };
}

/** legacy handleSubnetEvents (vxlan_network_windows.go:90-120): AddEndpoint / DelEndpoint (device_windows.go:144-215) for subnet+2 … broadcast-1. */
function legacyEvent(
  v1: HnsV1,
  networkId: string,
  type: 'added' | 'removed',
  subnet24: string,
  publicIP: string,
) {
  for (let last = 2; last < 255; last++) {
    const ip = `${subnet24}.${last}`;
    const name = `remote_${ip}`;
    const existing = v1.endpointByName(name);
    const paMatches =
      existing !== undefined &&
      existing.VirtualNetwork === networkId &&
      ((existing.Policies as JsonObject[] | undefined) ?? []).some(
        (p) => p.Type === 'PA' && p.PA === publicIP,
      );
    if (type === 'removed') {
      if (paMatches) v1.request('DELETE', `/endpoints/${String(existing.ID)}`);
      continue;
    }
    if (paMatches) continue;
    if (existing) v1.request('DELETE', `/endpoints/${String(existing.ID)}`);
    // HNSEndpoint{Name, IPAddress, MacAddress, VirtualNetwork, IsRemoteEndpoint, Policies} in struct order
    const body =
      `{"Name":"${name}","VirtualNetwork":"${networkId}","Policies":[{"Type":"PA","PA":"${publicIP}"}],` +
      `"MacAddress":"${conjureMac('0E-2A', ip)}","IPAddress":"${ip}","IsRemoteEndpoint":true}`;
    v1.request('POST', '/endpoints/', body);
  }
}

describe('flannel vxlan, legacy HNS v1 design (backend/vxlan/device_windows.go @ e6fc2a29)', () => {
  // catches: v1 subnet policies ({"Type":"VSID","VSID":n}) lost or not mapped to the v2 IsolationId
  it('creates the VSID network, ManagementIP at once, VSID visible in v1 and v2 views', () => {
    const { host, hcn, v1 } = node();
    const { network, created } = legacyEnsureNetwork(host, v1);
    expect(created).toBe(true);
    expect(v1.log[1]).toMatchObject({ method: 'POST', path: '/networks/', request: LEGACY_NETWORK_BODY });
    expect(network).toMatchObject({
      Name: 'flannel.4096',
      Type: 'Overlay',
      ManagementIP: NODE_IP,
      Subnets: [
        {
          AddressPrefix: '10.244.1.0/24',
          GatewayAddress: '10.244.1.1',
          Policies: [{ Type: 'VSID', VSID: 4096 }],
        },
      ],
    });
    // the same network through HCN v2: the VSID becomes the subnet's IsolationId
    const v2 = hcn.byId('Network', String(network.ID))!;
    expect(v2).toMatchObject({
      Type: 'Overlay',
      Ipams: [
        {
          Subnets: [
            {
              IpAddressPrefix: '10.244.1.0/24',
              Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }],
            },
          ],
        },
      ],
    });
    expect(getManagementIP(v2)).toBe(NODE_IP);
    // a restart reuses it (Type "Overlay" and the subnet compared exactly)
    expect(legacyEnsureNetwork(host, v1)).toMatchObject({ created: false, network: { ID: network.ID } });
  });

  // catches: remote endpoints checked against the local subnet, MACs normalised, or PA policies not echoed in v1 lists
  it('remote_<ip> endpoints: created with IsRemoteEndpoint and PA, listed, reused by PA, replaced, removed', () => {
    const { host, v1 } = node();
    const netId = String(legacyEnsureNetwork(host, v1).network.ID);

    legacyEvent(v1, netId, 'added', '10.244.2', REMOTE_IP);
    const posts = v1.log.filter((c) => c.method === 'POST' && c.path === '/endpoints/');
    expect(posts).toHaveLength(253);
    expect(posts[3]!.request).toBe(
      `{"Name":"remote_10.244.2.5","VirtualNetwork":"${netId}","Policies":[{"Type":"PA","PA":"192.168.1.12"}],` +
        '"MacAddress":"0E-2A-0a-f4-02-05","IPAddress":"10.244.2.5","IsRemoteEndpoint":true}',
    );
    const list = v1.listEndpoints();
    expect(list).toHaveLength(253);
    const ep5 = list.find((e) => e.Name === 'remote_10.244.2.5');
    // the mixed-case MAC is echoed exactly as sent, the PA policy as {"Type":"PA","PA":…}
    expect(ep5).toMatchObject({
      VirtualNetwork: netId,
      IPAddress: '10.244.2.5',
      MacAddress: '0E-2A-0a-f4-02-05',
      IsRemoteEndpoint: true,
      Policies: expect.arrayContaining([{ Type: 'PA', PA: REMOTE_IP }]) as unknown,
    });

    // the same lease again: every endpoint is found by name and PA, nothing is sent
    const mark = v1.log.length;
    legacyEvent(v1, netId, 'added', '10.244.2', REMOTE_IP);
    expect(v1.log.slice(mark).filter((c) => c.method !== 'GET')).toEqual([]);

    // the remote node's address changed: each endpoint is deleted and created with the new PA
    const mark2 = v1.log.length;
    legacyEvent(v1, netId, 'added', '10.244.2', '192.168.1.99');
    const after = v1.log.slice(mark2);
    expect(after.filter((c) => c.method === 'DELETE')).toHaveLength(253);
    expect(after.filter((c) => c.method === 'POST')).toHaveLength(253);
    expect(
      v1.listEndpoints().every((e) => (e.Policies as JsonObject[]).some((p) => p.PA === '192.168.1.99')),
    ).toBe(true);

    // EventRemoved: deleted where the PA matches
    legacyEvent(v1, netId, 'removed', '10.244.2', '192.168.1.99');
    expect(v1.listEndpoints()).toEqual([]);
  });
});
