// The page's layout (src/ui/page/layout.ts) with the real ELK: every box inside its group's frame,
// a layout reused while the shape is the same and made again when a box comes, a collapsed node
// one box that its links attach to, and many nodes packed in rows with the links between them left
// out. The graphs are written here, as the model would give them.
import { describe, expect, it } from 'vitest';
import type { UiBox, UiGraph, UiGroup } from '../../src/ui/model/contract.js';
import ElkBundled from 'elkjs/lib/elk.bundled.js';
import { collapsedAliases, elkGraph, layout, sizeOf, useElk, type Rect } from '../../src/ui/page/layout.js';

// the page runs ELK in a worker (src/ui/page/elk.ts); here elkjs's bundled build, in this thread
useElk(new (ElkBundled as unknown as new () => Parameters<typeof useElk>[0])());

const box = (node: string, kind: UiBox['ref']['kind'], id: string, lines: string[]): UiBox => ({
  key: `${node}|${kind}|${id}`,
  ref: { node, kind, id },
  lines,
});

function nodeGroup(node: string, withPod: boolean, podIp = '10.244.1.2'): UiGroup {
  return {
    key: `group:${node}`,
    kind: 'node',
    label: node,
    ref: { node, kind: 'node', id: node },
    boxes: [box(node, 'nic', 'Ethernet', ['Ethernet', '10.0.0.4'])],
    groups: [
      {
        key: `vswitch:${node}`,
        kind: 'vswitch',
        label: 'vSwitch cbr0',
        boxes: withPod
          ? [{ ...box(node, 'port', 'P1', ['port P1']), layers: [{ name: 'ACL_ENDPOINT_LAYER', rules: 4 }] }]
          : [],
        groups: [],
      },
      ...(withPod
        ? [
            {
              key: `compartment:${node}`,
              kind: 'compartment' as const,
              label: 'compartment 2',
              boxes: [box(node, 'endpoint', 'E1', ['web-0', podIp])],
              groups: [],
            },
          ]
        : []),
    ],
  };
}

function cluster(nodes: number, withPod: boolean, podIp?: string): UiGraph {
  const names = Array.from({ length: nodes }, (_, i) => `node-${i + 1}`);
  return {
    title: 'test',
    groups: [
      ...names.map((n) => nodeGroup(n, withPod, podIp)),
      {
        key: 'underlay',
        kind: 'underlay',
        label: 'underlay',
        boxes: [box('', 'segment', 'nodes', ['segment nodes'])],
        groups: [],
      },
    ],
    links: [
      ...names.map((n) => ({ from: `${n}|nic|Ethernet`, to: '|segment|nodes', label: '10.0.0.4' })),
      ...(withPod ? names.map((n) => ({ from: `${n}|endpoint|E1`, to: `${n}|port|P1` })) : []),
    ],
  };
}

const inside = (a: Rect, b: Rect): boolean =>
  a.x >= b.x && a.y >= b.y && a.x + a.w <= b.x + b.w + 0.01 && a.y + a.h <= b.y + b.h + 0.01;

describe('the page layout (ELK layered, INCLUDE_CHILDREN)', () => {
  it('places every box inside its groups, sized for its lines', async () => {
    const g = cluster(2, true);
    const l = await layout(g, new Set());
    for (const n of ['node-1', 'node-2']) {
      const frame = l.rects.get(`group:${n}`)!;
      expect(inside(l.rects.get(`vswitch:${n}`)!, frame)).toBe(true);
      expect(inside(l.rects.get(`${n}|port|P1`)!, l.rects.get(`vswitch:${n}`)!)).toBe(true);
      expect(inside(l.rects.get(`${n}|endpoint|E1`)!, l.rects.get(`compartment:${n}`)!)).toBe(true);
      // the port's box holds its line and its layer's line
      expect(l.rects.get(`${n}|port|P1`)!.h).toBe(sizeOf(['port P1', '  ACL_ENDPOINT_LAYER (4)']).h);
    }
    // four links: two NICs to the segment, two endpoints to their ports, each with a path
    expect(l.edges).toHaveLength(4);
    for (const e of l.edges) expect(e.d).toMatch(/^M[\d.]+ [\d.]+(L[\d.]+ [\d.]+)+/);
  });

  it('reuses the layout while the shape is the same, and lays out again when a box comes', async () => {
    const first = await layout(cluster(2, false), new Set());
    // another label of the same width: the same layout object
    const relabelled = cluster(2, false);
    expect(await layout(relabelled, new Set(), first)).toBe(first);
    const withPods = await layout(cluster(2, true), new Set(), first);
    expect(withPods).not.toBe(first);
    expect(withPods.rects.has('node-1|endpoint|E1')).toBe(true);
    // a longer line makes a wider box: another shape
    expect(elkGraph(cluster(2, true, '10.244.100.200'), new Set()).signature).not.toBe(
      elkGraph(cluster(2, true), new Set()).signature,
    );
  });

  it('a collapsed node is one box; its links attach to it', async () => {
    const g = cluster(2, true);
    const collapsed = new Set(['group:node-1']);
    const alias = collapsedAliases(g, collapsed);
    expect(alias.get('node-1|endpoint|E1')).toBe('group:node-1');
    expect(alias.get('vswitch:node-1')).toBe('group:node-1');
    expect(alias.has('node-2|endpoint|E1')).toBe(false);
    const l = await layout(g, collapsed);
    expect(l.rects.has('node-1|port|P1')).toBe(false);
    expect(l.rects.get('group:node-1')!.h).toBe(sizeOf(['node-1', '5 objects (collapsed)']).h);
    // node-1's endpoint-to-port link is inside the box now; its NIC's link starts at the box
    expect(l.edges.map((e) => `${e.from} > ${e.to}`).sort()).toEqual([
      'group:node-1 > |segment|nodes',
      'node-2|endpoint|E1 > node-2|port|P1',
      'node-2|nic|Ethernet > |segment|nodes',
    ]);
  });

  it('many nodes are packed in rows, the links between top-level groups left out', async () => {
    const g = cluster(20, false);
    const collapsed = new Set(g.groups.filter((x) => x.kind === 'node').map((x) => x.key));
    const l = await layout(g, collapsed, undefined, true);
    expect(l.edges).toHaveLength(0);
    const ys = new Set([...l.rects.entries()].filter(([k]) => k.startsWith('group:')).map(([, r]) => r.y));
    expect(ys.size).toBeGreaterThan(2);
    expect(l.width / l.height).toBeLessThan(4);
  });
});
