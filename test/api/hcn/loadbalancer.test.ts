// HostComputeLoadBalancer through the typed client (reference hns-hcs.md §1.4, §6.13): create, flags,
// port conflicts, update (HNS 15.4) and add/remove endpoint as delete + re-create.
import { describe, expect, it } from 'vitest';
import type { HnsChangeEvent } from '../../../src/core/events.js';
import { isNotImplemented, type HcnError } from '../../../src/api/hcn/index.js';
import {
  HostComputeLoadBalancer,
  isNotFoundError,
  isPortAlreadyExistsError,
  LoadBalancerFlags,
  LoadBalancerNotFoundError,
  LoadBalancerPortMappingFlags,
  type HostComputeEndpoint,
} from '../../../src/api/hcn/index.js';
import { overlayNetworkDoc, rejection, sentSettings, setup, type Fixture } from './helpers.js';

async function twoEndpoints(f: Fixture): Promise<[HostComputeEndpoint, HostComputeEndpoint]> {
  const net = await f.hcn.createNetwork(overlayNetworkDoc());
  const a = await net.createEndpoint({ Name: 'GoTestNatEndpoint', SchemaVersion: { Major: 2, Minor: 0 } });
  const b = await net.createEndpoint({ Name: 'GoTestNatEndpoint', SchemaVersion: { Major: 2, Minor: 0 } });
  return [a, b];
}

function lbChanges(f: Fixture): HnsChangeEvent[] {
  const seen: HnsChangeEvent[] = [];
  f.host.events.on('hns.change', (e) => {
    if (e.kind === 'LoadBalancer') seen.push(e);
  });
  return seen;
}

describe('HostComputeLoadBalancer', () => {
  it('create echoes the config with an ID (HcnCreateTestLoadBalancer)', async () => {
    const f = setup();
    const [a] = await twoEndpoints(f);
    const lb = await f.hcn.createLoadBalancer({
      HostComputeEndpoints: [a.ID],
      SourceVIP: '10.0.0.1',
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 8090 }],
      FrontendVIPs: ['1.1.1.2', '1.1.1.3'],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(sentSettings(f.rec, 'HcnCreateLoadBalancer', 1)).toEqual({
      HostComputeEndpoints: [a.ID],
      SourceVIP: '10.0.0.1',
      FrontendVIPs: ['1.1.1.2', '1.1.1.3'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 8090 }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(lb).toBeInstanceOf(HostComputeLoadBalancer);
    expect(lb.ID).toMatch(/^[0-9A-F-]{36}$/);
    expect(lb.HostComputeEndpoints).toEqual([a.ID.toUpperCase()]);
    expect(lb.FrontendVIPs).toEqual(['1.1.1.2', '1.1.1.3']);
    expect(lb.PortMappings).toEqual([{ Protocol: 6, InternalPort: 8080, ExternalPort: 8090 }]);
    expect((await f.hcn.listLoadBalancers()).map((x) => x.ID)).toEqual([lb.ID]);
    expect((await f.hcn.getLoadBalancerByID(lb.ID)).SourceVIP).toBe('10.0.0.1');
    const q = await f.hcn.listLoadBalancersQuery({
      SchemaVersion: { Major: 2, Minor: 0 },
      Filter: '{"SourceVIP":"10.0.0.1"}',
    });
    expect(q.map((x) => x.ID)).toEqual([lb.ID]);
    expect(lb.toJSON()).toEqual({
      ...sentSettings(f.rec, 'HcnCreateLoadBalancer', 1)!,
      ID: lb.ID,
      HostComputeEndpoints: [a.ID],
    });
  });

  it('addLoadBalancer: DSR flag and PreserveDIP / ILB port-mapping flags round-trip', async () => {
    const f = setup();
    const [a, b] = await twoEndpoints(f);
    const dsr = await f.hcn.addLoadBalancer(
      [a, b],
      LoadBalancerFlags.DSR,
      LoadBalancerPortMappingFlags.PreserveDIP,
      '10.0.0.1',
      ['1.1.1.2'],
      6,
      8080,
      80,
    );
    expect(dsr.Flags).toBe(1);
    expect(dsr.PortMappings[0]!.Flags).toBe(8);
    expect(dsr.HostComputeEndpoints).toHaveLength(2);
    expect(dsr.SchemaVersion).toEqual({ Major: 2, Minor: 0 });
    const ilb = await f.hcn.addLoadBalancer(
      [a],
      0,
      LoadBalancerPortMappingFlags.ILB,
      '10.0.0.1',
      ['1.1.1.9'],
      17,
      53,
      53,
    );
    expect(ilb.Flags).toBe(0);
    expect(ilb.PortMappings[0]).toEqual({ Protocol: 17, InternalPort: 53, ExternalPort: 53, Flags: 1 });
  });

  it('the same frontend twice: HCN_E_PORT_ALREADY_EXISTS', async () => {
    const f = setup();
    const [a, b] = await twoEndpoints(f);
    await f.hcn.addLoadBalancer([a], 0, 0, '', ['1.1.1.2'], 6, 8080, 80);
    const e = await rejection(f.hcn.addLoadBalancer([b], 0, 0, '', ['1.1.1.2'], 6, 8080, 80));
    expect(isPortAlreadyExistsError(e)).toBe(true);
    expect((e as HcnError).title).toBe('hcnCreateLoadBalancer');
  });

  it('addEndpoint / removeEndpoint delete the load balancer and create it again (TestLoadBalancerAddRemoveEndpoint)', async () => {
    const f = setup();
    const [a, b] = await twoEndpoints(f);
    const lb = await f.hcn.addLoadBalancer([a], 0, 0, '10.0.0.1', ['1.1.1.2'], 6, 8080, 8090);
    const changes = lbChanges(f);
    f.rec.clear();

    const added = await lb.addEndpoint(b);
    expect(f.rec.methods()).toEqual([
      'HcnDeleteLoadBalancer',
      'HcnCreateLoadBalancer',
      'HcnQueryLoadBalancerProperties',
    ]);
    expect(changes.map((c) => c.op)).toEqual(['delete', 'create']);
    expect(added.HostComputeEndpoints).toHaveLength(2);
    expect(lb.HostComputeEndpoints).toEqual([a.ID, b.ID]); // the receiver's list is changed, as in Go
    // hcsshim marshals the receiver, ID included; the service keeps a given ID, so the re-created
    // load balancer has the same ID — which hcsshim's own test relies on (it deletes by the old ID)
    expect(sentSettings(f.rec, 'HcnCreateLoadBalancer', 1)).toMatchObject({ ID: lb.ID });
    expect(added.ID).toBe(lb.ID);

    const removed = await lb.removeEndpoint(b);
    expect(removed.HostComputeEndpoints).toEqual([a.ID]);
    expect(changes.map((c) => c.op)).toEqual(['delete', 'create', 'delete', 'create']);
    await lb.delete();
    expect(await f.hcn.listLoadBalancers()).toEqual([]);
  });

  it('without an ID in the document, a re-created load balancer gets a new ID', async () => {
    const f = setup();
    const [a, b] = await twoEndpoints(f);
    const lb = await f.hcn.addLoadBalancer([a], 0, 0, '', ['1.1.1.2'], 6, 8080, 8090);
    const draft = new HostComputeLoadBalancer(f.hcn, lb);
    await lb.delete();
    draft.ID = '';
    draft.HostComputeEndpoints.push(b.ID);
    const again = await draft.create();
    expect(again.ID).not.toBe(lb.ID);
    expect(again.HostComputeEndpoints).toHaveLength(2);
  });

  it('update sends the whole document to HcnModifyLoadBalancer (HNS 15.4, ws2025)', async () => {
    const f = setup('ws2025');
    const [a, b] = await twoEndpoints(f);
    const lb = await f.hcn.addLoadBalancer([a, b], 0, 0, '', ['1.1.1.2'], 6, 8080, 8090);
    const changes = lbChanges(f);
    f.rec.clear();
    lb.HostComputeEndpoints = [b.ID];
    const updated = await lb.update(lb.ID);
    expect(f.rec.methods()).toEqual(['HcnModifyLoadBalancer', 'HcnQueryLoadBalancerProperties']);
    expect(sentSettings(f.rec, 'HcnModifyLoadBalancer', 1)).toEqual(lb.toJSON());
    expect(changes.map((c) => c.op)).toEqual(['modify']);
    expect(updated.ID).toBe(lb.ID);
    expect(updated.HostComputeEndpoints).toEqual([b.ID]);
  });

  it('update before HNS 15.4 fails in the service (ws2022), leaving the load balancer as it was', async () => {
    const f = setup('ws2022');
    const [a, b] = await twoEndpoints(f);
    const lb = await f.hcn.addLoadBalancer([a, b], 0, 0, '', ['1.1.1.2'], 6, 8080, 8090);
    lb.HostComputeEndpoints = [b.ID];
    const e = (await rejection(lb.update(lb.ID))) as HcnError;
    // hcsshim's IsNotImplemented (CheckErrorWithCode with HCN_E_NOTIMPL = windows.E_NOTIMPL) matches
    expect(e.code).toBe('E_NOTIMPL');
    expect(isNotImplemented(e)).toBe(true);
    expect(e.title).toBe('hcnModifyLoadBalancer');
    expect((await f.hcn.getLoadBalancerByID(lb.ID)).HostComputeEndpoints).toHaveLength(2);
    await expect(f.hcn.modifyLoadbalancerSupported()).rejects.toThrow(
      'platform does not support feature ModifyLoadbalancer',
    );
  });

  it('missing: LoadBalancerNotFoundError; bad IDs: "invalid load balancer ID"', async () => {
    const f = setup();
    const e = await rejection(f.hcn.getLoadBalancerByID('5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(e).toBeInstanceOf(LoadBalancerNotFoundError);
    expect(e.message).toBe('LoadBalancer "5f0b1190-63be-4e0c-b974-bd0f55675a42" not found');
    expect(isNotFoundError(e)).toBe(true);
    expect((await rejection(new HostComputeLoadBalancer(f.hcn).delete())).message).toBe(
      'invalid load balancer ID',
    );
    expect((await rejection(new HostComputeLoadBalancer(f.hcn).update('nope'))).message).toBe(
      'invalid load balancer ID',
    );
    const gone = (await rejection(
      new HostComputeLoadBalancer(f.hcn, { ID: '5f0b1190-63be-4e0c-b974-bd0f55675a42' }).delete(),
    )) as HcnError;
    expect(gone.code).toBe('ERROR_NOT_FOUND');
    expect(isNotFoundError(gone)).toBe(true);
  });
});
