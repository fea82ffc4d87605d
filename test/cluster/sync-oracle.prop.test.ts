/**
 * What kube-proxy (winkernel) programs on each Windows node, computed by an oracle written here from
 * the upstream source and compared with the node's HNS objects after random sequences of pod and
 * service changes. test/cluster/sync.prop.test.ts compares the incremental sync with the full
 * sync, which share `programService`: a bug in it is invisible there. This oracle imports nothing
 * of the cluster's sync: it keeps its own list of pods and services (pod addresses and ClusterIPs
 * as the cluster's API returned them) and reads the nodes through the flat API (canonicalState).
 *
 * Source: kubernetes/kubernetes `pkg/proxy/winkernel/proxier.go`, the v1.31-era revision the
 * reference names (kubernetes-windows.md §2.4–2.5: `syncProxyRules` with `updateLoadBalancer`,
 * `winProxyOptimization`, `terminatedEndpoints`), and `hns.go` @ 280cccaf (`getLoadBalancer`):
 * - a service with no endpoints gets no load balancer; per service port, a ClusterIP load balancer
 *   (FrontendVIPs = [clusterIP], ExternalPort = port, port-mapping flags 0, DSR = `--enable-dsr`,
 *   all endpoints), a NodePort one when `NodePort() > 0` (no frontend VIP, ExternalPort = nodePort,
 *   flags `isVipExternalIP` + `localRoutedVIP` = 16 + 2, DSR = `localTrafficDSR`, the node's own
 *   endpoints only under `localTrafficDSR`), one per external IP and one per load-balancer ingress
 *   IP (flags `isVipExternalIP` = 16, DSR = `localTrafficDSR`, local endpoints only under it);
 *   `localTrafficDSR` is `externalTrafficPolicy == Local` on an HNS with DSR support
 *   (`newServiceInfo`: `DsrSupported()`), whatever `--enable-dsr` says;
 * - every load balancer: InternalPort = targetPort, `DistributionType` =
 *   `LoadBalancerDistributionSourceIP` (hcsshim `hcn/hcnloadbalancer.go`: 2) when
 *   `sessionAffinity: ClientIP`, else none (0, omitted); SourceVIP = the node IP on l2bridge, and on
 *   overlay the configured source VIP unless a backend is a node IP or outside every remote subnet
 *   (never, with pod backends);
 * - a remote endpoint (Flags 1, MAC `conjureMac("02-11", ip)`, lower-case hex) per backend on
 *   another node, with a ProviderAddress policy on overlay (the RemoteSubnetRoute's PA: the owning
 *   node's IP); local endpoints are the CNI's;
 * - on overlay, per service with a ClusterIP, a remote endpoint for the service VIP (IP = clusterIP,
 *   MAC = the host's MAC: NewProxier's `hostMac`, the hardware address of the interface holding the
 *   node IP; PA = the node IP), created before the endpoints are looked at — so a service without
 *   endpoints has one — and cleaned up with the service (`cleanupAllPolicies`).
 * The cluster's addresses (nodes from 10.0.0.10 in the order they are added, node i's pod subnet
 * 10.244.(i+1).0/24, the overlay source VIP at its .2) are the documented ones (ClusterOptions,
 * docs/model.md "Windows overlay nodes").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Cluster } from '../../src/cluster/cluster.js';
import type { JsonObject } from '../../src/core/json.js';
import { canonicalState } from '../../src/testing/state.js';
import { runs } from '../runs.js';

// ───────────────────────────── the oracle's own world ─────────────────────────────

type Layout = 'l2bridge' | 'overlay';

interface PodM {
  readonly node: string;
  readonly app: number;
  readonly ip: string;
}

interface SvcPortM {
  readonly port: number;
  readonly targetPort: number;
  readonly protocol: 'TCP' | 'UDP';
  readonly nodePort?: number;
}

interface SvcM {
  readonly app: number;
  readonly clusterIP: string | 'None';
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly ports: readonly SvcPortM[];
  readonly local: boolean;
  readonly affinity: boolean;
  readonly externalIPs: readonly string[];
  readonly ingressIPs: readonly string[];
}

interface World {
  readonly layout: Layout;
  readonly dsr: boolean;
  readonly pods: Map<string, PodM>;
  readonly services: Map<string, SvcM>;
}

/** The cluster's nodes in the order they are added: Windows w1 w2 o1 o2, then Linux lx. */
const WINDOWS = ['w1', 'w2', 'o1', 'o2'] as const;
const NODES = [...WINDOWS, 'lx'] as const;

/** Node i (0-based, add order): 10.0.0.(10+i); pod subnet 10.244.(i+1).0/24. */
function nodeIp(node: string): string {
  return `10.0.0.${10 + NODES.indexOf(node as (typeof NODES)[number])}`;
}
function sourceVip(node: string): string {
  return `10.244.${NODES.indexOf(node as (typeof NODES)[number]) + 1}.2`;
}

/** `conjureMac("02-11", ip)`: `%02x` per byte. */
function conjureMac(ip: string): string {
  return ['02-11', ...ip.split('.').map((b) => Number(b).toString(16).padStart(2, '0'))].join('-');
}

/**
 * `newServiceInfo`: `localTrafficDSR` is `externalTrafficPolicy == Local`, forced off only when
 * `DsrSupported()` fails (HNS without DSR); `--enable-dsr` plays no part in it.
 */
function localTrafficDsr(local: boolean, hnsHasDsr: boolean): boolean {
  return local && hnsHasDsr;
}

/** Port-mapping flags (proxier.go `loadBalancerFlags` → hns.go): VipExternalIP 16, LocalRoutedVIP 2. */
const NODEPORT_FLAGS = 16 + 2;
const EXTERNAL_FLAGS = 16;

interface NodeView {
  readonly lbs: string[];
  readonly remotes: string[];
}

function lbText(
  vip: string | undefined,
  src: string,
  proto: number,
  internal: number,
  external: number,
  dist: number,
  pmFlags: number,
  dsr: boolean,
  backends: readonly string[],
): string {
  return (
    `vip=${vip ?? '-'} src=${src} ${proto}:${external}->${internal} dist=${dist} pmflags=${pmFlags} ` +
    `flags=${dsr ? 1 : 0} backends=[${[...backends].sort().join(' ')}]`
  );
}

/** What kube-proxy programs on `node`, from the world alone (`hnsHasDsr`: the node's HNS supports DSR). */
function oracle(w: World, node: string, hnsHasDsr = true): NodeView {
  const lbs: string[] = [];
  const remotes = new Set<string>();
  const overlay = w.layout === 'overlay';
  const src = overlay ? sourceVip(node) : nodeIp(node);
  for (const svc of w.services.values()) {
    if (svc.clusterIP === 'None') continue;
    // syncProxyRules, overlay: the service-VIP endpoint comes before the endpoints are looked at
    if (overlay) remotes.add(`${svc.clusterIP} mac=host pa=${nodeIp(node)}`);
    const eps = [...w.pods.values()].filter((p) => p.app === svc.app);
    if (!eps.length) continue;
    const backend = (p: PodM) => `${p.node === node ? 'local' : 'remote'}:${p.ip}`;
    const all = eps.map(backend);
    const mine = eps.filter((p) => p.node === node).map(backend);
    for (const p of eps)
      if (p.node !== node)
        remotes.add(`${p.ip} mac=${conjureMac(p.ip)} pa=${overlay ? nodeIp(p.node) : '-'}`);
    const dist = svc.affinity ? 2 : 0;
    const localDsr = localTrafficDsr(svc.local, hnsHasDsr);
    // NodePort: local only if preserveDIP or localTrafficDSR; external and ingress IPs: localTrafficDSR
    const outside = localDsr ? mine : all;
    for (const port of svc.ports) {
      const proto = port.protocol === 'UDP' ? 17 : 6;
      const lb = (vip: string | undefined, ext: number, flags: number, dsr: boolean, b: string[]) => {
        if (b.length) lbs.push(lbText(vip, src, proto, port.targetPort, ext, dist, flags, dsr, b));
      };
      lb(svc.clusterIP, port.port, 0, w.dsr, all);
      if (svc.type !== 'ClusterIP' && port.nodePort)
        lb(undefined, port.nodePort, NODEPORT_FLAGS, localDsr, outside);
      for (const ip of svc.externalIPs) lb(ip, port.port, EXTERNAL_FLAGS, localDsr, outside);
      for (const ip of svc.ingressIPs) lb(ip, port.port, EXTERNAL_FLAGS, localDsr, outside);
    }
  }
  return { lbs: lbs.sort(), remotes: [...remotes].sort() };
}

// ───────────────────────────── the node as HNS shows it ─────────────────────────────

function actual(c: Cluster, node: string): NodeView {
  const host = c.host(node);
  const st = canonicalState(host);
  // the host's MAC, whatever the separator (kube-proxy writes Go's `00:0d:3a:…`, Get-NetAdapter `00-0D-3A-…`)
  const macKey = (m: unknown) =>
    String(m ?? '')
      .toLowerCase()
      .replace(/:/g, '-');
  const hostMac = macKey(host.adapters().find((a) => a['Name'] === 'Ethernet')?.['MacAddress']);
  const byId = new Map<string, string>();
  const remotes: string[] = [];
  for (const e of st.endpoints) {
    const ip = String((e['IpConfigurations'] as JsonObject[] | undefined)?.[0]?.['IpAddress'] ?? '');
    const remote = (Number(e['Flags'] ?? 0) & 1) === 1;
    byId.set(String(e['ID']).toUpperCase(), `${remote ? 'remote' : 'local'}:${ip}`);
    if (!remote) continue;
    const pa = (e['Policies'] as JsonObject[] | undefined)?.find((p) => p['Type'] === 'ProviderAddress');
    const mac = macKey(e['MacAddress']);
    remotes.push(
      `${ip} mac=${mac === hostMac ? 'host' : mac} pa=${pa ? String((pa['Settings'] as JsonObject)['ProviderAddress']) : '-'}`,
    );
  }
  const lbs = st.loadBalancers.map((lb) => {
    const pm = (lb['PortMappings'] as JsonObject[])[0]!;
    const vips = (lb['FrontendVIPs'] as string[] | undefined) ?? [];
    return lbText(
      vips[0],
      String(lb['SourceVIP'] ?? ''),
      Number(pm['Protocol'] ?? 0),
      Number(pm['InternalPort'] ?? 0),
      Number(pm['ExternalPort'] ?? 0),
      Number(pm['DistributionType'] ?? 0),
      Number(pm['Flags'] ?? 0),
      (Number(lb['Flags'] ?? 0) & 1) === 1,
      ((lb['HostComputeEndpoints'] as string[] | undefined) ?? []).map(
        (id) => byId.get(id.toUpperCase()) ?? `unknown:${id}`,
      ),
    );
  });
  return { lbs: lbs.sort(), remotes: remotes.sort() };
}

// ───────────────────────────── random changes ─────────────────────────────

type Op =
  | { readonly t: 'pod'; readonly name: number; readonly node: number; readonly app: number }
  | { readonly t: 'unpod'; readonly name: number }
  | {
      readonly t: 'svc';
      readonly name: number;
      readonly app: number;
      readonly type: SvcM['type'];
      readonly local: boolean;
      readonly affinity: boolean;
      readonly external: boolean;
      readonly headless: boolean;
      readonly udp: boolean;
    }
  | { readonly t: 'unsvc'; readonly name: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      t: fc.constant('pod' as const),
      name: fc.nat(9),
      node: fc.nat(4),
      app: fc.nat(2),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ t: fc.constant('unpod' as const), name: fc.nat(9) }), weight: 2 },
  {
    arbitrary: fc.record({
      t: fc.constant('svc' as const),
      name: fc.nat(3),
      app: fc.nat(2),
      type: fc.constantFrom<SvcM['type']>('ClusterIP', 'NodePort', 'LoadBalancer'),
      local: fc.boolean(),
      affinity: fc.boolean(),
      external: fc.boolean(),
      headless: fc.boolean(),
      udp: fc.boolean(),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ t: fc.constant('unsvc' as const), name: fc.nat(3) }), weight: 1 },
);

function newCluster(layout: Layout, dsr: boolean, profile?: string): Cluster {
  const c = new Cluster({ seed: 5, dsr, ...(profile ? { profile } : {}) });
  for (const n of WINDOWS) c.addWindowsNode({ name: n, network: layout });
  c.addLinuxNode({
    name: 'lx',
    backend: layout === 'l2bridge' ? 'host-gw' : 'vxlan',
    vni: 4096,
    vxlanPort: 4789,
  });
  return c;
}

/** Apply `op` to the cluster and to the oracle's world (a no-op for both when it makes no sense). */
function apply(c: Cluster, w: World, op: Op): void {
  switch (op.t) {
    case 'pod': {
      const name = `p${op.name}`;
      if (w.pods.has(name)) return;
      const node = NODES[op.node]!;
      const info = c.addPod({ namespace: 'default', name, node, labels: { app: `a${op.app}` } });
      w.pods.set(name, { node, app: op.app, ip: info.ip });
      return;
    }
    case 'unpod':
      expect(c.removePod('default', `p${op.name}`)).toBe(w.pods.delete(`p${op.name}`));
      return;
    case 'svc': {
      const name = `s${op.name}`;
      if (w.services.has(name)) return;
      const ports: SvcPortM[] = [
        {
          port: 80,
          targetPort: 8080,
          protocol: 'TCP',
          ...(op.type !== 'ClusterIP' ? { nodePort: 30000 + op.name } : {}),
        },
      ];
      if (op.udp)
        ports.push({
          port: 53,
          targetPort: 5353,
          protocol: 'UDP',
          ...(op.type !== 'ClusterIP' ? { nodePort: 31000 + op.name } : {}),
        });
      const externalIPs = op.external ? [`198.51.100.${op.name + 1}`] : [];
      const ingressIPs = op.type === 'LoadBalancer' ? [`203.0.113.${op.name + 1}`] : [];
      const { clusterIP } = c.addService({
        namespace: 'default',
        name,
        type: op.type,
        ...(op.headless ? { clusterIP: 'None' } : {}),
        ports,
        selector: { app: `a${op.app}` },
        ...(op.local ? { externalTrafficPolicy: 'Local' as const } : {}),
        ...(op.affinity ? { sessionAffinity: 'ClientIP' as const } : {}),
        ...(externalIPs.length ? { externalIPs } : {}),
        ...(ingressIPs.length ? { loadBalancerIP: ingressIPs[0]! } : {}),
      });
      w.services.set(name, {
        app: op.app,
        clusterIP,
        type: op.type,
        ports,
        local: op.local,
        affinity: op.affinity,
        externalIPs,
        ingressIPs,
      });
      return;
    }
    case 'unsvc':
      expect(c.removeService('default', `s${op.name}`)).toBe(w.services.delete(`s${op.name}`));
  }
}

function world(layout: Layout, dsr: boolean): World {
  // every cluster has the API server's service (10.96.0.1:443, no selector: no endpoints)
  const services = new Map<string, SvcM>([
    [
      'kubernetes',
      {
        app: -1,
        clusterIP: '10.96.0.1',
        type: 'ClusterIP',
        ports: [{ port: 443, targetPort: 6443, protocol: 'TCP' }],
        local: false,
        affinity: false,
        externalIPs: [],
        ingressIPs: [],
      },
    ],
  ]);
  return { layout, dsr, pods: new Map(), services };
}

/**
 * A history random ones seldom reach (few of them give a Local service external load balancers;
 * none on the 10.0 profile at the quick count): an `externalTrafficPolicy: Local` LoadBalancer with
 * an external IP and a UDP port over backends on w1, w2 and the Linux node — so w1 has some but
 * not all of them, o1 and o2 none —, one of w1's removed while services still select it, a
 * service removed, a headless one and one without endpoints.
 */
const PLAIN = { local: false, affinity: false, external: false, headless: false, udp: false };
const LOCAL_HISTORY: readonly Op[] = [
  { t: 'pod', name: 0, node: 0, app: 0 },
  { t: 'pod', name: 1, node: 0, app: 0 },
  { t: 'pod', name: 2, node: 1, app: 0 },
  { t: 'pod', name: 3, node: 4, app: 0 },
  { t: 'pod', name: 4, node: 2, app: 1 },
  {
    t: 'svc',
    name: 0,
    app: 0,
    type: 'LoadBalancer',
    ...PLAIN,
    local: true,
    affinity: true,
    external: true,
    udp: true,
  },
  { t: 'svc', name: 1, app: 0, type: 'NodePort', ...PLAIN },
  { t: 'svc', name: 2, app: 1, type: 'ClusterIP', ...PLAIN, headless: true },
  { t: 'svc', name: 3, app: 2, type: 'ClusterIP', ...PLAIN },
  { t: 'unpod', name: 1 },
  { t: 'unsvc', name: 1 },
];

/**
 * `runs` random histories on the default profile (WS2022, HNS 15.0: DSR supported), or on
 * `profile` with what its HNS supports (`hnsHasDsr`; `--enable-dsr` is refused there upstream —
 * NewProxier returns DsrSupported's error — so only `dsr: false` is tried).
 */
function check(runs: number, profile?: { readonly name: string; readonly hnsHasDsr: boolean }): void {
  fc.assert(
    fc.property(
      // 'max': histories up to 25 changes long (the default size keeps most under ten)
      fc.array(opArb, { minLength: 1, maxLength: 25, size: 'max' }),
      fc.constantFrom<Layout>('l2bridge', 'overlay'),
      profile ? fc.constant(false) : fc.boolean(),
      (ops, layout, dsr) => {
        const c = newCluster(layout, dsr, profile?.name);
        const w = world(layout, dsr);
        // session affinity needs HNS 12.0 (SessionAffinityVersion): older profiles get none
        for (const op of ops) apply(c, w, profile && op.t === 'svc' ? { ...op, affinity: false } : op);
        for (const n of WINDOWS)
          expect(actual(c, n), `node ${n}`).toEqual(oracle(w, n, profile?.hnsHasDsr ?? true));
      },
    ),
    {
      numRuns: runs,
      examples: (['l2bridge', 'overlay'] as const).flatMap((layout) =>
        (profile ? [false] : [false, true]).map((dsr): [Op[], Layout, boolean] => [
          [...LOCAL_HISTORY],
          layout,
          dsr,
        ]),
      ),
    },
  );
}

describe('kube-proxy sync against an oracle from winkernel proxier.go', () => {
  it('random pod and service changes leave every node with exactly what upstream programs', () => {
    check(runs(25, 500));
  });

  // hcsshim hcnglobals.go DSRVersion: 9.3–9.x and 10.2 on; HNS 10.0 has none, so Local is no DSR
  // and every backend stays behind NodePorts and external IPs (newServiceInfo forces it off)
  it('… and on an HNS without DSR (10.0), externalTrafficPolicy: Local is neither DSR nor local-only', () => {
    check(runs(8, 150), { name: '10.0', hnsHasDsr: false });
  });
});

describe('sessionAffinity: ClientIP (kubernetes-windows.md §2.2, hns.go getLoadBalancer)', () => {
  it('every load balancer of a ClientIP service has DistributionType 2 (SourceIP); a None service has none', () => {
    const c = newCluster('l2bridge', false);
    c.addPod({ namespace: 'default', name: 'a', node: 'w1', labels: { app: 'sticky' } });
    c.addPod({ namespace: 'default', name: 'b', node: 'w2', labels: { app: 'sticky' } });
    c.addPod({ namespace: 'default', name: 'c', node: 'w2', labels: { app: 'plain' } });
    c.addService({
      namespace: 'default',
      name: 'sticky',
      type: 'NodePort',
      sessionAffinity: 'ClientIP',
      externalIPs: ['198.51.100.7'],
      ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }],
      selector: { app: 'sticky' },
    });
    const { clusterIP: plainIp } = c.addService({
      namespace: 'default',
      name: 'plain',
      ports: [{ port: 80, targetPort: 8080 }],
      selector: { app: 'plain' },
    });
    for (const n of ['w1', 'w2']) {
      const lbs = canonicalState(c.host(n)).loadBalancers;
      const pm = (lb: JsonObject) => (lb['PortMappings'] as JsonObject[])[0]!;
      const plain = lbs.filter((lb) => (lb['FrontendVIPs'] as string[] | undefined)?.[0] === plainIp);
      const sticky = lbs.filter((lb) => !plain.includes(lb));
      // ClusterIP, NodePort, external IP
      expect(sticky).toHaveLength(3);
      for (const lb of sticky) expect(pm(lb)['DistributionType'], JSON.stringify(lb)).toBe(2);
      expect(plain).toHaveLength(1);
      expect(pm(plain[0]!)).not.toHaveProperty('DistributionType');
    }
  });
});
