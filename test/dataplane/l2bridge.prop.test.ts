/**
 * L2Bridge without policies (reference vfp-dataplane.md §6, §2.3): endpoints on one subnet of one
 * L2Bridge network are bridged by the vSwitch — no ACL (an endpoint without ACL policies allows
 * everything), no NAT, no routing — so a packet between two of them arrives with its addresses,
 * ports, protocol and TTL as sent; only MACs may change, and it arrives addressed to the MAC HNS
 * reports for the destination endpoint. The host is built through host.api from HNS JSON text; the
 * endpoints get addresses and MACs from HNS or ask for their own. Seed: vitest.setup.ts.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { traceJson } from '../../src/dataplane/trace.js';
import {
  endpointJson,
  l2bridgeJson,
  newHost,
  normMac,
  ok,
  podIp,
  queryEndpoint,
  walkText,
  type EndpointFacts,
} from './prop-kit.js';

interface EndpointSpec {
  /** A fixed host number in 10.244.1.0/24 (HNS assigns one when absent). */
  readonly host?: number;
  /** A fixed MAC from the Hyper-V OUI (HNS assigns one from the network's pool when absent). */
  readonly mac?: number;
}

interface PacketSpec {
  readonly from: number;
  /** The destination is the `(from + 1 + to) mod n`-th endpoint: never the source. */
  readonly to: number;
  readonly protocol: 'TCP' | 'UDP' | 'ICMP';
  readonly sourcePort: number;
  readonly destinationPort: number;
  readonly ttl?: number;
  /** How the request names the endpoints: ID, Name, or IP address. */
  readonly refs: 'id' | 'name' | 'ip';
}

const endpointsArb: fc.Arbitrary<EndpointSpec[]> = fc
  .tuple(
    fc.integer({ min: 2, max: 6 }),
    // distinct fixed host numbers past those HNS hands out first (.2 upward), so the two never clash
    fc.uniqueArray(fc.integer({ min: 10, max: 254 }), { minLength: 6, maxLength: 6 }),
    fc.array(fc.record({ fixedIp: fc.boolean(), fixedMac: fc.boolean() }), { minLength: 6, maxLength: 6 }),
  )
  .map(([n, hosts, choices]) =>
    choices.slice(0, n).map(({ fixedIp, fixedMac }, i) => ({
      ...(fixedIp ? { host: hosts[i]! } : {}),
      ...(fixedMac ? { mac: 0x10 + i } : {}),
    })),
  );

const portArb = fc.oneof(fc.constantFrom(53, 80, 443, 8080, 50000), fc.integer({ min: 0, max: 65535 }));

const packetArb: fc.Arbitrary<PacketSpec> = fc.record(
  {
    from: fc.nat(5),
    to: fc.nat(4),
    protocol: fc.constantFrom<PacketSpec['protocol']>('TCP', 'UDP', 'ICMP'),
    sourcePort: portArb,
    destinationPort: portArb,
    ttl: fc.integer({ min: 1, max: 255 }),
    refs: fc.constantFrom<PacketSpec['refs']>('id', 'name', 'ip'),
  },
  { requiredKeys: ['from', 'to', 'protocol', 'sourcePort', 'destinationPort', 'refs'] },
);

/** Build the host: the network, then the endpoints in order; their facts as HNS reports them. */
function build(seed: number, specs: readonly EndpointSpec[]) {
  const host = newHost(seed);
  const net = ok(host.api.HcnCreateNetwork(null, l2bridgeJson()), 'HcnCreateNetwork');
  const eps: EndpointFacts[] = specs.map((s, i) => {
    const doc = JSON.parse(
      endpointJson(net.ID, `pod${i}`, s.host !== undefined ? { ip: podIp(s.host) } : {}),
    ) as JsonObject;
    if (s.mac !== undefined) doc['MacAddress'] = `00-15-5D-AA-00-${s.mac.toString(16).padStart(2, '0')}`;
    const e = ok(host.api.HcnCreateEndpoint(net.ID, null, JSON.stringify(doc)), 'HcnCreateEndpoint');
    return queryEndpoint(host, e.ID);
  });
  return { host, eps };
}

function ref(e: EndpointFacts, how: PacketSpec['refs']): string {
  return how === 'id' ? e.id : how === 'name' ? e.name : e.ip;
}

describe('L2Bridge without policies (§6)', () => {
  test.prop(
    [fc.integer({ min: 1, max: 1000 }), endpointsArb, fc.array(packetArb, { minLength: 1, maxLength: 5 })],
    {
      numRuns: 200,
    },
  )(
    'every packet between two endpoints is Delivered to the destination, unchanged but for MACs',
    (seed, specs, packets) => {
      const { host, eps } = build(seed, specs);
      const n = eps.length;
      for (const spec of packets) {
        const src = eps[spec.from % n]!;
        const dst = eps[(spec.from + 1 + (spec.to % (n - 1))) % n]!;
        const r = host.trace({
          from: ref(src, spec.refs),
          to: ref(dst, spec.refs),
          protocol: spec.protocol,
          sourcePort: spec.sourcePort,
          destinationPort: spec.destinationPort,
          ...(spec.ttl !== undefined ? { ttl: spec.ttl } : {}),
        });
        const walk = walkText(r);
        expect(r.disposition, walk).toBe('Delivered');
        expect(r.at, walk).toBe(`endpoint:${dst.id}`);
        const j = traceJson(r);
        const final = j['final'] as JsonObject;
        const ported = spec.protocol !== 'ICMP';
        // what was sent, as the request asked it
        const sent = {
          srcIp: src.ip,
          dstIp: dst.ip,
          protocol: { TCP: 6, UDP: 17, ICMP: 1 }[spec.protocol],
          srcPort: ported ? spec.sourcePort : 0,
          dstPort: ported ? spec.destinationPort : 0,
          ttl: spec.ttl ?? 128,
        };
        expect(j['packet'], walk).toMatchObject(sent);
        // nothing but MACs changes on the way, at any step
        for (const o of j['observations'] as JsonObject[]) {
          expect(o['packetBefore'], walk).toMatchObject(sent);
          expect(o['packetAfter'], walk).toMatchObject(sent);
        }
        expect(final, walk).toMatchObject(sent);
        expect(normMac(String(final['dstMac'])), walk).toBe(dst.mac);
      }
    },
  );
});
