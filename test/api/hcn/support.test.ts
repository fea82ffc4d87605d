// Feature support (reference hns-hcs.md §4): hcsshim's range vectors, checkers per host profile and
// explicit version, and the per-client cache of the version query.
import { describe, expect, it } from 'vitest';
import type { Json } from '../../../src/core/json.js';
import type { HcnResult } from '../../../src/api/flat.js';
import type { HcnError } from '../../../src/api/hcn/index.js';
import {
  AccelnetVersion,
  DSRVersion,
  FEATURE_CHECKERS,
  HcnClient,
  HcnClientError,
  HNSVersion1803,
  isFeatureSupported,
  isNotImplemented,
  L4ProxyPolicyVersion,
  PlatformNotSupportedError,
  Slash32EndpointPrefixesVersion,
  V2ApiSupport,
  type FeatureChecker,
  type SupportedFeatures,
} from '../../../src/api/hcn/index.js';
import { createHost } from '../../../src/host/host.js';
import { defaultSubnet, natNetworkDoc, rejection, setup, subnet } from './helpers.js';

const v = (Major: number, Minor: number) => ({ Major, Minor });

describe('isFeatureSupported (hcsshim TestIsFeatureSupported)', () => {
  it('HNSVersion1803, a single open range from 7.2', () => {
    expect(isFeatureSupported(v(0, 0), HNSVersion1803)).toBe(false);
    expect(isFeatureSupported(v(7, 0), HNSVersion1803)).toBe(false);
    expect(isFeatureSupported(v(7, 1), HNSVersion1803)).toBe(false);
    for (const ok of [v(7, 2), v(7, 3), v(8, 0), v(8, 2), v(8, 3), v(255, 0), v(255, 2), v(255, 6)]) {
      expect(isFeatureSupported(ok, HNSVersion1803)).toBe(true);
    }
  });

  it('Slash32EndpointPrefixes, two ranges: 9.3–9.x and 10.4+', () => {
    for (const no of [
      v(8, 0),
      v(8, 2),
      v(8, 3),
      v(8, 4),
      v(9, 0),
      v(9, 2),
      v(10, 0),
      v(10, 1),
      v(10, 2),
      v(10, 3),
    ]) {
      expect(isFeatureSupported(no, Slash32EndpointPrefixesVersion), `${no.Major}.${no.Minor}`).toBe(false);
    }
    for (const ok of [
      v(9, 3),
      v(9, 4),
      v(9, 372),
      v(10, 4),
      v(10, 5),
      v(10, 410),
      v(11, 0),
      v(11, 2),
      v(255, 2),
    ]) {
      expect(isFeatureSupported(ok, Slash32EndpointPrefixesVersion), `${ok.Major}.${ok.Minor}`).toBe(true);
    }
  });

  it("the named ranges carry hcsshim's bounds", () => {
    expect(V2ApiSupport).toEqual([{ MinVersion: v(9, 2), MaxVersion: v(0x7fffffff, 0x7fffffff) }]);
    expect(DSRVersion[0]).toEqual({ MinVersion: v(9, 3), MaxVersion: v(9, 0x7fffffff) });
    expect(L4ProxyPolicyVersion).toHaveLength(5);
    expect(isFeatureSupported(v(11, 10), L4ProxyPolicyVersion)).toBe(false);
    expect(isFeatureSupported(v(11, 11), L4ProxyPolicyVersion)).toBe(true);
    expect(isFeatureSupported(v(15, 3), AccelnetVersion)).toBe(false);
  });
});

const ALL = Object.keys(FEATURE_CHECKERS) as FeatureChecker[];

async function unsupported(hcn: HcnClient): Promise<string[]> {
  const out: string[] = [];
  for (const name of ALL) {
    try {
      await hcn[name]();
    } catch (e) {
      expect(e).toBeInstanceOf(PlatformNotSupportedError);
      out.push((e as Error).message);
    }
  }
  return out;
}

describe('feature checkers on host profiles', () => {
  it('ws2019 (HNS 9.5)', async () => {
    const { hcn } = setup('ws2019');
    expect((await hcn.getGlobals()).Version).toEqual(v(9, 5));
    expect(await unsupported(hcn)).toEqual([
      'platform does not support feature HNS ACL Policies to support protocol 252 for VXLAN',
      'platform does not support feature Session Affinity',
      'platform does not support feature IPv6 DualStack',
      'platform does not support feature SetPolicy',
      'platform does not support feature VXLAN port configuration',
      'platform does not support feature L4WfpProxyPolicy',
      'platform does not support feature TierAcl',
      'platform does not support feature NetworkACL',
      'platform does not support feature NestedIpSet',
      'platform does not support feature DisableHostPort',
      'platform does not support feature ModifyLoadbalancer',
      'platform does not support feature Accelnet',
    ]);
    const f = await hcn.getCachedSupportedFeatures();
    expect(f.API).toEqual({ V1: true, V2: true });
    expect(f.DSR && f.Slash32EndpointPrefixes && f.L4Proxy && f.RemoteSubnet && f.HostRoute).toBe(true);
    expect(f.ACL).toEqual({
      AclAddressLists: true,
      AclHostRulePriority: true,
      AclPortRanges: true,
      AclRuleId: true,
    });
  });

  it('ws2022 (HNS 15.0)', async () => {
    const { hcn } = setup('ws2022');
    expect(await unsupported(hcn)).toEqual([
      'platform does not support feature DisableHostPort',
      'platform does not support feature ModifyLoadbalancer',
      'platform does not support feature Accelnet',
    ]);
  });

  it('ws2025 (HNS 15.4): everything', async () => {
    const { hcn } = setup('ws2025');
    expect(await unsupported(hcn)).toEqual([]);
    await expect(hcn.accelnetSupported()).resolves.toBeUndefined();
  });

  it('explicit versions: DSR 10.0/10.1 no, 10.2 yes; VxlanPort from 10.3; IPv6 dual stack from 11.10', async () => {
    const check = async (version: string, checker: FeatureChecker) => {
      const { hcn } = setup(version);
      try {
        await hcn[checker]();
        return true;
      } catch {
        return false;
      }
    };
    expect(await check('9.2', 'dsrSupported')).toBe(false);
    expect(await check('9.3', 'dsrSupported')).toBe(true);
    expect(await check('10.1', 'dsrSupported')).toBe(false);
    expect(await check('10.2', 'dsrSupported')).toBe(true);
    expect(await check('10.2', 'vxlanPortSupported')).toBe(false);
    expect(await check('10.3', 'vxlanPortSupported')).toBe(true);
    expect(await check('10.3', 'slash32EndpointPrefixesSupported')).toBe(false);
    expect(await check('10.410', 'slash32EndpointPrefixesSupported')).toBe(true);
    expect(await check('9.372', 'slash32EndpointPrefixesSupported')).toBe(true);
    expect(await check('255.2', 'slash32EndpointPrefixesSupported')).toBe(true);
    expect(await check('11.9', 'ipv6DualStackSupported')).toBe(false);
    expect(await check('11.10', 'ipv6DualStackSupported')).toBe(true);
    expect(await check('9.1', 'v2ApiSupported')).toBe(false);
    expect(await check('9.2', 'v2ApiSupported')).toBe(true);
  });

  it('ws2019: ipv6DualStackSupported fails client-side, while HNS creates the dual-stack network', async () => {
    // hcsshim's range is a client check; ncproxy calls it before dual-stack requests, its tests'
    // createTestDualStackNATNetwork does not, and HNS 9.5 (windows-2019 CI) creates that network
    const { hcn, rec } = setup('ws2019');
    await expect(hcn.ipv6DualStackSupported()).rejects.toThrow(
      'platform does not support feature IPv6 DualStack',
    );
    rec.clear();
    const doc = natNetworkDoc(defaultSubnet(), 'dual');
    doc.Ipams![0]!.Subnets!.push(subnet('2001:db8:abcd:0012::0/64', '2001:db8:abcd:0012::1', '::/0'));
    const net = await hcn.createNetwork(doc);
    expect(net.Ipams![0]!.Subnets!.map((x) => x.IpAddressPrefix)).toEqual([
      '192.168.100.0/24',
      '2001:db8:abcd:0012::0/64',
    ]);
    expect(rec.methods()[0]).toBe('HcnCreateNetwork'); // no feature query before the create
  });

  it('a pre-1809 host (HNS 7.2): v1 globals answer, v2 calls fail with E_NOTIMPL from the service', async () => {
    const { hcn } = setup('7.2');
    const f = await hcn.getCachedSupportedFeatures();
    expect(f.ACL.AclAddressLists).toBe(true);
    expect(f.API).toEqual({ V1: true, V2: false });
    await expect(hcn.v2ApiSupported()).rejects.toThrow('platform does not support feature V2 Api/Schema');
    const e = await rejection(hcn.listNetworks());
    expect(isNotImplemented(e)).toBe(true);
    expect(e.message).toMatch(/^hcnEnumerateNetworks failed in Win32: Not implemented\. \(0x80004001\)/);
    const old = await setup('7.1').hcn.getCachedSupportedFeatures();
    expect(old.ACL.AclAddressLists).toBe(false);
  });
});

describe('feature cache (sync.Once per client)', () => {
  it('queries /globals/version once per client, through HNSCall', async () => {
    const { hcn, rec } = setup('ws2022');
    await Promise.all([hcn.v2ApiSupported(), hcn.dsrSupported(), hcn.getCachedSupportedFeatures()]);
    await hcn.tierAclPolicySupported();
    await hcn.supportedFeatures();
    expect(rec.calls).toEqual([{ method: 'HNSCall', args: ['GET', '/globals/version', ''] }]);
  });

  it("a failed version query is cached too, with hcsshim's text; the deprecated getter gives all false", async () => {
    const { host, hcn } = setup('ws2022');
    const rule = host.faults.fail((c) => c.method === 'HNSCall', 'E_FAIL', { times: 1 });
    const e = await rejection(hcn.getCachedSupportedFeatures());
    expect(e).toBeInstanceOf(HcnClientError);
    expect(e.message).toBe(
      'failed to query HCN version number: this is expected on pre 1803 builds.: hnsCall failed in Win32: Unspecified error. (0x80004005)',
    );
    expect(rule.hits).toBe(1);
    // the fault is spent, but the first outcome stays
    await expect(hcn.networkACLPolicySupported()).rejects.toThrow(/^failed to query HCN version number/);
    const none: SupportedFeatures = await hcn.getSupportedFeatures();
    expect(none.API.V2).toBe(false);
    expect(Object.values(none).filter((x) => x === true)).toEqual([]);
    // a fresh client asks again
    expect((await HcnClient.forHost(host).getCachedSupportedFeatures()).NetworkACL).toBe(true);
  });

  it('a v1 response with Success:false becomes "HNS failed with error : <Error>"', async () => {
    const stub = {
      async call(): Promise<HcnResult<Json>> {
        return { ok: true, hr: 0, result: { Success: false, Error: 'Element not found.' } };
      },
    };
    const e = await rejection(new HcnClient(stub).getGlobals());
    expect(e.message).toBe('HNS failed with error : Element not found.');
  });

  it('feature checks are client-side only: create does not check, the service refuses', async () => {
    // hcsshim never checks features inside create/modify; a DisableHostPort network on ws2022 reaches HNS
    const { hcn, rec } = setup('ws2022');
    await expect(hcn.disableHostPortSupported()).rejects.toThrow('DisableHostPort');
    rec.clear();
    const e = (await rejection(hcn.createNetwork({ ...natNetworkDoc(), Flags: 1024 }))) as HcnError;
    expect(rec.methods()).toEqual(['HcnCreateNetwork']);
    expect(e.code).toBe('HCN_E_INVALID_NETWORK');
    expect(e.detail).toMatch(/DisableHostPort needs HNS 15.1/);
  });
});

describe('HcnClient.forHost', () => {
  it('calls host.transport, so the host fault injector sees every call', async () => {
    const host = createHost({ profile: 'ws2025' });
    const hcn = HcnClient.forHost(host);
    expect(hcn.transport).toBe(host.transport);
    const rule = host.faults.fail((c) => c.method === 'HcnQueryNetworkProperties', 'ERROR_NOT_FOUND', {
      times: 1,
    });
    const e = (await rejection(hcn.createNetwork(natNetworkDoc()))) as HcnError;
    expect(rule.hits).toBe(1);
    expect(e.title).toBe('hcnQueryNetworkProperties');
    // as in hcsshim, a failed query after a successful create leaves the network behind
    expect((await hcn.listNetworks()).map((n) => n.Name)).toEqual(['GoTestNatNetwork']);
  });
});
