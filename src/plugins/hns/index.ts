/**
 * containernetworking/plugins `pkg/hns` in TypeScript (v1.9.1; reference cni-windows.md §2): the
 * NetConf and policy helpers win-bridge and win-overlay share, endpoint naming, the HNS v1 and HCN
 * v2 endpoint flows and the CNI result built from the endpoint (the Go readers they rely on are
 * src/cni's: gojson.ts).
 */
export * from './netconf.js';
export * from './endpoint.js';
export * from './ipam.js';
export { annotate, first } from './errors.js';
