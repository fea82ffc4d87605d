/**
 * The CNI structs of containernetworking/cni `pkg/types` (types.DNS, types.IPAM, types.GCAttachment,
 * types.PluginConf) as each reader decodes them: libcni's config and result parsing, flannel's
 * NetConf (types.NetConf embedded; built with Go 1.24: embedded names in the field path), WCN's
 * NetworkConfig (Go 1.21: a plain `dns` field) and win-bridge's NetConf (hns.NetConf embedding
 * types.NetConf, embedded in main.NetConf; Go 1.25). Expected texts are Go's
 * `UnmarshalTypeError.Error()`: "json: cannot unmarshal <value> into Go struct field
 * <Struct>.<Field path> of type <Type>", with the struct and field names of the upstream sources.
 */
import { describe, expect, it } from 'vitest';
import { pluginConfFromBytes } from '../../src/cni/conf.js';
import { createFromBytes } from '../../src/cni/result.js';
import { loadFlannelNetConf } from '../../src/plugins/flannel/conf.js';
import { decodeNetworkConfig } from '../../src/plugins/wcn/config.js';
import { loadWinBridgeConf } from '../../src/plugins/win-bridge.js';

const field = (value: string, struct: string, path: string, type: string): string =>
  `json: cannot unmarshal ${value} into Go struct field ${struct}.${path} of type ${type}`;

describe('types.DNS, types.IPAM, types.GCAttachment in every reader', () => {
  it('libcni: a plugin config (types.PluginConf)', () => {
    const conf = (extra: string) => () => pluginConfFromBytes(`{"type":"t",${extra}}`);
    const parsing = (m: string) => `error parsing configuration: ${m}`;
    expect(conf('"dns":{"nameservers":"x"}')).toThrow(
      parsing(field('string', 'DNS', 'dns.nameservers', '[]string')),
    );
    expect(conf('"ipam":{"type":1}')).toThrow(parsing(field('number', 'IPAM', 'ipam.type', 'string')));
    expect(conf('"cni.dev/valid-attachments":[{"containerID":1}]')).toThrow(
      parsing(field('number', 'GCAttachment', 'cni.dev/valid-attachments.containerID', 'string')),
    );
  });

  it('libcni: a result (types100.Result)', () => {
    expect(() => createFromBytes('{"cniVersion":"1.0.0","dns":{"domain":5}}')).toThrow(
      field('number', 'DNS', 'dns.domain', 'string'),
    );
  });

  it('flannel: types.NetConf embedded in main.NetConf', () => {
    const load = (extra: string) => () => loadFlannelNetConf(`{"type":"flannel",${extra}}`);
    const netconf = (m: string) => `failed to load netconf: ${m}`;
    expect(load('"dns":{"search":[1]}')).toThrow(
      netconf(field('number', 'DNS', 'NetConf.dns.search', 'string')),
    );
    expect(load('"cni.dev/valid-attachments":[{"ifname":true}]')).toThrow(
      netconf(field('bool', 'GCAttachment', 'NetConf.cni.dev/valid-attachments.ifname', 'string')),
    );
    expect(load('"cniVersion":[]')).toThrow(
      netconf(field('array', 'NetConf', 'NetConf.cniVersion', 'string')),
    );
  });

  it('WCN: a types.DNS field of cni.NetworkConfig', () => {
    expect(() => decodeNetworkConfig('{"type":"L2Bridge","dns":{"options":"x"}}')).toThrow(
      field('string', 'DNS', 'dns.options', '[]string'),
    );
  });

  it('win-bridge: types.NetConf embedded in hns.NetConf embedded in main.NetConf', () => {
    const load = (extra: string) => () => loadWinBridgeConf(`{"type":"win-bridge",${extra}}`);
    const netconf = (m: string) => `failed to load netconf: ${m}`;
    expect(load('"dns":{"options":1}')).toThrow(
      netconf(field('number', 'DNS', 'NetConf.NetConf.dns.options', '[]string')),
    );
    expect(load('"cni.dev/valid-attachments":[{"containerID":2}]')).toThrow(
      netconf(
        field('number', 'GCAttachment', 'NetConf.NetConf.cni.dev/valid-attachments.containerID', 'string'),
      ),
    );
    expect(load('"ipam":{"type":false}')).toThrow(
      netconf(field('bool', 'IPAM', 'NetConf.NetConf.ipam.type', 'string')),
    );
  });
});
