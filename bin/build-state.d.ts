// Types of bin/build-state.js (plain JavaScript: bin/ runs before anything is compiled).
export declare const BUILD_OUTPUTS: readonly string[];
export declare function mtimeOf(path: string): number;
export type BuildState =
  | { readonly sources: false; readonly fresh: boolean }
  | { readonly sources: true; readonly fresh: true }
  | { readonly sources: true; readonly fresh: false; readonly why: string };
export declare function buildState(root: string): BuildState;
