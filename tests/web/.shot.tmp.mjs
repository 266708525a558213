import { launch, openUrl } from './harness.mjs';
const { page, base, close } = await launch();
const [, , preset = 'softmax-toy', w = '1366', h = '900', out = '/tmp/shot.png', extra = ''] = process.argv;
await page.setViewportSize({ width: +w, height: +h });
await openUrl(page, `${base}index.html#preset=${preset}${extra}`);
const y = await page.evaluate(() => {
  const el = document.querySelector('attention-playground');
  const r = el.shadowRoot.querySelectorAll('.heatmap, canvas, table.grid');
  return [...r].map((e) => [e.className || e.tagName, Math.round(e.getBoundingClientRect().y)]).slice(0, 12);
});
console.log(JSON.stringify(y));
await page.screenshot({ path: out, fullPage: process.env.FULL === '1' });
await close();
