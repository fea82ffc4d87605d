/**
 * Plugin lookup as containernetworking/cni @ 3f51e880 pkg/invoke/find.go and os_windows.go do it on
 * Windows (`.exe` then no extension, each CNI_PATH entry in order), with Go's `filepath.SplitList`
 * for `;`-separated lists and Go's error texts.
 */
import { describe, expect, it } from 'vitest';
import { PluginRegistry, splitPathList, type CniPlugin } from '../../src/cni/index.js';

const plugin = (type: string, tag = type): CniPlugin => ({
  type,
  exec: async () => ({ exitCode: 0, stdout: tag, stderr: '' }),
});

describe('splitPathList (Windows filepath.SplitList)', () => {
  it.each([
    ['', []],
    ['C:\\a', ['C:\\a']],
    ['C:\\a;C:\\b', ['C:\\a', 'C:\\b']],
    ['C:\\a;;C:\\b', ['C:\\a', '', 'C:\\b']],
    ['"C:\\x;y";C:\\b', ['C:\\x;y', 'C:\\b']],
  ])('%j', (input, out) => {
    expect(splitPathList(input)).toEqual(out);
  });
});

describe('PluginRegistry.find (invoke.FindInPath)', () => {
  it('the first directory that holds the plugin wins; directory names are case-insensitive', () => {
    const r = new PluginRegistry()
      .register(plugin('win-bridge', 'one'), ['C:\\one'])
      .register(plugin('win-bridge', 'two'), ['c:/TWO/']);
    expect(r.find('win-bridge', ['C:\\none', 'C:\\two', 'C:\\one'])).toMatchObject({
      path: 'C:\\two\\win-bridge.exe',
    });
    expect(r.find('win-bridge', ['C:\\one\\'])).toMatchObject({ path: 'C:\\one\\win-bridge.exe' });
    expect(r.find('WIN-BRIDGE', ['C:\\one']).plugin.type).toBe('win-bridge');
  });

  it('`<type>.exe` is found when asked for by its file name', () => {
    const r = new PluginRegistry().register(plugin('host-local'), ['C:\\bin']);
    expect(r.find('host-local.exe', ['C:\\bin']).path).toBe('C:\\bin\\host-local.exe');
  });

  it('a plugin registered without directories is in every directory', () => {
    const r = new PluginRegistry().register(plugin('flannel'));
    expect(r.find('flannel', ['D:\\anything']).path).toBe('D:\\anything\\flannel.exe');
    expect(r.types()).toEqual(['flannel']);
    r.unregister('flannel');
    expect(() => r.find('flannel', ['D:\\anything'])).toThrow(
      'failed to find plugin "flannel" in path [D:\\anything]',
    );
  });

  it.each([
    ['', ['C:\\bin'], 'no plugin name provided'],
    ['..\\evil', ['C:\\bin'], 'invalid plugin name: ..\\evil'],
    ['win-bridge', [], 'no paths provided'],
    ['nope', ['C:\\a', 'C:\\b'], 'failed to find plugin "nope" in path [C:\\a C:\\b]'],
  ])('find(%j, %j) → %s', (name, paths, msg) => {
    const r = new PluginRegistry().register(plugin('win-bridge'), ['C:\\bin']);
    expect(() => r.find(name, paths)).toThrow(msg);
  });
});
