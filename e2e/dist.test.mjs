// The built page's size (the budget: dist/, app and bundled samples, at most 1.5 MB
// gzipped). It crept past the budget unnoticed once, so it is checked rather than only reported.
// Run: make test-e2e, or `node --test e2e/dist.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { DIST } from './helpers.mjs';

const BUDGET_BYTES = 1_500_000;

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

test('dist/ stays within 1.5 MB gzipped (gzip -9 per file, summed)', () => {
  const sizes = files(DIST).map((f) => [relative(DIST, f), gzipSync(readFileSync(f), { level: 9 }).length]);
  const total = sizes.reduce((sum, [, n]) => sum + n, 0);
  const listing = sizes.map(([f, n]) => `${f} ${n}`).join(', ');
  assert.ok(sizes.some(([f]) => f.endsWith('_bg.wasm')), `no wasm in dist/: ${listing}`);
  assert.ok(total <= BUDGET_BYTES, `dist/ is ${total} bytes gzipped, over ${BUDGET_BYTES}: ${listing}`);
});
