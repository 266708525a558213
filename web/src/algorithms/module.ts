// What one algorithm module (web/src/algorithms/<name>.ts) tells the page. Modules are statically
// imported by the registry (index.ts), so they hold descriptors only: their views and snippet
// builders are `() => import(...)` loaders, fetched when a trace of theirs is first drawn or copied.
import { catalogEntry, type Scenario, type Trace } from '../engine/compute';
import type { Key, Lang, Text } from '../i18n';
import type { Prop } from '../state/props';
import type { Session } from '../state/session';
import type { ChapterViews } from '../chapter';
import type { Snippet } from '../pytorch';
import type { LazyPart } from '../views/patch';
import type { MeasuredRun } from '../state/chapter';
import type { Explainer } from '../explain/explanation';

/** A mask kind (SPEC §2); which ones an algorithm takes is the core's (the catalog's `masks`). */
export type MaskKind = string;
export type TensorName = 'q' | 'k' | 'v';

/** What the page alone knows of an algorithm (its module says it); the tensors it reads, its mask
 * kinds and its inner attention are the core's (the catalog's entry). */
export interface PageTraits {
  /** k has its own width E_k (additive attention). */
  keyWidth?: boolean;
  /** It reads `scale` (default 1/√E). */
  scale?: boolean;
  /** ProbAttention's fields apply: factor, sample_index, output_attention, the pitfall switches. */
  prob?: boolean;
  /** Shared QK (lsh): the keys are the queries; k is not read and L_K is L_Q. */
  sharedQK?: boolean;
  /** One sequence (decode, modern-b): q, k and v have the same L; the size bar's L resizes all three. */
  oneSequence?: boolean;
  /** It computes in float32 when asked (the core's readers that set `dtype_honoured`: run_full.cpp,
   * run_flash.cpp); every other algorithm answers "not implemented yet" and computes in float64. */
  float32?: boolean;
  /** Why `scale` changes nothing it shows (linear: no scale in φ(q)·φ(k)); the control is disabled with it. */
  scaleUnused?: Text;
  /** The width d of its default scale 1/√d, where it is not q's E (multihead: d_head; diff: E/2). */
  scaleWidth?: (s: Scenario) => number;
  /** Its own input grids where they are not q, k, v (B, L, H, E): multihead's (B, L, d) queries, keys,
   * values (drawn by views/own-inputs.ts, a chunk of its own). */
  grids?: readonly Grid[];
  /** Its weights (`weights.<name>` in the scenario, `<name>` in the trace), editable at toy sizes: drawn
   * from the seed they are the trace's; the first edit writes them all into the scenario and drops the
   * fields that drew them (`drops`); `follow`: the weight whose columns a size of the size bar is. */
  weights?: { names: readonly string[]; drops: readonly string[]; follow?: Record<string, string>;
    /** The trace's group the drawn weights are in (mla's `state_dict`: `state_dict/<name>`); default: top level. */
    group?: string };
  /** Names of the size bar's sizes where they are not B, L_Q, L_K, E, E_k, D (multihead's d_q, d_k, d_v). */
  dimLabels?: Record<string, string>;
}

/** A (B, L, d) input of its own: `key` in the scenario, its axes' size names (the size bar's). */
export interface Grid { key: string; axes: readonly string[]; rowPrefix: string }

export interface AlgorithmTraits extends PageTraits {
  /** The tensors it reads in the (B, L, H, E) layout, edited as grids with the size bar (the core's). */
  tensors: readonly TensorName[];
  /** The mask kinds it takes; empty: no mask (the core's). */
  masks: readonly MaskKind[];
}

/** What the element lends an algorithm's views: its session, language and redraws. */
export interface ViewHost {
  readonly session: Session;
  readonly lang: Lang;
  readonly root: ShadowRoot;
  /** Draws the results again (a control of the view changed what it shows). */
  redraw(): void;
  /** The scenario changed: the inputs and the results are drawn again. */
  update(): void;
  /** Keyboard focus back on the control `key` after a redraw. */
  refocus(key: string): void;
  /** The view `name` as built last time while `deps` are the same (Object.is), else built anew. */
  memo(name: string, deps: unknown[], build: () => HTMLElement): HTMLElement;
  /** This element's state of a view, made on first use. */
  own<T>(key: string, make: () => T): T;
  /** A lazily loaded module once it is there; until then null (the results are drawn again when it is). */
  need<M>(load: () => Promise<M>): M | null;
}

/** A view: its module, loaded on demand, and how the element's state makes it. */
export interface View<M = unknown, R = HTMLElement | null> {
  load: () => Promise<M>;
  /** The view; null when there is nothing to show (or `m`, the module, is still loading). */
  render: (m: M | null, host: ViewHost, trace: Trace) => R;
  /** The results' part it is drawn in (default 'algorithm'). */
  part?: string;
  /** Whether it shows anything for this state (else its module is not even fetched). */
  when?: (host: ViewHost) => boolean;
}
/** What a panel of its own shows: nodes and parts built when they are drawn (views/patch.ts). */
export type PanelView = View<unknown, (Node | LazyPart)[]>;

export const view = <M>(load: () => Promise<M>, render: View<M>['render'], more?: Pick<View, 'part' | 'when'>): View =>
  ({ load, render, ...more }) as View;
export const panelView = <M>(load: () => Promise<M>, render: View<M, (Node | LazyPart)[]>['render']): PanelView =>
  ({ load, render }) as PanelView;

/** A snippet builder for copy as PyTorch (pytorch.ts). */
export type SnippetBuilder = (scenario: Record<string, unknown>, trace: Record<string, unknown>) => Snippet;

type Builders = typeof import('../pytorch');
/** The loader of pytorch.ts's builder `name` (pytorch.ts, one chunk for every builder). */
export const snippet = (name: { [K in keyof Builders]: Builders[K] extends SnippetBuilder ? K : never }[keyof Builders]) =>
  (): Promise<SnippetBuilder> => import('../pytorch').then((m) => m[name]);

/** A step of an algorithm's flow (views/results.ts): trace field `field` (its map, else its shape),
 * computed from the fields `from` by `op`, the shape change `shape` in symbols; the first step's
 * `inputs`: the fields the flow starts from (default q, k, v). */
/** A flow step (views/results.ts): `op` is code where it is code (one string), words in both
 * languages where it has words. */
/** The mask step's operation, a word. */
export const MASK: Text = { en: 'mask', zh: '掩码' };
export interface FlowStep { field: string; from?: string[]; op?: string | Text; shape?: string; inputs?: string[] }

export interface PageAlgorithm {
  /** The core's registry name. */
  name: string;
  traits: PageTraits;
  /** Its own rows of the property table (props.ts), in order. */
  props?: readonly Prop[];
  /** The results' map titles where they are not the generic ones, and its maps' axis names by field (views/results.ts). */
  maps?: { scores?: string; weights?: Text; weightsCaption?: Text; axes?: Record<string, readonly [Key, Key]> };
  /** Its cost line (views/results.ts): 'none', it computes no attention; 'step', per attention step. */
  cost?: 'none' | 'step';
  /** Its flow where it is not full attention's (scores, allowed, weights, context): views/flows.ts. */
  flow?: () => Promise<FlowStep[]>;
  /** It approximates softmax attention (SPEC §3: exact_context and max_abs_error in the trace). */
  approximates?: boolean;
  /** The exact run beside its trace: 'weights', exact attention's weights for its view (on the same
   * q, k, v); 'full', the scenario itself as full attention (which its context must equal). */
  exact?: 'weights' | 'full';
  /** The note's sparse patterns are run and drawn beside it under a local, atrous or strided mask (state/sparse.ts). */
  sparsePatterns?: boolean;
  /** Its own view of the results (else the approximation panel, where the trace has exact_context). */
  view?: View;
  /** The view in the ProbAttention panel (its steps and pitfalls). */
  panelView?: PanelView;
  /** d2l's chapter views (chapter.ts) that go with it; `first`: shown before there is a trace. */
  chapter?: { views: (chapter: ChapterViews, lang: Lang) => HTMLElement[]; first?: boolean };
  /** Its runs in the chapter's complexity table (dot products measured at length n). */
  measured?: readonly MeasuredRun[];
  /** Runs after each draw of the results, whatever the algorithm (a timer of its own to start or stop). */
  afterRender?: (host: ViewHost) => void;
  /** el.explain: its explainer of a cell, where explain/dispatch.ts's table has none (that table
   * costs the first load nothing: a loader here is first-load code). */
  explain?: () => Promise<Explainer>;
  /** Copy as PyTorch: its snippet builder (pytorch.ts, a chunk of its own). */
  pytorch: () => Promise<SnippetBuilder>;
}

/** The loader of views/flows.ts's flow `name` (a chunk of its own). */
export const flow = (name: keyof typeof import('../views/flows')) => () => import('../views/flows').then((m) => m[name]);

/** Whether the scenario's algorithm is one of `names` (for an algorithm's own property rows). */
export const isAlg = (...names: string[]) => (s: Scenario) => names.includes(String(s.algorithm ?? ''));

/** The scenario's mask kind ('none' without a mask). */
export const maskKind = (s: Scenario) => String((s.mask as Scenario | undefined)?.kind ?? 'none');

// The page's registry (index.ts) sets the list once; lookups go through here, so an algorithm's
// own rows can ask for traits without importing the registry that imports them.
let registered: ReadonlyMap<string, PageAlgorithm> = new Map();
export function register(list: readonly PageAlgorithm[]): void {
  registered = new Map(list.map((a) => [a.name, a]));
}

/** The page's module of algorithm `name` (undefined for one the page does not know). */
export const algorithm = (name: unknown): PageAlgorithm | undefined => registered.get(String(name ?? ''));

/** An algorithm's traits: its module's and the catalog's tensors and masks. */
function traitsOf(name: string): AlgorithmTraits {
  const entry = catalogEntry(name);
  return { ...algorithm(name)?.traits, tensors: (entry?.tensors ?? []) as TensorName[], masks: (entry?.masks ?? []) as MaskKind[] };
}

/** The traits of the scenario's algorithm (with an inner attention's masks, scale and prob fields:
 * the catalog's `inner` names the field that chooses it). One the core registers and the page does
 * not know still runs: no grids, no mask, edited as JSON. */
export function traits(s: Scenario): AlgorithmTraits {
  const name = String(s.algorithm ?? '');
  const own = traitsOf(name);
  const inner = catalogEntry(name)?.inner;
  if (!inner) return own;
  const chosen = traitsOf(String(s[inner.field] ?? inner.default));
  return { ...own, masks: chosen.masks, scale: chosen.scale, prob: chosen.prob, scaleUnused: chosen.scaleUnused };
}

/** ProbAttention's fields apply: the prob algorithm, or multihead with inner "prob". */
export const isProb = (s: Scenario) => traits(s).prob === true;
