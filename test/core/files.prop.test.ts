/**
 * The file store's directory index against a naive model (a flat map of paths scanned on every
 * question): any sequence of writes and removes gives the same answers to read, list, isDirectory
 * and entries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/core/files.js';
import { runs } from '../runs.js';

const seg = fc.constantFrom('a', 'A', 'b', 'c');
const path = fc.array(seg, { minLength: 1, maxLength: 3 }).map((xs) => `/${xs.join('/')}`);
const op = fc.oneof(
  fc.record({ op: fc.constant('write' as const), path, data: fc.constantFrom('1', '2') }),
  fc.record({ op: fc.constant('remove' as const), path }),
  fc.record({ op: fc.constant('tree' as const), path }),
);

/** The naive model: lower-case path → contents; a write under or over a file is refused. */
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

function modelApply(m: Map<string, string>, o: Op): void {
  const k = o.path.toLowerCase();
  if (o.op === 'write') {
    const isDir = [...m.keys()].some((x) => x.startsWith(`${k}/`));
    const parts = k.split('/');
    const underFile = parts.slice(2).some((_, i) => m.has(parts.slice(0, i + 2).join('/')));
    if (!isDir && !underFile) m.set(k, o.data);
  } else if (o.op === 'remove') {
    m.delete(k);
  } else {
    for (const x of [...m.keys()]) if (x === k || x.startsWith(`${k}/`)) m.delete(x);
  }
}

describe('FileStore against a naive model', () => {
  it('answers as a scan of every path would', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const f = new FileStore();
        const m = new Map<string, string>();
        for (const o of ops) {
          try {
            if (o.op === 'write') f.write(o.path, o.data);
            else if (o.op === 'remove') f.remove(o.path);
            else f.removeTree(o.path);
          } catch {
            // refused writes change nothing (checked below)
          }
          modelApply(m, o);
        }
        expect(new Map(f.entries().map(([p, d]) => [p.toLowerCase(), d]))).toEqual(m);
        for (const dir of ['/', '/a', '/b', '/a/b', '/c/a']) {
          const names = new Set<string>();
          for (const k of m.keys()) {
            if (k.startsWith(dir === '/' ? '/' : `${dir}/`))
              names.add(k.slice(dir === '/' ? 1 : dir.length + 1).split('/')[0]!);
          }
          expect(
            f
              .list(dir)
              .map((x) => x.toLowerCase())
              .sort(),
          ).toEqual([...names].sort());
          expect(f.isDirectory(dir)).toBe(names.size > 0);
        }
        expect(f.size).toBe(m.size);
      }),
      { numRuns: runs(300) },
    );
  });
});
