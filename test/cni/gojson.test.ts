/**
 * Go's encoding/json behaviour the CNI layer depends on. The two scanner texts quoted by upstream
 * tests ("unexpected end of JSON input", "invalid character 'a' looking for beginning of value":
 * containernetworking/cni @ 3f51e880 libcni/conf_test.go, api_test.go) anchor the table; the other
 * rows follow Go's scanner (encoding/json/scanner.go) and decoder texts (code-derived).
 */
import { describe, expect, it } from 'vitest';
import {
  field,
  goBool,
  goIndent,
  goMap,
  goMarshal,
  goMarshalIndent,
  GoOrdered,
  GoRaw,
  goSlice,
  goString,
  goStrconvQuote,
  goStruct,
  goSyntaxError,
  goUnmarshal,
} from '../../src/cni/gojson.js';

describe('scanner errors (checkValid)', () => {
  it.each([
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['adfadsfasdfasfdsafaf', "invalid character 'a' looking for beginning of value"],
    ['{ cc cc cc}', "invalid character 'c' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    // at the end, Go's scanner.eof() steps once more with a space and keeps that step's error
    // (encoding/json/scanner.go eof; golang/go#58680)
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['-', "invalid character ' ' in numeric literal"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1e', "invalid character ' ' in exponent of numeric literal"],
    ['"abc', 'unexpected end of JSON input'],
    ['[1', 'unexpected end of JSON input'],
    ['12', undefined],
    ['trux', "invalid character 'x' in literal true (expecting 'e')"],
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['fals3', "invalid character '3' in literal false (expecting 'e')"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1ex', "invalid character 'x' in exponent of numeric literal"],
    ['"\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\tb"', "invalid character '\\t' in string literal"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['{"a":01}', "invalid character '1' after object key:value pair"],
  ])('%j → %s', (input, msg) => {
    expect(goSyntaxError(input)).toBe(msg);
  });

  it.each(['1', ' 1 ', '-0.5e+3', '"x"', 'null', '{"a":[1,{"b":null}]}', '[]', '{}', '"\\u00e9\\n"'])(
    '%j is valid',
    (input) => {
      expect(goSyntaxError(input)).toBeUndefined();
    },
  );
});

describe('typed decoding', () => {
  const conf = goStruct('types.PluginConf', [
    field('name', goString),
    field('type', goString),
    field('capabilities', goMap(goBool)),
    field('dns', goStruct('types.DNS', [field('nameservers', goSlice(goString))])),
  ]);

  it('matches struct fields case-insensitively; the last matching key wins', () => {
    expect(goUnmarshal('{"NAME":"a","Type":"t","name":"b"}', conf)).toEqual({ name: 'b', type: 't' });
  });

  it('a JSON null leaves a field as it was', () => {
    expect(goUnmarshal('{"name":null,"type":"x"}', conf)).toEqual({ type: 'x' });
  });

  it.each([
    ['{"type":5}', 'json: cannot unmarshal number into Go struct field PluginConf.type of type string'],
    [
      '{"capabilities":{"a":"yes"}}',
      'json: cannot unmarshal string into Go struct field PluginConf.capabilities of type bool',
    ],
    [
      '{"dns":{"nameservers":"x"}}',
      'json: cannot unmarshal string into Go struct field DNS.dns.nameservers of type []string',
    ],
    [
      '{"dns":{"nameservers":[1]}}',
      'json: cannot unmarshal number into Go struct field DNS.dns.nameservers of type string',
    ],
    ['[]', 'json: cannot unmarshal array into Go value of type types.PluginConf'],
  ])('type error %s', (input, msg) => {
    expect(() => goUnmarshal(input, conf)).toThrow(msg);
  });

  it('reports the first type error after decoding everything', () => {
    expect(() => goUnmarshal('{"type":1,"name":true}', conf)).toThrow(
      'json: cannot unmarshal number into Go struct field PluginConf.type of type string',
    );
  });

  it('a syntax error comes before any type error', () => {
    expect(() => goUnmarshal('{"type":1,', conf)).toThrow('unexpected end of JSON input');
  });
});

describe('encoding', () => {
  it('maps are sorted, structs keep their order, HTML characters are escaped', () => {
    const v = {
      b: 1,
      a: new GoOrdered([
        ['z', '<&>'],
        ['y', null],
      ]),
      '\u2028': [],
    };
    expect(goMarshal(v)).toBe('{"a":{"z":"\\u003c\\u0026\\u003e","y":null},"b":1,"\\u2028":[]}');
  });

  it('raw MarshalJSON output is spliced in compacted', () => {
    expect(goMarshal({ r: new GoRaw('{ "x" : [ 1, 2 ] }') })).toBe('{"r":{"x":[1,2]}}');
  });

  it('MarshalIndent: 4 spaces, empty containers stay {} and [], no trailing newline', () => {
    expect(
      goMarshalIndent(
        new GoOrdered([
          ['a', {}],
          ['b', []],
          ['c', [1, { d: 'x' }]],
        ]),
      ),
    ).toBe(
      '{\n    "a": {},\n    "b": [],\n    "c": [\n        1,\n        {\n            "d": "x"\n        }\n    ]\n}',
    );
    expect(goIndent('{"s":"a, b: {c}"}')).toBe('{\n    "s": "a, b: {c}"\n}');
  });

  it('strconv.Quote for %q', () => {
    expect(goStrconvQuote('a"b\\c\n\u0001é')).toBe('"a\\"b\\\\c\\n\\x01é"');
  });
});
