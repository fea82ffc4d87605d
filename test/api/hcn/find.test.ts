/**
 * `findEndpointByName` / `findNamespaceByID`: hcsshim's `GetEndpointByName` / `GetNamespaceByID`
 * (hcn/hcnendpoint.go, hcnnamespace.go) with the not-found error given as undefined, for callers
 * that test the name or the namespace (win-bridge's existence checks, containerd's NetNS.Closed):
 * the same calls, the same endpoint or namespace, and every other failure thrown as before.
 */
import { describe, expect, it } from 'vitest';
import { HcnError } from '../../../src/api/hcn/index.js';
import { natNetworkDoc, setup } from './helpers.js';

describe('findEndpointByName', () => {
  it('the first endpoint of that name, as getEndpointByName; undefined where it throws', async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const first = await net.createEndpoint({ Name: 'ep' });
    await net.createEndpoint({ Name: 'ep' });
    rec.clear();
    expect((await hcn.findEndpointByName('ep'))!.ID).toBe(first.ID);
    const found = rec.methods();
    rec.clear();
    expect((await hcn.getEndpointByName('ep')).ID).toBe(first.ID);
    expect(rec.methods()).toEqual(found);
    expect(await hcn.findEndpointByName('missing')).toBeUndefined();
    await expect(hcn.getEndpointByName('missing')).rejects.toThrow('Endpoint name "missing" not found');
  });

  it('a failure of the service is thrown, not taken for "not found"', async () => {
    const { host, hcn } = setup();
    host.faults.fail({ method: 'HcnEnumerateEndpoints' }, 'E_FAIL', { times: 1 });
    await expect(hcn.findEndpointByName('ep')).rejects.toBeInstanceOf(HcnError);
  });
});

describe('findNamespaceByID', () => {
  it('the namespace, or undefined once it is gone', async () => {
    const { hcn } = setup();
    const ns = await hcn.createNamespace({});
    expect((await hcn.findNamespaceByID(ns.ID))!.ID).toBe(ns.ID);
    await ns.delete();
    expect(await hcn.findNamespaceByID(ns.ID)).toBeUndefined();
    await expect(hcn.getNamespaceByID(ns.ID)).rejects.toThrow(`Namespace ID "${ns.ID}" not found`);
  });

  it('a failure of the service is thrown', async () => {
    const { host, hcn } = setup();
    host.faults.fail({ method: 'HcnEnumerateNamespaces' }, 'HCN_E_MANAGER_STOPPED', { times: 1 });
    await expect(hcn.findNamespaceByID('00000000-0000-0000-0000-000000000001')).rejects.toBeInstanceOf(
      HcnError,
    );
  });
});
