/**
 * A caller reading the stdout of a plugin that printed one result takes the document from the
 * printed value instead of parsing the text again (`parsePluginOutput(stdout, conf, output)`): what
 * it reads is what parsing the text gives — the same result, the same text when printed again at
 * any version, the same errors — for results of every version and shape, and for outputs that are
 * not exactly one printed result (something written before or after it, two prints, no print).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  convertResult,
  parsePluginOutput,
  printResult,
  resultText,
  type CniResult,
} from '../../src/cni/index.js';
import type { ExecOutput, PluginHost } from '../../src/cni/contracts.js';
import { pluginMain } from '../../src/cni/skel.js';
import { VERSION_ALL } from '../../src/cni/version.js';
import { runs } from '../runs.js';

const VERSIONS = ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;

const v4 = fc
  .tuple(fc.integer({ min: 0, max: 255 }), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((o) => o.join('.'));
const v6 = fc
  .array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
  .map((g) => g.map((x) => x.toString(16)).join(':'));
const cidr = fc.oneof(
  fc.tuple(v4, fc.nat(32)).map(([a, l]) => `${a}/${l}`),
  fc.tuple(v6, fc.nat(128)).map(([a, l]) => `${a}/${l}`),
);
const word = fc.oneof(fc.stringMatching(/^[a-z0-9]{1,8}$/), fc.string({ unit: 'binary', maxLength: 4 }));
const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });

const result: fc.Arbitrary<CniResult> = fc.record(
  {
    cniVersion: fc.constantFrom(...VERSIONS, ''),
    interfaces: fc.array(
      fc.record(
        { name: word, mac: opt(word), mtu: opt(fc.nat(9000)), sandbox: opt(word), pciID: opt(word) },
        { requiredKeys: ['name'] },
      ),
      { maxLength: 2 },
    ),
    ips: fc.array(
      fc.record(
        { address: cidr, gateway: opt(fc.oneof(v4, v6)), interface: opt(fc.integer({ min: -1, max: 2 })) },
        { requiredKeys: ['address'] },
      ),
      { maxLength: 2 },
    ),
    routes: fc.array(
      fc.record({ dst: cidr, gw: opt(v4), table: opt(fc.nat(300)) }, { requiredKeys: ['dst'] }),
      { maxLength: 2 },
    ),
    dns: fc.record(
      {
        nameservers: fc.array(word, { maxLength: 2 }),
        domain: opt(word),
        search: fc.array(word, { maxLength: 1 }),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['cniVersion'] },
);

type Extra = 'none' | 'before' | 'after' | 'twice' | 'no print';

/** A plugin whose ADD prints `r` at `version` (with `extra` around it) into a real skel run. */
async function run(r: CniResult, version: string, extra: Extra, conf: string): Promise<ExecOutput> {
  const plugin = pluginMain(
    'p',
    {
      add: (_args, ctx) => {
        if (extra === 'before') ctx.stdout.write(' ');
        if (extra !== 'no print') printResult(ctx.stdout, r, version);
        if (extra === 'twice') printResult(ctx.stdout, r, version);
        if (extra === 'after') ctx.stdout.write('\n');
        if (extra === 'no print') ctx.stdout.write(resultText(r, version));
        return Promise.resolve();
      },
      del: () => Promise.resolve(),
    },
    VERSION_ALL,
    '',
  );
  const env = {
    CNI_COMMAND: 'ADD',
    CNI_CONTAINERID: 'c',
    CNI_NETNS: 'ns',
    CNI_IFNAME: 'eth0',
    CNI_PATH: '/x',
  };
  return plugin.exec({} as PluginHost, { env, stdin: conf }, 0);
}

/** What a read gives: the result (its printed text at every version too), or the error text. */
function outcome(read: () => CniResult): unknown {
  let r: CniResult;
  try {
    r = read();
  } catch (e) {
    return { error: (e as Error).message };
  }
  const texts = VERSIONS.map((v) => {
    try {
      return resultText(convertResult(r, v), v);
    } catch (e) {
      return `error: ${(e as Error).message}`;
    }
  });
  return { r: JSON.parse(JSON.stringify(r)) as unknown, texts };
}

describe('parsePluginOutput with the plugin output', () => {
  it('reads what parsing the text reads', async () => {
    await fc.assert(
      fc.asyncProperty(
        result,
        fc.constantFrom(...VERSIONS),
        fc.constantFrom<Extra>('none', 'none', 'none', 'before', 'after', 'twice', 'no print'),
        fc.constantFrom('0.3.1', '1.0.0', '0.2.0'),
        async (r, version, extra, confVersion) => {
          const conf = JSON.stringify({ cniVersion: confVersion, name: 'n', type: 'p' });
          let out: ExecOutput;
          try {
            out = await run(r, version, extra, conf);
          } catch {
            return; // (a panic: nothing printed to read)
          }
          if (out.exitCode !== 0) return; // printing failed: an error document, read elsewhere
          expect(outcome(() => parsePluginOutput(out.stdout, conf, out))).toEqual(
            outcome(() => parsePluginOutput(out.stdout, conf)),
          );
        },
      ),
      { numRuns: runs(500, 15_000) },
    );
  });
});
