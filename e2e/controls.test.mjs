// End-to-end tests of the page's keys and slider controls as a lecturer uses them: a focused
// slider takes its own keys in the tour, PageUp/PageDown move a slider in big steps.
// Run: `node --test e2e/controls.test.mjs` after `trunk build --release`. Every test saves a
// screenshot to test-output/e2e/.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TIMEOUT_MS, analysesShown, ready, shot, text, useExplorer } from './helpers.mjs';

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
    assert.equal(await text(page, '#sigma2-value'), '100');
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

test('PageUp and PageDown move a slider in big round steps: σ² by decades, α by 0.05', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    assert.equal(await text(page, '#sigma2-value'), '1000');
    await page.focus('#sigma2');
    await page.keyboard.press('PageDown');
    assert.equal(await text(page, '#sigma2-value'), '100');
    const before = await analysesShown(page);
    await page.keyboard.press('PageDown');
    assert.equal(await text(page, '#sigma2-value'), '10');
    // The page re-analyses and the link keeps the value, as after a slide.
    await ready(page, before);
    await page.waitForFunction(() => location.search === '?sigma2=10');
    await page.keyboard.press('PageUp');
    assert.equal(await text(page, '#sigma2-value'), '100');
    await page.focus('#alpha');
    await page.keyboard.press('PageDown');
    assert.equal(await text(page, '#alpha-value'), '0.05');
    await page.keyboard.press('PageDown');
    assert.equal(await text(page, '#alpha-value'), '0.005', 'the end stops it');
    await page.keyboard.press('PageUp');
    assert.equal(await text(page, '#alpha-value'), '0.055');
    // β by about a doubling, to the round 0.2; the arrows keep their single positions.
    await page.focus('#beta');
    await page.keyboard.press('PageUp');
    assert.equal(await text(page, '#beta-value'), '0.2');
    await page.keyboard.press('ArrowLeft');
    assert.ok(Number(await text(page, '#beta-value')) < 0.2);
    assert.deepEqual(errors, []);
  });
});

test('"Whole curve" enters the link, and the link restores it', LONG, async (t) => {
  const { page, errors } = await explorer.open('?sigma2=10');
  await shot(t, page, async () => {
    await ready(page);
    const zoomed = await page.locator('#plot-threshold').evaluate((c) => c.toDataURL());
    await page.locator('#whole-curve').check();
    await page.waitForFunction(() => location.search === '?sigma2=10&whole-curve=1');
    const whole = await page.locator('#plot-threshold').evaluate((c) => c.toDataURL());
    assert.notEqual(whole, zoomed);
    // A reload opens the same view: the box checked, the same drawing.
    await page.reload();
    await ready(page);
    assert.ok(await page.locator('#whole-curve').isChecked());
    await page.waitForFunction((w) => document.querySelector('#plot-threshold').toDataURL() === w, whole);
    assert.doesNotMatch(await text(page, '#threshold-note'), /Zoomed/);
    await page.locator('#whole-curve').uncheck();
    await page.waitForFunction(() => location.search === '?sigma2=10');
    await page.waitForFunction((z) => document.querySelector('#plot-threshold').toDataURL() === z, zoomed);
    assert.deepEqual(errors, []);
  });
});

test("the tour's Next and Back are within three Tab stops of the page's top and of the card", LONG, async (t) => {
  const { page, errors } = await explorer.open('?tour=4');
  await shot(t, page, async () => {
    await page.locator('#tour').waitFor({ state: 'visible' });
    // From the top: the first stop is the link to the card's buttons, on screen once focused.
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'tour-skip');
    assert.ok(await page.evaluate(() => {
      const r = document.getElementById('tour-skip').getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight && r.width > 0;
    }), 'the focused link is on screen');
    await page.keyboard.press('Enter');
    assert.equal(await focused(page), 'tour-next');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await focused(page), 'tour-back');
    await page.keyboard.press('Enter');
    assert.equal(await step(page), 3);
    assert.equal(await page.evaluate(() => location.hash), '', 'no fragment in the link');
    // From the card's title, where the tour puts the focus.
    await page.focus('#tour-title');
    const stops = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      stops.push(await focused(page));
    }
    assert.ok(stops.includes('tour-back') && stops.includes('tour-next'), stops.join(', '));
    // At the last step the link goes to Back; out of the tour it is gone.
    const last = await explorer.open('?tour=10');
    await last.page.locator('#tour').waitFor({ state: 'visible' });
    await last.page.keyboard.press('Tab');
    await last.page.keyboard.press('Enter');
    assert.equal(await focused(last.page), 'tour-back');
    await last.page.click('#tour-leave');
    await last.page.locator('#tour').waitFor({ state: 'hidden' });
    assert.ok(await last.page.locator('#tour-skip').isHidden());
    const plain = await explorer.open();
    await ready(plain.page);
    await plain.page.keyboard.press('Tab');
    assert.equal(await focused(plain.page), 'tour-start');
    assert.deepEqual([...errors, ...last.errors, ...plain.errors], []);
  });
});

test('β comes back to exactly 0.1 and reaches 0.25 and 0.5; α to 0.05 and 0.1', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    await page.focus('#beta');
    await page.keyboard.press('ArrowRight');
    assert.notEqual(await text(page, '#beta-value'), '0.1');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await text(page, '#beta-value'), '0.1');
    await page.waitForFunction(() => location.search === '');
    const reached = [];
    for (let i = 0; i < 200 && reached.length < 2; i++) {
      await page.keyboard.press('ArrowRight');
      const v = await text(page, '#beta-value');
      if (v === '0.25' || v === '0.5') reached.push(v);
    }
    assert.deepEqual(reached, ['0.25', '0.5']);
    await page.waitForFunction(() => location.search === '?beta=0.5');
    // A link's round β opens at its own position, which reads it back.
    const link = await explorer.open('?beta=0.25&alpha=0.05');
    await ready(link.page);
    assert.equal(await text(link.page, '#beta-value'), '0.25');
    assert.equal(await text(link.page, '#alpha-value'), '0.05');
    await link.page.focus('#alpha');
    await link.page.keyboard.press('PageUp');
    assert.equal(await text(link.page, '#alpha-value'), '0.1');
    await link.page.waitForFunction(() => location.search === '?beta=0.25');
    assert.deepEqual([...errors, ...link.errors], []);
  });
});
