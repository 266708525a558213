// A scenario that trains (bahdanau with `train`), off the main thread with progress: a Web Worker
// (sweep-worker.ts, one per training) calls the core's runWithProgress and posts each epoch's
// progress. Cancel terminates the worker: it is blocked inside WASM and cannot be told to stop
// (the page keeps its last good trace; the next training starts a new worker). Where no worker can
// start (the single-file page from file://), the run blocks the page once, after a frame that
// shows "training on the page". No DOM.
import { cancellable, cancelledError, type Cancellable } from './cancel';
import { getEngine, type Outcome, type RunProgress, type Scenario } from './compute';
import type { FromWorker } from './batch';
import { startWorker } from './sweep';

export interface TrainResult { outcome: Outcome; ms: number; mode: 'worker' | 'main' }
/** done resolves with the core's outcome; rejects with an Error named "AbortError" once cancelled. */
export type TrainHandle = Cancellable<TrainResult>;
export type Trainer = (scenario: Scenario, onProgress: RunProgress, onMode?: (mode: 'worker' | 'main') => void) => TrainHandle;

let nextId = 1;
let noWorker = false;

export const runTraining: Trainer = (scenario, onProgress, onMode) => cancellable(async (stopped, hold) => {
  const w = noWorker ? null : await startWorker();
  if (stopped()) {
    w?.terminate();
    throw cancelledError();
  }
  if (!w) {
    noWorker = true;
    onMode?.('main');
    await new Promise((r) => setTimeout(r, 30)); // let the page draw its status first
    if (stopped()) throw cancelledError();
    const engine = await getEngine();
    const start = performance.now();
    const outcome = engine.runWithProgress(scenario, onProgress);
    return { outcome, ms: performance.now() - start, mode: 'main' as const };
  }
  hold(w);
  onMode?.('worker');
  const id = nextId++;
  return new Promise<TrainResult>((resolve, reject) => {
    w.addEventListener('message', (e: MessageEvent<FromWorker>) => {
      const m = e.data;
      if (!('id' in m) || m.id !== id) return;
      if (m.type === 'trainProgress') onProgress(m.fraction, m.what, m.detail);
      else if (m.type === 'trained') { w.terminate(); hold(null); resolve({ outcome: m.outcome, ms: m.ms, mode: 'worker' }); }
      else if (m.type === 'failed') { w.terminate(); hold(null); reject(new Error(m.message)); }
    });
    w.postMessage({ type: 'train', id, scenario });
  });
});
