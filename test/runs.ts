/**
 * How many runs a property, fuzz or model test makes (issue 15: `npm test` within 2 minutes on 2
 * cores, nothing it checks lost). `npm test` gives each property its quick count: every property
 * still runs, seeded by vitest.setup.ts, so a failure reproduces. `npm run test:soak`
 * (vitest.soak.config.ts sets HNSIM_SOAK=1) runs the files that use this with the soak count, ten
 * times the quick count unless the test names one; a property that names no count gets fast-check's
 * 100 under `npm test` and 1,000 under the soak (vitest.setup.ts).
 *
 *   fc.assert(fc.property(arb, check), { numRuns: runs(60, 1_000) });
 */
export const SOAK = process.env['HNSIM_SOAK'] === '1';

export function runs(quick: number, soak: number = quick * 10): number {
  return SOAK ? soak : quick;
}
