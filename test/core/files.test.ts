/**
 * The host's simulated disk (src/core/files.ts): Windows path rules, directories implied by files,
 * the snapshot round trip, and a bad snapshot changing nothing.
 */
import { describe, expect, it } from 'vitest';
import { FileStore, joinPath, normalizePath } from '../../src/core/files.js';
import { createHost } from '../../src/host/host.js';

describe('FileStore paths', () => {
  it('treats \\ and /, case and the drive letter as Windows does', () => {
    const f = new FileStore();
    f.write('C:\\var\\lib\\cni\\networks\\cbr0\\10.244.1.2', 'abc\r\neth0');
    expect(f.read('/var/lib/cni/networks/cbr0/10.244.1.2')).toBe('abc\r\neth0');
    expect(f.read('/VAR/Lib//cni/./networks/cbr0/10.244.1.2')).toBe('abc\r\neth0');
    expect(f.exists('c:/var/lib/cni/networks/CBR0/10.244.1.2')).toBe(true);
    expect(f.read('/var/lib/cni/networks/cbr0/10.244.1.3')).toBeUndefined();
  });

  it('normalises .. and keeps the first-written case of a directory', () => {
    expect(normalizePath('C:\\a\\b\\..\\c').display).toBe('/a/c');
    expect(joinPath('/var/lib/cni', 'networks', 'cbr0')).toBe('/var/lib/cni/networks/cbr0');
    const f = new FileStore();
    f.write('/Var/Lib/x', '1');
    f.write('/var/lib/y', '2');
    expect(f.entries().map(([p]) => p)).toEqual(['/Var/Lib/x', '/Var/Lib/y']);
  });

  it('lists a directory: files and subdirectories, sorted, each once', () => {
    const f = new FileStore();
    f.write('/d/b', '');
    f.write('/d/a/1', '');
    f.write('/d/a/2', '');
    f.write('/dx/z', '');
    expect(f.list('/d')).toEqual(['a', 'b']);
    expect(f.list('/nothing')).toEqual([]);
    expect(f.isDirectory('/d/a')).toBe(true);
    expect(f.isDirectory('/d/b')).toBe(false);
  });

  it('removes files and trees, saying what it removed', () => {
    const f = new FileStore();
    const seen: string[] = [];
    f.onChange = (c) => seen.push(`${c.op} ${c.path}`);
    f.write('/d/a/1', '');
    f.write('/d/a/2', '');
    f.write('/d/ab', '');
    expect(f.remove('/d/a/1')).toBe(true);
    expect(f.remove('/d/a/1')).toBe(false);
    expect(f.removeTree('/d/a')).toBe(1);
    expect(f.entries().map(([p]) => p)).toEqual(['/d/ab']);
    expect(seen).toEqual(['write /d/a/1', 'write /d/a/2', 'write /d/ab', 'remove /d/a/1', 'remove /d/a/2']);
  });

  it('refuses to write a file over a directory, or the root', () => {
    const f = new FileStore();
    f.write('/d/a', '1');
    expect(() => f.write('/d', 'x')).toThrow(/is a directory/);
    expect(() => f.write('C:\\', 'x')).toThrow(/root/);
    expect(f.entries()).toEqual([['/d/a', '1']]);
  });
});

describe('the host disk in snapshots', () => {
  it('round-trips through snapshot/restore and survives an HNS restart and a reboot', () => {
    const a = createHost({ seed: 3 });
    a.files.write('/run/flannel/subnet.env', 'FLANNEL_NETWORK=10.244.0.0/16\n');
    a.restartHns();
    a.reboot();
    expect(a.files.read('/run/flannel/subnet.env')).toBe('FLANNEL_NETWORK=10.244.0.0/16\n');
    const snap = JSON.parse(JSON.stringify(a.snapshot())) as Record<string, unknown>;
    expect(snap.files).toEqual({ '/run/flannel/subnet.env': 'FLANNEL_NETWORK=10.244.0.0/16\n' });
    const b = createHost({ seed: 3 });
    b.restore(snap);
    expect(b.files.entries()).toEqual(a.files.entries());
  });

  it('a snapshot with a bad file section changes nothing, HNS included', () => {
    const a = createHost({ seed: 3 });
    a.files.write('/keep', 'me');
    const before = JSON.stringify(a.snapshot());
    const other = createHost({ seed: 4 });
    other.api.HcnCreateNetwork(null, { Name: 'n', Type: 'NAT' });
    const bad = { ...(JSON.parse(JSON.stringify(other.snapshot())) as object), files: { '/x': 5 } };
    expect(() => a.restore(bad)).toThrow(/files: \/x is not text/);
    expect(JSON.stringify(a.snapshot())).toBe(before);
  });

  it('emits file.change events on the host bus', () => {
    const h = createHost();
    const seen: string[] = [];
    h.events.on('file.change', (c) => seen.push(`${c.op} ${c.path}`));
    h.files.write('C:\\etc\\cni\\net.d\\10-flannel.conflist', '{}');
    h.files.remove('/etc/cni/net.d/10-flannel.conflist');
    expect(seen).toEqual([
      'write /etc/cni/net.d/10-flannel.conflist',
      'remove /etc/cni/net.d/10-flannel.conflist',
    ]);
  });
});

describe('FileStore refusals', () => {
  it('refuses a file under a file, and leaves both as they were', () => {
    const f = new FileStore();
    f.write('/a/b', 'x');
    expect(() => f.write('/a/b/c', 'y')).toThrow(/\/a\/b is a file/);
    expect(f.entries()).toEqual([['/a/b', 'x']]);
    expect(f.isDirectory('/a/b')).toBe(false);
  });
});
