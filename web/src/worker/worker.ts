// The Web Worker of sweep.ts (batches) and background.ts (one scenario: a training, a long run):
// loads the WASM core (through engine/compute.ts) and runs what it is sent, posting progress (a batch's
// every 50 ms, a training's after each epoch). Work is cancelled by terminating the worker. No DOM.
import { getEngine, isDraw, type Engine, type Outcome, type RunProgress, type Scenario, type TypedTensor } from '../engine/compute';
import { runVariant, type BatchValue } from '../engine/batch';
import { runTyped, withTypedInputs } from '../engine/typed';
import { load } from '../../../wasm/attnplay.mjs';
import type { FromWorker, ToWorker } from './protocol';
import { packTrace } from './packed';
import { drawInputs, joinRows, shareRows, sliceRows } from './split';

// The core refuses a run above its work budget (`max_flops`, about a second: docs/semantics.md
// "Work budget"), the guard of a call nobody can stop. A run here can be stopped (cancel
// terminates this worker) and shows its progress, so the worker lifts the budget unless the
// scenario sets its own: 1e15 flops, days of work.
const WORKER_MAX_FLOPS = 1e15;
const lifted = (s: Scenario): Scenario => (s.max_flops === undefined ? { ...s, max_flops: WORKER_MAX_FLOPS } : s);

type Core = Awaited<ReturnType<typeof load>>;

/** One run, its trace's tensors packed (worker/packed.ts: typed, to be transferred), the fields
 * below `big` numbers nested; a run that fails is run again by runTyped, whose error names the
 * field as the scenario wrote it. */
function runPacked(engine: Engine, core: Core, s: Scenario, transfer: ArrayBuffer[], onProgress?: RunProgress, big?: number): Outcome {
  let trace: Record<string, unknown>;
  try {
    trace = core.run(withTypedInputs(s), { typed: true, ...(onProgress ? { onProgress: (f: number, w: string, d: Record<string, unknown>) => { onProgress(f, w, d); return true; } } : {}) });
  } catch {
    return runTyped(engine, s, onProgress);
  }
  const packed = packTrace(trace, big);
  transfer.push(...packed.transfer);
  return { ok: true, trace: packed.trace as never };
}

/** A split run's seeded k and v, whole: this worker's share of their rows drawn (split.ts shareRows)
 * and posted to every other worker of the run, theirs received; bit for bit the whole draws (the
 * core's draw of rows). A peer that fails leaves this waiting: the page then ends every worker. */
async function shared(core: Core, s: Scenario, index: number, peers: (MessagePort | null)[]): Promise<Record<string, TypedTensor>> {
  const fields = ['k', 'v'].filter((f) => isDraw(s[f]));
  const n = peers.length;
  const parts: Record<string, { start: number; t: TypedTensor }[]> = Object.fromEntries(fields.map((f) => [f, []]));
  const received = Promise.all(peers.map((port) => port && new Promise<void>((resolve) => {
    let left = fields.length;
    port.onmessage = (e: MessageEvent<{ field: string; start: number; t: TypedTensor }>) => {
      parts[e.data.field].push({ start: e.data.start, t: e.data.t });
      if (--left === 0) { port.close(); resolve(); }
    };
  })));
  for (const f of fields) {
    const [start, end] = shareRows((s[f] as { shape: number[] }).shape[1], n, index);
    const t = core.draw(s[f] as Scenario, f, [start, end]) as TypedTensor;
    // a copy transferred to each peer: a cloned 1 MB share costs its serialising and reading again
    for (const port of peers) {
      if (!port) continue;
      const data = t.data.slice();
      port.postMessage({ field: f, start, t: { shape: t.shape, data } }, [data.buffer]);
    }
    parts[f].push({ start, t });
  }
  await received;
  return Object.fromEntries(fields.map((f) => [f, joinRows(parts[f])]));
}

const scope = self as unknown as {
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};

// the first message names the page's .wasm (pool.ts): where a host's bundler copied this file as it
// is, the .wasm it named when built is not beside it
scope.onmessage = (first) => {
  scope.onmessage = null;
  if (first.data.type === 'init') start(first.data.wasmUrl);
  else scope.postMessage({ type: 'failed', message: `expected init, got ${first.data.type}` });
};

const start = (wasmUrl: string) => getEngine({ wasmUrl }).then(async (engine) => {
  const core = await load();  // the module getEngine loaded (wasm/attnplay.mjs loads it once)
  scope.onmessage = (event) => {
    if (event.data.type === 'init') return;
    if (event.data.type === 'scenario') {  // one scenario and the runs beside it (background.ts)
      const { id, request } = event.data;
      try {
        const t0 = performance.now();
        const transfer: ArrayBuffer[] = [];
        const outcome = runPacked(engine, core, lifted(request.scenario), transfer, request.progress === true
          ? (fraction, what, detail) => scope.postMessage({ type: 'scenarioProgress', id, fraction, what, detail }) : undefined);
        const beside = outcome.ok ? (request.beside ?? []).map((s) => runPacked(engine, core, lifted(s), transfer)) : [];
        scope.postMessage({ type: 'scenarioDone', id, outcome, beside, ms: performance.now() - t0 }, transfer);
      } catch (e) {
        scope.postMessage({ type: 'failed', id, message: e instanceof Error ? e.message : String(e) });
      }
      return;
    }
    if (event.data.type === 'part') {  // rows of a split run (background.ts, split.ts): block by block, each posted as it is done
      const { id, rows: [start, end], blocks, index = 0, peers, scenario } = event.data;
      void (async () => { try {
        // q: this worker's rows only (a seeded q drawn so, bit for bit those rows of the whole draw);
        // a seeded k, v: its share of their rows drawn, the others' received (shared below)
        // (shared() draws and posts this worker's shares at once; its rows of q are drawn while the
        // others' shares come)
        const sharing = peers ? shared(core, scenario, index, peers) : Promise.resolve({} as Record<string, TypedTensor>);
        const ownQ = isDraw(scenario.q) ? core.draw(scenario.q as Scenario, 'q', [start, end]) as TypedTensor : null;
        const given = await sharing;
        const s = drawInputs(lifted(scenario), (spec, field) => (field === 'q' ? ownQ : given[field]) ?? core.draw(spec, field) as TypedTensor);
        const q = isDraw(scenario.q) ? s.q as TypedTensor : sliceRows(s.q as TypedTensor, start, end);
        for (let k = 0; k < blocks; k++) {
          const a = start + Math.round((k * (end - start)) / blocks), b = start + Math.round(((k + 1) * (end - start)) / blocks);
          const transfer: ArrayBuffer[] = [];
          const out = runPacked(engine, core, { ...s, q: sliceRows(q, a - start, b - start) }, transfer, undefined, 0);
          if (!out.ok) throw new Error(out.error);
          scope.postMessage({ type: 'partBlock', id, rows: [a, b], trace: out.trace }, transfer);
        }
        scope.postMessage({ type: 'partDone', id });
      } catch (e) {
        scope.postMessage({ type: 'failed', id, message: e instanceof Error ? e.message : String(e) });
      } })();
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
