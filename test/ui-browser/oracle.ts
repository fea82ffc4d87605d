/**
 * What the browser tests compare the page with, computed in the test process, never read from the
 * page: the scenario run by the real runner (`runScenario`) and asked through the flat API
 * (`HcnQueryEndpointProperties`), `hnsim trace FILE … --format json` run as a command, the model's
 * own lesson recorded in Node (its step texts: the narration the page must show), and the
 * scenario file's own list of nodes.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { HcnDocument } from '../../src/api/flat.js';
import { loadScenario, runScenario, type RunReport } from '../../src/scenario/index.js';
import { recordLesson } from '../../src/ui/model/index.js';
import type { Lesson } from '../../src/ui/model/contract.js';
import { hnsim, scenario } from './browser.js';

/** A shipped scenario run to its end by the runner, as `hnsim run` runs it. */
export async function runShipped(name: string): Promise<RunReport> {
  const file = scenario(name);
  return runScenario(loadScenario(readFileSync(file, 'utf8'), file));
}

/** The model's lesson of a shipped scenario, recorded here in Node from the data `hnsim ui` gives the page. */
export async function lessonOf(name: string): Promise<Lesson> {
  const file = scenario(name);
  return recordLesson({
    kind: 'scenario',
    file: `scenarios/${basename(file)}`,
    text: readFileSync(file, 'utf8'),
  });
}

/** A pod's endpoint after the run: its node, ID and `HcnQueryEndpointProperties` document. */
export function endpointOf(report: RunReport, pod: string): { node: string; id: string; doc: HcnDocument } {
  const p = report.world.pods.get(pod);
  if (!p?.endpointId) throw new Error(`the run has no endpoint for ${pod}`);
  const host = report.world.nodes.get(p.node)?.host;
  if (!host) throw new Error(`no host ${p.node}`);
  const r = host.api.HcnQueryEndpointProperties(p.endpointId);
  if (!r.ok) throw new Error(`HcnQueryEndpointProperties(${p.endpointId}) failed: ${JSON.stringify(r)}`);
  return { node: p.node, id: p.endpointId, doc: r.result };
}

/** The first IP address of an endpoint document (`IpConfigurations[0].IpAddress`). */
export function ipOf(doc: HcnDocument): string {
  const configs = doc['IpConfigurations'] as readonly { IpAddress?: string }[] | undefined;
  const ip = configs?.[0]?.IpAddress;
  if (!ip) throw new Error(`the endpoint ${doc.ID} has no IP configuration`);
  return ip;
}

/** One observation of `hnsim trace --format json`. */
export interface CliObservation {
  readonly host: string;
  readonly component: string;
  readonly action: string;
  readonly detail?: string;
  readonly rule?: {
    readonly kind: string;
    readonly rule?: string;
    readonly policy?: string;
    readonly id?: string;
  };
}

/** `hnsim trace --format json`'s result (what the tests read of it). */
export interface CliTrace {
  readonly disposition: string;
  readonly host: string;
  readonly observations: readonly CliObservation[];
  /** With --reply: the reply's trace. */
  readonly reply?: CliTrace;
  /** With --all-branches: one trace per backend of the first load balancer with a choice. */
  readonly branches?: readonly CliTrace[];
}

/** `hnsim trace scenarios/NAME --from … --to … [--port N] [--proto P] --format json`, parsed. */
export async function cliTrace(
  name: string,
  req: {
    readonly from: string;
    readonly to: string;
    readonly port?: number;
    readonly proto?: string;
    readonly reply?: boolean;
    readonly allBranches?: boolean;
  },
): Promise<CliTrace> {
  const args = ['trace', scenario(name), '--from', req.from, '--to', req.to, '--format', 'json'];
  if (req.port !== undefined) args.push('--port', String(req.port));
  if (req.proto !== undefined) args.push('--proto', req.proto);
  if (req.reply) args.push('--reply');
  if (req.allBranches) args.push('--all-branches');
  const r = await hnsim(args);
  if (r.code !== 0) throw new Error(`hnsim ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as CliTrace;
}

/** The Windows nodes a scenario file lists (its `hosts`), by name. */
export function scenarioHosts(name: string): string[] {
  const file = scenario(name);
  return (loadScenario(readFileSync(file, 'utf8'), file).doc.hosts ?? []).map((h) => h.name);
}
