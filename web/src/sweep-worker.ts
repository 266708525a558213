// The Web Worker of sweep.ts: loads the WASM core (through compute.ts) and runs batches, posting
// progress every 50 ms. A batch is cancelled by terminating the worker. No DOM.
import { getEngine } from './compute';
import { runVariant, type BatchValue, type FromWorker, type ToWorker } from './batch';

const scope = self as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};

getEngine().then((engine) => {
  scope.onmessage = (event) => {
    if (event.data.type === 'train') {  // one scenario that trains (train.ts), with its progress
      const { id, scenario } = event.data;
      const start = performance.now();
      const outcome = engine.runWithProgress(scenario, (fraction, what, detail) =>
        scope.postMessage({ type: 'trainProgress', id, fraction, what, detail }));
      scope.postMessage({ type: 'trained', id, outcome, ms: performance.now() - start });
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
