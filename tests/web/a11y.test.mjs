// Accessibility: axe-core (WCAG 2 A/AA rules) over the page in light and dark, English and Chinese,
// on a wide screen and a 390 px phone, for presets that between them draw every kind of view (maps,
// the ProbAttention steps, the sparse patterns, the Performer sweep, Linformer, d2l's chapter).
// Headless Chromium against dist/ served with its CSP. The content-visibility sections are made
// visible first (axe.mjs). Every preset x en/zh x light/dark: a11y-sweep.mjs (`npm run a11y`).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openUrl } from './harness.mjs';
import { axeViolations, openAll, themeAndLang } from './axe.mjs';

const PRESETS = ['softmax-toy', 'prob-toy', 'sparse-local', 'performer-orthogonal', 'linformer-k4', 'd2l-positional-encoding',
  'd2l-nadaraya-watson', 'flash-toy', 'diff-toy',
  // issue 14 item 6: multihead's grids and weights, additive's weights, linear's disabled scale
  'tslib-shape-chain', 'd2l-additive', 'linear-elu1',
  // issue 16 (modern-b): mla's cache tables, diff's two maps, decode's step view
  'mla-toy', 'diff-noise-cancel', 'decode-sinks'];
const STATES = [['light', 'en', 1400], ['dark', 'zh', 390]];

let browser, page, base, problems;
before(async () => { ({ page, base, problems, close: browser } = await launch()); });
after(async () => { await browser?.(); });

async function audit() {
  await openAll(page);
  return axeViolations(page);
}

for (const preset of PRESETS) {
  test(`axe finds no WCAG A/AA violation on ${preset} (light en 1400 px, dark zh 390 px)`, async () => {
    for (const [theme, lang, width] of STATES) {
      await page.setViewportSize({ width, height: 900 });
      await openUrl(page, `${base}#preset=${preset}`);
      await themeAndLang(page, theme, lang);
      assert.deepEqual(await audit(), [], `${preset}, ${theme}, ${lang}, ${width} px`);
    }
    assert.deepEqual(problems, []);
  });
}
