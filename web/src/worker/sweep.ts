// Long batches of runs (the Performer sweep) off the main thread, in a Web Worker of pool.ts. Where
// no worker can start (dist/attention-playground.html from file://: Chromium lets no file:// page
// start a worker from a file), the batch runs on the main thread in slices of about 12 ms, yielding
// between slices so the page stays responsive; both report progress and can be cancelled. No DOM.
import { cancellable, cancelledError, type Cancellable } from './cancel';
import { getEngine } from '../engine/compute';
import { runVariant, type BatchJob, type BatchValue } from '../engine/batch';
import type { FromWorker } from './protocol';
import { acquire, release } from './pool';

export type { BatchJob, BatchValue } from '../engine/batch';
export type SweepMode = 'worker' | 'main';

/** ms: the time spent running the core (the wall time is longer by the worker's start or the yields). */
export interface BatchResult { values: BatchValue[]; ms: number; mode: SweepMode }

/** done resolves with the values; rejects with an Error named "AbortError" once cancelled. */
export type BatchHandle = Cancellable<BatchResult>;

export type Progress = (done: number, total: number, mode: SweepMode) => void;

let nextId = 1;

function inWorker(w: Worker, job: BatchJob, onProgress: Progress, cancelled: () => boolean): Promise<BatchResult> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const onMessage = (e: MessageEvent<FromWorker>) => {
      const m = e.data;
      if (!('id' in m) || m.id !== id) return;
      if (m.type === 'progress') onProgress(m.done, m.total, 'worker');
      else {
        w.removeEventListener('message', onMessage);
        if (m.type === 'done') resolve({ values: m.values, ms: m.ms, mode: 'worker' });
        else reject(new Error('message' in m ? m.message : `unexpected ${m.type}`));
      }
    };
    w.addEventListener('message', onMessage);
    if (cancelled()) { w.removeEventListener('message', onMessage); reject(cancelledError()); return; }
    w.postMessage({ type: 'run', id, job });
  });
}

// ---- the main thread, in slices ----

/** Yields to the event loop (a message is not clamped as nested timeouts are). */
const yieldNow = () => new Promise<void>((resolve) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { channel.port1.close(); resolve(); };
  channel.port2.postMessage(0);
});

async function inSlices(job: BatchJob, onProgress: Progress, cancelled: () => boolean): Promise<BatchResult> {
  const engine = await getEngine();
  const total = job.variants.length;
  const values: BatchValue[] = [];
  let busy = 0; // time spent computing, as the worker reports it
  while (values.length < total) {
    const slice = performance.now();
    while (values.length < total && performance.now() - slice < 12) values.push(runVariant(engine, job, values.length));
    busy += performance.now() - slice;
    onProgress(values.length, total, 'main');
    await yieldNow();
    if (cancelled()) throw cancelledError();
  }
  return { values, ms: busy, mode: 'main' };
}

/** Runs a batch off the main thread when it can, else in slices; progress as it goes. A cancel
 * ends the batch's worker (and only it; the next batch starts a new one). */
export function runBatch(job: BatchJob, onProgress: Progress): BatchHandle {
  return cancellable(async (stopped, hold) => {
    const w = await acquire();
    if (stopped()) {
      if (w) release(w);
      throw cancelledError();
    }
    if (!w) return inSlices(job, onProgress, stopped);
    hold(w);
    try {
      const result = await inWorker(w, job, onProgress, stopped);
      hold(null);
      release(w);
      return result;
    } catch (e) {
      hold(null);
      w.terminate();
      throw e;
    }
  });
}
