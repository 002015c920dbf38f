// End-to-end tests of text that comes from outside the page: class names from an .npz and the
// parameters of a link (hosted file addresses, unknown keys). Each hostile string reaches the
// page as text: no dialog opens, no injected handler runs (it would set window.__pwned), the
// strings show literally or are refused with one sentence, the SVG export of the per-class
// panel parses as SVG without scripts, and the Content-Security-Policy reports no violation.
// Run: make test-e2e, or `node --test e2e/hostile.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  ROOT, TIMEOUT_MS, analysesShown, download, ready, shot, svgInspected, text, textNpy, useExplorer, zip,
} from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 3 };
const ATTACKS = [
  '<img src=x onerror="window.__pwned=1;alert(1)">',
  '</script><script>window.__pwned=2;alert(2)</script>',
  '"><svg onload="window.__pwned=3;alert(3)">',
];

// Records dialogs and policy violations before the page loads.
async function watch(opened) {
  opened.dialogs = [];
  opened.page.on('dialog', (d) => {
    opened.dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  await opened.page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective));
  });
}

// Nothing injected ran: no dialog, no flag, no policy violation.
async function inert(opened) {
  const { page } = opened;
  assert.deepEqual(opened.dialogs, []);
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
}

const digits = (names) => zip([
  ['scores.npy', readFileSync(join(ROOT, 'assets', 'digits_wbb_scores.npy'))],
  ['labels.npy', readFileSync(join(ROOT, 'assets', 'digits_wbb_labels.npy'))],
  ['class_names.npy', textNpy(names)],
]);

test('hostile class names show as text, in the page and in an SVG export', LONG, async (t) => {
  const opened = await explorer.open('?mode=scores&splits=1', { prepare: watch });
  const { page, errors } = opened;
  await shot(t, page, async () => {
    // Every class named by an attack, so that the worst classes listed are all hostile.
    const names = Array.from({ length: 10 }, (_, i) => `${ATTACKS[i % 3]} ${i}`);
    const before = await analysesShown(page);
    await page.locator('#file').setInputFiles({ name: 'hostile.npz', mimeType: 'application/octet-stream', buffer: digits(names) });
    await ready(page, before);
    const shown = await page.$$eval('#worst-classes button', (bs) => bs.map((b) => b.textContent));
    assert.ok(shown.length > 0);
    for (const line of shown) assert.ok(names.some((n) => line.includes(n)), line);
    assert.equal(await page.locator('#panel-classes img, #panel-classes script, #panel-classes svg').count(), 0);
    const svg = (await download(page, '#panel-classes button[data-export="svg"]')).bytes.toString('utf8');
    const parsed = await svgInspected(page, svg);
    assert.equal(parsed.error, null);
    assert.equal(parsed.scripts, 0);
    assert.deepEqual(parsed.handlers, []);
    assert.ok(parsed.texts.some((s) => names.some((n) => s.includes(n.slice(0, 12)))), parsed.texts.join(' | '));
    await inert(opened);
    assert.deepEqual(errors, []);
  });
});

test('a 10 kB name and a right-to-left override are refused with one sentence each', LONG, async (t) => {
  const opened = await explorer.open('?mode=scores&splits=1', { prepare: watch });
  const { page } = opened;
  await shot(t, page, async () => {
    const base = Array.from({ length: 10 }, (_, i) => `class ${i}`);
    for (const [bad, sentence] of [
      ['x'.repeat(10_000), /name 3 is longer than 200 characters/],
      ['abc\u202Egpj.exe', /name 3 holds a bidirectional control character \(U\+202E\)/],
    ]) {
      const names = base.map((n, i) => (i === 3 ? bad : n));
      await page.evaluate(() => (document.querySelector('#error').textContent = ''));
      await page.locator('#file').setInputFiles({ name: 'named.npz', mimeType: 'application/octet-stream', buffer: digits(names) });
      await page.waitForFunction(() => document.querySelector('#error').textContent.includes('class_names'), null, { timeout: TIMEOUT_MS });
      assert.match(await text(page, '#error'), sentence);
    }
    await inert(opened);
  });
});

test('hostile link parameters are quoted as text or refused', LONG, async (t) => {
  const params = new URLSearchParams({ mode: 'scores', src: ATTACKS[0], labels: ATTACKS[1] });
  params.append(ATTACKS[2], ATTACKS[1]);
  const opened = await explorer.open(`?${params}`, { prepare: watch });
  const { page } = opened;
  await shot(t, page, async () => {
    await page.waitForFunction(() => document.querySelector('#error')?.textContent.trim().length > 0, null, { timeout: TIMEOUT_MS });
    const notes = await page.evaluate(() => document.body.innerText);
    // The unknown key is quoted (shortened), the hosted file's address is fetched and missing.
    assert.ok(notes.includes(`unknown parameter '${ATTACKS[2].slice(0, 40)}`), notes);
    assert.match(await text(page, '#error'), /could not be fetched: HTTP 404/);
    assert.equal(await page.locator('body img[src="x"], body svg[onload]').count(), 0);
    await inert(opened);
  });
});
