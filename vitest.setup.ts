// Property tests run with a fixed fast-check seed so that CI is reproducible; set HNSIM_FC_RANDOM=1
// to explore with fresh seeds (fast-check prints the seed and path of any failure to replay it).
import fc from 'fast-check';

if (!process.env.HNSIM_FC_RANDOM) {
  fc.configureGlobal({ seed: Number(process.env.HNSIM_FC_SEED ?? 20261129) });
}
// `npm run test:soak` (HNSIM_SOAK=1): ten times fast-check's default for properties that name no
// count (test/runs.ts gives the others theirs)
if (process.env.HNSIM_SOAK === '1') fc.configureGlobal({ ...fc.readConfigureGlobal(), numRuns: 1000 });
