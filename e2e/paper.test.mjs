// End-to-end tests of panel 6's box "The paper and this page": the paper's Table 1 quoted as
// published (six CLIP data sets, coverage and set size per method), one line per setting that
// differs here, and the one-click switch to the paper's per-item prior, whose filled sets the box
// explains: checked against the set sizes panel 6 then shows.
// Run: make test-e2e, or `node --test e2e/paper.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TIMEOUT_MS, analysesShown, ready, shot, text, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };

// Panel 6's set size of `method` ('CP', 'CPavg', 'CPr', as its row header reads).
const size = (page, method) =>
  page.evaluate((method) => {
    const tr = [...document.querySelectorAll('#summary-table tbody tr')].find((r) => r.querySelector('th').textContent.trim() === method);
    return parseFloat(tr.querySelectorAll('td')[1].textContent);
  }, method);

const addressIs = (page, q) => page.waitForFunction((q) => location.search === q, q);

test("panel 6 is named for what it is and quotes the paper's Table 1", LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    assert.match(await text(page, '#panel-summary h2'), /^6\. Summary at the current α, in the form of the paper's Table 1$/);
    assert.match(await text(page, '#panel-summary figcaption'), /mean ± sd over the splits/);
    const names = await page.locator('#paper-table tbody th').allTextContents();
    assert.deepEqual(names, ['CIFAR-10', 'CIFAR-100', 'ImageNet', 'ImageNet-A', 'ImageNet-R', 'EuroSAT']);
    const cells = await page.locator('#paper-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td').length));
    assert.deepEqual(cells, [6, 6, 6, 6, 6, 6]);
    assert.match(await text(page, '#paper-table caption'), /Table 1/);
    // The published rows sit in a closed disclosure: one click opens them.
    assert.ok(await page.locator('#paper-table').isHidden());
    await page.click('#paper-box summary');
    assert.ok(await page.locator('#paper-table').isVisible());
    const differs = await page.locator('#paper-box ul.differs li').allTextContents();
    assert.equal(differs.length, 3);
    assert.match(differs.join(' '), /pools it over the items.*≤ q̂.*exchangeable/);
    assert.deepEqual(errors, []);
  });
});

test('one click switches to the per-item prior, whose sets fill up, and back', LONG, async (t) => {
  const { page, errors } = await explorer.open('?kind=pooled');
  await shot(t, page, async () => {
    await ready(page);
    assert.equal(await page.getAttribute('#per-item-prior', 'aria-pressed'), 'false');
    let before = await analysesShown(page);
    await page.click('#per-item-prior');
    // The paper's prior belongs to parametric r-values: the switch sets both.
    assert.equal(await page.locator('#kind').inputValue(), 'parametric');
    assert.equal(await page.locator('#prior').inputValue(), 'per-item');
    await addressIs(page, '?prior=per-item');
    await ready(page, before);
    assert.equal(await page.getAttribute('#per-item-prior', 'aria-pressed'), 'true');
    // "its sets fill up": CP_r's sets hold nearly every candidate, more than CP's.
    const [cp, r] = [await size(page, 'CP'), await size(page, 'CPr')];
    assert.ok(r > cp && r > 9, `per-item prior: CP_r ${r}, CP ${cp}`);
    before = await analysesShown(page);
    await page.click('#per-item-prior');
    assert.equal(await page.locator('#prior').inputValue(), 'pooled');
    await addressIs(page, '');
    await ready(page, before);
    assert.equal(await page.getAttribute('#per-item-prior', 'aria-pressed'), 'false');
    const pooled = await size(page, 'CPr');
    assert.ok(pooled < (await size(page, 'CPavg')), `pooled prior: CP_r ${pooled}`);
    assert.deepEqual(errors, []);
  });
});
