// README's screenshots are made here: the page at its defaults, at the viewport every test uses,
// and the tour's sixth step as a projector shows it (1280×720, large text), each once its
// analysis is on show. `RVALUE_UPDATE_SCREENSHOT=1`
// writes them to assets/explorer.png and assets/tour.png (to be committed); otherwise they go
// under test-output/ and the checked-in ones must have their sizes, so that README shows what
// this test makes.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, SCREENSHOTS, TIMEOUT_MS, ready, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const CHECKED_IN = join(ROOT, 'assets', 'explorer.png');
const TOUR = join(ROOT, 'assets', 'tour.png');

// Width and height from a PNG's IHDR chunk.
function pngSize(bytes) {
  assert.equal(bytes.subarray(1, 4).toString(), 'PNG', 'a PNG file');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test("README's screenshot is the page at its defaults", { timeout: TIMEOUT_MS * 3 }, async () => {
  const { page, errors } = await explorer.open();
  await ready(page);
  await page.evaluate(() => document.fonts.ready);
  const update = process.env.RVALUE_UPDATE_SCREENSHOT === '1';
  const path = update ? CHECKED_IN : join(SCREENSHOTS, 'readme-explorer.png');
  const made = pngSize(await page.screenshot({ path }));
  assert.deepEqual(pngSize(readFileSync(CHECKED_IN)), made, 'assets/explorer.png has the size this test makes');
  assert.deepEqual(errors, []);
});

test("README's tour screenshot is the tour's sixth step on a projector", { timeout: TIMEOUT_MS * 3 }, async () => {
  const { page, errors } = await explorer.open('?tour=6&text=large', {
    prepare: ({ page }) => page.setViewportSize({ width: 1280, height: 720 }),
  });
  await ready(page);
  await page.evaluate(() => document.fonts.ready);
  await page.evaluate(() => window.scrollTo(0, 0));
  const update = process.env.RVALUE_UPDATE_SCREENSHOT === '1';
  const path = update ? TOUR : join(SCREENSHOTS, 'readme-tour.png');
  const made = pngSize(await page.screenshot({ path }));
  assert.deepEqual(pngSize(readFileSync(TOUR)), made, 'assets/tour.png has the size this test makes');
  assert.deepEqual(errors, []);
});
