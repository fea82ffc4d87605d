/**
 * win-overlay's own helpers (containernetworking/plugins @ 3d27709f,
 * `plugins/main/windows/win-overlay/win-overlay_windows.go`): the `endpointMacPrefix` check, which
 * counts bytes as Go's `len` and `s[2]` do, and the MAC format `%v-%02x-%02x-%02x-%02x`.
 */
import { describe, expect, it } from 'vitest';
import { checkMacPrefix, loadWinOverlayConf, overlayMac } from '../../src/plugins/win-overlay.js';

function prefixOf(endpointMacPrefix: string): string {
  const n = loadWinOverlayConf(JSON.stringify({ name: 'vxlan0', type: 'win-overlay', endpointMacPrefix }));
  checkMacPrefix(n);
  return n.endpointMacPrefix;
}

describe('endpointMacPrefix', () => {
  it('empty → the default 0E-2A', () => {
    expect(prefixOf('')).toBe('0E-2A');
  });

  it('any 5 bytes with "-" third are accepted as given (no hex check)', () => {
    expect(prefixOf('zz-zz')).toBe('zz-zz');
    // "é" is two bytes in UTF-8: Go sees 5 bytes with '-' at index 2
    expect(prefixOf('é-ab')).toBe('é-ab');
  });

  it.each(['0E2A', '0E-2A-', '0E_2A', 'é-abc'])('%s is refused', (p) => {
    expect(() => prefixOf(p)).toThrow(
      `endpointMacPrefix [${p}] is invalid, value must be of the format xx-xx`,
    );
  });

  it('the MAC keeps the prefix as given and prints the octets in lower-case hex', () => {
    expect(overlayMac('0e-2a', new Uint8Array([192, 168, 0, 255]))).toBe('0e-2a-c0-a8-00-ff');
  });
});
