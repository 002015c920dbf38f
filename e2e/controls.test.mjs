// End-to-end tests of the page's keys and slider controls as a lecturer uses them: a focused
// slider takes its own keys in the tour.
// Run: `node --test e2e/controls.test.mjs` after `trunk build --release`. Every test saves a
// screenshot to test-output/e2e/.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TIMEOUT_MS, ready, shot, text, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };

const step = (page) => page.evaluate(() => Number(document.querySelector('#tour').dataset.step));
const focused = (page) => page.evaluate(() => document.activeElement.id);

test('in the tour, a focused slider or button keeps its keys; a clicker still steps', LONG, async (t) => {
  const { page, errors } = await explorer.open('?tour=6');
  await shot(t, page, async () => {
    await page.locator('#tour').waitFor({ state: 'visible' });
    await ready(page);
    assert.equal(await step(page), 6);
    assert.equal(await text(page, '#sigma2-value'), '10');
    // PageUp on σ² moves σ², not the tour.
    await page.focus('#sigma2');
    await page.keyboard.press('PageUp');
    assert.equal(await step(page), 6);
    assert.notEqual(await text(page, '#sigma2-value'), '10');
    await page.keyboard.press('PageDown');
    assert.equal(await text(page, '#sigma2-value'), '10');
    assert.equal(await step(page), 6);
    // An arrow on the inspector's Next button is the button's, not the tour's.
    await page.focus('#item-next');
    await page.keyboard.press('ArrowRight');
    assert.equal(await step(page), 6);
    // A select keeps PageDown too.
    await page.focus('#ties');
    await page.keyboard.press('PageDown');
    assert.equal(await step(page), 6);
    // A button just clicked has no use for PageDown: a clicker steps from it.
    await page.click('#item-next');
    assert.equal(await focused(page), 'item-next');
    await page.keyboard.press('PageDown');
    assert.equal(await step(page), 7);
    // Escape leaves from a slider too.
    await page.focus('#alpha');
    await page.keyboard.press('Escape');
    await page.locator('#tour').waitFor({ state: 'hidden' });
    assert.deepEqual(errors, []);
  });
});
