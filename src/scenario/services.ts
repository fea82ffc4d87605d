/**
 * A scenario's services: the cluster creates each one and its kube-proxy programs every Windows
 * node (a load balancer per service port, remote endpoints for backends elsewhere), told as what
 * changed on each node. CoreDNS, when the cluster asks for it, is pods plus the kube-dns service.
 */
import { addPod } from './pods.js';
import type { ServiceSpec } from './types.js';
import type { JsonObject } from '../core/json.js';
import { policyTypesOf, type NetworkPolicySpec } from '../cluster/netpol.js';
import type { JsonPath } from './validate.js';
import type { RunWorld } from './world.js';

/** Create a service (set-up's `services`, the `addService` step). */
export function addService(w: RunWorld, svc: ServiceSpec, path: JsonPath): void {
  const cl = w.cluster!;
  const { value, lines } = w.clusterOp(path, () =>
    cl.addService({
      namespace: svc.namespace ?? 'default',
      name: svc.name,
      ports: svc.ports,
      selector: svc.selector,
      ...(svc.type ? { type: svc.type } : {}),
      ...(svc.clusterIP ? { clusterIP: svc.clusterIP } : {}),
      ...(svc.externalIPs ? { externalIPs: svc.externalIPs } : {}),
      ...(svc.loadBalancerIP ? { loadBalancerIP: svc.loadBalancerIP } : {}),
      ...(svc.sessionAffinity ? { sessionAffinity: svc.sessionAffinity } : {}),
      ...(svc.externalTrafficPolicy ? { externalTrafficPolicy: svc.externalTrafficPolicy } : {}),
    }),
  );
  const ports = svc.ports.map(
    (pt) =>
      `${pt.protocol ?? 'TCP'} ${pt.port}→${pt.targetPort ?? pt.port}${pt.nodePort ? ` (NodePort ${pt.nodePort})` : ''}`,
  );
  w.step(`Service ${svc.namespace ?? 'default'}/${svc.name}`, [
    `${svc.type ?? 'ClusterIP'} ${value.clusterIP}, ${ports.join(', ')}; kube-proxy programs every Windows node:`,
    ...(lines.length ? lines : ['(no backends yet: no load balancer)']),
  ]);
}

/** A NetworkPolicy (set-up's `networkPolicies`): the Antrea agents compile it into their policy tables. */
export function addNetworkPolicy(w: RunWorld, np: JsonObject, path: JsonPath): void {
  const spec = { namespace: 'default', ...np } as unknown as NetworkPolicySpec;
  const { lines } = w.clusterOp(path, () => w.cluster!.addNetworkPolicy(spec));
  const types = policyTypesOf(spec);
  w.step(`NetworkPolicy ${spec.namespace}/${spec.name}`, [
    `Selects ${Object.keys(spec.podSelector ?? {}).length ? JSON.stringify(spec.podSelector) : 'every pod'} in ${spec.namespace} for ${types.join(' and ')}: Antrea's agents program their policy tables:`,
    ...(lines.length ? lines : ['(no Antrea node: nothing enforces it)']),
  ]);
}

/** `cluster.coreDns`: its pods (`kube-system/coredns-N`) and the `kube-system/kube-dns` service. */
export async function addCoreDns(w: RunWorld): Promise<void> {
  const dns = w.doc.cluster?.coreDns;
  if (!dns) return;
  for (let i = 0; i < (dns.replicas ?? 1); i++) {
    await addPod(
      w,
      {
        name: `coredns-${i}`,
        namespace: 'kube-system',
        node: dns.node,
        labels: { 'k8s-app': 'kube-dns' },
      },
      ['cluster', 'coreDns'],
      'CoreDNS',
    );
  }
  addService(
    w,
    {
      namespace: 'kube-system',
      name: 'kube-dns',
      clusterIP: w.cluster!.options.dnsServiceIp ?? w.dnsIp(),
      ports: [
        { port: 53, protocol: 'UDP', name: 'dns' },
        { port: 53, protocol: 'TCP', name: 'dns-tcp' },
      ],
      selector: { 'k8s-app': 'kube-dns' },
    },
    ['cluster', 'coreDns'],
  );
}
