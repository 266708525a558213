// Accessibility: axe-core (WCAG 2 A/AA rules) over the page, one preset of every algorithm the core
// registers (every page module: web/src/algorithms/), plus presets that draw views of their own (the
// sparse patterns, diff's two maps): each audited once, half light in English on a 1400 px screen,
// half dark in Chinese on a 390 px phone, so both languages, themes and widths are audited on every
// kind of view. Headless Chromium against dist/ served with its CSP; the content-visibility sections
// are made visible first (axe.mjs); in each state the first audit is a fresh load, the others
// switch presets (below). The sweep, `npm run a11y` (a11y-sweep.mjs), audits EVERY preset
// in en/zh x light/dark on index.html and embed.html, and dark zh at 390 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../wasm/attnplay.mjs';
import { launch, openPreset, openUrl } from './harness.mjs';
import { axeViolations, openAll, themeAndLang } from './axe.mjs';

const WIDE = ['light', 'en', 1400], PHONE = ['dark', 'zh', 390];
/** [preset, state]: the first preset of each algorithm below is the one its page module draws here. */
const AUDITS = [
  ['softmax-toy', WIDE], ['sparse-local', PHONE],                 // full: maps, the sparse patterns
  ['prob-toy', PHONE], ['performer-orthogonal', WIDE],            // the ProbAttention steps, the Performer sweep (canvas)
  ['linformer-k4', PHONE], ['d2l-positional-encoding', WIDE],
  ['d2l-nadaraya-watson', PHONE], ['flash-toy', WIDE],
  ['diff-toy', WIDE], ['diff-noise-cancel', PHONE],               // diff's two maps
  ['tslib-shape-chain', WIDE], ['d2l-additive', PHONE],           // multihead's grids, additive's weights
  ['linear-elu1', WIDE], ['mla-toy', PHONE], ['decode-sinks', WIDE],
  ['d2l-bahdanau-shapes', PHONE], ['lsh-4-buckets', WIDE], ['pooling-avg', PHONE],
];

let browser, page, base, problems;
before(async () => { ({ page, base, problems, close: browser } = await launch()); });
after(async () => { await browser?.(); });

test('the audits cover every algorithm the core registers, both states', async () => {
  const algorithmOf = new Map((await load()).presets().map((p) => [p.name, p.scenario.algorithm]));
  const covered = new Set(AUDITS.map(([p]) => algorithmOf.get(p)));
  assert.ok(!covered.has(undefined), 'every audited preset exists');
  assert.deepEqual([...new Set(algorithmOf.values())].filter((a) => !covered.has(a)), [], 'algorithms with no audit');
  assert.ok(AUDITS.some(([, s]) => s === WIDE) && AUDITS.some(([, s]) => s === PHONE));
});

// The audits of one state in a row: the first a fresh load at that width (both are `full` presets:
// the first-load module draws them), the others switched to with el.setPreset as the preset select
// does (openPreset: a fresh load costs about 2 s of CPU; npm run a11y loads every preset fresh).
// The theme and language are set again before each audit, and every section is opened again.
for (const state of [WIDE, PHONE]) {
  const [theme, lang, width] = state;
  AUDITS.filter(([, s]) => s === state).forEach(([preset], i) => {
    test(`axe finds no WCAG A/AA violation on ${preset} (${theme} ${lang} ${width} px)`, async () => {
      if (i === 0) {
        await page.setViewportSize({ width, height: 900 });
        await openUrl(page, `${base}#preset=${preset}`);
      } else {
        assert.equal(page.viewportSize().width, width);
        await openPreset(page, preset);
      }
      await themeAndLang(page, theme, lang);
      await openAll(page);
      assert.deepEqual(await axeViolations(page), [], `${preset}, ${theme}, ${lang}, ${width} px`);
      assert.deepEqual(problems, []);
    });
  });
}

// An edited page shows what a preset as loaded does not: the header's "modified" mark (its gold
// text once failed contrast in the light theme, 2.7:1) and the edited cell's row.
test('axe finds no WCAG A/AA violation on an edited page, light and dark', async () => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await openUrl(page, `${base}#preset=softmax-toy`);
  for (const theme of ['light', 'dark']) {
    await themeAndLang(page, theme, 'en');
    await page.evaluate(async (v) => {
      const el = document.querySelector('attention-playground');
      const input = el.shadowRoot.querySelector('.panel-tensors [data-tensor] input[data-key]');
      input.value = v;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await el.settled;
    }, theme === 'light' ? '0.7' : '-1.25');
    assert.equal(await page.evaluate(() => document.querySelector('attention-playground').shadowRoot.querySelector('.modified').hidden), false);
    await openAll(page);
    assert.deepEqual(await axeViolations(page), [], `edited softmax-toy, ${theme}`);
  }
  assert.deepEqual(problems, []);
});
