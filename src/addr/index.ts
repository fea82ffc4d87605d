/**
 * The addr layer (DESIGN "addr/"): IPv4/IPv6/MAC parsing and formatting at the edge, integer
 * prefix math, and the IP and MAC pools behind HNS static IPAM (reference hns-hcs.md §1.1, §6).
 */
export * from './ip.js';
export * from './pool.js';
export * from './mac.js';
