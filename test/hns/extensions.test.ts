/**
 * Switch extensions through HNS v1 and HCN v2 (src/hns/extensions.ts; reference ovs-windows.md
 * §1.2). Expected lists are Windows' own outputs as reported upstream, not src tables:
 * - WS2022 (20348.2700) `Get-HnsNetwork` of an external network, kubernetes-sigs/sig-windows-tools#378:
 *   WFP E7C3B2F0 off, "Microsoft Azure VFP Switch Extension" F74F241B on, "Microsoft NDIS Capture"
 *   430BDADD on;
 * - a 2019 flannel Overlay/L2Bridge node: WFP off, VFP E9B59CFA on, NDIS Capture EA24CD6C on;
 * - a host with OVS installed (2020): `@{Id=583CC151-73EC-4A6A-8B47-578297AD7623; IsEnabled=False;
 *   Name=Open vSwitch Extension}` listed after WFP and before VFP.
 * The enabling body is Antrea's EnableHNSNetworkExtension (pkg/agent/util/net_windows.go:
 * `{"Extensions":[{"Id":"<guid>","IsEnabled":true}]}`); the v2 forms are hcsshim's
 * `VSwitchExtensionNetworkPolicySetting {ExtensionID, Enable}` and `ModifyNetworkSettingRequest`
 * with ResourceType `Extension` (hcn/hcnpolicy.go, hcn/hcnnetwork.go).
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { asObj, makeHost, snapshot, unwrap, v1Error, ws2022Extensions, type Host } from './v1/harness.js';

const OVS = '583CC151-73EC-4A6A-8B47-578297AD7623';
const WFP = 'E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A';

/** A v1 network on the node's NIC (`NetworkAdapterName: Ethernet`), its ID. */
function v1Network(h: Host, Name: string, Type: string, prefix: string): string {
  const gateway = prefix.replace(/0\/\d+$/, '1');
  const net = asObj(
    h.ok('POST', '/networks/', {
      Name,
      Type,
      NetworkAdapterName: 'Ethernet',
      Subnets: [{ AddressPrefix: prefix, GatewayAddress: gateway }],
    }),
  );
  return String(net['ID']);
}

/** Antrea's CreateHNSNetwork: a Transparent network on the NIC holding the node IP. */
const antreaNetwork = (h: Host) => v1Network(h, 'antrea-hnsnetwork', 'Transparent', '10.10.0.0/24');
const bridgeNetwork = (h: Host) => v1Network(h, 'cbr0', 'L2Bridge', '10.244.1.0/24');

const enableBody = (id: string, on = true) => `{"Extensions":[{"Id":"${id}","IsEnabled":${on}}]}`;

function extensionsOf(h: Host, id: string): unknown {
  return asObj(h.ok('GET', `/networks/${id}`))['Extensions'];
}

describe('HNS v1: the Extensions of a network are its switch’s', () => {
  it('a new Transparent switch lists WFP, OVS, VFP and NDIS Capture, VFP and OVS off', () => {
    const h = makeHost('ws2022');
    expect(extensionsOf(h, antreaNetwork(h))).toEqual(ws2022Extensions(false, false));
  });

  it("Antrea's EnableHNSNetworkExtension body enables OVS; the answer and GET show it; false disables it", () => {
    const h = makeHost('ws2022');
    const id = antreaNetwork(h);
    const out = asObj(h.ok('POST', `/networks/${id}`, enableBody(OVS)));
    expect(out['Extensions']).toEqual(ws2022Extensions(false, true));
    expect(extensionsOf(h, id)).toEqual(ws2022Extensions(false, true));
    h.ok('POST', `/networks/${id}`, enableBody(OVS.toLowerCase(), false));
    expect(extensionsOf(h, id)).toEqual(ws2022Extensions(false, false));
  });

  it('an L2Bridge switch has VFP on (2019 GUIDs on ws2019)', () => {
    const h19 = makeHost('ws2019');
    // the 2019 builds' GUIDs for VFP and NDIS Capture (flannel's 2019 Overlay/L2Bridge nodes)
    const ids2019: Record<string, string> = {
      'F74F241B-440F-4433-BB28-00F89EAD20D8': 'E9B59CFA-2BE1-4B21-828F-B6FBDBDDC017',
      '430BDADD-BAB0-41AB-A369-94B67FA5BE0A': 'EA24CD6C-D17A-4348-9190-09F0D5BE83DD',
    };
    expect(extensionsOf(h19, bridgeNetwork(h19))).toEqual(
      ws2022Extensions(true, false).map((e) => ({ ...e, Id: ids2019[String(e['Id'])] ?? e['Id'] })),
    );
    const h22 = makeHost('ws2022');
    expect(extensionsOf(h22, bridgeNetwork(h22))).toEqual(ws2022Extensions(true, false));
  });

  it('one forwarding extension per switch: OVS on a VFP switch is refused, nothing changes', () => {
    const h = makeHost('ws2022');
    const id = bridgeNetwork(h);
    const before = snapshot(h);
    expect(h.call('POST', `/networks/${id}`, enableBody(OVS))).toEqual(v1Error('HCN_E_REQUEST_UNSUPPORTED'));
    expect(snapshot(h)).toBe(before);
    // with VFP disabled first, OVS may be enabled; then VFP may not come back
    const vfp = 'F74F241B-440F-4433-BB28-00F89EAD20D8';
    h.ok('POST', `/networks/${id}`, enableBody(vfp, false));
    h.ok('POST', `/networks/${id}`, enableBody(OVS));
    expect(h.call('POST', `/networks/${id}`, enableBody(vfp))).toEqual(v1Error('HCN_E_REQUEST_UNSUPPORTED'));
    // a capture or filtering extension is no forwarding one
    h.ok('POST', `/networks/${id}`, enableBody(WFP));
    expect(extensionsOf(h, id)).toEqual(
      ws2022Extensions(false, true).map((e) => (e.Id === WFP ? { ...e, IsEnabled: true } : e)),
    );
  });

  it('every network of a switch shows the switch’s state', () => {
    const h = makeHost('ws2022');
    const a = antreaNetwork(h);
    const b = v1Network(h, 'second', 'Transparent', '10.10.1.0/24');
    h.ok('POST', `/networks/${b}`, enableBody(OVS));
    expect(extensionsOf(h, a)).toEqual(ws2022Extensions(false, true));
  });

  it('bad input: HNS’s error and nothing changes', () => {
    const h = makeHost('ws2022');
    const id = antreaNetwork(h);
    const before = snapshot(h);
    const cases: [unknown, string][] = [
      [enableBody('11111111-2222-3333-4444-555555555555'), 'HCN_E_SWITCH_EXTENSION_NOT_FOUND'],
      [enableBody('not-a-guid'), 'HCN_E_GUID_CONVERSION_FAILURE'],
      [{ Extensions: [{ Id: OVS, IsEnabled: 'yes' }] }, 'HCN_E_INVALID_JSON'],
      [{ Extensions: { Id: OVS } }, 'HCN_E_INVALID_JSON'],
      // the first entry is fine, the second unknown: neither is applied
      [
        { Extensions: [{ Id: OVS, IsEnabled: true }, { Id: '11111111-2222-3333-4444-555555555555' }] },
        'HCN_E_SWITCH_EXTENSION_NOT_FOUND',
      ],
    ];
    for (const [body, err] of cases) {
      expect(h.call('POST', `/networks/${id}`, body), JSON.stringify(body)).toEqual(
        v1Error(err as Parameters<typeof v1Error>[0]),
      );
      expect(snapshot(h)).toBe(before);
    }
  });

  it('deleting the network removes its switch: a recreated network has OVS off again', () => {
    const h = makeHost('ws2022');
    const id = antreaNetwork(h);
    h.ok('POST', `/networks/${id}`, enableBody(OVS));
    h.ok('DELETE', `/networks/${id}`);
    expect(extensionsOf(h, antreaNetwork(h))).toEqual(ws2022Extensions(false, false));
  });
});

describe('HCN v2: the Extension modify request and the VSwitchExtension policy', () => {
  function v2Network(h: Host): string {
    const r = unwrap(
      h.api.HcnCreateNetwork(null, {
        Name: 'antrea-hnsnetwork',
        Type: 'Transparent',
        Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } }],
        Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.10.0.0/24' }] }],
        SchemaVersion: { Major: 2, Minor: 0 },
      }),
    );
    return String(r['ID']);
  }
  const modify = (h: Host, id: string, doc: JsonObject) => h.api.HcnModifyNetwork(id, doc);

  it('ResourceType Extension {Id, IsEnabled} enables and disables OVS', () => {
    const h = makeHost('ws2022');
    const id = v2Network(h);
    unwrap(
      modify(h, id, {
        ResourceType: 'Extension',
        RequestType: 'Update',
        Settings: { Id: OVS, IsEnabled: true },
      }),
    );
    expect(extensionsOf(h, id)).toEqual(ws2022Extensions(false, true));
    unwrap(modify(h, id, { ResourceType: 'Extension', RequestType: 'Remove', Settings: { Id: OVS } }));
    expect(extensionsOf(h, id)).toEqual(ws2022Extensions(false, false));
  });

  it('the VSwitchExtension policy {ExtensionID, Enable}, at creation and by a Policy request', () => {
    const h = makeHost('ws2022');
    const created = unwrap(
      h.api.HcnCreateNetwork(null, {
        Name: 'ovs',
        Type: 'Transparent',
        Policies: [
          { Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } },
          { Type: 'VSwitchExtension', Settings: { ExtensionID: OVS, Enable: true } },
        ],
        Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.10.0.0/24' }] }],
        SchemaVersion: { Major: 2, Minor: 0 },
      }),
    );
    const id = String(created['ID']);
    expect(extensionsOf(h, id)).toEqual(ws2022Extensions(false, true));
    unwrap(
      modify(h, id, {
        ResourceType: 'Policy',
        RequestType: 'Update',
        Settings: { Policies: [{ Type: 'VSwitchExtension', Settings: { ExtensionID: OVS, Enable: false } }] },
      }),
    );
    expect(extensionsOf(h, id)).toEqual(ws2022Extensions(false, false));
  });

  it('a VSwitchExtension policy that breaks the rule fails the whole create or modify', () => {
    const h = makeHost('ws2022');
    const before = snapshot(h);
    const r = h.api.HcnCreateNetwork(null, {
      Name: 'cbr0',
      Type: 'L2Bridge',
      Policies: [{ Type: 'VSwitchExtension', Settings: { ExtensionID: OVS, Enable: true } }],
      Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.244.1.0/24' }] }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(r).toMatchObject({ ok: false, name: 'HCN_E_REQUEST_UNSUPPORTED' });
    expect(snapshot(h)).toBe(before);
    const id = v2Network(h);
    const mid = snapshot(h);
    const bad = modify(h, id, {
      ResourceType: 'Extension',
      RequestType: 'Update',
      Settings: { Id: '11111111-2222-3333-4444-555555555555', IsEnabled: true },
    });
    expect(bad).toMatchObject({ ok: false, name: 'HCN_E_SWITCH_EXTENSION_NOT_FOUND' });
    expect(snapshot(h)).toBe(mid);
  });

  it('the v2 network document has no Extensions field (hcsshim HostComputeNetwork has none)', () => {
    const h = makeHost('ws2022');
    const id = v2Network(h);
    h.ok('POST', `/networks/${id}`, enableBody(OVS));
    const q = unwrap(h.api.HcnQueryNetworkProperties(id, ''));
    expect(Object.keys(q)).not.toContain('Extensions');
  });
});
