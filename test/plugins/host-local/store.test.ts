// host-local's disk store on the simulated disk (containernetworking/plugins @3d27709f
// plugins/ipam/host-local/backend/disk/backend.go, lock.go): file names and contents, the Windows
// ':' → '_' escape and what it breaks (GetByID), release by (id, ifname) then id, the lock file.
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/core/files.js';
import { DiskStore, escapedPath, LINE_BREAK } from '../../../src/plugins/host-local/index.js';
import { goTrimSpace } from '../../../src/plugins/host-local/store.js';
import { ip } from './helpers.js';

function store(files = new FileStore(), network = 'cbr0', dataDir = ''): { files: FileStore; s: DiskStore } {
  return { files, s: DiskStore.open(files, network, dataDir) };
}

describe('DiskStore', () => {
  it('opens <dataDir>/<network> (default /var/lib/cni/networks) and leaves go-filemutex\'s "lock" file', () => {
    const { files, s } = store();
    expect(s.dataDir).toBe('/var/lib/cni/networks/cbr0');
    expect(files.entries()).toEqual([['/var/lib/cni/networks/cbr0/lock', '']]);
    const other = store(files, 'net2', 'C:\\k\\ipam');
    expect(other.s.dataDir).toBe('/k/ipam/net2');
    expect(files.exists('/k/ipam/net2/lock')).toBe(true);
  });

  it('Reserve writes "<trimmed id>\\r\\n<ifname>" and last_reserved_ip.<range>; a taken name is refused', () => {
    const { files, s } = store();
    expect(LINE_BREAK).toBe('\r\n');
    expect(s.reserve('  abc \n', 'eth0', ip('10.244.1.2'), '0')).toBe(true);
    expect(files.read('/var/lib/cni/networks/cbr0/10.244.1.2')).toBe('abc\r\neth0');
    expect(files.read('/var/lib/cni/networks/cbr0/last_reserved_ip.0')).toBe('10.244.1.2');
    expect(s.reserve('def', 'eth0', ip('10.244.1.2'), '0')).toBe(false);
    expect(files.read('/var/lib/cni/networks/cbr0/10.244.1.2')).toBe('abc\r\neth0');
  });

  it('IPv6 file names have ":" replaced by "_" (GetEscapedPath on Windows); last_reserved_ip keeps the colons', () => {
    const { files, s } = store();
    expect(escapedPath('/d/net', '2001:db8:1::2')).toBe('/d/net/2001_db8_1__2');
    s.reserve('abc', 'eth0', ip('2001:db8:1::2'), '1');
    expect(files.read('/var/lib/cni/networks/cbr0/2001_db8_1__2')).toBe('abc\r\neth0');
    expect(files.read('/var/lib/cni/networks/cbr0/last_reserved_ip.1')).toBe('2001:db8:1::2');
    expect(s.lastReservedIP('1')).toEqual(ip('2001:db8:1::2'));
  });

  it('GetByID reads addresses back from file names, so escaped IPv6 names are missed (Windows)', () => {
    const { s } = store();
    s.reserve('abc', 'eth0', ip('10.0.0.2'), '0');
    s.reserve('abc', 'eth0', ip('2001:db8::2'), '1');
    s.reserve('abc', 'eth1', ip('10.0.0.3'), '0');
    expect(s.getByID('abc', 'eth0')).toEqual([ip('10.0.0.2')]);
  });

  it('GetByID also matches files of the old format (the ID alone)', () => {
    const { files, s } = store();
    files.write('/var/lib/cni/networks/cbr0/10.0.0.9', 'abc\n');
    expect(s.getByID('abc', 'eth0')).toEqual([ip('10.0.0.9')]);
  });

  it('LastReservedIP: none without the file, none when it holds no address', () => {
    const { files, s } = store();
    expect(s.lastReservedIP('0')).toBeUndefined();
    files.write('/var/lib/cni/networks/cbr0/last_reserved_ip.0', 'garbage');
    expect(s.lastReservedIP('0')).toBeUndefined();
  });

  it('ReleaseByID removes the (id, ifname) files only; with none, the files of the id alone', () => {
    const { files, s } = store();
    s.reserve('abc', 'eth0', ip('10.0.0.2'), '0');
    s.reserve('abc', 'eth1', ip('10.0.0.3'), '0');
    files.write('/var/lib/cni/networks/cbr0/10.0.0.4', 'abc');
    s.releaseByID('abc', 'eth0');
    expect(files.exists('/var/lib/cni/networks/cbr0/10.0.0.2')).toBe(false);
    expect(files.exists('/var/lib/cni/networks/cbr0/10.0.0.3')).toBe(true);
    // the old-format file survives: the (id, ifname) match found something
    expect(files.exists('/var/lib/cni/networks/cbr0/10.0.0.4')).toBe(true);
    s.releaseByID('abc', 'eth0');
    expect(files.exists('/var/lib/cni/networks/cbr0/10.0.0.4')).toBe(false);
    expect(files.exists('/var/lib/cni/networks/cbr0/10.0.0.3')).toBe(true);
    // the last reserved address and the lock are not the container's
    expect(files.exists('/var/lib/cni/networks/cbr0/last_reserved_ip.0')).toBe(true);
    expect(files.exists('/var/lib/cni/networks/cbr0/lock')).toBe(true);
  });

  it('FindByID (CHECK) matches (id, ifname), else the id alone', () => {
    const { files, s } = store();
    expect(s.findByID('abc', 'eth0')).toBe(false);
    s.reserve('abc', 'eth1', ip('10.0.0.3'), '0');
    expect(s.findByID('abc', 'eth0')).toBe(false);
    expect(s.findByID('abc', 'eth1')).toBe(true);
    files.write('/var/lib/cni/networks/cbr0/10.0.0.7', 'abc');
    expect(s.findByID('abc', 'eth0')).toBe(true);
  });

  it('a directory where an address file would go counts as taken (O_EXCL)', () => {
    const { files, s } = store();
    files.write('/var/lib/cni/networks/cbr0/10.0.0.2/x', '');
    expect(s.reserve('abc', 'eth0', ip('10.0.0.2'), '0')).toBe(false);
  });

  it('a file where the network directory must be: MkdirAll fails with "not a directory"', () => {
    const files = new FileStore();
    files.write('/var/lib/cni/networks', 'oops');
    expect(() => DiskStore.open(files, 'cbr0', '')).toThrow(
      'mkdir \\var\\lib\\cni\\networks: not a directory',
    );
  });

  it("goTrimSpace trims Go's white space (not JavaScript's BOM)", () => {
    expect(goTrimSpace('\u0085 abc\t\r\n')).toBe('abc');
    expect(goTrimSpace('\ufeffabc')).toBe('\ufeffabc');
  });
});
