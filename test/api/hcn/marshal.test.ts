// Go encoding/json semantics of the typed client: what hcsshim sends (omitempty, struct fields always
// present) and what it reads back (case-insensitive keys, unknown keys dropped).
import { describe, expect, it } from 'vitest';
import {
  defaultQuery,
  filterQuery,
  HostComputeEndpoint,
  HostComputeNamespace,
  HostComputeNetwork,
  HostComputeRoute,
  marshal,
  marshalQuery,
  unmarshal,
  type Spec,
} from '../../../src/api/hcn/index.js';
import { setup } from './helpers.js';

describe('Go encoding/json semantics', () => {
  const spec: Spec = [
    ['S', 'str'],
    ['R', 'strReq'],
    ['N', 'num'],
    ['B', 'bool'],
    ['L', 'strs'],
    ['Raw', 'raw'],
    ['Obj', { obj: [['X', 'str']] }],
    ['Objs', { objs: [['X', 'numReq']] }],
  ];

  it('omitempty drops zero scalars and empty slices; struct fields and json:"" fields are always written', () => {
    expect(marshal(spec, {})).toEqual({ R: '', Obj: {} });
    expect(marshal(spec, { S: 'a', N: 3, B: true, L: ['x'], Raw: {}, Obj: { X: 'y' }, Objs: [{}] })).toEqual({
      S: 'a',
      R: '',
      N: 3,
      B: true,
      L: ['x'],
      Raw: {},
      Obj: { X: 'y' },
      Objs: [{ X: 0 }],
    });
    // key order is the struct's field order
    expect(Object.keys(marshal(spec, { Objs: [{}], S: 'a' }))).toEqual(['S', 'R', 'Obj', 'Objs']);
  });

  it('unmarshal matches keys case-insensitively and ignores unknown ones', () => {
    expect(unmarshal(spec, { s: 'a', OBJ: { x: 'y', Z: 1 }, Extra: true })).toEqual({
      S: 'a',
      Obj: { X: 'y' },
    });
  });

  it('queries: SchemaVersion always, Flags and Filter omitempty, Filter a JSON string', () => {
    expect(marshalQuery(defaultQuery())).toBe('{"SchemaVersion":{"Major":2,"Minor":0}}');
    expect(marshalQuery(filterQuery('Name', 'a"b'))).toBe(
      '{"SchemaVersion":{"Major":2,"Minor":0},"Filter":"{\\"Name\\":\\"a\\\\\\"b\\"}"}',
    );
  });
});

describe('resource documents', () => {
  it('a fresh object marshals like a zero hcsshim struct', () => {
    const { hcn } = setup();
    expect(new HostComputeNetwork(hcn).toJSON()).toEqual({
      MacPool: {},
      Dns: {},
      Health: { Extra: {} },
      SchemaVersion: { Major: 0, Minor: 0 },
    });
    expect(new HostComputeEndpoint(hcn).toJSON()).toEqual({
      Dns: {},
      Health: { Extra: {} },
      SchemaVersion: { Major: 0, Minor: 0 },
    });
  });

  it('fields hcsshim does not model are dropped when reading (IpSubnetId, Routes on an SDN route)', () => {
    const { hcn } = setup();
    const ep = HostComputeEndpoint.fromJSON(hcn, {
      id: 'A',
      IpConfigurations: [{ IpAddress: '10.0.0.2', PrefixLength: 24, IpSubnetId: 'S' }],
    });
    expect(ep.ID).toBe('A');
    expect(ep.IpConfigurations).toEqual([{ IpAddress: '10.0.0.2', PrefixLength: 24 }]);
    const rt = HostComputeRoute.fromJSON(hcn, { ID: 'R', Routes: [{ DestinationPrefix: '0.0.0.0/0' }] });
    expect(rt.Setting).toEqual([]);
    expect(new HostComputeRoute(hcn, { Setting: [{ NeedEncap: false, NextHop: '' }] }).toJSON()).toEqual({
      Setting: [{}],
      SchemaVersion: { Major: 0, Minor: 0 },
    });
  });

  it('a document given to a constructor is copied, not aliased', () => {
    const { hcn } = setup();
    const doc = { Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.0.0.0/24' }] }] };
    const net = new HostComputeNetwork(hcn, doc);
    net.Ipams[0]!.Subnets![0]!.IpAddressPrefix = '10.9.0.0/24';
    expect(doc.Ipams[0]!.Subnets[0]!.IpAddressPrefix).toBe('10.0.0.0/24');
    expect(Object.keys(net)).not.toContain('client');
  });

  it('a document read by fromJSON is not aliased either (nor is a constructor argument afterwards)', () => {
    const { hcn } = setup();
    const policy = () => ({ Type: 'OutBoundNAT', Settings: { Exceptions: ['10.0.0.0/8'] } });
    const epJson = {
      ID: 'E',
      Policies: [policy()],
      IpConfigurations: [{ IpAddress: '10.0.0.2', PrefixLength: 24 }],
      Dns: { ServerList: ['10.0.0.10'] },
      Routes: [{ NextHop: '10.0.0.1', DestinationPrefix: '0.0.0.0/0' }],
      Health: { Extra: { Resources: { A: 1 } } },
    };
    const netJson = {
      ID: 'N',
      Policies: [policy()],
      Ipams: [{ Type: 'Static', Subnets: [{ IpAddressPrefix: '10.0.0.0/24' }] }],
    };
    const nsJson = { ID: 'S', Resources: [{ Type: 'Endpoint', Data: { Id: 'E' } }] };
    const before = JSON.stringify([epJson, netJson, nsJson]);
    const ep = HostComputeEndpoint.fromJSON(hcn, epJson);
    const net = HostComputeNetwork.fromJSON(hcn, netJson);
    const ns = HostComputeNamespace.fromJSON(hcn, nsJson);
    // the objects read hold their own data: changing them leaves the documents, and back
    (ep.Policies[0]!.Settings as { Exceptions: string[] }).Exceptions.push('x');
    ep.IpConfigurations[0]!.IpAddress = 'x';
    ep.Dns.ServerList!.push('x');
    ep.Routes[0]!.NextHop = 'x';
    (net.Policies[0]!.Settings as { Exceptions: string[] }).Exceptions.push('x');
    net.Ipams[0]!.Subnets![0]!.IpAddressPrefix = 'x';
    (ns.Resources[0]!.Data as { Id: string }).Id = 'x';
    expect(JSON.stringify([epJson, netJson, nsJson])).toBe(before);
    epJson.Policies[0]!.Settings.Exceptions.push('y');
    expect(HostComputeEndpoint.fromJSON(hcn, epJson).Policies[0]!.Settings).toEqual({
      Exceptions: ['10.0.0.0/8', 'y'],
    });
    expect(ep.Policies[0]!.Settings).toEqual({ Exceptions: ['10.0.0.0/8', 'x'] });
    // a constructor called after fromJSON copies its argument again
    const doc = { Policies: [policy()] };
    const made = new HostComputeEndpoint(hcn, doc as never);
    (made.Policies[0]!.Settings as { Exceptions: string[] }).Exceptions.push('z');
    expect(doc.Policies[0]!.Settings.Exceptions).toEqual(['10.0.0.0/8']);
  });
});
