// Accessibility sweep (issue 14, "axe-core finds 0 violations on every preset in both languages and
// themes"): every preset of build/wasm/catalog.json x en/zh x light/dark, on index.html (the page
// around the element) and on embed.html (the element alone, the page's theme its own), with every
// deep dive (<details class="dive">) open, the content-visibility sections visible (axe.mjs) and the
// explain panel shown (the first map's tab stop focused), and once more dark in Chinese on a 390 px
// phone (a fresh load at that width). Minutes long (55 presets x 9 audits): `npm run a11y`; named so
// that `npm test` (node --test tests/web/) leaves it out: a11y.test.mjs keeps one preset of each
// algorithm there, each in one of the two states. Headless Chromium against dist/ with its CSP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openUrl, root } from './harness.mjs';
import { axeViolations, openAll, themeAndLang } from './axe.mjs';

const ALL = JSON.parse(fs.readFileSync(path.join(root, 'build/wasm/catalog.json'), 'utf8')).presets.map((p) => p.name);
// A11Y_PRESETS=a,b: those presets only (a re-check after a fix)
const PRESETS = process.env.A11Y_PRESETS ? ALL.filter((p) => process.env.A11Y_PRESETS.split(',').includes(p)) : ALL;
const STATES = [['light', 'en'], ['light', 'zh'], ['dark', 'en'], ['dark', 'zh']];

let page, base, problems, close;
before(async () => {
  ({ page, base, problems, close } = await launch());
  await page.setViewportSize({ width: 1366, height: 900 });
});
after(async () => { await close?.(); });

/** Focuses the first map's tab stop (a table cell or a canvas) and waits for the explain panel. */
async function showPanel() {
  const focused = await page.evaluate(() => {
    const root = document.querySelector('attention-playground').shadowRoot;
    const stop = root.querySelector('figure[data-field] [data-index][tabindex="0"], figure[data-field] canvas[tabindex="0"]');
    stop?.focus({ preventScroll: true });
    return stop != null;
  });
  if (!focused) return 'no map to focus';
  await page.waitForFunction(() => {
    const p = document.querySelector('attention-playground').shadowRoot.querySelector('.xp-panel');
    return p && !p.hidden && p.querySelector('.xp-text').textContent !== '';
  }, null, { timeout: 10000 });
  return null;
}

async function auditState(where) {
  await openAll(page);
  const none = await showPanel();
  const found = await axeViolations(page);
  return [...found, ...(none ? [`(${none})`] : [])].map((v) => `${where}: ${v}`);
}

for (const preset of PRESETS) {
  test(`axe finds no WCAG A/AA violation on ${preset}: en/zh x light/dark, index.html and embed.html, dark zh at 390 px`, async () => {
    const found = [];
    await openUrl(page, `${base}#preset=${preset}`);
    for (const [theme, lang] of STATES) {
      await themeAndLang(page, theme, lang);
      found.push(...await auditState(`index.html ${theme} ${lang}`));
    }
    for (const [theme, lang] of STATES) {
      await openUrl(page, `${base}embed.html?preset=${preset}&theme=${theme}&lang=${lang}`);
      found.push(...await auditState(`embed.html ${theme} ${lang}`));
    }
    // the phone: a fresh load at 390 px, dark in Chinese (a11y.test.mjs audits a few presets so)
    await page.setViewportSize({ width: 390, height: 900 });
    try {
      await openUrl(page, `${base}#preset=${preset}`);
      await themeAndLang(page, 'dark', 'zh');
      found.push(...await auditState('index.html dark zh 390 px'));
    } finally {
      await page.setViewportSize({ width: 1366, height: 900 });
    }
    assert.deepEqual(found, []);
    assert.deepEqual(problems, []);
  });
}
