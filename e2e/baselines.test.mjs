// End-to-end tests of the baselines (APS, RAPS, SAPS) in the page that trunk built into dist/:
// their checkboxes are off by default, APS turned on adds its row, curve and inspector column,
// a link keeps it (a reload restores it), panel 6 prints to the last digit what
// `rvalue conformal --method cp,cp-avg,cp-r,aps` prints for the same file and splits (and
// the same reading of its scores), and with
// every baseline on axe finds no serious or critical violation.
// Run: make test-e2e, or `node --test e2e/baselines.test.mjs` after `trunk build --release` and
// `cargo build --release --bin rvalue`.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, TIMEOUT_MS, analysesShown, pageSummary, ready, shot, text, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };
const RVALUE = join(ROOT, 'target', 'release', 'rvalue');
const DIGITS = join(ROOT, 'assets', 'digits_wbb.npz');
const QUERY = 'index.html?mode=scores&sample=digits_wbb.npz&splits=3&cal-fraction=0.6&split-seed=5&workers=0';
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// The methods named in panel 6's rows.
const rows = (page) => page.locator('#summary-table tbody th').allTextContents();

test('APS is off by default, turned on adds its row and column, and a link keeps it', LONG, async (t) => {
  const { page, errors } = await explorer.open(QUERY);
  await shot(t, page, async () => {
    await ready(page);
    for (const id of ['aps', 'raps', 'saps']) assert.equal(await page.locator(`#${id}`).isChecked(), false, id);
    assert.deepEqual(await rows(page), ['CP', 'CPavg', 'CPr']);
    assert.equal(await page.locator('#inspector .ranking').count(), 3);
    const before = await analysesShown(page);
    await page.locator('#aps').check();
    await ready(page, before);
    assert.deepEqual(await rows(page), ['CP', 'CPavg', 'CPr', 'APS']);
    assert.equal(await page.locator('#inspector .ranking').count(), 4);
    assert.match(await text(page, '#coverage-readout'), /APS/);
    const cli = spawnSync(RVALUE, ['conformal', '--scores', DIGITS, '--method', 'cp,cp-avg,cp-r,aps',
      '--splits', '3', '--cal-fraction', '0.6', '--seed', '5', '--alpha', '0.1', '--format', 'csv'],
    { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    // The command line reports auto's reading on stderr; the page, in the data summary.
    const reading = /read the scores as ([a-z-]+) \(--scores-are auto\)/.exec(cli.stderr)?.[1];
    assert.equal(reading, 'log-probabilities', cli.stderr);
    assert.equal(await text(page, '#scores-reading'), `The baselines read the scores as ${reading} (auto's choice).`);
    assert.deepEqual(await pageSummary(page), cli.stdout.trim().split('\n'));
    await page.waitForFunction(() => new URLSearchParams(location.search).get('aps') === '1');
    await page.reload();
    await ready(page);
    assert.equal(await page.locator('#aps').isChecked(), true);
    assert.deepEqual(await rows(page), ['CP', 'CPavg', 'CPr', 'APS']);
    assert.deepEqual(errors, []);
  });
});

test('randomized off gives the deterministic variants, as --deterministic, and a link keeps it', LONG, async (t) => {
  const { page, errors } = await explorer.open(`${QUERY}&aps=1&raps=1&saps=1`);
  await shot(t, page, async () => {
    await ready(page);
    assert.equal(await page.locator('#randomized').isChecked(), true);
    const randomized = await pageSummary(page);
    const before = await analysesShown(page);
    await page.locator('#randomized').uncheck();
    await ready(page, before);
    const cli = spawnSync(RVALUE, ['conformal', '--scores', DIGITS, '--method', 'cp,cp-avg,cp-r,aps,raps,saps',
      '--deterministic', '--splits', '3', '--cal-fraction', '0.6', '--seed', '5', '--alpha', '0.1',
      '--format', 'csv'], { encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    const deterministic = await pageSummary(page);
    assert.deepEqual(deterministic, cli.stdout.trim().split('\n'));
    // The baselines' rows change with u; the paper's three do not.
    assert.notDeepEqual(deterministic.slice(4), randomized.slice(4));
    assert.deepEqual(deterministic.slice(0, 4), randomized.slice(0, 4));
    await page.waitForFunction(() => new URLSearchParams(location.search).get('randomized') === '0');
    await page.reload();
    await ready(page);
    assert.equal(await page.locator('#randomized').isChecked(), false);
    assert.deepEqual(await pageSummary(page), deterministic);
    assert.deepEqual(errors, []);
  });
});

test('with every baseline on axe finds no serious or critical violation', LONG, async (t) => {
  const { page, errors } = await explorer.open(`${QUERY}&aps=1&raps=1&saps=1&text=large`);
  await shot(t, page, async () => {
    await ready(page);
    assert.deepEqual(await rows(page), ['CP', 'CPavg', 'CPr', 'APS', 'RAPS', 'SAPS']);
    await page.evaluate(AXE);
    const found = await page.evaluate(async () => {
      const r = await window.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
    });
    assert.deepEqual(found.filter((v) => v.impact === 'serious' || v.impact === 'critical'), []);
    assert.deepEqual(errors, []);
  });
});

test('in the toy the draws are read as logits, and the page says so', LONG, async (t) => {
  const { page, errors } = await explorer.open('index.html?aps=1&repeats=2&workers=0');
  await shot(t, page, async () => {
    await ready(page);
    assert.equal(await page.locator('#toy-reading').isVisible(), true);
    assert.match(await text(page, '#toy-reading'), /read as logits/);
    assert.deepEqual(await rows(page), ['CP', 'CPavg', 'CPr', 'APS']);
    assert.deepEqual(errors, []);
  });
});
