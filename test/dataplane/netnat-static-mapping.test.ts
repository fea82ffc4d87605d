/**
 * NetNat static mappings on a host (src/dataplane/plane.ts, src/host/host.ts): the
 * `Add-NetNatStaticMapping` / `Remove-NetNatStaticMapping` / `Get-NetNatStaticMapping` contract
 * Antrea's winnet uses for NodePorts (pkg/agent/util/winnet/net_windows.go; reference
 * ovs-windows.md §1.7, §2.5). The packet path through a mapping is in
 * test/cluster/antrea-nodeport.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host/host.js';

const code = (c: string) => expect.objectContaining({ code: c });

function withNat() {
  const host = createHost({ seed: 7 });
  host.addNetNat('antrea-nat-nodeport', '169.254.0.252/32');
  return host;
}

/** route_windows.go AddNodePortConfigs: 0.0.0.0:<port> → 169.254.0.252:<port>. */
const nodePort = (port: number, protocol: 'TCP' | 'UDP' = 'TCP') => ({
  natName: 'antrea-nat-nodeport',
  protocol,
  externalIp: '0.0.0.0',
  externalPort: port,
  internalIp: '169.254.0.252',
  internalPort: port,
});

describe('NetNat static mappings (Add-NetNatStaticMapping)', () => {
  it('a mapping is listed as Get-NetNatStaticMapping shows it; TCP and UDP of a port are two mappings', () => {
    const host = withNat();
    host.addNetNatStaticMapping(nodePort(30080));
    host.addNetNatStaticMapping(nodePort(30080, 'UDP'));
    expect(host.netNatStaticMappings()).toEqual([
      {
        staticMappingID: 0,
        natName: 'antrea-nat-nodeport',
        protocol: 'TCP',
        externalIPAddress: '0.0.0.0',
        externalPort: 30080,
        internalIPAddress: '169.254.0.252',
        internalPort: 30080,
      },
      {
        staticMappingID: 1,
        natName: 'antrea-nat-nodeport',
        protocol: 'UDP',
        externalIPAddress: '0.0.0.0',
        externalPort: 30080,
        internalIPAddress: '169.254.0.252',
        internalPort: 30080,
      },
    ]);
  });

  it('bad input is refused with E_INVALIDARG (no NetNat: ERROR_NOT_FOUND) and nothing changes', () => {
    const host = withNat();
    host.addNetNatStaticMapping(nodePort(30080));
    const before = host.netNatStaticMappings();
    const bad: [Record<string, unknown>, string][] = [
      // the port taken: the same protocol and port on an overlapping external address
      [nodePort(30080), 'E_INVALIDARG'],
      [{ ...nodePort(30080), externalIp: '10.0.0.10' }, 'E_INVALIDARG'],
      // bad addresses
      [{ ...nodePort(30081), externalIp: '10.0.0' }, 'E_INVALIDARG'],
      [{ ...nodePort(30081), internalIp: 'fe80::1' }, 'E_INVALIDARG'],
      // an internal address outside the NetNat's internal prefix (docs/model.md)
      [{ ...nodePort(30081), internalIp: '169.254.0.253' }, 'E_INVALIDARG'],
      // bad ports, a protocol WinNAT does not map
      [{ ...nodePort(30081), externalPort: 0 }, 'E_INVALIDARG'],
      [{ ...nodePort(30081), internalPort: 65536 }, 'E_INVALIDARG'],
      [{ ...nodePort(30081), protocol: 'SCTP' }, 'E_INVALIDARG'],
      [{ ...nodePort(30081), natName: 'no-such-nat' }, 'ERROR_NOT_FOUND'],
    ];
    for (const [spec, c] of bad)
      expect(() => host.addNetNatStaticMapping(spec as never), JSON.stringify(spec)).toThrow(code(c));
    expect(host.netNatStaticMappings()).toEqual(before);
    // another address's own mapping of a port is no clash
    host.removeNetNatStaticMapping('antrea-nat-nodeport');
    host.addNetNatStaticMapping({ ...nodePort(30080), externalIp: '10.0.0.10' });
    host.addNetNatStaticMapping({ ...nodePort(30080), externalIp: '10.0.0.11' });
    expect(() => host.addNetNatStaticMapping(nodePort(30080))).toThrow(code('E_INVALIDARG'));
    expect(host.netNatStaticMappings().map((m) => m.externalIPAddress)).toEqual(['10.0.0.10', '10.0.0.11']);
  });

  it('Remove-NetNatStaticMapping by StaticMappingID, by protocol and port, or all of a NetNat; Remove-NetNat takes them all', () => {
    const host = withNat();
    host.addNetNat('other', '10.10.0.0/24');
    host.addNetNatStaticMapping(nodePort(30080));
    host.addNetNatStaticMapping(nodePort(30081));
    host.addNetNatStaticMapping(nodePort(30082, 'UDP'));
    host.addNetNatStaticMapping({ ...nodePort(8080), natName: 'other', internalIp: '10.10.0.5' });
    expect(host.removeNetNatStaticMapping('antrea-nat-nodeport', { id: 1 })).toBe(1);
    expect(host.removeNetNatStaticMapping('antrea-nat-nodeport', { id: 1 })).toBe(0);
    expect(
      host.removeNetNatStaticMapping('antrea-nat-nodeport', { protocol: 'TCP', externalPort: 30082 }),
    ).toBe(0);
    expect(
      host.removeNetNatStaticMapping('antrea-nat-nodeport', { protocol: 'UDP', externalPort: 30082 }),
    ).toBe(1);
    expect(host.netNatStaticMappings().map((m) => `${m.natName}:${m.externalPort}`)).toEqual([
      'antrea-nat-nodeport:30080',
      'other:8080',
    ]);
    expect(host.removeNetNat('antrea-nat-nodeport')).toBe(true);
    expect(host.netNatStaticMappings().map((m) => `${m.natName}:${m.externalPort}`)).toEqual(['other:8080']);
    // the port is free again once its mapping went with its NetNat
    host.addNetNat('antrea-nat-nodeport', '169.254.0.252/32');
    host.addNetNatStaticMapping(nodePort(30080));
    expect(host.netNatStaticMappings()).toHaveLength(2);
  });
});
