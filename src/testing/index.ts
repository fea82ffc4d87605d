/**
 * The public test kit (`hnsim/testing`, DESIGN: testing/; guide: docs/testing.md): fast-check
 * arbitraries for HCN documents and policies (valid, and refused with a labelled HRESULT), packets,
 * ACL sets, load balancers and whole small clusters; model-based commands for HNS, HCS and CNI;
 * race testing under `fc.scheduler()`; fault schedules; the whole-state invariant check, the
 * canonical view of a node's objects; vitest matchers and fixtures.
 */
export * from './arbitraries.js';
export * from './rejected.js';
export * from './traffic.js';
export * from './clusters.js';
export * from './commands.js';
export * from './invariants.js';
export * from './state.js';
export * from './race.js';
export * from './flows.js';
export * from './fixtures.js';
export * from './schedule.js';
