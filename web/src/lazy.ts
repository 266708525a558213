// The views only some algorithms need, loaded on demand (their own chunks in dist/assets), so the
// first load of the page is small (issue 8). `need(name)` gives the module once it is loaded;
// before that it starts loading it and calls `onLoad` when it is there (the element re-renders).
const LOADERS = {
  prob: () => import('./views/prob'),
  pitfalls: () => import('./views/pitfalls'),
  nadaraya: () => import('./views/nadaraya'),
  approx: () => import('./views/approx'),
  sparse: () => import('./views/sparse'),
  linear: () => import('./views/linear'),
  performer: () => import('./views/performer'),
  reduced: () => import('./views/reduced'),
  flash: () => import('./views/flash'),
  sweep: () => import('./worker/sweep'),
  background: () => import('./worker/background'), // training and long runs in a worker (state/long.ts)
  chapter: () => import('./chapter'), // d2l's chapter views and Bahdanau training (issue 9)
  export: () => import('./export'), // el.export(): JSON, CSV, SVG, PNG
  link: () => import('./link'), // #z= links: deflate-raw and base64url
} as const;

export type LazyName = keyof typeof LOADERS;
export type LazyModule<K extends LazyName> = Awaited<ReturnType<(typeof LOADERS)[K]>>;

const loaded: Partial<{ [K in LazyName]: LazyModule<K> }> = {};
const pending = new Map<LazyName, Promise<unknown>>();

/** Loads a view's module (once); resolves with it. */
export function load<K extends LazyName>(name: K): Promise<LazyModule<K>> {
  const have = loaded[name];
  if (have) return Promise.resolve(have as LazyModule<K>);
  let p = pending.get(name) as Promise<LazyModule<K>> | undefined;
  if (!p) {
    p = (LOADERS[name]() as Promise<LazyModule<K>>).then((m) => {
      (loaded as Record<string, unknown>)[name] = m;
      return m;
    });
    pending.set(name, p);
  }
  return p;
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
const held: { name: LazyName; onLoad: () => void }[] = [];
let release: () => void = () => {};
const released = new Promise<void>((resolve) => { release = resolve; });

function fetchView(name: LazyName, onLoad: () => void): void {
  load(name).then(onLoad, (e: unknown) => console.error(`attention-playground: could not load the ${name} view`, e));
}

/** The first trace is on screen (element.ts): the views asked for meanwhile load now. */
export function releaseViews(): void {
  if (!holding) return;
  holding = false;
  for (const { name, onLoad } of held.splice(0)) fetchView(name, onLoad);
  release();
}

/** The module if loaded, else null (and it starts loading; `onLoad` runs once it is there). */
export function need<K extends LazyName>(name: K, onLoad: () => void): LazyModule<K> | null {
  const have = loaded[name];
  if (have) return have as LazyModule<K>;
  if (holding) held.push({ name, onLoad });
  else fetchView(name, onLoad);
  return null;
}

/**
 * After the first trace is on screen, fetch every view module in the background, one after the
 * other, so that later edits and algorithm switches render at once instead of waiting for a chunk
 * (the first load stays small: nothing here runs before the first trace is shown).
 */
let preloading = false;
export function preloadAll(): void {
  if (preloading) return;
  preloading = true;
  const names = Object.keys(LOADERS) as LazyName[];
  const next = (i: number): void => {
    if (i >= names.length) return;
    load(names[i]).then(() => next(i + 1), () => next(i + 1));
  };
  // a little after the first trace, when the page is idle
  setTimeout(() => {
    if (typeof requestIdleCallback === 'function') requestIdleCallback(() => next(0), { timeout: 1000 });
    else next(0);
  }, 1500);
}
