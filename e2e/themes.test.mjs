// End-to-end tests of how an embed fits a docs page: themes (axe finds no colour-contrast
// violation in either, the figures and exports take the theme, auto follows the system and
// switches with it), a transparent background, the figure-only embed (chrome=none, controls=),
// link warnings in the console, and legends under the plot at 400 px. Run: make test-e2e, or
// `node --test e2e/themes.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { TIMEOUT_MS, download, ready, settled, shot, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
// A small toy, so that each analysis takes a fraction of a second.
const SMALL = 'n-cal=100&n-test=100&repeats=3';
// rvalue_model::theme::DARK's figure background.
const DARK_BG = [27, 28, 32];

// axe's colour-contrast violations (any impact) on the page as it is now.
async function contrastViolations(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: ['color-contrast'], resultTypes: ['violations'] });
    return r.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`));
  });
}

// The RGBA of a canvas' pixel (x, y) (canvas pixels; negative counts from the far edge).
const pixel = (page, id, x, y) =>
  page.evaluate(([id, x, y]) => {
    const c = document.getElementById(id);
    const at = (v, n) => (v < 0 ? n + v : v);
    return [...c.getContext('2d').getImageData(at(x, c.width), at(y, c.height), 1, 1).data];
  }, [id, x, y]);

// Waits until the canvas `id` has been drawn (its layout recorded).
const drawn = (page, id) =>
  page.waitForFunction((id) => document.getElementById(id)?.dataset.plot, id, { timeout: TIMEOUT_MS * 2 });

test('both themes pass axe colour contrast, on the page and in embeds', LONG, async (t) => {
  for (const theme of ['light', 'dark']) {
    for (const [path, state] of [[`?theme=${theme}&${SMALL}`, 'ready'], [`?embed=coverage&theme=${theme}&${SMALL}`, 'ready'],
      [`?embed=theorem3&chrome=none&controls=alpha&theme=${theme}`, 'idle'],
      [`?mode=scores&sample=small_long.csv&splits=3&theme=${theme}`, 'ready'], [`?tour=4&theme=${theme}`, 'ready']]) {
      const { page, errors } = await explorer.open(path);
      await shot({ name: `${t.name} ${path}` }, page, async () => {
        if (state === 'ready') await ready(page);
        else await settled(page, state);
        assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), theme);
        assert.deepEqual(await contrastViolations(page), [], path);
        assert.deepEqual(errors, [], path);
      });
    }
  }
});

test('the dark theme colours the page, the figures and the SVG export', LONG, async (t) => {
  const { page, errors } = await explorer.open(`?theme=dark&${SMALL}`);
  await shot(t, page, async () => {
    await ready(page);
    await drawn(page, 'plot-coverage');
    const bg = await page.evaluate(() => getComputedStyle(document.querySelector('.panel')).backgroundColor);
    assert.equal(bg, 'rgb(27, 28, 32)');
    // The figure's corner is its background: the panel's colour.
    assert.deepEqual((await pixel(page, 'plot-coverage', 1, 1)).slice(0, 3), DARK_BG);
    // Some of its text is drawn in the light ink (tick labels).
    const light = await page.evaluate(() => {
      const c = document.getElementById('plot-coverage');
      const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] > 200 && data[i + 1] > 200 && data[i + 2] > 200) n++;
      return n;
    });
    assert.ok(light > 50, `only ${light} light pixels on the dark figure`);
    const svg = (await download(page, '#panel-coverage button[data-export="svg"]')).bytes.toString('utf8');
    assert.match(svg, /fill="#1B1C20"/i, 'the SVG is drawn on the dark background');
    assert.deepEqual(errors, []);
  });
});

test('theme=auto follows the system, and switches with it', LONG, async (t) => {
  const prepare = ({ page }) => page.emulateMedia({ colorScheme: 'dark' });
  const { page, errors } = await explorer.open(`?embed=coverage&theme=auto&${SMALL}`, { prepare });
  await shot(t, page, async () => {
    await ready(page);
    await drawn(page, 'plot-coverage');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.deepEqual((await pixel(page, 'plot-coverage', 1, 1)).slice(0, 3), DARK_BG);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await page.waitForFunction(() => {
      const c = document.getElementById('plot-coverage');
      return c.getContext('2d').getImageData(1, 1, 1, 1).data.slice(0, 3).every((v) => v === 255);
    });
    assert.equal(new URL(page.url()).searchParams.get('theme'), 'auto', 'the link keeps auto');
    assert.deepEqual(errors, []);
  });
});

test('background=transparent paints neither the page nor the figure', LONG, async (t) => {
  const { page, errors } = await explorer.open(`?embed=coverage&theme=dark&background=transparent&${SMALL}`);
  await shot(t, page, async () => {
    await ready(page);
    await drawn(page, 'plot-coverage');
    const bgs = await page.evaluate(() =>
      ['html', 'body', '#panel-coverage'].map((s) => getComputedStyle(document.querySelector(s)).backgroundColor));
    assert.deepEqual(bgs, ['rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)', 'rgba(0, 0, 0, 0)']);
    assert.equal((await pixel(page, 'plot-coverage', 1, 1))[3], 0, 'the figure corner is transparent');
    assert.deepEqual(errors, []);
  });
});

// What of the page is on show: panels, sliders, and the pieces figure-only mode drops.
const onShow = (page) =>
  page.evaluate(() => {
    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const any = (s) => [...document.querySelectorAll(s)].some(shown);
    return {
      panels: [...document.querySelectorAll('.panel')].filter(shown).map((e) => e.id),
      sliders: [...document.querySelectorAll('.slider input')].filter(shown).map((e) => e.id),
      furniture: ['#status', '.status', '.panel h2', 'figcaption', '.export', '#url-notes', '#copy-link', 'fieldset']
        .filter(any),
    };
  });

test('chrome=none shows the figure and its readout alone, and the sliders controls= names', LONG, async (t) => {
  const { page, errors, messages } = await explorer.open(`?embed=coverage&chrome=none&controls=alpha&bogus=1&${SMALL}`);
  await page.setViewportSize({ width: 640, height: 600 });
  await shot(t, page, async () => {
    await ready(page);
    await drawn(page, 'plot-coverage');
    const seen = await onShow(page);
    assert.deepEqual(seen, { panels: ['panel-coverage'], sliders: ['alpha'], furniture: [] });
    assert.ok(await page.locator('#coverage-readout').isVisible());
    assert.match(await page.locator('#coverage-readout').textContent(), /\d/);
    assert.ok(await page.locator('#plot-coverage').isVisible());
    // No panel number anywhere on show.
    const words = await page.evaluate(() => document.body.innerText);
    assert.doesNotMatch(words, /^\s*\d\.\s/m);
    // The link's warning is in the console, not on the page.
    assert.ok(messages.some((m) => m.startsWith('warning:') && m.includes("unknown parameter 'bogus'")), messages.join('\n'));
    assert.doesNotMatch(words, /bogus/);
    assert.deepEqual(errors, []);
  });
  // Without controls= no slider; panel 2 keeps its own readout.
  const bare = await explorer.open(`?embed=threshold&chrome=none&${SMALL}`);
  await shot({ name: `${t.name} (no controls)` }, bare.page, async () => {
    await drawn(bare.page, 'plot-threshold');
    const seen = await onShow(bare.page);
    assert.deepEqual(seen, { panels: ['panel-threshold'], sliders: [], furniture: [] });
    assert.ok(await bare.page.locator('#threshold-note').isVisible());
    assert.deepEqual(bare.errors, []);
  });
});

test('an embed with a bad parameter warns in the console and shows no note', LONG, async (t) => {
  const { page, errors, messages } = await explorer.open(`?embed=threshold&theme=sepia&${SMALL}`);
  await shot(t, page, async () => {
    await drawn(page, 'plot-threshold');
    assert.ok(await page.locator('#url-notes').isHidden());
    assert.ok(messages.some((m) => m.startsWith('warning:') && m.includes("'theme=sepia'")), messages.join('\n'));
    assert.deepEqual(errors, []);
  });
});

// Each figure's recorded layout (canvas pixels): plot, legend and dots.
const layout = (page, id) =>
  page.evaluate((id) => {
    const d = document.getElementById(id).dataset;
    const nums = (s) => s.split(' ').map(Number);
    return {
      plot: nums(d.plot),
      legend: d.legend ? nums(d.legend) : null,
      marks: d.marks ? d.marks.split(',').map(nums) : [],
    };
  }, id);

// Whether a circle (x, y, r) and a box (left, top, right, bottom) share a pixel.
const touches = ([x, y, r], [l, t, rr, b]) => {
  const dx = Math.max(l - x, 0, x - rr);
  const dy = Math.max(t - y, 0, y - b);
  return dx * dx + dy * dy <= r * r;
};

const FIGURES = [
  ['scores', '', 'plot-scores', 'idle'],
  ['threshold', `&${SMALL}`, 'plot-threshold', 'ready'],
  ['coverage', `&${SMALL}`, 'plot-coverage', 'ready'],
  ['size', `&${SMALL}`, 'plot-size', 'ready'],
  ['theorem3', '', 'plot-theorem3', 'idle'],
  ['classes', `&${SMALL}`, 'plot-classes', 'ready'],
  ['data', '&mode=scores&sample=small_long.csv&splits=3', 'plot-variance', 'ready'],
];

test('at 400 px every legend sits under its plot and covers no data point', LONG, async (t) => {
  for (const [panel, extra, id, state] of FIGURES) {
    const { page, errors } = await explorer.open(`?embed=${panel}${extra}`);
    await page.setViewportSize({ width: 400, height: 800 });
    await shot({ name: `${t.name} ${panel}` }, page, async () => {
      if (state === 'ready') await ready(page);
      else await settled(page, state);
      // Drawn at this width: the canvas' pixels match its box.
      await page.waitForFunction((id) => {
        const c = document.getElementById(id);
        return c.dataset.plot && Math.abs(c.width - c.clientWidth * devicePixelRatio) < 2;
      }, id);
      const { plot, legend, marks } = await layout(page, id);
      assert.ok(legend, `${panel}: no legend recorded`);
      assert.ok(legend[1] >= plot[3], `${panel}: legend ${legend} not under the plot ${plot}`);
      const hidden = marks.filter((m) => touches(m, legend));
      assert.deepEqual(hidden, [], `${panel}: the legend covers dots`);
      assert.deepEqual(errors, []);
    });
  }
});

test('at full width the legend stays inside the plot, and the inspector reads at 400 px', LONG, async (t) => {
  const { page, errors } = await explorer.open(`?embed=threshold&${SMALL}`);
  await shot(t, page, async () => {
    await drawn(page, 'plot-threshold');
    await ready(page);
    const { plot, legend } = await layout(page, 'plot-threshold');
    assert.ok(legend && legend[0] >= plot[0] && legend[2] <= plot[2] && legend[3] <= plot[3], `${legend} in ${plot}`);
  });
  const narrow = await explorer.open(`?embed=inspector&${SMALL}`);
  await narrow.page.setViewportSize({ width: 400, height: 800 });
  await shot({ name: `${t.name} (inspector)` }, narrow.page, async () => {
    await ready(narrow.page);
    await narrow.page.locator('#inspector .ranking').first().waitFor();
    const fit = await narrow.page.evaluate(() => {
      const i = document.getElementById('inspector');
      const doc = document.documentElement;
      const font = parseFloat(getComputedStyle(i.querySelector('li')).fontSize);
      return { inner: i.scrollWidth <= i.clientWidth, page: doc.scrollWidth <= doc.clientWidth, font: font >= 13 };
    });
    assert.deepEqual(fit, { inner: true, page: true, font: true });
    assert.deepEqual(errors, []);
    assert.deepEqual(narrow.errors, []);
  });
});

test('a figure alone has no serious or critical axe violation and keeps a level-one heading', LONG, async (t) => {
  for (const path of [`?embed=coverage&chrome=none&theme=dark&${SMALL}`, `?embed=threshold&chrome=none&controls=beta,sigma2&${SMALL}`]) {
    const { page, errors } = await explorer.open(path);
    await shot({ name: `${t.name} ${path}` }, page, async () => {
      await ready(page);
      await page.evaluate(AXE);
      const found = await page.evaluate(async () => {
        const r = await window.axe.run(document, { resultTypes: ['violations'] });
        return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
      });
      assert.deepEqual(found.filter((v) => ['serious', 'critical'].includes(v.impact) || v.id === 'page-has-heading-one'), [], path);
      assert.deepEqual(errors, [], path);
    });
  }
});
