/**
 * The steps that reach a node behind everyone's back: `deleteObject` (what `hnsdiag delete` does;
 * nobody is told), `call` (any flat API method, with the outcome it must have), `ovs` (Open
 * vSwitch's own commands, with the exit status and output they must have) and `renameAdapter`.
 * Each is a step with its own expectation: a refused delete, a call or command with another
 * outcome than expected, fails the run.
 */
import { formatHResult } from '../core/errors.js';
import type { Json } from '../core/json.js';
import { isJsonObject } from '../core/json.js';
import type { Host } from '../host/host.js';
import type { Step } from './types.js';
import { parseHResult, type JsonPath } from './validate.js';
import { errorText, indentLines, type RunWorld } from './world.js';

/** The `deleteObject` step. */
export function deleteObject(
  w: RunWorld,
  d: Extract<Step, { deleteObject: unknown }>['deleteObject'],
  path: JsonPath,
  title?: string,
): void {
  const n = w.winNode(d.node);
  const s = n.host.hns.store;
  const pod = d.pod ? w.pods.get(d.pod) : undefined;
  let ids: string[] = [];
  if (d.kind === 'endpoint') {
    ids =
      d.name !== undefined
        ? [...s.endpoints.values()].filter((e) => e.Name === d.name).map((e) => e.ID)
        : pod?.endpointId
          ? [pod.endpointId]
          : [];
  } else if (d.kind === 'network') {
    ids = [...s.networks.values()].filter((x) => x.Name === d.name).map((x) => x.ID);
  } else if (d.kind === 'namespace') {
    ids = pod?.netns ? [pod.netns] : [];
  } else {
    ids = [...s.loadBalancers.values()].filter((lb) => lb.FrontendVIPs.includes(d.vip!)).map((lb) => lb.ID);
  }
  const what = d.name ?? d.pod ?? d.vip ?? '';
  const label = `hnsdiag delete ${d.kind}s ${what}`;
  if (!ids.length) {
    const msg = `no ${d.kind} ${what} on ${d.node}`;
    w.actions.push({ kind: 'step', label, ok: false, at: w.where(path), problems: [msg] });
    w.step(title ?? `Out of band on ${d.node}: ${label}`, [`✗ ${msg}`]);
    return;
  }
  const notes: string[] = [];
  const method = {
    endpoint: 'HcnDeleteEndpoint',
    network: 'HcnDeleteNetwork',
    namespace: 'HcnDeleteNamespace',
    loadbalancer: 'HcnDeleteLoadBalancer',
  }[d.kind];
  for (const id of ids) {
    const cap = n.events.captureSync(() => n.host.api.call(method, [id]));
    notes.push(...indentLines(cap.lines));
    const r = cap.value;
    if (r && !r.ok) {
      const msg = `${method} refused: ${r.name} (${formatHResult(r.hr >>> 0)}): ${r.message}`;
      notes.push(`✗ ${msg}`);
      w.actions.push({ kind: 'step', label, ok: false, at: w.where(path), problems: [msg] });
    }
  }
  notes.push('Nobody is told: kubelet, the runtime and kube-proxy still believe it exists.');
  w.step(title ?? `Out of band on ${d.node}: ${label}`, notes);
}

/**
 * A call's parameters with each string `$(network NAME)`, `$(endpoint NAME)`, `$(namespace POD)`
 * or `$(loadbalancer VIP)` replaced by that object's ID on the node (a file cannot know the
 * GUIDs HNS will give); an unknown name is left as written, so HNS says what it thinks of it.
 */
function withIds(w: RunWorld, v: Json, host: Host): Json {
  if (typeof v === 'string') {
    const m = /^\$\((network|endpoint|namespace|loadbalancer) ([^)]+)\)$/.exec(v);
    if (!m) return v;
    const s = host.hns.store;
    const name = m[2]!;
    const id =
      m[1] === 'network'
        ? [...s.networks.values()].find((x) => x.Name === name)?.ID
        : m[1] === 'endpoint'
          ? [...s.endpoints.values()].find((x) => x.Name === name)?.ID
          : m[1] === 'namespace'
            ? w.pods.get(name)?.netns
            : [...s.loadBalancers.values()].find((x) => x.FrontendVIPs.includes(name))?.ID;
    return id ?? v;
  }
  if (Array.isArray(v)) return v.map((x) => withIds(w, x, host));
  if (isJsonObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withIds(w, x, host)]));
  return v;
}

/** The `call` step. */
export function call(
  w: RunWorld,
  c: Extract<Step, { call: unknown }>['call'],
  path: JsonPath,
  title?: string,
): void {
  const n = w.winNode(c.node);
  const params = (c.params ?? []).map((p) => withIds(w, p as Json, n.host));
  const cap = n.events.captureSync(() => n.host.api.call(c.method, params));
  const r = cap.value;
  const want = c.expect ?? 'S_OK';
  const wantCode = parseHResult(want)!;
  const notes = [
    `${c.method}(${params.map((p) => JSON.stringify(p)).join(', ')})`,
    ...indentLines(cap.lines, 1),
  ];
  let observed: string;
  let code: number | undefined;
  if (!r)
    observed = cap.error !== undefined ? `threw: ${errorText(cap.error)}` : `no flat API method ${c.method}`;
  else if (r.ok) {
    observed = 'S_OK';
    code = 0;
  } else {
    code = r.hr >>> 0;
    observed = `${r.name} (${formatHResult(code)}): ${r.message}`;
  }
  notes.push(`→ ${observed}`);
  const ok = code === wantCode;
  w.actions.push({
    kind: 'call',
    label: `${c.method} on ${c.node} → ${want}`,
    ok,
    at: w.where(path),
    problems: ok
      ? []
      : [`expected ${want}${wantCode ? ` (${formatHResult(wantCode)})` : ''}, got ${observed}`],
  });
  w.step(title ?? `Call ${c.method} on ${c.node}`, notes);
}

/** The `ovs` step: one Open vSwitch command on the node (as `hnsim ovs` runs it), checked. */
export function ovsStep(
  w: RunWorld,
  o: Extract<Step, { ovs: unknown }>['ovs'],
  path: JsonPath,
  title?: string,
): void {
  const n = w.winNode(o.node);
  const args = [...(o.args ?? [])];
  const line = `ovs-${o.tool === 'start' || o.tool === 'stop' ? `vswitchd ${o.tool}` : o.tool}${args.length ? ` ${args.join(' ')}` : ''}`;
  let status = 0;
  let out = '';
  const cap = n.events.captureSync(() => {
    const r = n.host.ovs.run(o.tool, args);
    status = r.status;
    out = r.stdout + r.stderr;
  });
  if (cap.error !== undefined) {
    status = 1;
    out = errorText(cap.error);
  }
  const problems: string[] = [];
  const want = o.status ?? 0;
  if (status !== want)
    problems.push(`expected exit status ${want}, got ${status}${out ? `: ${out.trim()}` : ''}`);
  for (const piece of o.stdout ?? [])
    if (!out.includes(piece)) problems.push(`its output does not contain "${piece}"`);
  w.actions.push({
    kind: 'step',
    label: `${line} on ${o.node}`,
    ok: !problems.length,
    at: w.where(path),
    problems,
  });
  w.step(title ?? `Open vSwitch on ${o.node}: ${line}`, [
    ...indentLines(cap.lines),
    ...(out.trim()
      ? out
          .trimEnd()
          .split('\n')
          .map((l) => `  ${l}`)
      : []),
    `→ exit status ${status}`,
    ...problems.map((p) => `✗ ${p}`),
  ]);
}

/** The `renameAdapter` step (Rename-NetAdapter); a refusal fails the run. */
export function renameAdapter(
  w: RunWorld,
  r: Extract<Step, { renameAdapter: unknown }>['renameAdapter'],
  path: JsonPath,
  title?: string,
): void {
  const n = w.winNode(r.node);
  const cap = n.events.captureSync(() => n.host.renameAdapter(r.name, r.to));
  const label = `Rename-NetAdapter "${r.name}" -NewName "${r.to}"`;
  const problems = cap.error !== undefined ? [errorText(cap.error)] : [];
  w.actions.push({
    kind: 'step',
    label: `${label} on ${r.node}`,
    ok: !problems.length,
    at: w.where(path),
    problems,
  });
  w.step(title ?? `On ${r.node}: ${label}`, [...indentLines(cap.lines), ...problems.map((p) => `✗ ${p}`)]);
}
