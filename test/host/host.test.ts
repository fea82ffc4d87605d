// createHost: profiles, and the inversify container through which a test replaces any part.
import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.js';
import { createHost, TOKENS } from '../../src/host/host.js';
import type { HnsCall, HnsTransport } from '../../src/api/transport.js';
import { DirectTransport } from '../../src/api/transport.js';
import type { FlatApi } from '../../src/api/flat.js';
import { HcnClient } from '../../src/api/hcn/index.js';

describe('createHost', () => {
  it('resolves named profiles and explicit versions, and refuses unknown ones', () => {
    expect(createHost({ profile: 'ws2019' }).profile.version).toEqual({ major: 9, minor: 5 });
    expect(createHost({ profile: 'WS2025' }).profile.version).toEqual({ major: 15, minor: 4 });
    const v = createHost({ profile: '13.2' });
    expect(v.profile.version).toEqual({ major: 13, minor: 2 });
    expect(v.api.HNSCall('GET', '/globals/version', '')).toMatchObject({
      ok: true,
      result: { Success: true, Output: { Major: 13, Minor: 2 } },
    });
    expect(() => createHost({ profile: 'win95' })).toThrow(expect.objectContaining({ code: 'E_INVALIDARG' }));
  });

  it('answers every v2 call with E_NOTIMPL below HNS 9.2, while HNSCall still works', () => {
    const old = createHost({ profile: '7.2', defaultNamespace: false });
    expect(old.api.HcnEnumerateNetworks('')).toMatchObject({ ok: false, name: 'E_NOTIMPL', hr: 0x80004001 });
    expect(old.api.HNSCall('GET', '/globals/version', '')).toMatchObject({ ok: true });
  });

  it('lets a test replace a part: a clock and a recording transport under the typed client', async () => {
    const clock = new Clock();
    clock.advance(1234);
    const calls: string[] = [];
    const host = createHost({
      seed: 3,
      override: (c) => {
        c.rebind(TOKENS.Clock).toConstantValue(clock);
        c.rebind(TOKENS.Transport).toDynamicValue((ctx) => {
          const inner = new DirectTransport(ctx.get<FlatApi>(TOKENS.FlatApi));
          const recording: HnsTransport = {
            call: (call: HnsCall) => {
              calls.push(call.method);
              return inner.call(call);
            },
          };
          return recording;
        });
      },
    });
    expect(host.clock).toBe(clock);
    const times: number[] = [];
    host.events.on('hns.change', (e) => times.push(e.time));
    const client = HcnClient.forHost(host);
    const net = await client.createNetwork({ Name: 'n', Type: 'NAT' });
    expect(net.Name).toBe('n');
    expect(calls).toEqual(['HcnCreateNetwork', 'HcnQueryNetworkProperties']);
    expect(times).toEqual([1234]);
  });

  it('reports every flat API call as an api.call event with its HRESULT and simulated time', () => {
    const host = createHost({ seed: 1 });
    const seen: [string, number, number][] = [];
    host.events.on('api.call', (e) => seen.push([e.method, e.hresult, e.time]));
    host.clock.advance(50);
    host.api.HcnCreateNetwork(null, '{"Name":"n"}');
    host.api.HcnQueryNetworkProperties('11111111-2222-4333-8444-555555555555', '');
    expect(seen).toEqual([
      ['HcnCreateNetwork', 0, 50],
      ['HcnQueryNetworkProperties', 0x803b0001, 50],
    ]);
  });

  it('gives independent hosts: same seed, same IDs; no shared state', () => {
    const a = createHost({ seed: 9 });
    const b = createHost({ seed: 9 });
    const ra = a.api.HcnCreateNetwork(null, '{"Name":"x"}');
    const rb = b.api.HcnCreateNetwork(null, '{"Name":"x"}');
    expect(ra).toEqual(rb);
    expect(a.api.HcnCreateNetwork(null, '{"Name":"x"}')).toMatchObject({
      name: 'HCN_E_NETWORK_ALREADY_EXISTS',
    });
    expect(createHost({ seed: 10 }).api.HcnCreateNetwork(null, '{"Name":"x"}')).not.toEqual(ra);
  });
});
