/**
 * Reachability vectors (issue 19): small nodes whose expected sets are written out by hand from
 * the reference's semantics — ACLs (vfp-dataplane.md §2: a lower Priority wins, "block at 500
 * beats allow-all at 1000" hcsshim#1059; any ACL puts the endpoint in default deny, both ways,
 * Windows-Containers#616; equal priorities with different actions: Block by default; a Host
 * (WFP) Block beats any Allow), load balancing (§4: the backend's ACLs see the DNATed port; one
 * set per backend), OutBoundNAT (§3: ICMP is not transposed) — as flow-set specs compared by
 * node with the answer's sets. Every vector's packets are also traced. An exhaustive check
 * compares every packet of a small domain (a /30 of destinations, seven ports each side, four
 * protocols) with the trace, and the errors leave the state as it was.
 */
import { describe, expect, it } from 'vitest';
import '../../src/analysis/analyze.js';
import type { PacketSet } from '../../src/analysis/acl.js';
import { FALSE } from '../../src/analysis/bdd.js';
import { flowSpecSet } from '../../src/analysis/flowspec.js';
import { analyzeReachAll, DIAGONAL_NOTE, ReachContext, type Reachability } from '../../src/analysis/reach.js';
import { Cluster } from '../../src/cluster/cluster.js';
import { HnsError } from '../../src/core/errors.js';
import type { JsonObject } from '../../src/core/json.js';
import type { Host } from '../../src/host/host.js';
import type { Disposition } from '../../src/vswitch/contracts.js';
import {
  createEndpoint,
  createNetwork,
  HOST_IP,
  newHost,
  observable,
  ok,
  SCHEMA,
} from '../dataplane/prop-kit.js';
import {
  checkFlow,
  checkTrace,
  flowArb,
  ipNum,
  probeFlows,
  traceFlow,
  type Flow,
  type Net,
} from './reach-kit.js';
import fc from 'fast-check';

const CLIENT = '10.244.1.2';
const WEB = '10.244.1.3';
const DB = '10.244.1.4';
const VIP = '10.96.0.10';
const VIP_DSR = '10.96.0.11';

function rule(Direction: 'In' | 'Out', Action: 'Allow' | 'Block', Priority: number, more: JsonObject = {}) {
  return { Type: 'ACL', Settings: { Action, Direction, Priority, RuleType: 'Switch', ...more } };
}
const ALLOW_ALL = [rule('In', 'Allow', 1000), rule('Out', 'Allow', 1000)];
const SNAT: JsonObject = { Type: 'OutBoundNAT', Settings: { Exceptions: ['10.244.0.0/16', '10.96.0.0/12'] } };

/** A node with one L2Bridge network and the pods client, web, db with these policies. */
function node(pods: {
  client?: readonly JsonObject[];
  web?: readonly JsonObject[];
  db?: readonly JsonObject[];
}): { host: Host; client: string; web: string; db: string } {
  const host = newHost(3);
  const net = createNetwork(host, 'cbr0', 'L2Bridge', '10.244.1.0/24', '10.244.1.1');
  return {
    host,
    client: createEndpoint(host, net, 'client', CLIENT, pods.client ?? []),
    web: createEndpoint(host, net, 'web', WEB, pods.web ?? []),
    db: createEndpoint(host, net, 'db', DB, pods.db ?? []),
  };
}

/** A ClusterIP-like load balancer: VIP:external → backends:internal. */
function loadBalancer(
  host: Host,
  backends: readonly string[],
  o: { vip?: string; protocol?: 6 | 17; external?: number; internal?: number; dsr?: boolean } = {},
): void {
  ok(
    host.api.HcnCreateLoadBalancer(
      null,
      JSON.stringify({
        HostComputeEndpoints: [...backends],
        SourceVIP: HOST_IP,
        FrontendVIPs: [o.vip ?? VIP],
        PortMappings: [
          { Protocol: o.protocol ?? 6, InternalPort: o.internal ?? 8080, ExternalPort: o.external ?? 80 },
        ],
        ...(o.dsr ? { Flags: 1 } : {}),
        SchemaVersion: { ...SCHEMA },
      }),
    ),
    'HcnCreateLoadBalancer',
  );
}

/** Every packet of the answer's pair (its source and destination addresses). */
function pairScope(a: Reachability): number {
  const s = a.space;
  const b = s.bdd;
  return b.and(
    b.and(s.universe, s.value('localIp', ipNum(a.source))),
    s.value('remoteIp', ipNum(a.destination)),
  );
}

/** The set a hand-written spec names, in the answer's pair. */
function spec(a: Reachability, text: string): number {
  return flowSpecSet(a.space, text, pairScope(a));
}

/** Everything of the pair except what `text` names. */
function except(a: Reachability, text: string): number {
  return a.space.bdd.diff(pairScope(a), spec(a, text));
}

function words(a: Reachability, node: number): string {
  return node === FALSE ? 'nothing' : a.space.describe(node, 'Out').join(' / ');
}

/** A set of the answer equals the expected node (named in words on failure). */
function expectSet(a: Reachability, set: PacketSet | undefined, want: number, what: string): void {
  const got = set?.node ?? FALSE;
  expect(got, `${what}: got ${words(a, got)}, want ${words(a, want)}`).toBe(want);
}

/** The answer's outcomes are exactly these (dispositions → node), nothing else. */
function expectOutcomes(a: Reachability, want: readonly [readonly Disposition[], number][]): void {
  const wanted = want.filter(([, n]) => n !== FALSE);
  expect(a.outcomes.map((o) => o.dispositions.join('|')).sort()).toEqual(
    wanted.map(([d]) => d.join('|')).sort(),
  );
  for (const [ds, node] of wanted)
    expectSet(
      a,
      a.outcomes.find((o) => o.dispositions.join('|') === ds.join('|'))?.set,
      node,
      `outcome ${ds.join('|')}`,
    );
}

/** The answer's packets checked against the trace too (witnesses and a few random flows). */
function traced(net: Net, a: Reachability): void {
  const flows = fc.sample(flowArb, { numRuns: 12, seed: 5 });
  for (const f of probeFlows(a, flows)) checkFlow(net, a, f);
}

describe('ACL vectors through the path (§2)', () => {
  it('block-beats-allow: web blocks TCP 80 from 10.244.0.0/16 at 500 under allow-all at 1000 (hcsshim#1059)', () => {
    const n = node({
      web: [
        ...ALLOW_ALL,
        rule('In', 'Block', 500, { Protocols: '6', LocalPorts: '80', RemoteAddresses: '10.244.0.0/16' }),
      ],
    });
    const a = n.host.analyze({ from: 'client', to: 'web' });
    expect([a.source, a.destination]).toEqual([CLIENT, WEB]);
    expect(a.exact).toBe(true);
    expectOutcomes(a, [
      [['DeniedIn'], spec(a, 'TCP port 80')],
      [['Delivered'], except(a, 'TCP port 80')],
    ]);
    // every source port of TCP to 80: 65,536 packets
    expect(a.dispositions.DeniedIn!.count).toBe(65536n);
    traced(n.host, a);
    // from outside the /16 the block does not match: everything is delivered
    const out = n.host.analyze({ from: '8.8.8.8', to: 'web' });
    expectOutcomes(out, [[['Delivered'], spec(out, 'any protocol')]]);
    traced(n.host, out);
  });

  it('default deny: one Allow In TCP 8080 on web, so In allows only that and Out nothing (Windows-Containers#616)', () => {
    const n = node({ web: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '8080' })] });
    const a = n.host.analyze({ from: n.client, to: WEB });
    expectOutcomes(a, [
      [['Delivered'], spec(a, 'TCP port 8080')],
      [['DeniedIn'], except(a, 'TCP port 8080')],
    ]);
    traced(n.host, a);
    const back = n.host.analyze({ from: 'web', to: CLIENT });
    expectOutcomes(back, [[['DeniedOut'], spec(back, 'any protocol')]]);
    traced(n.host, back);
  });

  it('a lone Block denies everything, not only its own packets (Windows-Containers#616)', () => {
    const n = node({ web: [rule('In', 'Block', 500, { Protocols: '6', LocalPorts: '80' })] });
    const a = n.host.analyze({ from: 'client', to: 'web' });
    expectOutcomes(a, [[['DeniedIn'], spec(a, 'any protocol')]]);
    traced(n.host, a);
  });

  it('the source’s Out rules read its own port as LocalPorts: only TCP from 1024-65535 leaves', () => {
    const n = node({
      client: [
        rule('Out', 'Allow', 100, { Protocols: '6', LocalPorts: '1024-65535' }),
        rule('In', 'Allow', 1000),
      ],
    });
    const a = n.host.analyze({ from: 'client', to: 'web' });
    expectOutcomes(a, [
      [['Delivered'], spec(a, 'TCP from port 1024-65535')],
      [['DeniedOut'], except(a, 'TCP from port 1024-65535')],
    ]);
    traced(n.host, a);
  });

  const hostRule = (Direction: string, Action: string, more: JsonObject = {}) => ({
    Type: 'ACL',
    Settings: { Action, Direction, RuleType: 'Host', ...more },
  });
  /** Rules added to web's allow-alls, and the packets from client they deny (the rest delivered). */
  const DENIALS: [string, JsonObject[], string][] = [
    [
      'overlapping ranges: Allow TCP 1500-3000 at 400 over Block TCP 1000-2000 at 500: 1000-1499 denied',
      [
        rule('In', 'Block', 500, { Protocols: '6', LocalPorts: '1000-2000' }),
        rule('In', 'Allow', 400, { Protocols: '6', LocalPorts: '1500-3000' }),
      ],
      'TCP port 1000-1499',
    ],
    [
      'equal priorities, Allow TCP 80 and Block TCP 80-81 at 500: the tie goes to Block (our default)',
      [
        rule('In', 'Allow', 500, { Protocols: '6', LocalPorts: '80' }),
        rule('In', 'Block', 500, { Protocols: '6', LocalPorts: '80-81' }),
      ],
      'TCP port 80, 81',
    ],
    [
      'a Host (WFP) Block of UDP 53 beats the Switch allow-all and a Host Allow of everything',
      [
        hostRule('In', 'Allow'),
        hostRule('Out', 'Allow'),
        hostRule('In', 'Block', { Protocols: '17', LocalPorts: '53' }),
      ],
      'UDP port 53',
    ],
    [
      'a Block on the client’s source port range (RemotePorts In): TCP from 0-1023 to web denied',
      [rule('In', 'Block', 500, { Protocols: '6', RemotePorts: '0-1023' })],
      'TCP from port 0-1023',
    ],
  ];
  for (const [title, rules, denied] of DENIALS)
    it(title, () => {
      const n = node({ web: [...ALLOW_ALL, ...rules] });
      const a = n.host.analyze({ from: 'client', to: 'web' });
      expectOutcomes(a, [
        [['DeniedIn'], spec(a, denied)],
        [['Delivered'], except(a, denied)],
      ]);
      traced(n.host, a);
    });
});

describe('load balancers and NAT (§3, §4)', () => {
  it('VIP:80 → targetPort 8080, the backend allows In TCP 8080 only: Delivered exactly TCP port 80 to the VIP', () => {
    const n = node({ web: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '8080' })] });
    loadBalancer(n.host, [n.web]);
    const a = n.host.analyze({ from: 'client', to: VIP });
    expect(a.destination).toBe(VIP);
    expectSet(a, a.dispositions.Delivered, spec(a, 'TCP port 80'), 'Delivered');
    // nothing reaches web but the service's port; what the VIP does not take leaves the node
    expectSet(a, a.possible.DeniedIn, FALSE, 'DeniedIn');
    expectSet(a, a.dispositions.ExitsNetwork, except(a, 'TCP port 80'), 'ExitsNetwork');
    expect(a.branches).toEqual([]);
    traced(n.host, a);
    // straight to the backend: its own port 8080 only
    const direct = n.host.analyze({ from: 'client', to: 'web' });
    expectSet(direct, direct.dispositions.Delivered, spec(direct, 'TCP port 8080'), 'Delivered');
  });

  it('the backend allows TCP 80 (the service port, not the target): the ACL sees 8080, so the VIP’s TCP 80 is DeniedIn', () => {
    const n = node({ web: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '80' })] });
    loadBalancer(n.host, [n.web]);
    const a = n.host.analyze({ from: 'client', to: VIP });
    expectSet(a, a.possible.Delivered, FALSE, 'Delivered');
    expectSet(a, a.dispositions.DeniedIn, spec(a, 'TCP port 80'), 'DeniedIn');
    traced(n.host, a);
  });

  it('two backends, only web allows: TCP 80 to the VIP gets Delivered or DeniedIn by the choice, one set per branch', () => {
    const n = node({
      web: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '8080' })],
      db: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '5432' })],
    });
    loadBalancer(n.host, [n.web, n.db]);
    const a = n.host.analyze({ from: 'client', to: VIP });
    expectOutcomes(a, [
      [['Delivered', 'DeniedIn'], spec(a, 'TCP port 80')],
      [['ExitsNetwork'], except(a, 'TCP port 80')],
    ]);
    // certain: nothing is Delivered whatever the choice; possible: TCP 80
    expect(a.dispositions.Delivered).toBeUndefined();
    expectSet(a, a.possible.Delivered, spec(a, 'TCP port 80'), 'possibly Delivered');
    expectSet(a, a.possible.DeniedIn, spec(a, 'TCP port 80'), 'possibly DeniedIn');
    const byBackend = new Map(a.branches.map((br) => [br.choices.map((c) => c.to).join(), br]));
    expect([...byBackend.keys()].sort()).toEqual([`${WEB}:8080`, `${DB}:8080`]);
    const toWeb = byBackend.get(`${WEB}:8080`)!;
    const toDb = byBackend.get(`${DB}:8080`)!;
    expectSet(a, toWeb.dispositions.Delivered, spec(a, 'TCP port 80'), 'branch web Delivered');
    expectSet(a, toWeb.dispositions.DeniedIn, FALSE, 'branch web DeniedIn');
    expectSet(a, toDb.dispositions.DeniedIn, spec(a, 'TCP port 80'), 'branch db DeniedIn');
    expectSet(a, toDb.dispositions.Delivered, FALSE, 'branch db Delivered');
    for (const br of a.branches) expect(br.choices.map((c) => c.of)).toEqual([2]);
    // the trace's branches say the same of a packet of the set
    const t = traceFlow(n.host, a, { proto: 6, srcPort: 40000, dstPort: 80 });
    expect(t.branches?.map((x) => x.disposition).sort()).toEqual(['Delivered', 'DeniedIn']);
    traced(n.host, a);
  });

  it('OutBoundNAT makes ICMP (and every protocol but TCP and UDP) to outside Unsupported; inside the exceptions it is delivered', () => {
    const n = node({ client: [SNAT] });
    const out = n.host.analyze({ from: 'client', to: '8.8.8.8' });
    expectOutcomes(out, [
      [['ExitsNetwork'], spec(out, 'TCP; UDP')],
      [['Unsupported'], except(out, 'TCP; UDP')],
    ]);
    expect(out.dispositions.Unsupported!.count).toBe(254n);
    expect(
      out.dispositions.Unsupported!.has({
        proto: 1,
        localIp: ipNum(CLIENT),
        localPort: 0,
        remoteIp: ipNum('8.8.8.8'),
        remotePort: 0,
      }),
    ).toBe(true);
    traced(n.host, out);
    const inside = n.host.analyze({ from: 'client', to: 'web' });
    expectOutcomes(inside, [[['Delivered'], spec(inside, 'any protocol')]]);
    traced(n.host, inside);
  });

  it('a name that does not resolve: every packet NameNotResolved, as the trace says', () => {
    const n = node({});
    const a = n.host.analyze({ from: 'client', to: 'no-such-name' });
    expect(a.outcomes.map((o) => o.dispositions)).toEqual([['NameNotResolved']]);
    expect(n.host.trace({ from: 'client', to: 'no-such-name' }).disposition).toBe('NameNotResolved');
  });
});

describe('two nodes', () => {
  it('overlay: a service with a backend on each node, win-2’s allowing 8080 and win-1’s blocking it; direct pod traffic across the encapsulation', () => {
    const c = new Cluster({ seed: 2 });
    c.addWindowsNode({ name: 'win-1', network: 'overlay' });
    c.addWindowsNode({ name: 'win-2', network: 'overlay' });
    c.addPod({ namespace: 'default', name: 'client', node: 'win-1' });
    c.addPod({
      namespace: 'default',
      name: 'web-1',
      node: 'win-1',
      labels: { app: 'web' },
      policies: [...ALLOW_ALL, rule('In', 'Block', 500, { Protocols: '6', LocalPorts: '8080' })],
    });
    c.addPod({
      namespace: 'default',
      name: 'web-2',
      node: 'win-2',
      labels: { app: 'web' },
      policies: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '8080' }), rule('Out', 'Allow', 100)],
    });
    c.addService({
      namespace: 'default',
      name: 'web',
      ports: [{ port: 80, targetPort: 8080 }],
      selector: { app: 'web' },
    });
    const a = c.analyze({ from: 'default/client', to: 'svc:default/web' });
    expectSet(a, a.possible.Delivered, spec(a, 'TCP port 80'), 'possibly Delivered');
    expectSet(a, a.possible.DeniedIn, spec(a, 'TCP port 80'), 'possibly DeniedIn');
    expect(a.dispositions.Delivered).toBeUndefined();
    const web2 = c.pod('default/web-2')!.ip;
    const toWeb2 = a.branches.find((br) => br.choices.some((x) => x.to === `${web2}:8080`));
    expect(toWeb2, JSON.stringify(a.branches.map((br) => br.choices))).toBeDefined();
    expectSet(a, toWeb2!.dispositions.Delivered, spec(a, 'TCP port 80'), 'branch web-2 Delivered');
    traced(c, a);
    const direct = c.analyze({ from: 'default/client', to: 'default/web-2' });
    expectOutcomes(direct, [
      [['Delivered'], spec(direct, 'TCP port 8080')],
      [['DeniedIn'], except(direct, 'TCP port 8080')],
    ]);
    traced(c, direct);
  });
});

// ───────────────────────────── exhaustive ─────────────────────────────

const PORTS = [0, 1, 79, 80, 81, 8080, 65535] as const;
const PROTOCOLS = [6, 17, 1, 47] as const;

/** Every packet of the small domain: TCP/UDP × PORTS², ICMP and GRE (no ports). */
function smallDomain(): Flow[] {
  const out: Flow[] = [];
  for (const proto of PROTOCOLS) {
    if (proto !== 6 && proto !== 17) {
      out.push({ proto, srcPort: 0, dstPort: 0 });
      continue;
    }
    for (const srcPort of PORTS) for (const dstPort of PORTS) out.push({ proto, srcPort, dstPort });
  }
  return out;
}

describe('exhaustive: every packet of a small domain against the trace', () => {
  it('client (OutBoundNAT, an Out block of UDP 79-81) to each address of 10.244.1.0/30, web, db, two VIPs and outside; outside and host to web', () => {
    const n = node({
      client: [SNAT, ...ALLOW_ALL, rule('Out', 'Block', 500, { Protocols: '17', RemotePorts: '79-81' })],
      web: [
        rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '8080' }),
        rule('In', 'Block', 100, { Protocols: '6', LocalPorts: '80-8080' }),
        rule('In', 'Allow', 200, { Protocols: '17' }),
        rule('In', 'Block', 150, { Protocols: '17', RemotePorts: '0-79' }),
        rule('Out', 'Allow', 1000),
      ],
      db: [SNAT],
    });
    loadBalancer(n.host, [n.web, n.db]);
    loadBalancer(n.host, [n.web], { vip: VIP_DSR, protocol: 17, external: 81, internal: 79, dsr: true });
    const pairs: [string, string][] = [
      ...['10.244.1.0', '10.244.1.1', '10.244.1.2', '10.244.1.3'].map((to): [string, string] => [
        'client',
        to,
      ]),
      ['client', DB],
      ['client', VIP],
      ['client', VIP_DSR],
      ['client', '8.8.8.8'],
      ['db', VIP],
      ['8.8.8.8', 'web'],
      ['host', 'web'],
      ['web', 'client'],
    ];
    const domain = smallDomain();
    expect(domain.length).toBe(2 * 49 + 2);
    let compared = 0;
    for (const [from, to] of pairs) {
      const a = n.host.analyze({ from, to });
      for (const f of domain) {
        checkTrace(a, f, traceFlow(n.host, a, f));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(pairs.length * 90);
  });

  it('a packet that is its own reply: through a port mapping back to itself worked out exactly; to its own address with equal ports noted, not worked out', () => {
    // a pod to its own address: the Out stage opens the flow, and a packet X:p → X:p arriving back
    // at the port is that flow's reply (the trace delivers it without the In rules); the diagonal
    // srcPort = dstPort is not a set this space holds compactly, so the answer says so
    const host = newHost(1);
    const net = createNetwork(host, 'net', 'L2Bridge', '10.244.1.0/24', '10.244.1.1');
    const ep = createEndpoint(host, net, 'ep0', '10.244.1.2', [rule('Out', 'Allow', 100)]);
    const a = host.analyze({ from: ep, to: '10.244.1.2' });
    expect(a.exact).toBe(false);
    expect(a.notes).toContain(DIAGONAL_NOTE);
    expect(
      host.trace({ from: ep, to: '10.244.1.2', protocol: 'TCP', sourcePort: 80, destinationPort: 80 })
        .disposition,
    ).toBe('Delivered');
    const off = host.trace({
      from: ep,
      to: '10.244.1.2',
      protocol: 'TCP',
      sourcePort: 50000,
      destinationPort: 80,
    });
    expect(off.disposition).toBe('DeniedIn');
    expect(
      a.dispositions.DeniedIn!.has({
        proto: 6,
        localIp: ipNum('10.244.1.2'),
        localPort: 50000,
        remoteIp: ipNum('10.244.1.2'),
        remotePort: 80,
      }),
    ).toBe(true);
    // ICMP and the other protocols (ports 0 = 0) are all their own reply: delivered, exactly
    expect(a.dispositions.Delivered!.count).toBe(254n);
    expect(host.trace({ from: ep, to: '10.244.1.2', protocol: 'ICMP' }).disposition).toBe('Delivered');

    // a NAT network's port mapping host:8080 → its own port 80: from its port 80 to the host's
    // 8080 the packet comes back as the reply of what its Out stage passed
    const host2 = newHost(1);
    const nat = createNetwork(host2, 'nat', 'NAT', '172.20.0.0/24', '172.20.0.1');
    const ep2 = createEndpoint(host2, nat, 'ep1', '172.20.0.3', [
      rule('In', 'Allow', 100, { Protocols: '6', RemoteAddresses: '10.244.0.0/16', RuleType: 'Host' }),
      rule('In', 'Allow', 1000),
      rule('Out', 'Allow', 1000),
      { Type: 'PortMapping', Settings: { Protocol: 6, InternalPort: 80, ExternalPort: 8080 } },
    ]);
    const m = host2.analyze({ from: ep2, to: HOST_IP });
    expect(m.exact).toBe(true);
    for (const [sp, want] of [
      [80, 'Delivered'],
      [81, 'DeniedIn'],
    ] as const) {
      const t = host2.trace({
        from: ep2,
        to: HOST_IP,
        protocol: 'TCP',
        sourcePort: sp,
        destinationPort: 8080,
      });
      expect(t.disposition).toBe(want);
      const o = m.outcomes.find((x) =>
        x.set.has({
          proto: 6,
          localIp: ipNum('172.20.0.3'),
          localPort: sp,
          remoteIp: ipNum(HOST_IP),
          remotePort: 8080,
        }),
      );
      expect(o!.dispositions).toEqual([want]);
    }
  });
});

// ───────────────────────────── all pairs, errors ─────────────────────────────

describe('analyzeReachAll and errors', () => {
  it('analyzeReachAll: every pair but a source to itself, each as analyzeReach answers it in the same context', () => {
    const n = node({
      web: [rule('In', 'Allow', 100, { Protocols: '6', LocalPorts: '8080' })],
      client: [SNAT],
    });
    loadBalancer(n.host, [n.web, n.db]);
    const context = new ReachContext();
    const names = ['client', 'web', 'db'];
    const all = analyzeReachAll(n.host, names, [...names, VIP], { context });
    expect(all.map((a) => `${a.from}>${a.to}`)).toEqual(
      names.flatMap((f) => [...names, VIP].filter((t) => t !== f).map((t) => `${f}>${t}`)),
    );
    for (const a of all) {
      const one = n.host.analyze({ from: a.from, to: a.to }, { context });
      expect(a.outcomes.map((o) => [o.dispositions, o.set.node])).toEqual(
        one.outcomes.map((o) => [o.dispositions, o.set.node]),
      );
    }
  });

  it('an unknown source is ERROR_NOT_FOUND; a bad query is E_INVALIDARG; neither (nor an answer) changes the node', () => {
    const n = node({ client: [SNAT], web: ALLOW_ALL });
    loadBalancer(n.host, [n.web, n.db]);
    const before = observable(n.host);
    const code = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        return e instanceof HnsError ? e.code : `not an HnsError: ${String(e)}`;
      }
      return 'no error';
    };
    expect(code(() => n.host.analyze({ from: 'no-such-pod', to: 'web' }))).toBe('ERROR_NOT_FOUND');
    expect(code(() => n.host.analyze({ from: '', to: 'web' }))).toBe('E_INVALIDARG');
    expect(code(() => n.host.analyze({ from: 'client', to: '' }))).toBe('E_INVALIDARG');
    const bad = (q: unknown) => () => n.host.analyze(q as { from: string; to: string });
    expect(code(bad({ from: 'client', to: 'web', protocol: 'TCP' }))).toBe('E_INVALIDARG');
    expect(code(bad({ from: 'client' }))).toBe('E_INVALIDARG');
    expect(code(bad({ from: 1, to: 'web' }))).toBe('E_INVALIDARG');
    expect(code(bad(null))).toBe('E_INVALIDARG');
    expect(code(bad(['client', 'web']))).toBe('E_INVALIDARG');
    expect(observable(n.host)).toBe(before);
    // answers change nothing either: not the HNS state, the counters, nor the SNAT ports a send gets
    n.host.analyze({ from: 'client', to: '8.8.8.8' });
    n.host.analyze({ from: 'client', to: VIP });
    expect(observable(n.host)).toBe(before);
    const twin = node({ client: [SNAT], web: ALLOW_ALL });
    loadBalancer(twin.host, [twin.web, twin.db]);
    const req = { from: 'client', to: '8.8.8.8', protocol: 'TCP', sourcePort: 40000, destinationPort: 443 };
    expect(n.host.send(req).final).toEqual(twin.host.send(req).final);
  });

  it('a cluster: an unknown pod is ERROR_NOT_FOUND', () => {
    const c = new Cluster({ seed: 1 });
    c.addWindowsNode({ name: 'win-1', network: 'l2bridge' });
    c.addPod({ namespace: 'default', name: 'a', node: 'win-1' });
    expect(() => c.analyze({ from: 'default/nope', to: 'default/a' })).toThrow(
      expect.objectContaining({ code: 'ERROR_NOT_FOUND' }),
    );
  });
});
