/**
 * The model-based commands (src/testing/commands.ts) in fc.commands runs: HNS, HCS and CNI
 * commands against a host agree with the kit's model (written from docs/model.md) in every
 * sequence; a host that lies (a transport that answers a delete without doing it) is caught and
 * the failure names the command path; your own commands join the kit's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HcnResult } from '../../src/api/flat.js';
import { DirectTransport, type HnsCall, type HnsTransport } from '../../src/api/transport.js';
import type { Json } from '../../src/core/json.js';
import { createHost, TOKENS } from '../../src/host/host.js';
import type { FlatApi } from '../../src/api/flat.js';
import type { KitModel } from '../../src/testing/index.js';
import {
  checkKitModel,
  cleanupKit,
  cniCommands,
  hcsCommands,
  hnsCommands,
  kitSetup,
  type KitReal,
} from '../../src/testing/index.js';
import { runs } from '../runs.js';

const RUNS = { numRuns: runs(40) };

describe('kit commands agree with the model', () => {
  it('HNS, HCS and CNI commands, any order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands([...hnsCommands(), ...hcsCommands(), ...cniCommands()], { maxCommands: 40, size: 'max' }),
        async (cmds) => {
          const setup = kitSetup({ cni: true });
          let env: { model: KitModel; real: KitReal } | undefined;
          await fc.asyncModelRun(() => (env = setup()), cmds);
          // every pod and compute system torn down: the CNI left nothing
          await cleanupKit(env!.model, env!.real);
          expect(checkKitModel(env!.model, env!.real)).toEqual([]);
          const leaks = env!.real.host
            .audit()
            .filter((f) => f.kind === 'ip-reservation-orphaned' || f.kind === 'cni-cache-stale');
          expect(leaks).toEqual([]);
        },
      ),
      RUNS,
    );
  });

  it('with HNS service restarts: the pods they break are DELeted cleanly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands([...hnsCommands({ restarts: true }), ...cniCommands()], { maxCommands: 30, size: 'max' }),
        async (cmds) => {
          await fc.asyncModelRun(kitSetup({ cni: true }), cmds);
        },
      ),
      RUNS,
    );
  });

  it('the model is the documented one: a few literal steps', async () => {
    const { model, real } = kitSetup({ cni: true })();
    // cbr0 (the CNI network) and the HostDefault namespace exist and belong to the host
    expect([...model.networks.values()]).toEqual([{ name: 'cbr0', owner: 'host' }]);
    expect(model.namespaces.size).toBe(1);
    // hnsCommands() lists creations twice: create network, endpoint, namespace, then an attach
    const [createNet, , , createEp, , , createNs, , attach] = hnsCommands().map(
      (a) => fc.sample(a, { numRuns: 1, seed: 1 })[0]!,
    );
    expect(String(createNet)).toMatch(/^CreateNetwork\(/);
    expect(String(createEp)).toMatch(/^CreateEndpoint\(/);
    expect(String(createNs)).toBe('CreateNamespace()');
    expect(String(attach)).toMatch(/^NamespaceEndpoint\(Add,/);
    await createNet!.run(model, real);
    await createEp!.run(model, real);
    await createNs!.run(model, real);
    expect(attach!.check(model)).toBe(true);
    await attach!.run(model, real);
    expect(checkKitModel(model, real)).toEqual([]);
    // the kit's network, its endpoint, and the endpoint in the kit's namespace
    const net = model.own(model.networks, 'hns');
    const [ns] = model.own(model.namespaces, 'hns');
    expect(net).toHaveLength(1);
    expect([...model.endpoints.values()]).toEqual([
      { network: net[0], name: expect.any(String) as unknown as string, owner: 'hns', namespace: ns },
    ]);
  });
});

/** A transport that answers HcnDeleteEndpoint with success and does nothing (a lying service). */
class LyingTransport implements HnsTransport {
  constructor(private readonly inner: HnsTransport) {}
  async call(call: HnsCall): Promise<HcnResult<Json>> {
    if (call.method === 'HcnDeleteEndpoint') return { ok: true, hr: 0, result: null };
    return this.inner.call(call);
  }
}

describe('the commands catch a host that is wrong', () => {
  it('a delete that does nothing is found, with the command path to replay', async () => {
    const setup = kitSetup({
      createHost: () =>
        createHost({
          seed: 1,
          override: (c) =>
            c
              .rebind(TOKENS.Transport)
              .toDynamicValue(
                (ctx) => new LyingTransport(new DirectTransport(ctx.get<FlatApi>(TOKENS.FlatApi))),
              ),
        }),
    });
    const out = await fc.check(
      fc.asyncProperty(fc.commands(hnsCommands(), { maxCommands: 30, size: 'max' }), (cmds) =>
        fc.asyncModelRun(setup, cmds),
      ),
      { numRuns: 200, seed: 3 },
    );
    expect(out.failed).toBe(true);
    // either the lie itself (a delete of nothing "succeeds") or what it leaves (an endpoint the
    // model no longer has); shrunk to the few commands that show it
    expect(String(out.errorInstance)).toMatch(
      /DeleteEndpoint\(\w+\): (succeeded; the model expected HCN_E_ENDPOINT_NOT_FOUND|host and model disagree)/,
    );
    const shown = String(out.counterexample![0]);
    expect(shown).toMatch(/DeleteEndpoint\(/);
    expect(shown.split('),').length).toBeLessThanOrEqual(3);
    expect(out.counterexamplePath).toMatch(/^\d+(:\d+)*$/);
  });
});

describe('your own commands in the same run', () => {
  /** A user's command: deletes the newest kit endpoint behind the model's back — and says so. */
  class ForgetEndpoint implements fc.AsyncCommand<KitModel, KitReal> {
    check = (m: Readonly<KitModel>) => m.own(m.endpoints, 'hns').length > 0;
    async run(m: KitModel, r: KitReal): Promise<void> {
      const id = m.own(m.endpoints, 'hns').at(-1)!;
      // (a load balancer naming it no longer stops the delete: docs/model.md, "Endpoints")
      const res = r.host.api.HcnDeleteEndpoint(id);
      if (!res.ok) throw new Error(res.message);
      m.deleteEndpoint(id);
      expect(checkKitModel(m, r)).toEqual([]);
    }
    toString = () => 'ForgetEndpoint()';
  }

  it('join fc.commands beside the kit’s', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands([...hnsCommands(), fc.constant(new ForgetEndpoint())], { maxCommands: 30, size: 'max' }),
        (cmds) => fc.asyncModelRun(kitSetup(), cmds),
      ),
      RUNS,
    );
  });
});
