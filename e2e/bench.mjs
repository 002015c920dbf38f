// Speed figures of the explorer page in headless Chromium, printed, never asserted: the page's
// targets (α slider on the CIFAR-shaped pooled results: median input-to-painted-frame ≤ 16 ms;
// toy defaults: a parameter change re-simulates, recomputes and repaints in ≤ 150 ms) depend on
// the machine, so a missed target is a number to read, not a failure.
//
// Run: make bench-page, or `node e2e/bench.mjs [--splits N] [--alpha-moves N]` after
// `trunk build --release` (it serves dist/). Exits non-zero only when the page logs errors or a
// step cannot complete.
//
// All times are taken inside the page with performance.now(), so the CDP round trips of
// playwright are not in them. "Painted" means: a requestAnimationFrame callback registered after
// the app's own has run (so the app's render is done), then a setTimeout(0) from it has fired,
// which the browser runs only after that frame's rendering update.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { DIST, launchBrowser, openPage, startServer } from './helpers.mjs';

const USAGE = 'usage: node e2e/bench.mjs [--splits N] [--alpha-moves N]';

// The page's own default. At 100 splits the CIFAR-shaped pooled analysis took about 40 s on a
// 2-core machine with the renderer at about 1.8 GB resident: affordable, so no smaller default.
const DEFAULT_SPLITS = 100;
const DEFAULT_ALPHA_MOVES = 60;
// Seed changes of the toy analysis (seeds 2, 3, …; the page starts at seed 1).
const SEED_CHANGES = 5;
// Longest wait for any one step (the CIFAR analysis is the long one).
const STEP_TIMEOUT_MS = 10 * 60_000;

// Slider positions (α = 0.005 · position) visited in turn: near and far jumps, both directions,
// both ends, so no one cached layout or one short redraw flatters the figures.
const ALPHA_POSITIONS = [10, 30, 2, 55, 20, 80, 7, 100, 41, 15, 64, 1, 25, 90, 33, 5, 72, 12, 47, 99];

// The targets, printed beside the figures.
const ALPHA_TARGET_MS = 16;
const PARAM_TARGET_MS = 150;

// A wrong option ends the run with the usage line (exit 2), not a stack trace.
function usageError(msg) {
  console.error(`${msg}\n${USAGE}`);
  process.exit(2);
}

function options() {
  const positive = (name, text, fallback) => {
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) usageError(`--${name} wants a positive integer, got ${text}`);
    return n;
  };
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        splits: { type: 'string' },
        'alpha-moves': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    usageError(e.message);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  return {
    splits: positive('splits', values.splits, DEFAULT_SPLITS),
    alphaMoves: positive('alpha-moves', values['alpha-moves'], DEFAULT_ALPHA_MOVES),
  };
}

// ---- statistics and formatting -------------------------------------------------------------

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => {
  const s = sorted(xs);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
// Nearest-rank percentile: a value that was actually measured.
const percentile = (xs, p) => sorted(xs)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)];
const ms = (x) => `${x.toFixed(1)} ms`;
const secs = (x) => `${(x / 1000).toFixed(2)} s`;

// ---- page-side pieces ----------------------------------------------------------------------

// The predicate the e2e tests use for "a finished analysis is shown", as source for the page.
const FINISHED = `(() => {
  const s = document.querySelector('#status')?.textContent ?? '';
  return s.startsWith('Showing') && !s.includes('so far') && document.querySelector('#cancel').disabled;
})()`;

async function waitFinished(page, what) {
  await page.waitForFunction(FINISHED, null, { timeout: STEP_TIMEOUT_MS }).catch((e) => {
    throw new Error(`${what} did not finish: ${e.message}`);
  });
}

// Starts an analysis in the page with `action` (CLICK or SET_NUMBER below), then watches
// #status until a new analysis is finished and painted. Resolves with the times from just
// before the action (ms): `partial`, the first painted frame showing a partial
// toy result (status "… so far"), or null; `finished`; and the final status text.
// The MutationObserver's callback runs as a microtask right after the app's frame callback
// wrote the status, so the setTimeout(0) it posts fires after that frame's rendering.
// A job counts as started once #cancel is enabled: before that the old, finished status is on
// show. The #error banner ends the wait at once, with its message.
function runAnalysis(page, action) {
  return page.evaluate(
    ({ action, timeout }) =>
      new Promise((resolve, reject) => {
        const status = document.getElementById('status');
        const cancel = document.getElementById('cancel');
        const error = document.getElementById('error');
        let started = false;
        let partial = null;
        let done = false;
        const timer = setTimeout(() => {
          observer.disconnect();
          reject(new Error(`no finished analysis after ${timeout} ms; status: ${status.textContent}`));
        }, timeout);
        const observer = new MutationObserver(() => {
          if (done) return;
          if (!error.hidden && error.textContent.trim()) {
            done = true;
            observer.disconnect();
            clearTimeout(timer);
            reject(new Error(`the page reports: ${error.textContent.trim()}`));
            return;
          }
          const s = status.textContent;
          if (!cancel.disabled) started = true;
          if (started && partial === null && s.includes('so far')) {
            partial = 'pending';
            setTimeout(() => (partial = performance.now() - t0), 0);
          }
          if (started && cancel.disabled && s.startsWith('Showing') && !s.includes('so far')) {
            done = true;
            observer.disconnect();
            clearTimeout(timer);
            setTimeout(() => {
              const finished = performance.now() - t0;
              resolve({ partial: typeof partial === 'number' ? partial : null, finished, status: s });
            }, 0);
          }
        });
        observer.observe(status, { childList: true, characterData: true, subtree: true });
        observer.observe(error, { childList: true, characterData: true, subtree: true, attributes: true });
        const t0 = performance.now();
        if (action.click) {
          document.querySelector(action.click).click();
        } else {
          // A number input applies on "change", as when the user commits a typed value.
          const input = document.getElementById(action.id);
          input.value = String(action.value);
          input.dispatchEvent(new Event('change', { bubbles: true }));
        }
      }),
    { action, timeout: STEP_TIMEOUT_MS },
  );
}

// The actions runAnalysis() performs in the page.
const CLICK = (selector) => ({ click: selector });
const SET_NUMBER = (id, value) => ({ id, value });

// One α move: input-to-painted-frame, its parts, and whether the frame showed the new α.
// A rAF registered before the dispatch runs first in the frame and one registered after it
// runs last (callbacks run in the order they were registered, and the app registers its own
// during the dispatch), so the time splits into waiting for the frame to start, the app's
// render in it, and the browser's style, layout, paint and commit after it.
function moveAlpha(page, position) {
  return page.evaluate(
    (position) =>
      new Promise((resolve) => {
        const slider = document.getElementById('alpha');
        let frameStart = null;
        requestAnimationFrame(() => (frameStart = performance.now()));
        const t0 = performance.now();
        slider.value = String(position);
        slider.dispatchEvent(new Event('input', { bubbles: true }));
        requestAnimationFrame(() => {
          const renderEnd = performance.now();
          setTimeout(
            () =>
              resolve({
                total: performance.now() - t0,
                wait: frameStart - t0,
                render: renderEnd - frameStart,
                paint: performance.now() - renderEnd,
                readout: document.getElementById('coverage-readout').textContent,
              }),
            0,
          );
        });
      }),
    position,
  );
}

// The browser's frame interval with nothing to do (rAF to rAF), the floor under which no
// input-to-frame time can go on average: an input waits for the next frame to be drawn.
function frameInterval(page, frames = 60) {
  return page.evaluate(
    (frames) =>
      new Promise((resolve) => {
        const times = [];
        const tick = (t) => {
          times.push(t);
          if (times.length <= frames) requestAnimationFrame(tick);
          else resolve(times.slice(1).map((t, i) => t - times[i]));
        };
        requestAnimationFrame(tick);
      }),
    frames,
  );
}

// How the page prints α: 3 significant digits, no trailing zeros (scales::short).
const alphaLabel = (position) => `α = ${Number((0.005 * position).toPrecision(3))}:`;

// The page fills a table per α slider position in idle frames after an analysis (src/ui/app.rs);
// α moves are measured once that is done, and the time it took is reported.
async function alphaTablesReady(page) {
  const t0 = Date.now();
  await page.waitForFunction(() => document.body.dataset.alphaTables === 'ready', null, { timeout: 600_000 });
  return Date.now() - t0;
}

async function alphaMoves(page, moves) {
  const warmup = await alphaTablesReady(page);
  let current = Number(await page.locator('#alpha').inputValue());
  const parts = { total: [], wait: [], render: [], paint: [] };
  let mismatches = 0;
  for (let i = 0, k = 0; i < moves; k++) {
    const position = ALPHA_POSITIONS[k % ALPHA_POSITIONS.length];
    if (position === current) continue; // an unchanged value is no move
    const r = await moveAlpha(page, position);
    if (!r.readout.startsWith(alphaLabel(position))) mismatches++;
    for (const [name, list] of Object.entries(parts)) list.push(r[name]);
    current = position;
    i++;
  }
  return { ...parts, mismatches, warmup };
}

// Peak and current resident memory of Chromium's renderer processes (the page's wasm memory
// lives there), from /proc; null where that is not available.
async function rendererMemory(browser) {
  try {
    const cdp = await browser.newBrowserCDPSession();
    const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
    await cdp.detach();
    let peak = 0;
    let now = 0;
    for (const p of processInfo.filter((p) => p.type === 'renderer')) {
      const status = readFileSync(`/proc/${p.id}/status`, 'utf8');
      const kb = (key) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);
      peak = Math.max(peak, kb('VmHWM'));
      now = Math.max(now, kb('VmRSS'));
    }
    return peak ? { peakMB: peak / 1024, nowMB: now / 1024 } : null;
  } catch {
    return null;
  }
}

// One line of α move figures: the total with its spread, then the medians of its parts.
const alphaLine = (name, r) =>
  `${name}: median ${ms(median(r.total))}, p90 ${ms(percentile(r.total, 90))}, max ${ms(Math.max(...r.total))}, ` +
  `n = ${r.total.length} (target: median ≤ ${ALPHA_TARGET_MS} ms; readout mismatches: ${r.mismatches})\n` +
  `  medians of its parts: wait for the frame ${ms(median(r.wait))}, app render ${ms(median(r.render))}, ` +
  `browser paint after it ${ms(median(r.paint))}; measured after the page's α tables were ready ` +
  `(${(r.warmup / 1000).toFixed(1)} s after the analysis; before that a first visit of an α costs a summary over every split)`;

const computedIn = (status) => status.match(/computed in ([\d.]+) s/)?.[1] ?? '?';

// ---- the run -------------------------------------------------------------------------------

async function main() {
  const wall = performance.now();
  const opts = options();
  const lines = [];
  // The figures go to stdout at the end, together, and also after a failure as far as they
  // got (so each is recorded as soon as it is measured); progress goes to stderr meanwhile.
  const out = (line) => lines.push(line);
  const log = (msg) => console.error(`[${((performance.now() - wall) / 1000).toFixed(0).padStart(4)} s] ${msg}`);

  const built = existsSync(join(DIST, 'index.html')) ? statSync(join(DIST, 'index.html')).mtime.toISOString() : '?';
  let server;
  let browser;
  let errors = [];
  try {
    server = await startServer();
    browser = await launchBrowser();
    const opened = await openPage(browser);
    const { page } = opened;
    errors = opened.errors;
    out(`headless Chromium ${browser.version()}, dist/ built ${built}`);

    // Load: the page starts the toy defaults analysis by itself.
    log('loading the page (toy defaults analysis)…');
    await page.goto(server.url, { waitUntil: 'load' });
    await waitFinished(page, 'the toy defaults analysis');
    out(`toy defaults on load: ${await page.locator('#status').textContent()}`);

    const idle = await frameInterval(page);
    out(`idle frame interval: median ${ms(median(idle))}, max ${ms(Math.max(...idle))}, n = ${idle.length}`);

    // A on the toy results, for comparison with the CIFAR ones.
    log(`α slider on the toy defaults, ${opts.alphaMoves} moves…`);
    out(alphaLine('alpha slider, toy defaults', await alphaMoves(page, opts.alphaMoves)));

    // B: seed changes re-simulate and recompute the toy analysis.
    log(`toy seed changes, ${SEED_CHANGES}…`);
    const seeds = [];
    for (let s = 0; s < SEED_CHANGES; s++) {
      seeds.push(await runAnalysis(page, SET_NUMBER('toy-seed', 2 + s)));
    }
    const partials = seeds.map((r) => r.partial).filter((x) => x !== null);
    out(
      `toy seed change → first partial frame: ` +
        (partials.length ? `median ${ms(median(partials))}, max ${ms(Math.max(...partials))}` : 'none shown') +
        `, n = ${partials.length} of ${seeds.length} (target: ≤ ${PARAM_TARGET_MS} ms)`,
    );
    out(
      `toy seed change → finished analysis: median ${ms(median(seeds.map((r) => r.finished)))}, ` +
        `max ${ms(Math.max(...seeds.map((r) => r.finished)))}, n = ${seeds.length} ` +
        `(page: computed in ${seeds.map((r) => computedIn(r.status)).join(', ')} s)`,
    );

    // C: the bundled digits sample, at the page's default split count.
    await page.locator('#mode-scores').check();
    const pageSplits = Number(await page.locator('#splits').inputValue());
    log(`digits sample, ${pageSplits} splits…`);
    const digits = await runAnalysis(page, CLICK('button.sample[data-file="digits_wbb.npz"]'));
    out(
      `digits sample (${pageSplits} splits) click → finished: ${secs(digits.finished)} ` +
        `(page: computed in ${computedIn(digits.status)} s)`,
    );

    // Then the CIFAR-shaped tensor at --splits. A new split count restarts the digits analysis
    // on show, so let that finish first: the CIFAR timing should not include its cancellation.
    if (opts.splits !== pageSplits) {
      log(`digits sample again at ${opts.splits} splits (the split count changed)…`);
      await runAnalysis(page, SET_NUMBER('splits', opts.splits));
    }
    log(`synthetic CIFAR-100 shape, pooled, ${opts.splits} splits…`);
    const cifar = await runAnalysis(page, CLICK('button.sample[data-synthetic="cifar"]'));
    if (!cifar.status.includes(`${opts.splits} splits`)) {
      throw new Error(`expected the CIFAR analysis at ${opts.splits} splits; status: ${cifar.status}`);
    }
    const kind = await page.locator('#kind').inputValue();
    out(
      `synthetic CIFAR (${opts.splits} splits, ${kind}) click → finished: ${secs(cifar.finished)} ` +
        `(page: computed in ${computedIn(cifar.status)} s)`,
    );
    const memory = await rendererMemory(browser);
    out(
      memory
        ? `renderer memory after the CIFAR analysis: ${memory.nowMB.toFixed(0)} MB resident, ` +
          `peak ${memory.peakMB.toFixed(0)} MB`
        : 'renderer memory: not available',
    );

    // A on the CIFAR results: the case.
    log(`α slider on the CIFAR results, ${opts.alphaMoves} moves…`);
    out(alphaLine(`alpha slider, CIFAR ${kind} (${opts.splits} splits)`, await alphaMoves(page, opts.alphaMoves)));
  } finally {
    await browser?.close().catch(() => {});
    await server?.close();
    lines.push(`page errors: ${errors.length}`);
    lines.push(`bench-page ran in ${((performance.now() - wall) / 1000).toFixed(1)} s`);
    console.log(lines.join('\n'));
    for (const e of errors) console.error(e);
  }
  if (errors.length) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`bench-page failed: ${e.stack ?? e}`);
  process.exitCode = 1;
});
