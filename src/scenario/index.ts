/**
 * Scenario files (DESIGN: scenario/): a YAML format with a published JSON Schema
 * (scenarios/schema.json), its loader, the runner that makes a scenario real on the cluster, the
 * runtime and the reference plugins, and the report. docs/scenarios.md is the format reference.
 *
 *   const report = await runScenario(loadScenarioFile('scenarios/quick-start.yaml'));
 *   process.stdout.write(renderReport(report));
 */
export { SCENARIO_FORMAT, SCENARIO_SCHEMA, LIMITS } from './schema.js';
export {
  formatIssue,
  formatPath,
  loadScenario,
  loadScenarioFile,
  ScenarioLoadError,
  type ScenarioIssue,
} from './load.js';
export { runScenario } from './run.js';
export {
  ScenarioSetupError,
  type Cell,
  type Checkpoint,
  type ExpectationResult,
  type FileLocation,
  type ResultKind,
  type RunOptions,
  type RunReport,
  type ScenarioPod,
  type ScenarioWorld,
  type TraceOutcome,
  type TruthTable,
} from './results.js';
export { renderReport, renderTruthTable, reportJson, type ReportOptions } from './report.js';
export type * from './types.js';
