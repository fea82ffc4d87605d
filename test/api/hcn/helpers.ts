/**
 * Shared fixtures for the typed-client tests: a host with a recording transport in front of
 * `host.transport` (so tests can assert the exact requests hcsshim would send), and the documents
 * hcsshim's own integration tests build (hcn/hcnutils_test.go: NAT and overlay test networks).
 */
import { expect } from 'vitest';
import type { Json } from '../../../src/core/json.js';
import type { HcnResult } from '../../../src/api/flat.js';
import type { HnsCall, HnsTransport } from '../../../src/api/transport.js';
import { createHost, type Host } from '../../../src/host/host.js';
import {
  HcnClient,
  NetworkFlags,
  type HcnClientOptions,
  type HostComputeNetworkDoc,
  type Subnet,
} from '../../../src/api/hcn/index.js';

/** Passes calls through to the host's transport and keeps them. */
export class RecordingTransport implements HnsTransport {
  readonly calls: HnsCall[] = [];
  constructor(private readonly inner: HnsTransport) {}
  call(c: HnsCall): Promise<HcnResult<Json>> {
    this.calls.push(c);
    return this.inner.call(c);
  }
  methods(): string[] {
    return this.calls.map((c) => c.method);
  }
  clear(): void {
    this.calls.length = 0;
  }
}

export interface Fixture {
  host: Host;
  hcn: HcnClient;
  rec: RecordingTransport;
}

export function setup(profile = 'ws2022', options: HcnClientOptions = {}): Fixture {
  const host = createHost({ seed: 7, profile });
  const rec = new RecordingTransport(host.transport);
  return { host, hcn: new HcnClient(rec, options), rec };
}

/** hcsshim `CreateSubnet(prefix, nextHop, dest)`. */
export function subnet(prefix: string, nextHop: string, dest: string): Subnet {
  return { IpAddressPrefix: prefix, Routes: [{ NextHop: nextHop, DestinationPrefix: dest }] };
}

/** hcsshim `GetDefaultSubnet()`. */
export function defaultSubnet(): Subnet {
  return subnet('192.168.100.0/24', '192.168.100.1', '0.0.0.0/0');
}

const MAC_POOL = { Ranges: [{ StartMacAddress: '00-15-5D-52-C0-00', EndMacAddress: '00-15-5D-52-CF-FF' }] };

/** hcsshim `HcnGenerateNATNetwork(subnet)`. */
export function natNetworkDoc(
  s: Subnet | null = defaultSubnet(),
  name = 'GoTestNatNetwork',
): HostComputeNetworkDoc {
  return {
    Type: 'NAT',
    Name: name,
    MacPool: MAC_POOL,
    Ipams: s ? [{ Type: 'Static', Subnets: [s] }] : [],
    SchemaVersion: { Major: 2, Minor: 0 },
  };
}

/** hcsshim `CreateTestOverlayNetwork()`: VSID 5000 on the subnet, EnableNonPersistent. */
export function overlayNetworkDoc(name = 'GoTestOverlayNetwork'): HostComputeNetworkDoc {
  const s = defaultSubnet();
  s.Policies = [{ Type: 'VSID', Settings: { IsolationId: 5000 } }];
  return {
    Type: 'Overlay',
    Name: name,
    MacPool: MAC_POOL,
    Ipams: [{ Type: 'Static', Subnets: [s] }],
    Flags: NetworkFlags.EnableNonPersistent,
    SchemaVersion: { Major: 2, Minor: 0 },
  };
}

/** The rejection of `p` (fails the test if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(Error);
    return e as Error;
  }
  throw new Error('expected the promise to reject');
}

/** Settings argument of the n-th recorded call of `method`, parsed. */
export function sentSettings(rec: RecordingTransport, method: string, argIndex: number, nth = 0): unknown {
  const c = rec.calls.filter((x) => x.method === method)[nth];
  if (!c) throw new Error(`no ${method} call #${nth}`);
  const a = c.args[argIndex];
  return typeof a === 'string' ? JSON.parse(a) : a;
}
