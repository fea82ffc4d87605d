// Diagrams (src/render/diagram.ts, svg.ts): the graph of one host, its DOT and Mermaid text
// (escaping, nesting, determinism) and the SVG Graphviz lays out from the DOT.
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import { addHost, Diagram, shortId, toDot, toMermaid } from '../../src/render/diagram.js';
import { dotToSvg } from '../../src/render/svg.js';

function natHost() {
  const host = createHost({ seed: 2, name: 'node-1' });
  const net = host.api.HcnCreateNetwork(null, {
    Name: 'nat',
    Type: 'NAT',
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '172.20.0.0/24',
            Routes: [{ NextHop: '172.20.0.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
  });
  if (!net.ok) throw new Error(net.message);
  const ns = host.api.HcnCreateNamespace(null, {});
  if (!ns.ok) throw new Error(ns.message);
  const ep = host.api.HcnCreateEndpoint(net.result.ID as string, null, { Name: 'web "1"' });
  if (!ep.ok) throw new Error(ep.message);
  const add = host.api.HcnModifyNamespace(ns.result.ID as string, {
    ResourceType: 'Endpoint',
    RequestType: 'Add',
    Settings: { EndpointId: ep.result.ID },
  });
  if (!add.ok) throw new Error(add.message);
  return { host, ep: ep.result.ID as string, ns: ns.result.ID as string };
}

describe('a host diagram', () => {
  it('nests the switch, its ports, the compartment and its endpoint, with links', () => {
    const { host, ep } = natHost();
    const d = new Diagram('one "host"');
    const nics = addHost(d, d.root, host, { name: 'node-1', endpointLabels: new Map([[ep, 'default/web']]) });
    expect([...nics.keys()]).toEqual(['Ethernet']);
    const g = d.root.groups[0]!;
    expect(g.label).toBe('node-1');
    expect(g.groups.map((x) => [x.kind, x.label])).toEqual([
      ['vswitch', 'vSwitch nat (Internal)'],
      ['compartment', 'compartment 1 (host)'],
      ['compartment', expect.stringMatching(/^compartment 2 \(namespace [0-9A-F]{8}\)$/)],
    ]);
    const comp = g.groups[2]!;
    expect(comp.boxes.map((b) => b.lines[0])).toEqual(['endpoint default/web']);
    const dot = toDot(d);
    expect(dot).toContain('label="one \\"host\\"";');
    expect(dot).toMatch(/subgraph cluster_g\d+ \{\n\s+label="vSwitch nat \(Internal\)";/);
    expect(dot).toMatch(/n\d+ -- n\d+;/);
    const mermaid = toMermaid(d);
    expect(mermaid).toContain('title: one #quot;host#quot;');
    expect(mermaid).toMatch(/subgraph g\d+\["compartment 1 \(host\)"\]/);
    // the same state gives the same text
    const again = new Diagram('one "host"');
    addHost(again, again.root, natHost().host, {
      name: 'node-1',
      endpointLabels: new Map([[ep, 'default/web']]),
    });
    expect(toDot(again)).toBe(dot);
  });

  it('shortens container and GUID IDs', () => {
    expect(shortId('a'.repeat(64))).toBe('aaaaaaaaaaaa');
    expect(shortId(`${'b'.repeat(64)}@vm`)).toBe('bbbbbbbbbbbb@vm');
    expect(shortId('1AF36190-0000-4000-8000-000000000001')).toBe('1AF36190');
  });

  it('SVG comes from Graphviz (WebAssembly, no binary, no network)', async () => {
    const { host } = natHost();
    const d = new Diagram('svg');
    addHost(d, d.root, host, { name: 'node-1' });
    const svg = await dotToSvg(toDot(d));
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('<title>hnsim</title>');
    expect(svg.replace(/&#45;/g, '-')).toContain('vSwitch nat (Internal)');
    await expect(dotToSvg('graph { a -- }')).rejects.toThrow(/Graphviz could not lay out the diagram/);
  });
});
