// Your own tensors into a grid (issue 15; a chunk of its own, loaded at the first paste or drop): a
// pasted matrix or tensor as NumPy or PyTorch prints it (`tensor([[3.], [1.], [0.5]])`,
// `array([[1., 2.]], dtype=float32)`, `np.array(...)`, `torch.tensor(...)`), nested lists, rows of a
// spreadsheet (tabs), CSV or space-separated rows; or a dropped `.npy` file (parseNpy). The text and
// the file are untrusted: size limits, a parser of their own (no eval), every refusal a sentence.
// fitInto() puts the numbers into the grid's tensor, resizing the sizes the scenario lets change.
import { clone, shapeOf } from './format';
import type { Scenario } from './engine/compute';
import { dimNames, dims, resize, traits, type DimName, type Session } from './state';

/** At most this many numbers (a (1, 4096, 1, 256) tensor) and characters of text / bytes of file. */
export const MAX_NUMBERS = 1 << 20;
export const MAX_TEXT = 32 << 20;
export const MAX_FILE = 64 << 20;

export interface Parsed { shape: number[]; data: Float64Array }

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

function number(token: string, where: string): number {
  if (!NUMBER.test(token)) {
    if (/^[-+]?(nan|inf|infinity)$/i.test(token)) throw new Error(`${where}: ${token} is not a finite number`);
    throw new Error(`${where}: "${token.slice(0, 40)}" is not a number`);
  }
  const x = Number(token);
  if (!Number.isFinite(x)) throw new Error(`${where}: ${token} is outside float64`);
  return x;
}

/** The bracketed part of a NumPy / PyTorch print: `tensor(`, `array(`, `np.array(`, `torch.tensor(`
 * and their keyword arguments (`dtype=float32`, `requires_grad=True`, `device='cuda:0'`) dropped. */
function unwrap(text: string): string {
  let t = text.trim();
  const call = /^(?:(?:np|numpy|torch)\s*\.\s*)?(?:tensor|array|asarray|as_tensor|from_numpy)\s*\(/.exec(t);
  if (call) {
    t = t.slice(call[0].length);
    const end = t.lastIndexOf(']');
    if (end < 0) throw new Error('expected a [ list ] inside the call');
    t = t.slice(0, end + 1);
  }
  return t;
}

/** Nested lists, the items separated by commas or white space (NumPy prints none). */
function parseNested(t: string): Parsed {
  const data: number[] = [];
  let shape: number[] | null = null;
  let i = 0;
  const skip = () => { while (i < t.length && /[\s,]/.test(t[i])) i++; };
  // returns the shape of the list at i (its '[' consumed by the caller)
  const list = (depth: number): number[] => {
    if (depth > 8) throw new Error('more than 8 levels of [ ]');
    let n = 0;
    let inner: number[] | null = null;
    for (;;) {
      skip();
      if (i >= t.length) throw new Error('a [ is not closed');
      const c = t[i];
      if (c === ']') { i++; break; }
      let sub: number[];
      if (c === '[') {
        i++;
        sub = list(depth + 1);
      } else {
        const m = /^[^\s,[\]]+/.exec(t.slice(i, i + 64));
        if (!m) throw new Error(`unexpected "${c}"`);
        i += m[0].length;
        data.push(number(m[0], `item ${data.length}`));
        if (data.length > MAX_NUMBERS) throw new Error(`more than ${MAX_NUMBERS} numbers`);
        sub = [];
      }
      if (inner === null) inner = sub;
      else if (inner.join() !== sub.join()) throw new Error(`ragged: rows of different lengths (${dimsText(inner)} and ${dimsText(sub)})`);
      n++;
    }
    if (n === 0) throw new Error('an empty [ ]');
    return [n, ...(inner ?? [])];
  };
  skip();
  if (t[i] !== '[') throw new Error('expected [');
  i++;
  shape = list(1);
  skip();
  if (i < t.length) throw new Error(`unexpected "${t.slice(i, i + 20)}" after the last ]`);
  return { shape, data: Float64Array.from(data) };
}

const dimsText = (shape: readonly number[]) => (shape.length ? shape.join(' x ') : 'a number');

/** Rows of text: one a line, the cells separated by tabs (a spreadsheet), commas or semicolons (CSV),
 * else spaces. */
function parseRows(t: string): Parsed {
  const lines = t.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  const sep = t.includes('\t') ? /\t/ : /[,;]/.test(t) ? /\s*[,;]\s*/ : /\s+/;
  const rows = lines.map((l, r) => l.split(sep).map((c) => c.trim()).filter((c, j, a) => c !== '' || (j > 0 && j < a.length - 1))
    .map((c, j) => number(c, `row ${r}, column ${j}`)));
  const cols = rows[0]?.length ?? 0;
  if (!cols) throw new Error('no numbers');
  rows.forEach((row, r) => { if (row.length !== cols) throw new Error(`row ${r} has ${row.length} numbers, row 0 has ${cols}`); });
  if (rows.length * cols > MAX_NUMBERS) throw new Error(`more than ${MAX_NUMBERS} numbers`);
  return { shape: [rows.length, cols], data: Float64Array.from(rows.flat()) };
}

/** A pasted matrix or tensor; throws an Error saying what is wrong with it. */
export function parseText(text: string): Parsed {
  if (text.length > MAX_TEXT) throw new Error(`more than ${MAX_TEXT >> 20} MB of text`);
  if (/\.\.\./.test(text) || text.includes('…')) {
    throw new Error('the print is summarised with "..." (numbers left out): print it whole first, ' +
      'torch.set_printoptions(profile="full") or np.set_printoptions(threshold=sys.maxsize)');
  }
  const t = unwrap(text);
  return t.startsWith('[') ? parseNested(t) : parseRows(t);
}

// ---- .npy (NumPy's format, https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html) ----

/** A `.npy` file: magic `\x93NUMPY`, version 1.0 (header length u16), 2.0 or 3.0 (u32), the header a
 * Python dict literal {'descr', 'fortran_order', 'shape'}, then the data. Floats (f4, f8, f2 no),
 * signed and unsigned ints of 1, 2, 4, 8 bytes and bools, either byte order; C or Fortran order. */
export function parseNpy(buffer: ArrayBuffer): Parsed {
  if (buffer.byteLength > MAX_FILE) throw new Error(`larger than ${MAX_FILE >> 20} MB`);
  const bytes = new Uint8Array(buffer);
  const view = new DataView(buffer);
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw new Error('not a .npy file (no \\x93NUMPY magic)');
  const major = bytes[6];
  if (major < 1 || major > 3) throw new Error(`.npy version ${major}.${bytes[7]} (expected 1.0, 2.0 or 3.0)`);
  const headerLen = major === 1 ? view.getUint16(8, true) : bytes.length >= 12 ? view.getUint32(8, true) : -1;
  const start = major === 1 ? 10 : 12;
  if (headerLen < 0 || start + headerLen > bytes.length) throw new Error('the .npy header is cut short');
  // latin1 (1.0, 2.0) or UTF-8 (3.0): the keys and values read here are ASCII either way
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, start + headerLen));
  const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(header)?.[1];
  const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) {
    throw new Error('the .npy header has no descr, fortran_order and shape');
  }
  const shape = shapeText.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    if (!/^\d+$/.test(s)) throw new Error(`the .npy shape (${shapeText}) is not a tuple of sizes`);
    return Number(s);
  });
  const m = /^([<>|=]?)([fiub])(\d+)$/.exec(descr);
  const kind = m?.[2], size = Number(m?.[3]);
  const ok = m && ((kind === 'f' && (size === 4 || size === 8)) || ((kind === 'i' || kind === 'u') && [1, 2, 4, 8].includes(size)) || (kind === 'b' && size === 1));
  if (!ok) throw new Error(`dtype ${descr} (expected float64 <f8, float32 <f4, an int or uint of 1 to 8 bytes, or bool)`);
  const little = m[1] !== '>';
  const n = shape.reduce((a, x) => a * x, 1);
  if (n > MAX_NUMBERS) throw new Error(`${n} numbers, more than ${MAX_NUMBERS}`);
  const offset = start + headerLen;
  if (offset + n * size > bytes.length) throw new Error(`the data is cut short: ${dimsText(shape)} ${descr} needs ${n * size} bytes, the file has ${bytes.length - offset}`);
  const read: (at: number) => number =
    kind === 'f' ? (size === 8 ? (at) => view.getFloat64(at, little) : (at) => view.getFloat32(at, little))
      : kind === 'b' ? (at) => (view.getUint8(at) ? 1 : 0)
        : size === 8 ? (kind === 'i' ? (at) => Number(view.getBigInt64(at, little)) : (at) => Number(view.getBigUint64(at, little)))
          : kind === 'i' ? (size === 4 ? (at) => view.getInt32(at, little) : size === 2 ? (at) => view.getInt16(at, little) : (at) => view.getInt8(at))
            : size === 4 ? (at) => view.getUint32(at, little) : size === 2 ? (at) => view.getUint16(at, little) : (at) => view.getUint8(at);
  const data = new Float64Array(n);
  if (fortran === 'True' && shape.length > 1) {
    // the file holds the array column-major (first index fastest): element k of the row-major order is
    // at the column-major offset of its index
    const strides = shape.map((_, d) => shape.slice(0, d).reduce((a, x) => a * x, 1));
    const index = new Array<number>(shape.length).fill(0);
    for (let k = 0; k < n; k++) {
      let at = 0;
      for (let d = 0; d < shape.length; d++) at += index[d] * strides[d];
      data[k] = read(offset + at * size);
      for (let d = shape.length - 1; d >= 0; d--) { if (++index[d] < shape[d]) break; index[d] = 0; }
    }
  } else {
    for (let k = 0; k < n; k++) data[k] = read(offset + k * size);
  }
  for (let k = 0; k < n; k++) if (!Number.isFinite(data[k])) throw new Error(`item ${k} is ${data[k]}, not a finite number`);
  return { shape, data };
}

// ---- into the grid ----

/** The grid a paste lands on: tensor `name` of the scenario, its slice (b, h), its title for errors. */
export interface Target { name: string; title: string; b: number; h: number | null }

/** The sizes a grid's rows and columns are (q: L_Q and E; k: L_K and E, or E_k; v: L_K and D;
 * an algorithm's own (B, L, d) grid: its axes 1 and 2). */
function gridDims(s: Scenario, name: string): [string, string] {
  const tr = traits(s);
  const own = tr.grids?.find((g) => g.key === name);
  if (own) return [own.axes[1], own.axes[2]];
  const L = tr.sharedQK ? 'L_Q' : 'L_K';
  if (name === 'q') return ['L_Q', 'E'];
  if (name === 'k') return [L, tr.keyWidth ? 'E_k' : 'E'];
  return [L, 'D'];
}

const setAt = (t: unknown, path: number[], value: unknown): void => {
  let cur = t as unknown[];
  for (const i of path.slice(0, -1)) cur = cur[i] as unknown[];
  cur[path[path.length - 1]] = value;
};

/** The scenario with `p` put into the target's grid (resizing what may change, as the size bar
 * does: q, k, v stay consistent); throws an Error naming the grid and the size that cannot fit. */
export function fitInto(s0: Scenario, target: Target, p: Parsed): Scenario {
  const tensor = s0[target.name];
  const have = shapeOf(tensor);
  const { title } = target;
  let shape = p.shape;
  const rowsCols = target.h === null ? have.slice(1, 3) : [have[1], have[3]];
  // a 1-D paste: a column into a grid one number wide, else a row
  if (shape.length === 1) shape = rowsCols[1] === 1 && rowsCols[0] !== 1 ? [shape[0], 1] : [1, shape[0]];
  const whole = shape.length === have.length && shape.length > 2;
  if (shape.length !== 2 && !whole) {
    throw new Error(`${title}: pasted ${dimsText(p.shape)}; expected the grid's rows x columns (${dimsText(rowsCols)})` +
      (have.length > 2 ? ` or the whole tensor (${dimsText(have)})` : ''));
  }
  // which size each axis of the paste is, and whether the scenario lets it change
  const axisDims: string[] = whole
    ? (traits(s0).grids ? traits(s0).grids!.find((g) => g.key === target.name)!.axes.slice() : ['B', gridDims(s0, target.name)[0], 'H', gridDims(s0, target.name)[1]])
    : gridDims(s0, target.name);
  const axisNow = whole ? have : rowsCols;
  const changeable = new Set<string>(dimNames(s0));
  let s = clone(s0);
  const current = (dim: string) => dims(s)[dim as DimName];
  axisDims.forEach((dim, a) => {
    if (shape[a] === axisNow[a]) return;
    if (!changeable.has(dim) || current(dim) !== axisNow[a]) {
      const sizes = axisDims.map((d, i) => `${d}=${axisNow[i]}`).join(', ');
      throw new Error(`${title}: pasted ${dimsText(shape)}, the grid is (${sizes}): ${dim} cannot change here`);
    }
    s = resize(s, dim as DimName, shape[a]);
  });
  const t = s[target.name] as unknown[];
  if (whole) {
    const build = (d: number, at: number): unknown => (d === shape.length - 1
      ? Array.from(p.data.subarray(at, at + shape[d]))
      : Array.from({ length: shape[d] }, (_, i) => build(d + 1, at + i * shape.slice(d + 1).reduce((x, y) => x * y, 1))));
    s[target.name] = build(0, 0);
    return s;
  }
  for (let i = 0; i < shape[0]; i++) {
    for (let j = 0; j < shape[1]; j++) {
      setAt(t, target.h === null ? [target.b, i, j] : [target.b, i, target.h, j], p.data[i * shape[1] + j]);
    }
  }
  return s;
}

/** Text or a dropped file, parsed: a `.npy` by its magic, else text. */
export async function parseData(data: string | File): Promise<Parsed> {
  if (typeof data === 'string') return parseText(data);
  if (data.size > MAX_FILE) throw new Error(`${data.name}: larger than ${MAX_FILE >> 20} MB`);
  const buffer = await data.arrayBuffer();
  const head = new Uint8Array(buffer, 0, Math.min(6, buffer.byteLength));
  try {
    if (head[0] === 0x93 || /\.npy$/i.test(data.name)) return parseNpy(buffer);
    return parseText(new TextDecoder().decode(buffer));
  } catch (e) {
    throw new Error(`${data.name}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A paste or a drop on the grid of `target`: the scenario edited (one edit), or the grid's error
 * (keyed by the tensor's name, shown beside its grid); false when refused. */
export async function pasteInto(session: Session, target: Target, data: string | File): Promise<boolean> {
  try {
    let parsed: Parsed;
    try {
      parsed = await parseData(data);
    } catch (e) {
      throw new Error(`${target.title}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const next = fitInto(session.scenario, target, parsed);
    session.setInvalid(target.name, null);
    session.edit(next, true);
    return true;
  } catch (e) {
    session.setInvalid(target.name, e instanceof Error ? e.message : String(e));
    return false;
  }
}

// ---- the grids' listeners ----

/** One number pasted is the cell's own paste; anything else (lines, tabs, brackets, commas, two
 * numbers) is a matrix for the grid. */
const MATRIX_TEXT = /[\n\t[\],;]|\S\s+\S/;

/** Every tensor grid of `root` takes a pasted matrix and a dropped file (one set of delegated
 * listeners; paste.ts, lazy, reads them): `onData(tensor, text or file)`. Weights and the mask's
 * grid do not. */
export function dataHook(root: ShadowRoot, onData: (tensor: string, data: string | File) => void): void {
  const gridOf = (e: Event) => {
    const fig = (e.target as Element | null)?.closest?.<HTMLElement>('figure.editor[data-tensor]');
    return fig && !fig.dataset.tensor!.includes('.') ? fig : null;
  };
  root.addEventListener('paste', (ev) => {
    const e = ev as ClipboardEvent, fig = gridOf(e);
    const text = e.clipboardData?.getData('text/plain') ?? '';
    if (!fig || !MATRIX_TEXT.test(text.trim())) return;
    e.preventDefault();
    onData(fig.dataset.tensor!, text);
  });
  const drag = (ev: Event) => {
    const e = ev as DragEvent, fig = gridOf(e);
    if (!fig || !e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    fig.classList.toggle('drop-target', e.type === 'dragover');
    const file = e.type === 'drop' ? e.dataTransfer.files[0] : undefined;
    if (file) onData(fig.dataset.tensor!, file);
  };
  for (const type of ['dragover', 'dragleave', 'drop']) root.addEventListener(type, drag);
}
