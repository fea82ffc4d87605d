// HostComputeNamespace through the typed client (reference hns-hcs.md §1.3, §6.10): resources,
// add/remove endpoint, not-found errors and Sync.
import { describe, expect, it } from 'vitest';
import type { HcnError } from '../../../src/api/hcn/index.js';
import {
  HostComputeNamespace,
  isElementNotFoundError,
  isNotFoundError,
  NamespaceNotFoundError,
  NamespaceType,
} from '../../../src/api/hcn/index.js';
import { natNetworkDoc, rejection, sentSettings, setup } from './helpers.js';

describe('HostComputeNamespace', () => {
  it('newNamespace builds {Type, SchemaVersion 2.0} without calling; create returns the queried namespace', async () => {
    const { hcn, rec } = setup();
    const draft = hcn.newNamespace(NamespaceType.Host);
    expect(draft.toJSON()).toEqual({ Type: 'Host', SchemaVersion: { Major: 2, Minor: 0 } });
    expect(rec.calls).toEqual([]);
    const ns = await draft.create();
    expect(rec.methods()).toEqual(['HcnCreateNamespace', 'HcnQueryNamespaceProperties']);
    expect(sentSettings(rec, 'HcnCreateNamespace', 1)).toEqual({
      Type: 'Host',
      SchemaVersion: { Major: 2, Minor: 0 },
    });
    expect(ns).toBeInstanceOf(HostComputeNamespace);
    expect(ns.Type).toBe('Host');
    expect(ns.NamespaceId).toBeGreaterThan(1); // compartment 1 is the HostDefault one the host booted with
    expect(ns.Id).toBe(ns.ID);
  });

  it('a namespace with no Type (containerd, hcsoci) is created and read back without Type', async () => {
    const { hcn, rec } = setup();
    const ns = await hcn.createNamespace({});
    expect(sentSettings(rec, 'HcnCreateNamespace', 1)).toEqual({ SchemaVersion: { Major: 0, Minor: 0 } });
    expect(ns.Type).toBe('');
  });

  it('listNamespaces / getNamespaceByID / delete', async () => {
    const { hcn } = setup();
    const boot = await hcn.listNamespaces();
    expect(boot.map((n) => n.Type)).toEqual(['HostDefault']);
    const ns = await hcn.newNamespace('Host').create();
    expect((await hcn.listNamespaces()).length).toBe(2);
    expect((await hcn.getNamespaceByID(ns.ID)).NamespaceId).toBe(ns.NamespaceId);
    expect(
      (
        await hcn.listNamespacesQuery({ SchemaVersion: { Major: 2, Minor: 0 }, Filter: '{"Type":"Host"}' })
      ).map((n) => n.ID),
    ).toEqual([ns.ID]);
    await ns.delete();
    expect((await hcn.listNamespaces()).length).toBe(1);
    expect(((await rejection(ns.delete())) as HcnError).code).toBe('ERROR_NOT_FOUND');
  });

  it('missing: NamespaceNotFoundError "Namespace ID \\"…\\" not found" (TestMissingNamespaceById)', async () => {
    const { hcn } = setup();
    const e = await rejection(hcn.getNamespaceByID('5f0b1190-63be-4e0c-b974-bd0f55675a42'));
    expect(e).toBeInstanceOf(NamespaceNotFoundError);
    expect(e.message).toBe('Namespace ID "5f0b1190-63be-4e0c-b974-bd0f55675a42" not found');
    expect(isNotFoundError(e)).toBe(true);
    expect(isElementNotFoundError(e)).toBe(false); // a client-side error, not an HcnError
    expect(
      (await rejection(hcn.getNamespaceEndpointIds('5f0b1190-63be-4e0c-b974-bd0f55675a42'))).message,
    ).toBe('Namespace ID "5f0b1190-63be-4e0c-b974-bd0f55675a42" not found');
  });

  it('add/remove endpoint and container resources (TestAddRemoveNamespaceEndpoint)', async () => {
    const { hcn, rec } = setup();
    const net = await hcn.createNetwork(natNetworkDoc());
    const ep = await net.createEndpoint({ Name: 'e' });
    const ns = await hcn.newNamespace('HostDefault').create();
    rec.clear();
    await hcn.addNamespaceEndpoint(ns.ID, ep.ID.toLowerCase());
    expect(JSON.parse(rec.calls[0]!.args[1] as string)).toEqual({
      ResourceType: 'Endpoint',
      RequestType: 'Add',
      Settings: { EndpointId: ep.ID.toLowerCase() },
    });
    expect(await hcn.getNamespaceEndpointIds(ns.ID)).toEqual([ep.ID.toUpperCase()]);

    await hcn.modifyNamespaceSettings(ns.ID, {
      ResourceType: 'Container',
      RequestType: 'Add',
      Settings: { ContainerId: 'pause-1' },
    });
    expect(await hcn.getNamespaceContainerIds(ns.ID)).toEqual(['pause-1']);
    const same = await hcn.getNamespaceByID(ns.ID);
    expect(same.Resources.map((r) => r.Type)).toEqual(['Endpoint', 'Container']);

    await hcn.removeNamespaceEndpoint(ns.ID, ep.ID);
    expect(await hcn.getNamespaceEndpointIds(ns.ID)).toEqual([]);
    // removing again: the service says ERROR_NOT_FOUND, which hcsshim's predicates treat as not-found
    const e = await rejection(hcn.removeNamespaceEndpoint(ns.ID, ep.ID));
    expect(isElementNotFoundError(e)).toBe(true);
    expect(isNotFoundError(e)).toBe(true);
  });

  it('modifyNamespaceSettings on the object, and bad IDs', async () => {
    const { hcn, rec } = setup();
    const ns = await hcn.newNamespace('Host').create();
    await ns.modifyNamespaceSettings({
      ResourceType: 'Container',
      RequestType: 'Add',
      Settings: { ContainerId: 'c1' },
    });
    expect(await hcn.getNamespaceContainerIds(ns.ID)).toEqual(['c1']);
    rec.clear();
    expect((await rejection(hcn.addNamespaceEndpoint('bad', ns.ID))).message).toBe('invalid namespace ID');
    expect((await rejection(new HostComputeNamespace(hcn).delete())).message).toBe('invalid namespace ID');
    expect(rec.calls).toEqual([]);
  });

  it('sync is a no-op for Host types; for Guest types it runs the client hook, and succeeds without one', async () => {
    const synced: string[] = [];
    const { hcn, rec } = setup('ws2022', {
      syncGuestNamespace: async (ns) => {
        synced.push(ns.ID);
      },
    });
    const host = await hcn.newNamespace('Host').create();
    const guest = await hcn.newNamespace('Guest').create();
    rec.clear();
    await host.sync();
    await guest.sync();
    expect(synced).toEqual([guest.ID]);
    expect(rec.calls).toEqual([]);
    const plain = setup();
    const g2 = await plain.hcn.newNamespace('Guest').create();
    await expect(g2.sync()).resolves.toBeUndefined();
  });
});
