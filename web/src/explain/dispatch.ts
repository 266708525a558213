/// <reference types="vite/client" />
// el.explain(field, index) (SPEC §1): finds the explainer of the shown trace's algorithm (its page
// module's `explain` loader: a chunk of its own, fetched on the first call) and the trace the
// cell is in. `field` is a trace field ("weights") or the data-field of a map the page draws
// beside the trace's own: the approximation's and the exact run's maps ("approx.context",
// "implied.weights", "exact.weights", "exact_context"), flash's ("flash.output", "flash.full",
// "flash.m_old", "flash.factor", "flash.l_old", given the shown (b, h) and key block or a full
// index), additive's ("additive.features", "additive.scores", "additive.w_v"). No DOM.
import { algorithm, traits } from '../algorithms/module';
import type { Scenario, Trace } from '../engine/compute';
import type { Lang } from '../i18n';
import { exactScenario, flashFull } from '../state/approx';
import { written } from '../engine/draws';
import type { CellRef, Explanation, Explainer } from './explanation';
import { Cells } from './common';
import { exactSpec, softmaxExplainer } from './softmax';

/** What the element shows: its trace, the scenario, the exact run beside it, the shown slice. */
export interface Shown {
  trace: Trace | null;
  scenario: Scenario;
  /** Full attention on the same inputs (approximations' exact weights; flash's full context). */
  exact: Trace | null;
  b: number;
  h: number;
  /** flash's key block shown (null: the last). */
  flashStep: number | null;
}

const exactContext = softmaxExplainer(exactSpec);

/** Each algorithm's explainer is explain/<name>.ts, a chunk of its own (Vite's glob: no list of
 * names to keep, and it is in this lazy chunk, so the first load carries none of it; a page
 * module's own `explain` loader wins). */
const EXPLAINERS = import.meta.glob<{ default: Explainer }>(['./*.ts', '!./{common,dispatch,explanation,parts,softmax}.ts']);

function explainerOf(name: string): (() => Promise<Explainer>) | undefined {
  const own = algorithm(name)?.explain;
  if (own) return own;
  const load = EXPLAINERS[`./${name}.ts`];
  return load && (() => load().then((m) => m.default));
}

/** A page map's field as the trace field it shows (same index). */
const ALIAS: Record<string, string> = {
  'approx.context': 'context', 'implied.weights': 'weights', 'additive.features': 'features', 'additive.scores': 'scores',
  'additive.w_v': 'w_v', 'pe-high': 'P',
  'decode.step': 'weights',  // modern-b (issue 16): decode's step row, the weights row P + t at the held keys
};

function fail(field: string, index: readonly number[], why: string): never {
  throw Object.assign(new Error(`explain: ${field}[${index.join(', ')}]: ${why}`), { field });
}

/** flash's maps of the shown step, indexed by query (and d) alone: their full index. */
function flashIndex(field: string, index: number[], s: Shown, trace: Trace): number[] {
  const T = Number(trace.num_key_blocks ?? (trace.shapes.running_max?.[3] ?? 1));
  const t = s.flashStep === null ? T - 1 : Math.min(s.flashStep, T - 1);
  if (field === 'flash.output' && index.length === 2) return [s.b, s.h, t, ...index];
  if (['flash.m_old', 'flash.factor', 'flash.l_old'].includes(field) && index.length === 1) return [s.b, s.h, index[0], t];
  return index;
}

export async function explainCell(s: Shown, field: string, index: number[], lang: Lang): Promise<Explanation> {
  s = { ...s, scenario: await written(s.scenario) }; // seeded draws: the numbers the core drew
  if (typeof field !== 'string' || field === '') throw Object.assign(new Error('explain: expected a field name'), { field: '' });
  if (!Array.isArray(index) || !index.every((x) => Number.isInteger(x))) fail(field, [], 'expected an index path of integers');
  const trace = s.trace;
  if (!trace) fail(field, index, 'there is no trace yet');
  let explainer: Explainer;
  let on = trace, scenario = s.scenario, name = ALIAS[field] ?? field;
  if (field === 'exact.weights' || field === 'exact_context' || field === 'flash.full') {
    // full attention on the same inputs beside the trace (the trace's exact fields, else the exact run's)
    const flash = field === 'flash.full';
    scenario = flash ? flashFull(s.scenario) : exactScenario(s.scenario, traits(s.scenario).scale === true);
    if (s.scenario.k === undefined && trace.k === undefined) {  // shared QK (lsh): the keys are the queries' cells
      scenario = { ...scenario };
      delete scenario.k;
    }
    name = field === 'exact.weights' ? 'exact_weights' : 'exact_context';
    const given = flash ? s.exact?.context ?? trace.context : trace[name] ?? s.exact?.[name === 'exact_weights' ? 'weights' : 'context'];
    if (given === undefined) fail(field, index, 'the exact run is not there (too large, or not made)');
    on = { ...trace, [name]: given };
    explainer = exactContext;
  } else {
    const load = explainerOf(trace.algorithm);
    if (!load) fail(field, index, `${trace.algorithm} has no explainer yet`);
    explainer = await load();
    if (trace.algorithm === 'flash') index = flashIndex(field, index, s, trace);
  }
  const out = explainer(on, scenario, name, index, lang);
  if (!out) {
    const cells = new Cells(on, scenario);
    const shape = cells.shape(name);
    if (cells.value(name, index) !== undefined) fail(field, index, `${on.algorithm}'s explainer does not explain ${name} (an input, or no map of its own)`);
    fail(field, index, shape.length === 0 ? `the ${on.algorithm} trace has no field "${name}" that can be explained`
      : `no such cell (shape [${shape.join(', ')}])`);
  }
  // the exact weights the page draws as "exact.weights" where the trace has none of its own
  // (shared QK, lsh: the exact run's k is the shown scenario's q)
  const rename = (r: CellRef): CellRef => (r.field === 'exact_weights' && trace.exact_weights === undefined ? { ...r, field: 'exact.weights' }
    : r.field === 'k' && s.scenario.k === undefined && scenario !== s.scenario ? { ...r, field: 'q' } : r);
  return { ...out, field, terms: out.terms.map((t) => ({ ...t, ...(t.ref ? { ref: rename(t.ref) } : {}), ...(t.refs ? { refs: t.refs.map(rename) } : {}) })),
    operands: out.operands.map(rename) };
}
