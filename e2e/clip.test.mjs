// End-to-end tests of the bundled CLIP-like paraphrase sample (assets/clip_paraphrases.npz,
// written by scripts/make_clip_sample.py): tour step 9 offers it beside the digits, and on it at
// α = 0.05 panel 6 shows what the paper's Table 1 shows on CLIP, CP_r's sets smaller than
// CP_avg's at the coverage 1 − α, with step 9's pooled r-values and with the page's default
// (parametric) ones. Each time panel 6's CSV export is also what `rvalue conformal` prints for
// the same file, so the table read here is the analysis the command line does.
// Run: make test-e2e, or `node --test e2e/clip.test.mjs` after `trunk build --release` and
// `cargo build --release --bin rvalue`.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, TIMEOUT_MS, pageSummary, ready, settled, shot, slide, text, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };
const RVALUE = join(ROOT, 'target', 'release', 'rvalue');
const SAMPLE = 'clip_paraphrases.npz';
const ALPHA = 0.05;
// The α slider's position of 0.05 (0.005 per position).
const ALPHA_POSITION = 10;

// Panel 6's row of `method` ('CP', 'CPavg', 'CPr', as its header reads): coverage and size,
// each as the mean and sd over the splits the cell prints ("0.950 ± 0.025").
async function row(page, method) {
  const cells = await page.evaluate((method) => {
    const tr = [...document.querySelectorAll('#summary-table tbody tr')].find((r) => r.querySelector('th').textContent.trim() === method);
    return tr && [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent);
  }, method);
  assert.ok(cells, `${method} in panel 6`);
  const [coverage, size] = cells.map((c) => c.split('±').map(parseFloat));
  return { coverage, size };
}

// The claim, on panel 6 as the page shows it. Each split's coverage is a mean over its 140
// test items, which the guarantee puts at 1 − α or above in expectation; the table's mean over
// `splits` splits then lies within a few standard errors (sd / √splits) of that. Four standard
// errors (0.01 at the sd ≈ 0.025 the sample gives) is the tolerance, so a real shortfall of
// coverage fails and sampling error alone does not.
async function checkClaim(page, splits) {
  const [cp, avg, r] = [await row(page, 'CP'), await row(page, 'CPavg'), await row(page, 'CPr')];
  for (const [name, m] of [['CP', cp], ['CP_avg', avg], ['CP_r', r]]) {
    const tolerance = (4 * m.coverage[1]) / Math.sqrt(splits);
    assert.ok(m.coverage[1] > 0 && tolerance < 0.02, `${name}: sd ${m.coverage[1]} over ${splits} splits`);
    assert.ok(m.coverage[0] >= 1 - ALPHA - tolerance, `${name} covers ${m.coverage[0]}, below ${1 - ALPHA} − ${tolerance}`);
  }
  assert.ok(r.size[0] < avg.size[0], `CP_r's sets (${r.size[0]}) are smaller than CP_avg's (${avg.size[0]})`);
  assert.ok(avg.size[0] < cp.size[0], `CP_avg's sets (${avg.size[0]}) are smaller than CP's (${cp.size[0]})`);
  return { cp, avg, r };
}

// `rvalue conformal` on the bundled file with the page's split settings, as CSV lines.
function cli(rvalue) {
  const run = spawnSync(RVALUE, ['conformal', '--scores', join(ROOT, 'assets', SAMPLE), '--alpha', String(ALPHA),
    '--rvalue', rvalue, '--splits', '100', '--seed', '0', '--cal-fraction', '0.5', '--format', 'csv'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim().split('\n');
}

// Panel 6's cell of CP_r's coverage, as text.
const cpRCoverage = () =>
  [...document.querySelectorAll('#summary-table tbody tr')].find((r) => r.querySelector('th').textContent.trim() === 'CPr')
    ?.querySelector('td')?.textContent;

// Moves α to 0.05 and waits until panel 6 shows it (CP_r's coverage cell changes with α).
async function alphaTo05(page) {
  const before = await page.evaluate(cpRCoverage);
  assert.ok(before, "CP_r's row in panel 6");
  await slide(page, 'alpha', ALPHA_POSITION);
  assert.equal(await text(page, '#alpha-value'), String(ALPHA));
  await page.waitForFunction(`(${cpRCoverage})() !== ${JSON.stringify(before)}`);
  await ready(page);
}

test('step 9 offers the CLIP-like sample beside the digits; at α = 0.05 CP_r beats CP_avg', LONG, async (t) => {
  const { page, errors } = await explorer.open('?tour=9');
  await shot(t, page, async () => {
    await page.waitForFunction(() => document.querySelector('#tour')?.dataset.step === '9');
    await settled(page, 'note'); // no file yet
    assert.match(await text(page, '#tour-text'), /Beside the digits, a synthetic CLIP-like sample/);
    assert.match(await text(page, '#tour-try'), /CLIP-like/);
    // The offer sits in the control the step names, beside the digits.
    const offered = await page.locator('#scores-params button.sample').evaluateAll((bs) => bs.map((b) => b.dataset.file ?? b.dataset.synthetic));
    assert.deepEqual(offered.slice(0, 2), ['digits_wbb.npz', SAMPLE]);
    await page.click(`#scores-params button[data-file="${SAMPLE}"]`);
    await page.locator('#tour-done').waitFor({ state: 'visible' });
    await page.waitForFunction((s) => new URLSearchParams(location.search).get('sample') === s, SAMPLE);
    await ready(page);
    assert.match(await text(page, '#status'), /^Showing clip_paraphrases\.npz, 100 splits/);
    assert.equal(await page.locator('#kind').inputValue(), 'pooled', "step 9's r-values");
    await alphaTo05(page);
    const shown = await checkClaim(page, 100);
    t.diagnostic(`pooled, α = 0.05: ${JSON.stringify(shown)}`);
    assert.deepEqual(await pageSummary(page), cli('pooled'));
    assert.deepEqual(errors, []);
  });
});

test("with the page's default r-values the CLIP-like sample shows it too", LONG, async (t) => {
  const { page, errors } = await explorer.open(`?mode=scores&sample=${SAMPLE}`);
  await shot(t, page, async () => {
    await ready(page);
    assert.equal(await page.locator('#kind').inputValue(), 'parametric');
    assert.equal(await page.locator('#prior').inputValue(), 'pooled');
    assert.equal(await page.locator('#splits').inputValue(), '100');
    await alphaTo05(page);
    const shown = await checkClaim(page, 100);
    t.diagnostic(`parametric, α = 0.05: ${JSON.stringify(shown)}`);
    assert.deepEqual(await pageSummary(page), cli('parametric'));
    assert.deepEqual(errors, []);
  });
});
