/**
 * The typed HCS client, hcsshim's `internal/hcs/v2` package in TypeScript (DESIGN "The typed client
 * and the flat API"; reference hcs-lifecycle.md): `HcsClient` for the package-level functions,
 * `System` for a compute system, and hcsshim's errors and predicates.
 */
export {
  HcsClient,
  type ComputeSystemQuery,
  type HcsClientOptions,
  type HcsNotificationSource,
} from './client.js';
export {
  System,
  STOP_SWALLOWED,
  type ComputeSystemProperties,
  type PropertyQuery,
  type SystemExit,
  type SystemExitType,
} from './system.js';
export * from './errors.js';
