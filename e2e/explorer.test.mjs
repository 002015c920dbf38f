// End-to-end tests of the explorer page that trunk built into dist/ (make test-e2e builds it).
// Run: make test-e2e, or `node --test e2e/*.test.mjs` after `trunk build --release`.
// Every test saves a screenshot to test-output/e2e/, also when it fails.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Phi, ROOT, TIMEOUT_MS, isLocal, ready, screenshot, settled, shot, text, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
// The default toy analysis (50 repeats) takes several seconds of wasm on this machine.
const LONG = { timeout: TIMEOUT_MS * 3 };

// Waits until the page shows a finished analysis (not the partial one of a running job).

// A canvas' pixels, to see that a figure was redrawn differently.
const pixels = (page, id) => page.evaluate((id) => document.getElementById(id).toDataURL(), id);

test('the page loads, computes the toy defaults and asks nothing of the network', LONG, async (t) => {
  const { page, errors, requests, response } = await explorer.open();
  assert.equal(response.status(), 200);
  await shot(t, page, async () => {
    await ready(page);
    assert.deepEqual(errors, [], 'console errors or page errors while loading');
    assert.equal(await text(page, 'h1'), 'rvalue-explorer');
    // An icon of its own, inline: no request for /favicon.ico (a 404 on a static server).
    assert.match(await page.locator('link[rel=icon]').getAttribute('href'), /^data:image\/svg\+xml,/);
    // docs/method.md §6 at the defaults: P(q > p) = Φ(−1/√1001) = 48.74 %.
    assert.equal(await text(page, '#pqp'), '48.74 %');
    assert.match(await text(page, '#pqp-note'), /48\.47/);
    // Three methods in the table, and the reduction line.
    assert.equal(await page.locator('#summary-table tbody tr').count(), 3);
    // The label position counts from 0 (the paper's average index), the inspector from 1: the
    // header and the narrow layout's cell labels say so.
    assert.equal(await text(page, '#summary-table thead th:nth-child(4)'), 'Label position (from 0)');
    assert.equal(
      await page.locator('#summary-table tbody td').nth(2).getAttribute('data-label'),
      'Label position (from 0)',
    );
    assert.match(await text(page, '#reduction'), /CP_r's sets are smaller by \d/);
    // The inspector shows the three rankings with the true label marked in each.
    assert.equal(await page.locator('#inspector .ranking').count(), 3);
    assert.equal(await page.locator('#inspector li.true').count(), 3);
    assert.match(await text(page, '#status'), /^Showing toy, 50 repeats/);
    // MathML formulas are in the page (no network, no CDN).
    assert.ok((await page.locator('#formulas math').count()) >= 4);
  });
  assert.ok(requests.length > 0, 'no requests recorded');
  assert.deepEqual(requests.filter((u) => !isLocal(u)), [], 'requests that left 127.0.0.1');
  assert.deepEqual(requests.filter((u) => u.endsWith('/favicon.ico')), [], 'the page has its own icon');
});

// Where a canvas is drawn: the count of pixels that are not blank (transparent or white), and
// the median x of those in the upper half (for an α overlay: its dashed line's column).
const ink = (page, id) =>
  page.evaluate((id) => {
    const c = document.getElementById(id);
    const { data, width, height } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    let count = 0;
    const xs = [];
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = 4 * (y * width + x);
        const blank = data[i + 3] === 0 || (data[i] > 250 && data[i + 1] > 250 && data[i + 2] > 250);
        if (blank) continue;
        count++;
        if (y < height / 2) xs.push(x);
      }
    }
    xs.sort((a, b) => a - b);
    return { count, x: xs.length ? xs[xs.length >> 1] : null, width, height };
  }, id);

test('moving α changes the coverage and size numbers and the α markers', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    const before = {
      coverage: await text(page, '#coverage-readout'),
      size: await text(page, '#size-readout'),
      table: await text(page, '#summary-table tbody'),
      plot: await pixels(page, 'plot-coverage'),
      sizePlot: await pixels(page, 'plot-size'),
      marker: await ink(page, 'plot-coverage-alpha'),
      sizeMarker: await ink(page, 'plot-size-alpha'),
      theorem3: await pixels(page, 'plot-theorem3'),
      theorem3Front: await pixels(page, 'plot-theorem3-alpha'),
    };
    assert.match(before.coverage, /^α = 0\.1: CP 0\.\d{3}, CP_avg 0\.\d{3}, CP_r 0\.\d{3}$/);
    // 0.05 is position 10 of the slider (α = 0.005 · position).
    await page.locator('#alpha').fill('10');
    await page.waitForFunction(() => document.querySelector('#coverage-readout').textContent.startsWith('α = 0.05'));
    assert.equal(await text(page, '#alpha-value'), '0.05');
    assert.notEqual(await text(page, '#coverage-readout'), before.coverage);
    assert.notEqual(await text(page, '#size-readout'), before.size);
    assert.notEqual(await text(page, '#summary-table tbody'), before.table);
    // The α markers sit on overlays stacked over the figures: they moved left (α went down),
    // and the figures under them are drawn and were not drawn again.
    for (const [id, old] of [['plot-coverage-alpha', before.marker], ['plot-size-alpha', before.sizeMarker]]) {
      assert.equal(await page.locator(`#${id}`).getAttribute('data-alpha'), '0.05');
      const now = await ink(page, id);
      assert.ok(now.count > 0 && old.count > 0, `${id}: no marker drawn`);
      assert.ok(now.x < old.x, `${id}: the marker did not move left (${old.x} → ${now.x})`);
      const base = await ink(page, id.replace('-alpha', ''));
      assert.deepEqual([now.width, now.height], [base.width, base.height], `${id}: not the figure's size`);
      assert.ok(base.count > 0.02 * base.width * base.height, `${id}: the figure underneath is blank`);
    }
    assert.equal(await pixels(page, 'plot-coverage'), before.plot, 'the coverage figure was redrawn');
    assert.equal(await pixels(page, 'plot-size'), before.sizePlot, 'the size figure was redrawn');
    // Panel 5: the inclusion curves (CP's cut and CP_r's r̂ depend on α) are on its overlay,
    // the rest stays.
    assert.equal(await page.locator('#plot-theorem3-alpha').getAttribute('data-alpha'), '0.05');
    assert.notEqual(await pixels(page, 'plot-theorem3-alpha'), before.theorem3Front, 'CP curve did not move');
    assert.equal(await pixels(page, 'plot-theorem3'), before.theorem3, 'panel 5 figure was redrawn');
    assert.match(await text(page, '#theorem3-note'), /^α = 0\.05, /);
    assert.equal(
      (await text(page, '#cut-calibrated')).match(/r̂ = ([\d.]+)/)[1],
      await text(page, '#inspector .ranking:nth-child(3) .q'),
      'panel 5 draws at the r̂ panel 7 shows',
    );
    // The overlay covers its figure exactly.
    const boxes = await page.evaluate(() =>
      ['plot-coverage', 'plot-coverage-alpha'].map((id) => {
        const r = document.getElementById(id).getBoundingClientRect();
        return [r.x, r.y, r.width, r.height].map(Math.round);
      }),
    );
    assert.deepEqual(boxes[1], boxes[0]);
    // Lower α, larger sets: every method's mean size grows.
    const sizes = (s) => [...s.matchAll(/(CP\S*) (\d+\.\d+)/g)].map((m) => Number(m[2]));
    const [a, b] = [sizes(before.size), sizes(await text(page, '#size-readout'))];
    assert.equal(a.length, 3);
    b.forEach((v, i) => assert.ok(v >= a[i], `size ${i}: ${v} < ${a[i]}`));
    await page.locator('#cut').selectOption('beta');
    await page.waitForFunction(() => document.querySelector('#theorem3-note').textContent.includes('CP_r at β = '));
    const atBeta = await pixels(page, 'plot-theorem3');
    await page.locator('#alpha').fill('20');
    await page.waitForFunction(() => document.querySelector('#theorem3-note').textContent.startsWith('α = 0.1,'));
    assert.equal(await pixels(page, 'plot-theorem3'), atBeta, 'panel 5 figure was redrawn at β');
    // α moves recompute nothing: no job ran.
    assert.ok(await page.locator('#cancel').isDisabled());
    assert.deepEqual(errors, []);
  });
});

test('moving σ² sets P(q > p) to the closed form', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await page.locator('#pqp').filter({ hasText: '%' }).waitFor();
    const slider = page.locator('#sigma2');
    for (const position of ['0', '41', '81', '121', '189']) {
      await slider.fill(position);
      const sigma2 = Number(await text(page, '#sigma2-value'));
      // Toy defaults: μp = 1, σp² = 1, μq = 0.
      const expected = `${(100 * Phi((0 - 1) / Math.sqrt(1 + sigma2))).toFixed(2)} %`;
      await page.waitForFunction((e) => document.querySelector('#pqp').textContent === e, expected, { timeout: 5000 }).catch(async (e) => { throw new Error(`σ² = ${sigma2}: expected ${expected}, page shows ${await text(page, '#pqp')}`); });
    }
    assert.equal(await text(page, '#sigma2-value'), '5000');
    assert.equal(await text(page, '#pqp'), `${(100 * Phi(-1 / Math.sqrt(5001))).toFixed(2)} %`);
    assert.deepEqual(errors, []);
  });
});

test('the bundled real-model sample shows its N, M and K', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await page.locator('#mode-scores').check();
    await page.locator('button.sample[data-file="digits_wbb.npz"]').click();
    await page.locator('#stat-n').waitFor();
    assert.equal(await text(page, '#stat-n'), '900');
    assert.equal(await text(page, '#stat-m'), '30');
    assert.equal(await text(page, '#stat-k'), '10');
    assert.equal(await text(page, '#stat-accuracy'), '91.33 %');
    assert.ok(await page.locator('#panel-data').isVisible());
    // Files open with the core's default r-value, every face's (docs/method.md §5).
    assert.equal(await page.locator('#kind').inputValue(), 'parametric');
    assert.equal(await page.locator('#prior').inputValue(), 'pooled');
    await ready(page);
    assert.match(await text(page, '#status'), /^Showing digits_wbb\.npz, 100 splits/);
    assert.deepEqual(errors, []);
  });
});

test('the samples made in the page load as uploads', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await page.locator('#mode-scores').check();
    // The toy's first repeat at its defaults (rvalue_model::samples), not a downloaded file.
    await page.locator('button.sample[data-synthetic="toy"]').click();
    await page.waitForFunction(() => document.querySelector('#stat-n')?.textContent === '1000');
    assert.equal(await text(page, '#stat-m'), '30');
    assert.equal(await text(page, '#stat-k'), '10');
    await ready(page);
    assert.match(await text(page, '#status'), /^Showing toy defaults, repeat 1 \(seed 1\)/);
    assert.deepEqual(errors, []);
  });
});

test('a malformed upload names the problem and keeps the previous results', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    const before = await text(page, '#coverage-readout');
    await page.locator('#mode-scores').check();
    // A truncated .npy: the magic and a header that promises data that is not there.
    const good = await readFile(join(ROOT, 'assets', 'digits_wbb_scores.npy'));
    await page.locator('#file').setInputFiles({ name: 'broken.npy', mimeType: 'application/octet-stream', buffer: good.subarray(0, 200) });
    const banner = page.locator('#error');
    await banner.waitFor();
    const msg = await banner.textContent();
    assert.match(msg, /broken\.npy/, msg);
    assert.match(msg, /results shown are unchanged/, msg);
    // Not a number soup: the message says what is wrong with the file.
    assert.match(msg, /(truncated|short|expected|bytes)/i, msg);
    assert.equal(await text(page, '#coverage-readout'), before);
    // Text in a CSV number field.
    await page.locator('#file').setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('item,draw,candidate,score,label\n0,0,0,abc,0\n') });
    await page.waitForFunction(() => document.querySelector('#error').textContent.includes('bad.csv'));
    assert.match(await text(page, '#error'), /abc/);
    assert.equal(await text(page, '#coverage-readout'), before);
    // The page still answers: α still moves the stored results.
    await page.locator('#alpha').fill('30');
    await page.waitForFunction(() => document.querySelector('#coverage-readout').textContent.startsWith('α = 0.15'));
    assert.deepEqual(errors, []);
  });
});

// In toy mode the message sits below the toy's parameters, under the fold of the sidebar: the page
// brings it into view where the file was dropped, and announces it.
test('a bad file dropped in toy mode shows its message in view', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    const before = await text(page, '#coverage-readout');
    // Drop onto panel 6 (the page takes a drop anywhere), as a user dragging from a file manager.
    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1])], 'cut.npy'));
      return dt;
    });
    await page.dispatchEvent('#panel-summary', 'drop', { dataTransfer });
    await page.waitForFunction(() => document.querySelector('#error').textContent.startsWith('cut.npy:'));
    assert.equal(await page.locator('#error').getAttribute('role'), 'alert');
    // Within the window, and not clipped by the sidebar's own scrolling: the topmost element at
    // the message's top and bottom edges is the message.
    const seen = await page.evaluate(() => {
      const e = document.querySelector('#error');
      const r = e.getBoundingClientRect();
      const x = r.left + r.width / 2;
      const hit = (y) => e.contains(document.elementFromPoint(x, y));
      return { top: r.top, bottom: r.bottom, height: innerHeight, hits: [hit(r.top + 2), hit(r.bottom - 2)] };
    });
    assert.ok(seen.top >= 0 && seen.bottom <= seen.height, `the message is at ${seen.top}–${seen.bottom} of ${seen.height} px`);
    assert.deepEqual(seen.hits, [true, true], 'the message is covered or clipped');
    assert.equal(await text(page, '#coverage-readout'), before);
    assert.deepEqual(errors, []);
  });
});

test('the keyboard alone reaches and moves every slider', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await page.locator('#pqp').filter({ hasText: '%' }).waitFor();
    const sliders = ['alpha', 'beta', 'sigma2'];
    const reached = new Set();
    for (let i = 0; i < 60 && reached.size < sliders.length; i++) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => document.activeElement?.id);
      if (!sliders.includes(id) || reached.has(id)) continue;
      reached.add(id);
      const shown = await text(page, `#${id}-value`);
      const value = await page.locator(`#${id}`).inputValue();
      await page.keyboard.press('ArrowRight');
      assert.equal(await page.locator(`#${id}`).inputValue(), String(Number(value) + 1), `${id} did not move`);
      await page.waitForFunction(([id, shown]) => document.querySelector(`#${id}-value`).textContent !== shown, [id, shown]);
      // Its label names it for a screen reader.
      assert.ok((await page.locator(`label[for="${id}"]`).textContent()).length > 3);
    }
    assert.deepEqual([...reached].sort(), [...sliders].sort(), 'sliders not reached by Tab');
    assert.deepEqual(errors, []);
  });
});

test('cancel stops a running analysis and keeps the previous results', LONG, async (t) => {
  // 400 repeats (a few seconds): at the default 50 the analysis can finish between the cancel
  // button's enabled check and the click.
  const { page, errors } = await explorer.open('?repeats=400');
  await shot(t, page, async () => {
    await ready(page);
    const before = await text(page, '#coverage-readout');
    await page.locator('#toy-seed').fill('7');
    await page.locator('#toy-seed').dispatchEvent('change');
    await page.locator('#cancel:enabled').waitFor();
    await page.locator('#cancel').click();
    await settled(page, 'cancelled');
    assert.equal(await page.locator('#toy-seed').inputValue(), '1', 'the seed of the shown results is back');
    assert.equal(await text(page, '#coverage-readout'), before);
    assert.ok(await page.locator('#cancel').isDisabled());
    assert.deepEqual(errors, []);
  });
});

test('a phone-sized screen shows everything without sideways scrolling, large text too', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await page.setViewportSize({ width: 375, height: 740 });
  await shot(t, page, async () => {
    await ready(page);
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok((await overflow()) <= 0, `page is ${await overflow()} px wider than the screen`);
    await page.locator('#large-text').check();
    assert.ok(await page.evaluate(() => document.body.classList.contains('large')));
    assert.ok((await overflow()) <= 0, `large text: page is ${await overflow()} px wider than the screen`);
    // Panel 6's rows become labelled cards: the table needs no sideways scroll either.
    const tableOverflow = await page.locator('#panel-summary .table-wrap').evaluate((w) => w.scrollWidth - w.clientWidth);
    assert.ok(tableOverflow <= 0, `large text: the summary table is ${tableOverflow} px wider than its panel`);
    // Figures fit the column.
    const w = await page.locator('#plot-threshold').evaluate((c) => c.getBoundingClientRect().width);
    assert.ok(w > 200 && w <= 375, `canvas width ${w}`);
    assert.deepEqual(errors, []);
  });
});

test('at desktop widths the summary table fits its half-width panel, as a table or as cards', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    const tableOverflow = () =>
      page.locator('#panel-summary .table-wrap').evaluate((w) => w.scrollWidth - w.clientWidth);
    const headerShown = () =>
      page.locator('#summary-table thead').evaluate((h) => getComputedStyle(h).display !== 'none');
    for (const width of [1280, 1600]) {
      await page.setViewportSize({ width, height: 800 });
      await page.locator('#large-text').uncheck();
      assert.ok(await headerShown(), `${width} px: the table keeps its column titles`);
      assert.ok((await tableOverflow()) <= 0, `${width} px: the table is ${await tableOverflow()} px too wide`);
      await page.locator('#large-text').check();
      assert.ok((await tableOverflow()) <= 0, `${width} px, large text: ${await tableOverflow()} px too wide`);
    }
    assert.deepEqual(errors, []);
  });
});

// README's tie-order finding in one move: the authors' index order drops pooled CP_r's coverage
// below 1 − α on a toy with few draws, and panel 6's note says so instead of comparing sizes;
// the exchangeable order (the default) lifts it back.
test("the authors' tie order under-covers and the exchangeable order covers", LONG, async (t) => {
  const finding = '?kind=pooled&ties=index&k=5&m=10&sigma2=30&high-var=0.5&n-cal=100&n-test=100&repeats=200';
  const { page, errors } = await explorer.open(finding);
  await shot(t, page, async () => {
    await ready(page);
    assert.equal(await page.locator('#ties').inputValue(), 'index');
    const cpR = async () => Number((await text(page, '#coverage-readout')).match(/CP_r (\d\.\d+)/)[1]);
    const index = await cpR();
    assert.ok(index < 0.86, `index order: CP_r covers ${index} at α = 0.1`);
    assert.match(await text(page, '#reduction'), /^CP_r covers 0\.\d{3}, below 1 − α = 0\.9 /);
    const before = await text(page, '#coverage-readout');
    await page.locator('#ties').selectOption('exchangeable');
    await page.waitForFunction((b) => document.querySelector('#coverage-readout').textContent !== b, before);
    await ready(page);
    const exchangeable = await cpR();
    assert.ok(exchangeable > 0.88, `exchangeable order: CP_r covers ${exchangeable} at α = 0.1`);
    assert.match(await text(page, '#reduction'), /^CP_r's sets are (smaller|larger) by/);
    assert.deepEqual(errors, []);
  });
});
