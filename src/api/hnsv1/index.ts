/**
 * The typed HNS v1 client, hcsshim's root-package v1 API in TypeScript (reference cni-windows.md
 * §2.8): `HnsV1Client`, the `HNSNetwork`/`HNSEndpoint` documents, and hcsshim's v1 errors and
 * predicates (`isNotExist`, `isErrComputeSystemDoesNotExist`, …).
 */
export { HnsV1Client, type HnsV1Method, type HotAttachRequestType } from './client.js';
export * from './types.js';
export * from './errors.js';
