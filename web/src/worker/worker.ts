// The Web Worker of sweep.ts (batches) and background.ts (one scenario: a training, a long run):
// loads the WASM core (through engine/compute.ts) and runs what it is sent, posting progress (a batch's
// every 50 ms, a training's after each epoch). Work is cancelled by terminating the worker. No DOM.
import { getEngine } from '../engine/compute';
import { runRequest, runVariant, type BatchValue } from '../engine/batch';
import type { FromWorker, ToWorker } from './protocol';
import type { Scenario } from '../engine/compute';

// The core refuses a run above its work budget (`max_flops`, about a second: docs/semantics.md
// "Work budget"), the guard of a call nobody can stop. A run here can be stopped (cancel
// terminates this worker) and shows its progress, so the worker lifts the budget unless the
// scenario sets its own: 1e15 flops, days of work.
const WORKER_MAX_FLOPS = 1e15;
const lifted = (s: Scenario): Scenario => (s.max_flops === undefined ? { ...s, max_flops: WORKER_MAX_FLOPS } : s);

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
      const { id } = event.data;
      const request = { ...event.data.request, scenario: lifted(event.data.request.scenario), beside: event.data.request.beside?.map(lifted) };
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
