// End-to-end tests of a saved report (rvalue_explorer.save_html): the file the installed Python
// package writes, opened from disk (file://) in Chromium with the network closed. Its panels
// draw the data's numbers (panel 6 equals the command line's summary on the same data and
// settings), its Content-Security-Policy reports no violation, and hostile class names, a
// hostile display name and hostile parameters in its address show as text or are refused
// with a sentence: no dialog, no injected script (it would set window.__pwned), a valid SVG.
// Run: make test (test-python installs the package first), or `node --test
// e2e/report.test.mjs` after `make test-python`.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { ROOT, TIMEOUT_MS, download, launchBrowser, pageSummary, ready, shot, svgInspected, text } from './helpers.mjs';

const LONG = { timeout: TIMEOUT_MS * 4 };
const PYTHON = join(ROOT, 'target', 'python-venv', 'bin', 'python');
const RVALUE = join(ROOT, 'target', 'release', 'rvalue');
const DIGITS = join(ROOT, 'assets', 'digits_wbb.npz');
const DIR = mkdtempSync(join(tmpdir(), 'rvalue-report-'));
const ATTACKS = [
  '<img src=x onerror="window.__pwned=1;alert(1)">',
  '</script><script>window.__pwned=2;alert(2)</script>',
  '"><svg onload="window.__pwned=3;alert(3)">',
];
const SETTINGS = "splits=3, cal_fraction=0.6, split_seed=5, alpha=0.1";
const WRITE = `
import json, sys
import numpy as np
import rvalue_explorer as rx
d = np.load(sys.argv[1])
kw = json.loads(sys.argv[3])
rx.save_html(sys.argv[2], d["scores"], d["labels"], ${SETTINGS}, **kw)
`;

// Writes a report of the digits sample with `extra` settings (class_names, name) and returns
// its file:// address.
function report(file, extra = {}) {
  const path = join(DIR, file);
  const done = spawnSync(PYTHON, ['-c', WRITE, DIGITS, path, JSON.stringify(extra)], { encoding: 'utf8' });
  assert.equal(done.status, 0, `${done.error ?? ''}${done.stderr} (make test-python installs the package)`);
  return pathToFileURL(path).href;
}

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close().catch(() => {});
  rmSync(DIR, { recursive: true, force: true });
});

// The report opened offline: only file:, data: and blob: addresses are served, the rest
// recorded and aborted. Records errors, dialogs and policy violations from the start.
async function open(url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  context.setDefaultTimeout(TIMEOUT_MS);
  await context.setOffline(true);
  const opened = { context, errors: [], dialogs: [], outside: [] };
  await context.route('**/*', (route) => {
    const u = route.request().url();
    if (/^(file|data|blob):/.test(u)) return route.continue();
    opened.outside.push(u);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && opened.errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => opened.errors.push(`page error: ${e.stack ?? e}`));
  page.on('dialog', (d) => {
    opened.dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url, { waitUntil: 'load' });
  return { ...opened, page };
}

// Nothing injected ran, nothing left the machine, the policy saw nothing to refuse.
async function inert(opened) {
  const { page } = opened;
  assert.deepEqual(opened.dialogs, []);
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(opened.outside, []);
}

test('a saved report draws its data offline from disk, with the command line\'s numbers', LONG, async (t) => {
  const opened = await open(report('digits.html'));
  const { page } = opened;
  try {
    await shot(t, page, async () => {
      await ready(page);
      const cli = spawnSync(RVALUE, ['conformal', '--scores', DIGITS, '--method', 'cp,cp-avg,cp-r', '--splits', '3',
        '--cal-fraction', '0.6', '--seed', '5', '--alpha', '0.1', '--format', 'csv'], { encoding: 'utf8' });
      assert.equal(cli.status, 0, cli.stderr);
      assert.deepEqual(await pageSummary(page), cli.stdout.trim().split('\n'));
      // The figures drew: each canvas of a visible panel holds pixels that are not blank.
      const drawn = await page.$$eval('#panel-coverage canvas, #panel-classes canvas', (cs) => cs.map((c) => {
        const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        return px.some((v, i) => i % 4 === 3 && v > 0);
      }));
      assert.ok(drawn.length >= 2 && drawn.every(Boolean), JSON.stringify(drawn));
      await inert(opened);
      assert.deepEqual(opened.errors, []);
    });
  } finally {
    await opened.context.close();
  }
});

test('a report\'s hostile class names and display name show as text, in the page, its SVG and PNG', LONG, async (t) => {
  const names = Array.from({ length: 10 }, (_, i) => `${ATTACKS[i % 3]} ${i}`);
  const opened = await open(report('hostile.html', { class_names: names, name: ATTACKS[1] }));
  const { page } = opened;
  try {
    await shot(t, page, async () => {
      await ready(page);
      assert.ok((await text(page, '#data-name')).includes(ATTACKS[1]));
      const shown = await page.$$eval('#worst-classes button', (bs) => bs.map((b) => b.textContent));
      assert.ok(shown.length > 0);
      for (const line of shown) assert.ok(names.some((n) => line.includes(n)), line);
      assert.equal(await page.locator('body img[src="x"], body svg[onload], #panel-classes script').count(), 0);
      const svg = (await download(page, '#panel-classes button[data-export="svg"]')).bytes.toString('utf8');
      const { texts, ...parsed } = await svgInspected(page, svg);
      assert.deepEqual(parsed, { error: null, scripts: 0, handlers: [] });
      assert.ok(texts.some((s) => names.some((n) => s.includes(n.slice(0, 12)))), texts.join(' | '));
      // The PNG export opens: decoded by the browser in a blank page (the report's policy
      // rightly allows no images from data: addresses).
      const png = (await download(page, '#panel-classes button[data-export="png"]')).bytes;
      const blank = await page.context().newPage();
      const size = await blank.evaluate(async (b64) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        return [img.naturalWidth, img.naturalHeight];
      }, png.toString('base64'));
      await blank.close();
      assert.ok(size[0] > 100 && size[1] > 100, `the PNG decodes to ${size}`);
      // The address now holds the view; reloaded, the page keeps the report's name.
      await page.waitForFunction(() => new URLSearchParams(location.search).get('mode') === 'scores');
      await page.reload({ waitUntil: 'load' });
      await ready(page);
      assert.ok((await text(page, '#data-name')).includes(ATTACKS[1]));
      await inert(opened);
      assert.deepEqual(opened.errors, []);
    });
  } finally {
    await opened.context.close();
  }
});

test('hostile parameters in a report\'s address are quoted as text or refused', LONG, async (t) => {
  const url = new URL(report('address.html'));
  for (const bad of ['x'.repeat(10_000), 'abc\u202Egpj.exe']) {
    const params = new URLSearchParams({ splits: '1', name: bad });
    params.append(ATTACKS[0], ATTACKS[2]);
    url.search = params.toString();
    const opened = await open(url.href);
    const { page } = opened;
    try {
      await shot(t, page, async () => {
        await ready(page);
        const notes = await text(page, '#url-notes');
        assert.ok(notes.includes(`unknown parameter '${ATTACKS[0].slice(0, 40)}`), notes);
        assert.match(notes, /'name' (is longer than 200 characters|holds a bidirectional control character \(U\+202E\)): the data's own name is shown/);
        assert.ok(!(await text(page, '#data-name')).includes(bad.slice(0, 20)));
        await inert(opened);
      });
    } finally {
      await opened.context.close();
    }
  }
});
