// `--host FILE` with "azure" makes `hnsim serve`'s node an Azure VM: azure-vnet-ipam over JSON-RPC
// (CniExec) gets the NIC's secondary IPs from the node's wireserver; a malformed "azure" is a
// command error naming the key, and a NIC Azure could not have is "cannot build the host".
import { describe, expect, it } from 'vitest';
import { serveWithHostDoc as serve } from './hnsim.js';
import { ipamConf, ipamEnv } from '../plugins/azure-vnet-ipam/kit.js';

const VM = {
  adapters: [{ name: 'Ethernet', ipAddress: '10.240.0.4/16', gateway: '10.240.0.1' }],
  azure: { nics: [{ adapter: 'Ethernet', secondaryIps: ['10.240.0.7'] }] },
};

const ADD = {
  jsonrpc: '2.0',
  id: 1,
  method: 'CniExec',
  params: [
    {
      plugin: 'azure-vnet-ipam',
      env: ipamEnv('ADD', 'a'),
      stdin: ipamConf({ cniVersion: '0.4.0' }),
    },
  ],
};

describe('hnsim serve --host FILE with "azure"', () => {
  it('azure-vnet-ipam hands out the NIC’s secondary IP', async () => {
    const r = await serve(VM, ADD);
    expect(r.status).toBe(0);
    const resp = JSON.parse(r.out) as { result: { exitCode: number; stdout: string } };
    expect(resp.result.exitCode).toBe(0);
    expect(JSON.parse(resp.result.stdout)).toMatchObject({
      ips: [{ address: '10.240.0.7/16', gateway: '10.240.0.1' }],
    });
  });

  it('"azure" without a list of NICs is a command error naming the key', async () => {
    const r = await serve({ ...VM, azure: { nic: [] } }, ADD);
    expect(r.status).toBe(1);
    expect(r.err).toContain('azure must be an object {"nics":[{"adapter","secondaryIps":[…]}]}');
  });

  it('a secondary IP outside the adapter’s subnet cannot build the host', async () => {
    const r = await serve(
      { ...VM, azure: { nics: [{ adapter: 'Ethernet', secondaryIps: ['10.9.0.7'] }] } },
      ADD,
    );
    expect(r.status).toBe(1);
    expect(r.err).toContain(
      "cannot build the host: azure: nic 0: secondary IP 10.9.0.7 is outside the NIC's subnet 10.240.0.0/16",
    );
  });
});
