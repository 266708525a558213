// The page's Web Workers (worker.ts, a module worker built by Vite: a same-origin file, as the
// served CSP `script-src 'self'` requires): one per batch or background run in flight, one per
// core for a split run (split.ts; a cancel ends its run's workers only), as many kept idle between
// runs as a split run takes (each has compiled its module). No DOM.
// the whole module's .wasm, as this chunk's bundler placed it (the worker is told: worker.ts)
import wasmUrl from '../../../build/wasm/attnplay_core.wasm?url';
import type { FromWorker, ToWorker } from './protocol';

const idle: Worker[] = [];

/** The workers a split run takes: one per core the browser reports (no cross-origin isolation
 * needed: each worker has its own module). */
export const cores = (): number => Math.max(1, Math.min(8, Math.floor(navigator.hardwareConcurrency || 1)));
/** Once a worker could not start, every batch runs on the main thread. */
let noWorker = false;

function startWorker(): Promise<Worker | null> {
  return new Promise((resolve) => {
    let w: Worker;
    try {
      w = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'attnplay-sweep' });
    } catch {
      resolve(null);
      return;
    }
    const fail = () => { w.terminate(); resolve(null); };
    const timer = setTimeout(fail, 10000);
    w.addEventListener('error', (e) => { e.preventDefault(); clearTimeout(timer); fail(); }, { once: true });
    w.addEventListener('message', (e: MessageEvent<FromWorker>) => {
      clearTimeout(timer);
      if (e.data.type === 'ready') resolve(w);
      else fail();
    }, { once: true });
    w.postMessage({ type: 'init', wasmUrl: new URL(wasmUrl, location.href).href } satisfies ToWorker);
  });
}

/** A worker for one batch or one background run (background.ts): the idle one, or a new one; null
 * where none can start. */
export async function acquire(): Promise<Worker | null> {
  if (noWorker) return null;
  const w0 = idle.pop();
  if (w0) return w0;
  const w = await startWorker();
  if (!w) noWorker = true;
  return w;
}

/** `n` idle workers at once (each has compiled its module), or null where fewer are idle: a split
 * run of seeded draws is posted in the edit's own task (background.ts). */
export function takeIdle(n: number): Worker[] | null {
  return idle.length >= n ? idle.splice(idle.length - n, n) : null;
}

/** A worker done with its work: kept idle (one per core at most), else ended. */
export function release(w: Worker): void {
  if (idle.length >= cores()) w.terminate();
  else idle.push(w);
}

