// The host's network adapters and the vSwitches HNS builds on them (src/hns/adapters.ts): which
// adapter an external network binds to, the host vNIC that takes the host's address, what the v1
// and v2 views report about it (ManagementIP, ProviderAddress, DrMacAddress), and what happens at
// delete, restart, reboot and snapshot. Expected addresses are the ones each test gives the host.
import { describe, expect, it } from 'vitest';
import type { HcnResult } from '../../src/api/flat.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { createHost, type Host } from '../../src/host/host.js';
import { checkInvariants } from '../../src/testing/index.js';

const NIC = {
  name: 'Ethernet',
  ipAddress: '192.168.1.10/24',
  gateway: '192.168.1.1',
  macAddress: '00-0D-3A-00-00-0A',
};
const NIC2 = { name: 'Ethernet 2', ipAddress: '10.20.0.7/16', macAddress: '00:0d:3a:00:00:0b' };

function host(adapters = [NIC, NIC2], profile = 'ws2022'): Host {
  return createHost({ seed: 5, profile, adapters });
}

function ok<T>(r: HcnResult<T>): T {
  if (!r.ok) throw new Error(`${r.name}: ${r.message}`);
  return r.result;
}

function adapter(h: Host, name: string): JsonObject | undefined {
  return h.adapters().find((a) => a.Name === name);
}

function network(type: string, name: string, extra: JsonObject = {}): JsonObject {
  return {
    Name: name,
    Type: type,
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '10.244.1.0/24',
            Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
            ...(type === 'Overlay' ? { Policies: [{ Type: 'VSID', Settings: { IsolationId: 4096 } }] } : {}),
          },
        ],
      },
    ],
    ...extra,
  };
}

const adapterPolicy = (name: string): JsonObject => ({
  Policies: [{ Type: 'NetAdapterName', Settings: { NetworkAdapterName: name } }],
});

function v1(h: Host, id: string): JsonObject {
  const r = ok(h.api.HNSCall('GET', `/networks/${id}`, ''));
  return r.Output as JsonObject;
}

describe('adapters at boot', () => {
  it('are the configured physical NICs, with their addresses, in order', () => {
    const h = host();
    expect(h.adapters()).toEqual([
      {
        Name: 'Ethernet',
        InterfaceDescription: 'Microsoft Hyper-V Network Adapter',
        InterfaceGuid: expect.stringMatching(/^[0-9A-F-]{36}$/),
        ifIndex: 4,
        MacAddress: '00-0D-3A-00-00-0A',
        MtuSize: 1500,
        Kind: 'Physical',
        Status: 'Up',
        IPv4Address: '192.168.1.10',
        PrefixLength: 24,
        DefaultGateway: '192.168.1.1',
      },
      expect.objectContaining({
        Name: 'Ethernet 2',
        ifIndex: 5,
        // a colon MAC given in the spec is shown in the dash form Get-NetAdapter uses
        MacAddress: '00-0D-3A-00-00-0B',
        IPv4Address: '10.20.0.7',
        PrefixLength: 16,
      }),
    ]);
    expect(h.switches()).toEqual([]);
  });

  it('default to one Ethernet derived from the seed: same seed, same NIC; another seed, another', () => {
    const a = createHost({ seed: 1 }).adapters();
    const b = createHost({ seed: 1 }).adapters();
    const c = createHost({ seed: 2 }).adapters();
    expect(a).toEqual(b);
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ Name: 'Ethernet', PrefixLength: 16, DefaultGateway: '10.0.0.1' });
    expect(String(a[0]!.IPv4Address)).toMatch(/^10\.0\.\d{1,3}\.\d{1,3}$/);
    // Microsoft's 00-0D-3A OUI, outside the 00-15-5D pools HNS hands endpoints
    expect(String(a[0]!.MacAddress)).toMatch(/^00-0D-3A-/);
    expect([c[0]!.IPv4Address, c[0]!.MacAddress]).not.toEqual([a[0]!.IPv4Address, a[0]!.MacAddress]);
  });

  it.each<[string, JsonObject, RegExp]>([
    ['no name', { ipAddress: '10.0.0.4/24' }, /name must be a non-empty string/],
    ['a vEthernet name', { name: 'vEthernet (Ethernet)' }, /reserved for host vNICs/],
    [
      'an address without a prefix',
      { name: 'E', ipAddress: '10.0.0.4' },
      /not an IPv4 address with a prefix/,
    ],
    ['the network address', { name: 'E', ipAddress: '10.0.0.0/24' }, /network or broadcast/],
    ['a gateway outside the subnet', { name: 'E', ipAddress: '10.0.0.4/24', gateway: '10.0.1.1' }, /outside/],
    ['a gateway without an address', { name: 'E', gateway: '10.0.0.1' }, /gateway needs an ipAddress/],
    ['a multicast MAC', { name: 'E', macAddress: '01-00-5E-00-00-01' }, /not a unicast MAC/],
    ['an MTU out of range', { name: 'E', mtu: 100 }, /mtu/],
    ['an unknown key', { name: 'E', ip: '10.0.0.4/24' }, /unknown key "ip"/],
  ])('a spec with %s is E_INVALIDARG naming the field', (_what, spec, message) => {
    let err: unknown;
    try {
      createHost({ adapters: [spec as never] });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'E_INVALIDARG', hresult: 0x80070057 });
    expect(String((err as Error).message)).toMatch(message);
  });

  it('two adapters with one name (any case) or one MAC are refused', () => {
    expect(() => createHost({ adapters: [NIC, { ...NIC2, name: 'ETHERNET' }] })).toThrow(/used twice/);
    expect(() => createHost({ adapters: [NIC, { ...NIC2, macAddress: NIC.macAddress }] })).toThrow(
      /used twice/,
    );
  });
});

describe('external networks and the vSwitch', () => {
  it.each(['L2Bridge', 'L2Tunnel', 'Overlay', 'Transparent'])(
    'the first %s network on the default adapter creates the switch; the address moves to vEthernet',
    (type) => {
      const h = host();
      const net = ok(h.api.HcnCreateNetwork(null, network(type, 'n1')));
      // the default adapter is the one with a default gateway: Ethernet, not Ethernet 2
      expect(adapter(h, 'Ethernet')).not.toHaveProperty('IPv4Address');
      expect(adapter(h, 'vEthernet (Ethernet)')).toMatchObject({
        Kind: 'HostVNic',
        MacAddress: '00-0D-3A-00-00-0A', // the host vNIC takes the NIC's MAC
        IPv4Address: '192.168.1.10',
        PrefixLength: 24,
        DefaultGateway: '192.168.1.1',
      });
      expect(adapter(h, 'Ethernet 2')).toMatchObject({ IPv4Address: '10.20.0.7' });
      const [sw] = h.switches();
      // the switch has the ID and name of the network that made it, which reports it as SwitchGuid
      expect((net.Health as { Extra: { SwitchGuid: string } }).Extra.SwitchGuid).toBe(net.ID);
      expect(sw).toEqual({
        ID: net.ID,
        Name: 'n1',
        SwitchType: 'External',
        NetAdapterName: 'Ethernet',
        HostVNic: 'vEthernet (Ethernet)',
        Networks: [net.ID],
      });
      // v1 ManagementIP: the host vNIC's address
      expect(v1(h, net.ID).ManagementIP).toBe('192.168.1.10');
      expect(checkInvariants(h)).toEqual([]);
    },
  );

  it('later networks on the adapter share the switch, also when they name its vEthernet', () => {
    const h = host();
    const a = ok(h.api.HcnCreateNetwork(null, network('Overlay', 'External', adapterPolicy('Ethernet'))));
    const b = ok(
      h.api.HcnCreateNetwork(null, network('L2Bridge', 'cbr0', adapterPolicy('vEthernet (Ethernet)'))),
    );
    const c = ok(h.api.HcnCreateNetwork(null, network('Overlay', 'Calico'))); // no adapter named: the default
    const guid = (n: JsonObject) => (n.Health as { Extra: { SwitchGuid: string } }).Extra.SwitchGuid;
    expect(guid(b)).toBe(guid(a));
    expect(guid(c)).toBe(guid(a));
    expect(h.switches()).toHaveLength(1);
    expect(h.switches()[0]!.Networks).toEqual([a.ID, b.ID, c.ID]);
    for (const n of [a, b, c]) expect(v1(h, n.ID).ManagementIP).toBe('192.168.1.10');
  });

  it("the switch keeps the first network's ID when it goes; that ID cannot make another switch", () => {
    const h = host();
    const guid = (n: JsonObject) => (n.Health as { Extra: { SwitchGuid: string } }).Extra.SwitchGuid;
    const a = ok(h.api.HcnCreateNetwork(null, network('Transparent', 'ext')));
    const b = ok(h.api.HcnCreateNetwork(null, network('L2Bridge', 'cbr0')));
    ok(h.api.HcnDeleteNetwork(a.ID));
    // a Hyper-V switch keeps its ID: the network left on it still reports the first one's
    const left = ok(h.api.HcnQueryNetworkProperties(b.ID, ''));
    expect(guid(left)).toBe(a.ID);
    expect(h.switches()).toEqual([expect.objectContaining({ ID: a.ID, Name: 'ext', Networks: [b.ID] })]);
    // a new network given that ID cannot make a switch with it (no state change) ...
    const before = JSON.stringify(h.snapshot());
    const r = h.api.HcnCreateNetwork(a.ID, network('NAT', 'again'));
    expect(r).toMatchObject({ ok: false, hr: 0x803b0010, name: 'HCN_E_NETWORK_ALREADY_EXISTS' });
    const r2 = h.api.HcnCreateNetwork(a.ID, network('L2Bridge', 'other', adapterPolicy('Ethernet 2')));
    expect(r2).toMatchObject({ ok: false, name: 'HCN_E_NETWORK_ALREADY_EXISTS' });
    expect(JSON.stringify(h.snapshot())).toBe(before);
    // ... but it may join it
    const c = ok(h.api.HcnCreateNetwork(a.ID, network('Overlay', 'back')));
    expect(guid(c)).toBe(a.ID);
    expect(h.switches()[0]!.Networks).toEqual([b.ID, a.ID]);
    expect(checkInvariants(h)).toEqual([]);
  });

  it("a network on the second adapter gets its own switch and that adapter's address", () => {
    const h = host();
    const n = ok(h.api.HcnCreateNetwork(null, network('L2Bridge', 'second', adapterPolicy('ethernet 2'))));
    expect(adapter(h, 'vEthernet (Ethernet 2)')).toMatchObject({
      IPv4Address: '10.20.0.7',
      MacAddress: '00-0D-3A-00-00-0B',
    });
    expect(adapter(h, 'Ethernet')).toMatchObject({ IPv4Address: '192.168.1.10' });
    expect(v1(h, n.ID).ManagementIP).toBe('10.20.0.7');
  });

  it('an unknown adapter is HCN_E_ADAPTER_NOT_FOUND (0x803B0006) and nothing changes', () => {
    const h = host();
    const before = JSON.stringify(h.snapshot());
    const r = h.api.HcnCreateNetwork(null, network('L2Bridge', 'x', adapterPolicy('Ethernet 9')));
    expect(r).toMatchObject({ ok: false, hr: 0x803b0006, name: 'HCN_E_ADAPTER_NOT_FOUND' });
    // v1 too (Azure CNI v1 sends NetworkAdapterName; docker/for-win#7155 saw "An adapter was not found.")
    const v = ok(
      h.api.HNSCall(
        'POST',
        '/networks/',
        JSON.stringify({ Name: 'y', Type: 'L2Bridge', NetworkAdapterName: 'Nope' }),
      ),
    );
    expect(v).toMatchObject({ Success: false, Error: 'An adapter was not found. ' });
    expect(JSON.stringify(h.snapshot())).toBe(before);
    // a vEthernet name with no switch behind it is unknown too
    const r2 = h.api.HcnCreateNetwork(null, network('L2Bridge', 'z', adapterPolicy('vEthernet (Ethernet)')));
    expect(r2).toMatchObject({ ok: false, name: 'HCN_E_ADAPTER_NOT_FOUND' });
  });

  it('the last network leaving the switch removes it and gives the address back', () => {
    const h = host();
    const a = ok(h.api.HcnCreateNetwork(null, network('Overlay', 'External')));
    const b = ok(h.api.HcnCreateNetwork(null, network('L2Bridge', 'cbr0')));
    ok(h.api.HcnDeleteNetwork(a.ID));
    expect(adapter(h, 'vEthernet (Ethernet)')).toMatchObject({ IPv4Address: '192.168.1.10' });
    expect(h.switches()[0]!.Networks).toEqual([b.ID]);
    ok(h.api.HcnDeleteNetwork(b.ID));
    expect(adapter(h, 'vEthernet (Ethernet)')).toBeUndefined();
    expect(adapter(h, 'Ethernet')).toMatchObject({
      IPv4Address: '192.168.1.10',
      DefaultGateway: '192.168.1.1',
    });
    expect(h.switches()).toEqual([]);
    expect(checkInvariants(h)).toEqual([]);
  });
});

describe('what the views report about the adapter', () => {
  it('an Overlay network shows ProviderAddress (the management IP) and a DrMacAddress in v2, DrMacAddress in v1', () => {
    const h = host();
    const n = ok(h.api.HcnCreateNetwork(null, network('Overlay', 'vxlan0')));
    const pols = n.Policies as JsonObject[];
    expect(pols[0]).toEqual({ Type: 'ProviderAddress', Settings: { ProviderAddress: '192.168.1.10' } });
    expect(pols[1]).toEqual({
      Type: 'DrMacAddress',
      Settings: { Address: expect.stringMatching(/^00-15-5D(-[0-9A-F]{2}){3}$/) },
    });
    const dr = (pols[1]!.Settings as { Address: string }).Address;
    const view = v1(h, n.ID);
    expect(view.DrMacAddress).toBe(dr);
    expect(view.ManagementIP).toBe('192.168.1.10');
    // in v1 the adapter facts are fields, not policies (rke2#3925: "Policies":[] on such a network)
    expect(view).not.toHaveProperty('Policies');
    // the DR MAC is nobody's endpoint MAC: it lies outside the network's pool
    const pool = (n.MacPool as { Ranges: { StartMacAddress: string; EndMacAddress: string }[] }).Ranges[0]!;
    expect(dr < pool.StartMacAddress || dr > pool.EndMacAddress).toBe(true);
  });

  it('policies the caller gave win over what HNS would report', () => {
    const h = host();
    const n = ok(
      h.api.HcnCreateNetwork(
        null,
        network('Overlay', 'vxlan0', {
          Policies: [
            { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.9.9.9' } },
            { Type: 'DrMacAddress', Settings: { Address: '00:15:5d:aa:bb:cc' } },
          ],
        }),
      ),
    );
    expect(n.Policies).toEqual([
      { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.9.9.9' } },
      { Type: 'DrMacAddress', Settings: { Address: '00:15:5d:aa:bb:cc' } },
    ]);
    expect(v1(h, n.ID).DrMacAddress).toBe('00:15:5d:aa:bb:cc');
  });

  it('L2Bridge shows no ProviderAddress or DrMacAddress; NAT has no ManagementIP', () => {
    const h = host();
    const l2 = ok(h.api.HcnCreateNetwork(null, network('L2Bridge', 'l2')));
    expect(l2).not.toHaveProperty('Policies');
    const nat = ok(h.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' }));
    expect(v1(h, nat.ID)).not.toHaveProperty('ManagementIP');
  });

  it('NAT networks get an internal switch whose host vNIC holds the gateway; Private networks no vNIC', () => {
    const h = host();
    const nat = ok(
      h.api.HcnCreateNetwork(null, {
        Name: 'nat',
        Type: 'NAT',
        Ipams: [
          {
            Type: 'Static',
            Subnets: [
              {
                IpAddressPrefix: '172.29.144.0/20',
                Routes: [{ NextHop: '172.29.144.1', DestinationPrefix: '0.0.0.0/0' }],
              },
            ],
          },
        ],
      }),
    );
    expect(adapter(h, 'vEthernet (nat)')).toMatchObject({
      Kind: 'HostVNic',
      IPv4Address: '172.29.144.1',
      PrefixLength: 20,
      MacAddress: expect.stringMatching(/^00-15-5D-/),
    });
    const priv = ok(h.api.HcnCreateNetwork(null, network('Private', 'isolated')));
    expect(h.switches().map((s) => [s.ID, s.Name, s.SwitchType, s.HostVNic ?? null])).toEqual([
      [nat.ID, 'nat', 'Internal', 'vEthernet (nat)'],
      [priv.ID, 'isolated', 'Private', null],
    ]);
    // each reports its own ID as SwitchGuid (ncproxy names the switch after that network)
    for (const n of [nat, priv]) expect((n.Health as JsonObject).Extra).toMatchObject({ SwitchGuid: n.ID });
    ok(h.api.HcnDeleteNetwork(nat.ID));
    expect(adapter(h, 'vEthernet (nat)')).toBeUndefined();
  });

  it('a network on no switch (Mirrored) reports no SwitchGuid', () => {
    const h = host();
    const m = ok(h.api.HcnCreateNetwork(null, { Name: 'mirrored', Type: 'Mirrored' }));
    expect(h.switches()).toEqual([]);
    expect((m.Health as JsonObject).Extra).not.toHaveProperty('SwitchGuid');
    expect((m.Health as JsonObject).Extra).toHaveProperty('LayeredOn');
    expect(checkInvariants(h)).toEqual([]);
  });
});

describe('service restart, reboot and snapshots', () => {
  it('a restart keeps the networks and their switch; a reboot removes non-persistent ones with it', () => {
    const h = host();
    ok(h.api.HcnCreateNetwork(null, network('L2Bridge', 'keep')));
    const temp = ok(h.api.HcnCreateNetwork(null, network('Overlay', 'temp', { Flags: 8 })));
    h.restartHns();
    expect(h.switches()[0]!.Networks).toHaveLength(2);
    h.reboot();
    expect(h.switches()[0]!.Networks).not.toContain(temp.ID);
    expect(adapter(h, 'vEthernet (Ethernet)')).toMatchObject({ IPv4Address: '192.168.1.10' });
    h.reboot({ networks: 'remove' });
    expect(h.switches()).toEqual([]);
    expect(adapter(h, 'Ethernet')).toMatchObject({ IPv4Address: '192.168.1.10' });
  });

  it('restart, reboot and restore keep SwitchGuid: the ID of the network that made the switch', () => {
    const h = host();
    const temp = ok(h.api.HcnCreateNetwork(null, network('Overlay', 'temp', { Flags: 8 })));
    const keep = ok(h.api.HcnCreateNetwork(null, network('L2Bridge', 'keep')));
    const guid = (id: string) => h.hns.getNetwork(id).SwitchGuid;
    h.restartHns();
    expect([guid(temp.ID), guid(keep.ID)]).toEqual([temp.ID, temp.ID]);
    const snap = h.snapshot();
    h.reboot(); // the non-persistent network that made the switch goes; the switch and its ID stay
    expect(h.switches()).toEqual([expect.objectContaining({ ID: temp.ID, Networks: [keep.ID] })]);
    expect(guid(keep.ID)).toBe(temp.ID);
    h.restore(snap);
    expect([guid(temp.ID), guid(keep.ID)]).toEqual([temp.ID, temp.ID]);
    expect(checkInvariants(h)).toEqual([]);
  });

  it('a snapshot carries the adapters and switches; restore reproduces them and later calls', () => {
    const h = host();
    ok(h.api.HcnCreateNetwork(null, network('Overlay', 'a')));
    const snap = h.snapshot();
    const other = host();
    other.restore(snap);
    expect(other.adapters()).toEqual(h.adapters());
    expect(other.switches()).toEqual(h.switches());
    const next = (x: Host) => ok(x.api.HcnCreateNetwork(null, network('L2Bridge', 'b')));
    expect(next(other)).toEqual(next(h));
    expect(checkInvariants(other)).toEqual([]);
  });

  it('a snapshot from before adapters (hnsim 0.1.0, no "nics") is restored with switches rebuilt', () => {
    const h = host();
    const a = ok(h.api.HcnCreateNetwork(null, network('Overlay', 'a')));
    const b = ok(h.api.HcnCreateNetwork(null, network('L2Bridge', 'b')));
    const { nics: _nics, ...old } = h.snapshot() as JsonObject;
    // hnsim 0.1.0 gave every network a SwitchGuid of its own that named nothing
    const recs = (old.networks as { rec: JsonObject }[]).map((n) => n.rec);
    recs[0]!.SwitchGuid = '11111111-2222-4333-8444-555555555555';
    recs[1]!.SwitchGuid = '66666666-7777-4888-9999-AAAAAAAAAAAA';
    const other = host();
    other.restore(old);
    expect(other.switches().map((s) => [s.ID, s.Networks])).toEqual([[a.ID, [a.ID, b.ID]]]);
    const guids = [a, b].map((n) => other.hns.getNetwork(n.ID).SwitchGuid);
    expect(guids).toEqual([a.ID, a.ID]);
    expect(adapter(other, 'vEthernet (Ethernet)')).toMatchObject({ IPv4Address: '192.168.1.10' });
    expect(checkInvariants(other)).toEqual([]);
  });

  it('a snapshot whose switches disagree with its networks is refused, state untouched', () => {
    const h = host();
    ok(h.api.HcnCreateNetwork(null, network('Overlay', 'a')));
    const snap = h.snapshot() as unknown as JsonObject & { nics: { switches: JsonObject[] } };
    const bad = JSON.parse(JSON.stringify(snap)) as typeof snap;
    bad.nics.switches[0]!.Networks = ['11111111-2222-4333-8444-555555555555'] as Json;
    const other = host();
    const before = JSON.stringify(other.snapshot());
    expect(() => other.restore(bad)).toThrow(/corrupt snapshot/);
    expect(JSON.stringify(other.snapshot())).toBe(before);
  });

  it('a snapshot whose SwitchGuids disagree with the switches is refused, state untouched', () => {
    const h = host();
    const a = ok(h.api.HcnCreateNetwork(null, network('Transparent', 'a')));
    ok(h.api.HcnCreateNetwork(null, { Name: 'm', Type: 'Mirrored' }));
    type Snap = JsonObject & { networks: { rec: JsonObject }[]; nics: { switches: JsonObject[] } };
    const snap = h.snapshot() as unknown as Snap;
    const corrupt = (edit: (s: Snap) => void, why: RegExp) => {
      const bad = JSON.parse(JSON.stringify(snap)) as Snap;
      edit(bad);
      const other = host();
      const before = JSON.stringify(other.snapshot());
      expect(() => other.restore(bad)).toThrow(why);
      expect(JSON.stringify(other.snapshot())).toBe(before);
    };
    // a network on no switch that reports one
    corrupt((s) => void (s.networks[1]!.rec.SwitchGuid = a.ID), /on no switch but has SwitchGuid/);
    // a switch whose ID is a network's that is not on it
    corrupt((s) => {
      const sw = s.nics.switches[0]!;
      sw.ID = s.networks[1]!.rec.ID as string;
      s.networks[0]!.rec.SwitchGuid = sw.ID;
    }, /has the ID of a switch it is not on/);
  });
});

describe('endpoints attached to the host', () => {
  it('an endpoint in the host default compartment is a host vNIC carrying its address; detached, it is gone', () => {
    const h = host();
    const net = ok(
      h.api.HNSCall(
        'POST',
        '/networks/',
        JSON.stringify({
          Name: 'cbr0',
          Type: 'L2Bridge',
          Subnets: [{ AddressPrefix: '10.244.1.0/24', GatewayAddress: '10.244.1.1' }],
        }),
      ),
    ).Output as JsonObject;
    const ep = ok(
      h.api.HNSCall(
        'POST',
        '/endpoints/',
        JSON.stringify({ Name: 'cbr0_ep', VirtualNetwork: net.ID, IPAddress: '10.244.1.2' }),
      ),
    ).Output as JsonObject;
    expect(adapter(h, 'vEthernet (cbr0_ep)')).toBeUndefined(); // not attached yet
    ok(
      h.api.HNSCall('POST', `/endpoints/${String(ep.ID)}/attach`, '{"SystemType":"Host","CompartmentId":1}'),
    );
    expect(adapter(h, 'vEthernet (cbr0_ep)')).toMatchObject({
      Kind: 'HostVNic',
      IPv4Address: '10.244.1.2',
      PrefixLength: 24,
      MacAddress: ep.MacAddress,
      EndpointId: ep.ID,
    });
    ok(h.api.HNSCall('POST', `/endpoints/${String(ep.ID)}/detach`, '{"SystemType":"Host"}'));
    expect(adapter(h, 'vEthernet (cbr0_ep)')).toBeUndefined();
  });

  it('only the default compartment: an endpoint in a container namespace is not a host interface', () => {
    const h = host();
    const net = ok(h.api.HcnCreateNetwork(null, network('L2Bridge', 'l2')));
    const a = ok(h.api.HcnCreateEndpoint(net.ID, null, { Name: 'pod' }));
    const ns = ok(h.api.HcnCreateNamespace(null, {}));
    ok(
      h.api.HcnModifyNamespace(ns.ID, {
        ResourceType: 'Endpoint',
        RequestType: 'Add',
        Settings: { EndpointId: a.ID },
      }),
    );
    expect(adapter(h, 'vEthernet (pod)')).toBeUndefined();
    const hostDefault = ok(h.api.HcnEnumerateNamespaces('{"Filter":"{\\"Type\\":\\"HostDefault\\"}"}'))[0]!;
    const b = ok(h.api.HcnCreateEndpoint(net.ID, null, { Name: 'host-ep' }));
    ok(
      h.api.HcnModifyNamespace(hostDefault, {
        ResourceType: 'Endpoint',
        RequestType: 'Add',
        Settings: { EndpointId: b.ID },
      }),
    );
    expect(adapter(h, 'vEthernet (host-ep)')).toMatchObject({ IPv4Address: '10.244.1.3' });
  });
});

describe('choosing the adapter by address', () => {
  // Azure CNI's multitenant networks name their adapter by a ProviderAddress policy
  // (network/policy/policy_windows.go GetHcnNetAdapterAddressPolicy) instead of NetAdapterName
  it('a ProviderAddress network policy picks the adapter holding that address', () => {
    const h = host();
    const n = ok(
      h.api.HcnCreateNetwork(
        null,
        network('L2Bridge', 'tenant', {
          Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.20.0.7' } }],
        }),
      ),
    );
    expect(v1(h, n.ID).ManagementIP).toBe('10.20.0.7');
    expect(adapter(h, 'vEthernet (Ethernet 2)')).toMatchObject({ IPv4Address: '10.20.0.7' });
    // once the address is on the vEthernet, it still names that switch
    const m = ok(
      h.api.HcnCreateNetwork(
        null,
        network('L2Bridge', 'tenant2', {
          Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '10.20.0.7' } }],
        }),
      ),
    );
    expect(h.switches().find((s) => s.NetAdapterName === 'Ethernet 2')!.Networks).toEqual([n.ID, m.ID]);
  });

  it('NetAdapterName wins over ProviderAddress; an address no adapter holds leaves the default adapter', () => {
    const h = host();
    const named = ok(
      h.api.HcnCreateNetwork(
        null,
        network('L2Bridge', 'a', {
          Policies: [
            { Type: 'NetAdapterName', Settings: { NetworkAdapterName: 'Ethernet' } },
            { Type: 'ProviderAddress', Settings: { ProviderAddress: '10.20.0.7' } },
          ],
        }),
      ),
    );
    expect(v1(h, named.ID).ManagementIP).toBe('192.168.1.10');
    const other = ok(
      h.api.HcnCreateNetwork(
        null,
        network('Overlay', 'b', {
          Policies: [{ Type: 'ProviderAddress', Settings: { ProviderAddress: '172.16.9.9' } }],
        }),
      ),
    );
    expect(v1(h, other.ID).ManagementIP).toBe('192.168.1.10');
  });
});
