// End-to-end tests of `?src=`: a score file hosted on the page's own site, in the page that
// trunk built into dist/. The hosted .npz gives the bundled sample's numbers to the last digit
// and stays in the address; a hosted .npy with `&labels=` gives the command line's numbers; a
// missing file, a web page and another site's address each get one sentence, and nothing is
// fetched from another site.
// Run: make test-e2e, or `node --test e2e/hosted.test.mjs` after `trunk build --release` and
// `cargo build --release --bin rvalue`.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  DIST, ROOT, TIMEOUT_MS, analysesShown, launchBrowser, openPage, pageSummary, ready, settled, shot, startServer, text, useExplorer,
} from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };
const RVALUE = join(ROOT, 'target', 'release', 'rvalue');
const SPLITS = 'mode=scores&splits=3&cal-fraction=0.6&split-seed=5&workers=0';

// Waits until the error banner says something, and returns it.
async function errorShown(page) {
  await page.waitForFunction(() => document.querySelector('#error')?.textContent.trim().length > 0, null, { timeout: TIMEOUT_MS });
  return text(page, '#error');
}

test('a hosted .npz gives the bundled sample\'s numbers and stays in the link', LONG, async (t) => {
  const sample = await explorer.open(`index.html?${SPLITS}&sample=digits_wbb.npz`);
  await ready(sample.page);
  const want = await pageSummary(sample.page);
  const { page, errors } = await explorer.open(`index.html?${SPLITS}&src=assets/digits_wbb.npz`);
  await shot(t, page, async () => {
    await ready(page);
    assert.deepEqual(await pageSummary(page), want);
    assert.match(await text(page, '#status'), /digits_wbb\.npz/);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('src') === 'assets/digits_wbb.npz');
    assert.equal(new URLSearchParams(await page.evaluate(() => location.search)).get('sample'), null);
    assert.deepEqual(errors, []);
  });
});

test('a hosted .npy with its labels gives the command line\'s numbers', LONG, async (t) => {
  // A site of its own: the page's files and a data folder beside them.
  const root = mkdtempSync(join(tmpdir(), 'rvalue-hosted-'));
  cpSync(DIST, root, { recursive: true });
  mkdirSync(join(root, 'data'));
  cpSync(join(ROOT, 'assets', 'digits_wbb_scores.npy'), join(root, 'data', 'scores.npy'));
  cpSync(join(ROOT, 'assets', 'digits_wbb_labels.npy'), join(root, 'data', 'labels.npy'));
  const server = await startServer(root);
  const browser = await launchBrowser();
  try {
    const { page, errors, requests } = await openPage(browser);
    await page.goto(`${server.url}index.html?${SPLITS}&src=data/scores.npy&labels=data/labels.npy`);
    await shot(t, page, async () => {
      await ready(page);
      const cli = spawnSync(RVALUE, ['conformal', '--scores', join(root, 'data', 'scores.npy'),
        '--labels', join(root, 'data', 'labels.npy'), '--splits', '3', '--cal-fraction', '0.6',
        '--seed', '5', '--alpha', '0.1', '--format', 'csv'], { encoding: 'utf8' });
      assert.equal(cli.status, 0, cli.stderr);
      assert.deepEqual(await pageSummary(page), cli.stdout.trim().split('\n'));
      const q = new URLSearchParams(await page.evaluate(() => location.search));
      assert.deepEqual([q.get('src'), q.get('labels')], ['data/scores.npy', 'data/labels.npy']);
      assert.equal(requests.filter((u) => u.includes('/data/')).length, 2);
      assert.deepEqual(errors, []);
    });
  } finally {
    await browser.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('a missing file, a web page and another site each get one sentence', LONG, async (t) => {
  const cases = [
    ['assets/missing.npz', /'assets\/missing\.npz' could not be fetched: HTTP 404\./],
    ['index.html', /'index\.html' is a web page, not a score file/],
    ['http://127.0.0.2:9/x.npz', /'http:\/\/127\.0\.0\.2:9\/x\.npz' is on another site \(http:\/\/127\.0\.0\.2:9\); the page loads hosted files from its own site/],
  ];
  for (const [src, sentence] of cases) {
    const { page, errors, requests } = await explorer.open(`index.html?${SPLITS}&src=${encodeURIComponent(src)}`);
    await shot(t, page, async () => {
      const shown = await errorShown(page);
      assert.match(shown, sentence);
      // Nothing was fetched from another site, and no policy was broken to find that out.
      assert.deepEqual(requests.filter((u) => !u.startsWith(explorer.url)), []);
      const unexpected = errors.filter((e) => !(src === 'assets/missing.npz' && /HTTP 404|status of 404/.test(e)));
      assert.deepEqual(unexpected, []);
    });
  }
});

test('&name= is the hosted file\'s name on the page, as text; a deceptive one is refused', LONG, async (t) => {
  const name = '<img src=x onerror="window.__pwned=1"> CLIP & co';
  const { page, errors } = await explorer.open(`index.html?${SPLITS}&src=assets/digits_wbb.npz&name=${encodeURIComponent(name)}`);
  await shot(t, page, async () => {
    await ready(page);
    assert.equal(await text(page, '#data-name'), `Loaded ${name}: the data stays in this page.`);
    assert.equal(await text(page, '#stat-file'), name);
    assert.match(await text(page, '#status'), /CLIP & co/);
    assert.equal(await page.locator('body img[src="x"]').count(), 0);
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
    await page.waitForFunction((n) => new URLSearchParams(location.search).get('name') === n, name);
    assert.deepEqual(errors, []);
  });
  for (const [bad, why] of [['abc\u202Egpj.npz', /'name=abc.gpj\.npz' holds a bidirectional control character \(U\+202E\)/],
    ['x'.repeat(300), /'name=x+…?' is longer than 200 characters/]]) {
    const { page } = await explorer.open(`index.html?${SPLITS}&src=assets/digits_wbb.npz&name=${encodeURIComponent(bad)}`);
    await shot(t, page, async () => {
      await ready(page);
      assert.match(await text(page, '#url-notes'), why);
      assert.equal(await text(page, '#stat-file'), 'digits_wbb.npz');
    });
  }
});

// A site of its own: the page's files and the digits sample's .npy pair in data/, served with
// or without Range requests (`options` as startServer takes them).
async function digitsSite(options) {
  const root = mkdtempSync(join(tmpdir(), 'rvalue-ranged-'));
  cpSync(DIST, root, { recursive: true });
  mkdirSync(join(root, 'data'));
  cpSync(join(ROOT, 'assets', 'digits_wbb_scores.npy'), join(root, 'data', 'scores.npy'));
  cpSync(join(ROOT, 'assets', 'digits_wbb_labels.npy'), join(root, 'data', 'labels.npy'));
  const server = await startServer(root, options);
  const browser = await launchBrowser();
  const open = async (query) => {
    const opened = await openPage(browser);
    await opened.page.goto(`${server.url}index.html?${query}`);
    await ready(opened.page);
    return opened;
  };
  const close = async () => {
    await browser.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  };
  return { open, close, size: statSync(join(root, 'data', 'scores.npy')).size };
}

// Chooses the r-value kind `kind` on `page` and waits for the analysis after it.
async function choose(page, kind) {
  const before = await analysesShown(page);
  await page.locator('#kind').selectOption(kind);
  await page.locator('#kind').dispatchEvent('change');
  await ready(page, before);
}

// Waits until the inspector shows rankings (a streamed file's item is read first).
async function inspected(page) {
  await page.waitForFunction(() => {
    const t = document.querySelector('#inspector')?.textContent ?? '';
    return t.length > 0 && !/reading item/.test(t);
  }, null, { timeout: TIMEOUT_MS });
}

const RANGED = 'mode=scores&kind=nonparametric&splits=3&item=4&src=data/scores.npy&labels=data/labels.npy';
const numbers = async (page) => ({
  table: await text(page, '#summary-table tbody'),
  inspector: await text(page, '#inspector'),
  coverage: await text(page, '#coverage-readout'),
});

test('a hosted .npy whose server answers Range requests is read a block at a time, as held', LONG, async (t) => {
  const log = [];
  const site = await digitsSite({ ranges: true, log });
  try {
    const held = await site.open(RANGED);
    log.length = 0;
    // `stream=0`: a file of any size is read a block at a time where its server allows.
    const { page, errors } = await site.open(`${RANGED}&stream=0`);
    await shot(t, page, async () => {
      assert.match(await text(page, '#data-name'), /read a block at a time/);
      assert.doesNotMatch(await text(held.page, '#data-name'), /read a block at a time/);
      assert.deepEqual(await numbers(page), await numbers(held.page));
      const reads = log.filter((e) => e.path === '/data/scores.npy');
      assert.ok(reads.length >= 2, `${reads.length} reads of the scores`);
      // The header comes from the first answer: the file's start is asked for once.
      assert.equal(reads.filter((r) => r.range?.startsWith('bytes=0-')).length, 1, JSON.stringify(reads));
      for (const r of reads) {
        assert.equal(r.status, 206, `${r.range} answered ${r.status}`);
        assert.ok(r.bytes < site.size, `${r.range} carried ${r.bytes} of ${site.size} bytes`);
      }
      const q = new URLSearchParams(await page.evaluate(() => location.search));
      assert.deepEqual([q.get('src'), q.get('labels')], ['data/scores.npy', 'data/labels.npy']);

      // Pooled CP_r: the workers hold the file by its address and read its splits' bytes.
      const before = log.length;
      await choose(held.page, 'pooled');
      await page.locator('#kind').selectOption('pooled');
      await page.locator('#kind').dispatchEvent('change');
      await settled(page, 'confirm');
      const shown = await analysesShown(page);
      await page.getByRole('button', { name: 'Start' }).click();
      await ready(page, shown);
      await inspected(page);
      await inspected(held.page);
      assert.deepEqual(await numbers(page), await numbers(held.page), 'pooled');
      const more = log.slice(before).filter((e) => e.path === '/data/scores.npy');
      assert.ok(more.length >= 2, 'a worker read the file by its address');
      assert.ok(more.every((r) => r.status === 206 && r.bytes < site.size));
      assert.deepEqual(errors, []);
      assert.deepEqual(held.errors, []);
    });
  } finally {
    await site.close();
  }
});

test('a server that ignores Range requests still works: the file is read whole, and the page says so', LONG, async (t) => {
  const log = [];
  const site = await digitsSite({ ranges: false, log });
  try {
    const held = await site.open(RANGED);
    const { page, errors } = await site.open(`${RANGED}&stream=0`);
    await shot(t, page, async () => {
      assert.match(await text(page, '#data-name'), /does not answer HTTP Range requests, so it was read whole \(1\.1 MB\)/);
      assert.deepEqual(await numbers(page), await numbers(held.page));
      assert.ok(log.filter((e) => e.path === '/data/scores.npy').every((e) => e.status === 200));
      assert.deepEqual(errors, []);
    });
  } finally {
    await site.close();
  }
});
