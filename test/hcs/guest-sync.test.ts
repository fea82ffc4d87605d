/**
 * Host vs Guest namespaces (reference hns-hcs.md §7.3): "hot-adding an endpoint to a Guest namespace
 * of a running pod needs namespace.Sync() (the shim's sync op) whereas Host namespaces update
 * automatically". A utility VM sees the NICs hot-added to it, so an endpoint added to its Guest
 * namespace in HNS shows up in the guest only once the shim (on sync) adds the NIC; a process
 * container sees its Host namespace's new endpoint at once.
 */
import { describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import { containerView } from '../../src/hcs/view.js';
import { addToNamespace, ok } from '../api/hcs-helpers.js';

const V2 = { Major: 2, Minor: 0 };
const NIC2 = '0b7c2ef6-9d54-4c54-9f3f-2b8e0f0b0a02';

function setup(type: 'Host' | 'Guest'): { host: Host; ns: string; net: string; first: string } {
  const host = createHost({ seed: 9 });
  const net = String(
    ok(host.api.HcnCreateNetwork(null, { Name: 'nat', Type: 'NAT', SchemaVersion: V2 }))['ID'],
  );
  const first = String(
    ok(host.api.HcnCreateEndpoint(net, null, { Name: 'pod_eth0', SchemaVersion: V2 }))['ID'],
  );
  const ns = String(ok(host.api.HcnCreateNamespace(null, { Type: type, SchemaVersion: V2 }))['ID']);
  addToNamespace(host, ns, first);
  return { host, ns, net, first };
}

describe('Guest namespaces need the sync step; Host ones update at once', () => {
  it('a utility VM sees an endpoint added to its Guest namespace only after the shim adds the NIC', () => {
    const { host, ns, net, first } = setup('Guest');
    host.hcs.create('uvm', { SchemaVersion: { Major: 2, Minor: 1 }, Owner: 'shim', VirtualMachine: {} });
    host.hcs.start('uvm');
    host.hcs.modify('uvm', {
      GuestRequest: { ResourceType: 'NetworkNamespace', RequestType: 'Add', Settings: { Id: ns } },
    });
    host.hcs.modify('uvm', {
      ResourcePath: 'VirtualMachine/Devices/NetworkAdapters/0b7c2ef6-9d54-4c54-9f3f-2b8e0f0b0a01',
      RequestType: 'Add',
      Settings: { EndpointId: first },
    });
    expect(containerView(host.hcs, 'uvm').interfaces.map((i) => i.endpointId)).toEqual([first]);
    // the pod gets a second endpoint in HNS: the guest does not see it yet
    const second = String(
      ok(host.api.HcnCreateEndpoint(net, null, { Name: 'pod_eth1', SchemaVersion: V2 }))['ID'],
    );
    addToNamespace(host, ns, second);
    expect(containerView(host.hcs, 'uvm').interfaces.map((i) => i.endpointId)).toEqual([first]);
    // sync: the shim adds the NIC for the new endpoint
    host.hcs.modify('uvm', {
      ResourcePath: `VirtualMachine/Devices/NetworkAdapters/${NIC2}`,
      RequestType: 'Add',
      Settings: { EndpointId: second },
    });
    expect(containerView(host.hcs, 'uvm').interfaces.map((i) => i.endpointId)).toEqual([first, second]);
  });

  it('a process container sees an endpoint added to its Host namespace at once', () => {
    const { host, ns, net, first } = setup('Host');
    host.hcs.create('c1', {
      SchemaVersion: { Major: 2, Minor: 1 },
      Owner: 'c',
      Container: { Networking: { Namespace: ns } },
    });
    host.hcs.start('c1');
    const second = String(
      ok(host.api.HcnCreateEndpoint(net, null, { Name: 'pod_eth1', SchemaVersion: V2 }))['ID'],
    );
    addToNamespace(host, ns, second);
    expect(containerView(host.hcs, 'c1').interfaces.map((i) => i.endpointId)).toEqual([first, second]);
  });
});
