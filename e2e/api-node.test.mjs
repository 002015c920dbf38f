// The JavaScript API module dist/api/rvalue.js in Node itself (no browser): how `init` finds the
// wasm there, readScores on good and bad files, calibrate and predict, saved calibrations (with
// the Python package of target/python-venv), and results checked against their definitions and
// the release `rvalue` CLI.
// Each test imports its own instance of the module (a query string makes a new one), so each
// `init` starts from nothing.
// Run: make test (test-python installs the package first), or `node --test e2e/api-node.test.mjs`
// after `trunk build --release`, `cargo build --release --bin rvalue` and `make test-python`.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DIST, ROOT, npyArray } from './helpers.mjs';

const MODULE = pathToFileURL(join(DIST, 'api', 'rvalue.js'));
const WASM = join(DIST, 'api', 'rvalue_bg.wasm');
const RVALUE = join(ROOT, 'target', 'release', 'rvalue');

let instances = 0;
const fresh = () => import(`${MODULE.href}?instance=${++instances}`);

// A working module answers a call the core defines: Φ(−1/√2) for p ~ N(1, 1), q ~ N(0, 1).
function works(api) {
  const p = api.toyProbability({ muP: 1, sigma2P: 1, muQ: 0, sigma2Q: 1 });
  assert.ok(Math.abs(p - 0.23975006109347669) < 1e-15, `P(q > p) = ${p}`);
}

test('init() in Node reads the wasm beside the module', async () => {
  const api = await fresh();
  await api.default();
  works(api);
});

test('init in Node takes a path, a file: URL or the bytes', async () => {
  for (const arg of [WASM, pathToFileURL(WASM), await readFile(WASM)]) {
    const api = await fresh();
    await api.default({ module_or_path: arg });
    works(api);
  }
});

test('init in Node with a missing file rejects with the path, and a retry works', async () => {
  const api = await fresh();
  const missing = join(DIST, 'api', 'no_such.wasm');
  await assert.rejects(api.default({ module_or_path: missing }), (e) => e.code === 'ENOENT' && e.message.includes(missing));
  await api.default({ module_or_path: WASM });
  works(api);
});

// Scores that make many ties unlikely: a deterministic hash of the index.
const hashed = (count) => Float64Array.from({ length: count }, (_, i) => Math.sin(i * 12.9898 + 78.233) * 43758.5453 % 1);

// q̂ by its definition (docs/method.md §5): the k*-th smallest calibration score, k* = ⌈(n+1)(1−α)⌉,
// +∞ when k* > n. CP's score is −S of draw 0, CP_avg's −mean over draws, both at the true label.
function qhatOf(scores, [, m, k], labels, mask, alpha, method) {
  const cal = [];
  mask.forEach((isCal, i) => {
    if (!isCal) return;
    const at = (d) => scores[(i * m + d) * k + labels[i]];
    cal.push(method === 'cp' ? -at(0) : -Array.from({ length: m }, (_, d) => at(d)).reduce((a, b) => a + b) / m);
  });
  cal.sort((a, b) => a - b);
  const ks = Math.ceil((cal.length + 1) * (1 - alpha) - 1e-12);
  return ks > cal.length ? Infinity : cal[ks - 1];
}

test('conformal() gives each method the first split’s q̂, and its sets are the scores ≤ q̂', async () => {
  const api = await fresh();
  await api.default();
  const shape = [40, 5, 6];
  const scores = hashed(40 * 5 * 6);
  const labels = Array.from({ length: 40 }, (_, i) => (i * 7) % 6);
  const mask = labels.map((_, i) => i % 2 === 0);
  const r = api.conformal({ scores, shape, labels, alpha: 0.2, methods: ['cp', 'cp-avg'], mask, sets: true });
  for (const e of r.methods) {
    assert.equal(e.qhat, qhatOf(scores, shape, labels, mask, 0.2, e.method), e.method);
    assert.ok(Number.isFinite(e.qhat));
  }
  const cp = r.methods[0];
  cp.sets.items.forEach((item, j) => {
    const want = [0, 1, 2, 3, 4, 5].filter((c) => -scores[item * 5 * 6 + c] <= cp.qhat);
    assert.deepEqual([...cp.sets.candidates[j]].sort((a, b) => a - b), want, `item ${item}`);
  });
  // Pooled r-values: a threshold per test item; per class: per test item and candidate.
  const pooled = api.conformal({ scores, shape, labels, alpha: 0.2, methods: ['cp-r'], kind: 'pooled', mask });
  assert.equal(pooled.methods[0].qhat.constructor.name, 'Float64Array');
  assert.equal(pooled.methods[0].qhat.length, 20);
  pooled.methods[0].qhat.forEach((q) => assert.ok(q > 0 && q <= 1, `pooled q̂ ${q}`));
  const perClass = api.conformal({ scores, shape, labels, alpha: 0.2, methods: ['cp'], coverage: 'per-class', mask });
  assert.equal(perClass.methods[0].qhat.length, 20 * 6);
});

// A little-endian .npy of float64 ('<f8'), int64 ('<i8') or bool ('|b1') values.
function npy(descr, shape, values) {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header = header.padEnd(Math.ceil((header.length + 11) / 64) * 64 - 11) + '\n';
  const size = { '<f8': 8, '<i8': 8, '|b1': 1 }[descr];
  const body = Buffer.alloc(values.length * size);
  values.forEach((v, i) => {
    if (descr === '<f8') body.writeDoubleLE(v, i * 8);
    else if (descr === '<i8') body.writeBigInt64LE(BigInt(v), i * 8);
    else body[i] = v ? 1 : 0;
  });
  const head = Buffer.from([0x93, ...Buffer.from('NUMPY'), 1, 0, header.length & 0xff, header.length >> 8]);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), body]);
}

test('3 calibration items at α = 0.2: the CLI’s warning, q̂ = +∞ and full sets', async () => {
  const api = await fresh();
  await api.default();
  const shape = [6, 4, 5];
  const scores = hashed(6 * 4 * 5);
  const labels = [0, 1, 2, 3, 4, 0];
  const mask = [true, false, true, false, true, false];
  const r = api.conformal({ scores, shape, labels, alpha: 0.2, mask, sets: true });
  const dir = mkdtempSync(join(tmpdir(), 'rvalue-api-'));
  const file = (name, bytes) => (writeFileSync(join(dir, name), bytes), join(dir, name));
  const cli = spawnSync(RVALUE, [
    'conformal', '--alpha', '0.2',
    '--scores', file('s.npy', npy('<f8', shape, [...scores])),
    '--labels', file('y.npy', npy('<i8', [6], labels)),
    '--split', file('mask.npy', npy('|b1', [6], mask)),
  ], { encoding: 'utf8' });
  rmSync(dir, { recursive: true });
  assert.equal(cli.status, 0, cli.stderr);
  const cliWarnings = cli.stderr.split('\n').filter((l) => l.startsWith('rvalue: warning: ')).map((l) => l.slice(17));
  assert.deepEqual(r.warnings, cliWarnings);
  assert.match(r.warnings.join('\n'), /α = 0\.2 is below 1\/\(n_cal \+ 1\) = 2\.500e-1 with 3 calibration items: q̂ = \+∞/);
  for (const e of r.methods) {
    assert.equal(e.qhat, Infinity, e.method);
    e.sets.candidates.forEach((c) => assert.equal(c.length, 5));
  }
});

// The CLI's rows (--format json) on a file, and the API's on the same file read by readScores.
function cliRows(file, alpha, splits) {
  const out = spawnSync(RVALUE, ['conformal', '--scores', file, '--alpha', String(alpha), '--splits', String(splits), '--format', 'json'], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  return JSON.parse(out.stdout).map((r) => ({ method: r.method, coverage: r.coverage_mean, size: r.size_mean }));
}

test('readScores reads .npz, .npy and long CSV as the CLI does', async () => {
  const api = await fresh();
  await api.default();
  const npz = api.readScores(await readFile(join(ROOT, 'assets', 'digits_wbb.npz')), 'digits_wbb.npz');
  const npy = npyArray(await readFile(join(ROOT, 'assets', 'digits_wbb_scores.npy')));
  const labels = npyArray(await readFile(join(ROOT, 'assets', 'digits_wbb_labels.npy')));
  assert.deepEqual(npz.shape, npy.shape);
  assert.equal(npz.scores.constructor.name, 'Float64Array');
  assert.deepEqual([...npz.scores], npy.values);
  assert.equal(npz.labels.constructor.name, 'Uint32Array');
  assert.deepEqual([...npz.labels], labels.values);
  // A .npy carries no labels; an ArrayBuffer reads as its bytes do.
  const bytes = await readFile(join(ROOT, 'assets', 'digits_wbb_scores.npy'));
  const alone = api.readScores(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), 'scores.npy');
  assert.equal(alone.labels, null);
  assert.deepEqual(alone.scores, npz.scores);
  for (const [name, alpha] of [['digits_wbb.npz', 0.1], ['small_long.csv', 0.2]]) {
    const file = join(ROOT, 'assets', name);
    const d = api.readScores(await readFile(file), name);
    const r = api.conformal({ ...d, alpha, splits: 3 });
    const rows = r.methods.map((e) => ({ method: e.method, coverage: e.coverage, size: e.size }));
    assert.deepEqual(rows, cliRows(file, alpha, 3), name);
  }
});

// tests/data/bad/expected.txt: each score file the CLI refuses alone, with its message's fragment.
// wasm is 32-bit: a size or index beyond 2³² that the native CLI reads and then refuses (its
// messages are the corpus's) stops the page and the API earlier, in their own words.
const BAD = join(ROOT, 'tests', 'data', 'bad');
const IN_WASM = {
  'huge_claim.npy': 'byte 10 (header): shape dimension 1000000000000 is too large for this platform',
  'huge_claim_3d.npy': 'byte 10 (header): shape [1000000, 1000, 1000] has too many elements (the count overflows)',
  'overflow_claim.npy': 'byte 10 (header): shape dimension 4294967296 is too large for this platform',
  'zip_huge_member.npz': "member 'scores.npy', byte 0: member claims 4294967295 bytes uncompressed, more than allowed",
  'csv_huge_index.csv': "line 4, column 1 (item): expected a non-negative integer index, found '1000000000000'",
};
function refused() {
  const rows = readFileSync(join(BAD, 'expected.txt'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  return rows.map((l) => l.split('\t')).filter((f) => f[1] === '-' && f[2] === '2').map((f) => [f[0], IN_WASM[f[0]] ?? f[3]]);
}

test('readScores refuses bad files with the page’s messages, and the module keeps working', async () => {
  const api = await fresh();
  await api.default();
  const read = [];
  for (const [name, fragment] of refused()) {
    try {
      api.readScores(readFileSync(join(BAD, name)), name);
      read.push(name);
    } catch (e) {
      assert.ok(e instanceof Error, name);
      assert.ok(e.message.startsWith(`${name}: `) && e.message.includes(fragment), `${name}: "${e.message}", expected "${fragment}"`);
    }
  }
  // These read: the CLI refuses them later, for the analysis (too few items, no labels).
  assert.deepEqual(read, ['n1.npz', 'csv_n1.csv', 'no_labels.npy']);
  assert.throws(() => api.readScores('item,draw,candidate,score', 'a.csv'), /bytes must be a Uint8Array/);
  works(api);
});

// The CLI's `predict` mask [n_test, K] for new items, calibrated on labelled ones.
function cliMask(dir, cal, test, alpha, options) {
  const file = (name, bytes) => (writeFileSync(join(dir, name), bytes), join(dir, name));
  const out = join(dir, 'sets.npy');
  const run = spawnSync(RVALUE, [
    'predict', '--alpha', String(alpha), '--output', out,
    '--calibration', file('cal.npy', npy('<f8', cal.shape, [...cal.scores])),
    '--calibration-labels', file('y.npy', npy('<i8', [cal.labels.length], [...cal.labels])),
    '--test', file('test.npy', npy('<f8', test.shape, [...test.scores])),
    ...options,
  ], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return npyArray(readFileSync(out)).values.map(Number);
}

test('calibrate().predict() gives the sets of the CLI’s predict for new items', async () => {
  const api = await fresh();
  await api.default();
  const d = api.readScores(await readFile(join(ROOT, 'assets', 'digits_wbb.npz')), 'digits_wbb.npz');
  const [, m, k] = d.shape;
  const part = (from, to) => ({ scores: d.scores.subarray(from * m * k, to * m * k), shape: [to - from, m, k], labels: d.labels.subarray(from, to) });
  const cal = part(0, 300);
  const test = part(300, 340);
  const dir = mkdtempSync(join(tmpdir(), 'rvalue-api-'));
  try {
    for (const [options, cli] of [
      [{ method: 'cp' }, ['--method', 'cp']],
      [{}, []],
      [{ kind: 'pooled', seed: 3 }, ['--rvalue', 'pooled', '--seed', '3']],
      [{ method: 'aps', coverage: 'per-class' }, ['--method', 'aps', '--coverage', 'per-class']],
    ]) {
      const c = api.calibrate({ scores: cal.scores, shape: cal.shape, labels: cal.labels, alpha: 0.1, ...options });
      const p = c.predict({ scores: test.scores, shape: test.shape });
      assert.deepEqual([...p.mask], cliMask(dir, cal, test, 0.1, cli), JSON.stringify(options));
      p.sets.forEach((set, j) => assert.deepEqual([...set].sort((a, b) => a - b), [...Array(k).keys()].filter((c) => p.mask[j * k + c])));
      assert.deepEqual(c.warnings, []);
    }
  } finally {
    rmSync(dir, { recursive: true });
  }
  // The calibration's α is predict's default; another α gives larger or smaller sets.
  const c = api.calibrate({ scores: cal.scores, shape: cal.shape, labels: cal.labels, alpha: 0.1, method: 'cp' });
  const size = (p) => p.mask.reduce((a, b) => a + b, 0);
  assert.equal(size(c.predict({ scores: test.scores, shape: test.shape })), size(c.predict({ scores: test.scores, shape: test.shape, alpha: 0.1 })));
  assert.ok(size(c.predict({ scores: test.scores, shape: test.shape, alpha: 0.01 })) > size(c.predict({ scores: test.scores, shape: test.shape, alpha: 0.3 })));
  assert.equal(typeof c.predict({ scores: test.scores, shape: test.shape }).qhat, 'number');
  // Three labelled items at α = 0.2: the warning, and every set full.
  const few = api.calibrate({ ...part(0, 3), alpha: 0.2, method: 'cp' });
  assert.match(few.warnings.join('\n'), /with 3 calibration items: q̂ = \+∞/);
  assert.equal(size(few.predict({ scores: test.scores, shape: test.shape })), 40 * k);
  const wider = new Float64Array(40 * m * (k + 1));
  assert.throws(() => c.predict({ scores: wider, shape: [40, m, k + 1] }), /the new items have M = 30 draws and K = 11 candidates, the labelled ones M = 30 and K = 10/);
  assert.throws(() => api.calibrate({ ...cal, alpha: 0.1, methods: ['cp'] }), /unknown field `methods`/);
});

test('a calibration saved as bytes loads back and predicts the same sets', async () => {
  const api = await fresh();
  await api.default();
  const d = api.readScores(await readFile(join(ROOT, 'assets', 'digits_wbb.npz')), 'digits_wbb.npz');
  const [, m, k] = d.shape;
  const test = { scores: d.scores.subarray(300 * m * k, 340 * m * k), shape: [40, m, k] };
  for (const options of [{ method: 'cp', neverEmpty: true }, { kind: 'pooled', ties: 'index', seed: 5 }, { method: 'raps', coverage: 'per-class' }]) {
    const c = api.calibrate({ scores: d.scores.subarray(0, 300 * m * k), shape: [300, m, k], labels: d.labels.subarray(0, 300), alpha: 0.15, ...options });
    const bytes = c.save();
    assert.equal(Buffer.from(bytes.subarray(0, 37)).toString(), 'rvalue-explorer calibration\nformat 5\n');
    const back = api.loadCalibration(bytes, 'cal.rvcal');
    const [a, b] = [c, back].map((x) => x.predict(test));
    assert.deepEqual([...b.mask], [...a.mask], JSON.stringify(options));
    assert.deepEqual(b.qhat, a.qhat);
    // The checksum catches a damaged byte.
    const damaged = Uint8Array.from(bytes);
    damaged[damaged.length - 100] ^= 1;
    assert.throws(() => api.loadCalibration(damaged, 'cal.rvcal'), /^Error: cal\.rvcal: .*(CRC|checksum)/i);
  }
});

// The Python package that `make test-python` installs in target/python-venv, beside this module.
const PYTHON = join(ROOT, 'target', 'python-venv', 'bin', 'python');
const PY_CROSS = `
import sys, numpy as np, rvalue_explorer as rx
d = np.load(sys.argv[1]); s, y = d['scores'].astype(np.float64), d['labels']
rx.calibrate(s[:300], y[:300], 0.15, method='cp-r', rvalue='pooled', seed=2).save(sys.argv[2] + '/py.rvcal')
np.save(sys.argv[2] + '/py_mask.npy', rx.load(sys.argv[2] + '/py.rvcal').predict(s[300:340]))
np.save(sys.argv[2] + '/js_mask.npy', rx.load(sys.argv[2] + '/js.rvcal').predict(s[300:340]))
`;

test('Python loads the bytes the API saves, and the API loads what Python saves', async (t) => {
  if (!existsSync(PYTHON)) return t.skip('no target/python-venv: run make test-python first');
  const api = await fresh();
  await api.default();
  const npz = join(ROOT, 'assets', 'digits_wbb.npz');
  const d = api.readScores(await readFile(npz), 'digits_wbb.npz');
  const [, m, k] = d.shape;
  const test = { scores: d.scores.subarray(300 * m * k, 340 * m * k), shape: [40, m, k] };
  const js = api.calibrate({ scores: d.scores.subarray(0, 300 * m * k), shape: [300, m, k], labels: d.labels.subarray(0, 300), alpha: 0.1, method: 'cp', cpDraw: 2 });
  const dir = mkdtempSync(join(tmpdir(), 'rvalue-api-'));
  try {
    writeFileSync(join(dir, 'js.rvcal'), js.save());
    const run = spawnSync(PYTHON, ['-c', PY_CROSS, npz, dir], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const mask = (name) => npyArray(readFileSync(join(dir, name))).values.map(Number);
    assert.deepEqual(mask('js_mask.npy'), [...js.predict(test).mask]);
    const py = api.loadCalibration(readFileSync(join(dir, 'py.rvcal')), 'py.rvcal');
    assert.deepEqual([...py.predict(test).mask], mask('py_mask.npy'));
  } finally {
    rmSync(dir, { recursive: true });
  }
});
