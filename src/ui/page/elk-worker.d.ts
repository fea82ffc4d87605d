// elkjs's worker script (elkjs/lib/elk-worker.min.js) as text: bin/build-ui.js resolves this name.
declare module 'hnsim:elk-worker' {
  const source: string;
  export default source;
}
