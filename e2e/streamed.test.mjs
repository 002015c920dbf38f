// Score files too large to hold, read a block at a time with File.slice by the page and its
// workers: the same numbers as the file held, a re-read only when a score option changes,
// Cancel, and a file of more than 2^28 scores (sparse: a header and `truncate`, no disk) scored
// within a memory bound. The baselines on such a file: panel 6 prints what the release `rvalue`
// prints for the same file (read in blocks by it too), with the reading `auto` chose.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ROOT, TIMEOUT_MS, analysesShown, dropped, pageSummary, ready, rendererMemory, settled, useExplorer,
} from './helpers.mjs';

const env = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 8 };
const DIR = join(ROOT, 'target', 'e2e-streamed');
mkdirSync(DIR, { recursive: true });

// A version-1 .npy header for `shape` of `descr`, padded to 64 bytes as numpy writes it.
function npyHeader(shape, descr) {
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  dict += ' '.repeat((64 - ((10 + dict.length + 1) % 64)) % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(dict.length, 8);
  return Buffer.concat([head, Buffer.from(dict, 'latin1')]);
}

const npy = (shape, descr, typed) =>
  Buffer.concat([npyHeader(shape, descr), Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength)]);

// Seeded logits [n, m, k] (a candidate's latent mean plus draw noise whose spread varies by
// candidate) and labels: what an ensemble's scores look like, small enough for any machine.
function smallFiles(n = 400, m = 8, k = 12, name = 'ensemble') {
  let x = 12345;
  const rand = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const scores = new Float32Array(n * m * k);
  const labels = new BigInt64Array(n);
  for (let i = 0; i < n; i++) {
    const y = Math.floor(rand() * k);
    labels[i] = BigInt(y);
    const mean = Array.from({ length: k }, (_, c) => (c === y ? 1.5 : 0) + rand());
    const spread = Array.from({ length: k }, () => 0.2 + 2 * rand() ** 3);
    for (let d = 0; d < m; d++) {
      for (let c = 0; c < k; c++) scores[(i * m + d) * k + c] = mean[c] + spread[c] * (rand() - 0.5);
    }
  }
  const s = join(DIR, `${name}.npy`);
  const l = join(DIR, `${name}_labels.npy`);
  writeFileSync(s, npy([n, m, k], '<f4', scores));
  writeFileSync(l, npy([n], '<i8', labels));
  return [s, l];
}

const RVALUE = join(ROOT, 'target', 'release', 'rvalue');
const text = (page, sel) => page.locator(sel).textContent();
const shareReads = (page) => page.evaluate(() => performance.getEntriesByName('rvalue:share-read').length);

// Loads `files` into a page opened at `query` and returns it once its analysis is on show.
async function loaded(query, files) {
  const { page } = await env.open(`?${query}`);
  // Score mode without a file notes that one is needed.
  await page.waitForFunction(() => ['note', 'ready'].includes(document.querySelector('#status')?.dataset.state));
  const before = await analysesShown(page);
  await page.locator('#file').setInputFiles(files);
  await ready(page, before);
  return page;
}

async function numbers(page) {
  return {
    table: await text(page, '#summary-table tbody'),
    inspector: await text(page, '#inspector'),
    coverage: await text(page, '#coverage-readout'),
  };
}

async function choose(page, id, value) {
  const before = await analysesShown(page);
  if (id === 'kind') await page.locator('#kind').selectOption(value);
  else await page.locator(`#${id}`).fill(String(value));
  await page.locator(`#${id}`).dispatchEvent('change');
  await ready(page, before);
}

test('a file read a block at a time gives the numbers of the file held, and re-reads only for a score option', LONG, async () => {
  const files = smallFiles();
  const query = 'mode=scores&kind=nonparametric&splits=3&item=4';
  const held = await loaded(query, files);
  // `stream=0`: every .npy is read a block at a time, this small one in one share.
  const streamed = await loaded(`${query}&stream=0`, files);
  assert.match(await text(streamed, '#data-name'), /read a block at a time/);
  assert.doesNotMatch(await text(held, '#data-name'), /read a block at a time/);
  assert.equal(await text(streamed, '#stat-n'), '400');
  assert.deepEqual(await numbers(streamed), await numbers(held), 'nonparametric');
  const reads = await shareReads(streamed);
  assert.ok(reads >= 1, 'the file was read in shares');

  // The splits change the calibration only: the rows are kept.
  await choose(held, 'splits', 4);
  await choose(streamed, 'splits', 4);
  assert.deepEqual(await numbers(streamed), await numbers(held), 'four splits');
  assert.equal(await shareReads(streamed), reads, 'no share read again for other splits');

  // The r-value kind is a score option: the file is read again.
  await choose(held, 'kind', 'parametric');
  await choose(streamed, 'kind', 'parametric');
  assert.deepEqual(await numbers(streamed), await numbers(held), 'parametric');
  assert.ok((await shareReads(streamed)) > reads, 'the file was read again for the new r-value kind');
});

test('a file of more than 2^28 scores opens, cancels and is scored within a memory bound', LONG, async () => {
  // 10,000 items × 60 draws × 1,000 candidates of float32: 2.4 GB that cost no disk, more
  // than twice the bound below, so the page cannot have held it.
  const [n, m, k] = [10_000, 60, 1_000];
  const big = join(DIR, 'huge.npy');
  const head = npyHeader([n, m, k], '<f4');
  writeFileSync(big, head);
  truncateSync(big, head.length + n * m * k * 4);
  const labels = join(DIR, 'huge_labels.npy');
  writeFileSync(labels, npy([n], '<i8', new BigInt64Array(n)));

  const { page } = await env.open('?splits=2');
  await ready(page);
  await page.locator('#file').setInputFiles([big, labels]);
  await page.waitForFunction(() => /reading the file/.test(document.querySelector('#status')?.textContent));
  assert.match(await text(page, '#data-name'), /10000 × 60 × 1000, 2\.4 GB\): read a block at a time/);
  // The default r-value (parametric, a prior pooled over items) reads the file once: no switch.
  assert.equal(await page.locator('#kind').inputValue(), 'parametric');
  await page.locator('#cancel').click();
  await settled(page, 'cancelled');
  await dropped(page);

  // Cancel put back the toy's settings; the file's own start the pass again (nothing was kept
  // from the cancelled one), with the default r-value again.
  const before = await analysesShown(page);
  await page.locator('#mode-scores').check();
  await ready(page, before);
  assert.equal(await page.locator('#kind').inputValue(), 'parametric');
  assert.match(await text(page, '#status'), /2 splits/);
  assert.equal(await text(page, '#stat-n'), '10000');
  const memory = await rendererMemory(page.context().browser());
  assert.ok(memory, 'the renderer memory can be read');
  // The page's bound for a file of 10⁷ candidates (this one's N × K, as the 4 GB file's): the
  // N × K rows of three methods and the items' summaries take about 0.46 GB, the page itself
  // about 0.22 GB (710–720 MB measured on the 2-core VM).
  assert.ok(memory.peakMB <= 800, `the renderer peaked at ${memory.peakMB.toFixed(0)} MB`);
  console.log(`# renderer peak ${memory.peakMB.toFixed(0)} MB`);
});

// Waits until the inspector shows rankings (a streamed file's item is read first).
async function inspected(page) {
  await page.waitForFunction(() => {
    const t = document.querySelector('#inspector')?.textContent ?? '';
    return t.length > 0 && !/reading item/.test(t);
  }, null, { timeout: TIMEOUT_MS });
}

// Chooses pooled CP_r on a streamed file: the page says what it costs and waits.
async function choosePooled(page) {
  await page.locator('#kind').selectOption('pooled');
  await page.locator('#kind').dispatchEvent('change');
  await settled(page, 'confirm');
}

test('pooled CP_r on a file read a block at a time is said first, then gives the held file\'s numbers', LONG, async () => {
  const files = smallFiles();
  const query = 'mode=scores&kind=pooled&splits=3&item=4';
  const held = await loaded(query, files);
  const streamed = await loaded(`${query}&stream=0`, files);
  // A streamed file opens with the nonparametric r-value, one read.
  assert.equal(await streamed.locator('#kind').inputValue(), 'nonparametric');
  assert.match(await text(streamed, '#data-name'), /says how long before it starts them/);

  await choosePooled(streamed);
  const start = streamed.getByRole('button', { name: 'Start' });
  assert.ok(await start.isVisible(), 'a Start button');
  assert.ok(await streamed.getByRole('button', { name: 'Cancel' }).isEnabled(), 'a Cancel button');
  const said = await text(streamed, '#status');
  assert.match(said, /^Pooled CP_r on ensemble\.npy \+ ensemble_labels\.npy reads the file \d+ times \(\d+ × 0\.0 GB/);
  assert.match(said, /about \d+ s, at stated rates .* Start it, or Cancel to keep the results shown\./);
  // Cancel: nothing starts, the settings of the results on show come back.
  await streamed.getByRole('button', { name: 'Cancel' }).click();
  await settled(streamed, 'cancelled');
  assert.match(await text(streamed, '#status'), /^Not started\./);
  assert.equal(await streamed.locator('#kind').inputValue(), 'nonparametric');
  assert.ok(await start.isHidden(), 'Start is gone');

  await choosePooled(streamed);
  const reads = await shareReads(streamed);
  const before = await analysesShown(streamed);
  await start.click();
  await ready(streamed, before);
  // CP's and CP_avg's rows were kept: only the workers read the file, for the splits.
  assert.equal(await shareReads(streamed), reads, 'no share read again');
  assert.match(await text(streamed, '#status'), /file's shares and groups of splits in worker threads|computed in/);
  await inspected(held);
  await inspected(streamed);
  assert.deepEqual(await numbers(streamed), await numbers(held), 'pooled, item 4');
  // Another item: its block is read on demand.
  for (const page of [held, streamed]) await page.locator('#item-next').click();
  await inspected(held);
  await inspected(streamed);
  assert.match(await text(streamed, '#item-info'), /^of \d+: data item \d+, true label/);
  assert.deepEqual(await numbers(streamed), await numbers(held), 'pooled, item 5');
});

test('pooled CP_r on a file read a block at a time needs workers, and cancels mid-way', LONG, async () => {
  // Without workers the page cannot read the file synchronously: it says so and starts nothing.
  const files = smallFiles();
  const alone = await loaded('mode=scores&splits=3&workers=0&stream=0', files);
  await alone.locator('#kind').selectOption('pooled');
  await alone.locator('#kind').dispatchEvent('change');
  await settled(alone, 'note');
  assert.match(await text(alone, '#status'), /needs worker threads to read it, and this page has none/);

  // Large enough for a few seconds of splits: cancelled while they run.
  const big = smallFiles(3000, 24, 60, 'longer');
  const page = await loaded('mode=scores&splits=40&stream=0', big);
  await choosePooled(page);
  await page.getByRole('button', { name: 'Start' }).click();
  await page.waitForFunction(() => /splits \d+\/40/.test(document.querySelector('#status')?.textContent));
  // Progress: splits done of all, and the time left (the estimate's until the pace says).
  assert.match(await text(page, '#status'), /^splits \d+\/40: .* – \d+ %, about \d+ (s|min) left/);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await settled(page, 'cancelled');
  await dropped(page);
  assert.equal(await page.locator('#kind').inputValue(), 'parametric');
  // The workers busy with the cancelled splits were replaced: the next analysis runs at once.
  await choose(page, 'splits', 5);
  assert.match(await text(page, '#status'), /5 splits/);
});

// The methods named in panel 6's rows.
const rows = (page) => page.locator('#summary-table tbody th').allTextContents();

test('APS on a file read a block at a time prints the command line\'s numbers and auto\'s reading', LONG, async () => {
  const files = smallFiles(400, 8, 12, 'baselines');
  const query = 'mode=scores&kind=nonparametric&splits=3&cal-fraction=0.6&split-seed=5&item=4&aps=1';
  const cli = spawnSync(RVALUE, ['conformal', '--scores', files[0], '--labels', files[1],
    '--method', 'cp,cp-avg,cp-r,aps', '--rvalue', 'nonparametric', '--splits', '3', '--cal-fraction', '0.6',
    '--seed', '5', '--alpha', '0.1', '--format', 'csv'], { encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);
  const reading = /read the scores as ([a-z-]+) \(--scores-are auto\)/.exec(cli.stderr)?.[1];
  assert.equal(reading, 'logits', cli.stderr);
  // Shares read by the workers, and by the page itself.
  const pages = [await loaded(`${query}&stream=0`, files), await loaded(`${query}&stream=0&workers=0`, files)];
  for (const page of pages) {
    assert.match(await text(page, '#data-name'), /read a block at a time/);
    assert.deepEqual(await rows(page), ['CP', 'CPavg', 'CPr', 'APS']);
    assert.equal(await text(page, '#scores-reading'), `The baselines read the scores as ${reading} (auto's choice).`);
    assert.deepEqual(await pageSummary(page), cli.stdout.trim().split('\n'));
  }
  const held = await loaded(query, files);
  const [streamed] = pages;
  assert.deepEqual(await numbers(streamed), await numbers(held), 'APS');
  // Another baseline and its parameter: the class probabilities were kept, no share is read.
  const reads = await shareReads(streamed);
  for (const page of [held, streamed]) {
    const before = await analysesShown(page);
    await page.locator('#saps').check();
    await ready(page, before);
    await choose(page, 'saps-lambda', 0.3);
  }
  assert.deepEqual(await rows(streamed), ['CP', 'CPavg', 'CPr', 'APS', 'SAPS']);
  assert.deepEqual(await numbers(streamed), await numbers(held), 'APS and SAPS, λ = 0.3');
  assert.equal(await shareReads(streamed), reads, 'no share read again');
});
