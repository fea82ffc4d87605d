/**
 * The file store's change stamps (what lets host-local keep its view of a directory between
 * invocations): every write or remove counts one change and stamps each directory above the file;
 * a clear or a restore stamps every directory; `displayPath` gives the path as first written. The
 * normalisation fast path (already-normal paths) agrees with the general rules.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileStore, normalizePath } from '../../src/core/files.js';

describe('FileStore change stamps', () => {
  it('a write stamps the directories above the file, and no other', () => {
    const f = new FileStore();
    expect(f.changes).toBe(0);
    expect(f.stamp('/var/lib/cni/networks/cbr0')).toBe(0);
    f.write('/var/lib/cni/networks/cbr0/10.0.0.2', 'a');
    expect(f.changes).toBe(1);
    for (const d of ['/', '/var', '/var/lib/cni', 'C:\\VAR\\LIB\\CNI\\NETWORKS\\CBR0'])
      expect(f.stamp(d)).toBe(1);
    f.write('/var/lib/cni/results/x', 'b');
    expect(f.changes).toBe(2);
    expect(f.stamp('/var/lib/cni/networks/cbr0')).toBe(1);
    expect(f.stamp('/var/lib/cni/results')).toBe(2);
    expect(f.stamp('/var/lib/cni')).toBe(2);
  });

  it('an overwrite and a remove count as changes; a remove of a missing file does not', () => {
    const f = new FileStore();
    f.write('/d/x', '1');
    f.write('/d/x', '2');
    expect(f.changes).toBe(2);
    expect(f.stamp('/d')).toBe(2);
    expect(f.remove('/d/missing')).toBe(false);
    expect(f.changes).toBe(2);
    expect(f.remove('/d/x')).toBe(true);
    expect(f.changes).toBe(3);
    // the directory is gone with its last file, and keeps the stamp of that change
    expect(f.isDirectory('/d')).toBe(false);
    expect(f.stamp('/d')).toBe(3);
  });

  it('removeTree counts one change per file removed', () => {
    const f = new FileStore();
    f.write('/d/a', '1');
    f.write('/d/e/b', '2');
    f.write('/other', '3');
    expect(f.removeTree('/d')).toBe(2);
    expect(f.changes).toBe(5);
    expect(f.stamp('/d/e')).toBe(5);
    expect(f.stamp('/')).toBe(5);
    // only directories are stamped: a file's own path has none of its own
    expect(f.stamp('/other')).toBe(0);
  });

  it('clear and restore stamp every directory, even one never written', () => {
    const f = new FileStore();
    f.write('/a/x', '1');
    f.clear();
    expect(f.changes).toBe(2);
    expect(f.stamp('/a')).toBe(2);
    expect(f.stamp('/never')).toBe(2);
    f.restore({ '/b/y': '2' });
    expect(f.stamp('/never')).toBe(f.changes);
    expect(f.stamp('/b')).toBe(f.changes);
    expect(f.changes).toBeGreaterThan(2);
  });

  it('a listener that writes adds its own change after the one it hears of', () => {
    const f = new FileStore();
    const seen: number[] = [];
    f.onChange = (c) => {
      seen.push(f.changes);
      if (c.path === '/d/a') f.write('/d/b', 'echo');
    };
    f.write('/d/a', '1');
    expect(seen).toEqual([1, 2]);
    expect(f.stamp('/d')).toBe(2);
  });

  it('displayPath: the path as first written, whatever spelling asks', () => {
    const f = new FileStore();
    f.write('/Var/Lib/x', '1');
    f.write('/var/lib/Y', '2');
    expect(f.displayPath('C:\\VAR\\LIB\\X')).toBe('/Var/Lib/x');
    expect(f.displayPath('/var/lib/y')).toBe('/Var/Lib/Y');
    expect(f.displayPath('/var/lib/z')).toBeUndefined();
    expect(f.displayPath('/var/lib')).toBeUndefined(); // a directory
  });
});

describe('normalizePath', () => {
  it('keeps an already-normal path and folds its key', () => {
    expect(normalizePath('/Var/lib/cni')).toEqual({ key: '/var/lib/cni', display: '/Var/lib/cni' });
    expect(normalizePath('/var/..x/.y')).toEqual({ key: '/var/..x/.y', display: '/var/..x/.y' });
  });

  it('rewrites the others as the Windows rules say', () => {
    expect(normalizePath('C:\\Var\\\\lib/').display).toBe('/Var/lib');
    expect(normalizePath('/a/./b/../c').display).toBe('/a/c');
    expect(normalizePath('a/b').display).toBe('/a/b');
    expect(normalizePath('/a/b/').display).toBe('/a/b');
    expect(normalizePath('/a/..').display).toBe('/');
    expect(normalizePath('/').display).toBe('/');
  });

  it('is idempotent: a display path normalises to itself (the fast path changes no answer)', () => {
    const seg = fc.constantFrom('a', 'B', '.', '..', '', '.x', 'x.', 'C:', 'c d');
    const sep = fc.constantFrom('/', '\\', '//');
    const raw = fc
      .array(fc.tuple(sep, seg), { maxLength: 6 })
      .chain((parts) =>
        fc.constantFrom('', 'C:', 'c:').map((drive) => drive + parts.map(([s, x]) => s + x).join('')),
      );
    fc.assert(
      fc.property(raw, (p) => {
        const once = normalizePath(p);
        const twice = normalizePath(once.display);
        expect(twice).toEqual(once);
        expect(once.key).toBe(once.display.toLowerCase());
      }),
    );
  });
});
