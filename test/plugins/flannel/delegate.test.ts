/**
 * The Windows delegate (flannel-io/cni-plugin @ 092e6d26 `flannel.go` cmdAdd checks,
 * `flannel_windows.go` doCmdAdd; reference cni-windows.md §5.1) and the sandbox ID the saved file is
 * keyed by (containernetworking/plugins `pkg/hns/endpoint_windows.go` GetSandboxContainerID).
 */
import { describe, expect, it } from 'vitest';
import { loadFlannelNetConf } from '../../../src/plugins/flannel/conf.js';
import {
  checkedDelegate,
  delegateBytes,
  sandboxContainerId,
  windowsDelegate,
} from '../../../src/plugins/flannel/delegate.js';
import { GoPanic } from '../../../src/cni/gopanic.js';
import { parseSubnetEnv } from '../../../src/plugins/flannel/subnet-env.js';

const FENV = parseSubnetEnv(
  'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=false\n',
  '/run/flannel/subnet.env',
);

function build(conf: unknown, fenv = FENV): string {
  const c = loadFlannelNetConf(JSON.stringify(conf));
  return delegateBytes(windowsDelegate(c, checkedDelegate(c), fenv));
}

describe('cmdAdd delegate checks', () => {
  it("a present 'type' must be a string; 'name' and 'ipam' must be absent (their presence counts, null included)", () => {
    const check = (delegate: unknown) => () =>
      checkedDelegate(loadFlannelNetConf(JSON.stringify({ name: 'n', delegate })));
    expect(check({ type: 1 })).toThrow("'delegate' dictionary, if present, must have (string) 'type' field");
    expect(check({ type: null })).toThrow(
      "'delegate' dictionary, if present, must have (string) 'type' field",
    );
    expect(check({ name: 'x' })).toThrow(
      "'delegate' dictionary must not have 'name' field, it'll be set by flannel",
    );
    expect(check({ name: null })).toThrow(
      "'delegate' dictionary must not have 'name' field, it'll be set by flannel",
    );
    expect(check({ ipam: {} })).toThrow(
      "'delegate' dictionary must not have 'ipam' field, it'll be set by flannel",
    );
    // the type check comes first
    expect(check({ type: 2, name: 'x', ipam: {} })).toThrow("must have (string) 'type' field");
    // map keys are case-sensitive: "Name" is just another key
    expect(check({ Name: 'x', IPAM: {} })).not.toThrow();
  });

  it("runtimeConfig from the conf replaces the delegate's own", () => {
    const c = loadFlannelNetConf(
      JSON.stringify({
        name: 'n',
        runtimeConfig: { dns: { servers: ['10.96.0.10'] } },
        delegate: { runtimeConfig: { x: 1 } },
      }),
    );
    expect(checkedDelegate(c)['runtimeConfig']).toEqual({ dns: { servers: ['10.96.0.10'] } });
  });
});

describe('doCmdAdd on Windows', () => {
  it('the README example, keys sorted at every level (reference §5.1 vector)', () => {
    expect(
      build({
        name: 'mynet',
        type: 'flannel',
        cniVersion: '0.3.1',
        delegate: { type: 'win-overlay', endpointMacPrefix: '0E-2A' },
      }),
    ).toBe(
      '{"cniVersion":"0.3.1","endpointMacPrefix":"0E-2A","ipMasq":false,"ipMasqNetwork":"10.244.0.0/16","ipam":{"subnet":"10.244.1.0/24","type":"host-local"},"name":"mynet","type":"win-overlay"}',
    );
  });

  it('no delegate: type win-bridge; no cniVersion: 0.2.0; top-level dns not copied; everything else passes', () => {
    const out = JSON.parse(
      build({
        name: 'cbr0',
        type: 'flannel',
        dns: { nameservers: ['10.96.0.10'] },
      }),
    ) as Record<string, unknown>;
    expect(out).toEqual({
      cniVersion: '0.2.0',
      ipMasq: false,
      ipMasqNetwork: '10.244.0.0/16',
      ipam: { subnet: '10.244.1.0/24', type: 'host-local' },
      name: 'cbr0',
      type: 'win-bridge',
    });
  });

  it('ipMasq is FLANNEL_IPMASQ as it is (not the inverse the README describes)', () => {
    const masq = parseSubnetEnv(
      'FLANNEL_NETWORK=10.244.0.0/16,10.0.0.0/8\nFLANNEL_SUBNET=10.244.1.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\n',
      'f',
    );
    const out = JSON.parse(build({ name: 'n' }, masq)) as Record<string, unknown>;
    expect(out['ipMasq']).toBe(true);
    // the first FLANNEL_NETWORK only
    expect(out['ipMasqNetwork']).toBe('10.244.0.0/16');
  });

  it('nested delegate objects come out with sorted keys, Go escaping (<, >, &) and numbers as float64', () => {
    const bytes = build({
      name: 'n',
      cniVersion: '0.3.0',
      delegate: {
        type: 'win-bridge',
        policies: [{ name: 'EndpointPolicy', value: { Type: 'OutBoundNAT', ExceptionList: ['<x>&'] } }],
        AdditionalArgs: [{ Value: { Type: 'ROUTE', NeedEncap: true, DestinationPrefix: '10.96.0.0/12' } }],
        mtu: 1.5e3,
      },
    });
    expect(bytes).toBe(
      '{"AdditionalArgs":[{"Value":{"DestinationPrefix":"10.96.0.0/12","NeedEncap":true,"Type":"ROUTE"}}],"cniVersion":"0.3.0","ipMasq":false,"ipMasqNetwork":"10.244.0.0/16","ipam":{"subnet":"10.244.1.0/24","type":"host-local"},"mtu":1500,"name":"n","policies":[{"name":"EndpointPolicy","value":{"ExceptionList":["\\u003cx\\u003e\\u0026"],"Type":"OutBoundNAT"}}],"type":"win-bridge"}',
    );
  });

  it('an IPv6-only subnet.env: FLANNEL_NETWORK[0] does not exist, Go panics', () => {
    const v6 = parseSubnetEnv(
      'FLANNEL_IPV6_NETWORK=fc00::/48\nFLANNEL_IPV6_SUBNET=fc00::1/64\nFLANNEL_MTU=1\nFLANNEL_IPMASQ=true',
      'f',
    );
    expect(() => build({ name: 'n' }, v6)).toThrow(GoPanic);
    expect(() => build({ name: 'n' }, v6)).toThrow('runtime error: index out of range [0] with length 0');
  });

  it('an IPv4 network with only an IPv6 subnet: ipam.subnet is a nil *IPNet printed', () => {
    const mixed = parseSubnetEnv(
      'FLANNEL_NETWORK=10.244.0.0/16\nFLANNEL_IPV6_SUBNET=fc00::1/64\nFLANNEL_MTU=1\nFLANNEL_IPMASQ=true',
      'f',
    );
    expect(JSON.parse(build({ name: 'n' }, mixed))).toMatchObject({
      ipam: { subnet: '<nil>', type: 'host-local' },
    });
  });
});

describe('GetSandboxContainerID', () => {
  it.each([
    ['cid', 'none', 'cid'],
    ['cid', '', 'cid'],
    ['cid', '0d9b2c4e-3f58-4c38-9a53-f1f2a7b1c9aa', 'cid'],
    ['cid', 'container:pause1', 'pause1'],
    ['cid', 'foo:bar:baz', 'bar:baz'],
    ['cid', 'container:', ''],
  ])('(%s, %j) → %j', (cid, netns, out) => {
    expect(sandboxContainerId(cid, netns)).toBe(out);
  });
});
