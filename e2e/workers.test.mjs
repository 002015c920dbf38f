// End-to-end tests of the toy repeats and score files' pooled splits computed in Web Workers
// (crates/web: pool.rs, worker.rs; www/worker.js) on the page that trunk built into dist/: the numbers are
// those of the page's thread alone, to the last digit of the full-precision exports, whether
// workers compute repeats or splits, a running analysis is replaced or cancelled under them, or
// they fail.
// Run: make test-e2e, or `node --test e2e/workers.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { DIST, ROOT, TIMEOUT_MS, analysesShown, download, dropped, ready, shot, text, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };
const SUMMARY_CSV = '#panel-summary button[data-export="csv"]';
const FROM_WORKERS = /\((computed in [\d.]+ s)(; (\d+) of the (?:repeats|splits) in worker threads)?\)/;
const SETS_CSV = '#panel-inspector button[data-export="csv"]';
// A score file's pooled analysis: the digits sample (1079 items, 30 draws, 10 classes).
const POOLED = 'mode=scores&sample=digits_wbb.npz&kind=pooled&splits=40';

// The finished analysis' status facts and its summary at full precision.
async function finished(page) {
  await ready(page);
  const status = (await text(page, '#status')).match(FROM_WORKERS);
  assert.ok(status, await text(page, '#status'));
  const csv = (await download(page, SUMMARY_CSV)).bytes.toString();
  const sets = (await download(page, SETS_CSV)).bytes.toString();
  return { fromWorkers: Number(status[3] ?? 0), threads: await text(page, '#threads'), csv, sets };
}

// The summary of the analysis at `query` computed by the page's thread alone (and its sets).
async function alone(query, withSets = false) {
  const { page, errors } = await explorer.open(`index.html?workers=0&${query}`);
  const r = await finished(page);
  assert.equal(r.fromWorkers, 0);
  assert.equal(r.threads, '');
  assert.deepEqual(errors, []);
  return withSets ? r : r.csv;
}

test('toy repeats computed in workers give the numbers of one thread', LONG, async (t) => {
  // 200 repeats, not the default 50: on a loaded machine the page's thread could finish 50
  // before a worker had loaded its module, and the test would then compare nothing.
  const reference = await alone('repeats=200');
  const { page, errors } = await explorer.open('index.html?workers=2&repeats=200');
  await shot(t, page, async () => {
    const r = await finished(page);
    assert.ok(r.fromWorkers >= 1, `repeats from workers: ${r.fromWorkers}`);
    assert.equal(r.threads, ' · repeats and pooled splits on 3 threads');
    assert.equal(r.csv, reference);
    assert.deepEqual(errors, []);
  });
});

test('a toy analysis replaced while workers compute its repeats shows only the new one', LONG, async (t) => {
  // 200 repeats, not the default 50: the page's thread and the worker could finish 50 before
  // the test sees the first analysis running, and the test would then replace nothing.
  const reference = await alone('toy-seed=2&repeats=200');
  const { page, errors } = await explorer.open('index.html?workers=1&repeats=200');
  await shot(t, page, async () => {
    // Workers are busy with the seed-1 analysis (the page starts it at once) when seed 2 replaces it.
    await page.waitForFunction(() => document.querySelector('#threads').textContent !== '');
    assert.ok(!(await page.locator('#cancel').isDisabled()), 'the first analysis is still running');
    await page.fill('#toy-seed', '2');
    await page.dispatchEvent('#toy-seed', 'change');
    const r = await finished(page);
    assert.match(await page.evaluate(() => location.search), /toy-seed=2/);
    assert.equal(r.csv, reference);
    assert.deepEqual(errors, []);
  });
});

test('a worker whose repeats fail hands them back and the page computes them', LONG, async (t) => {
  const reference = await alone('');
  const script = (await readFile(join(DIST, 'www', 'worker.js'), 'utf8')).replace(
    'bindings.rvalue_compute_part(request)',
    '(() => { throw new Error("a failure for the test"); })()',
  );
  assert.match(script, /a failure for the test/, 'the worker script computes where the test expects');
  const warnings = [];
  const prepare = async ({ context, page }) => {
    await context.route('**/www/worker.js', (route) =>
      route.fulfill({ body: script, contentType: 'text/javascript' }),
    );
    page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  };
  const { page, errors } = await explorer.open('index.html?workers=2', { prepare });
  await shot(t, page, async () => {
    const r = await finished(page);
    assert.equal(r.fromWorkers, 0);
    assert.equal(r.threads, '', 'failed workers are stopped');
    assert.equal(r.csv, reference);
    assert.ok(warnings.some((w) => w.includes('a failure for the test')), warnings.join('\n'));
    assert.deepEqual(errors, []);
  });
});

test("a score file's pooled splits computed in workers give the numbers of one thread", LONG, async (t) => {
  const reference = await alone(POOLED, true);
  const { page, errors } = await explorer.open(`index.html?workers=2&${POOLED}`);
  await shot(t, page, async () => {
    const r = await finished(page);
    assert.ok(r.fromWorkers >= 1, `splits from workers: ${r.fromWorkers}`);
    assert.equal(r.csv, reference.csv);
    assert.equal(r.sets, reference.sets);
    assert.deepEqual(errors, []);
  });
});

test("cancelling a score file's analysis in workers puts back the shown results at once", LONG, async (t) => {
  const { page, errors } = await explorer.open(`index.html?workers=1&${POOLED}`);
  await shot(t, page, async () => {
    const before = await finished(page);
    // 200 splits: the worker holds splits of it when Cancel is clicked.
    await page.locator('#splits').fill('200');
    await page.locator('#splits').dispatchEvent('change');
    await page.waitForFunction(() => /splits \d+\/|calibrating/.test(document.querySelector('#status').textContent));
    await page.locator('#cancel').click();
    const now = await page.evaluate(() => ({
      status: document.querySelector('#status').textContent,
      splits: document.querySelector('#splits').value,
    }));
    assert.match(now.status, /^Cancelled/);
    assert.equal(now.splits, '40', 'the split count of the shown results is back');
    // The worker's replies for the cancelled analysis arrive later, are dropped (the page marks
    // them) and change nothing.
    await dropped(page);
    assert.match(await text(page, '#status'), /^Cancelled/);
    assert.equal((await download(page, SUMMARY_CSV)).bytes.toString(), before.csv);
    assert.ok(await page.locator('#cancel').isDisabled());
    assert.deepEqual(errors, []);
  });
});

test('an embedded closed-form panel and a parametric score file start no worker', LONG, async (t) => {
  for (const query of ['embed=scores', 'mode=scores&sample=small_long.csv&splits=3&kind=parametric']) {
    const { page, errors } = await explorer.open(`index.html?${query}`);
    await shot(t, page, async () => {
      await page.waitForFunction(() => performance.getEntriesByName('rvalue:first-panel').length > 0);
      if (query.includes('sample')) await ready(page);
      // The page starts its workers with its first analysis, before it draws (or finishes) it:
      // by now it has started every worker it ever will, and says so in #threads.
      assert.equal(await text(page, '#threads'), '', query);
      assert.equal(page.workers().length, 0, query);
      assert.deepEqual(errors, []);
    });
  }
});

// The digits scores rounded to float16 by the browser's own Float16Array (not the page's code),
// as a float16 .npy, and the float32 .npy of the same values, each with the labels file: the
// two files the page is given in `drop`.
async function halfFiles(page) {
  const scores = await readFile(join(ROOT, 'assets', 'digits_wbb_scores.npy'));
  const labels = await readFile(join(ROOT, 'assets', 'digits_wbb_labels.npy'));
  return page.evaluateHandle(({ s, l }) => {
    const bytes = new Uint8Array(s);
    const start = 10 + (bytes[8] | (bytes[9] << 8));
    const header = bytes.slice(0, start);
    const at = new TextDecoder('latin1').decode(header).indexOf("'<f4'");
    if (at < 0) throw new Error('not a <f4 file');
    const halfHeader = header.slice();
    halfHeader[at + 3] = '2'.charCodeAt(0);
    const half = new Float16Array(new Float32Array(bytes.buffer.slice(start)));
    const wide = new Float32Array(half);
    const file = (h, data) => new File([h, new Uint8Array(data.buffer)], 'digits.npy');
    return {
      f16: file(halfHeader, half),
      f32: file(header, wide),
      labels: new File([new Uint8Array(l)], 'digits_wbb_labels.npy'),
    };
  }, { s: [...scores], l: [...labels] });
}

// Drops `which` of [`halfFiles`] with the labels, and waits for its finished analysis.
async function dropDigits(page, which) {
  const files = await halfFiles(page);
  const dataTransfer = await page.evaluateHandle(({ files, which }) => {
    const dt = new DataTransfer();
    dt.items.add(files[which]);
    dt.items.add(files.labels);
    return dt;
  }, { files, which });
  const before = await analysesShown(page);
  await page.dispatchEvent('#panel-summary', 'drop', { dataTransfer });
  await ready(page, before);
  assert.match(await text(page, '#status'), /^Showing digits\.npy \+ /);
  return finished(page);
}

test('a float16 .npy opens and gives the numbers of the float32 file of its values, in workers too', LONG, async (t) => {
  const one = await explorer.open(`index.html?workers=0&${POOLED}`);
  const reference = await dropDigits(one.page, 'f32');
  assert.deepEqual(one.errors, []);
  const { page, errors } = await explorer.open(`index.html?workers=2&${POOLED}`);
  await shot(t, page, async () => {
    const r = await dropDigits(page, 'f16');
    assert.equal(await text(page, '#stat-n'), '900');
    assert.ok(r.fromWorkers >= 1, `splits from workers: ${r.fromWorkers}`);
    assert.equal(r.csv, reference.csv);
    assert.equal(r.sets, reference.sets);
    assert.deepEqual(errors, []);
  });
});
