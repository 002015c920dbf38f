// End-to-end tests of the README's recipe for a MkDocs site (e2e/mkdocs/): dist/ copied to
// docs/explorer/ as it stands, served by `mkdocs serve --no-livereload` with MkDocs' default
// directory URLs. Both embedded panels render, the API page (served at /api/) imports the
// module from the one copy in explorer/api/, a failed import says so on the page, and nothing
// logs an error. Then the page is printed to PDF, and each panel's figures are measured while
// Chromium prints: the same aspect as on screen, their bitmaps redrawn at the printed size and
// aspect, the controls hidden and the frame's posted height covering what it prints.
// Run: make test-e2e (make python-venv installs the pinned mkdocs), or
// `node --test e2e/mkdocs.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DIST, ROOT, SCREENSHOTS, TIMEOUT_MS, launchBrowser, openPage, shot } from './helpers.mjs';

const LONG = { timeout: TIMEOUT_MS * 4 };
const MKDOCS = join(ROOT, 'target', 'python-venv', 'bin', 'mkdocs');
const site = { root: null, url: null, proc: null, browser: null };

// A port the OS has just handed out and taken back, for mkdocs to listen on.
async function freePort() {
  const s = createServer().listen(0, '127.0.0.1');
  await new Promise((ok) => s.once('listening', ok));
  const { port } = s.address();
  await new Promise((ok) => s.close(ok));
  return port;
}

// Starts `mkdocs serve --no-livereload` on a copy of the fixture with dist/ as docs/explorer/,
// and waits until it serves.
async function serve() {
  site.root = mkdtempSync(join(tmpdir(), 'rvalue-mkdocs-'));
  cpSync(join(ROOT, 'e2e', 'mkdocs'), site.root, { recursive: true });
  cpSync(DIST, join(site.root, 'docs', 'explorer'), { recursive: true });
  const port = await freePort();
  site.proc = spawn(MKDOCS, ['serve', '--no-livereload', '--dev-addr', `127.0.0.1:${port}`], { cwd: site.root });
  let log = '';
  await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`mkdocs serve did not start:\n${log}`)), TIMEOUT_MS);
    const read = (chunk) => {
      log += chunk;
      if (/Serving on/.test(log)) {
        clearTimeout(timer);
        ok();
      }
    };
    site.proc.stdout.on('data', read);
    site.proc.stderr.on('data', read);
    site.proc.once('exit', (code) => fail(new Error(`mkdocs serve exited (${code}):\n${log}`)));
  });
  site.url = `http://127.0.0.1:${port}/`;
}

before(async () => {
  if (!existsSync(MKDOCS)) throw new Error(`${MKDOCS} is missing: run make python-venv (it installs the pinned mkdocs)`);
  await serve();
  site.browser = await launchBrowser();
});

after(async () => {
  await site.browser?.close().catch(() => {});
  site.proc?.kill();
  if (site.root) rmSync(site.root, { recursive: true, force: true });
});

// The panels' frames of the home page, each once its analysis is shown and its figures drawn.
async function drawnFrames(page) {
  const frames = [];
  for (const id of ['embed-threshold', 'embed-coverage']) {
    const frame = await (await page.waitForSelector(`#${id}`)).contentFrame();
    await frame.waitForFunction(() => {
      const s = document.querySelector('#status');
      const shown = [...document.querySelectorAll('#panels canvas:not(.overlay)')].filter((c) => c.clientWidth > 0);
      return s?.dataset.state === 'ready' && Number(s.dataset.shown) > 0 && shown.length > 0;
    }, null, { timeout: TIMEOUT_MS * 2 });
    frames.push({ id, frame });
  }
  return frames;
}

// Whether a frame's first shown figure has anything drawn on it.
const inked = (frame) => frame.evaluate(() => {
  const c = [...document.querySelectorAll('#panels canvas:not(.overlay)')].find((e) => e.clientWidth > 0);
  const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let dark = 0;
  for (let i = 0; i < px.length; i += 4) dark += px[i + 3] > 0 && px[i] < 128 ? 1 : 0;
  return dark;
});

test('the README\'s MkDocs site: two embeds and the API page, no console error', LONG, async (t) => {
  const { page, errors } = await openPage(site.browser);
  await page.goto(site.url);
  await shot(t, page, async () => {
    for (const { id, frame } of await drawnFrames(page)) {
      assert.ok(await inked(frame) > 100, `${id} draws its figure`);
      const height = await page.$eval(`#${id}`, (f) => f.getBoundingClientRect().height);
      assert.ok(height > 200, `${id} is fitted to the height it posts (${height} px)`);
    }
    const coverage = await (await page.$('#embed-coverage')).contentFrame();
    assert.match(await coverage.locator('#status').textContent(), /Digits ensemble/);
    await page.goto(`${site.url}api/`);
    await page.waitForFunction(() => /^r-values: /.test(document.querySelector('#rvalue-out').textContent));
    const values = (await page.textContent('#rvalue-out')).slice('r-values: '.length).split(', ').map(Number);
    assert.equal(values.length, 3);
    for (const v of values) assert.ok(v >= 0 && v <= 1, `${values}`);
    assert.deepEqual(errors, []);
  });
});

test('a failed import of the module says so on the API page', LONG, async (t) => {
  const { page } = await openPage(site.browser);
  await page.route('**/explorer/api/rvalue.js', (route) => route.fulfill({ status: 404, body: 'not here' }));
  await page.goto(`${site.url}api/`);
  await shot(t, page, async () => {
    await page.waitForFunction(() => !/^Loading/.test(document.querySelector('#rvalue-out').textContent));
    assert.match(await page.textContent('#rvalue-out'), /^The r-value module did not load: .+/);
  });
});

// Each shown figure's box and bitmap, whether the controls print, and the content's height
// against the frame's (the height the parent set from the frame's messages).
function measure() {
  const figures = [...document.querySelectorAll('#panels canvas:not(.overlay)')]
    .filter((c) => c.clientWidth > 0)
    .map((c) => ({ id: c.id, box: [c.clientWidth, c.clientHeight], bitmap: [c.width, c.height] }));
  const shown = (sel) => [...document.querySelectorAll(sel)].some((e) => e.getClientRects().length > 0);
  return {
    figures,
    controls: ['.slider input[type=range]', '#status', '.export button'].filter(shown),
    content: Math.ceil(document.body.getBoundingClientRect().height),
    frame: innerHeight,
  };
}

const aspect = ([w, h]) => w / h;

test('printed to PDF, each figure keeps its screen aspect and is redrawn at its printed size', LONG, async (t) => {
  const { page, errors } = await openPage(site.browser);
  await page.goto(site.url);
  await shot(t, page, async () => {
    const frames = await drawnFrames(page);
    for (const f of frames) {
      f.screen = await f.frame.evaluate(measure);
      // Runs after the page's own listener (added at start-up): measures the printed layout
      // once the page has redrawn its figures for it, while Chromium prints.
      await f.frame.evaluate((m) => {
        const measure = new Function(`return (${m})()`);
        matchMedia('print').addEventListener('change', (e) => { if (e.matches) window.__printed = measure(); });
      }, measure.toString());
    }
    mkdirSync(SCREENSHOTS, { recursive: true });
    const path = join(SCREENSHOTS, 'mkdocs-print.pdf');
    await page.pdf({ path, format: 'A4', margin: { top: '15mm', bottom: '15mm', left: '15mm', right: '15mm' } });
    assert.equal(readFileSync(path).subarray(0, 5).toString(), '%PDF-');
    for (const { id, frame, screen } of frames) {
      const printed = await frame.evaluate(() => window.__printed ?? null);
      assert.ok(printed, `${id} saw the page printed`);
      t.diagnostic(`${id}: screen ${JSON.stringify(screen)}; printed ${JSON.stringify(printed)}`);
      assert.deepEqual(printed.controls, [], `${id} prints no control`);
      assert.ok(printed.content <= printed.frame, `${id}: printed content ${printed.content} px, frame ${printed.frame} px`);
      assert.deepEqual(printed.figures.map((f) => f.id), screen.figures.map((f) => f.id));
      for (const [i, p] of printed.figures.entries()) {
        const s = screen.figures[i];
        const ratio = aspect(p.box) / aspect(s.box);
        t.diagnostic(`${id} #${p.id}: screen ${aspect(s.box).toFixed(4)}, printed ${aspect(p.box).toFixed(4)} (box), ${aspect(p.bitmap).toFixed(4)} (bitmap)`);
        assert.ok(Math.abs(ratio - 1) < 0.02, `#${p.id}: printed aspect ${aspect(p.box)} against ${aspect(s.box)} on screen`);
        assert.ok(Math.abs(aspect(p.bitmap) / aspect(p.box) - 1) < 0.02, `#${p.id}: bitmap ${p.bitmap} in a ${p.box} box`);
        assert.ok(p.bitmap[0] >= 2 * p.box[0] - 1, `#${p.id} is redrawn for print: bitmap ${p.bitmap}, box ${p.box}`);
      }
      // Printing over, the figures are drawn for the screen again.
      await frame.waitForFunction(() => [...document.querySelectorAll('#panels canvas:not(.overlay)')]
        .every((c) => c.clientWidth === 0 || Math.abs(c.width - c.clientWidth * devicePixelRatio) <= 1));
    }
    assert.deepEqual(errors, []);
  });
});
