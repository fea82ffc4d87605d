/**
 * Cluster DNS from a Windows pod. Vectors are the Kubernetes docs' own: "DNS resolution on Windows
 * nodes" (kubernetes-windows.md §1.7: from `default`, `kubernetes` and the FQDN resolve,
 * `kubernetes.default` and `kubernetes.default.svc` do not) and dns-pod-service.md (pod
 * `172-17-0-3.default.pod.cluster.local`; the `default-subdomain` / `busybox-1` headless example).
 * Expected names are literals from those texts, never computed with the code under test.
 */
import { describe, expect } from 'vitest';
import { fc, it } from '@fast-check/vitest';
import { parseIPv4 } from '../../src/addr/index.js';
import {
  ClusterDns,
  dnsSuffixes,
  parseDnsName,
  queryNames,
  resolve,
  type DnsClientOptions,
  type EndpointDnsSettings,
} from '../../src/cluster/dns.js';

function ip(s: string): number {
  const v = parseIPv4(s);
  if (v === undefined) throw new Error(`test vector ${s} does not parse`);
  return v;
}

/** What win-bridge puts in a `default`-namespace pod's endpoint (kubernetes/kubernetes#65016). */
const podDns: EndpointDnsSettings = {
  search: ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
};

function clusterWithKubernetes(): ClusterDns {
  const zone = new ClusterDns();
  zone.addService({ namespace: 'default', name: 'kubernetes', clusterIP: ip('10.96.0.1') });
  zone.addService({ namespace: 'kube-system', name: 'kube-dns', clusterIP: ip('10.96.0.10') });
  zone.addExternal('www.bing.com', ip('204.79.197.200'));
  return zone;
}

describe('the Kubernetes docs: DNS from a Windows pod in namespace default', () => {
  const zone = clusterWithKubernetes();

  it('resolves the single label kubernetes with the namespace suffix', () => {
    expect(resolve('kubernetes', podDns, zone)).toEqual({
      ok: true,
      fqdn: 'kubernetes.default.svc.cluster.local',
      addresses: [ip('10.96.0.1')],
      tried: ['kubernetes.default.svc.cluster.local'],
    });
  });

  it('resolves the FQDN kubernetes.default.svc.cluster.local as given', () => {
    expect(resolve('kubernetes.default.svc.cluster.local', podDns, zone)).toEqual({
      ok: true,
      fqdn: 'kubernetes.default.svc.cluster.local',
      addresses: [ip('10.96.0.1')],
      tried: ['kubernetes.default.svc.cluster.local'],
    });
  });

  it.each(['kubernetes.default', 'kubernetes.default.svc'])(
    'does not resolve %s (queried only as given)',
    (name) => {
      const r = resolve(name, podDns, zone);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error).toBe('NameNotFound');
      expect(r.tried).toEqual([name]);
      expect(r.reason).toContain('treats it as fully qualified');
    },
  );

  it('explains that the other search suffixes were not tried', () => {
    const r = resolve('nosuch', podDns, zone);
    expect(r).toMatchObject({ ok: false, tried: ['nosuch.default.svc.cluster.local'] });
    if (!r.ok) expect(r.reason).toContain('svc.cluster.local, cluster.local not tried');
  });

  it('resolves an external name as given (Pod → external (DNS))', () => {
    expect(resolve('www.bing.com', podDns, zone)).toEqual({
      ok: true,
      fqdn: 'www.bing.com',
      addresses: [ip('204.79.197.200')],
      tried: ['www.bing.com'],
    });
  });

  it('reaches another namespace only by FQDN', () => {
    expect(resolve('kube-dns', podDns, zone).ok).toBe(false);
    expect(resolve('kube-dns.kube-system', podDns, zone).ok).toBe(false);
    expect(resolve('kube-dns.kube-system.svc.cluster.local', podDns, zone)).toMatchObject({
      ok: true,
      addresses: [ip('10.96.0.10')],
    });
  });
});

describe("suffixes: 'all'", () => {
  const zone = clusterWithKubernetes();
  const all: DnsClientOptions = { suffixes: 'all' };

  it('still resolves kubernetes at the first suffix', () => {
    expect(resolve('kubernetes', podDns, zone, all)).toMatchObject({
      ok: true,
      fqdn: 'kubernetes.default.svc.cluster.local',
      tried: ['kubernetes.default.svc.cluster.local'],
    });
  });

  it('tries Search in order', () => {
    expect(queryNames('kubernetes', podDns, all)).toEqual({
      ok: true,
      names: [
        'kubernetes.default.svc.cluster.local',
        'kubernetes.svc.cluster.local',
        'kubernetes.cluster.local',
      ],
    });
    expect(resolve('nosuch', podDns, zone, all)).toMatchObject({
      ok: false,
      error: 'NameNotFound',
      tried: ['nosuch.default.svc.cluster.local', 'nosuch.svc.cluster.local', 'nosuch.cluster.local'],
    });
  });

  it('puts Domain first and de-duplicates case-insensitively, ignoring a trailing dot', () => {
    const settings = {
      domain: 'Default.SVC.cluster.local',
      search: ['default.svc.cluster.local.', 'svc.cluster.local', 'SVC.Cluster.Local', 'cluster.local'],
    };
    expect(queryNames('web', settings, all)).toEqual({
      ok: true,
      names: ['web.default.svc.cluster.local', 'web.svc.cluster.local', 'web.cluster.local'],
    });
  });
});

describe('appendToMultiLabelName', () => {
  const zone = clusterWithKubernetes();

  it('resolves kubernetes.default through kubernetes.default.svc.cluster.local when all suffixes apply', () => {
    expect(
      resolve('kubernetes.default', podDns, zone, { appendToMultiLabelName: true, suffixes: 'all' }),
    ).toEqual({
      ok: true,
      fqdn: 'kubernetes.default.svc.cluster.local',
      addresses: [ip('10.96.0.1')],
      tried: [
        'kubernetes.default',
        'kubernetes.default.default.svc.cluster.local',
        'kubernetes.default.svc.cluster.local',
      ],
    });
  });

  it('does not, with only the first suffix (which is the namespace one)', () => {
    expect(resolve('kubernetes.default', podDns, zone, { appendToMultiLabelName: true })).toMatchObject({
      ok: false,
      tried: ['kubernetes.default', 'kubernetes.default.default.svc.cluster.local'],
    });
  });

  it('resolves kubernetes.default.svc with the last suffix', () => {
    expect(
      resolve('kubernetes.default.svc', podDns, zone, { appendToMultiLabelName: true, suffixes: 'all' }),
    ).toMatchObject({ ok: true, fqdn: 'kubernetes.default.svc.cluster.local' });
  });
});

describe('absolute names, unqualified queries, case', () => {
  const zone = clusterWithKubernetes();

  it('queries a name ending in "." only as itself', () => {
    expect(resolve('kubernetes.default.svc.cluster.local.', podDns, zone)).toMatchObject({
      ok: true,
      fqdn: 'kubernetes.default.svc.cluster.local',
      tried: ['kubernetes.default.svc.cluster.local'],
    });
    const opts: DnsClientOptions = { suffixes: 'all', appendToMultiLabelName: true, allowUnqualified: true };
    expect(queryNames('kubernetes.', podDns, opts)).toEqual({ ok: true, names: ['kubernetes'] });
  });

  it('queries the bare label last only with allowUnqualified', () => {
    expect(queryNames('nosuch', podDns, { allowUnqualified: true })).toEqual({
      ok: true,
      names: ['nosuch.default.svc.cluster.local', 'nosuch'],
    });
    expect(queryNames('nosuch', podDns)).toEqual({ ok: true, names: ['nosuch.default.svc.cluster.local'] });
  });

  it('queries nothing for a single label with no suffix (v1 DNSSuffix "" splits to [""])', () => {
    expect(queryNames('kubernetes', { search: [''] })).toEqual({ ok: true, names: [] });
    const r = resolve('kubernetes', { search: [''] }, zone);
    expect(r).toMatchObject({ ok: false, error: 'NameNotFound', tried: [] });
    expect(resolve('kubernetes', { search: [] }, zone, { allowUnqualified: true })).toMatchObject({
      ok: false,
      tried: ['kubernetes'],
    });
  });

  it('uses Domain as the first suffix when set', () => {
    const settings = { domain: 'default.svc.cluster.local', search: ['svc.cluster.local'] };
    expect(queryNames('kubernetes', settings)).toEqual({
      ok: true,
      names: ['kubernetes.default.svc.cluster.local'],
    });
  });

  it('compares names case-insensitively and answers in lower case', () => {
    expect(resolve('KUBERNETES', podDns, zone)).toMatchObject({
      ok: true,
      fqdn: 'kubernetes.default.svc.cluster.local',
    });
    expect(resolve('Kubernetes.Default.SVC.Cluster.Local', podDns, zone)).toMatchObject({ ok: true });
    expect(zone.lookup('WWW.Bing.COM.')).toEqual([ip('204.79.197.200')]);
    expect(queryNames('Web', { search: ['Default.SVC.Cluster.Local'] })).toEqual({
      ok: true,
      names: ['web.default.svc.cluster.local'],
    });
  });
});

describe('invalid names are an error result', () => {
  const zone = clusterWithKubernetes();
  const cases: readonly [string, string][] = [
    ['', 'Empty'],
    ['.', 'Empty'],
    ['a..b', 'EmptyLabel'],
    ['.a', 'EmptyLabel'],
    ['a..', 'EmptyLabel'],
    ['a'.repeat(64), 'LabelTooLong'],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`, 'NameTooLong'], // 254
    ['foo bar', 'BadCharacter'],
    ['a/b', 'BadCharacter'],
    ['münchen.de', 'BadCharacter'],
    ['\u212Aubernetes', 'BadCharacter'], // KELVIN SIGN lower-cases to "k"
  ];

  it.each(cases)('%j → %s', (name, problem) => {
    expect(queryNames(name, podDns)).toMatchObject({ ok: false, problem });
    const r = resolve(name, podDns, zone);
    expect(r).toMatchObject({ ok: false, error: 'InvalidName', tried: [] });
  });

  it('accepts 253 characters, underscores and hyphens', () => {
    const longest = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    expect(parseDnsName(longest)).toMatchObject({ ok: true, labels: 4 });
    expect(parseDnsName(`${longest}.`)).toMatchObject({ ok: true, absolute: true });
    expect(parseDnsName('_ldap._tcp.my-dc')).toEqual({
      ok: true,
      name: '_ldap._tcp.my-dc',
      absolute: false,
      labels: 3,
    });
  });

  it('skips a candidate that would exceed 253 characters', () => {
    const label = 'x'.repeat(63);
    const suffix = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}`;
    expect(queryNames(label, { search: [suffix] }, { allowUnqualified: true })).toEqual({
      ok: true,
      names: [label],
    });
  });
});

describe('ClusterDns records', () => {
  it('has a pod A record a-b-c-d.<ns>.pod.<domain> (verified by default)', () => {
    const zone = new ClusterDns();
    zone.addPod({ namespace: 'default', name: 'web-0', ip: ip('172.17.0.3') });
    expect(zone.lookup('172-17-0-3.default.pod.cluster.local')).toEqual([ip('172.17.0.3')]);
    expect(zone.lookup('172-17-0-3.other.pod.cluster.local')).toBeUndefined();
    expect(zone.lookup('172-17-0-4.default.pod.cluster.local')).toBeUndefined();
    expect(zone.lookup('172-17-00-3.default.pod.cluster.local')).toBeUndefined();
    expect(zone.removePod('default', 'web-0')).toBe(true);
    expect(zone.lookup('172-17-0-3.default.pod.cluster.local')).toBeUndefined();
  });

  it("answers any pod name in 'insecure' mode and none in 'disabled' mode", () => {
    expect(new ClusterDns({ pods: 'insecure' }).lookup('10-244-1-9.any.pod.cluster.local')).toEqual([
      ip('10.244.1.9'),
    ]);
    const off = new ClusterDns({ pods: 'disabled' });
    off.addPod({ namespace: 'default', name: 'p', ip: ip('172.17.0.3') });
    expect(off.lookup('172-17-0-3.default.pod.cluster.local')).toBeUndefined();
  });

  describe('the docs headless example (default-subdomain, busybox1/busybox2)', () => {
    function docsExample(): ClusterDns {
      const zone = new ClusterDns({ domain: 'cluster-domain.example' });
      zone.addService({
        namespace: 'my-namespace',
        name: 'default-subdomain',
        clusterIP: 'None',
        selector: { name: 'busybox' },
      });
      for (const [n, addr] of [
        ['1', '10.244.1.11'],
        ['2', '10.244.1.12'],
      ] as const) {
        zone.addPod({
          namespace: 'my-namespace',
          name: `busybox${n}`,
          ip: ip(addr),
          labels: { name: 'busybox' },
          hostname: `busybox-${n}`,
          subdomain: 'default-subdomain',
        });
      }
      return zone;
    }

    it('serves busybox-1.default-subdomain.my-namespace.svc.cluster-domain.example', () => {
      const zone = docsExample();
      expect(zone.lookup('busybox-1.default-subdomain.my-namespace.svc.cluster-domain.example')).toEqual([
        ip('10.244.1.11'),
      ]);
      expect(zone.lookup('busybox-2.default-subdomain.my-namespace.svc.cluster-domain.example')).toEqual([
        ip('10.244.1.12'),
      ]);
      expect(
        zone.lookup('busybox-3.default-subdomain.my-namespace.svc.cluster-domain.example'),
      ).toBeUndefined();
    });

    it('answers the service name with its pods, in insertion order', () => {
      expect(docsExample().lookup('default-subdomain.my-namespace.svc.cluster-domain.example')).toEqual([
        ip('10.244.1.11'),
        ip('10.244.1.12'),
      ]);
    });

    it('leaves out a pod the selector does not match, or one not ready unless publishNotReadyAddresses', () => {
      const zone = docsExample();
      zone.addPod({ namespace: 'my-namespace', name: 'other', ip: ip('10.244.1.13'), labels: { name: 'x' } });
      zone.addPod({
        namespace: 'my-namespace',
        name: 'busybox3',
        ip: ip('10.244.1.14'),
        labels: { name: 'busybox' },
        hostname: 'busybox-3',
        subdomain: 'default-subdomain',
        ready: false,
      });
      const svc = 'default-subdomain.my-namespace.svc.cluster-domain.example';
      expect(zone.lookup(svc)).toEqual([ip('10.244.1.11'), ip('10.244.1.12')]);
      expect(zone.lookup(`busybox-3.${svc}`)).toBeUndefined();
      zone.addService({
        namespace: 'my-namespace',
        name: 'default-subdomain',
        clusterIP: 'None',
        selector: { name: 'busybox' },
        publishNotReadyAddresses: true,
      });
      expect(zone.lookup(svc)).toEqual([ip('10.244.1.11'), ip('10.244.1.12'), ip('10.244.1.14')]);
      expect(zone.lookup(`busybox-3.${svc}`)).toEqual([ip('10.244.1.14')]);
    });

    it('a pod with subdomain but no hostname is only in the service record', () => {
      const zone = docsExample();
      zone.addPod({
        namespace: 'my-namespace',
        name: 'busybox9',
        ip: ip('10.244.1.19'),
        labels: { name: 'busybox' },
        subdomain: 'default-subdomain',
      });
      expect(zone.lookup('default-subdomain.my-namespace.svc.cluster-domain.example')).toContain(
        ip('10.244.1.19'),
      );
      expect(
        zone.lookup('busybox9.default-subdomain.my-namespace.svc.cluster-domain.example'),
      ).toBeUndefined();
    });

    it('removing the service removes its records, hostname records included', () => {
      const zone = docsExample();
      expect(zone.removeService('my-namespace', 'default-subdomain')).toBe(true);
      expect(zone.lookup('default-subdomain.my-namespace.svc.cluster-domain.example')).toBeUndefined();
      expect(
        zone.lookup('busybox-1.default-subdomain.my-namespace.svc.cluster-domain.example'),
      ).toBeUndefined();
      expect(zone.removeService('my-namespace', 'default-subdomain')).toBe(false);
    });

    it('no hostname record when the subdomain names a service with a ClusterIP', () => {
      const zone = docsExample();
      zone.addService({
        namespace: 'my-namespace',
        name: 'default-subdomain',
        clusterIP: ip('10.96.5.5'),
        selector: { name: 'busybox' },
      });
      expect(zone.lookup('default-subdomain.my-namespace.svc.cluster-domain.example')).toEqual([
        ip('10.96.5.5'),
      ]);
      expect(
        zone.lookup('busybox-1.default-subdomain.my-namespace.svc.cluster-domain.example'),
      ).toBeUndefined();
    });

    it('is not under the default cluster.local domain', () => {
      expect(docsExample().lookup('default-subdomain.my-namespace.svc.cluster.local')).toBeUndefined();
    });
  });

  it('removing the kubernetes service makes the pod fail to resolve it', () => {
    const zone = clusterWithKubernetes();
    expect(zone.removeService('default', 'kubernetes')).toBe(true);
    expect(resolve('kubernetes', podDns, zone)).toMatchObject({
      ok: false,
      tried: ['kubernetes.default.svc.cluster.local'],
    });
  });

  it('keeps external addresses in insertion order and removes them one by one', () => {
    const zone = new ClusterDns();
    zone.addExternal('www.bing.com', ip('204.79.197.200'));
    zone.addExternal('www.bing.com.', ip('13.107.21.200'));
    zone.addExternal('WWW.BING.COM', ip('204.79.197.200'));
    expect(zone.lookup('www.bing.com')).toEqual([ip('204.79.197.200'), ip('13.107.21.200')]);
    expect(zone.removeExternal('www.bing.com', ip('204.79.197.200'))).toBe(true);
    expect(zone.lookup('www.bing.com')).toEqual([ip('13.107.21.200')]);
    expect(zone.removeExternal('www.bing.com')).toBe(true);
    expect(zone.lookup('www.bing.com')).toBeUndefined();
    expect(zone.removeExternal('www.bing.com')).toBe(false);
  });

  it('rejects bad arguments with TypeError', () => {
    const zone = new ClusterDns();
    expect(() => new ClusterDns({ domain: 'bad..domain' })).toThrow(TypeError);
    expect(() => zone.addService({ namespace: 'a.b', name: 's', clusterIP: 1 })).toThrow(TypeError);
    expect(() => zone.addService({ namespace: 'a', name: 's', clusterIP: -1 })).toThrow(TypeError);
    expect(() => zone.addPod({ namespace: 'a', name: 'p', ip: 2 ** 32 })).toThrow(TypeError);
    expect(() => zone.addPod({ namespace: 'a', name: 'p', ip: 1, hostname: 'x y' })).toThrow(TypeError);
    expect(() => zone.addExternal('foo.svc.cluster.local', 1)).toThrow(TypeError);
  });
});

describe('properties', () => {
  const labelArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
  const multiLabelArb = fc.array(labelArb, { minLength: 2, maxLength: 5 }).map((labels) => labels.join('.'));
  /** Suffixes drawn from a small pool with case, trailing-dot and empty variants to provoke duplicates. */
  const suffixArb = fc.oneof(
    fc.constantFrom('default.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example', ''),
    fc
      .tuple(fc.constantFrom('Default.SVC.cluster.local', 'svc.Cluster.local', 'CLUSTER.LOCAL'), fc.boolean())
      .map(([s, dot]) => (dot ? `${s}.` : s)),
    fc.array(labelArb, { minLength: 1, maxLength: 3 }).map((l) => l.join('.')),
    fc.string({ maxLength: 8 }),
  );
  const settingsArb: fc.Arbitrary<EndpointDnsSettings> = fc.record({
    domain: fc.option(suffixArb, { nil: undefined }),
    search: fc.array(suffixArb, { maxLength: 6 }),
  });
  const optionsArb: fc.Arbitrary<DnsClientOptions> = fc.record(
    {
      suffixes: fc.constantFrom('first' as const, 'all' as const),
      allowUnqualified: fc.boolean(),
      appendToMultiLabelName: fc.boolean(),
    },
    { requiredKeys: [] },
  );
  const nameArb = fc.oneof(
    labelArb,
    multiLabelArb,
    fc.oneof(labelArb, multiLabelArb).map((n) => `${n}.`),
    fc.string({ maxLength: 20 }),
  );

  it.prop([multiLabelArb, settingsArb, optionsArb], { numRuns: 300 })(
    'a name with a dot is never expanded unless appendToMultiLabelName',
    (name, settings, options) => {
      const opts = { ...options, appendToMultiLabelName: false };
      expect(queryNames(name, settings, opts)).toEqual({ ok: true, names: [name.toLowerCase()] });
      expect(queryNames(name, settings)).toEqual({ ok: true, names: [name.toLowerCase()] });
    },
  );

  it.prop([nameArb, settingsArb, optionsArb], { numRuns: 500 })(
    'queryNames never throws, never repeats a name, and yields valid lower-case names',
    (name, settings, options) => {
      const r = queryNames(name, settings, options);
      if (!r.ok) return;
      expect(new Set(r.names).size).toBe(r.names.length);
      for (const n of r.names) {
        expect(parseDnsName(n)).toMatchObject({ ok: true, name: n, absolute: false });
      }
    },
  );

  it.prop([labelArb, settingsArb, optionsArb], { numRuns: 300 })(
    'a single label is tried with each suffix in order, then bare only when allowed',
    (label, settings, options) => {
      const r = queryNames(label, settings, options);
      const suffixes = dnsSuffixes(settings, options.suffixes ?? 'first');
      const expected = suffixes.map((s) => `${label.toLowerCase()}.${s}`).filter((n) => n.length <= 253);
      if (options.allowUnqualified) expected.push(label.toLowerCase());
      expect(r).toEqual({ ok: true, names: expected });
    },
  );
});
