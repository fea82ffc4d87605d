/**
 * HCN v2 policies (reference hns-hcs.md §2): the module contract and the registry the service
 * uses to parse, check, serialise and identify policies of networks, endpoints and subnets.
 */
export * from './contracts.js';
export * from './registry.js';
