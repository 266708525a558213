// The clicks on ProbAttention's panel (views/prob-panel.ts): a given sample_index or top_index
// toggled, keeping its length. Only the lazily loaded panel needs them: not in the first load.
import { clone, shapeOf } from '../format';

/**
 * sample_index with key j toggled for query i (of head hh when samples are per head). Each query
 * draws U_part keys with replacement, so a row keeps its length: a key clicked in takes the place
 * of a repeated draw (its first repeat), else of the row's oldest draw (the first; the rest move
 * up); a key clicked out leaves its draws to the row's first other key (shown ×2, as a repeat).
 * A row with only that key stays as it is (null). `samples` is the scenario's sample_index or the
 * trace's (the seed's draw).
 */
export function toggleSample(samples: unknown, hh: number, i: number, j: number): unknown[] | null {
  const perHead = shapeOf(samples).length === 3;
  const all = clone(samples) as unknown[];
  const rows = (perHead ? all[hh] : all) as number[][] | undefined;
  const row = rows?.[i];
  if (!Array.isArray(row) || !row.length) return null;
  let next: number[];
  if (row.includes(j)) {
    const other = row.find((x) => x !== j);
    if (other === undefined) return null;
    next = row.map((x) => (x === j ? other : x));
  } else {
    const repeat = row.findIndex((x, n) => row.indexOf(x) !== n);
    next = [...row];
    next.splice(repeat >= 0 ? repeat : 0, 1);
    next.push(j);
  }
  rows![i] = next;
  return all;
}

/**
 * top_index with query i put in or out. It holds u distinct queries, so it keeps its length: a
 * query put in takes the place of the selected query of least M; a query taken out leaves its
 * place to the unselected query of largest M (ties to the lower index, as the core ranks).
 * `top` is the scenario's top_index or the trace's ranking; `M` the trace's sparsity of the slice
 * shown. Null when nothing can change (every query selected: u = L_Q).
 */
export function toggleTop(top: readonly number[], M: readonly number[], i: number): number[] | null {
  const byM = (a: number, b: number) => (M[b] ?? -Infinity) - (M[a] ?? -Infinity) || a - b;
  if (top.includes(i)) {
    const other = M.map((_, n) => n).filter((n) => !top.includes(n)).sort(byM)[0];
    return other === undefined ? null : top.map((x) => (x === i ? other : x));
  }
  const least = [...top].sort(byM).at(-1);
  return least === undefined ? null : top.map((x) => (x === least ? i : x));
}
