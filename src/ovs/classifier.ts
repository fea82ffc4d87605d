/**
 * A tuple-space-search classifier (the idea of OVS's lib/classifier.c, written for hnsim): rules
 * are grouped by their exact mask into subtables; each subtable hashes the masked words of a
 * packet to a bucket; subtables are visited in order of the highest priority they hold and the
 * search stops once no remaining subtable can beat the best rule found. Integer-only.
 */
import { N_WORDS, type Flow } from './fields.js';

export interface Classifiable {
  readonly priority: number;
  readonly value: Uint32Array;
  readonly mask: Uint32Array;
  /** Insertion sequence: among equal priorities the older rule wins (our choice; OVS leaves it undefined). */
  readonly seq: number;
}

class Subtable<R extends Classifiable> {
  readonly words: Int32Array;
  readonly masks: Uint32Array;
  readonly buckets = new Map<number, R[]>();
  maxPriority = -1;
  count = 0;
  constructor(mask: Uint32Array) {
    const w: number[] = [];
    for (let i = 0; i < N_WORDS; i++) if (mask[i]) w.push(i);
    this.words = Int32Array.from(w);
    this.masks = Uint32Array.from(w.map((i) => mask[i]!));
  }
  hashOf(a: Uint32Array, masked: boolean): number {
    let h = 0x811c9dc5;
    const words = this.words;
    const masks = this.masks;
    for (let i = 0; i < words.length; i++) {
      const x = masked ? a[words[i]!]! & masks[i]! : a[words[i]!]!;
      h = Math.imul(h ^ x, 0x01000193);
      h ^= h >>> 15;
    }
    return h;
  }
  /** Whether the rule's value equals the flow under this subtable's mask. */
  hit(flow: Flow, r: R): boolean {
    const words = this.words;
    const masks = this.masks;
    const v = r.value;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if ((flow[w]! & masks[i]!) >>> 0 !== v[w]) return false;
    }
    return true;
  }
}

const better = (a: Classifiable, b: Classifiable | undefined): boolean =>
  b === undefined || a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);

export class Classifier<R extends Classifiable> {
  private readonly byMask = new Map<string, Subtable<R>>();
  /** Subtables by descending maxPriority. */
  private ordered: Subtable<R>[] = [];
  private dirty = false;
  private n = 0;

  get size(): number {
    return this.n;
  }

  private static maskKey(mask: Uint32Array): string {
    let s = '';
    for (let i = 0; i < N_WORDS; i++) if (mask[i]) s += `${i}:${mask[i]},`;
    return s;
  }

  insert(r: R): void {
    const key = Classifier.maskKey(r.mask);
    let st = this.byMask.get(key);
    if (!st) {
      st = new Subtable<R>(r.mask);
      this.byMask.set(key, st);
      this.ordered.push(st);
    }
    const h = st.hashOf(r.value, false);
    const b = st.buckets.get(h);
    if (b) {
      b.push(r);
      b.sort((x, y) => y.priority - x.priority || x.seq - y.seq);
    } else st.buckets.set(h, [r]);
    st.count++;
    if (r.priority > st.maxPriority) st.maxPriority = r.priority;
    this.dirty = true;
    this.n++;
  }

  remove(r: R): boolean {
    const st = this.byMask.get(Classifier.maskKey(r.mask));
    if (!st) return false;
    const h = st.hashOf(r.value, false);
    const b = st.buckets.get(h);
    const i = b ? b.indexOf(r) : -1;
    if (!b || i < 0) return false;
    b.splice(i, 1);
    if (!b.length) st.buckets.delete(h);
    st.count--;
    this.n--;
    if (!st.count) {
      this.byMask.delete(Classifier.maskKey(r.mask));
      this.ordered.splice(this.ordered.indexOf(st), 1);
    } else if (r.priority === st.maxPriority) {
      let m = -1;
      for (const bb of st.buckets.values()) if (bb[0]!.priority > m) m = bb[0]!.priority;
      st.maxPriority = m;
    }
    this.dirty = true;
    return true;
  }

  private order(): Subtable<R>[] {
    if (this.dirty) {
      this.ordered.sort((a, b) => b.maxPriority - a.maxPriority);
      this.dirty = false;
    }
    return this.ordered;
  }

  /** The best rule matching `flow` (highest priority), or undefined. */
  lookup(flow: Flow): R | undefined {
    let best: R | undefined;
    for (const st of this.order()) {
      if (best !== undefined && st.maxPriority < best.priority) break;
      const b = st.buckets.get(st.hashOf(flow, true));
      if (!b) continue;
      for (const r of b) {
        if (best !== undefined && r.priority < best.priority) break;
        if (st.hit(flow, r)) {
          if (better(r, best)) best = r;
          break;
        }
      }
    }
    return best;
  }

  /** Every rule matching `flow` with priority above `floor` (conjunctive clauses). */
  lookupAll(flow: Flow, floor: number): R[] {
    const out: R[] = [];
    for (const st of this.order()) {
      if (st.maxPriority <= floor) break;
      const b = st.buckets.get(st.hashOf(flow, true));
      if (!b) continue;
      for (const r of b) if (r.priority > floor && st.hit(flow, r)) out.push(r);
    }
    return out;
  }

  /** Every rule, in no particular order. */
  *all(): IterableIterator<R> {
    for (const st of this.ordered) for (const b of st.buckets.values()) yield* b;
  }
}
