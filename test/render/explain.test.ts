// Explanations (src/render/explain.ts) of traces through one host: the verdict, the rule that
// decided, the policy quoted as HNS holds it, and the ACL that would turn the verdict. The ACLs
// are HNS documents (reference hns-hcs.md §2.2); what is expected is read off those documents.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { createHost } from '../../src/host/host.js';
import { explainTrace, renderExplanation } from '../../src/render/explain.js';
import { traceNames } from '../../src/render/trace.js';

function hostWithAcls(policies: JsonObject[]) {
  const host = createHost({ seed: 5, name: 'node-1' });
  const net = host.api.HcnCreateNetwork(null, {
    Name: 'nat',
    Type: 'NAT',
    Ipams: [
      {
        Type: 'Static',
        Subnets: [
          {
            IpAddressPrefix: '172.20.0.0/24',
            Routes: [{ NextHop: '172.20.0.1', DestinationPrefix: '0.0.0.0/0' }],
          },
        ],
      },
    ],
  });
  if (!net.ok) throw new Error(net.message);
  const mk = (Name: string, Policies: JsonObject[] = []) => {
    const ns = host.api.HcnCreateNamespace(null, {});
    const ep = host.api.HcnCreateEndpoint(net.result.ID as string, null, { Name, Policies });
    if (!ns.ok || !ep.ok) throw new Error('setup');
    host.api.HcnModifyNamespace(ns.result.ID as string, {
      ResourceType: 'Endpoint',
      RequestType: 'Add',
      Settings: { EndpointId: ep.result.ID },
    });
    return ep.result;
  };
  const client = mk('client');
  const web = mk('web', policies);
  const policy = (_node: string, rule: { id: string; index?: number }) => {
    const q = host.api.HcnQueryEndpointProperties(rule.id);
    return q.ok && rule.index !== undefined
      ? ((q.result.Policies as JsonObject[])[rule.index] ?? undefined)
      : undefined;
  };
  const ip = (e: JsonObject) => (e.IpConfigurations as { IpAddress: string }[])[0]!.IpAddress;
  return { host, client, web, policy, clientIp: ip(client), webIp: ip(web) };
}

const block22: JsonObject = {
  Type: 'ACL',
  Settings: {
    Id: 'no-ssh',
    Action: 'Block',
    Direction: 'In',
    Protocols: '6',
    LocalPorts: '22',
    Priority: 300,
  },
};
const allow80: JsonObject = {
  Type: 'ACL',
  Settings: { Id: 'web', Action: 'Allow', Direction: 'In', Protocols: '6', LocalPorts: '80', Priority: 200 },
};

describe('explainTrace', () => {
  it('a Block rule: names it, quotes it, and proposes an Allow just above it', () => {
    const h = hostWithAcls([allow80, block22]);
    const r = h.host.trace({ from: 'client', to: 'web', destinationPort: 22 });
    const e = explainTrace(r, { names: traceNames(h.host), policy: h.policy });
    expect(e.verdict).toBe('denied');
    expect(e.disposition).toBe('DeniedIn');
    expect(e.headline).toBe('client → web is denied on the way into endpoint web on node-1.');
    expect(e.why[0]).toContain('(Id no-ssh, priority 300)');
    expect(e.why[1]).toContain('"Id":"no-ssh"');
    expect(e.change[0]).toContain(
      `{"Type":"ACL","Settings":{"Action":"Allow","Direction":"In","Protocols":"6","RemoteAddresses":"${h.clientIp}","LocalPorts":"22","Priority":299}}`,
    );
    expect(renderExplanation(e)).toMatch(/^DENIED \(DeniedIn\): TCP .*:50000 → .*:22\n/);
  });

  it('no rule matches: the default deny of an endpoint with ACLs', () => {
    const h = hostWithAcls([allow80]);
    const e = explainTrace(h.host.trace({ from: 'client', to: 'web', destinationPort: 8080 }), {
      names: traceNames(h.host),
    });
    expect(e.verdict).toBe('denied');
    expect(e.why[0]).toMatch(/^No ACL rule of endpoint web matches this packet inbound/);
    expect(e.change[0]).toContain('"Action":"Allow"');
    expect(e.change[0]).toContain('"LocalPorts":"8080"');
  });

  it('allowed: the rule that let it in, and a Block that would win over it', () => {
    const h = hostWithAcls([allow80]);
    const e = explainTrace(h.host.trace({ from: 'client', to: 'web', destinationPort: 80 }), {
      names: traceNames(h.host),
      from: 'the client',
    });
    expect(e.verdict).toBe('allowed');
    expect(e.headline).toMatch(/^the client → web is allowed/);
    expect(e.why[0]).toContain('Id web, priority 200');
    expect(e.change[0]).toContain('"Action":"Block"');
    expect(e.change[0]).toContain('"Priority":199');
  });

  it('no ACL anywhere: allowed by default, and how to deny it', () => {
    const h = hostWithAcls([]);
    const e = explainTrace(h.host.trace({ from: 'client', to: 'web' }), { names: traceNames(h.host) });
    expect(e.verdict).toBe('allowed');
    expect(e.why[0]).toBe(
      'No endpoint on the way has an ACL policy, and an endpoint without ACLs allows everything.',
    );
    expect(e.change[0]).toMatch(/^To deny it, add to endpoint web/);
  });
});
