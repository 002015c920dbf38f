// End-to-end tests of the page trunk built into dist/ (make test-e2e builds it first).
// Run: make test-e2e, or `node --test e2e/*.test.mjs` after `trunk build`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TIMEOUT_MS, isLocal, screenshot, useExplorer } from './helpers.mjs';

const explorer = useExplorer();

test('placeholder page loads and runs the wasm core', { timeout: TIMEOUT_MS * 2 }, async (t) => {
  const { page, errors, requests, response } = await explorer.open();
  assert.equal(response.status(), 200);

  // The wasm main writes the heading and #core-check (src/bin/explorer.rs); wait until it has
  // run, so errors thrown while it loads are in `errors` before we look.
  // The screenshot is taken even when the wait times out: it shows what the page did instead.
  try {
    await page.locator('#core-check').waitFor();
  } finally {
    await screenshot(page, t.name);
  }

  assert.deepEqual(errors, [], 'console errors or page errors while loading');
  assert.equal(await page.locator('h1').textContent(), 'rvalue-explorer');
  // ScoreTensor [1, 2, 3, 4] has mean 2.5 (src/bin/explorer.rs).
  assert.equal(await page.locator('#core-check').textContent(), 'core check: mean of [1, 2, 3, 4] = 2.5');

  // Privacy: data never leaves the machine, so the page may only talk to our server.
  assert.ok(requests.length > 0, 'no requests recorded');
  assert.deepEqual(requests.filter((u) => !isLocal(u)), [], 'requests that left 127.0.0.1');
  t.diagnostic(`requests: ${requests.map((u) => new URL(u).pathname).join(' ')}`);
});
