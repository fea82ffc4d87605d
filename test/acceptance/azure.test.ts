/**
 * Azure container networking against the simulator: Azure NPM's SetPolicy ipsets and endpoint ACLs,
 * Azure CNI's and windows-container-networking's PortMapping twins, Azure CNI's v1 and v2 network and
 * endpoint creation, CNS's v1 network inputs and ACN's own e2e validator (facts and bodies:
 * /work/research/azure.md, cited as §).
 *
 * Upstream: Azure/azure-container-networking @ cbd7560c — `npm/pkg/dataplane/ipsets/ipsetmanager_windows.go`
 * (applyIPSets, modifySetPolicies, resetIPSets), `npm/util/util.go` L195–205 (hashed set ids),
 * `npm/pkg/dataplane/policies/policymanager_windows.go` (ACL add / removePolicyByEndpointID),
 * `npm/pkg/dataplane/dataplane_windows.go` (State filters; L130 ACLs before ipsets),
 * `network/hnswrapper/hnsv2wrapperfake.go` L109–170, L322–334 (ACN's own HNS model),
 * `cni/network/network_windows.go` L199–256 (port mappings), `network/network_windows.go`
 * (newNetworkImplHnsV1, configureHcnNetwork), `network/endpoint_windows.go` L178–270
 * (newEndpointImplHnsV1) and configureHcnEndpoint, `cns/hnsclient/hnsclient_windows.go` L93–124,
 * `test/validate/windows_validate.go`; microsoft/hcsshim v0.13.0 (7084bd2f) `hcn/*`,
 * `internal/hns/*`; microsoft/windows-container-networking @ b96345f1 `cni/cni.go` L365–402,
 * `network/policy.go`, `network/endpoint.go` (hcsshim v0.8.26 429b0d2c).
 *
 * Request documents are written as Go's encoding/json writes hcsshim's structs: struct-typed fields
 * (`MacPool`, `Dns`, `Health`, `SchemaVersion`) always present, omitempty scalars and slices left out.
 * The host has one NIC, `Ethernet 2` at 10.240.0.4/16.
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { expectHcnFailure, filterQuery, HcsshimFlow, sameGuid } from './hcsshim-flow.js';
import { newNamespace, ZERO_GUID } from './hcsshim-vectors.js';
import {
  createEndpointText,
  createNetworkText,
  goMac,
  modifyText,
  policiesOf,
  policiesOfType,
  v1ByName,
  v1Call,
  v1Ok,
} from './calico-azure-flow.js';

const HOST_IP = '10.240.0.4';
const ADAPTER = { name: 'Ethernet 2', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1' };

/** NPM's hashed set ids (`GetHashedName`, §1.2 examples). */
const NS_X = 'azure-npm-5ceop0zrwrj56cyuiub5';
const NS_Y = 'azure-npm-10ab1bcsv6mirf373vdm';
const NSLABEL_TEAM_A = 'azure-npm-4oqzmbi816hwvh91fqdp';

/** §3.2: Azure CNI's v2 network (configureHcnNetwork), dual stack, VLAN 2 on every subnet, Flags 8. */
const AZURE_V2_NETWORK =
  '{"Name":"azure","Type":"L2Bridge","Policies":[{"Type":"NetAdapterName","Settings":{"NetworkAdapterName":"Ethernet 2"}}],' +
  '"MacPool":{},"Dns":{},"Ipams":[{"Type":"Static","Subnets":[' +
  '{"IpAddressPrefix":"10.240.0.0/16","Policies":[{"Type":"VLAN","Settings":{"IsolationId":2}}],' +
  '"Routes":[{"NextHop":"10.240.0.1","DestinationPrefix":"0.0.0.0/0"}]},' +
  '{"IpAddressPrefix":"fd00:abcd::/64","Policies":[{"Type":"VLAN","Settings":{"IsolationId":2}}],' +
  '"Routes":[{"NextHop":"fd00:abcd::1","DestinationPrefix":"::/0"}]}]}],' +
  '"Flags":8,"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}';

/** §3.1: Azure CNI's v1 network (newNetworkImplHnsV1): lower-case type, network-level VLAN. */
const AZURE_V1_NETWORK =
  '{"Name":"azure","Type":"l2bridge","NetworkAdapterName":"Ethernet 2","Policies":[{"Type":"VLAN","VLAN":2}],' +
  '"Subnets":[{"AddressPrefix":"10.240.0.0/16","GatewayAddress":"10.240.0.1"},' +
  '{"AddressPrefix":"fd00:abcd::/64","GatewayAddress":"fd00:abcd::1"}]}';

/** §3.1: CNS CreateDefaultExtNetwork (ACN#335 shows these values). */
const CNS_EXT_NETWORK =
  '{"Name":"ext","Type":"l2bridge","Subnets":[{"AddressPrefix":"192.168.255.0/30","GatewayAddress":"192.168.255.1"}]}';

const PM_V4 = {
  Type: 'PortMapping',
  Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 44000, Flags: 1 },
};
const PM_V6 = {
  Type: 'PortMapping',
  Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 44000, Flags: 2 },
};
/** Azure CNI's conflist ACL (§3.4), no Id. */
const CNI_ACL = {
  Type: 'ACL',
  Settings: {
    Protocols: '6',
    Action: 'Block',
    Direction: 'Out',
    RemoteAddresses: '168.63.129.16/32',
    RemotePorts: '80',
    RuleType: 'Switch',
    Priority: 200,
  },
};

interface PodSpec {
  readonly name: string;
  readonly v4: string;
  readonly v6: string;
  readonly cniAcl?: boolean;
  readonly portMappings?: readonly JsonObject[];
}

/** §3.4: Azure CNI's v2 endpoint (configureHcnEndpoint), `HostComputeEndpoint` as Go writes it. */
function azureEndpointBody(netId: string, pod: PodSpec): string {
  const policies: JsonObject[] = [
    { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.0.0.0/8'] } },
    { Type: 'SDNRoute', Settings: { DestinationPrefix: '10.0.0.0/8', NeedEncap: true } },
    ...(pod.cniAcl === false ? [] : [CNI_ACL]),
    ...(pod.portMappings ?? []),
  ];
  return JSON.stringify({
    Name: pod.name,
    HostComputeNetwork: netId,
    Policies: policies,
    IpConfigurations: [
      { IpAddress: pod.v4, PrefixLength: 16 },
      { IpAddress: pod.v6, PrefixLength: 64 },
    ],
    Dns: { Search: [''], ServerList: ['10.0.0.10'] },
    Routes: [
      { NextHop: '10.240.0.1', DestinationPrefix: '0.0.0.0/0' },
      { NextHop: 'fd00:abcd::1', DestinationPrefix: '::/0' },
    ],
    Health: { Extra: {} },
    SchemaVersion: { Major: 2, Minor: 0 },
  });
}

function azureHost(): HcsshimFlow {
  return new HcsshimFlow(createHost({ seed: 47, profile: 'ws2022', adapters: [ADAPTER] }));
}

/** `GetNetworkByName("azure")` → not found → `network.Create()` (§3.2). */
function azureNetwork(hcn: HcsshimFlow): JsonObject {
  expect(hcn.byName('Network', 'azure')).toEqual([]);
  return createNetworkText(hcn, AZURE_V2_NETWORK);
}

// ─────────────────────────────── NPM SetPolicy ───────────────────────────────

interface SetPolicySetting {
  readonly Id: string;
  readonly Name: string;
  readonly PolicyType: 'IPSET' | 'NESTEDIPSET';
  readonly Values: string;
}

/** `ModifyNetworkSettingRequest{Policy, rt, PolicyNetworkRequest{SetPolicy…}}` as NPM sends it (§1.3). */
function setPolicyRequest(
  requestType: 'Add' | 'Update' | 'Remove',
  sets: readonly SetPolicySetting[],
): string {
  return JSON.stringify({
    ResourceType: 'Policy',
    RequestType: requestType,
    Settings: {
      Policies: sets.map((s) => ({
        Type: 'SetPolicy',
        Settings: { Id: s.Id, Name: s.Name, PolicyType: s.PolicyType, Values: s.Values },
      })),
    },
  });
}

/** `GetNetworkByName("azure")`, then its SetPolicies by Id, each Settings as read back. */
function readSets(hcn: HcsshimFlow): Record<string, JsonObject> {
  const [net] = hcn.byName('Network', 'azure');
  const out: Record<string, JsonObject> = {};
  for (const p of policiesOfType(net, 'SetPolicy')) {
    const s = p.Settings as JsonObject;
    out[String(s.Id)] = s;
  }
  return out;
}

/** `segregateSetPolicies`: the read-back settings unmarshalled into `SetPolicySetting` (the Remove body). */
function readBackSet(hcn: HcsshimFlow, id: string): SetPolicySetting {
  const s = readSets(hcn)[id]!;
  return {
    Id: String(s.Id),
    Name: String(s.Name),
    PolicyType: s.PolicyType as SetPolicySetting['PolicyType'],
    Values: String(s.Values),
  };
}

const SET_X: SetPolicySetting = {
  Id: NS_X,
  Name: 'ns-x',
  PolicyType: 'IPSET',
  Values: '10.240.0.15,10.240.0.16',
};
const SET_Y: SetPolicySetting = { Id: NS_Y, Name: 'ns-y', PolicyType: 'IPSET', Values: '' };
const SET_TEAM_A: SetPolicySetting = {
  Id: NSLABEL_TEAM_A,
  Name: 'nslabel-team:a',
  PolicyType: 'NESTEDIPSET',
  Values: NS_X,
};

function asSettings(s: SetPolicySetting): JsonObject {
  return { Id: s.Id, Name: s.Name, PolicyType: s.PolicyType, Values: s.Values };
}

/** NPM's first apply: A1 (ns-x, ns-y) then A2 (nslabel-team:a). */
function npmAddSets(hcn: HcsshimFlow, netId: string): void {
  modifyText(hcn, 'Network', netId, setPolicyRequest('Add', [SET_X, SET_Y]));
  modifyText(hcn, 'Network', netId, setPolicyRequest('Add', [SET_TEAM_A]));
}

/** §1.7: an NPM ACL (`NPMACLPolSettings` key order) whose addresses are set ids. */
const NPM_ACL_A = {
  Type: 'ACL',
  Settings: {
    Id: 'azure-acl-default-deny',
    Protocols: '6',
    Action: 'Allow',
    Direction: 'In',
    LocalAddresses: NS_X,
    RemoteAddresses: NS_Y,
    LocalPorts: '80',
    RuleType: 'Switch',
    Priority: 222,
  },
};
const NPM_ACL_B = {
  Type: 'ACL',
  Settings: {
    Id: 'azure-acl-x-allow-web',
    Protocols: '6',
    Action: 'Allow',
    Direction: 'In',
    RemoteAddresses: NSLABEL_TEAM_A,
    LocalPorts: '8080',
    RuleType: 'Switch',
    Priority: 222,
  },
};

/** `NPMACLPolSettings` JSON keys, in struct order (Action, Direction always sent). */
const NPM_ACL_KEYS = [
  'Id',
  'Protocols',
  'Action',
  'Direction',
  'LocalAddresses',
  'RemoteAddresses',
  'LocalPorts',
  'RemotePorts',
  'RuleType',
  'Priority',
] as const;

/** `json.Unmarshal` into `NPMACLPolSettings` then `json.Marshal` (what NPM re-sends for the ACLs it keeps). */
function npmAclRoundTrip(p: JsonObject): JsonObject {
  const s = p.Settings as JsonObject;
  const out: JsonObject = {};
  for (const k of NPM_ACL_KEYS) {
    const v = s[k];
    if (k === 'Action' || k === 'Direction') out[k] = v ?? '';
    else if (v !== undefined && v !== '' && v !== 0) out[k] = v;
  }
  return { Type: 'ACL', Settings: out };
}

/**
 * `removePolicyByEndpointID` (§1.7): GetEndpointByID, split ACL / other policies, drop the ACLs `drop`
 * picks, `ApplyPolicy(Update, others ++ remaining ACLs)`.
 */
function npmRemoveAcls(hcn: HcsshimFlow, epId: string, drop: (aclId: string) => boolean): void {
  const [ep] = hcn.byId('Endpoint', epId);
  const others = policiesOf(ep).filter((p) => p.Type !== 'ACL');
  const remaining = policiesOfType(ep, 'ACL')
    .map(npmAclRoundTrip)
    .filter((p) => !drop(String((p.Settings as JsonObject).Id ?? '')));
  const request = {
    ResourceType: 'Policy',
    RequestType: 'Update',
    Settings: { Policies: [...others, ...remaining] },
  };
  modifyText(hcn, 'Endpoint', epId, JSON.stringify(request));
}

describe('Azure NPM: SetPolicy ipsets on the azure network (azure.md §1)', () => {
  it('applyIPSets: Add IPSET → Add NESTEDIPSET → Update IPSET → Remove NESTEDIPSET → Remove IPSET, each read back with Name intact', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    const adapterPolicy = policiesOfType(hcn.get('Network', netId), 'NetAdapterName');

    // A1 (§1.3): NPM adds by Name when the name is not among the read-back SetPolicies
    expect(Object.values(readSets(hcn)).map((s) => s.Name)).toEqual([]);
    const a1 = setPolicyRequest('Add', [SET_X, SET_Y]);
    expect(a1).toBe(
      '{"ResourceType":"Policy","RequestType":"Add","Settings":{"Policies":[' +
        '{"Type":"SetPolicy","Settings":{"Id":"azure-npm-5ceop0zrwrj56cyuiub5","Name":"ns-x","PolicyType":"IPSET","Values":"10.240.0.15,10.240.0.16"}},' +
        '{"Type":"SetPolicy","Settings":{"Id":"azure-npm-10ab1bcsv6mirf373vdm","Name":"ns-y","PolicyType":"IPSET","Values":""}}]}}',
    );
    modifyText(hcn, 'Network', netId, a1);
    // bug caught: Name dropped or "Values":"" omitted on read-back (NPM would re-Add every dirty set)
    expect(readSets(hcn)).toEqual({ [NS_X]: asSettings(SET_X), [NS_Y]: asSettings(SET_Y) });

    // A2 (§1.5): the list, after its member
    const a2 = setPolicyRequest('Add', [SET_TEAM_A]);
    expect(a2).toBe(
      '{"ResourceType":"Policy","RequestType":"Add","Settings":{"Policies":[' +
        '{"Type":"SetPolicy","Settings":{"Id":"azure-npm-4oqzmbi816hwvh91fqdp","Name":"nslabel-team:a","PolicyType":"NESTEDIPSET","Values":"azure-npm-5ceop0zrwrj56cyuiub5"}}]}}',
    );
    modifyText(hcn, 'Network', netId, a2);
    expect(readSets(hcn)).toEqual({
      [NS_X]: asSettings(SET_X),
      [NS_Y]: asSettings(SET_Y),
      [NSLABEL_TEAM_A]: asSettings(SET_TEAM_A),
    });

    // U1 (§1.5): ns-x is the only dirty set; its Name is read back, so NPM sends an Update with the full list
    expect(Object.values(readSets(hcn)).some((s) => s.Name === 'ns-x')).toBe(true);
    const x2: SetPolicySetting = { ...SET_X, Values: '10.240.0.15,10.240.0.22' };
    const u1 = setPolicyRequest('Update', [x2]);
    expect(u1).toBe(
      '{"ResourceType":"Policy","RequestType":"Update","Settings":{"Policies":[' +
        '{"Type":"SetPolicy","Settings":{"Id":"azure-npm-5ceop0zrwrj56cyuiub5","Name":"ns-x","PolicyType":"IPSET","Values":"10.240.0.15,10.240.0.22"}}]}}',
    );
    modifyText(hcn, 'Network', netId, u1);
    // bug caught: Update replacing every SetPolicy (ns-y and the list would vanish)
    expect(readSets(hcn)).toEqual({
      [NS_X]: asSettings(x2),
      [NS_Y]: asSettings(SET_Y),
      [NSLABEL_TEAM_A]: asSettings(SET_TEAM_A),
    });

    // R1 then R2: the whole read-back SetPolicySetting, the list first
    const r1 = setPolicyRequest('Remove', [readBackSet(hcn, NSLABEL_TEAM_A)]);
    expect(r1).toBe(
      '{"ResourceType":"Policy","RequestType":"Remove","Settings":{"Policies":[' +
        '{"Type":"SetPolicy","Settings":{"Id":"azure-npm-4oqzmbi816hwvh91fqdp","Name":"nslabel-team:a","PolicyType":"NESTEDIPSET","Values":"azure-npm-5ceop0zrwrj56cyuiub5"}}]}}',
    );
    modifyText(hcn, 'Network', netId, r1);
    expect(readSets(hcn)).toEqual({ [NS_X]: asSettings(x2), [NS_Y]: asSettings(SET_Y) });
    modifyText(hcn, 'Network', netId, setPolicyRequest('Remove', [readBackSet(hcn, NS_X)]));
    expect(readSets(hcn)).toEqual({ [NS_Y]: asSettings(SET_Y) });
    expect(policiesOfType(hcn.get('Network', netId), 'NetAdapterName')).toEqual(adapterPolicy);
  });

  it('resetIPSets at bootup: every azure-npm- set removed from its read-back body, NESTEDIPSET call first', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    npmAddSets(hcn, netId);
    const mine = Object.values(readSets(hcn)).filter((s) => String(s.Id).startsWith('azure-npm-'));
    const body = (t: string) =>
      mine
        .filter((s) => s.PolicyType === t)
        .map((s) => ({
          Id: String(s.Id),
          Name: String(s.Name),
          PolicyType: t as SetPolicySetting['PolicyType'],
          Values: String(s.Values),
        }));
    modifyText(hcn, 'Network', netId, setPolicyRequest('Remove', body('NESTEDIPSET')));
    modifyText(hcn, 'Network', netId, setPolicyRequest('Remove', body('IPSET')));
    expect(readSets(hcn)).toEqual({});
  });

  it('a NESTEDIPSET naming a missing member set → 0x803B0008 HCN_E_POLICY_NOT_FOUND, on Add and on Update; state unchanged', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    modifyText(hcn, 'Network', netId, setPolicyRequest('Add', [SET_X]));
    // ACN's fake: "Member Policy %s not found for hcn.RequestTypeAdd" (ns-y was never added)
    const teamB: SetPolicySetting = {
      Id: 'azure-npm-0teamb',
      Name: 'nslabel-team:b',
      PolicyType: 'NESTEDIPSET',
      Values: NS_Y,
    };
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnModifyNetwork(netId, setPolicyRequest('Add', [teamB])),
      0x803b0008,
      'HCN_E_POLICY_NOT_FOUND',
    );
    modifyText(hcn, 'Network', netId, setPolicyRequest('Add', [SET_TEAM_A]));
    // "… not found for hcn.RequestTypeUpdate"
    expectHcnFailure(
      hcn.host,
      () =>
        hcn.host.api.HcnModifyNetwork(
          netId,
          setPolicyRequest('Update', [{ ...SET_TEAM_A, Values: `${NS_X},${NS_Y}` }]),
        ),
      0x803b0008,
      'HCN_E_POLICY_NOT_FOUND',
    );
    expect(readSets(hcn)).toEqual({
      [NS_X]: { ...asSettings(SET_X) },
      [NSLABEL_TEAM_A]: asSettings(SET_TEAM_A),
    });
  });

  it('removing an IPSET a NESTEDIPSET still names → 0x803B002C HCN_E_ENTITY_HAS_REFERENCES; state unchanged', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    npmAddSets(hcn, netId);
    // ACN's fake: "Set %s is being referred by another %s set" (NPM itself removes the list first)
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnModifyNetwork(netId, setPolicyRequest('Remove', [readBackSet(hcn, NS_X)])),
      0x803b002c,
      'HCN_E_ENTITY_HAS_REFERENCES',
    );
    expect(Object.keys(readSets(hcn)).sort()).toEqual([NS_X, NS_Y, NSLABEL_TEAM_A].sort());
  });

  it('Update of a set Id the network does not have → 0x803B0008 HCN_E_POLICY_NOT_FOUND (docs/model.md; ACN fake "could not find %s ipset"); state unchanged', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    modifyText(hcn, 'Network', netId, setPolicyRequest('Add', [SET_X]));
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnModifyNetwork(netId, setPolicyRequest('Update', [SET_Y])),
      0x803b0008,
      'HCN_E_POLICY_NOT_FOUND',
    );
    expect(readSets(hcn)).toEqual({ [NS_X]: asSettings(SET_X) });
  });
});

describe('Azure NPM: endpoint ACLs (azure.md §1.7)', () => {
  /** Three pods on the azure network: one in a namespace (Attached), one shared by two containers, one created only. */
  function threePods(hcn: HcsshimFlow, netId: string) {
    const mk = (name: string, v4: string, v6: string) =>
      String(createEndpointText(hcn, netId, azureEndpointBody(netId, { name, v4, v6 })).ID);
    const attached = mk('pod-a-eth0', '10.240.0.15', 'fd00:abcd::f');
    const shared = mk('pod-b-eth0', '10.240.0.16', 'fd00:abcd::10');
    const created = mk('pod-c-eth0', '10.240.0.17', 'fd00:abcd::11');
    const ns = String(hcn.createNamespace(newNamespace('Host')).ID);
    modifyText(
      hcn,
      'Namespace',
      ns,
      `{"ResourceType":"Endpoint","RequestType":"Add","Settings":{"EndpointId":"${attached}"}}`,
    );
    // AttachedSharing: two containers on one endpoint (the HCS attach, modelled by the v1 container attach)
    for (const cid of ['sandbox-b', 'app-b'])
      v1Ok(
        hcn.host,
        'POST',
        `/endpoints/${shared}/attach`,
        `{"ContainerId":"${cid}","SystemType":"Container"}`,
      );
    return { attached, shared, created };
  }

  /** `ListEndpointsQuery` with `{"State":n}`: NPM keeps ID and IpConfigurations[0].IpAddress. */
  function npmEndpoints(hcn: HcsshimFlow, state: number): Array<[string, string]> {
    const q = JSON.stringify({
      SchemaVersion: { Major: 2, Minor: 0 },
      Filter: JSON.stringify({ State: state }),
    });
    expect(q).toBe(`{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"State\\":${state}}"}`);
    return hcn
      .list('Endpoint', q)
      .map((e) => [String(e.ID), String((e.IpConfigurations as JsonObject[])[0]?.IpAddress ?? '')]);
  }

  it('endpoint discovery: {"State":2} and {"State":3} filters find the attached pods with their IPs', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    const { attached, shared } = threePods(hcn, netId);
    // bug caught: State not a filterable v2 property, or counted differently for namespaces and containers
    expect(npmEndpoints(hcn, 2)).toEqual([[attached, '10.240.0.15']]);
    expect(npmEndpoints(hcn, 3)).toEqual([[shared, '10.240.0.16']]);
  });

  it('ACLs Add with Id and set-id addresses, read back with Id; removal by Update (other policies ++ remaining ACLs); then the set can go', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    npmAddSets(hcn, netId);
    const { attached } = threePods(hcn, netId);
    const before = hcn.byId('Endpoint', attached)[0]!;

    const add = JSON.stringify({
      ResourceType: 'Policy',
      RequestType: 'Add',
      Settings: { Policies: [NPM_ACL_A, NPM_ACL_B] },
    });
    expect(JSON.stringify(NPM_ACL_A)).toBe(
      '{"Type":"ACL","Settings":{"Id":"azure-acl-default-deny","Protocols":"6","Action":"Allow","Direction":"In",' +
        '"LocalAddresses":"azure-npm-5ceop0zrwrj56cyuiub5","RemoteAddresses":"azure-npm-10ab1bcsv6mirf373vdm",' +
        '"LocalPorts":"80","RuleType":"Switch","Priority":222}}',
    );
    modifyText(hcn, 'Endpoint', attached, add);
    const withAcls = hcn.byId('Endpoint', attached)[0]!;
    // bug caught: the ACL Id dropped on read-back (NPM matches removals on it)
    expect(policiesOfType(withAcls, 'ACL')).toEqual([CNI_ACL, NPM_ACL_A, NPM_ACL_B]);
    expect(policiesOf(withAcls).filter((p) => p.Type !== 'ACL')).toEqual(
      policiesOf(before).filter((p) => p.Type !== 'ACL'),
    );

    // while ACL A names ns-y, ns-y cannot go (dataplane_windows.go L130: ACLs are cleared before ipsets)
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnModifyNetwork(netId, setPolicyRequest('Remove', [readBackSet(hcn, NS_Y)])),
      0x803b002c,
      'HCN_E_ENTITY_HAS_REFERENCES',
    );

    // removePolicy(A): Update with all non-ACL policies, then the remaining ACLs (CNI's, B)
    npmRemoveAcls(hcn, attached, (id) => id === 'azure-acl-default-deny');
    const after = hcn.byId('Endpoint', attached)[0]!;
    expect(policiesOfType(after, 'ACL')).toEqual(expect.arrayContaining([CNI_ACL, NPM_ACL_B]));
    expect(policiesOfType(after, 'ACL')).toHaveLength(2);
    expect(policiesOf(after).filter((p) => p.Type !== 'ACL')).toEqual(
      expect.arrayContaining(policiesOf(before).filter((p) => p.Type !== 'ACL')),
    );
    expect(policiesOf(after)).toHaveLength(policiesOf(before).length + 1);
    expect(after.HostComputeNamespace).toEqual(before.HostComputeNamespace);

    modifyText(hcn, 'Network', netId, setPolicyRequest('Remove', [readBackSet(hcn, NS_Y)]));
    expect(Object.keys(readSets(hcn)).sort()).toEqual([NS_X, NSLABEL_TEAM_A].sort());
  });

  // Azure NPM's reset and its last-policy removal send Update with the non-ACL policies only
  // (policymanager_windows.go removePolicyByEndpointID / resetAllNPMAclPolicies; ACN's fake wipes and
  // re-adds on Update, hnsv2wrapperfake.go L322–334) and then remove the ipsets, which HNS refuses while
  // an ACL still names them. With no other ACL on the endpoint, the simulator's "replace the types the
  // request carries" would keep the NPM ACLs; on an endpoint an Update always replaces the ACL set.
  it("an endpoint with no other ACL: NPM's Update carrying no ACL clears its ACLs, and the ipsets can then be removed", () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    npmAddSets(hcn, netId);
    const epId = String(
      createEndpointText(
        hcn,
        netId,
        azureEndpointBody(netId, {
          name: 'pod-d-eth0',
          v4: '10.240.0.18',
          v6: 'fd00:abcd::12',
          cniAcl: false,
        }),
      ).ID,
    );
    modifyText(
      hcn,
      'Endpoint',
      epId,
      JSON.stringify({ ResourceType: 'Policy', RequestType: 'Add', Settings: { Policies: [NPM_ACL_A] } }),
    );
    npmRemoveAcls(hcn, epId, (id) => id.startsWith('azure-acl-'));
    expect(policiesOfType(hcn.byId('Endpoint', epId)[0], 'ACL')).toEqual([]);
    modifyText(hcn, 'Network', netId, setPolicyRequest('Remove', [readBackSet(hcn, NSLABEL_TEAM_A)]));
    modifyText(
      hcn,
      'Network',
      netId,
      setPolicyRequest('Remove', [readBackSet(hcn, NS_X), readBackSet(hcn, NS_Y)]),
    );
    expect(readSets(hcn)).toEqual({});
  });
});

describe('Port mappings with an IPv6 twin (azure.md §2)', () => {
  function podWith(hcn: HcsshimFlow, netId: string, n: number, pms: readonly JsonObject[]) {
    return azureEndpointBody(netId, {
      name: `pod${n}-eth0`,
      v4: `10.240.1.${n}`,
      v6: `fd00:abcd::1:${n.toString(16)}`,
      portMappings: pms,
    });
  }

  it('Azure CNI getPoliciesFromRuntimeCfg: twins Flags 1 (LocalRoutedVip) and 2 (IPv6) on one endpoint are accepted and read back', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    expect(JSON.stringify(PM_V4)).toBe(
      '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":44000,"Flags":1}}',
    );
    expect(JSON.stringify(PM_V6)).toBe(
      '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":44000,"Flags":2}}',
    );
    const ep = createEndpointText(hcn, netId, podWith(hcn, netId, 10, [PM_V4, PM_V6]));
    expect(policiesOfType(ep, 'PortMapping')).toEqual([PM_V4, PM_V6]);
  });

  it('the claim is per address family: a second endpoint with the same IPv4 mapping → 0x803B0013, its IPv6-only twin is free until taken', () => {
    const hcn = azureHost();
    const host = hcn.host;
    const netId = String(azureNetwork(hcn).ID);
    // A: single-stack mapping (isIPv6Enabled false → Flags 1 only) holds TCP 44000 on IPv4
    const a = String(createEndpointText(hcn, netId, podWith(hcn, netId, 1, [PM_V4])).ID);
    // B: the IPv6 mapping alone on the same port: another family, no conflict
    // (bug caught: the claim keyed without the family, which also refuses the twins of one endpoint)
    createEndpointText(hcn, netId, podWith(hcn, netId, 2, [PM_V6]));
    const refused = (n: number, pms: readonly JsonObject[]) =>
      expectHcnFailure(
        host,
        () => host.api.HcnCreateEndpoint(netId, ZERO_GUID, podWith(hcn, netId, n, pms)),
        0x803b0013,
        'HCN_E_PORT_ALREADY_EXISTS',
      );
    refused(3, [PM_V4]); // same IPv4 claim as A
    refused(4, [PM_V6]); // same IPv6 claim as B
    refused(5, [PM_V4, PM_V6]); // the twins: both halves taken
    // WCN without localRoutedPortMapping sends Flags 0: LocalRoutedVip is not part of the claim
    // (bug caught: Flags compared as a whole)
    refused(6, [{ Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 44000 } }]);
    // A leaves: its IPv4 claim is free again, B's IPv6 claim still holds
    hcn.delete('Endpoint', a);
    createEndpointText(hcn, netId, podWith(hcn, netId, 7, [PM_V4]));
    refused(8, [PM_V6]);
    // another port is independent
    createEndpointText(
      hcn,
      netId,
      podWith(hcn, netId, 9, [{ ...PM_V4, Settings: { ...PM_V4.Settings, ExternalPort: 44001 } }]),
    );
  });

  it('windows-container-networking GetEndpointInfo: twins Flags 0+2, 1+3, and the hostIP variant; PrefixLength filled on read-back', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    const pm = (port: number, extra: JsonObject) => ({
      Type: 'PortMapping',
      Settings: { Protocol: 6, InternalPort: 80, ExternalPort: port, ...extra },
    });
    const cases: Array<[string, JsonObject[]]> = [
      ['wcn-0-2', [pm(8080, {}), pm(8080, { Flags: 2 })]],
      ['wcn-1-3', [pm(8081, { Flags: 1 }), pm(8081, { Flags: 3 })]],
      ['wcn-hostip', [pm(8082, { VIP: HOST_IP }), pm(8082, { Flags: 2 })]],
    ];
    expect(JSON.stringify(cases[0]![1])).toBe(
      '[{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":8080}},' +
        '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":8080,"Flags":2}}]',
    );
    const ns = String(hcn.createNamespace(newNamespace('Host')).ID);
    cases.forEach(([name, pms], i) => {
      // WCN GetHostComputeEndpoint: IpConfigurations with IpAddress only; v4 and v6 default routes
      const body = JSON.stringify({
        Name: name,
        HostComputeNetwork: netId,
        Policies: pms,
        IpConfigurations: [{ IpAddress: `10.240.2.${i + 1}` }, { IpAddress: `fd00:abcd::2:${i + 1}` }],
        Dns: { ServerList: ['10.0.0.10'] },
        Routes: [
          { NextHop: '10.240.0.1', DestinationPrefix: '0.0.0.0/0' },
          { NextHop: 'fd00:abcd::1', DestinationPrefix: '::/0' },
        ],
        Health: { Extra: {} },
        SchemaVersion: { Major: 2, Minor: 0 },
      });
      const ep = createEndpointText(hcn, netId, body);
      expect(policiesOfType(ep, 'PortMapping')).toEqual(pms);
      modifyText(
        hcn,
        'Namespace',
        ns,
        `{"ResourceType":"Endpoint","RequestType":"Add","Settings":{"EndpointId":"${String(ep.ID)}"}}`,
      );
      // WCN's read-back builds CIDRs from PrefixLength (an omitted one would parse as /0)
      const [got] = hcn.byId('Endpoint', String(ep.ID));
      expect(got!.IpConfigurations).toEqual([
        { IpAddress: `10.240.2.${i + 1}`, PrefixLength: 16 },
        { IpAddress: `fd00:abcd::2:${i + 1}`, PrefixLength: 64 },
      ]);
      expect((got!.Routes as JsonObject[]).map((r) => r.NextHop)).toEqual(['10.240.0.1', 'fd00:abcd::1']);
      expect(got!.HostComputeNamespace).toEqual(sameGuid(ns));
      goMac(got!.MacAddress);
    });
  });
});

describe('Azure CNI network and endpoint creation (azure.md §3)', () => {
  it('v1 network (newNetworkImplHnsV1): lower-case "l2bridge", NetworkAdapterName, network-level VLAN kept in the v1 Policies', () => {
    const hcn = azureHost();
    const host = hcn.host;
    const out = v1Ok(host, 'POST', '/networks/', AZURE_V1_NETWORK) as JsonObject;
    expect(String(out.ID)).toMatch(/^[0-9A-F]{8}(-[0-9A-F]{4}){3}-[0-9A-F]{12}$/i);
    const got = v1Ok(host, 'GET', `/networks/${String(out.ID)}`) as JsonObject;
    // CNS compares Type with strings.EqualFold
    expect(String(got.Type).toLowerCase()).toBe('l2bridge');
    // bug caught: the network-level VLAN moved to the subnets only (v1 readers look at the network)
    expect(policiesOfType(got, 'VLAN')).toEqual([{ Type: 'VLAN', VLAN: 2 }]);
    expect(got.Subnets).toEqual([
      expect.objectContaining({ AddressPrefix: '10.240.0.0/16', GatewayAddress: '10.240.0.1' }),
      expect.objectContaining({ AddressPrefix: 'fd00:abcd::/64', GatewayAddress: 'fd00:abcd::1' }),
    ]);
    // GetHNSGlobals: Major > 7, so no 10 s sleep; ≥ 9.2 lets v2 be used
    expect(Number((v1Ok(host, 'GET', '/globals/version') as JsonObject).Major)).toBeGreaterThan(9);
  });

  it('v1 dual-stack endpoint (newEndpointImplHnsV1): no GatewayAddress sent, GatewayAddressV6 sent → the create Output carries GatewayAddress and a dash MAC', () => {
    const hcn = azureHost();
    const host = hcn.host;
    const netId = String((v1Ok(host, 'POST', '/networks/', AZURE_V1_NETWORK) as JsonObject).ID);
    const body =
      `{"Name":"a1b2c3d4-eth0","VirtualNetwork":"${netId}",` +
      '"Policies":[{"Type":"OutBoundNAT","ExceptionList":["10.0.0.0/8"]},{"Type":"ROUTE","DestinationPrefix":"10.0.0.0/8","NeedEncap":true},' +
      '{"Type":"NAT","Protocol":"TCP","InternalPort":80,"ExternalPort":44000}],' +
      '"IPAddress":"10.240.0.15","IPv6Address":"fd00:abcd::f","DNSSuffix":"svc.cluster.local","DNSServerList":"10.0.0.10,168.63.129.16",' +
      '"GatewayAddressV6":"fd00:abcd::1","PrefixLength":16,"IPv6PrefixLength":64}';
    const out = v1Ok(host, 'POST', '/endpoints/', body) as JsonObject;
    // ep.Gateways = [net.ParseIP(hnsResponse.GatewayAddress)] (bug caught: only the given family's gateway)
    expect(out.GatewayAddress).toBe('10.240.0.1');
    expect(out.GatewayAddressV6).toBe('fd00:abcd::1');
    expect(out.MacAddress).toMatch(/^([0-9A-F]{2}-){5}[0-9A-F]{2}$/i);
    goMac(out.MacAddress);
    expect(out).toMatchObject({
      IPAddress: '10.240.0.15',
      IPv6Address: 'fd00:abcd::f',
      PrefixLength: 16,
      IPv6PrefixLength: 64,
    });
    // HotAttachEndpoint: GET, then IsAttached reads SharedContainers (the attach itself is HCS)
    const id = String(out.ID);
    for (let i = 0; i < 2; i++) {
      const got = v1Ok(host, 'GET', `/endpoints/${id}`) as JsonObject;
      expect(
        ((got.SharedContainers as string[] | undefined) ?? []).some((c) =>
          c.toLowerCase().includes('a1b2c3d4'),
        ),
      ).toBe(false);
    }
  });

  it('CNS CreateHnsNetwork: ManagementIP and DNSServerCompartment accepted and echoed; CreateDefaultExtNetwork reuses "ext" by name', () => {
    const hcn = azureHost();
    const host = hcn.host;
    // hcsshim HNSNetwork key order; the values CNS passes through from its API request
    const body =
      '{"Name":"azure","Type":"l2bridge","NetworkAdapterName":"Ethernet 2",' +
      '"Subnets":[{"AddressPrefix":"10.240.0.0/16","GatewayAddress":"10.240.0.1"}],"DNSServerCompartment":3,' +
      `"ManagementIP":"${HOST_IP}"}`;
    const out = v1Ok(host, 'POST', '/networks/', body) as JsonObject;
    const got = v1Ok(host, 'GET', `/networks/${String(out.ID)}`) as JsonObject;
    expect(got).toMatchObject({ DNSServerCompartment: 3, ManagementIP: HOST_IP });

    expect(v1ByName(host, 'networks', 'ext')).toBeUndefined();
    v1Ok(host, 'POST', '/networks/', CNS_EXT_NETWORK);
    const ext = v1ByName(host, 'networks', 'ext');
    expect(String(ext?.Type).toLowerCase()).toBe('l2bridge');
  });

  it('v2 network (configureHcnNetwork): GetNetworkByName not found → create; per-subnet VLAN and Flags 8 read back; the next ADD reuses it', () => {
    const hcn = azureHost();
    const net = azureNetwork(hcn);
    const netId = String(net.ID);
    expect(net).toMatchObject({ Name: 'azure', Type: 'L2Bridge', Flags: 8 });
    const subnets = (net.Ipams as JsonObject[]).flatMap((i) => i.Subnets as JsonObject[]);
    expect(subnets.map((s) => [s.IpAddressPrefix, s.Policies])).toEqual([
      ['10.240.0.0/16', [{ Type: 'VLAN', Settings: { IsolationId: 2 } }]],
      ['fd00:abcd::/64', [{ Type: 'VLAN', Settings: { IsolationId: 2 } }]],
    ]);
    const again = hcn.byName('Network', 'azure');
    expect(again.map((n) => n.ID)).toEqual([netId]);
    expect(again[0]!.Type).not.toBe('Transparent');
  });

  it('v2 endpoint (configureHcnEndpoint): "Search":[""], v4+v6 IpConfigurations, twins; Routes[0].NextHop; namespace add; delete by HostComputeNamespace', () => {
    const hcn = azureHost();
    const netId = String(azureNetwork(hcn).ID);
    const body = azureEndpointBody(netId, {
      name: 'a1b2c3d4-eth0',
      v4: '10.240.0.15',
      v6: 'fd00:abcd::f',
      portMappings: [PM_V4, PM_V6],
    });
    expect(body).toBe(
      `{"Name":"a1b2c3d4-eth0","HostComputeNetwork":"${netId}","Policies":[` +
        '{"Type":"OutBoundNAT","Settings":{"Exceptions":["10.0.0.0/8"]}},' +
        '{"Type":"SDNRoute","Settings":{"DestinationPrefix":"10.0.0.0/8","NeedEncap":true}},' +
        '{"Type":"ACL","Settings":{"Protocols":"6","Action":"Block","Direction":"Out","RemoteAddresses":"168.63.129.16/32",' +
        '"RemotePorts":"80","RuleType":"Switch","Priority":200}},' +
        '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":44000,"Flags":1}},' +
        '{"Type":"PortMapping","Settings":{"Protocol":6,"InternalPort":80,"ExternalPort":44000,"Flags":2}}],' +
        '"IpConfigurations":[{"IpAddress":"10.240.0.15","PrefixLength":16},{"IpAddress":"fd00:abcd::f","PrefixLength":64}],' +
        '"Dns":{"Search":[""],"ServerList":["10.0.0.10"]},' +
        '"Routes":[{"NextHop":"10.240.0.1","DestinationPrefix":"0.0.0.0/0"},{"NextHop":"fd00:abcd::1","DestinationPrefix":"::/0"}],' +
        '"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}',
    );
    const created = createEndpointText(hcn, netId, body);
    const id = String(created.ID);
    // read-back from the create response: the gateway and the MAC (InfraNIC sends none: HNS assigns)
    expect((created.Routes as JsonObject[])[0]!.NextHop).toBe('10.240.0.1');
    expect(created.MacAddress).toMatch(/^([0-9A-F]{2}-){5}[0-9A-F]{2}$/i);
    goMac(created.MacAddress);

    // GetNamespaceByID(netNsPath) → AddNamespaceEndpoint
    const netns = String(hcn.createNamespace(newNamespace('Host')).ID).toLowerCase();
    expect(hcn.byId('Namespace', netns)).toHaveLength(1);
    modifyText(
      hcn,
      'Namespace',
      netns,
      `{"ResourceType":"Endpoint","RequestType":"Add","Settings":{"EndpointId":"${id}"}}`,
    );

    // stateless lookup: GetNetworkByName → ListEndpointsOfNetwork → match IpConfigurations
    const [net] = hcn.byName('Network', 'azure');
    const ofNet = hcn.list('Endpoint', filterQuery({ VirtualNetwork: String(net!.ID) }));
    expect(
      ofNet.filter((e) => (e.IpConfigurations as JsonObject[]).some((c) => c.IpAddress === '10.240.0.15')),
    ).toHaveLength(1);

    // v2 delete: GetEndpointByID → RemoveNamespaceEndpoint(HostComputeNamespace) → DeleteEndpoint
    const [ep] = hcn.byId('Endpoint', id);
    expect(String(ep!.HostComputeNamespace).toLowerCase()).toBe(netns);
    modifyText(
      hcn,
      'Namespace',
      String(ep!.HostComputeNamespace),
      `{"ResourceType":"Endpoint","RequestType":"Remove","Settings":{"EndpointId":"${id}"}}`,
    );
    hcn.delete('Endpoint', id);
    expect(hcn.byId('Endpoint', id)).toEqual([]);
  });
});

describe("ACN's e2e validator (azure.md §4, test/validate/windows_validate.go)", () => {
  it('Get-HnsNetwork: every network has State 1 and a non-empty ManagementIP; one is named "azure"; endpoint IPs match what CNI sent', () => {
    const hcn = azureHost();
    const host = hcn.host;
    const netId = String(azureNetwork(hcn).ID);
    expect(v1ByName(host, 'networks', 'ext')).toBeUndefined();
    v1Ok(host, 'POST', '/networks/', CNS_EXT_NETWORK);
    createEndpointText(
      hcn,
      netId,
      azureEndpointBody(netId, { name: 'a1b2c3d4-eth0', v4: '10.240.0.15', v6: 'fd00:abcd::f' }),
    );

    const networks = v1Ok(host, 'GET', '/networks/') as JsonObject[];
    expect(networks.map((n) => n.Name).sort()).toEqual(['azure', 'ext']);
    for (const n of networks) {
      // {Name, IPv6, ManagementIP, ManagementIPv6, State}: the validator fails on State != 1 or ManagementIP == ""
      expect({ Name: n.Name, State: n.State, ManagementIP: n.ManagementIP }).toEqual({
        Name: n.Name,
        State: 1,
        ManagementIP: HOST_IP,
      });
    }
    const endpoints = v1Ok(host, 'GET', '/endpoints/') as JsonObject[];
    expect(
      endpoints.map((e) => ({
        IPAddress: e.IPAddress,
        IPv6Address: e.IPv6Address,
        IsRemoteEndpoint: e.IsRemoteEndpoint ?? false,
      })),
    ).toEqual([{ IPAddress: '10.240.0.15', IPv6Address: 'fd00:abcd::f', IsRemoteEndpoint: false }]);
    goMac(endpoints[0]!.MacAddress);
    expect(v1Call(host, 'GET', '/globals/version')).toMatchObject({ Success: true });
  });
});
