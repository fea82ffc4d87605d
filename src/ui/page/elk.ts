/**
 * ELK for the page: its layout engine (elkjs's GWT build) in a Web Worker made from its source
 * bundled as text (a blob URL: no file to fetch, so it also starts from file://), so the engine
 * loads and lays out beside the main thread while the simulator records the lesson. Where a worker
 * cannot start, the same source runs in the page (elkjs's "fake worker"). main.tsx imports this
 * module first, so the worker starts before the simulator's modules load.
 */
import ElkApiModule from 'elkjs/lib/elk-api.js';
import type { ELK } from 'elkjs/lib/elk-api.js';
import workerSource from 'hnsim:elk-worker';

type ElkCtor = new (o: { workerFactory: () => Worker; algorithms: string[] }) => ELK;

/** The algorithms the page uses (layout.ts): the engine registers only these, sooner. */
const ALGORITHMS = ['layered', 'rectpacking'];

function start(): ELK {
  const mod = ElkApiModule as unknown as ElkCtor & { default?: ElkCtor };
  const Elk = mod.default ?? mod;
  try {
    const url = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
    return new Elk({ workerFactory: () => new Worker(url), algorithms: ALGORITHMS });
  } catch {
    const m: { exports: { default?: new () => Worker } } = { exports: {} };
    // elkjs's worker file exports its in-page dispatcher as `default` when given a module object
    new Function('module', 'exports', workerSource)(m, m.exports);
    const FakeWorker = m.exports.default!;
    return new Elk({ workerFactory: () => new FakeWorker(), algorithms: ALGORITHMS });
  }
}

export const elk: ELK = start();
// the engine's first layout loads its algorithms: done now, while the lesson records (the mark
// hnsim:elk says when)
void elk
  .layout({ id: 'warm-up', children: [{ id: 'a', width: 10, height: 10 }] })
  .then(() => performance.mark('hnsim:elk'));
