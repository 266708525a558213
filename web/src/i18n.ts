// User-interface strings. English is part of the page; Chinese (the seeds' language) is a chunk
// of its own (i18n-zh.ts): the first load carries one language (issue 8). The element awaits
// loadLanguage() before it draws in Chinese; until then t() answers in English.
export type Lang = 'en' | 'zh';
export interface Text { en: string; zh: string }

const EN = {
  loading: 'Loading the WASM core…',
  loadFailed: 'Could not load the WASM core',
  preset: 'Preset',
  custom: '(custom)',
  modified: 'modified',
  language: 'Language',
  inputs: 'Inputs',
  sizes: 'Sizes',
  dimHelp: 'B batch, H heads, L_Q queries, L_K keys, E query/key width, D value width',
  decrease: 'decrease',
  increase: 'increase',
  batch: 'batch b',
  head: 'head h',
  showing: 'Showing slice',
  row: 'row',
  col: 'column',
  tooLargeEdit: 'Too large to edit cell by cell: use the scenario JSON below.',
  mask: 'Mask',
  fillDefault: 'default',
  fillDefaultHelp: '−1e6 for valid_lens (d2l), −∞ otherwise (PyTorch)',
  fillNumber: 'number',
  perQuery: 'one length per query (2-D)',
  options: 'Options',
  scaleDefault: 'default',
  results: 'Results',
  export: 'Export',
  exportJson: 'Download the trace as JSON',
  exportMap: 'Download the map (weights, else the main output) of the shown slice',
  copyPytorch: 'Copy as PyTorch',
  stale: 'Fix the error shown in red beside its control: these are the last good results.',
  cost: 'Cost',
  dotProducts: 'q·k dot products',
  ofDense: 'of dense',
  flops: 'flops',
  warnings: 'Warnings',
  scores: 'scores = scale · Q Kᵀ',
  scoresCaption: 'before the mask; masked cells are hatched',
  allowed: 'allowed (mask)',
  allowedCaption: '✓ key j may be attended by query i',
  weights: 'weights = softmax(masked scores)',
  weightsCaption: 'each row sums to 1 (or 0 with no allowed key)',
  context: 'context = weights · V',
  contextCaption: 'one row per query',
  attn: 'attn (output_attention)',
  output: 'output',
  scenarioJson: 'Scenario JSON',
  scenarioJsonHelp: 'The whole scenario; edit it to try shapes and fields the controls do not offer.',
  copyLink: 'Copy link',
  copyLinkHelp: 'Copy the URL of this page: it holds the scenario',
  theme: 'Theme',
  reset: 'Reset',
  theme_auto: 'Auto',
  theme_light: 'Light',
  theme_dark: 'Dark',
  // ProbAttention
  probTitle: 'ProbAttention, step by step',
  probIntro: 'Not every query gets full attention: sample a few keys per query, estimate which queries are "active" (sparsity M), compute exact attention only for the top u of them, and give every other query a lazy default context.',
  resample: 'Resample',
  resampleHelp: 'drop sample_index and draw new samples from seed + 1',
  // the step view's headings: views/prob.ts writes SPEC §2's step numbers before them
  top: 'top',
  updated: 'updated',
  lazy: 'lazy',
  query: 'query',
  maxDiff: 'max |Δ|',
  same: 'same',
  differs: 'differs',
  fullFailed: 'full attention could not run',
  slider: 'factor',
  // the reference's pitfalls, side by side
  pitfallsSummary: 'Reference pitfalls: switch one to compare',
  pitfall_causal_initial: 'the lazy rows under the causal mask start from the cumulative mean Σ_{j≤i} v_j / (i + 1) instead of the reference\'s cumulative sum, which grows with i and is no average of V.',
  pitfall_sparsity_divisor: 'M = max − mean of the U_part sampled scores (the paper) instead of the reference\'s max − sum / L_K; the ranking, and so the top rows, can change.',
  pitfall_sample_per_head: 'each head draws its own keys for every query instead of the reference\'s one sample for all heads (head 0 draws the shared sample\'s keys; with H = 1 nothing changes).',
  pitfall_squeeze_bug: 'each batch item updates only its own top rows; the reference\'s .squeeze() at H = 1 with B > 1 makes every item update the union of all items\' top rows (no difference otherwise).',
  // Nadaraya-Watson (d2l 10.2)
  // beside exact attention (views/approx.ts)
  // the sparse patterns (views/sparse.ts)
  // linear attention (views/linear.ts)
  impliedWeights: 'implied weights',
  featuresQ: 'φ(Q): features of the queries',
  featuresCaption: 'non-negative, so every sim ≥ 0',
  // Performer (views/performer.ts)
  // Linformer, pooling, LSH (views/reduced.ts)
  mapDownsampled: 'downsampled, each pixel the mean of {n} × {n} cells; ',
  mapHover: 'hover for the exact value',
  longRunStarting: 'Starting a background worker',
  longRunWorker: 'Computing in a background worker',
  longRunMain: 'Computing on the page (no worker can start here)',
  longRunDone: 'Computed in a background worker',
  longRunDoneMain: 'Computed on the page',
  longRunCancelled: 'Cancelled: the results below are the last good ones.',
  longRunFailed: 'The background run failed',
  longRunCancel: 'Cancel',
  // colour (item 4): the maps' legends and axis names (views/heatmap.ts, results.ts)
  masked: 'masked',
  axisQuery: 'query i',
  axisKey: 'key j',
  axisFeat: 'feature d',
  axisProj: 'projected key p',
  axisPooled: 'pooled key p',
  axisTgt: 'target step t',
  axisSrc: 'source token s',
  axisVocab: 'vocabulary token',
  axisPos: 'position i',
  axisDim: 'dimension j',
  axisTest: 'test point i',
  axisTrain: 'training point j',
  axisPred: 'prediction ŷ',
};

export type Key = keyof typeof EN;

let ZH: Record<Key, string> | null = null;
let ZH_PRESETS: Record<string, string> = {};
/** The catalog's Chinese titles (build/wasm/catalog-zh.json, with the Chinese strings). */
let ZH_TITLES: { algorithms: Record<string, string>; presets: Record<string, string> } = { algorithms: {}, presets: {} };
let zhLoading: Promise<void> | null = null;
/** The Chinese of the state's and algorithms' labels, by their English (vite.config.ts
 * zhOutOfFirstLoad: with the Chinese strings, out of the English first load). */
let ZH_TEXTS: Record<string, string> = {};

/** A label's Chinese (its `zh`, a getter after the build moved it): its English until loaded. */
export const zhText = (en: string): string => ZH_TEXTS[en] ?? en;

/** Resolves when the language's strings are there (English always is); starts fetching them. */
export function loadLanguage(lang: Lang): Promise<void> {
  if (lang !== 'zh' || ZH) return Promise.resolve();
  zhLoading ??= import('./i18n-zh').then((m) => {
    ZH = m.ZH;
    ZH_PRESETS = m.PRESET_DESCRIPTIONS_ZH;
    ZH_TITLES = m.CATALOG_ZH_TITLES;
    ZH_TEXTS = m.ZH_TEXTS;
  });
  return zhLoading;
}

export function t(lang: Lang, key: Key): string {
  return lang === 'zh' && ZH ? ZH[key] : EN[key];
}

/** The Chinese title of an algorithm or a preset: its own (the whole module's registry has them),
 * else the catalog's (loaded with the Chinese strings), else ''. */
export function zhTitle(kind: 'algorithms' | 'presets', entry: { name: string; title_zh?: string }): string {
  return entry.title_zh || ZH_TITLES[kind][entry.name] || '';
}

/** A preset's description in `lang` (the core's English one where Chinese has none). */
export function presetDescription(lang: Lang, preset: { name: string; description: string }): string {
  return (lang === 'zh' && ZH_PRESETS[preset.name]) || preset.description;
}

export function tx(lang: Lang, text: Text | undefined): string {
  return text ? text[lang] : '';
}

/** A view's `t`: its own strings (`table`, English and Chinese, beside the view) before the page's. */
export function viewText<T extends Record<string, Text>>(table: T): (lang: Lang, key: Key | keyof T) => string {
  return (lang, key) => (key in table ? tx(lang, table[key as keyof T]) : t(lang, key as Key));
}
