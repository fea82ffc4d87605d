/**
 * Switch extensions under random request sequences (src/hns/extensions.ts): whatever mix of v1
 * `POST /networks/<id>`, HCN `Extension` modify requests and `VSwitchExtension` policies a client
 * sends, a switch never has two forwarding extensions enabled (Windows' rule: MSD
 * forwarding-extensions.md "Only one forwarding extension can be enabled"), a request that
 * succeeds leaves its extension in the state it asked for and no other extension changed, and a
 * refused one changes nothing at all.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { asObj, makeHost, snapshot, type Host } from './v1/harness.js';

const OVS = '583CC151-73EC-4A6A-8B47-578297AD7623';
const VFP = 'F74F241B-440F-4433-BB28-00F89EAD20D8';
const WFP = 'E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A';
const CAPTURE = '430BDADD-BAB0-41AB-A369-94B67FA5BE0A';
const UNKNOWN = '11111111-2222-3333-4444-555555555555';
/** Forwarding extensions by Get-VMSwitchExtension (ovs-issues#96: OVS; Windows-Containers#608: VFP). */
const FORWARDING = new Set([OVS, VFP]);

type Via = 'v1' | 'modify' | 'policy';
interface Cmd {
  readonly net: number;
  readonly id: string;
  readonly enable: boolean;
  readonly via: Via;
}

function send(h: Host, net: string, c: Cmd): boolean {
  if (c.via === 'v1') {
    const r = h.call('POST', `/networks/${net}`, { Extensions: [{ Id: c.id, IsEnabled: c.enable }] });
    return r['Success'] === true;
  }
  const doc: JsonObject =
    c.via === 'modify'
      ? { ResourceType: 'Extension', RequestType: 'Update', Settings: { Id: c.id, IsEnabled: c.enable } }
      : {
          ResourceType: 'Policy',
          RequestType: 'Update',
          Settings: {
            Policies: [{ Type: 'VSwitchExtension', Settings: { ExtensionID: c.id, Enable: c.enable } }],
          },
        };
  return h.api.HcnModifyNetwork(net, doc).ok;
}

function listing(h: Host, net: string): Map<string, boolean> {
  const exts = asObj(h.ok('GET', `/networks/${net}`))['Extensions'] as JsonObject[];
  return new Map(exts.map((e) => [String(e['Id']), e['IsEnabled'] === true]));
}

describe('switch extensions under random requests', () => {
  it('one forwarding extension at most; success sets exactly the asked state; failure changes nothing', () => {
    const cmd = fc.record<Cmd>({
      net: fc.nat(2),
      id: fc.constantFrom(OVS, VFP, WFP, CAPTURE, UNKNOWN),
      enable: fc.boolean(),
      via: fc.constantFrom<Via>('v1', 'modify', 'policy'),
    });
    fc.assert(
      fc.property(fc.array(cmd, { maxLength: 25 }), (cmds) => {
        const h = makeHost('ws2022', 1, [
          { name: 'Ethernet', ipAddress: '10.0.0.4/24', gateway: '10.0.0.1' },
          { name: 'Ethernet 2', ipAddress: '10.1.0.4/24' },
        ]);
        const nets = (
          [
            ['antrea-hnsnetwork', 'Transparent', '10.10.0.0/24'],
            ['cbr0', 'L2Bridge', '10.244.1.0/24'],
            ['nat', 'NAT', '172.20.0.0/24'],
          ] as const
        ).map(([Name, Type, prefix], i) => {
          const gateway = prefix.replace(/0\/24$/, '1');
          const doc: JsonObject = {
            Name,
            Type,
            Subnets: [{ AddressPrefix: prefix, GatewayAddress: gateway }],
          };
          // the two external networks on their own adapters: two switches
          if (Type !== 'NAT') doc['NetworkAdapterName'] = i === 0 ? 'Ethernet' : 'Ethernet 2';
          return String(asObj(h.ok('POST', '/networks/', doc))['ID']);
        });
        for (const c of cmds) {
          const net = nets[c.net]!;
          const before = snapshot(h);
          const was = listing(h, net);
          const ok = send(h, net, c);
          const now = listing(h, net);
          if (!ok) {
            expect(snapshot(h)).toBe(before);
            continue;
          }
          expect(c.id).not.toBe(UNKNOWN);
          expect(now.get(c.id)).toBe(c.enable);
          for (const [id, on] of was) if (id !== c.id) expect(now.get(id)).toBe(on);
          for (const n of nets) {
            const enabled = [...listing(h, n)].filter(([id, on]) => on && FORWARDING.has(id));
            expect(enabled.length).toBeLessThanOrEqual(1);
          }
        }
        // refused requests were refused for a reason: replaying them now says the same
        for (const c of cmds) {
          if (c.id === UNKNOWN) continue;
          const net = nets[c.net]!;
          const l = listing(h, net);
          const otherOn = [...l].some(([id, on]) => on && id !== c.id && FORWARDING.has(id));
          const expectOk = !(c.enable && FORWARDING.has(c.id) && otherOn);
          expect(send(h, net, c)).toBe(expectOk);
        }
      }),
      { numRuns: 150, seed: 20261202 },
    );
  });
});
