/**
 * The analysis as methods of a node and a cluster: `host.analyze({from, to})` (reachability),
 * `host.analyze({port})` (a port's ACLs), the same on a cluster (a port named by pod, `ns/name`, or
 * `node/endpoint`). DESIGN's layers put analysis/ above host/ and cluster/, so they do not import
 * it: this module adds the methods to their prototypes when it is loaded — the package's entry
 * (src/index.ts) loads it; code that imports Host or Cluster from their own modules imports this
 * one too, or calls `analyze(net, query)`.
 */
import { Cluster } from '../cluster/cluster.js';
import { hnsError } from '../core/errors.js';
import { Host } from '../host/host.js';
import type { Network } from './cuts.js';
import { analyzePort, type PortAnalysis } from './port.js';
import { analyzeReach, type ReachOptions, type ReachQuery, type Reachability } from './reach.js';

/** A port's ACL analysis: the endpoint (on a cluster: a pod `ns/name`, or `node/endpoint`). */
export interface PortQuery {
  readonly port: string;
}

export type AnalyzeQuery = ReachQuery | PortQuery;

declare module '../host/host.js' {
  interface Host {
    /** Reachability from `from` to `to`, every packet at once (src/analysis/reach.ts). */
    analyze(query: ReachQuery, opts?: ReachOptions): Reachability;
    /** A port's ACL analysis (src/analysis/port.ts). */
    analyze(query: PortQuery): PortAnalysis;
  }
}

declare module '../cluster/cluster.js' {
  interface Cluster {
    analyze(query: ReachQuery, opts?: ReachOptions): Reachability;
    analyze(query: PortQuery): PortAnalysis;
  }
}

/** The host and endpoint a port reference of a cluster names. */
function clusterPort(c: Cluster, ref: string): { host: Host; endpoint: string } {
  const pod = c.podRec(ref);
  if (pod) {
    const n = c.nodeOf(pod.node);
    if (n?.kind === 'Windows' && pod.endpointId) return { host: n.host, endpoint: pod.endpointId };
    throw hnsError(
      'E_INVALIDARG',
      `pod ${ref} has no HNS endpoint (it runs on ${pod.node}, not a Windows node)`,
    );
  }
  const slash = ref.indexOf('/');
  const n = slash > 0 ? c.nodeOf(ref.slice(0, slash)) : undefined;
  if (n?.kind === 'Windows') return { host: n.host, endpoint: ref.slice(slash + 1) };
  throw hnsError('ERROR_NOT_FOUND', `no pod or node/endpoint "${ref}" in the cluster`);
}

/** Analyse a node or a cluster: reachability (`{from, to}`) or a port's ACLs (`{port}`). */
export function analyze(net: Network, query: ReachQuery, opts?: ReachOptions): Reachability;
export function analyze(net: Network, query: PortQuery): PortAnalysis;
export function analyze(net: Network, query: AnalyzeQuery, opts?: ReachOptions): Reachability | PortAnalysis;
export function analyze(net: Network, query: AnalyzeQuery, opts?: ReachOptions): Reachability | PortAnalysis {
  if (typeof query === 'object' && query !== null && 'port' in query) {
    const keys = Object.keys(query);
    if (keys.length !== 1) throw hnsError('E_INVALIDARG', 'a port query has the field port only');
    if (typeof query.port !== 'string' || !query.port)
      throw hnsError('E_INVALIDARG', 'port must be a non-empty string');
    if (net instanceof Cluster) {
      const { host, endpoint } = clusterPort(net, query.port);
      return analyzePort(host, endpoint);
    }
    return analyzePort(net, query.port);
  }
  return analyzeReach(net, query, opts);
}

Host.prototype.analyze = function (this: Host, query: AnalyzeQuery, opts?: ReachOptions) {
  return analyze(this, query, opts);
} as Host['analyze'];

Cluster.prototype.analyze = function (this: Cluster, query: AnalyzeQuery, opts?: ReachOptions) {
  return analyze(this, query, opts);
} as Cluster['analyze'];
