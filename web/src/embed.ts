// dist/embed.html: the playground for an <iframe> (SPEC §1, "The iframe API"; docs/page.md).
//
// URL parameters (location.search only): preset, scenario (JSON, URI-encoded), lang, controls,
// theme. Messages from window.parent only:
//   in   {type: "setScenario", scenario}  {type: "setPreset", name}  {type: "getTrace", id}
//   out  {type: "ready"} once; {type: "trace", trace} after each recompute;
//        {type: "trace", id, trace} in answer to getTrace; {type: "error", field, message};
//        {type: "resize", height} whenever the content's height changes (CSS pixels; the host may
//        set the frame's height to it: docs/embedding.md)
// Any other message is ignored. Everything from the URL or a message is data: it goes to the
// element's setScenario / attributes, never into markup or code.
// The element comes from dist/attention-playground.js, loaded by embed.html before this script: the
// same module as index.html's and embedders' (nothing of the app is imported here).
import type { AttentionPlayground } from './element';

/** A scenario larger than this as JSON is refused (an error naming `scenario`). */
export const MAX_SCENARIO = 2 * 1024 * 1024;

type Out = { type: 'ready' } | { type: 'trace'; trace: unknown; id?: string | number }
  | { type: 'error'; field: string; message: string } | { type: 'resize'; height: number };

const isPlain = (x: unknown): x is Record<string, unknown> => {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
};

const tooBig = (what: string, size: number): Out =>
  ({ type: 'error', field: '', message: `scenario: ${what} is ${size} characters of JSON, more than the ${MAX_SCENARIO} allowed` });

const params = new URLSearchParams(location.search);
const el = document.createElement('attention-playground') as AttentionPlayground;
for (const name of ['preset', 'lang', 'controls', 'theme']) {
  const value = params.get(name);
  if (value !== null) el.setAttribute(name, value);
}
document.documentElement.dataset.theme = params.get('theme') ?? 'light';
document.documentElement.lang = el.getAttribute('lang') === 'zh' ? 'zh' : 'en';

const parent = window.parent !== window ? window.parent : null;
/** What the frame says before `ready` waits for it (the first trace, an error of the URL's scenario). */
let outbox: Out[] | null = [];
const post = (m: Out): void => {
  if (outbox) outbox.push(m);
  else parent?.postMessage(m, '*'); // traces are not secret: any host may read them
};

const text = params.get('scenario');
if (text !== null) {
  if (text.length > MAX_SCENARIO) post(tooBig('the URL\'s', text.length));
  else el.setAttribute('scenario', text);  // invalid JSON: shown by the element, posted below
}

el.addEventListener('trace', (e) => post({ type: 'trace', trace: (e as CustomEvent).detail }));
el.addEventListener('scenario-error', (e) => {
  for (const { field, message } of (e as CustomEvent<{ field: string; message: string }[]>).detail) {
    // "json": the element's JSON text as a whole; to the host, the scenario as a whole
    post({ type: 'error', field: field === 'json' ? '' : field, message });
  }
});

/** One message from the host, once the element is ready (messages are handled in order). */
function handle(m: Record<string, unknown>, reply: (out: Out) => void): void {
  if (m.type === 'getTrace') {
    reply({ type: 'trace', id: m.id as string | number, trace: el.trace });
  } else if (m.type === 'setPreset') {
    const name = m.name as string;
    if (el.presets.some((p) => p.name === name)) el.setPreset(name);
    else post({ type: 'error', field: 'preset', message: `preset: no preset named ${JSON.stringify(name.slice(0, 100))}` });
  } else {
    let size: number;
    try {
      size = JSON.stringify(m.scenario).length;
    } catch (e) {
      post({ type: 'error', field: '', message: `scenario: not JSON data: ${e instanceof Error ? e.message : String(e)}` });
      return;
    }
    if (size > MAX_SCENARIO) post(tooBig('the message\'s', size));
    else el.setScenario(m.scenario as object);
  }
}

/** Whether `m` is one of the three messages, each field of its type. */
function valid(m: unknown): m is Record<string, unknown> {
  if (!isPlain(m)) return false;
  if (m.type === 'setScenario') return isPlain(m.scenario);
  if (m.type === 'setPreset') return typeof m.name === 'string';
  if (m.type === 'getTrace') return typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id));
  return false;
}

let queue: Promise<unknown> = customElements.whenDefined('attention-playground').then(() => el.ready);
window.addEventListener('message', (e) => {
  if (!parent || e.source !== parent || !valid(e.data)) return;
  const m = e.data;
  const source = e.source as Window;
  // an opaque origin ("null": about:blank, a sandboxed frame) can only be answered with "*"
  const origin = e.origin && e.origin !== 'null' ? e.origin : '*';
  queue = queue.then(() => handle(m, (out) => source.postMessage(out, origin))).catch((err: unknown) => {
    post({ type: 'error', field: '', message: err instanceof Error ? err.message : String(err) });
  });
});

document.body.append(el);

// Every section drawn at once (issue 15, the blank-iframe report): the element leaves its results'
// sections below the screen unrendered until scrolled to (`content-visibility: auto`, styles.css).
// In a frame on another origin "the screen" is the host page's viewport: the sections below it were
// 260 px placeholders, blank in a capture of the host page, and the frame grew as the reader
// scrolled (prob-toy: 2,519 px at first, 4,066 px once read). Here they are rendered whole, so the
// first resize below is the content's true height. A constructable sheet: no CSP hash needed (where
// a browser has none, the sections paint as the host scrolls).
const WHOLE = '.panel-results .maps > .flow-step, .panel-results > .dive, .panel-prob .prob-body > * { content-visibility: visible }';
void customElements.whenDefined('attention-playground').then(() => {
  const root = el.shadowRoot;
  if (!root) return;
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(WHOLE);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } catch { /* no constructable stylesheets */ }
});

// The content's height (the body's: the frame's own height does not change it, so a host that sizes
// the frame to it causes no further change), posted once ready and on each change.
let height = 0;
new ResizeObserver(() => {
  const next = Math.ceil(document.body.getBoundingClientRect().height);
  if (next === height) return;
  height = next;
  post({ type: 'resize', height });
}).observe(document.body);
void customElements.whenDefined('attention-playground').then(() => el.ready).then(() => {
  const wanted = params.get('preset');
  const pending = outbox ?? [];
  outbox = null;
  post({ type: 'ready' });
  if (wanted !== null && text === null && !el.presets.some((p) => p.name === wanted)) {
    post({ type: 'error', field: 'preset', message: `preset: no preset named ${JSON.stringify(wanted.slice(0, 100))}` });
  }
  for (const m of pending) post(m);
});
