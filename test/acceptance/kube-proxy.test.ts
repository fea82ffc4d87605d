/**
 * kube-proxy winkernel's load-balancer update path against the simulator, for one ClusterIP
 * service on flannel's Overlay network. Source: kubernetes/kubernetes
 *
 *   `pkg/proxy/winkernel/proxier.go` (the stored version that imports hcsshim/hcn and has the
 *   ModifyLoadbalancer logic): `requiresUpdateLoadbalancer`, `handleUpdateLoadbalancerFailure`,
 *   the ClusterIP block of `syncProxyRules`, `deleteExistingLoadBalancer`, `deleteLoadBalancer`,
 *   `conjureMac("02-11", ip)`;
 *   `pkg/proxy/winkernel/hns.go` @ 280cccaf: `createEndpoint` (remote: Flags 1 + ProviderAddress),
 *   `getAllLoadBalancers`, `findLoadBalancerID`, `hashEndpoints` (XOR of SHA-1 of upper-cased IDs),
 *   `getLoadBalancer` (create), `updateLoadBalancer` (the whole document, no ID, on the old hnsID),
 *   `deleteLoadBalancer` (GetLoadBalancerByID, any error = silently done; delete, retry once);
 *   hcsshim `hcn/hcnglobals.go` (ModifyLoadbalancer ≥ 15.4, PR #2139) and hnslib `hcn/hcnglobals.go`
 *   @ e115dd14 ([15.5, 15.max] ∪ [16.0, ∞), after kubernetes#131466);
 *   hcsshim/hnslib `hcn/hcnerrors.go` `IsNotImplemented` with `hcn/zsyscall_windows.go`'s HRESULT
 *   reduction, computed here from the HRESULT (client-flow.ts), not from the simulator.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { goErrnoOf, goIsNotImplemented, HcnCallError, hcnFilterQuery, HcnV2, HnsV1 } from './client-flow.js';

const NODE_NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.1.11/24',
  gateway: '192.168.1.1',
  macAddress: '00-0D-3A-11-22-33',
};
const REMOTE_NODE_IP = '192.168.1.12';

const FLANNEL_NETWORK_DOC =
  '{"Name":"flannel.4096","Type":"Overlay","Policies":[{"Type":"NetAdapterName","Settings":{"NetworkAdapterName":"Ethernet"}}],' +
  '"MacPool":{},"Dns":{},"Ipams":[{"Type":"Static","Subnets":[{"IpAddressPrefix":"10.244.1.0/24",' +
  '"Policies":[{"Type":"VSID","Settings":{"IsolationId":4096}}],"Routes":[{"NextHop":"10.244.1.1","DestinationPrefix":"0.0.0.0/0"}]}]}],' +
  '"Flags":8,"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}';

/** The service: ClusterIP 10.96.0.50:80/TCP → targetPort 8080; kube-proxy's source VIP. */
const SVC = { vip: '10.96.0.50', protocol: 6, port: 80, targetPort: 8080, sourceVip: '10.244.1.3' };

/** `conjureMac("02-11", ip)` (proxier.go). */
function conjureMac(prefix: string, ip: string): string {
  return [prefix, ...ip.split('.').map((o) => Number(o).toString(16).padStart(2, '0'))].join('-');
}

/** `hns.createEndpoint` for a remote endpoint: hcn.HostComputeEndpoint marshalled by CreateRemoteEndpoint. */
function remoteEndpointDoc(networkId: string, ip: string, providerAddress: string): string {
  return (
    `{"HostComputeNetwork":"${networkId}","Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"${providerAddress}"}}],` +
    `"IpConfigurations":[{"IpAddress":"${ip}"}],"Dns":{},"MacAddress":"${conjureMac('02-11', ip)}","Flags":1,` +
    '"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}'
  );
}

/** The `hcn.HostComputeLoadBalancer` getLoadBalancer / updateLoadBalancer build (no ID, zero flags omitted). */
function lbDoc(endpointIds: readonly string[]): string {
  return JSON.stringify({
    HostComputeEndpoints: endpointIds,
    SourceVIP: SVC.sourceVip,
    FrontendVIPs: [SVC.vip],
    PortMappings: [{ Protocol: SVC.protocol, InternalPort: SVC.targetPort, ExternalPort: SVC.port }],
    SchemaVersion: { Major: 2, Minor: 0 },
  });
}

/** `findLoadBalancerID` / `getAllLoadBalancers` identifier, with `hashEndpoints`. */
function lbIdentifier(
  protocol: number,
  internalPort: number,
  externalPort: number,
  vip: string,
  ids: readonly string[],
) {
  const hash = Buffer.alloc(20);
  for (const id of ids) {
    const upper = id.toUpperCase();
    if (upper.length === 0) continue;
    const h = createHash('sha1').update(upper).digest();
    for (let i = 0; i < 20; i++) hash[i]! ^= h[i]!;
  }
  return `${protocol}/${internalPort}/${externalPort}/${vip}/${hash.toString('hex')}`;
}

type ModifyRange = 'hcsshim' | 'hnslib';

/** `SupportedFeatures.ModifyLoadbalancer` from `GET /globals/version`, per library. */
function modifySupported(major: number, minor: number, range: ModifyRange): boolean {
  if (range === 'hcsshim') return major > 15 || (major === 15 && minor >= 4);
  return major >= 16 || (major === 15 && minor >= 5);
}

type SyncOutcome = 'created' | 'updated' | 'cached' | 'recreated' | 'skipped';

/** The ClusterIP part of one syncProxyRules, for one service (proxier.go). */
class KubeProxy {
  readonly supportedFeatures: { ModifyLoadbalancer: boolean };
  hnsID = '';
  readonly log: string[] = [];

  constructor(
    readonly hcn: HcnV2,
    v1: HnsV1,
    range: ModifyRange,
  ) {
    const v = v1.request('GET', '/globals/version') as JsonObject;
    this.supportedFeatures = { ModifyLoadbalancer: modifySupported(Number(v.Major), Number(v.Minor), range) };
  }

  /** `getAllLoadBalancers`: ListLoadBalancers, keyed by the identifier. */
  private queried(): Map<string, string> {
    const out = new Map<string, string>();
    for (const lb of this.hcn.list('LoadBalancer')) {
      const pm = (lb.PortMappings as JsonObject[])[0]!;
      const vips = (lb.FrontendVIPs as string[] | undefined) ?? [];
      const id = lbIdentifier(
        Number(pm.Protocol ?? 0),
        Number(pm.InternalPort ?? 0),
        Number(pm.ExternalPort ?? 0),
        vips[0] ?? '',
        (lb.HostComputeEndpoints as string[] | undefined) ?? [],
      );
      out.set(id, String(lb.ID));
    }
    return out;
  }

  private requiresUpdate(n: number): boolean {
    return this.supportedFeatures.ModifyLoadbalancer && this.hnsID !== '' && n > 0;
  }

  /** `hns.deleteLoadBalancer(id)`: lookup by ID (any error: silently done), delete, retry once. */
  private deleteLoadBalancer(id: string): void {
    let lb: JsonObject | undefined;
    try {
      lb = this.hcn.byId('LoadBalancer', id);
    } catch {
      return;
    }
    if (!lb) return; // LoadBalancerNotFoundError: "Return silently"
    try {
      this.hcn.deleteLoadBalancer(String(lb.ID));
    } catch {
      this.hcn.deleteLoadBalancer(String(lb.ID));
    }
  }

  sync(endpointIds: readonly string[]): SyncOutcome {
    const queried = this.queried();
    const ident = lbIdentifier(SVC.protocol, SVC.targetPort, SVC.port, SVC.vip, endpointIds);
    const n = endpointIds.length;
    let outcome: SyncOutcome | undefined;

    if (this.requiresUpdate(n)) {
      if (queried.has(ident)) {
        this.log.push('update: cached');
        outcome = 'cached';
      } else {
        try {
          const lb = this.hcn.updateLoadBalancer(this.hnsID, lbDoc(endpointIds));
          this.log.push('update: ok');
          queried.set(ident, String(lb.ID));
          outcome = 'updated';
        } catch (e) {
          if (!(e instanceof HcnCallError)) throw e;
          // handleUpdateLoadbalancerFailure
          if (goIsNotImplemented(e.hresult)) {
            this.log.push('update: not implemented → feature off');
            this.supportedFeatures.ModifyLoadbalancer = false;
          } else {
            this.log.push(`update: failed 0x${e.hresult.toString(16)} → skip`);
            return 'skipped';
          }
        }
      }
    }

    if (!this.requiresUpdate(n)) {
      // deleteExistingLoadBalancer (winProxyOptimization on)
      let deleted = false;
      if (this.hnsID !== '' && !queried.has(ident)) {
        this.log.push(`delete ${this.hnsID}`);
        this.deleteLoadBalancer(this.hnsID);
        this.hnsID = '';
        deleted = true;
      }
      if (n > 0) {
        const cached = queried.get(ident);
        if (cached !== undefined) {
          this.hnsID = cached;
          return 'cached';
        }
        try {
          const lb = this.hcn.createLoadBalancer(lbDoc(endpointIds));
          this.log.push(`create ${String(lb.ID)}`);
          this.hnsID = String(lb.ID);
        } catch {
          this.log.push('create failed → retry next sync');
          return 'skipped';
        }
        return deleted ? 'recreated' : 'created';
      }
    }
    return outcome ?? 'cached';
  }
}

interface Cluster {
  readonly host: Host;
  readonly hcn: HcnV2;
  readonly v1: HnsV1;
  readonly networkId: string;
  readonly local: string;
  readonly remotes: readonly string[];
}

/** flannel's network, one local pod (win-overlay's body) and two remote pods (kube-proxy's body). */
function cluster(profile: string): Cluster {
  const host = createHost({ seed: 97, profile, adapters: [NODE_NIC] });
  const hcn = new HcnV2(host);
  const networkId = String(hcn.createNetwork(FLANNEL_NETWORK_DOC).ID);
  const local = hcn.createEndpoint(
    networkId,
    `{"Name":"pod1_flannel.4096","HostComputeNetwork":"${networkId}","Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"192.168.1.11"}}],` +
      '"IpConfigurations":[{"IpAddress":"10.244.1.5"}],"Dns":{},"Routes":[{"NextHop":"10.244.1.1","DestinationPrefix":"0.0.0.0/0"}],' +
      '"MacAddress":"0E-2A-0a-f4-01-05","Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}',
  );
  const remotes = ['10.244.2.5', '10.244.2.6'].map((ip) =>
    String(hcn.createEndpoint(networkId, remoteEndpointDoc(networkId, ip, REMOTE_NODE_IP)).ID),
  );
  return { host, hcn, v1: new HnsV1(host), networkId, local: String(local.ID), remotes };
}

function onlyLoadBalancer(hcn: HcnV2): JsonObject {
  const all = hcn.list('LoadBalancer');
  expect(all).toHaveLength(1);
  return all[0]!;
}

function sameIds(a: unknown, b: readonly string[]): void {
  expect(((a as string[] | undefined) ?? []).map((s) => s.toUpperCase())).toEqual(
    b.map((s) => s.toUpperCase()),
  );
}

describe('kube-proxy winkernel: IsNotImplemented as hcsshim computes it from the HRESULT', () => {
  it('only E_NOTIMPL 0x80004001 matches; FACILITY_WIN32 codes are reduced first', () => {
    expect(goIsNotImplemented(0x80004001)).toBe(true);
    expect(goErrnoOf(0x80070032)).toBe(0x32); // ERROR_NOT_SUPPORTED
    expect(goIsNotImplemented(0x80070032)).toBe(false);
    expect(goIsNotImplemented(0x803b0015)).toBe(false); // HCN_E_REQUEST_UNSUPPORTED
    expect(goErrnoOf(0x80070490)).toBe(0x490);
    expect(goErrnoOf(0x803b0013)).toBe(0x803b0013);
  });
});

describe('kube-proxy winkernel: remote endpoints (hns.go createEndpoint @ 280cccaf)', () => {
  // catches: remote (Flags 1) endpoints checked against the local subnet, or Flags/ProviderAddress not echoed
  it('the remote body (Flags 1, ProviderAddress, MAC 02-11-<ip hex>) is kept and read back as remote', () => {
    const { hcn, networkId, remotes } = cluster('ws2022');
    const sent = hcn.calls('HcnCreateEndpoint')[1]!;
    expect(sent.args[2]).toBe(
      `{"HostComputeNetwork":"${networkId}","Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"192.168.1.12"}}],` +
        '"IpConfigurations":[{"IpAddress":"10.244.2.5"}],"Dns":{},"MacAddress":"02-11-0a-f4-02-05","Flags":1,' +
        '"Health":{"Extra":{}},"SchemaVersion":{"Major":2,"Minor":0}}',
    );
    // getAllEndpointsByNetwork: ListEndpointsOfNetwork (hcsshim filters on "VirtualNetwork"),
    // isLocal = Flags & 1 == 0, keyed by ID and IP
    const eps = hcn.list('Endpoint', hcnFilterQuery({ VirtualNetwork: networkId }));
    expect(eps).toHaveLength(3);
    const remote = eps.find((e) => e.ID === remotes[0])!;
    expect(remote).toMatchObject({
      IpConfigurations: [{ IpAddress: '10.244.2.5' }],
      MacAddress: '02-11-0a-f4-02-05',
      Flags: 1,
      Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: REMOTE_NODE_IP } }],
    });
    // the remote pod's address lies outside this node's subnet and must still be accepted
    expect(eps.filter((e) => (Number(e.Flags ?? 0) & 1) === 0).map((e) => e.IpConfigurations)).toEqual([
      [expect.objectContaining({ IpAddress: '10.244.1.5' })],
    ]);
  });
});

describe('kube-proxy winkernel: load-balancer update (proxier.go syncProxyRules, ClusterIP block)', () => {
  // catches: a modify that changes the ID, merges backends, or needs an ID in the document
  it('ws2025 (HNS 15.4, hcsshim range): HcnModifyLoadBalancer with the whole document keeps the ID', () => {
    const { hcn, v1, local, remotes } = cluster('ws2025');
    const kp = new KubeProxy(hcn, v1, 'hcsshim');
    expect(kp.supportedFeatures.ModifyLoadbalancer).toBe(true);
    expect(kp.sync([local])).toBe('created');
    const id = kp.hnsID;

    expect(kp.sync([local, remotes[0]!])).toBe('updated');
    const modify = hcn.calls('HcnModifyLoadBalancer');
    expect(modify).toHaveLength(1);
    expect(modify[0]!.args[0]).toBe(id);
    // the settings are the complete document as for a create, without an ID
    expect(modify[0]!.args[1]).toBe(
      `{"HostComputeEndpoints":["${local}","${remotes[0]!}"],"SourceVIP":"10.244.1.3","FrontendVIPs":["10.96.0.50"],` +
        '"PortMappings":[{"Protocol":6,"InternalPort":8080,"ExternalPort":80}],"SchemaVersion":{"Major":2,"Minor":0}}',
    );
    const lb = onlyLoadBalancer(hcn);
    expect(lb.ID).toBe(id);
    sameIds(lb.HostComputeEndpoints, [local, remotes[0]!]);
    expect(lb).toMatchObject({
      SourceVIP: '10.244.1.3',
      FrontendVIPs: ['10.96.0.50'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
    });

    // backends replaced, not merged (kubernetes#131466: the update must not keep the old list)
    expect(kp.sync([remotes[1]!])).toBe('updated');
    const after = onlyLoadBalancer(hcn);
    expect(after.ID).toBe(id);
    sameIds(after.HostComputeEndpoints, [remotes[1]!]);

    // the same endpoints again: found among the queried LBs, no HNS call
    const calls = hcn.log.length;
    expect(kp.sync([remotes[1]!])).toBe('cached');
    expect(hcn.log.slice(calls).map((c) => c.fn)).not.toContain('HcnModifyLoadBalancer');
    expect(hcn.calls('HcnCreateLoadBalancer')).toHaveLength(1);
  });

  // catches: delete-by-ID leaving the frontend claimed, so the re-create fails with HCN_E_PORT_ALREADY_EXISTS
  it("ws2025 with hnslib's range (15.5+): no modify at all, delete by ID then create, new ID", () => {
    const { hcn, v1, local, remotes } = cluster('ws2025');
    const kp = new KubeProxy(hcn, v1, 'hnslib');
    expect(kp.supportedFeatures.ModifyLoadbalancer).toBe(false);
    kp.sync([local]);
    const old = kp.hnsID;
    expect(kp.sync([local, remotes[0]!])).toBe('recreated');
    expect(hcn.calls('HcnModifyLoadBalancer')).toEqual([]);
    expect(hcn.calls('HcnDeleteLoadBalancer').map((c) => c.args[0])).toEqual([old]);
    const lb = onlyLoadBalancer(hcn);
    expect(lb.ID).not.toBe(old);
    expect(lb.ID).toBe(kp.hnsID);
    sameIds(lb.HostComputeEndpoints, [local, remotes[0]!]);
  });

  it('ws2022 (HNS 15.0): HcnModifyLoadBalancer answers exactly E_NOTIMPL 0x80004001, state unchanged', () => {
    const { host, hcn, v1, local, remotes } = cluster('ws2022');
    const kp = new KubeProxy(hcn, v1, 'hcsshim');
    kp.sync([local]);
    const before = host.snapshot();
    const r = host.api.HcnModifyLoadBalancer(kp.hnsID, lbDoc([local, remotes[0]!]));
    expect(r).toMatchObject({ ok: false, hr: 0x80004001, name: 'E_NOTIMPL' });
    // another code (0x80070032 reduces to 0x32, 0x803B0015 stays whole) would send kube-proxy
    // into "skip this service" forever instead of the delete-and-create fallback
    expect(goIsNotImplemented(r.hr)).toBe(true);
    expect(host.snapshot()).toEqual(before);
  });

  // catches: a non-NOTIMPL code for the unsupported modify, or a delete that does not free the frontend
  it('ws2022 with the feature on (the defensive branch): NOTIMPL → feature off → delete old by ID → create', () => {
    const { hcn, v1, local, remotes } = cluster('ws2022');
    const kp = new KubeProxy(hcn, v1, 'hcsshim');
    expect(kp.supportedFeatures.ModifyLoadbalancer).toBe(false);
    kp.sync([local]);
    const old = kp.hnsID;
    // a version table that wrongly claims ModifyLoadbalancer on 15.0
    kp.supportedFeatures.ModifyLoadbalancer = true;

    expect(kp.sync([local, remotes[0]!])).toBe('recreated');
    expect(kp.log).toEqual([
      `create ${old}`,
      'update: not implemented → feature off',
      `delete ${old}`,
      `create ${kp.hnsID}`,
    ]);
    expect(kp.supportedFeatures.ModifyLoadbalancer).toBe(false);
    // the delete was by the old ID and found it (no silent skip, else the create would collide)
    expect(hcn.calls('HcnDeleteLoadBalancer').map((c) => c.args[0])).toEqual([old]);
    const lb = onlyLoadBalancer(hcn);
    expect(lb.ID).not.toBe(old);
    expect(lb.ID).toBe(kp.hnsID);
    sameIds(lb.HostComputeEndpoints, [local, remotes[0]!]);
    // the create sent the same document the update had sent
    const [update] = hcn.calls('HcnModifyLoadBalancer');
    expect(hcn.calls('HcnCreateLoadBalancer').at(-1)!.args[1]).toBe(update!.args[1]);
    // the old ID is gone: GetLoadBalancerByID finds nothing (kube-proxy's "Return silently")
    expect(hcn.byId('LoadBalancer', old)).toBeUndefined();

    // later syncs go straight to delete + create
    const calls = hcn.log.length;
    expect(kp.sync([remotes[1]!])).toBe('recreated');
    expect(hcn.log.slice(calls).map((c) => c.fn)).not.toContain('HcnModifyLoadBalancer');
    sameIds(onlyLoadBalancer(hcn).HostComputeEndpoints, [remotes[1]!]);
  });

  // catches: a failing modify that partly applies (backends changed) or answers E_NOTIMPL
  it('ws2025, any other update error (a backend that no longer exists): the service is skipped, LB intact', () => {
    const { host, hcn, v1, local, remotes } = cluster('ws2025');
    const kp = new KubeProxy(hcn, v1, 'hcsshim');
    kp.sync([local]);
    const id = kp.hnsID;
    hcn.deleteEndpoint(remotes[0]!);
    const before = host.snapshot();
    expect(kp.sync([local, remotes[0]!])).toBe('skipped');
    expect(kp.log.at(-1)).toBe('update: failed 0x803b0002 → skip');
    expect(kp.supportedFeatures.ModifyLoadbalancer).toBe(true);
    expect(kp.hnsID).toBe(id);
    expect(host.snapshot()).toEqual(before);
    sameIds(onlyLoadBalancer(hcn).HostComputeEndpoints, [local]);
  });
});
