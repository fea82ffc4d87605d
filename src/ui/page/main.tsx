/**
 * The page's entry (bundled by bin/build-ui.js into dist/ui/app.js): the lesson's data comes from
 * lesson-data.js, a classic script loaded before this one (`globalThis.HNSIM_LESSON_DATA`, written
 * by `hnsim ui`), so the page also works from `file://`. The simulator runs here, in the browser:
 * the model records the lesson and the page shows it. `window.hnsimUi` is for tests and benches.
 */
// first: the layout engine's worker starts before the simulator's modules load
import { elk } from './elk.js';
import { render } from 'preact';
import { recordLesson, type LessonData } from '../model/index.js';
import { App, type PageApi } from './app.js';
import { useElk } from './layout.js';
import './app.css';

declare global {
  var HNSIM_LESSON_DATA: LessonData | undefined;
  interface Window {
    hnsimUi?: PageApi;
  }
}

function fail(message: string): void {
  const root = document.getElementById('app')!;
  root.textContent = '';
  const h = document.createElement('h1');
  h.textContent = 'hnsim ui: the lesson could not be shown';
  const pre = document.createElement('pre');
  pre.id = 'error';
  pre.setAttribute('role', 'alert');
  pre.textContent = message;
  root.append(h, pre);
  document.body.dataset.ready = 'error';
}

async function boot(): Promise<void> {
  useElk(elk);
  const data = globalThis.HNSIM_LESSON_DATA;
  if (!data) {
    fail('No lesson data: lesson-data.js is missing or did not load. Start the page with `hnsim ui`.');
    return;
  }
  let lesson;
  performance.mark('hnsim:start');
  try {
    lesson = await recordLesson(data);
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
    return;
  }
  performance.mark('hnsim:recorded');
  document.title = `${lesson.title} — hnsim ui`;
  const root = document.getElementById('app')!;
  root.textContent = '';
  render(<App lesson={lesson} onApi={(api) => (window.hnsimUi = api)} />, root);
}

void boot();
