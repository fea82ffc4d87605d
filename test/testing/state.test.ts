/**
 * The test kit's canonical view and matchers (src/testing/state.ts): a failed call leaves the
 * view equal; a change shows in it; history (RNG, clock, counters) does not; the matchers pass and
 * fail with messages that name what is wrong.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { canonicalState, hnsimMatchers, KIT_CONFLIST, type CanonicalState } from '../../src/testing/index.js';
import { ContainerdRuntime } from '../../src/runtime/containerd.js';
import { cniNetwork } from '../../src/runtime/network.js';
import { addL2Bridge } from '../runtime/kit.js';

declare module 'vitest' {
  interface Assertion<T> {
    toHaveNoLeaks(): T;
    toHaveEndpoint(want: string | JsonObject): T;
    toMatchHnsState(state: CanonicalState): T;
  }
}
expect.extend(hnsimMatchers);

function node(seed = 3): Host {
  const host = createHost({ seed });
  addL2Bridge(host, '10.244.1.1');
  return host;
}

describe('canonicalState', () => {
  it('a refused call leaves it equal; a successful one changes exactly its kind', () => {
    const host = node();
    const before = canonicalState(host);
    const dup = host.api.HcnCreateNetwork(null, { Name: 'cbr0', Type: 'L2Bridge' });
    expect(dup.ok).toBe(false);
    expect(host).toMatchHnsState(before);
    host.files.write('/x', 'y');
    const after = canonicalState(host);
    expect(after.files).toEqual({ '/x': 'y' });
    expect(after.networks).toEqual(before.networks);
    expect(host).not.toMatchHnsState(before);
  });

  it('history is not in it: the clock, the RNG and the counters move, the view does not', () => {
    const host = node();
    const before = canonicalState(host);
    host.clock.advance(60_000);
    // an endpoint made and deleted moves the sequence counter, the RNG and the MAC pool
    const net = [...host.hns.store.networks.keys()][0]!;
    const ep = host.api.HcnCreateEndpoint(net, null, { Name: 'tmp', SchemaVersion: { Major: 2, Minor: 0 } });
    if (!ep.ok) throw new Error(ep.message);
    host.api.HcnDeleteEndpoint((ep.result as { ID: string }).ID);
    expect(canonicalState(host)).toEqual(before);
  });

  it('two nodes built alike hold the same objects', () => {
    expect(canonicalState(node(5))).toEqual(canonicalState(node(5)));
    expect(canonicalState(node(5))).not.toEqual(canonicalState(node(6)));
  });
});

describe('matchers', () => {
  it('toHaveEndpoint and toHaveNoLeaks across a pod’s life', async () => {
    const host = node();
    const rt = new ContainerdRuntime(host, { networks: [cniNetwork(host, JSON.stringify(KIT_CONFLIST))] });
    const pod = await rt.runPodSandbox({ metadata: { name: 'web', namespace: 'default', uid: 'u1' } });
    expect(host).toHaveEndpoint(`${pod}_cbr0`);
    expect(host).toHaveEndpoint({ IpConfigurations: [{ IpAddress: '10.244.1.3', PrefixLength: 24 }] });
    expect(host).toHaveEndpoint({ Name: expect.stringMatching(/_cbr0$/) as unknown as string });
    expect(host).not.toHaveEndpoint({ IpConfigurations: [{ IpAddress: '10.244.1.9' }] });
    expect(host).toHaveNoLeaks();
    await rt.stopPodSandbox(pod);
    await rt.removePodSandbox(pod);
    expect(host).not.toHaveEndpoint(`${pod}_cbr0`);
    expect(host).toHaveNoLeaks();
  });

  it('failure messages name what is wrong', () => {
    const host = node();
    const net = [...host.hns.store.networks.keys()][0]!;
    host.api.HcnCreateEndpoint(net, null, { Name: 'lost', SchemaVersion: { Major: 2, Minor: 0 } });
    expect(() => expect(host).toHaveNoLeaks()).toThrow(
      /expected no leaks, found 1:\n {2}endpoint-unused .*endpoint lost is in no namespace/,
    );
    expect(() => expect(host).toHaveEndpoint('other')).toThrow(/the node has: lost/);
    const before = canonicalState(host);
    host.files.write('/x', 'y');
    expect(() => expect(host).toMatchHnsState(before)).toThrow(/these differ: files/);
    expect(() => expect({}).toHaveNoLeaks()).toThrow(/expected a simulated host/);
  });
});
