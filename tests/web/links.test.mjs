// Short links: index.html writes `#z=<base64url of deflate-raw(JSON)>` for a modified scenario
// (CompressionStream), reads it back, still reads `#scenario=` and `#preset=`, refuses a bad or
// too large link with an error beside the scenario JSON, and the "Copy link" button copies the URL.
// Headless Chromium against dist/ served by scripts/serve.mjs (its CSP).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { load } from '../../wasm/attnplay.mjs';
import { launch, linkedScenario, openUrl, scenarioOf, settle, traceOf } from './harness.mjs';

let page, base, problems, close, wasm;

before(async () => {
  wasm = await load();
  ({ page, base, problems, close } = await launch({ ownBrowser: true }));
  // opening a link over 1 MB (BAD below) took Chromium 30 s, Playwright's default limit, on a loaded machine
  page.setDefaultNavigationTimeout(120000);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base.replace(/\/$/, '') });
});
after(async () => { await close?.(); });

const el = () => page.locator('attention-playground').first();
const input = (key) => el().locator(`[data-key="${key}"]`);
const b64url = (buf) => buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const zOf = (scenario) => '#z=' + b64url(zlib.deflateRawSync(Buffer.from(JSON.stringify(scenario))));
const hash = () => page.evaluate(() => location.hash);

/** The JSON the hash holds (any of the three forms; a preset's name as {preset}). */
function decodeHash(h) {
  const params = new URLSearchParams(h.slice(1));
  if (params.get('z')) return JSON.parse(zlib.inflateRawSync(Buffer.from(params.get('z'), 'base64url')).toString());
  if (params.get('scenario')) return JSON.parse(params.get('scenario'));
  return { preset: params.get('preset') };
}

/** Waits until the hash is a `#z=` link of `scenario`; returns the hash. */
const waitForZ = async (scenario) => (await linkedScenario(page, scenario)).hash;

async function noNaN() {
  const text = await el().evaluate((e) => e.shadowRoot.textContent);
  assert.doesNotMatch(text, /NaN/);
}

test('an edited scenario goes into the URL as #z=, and that URL reproduces it', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  assert.equal(await hash(), '#preset=softmax-toy');
  await input('k[0][0][0][0]').fill('2.5');
  await settle(page);
  const scenario = await scenarioOf(page);
  assert.equal(scenario.k[0][0][0][0], 2.5);
  const h = await waitForZ(scenario);
  const trace = await traceOf(page);
  assert.deepEqual(trace, wasm.run(scenario));
  // a fresh page from that URL: the same scenario, the same trace
  await openUrl(page, base + h);
  assert.deepEqual(await scenarioOf(page), scenario);
  assert.deepEqual(await traceOf(page), trace);
  assert.equal(await hash(), h);
  // and a #z= link set later (a pasted link) applies too
  const other = { ...scenario, k: [[[[1]], [[1]], [[1]]]] };
  await page.evaluate((z) => { location.hash = z; }, zOf(other));
  await page.waitForFunction(() => document.querySelector('attention-playground').scenario.k?.[0]?.[0]?.[0]?.[0] === 1);
  await settle(page);
  assert.deepEqual(await scenarioOf(page), other);
  assert.deepEqual(problems, []);
});

test('old links: #scenario= and #preset= still work', async () => {
  const scenario = { algorithm: 'full', q: [[[[1, 0]], [[0, 1]]]], k: [[[[1, 0]], [[0, 1]]]], v: [[[[1]], [[2]]]],
    mask: { kind: 'causal' } };
  await openUrl(page, base + '#scenario=' + encodeURIComponent(JSON.stringify(scenario)));
  assert.deepEqual(await scenarioOf(page), scenario);
  assert.deepEqual(await traceOf(page), wasm.run(scenario));
  await openUrl(page, base + '#preset=prob-toy');
  assert.equal(await input('preset').inputValue(), 'prob-toy');
  assert.equal((await scenarioOf(page)).algorithm, 'prob');
  assert.equal(await hash(), '#preset=prob-toy');
  assert.deepEqual(problems, []);
});

test('a burst of 20 edits ends with the hash of the last scenario', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  await page.evaluate(() => {
    const e = document.querySelector('attention-playground');
    const s = e.scenario;
    for (let i = 1; i <= 20; i++) {
      s.q[0][0][0][0] = i / 8;
      e.setScenario(s);
    }
  });
  await settle(page);
  const scenario = await scenarioOf(page);
  assert.equal(scenario.q[0][0][0][0], 20 / 8);
  await waitForZ(scenario);
  // nothing older comes after it
  await page.waitForTimeout(600);
  assert.deepEqual(decodeHash(await hash()), scenario);
  // and typed edits, one after the other without a pause
  const cell = input('q[0][0][0][0]');
  for (let i = 1; i <= 20; i++) await cell.fill(String(i));
  await settle(page);
  const typed = await scenarioOf(page);
  assert.equal(typed.q[0][0][0][0], 20);
  await waitForZ(typed);
  await page.waitForTimeout(600);
  assert.deepEqual(decodeHash(await hash()), typed);
});

const BAD = {
  'bad base64': ['#z=ab$cd', /#z= is not base64url/],
  'base64 of one char too many': ['#z=abcde', /#z= is not base64url/],
  'valid base64, not deflate': ['#z=' + b64url(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00, 0x12])), /#z= is not deflate-raw data/],
  'deflate of non-JSON': ['#z=' + b64url(zlib.deflateRawSync(Buffer.from('{"algorithm": "full", q: nope'))), /scenario: invalid JSON/],
  'deflate of JSON that is not an object': ['#z=' + b64url(zlib.deflateRawSync(Buffer.from('[1, 2]'))), /scenario: expected an object/],
  'a decompression bomb (50 MB of spaces)': ['#z=' + b64url(zlib.deflateRawSync(Buffer.alloc(50 << 20, 32), { level: 9 })), /inflates to more than 4 MB/],
  'a link over 1 MB': ['#z=' + 'A'.repeat((1 << 20) + 4), /longer than 1048576 characters/],
};

for (const [what, [h, message]] of Object.entries(BAD)) {
  test(`a bad #z= link (${what}): the error beside the scenario JSON, the preset meanwhile, still usable`, async () => {
    problems.length = 0;
    await openUrl(page, base + h);
    const slot = el().locator('[data-slot="json"]');
    await page.waitForFunction(() => !document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="json"]').hidden);
    assert.match(await slot.textContent(), message);
    assert.match(await slot.textContent(), /^scenario/);
    assert.equal(await slot.getAttribute('data-fields'), 'json');
    assert.equal(await el().locator('details[data-panel="json"]').evaluate((d) => d.open), true);
    // the preset attribute's scenario meanwhile, its trace shown; no NaN
    assert.equal(await input('preset').inputValue(), 'softmax-toy');
    const trace = await traceOf(page);
    assert.deepEqual(trace, wasm.run(await scenarioOf(page)));
    await noNaN();
    // and the page stays usable: an edit recomputes and is written as a link
    await input('k[0][0][0][0]').fill('3');
    await settle(page);
    const scenario = await scenarioOf(page);
    assert.deepEqual(await traceOf(page), wasm.run(scenario));
    await waitForZ(scenario);
    await noNaN();
    // the link's error goes with the edit
    assert.equal(await slot.isHidden(), true);
    assert.deepEqual(problems, []);
    assert.deepEqual(await page.evaluate(() => window.__csp), []);
  });
}

test('a bad link pasted later keeps the last good scenario', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  await input('k[0][0][0][0]').fill('4');
  await settle(page);
  const scenario = await scenarioOf(page);
  const trace = await traceOf(page);
  await page.evaluate((z) => { location.hash = z; }, BAD['valid base64, not deflate'][0]);
  await page.waitForFunction(() => !document.querySelector('attention-playground').shadowRoot.querySelector('[data-slot="json"]').hidden);
  assert.match(await el().locator('[data-slot="json"]').textContent(), /not deflate-raw/);
  assert.deepEqual(await scenarioOf(page), scenario);
  assert.deepEqual(await traceOf(page), trace);
  await noNaN();
});

test('"Copy link" puts the URL, with the current scenario, on the clipboard', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  await input('q[0][0][0][0]').fill('7');
  // at once, before the hash's own write is due: the button writes it first
  await input('copy-link').click();
  await page.waitForFunction(() => /copied/i.test(document.querySelector('attention-playground').shadowRoot.querySelector('[data-key="copy-link"]').textContent));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await page.evaluate(() => location.href));
  const scenario = await scenarioOf(page);
  assert.equal(scenario.q[0][0][0][0], 7);
  assert.deepEqual(decodeHash(new URL(copied).hash), scenario);
  // an embedded element (no sync-hash) has no such button
  await page.evaluate(() => {
    const e = document.createElement('attention-playground');
    e.id = 'second';
    document.body.append(e);
  });
  await page.waitForFunction(() => document.getElementById('second').trace != null);
  assert.equal(await page.locator('#second [data-key="copy-link"]').count(), 0);
  assert.deepEqual(problems, []);
});

test('a scenario of more than 8,192 numbers is kept out of the address bar (its hash is empty), and "Copy link" still copies its whole link', async () => {
  await openUrl(page, base + '#preset=softmax-toy');
  const big = { algorithm: 'full', trace: 'context', q: [Array.from({ length: 300 }, (_, i) => [Array.from({ length: 10 }, (_, e) => ((i * 10 + e) % 17) / 8)])] };
  big.k = big.q;
  big.v = big.q;
  await page.evaluate((s) => document.querySelector('attention-playground').setScenario(s), big);
  await settle(page);
  // the pause passes (the write is due after 300 ms): no #z= of 9,000 numbers
  await page.waitForFunction(() => location.hash === '', null, { timeout: 30000 });
  await page.waitForTimeout(700);
  assert.equal(await hash(), '');
  const scenario = await scenarioOf(page);
  assert.equal(scenario.q[0].length, 300);
  await page.evaluate(() => navigator.clipboard.writeText(''));
  await input('copy-link').click();
  await page.waitForFunction(() => /copied/i.test(document.querySelector('attention-playground').shadowRoot.querySelector('[data-key="copy-link"]').textContent));
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(new URL(copied).hash, /^#z=/);
  assert.deepEqual(decodeHash(new URL(copied).hash), scenario);
  assert.equal(await hash(), '', 'the address bar still has no hash');
  // and the copied link opens to the same scenario and trace
  const trace = await traceOf(page);
  await openUrl(page, copied);
  assert.deepEqual(await scenarioOf(page), scenario);
  assert.deepEqual(await traceOf(page), trace);
  // a small edit after it is written again
  await openUrl(page, base + '#preset=softmax-toy');
  await input('q[0][0][0][0]').fill('3');
  await settle(page);
  await waitForZ(await scenarioOf(page));
  assert.deepEqual(problems, []);
});
