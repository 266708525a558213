// The page hands q, k and v to the core typed where they are rectangles of finite numbers
// (web/src/engine/typed.ts: withTypedInputs, through wasm/nested.mjs's fromNested). Over every
// preset and the bad-input corpus, a typed run succeeds exactly where the run as written does, with
// the same trace; where both fail, the run as written names the field the user wrote, which the
// typed one may not (a tensor of the wrong rank: "q.shape"), so the page runs a failed typed run
// again as written (engine/typed.ts, runTyped: the one place).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { wasm } from './helpers.mjs';
import { fromNested, nested, toNested } from '../../wasm/nested.mjs';

const corpus = JSON.parse(readFileSync(new URL('../bad-inputs/corpus.json', import.meta.url), 'utf8'));

/** withTypedInputs of engine/typed.ts: q, k, v typed where they can be. */
function typedInputs(s) {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return s;
  const out = { ...s };
  for (const key of ['q', 'k', 'v']) out[key] = fromNested(s[key]) ?? s[key];
  return out;
}

function outcome(s) {
  try {
    return { ok: true, trace: wasm.run(s) };
  } catch (e) {
    return { ok: false, error: e.message, field: e.field };
  }
}

const scenarios = [
  ...wasm.presets().map((p) => [`preset ${p.name}`, p.scenario]),
  ...corpus.valid.map((c) => [c.name, c.scenario]),
  ...corpus.bad.filter((c) => c.scenario !== undefined).map((c) => [c.name, c.scenario]),
];

test('nested <-> {shape, data}: the same numbers, any rank; not a rectangle of finite numbers: null', () => {
  const x = [[[1, -0, 2.5e-300]], [[4, 5, 6]]];
  const t = fromNested(x);
  assert.deepEqual(t.shape, [2, 1, 3]);
  assert.ok(t.data instanceof Float64Array);
  assert.deepEqual(toNested(t.data, t.shape), x);
  assert.ok(Object.is(toNested(t.data, t.shape)[0][0][1], -0));
  assert.deepEqual(nested(t), x);
  assert.deepEqual(nested({ shape: [2], data: [7, 8] }), [7, 8]);  // the JSON form the core reads too
  assert.equal(nested(x), x);
  assert.equal(toNested(new Float64Array([3]), []), 3);
  for (const bad of [[[1, 2], [3]], [[1, NaN]], [[1, Infinity]], [], [[]], [[1, '2']], 5, null]) assert.equal(fromNested(bad), null);
});

test('a typed run fails exactly where the run as written fails, and gives the same trace', () => {
  let typedSome = 0;
  const renamed = [];
  for (const [name, s] of scenarios) {
    const typed = typedInputs(s);
    if (['q', 'k', 'v'].some((k) => typed?.[k] !== s?.[k])) typedSome++;
    const a = outcome(s);
    const b = outcome(typed);
    assert.equal(b.ok, a.ok, `${name}: as written ${a.ok ? 'ran' : `failed (${a.error})`}, typed ${b.ok ? 'ran' : `failed (${b.error})`}`);
    if (a.ok) assert.deepEqual(b.trace, a.trace, `${name}: the typed run's trace differs`);
    else if (a.field !== b.field) renamed.push([name, a.field, b.field]);
  }
  assert.ok(typedSome > 250, `typed inputs in ${typedSome} scenarios`);
  // why runTyped runs a failed typed run again as written: a shape error, typed, names a field the
  // scenario does not have ("k.shape[3]" for k[0][0][0] of another width)
  assert.ok(renamed.length >= 10, `${renamed.length} errors name another field when typed`);
  for (const [name, written, typed] of renamed) {
    assert.match(typed, /^[qkv]\.(shape|data)\b/, `${name}: typed, the error names ${typed}`);
    assert.doesNotMatch(written, /\.(shape|data)\b/, `${name}: as written, the error names ${written}`);
  }
});
