// End-to-end tests of the export buttons (src/ui/app/export.rs) on the page that trunk built
// into dist/ (make test-e2e builds it): every kind of export is clicked, its download captured
// and opened: PNGs decode to what the page shows, SVGs parse, CSVs have their header and rows.
// Run: make test-e2e, or `node --test e2e/export.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TIMEOUT_MS, download, ready, shot, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };

const FIGURES = [
  { panel: 'panel-scores', canvas: 'plot-scores', overlay: null, name: 'scores', text: 'score' },
  { panel: 'panel-threshold', canvas: 'plot-threshold', overlay: null, name: 'threshold', text: 'σ²' },
  { panel: 'panel-coverage', canvas: 'plot-coverage', overlay: 'plot-coverage-alpha', name: 'coverage', text: 'α' },
  { panel: 'panel-size', canvas: 'plot-size', overlay: 'plot-size-alpha', name: 'size', text: 'α' },
  { panel: 'panel-theorem3', canvas: 'plot-theorem3', overlay: 'plot-theorem3-alpha', name: 'theorem3', text: 'σ²' },
];

// The PNG signature and the IHDR chunk's size, read from the bytes.
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

// Decodes the PNG in the page and compares it with the figure's canvas and its overlay drawn one
// over the other: pixels that differ from that composite, and from the canvas alone.
function comparePng(page, bytes, canvas, overlay) {
  return page.evaluate(
    async ({ b64, canvas, overlay }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const base = document.getElementById(canvas);
      const pixels = (draw) => {
        const c = document.createElement('canvas');
        c.width = base.width;
        c.height = base.height;
        const ctx = c.getContext('2d');
        draw(ctx);
        return ctx.getImageData(0, 0, c.width, c.height).data;
      };
      const over = overlay && document.getElementById(overlay);
      const composite = pixels((ctx) => {
        ctx.drawImage(base, 0, 0);
        if (over && over.width === base.width && over.height === base.height) ctx.drawImage(over, 0, 0);
      });
      const alone = pixels((ctx) => ctx.drawImage(base, 0, 0));
      const decoded = pixels((ctx) => ctx.drawImage(img, 0, 0));
      const differ = (a, b) => a.reduce((n, v, i) => n + (v !== b[i]), 0);
      return {
        natural: [img.naturalWidth, img.naturalHeight],
        canvas: [base.width, base.height],
        fromComposite: differ(decoded, composite),
        fromCanvas: differ(decoded, alone),
      };
    },
    { b64: bytes.toString('base64'), canvas, overlay },
  );
}

// Parses the SVG with the page's DOMParser.
function parseSvg(page, text) {
  return page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const root = doc.documentElement;
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      root: root.localName,
      namespace: root.namespaceURI,
      size: [root.getAttribute('width'), root.getAttribute('height')].map(Number),
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent),
      circles: doc.querySelectorAll('circle').length,
    };
  }, text);
}

function csvRows(text) {
  const lines = text.trimEnd().split('\n');
  return { header: lines[0], rows: lines.slice(1).map((l) => l.split(',')) };
}

test('every panel exports PNG, SVG or CSV from labelled buttons, and the files open', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    for (const f of FIGURES) {
      const labels = await page.$$eval(`#${f.panel} .export button`, (bs) => bs.map((b) => b.getAttribute('aria-label')));
      const n = FIGURES.indexOf(f) + 1;
      assert.deepEqual(labels, [`Download panel ${n} as PNG`, `Download panel ${n} as SVG`]);

      const png = await download(page, `#${f.panel} button[data-export="png"]`);
      assert.equal(png.name, `rvalue-explorer-${f.name}.png`);
      const size = pngSize(png.bytes);
      const seen = await comparePng(page, png.bytes, f.canvas, f.overlay);
      assert.deepEqual(seen.natural, [size.width, size.height], `${f.name}: the PNG decodes at its IHDR size`);
      assert.deepEqual(seen.canvas, [size.width, size.height], `${f.name}: the PNG has the canvas' pixels`);
      assert.equal(seen.fromComposite, 0, `${f.name}: the PNG is the figure with its overlay`);
      if (f.overlay) assert.ok(seen.fromCanvas > 0, `${f.name}: the overlay (α marker / front layer) is in the PNG`);

      const svg = await download(page, `#${f.panel} button[data-export="svg"]`);
      assert.equal(svg.name, `rvalue-explorer-${f.name}.svg`);
      const parsed = await parseSvg(page, svg.bytes.toString('utf8'));
      assert.equal(parsed.error, null, `${f.name}: the SVG parses`);
      assert.equal(parsed.root, 'svg');
      assert.equal(parsed.namespace, 'http://www.w3.org/2000/svg');
      const box = await page.locator(`#${f.canvas}`).evaluate((c) => [c.clientWidth, c.clientHeight]);
      assert.deepEqual(parsed.size, box, `${f.name}: the SVG has the canvas' CSS size`);
      assert.ok(parsed.texts.some((s) => s.includes(f.text)), `${f.name}: axis text in ${parsed.texts}`);
      if (f.name === 'coverage' || f.name === 'size') {
        // The α marker's dots, one per method: the figure itself draws no dots.
        assert.equal(parsed.circles, 3, `${f.name}: the α marker's dots`);
      }
    }
    assert.deepEqual(errors, []);
  });
});

// A page of its own: in this headless Chromium a page's eleventh download never arrives (seen
// with any mix of buttons: the 11th is dropped, the 12th arrives), and the figures took ten.
test('the summary table and the per-item sets export to CSV by keyboard', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await ready(page);
    // Panel 6 by keyboard: the same numbers as the table, at full precision.
    const summary = await download(page, '#panel-summary button[data-export="csv"]', 'Enter');
    assert.equal(summary.name, 'rvalue-explorer-summary.csv');
    const s = csvRows(summary.bytes.toString('utf8'));
    assert.equal(
      s.header,
      'method,alpha,never_empty,coverage_mean,coverage_sd,size_mean,size_sd,position_mean,empty_rate,splits,' +
        'macro_coverage_mean,macro_coverage_sd,worst_class_coverage_mean,worst_class_coverage_sd,covgap_mean,' +
        'covgap_sd,violated_classes_mean,violated_classes_sd,sscv_mean,sscv_sd,dsv_mean,dsv_sd',
    );
    assert.deepEqual(s.rows.map((r) => r[0]), ['cp', 'cp-avg', 'cp-r']);
    const cells = await page.$$eval('#summary-table tbody tr', (trs) => trs.map((tr) => tr.cells[1].textContent));
    s.rows.forEach((r, i) => {
      assert.equal(Number(r[1]), 0.1);
      assert.equal(r[2], 'false');
      assert.equal(r[9], '50');
      const shown = `${Number(r[3]).toFixed(3)} ± ${Number(r[4]).toFixed(3)}`;
      assert.equal(cells[i], shown, `the table shows ${r[0]}'s coverage`);
    });

    // Panel 7 by keyboard (Space): `rvalue sets`' rows, a row per candidate in each set of the
    // first repeat's test items (an empty set: one row, its candidate empty), method by method.
    const sets = await download(page, '#panel-inspector button[data-export="csv"]', ' ');
    assert.equal(sets.name, 'rvalue-explorer-sets.csv');
    const c = csvRows(sets.bytes.toString('utf8'));
    assert.equal(c.header, 'method,item,candidate,score,position');
    const seen = new Map();
    for (const [method, item, candidate, score, position] of c.rows) {
      assert.ok(Number.isInteger(Number(item)) && ['cp', 'cp-avg', 'cp-r'].includes(method));
      const key = `${method} ${item}`;
      const members = seen.get(key) ?? [];
      seen.set(key, members);
      if (candidate === '') {
        assert.deepEqual([members.length, score, position], [0, '', '']);
        continue;
      }
      const k = Number(candidate);
      assert.ok(Number.isInteger(k) && k >= 0 && k < 10 && !members.includes(k));
      assert.equal(Number(position), members.length);
      assert.ok(Number.isFinite(Number(score)));
      members.push(k);
    }
    assert.equal(seen.size, 3 * 500, 'every test item of every method has a row');
    assert.deepEqual([...new Set(c.rows.map((r) => r[0]))], ['cp', 'cp-avg', 'cp-r']);
    assert.deepEqual(errors, []);
  });
});

test('the data panel exports too, and the buttons fit a phone-sized screen', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await page.setViewportSize({ width: 375, height: 740 });
  await shot(t, page, async () => {
    await page.locator('#mode-scores').check();
    await page.locator('button.sample[data-file="small_long.csv"]').click();
    await page.locator('#stat-n').waitFor();
    await ready(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page is ${overflow} px wider than the screen`);
    const png = await download(page, '#panel-data button[data-export="png"]');
    assert.equal(png.name, 'rvalue-explorer-variances.png');
    const size = pngSize(png.bytes);
    const seen = await comparePng(page, png.bytes, 'plot-variance', null);
    assert.deepEqual(seen.natural, [size.width, size.height]);
    assert.equal(seen.fromComposite, 0);
    const svg = await download(page, '#panel-data button[data-export="svg"]');
    const parsed = await parseSvg(page, svg.bytes.toString('utf8'));
    assert.equal(parsed.error, null);
    assert.ok(parsed.texts.length > 0);
    assert.deepEqual(errors, []);
  });
});
