/**
 * Diagrams of simulated nodes (DESIGN: render/ — "diagrams (Graphviz DOT / Mermaid, SVG)"): a
 * neutral graph of boxes in nested groups, built from the state of each host — its physical
 * adapters, the vSwitches HNS built on them with their ports (and each port's VFP layers), host
 * vNICs, the compartments (one per HNS namespace, the host's is 1) with their endpoints and
 * compute systems, utility VMs holding a guest compartment — plus the underlay the caller adds
 * (segment, router, outside hosts, Linux nodes). `toDot` and `toMermaid` print it; SVG is the DOT
 * laid out by Graphviz (src/render/svg.ts). Pure and deterministic: IDs are numbered in order.
 *
 *   const g = new Diagram('quick-start');
 *   const nic = addHost(g, g.root, host, { name: 'win-1' });
 *   process.stdout.write(toDot(g));
 */
import type { Host } from '../host/host.js';
import { listPortRules } from '../vswitch/rules.js';
import { endpointAddresses } from './listing.js';
import { collectObjects, upper } from './objects.js';

export type BoxKind =
  | 'nic'
  | 'vnic'
  | 'switch'
  | 'port'
  | 'endpoint'
  | 'container'
  | 'segment'
  | 'router'
  | 'external'
  | 'linux'
  | 'loadbalancer';

const PROTOCOL_NAMES: Readonly<Record<number, string>> = { 6: 'TCP', 17: 'UDP', 1: 'ICMP' };

export type GroupKind = 'host' | 'vswitch' | 'compartment' | 'uvm' | 'underlay' | 'graph';

/**
 * The simulated object a box or group stands for (the web page points at it): an HNS object by
 * its ID, an adapter by name, a compute system by ID, a compartment by number, an underlay thing
 * by name. DOT and Mermaid do not print it.
 */
export interface DiagramRef {
  readonly kind:
    | 'node'
    | 'nic'
    | 'vnic'
    | 'vswitch'
    | 'port'
    | 'endpoint'
    | 'compartment'
    | 'container'
    | 'loadbalancer'
    | 'segment'
    | 'router'
    | 'external'
    | 'linux';
  readonly id: string;
}

export interface Box {
  readonly id: string;
  readonly kind: BoxKind;
  readonly lines: readonly string[];
  readonly ref?: DiagramRef;
  /** A port's VFP layers in evaluation order with their rule counts (also those without rules). */
  readonly layers?: readonly { readonly name: string; readonly rules: number }[];
}

export interface Group {
  readonly id: string;
  readonly kind: GroupKind;
  readonly label: string;
  readonly boxes: Box[];
  readonly groups: Group[];
  readonly ref?: DiagramRef;
}

export interface Link {
  readonly from: string;
  readonly to: string;
  readonly label?: string;
  readonly dashed?: boolean;
}

/** A graph: nested groups of boxes, and links between boxes. */
export class Diagram {
  readonly root: Group;
  readonly links: Link[] = [];
  private seq = 0;

  constructor(readonly title: string) {
    this.root = { id: 'root', kind: 'graph', label: title, boxes: [], groups: [] };
  }

  group(parent: Group, kind: GroupKind, label: string, ref?: DiagramRef): Group {
    const g: Group = { id: `g${++this.seq}`, kind, label, boxes: [], groups: [], ...(ref ? { ref } : {}) };
    parent.groups.push(g);
    return g;
  }

  box(
    parent: Group,
    kind: BoxKind,
    lines: readonly string[],
    ref?: DiagramRef,
    more: Pick<Box, 'layers'> = {},
  ): string {
    const id = `n${++this.seq}`;
    parent.boxes.push({ id, kind, lines, ...(ref ? { ref } : {}), ...more });
    return id;
  }

  link(from: string, to: string, opts: { label?: string; dashed?: boolean } = {}): void {
    this.links.push({ from, to, ...opts });
  }
}

/** `6ee9038909b1` for a 64-hex container ID (`…@vm` kept), a GUID's first block otherwise. */
export function shortId(id: string): string {
  const m = /^([0-9a-f]{64})(@vm)?$/i.exec(id);
  return m ? `${m[1]!.slice(0, 12)}${m[2] ?? ''}` : (id.split('-')[0] ?? id);
}

export interface HostDiagramOptions {
  /** The node's name (the box title). */
  readonly name: string;
  /** A caption after the name (`Windows, flannel host-gw`). */
  readonly caption?: string;
  /** Names to show for endpoints by ID (a pod's `namespace/name`). */
  readonly endpointLabels?: ReadonlyMap<string, string>;
  /** Names to show for compute systems by ID (a pod's sandbox). */
  readonly systemLabels?: ReadonlyMap<string, string>;
  /** Also a box per load balancer (the web page; default false). */
  readonly loadBalancers?: boolean;
}

/**
 * One Windows host as a group of `parent`: adapters, vSwitches and ports, compartments with their
 * endpoints and compute systems. Returns the box IDs of its physical adapters (to link to an
 * underlay), by adapter name.
 */
export function addHost(d: Diagram, parent: Group, host: Host, o: HostDiagramOptions): Map<string, string> {
  const g = d.group(parent, 'host', o.caption ? `${o.name} (${o.caption})` : o.name, {
    kind: 'node',
    id: o.name,
  });
  const objects = collectObjects(host);
  const { listing } = objects;
  const view = host.dataplane.view();
  const epLabel = (id: string, fallback: string): string =>
    o.endpointLabels?.get(upper(id)) ?? (fallback || shortId(id));

  // physical adapters
  const nics = new Map<string, string>();
  for (const a of host.adapters()) {
    if (a['Kind'] !== 'Physical') continue;
    const ip = typeof a['IPv4Address'] === 'string' ? `${a['IPv4Address']}/${String(a['PrefixLength'])}` : '';
    nics.set(
      String(a['Name']),
      d.box(g, 'nic', [`NIC ${String(a['Name'])}`, String(a['MacAddress']), ...(ip ? [ip] : [])], {
        kind: 'nic',
        id: String(a['Name']),
      }),
    );
  }

  // vSwitches: a core box, its host vNIC, and a port per local endpoint
  const portBox = new Map<string, string>();
  for (const sw of host.switches()) {
    const swId = String(sw['ID']);
    const netNames = (Array.isArray(sw['Networks']) ? sw['Networks'] : [])
      .map((id) => listing.networks.find((n) => upper(String(n['ID'])) === upper(String(id))))
      .filter((n) => n !== undefined)
      .map((n) => `${String(n['Name'])} (${String(n['Type'] ?? 'NAT')})`);
    const swRef = { kind: 'vswitch', id: upper(swId) } as const;
    const sg = d.group(g, 'vswitch', `vSwitch ${String(sw['Name'])} (${String(sw['SwitchType'])})`, swRef);
    const core = d.box(sg, 'switch', [`vSwitch ${String(sw['Name'])}`, ...netNames], swRef);
    const vnic = host
      .adapters()
      .find((a) => a['Kind'] === 'HostVNic' && upper(String(a['VSwitchId'] ?? '')) === upper(swId));
    if (vnic) {
      const ip =
        typeof vnic['IPv4Address'] === 'string'
          ? `${vnic['IPv4Address']}/${String(vnic['PrefixLength'])}`
          : '';
      const id = d.box(sg, 'vnic', [`host vNIC ${String(vnic['Name'])}`, ...(ip ? [ip] : [])], {
        kind: 'vnic',
        id: String(vnic['Name']),
      });
      d.link(id, core);
    }
    const uplink = typeof sw['NetAdapterName'] === 'string' ? nics.get(sw['NetAdapterName']) : undefined;
    if (uplink) d.link(core, uplink, { label: 'uplink' });
    for (const port of [...view.ports.values()].filter((p) => !p.remote)) {
      if (upper(String(view.networks.get(port.network.rec.ID)?.rec.SwitchGuid ?? '')) !== upper(swId))
        continue;
      const all = listPortRules(view, port.id).layers;
      const layers = all
        .filter((l) => l.groups.some((gr) => gr.rules.length > 0))
        .map((l) => l.name.replace(/_LAYER$/, ''));
      const id = d.box(
        sg,
        'port',
        [`port ${shortId(port.id)}`, layers.length ? `VFP: ${layers.join(', ')}` : 'VFP: no rules'],
        { kind: 'port', id: upper(port.id) },
        {
          layers: all.map((l) => ({
            name: l.name,
            rules: l.groups.reduce((n, gr) => n + gr.rules.length, 0),
          })),
        },
      );
      portBox.set(upper(port.id), id);
      d.link(id, core);
    }
    const remotes = [...view.ports.values()].filter(
      (p) => p.remote && upper(String(p.network.rec.SwitchGuid ?? '')) === upper(swId),
    ).length;
    if (remotes)
      d.box(
        sg,
        'port',
        [`${remotes} remote endpoint${remotes > 1 ? 's' : ''}`, '(no port: encap/route entries)'],
        { kind: 'port', id: `remote:${upper(swId)}` },
      );
  }

  // compartments: the host's first; a utility VM's guest compartment inside the VM
  const placed = new Set<string>();
  const endpointBox = (parentGroup: Group, id: string) => {
    const e = listing.endpoints.find((x) => upper(String(x['ID'])) === upper(id));
    if (!e) return;
    placed.add(upper(id));
    const box = d.box(
      parentGroup,
      'endpoint',
      [
        `endpoint ${epLabel(id, String(e['Name'] ?? ''))}`,
        endpointAddresses(e) || 'no address',
        String(e['MacAddress'] ?? ''),
      ],
      { kind: 'endpoint', id: upper(id) },
    );
    const port = portBox.get(upper(id));
    if (port) d.link(box, port);
  };
  const uvmGroups = new Map<string, Group>();
  for (const c of objects.containers)
    if (c.SystemType === 'VirtualMachine')
      uvmGroups.set(
        upper(c.Id),
        d.group(g, 'uvm', `utility VM ${o.systemLabels?.get(upper(c.Id)) ?? shortId(c.Id)} (${c.State})`, {
          kind: 'container',
          id: upper(c.Id),
        }),
      );
  for (const comp of objects.compartments) {
    const holder = comp.Containers.map((id) => uvmGroups.get(upper(id))).find((x) => x !== undefined);
    const cg = d.group(
      holder ?? g,
      'compartment',
      comp.CompartmentId === 1
        ? 'compartment 1 (host)'
        : `compartment ${comp.CompartmentId} (namespace ${shortId(comp.Namespace)})`,
      { kind: 'compartment', id: String(comp.CompartmentId) },
    );
    for (const e of comp.Endpoints) endpointBox(cg, e.ID);
    for (const cid of comp.Containers) {
      if (uvmGroups.has(upper(cid))) continue;
      const c = objects.containers.find((x) => upper(x.Id) === upper(cid));
      d.box(
        cg,
        'container',
        [
          `container ${o.systemLabels?.get(upper(cid)) ?? shortId(cid)}`,
          `${c?.Isolation ?? '?'}, ${c?.State ?? '?'}`,
        ],
        { kind: 'container', id: upper(cid) },
      );
    }
  }
  // hosted containers inside their utility VM; endpoints in no compartment (a VM NIC, sourcevip)
  for (const c of objects.containers) {
    if (c.HostingSystem) {
      const vg = uvmGroups.get(upper(c.HostingSystem));
      if (vg)
        d.box(
          vg,
          'container',
          [`container ${o.systemLabels?.get(upper(c.Id)) ?? shortId(c.Id)}`, `Hosted, ${c.State}`],
          { kind: 'container', id: upper(c.Id) },
        );
    }
  }
  const loose = listing.endpoints.filter(
    (e) => !placed.has(upper(String(e['ID']))) && portBox.has(upper(String(e['ID']))),
  );
  if (loose.length) {
    const lg = d.group(g, 'compartment', 'no compartment');
    for (const e of loose) {
      const vm = objects.containers.find(
        (c) =>
          c.SystemType === 'VirtualMachine' && c.Endpoints.some((x) => upper(x) === upper(String(e['ID']))),
      );
      endpointBox(vm ? (uvmGroups.get(upper(vm.Id)) ?? lg) : lg, String(e['ID']));
    }
    if (lg.boxes.length === 0) g.groups.splice(g.groups.indexOf(lg), 1);
  }
  if (o.loadBalancers)
    for (const lb of host.hns.store.loadBalancers.values()) {
      const pm = lb.PortMappings[0];
      const front = lb.FrontendVIPs.length ? lb.FrontendVIPs.join(', ') : 'node ports';
      const port = pm ? ` ${PROTOCOL_NAMES[pm.Protocol] ?? pm.Protocol} ${pm.ExternalPort}` : '';
      const n = lb.HostComputeEndpoints.length;
      d.box(
        g,
        'loadbalancer',
        [`load balancer ${front}${port}`, `${n} backend${n === 1 ? '' : 's'}${lb.Flags & 1 ? ', DSR' : ''}`],
        { kind: 'loadbalancer', id: upper(lb.ID) },
      );
    }
  return nics;
}

// ───────────────────────────── output ─────────────────────────────

function dotText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

const DOT_STYLE: Readonly<Record<BoxKind, string>> = {
  nic: 'shape=box, style="rounded,filled", fillcolor="#e8e8e8"',
  vnic: 'shape=box, style="rounded,filled", fillcolor="#f3f3f3"',
  switch: 'shape=box, style="filled", fillcolor="#cfe2f3"',
  port: 'shape=box, style="filled", fillcolor="#eaf2fa"',
  endpoint: 'shape=box, style="rounded,filled", fillcolor="#d9ead3"',
  container: 'shape=box3d, style="filled", fillcolor="#fff2cc"',
  segment: 'shape=box, style="filled", fillcolor="#ead1dc"',
  router: 'shape=ellipse, style="filled", fillcolor="#ead1dc"',
  external: 'shape=ellipse',
  linux: 'shape=box, style="rounded,filled", fillcolor="#f4cccc"',
  loadbalancer: 'shape=box, style="filled", fillcolor="#fce5cd"',
};

const GROUP_STYLE: Readonly<Record<GroupKind, string>> = {
  graph: '',
  host: 'style="rounded"; color="#444444"',
  vswitch: 'style="filled"; fillcolor="#f7fbff"; color="#6fa8dc"',
  compartment: 'style="dashed"; color="#6aa84f"',
  uvm: 'style="rounded,filled"; fillcolor="#fdf6e3"; color="#b45f06"',
  underlay: 'style="dotted"; color="#a64d79"',
};

/** Graphviz DOT (`dot -Tsvg`), boxes in clusters, links undirected. */
export function toDot(d: Diagram): string {
  const out = [
    'graph hnsim {',
    `  label="${dotText(d.title)}";`,
    '  labelloc=t;',
    '  rankdir=LR;',
    '  compound=true;',
    '  fontname="Helvetica";',
    '  node [fontname="Helvetica", fontsize=10];',
    '  edge [fontname="Helvetica", fontsize=9];',
  ];
  const walk = (g: Group, indent: string) => {
    for (const b of g.boxes)
      out.push(`${indent}${b.id} [label="${b.lines.map(dotText).join('\\n')}", ${DOT_STYLE[b.kind]}];`);
    for (const c of g.groups) {
      out.push(`${indent}subgraph cluster_${c.id} {`);
      out.push(`${indent}  label="${dotText(c.label)}";`);
      if (GROUP_STYLE[c.kind]) out.push(`${indent}  ${GROUP_STYLE[c.kind]};`);
      walk(c, indent + '  ');
      out.push(`${indent}}`);
    }
  };
  walk(d.root, '  ');
  for (const l of d.links) {
    const attrs = [l.label ? `label="${dotText(l.label)}"` : '', l.dashed ? 'style=dashed' : ''].filter(
      Boolean,
    );
    out.push(`  ${l.from} -- ${l.to}${attrs.length ? ` [${attrs.join(', ')}]` : ''};`);
  }
  out.push('}');
  return out.join('\n') + '\n';
}

function mermaidText(s: string): string {
  return s.replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;');
}

const MERMAID_SHAPE: Readonly<Record<BoxKind, [string, string]>> = {
  nic: ['(', ')'],
  vnic: ['(', ')'],
  switch: ['[', ']'],
  port: ['[', ']'],
  endpoint: ['(', ')'],
  container: ['[[', ']]'],
  segment: ['[', ']'],
  router: ['((', '))'],
  external: ['((', '))'],
  linux: ['(', ')'],
  loadbalancer: ['[', ']'],
};

/** A Mermaid flowchart (GitHub and most Markdown viewers draw it). */
export function toMermaid(d: Diagram): string {
  const out = ['---', `title: ${mermaidText(d.title)}`, '---', 'flowchart LR'];
  const walk = (g: Group, indent: string) => {
    for (const b of g.boxes) {
      const [open, close] = MERMAID_SHAPE[b.kind];
      out.push(`${indent}${b.id}${open}"${b.lines.map(mermaidText).join('<br/>')}"${close}`);
    }
    for (const c of g.groups) {
      out.push(`${indent}subgraph ${c.id}["${mermaidText(c.label)}"]`);
      walk(c, indent + '  ');
      out.push(`${indent}end`);
    }
  };
  walk(d.root, '  ');
  for (const l of d.links)
    out.push(`  ${l.from} ${l.dashed ? '-.-' : '---'}${l.label ? `|${mermaidText(l.label)}|` : ''} ${l.to}`);
  return out.join('\n') + '\n';
}
