/**
 * Each rule of `checkInvariants` (src/testing/invariants.ts, over `auditStore` in src/hns/audit.ts
 * and `auditNics`) on a host that breaks it. A healthy host is built through the flat API (a
 * network, three endpoints — one with a PortMapping, one remote —, two namespaces, a load
 * balancer, an SDN route, a v1 ELB policy list), checked clean, then broken behind the service's
 * back by direct store access (as a bug or a hand-edited store would), one break per test; the
 * finding list must be exactly the lines the broken rule states (written here from the rule, with
 * the objects' IDs), and nothing else — a break that must also trip a second rule lists both.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { FlatApi } from '../../src/api/flat.js';
import type { JsonObject } from '../../src/core/json.js';
import type { EndpointRec, LoadBalancerRec, NamespaceRec } from '../../src/hns/model.js';
import { createHost, type Host } from '../../src/host/host.js';
import { checkInvariants } from '../../src/testing/index.js';

const V2 = { Major: 2, Minor: 0 };

function ok(r: { ok: boolean; name?: string; message?: string; result?: unknown }): JsonObject {
  if (!r.ok) throw new Error(`${r.name} ${r.message}`);
  return r.result as JsonObject;
}

interface World {
  readonly host: Host;
  readonly net: string;
  /** Endpoint `a`: 10.244.1.2, pooled MAC, PortMapping TCP 8080, in ns1, behind the LB. */
  readonly a: string;
  /** Endpoint `b`: 10.244.1.3, in no namespace, named by the route and the policy list. */
  readonly b: string;
  /** Remote endpoint `r` (Flags 1): 10.244.2.5, behind the LB. */
  readonly r: string;
  readonly ns1: string;
  /** Empty, compartment 3. */
  readonly ns2: string;
  readonly lb: string;
  readonly route: string;
  readonly pl: string;
  readonly sw: string;
}

function build(): World {
  const host = createHost({ seed: 9 });
  const api = host.api;
  const net = String(
    ok(
      api.HcnCreateNetwork(null, {
        Name: 'cbr0',
        Type: 'L2Bridge',
        SchemaVersion: V2,
        Ipams: [
          {
            Type: 'Static',
            Subnets: [
              {
                IpAddressPrefix: '10.244.1.0/24',
                Routes: [{ NextHop: '10.244.1.1', DestinationPrefix: '0.0.0.0/0' }],
              },
            ],
          },
        ],
      }),
    )['ID'],
  );
  const ep = (doc: JsonObject) =>
    String(ok(api.HcnCreateEndpoint(net, null, { SchemaVersion: V2, ...doc }))['ID']);
  const a = ep({
    Name: 'a',
    Policies: [{ Type: 'PortMapping', Settings: { InternalPort: 80, ExternalPort: 8080, Protocol: 6 } }],
  });
  const b = ep({ Name: 'b' });
  const r = ep({
    Name: 'r',
    Flags: 1,
    IpConfigurations: [{ IpAddress: '10.244.2.5' }],
    MacAddress: '02-11-0a-f4-02-05',
  });
  const ns1 = String(ok(api.HcnCreateNamespace(null, { SchemaVersion: V2 }))['ID']);
  ok(
    api.HcnModifyNamespace(ns1, {
      ResourceType: 'Endpoint',
      RequestType: 'Add',
      Settings: { EndpointId: a },
    }),
  );
  const ns2 = String(ok(api.HcnCreateNamespace(null, { SchemaVersion: V2 }))['ID']);
  const lb = String(
    ok(
      api.HcnCreateLoadBalancer(null, {
        HostComputeEndpoints: [a, r],
        FrontendVIPs: ['10.96.0.10'],
        PortMappings: [{ Protocol: 6, InternalPort: 80, ExternalPort: 80 }],
        SchemaVersion: V2,
      }),
    )['ID'],
  );
  const route = String(
    ok(
      api.HcnCreateSdnRoute(null, {
        HostComputeEndpoints: [b],
        Setting: [{ DestinationPrefix: '10.0.0.0/8', NextHop: '10.244.1.1' }],
        SchemaVersion: V2,
      }),
    )['ID'],
  );
  const out = ok(
    api.HNSCall(
      'POST',
      '/policylists/',
      JSON.stringify({
        References: [`/endpoints/${b}`],
        Policies: [
          {
            Type: 'ELB',
            SourceVIP: '10.244.1.9',
            VIPs: ['10.96.0.20'],
            Protocol: 6,
            InternalPort: 80,
            ExternalPort: 80,
          },
        ],
      }),
    ),
  );
  const pl = String((out['Output'] as JsonObject)['ID']);
  const sw = host.hns.store.nics.networkSwitch.get(net)!;
  return { host, net, a, b, r, ns1, ns2, lb, route, pl, sw };
}

let w: World;
beforeEach(() => {
  w = build();
  expect(checkInvariants(w.host)).toEqual([]);
});

const store = () => w.host.hns.store;
const found = () => checkInvariants(w.host);
const epRec = (id: string) => store().endpoints.get(id)!;
const nsRec = (id: string) => store().namespaces.get(id)!;
const lbRec = (id: string) => store().loadBalancers.get(id)!;
const setEp = (id: string, patch: Partial<EndpointRec>) =>
  store().endpoints.set(id, { ...epRec(id), ...patch });
const setNs = (id: string, patch: Partial<NamespaceRec>) =>
  store().namespaces.set(id, { ...nsRec(id), ...patch } as NamespaceRec);
const setLb = (id: string, patch: Partial<LoadBalancerRec>) =>
  store().loadBalancers.set(id, { ...lbRec(id), ...patch });
const alloc = () => store().alloc.get(w.net)!;
/** A GUID no object has. */
const GHOST = '0BADF00D-0000-4000-8000-000000000001';

describe('IDs', () => {
  it('the ID index holds what the tables hold', () => {
    store().ids.delete(w.ns2);
    expect(found()).toEqual(['ID index holds 9 IDs, tables hold 10']);
  });

  it('a record is filed under its own ID', () => {
    const rec = nsRec(w.ns2);
    store().namespaces.delete(w.ns2);
    store().namespaces.set(GHOST, rec);
    store().ids.delete(w.ns2);
    store().ids.add(GHOST);
    const defaultNs = [...store().namespaces.keys()][0]!;
    expect(found()).toEqual([
      `Namespace filed under ${GHOST} has ID ${w.ns2}`,
      // the enumeration lists the records' own IDs
      `HcnEnumerateNamespaces() = [${defaultNs}, ${w.ns1}, ${w.ns2}], tables hold [${defaultNs}, ${w.ns1}, ${GHOST}]`,
    ]);
  });

  it('a table holds records of its kind', () => {
    setNs(w.ns2, { kind: 'Endpoint' } as unknown as Partial<NamespaceRec>);
    expect(found()).toEqual([`Namespace table holds a Endpoint record ${w.ns2}`]);
  });

  it('IDs are upper-case', () => {
    const lower = w.ns2.toLowerCase();
    const rec = nsRec(w.ns2);
    store().namespaces.delete(w.ns2);
    store().namespaces.set(lower, { ...rec, ID: lower });
    store().ids.delete(w.ns2);
    store().ids.add(lower);
    expect(found()).toEqual([`Namespace ${lower}: ID is not upper-case`]);
  });

  it('an ID names one object across kinds', () => {
    const s = store();
    s.seq++;
    s.loadBalancers.set(w.ns2, {
      ...lbRec(w.lb),
      ID: w.ns2,
      HostComputeEndpoints: [],
      dips: [],
      PortMappings: [],
      seq: s.seq,
    });
    expect(found()).toEqual([`ID ${w.ns2} is used by both a Namespace and a LoadBalancer`]);
  });

  it('creation sequence numbers are unique', () => {
    setNs(w.ns2, { seq: epRec(w.a).seq });
    expect(found()).toEqual([`Namespace ${w.ns2}: creation sequence ${epRec(w.a).seq} also used by ${w.a}`]);
  });

  it('no sequence number beyond the store’s counter', () => {
    const s = store();
    setNs(w.ns2, { seq: s.seq + 5 });
    expect(found()).toEqual([`Namespace ${w.ns2}: sequence ${s.seq + 5} is beyond the store's ${s.seq}`]);
  });
});

describe('networks: the name index and allocation state', () => {
  it('the name index names the network', () => {
    store().networkByName.set('cbr0', GHOST);
    expect(found()).toEqual([
      `networkByName["cbr0"] is ${GHOST}, expected network ${w.net}`,
      `networkByName["cbr0"] names missing network ${GHOST}`,
    ]);
  });

  it('a named network is in the name index', () => {
    store().networkByName.delete('cbr0');
    expect(found()).toEqual([
      `networkByName["cbr0"] is missing, expected network ${w.net}`,
      'networkByName has 0 entries for 1 named networks',
    ]);
  });

  it('an index entry names a network so called', () => {
    store().networkByName.set('other', w.net);
    expect(found()).toEqual([
      `networkByName["other"] names network ${w.net} called "cbr0"`,
      'networkByName has 2 entries for 1 named networks',
    ]);
  });

  it('the endpoint name index is the one the records give', () => {
    // a rename that bypasses the table's own index upkeep
    Map.prototype.set.call(store().endpoints, w.b, { ...epRec(w.b), Name: 'renamed' });
    expect(found()).toEqual([
      `endpoint name index["b"] holds ${w.b}, the endpoints so named are nothing`,
      `endpoint name index["renamed"] holds nothing, the endpoints so named are ${w.b}`,
    ]);
  });

  it('the endpoint GUID-name index is the one the records give', () => {
    const guidName = '{6f1c2a3b-0000-4000-8000-00000000abcd}';
    Map.prototype.set.call(store().endpoints, w.b, { ...epRec(w.b), Name: guidName });
    expect(found()).toEqual([
      `endpoint name index["b"] holds ${w.b}, the endpoints so named are nothing`,
      `endpoint name index["${guidName}"] holds nothing, the endpoints so named are ${w.b}`,
      `endpoint GUID-name index["6F1C2A3B-0000-4000-8000-00000000ABCD"] holds nothing, the endpoints so named are ${w.b}`,
    ]);
  });

  it('allocation state exists for exactly the networks', () => {
    store().alloc.delete(w.net);
    expect(found()).toEqual([`allocation state exists for [], networks are [${w.net}]`]);
  });
});

describe('adapters and vSwitches', () => {
  const nics = () => store().nics;
  const swRec = () => nics().switches.get(w.sw)!;

  it('a switch lists no missing network', () => {
    nics().networkSwitch.set(GHOST, w.sw);
    expect(found()).toEqual([
      `switch ${w.sw} lists a missing network ${GHOST}`,
      `switch ${w.sw} does not list its network ${GHOST}`,
    ]);
  });

  it('a network sits on an existing switch that carries its ID as SwitchGuid', () => {
    nics().networkSwitch.set(w.net, GHOST);
    // w.net made the switch, so the switch carries its ID (issue 15: SwitchGuid names that network)
    expect(w.sw).toBe(w.net);
    expect(found()).toEqual([
      `network ${w.net} has the ID of a switch it is not on`,
      `network ${w.net} is on a missing switch ${GHOST}`,
      `switch ${w.sw} lists network ${w.net} filed elsewhere`,
      `network ${w.net}: SwitchGuid ${w.sw} is not its switch ${GHOST}`,
    ]);
  });

  it('a network on no switch has no SwitchGuid', () => {
    nics().networkSwitch.delete(w.net);
    nics().switches.set(w.sw, { ...swRec(), Networks: [] });
    // the switch the network made is still filed under its ID, with no network on it
    expect(found()).toEqual([
      `network ${w.net} has the ID of a switch it is not on`,
      `switch ${w.sw} has no network but still exists`,
      `network ${w.net} is on no switch but has SwitchGuid ${w.sw}`,
    ]);
  });

  it('a network’s SwitchGuid is its switch', () => {
    store().networks.set(w.net, { ...store().networks.get(w.net)!, SwitchGuid: GHOST });
    expect(found()).toEqual([`network ${w.net}: SwitchGuid ${GHOST} is not its switch ${w.sw}`]);
  });

  it('a switch without networks is gone', () => {
    nics().switches.set(w.sw, { ...swRec(), Networks: [] });
    expect(found()).toEqual([
      `switch ${w.sw} does not list its network ${w.net}`,
      `switch ${w.sw} has no network but still exists`,
    ]);
  });

  it('a switch’s host vNIC exists and is bound to it', () => {
    const key = 'vethernet (ethernet)';
    nics().adapters.set(key, { ...nics().adapters.get(key)!, SwitchId: undefined });
    expect(found()).toEqual([
      `switch ${w.sw}: host vNIC vEthernet (Ethernet) is missing or not bound`,
      'host vNIC vEthernet (Ethernet) has no switch',
    ]);
  });

  it('a switch’s uplink exists, is bound, and gave its address to the host vNIC', () => {
    const key = 'ethernet';
    const vnic = nics().adapters.get('vethernet (ethernet)')!;
    nics().adapters.set(key, { ...nics().adapters.get(key)!, IPv4: vnic.IPv4 });
    expect(found()).toEqual([`switch ${w.sw}: uplink Ethernet still holds ${vnic.IPv4!.IPAddress}`]);
    nics().adapters.delete(key);
    expect(found()).toEqual([`switch ${w.sw}: uplink Ethernet is missing or not bound`]);
  });

  it('an adapter is bound to an existing switch', () => {
    const key = 'ethernet';
    nics().adapters.set(key, { ...nics().adapters.get(key)!, SwitchId: GHOST });
    expect(found()).toEqual([
      `switch ${w.sw}: uplink Ethernet is missing or not bound`,
      'adapter Ethernet is bound to a missing switch',
    ]);
  });
});

describe('IP and MAC pools, claims', () => {
  const a2 = '10.244.1.2';
  const pool = () => alloc().pools[0]!;
  const cfg = (id: string) => epRec(id).IpConfigurations[0]!;

  it('the endpoint index of a network is the endpoints on it', () => {
    alloc().endpoints.delete(w.b);
    expect(found()).toEqual([
      `network ${w.net}: endpoint index [${w.a}, ${w.r}] != endpoints on it [${w.a}, ${w.b}, ${w.r}]`,
    ]);
  });

  it('one IP pool per subnet', () => {
    alloc().pools.push(pool().clone());
    expect(found()).toEqual([
      `network ${w.net}: 2 IP pools for 1 subnets`,
      `network ${w.net}: pool of #1 has 2 addresses in use, endpoints hold 0`,
    ]);
  });

  it('a pool is for its subnet’s prefix', () => {
    const other = pool().clone();
    Object.defineProperty(other, 'prefix', { value: { family: 4, addr: 0x0a0a0000, len: 24 } });
    alloc().pools[0] = other;
    // the subnet's addresses are not this pool's
    expect(found()).toEqual([
      `endpoint ${w.a}: pooled address 10.244.1.2 is not allocated in 10.244.1.0/24`,
      `endpoint ${w.b}: pooled address 10.244.1.3 is not allocated in 10.244.1.0/24`,
      `network ${w.net}: pool #0 is for another prefix than subnet 10.244.1.0/24`,
    ]);
  });

  it('a pooled address names one of the network’s subnets', () => {
    setEp(w.a, { IpConfigurations: [{ ...cfg(w.a), subnet: 3 }] });
    expect(found()).toEqual([
      `endpoint ${w.a}: pooled address ${a2} names subnet #3 of network ${w.net}, which has 1`,
      `network ${w.net}: pool of 10.244.1.0/24 has 2 addresses in use, endpoints hold 1`,
    ]);
  });

  it('a pooled address is inside its subnet and allocated there', () => {
    setEp(w.a, {
      IpConfigurations: [{ ...cfg(w.a), IpAddress: '10.9.9.9', addr: { family: 4, value: 0x0a090909 } }],
    });
    expect(found()).toEqual([
      `endpoint ${w.a}: pooled address 10.9.9.9 is outside its subnet 10.244.1.0/24`,
      `endpoint ${w.a}: pooled address 10.9.9.9 is not allocated in 10.244.1.0/24`,
    ]);
  });

  it('IpAddress is the address held', () => {
    setEp(w.a, { IpConfigurations: [{ ...cfg(w.a), IpAddress: '10.244.1.99' }] });
    expect(found()).toEqual([`endpoint ${w.a}: IpAddress "10.244.1.99" is not the address ${a2} it holds`]);
  });

  it('a pooled address is allocated', () => {
    pool().release(cfg(w.a).addr);
    expect(found()).toEqual([
      `endpoint ${w.a}: pooled address ${a2} is not allocated in 10.244.1.0/24`,
      `network ${w.net}: pool of 10.244.1.0/24 has 1 addresses in use, endpoints hold 2`,
    ]);
  });

  it('an address is held by one endpoint', () => {
    setEp(w.b, { IpConfigurations: [{ ...cfg(w.a) }] });
    expect(found()).toEqual([
      `network ${w.net}: address ${a2} is held by two endpoints`,
      `network ${w.net}: pool of 10.244.1.0/24 has 2 addresses in use, endpoints hold 1`,
    ]);
  });

  it('a pooled MAC is allocated, once, and written as its number', () => {
    const macs = alloc().macs;
    const a = epRec(w.a);
    macs.release(a.mac);
    expect(found()).toEqual([
      `endpoint ${w.a}: pooled MAC ${a.MacAddress} is not allocated`,
      `network ${w.net}: MAC pool has 1 in use, endpoints hold 2`,
    ]);
  });

  it('a MAC is held by one endpoint', () => {
    const a = epRec(w.a);
    setEp(w.b, { mac: a.mac, MacAddress: a.MacAddress });
    expect(found()).toEqual([
      `network ${w.net}: MAC ${a.MacAddress} is held by two endpoints`,
      `network ${w.net}: MAC pool has 2 in use, endpoints hold 1`,
    ]);
  });

  it('MacAddress is the pooled number written out', () => {
    const a = epRec(w.a);
    setEp(w.a, { MacAddress: '00-15-5D-00-00-99' });
    expect(found()).toEqual([`endpoint ${w.a}: MacAddress 00-15-5D-00-00-99 != its number ${a.MacAddress}`]);
  });

  it('a claim is made by one endpoint and recorded for it', () => {
    setEp(w.b, { Policies: epRec(w.a).Policies });
    expect(found()).toEqual([
      `network ${w.net}: claim PortMapping/6/8080/* is made by endpoints ${w.a} and ${w.b}`,
      `network ${w.net}: claim PortMapping/6/8080/* of endpoint ${w.b} is recorded as ${w.a}`,
    ]);
  });

  it('every policy claim is recorded', () => {
    alloc().claims.delete('PortMapping/6/8080/*');
    expect(found()).toEqual([
      `network ${w.net}: claim PortMapping/6/8080/* of endpoint ${w.a} is recorded as absent`,
    ]);
  });

  it('every recorded claim is made by a policy', () => {
    alloc().claims.set('PortMapping/17/53/*', w.b);
    expect(found()).toEqual([
      `network ${w.net}: claim PortMapping/17/53/* recorded for ${w.b} is made by no endpoint policy`,
    ]);
  });
});

describe('references', () => {
  it('an endpoint’s network exists', () => {
    // the remote endpoint: nothing pooled, so only the network's own index notices it left
    setEp(w.r, { HostComputeNetwork: GHOST });
    expect(found()).toEqual([
      `network ${w.net}: endpoint index [${w.a}, ${w.b}, ${w.r}] != endpoints on it [${w.a}, ${w.b}]`,
      `endpoint ${w.r}: network ${GHOST} does not exist`,
    ]);
  });

  it('an endpoint’s namespace exists and lists it', () => {
    setEp(w.a, { HostComputeNamespace: GHOST });
    expect(found()).toEqual([
      `endpoint ${w.a}: namespace ${GHOST} does not exist`,
      `namespace ${w.ns1} lists endpoint ${w.a}, whose namespace is ${GHOST}`,
    ]);
  });

  it('the namespace lists its endpoint', () => {
    setNs(w.ns1, { Resources: [] });
    expect(found()).toEqual([`endpoint ${w.a}: namespace ${w.ns1} does not list it`]);
  });

  it('a namespace lists an endpoint once', () => {
    setNs(w.ns1, { Resources: [...nsRec(w.ns1).Resources, ...nsRec(w.ns1).Resources] });
    expect(found()).toEqual([`namespace ${w.ns1} lists endpoint ${w.a} twice`]);
  });

  it('a namespace lists only endpoints that exist and are in it', () => {
    setNs(w.ns2, { Resources: [{ Type: 'Endpoint', ID: GHOST }] } as Partial<NamespaceRec>);
    expect(found()).toEqual([`namespace ${w.ns2} lists missing endpoint ${GHOST}`]);
    setNs(w.ns2, { Resources: [{ Type: 'Endpoint', ID: w.b }] } as Partial<NamespaceRec>);
    expect(found()).toEqual([`namespace ${w.ns2} lists endpoint ${w.b}, whose namespace is none`]);
  });

  it('compartments are unique and below the next free one', () => {
    setNs(w.ns2, { NamespaceId: 2 });
    expect(found()).toEqual([`namespaces ${w.ns1} and ${w.ns2} share compartment 2`]);
    const next = store().nextCompartment;
    setNs(w.ns2, { NamespaceId: next });
    expect(found()).toEqual([
      `namespace ${w.ns2}: compartment ${next} is not below the next free one ${next}`,
    ]);
  });

  // HNS lets an endpoint (and its network) go while load balancers, routes and policy lists name
  // it; they keep naming it (docs/model.md, "Endpoints"). That state is no violation: the leak
  // audit reports it (endpoint-reference-stale). What still is: a reference endpointRefs does not
  // hold, and a load balancer or list without one address list per backend.
  it('a load balancer, route and list naming deleted endpoints is a state HNS allows', () => {
    const api = w.host.api;
    for (const r of [api.HcnDeleteEndpoint(w.a), api.HcnDeleteEndpoint(w.b)]) expect(r.ok).toBe(true);
    expect(found()).toEqual([]);
    expect(store().endpointRefs.get(w.a)).toEqual(new Set([w.lb]));
    expect(store().endpointRefs.get(w.b)).toEqual(new Set([w.route, w.pl]));
    expect(api.HcnDeleteNetwork(w.net).ok).toBe(true);
    expect(found()).toEqual([]);
  });

  it('a load balancer’s references are in endpointRefs, with one address list per backend', () => {
    const lb = lbRec(w.lb);
    setLb(w.lb, { HostComputeEndpoints: [w.a, w.r, GHOST] });
    expect(found()).toEqual([
      `load balancer ${w.lb}: 2 backend address lists for 3 backends`,
      `endpointRefs[${GHOST}] is [], expected [${w.lb}]`,
    ]);
    setLb(w.lb, { HostComputeEndpoints: [w.a, w.r, GHOST], dips: [...lb.dips, ['10.244.1.99']] });
    expect(found()).toEqual([`endpointRefs[${GHOST}] is [], expected [${w.lb}]`]);
    setLb(w.lb, { HostComputeEndpoints: [w.a, w.r], dips: [lb.dips[0]!] });
    expect(found()).toEqual([`load balancer ${w.lb}: 1 backend address lists for 2 backends`]);
    // a network that no longer exists is a stale reference, not a violation
    setLb(w.lb, { dips: lb.dips, HostComputeNetwork: GHOST });
    expect(found()).toEqual([]);
  });

  it('an SDN route’s references are in endpointRefs', () => {
    const rt = store().routes.get(w.route)!;
    store().routes.set(w.route, { ...rt, HostComputeEndpoints: [w.b, GHOST] });
    expect(found()).toEqual([`endpointRefs[${GHOST}] is [], expected [${w.route}]`]);
    store().routes.set(w.route, { ...rt, HostComputeNetwork: GHOST });
    expect(found()).toEqual([]);
  });

  it('a policy list’s references are in endpointRefs, with one address list per reference', () => {
    const pl = store().policyLists.get(w.pl)!;
    store().policyLists.set(w.pl, { ...pl, References: [...pl.References, `/endpoints/${GHOST}`] });
    expect(found()).toEqual([
      `policy list ${w.pl}: 1 backend address lists for 2 backends`,
      `endpointRefs[${GHOST}] is [], expected [${w.pl}]`,
    ]);
  });

  it('endpointRefs is exactly who references each endpoint', () => {
    store().endpointRefs.get(w.a)!.add(GHOST);
    expect(found()).toEqual([`endpointRefs[${w.a}] is [${w.lb}, ${GHOST}], expected [${w.lb}]`]);
    store().endpointRefs.get(w.a)!.delete(GHOST);
    store().endpointRefs.set(GHOST, new Set([w.lb]));
    expect(found()).toEqual([`endpointRefs[${GHOST}] is [${w.lb}] but nothing references it`]);
  });
});

describe('frontend claims', () => {
  const VIP10 = '6/80/174063626'; // TCP 80 on 10.96.0.10 as a number (10.96.0.10 = 0x0A60000A)

  it('a frontend is claimed by one load balancer', () => {
    const s = store();
    s.seq++;
    s.loadBalancers.set(GHOST, {
      ...lbRec(w.lb),
      ID: GHOST,
      HostComputeEndpoints: [],
      dips: [],
      seq: s.seq,
    });
    s.ids.add(GHOST);
    expect(found()).toEqual([
      `frontend ${VIP10} is claimed by both ${w.lb} and ${GHOST}`,
      `lbClaims[${VIP10}] is ${w.lb}, expected ${GHOST}`,
    ]);
  });

  it('lbClaims is exactly the frontends of the load balancers and ELB policy lists', () => {
    store().lbClaims.set(VIP10, GHOST);
    expect(found()).toEqual([`lbClaims[${VIP10}] is ${GHOST}, expected ${w.lb}`]);
    store().lbClaims.set(VIP10, w.lb);
    store().lbClaims.set('17/53/174063626', w.lb);
    expect(found()).toEqual([`lbClaims[17/53/174063626] → ${w.lb} is claimed by nothing`]);
  });
});

describe('enumerations', () => {
  /** The host with one Enumerate function replaced. */
  function withEnumerate(name: 'HcnEnumerateNetworks' | 'HcnEnumerateSdnRoutes', fn: () => unknown) {
    const api = new Proxy(w.host.api, {
      get: (t, k, r) => (k === name ? fn : (Reflect.get(t, k, r) as unknown)),
    }) as FlatApi;
    return { hns: w.host.hns, api };
  }

  it('each HcnEnumerate* returns the table’s IDs in creation order', () => {
    const t = withEnumerate('HcnEnumerateNetworks', () => ({ ok: true, hr: 0, result: [GHOST] }));
    expect(checkInvariants(t)).toEqual([`HcnEnumerateNetworks() = [${GHOST}], tables hold [${w.net}]`]);
  });

  it('a failing HcnEnumerate* is a finding; E_NOTIMPL (a host without the v2 API) is not', () => {
    const failing = withEnumerate('HcnEnumerateSdnRoutes', () => ({ ok: false, hr: 0x80070005 }));
    expect(checkInvariants(failing)).toEqual(['HcnEnumerateSdnRoutes() failed with 0x80070005']);
    const v1only = withEnumerate('HcnEnumerateSdnRoutes', () => ({ ok: false, hr: 0x80004001 }));
    expect(checkInvariants(v1only)).toEqual([]);
  });
});
