// End-to-end tests of what the page says about what it computes, in the page that trunk built
// into dist/: panel 7's first-split sets and split mask against `rvalue sets --split-index 0`
// (the release binary) on the same file and settings; the core's warnings as a note; panels 2
// and 5 and the formulas following CP_r's r-value; σ² starting at the data's median variance;
// messages without an error kind's prefix.
// Run: make test-e2e, or `node --test e2e/explain.test.mjs` after `trunk build --release` and
// `cargo build --release --bin rvalue`.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import {
  ROOT, TIMEOUT_MS, analysesShown, download, npyArray, npzArray, ready, shot, slide, text, useExplorer,
} from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };
const RVALUE = join(ROOT, 'target', 'release', 'rvalue');
const DIGITS = join(ROOT, 'assets', 'digits_wbb.npz');
const BAD = join(ROOT, 'tests', 'data', 'bad');
const SETS_CSV = '#panel-inspector button[data-export="csv"]';
const dir = mkdtempSync(join(tmpdir(), 'rvalue-explain-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// `rvalue sets` on the digits with the page's split settings: its CSV and the mask it saved.
function cliSets(tag, args) {
  const [out, mask] = [join(dir, `${tag}.csv`), join(dir, `${tag}-mask.npy`)];
  execFileSync(RVALUE, ['sets', '--scores', DIGITS, '--alpha', '0.1', '--device', 'cpu', ...args,
    '--output', out, '--save-split', mask], { stdio: ['ignore', 'ignore', 'pipe'] });
  return { csv: readFileSync(out, 'utf8'), mask: readFileSync(mask) };
}

test('the first split\'s sets CSV and mask are what rvalue sets --split-index 0 writes', LONG, async (t) => {
  const split = ['--seed', '5', '--cal-fraction', '0.6', '--split-index', '0'];
  const { page, errors } = await explorer.open(
    'index.html?mode=scores&sample=digits_wbb.npz&splits=3&cal-fraction=0.6&split-seed=5&kind=pooled&prior=pooled');
  await shot(t, page, async () => {
    await ready(page);
    // Pooled, then nonparametric, then parametric with a per-item prior: CP_r's three kinds.
    const kinds = [['pooled', 'pooled'], ['nonparametric', 'pooled'], ['parametric', 'per-item']];
    for (const [i, [kind, prior]] of kinds.entries()) {
      if (i > 0) {
        const before = await analysesShown(page);
        await page.locator('#prior').selectOption(prior);
        await page.locator('#kind').selectOption(kind);
        await ready(page, before);
        await page.waitForFunction((k) => document.querySelector('#kind').value === k, kind);
      }
      const sets = (await download(page, SETS_CSV)).bytes.toString('utf8');
      const mask = await download(page, '#split-mask');
      assert.equal(mask.name, 'rvalue-explorer-split-0.npy');
      const cli = cliSets(kind, [...split, '--rvalue', kind, '--prior', prior]);
      assert.equal(sets.split('\n')[0], 'method,item,candidate,score,position');
      assert.ok(sets === cli.csv, `${kind}: the page's CSV differs from rvalue sets' (first lines ` +
        `${JSON.stringify(sets.split('\n').slice(0, 3))} vs ${JSON.stringify(cli.csv.split('\n').slice(0, 3))})`);
      assert.ok(mask.bytes.equals(cli.mask), `${kind}: the mask differs from --save-split's`);
      // The page's mask, given back as --split, splits and keys the tie order alike.
      const maskPath = join(dir, `page-${kind}.npy`);
      writeFileSync(maskPath, mask.bytes);
      const out = join(dir, `again-${kind}.csv`);
      execFileSync(RVALUE, ['sets', '--scores', DIGITS, '--alpha', '0.1', '--device', 'cpu', '--rvalue', kind,
        '--prior', prior, '--split', maskPath, '--seed', '5', '--output', out], { stdio: ['ignore', 'ignore', 'pipe'] });
      assert.ok(readFileSync(out, 'utf8') === sets, `${kind}: --split with the page's mask`);
    }
    const m = npyArray(readFileSync(join(dir, 'page-pooled.npy')));
    assert.deepEqual([m.descr, m.shape], ['|b1', [900]]);
    assert.equal(m.values.filter(Boolean).length, 540);
    assert.deepEqual(errors, []);
  });
});

test('the core\'s warnings show as a note while they apply', LONG, async (t) => {
  // 45 calibration items: α = 0.005 is below 1/46.
  const { page, errors } = await explorer.open(
    'index.html?mode=scores&sample=digits_wbb.npz&splits=2&cal-fraction=0.05&alpha=0.005');
  await shot(t, page, async () => {
    await ready(page);
    const notes = page.locator('#data-notes');
    assert.ok(await notes.isVisible());
    assert.match(await notes.textContent(), /^α = 0\.005 is below 1\/\(n_cal \+ 1\) = 2\.174e-2 with 45 calibration items: q̂ = \+∞, so every prediction set is full\.$/);
    await slide(page, 'alpha', 20);
    await page.waitForFunction(() => document.querySelector('#data-notes').hidden);
    assert.deepEqual(errors, []);
  });
  const other = await explorer.open('index.html?mode=scores&kind=pooled');
  await shot(t, other.page, async () => {
    const { page } = other;
    const notes = page.locator('#data-notes');
    // A tensor stacked [N, K, M]: its labels use 4 of the 10 "candidates" (and its M = 4 draws
    // are few for pooled r-values).
    await page.locator('#file').setInputFiles(join(BAD, 'transposed.npz'));
    await page.waitForFunction(() => /is the tensor/.test(document.querySelector('#data-notes').textContent));
    assert.ok(await notes.isVisible());
    const lines = await page.$$eval('#data-notes p', (ps) => ps.map((p) => p.textContent));
    assert.equal(lines.length, 2, lines.join(' | '));
    assert.match(lines[0], /^The labels use 4 of the K = 10 candidates: is the tensor \[N, M, K\]\?/);
    assert.match(lines[1], /^Pooled r-values count ranks over M = 4 draws/);
    // Nonparametric r-values over K = 4 candidates are coarse; 3 calibration items are few.
    await page.locator('#kind').selectOption('nonparametric');
    await page.locator('#file').setInputFiles(join(BAD, 'n6_alpha_too_small.npz'));
    await page.waitForFunction(() => /only 5 sizes are possible/.test(document.querySelector('#data-notes').textContent));
    assert.match(await notes.textContent(), /with 3 calibration items: q̂ = \+∞, so every prediction set is full\./);
    assert.deepEqual(other.errors, []);
  });
});

test('panels 2 and 5 and the formulas follow CP_r\'s r-value; σ² starts at the median variance', LONG, async (t) => {
  const { page, errors } = await explorer.open('index.html?mode=scores&sample=digits_wbb.npz&splits=2&kind=pooled');
  await shot(t, page, async () => {
    await ready(page);
    const shown = async (id) => page.locator(`#${id}`).isVisible();
    assert.equal(await page.locator('#split-mask').isVisible(), true);
    assert.match(await text(page, '#threshold-kind'), /^Parametric view only: CP_r here uses pooled r-values/);
    assert.match(await text(page, '#theorem3-kind'), /^Parametric view only/);
    assert.match(await text(page, '#formulas-kind'), /^CP_r uses the pooled r-value/);
    assert.deepEqual([await shown('formula-pooled'), await shown('formula-nonparametric')], [true, false]);
    await page.locator('#kind').selectOption('nonparametric');
    await page.waitForFunction(() => !document.querySelector('#formula-nonparametric').hidden);
    assert.match(await text(page, '#threshold-kind'), /^Parametric view only: CP_r here uses nonparametric r-values/);
    assert.equal(await shown('formula-pooled'), false);
    await page.locator('#kind').selectOption('parametric');
    await page.waitForFunction(() => document.querySelector('#formula-nonparametric').hidden);
    assert.match(await text(page, '#threshold-kind'), /^CP_r uses this parametric r-value\./);
    assert.equal(await shown('theorem3-kind'), false);
    assert.equal(await shown('formula-pooled'), false);

    // σ² sits at the slider value nearest the median of the candidates' per-draw variances.
    const scores = npzArray(readFileSync(DIGITS), 'scores.npy');
    const [n, m, k] = scores.shape;
    const variances = [];
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < k; c++) {
        const xs = Array.from({ length: m }, (_, d) => scores.values[(i * m + d) * k + c]);
        const mean = xs.reduce((a, b) => a + b, 0) / m;
        variances.push(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (m - 1));
      }
    }
    variances.sort((a, b) => a - b);
    const median = (variances[n * k / 2 - 1] + variances[n * k / 2]) / 2;
    const sigma2 = Number(await text(page, '#sigma2-value'));
    assert.ok(Math.abs(Math.log(sigma2 / median)) < 0.035, `σ² = ${sigma2}, median ${median}`);
    assert.match(await text(page, '#theorem3-note'), new RegExp(`σ² = ${sigma2} marked`));
    // The variance of the mean is M times smaller: the marker starts again at its median.
    const before = await analysesShown(page);
    await page.locator('#variance').selectOption('of-mean');
    await ready(page, before);
    await page.waitForFunction((s) => document.querySelector('#sigma2-value').textContent !== s, String(sigma2));
    const ofMean = Number(await text(page, '#sigma2-value'));
    assert.ok(Math.abs(Math.log(ofMean * m / median)) < 0.01, `σ² = ${ofMean}, median ${median / m}`);
    // Back to the toy: its σ² is its own again.
    await page.locator('#mode-toy').check();
    await page.waitForFunction(() => document.querySelector('#sigma2-value').textContent === '1000');
    // A toy repeat is simulated, not split from a file: no mask to download.
    await ready(page);
    assert.equal(await page.locator('#split-mask').isHidden(), true);
    assert.deepEqual(errors, []);
  });
  // A link's σ² stays on the file it names.
  const again = await explorer.open('index.html?mode=scores&sample=digits_wbb.npz&splits=2&sigma2=30');
  await ready(again.page);
  assert.equal(await text(again.page, '#sigma2-value'), '30');
});

test('a file without labels is refused in a sentence, with no error kind', LONG, async (t) => {
  const { page, errors } = await explorer.open('index.html?mode=scores');
  // A name without "label" in it: such a file would be taken for the labels.
  const file = join(dir, 'scores_v2.npy');
  writeFileSync(file, readFileSync(join(BAD, 'no_labels.npy')));
  await shot(t, page, async () => {
    await page.locator('#file').setInputFiles(file);
    await page.waitForFunction(() => !document.querySelector('#error').hidden);
    const msg = await text(page, '#error');
    assert.match(msg, /^scores_v2\.npy has no labels: conformal prediction needs the true label of every item/);
    assert.match(msg, /\. The results shown are unchanged\.$/);
    assert.doesNotMatch(msg, /invalid argument|shape mismatch/);
    assert.deepEqual(errors, []);
  });
});
