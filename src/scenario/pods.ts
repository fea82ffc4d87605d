/**
 * A scenario's pods: started as kubelet starts them on a Windows node with `cni` (RunPodSandbox
 * through the CRI runtime and the conflist's plugins, its containers, retries), then adopted by
 * the cluster with the endpoint the CNI ADD made; or, on a node without a runtime, programmed by
 * the cluster straight into HNS. A pod that does not do what its `expect` says is a failed action.
 * Deleting a pod: the cluster forgets it, then StopPodSandbox and RemovePodSandbox (CNI DEL).
 */
import { sandboxEndpoint } from '../cluster/windows-node.js';
import type { PodSandboxConfig } from '../runtime/contracts.js';
import { expandPod } from './load.js';
import { shorten } from './narrate.js';
import type { PodSpec } from './types.js';
import type { JsonPath } from './validate.js';
import { errorText, indentLines, type NodeState, type PodState, type RunWorld } from './world.js';

/** A deterministic pod UID from its position (kubelet gets one from the API server). */
function podUid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

function podConfig(w: RunWorld, p: PodSpec, name: string, attempt: number): PodSandboxConfig {
  const ns = p.namespace ?? 'default';
  const dns = w.cluster?.podDns(ns);
  return {
    metadata: { name, namespace: ns, uid: podUid(w.podSeq), attempt },
    hostname: p.hostname ?? name,
    ...(p.labels ? { labels: p.labels } : {}),
    ...(dns
      ? { dnsConfig: { servers: [...dns.servers], searches: [...dns.search], options: ['ndots:5'] } }
      : {}),
    ...(p.portMappings
      ? {
          portMappings: p.portMappings.map((m) => ({
            containerPort: m.containerPort,
            ...(m.hostPort !== undefined ? { hostPort: m.hostPort } : {}),
            ...(m.protocol ? { protocol: m.protocol } : {}),
            ...(m.hostIp ? { hostIp: m.hostIp } : {}),
          })),
        }
      : {}),
    ...(p.hostProcess ? { hostProcess: true } : {}),
  };
}

/** Start a pod spec's pods (each replica), narrated; `title` heads the step (CoreDNS). */
export async function addPod(w: RunWorld, p: PodSpec, path: JsonPath, title?: string): Promise<void> {
  for (const { key, name } of expandPod(p)) {
    w.podSeq++;
    const node = w.nodes.get(p.node)!;
    const state: PodState = {
      key,
      node: p.node,
      phase: 'Failed',
      hostProcess: p.hostProcess === true,
      inCluster: false,
    };
    w.pods.set(key, state);
    const notes: string[] = [];
    const ns = p.namespace ?? 'default';
    if (!node.runtime) {
      const { value, lines } = w.clusterOp(path, () =>
        w.cluster!.addPod({
          namespace: ns,
          name,
          node: p.node,
          ...(p.labels ? { labels: p.labels } : {}),
          ...(p.hostname ? { hostname: p.hostname } : {}),
          ...(p.subdomain ? { subdomain: p.subdomain } : {}),
          ...(p.policies ? { policies: p.policies } : {}),
        }),
      );
      Object.assign(state, {
        phase: 'Running',
        ip: value.ip,
        inCluster: true,
        endpointId: value.endpointId,
      });
      notes.push(
        node.os === 'linux'
          ? `kubelet on ${p.node} (Linux) starts it: ${value.ip}.`
          : node.spec.antrea
            ? `Antrea's CNI server on ${p.node} attaches it (endpoint, namespace, OVS port, flows): ${value.ip}.`
            : node.spec.ovnKubernetes?.mode === 'native'
              ? `ovn-k8s-cni-overlay (ovnkube's ConfigureInterface) on ${p.node} attaches it (endpoint <namespace>_<pod>, hot attach, OVS port with iface-id): ${value.ip}.`
              : node.spec.ovnKubernetes
                ? `The cluster programs its endpoint as win-overlay with WMCO's conflist would (no runtime on ${p.node}): ${value.ip}.`
                : `The cluster programs its endpoint straight into HNS (no runtime on ${p.node}): ${value.ip}.`,
        ...lines,
      );
    } else {
      await runtimePod(w, p, node, state, name, notes, path);
    }
    checkPodExpectation(w, p, state, path);
    const isolation = node.runtime
      ? `, ${p.hostProcess ? 'HostProcess' : (p.isolation ?? 'process') === 'hyperv' ? 'Hyper-V isolation' : 'process isolation'}`
      : '';
    w.step(
      `${title ? `${title}: p` : 'P'}od ${key} on ${p.node}${node.runtime ? ` (${node.spec.runtime ?? 'containerd'}${isolation})` : ''}`,
      notes,
    );
  }
}

async function runtimePod(
  w: RunWorld,
  p: PodSpec,
  node: NodeState,
  state: PodState,
  name: string,
  notes: string[],
  path: JsonPath,
): Promise<void> {
  const rt = node.runtime!;
  const host = node.host!;
  const handler = p.isolation === 'hyperv' ? 'runhcs-wcow-hypervisor' : '';
  const attempts = 1 + (p.retries ?? 0);
  let sandboxId: string | undefined;
  for (let a = 0; a < attempts && sandboxId === undefined; a++) {
    const config = podConfig(w, p, name, a);
    if (attempts > 1) notes.push(`kubelet: RunPodSandbox, attempt ${a + 1} of ${attempts}`);
    const cap = await node.events!.capture(async () => {
      const id = await rt.runPodSandbox(config, handler);
      state.sandboxId = id;
      for (const c of p.containers ?? [{ name: 'app' }]) {
        const cid = await rt.createContainer(
          id,
          {
            metadata: { name: c.name },
            ...(c.image ? { image: c.image } : {}),
            ...(p.hostProcess ? { hostProcess: true } : {}),
          },
          config,
        );
        await rt.startContainer(cid);
      }
      return id;
    });
    notes.push(...indentLines(cap.lines, attempts > 1 ? 1 : 0));
    if (cap.error !== undefined) {
      state.error = shorten(errorText(cap.error));
      notes.push(`${attempts > 1 ? '  ' : ''}✗ ${state.error}`);
      if (state.sandboxId) break; // the sandbox runs; a container failed
      continue;
    }
    sandboxId = cap.value;
    state.error = undefined;
  }
  if (sandboxId === undefined) return;
  const status = await rt.podSandboxStatus(sandboxId);
  state.netns = status.netns || undefined;
  state.ip = status.network.ip || undefined;
  if (state.error !== undefined) return;
  state.phase = 'Running';
  if (p.hostProcess) {
    notes.push(`A HostProcess pod: it has the node's network (no CNI call, no namespace).`);
    return;
  }
  state.endpointId = sandboxEndpoint(host, state.netns, sandboxId);
  if (state.endpointId) {
    const layers = node.events!.portLayers(state.endpointId);
    if (layers) notes.push(layers);
  }
  notes.push(`Pod IP ${state.ip ?? '(none)'}.`);
  if (w.cluster && state.endpointId) {
    const ns = p.namespace ?? 'default';
    const { lines } = w.clusterOp(path, () =>
      w.cluster!.addPod({
        namespace: ns,
        name,
        node: p.node,
        endpointId: state.endpointId!,
        ...(p.labels ? { labels: p.labels } : {}),
        ...(p.hostname ? { hostname: p.hostname } : {}),
        ...(p.subdomain ? { subdomain: p.subdomain } : {}),
      }),
    );
    state.inCluster = true;
    if (lines.length) notes.push('The cluster sees the pod (DNS, services):', ...lines);
  }
}

function checkPodExpectation(w: RunWorld, p: PodSpec, state: PodState, path: JsonPath): void {
  const want = p.expect?.phase ?? 'Running';
  const problems: string[] = [];
  if (state.phase !== want)
    problems.push(`expected ${want}, but it is ${state.phase}${state.error ? `: ${state.error}` : ''}`);
  else if (p.expect?.error !== undefined && !(state.error ?? '').includes(p.expect.error))
    problems.push(`the error does not contain "${p.expect.error}": ${state.error ?? '(none)'}`);
  if (want === 'Failed' || problems.length)
    w.actions.push({
      kind: 'pod',
      label: `pod ${state.key} ${want === 'Failed' ? 'fails' : 'runs'}`,
      ok: problems.length === 0,
      at: w.where(path),
      problems,
    });
}

/** The `deletePod` step. */
export async function deletePod(w: RunWorld, ref: string, path: JsonPath, title?: string): Promise<void> {
  const state = w.pods.get(ref);
  const notes: string[] = [];
  if (!state || state.phase === 'Absent') {
    w.step(title ?? `Delete pod ${ref}`, ['(no such pod running)']);
    return;
  }
  const node = w.nodes.get(state.node)!;
  const [ns, name] = ref.split('/') as [string, string];
  if (state.inCluster) {
    const { lines } = w.clusterOp(path, () => w.cluster!.removePod(ns, name));
    if (lines.length) notes.push('The cluster forgets the pod:', ...lines);
  }
  if (node.runtime && state.sandboxId) {
    const rt = node.runtime;
    const id = state.sandboxId;
    const cap = await node.events!.capture(async () => {
      await rt.stopPodSandbox(id);
      await rt.removePodSandbox(id);
    });
    notes.push(...indentLines(cap.lines));
    if (cap.error !== undefined) {
      const msg = shorten(errorText(cap.error));
      notes.push(`✗ ${msg}`);
      w.actions.push({
        kind: 'step',
        label: `delete pod ${ref}`,
        ok: false,
        at: w.where(path),
        problems: [msg],
      });
    }
  }
  state.phase = 'Absent';
  state.inCluster = false;
  w.step(title ?? `Delete pod ${ref}`, notes);
}
