/**
 * SVG from Graphviz DOT, laid out locally by Graphviz compiled to WebAssembly (`@viz-js/viz`: the
 * wasm is inlined in its JavaScript, so it needs no network, no native `dot` binary and no file
 * beside the module). Loaded only when an SVG is asked for: the module is about 1.2 MB.
 *
 *   const svg = await dotToSvg(toDot(diagram));
 */

/** Lay out `dot` with Graphviz's `dot` engine and return the SVG document. */
export async function dotToSvg(dot: string): Promise<string> {
  const { instance } = await import('@viz-js/viz');
  const viz = await instance();
  const r = viz.render(dot, { format: 'svg', engine: 'dot' });
  if (r.status !== 'success') {
    const why = r.errors.map((e) => e.message.trim()).join('; ');
    throw new Error(`Graphviz could not lay out the diagram: ${why || 'unknown error'}`);
  }
  return r.output;
}
