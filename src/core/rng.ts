/**
 * Seeded randomness: the only source of entropy in hnsim (DESIGN contract 1, determinism).
 * xoshiro128** over 32-bit integers, seeded through splitmix32 so that small seeds spread well.
 */

function splitmix32(state: number): [number, number] {
  state = (state + 0x9e3779b9) | 0;
  let z = state;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [state, (z ^ (z >>> 16)) >>> 0];
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed | 0;
    let v: number;
    [s, v] = splitmix32(s);
    this.a = v;
    [s, v] = splitmix32(s);
    this.b = v;
    [s, v] = splitmix32(s);
    this.c = v;
    [, v] = splitmix32(s);
    this.d = v;
    if ((this.a | this.b | this.c | this.d) === 0) this.d = 1;
  }

  /** Next unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Integer in [0, n). */
  nextInt(n: number): number {
    return Math.floor((this.nextU32() / 0x100000000) * n);
  }

  /** The generator state, for snapshots. */
  state(): [number, number, number, number] {
    return [this.a, this.b, this.c, this.d];
  }

  setState(s: readonly [number, number, number, number]): void {
    [this.a, this.b, this.c, this.d] = s;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
