// End-to-end tests of links and embedding: the state in the address, the Copy link
// button, `?embed=<panel>` for every panel, the example page www/embed-example.html, and dist/
// served from a sub-path. Run: make test-e2e, or `node --test e2e/embed.test.mjs` after
// `trunk build --release`. Every test saves a screenshot to test-output/e2e/.

import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DIST, ROOT, TIMEOUT_MS, launchBrowser, openPage, ready, setNumber, screenshot, shot, startServer, text, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 3 };

// A small toy, so that the analyses these tests start take a fraction of a second.
const SMALL = 'n-cal=100&n-test=100&repeats=3';

// Every control of the page as the inputs show it, plus the inspector's item.
// Every input of the page (the controls, the inspector's item, the page's switches): a
// checkbox or radio button by whether it is checked, the others by value.
const controls = (page) =>
  page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('input[id]:not([type=file]):not([type=text]), select[id]')].map((e) => [
        e.id,
        e.type === 'checkbox' || e.type === 'radio' ? e.checked : e.value,
      ]),
    ),
  );

// What the view shows: the numbers of panels 3, 4, 6 and 7 and the slider readouts.
const view = (page) =>
  page.evaluate(() =>
    ['alpha-value', 'beta-value', 'sigma2-value', 'coverage-readout', 'size-readout', 'summary-table', 'item-info', 'inspector']
      .map((id) => document.getElementById(id).textContent)
      .join('\n'),
  );

// The address once the page has written `keys` into it (it writes at most every 300 ms).
async function addressWith(page, keys) {
  await page.waitForFunction((keys) => keys.every((k) => new URLSearchParams(location.search).has(k)), keys)
    .catch(async (e) => {
      const search = await page.evaluate(() => location.search);
      const missing = keys.filter((k) => !new URLSearchParams(search).has(k));
      throw new Error(`the address ${search} lacks ${missing.join(', ')} (${await text(page, '#error')}): ${e.message}`);
    });
  return page.url();
}

test('a toy permalink restores every control and the same view', LONG, async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    assert.equal(new URL(page.url()).search, '', 'the default view has a bare address');
    // The toy's size first, so each re-analysis below is quick.
    for (const [id, v] of [['repeats', 3], ['n-cal', 80], ['n-test', 60], ['k', 6], ['m', 12],
      ['mu-p', 1.5], ['sigma2-p', 0.5], ['mu-q', -0.2], ['high-var', 0.5], ['toy-seed', 7], ['cp-draw', 3]]) {
      await setNumber(page, id, v);
    }
    await page.locator('#kind').selectOption('nonparametric');
    await page.locator('#prior').selectOption('per-item');
    await page.locator('#variance').selectOption('of-mean');
    await page.locator('#never-empty').check();
    await page.locator('#large-text').check();
    await page.locator('#alpha').fill('10');
    await page.locator('#beta').fill('100');
    await page.locator('#sigma2').fill('120');
    await ready(page);
    await setNumber(page, 'item-index', 5);
    await page.waitForFunction(() => document.querySelector('#item-info').textContent.startsWith('of 60: data item'));
    const url = await addressWith(page, ['alpha', 'beta', 'sigma2', 'kind', 'prior', 'variance', 'cp-draw', 'never-empty',
      'k', 'm', 'n-cal', 'n-test', 'repeats', 'mu-p', 'sigma2-p', 'mu-q', 'high-var', 'toy-seed', 'item', 'text']);
    const before = await controls(page);
    const shown = await view(page);
    // A new browser context: nothing carried over but the address.
    const again = await explorer.open(url);
    await shot({ name: `${t.name} (reopened)` }, again.page, async () => {
      await ready(again.page);
      assert.deepEqual(await controls(again.page), before);
      assert.equal(await view(again.page), shown);
      assert.ok(await again.page.evaluate(() => document.body.classList.contains('large')));
      assert.equal(again.page.url(), url, 'the reopened page rewrote its address');
      assert.deepEqual(again.errors, []);
    });
    assert.deepEqual(errors, []);
  });
});

test('a sample permalink reloads the sample with its splits and item', LONG, async (t) => {
  const { page, errors } = await explorer.open(`?mode=scores&splits=4`);
  await shot(t, page, async () => {
    await page.locator('button.sample[data-file="small_long.csv"]').click();
    await ready(page);
    await setNumber(page, 'cal-fraction', 0.3);
    await setNumber(page, 'split-seed', 4);
    await page.locator('#kind').selectOption('nonparametric');
    await ready(page);
    await setNumber(page, 'item-index', 2);
    const url = await addressWith(page, ['mode', 'splits', 'cal-fraction', 'split-seed', 'kind', 'sample', 'item']);
    assert.equal(new URL(url).searchParams.get('sample'), 'small_long.csv');
    const before = await controls(page);
    const shown = await view(page);
    const again = await explorer.open(url);
    await shot({ name: `${t.name} (reopened)` }, again.page, async () => {
      await ready(again.page);
      assert.match(await text(again.page, '#data-name'), /small_long\.csv/);
      assert.deepEqual(await controls(again.page), before);
      assert.equal(await view(again.page), shown);
      assert.deepEqual(again.errors, []);
    });
    assert.deepEqual(errors, []);
  });
});

test('an uploaded file never enters the link; the link asks for the file', LONG, async (t) => {
  const { page, errors } = await explorer.open(`?mode=scores&splits=3`);
  await shot(t, page, async () => {
    await page.locator('#file').setInputFiles(join(ROOT, 'assets', 'small_long.csv'));
    await ready(page);
    await setNumber(page, 'item-index', 2);
    const url = await addressWith(page, ['data', 'item']);
    assert.equal(new URL(url).searchParams.get('data'), 'upload');
    assert.ok(!url.includes('small_long'), `the file name is in the link: ${url}`);
    const again = await explorer.open(url);
    await shot({ name: `${t.name} (reopened)` }, again.page, async () => {
      const note = again.page.locator('#url-notes');
      await note.waitFor();
      assert.match(await note.textContent(), /load the same file/);
      assert.match(await text(again.page, '#status'), /Load a score file/);
      assert.equal(await again.page.locator('#splits').inputValue(), '3');
      // Loading the file completes the view and retires the note.
      await again.page.locator('#file').setInputFiles(join(ROOT, 'assets', 'small_long.csv'));
      await ready(again.page);
      assert.ok(await note.isHidden());
      assert.equal(await again.page.locator('#item-index').inputValue(), '2', 'the linked item');
      assert.deepEqual(again.errors, []);
    });
    assert.deepEqual(errors, []);
  });
});

test('a bad address opens the defaults with a note, and the address is cleaned', LONG, async (t) => {
  const { page, errors } = await explorer.open(`?alpha=7&kind=magic&bogus=1&${SMALL}`);
  await shot(t, page, async () => {
    const note = page.locator('#url-notes');
    await note.waitFor();
    const msg = await note.textContent();
    assert.match(msg, /alpha=7/);
    assert.match(msg, /kind=magic/);
    assert.match(msg, /unknown parameter 'bogus'/);
    await ready(page);
    assert.equal(await text(page, '#alpha-value'), '0.1');
    assert.equal(await page.locator('#kind').inputValue(), 'parametric');
    await page.waitForFunction(() => !location.search.includes('bogus'));
    assert.equal(new URL(page.url()).search, `?${SMALL}`);
    assert.deepEqual(errors, []);
  });
});

test('Copy link puts the address on the clipboard', LONG, async (t) => {
  const { page, context, errors } = await explorer.open(`?${SMALL}&alpha=0.2`);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: explorer.url });
  await shot(t, page, async () => {
    await page.locator('#alpha').fill('30');
    // Straight away: the click writes the address itself, not waiting for the timer.
    await page.locator('#copy-link').click();
    await page.waitForFunction(() => document.querySelector('#copy-status').textContent === 'Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, page.url());
    assert.equal(new URL(copied).searchParams.get('alpha'), '0.15');
    assert.ok(await page.locator('#link-text').isHidden());
    assert.deepEqual(errors, []);
  });
});

test('without a clipboard API, Copy link shows the link selected in a field', LONG, async (t) => {
  const prepare = ({ page }) =>
    page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }));
  const { page, errors } = await explorer.open(`?${SMALL}`, { prepare });
  await shot(t, page, async () => {
    assert.equal(await page.evaluate(() => navigator.clipboard), undefined);
    await page.locator('#copy-link').click();
    const field = page.locator('#link-text');
    await field.waitFor();
    assert.equal(await field.inputValue(), page.url());
    const selected = await page.evaluate(() => {
      const f = document.activeElement;
      return f?.id === 'link-text' && f.selectionStart === 0 && f.selectionEnd === f.value.length;
    });
    assert.ok(selected, 'the link is not selected');
    assert.match(await text(page, '#copy-status'), /Copied|Ctrl\+C/);
    assert.deepEqual(errors, []);
  });
});

// Each panel, what it needs in the address, how to tell it is drawn, and the sliders it shows.
const PANELS = [
  ['scores', '', 'plot-scores', ['sigma2']],
  ['threshold', `&${SMALL}`, 'plot-threshold', ['beta', 'sigma2']],
  ['coverage', `&${SMALL}`, 'plot-coverage', ['alpha']],
  ['size', `&${SMALL}`, 'plot-size', ['alpha']],
  ['theorem3', `&${SMALL}`, 'plot-theorem3', ['alpha', 'beta', 'sigma2']],
  ['summary', `&${SMALL}`, '#summary-table tbody tr:nth-child(3)', ['alpha']],
  ['inspector', `&${SMALL}`, '#inspector .ranking:nth-child(3)', ['alpha']],
  ['data', '&mode=scores&sample=small_long.csv&splits=3', 'plot-variance', []],
  ['classes', `&${SMALL}`, 'plot-classes', ['alpha']],
];

// Non-blank pixels of a canvas.
const ink = (page, id) =>
  page.evaluate((id) => {
    const c = document.getElementById(id);
    if (!c.width || !c.height) return 0;
    const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (data[i + 3] && !(data[i] > 250 && data[i + 1] > 250 && data[i + 2] > 250)) n++;
    return n;
  }, id);

for (const [panel, extra, drawn, sliders] of PANELS) {
  test(`?embed=${panel} shows that panel alone, filling the page`, LONG, async (t) => {
    const { page, errors, messages } = await explorer.open(`?embed=${panel}${extra}`);
    await page.setViewportSize({ width: 640, height: 600 });
    await shot(t, page, async () => {
      if (drawn.startsWith('#')) {
        await page.locator(drawn).waitFor();
      } else {
        await page.waitForFunction((id) => {
          const c = document.getElementById(id);
          return c.width > 0 && c.getBoundingClientRect().width > 0;
        }, drawn);
        await page.waitForFunction(() => ['idle', 'ready'].includes(document.querySelector('#status').dataset.state));
        assert.ok((await ink(page, drawn)) > 500, `${drawn} is blank`);
      }
      const visible = await page.evaluate(() => {
        const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
        return {
          panels: [...document.querySelectorAll('.panel')].filter(shown).map((e) => e.id),
          sliders: [...document.querySelectorAll('.slider input')].filter(shown).map((e) => e.id),
          chrome: ['header.bar > :not(h1)', '#formulas', 'fieldset', '#copy-link'].filter((s) =>
            [...document.querySelectorAll(s)].some(shown)),
        };
      });
      assert.deepEqual(visible.panels, [`panel-${panel}`]);
      assert.deepEqual(visible.sliders, sliders);
      assert.deepEqual(visible.chrome, []);
      // It fills the frame's width (less the page's small margin).
      const width = await page.locator(`#panel-${panel}`).evaluate((e) => e.getBoundingClientRect().width);
      assert.ok(width >= 600, `panel width ${width} of 640`);
      assert.ok(await page.locator('#url-notes').isHidden());
      // Parametric r-values rank no draws, so the embed never asks for a GPU: this Chromium has
      // no adapter, and asking would warn "No available adapters." in the host page's console.
      assert.equal(await page.locator('#device').evaluate((e) => e.title), '');
      assert.deepEqual(messages.filter((m) => /adapter/i.test(m)), []);
      assert.deepEqual(errors, []);
    });
  });
}

test('an embed that ranks draws looks for a GPU, and falls back to the CPU', LONG, async (t) => {
  const { page, errors } = await explorer.open(`?embed=threshold&kind=nonparametric&${SMALL}`);
  await shot(t, page, async () => {
    await page.waitForFunction(() => /no GPU adapter/.test(document.querySelector('#device').title));
    await page.waitForFunction(() => ['idle', 'ready'].includes(document.querySelector('#status').dataset.state));
    assert.equal(await page.locator('#device').textContent(), 'CPU');
    assert.deepEqual(errors, []);
  });
});

test('the embed example page shows three panels sized to their content', LONG, async (t) => {
  const { page, errors } = await explorer.open('www/embed-example.html');
  await shot(t, page, async () => {
    const frames = page.locator('iframe');
    assert.equal(await frames.count(), 3);
    // The page's script sets each iframe's height from the explorer's message.
    await page.waitForFunction(() => [...document.querySelectorAll('iframe')].every((f) => f.dataset.panel));
    const ids = await frames.evaluateAll((fs) => fs.map((f) => f.dataset.panel));
    assert.deepEqual(ids, ['scores', 'threshold', 'theorem3']);
    for (let i = 0; i < 3; i++) {
      const frame = page.frames().find((f) => f.parentFrame() && f.url().includes(`embed=${ids[i]}`));
      assert.ok(frame, `no frame for ${ids[i]}`);
      await frame.waitForFunction(() => ['idle', 'ready'].includes(document.querySelector('#status').dataset.state), null, { timeout: TIMEOUT_MS * 2 });
      // Heights follow the content (which may change once more as the frame's scrollbar goes).
      await page.waitForFunction((i) => {
        const f = document.querySelectorAll('iframe')[i];
        return f.style.height === `${Math.ceil(f.contentDocument.body.getBoundingClientRect().height)}px`;
      }, i);
      const inner = await frame.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      assert.ok(inner > 250, `${ids[i]}: content only ${inner} px tall`);
      assert.ok(await frame.locator(`#panel-${ids[i]}`).isVisible());
      assert.equal(await frame.locator('.panel:visible').count(), 1);
    }
    assert.deepEqual(errors, []);
  });
});

test('dist/ served from a sub-path loads, computes and fetches only under it', LONG, async (t) => {
  // A docs site: its own index at /, the explorer copied to /docs/explorer/.
  const site = mkdtempSync(join(tmpdir(), 'rvalue-subpath-'));
  writeFileSync(join(site, 'index.html'), '<!DOCTYPE html><title>docs</title><p>docs root</p>');
  mkdirSync(join(site, 'docs'));
  symlinkSync(DIST, join(site, 'docs', 'explorer'));
  const server = await startServer(site);
  const browser = await launchBrowser();
  try {
    const { page, errors, requests } = await openPage(browser);
    await page.goto(`${server.url}docs/explorer/?${SMALL}`, { waitUntil: 'load' });
    await shot(t, page, async () => {
      await ready(page);
      await page.locator('#mode-scores').check();
      await page.locator('button.sample[data-file="small_long.csv"]').click();
      await ready(page);
      assert.match(await text(page, '#status'), /small_long\.csv/);
      const outside = requests.map((u) => new URL(u).pathname).filter((p) => !p.startsWith('/docs/explorer/'));
      assert.deepEqual(outside, []);
      assert.ok(requests.some((u) => u.endsWith('.wasm')));
      assert.deepEqual(errors, []);
    });
  } finally {
    await browser.close().catch(() => {});
    await server.close();
    rmSync(site, { recursive: true, force: true });
  }
});
