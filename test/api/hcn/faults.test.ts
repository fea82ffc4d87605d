// Faults and timing through host.faults (transport middleware): injected HRESULTs leave state
// unchanged, delays follow the simulated clock, hangs hold until released.
import { describe, expect, it } from 'vitest';
import { HcnClient, HcnError, isNotFoundError, NetworkNotFoundError } from '../../../src/api/hcn/index.js';
import { natNetworkDoc, rejection, setup } from './helpers.js';

/** Let queued promise callbacks run (real event-loop turn; the simulated clock does not move). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function track<T>(p: Promise<T>): { readonly done: boolean; readonly p: Promise<T> } {
  const state = { done: false, p };
  p.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
}

describe('faults through host.faults', () => {
  it('fail(HcnCreateEndpoint, HCN_E_ADDR_INVALID_OR_RESERVED, times 1): HcnError with that code, state unchanged', async () => {
    const { host, hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const before = JSON.stringify(host.snapshot());
    const rule = host.faults.fail((c) => c.method === 'HcnCreateEndpoint', 'HCN_E_ADDR_INVALID_OR_RESERVED', {
      times: 1,
    });
    const e = (await rejection(net.createEndpoint({ Name: 'pod' }))) as HcnError;
    expect(e).toBeInstanceOf(HcnError);
    expect(e.code).toBe('HCN_E_ADDR_INVALID_OR_RESERVED');
    expect(e.hresult).toBe(0x803b002f);
    expect(e.message).toBe(
      'hcnCreateEndpoint failed in Win32: An address provided is invalid or reserved. (0x803b002f) {"Success":false,"Error":"An address provided is invalid or reserved. ","ErrorCode":2151350319}',
    );
    expect(JSON.stringify(host.snapshot())).toBe(before);
    expect(rule.hits).toBe(1);
    // the rule is spent: the retry reaches the service
    const ep = await net.createEndpoint({ Name: 'pod' });
    expect(ep.IpConfigurations[0]!.IpAddress).toBe('192.168.100.2');
  });

  it('a failing query during a lookup surfaces as that HcnError, not as NetworkNotFoundError', async () => {
    const { host, hcn } = setup();
    await hcn.createNetwork(natNetworkDoc());
    host.faults.fail((c) => c.method === 'HcnQueryNetworkProperties', 'HCN_E_MANAGER_STOPPED', { times: 1 });
    const e = await rejection(hcn.getNetworkByName('GoTestNatNetwork'));
    expect(e).not.toBeInstanceOf(NetworkNotFoundError);
    expect((e as HcnError).title).toBe('hcnQueryNetworkProperties');
    expect(isNotFoundError(e)).toBe(false);
  });

  it('delay: the call takes effect only after host.clock.advance(ms)', async () => {
    const { host, hcn } = setup();
    host.faults.delay((c) => c.method === 'HcnCreateNetwork', 100);
    const pending = track(hcn.createNetwork(natNetworkDoc()));
    await settle();
    expect(pending.done).toBe(false);
    expect(host.hns.store.networks.size).toBe(0);
    host.clock.advance(99);
    await settle();
    expect(pending.done).toBe(false);
    host.clock.advance(1);
    const net = await pending.p;
    expect(net.Name).toBe('GoTestNatNetwork');
    expect(host.clock.now()).toBe(100);
  });

  it('hang: a delete is held until the gate is released; others proceed meanwhile', async () => {
    const { host, hcn } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const gate = host.faults.hang((c) => c.method === 'HcnDeleteNetwork');
    const deleting = track(net.delete());
    await settle();
    expect(gate.held).toBe(1);
    expect(deleting.done).toBe(false);
    // another client still sees the network and can use it while the delete hangs
    const other = HcnClient.forHost(host);
    expect((await other.getNetworkByName('GoTestNatNetwork')).ID).toBe(net.ID);
    gate.release();
    await deleting.p;
    await expect(other.getNetworkByName('GoTestNatNetwork')).rejects.toBeInstanceOf(NetworkNotFoundError);
  });

  it('a race: two clients create the same network name; the one that lands second fails', async () => {
    const { host } = setup();
    const a = HcnClient.forHost(host);
    const b = HcnClient.forHost(host);
    const gate = host.faults.hang((c) => c.method === 'HcnCreateNetwork', { times: 1 });
    const first = track(a.createNetwork(natNetworkDoc()));
    await settle();
    const second = await b.createNetwork(natNetworkDoc()); // not held: lands first
    gate.release();
    const e = (await rejection(first.p)) as HcnError;
    expect(e.code).toBe('HCN_E_NETWORK_ALREADY_EXISTS');
    expect((await a.listNetworks()).map((n) => n.ID)).toEqual([second.ID]);
  });
});
