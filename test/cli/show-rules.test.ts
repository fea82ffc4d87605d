// `hnsim show rules`: the vfpctrl-like listing of a snapshot's ports, all or one, as text and JSON,
// and its usage errors.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../src/host/host.js';
import { runHnsim as run } from './hnsim.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const V2 = { Major: 2, Minor: 0 };

/** An L2Bridge host with a Calico-style endpoint (default deny In @65500, allow from the host @900). */
function node(): Host {
  const host = createHost({
    seed: 8,
    adapters: [
      { name: 'Ethernet', ipAddress: '10.0.0.4/24', gateway: '10.0.0.1', macAddress: '00-0D-3A-00-00-04' },
    ],
  });
  const net = host.api.HcnCreateNetwork(null, {
    Name: 'cbr0',
    Type: 'L2Bridge',
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
    SchemaVersion: V2,
  });
  if (!net.ok) throw new Error(net.message);
  const ep = host.api.HcnCreateEndpoint(String(net.result['ID']), null, {
    Name: 'web',
    IpConfigurations: [{ IpAddress: '10.244.1.5' }],
    Policies: [
      {
        Type: 'ACL',
        Settings: {
          Id: 'CNIDefaultDenyAllPolicy',
          Action: 'Block',
          Direction: 'In',
          Protocols: '256',
          Priority: 65500,
          RuleType: 'Switch',
        },
      },
      {
        Type: 'ACL',
        Settings: {
          Id: 'allow-host-to-endpoint',
          Action: 'Allow',
          Direction: 'In',
          RemoteAddresses: '10.0.0.4/32',
          Priority: 900,
          RuleType: 'Switch',
        },
      },
    ],
    SchemaVersion: V2,
  });
  if (!ep.ok) throw new Error(ep.message);
  return host;
}

function snapshotFile(host: Host): string {
  const dir = mkdtempSync(join(tmpdir(), 'hnsim-rules-'));
  dirs.push(dir);
  const file = join(dir, 'snap.json');
  writeFileSync(file, JSON.stringify(host.snapshot()));
  return file;
}

describe('hnsim show rules', () => {
  it('lists the ACL layer of a port in evaluation order (vfpctrl /list-rule shape)', async () => {
    const r = await run(['show', 'rules', '--snapshot', snapshotFile(node()), '--port', 'web']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // layer and group names as vfpctrl shows them on HNS ports (reference vfp-dataplane.md §1.2)
    expect(r.stdout).toContain('LAYER : ACL_ENDPOINT_LAYER');
    expect(r.stdout).toContain('GROUP : ACL_ENDPOINT_GROUP_IPV4_IN');
    const allow = r.stdout.indexOf('RULE : allow-host-to-endpoint');
    const deny = r.stdout.indexOf('RULE : CNIDefaultDenyAllPolicy');
    expect(allow).toBeGreaterThan(0);
    expect(deny).toBeGreaterThan(allow); // 900 before 65500
    expect(r.stdout).toContain('Flags : terminating stateful');
  });

  it('without --port lists every local port and the host-side ports; JSON carries the same data', async () => {
    const file = snapshotFile(node());
    const text = await run(['show', 'rules', '--snapshot', file]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('Friendly name : web');
    // the host side: the uplink (vfpctrl's ExternalPort) after the endpoint ports
    expect(text.stdout).toContain('    Friendly name : ExternalPort\n    Kind : Uplink\n');
    const json = await run(['show', 'rules', '--snapshot', file, '--format', 'json']);
    const data = JSON.parse(json.stdout) as { port: { id: string; name: string; kind: string } }[];
    expect(data.some((p) => p.port.name === 'web' && p.port.kind === 'Container')).toBe(true);
    expect(data.some((p) => p.port.name === 'ExternalPort' && p.port.kind === 'Uplink')).toBe(true);
    // the same ports, in the same order, as the text lists them
    const textPorts = text.stdout.split('\n').flatMap((l) => /^PORT : (.+)$/.exec(l)?.slice(1) ?? []);
    expect(data.map((p) => p.port.id)).toEqual(textPorts);
  });

  it('an unknown port is a failure with its HRESULT name; --port without "rules" is a usage error', async () => {
    const file = snapshotFile(node());
    const missing = await run(['show', 'rules', '--snapshot', file, '--port', 'nope']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/ERROR_NOT_FOUND|not found/i);
    const usage = await run(['show', 'networks', '--port', 'web']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('--port goes with "show rules"');
  });
});
