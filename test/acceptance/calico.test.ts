/**
 * Calico on Windows against the simulator: what calico-node, the Calico CNI plugin and Felix send to
 * HNS and read back, replayed call by call (facts and bodies: /work/research/calico.md, cited as §).
 *
 * Upstream: projectcalico/calico @ 87c15906 — `node/windows-packaging/CalicoWindows/node/node-service.ps1`
 * L116–141 (the External network), `node/pkg/lifecycle/startup/startup_windows.go` L51–115,
 * `cni-plugin/pkg/dataplane/windows/dataplane_windows.go` (L88–131 setup, L134–266 DoNetworking,
 * L298–417 ensureVxlanNetworkExists, L419–473 EnsureNetworkExists, L475–507 EnsureVXLANTunnelAddr,
 * L509–556 createAndAttachVxlanHostEP, L558–609 CreateAndAttachHostEP, L611–666
 * chkMgmtIPandEnableForwarding, L680–777 policies, L788–856 endpoints, L1040–1067 CleanUpNamespace,
 * L1117–1180 GetDRMACAddr), `cni-plugin/win_tests/calico_cni_k8s_windows_test.go` (FV expectations
 * L277–293, L1856–1886), `felix/dataplane/windows/endpoint_mgr.go` (L170–245 discovery, L526–551
 * applyRules), `felix/dataplane/windows/vxlan_mgr.go` L107–253; microsoft/hcsshim v0.14.1 (fb5aa2e9)
 * `internal/hns/*` (v1) and `hcn/*` (v2); containernetworking/plugins v1.9.1 (adc3e6b5)
 * `pkg/hns/endpoint_windows.go`; microsoft/SDN @ 2d564cc8 `Kubernetes/windows/hns.psm1`
 * `New-HnsNetwork` (the body the install script's `New-HNSNetwork` sends).
 *
 * The host has one NIC, `Ethernet 2` at 10.0.0.4/24 with MAC 00-15-5D-AA-BB-CC, so the management
 * IP HNS must report and the MAC Calico reads from the OS are test literals.
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { DEFAULT_QUERY, filterQuery, HcsshimFlow } from './hcsshim-flow.js';
import { newNamespace } from './hcsshim-vectors.js';
import {
  createEndpointText,
  goMac,
  goParseMac,
  goV1Endpoint,
  modifyText,
  policiesOf,
  policiesOfType,
  v1ByName,
  v1Call,
  v1Ok,
} from './calico-azure-flow.js';

const MGMT_IP = '10.0.0.4';
/** `GetMacAddr(ManagementIP)`: the NIC's `HardwareAddr.String()` (§2 A2) for MAC 00-15-5D-AA-BB-CC. */
const HOST_NIC_MAC_GO = '00:15:5d:aa:bb:cc';
const ADAPTER = {
  name: 'Ethernet 2',
  ipAddress: '10.0.0.4/24',
  gateway: '10.0.0.1',
  macAddress: '00-15-5D-AA-BB-CC',
};

const BLOCK = '10.244.1.0/26';
const BLOCK_GW = '10.244.1.1';
const HOST_EP_IP = '10.244.1.2';
const POD_IP = '10.244.1.5';
/** `vxlan_mac_prefix` "0E-2A" + `%02x` of 10.244.1.5 (§4 C2): mixed case on purpose. */
const POD_MAC = '0E-2A-0a-f4-01-05';
/** A containerd sandbox / docker container ID (calico#4682). */
const CID = '0dd146321a68d26b7d32e1bdf87ed5967296e58d97918858fb27c2ca55e3b586';
const POD_EP_NAME = `${CID}_Calico`;

/** `New-HNSNetwork -Type Overlay … -Name "External" -SubnetPolicies @(@{Type="VSID";VSID=9999}) -AdapterName` (hns.psm1 keys; PowerShell hashtable order is not significant). */
const EXTERNAL_OVERLAY =
  '{"Type":"Overlay","Name":"External","Subnets":[{"AddressPrefix":"192.168.255.0/30","GatewayAddress":"192.168.255.1",' +
  '"Policies":[{"Type":"VSID","VSID":9999}]}],"NetworkAdapterName":"Ethernet 2"}';
/** The same command with `-Type L2Bridge` and no VSID (§2). */
const EXTERNAL_L2BRIDGE =
  '{"Type":"L2Bridge","Name":"External","Subnets":[{"AddressPrefix":"192.168.255.0/30","GatewayAddress":"192.168.255.1"}],' +
  '"NetworkAdapterName":"Ethernet 2"}';
/** §2 A1 step 2: Calico's VXLAN network, no adapter name (dataplane_windows.go L343–359). */
const CALICO_OVERLAY =
  '{"Name":"Calico","Type":"Overlay","Subnets":[{"AddressPrefix":"10.244.1.0/26","GatewayAddress":"10.244.1.1",' +
  '"Policies":[{"Type":"VSID","VSID":4096}]}]}';
/** §3 step 1: built from a Go map, so the keys are sorted. */
const CALICO_L2BRIDGE =
  '{"Name":"Calico","Subnets":[{"AddressPrefix":"10.244.1.0/26","GatewayAddress":"10.244.1.1"}],"Type":"L2Bridge"}';
/** §2 A1 step 4. */
const HOST_ROUTE_ADD =
  '{"ResourceType":"Policy","RequestType":"Add","Settings":{"Policies":[{"Type":"HostRoute","Settings":{}}]}}';
/** §4 C3a step 5: the ACL `ApplyACLPolicy` appends (hcsshim ACLPolicy key order). */
const DEFAULT_DENY_V1: JsonObject = {
  Type: 'ACL',
  Id: 'CNIDefaultDenyAllPolicy',
  Protocol: 256,
  Action: 'Block',
  Direction: 'In',
  RuleType: 'Switch',
  Priority: 65500,
};
/** §4 C3b step 4. */
const DEFAULT_DENY_V2_UPDATE =
  '{"ResourceType":"Policy","RequestType":"Update","Settings":{"Policies":[{"Type":"ACL","Settings":' +
  '{"Protocols":"256","Action":"Block","Direction":"In","RuleType":"Switch","Priority":65500}}]}}';

function calicoHost(): HcsshimFlow {
  return new HcsshimFlow(createHost({ seed: 31, profile: 'ws2022', adapters: [ADAPTER] }));
}

/** `Calico_ep` (§2 A2 step 2). */
function calicoEpBody(netId: string): string {
  return (
    `{"Name":"Calico_ep","VirtualNetwork":"${netId}","Policies":[{"Type":"PA","PA":"${MGMT_IP}"}],` +
    `"MacAddress":"${HOST_NIC_MAC_GO}","IPAddress":"${HOST_EP_IP}","IsRemoteEndpoint":true}`
  );
}

/** §4 C3a step 2: the v1 pod endpoint, VXLAN with DSR. */
function podEpV1Body(netId: string): string {
  return (
    `{"Name":"${POD_EP_NAME}","VirtualNetwork":"${netId}","Policies":[` +
    '{"ExceptionList":["10.96.0.0/12","10.244.0.0/16"],"Type":"OutBoundNAT"},' +
    '{"Type":"ROUTE","DestinationPrefix":"10.96.0.0/12","NeedEncap":true},' +
    `{"Type":"PA","PA":"${MGMT_IP}"},{"Type":"OutBoundNAT","Destinations":["${POD_IP}"]}],` +
    `"MacAddress":"${POD_MAC}","IPAddress":"${POD_IP}","DNSSuffix":"svc.cluster.local","DNSServerList":"10.96.0.10",` +
    `"GatewayAddress":"${BLOCK_GW}"}`
  );
}

/** §4 C3b step 2: the v2 pod endpoint, VXLAN, containerd, DSR (`SDNROUTE` upper-case, no PrefixLength). */
function podEpV2Body(netId: string): string {
  return (
    `{"Name":"${POD_EP_NAME}","HostComputeNetwork":"${netId}","Policies":[` +
    '{"Type":"OutBoundNAT","Settings":{"Exceptions":["10.96.0.0/12","10.244.0.0/16"]}},' +
    '{"Type":"SDNROUTE","Settings":{"DestinationPrefix":"10.96.0.0/12","NeedEncap":true}},' +
    `{"Type":"ProviderAddress","Settings":{"ProviderAddress":"${MGMT_IP}"}},` +
    `{"Type":"OutBoundNAT","Settings":{"Destinations":["${POD_IP}"]}}],` +
    `"IpConfigurations":[{"IpAddress":"${POD_IP}"}],"Dns":{"Search":["svc.cluster.local"],"ServerList":["10.96.0.10"]},` +
    `"Routes":[{"NextHop":"${BLOCK_GW}","DestinationPrefix":"0.0.0.0/0"}],"MacAddress":"${POD_MAC}",` +
    '"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}'
  );
}

/** Felix's ACL rules from §5 D3 (ingress allow TCP 80 from a /26, default profile egress allow). */
const FELIX_RULES: JsonObject[] = [
  {
    Type: 'ACL',
    Id: 'allow-host-to-endpoint',
    Protocol: 256,
    Action: 'Allow',
    Direction: 'In',
    RemoteAddresses: '10.0.0.4/32,10.244.1.2/32',
    RuleType: 'Switch',
    Priority: 900,
  },
  {
    Type: 'ACL',
    Id: 'policy-NetworkPolicy/demo/allow-nginx-rule1-0',
    Protocol: 6,
    Action: 'Allow',
    Direction: 'In',
    RemoteAddresses: '10.244.2.0/26',
    LocalPorts: '80',
    RuleType: 'Switch',
    Priority: 1000,
  },
  { Type: 'ACL', Protocol: 256, Action: 'Block', Direction: 'In', RuleType: 'Switch', Priority: 1001 },
  { Type: 'ACL', Protocol: 256, Action: 'Allow', Direction: 'In', RuleType: 'Host' },
  { Type: 'ACL', Protocol: 256, Action: 'Allow', Direction: 'Out', RuleType: 'Switch', Priority: 1000 },
  { Type: 'ACL', Protocol: 256, Action: 'Allow', Direction: 'Out', RuleType: 'Host' },
];

/** `getHnsPolicyRules` after the NetworkPolicy is deleted: host-to-endpoint, host rules, profile egress. */
const FELIX_RULES_FEWER: JsonObject[] = [FELIX_RULES[0]!, FELIX_RULES[3]!, FELIX_RULES[4]!, FELIX_RULES[5]!];

/** `applyRules` (§5 D3): a fresh `HNSEndpoint{Id}` plus the rules → `{"ID":…,"Policies":[…]}`. */
function felixBody(id: string, rules: readonly JsonObject[]): string {
  return JSON.stringify({ ID: id, Policies: rules });
}

/** The host-NIC check Calico does with `net.Interfaces()` (§2 A1 step 2, §3 step 3): an interface holding `ip`. */
function hostNicHolding(hcn: HcsshimFlow, ip: string): JsonObject | undefined {
  return hcn.host.adapters().find((a) => a.IPv4Address === ip);
}

/**
 * The calico-node VXLAN startup of §2 (A1 + A2) with the checks Calico's own code makes; returns the
 * v1 network as `GET /networks/` shows it.
 */
function startVxlan(hcn: HcsshimFlow): JsonObject {
  const host = hcn.host;
  v1Ok(host, 'POST', '/networks/', EXTERNAL_OVERLAY);
  expect(v1ByName(host, 'networks', 'Calico')).toBeUndefined();
  const created = v1Ok(host, 'POST', '/networks/', CALICO_OVERLAY) as JsonObject;
  const id = String(created.ID);
  expect((v1Ok(host, 'GET', `/networks/${id}`) as JsonObject).ManagementIP).toBe(MGMT_IP);
  const [v2] = hcn.byId('Network', id);
  expect(v2, 'Could not find vxlan0 in V2').toBeDefined();
  if (!policiesOf(v2).some((p) => p.Type === 'HostRoute')) modifyText(hcn, 'Network', id, HOST_ROUTE_ADD);
  v1Ok(host, 'POST', '/endpoints/', calicoEpBody(id));
  return v1ByName(host, 'networks', 'Calico')!;
}

/** `ensureVxlanNetworkExists`' keep test (§2 A1 step 1, L321–331): exact string compares. */
function vxlanNetworkMatches(n: JsonObject | undefined): boolean {
  if (!n || n.Type !== 'Overlay') return false;
  const subnets = (n.Subnets as JsonObject[] | undefined) ?? [];
  return subnets.some((s) => s.AddressPrefix === BLOCK && s.GatewayAddress === BLOCK_GW);
}

/** `createAndAttachVxlanHostEP`' reuse test (§2 A2 step 1, L518–526): exact VirtualNetwork, PA = ManagementIP. */
function vxlanHostEpReusable(ep: JsonObject | undefined, network: JsonObject): boolean {
  if (!ep || ep.VirtualNetwork !== network.ID) return false;
  return policiesOf(ep).some((p) => p.Type === 'PA' && p.PA === network.ManagementIP);
}

/** Felix's endpoint discovery filter (§5 D2, endpoint_mgr.go L170–245), keyed by `IPAddress/32`. */
function felixEndpoints(hcn: HcsshimFlow): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  for (const ep of v1Ok(hcn.host, 'GET', '/endpoints/') as JsonObject[]) {
    if (ep.IsRemoteEndpoint === true) continue;
    if (!/calico.*/i.test(String(ep.VirtualNetworkName ?? ''))) continue;
    if (ep.State !== 2 && ep.State !== 3) continue;
    out.set(`${String(ep.IPAddress)}/32`, ep);
  }
  return out;
}

/** §4 C3a steps 1–5 on a VXLAN node: create, (HCS) attach, re-read by name, ApplyACLPolicy. Returns the endpoint ID. */
function cniAddV1(hcn: HcsshimFlow, network: JsonObject): string {
  const host = hcn.host;
  expect(v1ByName(host, 'endpoints', POD_EP_NAME)).toBeUndefined();
  const created = v1Ok(host, 'POST', '/endpoints/', podEpV1Body(String(network.ID))) as JsonObject;
  const id = String(created.ID);
  // HotAttachEndpoint: IsAttached reads SharedContainers; the attach itself is HCS's ModifyComputeSystem,
  // which this simulator has no layer for: the v1 container attach puts the container on the endpoint.
  const before = v1Ok(host, 'GET', `/endpoints/${id}`) as JsonObject;
  expect(((before.SharedContainers as string[] | undefined) ?? []).some((c) => c.toLowerCase() === CID)).toBe(
    false,
  );
  v1Ok(host, 'POST', `/endpoints/${id}/attach`, `{"ContainerId":"${CID}","SystemType":"Container"}`);
  const readBack = v1ByName(host, 'endpoints', POD_EP_NAME)!;
  const body = goV1Endpoint(readBack);
  body.Policies = [...policiesOf(body), DEFAULT_DENY_V1];
  v1Ok(host, 'POST', `/endpoints/${String(readBack.ID)}`, JSON.stringify(body));
  return id;
}

/** §4 C3b steps 1–4 on a VXLAN node: create, namespace add, ACL Update. Returns the create result. */
function cniAddV2(hcn: HcsshimFlow, network: JsonObject, netnsLower: string): JsonObject {
  expect(hcn.byName('Endpoint', POD_EP_NAME)).toEqual([]);
  const ep = createEndpointText(hcn, String(network.ID), podEpV2Body(String(network.ID)));
  const id = String(ep.ID);
  modifyText(
    hcn,
    'Namespace',
    netnsLower,
    `{"ResourceType":"Endpoint","RequestType":"Add","Settings":{"EndpointId":"${id}"}}`,
  );
  modifyText(hcn, 'Endpoint', id, DEFAULT_DENY_V2_UPDATE);
  return ep;
}

function withoutAcls(policies: readonly JsonObject[]): JsonObject[] {
  return policies.filter((p) => p.Type !== 'ACL');
}

describe('Calico startup, VXLAN backend (calico.md §2)', () => {
  it('node-service.ps1: the External Overlay network binds Ethernet 2 and reports its address as ManagementIP', () => {
    const hcn = calicoHost();
    const out = v1Ok(hcn.host, 'POST', '/networks/', EXTERNAL_OVERLAY) as JsonObject;
    expect(out).toMatchObject({
      ID: expect.stringMatching(/^[0-9A-F]{8}(-[0-9A-F]{4}){3}-[0-9A-F]{12}$/),
      Name: 'External',
      Type: 'Overlay',
      Subnets: [
        {
          AddressPrefix: '192.168.255.0/30',
          GatewayAddress: '192.168.255.1',
          Policies: [{ Type: 'VSID', VSID: 9999 }],
        },
      ],
    });
    // the script waits for ManagementIP on that network (rke2#3925 shows it with the VSID subnet)
    expect((v1Ok(hcn.host, 'GET', `/networks/${String(out.ID)}`) as JsonObject).ManagementIP).toBe(MGMT_IP);
    expect(hostNicHolding(hcn, MGMT_IP)?.Name).toBe('vEthernet (Ethernet 2)');
  });

  it('ensureVxlanNetworkExists: v1 create without an adapter, ManagementIP poll, v2 GetNetworkByID(v1 ID), HostRoute Add', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    v1Ok(host, 'POST', '/networks/', EXTERNAL_OVERLAY);
    expect(vxlanNetworkMatches(v1ByName(host, 'networks', 'Calico'))).toBe(false);
    const created = v1Ok(host, 'POST', '/networks/', CALICO_OVERLAY) as JsonObject;
    const id = String(created.ID);
    expect(vxlanNetworkMatches(created)).toBe(true);
    // poll GET /networks/<newId> until ManagementIP != "" (L367–373): the first read must already have it
    // (bug caught: ManagementIP only on the network that named the adapter, or only after a delay)
    expect((v1Ok(host, 'GET', `/networks/${id}`) as JsonObject).ManagementIP).toBe(MGMT_IP);
    expect(hostNicHolding(hcn, MGMT_IP)).toBeDefined();

    // v2 by the ID exactly as v1 returned it (calico#9120: "Could not find vxlan0 in V2")
    const byId = hcn.byId('Network', id);
    expect(byId).toHaveLength(1);
    expect(byId[0]).toMatchObject({ Name: 'Calico', Type: 'Overlay' });
    expect(policiesOf(byId[0]).some((p) => p.Type === 'HostRoute')).toBe(false);
    const after = modifyText(hcn, 'Network', id, HOST_ROUTE_ADD);
    expect(policiesOfType(after, 'HostRoute')).toHaveLength(1);

    // the next CNI ADD / node restart runs the same code: the network is kept and HostRoute not re-added
    const again = v1ByName(host, 'networks', 'Calico');
    expect(vxlanNetworkMatches(again)).toBe(true);
    expect(again!.ID).toBe(id);
    expect(policiesOfType(hcn.byId('Network', id)[0], 'HostRoute')).toHaveLength(1);
  });

  it('createAndAttachVxlanHostEP: Calico_ep keeps its colon MAC, VirtualNetwork is network.Id exactly, PA = ManagementIP', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    v1Ok(host, 'POST', '/networks/', EXTERNAL_OVERLAY);
    const network = v1Ok(host, 'POST', '/networks/', CALICO_OVERLAY) as JsonObject;
    const netId = String(network.ID);
    // GetMacAddr(ManagementIP): the OS NIC holding the management IP, as Go prints it
    expect(goMac(hostNicHolding(hcn, MGMT_IP)?.MacAddress)).toBe(HOST_NIC_MAC_GO);
    expect(calicoEpBody(netId)).toBe(
      `{"Name":"Calico_ep","VirtualNetwork":"${netId}","Policies":[{"Type":"PA","PA":"10.0.0.4"}],` +
        '"MacAddress":"00:15:5d:aa:bb:cc","IPAddress":"10.244.1.2","IsRemoteEndpoint":true}',
    );
    const out = v1Ok(host, 'POST', '/endpoints/', calicoEpBody(netId)) as JsonObject;
    expect(out.MacAddress).toBe(HOST_NIC_MAC_GO);

    // FV test L1869–1877 and the reuse test of the next run (bug caught: MAC normalised to dash form,
    // VirtualNetwork re-cased, PA policy not rendered back in v1 form)
    const ep = v1ByName(host, 'endpoints', 'Calico_ep');
    expect(ep).toMatchObject({
      MacAddress: HOST_NIC_MAC_GO,
      VirtualNetworkName: 'Calico',
      IPAddress: HOST_EP_IP,
      IsRemoteEndpoint: true,
    });
    expect(ep!.VirtualNetwork).toBe(network.ID);
    const networkNow = v1ByName(host, 'networks', 'Calico')!;
    expect(networkNow.ManagementIP).toBe(MGMT_IP);
    expect(vxlanHostEpReusable(ep, networkNow)).toBe(true);
    // a remote endpoint is not Felix's: it is skipped by the IsRemoteEndpoint test
    expect(felixEndpoints(hcn).size).toBe(0);
  });

  it('GetDRMACAddr: v2 DrMacAddress + ProviderAddress (= v1 ManagementIP); VXLANTunnelMACAddr in Go form', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    startVxlan(hcn);
    const v1net = v1ByName(host, 'networks', 'Calico')!;
    const [v2net] = hcn.byName('Network', 'Calico');
    const version = v1Ok(host, 'GET', '/globals/version') as JsonObject;
    // RemoteSubnetSupported: version >= 9.2 (hcn/hcn.go L148)
    const major = Number(version.Major);
    const minor = Number(version.Minor);
    expect(major > 9 || (major === 9 && minor >= 2)).toBe(true);

    const drMacs = policiesOfType(v2net, 'DrMacAddress').map((p) => (p.Settings as JsonObject).Address);
    const pas = policiesOfType(v2net, 'ProviderAddress').map(
      (p) => (p.Settings as JsonObject).ProviderAddress,
    );
    expect(drMacs).toHaveLength(1);
    expect(pas).toEqual([MGMT_IP]);
    expect(pas[0]).toBe(v1net.ManagementIP);
    const mac = goParseMac(String(drMacs[0]));
    expect(mac, `net.ParseMAC(${String(drMacs[0])})`).toBeDefined();
    expect(mac).toHaveLength(6);
    // node.Spec.VXLANTunnelMACAddr = mac.String() (FV test L1856–1859)
    const tunnelMac = goMac(drMacs[0]);
    expect(tunnelMac).toMatch(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    expect(tunnelMac).toBe(String(drMacs[0]).toLowerCase().replaceAll('-', ':'));
    // calico-node tries 3 times and the CNI recomputes it on every ADD: the DR MAC must not move
    // (bug caught: a DR MAC drawn per query)
    const [reread] = hcn.byName('Network', 'Calico');
    expect(policiesOfType(reread, 'DrMacAddress')).toEqual(policiesOfType(v2net, 'DrMacAddress'));
  });
});

describe('Calico startup, windows-bgp backend: L2Bridge (calico.md §3)', () => {
  it('EnsureNetworkExists + CreateAndAttachHostEP + chkMgmtIPandEnableForwarding', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    v1Ok(host, 'POST', '/networks/', EXTERNAL_L2BRIDGE);
    expect(v1ByName(host, 'networks', 'Calico')).toBeUndefined();
    const network = v1Ok(host, 'POST', '/networks/', CALICO_L2BRIDGE) as JsonObject;
    // the create Output is used directly as the network, including its Id (FV test L277–293)
    expect(network).toMatchObject({
      Name: 'Calico',
      Type: 'L2Bridge',
      Subnets: [{ AddressPrefix: BLOCK, GatewayAddress: BLOCK_GW }],
    });
    const netId = String(network.ID);

    expect(v1ByName(host, 'endpoints', 'Calico_ep')).toBeUndefined();
    const hostEpBody = `{"Name":"Calico_ep","VirtualNetwork":"${netId}","IPAddress":"${HOST_EP_IP}"}`;
    const created = v1Ok(host, 'POST', '/endpoints/', hostEpBody) as JsonObject;
    expect(
      v1Call(
        host,
        'POST',
        `/endpoints/${String(created.ID)}/attach`,
        '{"SystemType":"Host","CompartmentId":1}',
      ),
    ).toEqual({ Success: true });

    // loop GET /networks/ by name until ManagementIP is set and a host NIC holds it
    const polled = v1ByName(host, 'networks', 'Calico')!;
    expect(polled.ManagementIP).toBe(MGMT_IP);
    expect(hostNicHolding(hcn, MGMT_IP)).toBeDefined();

    // FV test: the host endpoint read back; GatewayAddress = block .1 although Calico sent none
    // (bug caught: GatewayAddress only echoed when given)
    const hostEp = v1ByName(host, 'endpoints', 'Calico_ep')!;
    expect(hostEp).toMatchObject({
      IPAddress: HOST_EP_IP,
      GatewayAddress: BLOCK_GW,
      VirtualNetworkName: 'Calico',
    });
    expect(String(hostEp.VirtualNetwork).toUpperCase()).toBe(netId.toUpperCase());
    goMac(hostEp.MacAddress); // L2Bridge sends no MAC: HNS assigns one, parseable by Go
    expect(hostEp.State === 2 || hostEp.State === 3).toBe(true);

    // the next run: network kept (subnet matches), host endpoint kept and not re-attached
    const again = v1ByName(host, 'networks', 'Calico')!;
    expect(
      (again.Subnets as JsonObject[]).some((s) => s.AddressPrefix === BLOCK && s.GatewayAddress === BLOCK_GW),
    ).toBe(true);
    const epAgain = v1ByName(host, 'endpoints', 'Calico_ep')!;
    expect(
      epAgain.IPAddress === HOST_EP_IP &&
        String(epAgain.VirtualNetwork).toUpperCase() === netId.toUpperCase(),
    ).toBe(true);
  });

  it('CNI ADD v1 on L2Bridge: no MAC sent (HNS assigns one), gateway .2 echoed, sorted-key policies accepted', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    v1Ok(host, 'POST', '/networks/', EXTERNAL_L2BRIDGE);
    const netId = String((v1Ok(host, 'POST', '/networks/', CALICO_L2BRIDGE) as JsonObject).ID);
    // §4 C3a "for L2Bridge": no MacAddress, the /32 ROUTE to the management IP instead of PA, GatewayAddress .2
    const body =
      `{"Name":"${POD_EP_NAME}","VirtualNetwork":"${netId}","Policies":[` +
      '{"ExceptionList":["10.96.0.0/12","10.244.0.0/16"],"Type":"OutBoundNAT"},' +
      '{"Type":"ROUTE","DestinationPrefix":"10.96.0.0/12","NeedEncap":true},' +
      `{"DestinationPrefix":"${MGMT_IP}/32","NeedEncap":true,"Type":"ROUTE"}],` +
      `"IPAddress":"${POD_IP}","DNSSuffix":"svc.cluster.local","DNSServerList":"10.96.0.10","GatewayAddress":"${HOST_EP_IP}"}`;
    v1Ok(host, 'POST', '/endpoints/', body);
    const ep = v1ByName(host, 'endpoints', POD_EP_NAME)!;
    expect(ep).toMatchObject({ IPAddress: POD_IP, GatewayAddress: HOST_EP_IP, VirtualNetworkName: 'Calico' });
    goMac(ep.MacAddress);
    expect(policiesOfType(ep, 'ROUTE')).toEqual([
      { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
      { Type: 'ROUTE', DestinationPrefix: `${MGMT_IP}/32`, NeedEncap: true },
    ]);
  });
});

describe('Calico CNI ADD (calico.md §4)', () => {
  it('C3a v1/dockershim: the exact body; the mixed-case MAC echoed exactly; State 2 after attach; EncapOverhead 50', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    const network = startVxlan(hcn);
    const netId = String(network.ID);
    expect(podEpV1Body(netId)).toBe(
      `{"Name":"${POD_EP_NAME}","VirtualNetwork":"${netId}","Policies":[{"ExceptionList":["10.96.0.0/12","10.244.0.0/16"],` +
        '"Type":"OutBoundNAT"},{"Type":"ROUTE","DestinationPrefix":"10.96.0.0/12","NeedEncap":true},' +
        '{"Type":"PA","PA":"10.0.0.4"},{"Type":"OutBoundNAT","Destinations":["10.244.1.5"]}],' +
        '"MacAddress":"0E-2A-0a-f4-01-05","IPAddress":"10.244.1.5","DNSSuffix":"svc.cluster.local",' +
        '"DNSServerList":"10.96.0.10","GatewayAddress":"10.244.1.1"}',
    );
    const created = v1Ok(host, 'POST', '/endpoints/', podEpV1Body(netId)) as JsonObject;
    // bug caught: MAC normalised (upper-cased) on store (calico#4682 shows 0E-2A-0a-01-12-43 verbatim)
    expect(created.MacAddress).toBe(POD_MAC);
    v1Ok(
      host,
      'POST',
      `/endpoints/${String(created.ID)}/attach`,
      `{"ContainerId":"${CID}","SystemType":"Container"}`,
    );

    // step 4: re-read by name; FV test L1880–1886
    const ep = v1ByName(host, 'endpoints', POD_EP_NAME)!;
    expect(ep.MacAddress).toBe(POD_MAC);
    expect(ep.GatewayAddress).toBe(BLOCK_GW);
    expect(String(ep.VirtualNetwork).toUpperCase()).toBe(netId.toUpperCase());
    expect(ep.VirtualNetworkName).toBe('Calico');
    // k8s.go L449–455: the WEP stores net.ParseMAC(mac).String()
    expect(goMac(ep.MacAddress)).toBe('0e:2a:0a:f4:01:05');
    // calico#4682: HNS fills EncapOverhead 50 on an Overlay endpoint Calico never sent it for
    expect(ep.EncapOverhead).toBe(50);
    // Felix (§5 D2) finds it: State 2/3, VirtualNetworkName, IPAddress/32
    expect(felixEndpoints(hcn).get(`${POD_IP}/32`)?.ID).toBe(created.ID);
    expect(ep.SharedContainers).toEqual([CID]);
  });

  it('C3a default-deny: ApplyACLPolicy re-posts the whole read-back endpoint plus the ACL; nothing duplicated, the ACL echoed with Protocol 256', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    const network = startVxlan(hcn);
    const created = v1Ok(host, 'POST', '/endpoints/', podEpV1Body(String(network.ID))) as JsonObject;
    const id = String(created.ID);
    v1Ok(host, 'POST', `/endpoints/${id}/attach`, `{"ContainerId":"${CID}","SystemType":"Container"}`);
    const readBack = v1ByName(host, 'endpoints', POD_EP_NAME)!;
    const v2Before = hcn.get('Endpoint', id);

    const body = goV1Endpoint(readBack);
    body.Policies = [...policiesOf(body), DEFAULT_DENY_V1];
    expect(JSON.stringify(DEFAULT_DENY_V1)).toBe(
      '{"Type":"ACL","Id":"CNIDefaultDenyAllPolicy","Protocol":256,"Action":"Block","Direction":"In",' +
        '"RuleType":"Switch","Priority":65500}',
    );
    // what hcsshim re-serialises: its own fields only, read-only ones included, HNS's bookkeeping dropped
    expect(Object.keys(body)).toEqual(
      expect.arrayContaining([
        'ID',
        'VirtualNetworkName',
        'Policies',
        'EncapOverhead',
        'SharedContainers',
        'State',
      ]),
    );
    expect(body).not.toHaveProperty('ActivityId');
    const output = v1Ok(host, 'POST', `/endpoints/${id}`, JSON.stringify(body)) as JsonObject;

    // bug caught: the round trip appending the read-back OutBoundNAT/ROUTE/PA a second time
    const expectedPolicies = [
      { ExceptionList: ['10.96.0.0/12', '10.244.0.0/16'], Type: 'OutBoundNAT' },
      { Type: 'ROUTE', DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
      { Type: 'PA', PA: MGMT_IP },
      { Type: 'OutBoundNAT', Destinations: [POD_IP] },
      DEFAULT_DENY_V1,
    ];
    for (const view of [output, v1ByName(host, 'endpoints', POD_EP_NAME)!]) {
      expect(policiesOf(view)).toHaveLength(expectedPolicies.length);
      expect(policiesOf(view)).toEqual(expect.arrayContaining(expectedPolicies));
      // every other field as before the round trip
      const { Policies: _a, ...restAfter } = goV1Endpoint(view);
      const { Policies: _b, ...restBefore } = goV1Endpoint(readBack);
      expect(restAfter).toEqual(restBefore);
    }
    // the v2 view keeps the CNI's policies once each (the read-only EncapOverhead re-sent in the body is
    // left out of this comparison: see the report)
    const v2After = hcn.get('Endpoint', id);
    const cni = (e: JsonObject) => withoutAcls(policiesOf(e)).filter((p) => p.Type !== 'EncapOverhead');
    expect(cni(v2After)).toEqual(cni(v2Before));
    expect(policiesOfType(v2After, 'ACL')).toHaveLength(1);
    expect(v2After.MacAddress).toBe(POD_MAC);
    expect(felixEndpoints(hcn).get(`${POD_IP}/32`)?.ID).toBe(created.ID);
  });

  it('C3b v2/containerd: the exact body (SDNROUTE, v1-case network ID, no PrefixLength), namespace add, ACL-only Update keeps the rest', () => {
    const hcn = calicoHost();
    const network = startVxlan(hcn);
    const netId = String(network.ID);
    expect(podEpV2Body(netId)).toBe(
      `{"Name":"${POD_EP_NAME}","HostComputeNetwork":"${netId}","Policies":[{"Type":"OutBoundNAT","Settings":` +
        '{"Exceptions":["10.96.0.0/12","10.244.0.0/16"]}},{"Type":"SDNROUTE","Settings":{"DestinationPrefix":' +
        '"10.96.0.0/12","NeedEncap":true}},{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.0.4"}},' +
        '{"Type":"OutBoundNAT","Settings":{"Destinations":["10.244.1.5"]}}],"IpConfigurations":[{"IpAddress":' +
        '"10.244.1.5"}],"Dns":{"Search":["svc.cluster.local"],"ServerList":["10.96.0.10"]},"Routes":[{"NextHop":' +
        '"10.244.1.1","DestinationPrefix":"0.0.0.0/0"}],"MacAddress":"0E-2A-0a-f4-01-05","Health":{"Extra":{}},' +
        '"SchemaVersion":{"Major":2,"Minor":0}}',
    );
    // containerd made the sandbox namespace; Calico gets its GUID (lower-case) as args.Netns
    const netns = String(hcn.createNamespace(newNamespace('Host')).ID).toLowerCase();

    const createResult = cniAddV2(hcn, network, netns);
    // step 5: contVethMAC comes from the create result (bug caught: MAC re-cased)
    expect(createResult.MacAddress).toBe(POD_MAC);
    expect(goMac(createResult.MacAddress)).toBe('0e:2a:0a:f4:01:05');
    const id = String(createResult.ID);

    // ACN PR #1752: after the ACL-only Update, OutBoundNAT / the route / PA are still there
    // (bug caught: Update replacing the whole policy list)
    const ep = hcn.get('Endpoint', id);
    const kept = withoutAcls(policiesOf(ep));
    expect(kept).toEqual(
      expect.arrayContaining([
        { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.96.0.0/12', '10.244.0.0/16'] } },
        { Type: 'ProviderAddress', Settings: { ProviderAddress: MGMT_IP } },
        { Type: 'OutBoundNAT', Settings: { Destinations: [POD_IP] } },
      ]),
    );
    expect(kept.filter((p) => /^sdnroute$/i.test(String(p.Type)))).toEqual([
      {
        Type: expect.stringMatching(/^sdnroute$/i),
        Settings: { DestinationPrefix: '10.96.0.0/12', NeedEncap: true },
      },
    ]);
    expect(kept).toHaveLength(4);
    expect(policiesOfType(ep, 'ACL')).toEqual([
      {
        Type: 'ACL',
        Settings: { Protocols: '256', Action: 'Block', Direction: 'In', RuleType: 'Switch', Priority: 65500 },
      },
    ]);
    expect(String(ep.HostComputeNamespace).toLowerCase()).toBe(netns);

    // the v1 list (Felix, §5 D2; ACN PR #1752's rendering): State 2/3, v1 forms of the v2 policies
    const v1 = felixEndpoints(hcn).get(`${POD_IP}/32`);
    expect(v1).toMatchObject({ ID: id, VirtualNetworkName: 'Calico', IPAddress: POD_IP });
    expect(policiesOf(v1)).toEqual(
      expect.arrayContaining([
        { ExceptionList: ['10.96.0.0/12', '10.244.0.0/16'], Type: 'OutBoundNAT' },
        { DestinationPrefix: '10.96.0.0/12', NeedEncap: true, Type: 'ROUTE' },
        { PA: MGMT_IP, Type: 'PA' },
      ]),
    );
    expect(policiesOfType(v1, 'ACL')).toHaveLength(1);
    expect(policiesOfType(v1, 'ACL')[0]).toMatchObject({
      Action: 'Block',
      Direction: 'In',
      Priority: 65500,
      Protocols: '256',
      RuleType: 'Switch',
    });
  });

  it('C5 CNI DEL v2: GetEndpointByName → its HostComputeNamespace → namespace Remove → delete', () => {
    const hcn = calicoHost();
    const network = startVxlan(hcn);
    const netns = String(hcn.createNamespace(newNamespace('Host')).ID).toLowerCase();
    cniAddV2(hcn, network, netns);
    const [ep] = hcn.byName('Endpoint', POD_EP_NAME);
    const nsId = String(ep!.HostComputeNamespace);
    expect(hcn.byId('Namespace', nsId)).toHaveLength(1);
    modifyText(
      hcn,
      'Namespace',
      nsId,
      `{"ResourceType":"Endpoint","RequestType":"Remove","Settings":{"EndpointId":"${String(ep!.ID)}"}}`,
    );
    hcn.delete('Endpoint', String(ep!.ID));
    expect(hcn.byName('Endpoint', POD_EP_NAME)).toEqual([]);
    expect(felixEndpoints(hcn).size).toBe(0);
  });
});

describe('Felix (calico.md §5, §6)', () => {
  it('D3 applyRules: {"ID","Policies":[ACL…]} replaces the ACL set, keeps every other policy and field; fewer rules replace again', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    const network = startVxlan(hcn);
    cniAddV1(hcn, network);
    const ep = felixEndpoints(hcn).get(`${POD_IP}/32`)!;
    const id = String(ep.ID);
    const before = goV1Endpoint(v1Ok(host, 'GET', `/endpoints/${id}`) as JsonObject);

    const body = felixBody(id, FELIX_RULES);
    expect(body).toBe(
      `{"ID":"${id}","Policies":[{"Type":"ACL","Id":"allow-host-to-endpoint","Protocol":256,"Action":"Allow",` +
        '"Direction":"In","RemoteAddresses":"10.0.0.4/32,10.244.1.2/32","RuleType":"Switch","Priority":900},' +
        '{"Type":"ACL","Id":"policy-NetworkPolicy/demo/allow-nginx-rule1-0","Protocol":6,"Action":"Allow",' +
        '"Direction":"In","RemoteAddresses":"10.244.2.0/26","LocalPorts":"80","RuleType":"Switch","Priority":1000},' +
        '{"Type":"ACL","Protocol":256,"Action":"Block","Direction":"In","RuleType":"Switch","Priority":1001},' +
        '{"Type":"ACL","Protocol":256,"Action":"Allow","Direction":"In","RuleType":"Host"},' +
        '{"Type":"ACL","Protocol":256,"Action":"Allow","Direction":"Out","RuleType":"Switch","Priority":1000},' +
        '{"Type":"ACL","Protocol":256,"Action":"Allow","Direction":"Out","RuleType":"Host"}]}',
    );
    v1Ok(host, 'POST', `/endpoints/${id}`, body);
    const after = goV1Endpoint(v1Ok(host, 'GET', `/endpoints/${id}`) as JsonObject);
    // bug caught: the minimal body wiping OutBoundNAT/ROUTE/PA, MAC, DNS or the attachment
    expect(withoutAcls(policiesOf(after))).toEqual(withoutAcls(policiesOf(before)));
    expect(policiesOfType(after, 'ACL')).toHaveLength(FELIX_RULES.length);
    expect(policiesOfType(after, 'ACL')).toEqual(expect.arrayContaining(FELIX_RULES));
    const { Policies: _a, ...restAfter } = after;
    const { Policies: _b, ...restBefore } = before;
    expect(restAfter).toEqual(restBefore);

    // the NetworkPolicy goes away: Felix sends its shorter list; the ACLs are replaced again, not merged
    v1Ok(host, 'POST', `/endpoints/${id}`, felixBody(id, FELIX_RULES_FEWER));
    const again = goV1Endpoint(v1Ok(host, 'GET', `/endpoints/${id}`) as JsonObject);
    expect(policiesOfType(again, 'ACL')).toHaveLength(FELIX_RULES_FEWER.length);
    expect(policiesOfType(again, 'ACL')).toEqual(expect.arrayContaining(FELIX_RULES_FEWER));
    expect(withoutAcls(policiesOf(again))).toEqual(withoutAcls(policiesOf(before)));
    expect(felixEndpoints(hcn).get(`${POD_IP}/32`)?.ID).toBe(id);
  });

  it('D3 on a containerd (v2) endpoint: the v1 minimal body keeps OutBoundNAT/SDNRoute/ProviderAddress and the namespace', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    const network = startVxlan(hcn);
    const netns = String(hcn.createNamespace(newNamespace('Host')).ID).toLowerCase();
    const id = String(cniAddV2(hcn, network, netns).ID);
    const v2Before = hcn.get('Endpoint', id);
    expect(felixEndpoints(hcn).get(`${POD_IP}/32`)?.ID).toBe(id);
    v1Ok(host, 'POST', `/endpoints/${id}`, felixBody(id, FELIX_RULES));
    const v2After = hcn.get('Endpoint', id);
    expect(withoutAcls(policiesOf(v2After))).toEqual(withoutAcls(policiesOf(v2Before)));
    expect(policiesOfType(v2After, 'ACL')).toHaveLength(FELIX_RULES.length);
    const { Policies: _a, ...restAfter } = v2After;
    const { Policies: _b, ...restBefore } = v2Before;
    expect(restAfter).toEqual(restBefore);
    const v1 = v1Ok(host, 'GET', `/endpoints/${id}`) as JsonObject;
    expect(policiesOfType(v1, 'ACL')).toEqual(expect.arrayContaining(FELIX_RULES));
  });

  it('E vxlan_mgr: RemoteSubnetRoute Add/Remove one per request; the lower-case hyphen MAC echoed exactly in v2 and flattened in v1', () => {
    const hcn = calicoHost();
    const host = hcn.host;
    startVxlan(hcn);
    const route = (prefix: string, pa: string, mac: string): JsonObject => ({
      Type: 'RemoteSubnetRoute',
      Settings: {
        DestinationPrefix: prefix,
        IsolationId: 4096,
        ProviderAddress: pa,
        DistributedRouterMacAddress: mac,
      },
    });
    const r1 = route('10.5.22.0/26', '192.168.85.160', '00-15-5d-b1-8e-40');
    const r2 = route('10.5.23.0/26', '192.168.85.161', '00-15-5d-17-fa-3f');
    const request = (rt: string, p: JsonObject) =>
      JSON.stringify({ ResourceType: 'Policy', RequestType: rt, Settings: { Policies: [p] } });
    expect(request('Remove', r1)).toBe(
      '{"ResourceType":"Policy","RequestType":"Remove","Settings":{"Policies":[{"Type":"RemoteSubnetRoute","Settings":' +
        '{"DestinationPrefix":"10.5.22.0/26","IsolationId":4096,"ProviderAddress":"192.168.85.160",' +
        '"DistributedRouterMacAddress":"00-15-5d-b1-8e-40"}}]}}',
    );

    // ListNetworks (no filter), the first whose Name matches (?i)calico.* — "External" does not
    const calico = () => {
      const n = hcn.list('Network', DEFAULT_QUERY).find((x) => /calico.*/i.test(String(x.Name)))!;
      expect(n.Type).toBe('Overlay');
      return n;
    };
    const current = (n: JsonObject) => policiesOfType(n, 'RemoteSubnetRoute');
    const id = String(calico().ID);
    for (const r of [r1, r2]) modifyText(hcn, 'Network', id, request('Add', r));
    // Felix compares Go structs: every string byte for byte (bug caught: the DR MAC re-cased → endless re-add)
    expect(current(calico())).toHaveLength(2);
    expect(current(calico())).toEqual(expect.arrayContaining([r1, r2]));

    // calico#5164: the v1 view carries them flattened, Type inside
    const v1Policies = policiesOf(v1Ok(host, 'GET', `/networks/${id}`) as JsonObject);
    expect(v1Policies).toEqual(
      expect.arrayContaining([
        {
          DestinationPrefix: '10.5.22.0/26',
          DistributedRouterMacAddress: '00-15-5d-b1-8e-40',
          IsolationId: 4096,
          ProviderAddress: '192.168.85.160',
          Type: 'RemoteSubnetRoute',
        },
        {
          DestinationPrefix: '10.5.23.0/26',
          DistributedRouterMacAddress: '00-15-5d-17-fa-3f',
          IsolationId: 4096,
          ProviderAddress: '192.168.85.161',
          Type: 'RemoteSubnetRoute',
        },
      ]),
    );

    // r1's node is gone: removed with the unreduced read-back settings; r2 and the other policies stay
    const others = (n: JsonObject) => policiesOf(n).filter((p) => p.Type !== 'RemoteSubnetRoute');
    const othersBefore = others(calico());
    const stale = current(calico()).find(
      (p) => (p.Settings as JsonObject).DestinationPrefix === '10.5.22.0/26',
    )!;
    modifyText(hcn, 'Network', id, request('Remove', stale));
    expect(current(calico())).toEqual([r2]);
    expect(others(calico())).toEqual(othersBefore);
    expect(policiesOf(v1Ok(host, 'GET', `/networks/${id}`) as JsonObject)).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ DestinationPrefix: '10.5.22.0/26' })]),
    );
    expect(hcn.list('Network', filterQuery({ Name: 'Calico' }))).toHaveLength(1);
  });
});
