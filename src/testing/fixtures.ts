/**
 * Fixtures: a fresh host or cluster per test, torn down after it — held calls released, fault
 * rules cleared — and, when asked, audited at teardown: the test fails if the node is left with a
 * leak or an inconsistency. Each is a vitest `test.extend` fixture and a plain function:
 *
 *   const test = base.extend<{ host: Host }>({ host: withHost({ seed: 1, audit: true }) });
 *   test('ADD then DEL leaves nothing', async ({ host }) => { … });
 *
 *   await withHost({ audit: true }).run(async (host) => { … });   // any test runner
 *
 * No vitest import: a fixture is a function `({}, use) => …`, which vitest (and this module's
 * `run`) calls.
 */
import type { Cluster } from '../cluster/cluster.js';
import type { AuditFinding, AuditKind, AuditOptions } from '../host/audit.js';
import { createHost, type Host, type HostOptions } from '../host/host.js';
import { buildCluster, type ClusterSpec } from './clusters.js';
import { checkInvariants } from './invariants.js';

/** What the teardown audit looks at. */
export interface TeardownAudit extends AuditOptions {
  /** Finding kinds not to count (e.g. `namespace-without-container` for a test without containers). */
  readonly ignore?: readonly AuditKind[];
}

export interface WithHostOptions extends HostOptions {
  /** Audit at teardown: `host.audit()` and `checkInvariants(host)` must be empty (default false). */
  readonly audit?: boolean | TeardownAudit;
  /** Runs on the new host before the test (networks, fault rules, …). */
  readonly setup?: (host: Host) => void | Promise<void>;
}

/** A fixture of `T`: for `test.extend({ name: fixture })`, or `.run(body)` on its own. */
export interface Fixture<T> {
  // vitest reads the fixture's first parameter (an object pattern) to find its dependencies
  (context: object, use: (value: T) => Promise<void>): Promise<void>;
  /** Set up, run `body`, tear down (and audit); the body's result, or its error. */
  run<R>(body: (value: T) => R | Promise<R>): Promise<R>;
}

/** Thrown at teardown when the audit finds something: the findings, one a line. */
export class TeardownAuditError extends Error {
  constructor(
    readonly where: string,
    readonly findings: readonly string[],
  ) {
    super(`${where} is not clean at teardown (${findings.length}):\n  ${findings.join('\n  ')}`);
    this.name = 'TeardownAuditError';
  }
}

function auditOptions(a: boolean | TeardownAudit | undefined): TeardownAudit | undefined {
  if (!a) return undefined;
  return a === true ? {} : a;
}

/**
 * The findings of one host that count: the audit (less `ignore`d kinds, and less the objects
 * `keep` names, by upper-case ID) and the invariants.
 */
function teardownFindings(
  host: Host,
  audit: TeardownAudit = {},
  keep: ReadonlySet<string> = new Set(),
): string[] {
  const { ignore = [], ...options } = audit;
  const found: AuditFinding[] = host
    .audit(options)
    .filter((f) => !ignore.includes(f.kind) && !keep.has(f.object.toUpperCase()));
  const lines = found.map((f) => `${f.kind} ${f.object}: ${f.detail}`);
  // the audit carries the store's invariants; the enumerations are checkInvariants' own
  for (const line of checkInvariants(host)) if (!found.some((f) => f.detail === line)) lines.push(line);
  return lines;
}

function fixture<T>(make: () => Promise<T>, teardown: (value: T) => void | Promise<void>): Fixture<T> {
  const run = async <R>(body: (value: T) => R | Promise<R>): Promise<R> => {
    const value = await make();
    let result: R;
    try {
      result = await body(value);
    } catch (e) {
      // the test's own failure comes first; the teardown still runs, its audit is not reported
      try {
        await teardown(value);
      } catch {
        // the test's error is the one reported
      }
      throw e;
    }
    await teardown(value);
    return result;
  };
  // eslint-disable-next-line no-empty-pattern -- vitest requires an object pattern here
  const f = async ({}: object, use: (value: T) => Promise<void>): Promise<void> => {
    await run(use);
  };
  return Object.assign(f, { run });
}

/**
 * A fresh host per test (`createHost(options)`, then `setup`); at teardown its fault rules are
 * cleared (held calls let go) and, with `audit`, it must have no leak and no broken invariant.
 */
export function withHost(options: WithHostOptions = {}): Fixture<Host> {
  const { audit, setup, ...hostOptions } = options;
  return fixture(
    async () => {
      const host = createHost(hostOptions);
      await setup?.(host);
      return host;
    },
    (host) => {
      host.faults.clear();
      const a = auditOptions(audit);
      if (!a) return;
      const findings = teardownFindings(host, a);
      if (findings.length) throw new TeardownAuditError(`host ${host.name}`, findings);
    },
  );
}

export interface WithClusterOptions {
  /**
   * Audit every Windows node at teardown (invariants and leaks, less `namespace-without-container`
   * by default: a cluster's pods have namespaces and no compute systems) and `cluster.check()`
   * errors (default false).
   */
  readonly audit?: boolean | TeardownAudit;
}

/** The Windows hosts of a cluster, by node name. */
export function windowsHosts(c: Cluster): Map<string, Host> {
  const out = new Map<string, Host>();
  for (const name of c.nodeNames()) {
    if (c.nodeOf(name)?.kind === 'Windows') out.set(name, c.host(name));
  }
  return out;
}

/**
 * A fresh cluster per test: built by `build()` (a function that makes one) or from a
 * `ClusterSpec` (`buildCluster`); with `audit`, every Windows node and the cluster's own check
 * must be clean at teardown.
 */
export function withCluster(
  build: (() => Cluster | Promise<Cluster>) | ClusterSpec,
  options: WithClusterOptions = {},
): Fixture<Cluster> {
  return fixture(
    async () => (typeof build === 'function' ? build() : buildCluster(build)),
    (c) => {
      const hosts = windowsHosts(c);
      for (const h of hosts.values()) h.faults.clear();
      const a = auditOptions(options.audit);
      if (!a) return;
      const audit: TeardownAudit = { ...a, ignore: a.ignore ?? ['namespace-without-container'] };
      const findings: string[] = [];
      for (const [name, h] of hosts) {
        // kube-proxy's source-VIP endpoint on overlay nodes is never attached (microsoft/SDN
        // helper.psm1, winkernel): not a leak
        const sourceVip = new Set(
          [...h.hns.store.endpoints.values()]
            .filter((e) => e.Name === 'sourcevip')
            .map((e) => e.ID.toUpperCase()),
        );
        for (const f of teardownFindings(h, audit, sourceVip)) findings.push(`${name}: ${f}`);
      }
      for (const f of c.check()) if (f.severity === 'error') findings.push(`cluster: ${f.message}`);
      if (findings.length) throw new TeardownAuditError('the cluster', findings);
    },
  );
}
