// The built page's size (the budget: dist/, app, the API module in api/ and bundled samples, at
// most 2.0692 MB gzipped; the digits sample is 0.945 MB of it, the CLIP-like one 0.383 MB). It crept past the budget
// unnoticed once, so it is checked rather than only reported. It was 1.5 MB until coverage by
// class and per-class calibration took the app to 1.51 MB, and 1.52 MB until the APS, RAPS and
// SAPS baselines took the app and the API module to 1.545 MB, and 1.55 MB until the page ran
// them too (6 kB of the page's wasm) and reached 1.551 MB, and 1.555 MB until the float16 pools'
// value tables and the baselines' split groups took it to 1.556 MB, and 1.56 MB until the API's
// q̂ per method and its loader for Node (2 kB) took it to 1.5612 MB, and 1.5612 MB until the
// API's readScores (the core's file readers in the API module, 49 kB) and an embed's GPU left
// for later took it to 1.611 MB, and 1.612 MB until the API's calibrate and predict (16 kB, in
// both modules) took it to 1.627 MB, and 1.628 MB until saved calibrations as bytes (18 kB, in
// both modules) took it to 1.646 MB, and 1.646 MB until the baselines' shared rows, the
// Randomized box, ?src= and refusing bidirectional controls in names (7 kB) took it to
// 1.6536 MB, and 1.6536 MB until the tour's keys, skip link and Whole curve in links (1.3 kB)
// took it to 1.655 MB, and 1.655 MB until themes, the figure-only embed and legends under narrow
// plots (6.7 kB of the page's wasm, 0.4 kB of style sheet) took it to 1.6615 MB, and 1.6615 MB
// until a hosted file's display name and figures redrawn for print (1.7 kB) took it to
// 1.6633 MB, and 1.6633 MB until panel 5's readout at the calibrated r̂ (4.4 kB) and panel 6's
// box quoting the paper's Table 1 with its per-item prior switch and the labelled empty set
// (1.5 kB, half of it the table's markup) took it to 1.6692 MB, and 1.6693 MB until the bundled
// CLIP-like paraphrase sample (383 kB, fetched only when clicked: the one bundled file on which
// CP_r's sets are smaller than CP_avg's, as in the paper's CLIP table) took it to 2.0524 MB, and
// 2.0525 MB until hosted files read by HTTP Range requests (fetch and XMLHttpRequest bindings),
// panel 2's fitted prior and panel 9 emptied (6.3 kB) took it to 2.0588 MB, and 2.059 MB until
// the tour's projector layout (1.7 kB: its style rules, the key panel and kept controls marked)
// took it to 2.0605 MB, and 2.061 MB until the page learnt to read a saved report's embedded
// data and settings (1.9 kB), and 2.063 MB until it learnt to take a notebook widget's data as
// bytes from its frame (0.1 kB), and 2.064 MB until the page's decisions moved into the model and
// its App into owned parts (4.8 kB of the page's wasm: the parts' methods, the figures' colours
// converted at draw time) took it to 2.0688 MB; see docs/performance.md, Size.
// Run: make test-e2e, or `node --test e2e/dist.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { DIST } from './helpers.mjs';

const BUDGET_BYTES = 2_069_200;

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const sum = (sizes) => sizes.reduce((total, [, n]) => total + n, 0);

test('dist/ stays within 2.0692 MB gzipped (gzip -9 per file, summed)', (t) => {
  const sizes = files(DIST).map((f) => [relative(DIST, f), gzipSync(readFileSync(f), { level: 9 }).length]);
  const total = sum(sizes);
  const listing = sizes.map(([f, n]) => `${f} ${n}`).join(', ');
  // Both modules, so that a build without one cannot pass for a small one.
  assert.ok(sizes.some(([f]) => /^explorer-.*_bg\.wasm$/.test(f)), `no page wasm in dist/: ${listing}`);
  assert.ok(sizes.some(([f]) => f === join('api', 'rvalue_bg.wasm')), `no API wasm in dist/api/: ${listing}`);
  t.diagnostic(`dist/ ${total} bytes gzipped, of which api/ ${sum(sizes.filter(([f]) => dirname(f) === 'api'))}`);
  assert.ok(total <= BUDGET_BYTES, `dist/ is ${total} bytes gzipped, over ${BUDGET_BYTES}: ${listing}`);
});
