// Accessibility: axe-core (WCAG 2 A/AA rules) over the page in light and dark, English and Chinese,
// on a wide screen and a 390 px phone, for presets that between them draw every kind of view (maps,
// the ProbAttention steps, the sparse patterns, the Performer sweep, Linformer, d2l's chapter).
// Headless Chromium against dist/ served with its CSP.
//
// The results' sections are `content-visibility: auto`: off screen, Chromium skips their layout, and
// axe then takes the panel behind a cell for the cell's background (it hit-tests). So before the
// audit every such section is made visible: the audit sees each cell on its own colour.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { launch, openUrl, settle } from './harness.mjs';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PRESETS = ['softmax-toy', 'prob-toy', 'sparse-local', 'performer-orthogonal', 'linformer-k4', 'd2l-positional-encoding',
  'd2l-nadaraya-watson', 'flash-toy', 'diff-toy',
  // issue 14 item 6: multihead's grids and weights, additive's weights, linear's disabled scale
  'tslib-shape-chain', 'd2l-additive', 'linear-elu1'];
const STATES = [['light', 'en', 1400], ['dark', 'zh', 390]];

let browser, page, base, problems;
before(async () => { ({ page, base, problems, close: browser } = await launch()); });
after(async () => { await browser?.(); });

async function audit() {
  await page.evaluate(() => {
    // the results' sections below the flow (closed <details> on presets not about them) open too
    for (const d of document.querySelector('attention-playground').shadowRoot.querySelectorAll('details.dive')) d.open = true;
    for (const e of document.querySelector('attention-playground').shadowRoot.querySelectorAll('*')) {
      if (getComputedStyle(e).contentVisibility === 'auto') e.style.contentVisibility = 'visible';
    }
  });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.evaluate(AXE + '\n;0');
  return page.evaluate(async () => (await window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'],
  })).violations.map((v) => `${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).map((n) => n.target.flat().join(' >> ')).join(' | ')}`));
}

for (const preset of PRESETS) {
  test(`axe finds no WCAG A/AA violation on ${preset} (light en 1400 px, dark zh 390 px)`, async () => {
    for (const [theme, lang, width] of STATES) {
      await page.setViewportSize({ width, height: 900 });
      await openUrl(page, `${base}#preset=${preset}`);
      await page.evaluate(([t, l]) => {
        const el = document.querySelector('attention-playground');
        el.setAttribute('theme', t);
        el.setAttribute('lang', l);
      }, [theme, lang]);
      await settle(page);
      assert.deepEqual(await audit(), [], `${preset}, ${theme}, ${lang}, ${width} px`);
    }
    assert.deepEqual(problems, []);
  });
}
