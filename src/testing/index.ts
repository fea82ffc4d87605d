/**
 * The public test kit (`hnsim/testing`, DESIGN: testing/): fast-check arbitraries for HCN documents
 * and policies, the whole-state invariant check, the canonical view of a node's objects and the
 * vitest matchers on it and on the leak audit (`toHaveNoLeaks`, `toHaveEndpoint`, `toMatchHnsState`).
 */
export * from './arbitraries.js';
export * from './invariants.js';
export * from './state.js';
export * from './race.js';
