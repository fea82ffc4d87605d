// Types of bin/build-ui.js (plain JavaScript: bin/ runs before anything is compiled).
/** Build the page into `outdir` (default dist/ui); resolves to the sizes of what it wrote, by file name. */
export declare function buildUi(
  outdir?: string,
  plugins?: readonly unknown[],
): Promise<Record<string, number>>;
