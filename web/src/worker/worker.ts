// The Web Worker of sweep.ts (batches) and background.ts (one scenario: a training, a long run):
// loads the WASM core (through engine/compute.ts) and runs what it is sent, posting progress (a batch's
// every 50 ms, a training's after each epoch). Work is cancelled by terminating the worker. No DOM.
import { getEngine } from '../engine/compute';
import { runRequest, runVariant, type BatchValue } from '../engine/batch';
import type { FromWorker, ToWorker } from './protocol';

const scope = self as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};

// the first message names the page's .wasm (pool.ts): where a host's bundler copied this file as it
// is, the .wasm it named when built is not beside it
scope.onmessage = (first) => {
  scope.onmessage = null;
  if (first.data.type === 'init') start(first.data.wasmUrl);
  else scope.postMessage({ type: 'failed', message: `expected init, got ${first.data.type}` });
};

const start = (wasmUrl: string) => getEngine({ wasmUrl }).then((engine) => {
  scope.onmessage = (event) => {
    if (event.data.type === 'init') return;
    if (event.data.type === 'scenario') {  // one scenario and the runs beside it (background.ts)
      const { id, request } = event.data;
      try {
        const result = runRequest(engine, request, (fraction, what, detail) =>
          scope.postMessage({ type: 'scenarioProgress', id, fraction, what, detail }));
        scope.postMessage({ type: 'scenarioDone', id, ...result });
      } catch (e) {
        scope.postMessage({ type: 'failed', id, message: e instanceof Error ? e.message : String(e) });
      }
      return;
    }
    const { id, job } = event.data;
    const total = job.variants.length;
    const start = performance.now();
    let last = start;
    const values: BatchValue[] = [];
    try {
      for (let i = 0; i < total; i++) {
        values.push(runVariant(engine, job, i));
        const now = performance.now();
        if (now - last > 50) {
          last = now;
          scope.postMessage({ type: 'progress', id, done: i + 1, total });
        }
      }
      scope.postMessage({ type: 'done', id, values, ms: performance.now() - start });
    } catch (e) {
      scope.postMessage({ type: 'failed', id, message: e instanceof Error ? e.message : String(e) });
    }
  };
  scope.postMessage({ type: 'ready' });
}, (e: unknown) => scope.postMessage({ type: 'failed', message: e instanceof Error ? e.message : String(e) }));
