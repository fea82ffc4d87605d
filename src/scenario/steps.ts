/**
 * A scenario's `steps`, in order: each is dispatched to what it does (pods and services, the
 * flat-API steps, an `expect` checkpoint), and the host's faults are applied here — an HNS
 * restart or a reboot (with what survives), HCS stopping, failing calls through the fault layer,
 * simulated time passing. Nobody is told about a fault: kubelet, containerd, kube-proxy and
 * flanneld do not react, so a scenario shows what the fault alone leaves.
 */
import { formatHResult, type HResultName } from '../core/errors.js';
import { call, deleteObject, ovsStep, renameAdapter } from './calls.js';
import { checkpoint } from './expect.js';
import { addPod, deletePod } from './pods.js';
import { STEP_KINDS } from './schema.js';
import { addService } from './services.js';
import type { Expectations, PodSpec, ServiceSpec, Step } from './types.js';
import { parseHResult, type JsonPath } from './validate.js';
import { indentLines, type RunWorld } from './world.js';

/** Run the steps, stopping before step `until` when given. */
export async function runSteps(w: RunWorld, until?: number): Promise<void> {
  for (const [i, st] of (w.doc.steps ?? []).entries()) {
    if (until !== undefined && i >= until) break;
    w.scenarioStep = i + 1;
    await runStep(w, st, ['steps', i]);
  }
}

async function runStep(w: RunWorld, st: Step, path: JsonPath): Promise<void> {
  const kind = STEP_KINDS.find((k) => Object.hasOwn(st, k))!;
  const at = [...path, kind];
  const titled = (t: string) => st.title ?? t;
  switch (kind) {
    case 'note':
      w.step(titled('Note'), [(st as { note: string }).note]);
      return;
    case 'addPod':
      await addPod(w, (st as { addPod: PodSpec }).addPod, at, st.title);
      return;
    case 'deletePod':
      await deletePod(w, (st as { deletePod: string }).deletePod, at, st.title);
      return;
    case 'addService':
      addService(w, (st as { addService: ServiceSpec }).addService, at);
      return;
    case 'deleteService': {
      const ref = (st as { deleteService: string }).deleteService;
      const [ns, name] = ref.split('/') as [string, string];
      const { lines } = w.clusterOp(at, () => w.cluster!.removeService(ns, name));
      w.step(titled(`Delete service ${ref}`), lines.length ? lines : ['(nothing to change)']);
      return;
    }
    case 'restartHns': {
      const r = (st as Extract<Step, { restartHns: unknown }>).restartHns;
      const n = w.winNode(r.node);
      const cap = n.events.captureSync(() =>
        n.host.restartHns({
          ...(r.keep ?? {}),
          ...(r.downtimeMs !== undefined ? { downtimeMs: r.downtimeMs } : {}),
        }),
      );
      if (cap.error) throw w.setupError(at, cap.error);
      w.step(titled(`Restart the HNS service on ${r.node}`), [
        ...indentLines(cap.lines),
        ...(r.downtimeMs
          ? [`HNS answers RPC_S_SERVER_UNAVAILABLE for ${r.downtimeMs} ms of simulated time.`]
          : []),
        'kubelet, containerd, kube-proxy and flanneld are not told: what HNS dropped stays dropped.',
      ]);
      return;
    }
    case 'reboot': {
      const r = (st as Extract<Step, { reboot: unknown }>).reboot;
      const n = w.winNode(r.node);
      const cap = n.events.captureSync(() => n.host.reboot(r.keep ?? {}));
      if (cap.error) throw w.setupError(at, cap.error);
      w.step(titled(`Reboot ${r.node}`), [
        ...indentLines(cap.lines),
        'Every compute system is gone; kubelet, containerd, kube-proxy and flanneld do not run again here: the node is left as the reboot left it.',
      ]);
      return;
    }
    case 'restartHcs': {
      const r = (st as Extract<Step, { restartHcs: unknown }>).restartHcs;
      const n = w.winNode(r.node);
      const cap = n.events.captureSync(() => n.host.restartHcs());
      if (cap.error) throw w.setupError(at, cap.error);
      w.step(titled(`Stop the Host Compute Service on ${r.node}`), indentLines(cap.lines));
      return;
    }
    case 'deleteObject':
      deleteObject(w, (st as Extract<Step, { deleteObject: unknown }>).deleteObject, at, st.title);
      return;
    case 'fail': {
      const f = (st as Extract<Step, { fail: unknown }>).fail;
      const n = w.winNode(f.node);
      const code = /^0x/i.test(f.hresult) ? parseHResult(f.hresult)! : (f.hresult as HResultName);
      try {
        n.host.faults.fail(
          { method: f.method, ...(f.name ? { name: f.name } : {}) },
          code,
          f.times !== undefined ? { times: f.times } : {},
        );
      } catch (e) {
        throw w.setupError(at, e);
      }
      const times = f.times === undefined ? 'every' : f.times === 1 ? 'the next' : `the next ${f.times}`;
      w.step(titled(`Fault on ${f.node}`), [
        `${times} ${f.method} call${f.times === 1 ? '' : 's'}${f.name ? ` on ${f.name}` : ''} will fail with ${f.hresult}${typeof code === 'number' ? '' : ` (${formatHResult(parseHResult(f.hresult)!)})`}.`,
      ]);
      return;
    }
    case 'clearFaults': {
      const r = (st as Extract<Step, { clearFaults: unknown }>).clearFaults;
      w.winNode(r.node).host.faults.clear();
      w.step(titled(`Clear the faults of ${r.node}`), ['Calls go through again.']);
      return;
    }
    case 'advance': {
      const { ms } = (st as Extract<Step, { advance: unknown }>).advance;
      for (const n of w.windowsNodes()) n.host!.clock.advance(ms);
      w.step(titled(`${ms} ms pass`), ['Simulated time moves on every node.']);
      return;
    }
    case 'call':
      call(w, (st as Extract<Step, { call: unknown }>).call, at, st.title);
      return;
    case 'ovs':
      ovsStep(w, (st as Extract<Step, { ovs: unknown }>).ovs, at, st.title);
      return;
    case 'renameAdapter':
      renameAdapter(w, (st as Extract<Step, { renameAdapter: unknown }>).renameAdapter, at, st.title);
      return;
    case 'expect':
      await checkpoint(
        w,
        st.title ?? `Expectations (step ${Number(path[1]) + 1})`,
        (st as { expect: Expectations }).expect,
        at,
      );
      return;
  }
}
