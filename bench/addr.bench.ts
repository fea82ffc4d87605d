/**
 * Micro benchmark of the addr layer (DESIGN contract 5: IP allocation is amortised O(1)).
 * Wired into bench/run.ts by the lead; `run` reports medians over a few fresh pools.
 */
import { hnsError } from '../src/core/errors.js';
import { IpPool } from '../src/addr/pool.js';
import { parseIp, parsePrefix } from '../src/addr/ip.js';

export type Report = (name: string, value: number, unit: string, target: string) => void;

const ALLOCATIONS = 100_000;
const ROUNDS = 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function freshPool(): IpPool {
  return new IpPool(parsePrefix('10.0.0.0/8', true)!, { reserved: [parseIp('10.0.0.1')!] });
}

export async function run(report: Report): Promise<void> {
  // allocate() on a fresh /8, 100k times: the cursor path
  const allocNs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const pool = freshPool();
    const t0 = performance.now();
    for (let i = 0; i < ALLOCATIONS; i++) pool.allocate();
    allocNs.push(((performance.now() - t0) * 1e6) / ALLOCATIONS);
    if (pool.used !== ALLOCATIONS) throw hnsError('E_FAIL', 'bench: the pool did not allocate');
  }
  report('addr: IpPool.allocate, 100k in 10.0.0.0/8', median(allocNs), 'ns/op', '< 1000 ns/op');

  // release + allocate churn on a pool holding 100k addresses: the reuse-queue path
  const churnNs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const pool = freshPool();
    const held = [];
    for (let i = 0; i < ALLOCATIONS; i++) held.push(pool.allocate()!);
    const t0 = performance.now();
    for (let i = 0; i < ALLOCATIONS; i++) {
      pool.release(held[(i * 7919) % ALLOCATIONS]!);
      pool.allocate();
    }
    churnNs.push(((performance.now() - t0) * 1e6) / ALLOCATIONS);
  }
  report('addr: IpPool.release+allocate at 100k used', median(churnNs), 'ns/op', '< 3000 ns/op');
}
