/**
 * NetworkPolicy on Antrea nodes against a reference evaluator written from the Kubernetes
 * NetworkPolicy semantics (kubernetes.io/docs/concepts/services-networking/network-policies):
 * a pod is isolated for a direction when a policy of that type selects it; isolated, a connection
 * is allowed when some rule of some policy selecting it allows the peer and the port (a rule with
 * no `from`/`to` allows every peer, with no `ports` every port; a peer's `podSelector` alone picks
 * pods of the policy's namespace, `namespaceSelector` pods of the namespaces it matches, both
 * together pods matching both, `ipBlock` addresses in its CIDR but not its excepts); a connection
 * needs its source's egress and its destination's ingress. The evaluator knows nothing of flows:
 * each pod → pod TCP connection's trace through the cluster must be Delivered exactly when it
 * allows it (and DeniedOut or DeniedIn otherwise).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import type { NetworkPolicyPeer, NetworkPolicyRule, NetworkPolicySpec } from '../../src/cluster/netpol.js';

type Labels = Record<string, string>;
interface Pod {
  readonly namespace: string;
  readonly name: string;
  readonly node: string;
  readonly labels: Labels;
}

// ───────────── the reference evaluator ─────────────

const matches = (sel: Labels, labels: Labels) => Object.entries(sel).every(([k, v]) => labels[k] === v);
const ipNum = (s: string) => s.split('.').reduce((a, x) => a * 256 + Number(x), 0) >>> 0;
function inCidr(ip: string, cidr: string): boolean {
  const [a, l] = cidr.split('/');
  const len = Number(l);
  const mask = len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0;
  return (ipNum(ip) & mask) >>> 0 === (ipNum(a!) & mask) >>> 0;
}

function peerAllows(
  policy: NetworkPolicySpec,
  peer: NetworkPolicyPeer,
  other: Pod,
  otherIp: string,
): boolean {
  if (peer.ipBlock)
    return inCidr(otherIp, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((e) => inCidr(otherIp, e));
  const nsOk = peer.namespaceSelector
    ? matches(peer.namespaceSelector, { 'kubernetes.io/metadata.name': other.namespace })
    : other.namespace === policy.namespace;
  return nsOk && matches(peer.podSelector ?? {}, other.labels);
}

function ruleAllows(
  policy: NetworkPolicySpec,
  peers: readonly NetworkPolicyPeer[] | undefined,
  rule: NetworkPolicyRule,
  other: Pod,
  otherIp: string,
  port: number,
): boolean {
  // "If this field is empty or missing, this rule matches all sources" (and all ports)
  const peerOk = !peers?.length || peers.some((p) => peerAllows(policy, p, other, otherIp));
  const portOk =
    !rule.ports?.length ||
    rule.ports.some(
      (pt) =>
        (pt.protocol ?? 'TCP') === 'TCP' &&
        (pt.port === undefined || (port >= pt.port && port <= (pt.endPort ?? pt.port))),
    );
  return peerOk && portOk;
}

// "If no policyTypes are specified on a NetworkPolicy then by default Ingress will always be set and
// Egress will be set if the NetworkPolicy has any egress rules"
function types(p: NetworkPolicySpec): string[] {
  return p.policyTypes?.length ? [...p.policyTypes] : ['Ingress', ...(p.egress?.length ? ['Egress'] : [])];
}

function allowedBy(
  policies: readonly NetworkPolicySpec[],
  self: Pod,
  other: Pod,
  otherIp: string,
  port: number,
  dir: 'Ingress' | 'Egress',
): boolean {
  const mine = policies.filter(
    (p) => types(p).includes(dir) && p.namespace === self.namespace && matches(p.podSelector, self.labels),
  );
  if (!mine.length) return true;
  return mine.some((p) =>
    (dir === 'Ingress' ? (p.ingress ?? []) : (p.egress ?? [])).some((r) =>
      ruleAllows(p, dir === 'Ingress' ? r.from : r.to, r, other, otherIp, port),
    ),
  );
}

// ───────────── generators ─────────────

const label = fc.constantFrom('a', 'b', 'c');
const selector: fc.Arbitrary<Labels> = fc.oneof(
  fc.constant({}),
  label.map((v) => ({ app: v })),
);
const nsSelector: fc.Arbitrary<Labels> = fc.oneof(
  fc.constant({}),
  fc.constantFrom('default', 'prod').map((n) => ({ 'kubernetes.io/metadata.name': n })),
);
const peer: fc.Arbitrary<NetworkPolicyPeer> = fc.oneof(
  selector.map((s) => ({ podSelector: s })),
  nsSelector.map((s) => ({ namespaceSelector: s })),
  fc.tuple(selector, nsSelector).map(([p, n]) => ({ podSelector: p, namespaceSelector: n })),
  fc.constantFrom(
    { ipBlock: { cidr: '10.244.0.0/16' } },
    { ipBlock: { cidr: '10.244.0.0/16', except: ['10.244.1.0/24'] } },
    { ipBlock: { cidr: '10.244.2.0/24', except: ['10.244.2.2/32'] } },
  ),
);
const ports = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    [{ port: 80 }],
    [{ protocol: 'TCP' as const, port: 5432 }],
    [{ port: 8000, endPort: 8080 }],
    [{ protocol: 'UDP' as const, port: 80 }],
    [],
  ),
);
const rule = (key: 'from' | 'to'): fc.Arbitrary<NetworkPolicyRule> =>
  fc
    .record({
      peers: fc.oneof(fc.constant(undefined), fc.array(peer, { maxLength: 2 })),
      ports,
    })
    .map(({ peers, ports: pts }) => ({ ...(peers ? { [key]: peers } : {}), ...(pts ? { ports: pts } : {}) }));
const policy = (i: number): fc.Arbitrary<NetworkPolicySpec> =>
  fc
    .record({
      namespace: fc.constantFrom('default', 'prod'),
      podSelector: selector,
      types: fc.constantFrom(undefined, [], ['Ingress'], ['Egress'], ['Ingress', 'Egress']),
      ingress: fc.oneof(fc.constant(undefined), fc.array(rule('from'), { maxLength: 2 })),
      egress: fc.oneof(fc.constant(undefined), fc.array(rule('to'), { maxLength: 2 })),
    })
    .map((r) => ({
      namespace: r.namespace,
      name: `np${i}`,
      podSelector: r.podSelector,
      ...(r.types ? { policyTypes: [...r.types] as ('Ingress' | 'Egress')[] } : {}),
      ...(r.ingress ? { ingress: r.ingress } : {}),
      ...(r.egress ? { egress: r.egress } : {}),
    }));

const PODS: readonly Pod[] = [
  { namespace: 'default', name: 'a1', node: 'win-a', labels: { app: 'a' } },
  { namespace: 'default', name: 'b1', node: 'win-b', labels: { app: 'b' } },
  { namespace: 'prod', name: 'a2', node: 'win-b', labels: { app: 'a' } },
  { namespace: 'prod', name: 'c1', node: 'win-a', labels: { app: 'c' } },
];

describe('NetworkPolicy on Antrea nodes = the Kubernetes semantics', () => {
  it('every pod → pod TCP connection is Delivered exactly when the reference evaluator allows it', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 3 })
          .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => policy(i)))),
        (policies) => {
          const c = new Cluster({ seed: 3 });
          c.addWindowsNode({ name: 'win-a', network: 'antrea' });
          c.addWindowsNode({ name: 'win-b', network: 'antrea' });
          for (const p of PODS) c.addPod(p);
          for (const p of policies) c.addNetworkPolicy(p);
          const ip = (p: Pod) => c.pod(`${p.namespace}/${p.name}`)!.ip;
          for (const src of PODS)
            for (const dst of PODS) {
              if (src === dst) continue;
              for (const port of [80, 5432, 8080]) {
                const egress = allowedBy(policies, src, dst, ip(dst), port, 'Egress');
                const ingress = allowedBy(policies, dst, src, ip(src), port, 'Ingress');
                const t = c.trace({
                  from: `${src.namespace}/${src.name}`,
                  to: `${dst.namespace}/${dst.name}`,
                  protocol: 'tcp',
                  destinationPort: port,
                });
                const want = !egress ? 'DeniedOut' : !ingress ? 'DeniedIn' : 'Delivered';
                expect(t.disposition, `${src.name} → ${dst.name}:${port} ${JSON.stringify(policies)}`).toBe(
                  want,
                );
              }
            }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('a removed policy lets traffic through again; bad specs are refused with nothing added', () => {
    const c = new Cluster({ seed: 3 });
    c.addWindowsNode({ name: 'win-a', network: 'antrea' });
    for (const p of PODS.map((p) => ({ ...p, node: 'win-a' }))) c.addPod(p);
    const req = { from: 'default/a1', to: 'prod/a2', protocol: 'tcp', destinationPort: 80 } as const;
    c.addNetworkPolicy({ namespace: 'prod', name: 'deny', podSelector: {}, policyTypes: ['Ingress'] });
    expect(c.trace(req).disposition).toBe('DeniedIn');
    for (const bad of [
      { namespace: 'prod', name: 'deny', podSelector: {} },
      { namespace: 'prod', name: 'x', podSelector: {}, ingress: [{ from: [{}] }] },
      {
        namespace: 'prod',
        name: 'y',
        podSelector: {},
        ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['11.0.0.0/16'] } }] }],
      },
      { namespace: 'prod', name: 'z', podSelector: {}, ingress: [{ ports: [{ port: 90, endPort: 80 }] }] },
      { namespace: 'prod', name: 'm', podSelector: { matchLabels: { app: 'a' } } },
      { namespace: 'prod', name: 'u' },
      {
        namespace: 'prod',
        name: 'e',
        podSelector: {},
        ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.0.0/8'] } }] }],
      },
      // malformed ipBlocks: refused by shape, not a TypeError
      ...[{ ipBlock: 'x' }, { ipBlock: { cidr: 5 } }, { ipBlock: { cidr: '10.0.0.0/8', except: 3 } }].map(
        (peer, i) => ({ namespace: 'prod', name: `b${i}`, podSelector: {}, ingress: [{ from: [peer] }] }),
      ),
    ] as NetworkPolicySpec[])
      expect(() => c.addNetworkPolicy(bad)).toThrow(expect.objectContaining({ code: 'E_INVALIDARG' }));
    expect(c.trace(req).disposition).toBe('DeniedIn');
    expect(c.removeNetworkPolicy('prod', 'deny')).toBe(true);
    expect(c.trace(req).disposition).toBe('Delivered');
  });
});

describe('the compiler’s arithmetic', () => {
  it('a port range as value/mask pairs covers exactly the range (property, against the range itself)', async () => {
    const { portMasks } = await import('../../src/plugins/antrea/pipeline.js');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 65535 }), fc.integer({ min: 0, max: 300 }), (lo, span) => {
        const hi = Math.min(65535, lo + span);
        const covered = (p: number) =>
          portMasks(lo, hi).some((m) => {
            const [v, mask] = m.includes('/') ? m.split('/').map((x) => Number(x)) : [Number(m), 0xffff];
            return (p & mask!) === v;
          });
        for (let p = Math.max(1, lo - 3); p <= Math.min(65535, hi + 3); p++)
          expect(covered(p), `${p}`).toBe(p >= lo && p <= hi);
      }),
      { numRuns: 100 },
    );
    expect(portMasks(8000, 8080)).toEqual(['0x1f40/0xffc0', '0x1f80/0xfff0', '8080']);
  });

  it('a CIDR minus its excepts: the addresses left, in the fewest prefixes', async () => {
    const { subtractPrefixes } = await import('../../src/cluster/netpol.js');
    const { parsePrefix4, fmtPrefix } = await import('../../src/vswitch/v4.js');
    const p = (s: string) => parsePrefix4(s)!;
    expect(subtractPrefixes(p('10.244.0.0/16'), [p('10.244.1.0/24')]).map(fmtPrefix)).toEqual([
      '10.244.0.0/24',
      '10.244.2.0/23',
      '10.244.4.0/22',
      '10.244.8.0/21',
      '10.244.16.0/20',
      '10.244.32.0/19',
      '10.244.64.0/18',
      '10.244.128.0/17',
    ]);
    expect(subtractPrefixes(p('10.0.0.0/30'), [p('10.0.0.0/30')])).toEqual([]);
  });
});
