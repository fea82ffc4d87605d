/**
 * Go's `encoding/json` as the CNI libraries see it, so that parse errors, field matching and output
 * bytes match what Go plugins and libcni produce — one module per half: the scanner and its syntax
 * errors (goscan.ts), decoding into Go types (godecode.ts, over parsed documents or over source
 * trees that keep each value's bytes: gotree.ts, with buger/jsonparser's lookups), and encoding
 * (goencode.ts).
 */
export * from './goscan.js';
export * from './godecode.js';
export * from './gotree.js';
export * from './goencode.js';
