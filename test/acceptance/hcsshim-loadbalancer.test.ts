/**
 * hcsshim hcn/hcnloadbalancer_test.go against the simulator: create echoes the config with an ID,
 * DSR / PreserveDIP / ILB flags round-trip, whole-object update (HNS 15.4) and hcsshim's
 * delete-and-recreate AddEndpoint/RemoveEndpoint (reference hns-hcs.md §1.4, §6.13).
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';
import type { JsonObject } from '../../src/core/json.js';
import { anyGuid, expectHcnFailure, goView, HcsshimFlow, sameGuid, sameGuidText } from './hcsshim-flow.js';
import { addLoadBalancerDoc, overlayNetwork, testEndpoint, testLoadBalancer } from './hcsshim-vectors.js';

function setup(profile = 'ws2022') {
  const hcn = new HcsshimFlow(createHost({ seed: 13, profile }));
  const netId = String(hcn.createNetwork(overlayNetwork()).ID);
  const epId = String(hcn.createEndpoint(netId, testEndpoint(netId)).ID);
  return { hcn, netId, epId };
}

const TEST_LB_VIEW = {
  SourceVIP: '10.0.0.1',
  FrontendVIPs: ['1.1.1.2', '1.1.1.3'],
  PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 8090 }],
  SchemaVersion: { Major: 2, Minor: 0 },
};

function backends(lb: JsonObject): string[] {
  return (lb.HostComputeEndpoints as string[] | undefined) ?? [];
}

describe('hcsshim hcn/hcnloadbalancer_test.go', () => {
  it('TestCreateDeleteLoadBalancer: create echoes the config with an ID', () => {
    const { hcn, netId, epId } = setup();
    const doc = testLoadBalancer([epId]);
    expect(JSON.stringify(doc)).toBe(
      `{"HostComputeEndpoints":["${epId}"],"SourceVIP":"10.0.0.1","FrontendVIPs":["1.1.1.2","1.1.1.3"],` +
        '"PortMappings":[{"Protocol":6,"InternalPort":8080,"ExternalPort":8090}],"SchemaVersion":{"Major":2,"Minor":0}}',
    );
    const lb = hcn.createLoadBalancer(doc);
    expect(goView('HostComputeLoadBalancer', lb)).toEqual({
      ID: anyGuid(),
      HostComputeEndpoints: [sameGuid(epId)],
      ...TEST_LB_VIEW,
    });
    expect(lb).not.toHaveProperty('Flags');
    hcn.delete('LoadBalancer', String(lb.ID));
    expect(hcn.byId('LoadBalancer', String(lb.ID))).toEqual([]);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
  });

  it('TestCreateUpdateDeleteLoadBalancer on ws2025 (HNS 15.4): Update 1 → 2 → 1 backends', () => {
    const { hcn, netId, epId } = setup('ws2025');
    const lb = hcn.createLoadBalancer(testLoadBalancer([epId]));
    const lbId = String(lb.ID);
    const second = String(hcn.createEndpoint(netId, testEndpoint(netId)).ID);

    // HcnLoadBalancerTestAddBackend, then loadBalancer.Update(id): the whole object, ID included
    const added = hcn.updateLoadBalancer(lbId, { ...lb, HostComputeEndpoints: [...backends(lb), second] });
    expect(backends(added)).toHaveLength(2);
    expect(goView('HostComputeLoadBalancer', added)).toEqual({
      ID: sameGuid(lbId),
      HostComputeEndpoints: [sameGuid(epId), sameGuid(second)],
      ...TEST_LB_VIEW,
    });

    // HcnLoadBalancerTestRemoveBackend, then Update again
    const removed = hcn.updateLoadBalancer(lbId, {
      ...added,
      HostComputeEndpoints: backends(added).filter((id) => !sameGuidText(id, second)),
    });
    expect(backends(removed)).toHaveLength(1);
    expect(backends(removed)).toEqual([sameGuid(epId)]);

    hcn.delete('LoadBalancer', lbId);
    hcn.delete('Endpoint', second);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
  });

  it('TestCreateUpdateDeleteLoadBalancer on ws2022 (HNS 15.0): HcnModifyLoadBalancer is rejected', () => {
    const { hcn, netId, epId } = setup('ws2022');
    const lb = hcn.createLoadBalancer(testLoadBalancer([epId]));
    const second = String(hcn.createEndpoint(netId, testEndpoint(netId)).ID);
    const doc = { ...lb, HostComputeEndpoints: [...backends(lb), second] };
    // ModifyLoadbalancer needs HNS 15.4 (reference §4); below it the call is not implemented:
    // E_NOTIMPL 0x80004001, which kube-proxy's hcn.IsNotImplemented fallback keys on
    expectHcnFailure(
      hcn.host,
      () => hcn.host.api.HcnModifyLoadBalancer(String(lb.ID), JSON.stringify(doc)),
      0x80004001,
      'E_NOTIMPL',
    );
    expect(backends(hcn.get('LoadBalancer', String(lb.ID)))).toEqual([sameGuid(epId)]);
  });

  it('TestGetLoadBalancerById', () => {
    const { hcn, epId } = setup();
    const lb = hcn.createLoadBalancer(testLoadBalancer([epId]));
    expect(hcn.byId('LoadBalancer', String(lb.ID))).toEqual([lb]);
  });

  it('TestListLoadBalancer', () => {
    const { hcn, epId } = setup();
    expect(hcn.list('LoadBalancer')).toEqual([]);
    const lb = hcn.createLoadBalancer(testLoadBalancer([epId]));
    expect(hcn.list('LoadBalancer')).toEqual([lb]);
  });

  it('TestLoadBalancerAddRemoveEndpoint: hcsshim deletes and re-creates the LB each time', () => {
    const { hcn, netId, epId } = setup();
    // `loadBalancer` is hcsshim's in-memory object: AddEndpoint/RemoveEndpoint mutate it in place
    const loadBalancer: JsonObject = { ...hcn.createLoadBalancer(testLoadBalancer([epId])) };
    const second = String(hcn.createEndpoint(netId, testEndpoint(netId)).ID);

    // AddEndpoint: Delete(loadBalancer.Id), append, Create(loadBalancer) — the JSON still carries ID
    hcn.delete('LoadBalancer', String(loadBalancer.ID));
    loadBalancer.HostComputeEndpoints = [...backends(loadBalancer), second];
    const updated = hcn.createLoadBalancer(loadBalancer);
    expect(backends(updated)).toHaveLength(2);

    // RemoveEndpoint on the same object: Delete(loadBalancer.Id) must find the re-created LB
    hcn.delete('LoadBalancer', String(loadBalancer.ID));
    loadBalancer.HostComputeEndpoints = backends(loadBalancer).filter((id) => id !== second);
    const removed = hcn.createLoadBalancer(loadBalancer);
    expect(backends(removed)).toHaveLength(1);

    hcn.delete('LoadBalancer', String(loadBalancer.ID));
    hcn.delete('Endpoint', second);
    hcn.delete('Endpoint', epId);
    hcn.delete('Network', netId);
    expect(hcn.enumerate('LoadBalancer')).toEqual([]);
  });

  it('TestAddLoadBalancer: AddLoadBalancer(flags None, TCP 8080 ← 80)', () => {
    const { hcn, epId } = setup();
    const lb = hcn.createLoadBalancer(addLoadBalancerDoc([epId], 0, 0));
    expect(goView('HostComputeLoadBalancer', lb)).toEqual({
      ID: anyGuid(),
      HostComputeEndpoints: [sameGuid(epId)],
      SourceVIP: '10.0.0.1',
      FrontendVIPs: ['1.1.1.2', '1.1.1.3'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80 }],
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(hcn.byId('LoadBalancer', String(lb.ID))).toEqual([lb]);
  });

  it('TestAddDSRLoadBalancer: Flags 1 (DSR) and PortMappings[0].Flags 8 (PreserveDIP) round-trip', () => {
    const { hcn, epId } = setup();
    const doc = addLoadBalancerDoc([epId], 1, 8);
    expect(JSON.stringify(doc)).toBe(
      `{"HostComputeEndpoints":["${epId}"],"SourceVIP":"10.0.0.1","FrontendVIPs":["1.1.1.2","1.1.1.3"],` +
        '"PortMappings":[{"Protocol":6,"InternalPort":8080,"ExternalPort":80,"Flags":8}],' +
        '"SchemaVersion":{"Major":2,"Minor":0},"Flags":1}',
    );
    const lb = hcn.createLoadBalancer(doc);
    const [found] = hcn.byId('LoadBalancer', String(lb.ID));
    expect(found!.Flags).toBe(1);
    expect((found!.PortMappings as JsonObject[])[0]!.Flags).toBe(8);
    expect(goView('HostComputeLoadBalancer', found!)).toEqual({
      ID: anyGuid(),
      HostComputeEndpoints: [sameGuid(epId)],
      SourceVIP: '10.0.0.1',
      FrontendVIPs: ['1.1.1.2', '1.1.1.3'],
      PortMappings: [{ Protocol: 6, InternalPort: 8080, ExternalPort: 80, Flags: 8 }],
      SchemaVersion: { Major: 2, Minor: 0 },
      Flags: 1,
    });
  });

  it('TestAddILBLoadBalancer: PortMappings[0].Flags 1 (ILB) round-trips', () => {
    const { hcn, epId } = setup();
    const lb = hcn.createLoadBalancer(addLoadBalancerDoc([epId], 0, 1));
    const [found] = hcn.byId('LoadBalancer', String(lb.ID));
    expect((found!.PortMappings as JsonObject[])[0]!.Flags).toBe(1);
    expect(found).not.toHaveProperty('Flags');
  });
});
