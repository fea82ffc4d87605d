/**
 * kube-proxy winkernel's two HNS wrappers against the simulator: `hns_test.go` runs each load
 * balancer test through both the v1 wrapper (hcsshim's root package: `/policylists`) and the v2 one
 * (hcsshim `hcn`), on objects created through HCN — so a load balancer created by one API must be
 * found, matched and deleted by the other. And the restart: `NewProxier` (and `CleanupLeftovers`)
 * first deletes every policy list `GET /policylists/` returns, which on Windows includes the load
 * balancers the previous kube-proxy created through HCN (`Get-HnsPolicyList` shows them,
 * projectcalico/calico#8465); re-creating them must then succeed.
 *
 * Source: kubernetes/kubernetes @ 04791b49 (the era of v1.23's winkernel, with `hnsV1.go`, `hnsV2.go`
 * and a `hns_test.go` that tests both):
 * - `pkg/proxy/winkernel/hns_test.go`: constants (sourceVip 192.168.1.2, serviceVip 11.0.0.1,
 *   192.168.1.0/24 via .1, endpoint 192.168.1.3 / 00-11-22-33-44-55, TCP 80 ← 32440),
 *   `createTestNetwork` ("TestOverlay", type "overlay", VSID 5000), `TestGetLoadBalancerExisting`,
 *   `TestGetLoadBalancerNew`, `TestDeleteLoadBalancer` (each `testX(t, hnsV1)` then `testX(t, hnsV2)`)
 * - `pkg/proxy/winkernel/hnsV1.go`: `getLoadBalancer` (HNSListPolicyListRequest, match on
 *   len(References), Policies[0] as ELBPolicy, VIPs[0]; else GetHNSEndpointByID + AddLoadBalancer),
 *   `deleteLoadBalancer` (GetPolicyListByID, then Delete)
 * - `pkg/proxy/winkernel/hnsV2.go`: `getLoadBalancer` (ListLoadBalancers, PortMappings[0],
 *   FrontendVIPs[0]; else GetEndpointByID + Create), `deleteLoadBalancer` (GetLoadBalancerByID, any
 *   error = silently done, then Delete)
 * - `pkg/proxy/winkernel/proxier.go`: `NewProxier` and `CleanupLeftovers` call
 *   `deleteAllHnsLoadBalancerPolicy` (HNSListPolicyListRequest, `plist.Delete()` each, errors logged)
 * - hcsshim (root package, v0.14.1 fb5aa2e9) `internal/hns/hnspolicylist.go`: `PolicyList`
 *   {ID, References, Policies}, `ELBPolicy` (Type, Protocol, InternalPort, ExternalPort, SourceVIP,
 *   VIPs, ILB, IsDSR), `AddLoadBalancer`; `hcn/hcnloadbalancer.go` `AddLoadBalancer`
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { HcnV2, HnsV1 } from './client-flow.js';
import { goView, sameGuidText } from './hcsshim-flow.js';

const SOURCE_VIP = '192.168.1.2';
const SERVICE_VIP = '11.0.0.1';
const EP_MAC = '00-11-22-33-44-55';
const EP_IP = '192.168.1.3';
const PROTOCOL = 6;
const INTERNAL_PORT = 80;
const EXTERNAL_PORT = 32440;

const HOST_NIC = { name: 'Ethernet', ipAddress: '10.0.0.5/24', gateway: '10.0.0.1' };

/** `createTestNetwork()` as hcsshim marshals the hcn.HostComputeNetwork (type "overlay", lower case). */
const TEST_NETWORK =
  '{"Name":"TestOverlay","Type":"overlay","MacPool":{"Ranges":[{"StartMacAddress":"00-15-5D-52-C0-00",' +
  '"EndMacAddress":"00-15-5D-52-CF-FF"}]},"Dns":{},"Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":' +
  '"192.168.1.0/24","Policies":[{"Type":"VSID","Settings":{"IsolationId":5000}}],"Routes":[{"NextHop":' +
  '"192.168.1.1","DestinationPrefix":"0.0.0.0/0"}]}]}],"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}';

/** The test endpoint: `Network.CreateEndpoint(&hcn.HostComputeEndpoint{…})`. */
function testEndpointDoc(networkId: string, ip = EP_IP, mac = EP_MAC): string {
  return (
    `{"HostComputeNetwork":"${networkId}","IpConfigurations":[{"IpAddress":"${ip}"}],"Dns":{},` +
    `"MacAddress":"${mac}","Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}`
  );
}

/** hcn.AddLoadBalancer(endpoints, 0, 0, sourceVIP, [vip], protocol, internal, external) as it marshals. */
function hcnLoadBalancerDoc(
  endpointIds: readonly string[],
  vip = SERVICE_VIP,
  externalPort = EXTERNAL_PORT,
): string {
  return JSON.stringify({
    HostComputeEndpoints: endpointIds,
    SourceVIP: SOURCE_VIP,
    FrontendVIPs: [vip],
    PortMappings: [{ Protocol: PROTOCOL, InternalPort: INTERNAL_PORT, ExternalPort: externalPort }],
    SchemaVersion: { Major: 2, Minor: 0 },
  });
}

interface LbFlags {
  readonly isILB?: boolean;
  readonly isDSR?: boolean;
}

/** `json.Unmarshal(raw, &hcsshim.ELBPolicy{})`: the fields kube-proxy compares. */
function goElbPolicy(raw: Json | undefined): {
  Protocol: number;
  InternalPort: number;
  ExternalPort: number;
  VIPs: string[];
  ILB: boolean;
} {
  const o = (raw ?? {}) as JsonObject;
  const n = (k: string) => (typeof o[k] === 'number' ? o[k] : 0);
  return {
    Protocol: n('Protocol'),
    InternalPort: n('InternalPort'),
    ExternalPort: n('ExternalPort'),
    VIPs: Array.isArray(o.VIPs) ? o.VIPs.map(String) : [],
    ILB: o.ILB === true,
  };
}

/** The two wrappers' common interface (`HostNetworkService`, the load balancer half). */
interface HostNetworkService {
  getLoadBalancer(
    endpoints: readonly string[],
    flags: LbFlags,
    sourceVip: string,
    vip: string,
    protocol: number,
    internalPort: number,
    externalPort: number,
  ): string;
  deleteLoadBalancer(hnsID: string): void;
}

/** `hnsV1` (hnsV1.go): hcsshim's root package over `HNSCall`. */
class KubeHnsV1 implements HostNetworkService {
  constructor(readonly v1: HnsV1) {}

  getLoadBalancer(
    endpoints: readonly string[],
    flags: LbFlags,
    sourceVip: string,
    vip: string,
    protocol: number,
    internalPort: number,
    externalPort: number,
  ): string {
    const plists = this.v1.request('GET', '/policylists/') as JsonObject[]; // HNSListPolicyListRequest
    for (const plist of plists) {
      const refs = (plist.References as string[] | undefined) ?? [];
      if (refs.length !== endpoints.length) continue;
      const policies = (plist.Policies as Json[] | undefined) ?? [];
      if (!policies.length) throw new Error('panic: runtime error: index out of range [0] with length 0');
      const elb = goElbPolicy(policies[0]);
      if (
        elb.Protocol === protocol &&
        elb.InternalPort === internalPort &&
        elb.ExternalPort === externalPort &&
        elb.ILB === (flags.isILB ?? false)
      ) {
        if (vip.length > 0) {
          if (elb.VIPs.length === 0 || elb.VIPs[0] !== vip) continue;
        } else if (elb.VIPs.length !== 0) continue;
        return String(plist.ID);
      }
    }
    // GetHNSEndpointByID for each, then hcsshim.AddLoadBalancer
    const hnsEndpoints = endpoints.map((id) => this.v1.request('GET', `/endpoints/${id}`) as JsonObject);
    const elb: JsonObject = {
      Type: 'ELB',
      Protocol: protocol,
      InternalPort: internalPort,
      ExternalPort: externalPort,
    };
    if (sourceVip) elb.SourceVIP = sourceVip;
    if (vip.length > 0) elb.VIPs = [vip];
    if (flags.isILB) elb.ILB = true;
    const body = JSON.stringify({
      References: hnsEndpoints.map((e) => `/endpoints/${String(e.ID)}`),
      Policies: [elb],
    });
    const lb = this.v1.request('POST', '/policylists/', body) as JsonObject;
    return String(lb.ID);
  }

  deleteLoadBalancer(hnsID: string): void {
    if (hnsID.length === 0) return;
    const plist = this.v1.request('GET', `/policylists/${hnsID}`) as JsonObject; // GetPolicyListByID
    this.v1.request('DELETE', `/policylists/${String(plist.ID)}`); // hnsloadBalancer.Delete()
  }
}

/** `hnsV2` (hnsV2.go): hcsshim's `hcn` package. */
class KubeHnsV2 implements HostNetworkService {
  constructor(readonly hcn: HcnV2) {}

  getLoadBalancer(
    endpoints: readonly string[],
    flags: LbFlags,
    sourceVip: string,
    vip: string,
    protocol: number,
    internalPort: number,
    externalPort: number,
  ): string {
    for (const raw of this.hcn.list('LoadBalancer')) {
      const plist = goView('HostComputeLoadBalancer', raw);
      if (((plist.HostComputeEndpoints as string[] | undefined) ?? []).length !== endpoints.length) continue;
      const pm = ((plist.PortMappings as JsonObject[] | undefined) ?? [])[0];
      if (!pm) throw new Error('panic: runtime error: index out of range [0] with length 0');
      const frontends = (plist.FrontendVIPs as string[] | undefined) ?? [];
      if (
        pm.Protocol === protocol &&
        pm.InternalPort === internalPort &&
        pm.ExternalPort === externalPort &&
        ((Number(pm.Flags ?? 0) & 1) !== 0) === (flags.isILB ?? false)
      ) {
        if (vip.length > 0) {
          if (frontends.length === 0 || frontends[0] !== vip) continue;
        } else if (frontends.length !== 0) continue;
        return String(plist.ID);
      }
    }
    const ids = endpoints.map((id) => {
      const ep = this.hcn.byId('Endpoint', id); // hcn.GetEndpointByID
      if (!ep) throw new Error(`Endpoint ${id} not found`);
      return String(ep.ID);
    });
    const doc: JsonObject = {
      HostComputeEndpoints: ids,
      SourceVIP: sourceVip,
      FrontendVIPs: vip.length > 0 ? [vip] : [],
      PortMappings: [
        {
          Protocol: protocol,
          InternalPort: internalPort,
          ExternalPort: externalPort,
          ...(flags.isILB ? { Flags: 1 } : {}),
        },
      ],
      SchemaVersion: { Major: 2, Minor: 0 },
      ...(flags.isDSR ? { Flags: 1 } : {}),
    };
    if (!sourceVip) delete doc.SourceVIP;
    if (vip.length === 0) delete doc.FrontendVIPs;
    return String(this.hcn.createLoadBalancer(JSON.stringify(doc)).ID);
  }

  deleteLoadBalancer(hnsID: string): void {
    const lb = this.hcn.byId('LoadBalancer', hnsID); // hcn.GetLoadBalancerByID; any error: silently done
    if (!lb) return;
    this.hcn.deleteLoadBalancer(hnsID);
  }
}

/** `deleteAllHnsLoadBalancerPolicy()` (proxier.go), what NewProxier and CleanupLeftovers call. */
function deleteAllHnsLoadBalancerPolicy(v1: HnsV1): string[] {
  const failures: string[] = [];
  const plists = v1.request('GET', '/policylists/') as JsonObject[];
  for (const plist of plists) {
    try {
      v1.request('DELETE', `/policylists/${String(plist.ID)}`);
    } catch (e) {
      failures.push((e as Error).message); // klog.ErrorS(err, "Failed to delete policy list")
    }
  }
  return failures;
}

interface Fixture {
  readonly host: Host;
  readonly hcn: HcnV2;
  readonly v1: HnsV1;
  readonly network: JsonObject;
  readonly endpoint: JsonObject;
}

/** `mustTestNetwork(t)` and the test endpoint, through hcsshim `hcn`. */
function fixture(profile: string): Fixture {
  const host = createHost({ seed: 23, profile, adapters: [HOST_NIC] });
  const hcn = new HcnV2(host);
  const network = hcn.createNetwork(TEST_NETWORK);
  const endpoint = hcn.createEndpoint(String(network.ID), testEndpointDoc(String(network.ID)));
  return { host, hcn, v1: new HnsV1(host), network, endpoint };
}

const wrappers: readonly (readonly [string, (f: Fixture) => HostNetworkService])[] = [
  ['hnsV1', (f) => new KubeHnsV1(f.v1)],
  ['hnsV2', (f) => new KubeHnsV2(f.hcn)],
];

/** The end of every test: LoadBalancer gone, `Endpoint.Delete()` and `Network.Delete()` succeed. */
function cleanUp(f: Fixture): void {
  f.hcn.deleteEndpoint(String(f.endpoint.ID));
  f.hcn.deleteNetwork(String(f.network.ID));
  expect(f.host.hns.store.endpointRefs.size).toBe(0);
}

describe.each(['ws2019', 'ws2022', 'ws2025'])('kube-proxy winkernel hns_test.go on %s', (profile) => {
  describe.each(wrappers)('%s', (name, wrap) => {
    it('TestGetLoadBalancerExisting: finds the load balancer hcn.AddLoadBalancer made', () => {
      const f = fixture(profile);
      const lb = f.hcn.createLoadBalancer(hcnLoadBalancerDoc([String(f.endpoint.ID)]));
      const posts = f.v1.count('POST', '/policylists');
      const found = wrap(f).getLoadBalancer(
        [String(f.endpoint.ID)],
        {},
        SOURCE_VIP,
        SERVICE_VIP,
        PROTOCOL,
        INTERNAL_PORT,
        EXTERNAL_PORT,
      );
      expect(sameGuidText(found, String(lb.ID))).toBe(true);
      expect(f.v1.count('POST', '/policylists')).toBe(posts); // found, not created
      if (name === 'hnsV1') {
        // the HCN load balancer as GET /policylists/ shows it (hcsshim's v1 PolicyList/ELBPolicy)
        expect(f.v1.request('GET', '/policylists/')).toEqual([
          {
            ID: lb.ID,
            References: [`/endpoints/${String(f.endpoint.ID).toLowerCase()}`],
            Policies: [
              {
                Type: 'ELB',
                Protocol: 6,
                InternalPort: 80,
                ExternalPort: 32440,
                SourceVIP: SOURCE_VIP,
                VIPs: [SERVICE_VIP],
              },
            ],
          },
        ]);
      }
      f.hcn.deleteLoadBalancer(String(lb.ID)); // LoadBalancer.Delete()
      cleanUp(f);
    });

    it('TestGetLoadBalancerNew: hcn.GetLoadBalancerByID finds what the wrapper created; LoadBalancer.Delete() removes it', () => {
      const f = fixture(profile);
      const id = wrap(f).getLoadBalancer(
        [String(f.endpoint.ID)],
        {},
        SOURCE_VIP,
        SERVICE_VIP,
        PROTOCOL,
        INTERNAL_PORT,
        EXTERNAL_PORT,
      );
      const lb = f.hcn.byId('LoadBalancer', id);
      expect(lb).toBeDefined();
      expect(sameGuidText(id, String(lb!.ID))).toBe(true);
      // a v1 ELB list seen through HCN is the HostComputeLoadBalancer it describes
      expect(goView('HostComputeLoadBalancer', lb!)).toEqual({
        ID: lb!.ID,
        HostComputeEndpoints: [f.endpoint.ID],
        SourceVIP: SOURCE_VIP,
        FrontendVIPs: [SERVICE_VIP],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 32440 }],
        SchemaVersion: { Major: 2, Minor: 0 },
      });
      if (name === 'hnsV1') expect(f.v1.count('POST', '/policylists')).toBe(1);
      f.hcn.deleteLoadBalancer(id);
      expect(f.hcn.byId('LoadBalancer', id)).toBeUndefined();
      expect(f.v1.request('GET', '/policylists/')).toEqual([]);
      cleanUp(f);
    });

    it('TestDeleteLoadBalancer: the wrapper deletes what hcn.AddLoadBalancer made', () => {
      const f = fixture(profile);
      const lb = f.hcn.createLoadBalancer(hcnLoadBalancerDoc([String(f.endpoint.ID)]));
      wrap(f).deleteLoadBalancer(String(lb.ID));
      expect(f.hcn.byId('LoadBalancer', String(lb.ID))).toBeUndefined(); // GetLoadBalancerByID fails
      if (name === 'hnsV1') {
        expect(
          f.v1.log.filter((c) => c.path.startsWith('/policylists')).map((c) => `${c.method} ${c.path}`),
        ).toEqual([`GET /policylists/${String(lb.ID)}`, `DELETE /policylists/${String(lb.ID)}`]);
      }
      cleanUp(f);
    });
  });

  it('a restarted kube-proxy: NewProxier deletes the previous HCN load balancers through v1, then re-creates them', () => {
    const f = fixture(profile);
    const remote = f.hcn.createEndpoint(
      String(f.network.ID),
      testEndpointDoc(String(f.network.ID), '192.168.1.4', '00-11-22-33-44-66'),
    );
    const eps = [String(f.endpoint.ID), String(remote.ID)];
    const services = [
      { vip: SERVICE_VIP, port: 80 },
      { vip: '11.0.0.2', port: 53 },
      { vip: '', port: 32440 }, // a NodePort: no VIP
    ];
    const sync = (hns: HostNetworkService) =>
      services.map((s) => hns.getLoadBalancer(eps, {}, SOURCE_VIP, s.vip, PROTOCOL, INTERNAL_PORT, s.port));
    const before = sync(new KubeHnsV2(f.hcn));
    expect(f.hcn.list('LoadBalancer')).toHaveLength(3);
    // the old process is gone; the new one starts: IsCompatible lists, then deleteAllHnsLoadBalancerPolicy
    const v1 = new HnsV1(f.host);
    expect(deleteAllHnsLoadBalancerPolicy(v1)).toEqual([]);
    expect(v1.count('DELETE', '/policylists/')).toBe(3);
    expect(f.hcn.list('LoadBalancer')).toEqual([]);
    expect(v1.request('GET', '/policylists/')).toEqual([]);
    // the first sync re-creates every load balancer: no HCN_E_PORT_ALREADY_EXISTS
    const after = sync(new KubeHnsV2(f.hcn));
    expect(after).toHaveLength(3);
    for (const id of after) expect(before).not.toContain(id);
    expect(f.hcn.list('LoadBalancer').map((lb) => lb.ID)).toEqual(after);
    // CleanupLeftovers (kube-proxy --cleanup) does the same through v1
    expect(deleteAllHnsLoadBalancerPolicy(v1)).toEqual([]);
    expect(f.hcn.list('LoadBalancer')).toEqual([]);
    f.hcn.deleteEndpoint(String(remote.ID));
    cleanUp(f);
  });
});

describe('one store: a deleted backend, seen through both APIs', () => {
  // Was: 'both APIs refuse the same things' — deleting a backend of either kind of load balancer,
  // or its network, was refused (HCN_E_ENTITY_HAS_REFERENCES). Windows deletes them and keeps the
  // load balancers (docs/model.md, Endpoints "Delete": kubernetes#112836, Windows-Containers#79).
  it('a backend of either kind of load balancer is deleted through either API; both stay, their frontends held', () => {
    const f = fixture('ws2022');
    const ep = String(f.endpoint.ID);
    const net = String(f.network.ID);
    const ep2 = String(
      f.hcn.createEndpoint(net, testEndpointDoc(net, '192.168.1.4', '00-11-22-33-44-66')).ID,
    );
    const ep3 = String(
      f.hcn.createEndpoint(net, testEndpointDoc(net, '192.168.1.5', '00-11-22-33-44-77')).ID,
    );
    const v2lb = f.hcn.createLoadBalancer(hcnLoadBalancerDoc([ep]));
    const v1lb = new KubeHnsV1(f.v1).getLoadBalancer(
      [ep2],
      {},
      SOURCE_VIP,
      '11.0.0.9',
      PROTOCOL,
      INTERNAL_PORT,
      8080,
    );
    f.hcn.deleteEndpoint(ep); // hcn: Endpoint.Delete()
    f.v1.request('DELETE', `/endpoints/${ep2}`); // hcsshim root: HNSEndpoint.Delete()
    // each still names its backend, in each API's spelling
    expect(
      goView('HostComputeLoadBalancer', f.hcn.byId('LoadBalancer', String(v2lb.ID))!).HostComputeEndpoints,
    ).toEqual([ep]);
    expect((f.v1.request('GET', `/policylists/${v1lb}`) as JsonObject).References).toEqual([
      `/endpoints/${ep2}`,
    ]);
    expect((f.v1.request('GET', `/policylists/${String(v2lb.ID)}`) as JsonObject).References).toEqual([
      `/endpoints/${ep.toLowerCase()}`,
    ]);
    // the same frontends through the other API: HCN_E_PORT_ALREADY_EXISTS either way
    const snap = JSON.stringify(f.host.snapshot());
    expect(() => f.hcn.createLoadBalancer(hcnLoadBalancerDoc([ep3], '11.0.0.9', 8080))).toThrow(/0x803b0013/);
    expect(() =>
      f.v1.request(
        'POST',
        '/policylists/',
        JSON.stringify({
          References: [`/endpoints/${ep3}`],
          Policies: [
            {
              Type: 'ELB',
              Protocol: PROTOCOL,
              InternalPort: INTERNAL_PORT,
              ExternalPort: EXTERNAL_PORT,
              SourceVIP: SOURCE_VIP,
              VIPs: [SERVICE_VIP],
            },
          ],
        }),
      ),
    ).toThrow(/The specified port already exists\. /);
    expect(JSON.stringify(f.host.snapshot())).toBe(snap);
    // kube-proxy 1.23's v1 getLoadBalancer matches an existing list on the number of references
    // only: the service's new single backend is handed the stale list, which sends to the deleted
    // endpoint's address (kubernetes#113524: "kube-proxy will think that the old service policy
    // proxy rules that never got deleted is still valid")
    expect(
      new KubeHnsV1(f.v1).getLoadBalancer([ep3], {}, SOURCE_VIP, '11.0.0.9', PROTOCOL, INTERNAL_PORT, 8080),
    ).toBe(v1lb);
    // deleting them later works, through either API; then the frontends are free
    new KubeHnsV2(f.hcn).deleteLoadBalancer(v1lb);
    new KubeHnsV1(f.v1).deleteLoadBalancer(String(v2lb.ID));
    expect(f.host.hns.store.endpointRefs.size).toBe(0);
    new KubeHnsV2(f.hcn).deleteLoadBalancer(
      new KubeHnsV2(f.hcn).getLoadBalancer(
        [ep3],
        {},
        SOURCE_VIP,
        SERVICE_VIP,
        PROTOCOL,
        INTERNAL_PORT,
        EXTERNAL_PORT,
      ),
    );
    f.hcn.deleteEndpoint(ep3);
    f.hcn.deleteNetwork(net);
    expect(f.host.hns.store.endpointRefs.size).toBe(0);
  });
});
