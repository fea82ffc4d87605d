/**
 * Pods on a cluster's Antrea nodes (docs/antrea.md): what containerd and Antrea's CNI do for a
 * pod — its HCN namespace, then the agent's CNI ADD with the pod's DNS — with a sandbox ID derived
 * from the pod's name, so the same cluster gives the same interface names.
 */
import { hnsError } from '../core/errors.js';
import { isJsonObject } from '../core/json.js';
import { sha1Hex } from '../core/sha1.js';
import type { Host } from '../host/host.js';
import type { AntreaAgent } from '../plugins/antrea/agent.js';
import { ip4 } from '../vswitch/v4.js';
import type { Cluster } from './cluster.js';
import type { PodSpec } from './types.js';

/** The pod's infra container ID: 64 hex digits from its namespace and name. */
export function antreaSandbox(namespace: string, name: string): string {
  const key = `${namespace}/${name}`;
  return (sha1Hex(key) + sha1Hex(`${key}/sandbox`)).slice(0, 64);
}

/** Attach a pod through the node's agent: its address, endpoint and namespace. */
export function antreaPod(
  c: Cluster,
  agent: AntreaAgent,
  host: Host,
  spec: PodSpec,
): { ip: number; endpointId: string; namespaceId: string } {
  const ns = host.api.HcnCreateNamespace(null, { SchemaVersion: { Major: 2, Minor: 0 } });
  if (!ns.ok || !isJsonObject(ns.result)) throw hnsError('E_FAIL', `antrea: no namespace for ${spec.name}`);
  const namespaceId = String(ns.result['ID']);
  const containerId = antreaSandbox(spec.namespace, spec.name);
  const dns = c.podDns(spec.namespace);
  try {
    agent.cmdAdd({
      containerId,
      netns: namespaceId,
      podName: spec.name,
      podNamespace: spec.namespace,
      dns: { nameservers: dns.servers, search: dns.search },
    });
  } catch (e) {
    host.api.HcnDeleteNamespace(namespaceId);
    throw e;
  }
  const pod = agent.pods().find((p) => p.containerId === containerId)!;
  return { ip: ip4(pod.ip)!, endpointId: pod.endpointId, namespaceId };
}
