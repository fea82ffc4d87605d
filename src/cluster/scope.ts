/**
 * Traces over a whole cluster (DESIGN: dataplane/ walks, cluster/ scopes): sources and targets are
 * pods (`namespace/name` or their IP), nodes, a Windows node's endpoints (`node/endpoint`),
 * services (`svc:namespace/name`), modelled outside hosts and any outside address; names resolve
 * through the pod's DNS client — the query itself is traced to the DNS server — and replies go
 * back from whatever a walk ended at. Committed walks count traffic on the endpoints they crossed.
 */
import { hnsError } from '../core/errors.js';
import { findPort, hostSource, portSource } from '../dataplane/host-scope.js';
import {
  runTrace,
  type DnsOutcome,
  type Source,
  type Target,
  type TraceResult,
  type TraceScope,
} from '../dataplane/trace.js';
import type { Walk, WalkEnd, World } from '../dataplane/walk.js';
import { fmt, ip4 } from '../vswitch/v4.js';
import type { Cluster } from './cluster.js';
import { resolve as resolveName, type ResolveResult } from './dns.js';
import type { AnyNode, PodRec } from './types.js';
import { ExternalHost } from './underlay.js';

/** A DNS client's outcome as a trace reports it (the first address answers). */
function dnsOutcome(name: string, r: ResolveResult, query?: TraceResult): DnsOutcome {
  if (r.ok)
    return query
      ? { name, tried: r.tried, fqdn: r.fqdn, address: r.addresses[0]!, query }
      : { name, tried: r.tried, fqdn: r.fqdn, address: r.addresses[0]! };
  return query
    ? { name, tried: r.tried, query, reason: r.reason }
    : { name, tried: r.tried, reason: r.reason };
}

/** Traces over the whole cluster. */
export class ClusterScope implements TraceScope {
  readonly world: World;

  constructor(private readonly c: Cluster) {
    this.world = {
      underlay: c.fabric,
      conntrack: c.conntrack,
      seed: c.seed,
      generation: () => c.generation(),
    };
  }

  private podSource(p: PodRec): Source | undefined {
    const node = this.c.nodeOf(p.node);
    if (!node) return undefined;
    const label = `${p.namespace}/${p.name}`;
    if (node.kind === 'Linux') {
      const lp = node.node.pods.get(p.ipNum);
      if (!lp) return undefined;
      return {
        label,
        node: node.name,
        ip: p.ipNum,
        send: (w, pkt) => node.node.sendFromPod(w, lp, pkt),
        dns: this.c.podDns(p.namespace),
      };
    }
    const port = findPort(node.host.dataplane, p.endpointId!);
    return port ? { ...portSource(node.host.dataplane, port), label } : undefined;
  }

  /** The node itself, sending from `ip` (default: its address). */
  private nodeSource(n: AnyNode, ip?: number): Source {
    if (n.kind === 'Windows') return hostSource(n.host.dataplane, ip);
    return { label: n.name, node: n.name, ip: ip ?? n.ip, send: (w, p) => n.node.sendFromNode(w, p) };
  }

  /** An outside host (a modelled one, or any address of the internet when `adHoc`). */
  private externalSource(ip: number, adHoc = false): Source | undefined {
    const ext =
      this.c.fabric.externals.get(ip) ?? (adHoc ? new ExternalHost(fmt(ip), ip, this.c.fabric) : undefined);
    return ext ? { label: ext.name, node: ext.name, ip, send: (w, p) => ext.send(w, p) } : undefined;
  }

  /** A modelled outside host by name. */
  private external(name: string): ExternalHost | undefined {
    for (const ext of this.c.fabric.externals.values()) if (ext.name === name) return ext;
    return undefined;
  }

  source(ref: string): Source | undefined {
    const pod = this.c.podRec(ref);
    if (pod) return this.podSource(pod);
    const node = this.c.nodeOf(ref);
    if (node) return this.nodeSource(node);
    const ip = ip4(ref);
    if (ip !== undefined) {
      for (const p of this.c.podRecs()) if (p.ipNum === ip) return this.podSource(p);
      for (const n of this.c.allNodes()) {
        if (n.ip === ip) return this.nodeSource(n);
        if (n.kind === 'Windows' && n.host.dataplane.ownsIp(ip)) return this.nodeSource(n, ip);
      }
      return this.externalSource(ip);
    }
    const ext = this.external(ref);
    if (ext) return this.externalSource(ext.ip);
    // node/endpoint: an endpoint of a Windows node by ID or name
    const slash = ref.indexOf('/');
    if (slash > 0) {
      const n = this.c.nodeOf(ref.slice(0, slash));
      if (n?.kind === 'Windows') {
        const port = findPort(n.host.dataplane, ref.slice(slash + 1));
        if (port) return portSource(n.host.dataplane, port);
      }
    }
    return undefined;
  }

  target(ref: string): Target | undefined {
    const svcRef = ref.startsWith('svc:') ? ref.slice(4) : undefined;
    if (svcRef) {
      const s = this.c.service(svcRef);
      if (!s || s.clusterIP === 'None')
        throw hnsError('ERROR_NOT_FOUND', `no service with a ClusterIP "${svcRef}"`);
      return { label: ref, ip: s.clusterIP, port: s.spec.ports[0]!.port };
    }
    const pod = this.c.podRec(ref);
    if (pod) return { label: ref, ip: pod.ipNum };
    const ip = (this.c.nodeOf(ref) ?? this.external(ref))?.ip;
    return ip === undefined ? undefined : { label: ref, ip };
  }

  resolve(from: Source, name: string): DnsOutcome {
    const settings = from.dns;
    const opts = this.c.options.dns ?? {};
    const zone = this.c.dns;
    if (!settings) {
      // a node resolves with the infrastructure's DNS: the external records only
      const upstream = { lookup: (f: string) => (f.endsWith(zone.domain) ? undefined : zone.lookup(f)) };
      return dnsOutcome(name, resolveName(name, { search: [] }, upstream, opts));
    }
    const server = settings.servers[0];
    const serverIp = server ? ip4(server) : undefined;
    if (serverIp === undefined) return { name, tried: [], reason: 'the endpoint has no DNS server' };
    // the query itself: UDP 53 from the container to its DNS server
    const query = runTrace(this, {
      from: from.label,
      to: fmt(serverIp),
      protocol: 'UDP',
      destinationPort: 53,
    });
    if (query.disposition !== 'Delivered' || !this.isDnsServer(query)) {
      return {
        name,
        tried: [],
        query,
        reason: `the DNS query to ${server}:53 ended ${query.disposition}${query.disposition === 'Delivered' ? ' at something that is not a DNS server' : ''}`,
      };
    }
    const asked = { ...(settings.domain ? { domain: settings.domain } : {}), search: settings.search };
    return dnsOutcome(name, resolveName(name, asked, zone, opts), query);
  }

  private isDnsServer(r: TraceResult): boolean {
    for (const p of this.c.podRecs()) {
      if (!p.dnsServer) continue;
      if (r.at === `endpoint:${p.endpointId}` || r.at === `pod:${p.namespace}/${p.name}`) return true;
    }
    return false;
  }

  replier(end: WalkEnd): Source | undefined {
    const at = end.at ?? '';
    if (at.startsWith('endpoint:')) {
      const n = this.c.nodeOf(end.host);
      if (n?.kind !== 'Windows') return undefined;
      const id = at.slice(9);
      for (const p of this.c.podRecs()) if (p.endpointId === id) return this.podSource(p);
      const port = n.host.dataplane.view().ports.get(id);
      return port ? portSource(n.host.dataplane, port) : undefined;
    }
    if (at.startsWith('pod:')) {
      const p = this.c.podRec(at.slice(4));
      return p ? this.podSource(p) : undefined;
    }
    if (at === 'host' || at === 'node') {
      const n = this.c.nodeOf(end.host);
      return n ? this.nodeSource(n, end.packet.dstIp) : undefined;
    }
    if (at.startsWith('external:')) return this.externalSource(end.packet.dstIp, true);
    return undefined;
  }

  count(w: Walk, packets: number, bytes: number): void {
    for (const u of w.counters) {
      const n = this.c.nodeOf(u.host);
      if (n?.kind === 'Windows') n.host.hns.store.countTrafficField(u.endpoint, u.field, packets, bytes);
    }
  }
}
