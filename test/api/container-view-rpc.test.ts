// GetContainerView over JSON-RPC: what a container sees, as data or as the text of ipconfig /all,
// route print and Get-DnsClient; the errors of a missing system spelled as the host's Hcs* calls.
import { describe, expect, it } from 'vitest';
import { callRpc, RpcServer, type RpcResponse } from '../../src/api/rpc.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { containerDoc, setupHcs } from './hcs-helpers.js';

function result(r: RpcResponse): Json {
  if ('error' in r) throw new Error(`unexpected error ${JSON.stringify(r.error)}`);
  return r.result;
}

describe('GetContainerView', () => {
  it('a running container sees the endpoint of its namespace: data and three texts', async () => {
    const fx = setupHcs();
    const s = new RpcServer(fx.host);
    result(await callRpc(s, 'HcsCreateComputeSystem', ['c1', containerDoc(fx.ns)]));
    result(await callRpc(s, 'HcsStartComputeSystem', ['c1']));
    const ep = fx.host.hns.store.endpoints.get(fx.eps[0]!)!;
    const ip = ep.IpConfigurations[0]!.IpAddress;
    const view = result(await callRpc(s, 'GetContainerView', ['c1'])) as JsonObject;
    const ifs = view['interfaces'] as JsonObject[];
    expect(ifs).toHaveLength(1);
    expect(ifs[0]).toMatchObject({ endpointId: ep.ID });
    expect(JSON.stringify(ifs[0]!['ipv4'])).toContain(ip);
    const ipconfig = result(await callRpc(s, 'GetContainerView', ['c1', 'ipconfig'])) as string;
    expect(ipconfig).toContain('Windows IP Configuration');
    expect(ipconfig).toContain(ip);
    // each text is of this container's view: its address in the routes, its interface in the table
    const route = result(await callRpc(s, 'GetContainerView', ['c1', 'route'])) as string;
    expect(route).toContain('IPv4 Route Table');
    expect(route).toContain(ip);
    const dnsclient = result(await callRpc(s, 'GetContainerView', ['c1', 'dnsclient'])) as string;
    expect(dnsclient).toContain('InterfaceAlias');
    expect(dnsclient).toContain(`vEthernet (${ep.Name})`);
  });

  it('a missing system is -32000 with the spelled HRESULT; a bad format is invalid params', async () => {
    const fx = setupHcs('vmcompute');
    const s = new RpcServer(fx.host);
    const missing = await callRpc(s, 'GetContainerView', ['nope']);
    expect('error' in missing && missing.error.code).toBe(-32000);
    expect('error' in missing && (missing.error.data as { hresult: number }).hresult).toBe(0xc037010e);
    const bad = await callRpc(s, 'GetContainerView', ['nope', 'netstat']);
    expect('error' in bad && bad.error.code).toBe(-32602);
  });
});
