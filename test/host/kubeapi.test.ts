// The Kubernetes API server a node reaches (src/host/kubeapi.ts): `createHost({ kubernetes })`
// refuses a bad spec as it refuses a bad `azure` one (E_INVALIDARG naming the key), a Node takes at
// most one pod CIDR per IP family (the API server's Node validation: "may specify no more than one
// CIDR for each IP family"), a path with a malformed percent-escape is Go net/http's plain
// "400 Bad Request" (url.ParseRequestURI fails before any handler), and the attachment is in the
// host snapshot: restored into a fresh host, the node reaches the same server; old snapshots load.
import { describe, expect, it } from 'vitest';
import { createHost, type HostOptions } from '../../src/host/host.js';
import { KubeApiServer } from '../../src/host/kubeapi.js';
import { isHnsError } from '../../src/core/errors.js';

const SPEC = { version: '1.30.4', podCIDRs: ['10.244.1.0/24', 'fd00:10:244:1::/64'] };

/** The E_INVALIDARG detail a call fails with. */
function refused(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isHnsError(e)) return `${e.code}: ${e.detail ?? ''}`;
    throw e;
  }
  throw new Error('not refused');
}

describe('createHost({ kubernetes }) refuses a bad spec', () => {
  const cases: [string, unknown, string][] = [
    [
      'a typo of podCIDRs',
      { podCidrs: SPEC.podCIDRs },
      'kubernetes: unknown key "podCidrs" (url, version, podCIDRs)',
    ],
    ['not an object', ['10.244.1.0/24'], 'kubernetes: must be an object {"url","version","podCIDRs":[…]}'],
    ['a version that is a number', { version: 1.3 }, 'kubernetes: version must be a string'],
    ['podCIDRs not a list', { podCIDRs: '10.244.1.0/24' }, 'kubernetes: podCIDRs must be a list of CIDRs'],
    [
      'two IPv6 pod CIDRs',
      { podCIDRs: ['fd00:10:244:1::/64', 'fd00:10:244:2::/64'] },
      'kubernetes: podCIDRs fd00:10:244:1::/64, fd00:10:244:2::/64: may specify no more than one CIDR for each IP family',
    ],
    [
      'two IPv4 pod CIDRs',
      { podCIDRs: ['10.244.1.0/24', '10.244.2.0/24'] },
      'kubernetes: podCIDRs 10.244.1.0/24, 10.244.2.0/24: may specify no more than one CIDR for each IP family',
    ],
    ['an ftp URL', { url: 'ftp://10.0.0.1' }, 'kubernetes: url "ftp://10.0.0.1" is not an http(s) URL'],
  ];
  for (const [what, spec, detail] of cases)
    it(what, () => {
      expect(refused(() => createHost({ kubernetes: spec } as HostOptions))).toBe(`E_INVALIDARG: ${detail}`);
    });

  it('setNode refuses two CIDRs of one family and keeps the node as it was', () => {
    const api = new KubeApiServer();
    api.setNode('a', ['10.244.1.0/24']);
    expect(() => api.setNode('a', ['fd00::/64', 'fd01::/64'])).toThrow(
      /no more than one CIDR for each IP family/,
    );
    expect(api.node('a')!.podCIDRs).toEqual(['10.244.1.0/24']);
  });
});

describe('a malformed request path', () => {
  const api = new KubeApiServer();
  api.setNode('akswin1', ['fd00:10:244:1::/64']);

  it('a bad percent-escape is 400 "400 Bad Request" (net/http), not a thrown URIError', () => {
    for (const path of ['/api/v1/nodes/%zz', '/api/v1/nodes/akswin1%', '/api/v1/nodes/a%4', '/version%'])
      expect(api.request('GET', `https://10.0.0.1:443${path}`)).toEqual({
        status: 400,
        body: '400 Bad Request',
      });
  });

  it('escapes of any byte decode as Go does: %61 is "a", %ff (not UTF-8) a NotFound naming U+FFFD', () => {
    expect(api.request('GET', 'https://10.0.0.1:443/api/v1/nodes/%61kswin1').status).toBe(200);
    const r = api.request('GET', 'https://10.0.0.1:443/api/v1/nodes/%ff');
    expect(r.status).toBe(404);
    expect((JSON.parse(r.body) as { message: string }).message).toBe('nodes "\ufffd" not found');
  });

  it('a bad escape in the query is left to the handler (only the path is parsed strictly)', () => {
    expect(api.request('GET', 'https://10.0.0.1:443/version?x=%zz').status).toBe(200);
  });
});

describe('the API server attachment in the host snapshot', () => {
  it('restored into a fresh host: the node reaches the same server and finds itself', () => {
    const a = createHost({ name: 'AksWin1', kubernetes: SPEC });
    a.kubernetes!.setNode('akswin2', ['fd00:10:244:2::/64'], '10.224.0.5');
    const snap = JSON.parse(JSON.stringify(a.snapshot())) as Record<string, unknown>;
    expect(snap['kubernetes']).toEqual({
      url: 'https://10.0.0.1:443',
      version: 'v1.30.4',
      nodes: [
        { name: 'akswin1', podCIDRs: SPEC.podCIDRs },
        { name: 'akswin2', podCIDRs: ['fd00:10:244:2::/64'], internalIp: '10.224.0.5' },
      ],
    });
    const b = createHost({ name: 'AksWin1' });
    b.restore(snap);
    expect(b.kubernetes!.toState()).toEqual(snap['kubernetes']);
    const server = /server: (\S+)/.exec(b.files.read('c:\\k\\config')!)![1]!;
    const node = JSON.parse(b.httpRequest('GET', `${server}/api/v1/nodes/akswin1`).body) as {
      spec: { podCIDRs: string[] };
    };
    expect(node.spec.podCIDRs).toEqual(SPEC.podCIDRs);
    expect(JSON.parse(b.httpRequest('GET', `${server}/version`).body)).toMatchObject({
      major: '1',
      minor: '30',
    });
  });

  it('an old snapshot (no kubernetes) loads: a fresh host reaches none, an attached host keeps its own', () => {
    const snap = createHost({ name: 'n' }).snapshot() as Record<string, unknown>;
    expect(snap['kubernetes']).toBeUndefined();
    const fresh = createHost({ name: 'n' });
    fresh.restore(snap);
    expect(fresh.kubernetes).toBeUndefined();
    const attached = createHost({ name: 'n', kubernetes: SPEC });
    const own = attached.kubernetes;
    attached.restore(snap);
    expect(attached.kubernetes).toBe(own);
  });

  it('a host attached to a server at the snapshot URL keeps that server (a cluster shares one)', () => {
    const shared = new KubeApiServer();
    const host = createHost({ name: 'n' });
    host.attachKubernetes(shared);
    const snap = host.snapshot();
    shared.setNode('later', []);
    host.restore(snap);
    expect(host.kubernetes).toBe(shared);
    expect(shared.node('later')).toBeDefined();
  });

  it('a malformed kubernetes section is refused before anything changes', () => {
    const good = createHost({ name: 'n', kubernetes: SPEC }).snapshot() as Record<string, unknown>;
    const host = createHost({ name: 'n' });
    host.files.write('c:\\before', 'x');
    const before = JSON.stringify(host.snapshot());
    const bad = (k: unknown) => ({ ...good, kubernetes: k });
    const cases: [unknown, string][] = [
      [{ url: 'https://10.0.0.1:443' }, 'kubernetes: snapshot: must be {"url","version","nodes":[…]}'],
      [
        { url: 'https://10.0.0.1:443', version: 'v1.30.4', nodes: [{ name: 'n', podCIDRs: ['x'] }] },
        'kubernetes: snapshot: pod CIDR "x" is not a CIDR',
      ],
      [
        { url: 'https://10.0.0.1:443', version: 'v1.30.4', nodes: ['n'] },
        'kubernetes: snapshot: a node must be an object',
      ],
      [{ url: 'x', version: 'v1.30.4', nodes: [] }, 'kubernetes: snapshot: url "x" is not an http(s) URL'],
    ];
    for (const [k, detail] of cases) {
      expect(refused(() => host.restore(bad(k)))).toBe(`E_INVALIDARG: ${detail}`);
      expect(JSON.stringify(host.snapshot())).toBe(before);
      expect(host.kubernetes).toBeUndefined();
    }
  });
});
