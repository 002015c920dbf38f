// End-to-end tests of calibration by a pool of true-label draws in the page that trunk built
// into dist/: a labelled float16 test file [N, M, K] and a float16 pool [n_cal, M] (the layout
// of the authors' ImageNet files), written here by a small .npy/.npz writer, loaded as separate
// files and as one .npz with member cal_true; the page's panel 6 must print, to the last digit,
// what `rvalue conformal --calibration-true` prints for the same files and split settings.
// Run: make test-e2e, or `node --test e2e/pool.test.mjs` after `trunk build --release` and
// `cargo build --release --bin rvalue`.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT, TIMEOUT_MS, pageSummary, ready, shot, text, useExplorer, zip } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 3 };
const RVALUE = join(ROOT, 'target', 'release', 'rvalue');

const [N, M, K, N_CAL] = [60, 8, 6, 80];
// 5 splits, each of round(0.6 · 80) = 48 pool units and all 60 test items, seed 3.
const QUERY = 'index.html?mode=scores&kind=pooled&splits=5&cal-fraction=0.6&split-seed=3&workers=0';
const CLI_SPLITS = ['--splits', '5', '--cal-size', '48', '--test-size', String(N), '--seed', '3'];

// A seeded generator (mulberry32), so the files are the same on every run.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A score rounded to a multiple of 1/16 in (−8, 8): exact in float16.
const sixteenths = (x) => Math.max(-127, Math.min(127, Math.round(x * 16))) / 16;

// The float16 bits of a value float16 holds exactly (normal or zero).
function halfBits(v) {
  if (v === 0) return 0;
  const a = Math.abs(v);
  let e = 0;
  while (a >= 2 ** (e + 1)) e++;
  while (a < 2 ** e) e--;
  return (v < 0 ? 0x8000 : 0) | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
}

// A version 1.0 .npy: header padded to a multiple of 64 bytes, C order.
function npy(descr, shape, body) {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  Buffer.from('\x93NUMPY', 'latin1').copy(head);
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), body]);
}

const half = (shape, values) => {
  const body = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => body.writeUInt16LE(halfBits(v), 2 * i));
  return npy('<f2', shape, body);
};
const int64 = (values) => {
  const body = Buffer.alloc(values.length * 8);
  values.forEach((v, i) => body.writeBigInt64LE(BigInt(v), 8 * i));
  return npy('<i8', [values.length], body);
};

// An .npz as np.savez writes it: a zip of stored members `<name>.npy`.
const npz = (members) => zip(Object.entries(members).map(([name, data]) => [`${name}.npy`, data]));

// Test items whose true label scores above the other candidates on average, with noise; the
// pool's units are the true-label draws of items like them.
function files() {
  const rnd = generator(20260);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const labels = Array.from({ length: N }, () => Math.floor(rnd() * K));
  const scores = [];
  for (let i = 0; i < N; i++) {
    const centre = Array.from({ length: K }, (_, c) => (c === labels[i] ? 1.5 : 0) + 0.5 * normal());
    for (let d = 0; d < M; d++) {
      for (let c = 0; c < K; c++) scores.push(sixteenths(centre[c] + (c === labels[i] ? 0.6 : 1.2) * normal()));
    }
  }
  const pool = [];
  for (let j = 0; j < N_CAL; j++) {
    const centre = 1.5 + 0.5 * normal();
    for (let d = 0; d < M; d++) pool.push(sixteenths(centre + 0.6 * normal()));
  }
  const test = half([N, M, K], scores);
  const y = int64(labels);
  const cal = half([N_CAL, M], pool);
  return {
    'test_logits.npy': test,
    'test_labels.npy': y,
    'val_true_logits.npy': cal,
    'test.npz': npz({ scores: test, labels: y }),
    'imagenet.npz': npz({ scores: test, labels: y, cal_true: cal }),
  };
}

const FILES = files();
const DIR = mkdtempSync(join(tmpdir(), 'rvalue-pool-'));
after(() => rmSync(DIR, { recursive: true, force: true }));
for (const [name, bytes] of Object.entries(FILES)) writeFileSync(join(DIR, name), bytes);

// What the command line prints for the three .npy files and the page's split settings.
function cliSummary() {
  const out = execFileSync(RVALUE, [
    'conformal',
    '--scores', join(DIR, 'test_logits.npy'),
    '--labels', join(DIR, 'test_labels.npy'),
    '--calibration-true', join(DIR, 'val_true_logits.npy'),
    ...CLI_SPLITS,
    '--alpha', '0.1',
    '--rvalue', 'pooled',
    '--format', 'csv',
  ], { encoding: 'utf8' });
  return out.trim().split('\n');
}

// Drops the named files of FILES on the page together.
async function drop(page, names) {
  const dataTransfer = await page.evaluateHandle((files) => {
    const dt = new DataTransfer();
    for (const [name, bytes] of files) dt.items.add(new File([new Uint8Array(bytes)], name));
    return dt;
  }, names.map((n) => [n, [...FILES[n]]]));
  await page.dispatchEvent('#panel-summary', 'drop', { dataTransfer });
}

const STATUS = /, 5 splits, each calibrated on 48 of the pool's 80 true-label draws and tested on all 60 items \(computed in/;

for (const [how, names, shown] of [
  ['a test .npz and a pool .npy', ['test.npz', 'val_true_logits.npy'], 'Showing test.npz with the pool val_true_logits.npy [80, 8]'],
  ['scores, labels and pool as three .npy', ['val_true_logits.npy', 'test_labels.npy', 'test_logits.npy'], 'Showing test_logits.npy + test_labels.npy with the pool val_true_logits.npy [80, 8]'],
  ['one .npz with member cal_true', ['imagenet.npz'], 'Showing imagenet.npz with the pool cal_true [80, 8]'],
]) {
  test(`a float16 pool given as ${how} gives the command line's numbers`, LONG, async (t) => {
    const want = cliSummary();
    assert.equal(want.length, 4, want.join('\n'));
    const { page, errors } = await explorer.open(QUERY);
    await shot(t, page, async () => {
      await drop(page, names);
      await ready(page);
      const status = await text(page, '#status');
      assert.ok(status.startsWith(shown), status);
      assert.match(status, STATUS);
      assert.deepEqual(await pageSummary(page), want);
      assert.equal(await text(page, '#stat-n'), String(N));
      assert.equal(await page.locator('#inspector .ranking').count(), 3);
      assert.equal(await page.locator('#inspector li.true').count(), 3);
      assert.deepEqual(errors, []);
    });
  });
}

test('with a pool, parametric and nonparametric CP_r get a plain sentence, and pooled comes back', LONG, async (t) => {
  const want = cliSummary();
  const { page, errors } = await explorer.open(QUERY);
  await shot(t, page, async () => {
    await drop(page, ['imagenet.npz']);
    await ready(page);
    for (const [kind, name] of [['parametric', 'Parametric'], ['nonparametric', 'Nonparametric']]) {
      await page.locator('#kind').selectOption(kind);
      // The second note follows the first without a state in between: wait for its words.
      await page.waitForFunction((name) => {
        const s = document.querySelector('#status');
        return s?.dataset.state === 'note' && s.textContent.startsWith(name);
      }, name, { timeout: TIMEOUT_MS * 2 });
      assert.equal(
        await text(page, '#status'),
        `${name} CP_r needs every candidate's draws of each calibration item, and the pool holds only ` +
          "the true label's: choose the pooled r-value for CP_r. The results shown are unchanged.",
      );
      assert.equal(await page.locator('#error').isHidden(), true);
      // The pooled analysis stays on show.
      assert.deepEqual(await pageSummary(page), want);
    }
    await page.locator('#kind').selectOption('pooled');
    await ready(page);
    assert.match(await text(page, '#status'), STATUS);
    assert.deepEqual(await pageSummary(page), want);
    assert.deepEqual(errors, []);
  });
});

test('two score files neither of which is a pool of the other say so', LONG, async (t) => {
  const { page, errors } = await explorer.open(QUERY);
  await shot(t, page, async () => {
    await drop(page, ['test.npz', 'test_logits.npy']);
    await page.waitForFunction(() => !document.querySelector('#error').hidden);
    assert.match(await text(page, '#error'), /are two score files: one should be a calibration pool/);
    assert.deepEqual(errors, []);
  });
});
