// The built page's size: dist/ (the app, the API module in api/ and the bundled samples) at
// most 2.081 MB gzipped; the digits sample is 0.945 MB of it and the CLIP-like one 0.383 MB,
// both fetched only when clicked. It crept past its budget unnoticed once, so it is checked
// rather than only reported; docs/performance.md (Size) says what the bytes are and what keeps
// them there.
// Run: make test-e2e, or `node --test e2e/dist.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { DIST } from './helpers.mjs';

const BUDGET_BYTES = 2_081_000;

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

const sum = (sizes) => sizes.reduce((total, [, n]) => total + n, 0);

test('dist/ stays within 2.081 MB gzipped (gzip -9 per file, summed)', (t) => {
  const sizes = files(DIST).map((f) => [relative(DIST, f), gzipSync(readFileSync(f), { level: 9 }).length]);
  const total = sum(sizes);
  const listing = sizes.map(([f, n]) => `${f} ${n}`).join(', ');
  // Both modules, so that a build without one cannot pass for a small one.
  assert.ok(sizes.some(([f]) => /^explorer-.*_bg\.wasm$/.test(f)), `no page wasm in dist/: ${listing}`);
  assert.ok(sizes.some(([f]) => f === join('api', 'rvalue_bg.wasm')), `no API wasm in dist/api/: ${listing}`);
  t.diagnostic(`dist/ ${total} bytes gzipped, of which api/ ${sum(sizes.filter(([f]) => dirname(f) === 'api'))}`);
  assert.ok(total <= BUDGET_BYTES, `dist/ is ${total} bytes gzipped, over ${BUDGET_BYTES}: ${listing}`);
});
