// The page's GPU path (WebGPU) against its CPU path, in two headless Chromiums: one with WebGPU
// on SwiftShader (a software adapter, so this runs on any machine), one without WebGPU. The
// same rank-based analyses (pooled, then nonparametric CP_r on the bundled digits sample, a few
// splits) must show the same numbers in both, and a GPU that fails must leave the CPU's.
// Run: make test-e2e, or `node --test e2e/gpu.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TIMEOUT_MS, analysesShown, dropped, ready, screenshot, settled, text, useExplorer } from './helpers.mjs';

const WEBGPU = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'];
const withGpu = useExplorer({ args: WEBGPU });
const withoutGpu = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 4 };
// Few splits: SwiftShader is a CPU emulation of a GPU, about 100 times slower than a real one.
const SPLITS = '4';

// The "Compute:" line once the page has looked for a GPU.
async function device(page) {
  await page.waitForFunction(() => !document.querySelector('#device').textContent.includes('looking'));
  return text(page, '#device');
}

// Waits for an analysis put on show after `after` (analysesShown) to finish.
async function finished(page, after) {
  await ready(page, after);
  return text(page, '#status');
}

// What the page shows of an analysis: the summary table and the inspected item's rankings.
async function shown(page) {
  const status = await text(page, '#status');
  return {
    status,
    seconds: Number(status.match(/computed in ([\d.]+) s/)?.[1]),
    table: await text(page, '#summary-table tbody'),
    inspector: await text(page, '#inspector'),
  };
}

// Pooled, then nonparametric CP_r on the digits sample with SPLITS splits.
async function rankAnalyses(page) {
  await device(page);
  await page.locator('#mode-scores').check();
  await page.locator('#splits').fill(SPLITS);
  await page.locator('#splits').dispatchEvent('change');
  const before = await analysesShown(page);
  await page.locator('button.sample[data-file="digits_wbb.npz"]').click();
  await finished(page, before);
  // Files open with the parametric default; the pooled r-value is chosen.
  assert.equal(await page.locator('#kind').inputValue(), 'parametric');
  const opened = await analysesShown(page);
  await page.locator('#kind').selectOption('pooled');
  await finished(page, opened);
  const pooled = await shown(page);
  const pooledShown = await analysesShown(page);
  await page.locator('#kind').selectOption('nonparametric');
  await finished(page, pooledShown);
  const nonparametric = await shown(page);
  assert.match(pooled.status, new RegExp(`^Showing digits_wbb\\.npz, ${SPLITS} splits`));
  // Two different analyses: CP_r's column differs between the kinds.
  assert.notEqual(pooled.inspector, nonparametric.inspector);
  return { pooled, nonparametric };
}

const same = (a, b, what) => {
  for (const kind of ['pooled', 'nonparametric']) {
    assert.equal(a[kind].table, b[kind].table, `${what}: ${kind} summary table`);
    assert.equal(a[kind].inspector, b[kind].inspector, `${what}: ${kind} inspector`);
  }
};

let onGpu = null;

async function run(t, explorer, path, body) {
  const { page, errors } = await explorer.open(path);
  try {
    await body(page);
    assert.deepEqual(errors, [], 'console or page errors');
  } finally {
    await screenshot(page, t.name);
  }
}

// Workers off where the GPU is to rank: a worker's splits are ranked on its CPU, so with workers
// on the GPU would compute only some of the splits it is compared on.
test('with WebGPU the page names the adapter and ranks on it', LONG, async (t) => {
  await run(t, withGpu, 'index.html?workers=0', async (page) => {
    const d = await device(page);
    assert.match(d, /^GPU: .+\(webgpu, software\)$/, d);
    assert.doesNotMatch(d, /unnamed/, d);
    onGpu = await rankAnalyses(page);
    for (const kind of ['pooled', 'nonparametric']) {
      assert.match(onGpu[kind].status, /CP_r's ranks on the GPU\)\.$/, onGpu[kind].status);
      t.diagnostic(`${kind} on ${d}: ${onGpu[kind].seconds} s`);
    }
  });
});

test('without WebGPU the page says CPU and shows the same numbers', LONG, async (t) => {
  await run(t, withoutGpu, '', async (page) => {
    assert.equal(await device(page), 'CPU');
    const onCpu = await rankAnalyses(page);
    for (const kind of ['pooled', 'nonparametric']) {
      assert.doesNotMatch(onCpu[kind].status, /GPU/, onCpu[kind].status);
      t.diagnostic(`${kind} on the CPU: ${onCpu[kind].seconds} s`);
    }
    assert.ok(onGpu, 'the GPU run came first');
    same(onGpu, onCpu, 'GPU vs CPU');
  });
});

test('a GPU that fails says so and the CPU gives the same numbers', LONG, async (t) => {
  // ?gpu=lost destroys the device once it is open: every GPU call of a job fails.
  await run(t, withGpu, 'index.html?workers=0&gpu=lost', async (page) => {
    assert.match(await device(page), /^GPU: /);
    const fallback = await rankAnalyses(page);
    for (const kind of ['pooled', 'nonparametric']) {
      assert.match(fallback[kind].status, /GPU failed, CP_r on the CPU\)\.$/, fallback[kind].status);
    }
    assert.match(await text(page, '#device'), /GPU failed: .+; using CPU$/);
    assert.ok(onGpu, 'the GPU run came first');
    same(onGpu, fallback, 'GPU vs fallback');
  });
});

test('cancelling while the GPU works keeps the previous results', LONG, async (t) => {
  await run(t, withGpu, '?mode=scores&kind=pooled', async (page) => {
    await device(page);
    await page.locator('#mode-scores').check();
    // The sample's 100 pooled splits: long enough on SwiftShader to cancel mid-way.
    await page.locator('button.sample[data-file="digits_wbb.npz"]').click();
    await page.waitForFunction(() => document.querySelector('#status').textContent.includes('on the GPU'));
    await page.locator('#cancel').click();
    await settled(page, 'cancelled');
    const before = { status: await text(page, '#status'), table: await text(page, '#summary-table tbody') };
    // The answer of the GPU call under way at the cancel arrives later, is dropped (the page
    // marks it) and changes nothing shown. (That an answer for a replaced job never reaches the
    // new job is the model's device unit test, an_answer_for_a_replaced_job_is_dropped.)
    await dropped(page);
    assert.equal(await text(page, '#status'), before.status);
    assert.equal(await text(page, '#summary-table tbody'), before.table);
    assert.ok(await page.locator('#cancel').isDisabled());
  });
});

test('a GPU switched off or whose kernel does not compile leaves the CPU', LONG, async (t) => {
  await run(t, withGpu, '?gpu=off', async (page) => {
    assert.equal(await device(page), 'CPU');
  });
  await run(t, withGpu, '?gpu=bad-shader', async (page) => {
    assert.match(await device(page), /^CPU \(GPU failed: .*compiling the kernels/);
  });
});
