/**
 * The source-tree readers of src/cni/gotree.ts (win-bridge's and win-overlay's config decoding,
 * jsonparser's lookups) over the decoder of src/cni/godecode.ts. Expected texts are Go's: the scanner messages
 * were produced by Go's `encoding/json` (`json.Unmarshal` into an `interface{}`; the scanner texts
 * have not changed since Go 1.x), the type errors follow `UnmarshalTypeError.Error()` with the
 * embedded-struct names Go 1.24 added to `Field` (golang/go#68941; plugins v1.9.1 build with Go 1.25).
 */
import { describe, expect, it } from 'vitest';
import {
  field,
  goFoldName,
  goInt,
  goRaw,
  goSlice,
  goString,
  goStruct,
  goUnmarshalText,
  jpBytes,
  jpGet,
  jpGetString,
  parseGoJson,
  rawText,
} from '../../src/cni/gojson.js';
import { loadNetConf } from '../../src/plugins/hns/netconf.js';

describe('parseGoJson: Go scanner error texts', () => {
  const cases: [string, string][] = [
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['[1 2]', "invalid character '2' after array element"],
    ['{"a":1 "b"}', `invalid character '"' after object key:value pair`],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\x01"', "invalid character '\\x01' in string literal"],
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['{} x', "invalid character 'x' after top-level value"],
    ['', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    // a non-ASCII character is named by its first UTF-8 byte (0xC3 for é)
    ['{"a":é}', "invalid character 'Ã' looking for beginning of value"],
  ];
  for (const [input, message] of cases) {
    it(`${JSON.stringify(input)} → ${message}`, () => {
      expect(() => parseGoJson(input)).toThrow(message);
    });
  }

  it('keeps each value’s exact source text (json.RawMessage)', () => {
    const src =
      '{"policies":[{"name":"EndpointPolicy","value": {"Type" : "OutBoundNAT",\n "ExceptionList":[ "10.0.0.0/8" ]} }]}';
    const root = parseGoJson(src);
    const value = jpGet(root, 'policies');
    expect(value?.kind).toBe('array');
    const item = value?.kind === 'array' ? value.items[0] : undefined;
    expect(rawText(jpGet(item, 'value')!)).toBe(
      '{"Type" : "OutBoundNAT",\n "ExceptionList":[ "10.0.0.0/8" ]}',
    );
  });
});

describe('jsonparser lookups', () => {
  it('are case-sensitive and hand back string contents undecoded', () => {
    const node = parseGoJson('{"type":"OutBoundNAT","Type":"OutBound\\u004eAT","PA":"10.0.0.1"}');
    expect(jpGetString(node, 'Type')).toBe('OutBound\\u004eAT');
    expect(jpGetString(node, 'TYPE')).toBe('');
    expect(jpBytes(jpGet(node, 'PA')!)).toBe('10.0.0.1');
  });

  it('take the first of duplicate keys', () => {
    expect(jpGetString(parseGoJson('{"Type":"A","Type":"B"}'), 'Type')).toBe('A');
  });
});

describe('goUnmarshalText: Go struct decoding from source text', () => {
  const T = goStruct('main.T', [
    field('name', goString),
    field('count', goInt),
    field('list', goSlice(goString)),
    field('raw', goRaw),
  ]);

  it('matches keys exactly first, then case-insensitively; the last occurrence wins', () => {
    expect(goUnmarshalText('{"NAME":"a","Name":"b"}', T)['name']).toBe('b');
    expect(goUnmarshalText('{"COUNT":3}', T)['count']).toBe(3);
  });

  it('folds non-ASCII as Go does: ſ matches s (ToUpper(ToLower))', () => {
    expect(goFoldName('liſt')).toBe(goFoldName('LIST'));
    expect(goUnmarshalText('{"liſt":["x"]}', T)['list']).toEqual(['x']);
  });

  it('keeps a RawMessage byte for byte, null included', () => {
    expect(goUnmarshalText('{"raw": [ 1,2 ] }', T)['raw']).toBe('[ 1,2 ]');
    expect(goUnmarshalText('{"raw":null}', T)['raw']).toBe('null');
    expect(goUnmarshalText('{}', T)['raw']).toBeUndefined();
  });

  it('null leaves a string as it was and clears a slice', () => {
    expect(goUnmarshalText('{"name":"a","name":null}', T)['name']).toBe('a');
    expect(goUnmarshalText('{"list":["a"],"list":null}', T)['list']).toBeUndefined();
  });

  it('reports the first type mismatch as UnmarshalTypeError', () => {
    expect(() => goUnmarshalText('{"count":"2","name":5}', T)).toThrow(
      'json: cannot unmarshal string into Go struct field T.count of type int',
    );
    expect(() => goUnmarshalText('{"count":2.5}', T)).toThrow(
      'json: cannot unmarshal number 2.5 into Go struct field T.count of type int',
    );
    expect(() => goUnmarshalText('{"list":[1]}', T)).toThrow(
      'json: cannot unmarshal number into Go struct field T.list of type string',
    );
    expect(() => goUnmarshalText('[]', T)).toThrow(
      'json: cannot unmarshal array into Go value of type main.T',
    );
  });

  it('names the embedded structs of a promoted field (Go 1.24+) in loadNetConf errors', () => {
    expect(() => loadNetConf('{"apiVersion":"2"}', [])).toThrow(
      'failed to load netconf: json: cannot unmarshal string into Go struct field NetConf.NetConf.apiVersion of type int',
    );
    expect(() => loadNetConf('{"ipam":"host-local"}', [])).toThrow(
      'failed to load netconf: json: cannot unmarshal string into Go struct field NetConf.NetConf.NetConf.ipam of type types.IPAM',
    );
    expect(() => loadNetConf('{"runtimeConfig":{"dns":{"servers":"a"}}}', [])).toThrow(
      'failed to load netconf: json: cannot unmarshal string into Go struct field RuntimeDNS.NetConf.runtimeConfig.dns.servers of type []string',
    );
  });
});
