// One scenario run off the main thread, with progress and cancel (SPEC §1: long work never freezes
// the page): a scenario that trains (bahdanau with `train`) and a run expected to be long
// (state/long.ts). A Web Worker (worker.ts, from pool.ts: shared with the batches of sweep.ts,
// one kept idle) runs the scenario, then the runs shown beside its trace (`beside`: prob's full comparison,
// exact attention, the sparse patterns), and posts the outcomes; a training's progress after each
// epoch. Cancel terminates the worker: it is blocked inside WASM and cannot be told to stop (the
// page keeps its last good trace; the next run starts a new worker). Where no worker can start (the
// single-file page from file://), the run blocks the page once, after a frame that shows
// "computing on the page". No DOM.
import { cancellable, cancelledError, type Cancellable } from './cancel';
import { getEngine, type RunProgress } from '../engine/compute';
import { runRequest, type BackgroundRequest, type BackgroundResult } from '../engine/batch';
import type { FromWorker } from './protocol';
import { acquire, release } from './pool';
import { withTypedInputs } from '../engine/typed';

export type { BackgroundMode, BackgroundRequest, BackgroundResult } from '../engine/batch';
type BackgroundMode = BackgroundResult['mode'];
/** done resolves with the core's outcomes; rejects with an Error named "AbortError" once cancelled. */
export type BackgroundHandle = Cancellable<BackgroundResult>;
export type BackgroundRunner = (request: BackgroundRequest, onProgress: RunProgress,
  onMode?: (mode: BackgroundMode) => void) => BackgroundHandle;

let nextId = 1;

export const runInBackground: BackgroundRunner = (request, onProgress, onMode) => cancellable(async (stopped, hold) => {
  // q, k, v posted as typed arrays: a copy of their bytes, not a walk of nested arrays
  const typed: BackgroundRequest = { ...request, scenario: withTypedInputs(request.scenario), beside: request.beside?.map(withTypedInputs) };
  const w = await acquire();
  if (stopped()) {
    if (w) release(w);
    throw cancelledError();
  }
  if (!w) {
    onMode?.('main');
    await new Promise((r) => setTimeout(r, 30)); // let the page draw its status first
    if (stopped()) throw cancelledError();
    return { ...runRequest(await getEngine(), typed, onProgress), mode: 'main' as const };
  }
  hold(w);
  onMode?.('worker');
  const id = nextId++;
  return new Promise<BackgroundResult>((resolve, reject) => {
    const end = () => {
      w.removeEventListener('message', onMessage);
      w.removeEventListener('error', onError);
      hold(null);
    };
    const onMessage = (e: MessageEvent<FromWorker>) => {
      const m = e.data;
      if (!('id' in m) || m.id !== id) return;
      if (m.type === 'scenarioProgress') { onProgress(m.fraction, m.what, m.detail); return; }
      end();
      if (m.type === 'scenarioDone') { release(w); resolve({ outcome: m.outcome, beside: m.beside, ms: m.ms, mode: 'worker' }); }
      else { w.terminate(); reject(new Error('message' in m ? m.message : `unexpected ${m.type}`)); }
    };
    // the worker died (out of memory, a trace too large to post back): the run failed, not hung
    const onError = (e: ErrorEvent) => {
      e.preventDefault();
      end();
      w.terminate();
      reject(new Error(e.message || 'the worker stopped'));
    };
    w.addEventListener('message', onMessage);
    w.addEventListener('error', onError);
    w.postMessage({ type: 'scenario', id, request: typed });
  });
});
