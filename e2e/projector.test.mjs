// End-to-end test of the tour on a projector: at 1280×720, in normal and in large text, every
// step shows its card, the panel its text is about (its figure and readout), the control it asks
// for and, once the reader has done that with the keyboard, the confirmation, all whole in the
// window without scrolling. Run: `node --test e2e/projector.test.mjs` after
// `trunk build --release`. The test saves a screenshot per text size to test-output/e2e/.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TIMEOUT_MS, ready, settled, shot, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 16 };
const VIEWPORT = { width: 1280, height: 720 };

// Per step: the key panel's figure (panel 6's is its table, panel 7's its columns) and readout,
// the control the step asks for, and the keys that do what it proposes on that control. The
// key panel is the one the step's text is about: step 7's is panel 6.
const STEPS = [
  { figure: '#plot-coverage', readout: '#coverage-readout', control: ['#alpha', '#alpha-value'], keys: ['PageUp', 'PageUp'] },
  { figure: '#inspector', readout: '#item-info', control: ['#cp-draw'], keys: ['ArrowUp'] },
  { figure: '#plot-scores', readout: '#pqp-note', control: ['#sigma2', '#sigma2-value'], keys: ['PageDown', 'PageDown'] },
  { figure: '#plot-size', readout: '#size-readout', control: ['#sigma2', '#sigma2-value'], keys: ['End'] },
  { figure: '#plot-threshold', readout: '#threshold-note', control: ['#beta', '#beta-value'], keys: ['PageUp', 'PageUp'] },
  { figure: '#plot-theorem3', readout: '#theorem3-readout', control: ['#sigma2', '#sigma2-value'], keys: ['PageUp', 'PageUp'] },
  { figure: '#summary-table', readout: '#reduction', control: ['#alpha', '#alpha-value'], keys: ['PageDown'] },
  { figure: '#summary-table', readout: '#reduction', control: ['#ties'], keys: ['ArrowDown'] },
  { figure: '#plot-variance', readout: '#data-stats', control: ['button[data-file="digits_wbb.npz"]'], keys: ['Enter'] },
  { figure: '#plot-classes', readout: '#classes-readout', control: ['#coverage'], keys: ['ArrowDown'] },
];

// Each selector's box, and whether it lies whole in the window and in every box that clips it
// (the sidebar scrolls on its own), on top at its centre.
function boxes(page, selectors) {
  return page.evaluate((selectors) => selectors.map((sel) => {
    const e = document.querySelector(sel);
    if (!e) return { sel, missing: true };
    const r = e.getBoundingClientRect();
    const box = [r.left, r.top, r.right, r.bottom].map(Math.round);
    const inside = (o) => r.width > 0 && r.height > 0 && r.left >= o.left - 0.5 && r.top >= o.top - 0.5
      && r.right <= o.right + 0.5 && r.bottom <= o.bottom + 0.5;
    let whole = inside({ left: 0, top: 0, right: innerWidth, bottom: innerHeight });
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowY !== 'visible') whole &&= inside(a.getBoundingClientRect());
    }
    const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    return { sel, box, whole: whole && (e === hit || e.contains(hit)) };
  }), selectors);
}

async function assertInView(page, selectors, where) {
  const found = await boxes(page, selectors);
  const out = found.filter((b) => !b.whole);
  assert.deepEqual(out, [], `${where}: not whole in the 1280×720 window: ${JSON.stringify(out)}`);
  assert.equal(await page.evaluate(() => window.scrollY), 0, `${where}: the page did not scroll`);
  return found;
}

// Walks the tour from step 1 with Next, doing each step's "try this" with the keyboard.
async function walk(page, large) {
  await page.click('#tour-start');
  for (let n = 1; n <= STEPS.length; n++) {
    const { figure, readout, control, keys } = STEPS[n - 1];
    const where = `step ${n}, ${large ? 'large' : 'normal'} text`;
    await page.waitForFunction((n) => document.querySelector('#tour').dataset.step === String(n), n);
    if (n === 9) await settled(page, 'note');
    else await ready(page);
    // Step 9 waits for a file: its panel 8 is empty, and hidden, until one is loaded.
    const panel = n === 9 ? [] : [figure, readout];
    await assertInView(page, ['#tour', ...panel, ...control], `${where}, on arrival`);
    await page.focus(control[0]);
    for (const k of keys) await page.keyboard.press(k);
    await page.locator('#tour-done').waitFor({ state: 'visible' });
    if (n === 10) await page.waitForFunction(() => document.querySelector('#tour').dataset.outcome === '1');
    await ready(page);
    await assertInView(page, ['#tour', '#tour-done', figure, readout, ...control], `${where}, after the keys`);
    if (n < STEPS.length) await page.click('#tour-next');
  }
}

for (const large of [false, true]) {
  test(`at 1280×720 with ${large ? 'large' : 'normal'} text every step shows its card, key panel, control and confirmation`, LONG, async (t) => {
    const { page, errors } = await explorer.open(large ? '?text=large' : '', {
      prepare: ({ page }) => page.setViewportSize(VIEWPORT),
    });
    await shot(t, page, async () => {
      await ready(page);
      await walk(page, large);
      assert.deepEqual(errors, []);
    });
  });
}
