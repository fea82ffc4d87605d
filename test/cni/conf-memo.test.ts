/**
 * libcni's `InjectConf` is a pure function of the config's bytes and the injected values
 * (containernetworking/cni @ 3f51e880 libcni/api.go: unmarshal into a map, set the keys, marshal,
 * parse). The runner injects the same name and version into the same plugin config for every pod,
 * so the result is remembered: a repeated injection gives the very same bytes, a config whose bytes
 * changed in place is read again, and a remembered config cannot be changed by its users.
 */
import { describe, expect, it } from 'vitest';
import {
  buildOneConfig,
  confListFromBytes,
  configText,
  injectConf,
  pluginConfFromBytes,
} from '../../src/cni/conf.js';
import type { RuntimeConf } from '../../src/cni/contracts.js';

const conf = () =>
  pluginConfFromBytes(
    '{"cniVersion":"0.3.1","name":"n","type":"t","capabilities":{"dns":true},"b":[1,{"c":"<&>"}]}',
  );

describe('injectConf, remembered', () => {
  it('the same strings into the same bytes give the same config as the first time', () => {
    const orig = conf();
    const a = injectConf(orig, { name: 'net', cniVersion: '1.0.0' });
    const b = injectConf(orig, { name: 'net', cniVersion: '1.0.0' });
    expect(configText(b)).toBe(configText(a));
    expect(configText(a)).toBe(
      '{"b":[1,{"c":"\\u003c\\u0026\\u003e"}],"capabilities":{"dns":true},"cniVersion":"1.0.0","name":"net","type":"t"}',
    );
    expect(b.network).toEqual(a.network);
    // another value, another config
    expect(configText(injectConf(orig, { name: 'other', cniVersion: '1.0.0' }))).toContain('"name":"other"');
  });

  it('bytes changed in place are read again', () => {
    const orig = conf();
    injectConf(orig, { name: 'net' });
    const i = Buffer.from(orig.bytes).indexOf('"t"');
    (orig.bytes as Uint8Array)[i + 1] = 0x75; // type "t" → "u"
    const again = injectConf(orig, { name: 'net' });
    expect(again.network.type).toBe('u');
    expect(configText(again)).toContain('"type":"u"');
  });

  it('a remembered config is frozen: its users cannot change what the next pod gets', () => {
    const orig = conf();
    injectConf(orig, { name: 'net' });
    const kept = injectConf(orig, { name: 'net' });
    expect(Object.isFrozen(kept)).toBe(true);
    expect(Object.isFrozen(kept.network.capabilities)).toBe(true);
    expect(() => {
      (kept.network.capabilities as Record<string, boolean>)['dns'] = false;
    }).toThrow(TypeError);
  });

  it('non-string values: each injection gets its own values (a config is remembered by their text)', () => {
    const orig = conf();
    const a = injectConf(orig, { runtimeConfig: { dns: { Servers: ['10.0.0.10'] } } });
    const b = injectConf(orig, { runtimeConfig: { dns: { Servers: ['10.0.0.11'] } } });
    expect(configText(a)).toContain('"10.0.0.10"');
    expect(configText(b)).toContain('"10.0.0.11"');
  });

  it('the same non-string values give the same config; values changed in place give theirs', () => {
    const orig = conf();
    const rc = { dns: { Servers: ['10.0.0.10'] } };
    const texts = [0, 1, 2].map(() => configText(injectConf(orig, { runtimeConfig: rc })));
    expect(new Set(texts).size).toBe(1);
    const kept = injectConf(orig, { runtimeConfig: rc });
    expect(Object.isFrozen(kept)).toBe(true);
    rc.dns.Servers[0] = '10.0.0.99';
    expect(configText(injectConf(orig, { runtimeConfig: rc }))).toContain('"10.0.0.99"');
    expect(() => injectConf(orig, { '': 'x' })).toThrow('keys cannot be empty');
    expect(() => injectConf(orig, { a: undefined })).toThrow("key 'a' value must not be nil");
    expect(() => injectConf(orig, { a: NaN })).toThrow('json: unsupported value: NaN');
  });

  it('buildOneConfig for the 2nd and 100th pod gives what it gave the 1st', () => {
    const list = confListFromBytes(
      JSON.stringify({
        cniVersion: '0.3.1',
        name: 'cbr0',
        plugins: [
          {
            type: 'win-bridge',
            capabilities: { dns: true, portMappings: true },
            ipam: { type: 'host-local' },
          },
        ],
      }),
    );
    const rt = (i: number): RuntimeConf => ({
      containerId: `c${i}`,
      netns: 'ns',
      ifName: 'eth0',
      capabilityArgs: { dns: { Servers: ['10.96.0.10'], Searches: null, Options: null }, portMappings: [] },
    });
    const first = configText(buildOneConfig('cbr0', '0.3.1', list.plugins[0]!, undefined, rt(0)));
    expect(first).toBe(
      '{"capabilities":{"dns":true,"portMappings":true},"cniVersion":"0.3.1","ipam":{"type":"host-local"},"name":"cbr0","runtimeConfig":{"dns":{"Servers":["10.96.0.10"],"Searches":null,"Options":null},"portMappings":[]},"type":"win-bridge"}',
    );
    for (let i = 1; i < 100; i++)
      expect(configText(buildOneConfig('cbr0', '0.3.1', list.plugins[0]!, undefined, rt(i)))).toBe(first);
  });
});
