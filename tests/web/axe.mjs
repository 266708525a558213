// axe-core (WCAG 2 A/AA rules) for the page suites: the results' sections are `content-visibility:
// auto`, so off screen Chromium skips their layout and axe takes the panel behind a cell for the
// cell's background (it hit-tests). `openAll` makes every such section visible (and opens the deep
// dives' <details>) before an audit, so each cell is seen on its own colour.
import fs from 'node:fs';
import { createRequire } from 'node:module';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Opens every <details class="dive"> of every element (when `dives`) and forces its
 * content-visibility sections visible, then waits two frames. */
export async function openAll(page, { dives = true } = {}) {
  await page.evaluate((openDives) => {
    for (const el of document.querySelectorAll('attention-playground')) {
      if (openDives) for (const d of el.shadowRoot.querySelectorAll('details.dive')) d.open = true;
      for (const e of el.shadowRoot.querySelectorAll('*')) {
        if (getComputedStyle(e).contentVisibility === 'auto') e.style.contentVisibility = 'visible';
      }
    }
  }, dives);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** axe's WCAG 2.0/2.1 A and AA violations on the page, one line each: `id (count): targets`. */
export async function axeViolations(page) {
  if (!await page.evaluate(() => 'axe' in window)) await page.evaluate(AXE + '\n;0');
  return page.evaluate(async () => (await window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'],
  })).violations.map((v) => `${v.id} (${v.nodes.length}): ${v.nodes.slice(0, 3).map((n) => n.target.flat().join(' >> ')).join(' | ')}`));
}

/** Sets the first element's theme and language attributes, and waits until it shows them. */
export async function themeAndLang(page, theme, lang) {
  await page.evaluate(async ([t, l]) => {
    const el = document.querySelector('attention-playground');
    el.setAttribute('theme', t);
    el.setAttribute('lang', l);
    await el.settled;
  }, [theme, lang]);
}
