// Links that remember (issue 15): index.html's language and theme go into the link (`&lang=zh`,
// `&theme=dark`) and come back from it; the reader's choice is remembered (localStorage); a zh-*
// browser opens in Chinese; under a dark system scheme index.html is dark (theme auto), with a
// light / dark / auto switch beside the language's. Headless Chromium against dist/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchShared, openUrl, settle } from './harness.mjs';

// a fresh browser per case (nothing remembered): a context of its own in one Chromium
let shared;
before(async () => { shared = await launchShared(); });
after(async () => { await shared?.close(); });
const browser = (options = {}) => shared.open(options);

const el = (page) => page.locator('attention-playground').first();
const attrs = (page) => page.evaluate(() => {
  const e = document.querySelector('attention-playground');
  return { lang: e.getAttribute('lang'), theme: e.getAttribute('theme') };
});
/** The element's panel background and the page's, as rgb() strings. */
const colours = (page) => page.evaluate(() => {
  const app = document.querySelector('attention-playground').shadowRoot.querySelector('.app');
  return { app: getComputedStyle(app).backgroundColor, body: getComputedStyle(document.body).backgroundColor };
});
/** Whether an rgb() colour is dark (its mean channel under 64). */
const dark = (rgb) => rgb.match(/\d+/g).slice(0, 3).map(Number).reduce((a, x) => a + x, 0) / 3 < 64;
const hashOf = (page) => page.evaluate(() => location.hash);
async function waitForHash(page, re) {
  await page.waitForFunction((src) => new RegExp(src).test(location.hash), re.source);
  return hashOf(page);
}

test('Chinese and dark go into the link, and reopening it keeps them', async () => {
  const { page, base, problems } = await browser();
  await openUrl(page, base + '#preset=softmax-toy');
  assert.deepEqual(await attrs(page), { lang: 'en', theme: 'auto' }, 'an English browser, light scheme: English, auto');
  assert.ok(!dark((await colours(page)).app), 'auto under a light scheme is light');
  await el(page).locator('[data-key="lang"]').click();
  await el(page).locator('[data-key="theme"]').selectOption('dark');
  await settle(page);
  const hash = await waitForHash(page, /&lang=zh&theme=dark$/);
  assert.equal(hash, '#preset=softmax-toy&lang=zh&theme=dark');
  const c = await colours(page);
  assert.ok(dark(c.app) && dark(c.body), `dark: ${JSON.stringify(c)}`);

  // a fresh browser (nothing remembered) opening the link: Chinese and dark
  const other = await browser();
  await openUrl(other.page, other.base + hash);
  assert.deepEqual(await attrs(other.page), { lang: 'zh', theme: 'dark' });
  assert.match(await el(other.page).locator('[data-panel="results"] h2').textContent(), /结果/);
  assert.ok(dark((await colours(other.page)).app));
  assert.equal(await el(other.page).locator('[data-key="theme"]').inputValue(), 'dark');
  // an edit keeps them in the link (#z= first)
  await el(other.page).locator('[data-key="k[0][0][0][0]"]').fill('2');
  assert.match(await waitForHash(other.page, /^#z=.*&lang=zh&theme=dark$/), /^#z=[\w-]+&lang=zh&theme=dark$/);
  // the first browser remembers the choice: a link without them opens in Chinese and dark
  await openUrl(page, base + '#preset=prob-toy');
  assert.deepEqual(await attrs(page), { lang: 'zh', theme: 'dark' });
  // the link wins over what is remembered
  await openUrl(page, base + '#preset=prob-toy&lang=en&theme=light');
  assert.deepEqual(await attrs(page), { lang: 'en', theme: 'light' });
  assert.ok(!dark((await colours(page)).body));
  // auto again: the link says nothing of the theme
  await el(page).locator('[data-key="theme"]').selectOption('auto');
  await el(page).locator('[data-key="lang"]').click();
  assert.equal(await waitForHash(page, /^#preset=prob-toy&lang=zh$/), '#preset=prob-toy&lang=zh');
  assert.deepEqual(problems, []);
  assert.deepEqual(other.problems, []);
});

test('a zh-CN browser opens in Chinese', async () => {
  const { page, base, problems } = await browser({ locale: 'zh-CN' });
  assert.match(await page.evaluate(() => navigator.languages.join()), /^zh/);
  await openUrl(page, base);
  assert.equal((await attrs(page)).lang, 'zh');
  assert.match(await el(page).locator('[data-panel="results"] h2').textContent(), /结果/);
  // the page's own header follows
  assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('.site p')].map((p) => [p.lang, p.checkVisibility()])),
    [['en', false], ['zh', true]]);
  // a link in English stays English
  await openUrl(page, base + '#preset=softmax-toy&lang=en');
  assert.equal((await attrs(page)).lang, 'en');
  assert.deepEqual(problems, []);
});

test('index.html is dark under a dark system scheme; the switch makes it light', async () => {
  const { page, base, problems } = await browser({ colorScheme: 'dark' });
  await openUrl(page, base + '#preset=softmax-toy');
  assert.equal((await attrs(page)).theme, 'auto');
  let c = await colours(page);
  assert.ok(dark(c.app) && dark(c.body), `dark: ${JSON.stringify(c)}`);
  assert.equal(await hashOf(page), '#preset=softmax-toy', 'auto is the default: not written');
  await el(page).locator('[data-key="theme"]').selectOption('light');
  c = await colours(page);
  assert.ok(!dark(c.app) && !dark(c.body), `light: ${JSON.stringify(c)}`);
  assert.equal(await waitForHash(page, /theme=light/), '#preset=softmax-toy&theme=light');
  // the switch is labelled in both languages
  assert.equal(await el(page).locator('[data-key="theme"]').getAttribute('aria-label'), 'Theme');
  assert.deepEqual(problems, []);
});

test('an embedded element has no theme switch and leaves storage alone', async () => {
  const { page, base, problems } = await browser({ locale: 'zh-CN' });
  await page.goto(base + 'embed.html?preset=softmax-toy');
  await page.waitForFunction(() => document.querySelector('attention-playground')?.trace != null);
  assert.equal(await el(page).locator('[data-key="theme"]').count(), 0);
  assert.equal((await attrs(page)).lang, null, 'the embed follows its URL, not the browser');
  assert.deepEqual(problems, []);
});
