// Long work the page can cancel (the Performer sweep's batches, Bahdanau training): one handle
// shape, one error, one way to stop a worker that is busy inside WASM (terminate it: it cannot be
// told to stop). No DOM.

export interface Cancellable<T> {
  /** Resolves with the result; rejects with an Error named "AbortError" once cancelled. */
  done: Promise<T>;
  cancel(): void;
}

/** A worker, or the workers of a split run (background.ts). */
export type Stoppable = Pick<Worker, 'terminate'>;

export const cancelledError = (): Error => Object.assign(new Error('cancelled'), { name: 'AbortError' });

export const isCancelled = (e: unknown): boolean => e instanceof Error && e.name === 'AbortError';

/**
 * Runs `work(stopped, hold)`: `stopped()` says whether cancel() was called; `hold(worker)` names
 * the worker busy with it (or the workers of a split run, as one; null once it is free). cancel() ends the held worker and rejects `done`
 * at once; work that runs on the main thread checks `stopped()` between its slices.
 */
export function cancellable<T>(work: (stopped: () => boolean, hold: (w: Stoppable | null) => void) => Promise<T>): Cancellable<T> {
  let stop = false;
  let held: Stoppable | null = null;
  let rejectNow: ((e: Error) => void) | null = null;
  const done = new Promise<T>((resolve, reject) => {
    rejectNow = reject;
    work(() => stop, (w) => { held = w; }).then(resolve, reject);
  });
  return {
    done,
    cancel() {
      if (stop) return;
      stop = true;
      held?.terminate();
      held = null;
      rejectNow?.(cancelledError());
    },
  };
}

/** The handle of work started with what `ready` resolves to (a lazy chunk); a cancel before then
 * ends it. */
export function after<M, T>(ready: Promise<M>, start: (m: M) => Cancellable<T>): Cancellable<T> {
  let inner: Cancellable<T> | null = null;
  let stop = false;
  const done = ready.then((m) => {
    if (stop) throw cancelledError();
    inner = start(m);
    return inner.done;
  });
  return { done, cancel() { stop = true; inner?.cancel(); } };
}
