/**
 * flannel's NetConf decoding (flannel-io/cni-plugin @ 092e6d26 `flannel.go` `loadFlannelNetConf`,
 * the struct embedding containernetworking/cni v1.3.0 `types.NetConf`): defaults, Go's JSON
 * decoding (case-insensitive keys, `null` keeps a default), and the error texts.
 */
import { describe, expect, it } from 'vitest';
import { loadFlannelNetConf } from '../../../src/plugins/flannel/conf.js';

function load(doc: unknown) {
  return loadFlannelNetConf(typeof doc === 'string' ? doc : JSON.stringify(doc));
}

describe('loadFlannelNetConf', () => {
  it('defaults subnetFile and dataDir (flannel_linux_test.go "when defaulting subnetFile and dataDir")', () => {
    const conf = load({ name: 'cni-flannel', type: 'flannel' });
    expect(conf.name).toBe('cni-flannel');
    expect(conf.type).toBe('flannel');
    expect(conf.subnetFile).toBe('/run/flannel/subnet.env');
    expect(conf.dataDir).toBe('/var/lib/cni/flannel');
    expect(conf.delegate).toBeUndefined();
    expect(conf.runtimeConfig).toBeUndefined();
    expect(conf.cniVersion).toBe('');
  });

  it('takes subnetFile and dataDir when given (flannel_linux_test.go "when subnetFile and dataDir are specified")', () => {
    const conf = load({
      name: 'cni-flannel',
      type: 'flannel',
      subnetFile: 'C:\\run\\x.env',
      dataDir: 'C:\\data',
    });
    expect(conf.subnetFile).toBe('C:\\run\\x.env');
    expect(conf.dataDir).toBe('C:\\data');
  });

  it('a JSON null leaves the default; keys match without case (Go encoding/json)', () => {
    const conf = load({ name: 'n', SubnetFile: '/x', DATADIR: '/y', Delegate: { type: 'win-overlay' } });
    expect(conf.subnetFile).toBe('/x');
    expect(conf.dataDir).toBe('/y');
    expect(conf.delegate).toEqual({ type: 'win-overlay' });
    const nulls = load({ name: 'n', subnetFile: null, dataDir: null, delegate: null, runtimeConfig: null });
    expect(nulls.subnetFile).toBe('/run/flannel/subnet.env');
    expect(nulls.dataDir).toBe('/var/lib/cni/flannel');
    expect(nulls.delegate).toBeUndefined();
    expect(nulls.runtimeConfig).toBeUndefined();
  });

  it('an empty runtimeConfig object is kept (non-nil), so it is copied into the delegate', () => {
    expect(load({ name: 'n', runtimeConfig: {} }).runtimeConfig).toEqual({});
  });

  it("type errors name Go's field path: own fields, and the embedded types.NetConf's (Go ≥ 1.24)", () => {
    expect(() => load({ name: 'n', subnetFile: 5 })).toThrow(
      'failed to load netconf: json: cannot unmarshal number into Go struct field NetConf.subnetFile of type string',
    );
    expect(() => load({ name: 'n', delegate: [] })).toThrow(
      'failed to load netconf: json: cannot unmarshal array into Go struct field NetConf.delegate of type map[string]interface {}',
    );
    expect(() => load({ name: 'n', ipam: 'host-local' })).toThrow(
      'failed to load netconf: json: cannot unmarshal string into Go struct field NetConf.ipam of type map[string]interface {}',
    );
    expect(() => load({ name: 'n', type: true })).toThrow(
      'failed to load netconf: json: cannot unmarshal bool into Go struct field NetConf.NetConf.type of type string',
    );
    expect(() => load({ name: 'n', dns: { nameservers: 'x' } })).toThrow(
      'failed to load netconf: json: cannot unmarshal string into Go struct field DNS.NetConf.dns.nameservers of type []string',
    );
  });

  it('decoding goes on past a type error and the first one is reported', () => {
    expect(() => load({ name: 'n', dataDir: 1, subnetFile: 2 })).toThrow(
      'Go struct field NetConf.dataDir of type string',
    );
  });
});
