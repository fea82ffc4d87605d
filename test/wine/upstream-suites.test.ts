/**
 * Other projects' own Windows test suites, unmodified, under `hnsim wine` on each profile (issue
 * 15): hcsshim's `hcn` integration tests, hcsshim's `cmd/ncproxy` tests and kube-proxy's
 * `pkg/proxy/winkernel/hns_test.go`. Opt-in: the binaries are third-party and never in the
 * repository; the user builds them from the upstream sources and points HNSIM_UPSTREAM_TESTS_DIR at
 * the directory holding any of:
 *
 *   hcn-v0.11.4.test.exe      hcsshim v0.11.4's hcn package, with its `integration` build tag
 *   hcn-v0.14.1.test.exe      hcsshim v0.14.1's hcn package (test files identical to HEAD 7c9ff7f4's),
 *                             `integration` tag
 *   ncproxy-v0.11.4.test.exe  hcsshim v0.11.4's cmd/ncproxy package
 *   winkernel-v1.23.test.exe  kube-proxy's pkg/proxy/winkernel on the 1.23 line (kubernetes 04791b49):
 *                             hns_test.go with hnsV1.go and hnsV2.go, unmodified, on hcsshim v0.8.22
 *                             (the version kubernetes 1.23 requires; PR #104880)
 *
 * each the Go test binary of that package for GOOS=windows (docs/wine.md, "Upstream test suites").
 *
 *   HNSIM_UPSTREAM_TESTS_DIR=~/upstream-tests npm run test:wine -- test/wine/upstream-suites.test.ts
 *
 * Each binary runs once per profile (ws2019, ws2022, ws2025) as `hnsim wine --profile P -- BINARY
 * -test.v`, on a fresh node, and every test and subtest it reports is compared with what Windows
 * does: every test passes, except the ones listed in SUITES' exceptions, each with its reason and the
 * upstream lines that cause it (a version gate of hcsshim's, a test that uses a feature without
 * checking for it, a test's own skip). The table is data taken from the upstream sources, never
 * from hnsim. A test missing from the output (a panic, a hang), a listed test that no longer ran,
 * or a count of top-level tests other than the upstream files declare fails too.
 *
 * Bugs each run catches: any HNS behaviour a real client's test relies on that the simulator
 * answers differently (a JSON shape hcsshim cannot unmarshal, a missing object, an HRESULT where
 * Windows succeeds, a refusal Windows does not make), the version the profile reports (HNS version
 * for hcsshim's gates; the Windows build for hcsshim's osversion gates, under Wine), and the
 * DLLs' export contract as hcsshim's own zsyscall bindings use it.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeWine, hnsim, readyWine } from './kit.js';

const ENV_DIR = process.env['HNSIM_UPSTREAM_TESTS_DIR'];
const DIR = ENV_DIR ? resolve(ENV_DIR) : undefined;

type Profile = 'ws2019' | 'ws2022' | 'ws2025';
const PROFILES: readonly Profile[] = ['ws2019', 'ws2022', 'ws2025'];
type Outcome = 'PASS' | 'FAIL' | 'SKIP';

/** A test that does not pass on Windows either, and why. */
interface Exception {
  /** Go's name: `TestX`, or `TestX/sub_test_name` (spaces as underscores). */
  readonly test: string;
  readonly profiles: readonly Profile[];
  readonly outcome: 'FAIL' | 'SKIP';
  readonly reason: string;
  /** The upstream lines that make it so. */
  readonly source: string;
  /** The test's own message (an upstream literal) that it prints then. */
  readonly says?: string;
}

interface Suite {
  readonly binary: string;
  readonly upstream: string;
  /** Top-level `func TestX(t *testing.T)` in the upstream test files (TestMain not counted). */
  readonly tests: number;
  readonly exceptions: readonly Exception[];
}

// ───────────────────────────── what Windows does ─────────────────────────────

const HCN_011 = 'microsoft/hcsshim v0.11.4 (b16edf62)';
const HCN_014 = 'microsoft/hcsshim v0.14.1 (fb5aa2e9)';
const WS2019: readonly Profile[] = ['ws2019'];
const BELOW_15_4: readonly Profile[] = ['ws2019', 'ws2022'];

/** hcn tests that use a feature newer than HNS 9.5 (WS2019) without checking for it. */
function hcnBelowGates(src: string): Exception[] {
  return [
    {
      test: 'TestAddL4WfpProxyPolicyOnEndpoint',
      profiles: WS2019,
      outcome: 'FAIL',
      reason: 'the L4WFPPROXY endpoint policy needs HNS 13.2; the test applies it without checking',
      source: `${src} hcn/hcnglobals.go:77 (L4WfpProxyPolicyVersion 13.2), hcn/hcnendpoint_test.go:186`,
    },
    {
      test: 'TestApplyTierAclPolicyOnEndpoint',
      profiles: WS2019,
      outcome: 'FAIL',
      reason: 'the TierAcl endpoint policy needs HNS 14.0; the test applies it without checking',
      source: `${src} hcn/hcnglobals.go:80 (TierAclPolicyVersion 14.0), hcn/hcnendpoint_test.go:314`,
    },
    {
      test: 'TestAddRemoveNetworACLPolicy',
      profiles: WS2019,
      outcome: 'FAIL',
      reason:
        'the NetworkACL network policy needs HNS 15.0; testNetworkPolicy ignores AddPolicy`s error and fails on the missing policy',
      source: `${src} hcn/hcnglobals.go:83 (NetworkACLPolicyVersion 15.0), hcn/hcnnetwork_test.go:106,123`,
      says: 'Could not find NetworkACL policy on network.',
    },
  ];
}

/**
 * hcsshim v0.14.1 on HNS below 15.4: TestCreateUpdateDeleteLoadBalancer's Update fails and its
 * t.Fatal leaves network GoTestOverlay behind with a load balancer (HcnCreateTestLoadBalancer: TCP
 * 8090 on 1.1.1.2 and 1.1.1.3) on its endpoint. The next CreateTestOverlayNetwork's cleanup()
 * deletes the network and its endpoint, which Windows allows while a load balancer names the
 * endpoint; the load balancer stays with its frontend (docs/model.md, Endpoints "Delete":
 * kubernetes#112836, kubernetes PR #137530: orphaned load balancers hold their port). So the two
 * later tests that create that same frontend fail with HCN_E_PORT_ALREADY_EXISTS (0x803b0013);
 * the AddLoadBalancer tests use port 80 and pass.
 */
const FRONTEND_CASCADE: readonly [string, string][] = [
  ['TestGetLoadBalancerById', 'hcn/hcnloadbalancer_test.go:118-121'],
  ['TestLoadBalancerAddRemoveEndpoint', 'hcn/hcnloadbalancer_test.go:159-162'],
];

/** hcsshim's osversion gate: IOV offload needs build 19043 (21H1); WS2019 is 17763. */
const NEEDS_21H1 = 'Requires build +21H1';
function ncproxyIov(test: string, line: string): Exception {
  return {
    test,
    profiles: WS2019,
    outcome: 'SKIP',
    reason: 'IOV offload needs Windows build 19043 (osversion.V21H1); WS2019 is 17763',
    source: `${HCN_011} cmd/ncproxy/${line}, osversion/windowsbuilds.go:66`,
    says: NEEDS_21H1,
  };
}
function ncproxyDualStack(test: string, line: string): Exception {
  return {
    test,
    profiles: WS2019,
    outcome: 'SKIP',
    reason: 'hcn.IPv6DualStackSupported() is false below HNS 11.10 (client-side check)',
    source: `${HCN_011} cmd/ncproxy/${line}, hcn/hcnglobals.go:59 (IPv6DualStackVersion 11.10)`,
    says: 'dual stack not supported, skipping test',
  };
}

const SUITES: readonly Suite[] = [
  {
    binary: 'hcn-v0.11.4.test.exe',
    upstream: `${HCN_011} hcn/*_test.go, -tags integration`,
    tests: 74,
    exceptions: hcnBelowGates(HCN_011),
  },
  {
    binary: 'hcn-v0.14.1.test.exe',
    upstream: `${HCN_014} hcn/*_test.go (identical to HEAD 7c9ff7f4's), -tags integration`,
    tests: 78,
    exceptions: [
      ...hcnBelowGates(HCN_014),
      {
        test: 'TestCreateUpdateDeleteLoadBalancer',
        profiles: BELOW_15_4,
        outcome: 'FAIL',
        reason: 'HcnModifyLoadBalancer needs HNS 15.4; the test updates the load balancer without checking',
        source: `${HCN_014} hcn/hcnglobals.go:91 (ModifyLoadbalancerVersion 15.4), hcn/hcnloadbalancer_test.go:45,70-73`,
      },
      ...FRONTEND_CASCADE.map(([test, lines]): Exception => ({
        test,
        profiles: BELOW_15_4,
        outcome: 'FAIL',
        reason:
          'TestCreateUpdateDeleteLoadBalancer left its load balancer; cleanup() deletes GoTestOverlay and the endpoint it names, and the load balancer keeps TCP 8090 on 1.1.1.2/1.1.1.3, so creating that frontend again is HCN_E_PORT_ALREADY_EXISTS',
        source: `${HCN_014} hcn/hcnloadbalancer_test.go:73 (t.Fatal before any delete), hcn/hcnutils_test.go:26-38,81-82 (cleanup deletes the network), 299-318 (HcnCreateTestLoadBalancer), ${lines}`,
      })),
      {
        test: 'TestAccelnetNnvManagementMacAddresses',
        profiles: BELOW_15_4,
        outcome: 'FAIL',
        reason: 'the v1 NNV management MAC list (Accelnet) needs HNS 15.4; the test sets it without checking',
        source: `${HCN_014} hcn/hcnglobals.go:93 (AccelnetVersion 15.4), hcn/hnsv1_test.go:133-144`,
      },
    ],
  },
  {
    binary: 'ncproxy-v0.11.4.test.exe',
    upstream: `${HCN_011} cmd/ncproxy/*_test.go (run in hcsshim's CI on windows-2019 and windows-2022: .github/workflows/ci.yml:253-271)`,
    tests: 85,
    exceptions: [
      ncproxyIov(
        'TestAddNIC_HCN/AddNIC_returns_no_error_with_iov_policy_set',
        'hcn_networking_test.go:192-193',
      ),
      ncproxyIov(
        'TestAddNIC_HCN/AddNIC_dual_stack_returns_no_error_with_iov_policy_set',
        'hcn_networking_test.go:192-193',
      ),
      ncproxyIov('TestModifyNIC_HCN', 'hcn_networking_test.go:457-458'),
      ncproxyIov('TestModifyNIC_HCN_Error_InvalidArgument', 'hcn_networking_test.go:576-577'),
      ncproxyIov('TestModifyNIC_V0_HCN', 'ncproxy_v0_service_test.go:296-297'),
      ncproxyIov('TestModifyNIC_V0_HCN_Error_InvalidArgument', 'ncproxy_v0_service_test.go:407-408'),
      ncproxyDualStack(
        'TestCreateNetwork_HCN/CreateNetwork_dual_stack_returns_no_error',
        'hcn_networking_test.go:719-720',
      ),
      ncproxyDualStack(
        'TestCreateEndpoint_HCN/CreateEndpoint_dual_stack_returns_no_error',
        'hcn_networking_test.go:839-840',
      ),
    ],
  },
  {
    binary: 'winkernel-v1.23.test.exe',
    upstream:
      'kubernetes/kubernetes 04791b49 (1.23 line) pkg/proxy/winkernel/hns_test.go, both the hnsV1 and the hnsV2 wrapper, on hcsshim v0.8.22',
    tests: 10,
    exceptions: [],
  },
];

// ───────────────────────────── go test -v output ─────────────────────────────

interface GoRun {
  /** Every test and subtest that reported, in order, with its outcome. */
  readonly results: Map<string, Outcome>;
  /** The `file.go:NN: message` lines each test printed. */
  readonly logs: Map<string, string[]>;
  /** Tests that started (`=== RUN`) and never reported. */
  readonly unfinished: string[];
  readonly topLevel: number;
}

/** Parse `go test -v` output (Go 1.14+ streams a test's log lines after its latest `=== RUN`). */
function parseGoTest(output: string): GoRun {
  const results = new Map<string, Outcome>();
  const logs = new Map<string, string[]>();
  const started: string[] = [];
  let current: string | undefined;
  let topLevel = 0;
  for (const line of output.split(/\r?\n/)) {
    const run = /^=== (?:RUN|CONT)\s+(\S+)/.exec(line);
    if (run) {
      current = run[1]!;
      if (line.startsWith('=== RUN')) started.push(current);
      continue;
    }
    const done = /^(\s*)--- (PASS|FAIL|SKIP): (\S+) \(/.exec(line);
    if (done) {
      results.set(done[3]!, done[2] as Outcome);
      if (done[1] === '') topLevel++;
      continue;
    }
    if (current !== undefined && /^\s+\S+\.go:\d+: /.test(line)) {
      const list = logs.get(current) ?? [];
      list.push(line.trim());
      logs.set(current, list);
    }
  }
  return { results, logs, unfinished: started.filter((t) => !results.has(t)), topLevel };
}

/** What Windows gives for `test` on `profile`: its exception, FAIL for a parent of one, else PASS. */
function expectedOutcome(suite: Suite, profile: Profile, test: string): Outcome {
  const own = suite.exceptions.find((e) => e.test === test && e.profiles.includes(profile));
  if (own) return own.outcome;
  const failingChild = suite.exceptions.some(
    (e) => e.outcome === 'FAIL' && e.profiles.includes(profile) && e.test.startsWith(`${test}/`),
  );
  return failingChild ? 'FAIL' : 'PASS';
}

// ───────────────────────────── the runs ─────────────────────────────

const HINT =
  'Build the suites for Windows from their upstream sources (see docs/wine.md, "Upstream test suites") ' +
  `and set HNSIM_UPSTREAM_TESTS_DIR to the directory holding ${SUITES.map((s) => s.binary).join(', ')}.`;

const present = DIR === undefined ? [] : SUITES.filter((s) => existsSync(join(DIR, s.binary)));

if (DIR === undefined) {
  process.stderr.write(`test/wine/upstream-suites: skipped (HNSIM_UPSTREAM_TESTS_DIR is not set). ${HINT}\n`);
  describe.skip('upstream test suites — skipped: HNSIM_UPSTREAM_TESTS_DIR is not set', () => {
    it('runs hcsshim hcn, ncproxy and kube-proxy winkernel tests', () => undefined);
  });
} else if (present.length === 0) {
  // set but wrong: a failure, not a silent skip
  describe('upstream test suites', () => {
    it('finds at least one suite binary in HNSIM_UPSTREAM_TESTS_DIR', () => {
      throw new Error(`HNSIM_UPSTREAM_TESTS_DIR=${DIR} holds none of the suite binaries. ${HINT}`);
    });
  });
} else {
  describeWine('upstream Windows test suites under hnsim wine, per profile (issue 15)', () => {
    let prefix = '';
    beforeAll(async () => {
      prefix = (await readyWine()).prefix.dir;
    }, 600_000);

    for (const suite of SUITES) {
      const have = present.includes(suite);
      for (const profile of PROFILES) {
        const title = `${suite.binary} on ${profile}: every test as on Windows (${suite.upstream})`;
        if (!have) {
          it.skip(`${title} — ${suite.binary} not in HNSIM_UPSTREAM_TESTS_DIR`, () => undefined);
          continue;
        }
        it(
          title,
          async () => {
            const r = await hnsim(
              [
                'wine',
                '--prefix',
                prefix,
                '--profile',
                profile,
                '--timeout',
                '15m',
                '--',
                join(DIR!, suite.binary),
                '-test.v',
                '-test.count=1',
              ],
              { timeoutMs: 1_000_000 },
            );
            const run = parseGoTest(r.stdout);
            const tail = `\n--- output tail ---\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`;

            // each test and subtest as on Windows, then the whole suite ran: every started test
            // reported (a panic ends the binary), as many top-level tests as the upstream files have
            const problems: string[] = [];
            for (const [test, got] of run.results) {
              const want = expectedOutcome(suite, profile, test);
              if (got !== want) {
                const said = (run.logs.get(test) ?? []).slice(0, 3).join(' | ');
                problems.push(`${test}: ${got}, Windows ${want}${said ? ` — ${said}` : ''}`);
              }
            }
            for (const test of run.unfinished) problems.push(`${test}: never reported`);
            const panic = /^panic: .*$/m.exec(r.stdout);
            if (panic) problems.push(`the binary stopped: ${panic[0]}`);
            if (run.topLevel !== suite.tests) {
              problems.push(
                `${run.topLevel} top-level tests reported, the upstream files have ${suite.tests}`,
              );
            }
            expect(problems, `tests whose outcome differs from Windows${tail}`).toEqual([]);

            // every listed exception still happens, for its reason
            for (const e of suite.exceptions.filter((x) => x.profiles.includes(profile))) {
              expect(run.results.get(e.test), `${e.test} (${e.reason}; ${e.source})`).toBe(e.outcome);
              if (e.says !== undefined) {
                expect((run.logs.get(e.test) ?? []).join('\n'), `${e.test}'s message`).toContain(e.says);
              }
            }

            // go test's own verdict, as `hnsim wine` returns it
            const anyFail = [...run.results.values()].includes('FAIL');
            expect(r.code, `exit code${tail}`).toBe(anyFail ? 1 : 0);
          },
          1_100_000,
        );
      }
    }
  });
}
