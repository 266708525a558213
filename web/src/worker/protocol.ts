// The messages between the page (worker/sweep.ts, worker/background.ts) and its Web Worker
// (worker/worker.ts). No DOM.
import type { Outcome, Scenario } from '../engine/compute';
import type { BackgroundRequest, BatchJob, BatchValue } from '../engine/batch';

export type ToWorker = { type: 'init'; wasmUrl: string } | { type: 'run'; id: number; job: BatchJob }
  | { type: 'scenario'; id: number; request: BackgroundRequest }
  /** rows [start, end) of a split run (worker/split.ts), in `blocks` calls, each reported; `peers`
   * (where k or v is a seeded draw): a port to each other worker of the run (null at `index`, its
   * own), through which the workers share the rows of k and v each drew (split.ts shareRows) */
  | { type: 'part'; id: number; scenario: Scenario; rows: [number, number]; blocks: number; index?: number; peers?: (MessagePort | null)[] };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'scenarioProgress'; id: number; fraction: number; what: string; detail: Record<string, unknown> }
  | { type: 'scenarioDone'; id: number; outcome: Outcome; beside: Outcome[]; ms: number }
  /** the trace of rows [start, end), every tensor packed (worker/packed.ts), its buffers transferred */
  | { type: 'partBlock'; id: number; rows: [number, number]; trace: Record<string, unknown> }
  | { type: 'partDone'; id: number }
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'done'; id: number; values: BatchValue[]; ms: number }
  | { type: 'failed'; id?: number; message: string };
