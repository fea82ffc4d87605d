// azure-vnet-ipamv6's source (ACN v1.8.12 ipam/ipv6Ipam.go) and the Kubernetes API it reads: the
// vectors of ipam/ipv6Ipam_test.go and ipam/manager_ipv6Ipam_test.go, the version rule
// (`client.ServerVersion()` must be above 1.16), and each failure of the source with upstream's text.
import { describe, expect, it } from 'vitest';
import {
  checkServerVersion,
  compareK8sVer,
  retrieveKubernetesPodIps,
} from '../../../src/plugins/azure-vnet-ipam/ipv6.js';
import { AddressManager, type IpamSource } from '../../../src/plugins/azure-vnet-ipam/manager.js';
import { KubeClient, loadKubeconfig } from '../../../src/plugins/azure-vnet-ipam/kube.js';
import { KubeApiServer } from '../../../src/host/kubeapi.js';
import { createHost, type Host } from '../../../src/host/host.js';
import { pluginHost } from '../../../src/cni/host.js';
import { referenceRegistry } from '../../../src/plugins/index.js';
import { formatIp } from '../../../src/addr/ip.js';

// ipv6Ipam_test.go newKubernetesTestClient: node "TestNode", PodCIDRs ["10.0.0.1/24", "ace:cab:deca:deed::/64"]
const TEST_POD_CIDRS = ['10.0.0.1/24', 'ace:cab:deca:deed::/64'];

describe('retrieveKubernetesPodIPs (ipv6Ipam_test.go)', () => {
  it("carves the /126 of the node's IPv6 pod CIDR: prefix ace:cab:deca:deed::/126, addresses ::2 and ::3", () => {
    expect(retrieveKubernetesPodIps(TEST_POD_CIDRS, '/126')).toEqual({
      prefix: 'ace:cab:deca:deed::/126',
      addresses: ['ace:cab:deca:deed::2', 'ace:cab:deca:deed::3'],
    });
  });

  it('fails for a node without an IPv6 subnet (PodCIDRs ["10.0.0.1/24"])', () => {
    expect(() => retrieveKubernetesPodIps(['10.0.0.1/24'], '/126')).toThrow(
      '[ipam] Failed to retrieve subnet, node does an IPv6 subnet allocated from Kubernetes',
    );
  });

  it('takes the first /120 by default: 254 addresses, ::2 to ::ff', () => {
    const r = retrieveKubernetesPodIps(['fd00:10:244:1::/64']);
    expect(r.prefix).toBe('fd00:10:244:1::/120');
    expect(r.addresses.length).toBe(254);
    expect([r.addresses[0], r.addresses[253]]).toEqual(['fd00:10:244:1::2', 'fd00:10:244:1::ff']);
  });
});

describe('CompareK8sVer and the dual-stack minimum (ipv6Ipam.go loadKubernetesConfig)', () => {
  // npm/util/util_test.go TestCompareK8sVer (ACN v1.8.12: the same function, the same vectors)
  it("upstream's vectors: invalid, smaller, equal, bigger, a hotfix tag, a minor with '+', a bigger major", () => {
    expect(compareK8sVer({ major: '!', minor: '%' }, { major: 1, minor: 11 })).toBe(-2);
    expect(compareK8sVer({ major: '1', minor: '10' }, { major: 1, minor: 11 })).toBe(-1);
    expect(compareK8sVer({ major: '1', minor: '11' }, { major: 1, minor: 11 })).toBe(0);
    expect(compareK8sVer({ major: '1', minor: '11' }, { major: 1, minor: 10 })).toBe(1);
    expect(compareK8sVer({ major: '1', minor: '14.8-hotfix.20191113' }, { major: 1, minor: 11 })).toBe(1);
    expect(compareK8sVer({ major: '1', minor: '14+' }, { major: 1, minor: 11 })).toBe(1);
    expect(compareK8sVer({ major: '2', minor: '1' }, { major: 1, minor: 11 })).toBe(1);
  });

  // Masterminds/semver v1.5.0 version.go: NewVersion parses each number with strconv.ParseInt(…, 10,
  // 64) (an error past int64: CompareK8sVer's comparisonError), SemVerRegex lets a pre-release follow
  // the numbers, and Compare puts a version with a pre-release below the same one without
  it('a major past int64 is an error; int64 max itself a version; an odd major making a pre-release sorts below', () => {
    const min = { major: 1, minor: 16 };
    expect(compareK8sVer({ major: '9223372036854775808', minor: '0' }, min)).toBe(-2);
    expect(compareK8sVer({ major: '1', minor: '99999999999999999999' }, min)).toBe(-2);
    expect(compareK8sVer({ major: '9223372036854775807', minor: '0' }, min)).toBe(1);
    // "0001" is 1 to ParseInt; a 20-digit number with leading zeros fits
    expect(compareK8sVer({ major: '00000000000000000001', minor: '16' }, min)).toBe(0);
    // "1.16-rc" + "." + "0" is 1.16.0-rc.0: below 1.16; "1.16" + "." + "1" is 1.16.1: above
    expect(compareK8sVer({ major: '1.16-rc', minor: '0' }, min)).toBe(-1);
    expect(compareK8sVer({ major: '1.16', minor: '1' }, min)).toBe(1);
    // build metadata does not count: "1+abc.16" is 1.0.0
    expect(compareK8sVer({ major: '1+abc', minor: '16' }, min)).toBe(-1);
    expect(compareK8sVer({ major: 'v1', minor: '17' }, min)).toBe(1);
    expect(compareK8sVer({ major: '1', minor: '' }, min)).toBe(-2);
  });

  it('1.16 and older are refused; newer pass', () => {
    expect(() => checkServerVersion({ major: '1', minor: '16' })).toThrow(
      'Incompatible Kubernetes version for dual stack',
    );
    expect(() => checkServerVersion({ major: '1', minor: '15' })).toThrow(
      'Incompatible Kubernetes version for dual stack',
    );
    expect(() => checkServerVersion({ major: '', minor: '30' })).toThrow(
      'Error comparing Kubernetes API versions',
    );
    expect(() => checkServerVersion({ major: '1', minor: '17' })).not.toThrow();
  });
});

/** A host whose node is `testnode` in an API server of `version`, with `podCIDRs`. */
function kubeHost(podCIDRs: readonly string[] = TEST_POD_CIDRS, version = '1.30.4'): Host {
  return createHost({ name: 'TestNode', kubernetes: { version, podCIDRs } });
}

function v6Source(host: Host): IpamSource {
  const ph = pluginHost(host, referenceRegistry());
  return {
    fetch: () => '',
    interfaces: () => [],
    kubernetes: { hostname: () => ph.name, client: () => new KubeClient(ph, loadKubeconfig(ph)) },
  };
}

describe("the address manager with the IPv6 source (manager_ipv6Ipam_test.go, at upstream's /120)", () => {
  it('pool ace:cab:deca:deed::/120; ::2 when asked for; ::3 next; both released', () => {
    const am = new AddressManager(() => {});
    am.startSource('ipv6NodeIpam', v6Source(kubeHost()));
    const { poolId, subnet } = am.requestPool('local', '', '', true);
    expect(subnet).toBe('ace:cab:deca:deed::/120');
    expect(am.requestAddress('local', poolId, 'ace:cab:deca:deed::2', '')).toBe('ace:cab:deca:deed::2/120');
    expect(am.requestAddress('local', poolId, '', '')).toBe('ace:cab:deca:deed::3/120');
    am.releaseAddress('local', poolId, 'ace:cab:deca:deed::2', '');
    am.releaseAddress('local', poolId, 'ace:cab:deca:deed::3', '');
    am.releasePool('local', poolId);
    expect(am.poolInfo('local', poolId).available).toBe(254);
    // the pool's gateway is its host 1 (pool.go defaultGatewayHostId ::1)
    expect(formatIp(am.poolInfo('local', poolId).gateway)).toBe('ace:cab:deca:deed::1');
  });
});

/**
 * What an address manager with the IPv6 source does on `host`: the failures it logged (upstream's
 * `refreshSource` logs and goes on) and what its RequestPool then answers.
 */
function refreshOutcome(host: Host): { logged: string[]; requestPool: string } {
  const logged: string[] = [];
  const am = new AddressManager(
    () => {},
    (message, error) => logged.push(`${message}: ${error}`),
  );
  am.startSource('ipv6NodeIpam', v6Source(host));
  let requestPool: string;
  try {
    requestPool = am.requestPool('local', '', '', true).subnet;
  } catch (e) {
    requestPool = (e as Error).message;
  }
  return { logged, requestPool };
}

/** The source failed with `error`: logged once, and the manager has no `local` space (pool.go). */
function failedWith(host: Host, error: string): void {
  expect(refreshOutcome(host)).toEqual({
    logged: [`Source refresh failed: ${error}`],
    requestPool: 'Invalid address space',
  });
}

describe("the source's failures, with client-go's and upstream's texts (through the manager)", () => {
  it('a working source logs nothing and gives the pool', () => {
    expect(refreshOutcome(kubeHost())).toEqual({ logged: [], requestPool: 'ace:cab:deca:deed::/120' });
  });

  it('no kubeconfig: os.Stat on c:\\k\\config', () => {
    failedWith(
      createHost({ name: 'TestNode' }),
      'CreateFile c:\\k\\config: The system cannot find the file specified.',
    );
  });

  it('a kubeconfig with no cluster: client-go\'s "no configuration has been provided"', () => {
    const host = createHost({ name: 'TestNode' });
    host.files.write('c:\\k\\config', 'apiVersion: v1\nkind: Config\n');
    failedWith(
      host,
      'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
    );
  });

  it("a server nothing answers: net/http's dial timeout on the discovery request", () => {
    const host = createHost({ name: 'TestNode' });
    host.files.write('c:\\k\\config', new KubeApiServer({ url: 'https://10.0.0.1:443' }).kubeconfigText());
    failedWith(host, 'Get "https://10.0.0.1:443/version?timeout=32s": dial tcp 10.0.0.1:443: i/o timeout');
  });

  it('a 1.16 server: "Incompatible Kubernetes version for dual stack"', () => {
    failedWith(kubeHost(TEST_POD_CIDRS, '1.16.15'), 'Incompatible Kubernetes version for dual stack');
  });

  it('a node the server does not know: the NotFound Status message, for the host name in lower case', () => {
    const host = kubeHost();
    host.kubernetes!.removeNode('testnode');
    host.kubernetes!.setNode('TestNode', TEST_POD_CIDRS);
    failedWith(host, 'nodes "testnode" not found');
  });

  it('a node without an IPv6 pod CIDR', () => {
    failedWith(
      kubeHost(['10.244.1.0/24']),
      '[ipam] Failed to retrieve subnet, node does an IPv6 subnet allocated from Kubernetes',
    );
  });
});

describe('the API server as the node reaches it', () => {
  it('GET /version: version.Info; an unknown node: 404 with a NotFound Status', () => {
    const api = new KubeApiServer({ version: '1.30.4' });
    const v = JSON.parse(api.request('GET', 'https://10.0.0.1:443/version?timeout=32s').body) as Record<
      string,
      string
    >;
    expect([v['major'], v['minor'], v['gitVersion']]).toEqual(['1', '30', 'v1.30.4']);
    const r = api.request('GET', 'https://10.0.0.1:443/api/v1/nodes/nope');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'nodes "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'nodes' },
      code: 404,
    });
  });

  it('the Node object carries spec.podCIDR and spec.podCIDRs', () => {
    const host = kubeHost();
    const r = host.httpRequest('GET', `${host.kubernetes!.url}/api/v1/nodes/testnode`);
    const node = JSON.parse(r.body) as { spec: { podCIDR: string; podCIDRs: string[] } };
    expect(node.spec).toEqual({ podCIDR: '10.0.0.1/24', podCIDRs: TEST_POD_CIDRS });
  });

  it('a bad pod CIDR is refused and the node is not added', () => {
    const api = new KubeApiServer();
    expect(() => api.setNode('a', ['10.0.0.0/33'])).toThrow(/not a CIDR/);
    expect(api.node('a')).toBeUndefined();
  });
});
