// The modules only some scenarios need, loaded on demand (their own chunks in dist/assets), so the
// first load of the page is small (issue 8). `need(name)` gives the module once it is loaded;
// before that it starts loading it and calls `onLoad` when it is there (the element re-renders).
// An algorithm's views are loaders of its module (web/src/algorithms/<name>.ts): `needModule`.
import { addStyles } from './views/layout';

const LOADERS = {
  approx: () => import('./views/approx'), // the error against exact attention, for any approximation
  sweep: () => import('./worker/sweep'),
  background: () => import('./worker/background'), // training and long runs in a worker (state/long.ts)
  chapter: () => import('./chapter'), // d2l's chapter views and Bahdanau training (issue 9)
  export: () => import('./export'), // el.export(): JSON, CSV, SVG, PNG
  explain: () => import('./explain/dispatch'), // el.explain(): a cell's derivation (SPEC §1)
  link: () => import('./link'), // #z= links: deflate-raw and base64url
  formulas: () => import('./views/step-formulas'), // the flow steps' formulas (KaTeX), after the first trace
  undo: () => import('./undo'), // undo, redo, Back and Forward, the grids' paste and drop: after the first trace
  reference: () => import('./views/reference'), // a library's distance from SPEC's formulas (issue 17)
} as const;

export type LazyName = keyof typeof LOADERS;
export type LazyModule<K extends LazyName> = Awaited<ReturnType<(typeof LOADERS)[K]>>;

type Loader = () => Promise<unknown>;
const loaded = new Map<Loader, unknown>();
const pending = new Map<Loader, Promise<unknown>>();

/** Loads a module through `loader` (once); resolves with it. */
function loadWith<M>(loader: () => Promise<M>): Promise<M> {
  if (loaded.has(loader)) return Promise.resolve(loaded.get(loader) as M);
  let p = pending.get(loader) as Promise<M> | undefined;
  if (!p) {
    p = loader().then((m) => {
      loaded.set(loader, m);
      return m;
    });
    pending.set(loader, p);
  }
  return p;
}

/** Loads a view's module (once); resolves with it. */
export function load<K extends LazyName>(name: K): Promise<LazyModule<K>> {
  return loadWith(LOADERS[name] as () => Promise<LazyModule<K>>);
}

/** Resolves once every view module asked for so far has loaded (and its re-render has run),
 * those held until the first trace is painted included. */
export async function idle(): Promise<void> {
  if (holding && held.length) await released;
  let seen = -1;
  while (seen !== pending.size) {
    seen = pending.size;
    await Promise.all([...pending.values()].map((p) => p.catch(() => undefined)));
  }
}

/** Until the page's first trace is on screen, views ask (need) but nothing is fetched: the first
 * load is what the first trace shows (the maps), never a chunk that races it (issue 8). */
let holding = true;
const held: { loader: Loader; onLoad: () => void }[] = [];
let release: () => void = () => {};
const released = new Promise<void>((resolve) => { release = resolve; });

/** The views' styles (views/views.css): fetched with the first view, in place before any is drawn. */
const STYLES: Loader = () => import('./views/view-styles').then((m) => addStyles(m.default));

function fetchView(loader: Loader, onLoad: () => void): void {
  Promise.all([loadWith(loader), loadWith(STYLES)]).then(onLoad, (e: unknown) => console.error('attention-playground: could not load a view', e));
}

/** The first trace is on screen (element.ts): the views asked for meanwhile load now. */
export function releaseViews(): void {
  if (!holding) return;
  holding = false;
  for (const { loader, onLoad } of held.splice(0)) fetchView(loader, onLoad);
  release();
}

/** The module `loader` loads, if loaded, else null (and it starts loading; `onLoad` runs once it is there). */
export function needModule<M>(loader: () => Promise<M>, onLoad: () => void): M | null {
  if (loaded.has(loader) && loaded.has(STYLES)) return loaded.get(loader) as M;
  if (holding) held.push({ loader, onLoad });
  else fetchView(loader, onLoad);
  return null;
}

/** The module `name` if loaded, else null (and it starts loading; `onLoad` runs once it is there). */
export function need<K extends LazyName>(name: K, onLoad: () => void): LazyModule<K> | null {
  return needModule(LOADERS[name] as () => Promise<LazyModule<K>>, onLoad);
}

/**
 * After the first trace is on screen, fetch every view module (`views`: the algorithms') in the background, one after the
 * other, so that later edits and algorithm switches render at once instead of waiting for a chunk
 * (the first load stays small: nothing here runs before the first trace is shown).
 */
let preloading = false;
export function preloadAll(views: readonly Loader[] = []): void {
  if (preloading) return;
  preloading = true;
  const loaders = [STYLES, ...views, ...Object.values(LOADERS)];
  const next = (i: number): void => {
    if (i >= loaders.length) return;
    loadWith(loaders[i]).then(() => next(i + 1), () => next(i + 1));
  };
  // a little after the first trace, when the page is idle
  setTimeout(() => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(() => next(0), { timeout: 1000 });
    else next(0);
  }, 1500);
}
