// End-to-end tests of what panels 1, 2 and 5 say and show at the toy's defaults and around
// them: panel 2 zoomed on the threshold curve's dip (read back from its SVG export, which draws
// what the canvas shows), panel 1's note worked out from the current parameters, and the plain
// sentences a panel shows in place of a figure.
// Run: make test-e2e, or `node --test e2e/panels.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { Phi, ROOT, TIMEOUT_MS, analysesShown, download, ready, shot, text, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 3 };

// rvalue_model::figure's INK (the current β's curve and the arrows where it leaves the frame) and GREEN
// (the marked σ²), as plotters' SVG backend writes colours.
const INK = '#1D1D1F';
const GREEN = '#009E73';

// Panel 2 as its SVG export draws it: the plotting area's frame (the extent of the grid lines,
// which span it), the polylines of the current β's curve (stroke-width 2, cut into pieces where
// it leaves the frame) and the arrows (wider INK or GREEN strokes).
async function panel2(page) {
  const svg = await download(page, '#panel-threshold button[data-export="svg"]');
  return page.evaluate(
    ({ text, INK, GREEN }) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      const lines = [...doc.querySelectorAll('polyline, line, path')].map((e) => {
        let pts;
        if (e.localName === 'line') {
          pts = [['x1', 'y1'], ['x2', 'y2']].map(([x, y]) => [Number(e.getAttribute(x)), Number(e.getAttribute(y))]);
        } else if (e.localName === 'polyline') {
          pts = e.getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number));
        } else {
          pts = (e.getAttribute('d').match(/-?\d+(\.\d+)?/g) ?? []).map(Number).reduce((a, v, i, all) => (i % 2 ? a : [...a, [v, all[i + 1]]]), []);
        }
        return { stroke: (e.getAttribute('stroke') ?? '').toUpperCase(), width: Number(e.getAttribute('stroke-width') ?? 1), pts };
      });
      // Grid lines (light grey): vertical ones run from the frame's top to its bottom.
      const grid = lines.filter((l) => ['#EEEEEE', '#DCDCDC'].includes(l.stroke));
      const ys = grid.filter((l) => l.pts.length === 2 && l.pts[0][0] === l.pts[1][0]).flatMap((l) => l.pts.map((p) => p[1]));
      const xs = grid.filter((l) => l.pts.length === 2 && l.pts[0][1] === l.pts[1][1]).flatMap((l) => l.pts.map((p) => p[0]));
      const frame = { top: Math.min(...ys), bottom: Math.max(...ys), left: Math.min(...xs), right: Math.max(...xs) };
      return {
        frame,
        curve: lines.filter((l) => l.stroke === INK && l.width === 2).map((l) => l.pts),
        // Wider strokes that touch the top edge (the legend's swatches are wide too, lower down).
        arrows: lines.filter(
          (l) => [INK, GREEN].includes(l.stroke) && l.width > 2 && l.pts.some((p) => Math.abs(p[1] - frame.top) < 3),
        ),
        texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      };
    },
    { text: svg.bytes.toString('utf8'), INK, GREEN },
  );
}

test('panel 2 at the defaults frames the dip: the lowest point is inside, below t*(0)', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    const { frame, curve, arrows, texts } = await panel2(page);
    assert.ok(frame.bottom - frame.top > 100, `frame ${JSON.stringify(frame)}`);
    const points = curve.flat().sort((a, b) => a[0] - b[0]);
    assert.ok(points.length > 50, `the curve has ${points.length} points`);
    // Its left end is t*(σ² = 0.001), t*(0) to the pixel; pixel y grows downwards.
    const [x0, y0] = points[0];
    assert.ok(Math.abs(x0 - frame.left) < 2, `the curve starts at x = ${x0}, the frame at ${frame.left}`);
    const lowest = points.reduce((a, p) => (p[1] > a[1] ? p : a));
    const height = frame.bottom - frame.top;
    assert.ok(y0 > frame.top && y0 < frame.bottom, `t*(0) at y = ${y0} is outside ${frame.top}–${frame.bottom}`);
    assert.ok(lowest[1] < frame.bottom - 2, `the minimum at y = ${lowest[1]} sits on the frame's bottom ${frame.bottom}`);
    // Visibly below t*(0): a tenth of the frame's height at least (it was under a pixel).
    assert.ok(lowest[1] - y0 > Math.max(height / 10, 15), `the dip is ${lowest[1] - y0} px of ${height}`);
    // And a dip, not a fall: the curve is back above t*(0) to its right, then leaves the frame.
    assert.ok(points.some((p) => p[0] > lowest[0] && p[1] < y0), 'the curve does not come back up');
    const top = Math.min(...points.map((p) => p[1]));
    assert.ok(Math.abs(top - frame.top) < 1.5, `the curve reaches y = ${top}, the frame's top is ${frame.top}`);
    // Arrows on the top edge say where the curve and the marked σ² = 1000 leave the frame.
    assert.ok(arrows.some((a) => a.stroke === INK), `no arrow where the curve leaves: ${JSON.stringify(arrows)}`);
    assert.ok(arrows.some((a) => a.stroke === GREEN), 'no arrow at the marked σ²');
    assert.ok(texts.some((s) => /σ² = 1000 \(t\* = 4\d\.\d, above\)/.test(s)), `legend: ${JSON.stringify(texts)}`);
    const note = await text(page, '#threshold-note');
    assert.match(note, /s\* = 0\.\d+, s0 = \d\.\d+\./, note);
    assert.match(note, /Zoomed on the dip: the curve rises out of the frame at σ² ≈ \d+(\.\d+)? \(arrow\); at the marked σ² = 1000 it is 4\d\.\d\. Tick “Whole curve”/, note);
    // The PNG export is the canvas (e2e/export.test.mjs compares its pixels): same size here.
    const png = await download(page, '#panel-threshold button[data-export="png"]');
    const canvas = await page.locator('#plot-threshold').evaluate((c) => [c.width, c.height]);
    assert.deepEqual([png.bytes.readUInt32BE(16), png.bytes.readUInt32BE(20)], canvas);
    assert.deepEqual(errors, []);
  });
});

test('"Whole curve" fits every σ² up to 5000, where the dip is flat, and back', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    const zoomed = await page.locator('#plot-threshold').evaluate((c) => c.toDataURL());
    await page.locator('#whole-curve').check();
    await page.waitForFunction((z) => document.querySelector('#plot-threshold').toDataURL() !== z, zoomed);
    const { frame, curve, arrows } = await panel2(page);
    const points = curve.flat().sort((a, b) => a[0] - b[0]);
    // The whole curve is one piece inside the frame, and the dip is under two pixels.
    assert.equal(curve.length, 1, `${curve.length} pieces`);
    const lowest = Math.max(...points.map((p) => p[1]));
    assert.ok(lowest - points[0][1] < 2, `the dip is ${lowest - points[0][1]} px in the whole view`);
    assert.ok(points.every((p) => p[1] >= frame.top - 0.5 && p[1] <= frame.bottom + 0.5), 'the curve leaves the frame');
    assert.deepEqual(arrows, [], 'arrows in the whole view');
    assert.doesNotMatch(await text(page, '#threshold-note'), /Zoomed/);
    await page.locator('#whole-curve').uncheck();
    await page.waitForFunction((z) => document.querySelector('#plot-threshold').toDataURL() === z, zoomed);
    assert.match(await text(page, '#threshold-note'), /Zoomed on the dip/);
    assert.deepEqual(errors, []);
  });
});

const percent = (x) => `${(100 * x).toFixed(2)} %`;

test("panel 1's note works P(q > p) out at the current values; the misprint only at the paper's", LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await page.locator('#pqp').filter({ hasText: '%' }).waitFor();
    const note = () => text(page, '#pqp-note');
    // The paper's values (the defaults): Φ(−1/√1001) = 48.74 %, printed 48.47 % in the paper.
    assert.match(await note(), /Φ\(−1\/√1001\) = 48\.74 %\. The paper prints 48\.47 % here/);
    // σ² = 100 by the slider (position 121): the note follows, and names no misprint.
    await page.locator('#sigma2').fill('121');
    await page.waitForFunction(() => document.querySelector('#pqp-note').textContent.includes('√101'));
    assert.equal(await note(), `P(q > p) = Φ((μq − μp)/√(σp² + σ²)) = Φ(−1/√101) = ${percent(Phi(-1 / Math.sqrt(101)))}.`);
    assert.equal(await text(page, '#pqp'), percent(Phi(-1 / Math.sqrt(101))));
    // μp = 2 typed in the toy's parameters: the difference follows too.
    await page.locator('#mu-p').fill('2');
    await page.locator('#mu-p').dispatchEvent('change');
    await page.waitForFunction(() => document.querySelector('#pqp-note').textContent.includes('Φ(−2/√101)'));
    assert.equal(await text(page, '#pqp'), percent(Phi(-2 / Math.sqrt(101))));
    assert.doesNotMatch(await note(), /48\.[47]|paper/);
    assert.deepEqual(errors, []);
  });
});

test("panel 1's note at σ² = 30 names 42.87 %", LONG, async (t) => {
  const { page, errors } = await explorer.open('?sigma2=30');
  await shot(t, page, async () => {
    await page.locator('#pqp').filter({ hasText: '%' }).waitFor();
    assert.equal(await text(page, '#sigma2-value'), '30');
    assert.equal(await text(page, '#pqp'), '42.87 %');
    const note = await text(page, '#pqp-note');
    assert.equal(note, 'P(q > p) = Φ((μq − μp)/√(σp² + σ²)) = Φ(−1/√31) = 42.87 %.');
    assert.deepEqual(errors, []);
  });
});

// What an error kind's Display starts with (rvalue_core::Error): no placeholder may say one.
const ERROR_KIND = /invalid argument|out of range|shape mismatch|GPU:|Error\b|\bNaN\b/;

// Every sentence rvalue_model::figure::placeholder holds, read from the source so that one added
// there is listed here, with how the page shows it (by its name in the source).
async function placeholders() {
  const body = await readFile(join(ROOT, 'crates', 'model', 'src', 'figure', 'placeholder.rs'), 'utf8');
  const found = {};
  for (const m of body.matchAll(/pub const (\w+): &str =\s*"((?:[^"\\]|\\.|\\\n)*)";/g)) {
    // A Rust string's line continuation drops the newline and the next line's indent.
    found[m[1]] = m[2].replace(/\\\n\s*/g, '');
  }
  return found;
}

// The text of every note, readout and status line the page shows now.
const shownTexts = (page) =>
  page.$$eval('.note, .readout, #status, #error, #url-notes, #inspector, #item-info, #data-name', (es) =>
    es.filter((e) => !e.closest('[hidden]')).map((e) => `#${e.id || e.className}: ${e.textContent}`),
  );

const blank = (page, id) =>
  page.locator(`#${id}`).evaluate((c) => {
    if (c.width === 0 || c.height === 0) return true;
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    return d.every((v, i) => i % 4 !== 3 || v === 0);
  });

test('placeholders are plain sentences: no file, a flat prior, no variance, an early export', LONG, async (t) => {
  const said = await placeholders();
  // Every placeholder the page can show, by name.
  assert.deepEqual(Object.keys(said).sort(), [
    'THEOREM3_NO_FILE',
    'THEOREM3_TOY_WAITING',
    'THEOREM3_WAITING',
    'THRESHOLD_FLAT_PRIOR',
    'THRESHOLD_NO_FILE',
    'THRESHOLD_NO_PRIOR',
    'THRESHOLD_NO_VARIANCE',
    'THRESHOLD_WAITING',
  ]);
  for (const [name, s] of Object.entries(said)) {
    assert.doesNotMatch(s, ERROR_KIND, name);
    assert.match(s, /^[A-Z].{20,}\.$/, `${name} is not a sentence: ${s}`);
  }
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    const seen = [];
    const look = async () => seen.push(...(await shownTexts(page)));
    // Your scores, no file yet: panels 2 and 5 ask for one, their canvases blank.
    await page.locator('#mode-scores').check();
    await page.waitForFunction((s) => document.querySelector('#threshold-note').textContent === s, said.THRESHOLD_NO_FILE);
    assert.equal(await text(page, '#theorem3-note'), said.THEOREM3_NO_FILE);
    assert.ok(await blank(page, 'plot-threshold'), 'panel 2 still shows a figure');
    assert.ok(await blank(page, 'plot-theorem3'), 'panel 5 still shows a figure');
    // Exporting the blank panel 2 says why in a sentence.
    await page.locator('#panel-threshold button[data-export="svg"]').click();
    await page.waitForFunction(() => !document.querySelector('#error').hidden);
    assert.equal(await text(page, '#error'), 'Export failed: Panel 2 has no figure yet.');
    await look();
    // The toy with μq = μp: no spread of latent means (τ² = 0), no curve.
    await page.locator('#mode-toy').check();
    await page.locator('#mu-q').fill('1');
    await page.locator('#mu-q').dispatchEvent('change');
    await page.waitForFunction((s) => document.querySelector('#threshold-note').textContent === s, said.THRESHOLD_FLAT_PRIOR);
    assert.ok(await blank(page, 'plot-threshold'), 'panel 2 shows a figure without a curve');
    await look();
    // σp² = 0 and σ² = 0: every variance is 0, no curve either.
    await page.locator('#mu-q').fill('0');
    await page.locator('#mu-q').dispatchEvent('change');
    await page.locator('#sigma2-p').fill('0');
    await page.locator('#sigma2-p').dispatchEvent('change');
    await page.locator('#sigma2').fill('0');
    await page.waitForFunction((s) => document.querySelector('#threshold-note').textContent === s, said.THRESHOLD_NO_VARIANCE);
    await look();
    // A sample loaded in Your scores: while it is analysed both panels say they wait for it.
    await page.locator('#mode-scores').check();
    await page.waitForFunction((s) => document.querySelector('#threshold-note').textContent === s, said.THRESHOLD_NO_FILE);
    await page.evaluate(() => {
      window.notesSeen = [];
      const record = () => window.notesSeen.push(...['threshold-note', 'theorem3-note'].map((id) => document.getElementById(id).textContent));
      new MutationObserver(record).observe(document.querySelector('#panels'), { childList: true, subtree: true, characterData: true });
    });
    const before = await analysesShown(page);
    await page.locator('button.sample[data-file="small_long.csv"]').click();
    await ready(page, before);
    const notes = await page.evaluate(() => window.notesSeen);
    assert.ok(notes.includes(said.THRESHOLD_WAITING), `panel 2 said: ${[...new Set(notes)]}`);
    assert.ok(notes.includes(said.THEOREM3_WAITING), `panel 5 said: ${[...new Set(notes)]}`);
    assert.match(await text(page, '#threshold-note'), /^Prior μ = /);
    await look();
    const bad = seen.filter((s) => ERROR_KIND.test(s));
    assert.deepEqual(bad, [], 'texts that speak in error kinds');
    assert.deepEqual(errors, []);
  });
});
