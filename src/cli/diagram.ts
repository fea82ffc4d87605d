/**
 * The diagram of a view target (src/cli/views.ts): each selected Windows node drawn by
 * src/render/diagram.ts, plus what only the scenario knows — pod names on endpoints and sandboxes,
 * Linux nodes, and the underlay (segments, the router, outside hosts).
 */
import { fmt } from '../vswitch/v4.js';
import { addHost, Diagram } from '../render/diagram.js';
import type { Host } from '../host/host.js';
import type { ViewTarget } from './views.js';

export function diagramOf(t: ViewTarget, selected: readonly (readonly [string, Host])[]): Diagram {
  const d = new Diagram(t.title);
  const world = t.scenario?.world;
  const endpointLabels = new Map<string, string>();
  const systemLabels = new Map<string, string>();
  for (const p of world?.pods.values() ?? []) {
    if (p.endpointId) endpointLabels.set(p.endpointId.replace(/[{}]/g, '').toUpperCase(), p.key);
    if (p.sandboxId) {
      systemLabels.set(p.sandboxId.toUpperCase(), `${p.key} (pause)`);
      systemLabels.set(`${p.sandboxId}@vm`.toUpperCase(), `of ${p.key}`);
    }
  }
  const cluster = world?.cluster;
  const underlay = cluster ? d.group(d.root, 'underlay', 'underlay') : undefined;
  const segments = new Map<string, string>();
  const segmentBox = (name: string): string => {
    let id = segments.get(name);
    if (!id) {
      const prefix =
        t.doc?.underlay?.segments?.find((s) => s.name === name)?.prefix ??
        (name === 'nodes' && cluster ? `${fmt(cluster.nodeSubnet.addr)}/${cluster.nodeSubnet.len}` : '');
      id = d.box(underlay!, 'segment', [`segment ${name}`, ...(prefix ? [prefix] : [])]);
      segments.set(name, id);
    }
    return id;
  };
  for (const [name, host] of selected) {
    const n = cluster?.nodeOf(name);
    const spec = t.doc?.hosts.find((h) => h.name === name);
    const caption = [
      'Windows',
      spec?.flannel ? `flannel ${spec.flannel.backend}` : '',
      n ? fmt(n.ip) : '',
      host.profile.name,
    ]
      .filter(Boolean)
      .join(', ');
    const nics = addHost(d, d.root, host, { name, caption, endpointLabels, systemLabels });
    if (n && underlay) {
      const first = [...nics.values()][0];
      if (first) d.link(first, segmentBox(n.segment), { label: fmt(n.ip) });
    }
  }
  if (cluster && underlay) {
    const chosen = new Set(selected.map(([n]) => n));
    for (const n of cluster.allNodes()) {
      if (n.kind !== 'Linux' || (selected.length < t.hosts.size && !chosen.has(n.name))) continue;
      const box = d.box(d.root, 'linux', [
        `${n.name} (Linux, ${n.spec.backend === 'ovn-kubernetes' ? 'ovn-kubernetes hybrid overlay' : `flannel ${n.spec.backend}`})`,
        fmt(n.ip),
        `pods ${fmt(n.podSubnet.addr)}/${n.podSubnet.len}`,
      ]);
      d.link(box, segmentBox(n.segment));
    }
    for (const r of cluster.fabric.routers.values()) {
      const rb = d.box(underlay, 'router', [r.name, ...r.interfaces.map((i) => fmt(i.ip))]);
      for (const i of r.interfaces) d.link(rb, segmentBox(i.segment));
      if (r.internet)
        for (const x of cluster.fabric.externals.values()) {
          const xb = d.box(underlay, 'external', [x.name, fmt(x.ip)]);
          d.link(rb, xb, { dashed: true, label: 'internet' });
        }
    }
  }
  return d;
}
