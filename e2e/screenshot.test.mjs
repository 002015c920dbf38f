// README's screenshot of the explorer is made here: the page at its defaults, once the analysis is
// on show, at the viewport every test uses. `RVALUE_UPDATE_SCREENSHOT=1` writes it to
// assets/explorer.png (to be committed); otherwise it goes under test-output/ and the checked-in
// one must have its size, so that README shows what this test makes.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, SCREENSHOTS, TIMEOUT_MS, ready, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const CHECKED_IN = join(ROOT, 'assets', 'explorer.png');

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
