/**
 * host-local's disk store keeps its view of the network directory between invocations (so an ADD
 * or a DEL does not read every reservation). Whatever else touches the directory — files written or
 * removed by someone else, in it or below it, a listener writing while host-local writes, another
 * spelling of the directory — its answers, the files it leaves and the order of its changes must
 * be those of the store as upstream writes it: `filepath.Walk` of the directory on every
 * GetByID/ReleaseByID/FindByID (containernetworking/plugins @3d27709f
 * plugins/ipam/host-local/backend/disk/backend.go). The reference below is that walk, written here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileStore, type FileChange } from '../../../src/core/files.js';
import { DiskStore, escapedPath, ipString, parseIP, type IP } from '../../../src/plugins/host-local/index.js';
import { goTrimSpace } from '../../../src/plugins/host-local/store.js';
import { runs } from '../../runs.js';

const LINE_BREAK = '\r\n';
const DIR = '/var/lib/cni/networks/cbr0';

/** backend.go as upstream has it: every question walks the directory. */
class WalkingStore {
  constructor(
    private readonly files: FileStore,
    private readonly dataDir: string,
  ) {}

  private walk(): [string, string][] {
    return this.files.entries(this.dataDir).filter(([p]) => p !== this.dataDir);
  }

  reserve(id: string, ifname: string, ip: IP, rangeID: string): boolean {
    const fname = escapedPath(this.dataDir, ipString(ip));
    if (this.files.exists(fname) || this.files.isDirectory(fname)) return false;
    this.files.write(fname, goTrimSpace(id) + LINE_BREAK + ifname);
    this.files.write(escapedPath(this.dataDir, `last_reserved_ip.${rangeID}`), ipString(ip));
    return true;
  }

  private releaseByKey(match: string): boolean {
    let found = false;
    for (const [path, data] of this.walk())
      if (goTrimSpace(data) === match && this.files.remove(path)) found = true;
    return found;
  }

  releaseByID(id: string, ifname: string): void {
    if (!this.releaseByKey(goTrimSpace(id) + LINE_BREAK + ifname)) this.releaseByKey(goTrimSpace(id));
  }

  getByID(id: string, ifname: string): IP[] {
    const out: IP[] = [];
    for (const [path, data] of this.walk()) {
      const t = goTrimSpace(data);
      if (t !== goTrimSpace(id) + LINE_BREAK + ifname && t !== goTrimSpace(id)) continue;
      const ip = parseIP(path.slice(path.lastIndexOf('/') + 1));
      if (ip !== undefined) out.push(ip);
    }
    return out;
  }

  findByID(id: string, ifname: string): boolean {
    const has = (m: string) => this.walk().some(([, d]) => goTrimSpace(d) === m);
    return has(goTrimSpace(id) + LINE_BREAK + ifname) || has(goTrimSpace(id));
  }
}

const id = fc.constantFrom('abc', ' abc', 'abc\n', 'def', 'Abc');
const ifname = fc.constantFrom('eth0', 'eth1');
const addr = fc.constantFrom('10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '2001:db8::2');
const name = fc.constantFrom(
  '10.0.0.2',
  '10.0.0.3',
  '10.0.0.6',
  'sub/10.0.0.7',
  'other',
  'last_reserved_ip.0',
);
const contents = fc.constantFrom('abc\r\neth0', ' abc\r\neth0 \n', 'abc', 'def\r\neth1', '', 'abc\r\neth1');
const spelling = fc.constantFrom('cbr0', 'CBR0');
const op = fc.oneof(
  fc.record({ k: fc.constant('reserve' as const), id, ifname, addr, spelling }),
  fc.record({ k: fc.constant('release' as const), id, ifname, spelling }),
  fc.record({ k: fc.constant('get' as const), id, ifname, spelling }),
  fc.record({ k: fc.constant('find' as const), id, ifname, spelling }),
  fc.record({ k: fc.constant('write' as const), name, contents }),
  fc.record({ k: fc.constant('remove' as const), name }),
  fc.record({ k: fc.constant('echo' as const), on: fc.boolean() }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

interface Side {
  readonly files: FileStore;
  readonly log: FileChange[];
  echo: boolean;
}

function side(): Side {
  const s: Side = { files: new FileStore(), log: [], echo: false };
  s.files.onChange = (c) => {
    s.log.push(c);
    // a listener that writes into the directory while the store is writing there
    if (s.echo && c.op === 'write' && c.path.endsWith('10.0.0.3'))
      s.files.write(`${DIR}/echo`, 'abc\r\neth0');
  };
  return s;
}

function apply(o: Op, s: Side, indexed: boolean): unknown {
  const open = (sp: string) =>
    indexed
      ? DiskStore.open(s.files, sp, '')
      : new WalkingStore(s.files, DiskStore.open(s.files, sp, '').dataDir);
  switch (o.k) {
    case 'reserve':
      return open(o.spelling).reserve(o.id, o.ifname, parseIP(o.addr)!, '0');
    case 'release':
      return open(o.spelling).releaseByID(o.id, o.ifname);
    case 'get':
      return open(o.spelling).getByID(o.id, o.ifname).map(ipString);
    case 'find':
      return indexed
        ? DiskStore.open(s.files, o.spelling, '').findByID(o.id, o.ifname)
        : (open(o.spelling) as WalkingStore).findByID(o.id, o.ifname);
    case 'write':
      try {
        s.files.write(`${DIR}/${o.name}`, o.contents);
        return 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    case 'remove':
      return s.files.remove(`${DIR}/${o.name}`);
    case 'echo':
      s.echo = o.on;
      return undefined;
  }
}

describe('host-local DiskStore keeps its directory view exact', () => {
  it('answers, files and change order match a walk of the directory on every call', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const a = side();
        const b = side();
        for (const o of ops) {
          const got = apply(o, a, true);
          const want = apply(o, b, false);
          expect(got).toEqual(want);
          expect(a.files.entries()).toEqual(b.files.entries());
          expect(a.log).toEqual(b.log);
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it('a store opened after the directory was restored from a snapshot reads it again', () => {
    const files = new FileStore();
    const s = DiskStore.open(files, 'cbr0', '');
    s.reserve('abc', 'eth0', parseIP('10.0.0.2')!, '0');
    expect(s.getByID('abc', 'eth0').map(ipString)).toEqual(['10.0.0.2']);
    files.restore({ [`${DIR}/10.0.0.9`]: 'abc\r\neth0', [`${DIR}/lock`]: '' });
    expect(DiskStore.open(files, 'cbr0', '').getByID('abc', 'eth0').map(ipString)).toEqual(['10.0.0.9']);
    files.clear();
    expect(DiskStore.open(files, 'cbr0', '').getByID('abc', 'eth0')).toEqual([]);
  });
});
