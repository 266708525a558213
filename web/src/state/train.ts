// Bahdanau's training as the page runs it (issue 9 item 2): which scenarios train, and the state of a
// training the status line shows. In the first load (state/runs.ts decides where a run goes); the
// chapter views' helpers (state/chapter.ts) are not.
import type { Scenario } from '../engine/compute';

/** A scenario that trains: it runs off the main thread with progress (background.ts). */
export const trains = (s: Scenario) => s.algorithm === 'bahdanau' && s.train !== undefined && s.train !== null;

export interface TrainState {
  /** The scenario it trains (JSON text): a new edit starts a new training. */
  signature: string;
  status: 'running' | 'done' | 'cancelled' | 'failed';
  fraction: number;
  what: string;
  /** The loss of each epoch as it arrives (the trace's `loss` once done). */
  losses: number[];
  epochs: number;
  mode: 'worker' | 'main' | null;
  ms: number | null;
  message: string | null;
}

export function newTrainState(s: Scenario): TrainState {
  const epochs = Number((s.train as Scenario | undefined)?.epochs ?? 20);
  return { signature: JSON.stringify(s), status: 'running', fraction: 0, what: '', losses: [], epochs, mode: null, ms: null, message: null };
}

