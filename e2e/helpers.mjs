// Shared pieces of the browser end-to-end tests: a static server for dist/, headless Chromium
// with the project's flags, a page that records console errors and every request, screenshots.
//
// A test file calls useExplorer() once at top level; it starts the server and the browser
// before the tests and closes both after them, even when a test fails.

import assert from 'node:assert/strict';
import { after, afterEach, before } from 'node:test';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { crc32 } from 'node:zlib';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
export const SCREENSHOTS = join(ROOT, 'test-output', 'e2e');

// Debian's Chromium (scripts/setup.sh installs it): the network is closed to browser downloads,
// so playwright never fetches its own build.
const CHROMIUM = '/usr/bin/chromium';
// The same flags as webdriver.json: no sandbox (we run as root), and no traffic of Chromium's
// own (QUIC, component updates, sync, background fetches) so only the page talks to the network.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// A cold Chromium and a cold wasm compile on a busy 2-core machine can take tens of seconds.
export const TIMEOUT_MS = 90_000;

// trunk emits .wasm and .js; the browser refuses streaming wasm compilation and module scripts
// served with the wrong type, so these two must be exact.
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

// Serves `root` on 127.0.0.1 at a free port the OS picks (tests may run beside `make serve`).
// With `ranges`, it answers HTTP Range requests (one range, `bytes=a-b` or `bytes=a-`) as a
// static file server does, with 206 and a Content-Range; without, it ignores them and sends the
// whole file, as servers that do not support ranges do. `log`, if given, gets every answer:
// { path, range (the request's header or null), status, bytes }.
export async function startServer(root = DIST, { ranges = false, log = null } = {}) {
  if (!existsSync(join(root, 'index.html'))) {
    throw new Error(`${root}/index.html is missing: build the page first (make test-e2e runs trunk build)`);
  }
  const server = createServer(async (req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      res.writeHead(400).end(); // a malformed URL must not crash the server mid-test
      return;
    }
    let file = resolve(root, '.' + path);
    if (path.endsWith('/')) file = join(file, 'index.html');
    // Never serve anything outside root (e.g. /../Cargo.toml).
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const whole = await readFile(file);
      const headers = {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        // Each test sees the dist/ of this build, never a cached one.
        'cache-control': 'no-store',
      };
      const [status, body] = ranges ? ranged(whole, req.headers.range, headers) : [200, whole];
      log?.push({ path, range: req.headers.range ?? null, status, bytes: body.length });
      res.writeHead(status, headers);
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const url = `http://127.0.0.1:${server.address().port}/`;
  return {
    url,
    close: () =>
      new Promise((ok) => {
        // Chromium keeps connections alive; close() alone would wait for them.
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

// The answer of a server with ranges to a request whose Range header is `range` (or none):
// [status, body], with the range headers added to `headers`.
function ranged(whole, range, headers) {
  headers['accept-ranges'] = 'bytes';
  const m = /^bytes=(\d+)-(\d*)$/.exec(range ?? '');
  if (!m) return [200, whole];
  const start = Number(m[1]);
  const end = Math.min(m[2] === '' ? whole.length - 1 : Number(m[2]), whole.length - 1);
  if (start > end) {
    headers['content-range'] = `bytes */${whole.length}`;
    return [416, Buffer.alloc(0)];
  }
  headers['content-range'] = `bytes ${start}-${end}/${whole.length}`;
  return [206, whole.subarray(start, end + 1)];
}

// playwright's launch() gives each browser a fresh temporary profile and deletes it on close.
// `args`: flags added to the project's (e.g. WebGPU on SwiftShader, see gpu.test.mjs).
export function launchBrowser({ args = [] } = {}) {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, ...args],
    timeout: TIMEOUT_MS,
  });
}

// A new context (no shared cookies or storage between tests) with one page that records:
// errors: console errors, uncaught page errors, failed requests and HTTP errors, as strings;
// messages: every console message as "type: text";
// requests: the URL of every request the page or its workers made.
// Requests that would leave the machine are recorded, then aborted: the network is closed
// anyway, and aborting fails the test at once instead of after a connection timeout.
export async function openPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  context.setDefaultTimeout(TIMEOUT_MS);
  const errors = [];
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  await context.route('**/*', (route) =>
    isLocal(route.request().url()) ? route.continue() : route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  const messages = [];
  page.on('console', (m) => {
    messages.push(`${m.type()}: ${m.text()}`);
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page error: ${e.stack ?? e}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return { context, page, errors, requests, messages };
}

// Only plain HTTP to 127.0.0.1 stays on the machine; data: and blob: URLs never reach a network.
export function isLocal(url) {
  const u = new URL(url);
  if (u.protocol === 'data:' || u.protocol === 'blob:') return true;
  return u.protocol === 'http:' && u.hostname === '127.0.0.1';
}

// Saves a full-page screenshot as test-output/e2e/<test name>.png and returns its path.
export async function screenshot(page, name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

// Registers hooks that start the server and the browser once per file and close them after it,
// and close each test's context after the test. Returns { url, open() } for the tests, where
// open(path, { prepare }) loads the page at `path` and returns openPage()'s record plus the
// response.
// `args`: extra Chromium flags for this browser (launchBrowser).
export function useExplorer({ args = [] } = {}) {
  const env = { server: null, browser: null, contexts: [] };
  before(async () => {
    env.server = await startServer();
    env.browser = await launchBrowser({ args });
  });
  afterEach(async () => {
    await Promise.all(env.contexts.splice(0).map((c) => c.close().catch(() => {})));
  });
  // Each closes on its own: a failed browser launch must not leave the server listening.
  after(async () => {
    await env.browser?.close().catch(() => {});
    await env.server?.close();
  });
  return {
    get url() {
      return env.server.url;
    },
    // `prepare(opened)` runs before the page loads (e.g. to route a request).
    async open(path = '', { prepare } = {}) {
      const opened = await openPage(env.browser);
      env.contexts.push(opened.context);
      await prepare?.(opened);
      const response = await opened.page.goto(new URL(path, env.server.url).href, { waitUntil: 'load' });
      return { ...opened, response };
    },
  };
}

// The page says what it is doing in #status's data-state ("running", "ready", "cancelled",
// "failed", "note", "loading", "idle") and counts the analyses it has put on show in data-shown:
// tests wait on these, never on the English of the status line.
export const analysesShown = (page) => page.evaluate(() => Number(document.querySelector('#status')?.dataset.shown ?? 0));

// Waits until the page shows a finished analysis (not a partial toy result, not running); with
// `after`, one put on show after analysesShown() returned `after`.
export async function ready(page, after = -1) {
  await page.waitForFunction((after) => {
    const s = document.querySelector('#status');
    return s?.dataset.state === 'ready' && Number(s.dataset.shown) > after;
  }, after, { timeout: TIMEOUT_MS * 2 });
}

// Waits until #status's data-state is `state`.
export async function settled(page, state) {
  await page.waitForFunction((state) => document.querySelector('#status')?.dataset.state === state, state,
    { timeout: TIMEOUT_MS * 2 });
}

// Waits until the page has dropped an answer (of the GPU or a worker) for a job since replaced
// or cancelled: the performance mark `rvalue:dropped-answer` (rvalue_web::marks::DROPPED_ANSWER).
export async function dropped(page) {
  await page.waitForFunction(() => performance.getEntriesByName('rvalue:dropped-answer').length > 0, null,
    { timeout: TIMEOUT_MS * 2 });
}

// Moves a range slider to `position` as a user's drag would end (input, then change).
export async function slide(page, id, position) {
  await page.locator(`#${id}`).fill(String(position));
  await page.locator(`#${id}`).dispatchEvent('change');
}

// Sets a number input and commits it.
export async function setNumber(page, id, value) {
  await page.locator(`#${id}`).fill(String(value));
  await page.locator(`#${id}`).dispatchEvent('change');
}

// Runs `body`, then saves a screenshot named after the test whatever happened.
export async function shot(t, page, body) {
  try {
    await body();
  } finally {
    await screenshot(page, t.name);
  }
}

export const text = (page, sel) => page.locator(sel).textContent();

// Panel 6's CSV export as lines without its never_empty column: the command line's columns, to
// compare with `rvalue conformal --format csv`.
export async function pageSummary(page) {
  const csv = (await download(page, '#panel-summary button[data-export="csv"]')).bytes.toString();
  return csv.trim().split('\n').map((line) => {
    const f = line.split(',');
    f.splice(2, 1);
    return f.join(',');
  });
}

// Clicks (or, with `key`, focuses and presses `key` on) the button and returns the download.
export async function download(page, selector, key = null) {
  const event = page.waitForEvent('download', { timeout: 30_000 });
  if (key) {
    await page.focus(selector);
    await page.keyboard.press(key);
  } else {
    await page.click(selector);
  }
  const d = await event.catch(async (e) => {
    // Say what the page knows: an export error in the banner, or where the focus went.
    const state = await page.evaluate(() => ({
      banner: document.querySelector('#error').textContent,
      focus: document.activeElement?.outerHTML,
    }));
    throw new Error(`${selector}: no download (${JSON.stringify(state)}): ${e.message}`);
  });
  return { name: d.suggestedFilename(), bytes: await readFile(await d.path()) };
}

// Φ by the Maclaurin series of erf, to full double precision for the |x| < 1 used by the tests:
// the page shows P(q > p) to 0.01 %, and Φ(−1/√2) = 0.2397500611 sits next to a rounding boundary.
export function Phi(x) {
  const z = x / Math.SQRT2;
  assert.ok(Math.abs(z) < 2, 'the series is only used near 0');
  let term = z;
  let sum = z;
  for (let n = 1; n < 60; n++) {
    term *= (-z * z) / n;
    sum += term / (2 * n + 1);
  }
  return 0.5 * (1 + (2 / Math.sqrt(Math.PI)) * sum);
}

// Peak and current resident memory of Chromium's renderer processes (the page's wasm memory
// lives there), from /proc; null where that is not available.
export async function rendererMemory(browser) {
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

// An array of a .npy: { descr, shape, values } (little-endian f4, f8, i8 or b1, C order: what
// the bundled samples and the page's masks hold).
export function npyArray(buf) {
  const wide = buf[6] !== 1;
  const headerLen = wide ? buf.readUInt32LE(8) : buf.readUInt16LE(8);
  const start = (wide ? 12 : 10) + headerLen;
  const header = buf.toString('latin1', start - headerLen, start);
  const descr = header.match(/'descr': '([^']+)'/)[1];
  const shape = header.match(/'shape': \(([^)]*)\)/)[1].split(',').filter((s) => s.trim()).map(Number);
  const body = buf.subarray(start);
  const [size, read] = {
    '<f4': [4, (o) => body.readFloatLE(o)],
    '<f8': [8, (o) => body.readDoubleLE(o)],
    '<i8': [8, (o) => Number(body.readBigInt64LE(o))],
    '|b1': [1, (o) => body[o] !== 0],
  }[descr];
  const count = shape.reduce((a, b) => a * b, 1);
  return { descr, shape, values: Array.from({ length: count }, (_, i) => read(i * size)) };
}

// A member of a stored (uncompressed) .npz, found through its central directory, as npyArray.
export function npzArray(bytes, member) {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = bytes.readUInt32LE(end + 16);
  for (let i = 0; i < bytes.readUInt16LE(end + 10); i++) {
    const nameLen = bytes.readUInt16LE(at + 28);
    const name = bytes.toString('latin1', at + 46, at + 46 + nameLen);
    if (name === member) {
      assert.equal(bytes.readUInt16LE(at + 10), 0, `${member} is stored, not deflated`);
      const local = bytes.readUInt32LE(at + 42);
      const data = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
      return npyArray(bytes.subarray(data, data + bytes.readUInt32LE(at + 20)));
    }
    at += 46 + nameLen + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  throw new Error(`the .npz has no member ${member}`);
}

// A .npy of text as numpy writes np.array(names) ('<U{n}', UTF-32 little-endian).
export function textNpy(names) {
  const width = Math.max(1, ...names.map((n) => [...n].length));
  const dict = `{'descr': '<U${width}', 'fortran_order': False, 'shape': (${names.length},), }`;
  const head = Buffer.from(dict.padEnd(117, ' ') + '\n', 'latin1');
  const data = Buffer.alloc(names.length * width * 4);
  names.forEach((n, i) => [...n].forEach((ch, j) => data.writeUInt32LE(ch.codePointAt(0), (i * width + j) * 4)));
  const len = Buffer.alloc(2);
  len.writeUInt16LE(head.length);
  return Buffer.concat([Buffer.from('\x93NUMPY\x01\x00', 'latin1'), len, head, data]);
}

// A zip of stored members, as np.savez writes one (without compression).
export function zip(members) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const [name, data] of members) {
    const n = Buffer.from(name);
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt32LE(crc32(data), 14);
    h.writeUInt32LE(data.length, 18);
    h.writeUInt32LE(data.length, 22);
    h.writeUInt16LE(n.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt32LE(crc32(data), 16);
    c.writeUInt32LE(data.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(n.length, 28);
    c.writeUInt32LE(offset, 42);
    locals.push(h, n, data);
    centrals.push(c, n);
    offset += h.length + n.length + data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

// What an exported SVG holds that could run, parsed by the browser of `page`: the parser's
// error (or null), how many script or foreignObject elements, the on* attributes, and its texts.
export function svgInspected(page, svg) {
  return page.evaluate((s) => {
    const doc = new DOMParser().parseFromString(s, 'image/svg+xml');
    const all = [...doc.querySelectorAll('*')];
    return {
      error: doc.querySelector('parsererror')?.textContent ?? null,
      scripts: all.filter((e) => e.localName === 'script' || e.localName === 'foreignObject').length,
      handlers: all.flatMap((e) => [...e.attributes].map((a) => a.name)).filter((n) => n.startsWith('on')),
      texts: [...doc.querySelectorAll('text')].map((e) => e.textContent),
    };
  }, svg);
}
