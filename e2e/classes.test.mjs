// End-to-end tests of panel 9, coverage by class and by set size: on the digits sample with one
// split, each class's coverage in its CSV equals what the inspector's CSV of the split's sets
// says item by item (with the sample's labels; a different path through the page: every set built whole), the worst
// class listed is the one those sets make worst, and clicking it opens the inspector on a test
// item of that class. Then the α slider, the embed, class names from an .npz (as text), a bad
// class_names member (an error naming it, the results on screen kept) and the toy's sentence.
// Run: make test-e2e, or `node --test e2e/classes.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, TIMEOUT_MS, analysesShown, download, npzArray, ready, shot, slide, text, textNpy, useExplorer, zip } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 3 };
const DIGITS = '?mode=scores&sample=digits_wbb.npz&splits=1';
const METHODS = ['cp', 'cp-avg', 'cp-r'];

// CSV rows as arrays of cells (no quoted commas in the files read this way).
const rows = (bytes) => bytes.toString('utf8').trim().split('\n').slice(1).map((l) => l.split(','));

// The digits' labels, item by item.
const LABELS = npzArray(readFileSync(join(ROOT, 'assets', 'digits_wbb.npz')), 'labels.npy').values;

// Per class and method, [covered, count] from the sets CSV (method,item,candidate,score,position:
// a row per candidate in the set, one with an empty candidate for an empty set).
function fromSets(bytes) {
  const sets = {};
  for (const [method, item, candidate] of rows(bytes)) {
    const members = ((sets[method] ??= {})[item] ??= []);
    if (candidate !== '') members.push(Number(candidate));
  }
  const t = {};
  for (const [method, items] of Object.entries(sets)) {
    for (const [item, members] of Object.entries(items)) {
      const label = LABELS[Number(item)];
      const c = ((t[method] ??= {})[label] ??= [0, 0]);
      c[0] += members.includes(label) ? 1 : 0;
      c[1] += 1;
    }
  }
  return t;
}

test('on the digits, the per-class table equals the split\'s sets and the worst class opens the inspector', LONG, async (t) => {
  const { page, errors } = await explorer.open(DIGITS);
  await shot(t, page, async () => {
    await ready(page);
    const classes = rows((await download(page, '#panel-classes button[data-export="csv"]')).bytes);
    const sets = fromSets((await download(page, '#panel-inspector button[data-export="csv"]')).bytes);
    assert.equal(classes.length, 10);
    const lowest = [];
    for (const [k, , count, alpha, ...covs] of classes) {
      assert.equal(alpha, '0.1');
      METHODS.forEach((m, i) => {
        const [covered, n] = sets[m][k];
        assert.equal(Number(count), n, `class ${k}: count`);
        // The same division of the same integers: equal to the last bit.
        assert.equal(Number(covs[i]), covered / n, `class ${k} ${m}`);
      });
      lowest.push([Math.min(...covs.map(Number)), Number(k)]);
    }
    lowest.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const first = page.locator('#worst-classes button').first();
    assert.equal(Number(await first.getAttribute('data-class')), lowest[0][1]);
    assert.match(await first.textContent(), new RegExp(`^class ${lowest[0][1]} \\(\\d+ test items\\)`));
    await first.click();
    await page.waitForFunction((k) => document.querySelector('#item-info').textContent.includes(`true label #${k}`),
      lowest[0][1], { timeout: TIMEOUT_MS });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'item-index');
    // The set-size strata add up to the test items of each method.
    const strata = await page.$$eval('#strata-body tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    const items = classes.reduce((a, r) => a + Number(r[2]), 0);
    for (const col of [2, 4, 6]) {
      assert.equal(strata.reduce((a, r) => a + Number(r[col]), 0), items, `strata column ${col}`);
    }
    const svg = (await download(page, '#panel-classes button[data-export="svg"]')).bytes.toString('utf8');
    assert.ok((svg.match(/<rect/g) ?? []).length >= 30, 'a bar per class and method');
    assert.deepEqual(errors, []);
  });
});

test('the coverage control recalibrates per class, enters the link, and panel 9 still equals the sets', LONG, async (t) => {
  const { page, errors } = await explorer.open(DIGITS);
  await shot(t, page, async () => {
    await ready(page);
    const marginal = (await download(page, '#panel-classes button[data-export="csv"]')).bytes.toString('utf8');
    const before = await analysesShown(page);
    await page.locator('#coverage').selectOption('per-class');
    await ready(page, before);
    await page.waitForFunction(() => location.search.includes('coverage=per-class'));
    const perClass = (await download(page, '#panel-classes button[data-export="csv"]')).bytes;
    assert.notEqual(perClass.toString('utf8'), marginal, 'per-class thresholds change the coverages');
    const sets = fromSets((await download(page, '#panel-inspector button[data-export="csv"]')).bytes);
    for (const [k, , count, , ...covs] of rows(perClass)) {
      METHODS.forEach((m, i) => {
        const [covered, n] = sets[m][k];
        assert.equal(Number(count), n);
        assert.equal(Number(covs[i]), covered / n, `class ${k} ${m}`);
      });
    }
    // The link opens the same view.
    const again = await explorer.open(`${DIGITS}&coverage=per-class`);
    await ready(again.page);
    assert.equal(await again.page.locator('#coverage').inputValue(), 'per-class');
    const same = (await download(again.page, '#panel-classes button[data-export="csv"]')).bytes;
    assert.equal(same.toString('utf8'), perClass.toString('utf8'));
    assert.deepEqual(errors, []);
  });
});

test('panel 9 follows the α slider without a new analysis', LONG, async (t) => {
  const { page, errors } = await explorer.open(DIGITS);
  await shot(t, page, async () => {
    await ready(page);
    const shown = await analysesShown(page);
    assert.match(await text(page, '#classes-readout'), /below 1 − α = 0\.9 /);
    await slide(page, 'alpha', 40);
    await page.waitForFunction(() => document.querySelector('#classes-readout').textContent.includes('1 − α = 0.8 '));
    assert.equal(await analysesShown(page), shown);
    // An α move redraws the figure at the size its canvas has, drawn off the page and copied
    // (or, with the panel off screen, when it comes into view): the very pixels of a page
    // opened at that α, which sizes and draws it afresh.
    const moved = await pixels(page, '#plot-classes');
    const fresh = await explorer.open(`${DIGITS}&alpha=0.2`);
    await ready(fresh.page);
    assert.match(await text(fresh.page, '#classes-readout'), /1 − α = 0\.8 /);
    assert.ok(moved.length > 1000);
    assert.ok(moved === (await pixels(fresh.page, '#plot-classes')), 'panel 9 after an α move ≠ panel 9 drawn at that α');
    assert.deepEqual([...errors, ...fresh.errors], []);
  });
});

// A canvas' pixels as a PNG data URL, once it is in view and two frames have passed.
async function pixels(page, selector) {
  await page.locator(selector).scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return page.locator(selector).evaluate((c) => c.toDataURL('image/png'));
}

test('panel 9 embeds alone with its α slider', LONG, async (t) => {
  const { page, errors } = await explorer.open(`${DIGITS}&embed=classes`);
  await shot(t, page, async () => {
    await ready(page);
    assert.equal(await page.evaluate(() => document.body.dataset.embed), 'classes');
    assert.ok(await page.locator('#panel-classes').isVisible());
    assert.ok(await page.locator('#alpha').isVisible());
    assert.ok(!(await page.locator('#panel-summary').isVisible()));
    assert.ok((await page.locator('#worst-classes button').count()) > 0);
    assert.deepEqual(errors, []);
  });
});

test('the toy says in one sentence why its classes mean nothing', LONG, async (t) => {
  const { page, errors } = await explorer.open('');
  await shot(t, page, async () => {
    await ready(page);
    assert.ok(await page.locator('#classes-note').isVisible());
    assert.match(await text(page, '#classes-note'), /^In the toy every item's true label is candidate 0/);
    assert.equal(await page.locator('#worst-classes button').count(), 0);
    assert.deepEqual(errors, []);
  });
});

const digits = (names) => zip([
  ['scores.npy', readFileSync(join(ROOT, 'assets', 'digits_wbb_scores.npy'))],
  ['labels.npy', readFileSync(join(ROOT, 'assets', 'digits_wbb_labels.npy'))],
  ['class_names.npy', textNpy(names)],
]);

test('class names from an .npz label the worst classes as text; a bad member is refused by name', LONG, async (t) => {
  const { page, errors } = await explorer.open('?mode=scores&splits=1');
  await shot(t, page, async () => {
    const names = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', '<b>eight</b>', 'nine'];
    const before = await analysesShown(page);
    await page.locator('#file').setInputFiles({ name: 'named.npz', mimeType: 'application/octet-stream', buffer: digits(names) });
    await ready(page, before);
    const lines = await page.$$eval('#worst-classes button', (bs) => bs.map((b) => b.textContent));
    assert.ok(lines.some((l) => l.startsWith('class <b>eight</b> (')), lines.join(' | '));
    assert.equal(await page.locator('#worst-classes b').count(), 0, 'a name is never markup');
    const csv = (await download(page, '#panel-classes button[data-export="csv"]')).bytes.toString('utf8');
    assert.match(csv, /\n8,"<b>eight<\/b>",\d+,/);
    // Nine names for ten classes: refused, naming the member; the results stay.
    const shown = await analysesShown(page);
    await page.locator('#file').setInputFiles({ name: 'bad.npz', mimeType: 'application/octet-stream', buffer: digits(names.slice(1)) });
    await page.waitForFunction(() => document.querySelector('#error').textContent.includes('class_names'), null, { timeout: TIMEOUT_MS });
    assert.match(await text(page, '#error'), /9 names for K = 10 classes/);
    assert.equal(await analysesShown(page), shown);
    assert.equal(await page.locator('#worst-classes button').count(), lines.length);
    assert.deepEqual(errors, []);
  });
});
