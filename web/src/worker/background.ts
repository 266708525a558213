// One scenario run off the main thread, with progress and cancel (SPEC §1: long work never freezes
// the page): a scenario that trains (bahdanau with `train`) and a run expected to be long
// (state/long.ts). A Web Worker (worker.ts, from pool.ts: shared with the batches of sweep.ts,
// one kept idle) runs the scenario, then the runs shown beside its trace (`beside`: prob's full comparison,
// exact attention, the sparse patterns), and posts the outcomes; a training's progress after each
// epoch. Cancel terminates the worker: it is blocked inside WASM and cannot be told to stop (the
// page keeps its last good trace; the next run starts a new worker). Where no worker can start (the
// single-file page from file://), the run blocks the page once, after a frame that shows
// "computing on the page". The trace comes back typed, its buffers transferred (packed.ts); a run
// of `full` without a mask is split by query rows across one worker per core (split.ts), its
// progress the fraction of rows done. No DOM.
import { cancellable, cancelledError, type Cancellable, type Stoppable } from './cancel';
import { getEngine, isDraw, type Outcome, type RunProgress, type Scenario } from '../engine/compute';
import { runRequest, type BackgroundRequest, type BackgroundResult } from '../engine/batch';
import type { FromWorker, ToWorker } from './protocol';
import { acquire, cores, release, takeIdle } from './pool';
import { typedTensor, withTypedInputs } from '../engine/typed';
import { lazyTrace } from './packed';
import { splitPlan, stitch } from './split';

export type { BackgroundMode, BackgroundRequest, BackgroundResult } from '../engine/batch';
type BackgroundMode = BackgroundResult['mode'];
/** done resolves with the core's outcomes; rejects with an Error named "AbortError" once cancelled. */
export type BackgroundHandle = Cancellable<BackgroundResult>;
export type BackgroundRunner = (request: BackgroundRequest, onProgress: RunProgress,
  onMode?: (mode: BackgroundMode) => void) => BackgroundHandle;

let nextId = 1;

export const runInBackground: BackgroundRunner = (request, onProgress, onMode) => cancellable(async (stopped, hold) => {
  // a split run whose q, k, v are seeded draws (or typed) has nothing to copy: posted at once, in
  // the edit's task, before the page draws (issue 18: the workers start while the page renders)
  const direct = request.progress || request.beside?.length ? null : splitPlan(request.scenario, cores());
  if (direct) {
    const split = await runSplit(request.scenario, direct, stopped, hold, onProgress, onMode);
    if (split) return split;
  }
  // a task of its own, after the edit's (issue 18, part 4: no main-thread task over 50 ms): the
  // typed copies of a large scenario's inputs and their posting are not added to the edit's work
  const pause = () => new Promise((r) => setTimeout(r, 0));
  await pause();
  if (stopped()) throw cancelledError();
  // q, k, v posted as typed arrays: a copy of their bytes, not a walk of nested arrays; each made
  // in a task of its own (typed.ts keeps them: withTypedInputs below finds them made)
  for (const key of ['q', 'k', 'v']) {
    if (!Array.isArray(request.scenario[key])) continue;
    typedTensor(request.scenario[key]);
    await pause();
    if (stopped()) throw cancelledError();
  }
  const typed: BackgroundRequest = { ...request, scenario: withTypedInputs(request.scenario), beside: request.beside?.map(withTypedInputs) };
  const plan = direct || request.progress || request.beside?.length ? null : splitPlan(typed.scenario, cores());
  if (plan) {
    const split = await runSplit(typed.scenario, plan, stopped, hold, onProgress, onMode);
    if (split) return split;
  }
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
      if (m.type === 'scenarioDone') { release(w); resolve({ outcome: lazyOutcome(m.outcome), beside: m.beside.map(lazyOutcome), ms: m.ms, mode: 'worker' }); }
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
    w.postMessage({ type: 'scenario', id, request: typed } satisfies ToWorker);
  });
});

/** The outcome with its trace's packed fields kept typed (packed.ts lazyTrace). */
const lazyOutcome = (o: Outcome): Outcome => (o.ok ? { ok: true, trace: lazyTrace(o.trace) } : o);

/** A split run: rows `plan` on one worker each (the inputs posted once to each), the blocks
 * stitched; null where it cannot be made so (fewer workers started, a block failed, a field that
 * does not stitch): the caller then runs it whole, in one worker, whose error names the field. */
async function runSplit(s: Scenario, plan: [number, number][], stopped: () => boolean, hold: (w: Stoppable | null) => void,
  onProgress: RunProgress, onMode?: (mode: BackgroundResult['mode']) => void): Promise<BackgroundResult | null> {
  // the idle workers at once (no await: a run of draws is posted in the edit's task), else started
  const ready = takeIdle(plan.length);
  const started = ready ?? await Promise.all(plan.map(() => acquire()));
  const workers = started.filter((w): w is Worker => w !== null);
  if (stopped()) {
    workers.forEach(release);
    throw cancelledError();
  }
  if (workers.length < plan.length) {
    workers.forEach(release);
    return null;
  }
  hold({ terminate: () => workers.forEach((w) => w.terminate()) });
  // told after the edit's own work when posted within it (the status line is drawn by that work)
  if (ready) queueMicrotask(() => { if (!stopped()) onMode?.('worker'); });
  else onMode?.('worker');
  const id = nextId++;
  const L = plan[plan.length - 1][1];
  let rows = 0;
  const t0 = performance.now();
  const listeners: (() => void)[] = [];
  const blocks: { rows: [number, number]; trace: Record<string, unknown> }[] = [];
  // a seeded k or v: each worker draws its share of the rows and sends it to the others (a port per pair)
  const share = [s.k, s.v].some(isDraw);
  const ports: (MessagePort | null)[][] = workers.map(() => workers.map(() => null));
  for (let i = 0; share && i < workers.length; i++) {
    for (let j = i + 1; j < workers.length; j++) {
      const c = new MessageChannel();
      ports[i][j] = c.port1;
      ports[j][i] = c.port2;
    }
  }
  const parts = Promise.all(workers.map((w, k) => new Promise<void>((resolve, reject) => {
    const onMessage = (e: MessageEvent<FromWorker>) => {
      const m = e.data;
      if (!('id' in m) || m.id !== id) return;
      if (m.type === 'partBlock') {
        blocks.push({ rows: m.rows, trace: m.trace });
        rows += m.rows[1] - m.rows[0];
        onProgress(rows / L, 'rows', { rows, of: L, workers: workers.length });
      } else if (m.type === 'partDone') resolve();
      else reject(new Error('message' in m ? m.message : `unexpected ${m.type}`));
    };
    const onError = (e: ErrorEvent) => { e.preventDefault(); w.terminate(); reject(new Error(e.message || 'the worker stopped')); };
    w.addEventListener('message', onMessage);
    w.addEventListener('error', onError);
    listeners.push(() => { w.removeEventListener('message', onMessage); w.removeEventListener('error', onError); });
    const [start, end] = plan[k];
    // a block of at least 512 rows at a time (at most 2 per worker), each reported as it is done
    const n = Math.max(1, Math.min(2, Math.floor((end - start) / 512)));
    w.postMessage({ type: 'part', id, scenario: s, rows: [start, end], blocks: n, ...(share ? { index: k, peers: ports[k] } : {}) } satisfies ToWorker,
      ports[k].filter((p): p is MessagePort => p !== null));
  })));
  try {
    await parts;
  } catch (e) {
    // a block refused (its error would name rows of the block, not of q) or a worker died: the
    // workers still busy are ended, and the run is made whole, whose error names the field
    listeners.forEach((f) => f());
    hold(null);
    workers.forEach((w) => w.terminate());
    if (stopped()) throw cancelledError();
    if ((e as Error).message === 'the worker stopped') throw e;
    return null;
  }
  listeners.forEach((f) => f());
  hold(null);
  workers.forEach(release);
  let trace: Record<string, unknown>;
  try {
    trace = stitch(blocks);
  } catch {
    return null;
  }
  return { outcome: { ok: true, trace: lazyTrace(trace) as never }, beside: [], ms: performance.now() - t0, mode: 'worker', workers: workers.length };
}
