/**
 * The CNI layer's public surface: the contracts, the plugin skeleton and delegation plugins are
 * written against, results across spec versions, the plugin registry and node host, and libcni's
 * runner (conflists, chaining, the result cache). Reference: cni-windows.md §1.
 */
export * from './contracts.js';
export * from './skel.js';
export * from './invoke.js';
export * from './result.js';
export * from './registry.js';
export * from './host.js';
export * from './version.js';
export * from './gojson.js';
export * from './gopanic.js';
export * from './goip.js';
export * from './gomac.js';
export * from './gostrconv.js';
export * from './conf.js';
export * from './runner.js';
