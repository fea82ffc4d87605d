/**
 * How encoding/json matches a key to a struct field: the exact name, else equality under Go's
 * `foldName` (encoding/json fold.go, Go 1.21+): ASCII upper-cased, any other rune through
 * `unicode.ToUpper(unicode.ToLower(r))`. Go's unicode package applies Unicode's simple case
 * mappings (UnicodeData.txt: one rune to one rune): U+0130 İ lower-cases to U+0069 i; U+00DF ß has no
 * simple upper-case mapping (it stays ß, where String.prototype.toUpperCase gives "SS"); U+1E9E ẞ
 * lower-cases to ß; U+017F ſ upper-cases to S; U+212A (Kelvin sign) lower-cases to k. Every reader
 * (a parsed document: libcni, WCN; a source tree: win-bridge, win-overlay) matches the same way.
 */
import { describe, expect, it } from 'vitest';
import { goFoldName } from '../../src/cni/gojson.js';
import { pluginConfFromBytes } from '../../src/cni/conf.js';
import { decodeNetworkConfig } from '../../src/plugins/wcn/config.js';
import { loadWinOverlayConf } from '../../src/plugins/win-overlay.js';

describe("Go's foldName", () => {
  it('puts runes in the classes of the simple case mappings', () => {
    expect(goFoldName('ſ')).toBe(goFoldName('s'));
    expect(goFoldName('\u212a')).toBe(goFoldName('k'));
    expect(goFoldName('İ')).toBe(goFoldName('i'));
    expect(goFoldName('ẞ')).toBe(goFoldName('ß'));
    expect(goFoldName('ß')).not.toBe(goFoldName('ss'));
    expect(goFoldName('ᾀ')).toBe(goFoldName('ᾈ'));
  });
});

describe('every reader folds keys as Go does', () => {
  it('a parsed document (libcni: types.PluginConf)', () => {
    expect(pluginConfFromBytes('{"type":"t","cniVerſion":"1.0.0"}').network.cniVersion).toBe('1.0.0');
    expect(pluginConfFromBytes('{"type":"t","İpam":{"type":"host-local"}}').network.ipam.type).toBe(
      'host-local',
    );
  });

  it('a parsed document (WCN): ß is not ss', () => {
    expect(decodeNetworkConfig('{"type":"L2Bridge","ipam":{"addreßSpace":"a"}}').ipam.addressSpace).toBe('');
    expect(decodeNetworkConfig('{"type":"L2Bridge","ipam":{"addreſſSpace":"a"}}').ipam.addressSpace).toBe(
      'a',
    );
  });

  it('a source tree (win-overlay NetConf)', () => {
    expect(loadWinOverlayConf('{"type":"win-overlay","İpMasq":true}').ipMasq).toBe(true);
    expect(
      loadWinOverlayConf('{"type":"win-overlay","endpointMacPrefix":"0E-2A","ENDPOİNTMACPREFİX":"0E-2B"}')
        .endpointMacPrefix,
    ).toBe('0E-2B');
  });
});
