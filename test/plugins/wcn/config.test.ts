/**
 * windows-container-networking's `cni.NetworkConfig`: decoding (Go's key folding and type errors),
 * the case-sensitive type mapping, `Serialize()` (what the IPAM plugin receives when dual-stack is
 * off) and the K8S CNI_ARGS. Source: microsoft/windows-container-networking @ b96345f, `cni/cni.go`
 * (IpamConfig l.75, NetworkConfig l.87, K8SPodEnvArgs l.120, OptionalFlags l.127, ParseNetworkConfig
 * l.194, ParseCniArgs l.212, Serialize l.223, MapCniTypeToHcnType l.524) and the vendored libcni v1.1.2
 * `pkg/types/{types,args}.go`; reference cni-windows.md §4.2.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeNetworkConfig,
  mapCniTypeToHcnType,
  parseNetworkConfig,
  podNamespaceFromArgs,
  serializeNetworkConfig,
} from '../../../src/plugins/wcn/config.js';

const ALL_FLAGS_OFF =
  '"optionalFlags":{"localRoutedPortMapping":false,"allowAclPortMapping":false,"forceBridgeGateway":false,' +
  '"enableDualStack":false,"loopbackDSR":false,"gatewayFromAdditionalRoutes":false}';

describe('MapCniTypeToHcnType (cni/cni.go, commit 1181792)', () => {
  it('maps binary names and accepts HCN types as they are', () => {
    expect(mapCniTypeToHcnType('sdnbridge')).toBe('L2Bridge');
    expect(mapCniTypeToHcnType('sdnoverlay')).toBe('Overlay');
    expect(mapCniTypeToHcnType('nat')).toBe('NAT');
    expect(mapCniTypeToHcnType('L2Bridge')).toBe('L2Bridge');
    expect(mapCniTypeToHcnType('Overlay')).toBe('Overlay');
    expect(mapCniTypeToHcnType('NAT')).toBe('NAT');
  });

  it('is case-sensitive: example/l2bridge.conf\'s "l2bridge" is rejected (P17)', () => {
    expect(() => mapCniTypeToHcnType('l2bridge')).toThrow(
      `Unsupported CNI config 'type' "l2bridge". Options are the keys/values from: map[nat:NAT sdnbridge:L2Bridge sdnoverlay:Overlay]`,
    );
    expect(() => mapCniTypeToHcnType('SdnBridge')).toThrow(`Unsupported CNI config 'type' "SdnBridge".`);
    // example/l2tunnel.conf: the tunnel plugin is commented out of the map
    expect(() => mapCniTypeToHcnType('l2tunnel')).toThrow(`Unsupported CNI config 'type' "l2tunnel".`);
    expect(() => mapCniTypeToHcnType('')).toThrow(`Unsupported CNI config 'type' "".`);
  });
});

describe('decoding NetworkConfig', () => {
  it('matches keys case-insensitively (example/l2tunnel.conf "Subnet", l2bridge.conf routes "GW")', () => {
    const c = decodeNetworkConfig(
      JSON.stringify({
        name: 'n',
        type: 'nat',
        ipam: { Subnet: '10.240.0.0/12', ROUTES: [{ GW: '10.0.0.2' }] },
      }),
    );
    expect(c.ipam.subnet).toBe('10.240.0.0/12');
    expect(c.ipam.routes).toHaveLength(1);
    expect(c.ipam.routes![0]!.gw?.v4).toBe(0x0a000002);
    expect(c.ipam.routes![0]!.dst.ip).toBeUndefined();
  });

  it('reads AdditionalArgs by its Go field name (no tag) and keeps Value as raw JSON', () => {
    const c = decodeNetworkConfig(
      '{"name":"n","type":"nat","additionalargs":[{"Name":"EndpointPolicy","Value":{"Type":"ACL"}},{"Name":"X"}]}',
    );
    expect(c.additionalArgs).toEqual([
      { name: 'EndpointPolicy', value: { Type: 'ACL' } },
      { name: 'X', value: undefined },
    ]);
  });

  it('reports Go type errors with the innermost struct and the JSON path', () => {
    expect(() =>
      parseNetworkConfig('{"name":"n","type":"nat","optionalFlags":{"enableDualStack":"true"}}'),
    ).toThrow(
      'json: cannot unmarshal string into Go struct field OptionalFlags.optionalFlags.enableDualStack of type bool',
    );
    expect(() => parseNetworkConfig('{"name":"n","type":5}')).toThrow(
      'json: cannot unmarshal number into Go struct field NetworkConfig.type of type hcn.NetworkType',
    );
    expect(() =>
      parseNetworkConfig('{"name":"n","type":"nat","runtimeConfig":{"portMappings":[{"hostPort":"80"}]}}'),
    ).toThrow(
      'json: cannot unmarshal string into Go struct field PortMapping.runtimeConfig.portMappings.hostPort of type int',
    );
  });

  it('fails on a bad route as types.Route.UnmarshalJSON does', () => {
    expect(() =>
      parseNetworkConfig('{"name":"n","type":"nat","ipam":{"routes":[{"dst":"10.0.0.0"}]}}'),
    ).toThrow('invalid CIDR address: 10.0.0.0');
    expect(() => parseNetworkConfig('{"name":"n","type":"nat","additionalRoutes":[{"gw":"bogus"}]}')).toThrow(
      'invalid IP address: bogus',
    );
    // a type error inside the route surfaces with the outer decoder's context
    expect(() => parseNetworkConfig('{"name":"n","type":"nat","additionalRoutes":["0.0.0.0/0"]}')).toThrow(
      'json: cannot unmarshal string into Go struct field NetworkConfig.additionalRoutes of type types.route',
    );
    expect(() => parseNetworkConfig('{"name":"n","type":"nat","ipam":{"routes":[{"gw":5}]}}')).toThrow(
      'json: cannot unmarshal number into Go struct field IpamConfig.ipam.routes of type net.IP',
    );
  });

  it('maps the type after decoding (the IPAM plugin then sees the HCN type)', () => {
    expect(parseNetworkConfig('{"name":"n","type":"sdnoverlay"}').type).toBe('Overlay');
  });
});

describe('Serialize (what IPAM gets when dual-stack is off)', () => {
  it('re-marshals the upstream test config byte for byte', () => {
    // test/utilities/connectivity_testing.go CreateNetworkConf + getDefaultEndpointPolicies,
    // json.Marshal(netConf) with a host IP of 10.1.2.3: this is the stdin upstream's bridge test sends.
    const upstream =
      '{"cniVersion":"0.2.0","name":"bridgeNet","type":"L2Bridge",' +
      '"ipam":{"type":"","environment":"mas","subnet":"10.0.0.0/16","routes":[{"dst":"0.0.0.0/0","gw":"10.0.0.2"}]},' +
      '"dns":{"nameservers":["10.50.10.50","8.8.8.8"],"search":["svc.cluster.local","svc.cluster.local"]},' +
      ALL_FLAGS_OFF +
      ',"runtimeConfig":{"dns":{}},"additionalRoutes":null,"AdditionalArgs":[' +
      '{"name":"EndpointPolicy","value":{"Type":"OutBoundNAT","Settings":{"Exceptions":["10.0.0.0/16","10.1.2.3/32"]}}},' +
      '{"name":"EndpointPolicy","value":{"Type":"SDNRoute","Settings":{"DestinationPrefix":"11.0.0.0/8","NeedEncap":true}}},' +
      '{"name":"EndpointPolicy","value":{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.1.2.3"}}}]}';
    expect(serializeNetworkConfig(parseNetworkConfig(upstream))).toBe(upstream);
  });

  it('drops host-local ranges (P12, WCN#64): example/l2bridgedualstack_host-local_ipam.conf without dual-stack', () => {
    const conf = {
      cniVersion: '0.2.0',
      name: 'winl2bridge',
      type: 'sdnbridge',
      master: 'Ethernet',
      capabilities: { portMappings: true, dnsCapabilities: true },
      optionalFlags: { localRoutedPortMapping: true, allowAclPortMapping: true, enableDualStack: false },
      ipam: {
        type: 'host-local',
        ranges: [
          [
            {
              subnet: '192.168.1.0/24',
              rangeStart: '192.168.1.10',
              rangeEnd: '192.168.1.50',
              gateway: '192.168.1.2',
            },
          ],
        ],
      },
      dns: { Nameservers: ['10.127.130.7'], Search: ['svc.cluster.local'] },
    };
    expect(serializeNetworkConfig(parseNetworkConfig(JSON.stringify(conf)))).toBe(
      '{"cniVersion":"0.2.0","name":"winl2bridge","type":"L2Bridge","ipam":{"type":"host-local"},' +
        '"dns":{"nameservers":["10.127.130.7"],"search":["svc.cluster.local"]},' +
        '"optionalFlags":{"localRoutedPortMapping":true,"allowAclPortMapping":true,"forceBridgeGateway":false,' +
        '"enableDualStack":false,"loopbackDSR":false,"gatewayFromAdditionalRoutes":false},' +
        '"runtimeConfig":{"dns":{}},"additionalRoutes":null,"AdditionalArgs":null}',
    );
  });

  it('writes a route without dst as "<nil>" (example/l2bridge.conf routes [{"GW":…}])', () => {
    const c = parseNetworkConfig(
      '{"cniVersion":"0.2.0","name":"l2bridgeNetwork","type":"sdnbridge","ipam":{"subnet":"192.168.1.0/24","routes":[{"GW":"192.168.1.2"}]}}',
    );
    expect(serializeNetworkConfig(c)).toContain(
      '"ipam":{"type":"","subnet":"192.168.1.0/24","routes":[{"dst":"\\u003cnil\\u003e","gw":"192.168.1.2"}]}',
    );
  });

  it('keeps runtimeConfig port mappings and DNS, AdditionalArgs values in their key order', () => {
    const c = parseNetworkConfig(
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'n',
        type: 'nat',
        runtimeConfig: {
          portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }],
          dns: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] },
        },
        additionalRoutes: [{ dst: '0.0.0.0/0', gw: '10.0.0.1' }],
        AdditionalArgs: [
          { Name: 'EndpointPolicy', Value: { Type: 'ACL', Settings: { Priority: 101, Action: 'Allow' } } },
        ],
      }),
    );
    expect(serializeNetworkConfig(c)).toBe(
      '{"cniVersion":"1.0.0","name":"n","type":"NAT","ipam":{"type":""},"dns":{},' +
        ALL_FLAGS_OFF +
        ',"runtimeConfig":{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}],' +
        '"dns":{"servers":["10.96.0.10"],"searches":["default.svc.cluster.local"],"options":["ndots:5"]}},' +
        '"additionalRoutes":[{"dst":"0.0.0.0/0","gw":"10.0.0.1"}],' +
        '"AdditionalArgs":[{"name":"EndpointPolicy","value":{"Type":"ACL","Settings":{"Priority":101,"Action":"Allow"}}}]}',
    );
  });
});

describe('K8S_POD_NAMESPACE from CNI_ARGS (types.LoadArgs into K8SPodEnvArgs)', () => {
  it('reads the namespace from what containerd sends', () => {
    expect(
      podNamespaceFromArgs(
        'IgnoreUnknown=1;K8S_POD_NAMESPACE=kube-system;K8S_POD_NAME=coredns-1;K8S_POD_INFRA_CONTAINER_ID=abc;K8S_POD_UID=u-1',
      ),
    ).toBe('kube-system');
    expect(podNamespaceFromArgs('K8S_POD_NAMESPACE=default')).toBe('default');
  });

  it('gives "" when LoadArgs fails', () => {
    // an unknown key without IgnoreUnknown
    expect(podNamespaceFromArgs('K8S_POD_NAMESPACE=default;K8S_POD_UID=u-1')).toBe('');
    // upstream's own test passes JSON (test/utilities/testing_windows.go CreateArgs): "invalid pair"
    expect(podNamespaceFromArgs('{"K8S_POD_NAMESPACE":"test-default"}')).toBe('');
    // a trailing ';' makes an empty pair
    expect(podNamespaceFromArgs('K8S_POD_NAMESPACE=default;')).toBe('');
    expect(podNamespaceFromArgs('IgnoreUnknown=maybe;K8S_POD_NAMESPACE=default')).toBe('');
    expect(podNamespaceFromArgs('K8S_POD_NAMESPACE=a=b')).toBe('');
    // field names are case-sensitive (reflect FieldByName)
    expect(podNamespaceFromArgs('k8s_pod_namespace=default')).toBe('');
    expect(podNamespaceFromArgs('IgnoreUnknown=TRUE;k8s_pod_namespace=default')).toBe('');
  });
});
