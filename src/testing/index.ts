/**
 * The public test kit (`hnsim/testing`, DESIGN: testing/): fast-check arbitraries for HCN documents
 * and policies, and the whole-state invariant check that seeds the leak audit.
 */
export * from './arbitraries.js';
export * from './invariants.js';
