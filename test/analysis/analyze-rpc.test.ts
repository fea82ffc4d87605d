/**
 * JSON-RPC `Analyze` (src/analysis/rpc.ts) on a server with analysisRpcMethods: `{from, to}` is
 * reachability as `hnsim analyze --format json` prints it, `{endpoint}` a port's ACL analysis (as
 * `AnalyzePort`); bad parameters are InvalidParams (-32602) with what is wrong, an unknown source or
 * endpoint the HNS error (-32000, ERROR_NOT_FOUND). The node: client 10.244.1.5 without ACLs, web
 * 10.244.1.6 whose ACL opens TCP 80 and 443 inbound (everything outbound).
 */
import { describe, expect, it } from 'vitest';
import { RpcServer, type RpcResponse } from '../../src/api/rpc.js';
import { analysisRpcMethods } from '../../src/analysis/rpc.js';
import type { Json, JsonObject } from '../../src/core/json.js';
import { analysisNode } from '../cli/state-file.js';

const acl = (Id: string, Action: string, Direction: string, more: JsonObject = {}): JsonObject => ({
  Type: 'ACL',
  Settings: { Id, Action, Direction, Priority: 100, ...more },
});

function server(): RpcServer {
  const host = analysisNode([
    ['client', '10.244.1.5', []],
    [
      'web',
      '10.244.1.6',
      [
        acl('web-in', 'Allow', 'In', { Protocols: '6', LocalPorts: '80,443' }),
        acl('web-out', 'Allow', 'Out'),
      ],
    ],
  ]);
  return new RpcServer(host, { methods: analysisRpcMethods(host) });
}

async function call(s: RpcServer, method: string, params: Json[]): Promise<RpcResponse> {
  return JSON.parse(
    (await s.handle(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })))!,
  ) as RpcResponse;
}

const resultOf = (r: RpcResponse) => {
  if ('error' in r) throw new Error(`unexpected error ${JSON.stringify(r.error)}`);
  return r.result as JsonObject;
};
const errorOf = (r: RpcResponse) => {
  if (!('error' in r)) throw new Error(`unexpected result ${JSON.stringify(r.result)}`);
  return r.error;
};

/** Every packet of a pair: TCP and UDP with every port pair, and 254 other protocols. */
const ALL = 2n * 2n ** 32n + 254n;

describe('JSON-RPC Analyze', () => {
  it('is served beside AnalyzePort', () => {
    expect(server().methods.slice(-2)).toEqual(['Analyze', 'AnalyzePort']);
  });

  it('{from, to}: every packet from client to web by disposition, with counts, text and a replayable witness', async () => {
    const doc = resultOf(await call(server(), 'Analyze', [{ from: 'client', to: 'web' }]));
    expect(doc).toMatchObject({
      from: 'client',
      to: 'web',
      source: '10.244.1.5',
      destination: '10.244.1.6',
      exact: true,
    });
    const d = doc['dispositions'] as Record<string, { count: string; text: string[]; trace: JsonObject }>;
    expect(Object.keys(d)).toEqual(['Delivered', 'DeniedIn']);
    expect(d['Delivered']!.count).toBe('131072');
    expect(d['Delivered']!.text).toEqual(['TCP to 10.244.1.6 port 80, 443 from 10.244.1.5']);
    expect(d['Delivered']!.trace).toEqual({
      from: 'client',
      to: '10.244.1.6',
      protocol: 6,
      sourcePort: 50000,
      destinationPort: 80,
    });
    expect(d['DeniedIn']!.count).toBe(String(ALL - 131072n));
    expect(d['DeniedIn']!.text).toEqual([
      'any protocol except TCP to 10.244.1.6 from 10.244.1.5',
      'TCP to 10.244.1.6 port 0-79, 81-442, 444-65535 from 10.244.1.5',
    ]);
    // the other way: web's outbound ACL allows all, client has none
    const back = resultOf(await call(server(), 'Analyze', [{ from: 'web', to: 'client' }]));
    expect(Object.keys(back['dispositions'] as JsonObject)).toEqual(['Delivered']);
    expect((back['dispositions'] as Record<string, { count: string }>)['Delivered']!.count).toBe(String(ALL));
  });

  it('{endpoint}: the port analysis, the same answer as AnalyzePort', async () => {
    const s = server();
    const a = resultOf(await call(s, 'Analyze', [{ endpoint: 'web' }]));
    expect(a).toEqual(resultOf(await call(s, 'AnalyzePort', [{ endpoint: 'web' }])));
    const rules = (
      a['In'] as { rules: { rule: { ruleId: string }; status: string; decides: { text: string[] } }[] }
    ).rules;
    expect(rules.map((r) => [r.rule.ruleId, r.status, r.decides.text])).toEqual([
      ['web-in', 'decides', ['TCP to 10.244.1.6 port 80, 443']],
    ]);
  });

  it('bad parameters: InvalidParams (-32602) saying what is wrong', async () => {
    const s = server();
    const refusal = async (params: Json[]) => {
      const e = errorOf(await call(s, 'Analyze', params));
      return [e.code, e.message];
    };
    const invalid = (m: string) => [-32602, `Invalid params: ${m}`];
    expect(await refusal([{}])).toEqual(
      invalid('Analyze: from (what a trace names) is required, or endpoint for a port'),
    );
    expect(await refusal([{ from: 'client' }])).toEqual(
      invalid('Analyze: to (what a trace names) is required, or endpoint for a port'),
    );
    expect(await refusal([{ from: 'client', to: '' }])).toEqual(
      invalid('Analyze: to (what a trace names) is required, or endpoint for a port'),
    );
    expect(await refusal([{ from: 7, to: 'web' }])).toEqual(
      invalid('Analyze: from (what a trace names) is required, or endpoint for a port'),
    );
    expect(await refusal([{ from: 'client', to: 'web', endpoint: 'web' }])).toEqual(
      invalid('Analyze: give {from, to} (reachability) or {endpoint} (a port), not both'),
    );
    expect(await refusal([{ port: 'web' }])).toEqual(
      invalid('Analyze: unknown key "port" (from, to, endpoint)'),
    );
    expect(await refusal(['client'])).toEqual(invalid('Analyze takes one object: {from, to, endpoint}'));
    expect(await refusal([{ endpoint: '' }])).toEqual(
      invalid('Analyze: endpoint (an endpoint ID or name) is required'),
    );
  });

  it('an unknown source or endpoint: the HNS error ERROR_NOT_FOUND (-32000)', async () => {
    const s = server();
    for (const params of [{ from: 'nope', to: 'web' }, { endpoint: 'nope' }] as JsonObject[]) {
      const e = errorOf(await call(s, 'Analyze', [params]));
      expect(e.code).toBe(-32000);
      expect((e.data as { name: string }).name).toBe('ERROR_NOT_FOUND');
    }
    const e = errorOf(await call(s, 'Analyze', [{ from: 'nope', to: 'web' }]));
    expect(e.message).toContain(
      'trace source "nope" is not an endpoint, container, pod, node or address here',
    );
  });
});
