// End-to-end tests of the JavaScript API (crates/wasm-api) through its example page,
// www/api-example.html, which imports the module dist/api/rvalue.js by its fixed name, in the
// dist/ that trunk built (make test-e2e builds it); and of dist/api/package.json.
// Run: make test-e2e, or `node --test e2e/api.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { DIST, Phi, ROOT, TIMEOUT_MS, shot, useExplorer } from './helpers.mjs';

const explorer = useExplorer();

// The rvalues R package's output on its 12 example units (the same file the Rust tests read).
async function rReference() {
  const csv = await readFile(join(ROOT, 'tests/data/reference/rvalues_R_12_units.csv'), 'utf8');
  const [header, ...rows] = csv.trim().split(/\r?\n/);
  const names = header.split(',');
  return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [names[i], Number(v)])));
}

// Opens the example page and waits until it has computed everything.
async function openExample() {
  const opened = await explorer.open('www/api-example.html');
  assert.equal(opened.response.status(), 200);
  await opened.page.waitForSelector('body[data-ready]', { state: 'attached', timeout: TIMEOUT_MS });
  const status = await opened.page.locator('#api-status').textContent();
  assert.equal(await opened.page.getAttribute('body', 'data-ready'), 'true', status);
  return opened;
}

test('the example page shows the R package r-values of its 12 units', async (t) => {
  const { page, errors } = await openExample();
  await shot(t, page, async () => {
    const reference = await rReference();
    const rows = await page.$$eval('#units tbody tr', (trs) =>
      trs.map((tr) => [...tr.cells].map((td) => Number(td.textContent))),
    );
    assert.equal(rows.length, 12);
    rows.forEach(([unit, x, se, grid, exact], i) => {
      assert.equal(unit, i + 1);
      assert.equal(x, reference[i].estimate);
      assert.equal(se, reference[i].se);
      assert.ok(Math.abs(grid - reference[i].rvalue) < 1e-11, `unit ${i + 1}: ${grid} vs R ${reference[i].rvalue}`);
      assert.ok(exact > 0 && exact <= 1, `exact r-value ${exact}`);
    });
    const hyper = await page.locator('#units-hyper').textContent();
    const [, mu, tau2] = hyper.match(/μ = (\S+), τ² = (\S+)/).map(Number);
    assert.ok(Math.abs(mu - 0.437422856392) < 1e-11, `μ ${mu}`);
    assert.ok(Math.abs(tau2 - 0.656859149352) < 1e-9, `τ² ${tau2}`);
    // Φ(−1/√1001) (docs/method.md §6), shown at full precision.
    const p = Number(await page.locator('#toy-probability').textContent());
    assert.ok(Math.abs(p - Phi(-1 / Math.sqrt(1001))) < 1e-14, `P(q > p) = ${p}`);
    const methods = await page.$$eval('#conformal tbody tr', (trs) => trs.map((tr) => tr.cells[0].textContent));
    assert.deepEqual(methods, ['cp', 'cp-avg', 'cp-r']);
    assert.match(await page.locator('#error-message').textContent(), /^Error: .*12 estimates but 11 variances$/);
    assert.deepEqual(errors, []);
  });
});

test('the example loads the API module by its fixed names, not the explorer', async (t) => {
  const { page, requests, errors } = await openExample();
  await shot(t, page, async () => {
    const paths = requests.map((u) => new URL(u).pathname);
    assert.ok(paths.includes('/api/rvalue.js'), paths.join(' '));
    assert.ok(paths.includes('/api/rvalue_bg.wasm'), paths.join(' '));
    assert.deepEqual(paths.filter((p) => p.includes('explorer') || p.endsWith('index.html')), []);
    assert.deepEqual(errors, []);
  });
});

// The version is the workspace's, as the crate inherits it (crates/wasm-api/Cargo.toml).
async function workspaceVersion() {
  const toml = await readFile(join(ROOT, 'Cargo.toml'), 'utf8');
  const section = toml.slice(toml.indexOf('[workspace.package]'));
  return section.match(/^version = "([^"]+)"$/m)[1];
}

test('dist/api/package.json is valid and names files that exist', async () => {
  const pkg = JSON.parse(await readFile(join(DIST, 'api', 'package.json'), 'utf8'));
  assert.equal(pkg.name, 'rvalue-explorer-api');
  assert.equal(pkg.version, await workspaceVersion());
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.license, 'MIT OR Apache-2.0');
  assert.deepEqual(pkg.files, ['rvalue.js', 'rvalue_bg.wasm']);
  for (const f of [...pkg.files, pkg.main, pkg.module]) {
    assert.ok(existsSync(join(DIST, 'api', f)), `package.json names ${f}, which dist/api/ lacks`);
  }
  // The loader fetches the wasm by this name, beside itself.
  const loader = await readFile(join(DIST, 'api', pkg.module), 'utf8');
  assert.match(loader, /new URL\('rvalue_bg\.wasm', import\.meta\.url\)/);
  // No UI: the module imports nothing of the DOM (the crate has no web-sys).
  assert.doesNotMatch(loader, /document|Canvas|HTMLElement|Window/);
});

test('the API returns typed arrays and the posterior of the R package', async (t) => {
  const { page } = await openExample();
  const reference = await rReference();
  await shot(t, page, async () => {
    const got = await page.evaluate((ref) => {
      const r = window.rvalueApi.rvalues({
        x: ref.map((u) => u.estimate),
        s: Float64Array.from(ref, (u) => u.se * u.se),
        algorithm: 'grid',
        rule: 'empirical',
      });
      return {
        types: [r.rvalue, r.postMean, r.postSd].map((a) => a.constructor.name),
        postMean: [...r.postMean],
        postSd: [...r.postSd],
        rvalue: [...r.rvalue],
      };
    }, reference);
    assert.deepEqual(got.types, ['Float64Array', 'Float64Array', 'Float64Array']);
    reference.forEach((u, i) => {
      assert.ok(Math.abs(got.postMean[i] - u.post_mean) < 1e-9, `post_mean ${i}`);
      assert.ok(Math.abs(got.postSd[i] - u.post_sd) < 1e-9, `post_sd ${i}`);
      assert.ok(Math.abs(got.rvalue[i] - u.rvalue) < 1e-11, `rvalue ${i}`);
    });
  });
});

test('conformal() gives the pooled reference sets and metrics that agree with them', async (t) => {
  const { page } = await openExample();
  const tiny = JSON.parse(await readFile(join(ROOT, 'tests/data/reference/pooled_tiny.json'), 'utf8'));
  await shot(t, page, async () => {
    const got = await page.evaluate((tiny) => {
      const [n, m, k] = [tiny.scores.length, tiny.scores[0].length, tiny.scores[0][0].length];
      const r = window.rvalueApi.conformal({
        scores: Float64Array.from(tiny.scores.flat(2)),
        shape: [n, m, k],
        labels: tiny.labels,
        alpha: tiny.alpha,
        methods: ['cp-r'],
        kind: 'pooled',
        // The reference follows the authors' code: the index tie order.
        ties: 'index',
        mask: tiny.calibration,
        sets: true,
      });
      const [cpr] = r.methods;
      return {
        method: cpr.method,
        coverage: cpr.coverage,
        size: cpr.size,
        splits: cpr.splits,
        items: [...cpr.sets.items],
        labels: [...cpr.sets.labels],
        covered: [...cpr.sets.covered],
        candidates: cpr.sets.candidates.map((c) => [...c]),
        types: [cpr.sets.items, cpr.sets.covered, cpr.sets.candidates[0]].map((a) => a.constructor.name),
      };
    }, tiny);
    assert.equal(got.method, 'cp-r');
    assert.equal(got.splits, 1);
    assert.deepEqual(got.types, ['Uint32Array', 'Uint8Array', 'Uint32Array']);
    assert.deepEqual(got.items, tiny.test_items.map((ti) => ti.item));
    assert.deepEqual(got.labels, got.items.map((i) => tiny.labels[i]));
    // Sets come in r-value order; the reference lists them by candidate.
    assert.deepEqual(got.candidates.map((c) => [...c].sort((a, b) => a - b)), tiny.test_items.map((ti) => ti.set));
    got.candidates.forEach((c, j) => {
      const r = tiny.test_items[j].rvalues;
      for (let i = 1; i < c.length; i++) assert.ok(r[c[i - 1]] <= r[c[i]], `set ${j} is in r-value order`);
    });
    const covered = got.candidates.map((c, j) => Number(c.includes(got.labels[j])));
    assert.deepEqual(got.covered, covered);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    assert.equal(got.coverage, mean(covered));
    assert.equal(got.size, mean(got.candidates.map((c) => c.length)));
  });
});

// Conditional coverage of one split by its definition (docs/method.md §5), from its sets, the
// labels and the mean scores (Welford in draw order, as the core's summaries).
function conditionalOf(r, scores, labels, alpha) {
  const [n, m, k] = [scores.length, scores[0].length, scores[0][0].length];
  const target = 1 - alpha;
  const rank = [];
  for (let i = 0; i < n; i++) {
    const mu = new Array(k).fill(0);
    for (let d = 0; d < m; d++) for (let c = 0; c < k; c++) mu[c] += (scores[i][d][c] - mu[c]) * (1 / (d + 1));
    const y = labels[i];
    rank.push(1 + mu.filter((x, c) => x > mu[y] || (x === mu[y] && c < y)).length);
  }
  const items = [...r.sets.items];
  const covered = [...r.sets.covered];
  const size = r.sets.candidates.map((c) => c.length);
  const classes = [...new Set(items.map((i) => labels[i]))].sort((a, b) => a - b);
  const cov = classes.map((c) => {
    const mine = items.map((i, j) => j).filter((j) => labels[items[j]] === c);
    return mine.filter((j) => covered[j]).length / mine.length;
  });
  const violation = (bounds, value) => {
    const gaps = bounds
      .map(([lo, hi]) => items.map((_, j) => j).filter((j) => lo <= value(j) && value(j) <= hi))
      .filter((js) => js.length > 0)
      .map((js) => Math.abs(js.filter((j) => covered[j]).length / js.length - target));
    return gaps.length ? Math.max(...gaps) : null;
  };
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  return {
    macroCoverage: sum(cov) / cov.length,
    worstClassCoverage: Math.min(...cov),
    covgap: 100 * (sum(cov.map((c) => Math.abs(c - target))) / cov.length),
    violatedClasses: cov.filter((c) => c < target).length,
    sscv: violation([[0, 1], [2, 3], [4, 10], [11, 100], [101, 1000]], (j) => size[j]),
    dsv: violation([[1, 1], [2, 3], [4, 6], [7, 10], [11, 100], [101, 1000]], (j) => rank[items[j]]),
    classCount: Array.from({ length: k }, (_, c) => items.filter((i) => labels[i] === c).length),
  };
}

test('conformal() gives each conditional metric of one split by its definition', async (t) => {
  const { page } = await openExample();
  const tiny = JSON.parse(await readFile(join(ROOT, 'tests/data/reference/pooled_tiny.json'), 'utf8'));
  await shot(t, page, async () => {
    for (const kind of ['parametric', 'pooled']) {
      const got = await page.evaluate(([tiny, kind]) => {
        const [n, m, k] = [tiny.scores.length, tiny.scores[0].length, tiny.scores[0][0].length];
        const r = window.rvalueApi.conformal({
          scores: Float64Array.from(tiny.scores.flat(2)),
          shape: [n, m, k],
          labels: tiny.labels,
          alpha: 0.3,
          kind,
          mask: tiny.calibration,
          sets: true,
        });
        const keys = ['macroCoverage', 'worstClassCoverage', 'covgap', 'violatedClasses', 'sscv', 'dsv'];
        return r.methods.map((e) => ({
          method: e.method,
          values: Object.fromEntries(keys.map((key) => [key, e[key]])),
          sds: keys.map((key) => e[`${key}Sd`]),
          classCoverage: [...e.classCoverage],
          classCount: [...e.classCount],
          types: [e.classCoverage, e.sizeStrata.count, e.difficultyStrata.lo].map((a) => a.constructor.name),
          sizeCount: [...e.sizeStrata.count],
          sets: { items: [...e.sets.items], covered: [...e.sets.covered], candidates: e.sets.candidates.map((c) => [...c]) },
        }));
      }, [tiny, kind]);
      assert.equal(got.length, 3);
      for (const e of got) {
        const want = conditionalOf(e, tiny.scores, tiny.labels, 0.3);
        for (const [key, value] of Object.entries(e.values)) assert.equal(value, want[key], `${kind} ${e.method} ${key}`);
        e.sds.forEach((sd, i) => assert.equal(sd, Object.values(e.values)[i] === null ? null : 0));
        assert.deepEqual(e.classCount.slice(0, want.classCount.length), want.classCount);
        assert.deepEqual(e.types, ['Float64Array', 'Float64Array', 'Float64Array']);
        assert.equal(e.sizeCount.reduce((a, b) => a + b, 0), e.sets.items.length);
        e.classCount.forEach((count, c) => assert.ok(count > 0 || Number.isNaN(e.classCoverage[c])));
      }
    }
  });
});

test('conformal() breaks pooled ties in the seeded exchangeable order by default', async (t) => {
  const { page } = await openExample();
  const tiny = JSON.parse(await readFile(join(ROOT, 'tests/data/reference/pooled_tiny.json'), 'utf8'));
  await shot(t, page, async () => {
    const got = await page.evaluate((tiny) => {
      const [n, m, k] = [tiny.scores.length, tiny.scores[0].length, tiny.scores[0][0].length];
      const sets = (extra) => {
        const r = window.rvalueApi.conformal({
          scores: Float64Array.from(tiny.scores.flat(2)),
          shape: [n, m, k],
          labels: tiny.labels,
          alpha: tiny.alpha,
          methods: ['cp-r'],
          kind: 'pooled',
          mask: tiny.calibration,
          sets: true,
          ...extra,
        });
        return r.methods[0].sets.candidates.map((c) => [...c].sort((a, b) => a - b));
      };
      let error = null;
      try {
        sets({ ties: 'random' });
      } catch (e) {
        error = String(e);
      }
      const seeds = [0, 1, 2, 3, 4, 5].map((seed) => JSON.stringify(sets({ seed })));
      return { first: sets({}), again: sets({ ties: 'exchangeable', seed: 0 }), seeds, error };
    }, tiny);
    assert.deepEqual(got.first, got.again, 'the default is the exchangeable order, seed 0');
    assert.ok(new Set(got.seeds).size > 1, 'the seed keys the tie order');
    assert.match(got.error, /unknown tie order 'random' \(expected exchangeable or index\)/);
  });
});

test('bad input throws an Error with the core message, and the module keeps working', async (t) => {
  const { page, errors } = await openExample();
  await shot(t, page, async () => {
    const thrown = await page.evaluate(() => {
      const api = window.rvalueApi;
      const attempt = (f) => {
        try {
          f();
          return null;
        } catch (e) {
          return { isError: e instanceof Error, message: e.message };
        }
      };
      const scores = new Float64Array(2 * 3 * 4);
      return [
        attempt(() => api.rvalues({ x: [1, Number.NaN], s: [1, 1] })),
        attempt(() => api.rvalues({ x: [1, 2], se: [1, 1], s: [1, 1] })),
        attempt(() => api.rvalues({ x: [1, 2], se: [1, 1], algoritm: 'grid' })),
        attempt(() => api.rvalues({ x: 'not numbers', s: [1] })),
        attempt(() => api.rvalues({ x: [1, 2], s: [1, 1], rule: 'magic' })),
        attempt(() => api.conformal({ scores, shape: [2, 3, 4], labels: [0, 7], alpha: 0.1 })),
        attempt(() => api.conformal({ scores, shape: [2, 3, 4], labels: [0, 1], alpha: 1.5 })),
        attempt(() => api.conformal({ scores, shape: [2, 3], labels: [0, 1], alpha: 0.1 })),
        attempt(() => api.conformal({ scores, shape: [2, 3, 4], labels: [0, -1], alpha: 0.1 })),
        attempt(() => api.toyProbability({ muP: 1, sigma2P: -1, muQ: 0, sigma2Q: 1 })),
        attempt(() => api.rvalues(undefined)),
        // Still alive after all that: a panic would have killed the module.
        attempt(() => api.rvalues({ x: [1, 2, 3], se: [1, 1, 1] })),
      ];
    });
    const expected = [
      /^invalid argument: estimate 1 is NaN \(must be finite\)$/,
      /exactly one of s .* and se/,
      /unknown field `algoritm`/,
      /: x must be an array of numbers or a typed array$/,
      /unknown rule 'magic'/,
      /label of item 1 is 7 but K = 4/,
      /α = 1.5 is not in \(0, 1\)/,
      /shape must be \[n, m, k\], got 2 numbers/,
      /labels\[1\] = -1 is not an index/,
      /finite means and variances ≥ 0/,
      /bad arguments/,
    ];
    expected.forEach((re, i) => {
      assert.ok(thrown[i], `case ${i} threw nothing`);
      assert.ok(thrown[i].isError, `case ${i} threw a non-Error`);
      assert.match(thrown[i].message, re, `case ${i}`);
    });
    assert.equal(thrown[expected.length], null, 'the module failed after bad input');
    assert.deepEqual(errors, []);
  });
});

test('the explorer page exposes the same functions on window.wasmBindings', async (t) => {
  const { page, errors } = await explorer.open();
  await shot(t, page, async () => {
    await page.waitForFunction(() => typeof window.wasmBindings?.rvalues === 'function', null, {
      timeout: TIMEOUT_MS,
    });
    const r = await page.evaluate(() => {
      const out = window.wasmBindings.rvalues({ x: [0.5, 2, -1], se: [1, 1, 1], hyper: { mu: 0, tau2: 1 } });
      return { rvalue: [...out.rvalue], hyper: out.hyper };
    });
    assert.deepEqual(r.hyper, { mu: 0, tau2: 1 });
    // Equal noise: the r-values order the units as their estimates do.
    assert.ok(r.rvalue[1] < r.rvalue[0] && r.rvalue[0] < r.rvalue[2], `${r.rvalue}`);
    assert.deepEqual(errors, []);
  });
});
