// hnsdiag-like listings and narration helpers (src/render), fed by a real host's flat API results.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { createHost } from '../../src/host/host.js';
import {
  collectListing,
  listingJson,
  renderEndpoints,
  renderAdapters,
  renderListing,
  renderLoadBalancers,
  renderNamespaces,
  renderNetworks,
  renderRoutes,
} from '../../src/render/listing.js';
import { formatOutcome, layoutJson } from '../../src/render/narration.js';
import { table } from '../../src/render/table.js';

function ok(r: { hr: number; result?: unknown }): JsonObject {
  if (r.hr !== 0) throw new Error(JSON.stringify(r));
  return r.result as JsonObject;
}

function populated() {
  const host = createHost({ seed: 11 });
  const api = host.api;
  const nat = ok(api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT' }));
  const l2 = ok(
    api.HcnCreateNetwork(null, {
      Name: 'cbr0',
      Type: 'L2Bridge',
      Ipams: [
        {
          Type: 'Static',
          Subnets: [
            {
              IpAddressPrefix: '10.1.0.0/24',
              Routes: [{ NextHop: '10.1.0.1', DestinationPrefix: '0.0.0.0/0' }],
            },
          ],
        },
      ],
    }),
  );
  const a = ok(
    api.HcnCreateEndpoint(l2.ID, null, {
      Name: 'a',
      HostComputeNetwork: l2.ID,
      IpConfigurations: [{ IpAddress: '10.1.0.10', PrefixLength: 24 }],
    }),
  );
  const b = ok(api.HcnCreateEndpoint(l2.ID, null, { Name: 'b', HostComputeNetwork: l2.ID }));
  const ns = ok(api.HcnCreateNamespace(null, {}));
  ok(
    api.HcnModifyNamespace(ns.ID, {
      ResourceType: 'Endpoint',
      RequestType: 'Add',
      Settings: { EndpointId: a.ID },
    }),
  );
  const lb = ok(
    api.HcnCreateLoadBalancer(null, {
      HostComputeEndpoints: [a.ID, b.ID],
      FrontendVIPs: ['10.0.0.10'],
      PortMappings: [{ Protocol: 17, InternalPort: 53, ExternalPort: 53 }],
    }),
  );
  const rt = ok(
    api.HcnCreateSdnRoute(null, {
      HostComputeEndpoints: [a.ID],
      Setting: [{ DestinationPrefix: '10.2.0.0/16', NextHop: '10.1.0.1', NeedEncap: true }],
    }),
  );
  return { host, nat, l2, a, b, ns, lb, rt, listing: collectListing(api, host) };
}

describe('table', () => {
  it('aligns columns two spaces apart under dashed headers, (none) when empty', () => {
    expect(
      table(
        ['A', 'Long'],
        [
          ['xyz', '1'],
          ['x', '22'],
        ],
      ),
    ).toBe('A    Long\n-    ----\nxyz  1\nx    22');
    expect(table(['A', 'B'], [])).toBe('A  B\n-  -\n(none)');
    expect(table(['A'], [], { color: true })).toBe('\x1b[1mA\x1b[0m\n-\n(none)');
  });
});

describe('listings of a host', () => {
  it('collects every kind through the flat API, in creation order', () => {
    const { listing, nat, l2, a, b, lb, rt } = populated();
    expect(listing.networks.map((n) => n.ID)).toEqual([nat.ID, l2.ID]);
    expect(listing.endpoints.map((e) => e.ID)).toEqual([a.ID, b.ID]);
    expect(listing.namespaces).toHaveLength(2); // HostDefault + ours
    expect(listing.loadbalancers.map((x) => x.ID)).toEqual([lb.ID]);
    expect(listing.routes.map((x) => x.ID)).toEqual([rt.ID]);
    expect(Object.keys(listingJson(listing, ['routes']))).toEqual(['routes']);
  });

  it('networks: NAT when HNS omits Type, subnets, gateways, policies', () => {
    const { listing, nat, l2 } = populated();
    const rows = renderNetworks(listing).split('\n');
    expect(rows[0]).toMatch(/^Name\s+ID\s+Type\s+Subnets\s+Gateway\s+Policies$/);
    expect(rows[2]).toMatch(
      new RegExp(`^nat\\s+${nat.ID}\\s+NAT\\s+\\d+\\.\\d+\\.\\d+\\.0/\\d+\\s+\\d+\\.\\d+\\.\\d+\\.1\\s+-$`),
    );
    expect(rows[3]).toMatch(
      new RegExp(`^cbr0\\s+${l2.ID}\\s+L2Bridge\\s+10\\.1\\.0\\.0/24\\s+10\\.1\\.0\\.1\\s+-$`),
    );
  });

  it('endpoints: addresses with prefix length, MAC, network by name, namespace by ID', () => {
    const { listing, a, b, ns } = populated();
    const rows = renderEndpoints(listing).split('\n');
    expect(rows[2]).toMatch(
      new RegExp(`^a\\s+${a.ID}\\s+10\\.1\\.0\\.10/24\\s+${a.MacAddress}\\s+cbr0\\s+${ns.ID}\\s+-$`),
    );
    expect(rows[3]).toMatch(
      new RegExp(`^b\\s+${b.ID}\\s+10\\.1\\.0\\.\\d+/24\\s+${b.MacAddress}\\s+cbr0\\s+-\\s+-$`),
    );
  });

  it('namespaces, load balancers and routes name endpoints by their Name', () => {
    const { listing, ns, lb, rt } = populated();
    expect(renderNamespaces(listing)).toMatch(new RegExp(`^${ns.ID}\\s+2\\s+-\\s+a$`, 'm'));
    expect(renderLoadBalancers(listing)).toMatch(
      new RegExp(`^${lb.ID}\\s+10\\.0\\.0\\.10\\s+UDP 53->53\\s+a, b\\s+-\\s+-$`, 'm'),
    );
    expect(renderRoutes(listing)).toMatch(
      new RegExp(`^${rt.ID}\\s+10\\.2\\.0\\.0/16\\s+10\\.1\\.0\\.1\\s+yes\\s+a$`, 'm'),
    );
  });

  it('titles each section with its count', () => {
    const { listing } = populated();
    const text = renderListing(listing);
    expect(text.match(/^[A-Z][A-Za-z ]+ \(\d+\)$/gm)).toEqual([
      'Networks (2)',
      'Endpoints (2)',
      'Namespaces (2)',
      'Load balancers (1)',
      'SDN routes (1)',
      'Host adapters (3)',
    ]);
  });

  it('lists the adapters: the physical NIC gave its address to the vEthernet of the L2Bridge switch', () => {
    const { listing } = populated();
    const lines = renderAdapters(listing).split('\n');
    const row = (name: string) => lines.find((l) => l.startsWith(name + ' '));
    expect(lines[0]).toMatch(/^Name +ifIndex +Kind +MAC Address +IPv4 Address +Gateway +vSwitch$/);
    // the external switch is named after the network that made it (docs/model.md, "Switch identity")
    expect(row('Ethernet')).toMatch(
      /^Ethernet +4 +physical +00-0D-3A-[0-9A-F-]{8} +- +- +cbr0 \(External\)$/,
    );
    expect(row('vEthernet (Ethernet)')).toMatch(
      /^vEthernet \(Ethernet\) +\d+ +host vNIC +00-0D-3A-[0-9A-F-]{8} +10\.0\.\d+\.\d+\/16 +10\.0\.0\.1 +cbr0 \(External\)$/,
    );
    // the NAT network's internal switch: its host vNIC holds the subnet gateway
    expect(row('vEthernet (nat)')).toMatch(
      /^vEthernet \(nat\) +\d+ +host vNIC +00-15-5D-[0-9A-F-]{8} +\S+\/\d+ +- +nat \(Internal\)$/,
    );
  });
});

describe('narration helpers', () => {
  it('layoutJson keeps short values on one line and breaks long ones member by member', () => {
    expect(layoutJson({ a: 1, b: [1, 2] })).toBe('{"a":1,"b":[1,2]}');
    const long = { Name: 'x'.repeat(50), Policies: [{ Type: 'A', Settings: { v: 'y'.repeat(40) } }] };
    expect(layoutJson(long, '', 80)).toBe(
      `{\n  "Name": "${'x'.repeat(50)}",\n  "Policies": [\n    {"Type":"A","Settings":{"v":"${'y'.repeat(40)}"}}\n  ]\n}`,
    );
    expect(JSON.parse(layoutJson(long, '', 10))).toEqual(long);
  });

  it('formatOutcome spells the HRESULT as Windows does', () => {
    const base = { method: 'M', params: [], events: [] };
    expect(formatOutcome({ ...base, hresult: 0, name: 'S_OK', summary: 'done' })).toBe('S_OK: done');
    expect(
      formatOutcome({ ...base, hresult: 0x803b0013, name: 'HCN_E_PORT_ALREADY_EXISTS', message: 'm' }),
    ).toBe('HCN_E_PORT_ALREADY_EXISTS (0x803B0013): m');
  });
});
