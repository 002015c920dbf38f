// rvalue_explorer.explore in a real JupyterLab: the pinned JupyterLab of target/python-venv is
// started on a free port with a token, and headless Chromium runs a notebook that shows the
// explorer on the digits sample, sets α from Python and moves the page's slider back.
//
// Run: make test (test-python installs the package and make python-venv the pinned jupyterlab
// and anywidget), or `node --test e2e/notebook.test.mjs` after both. RVALUE_SKIP_NOTEBOOK=1
// skips it (nothing else does).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, TIMEOUT_MS, launchBrowser, screenshot } from './helpers.mjs';

const PYTHON = join(ROOT, 'target', 'python-venv', 'bin', 'python');
const DIGITS = join(ROOT, 'assets', 'digits_wbb.npz');
const LONG = { timeout: TIMEOUT_MS * 8, skip: process.env.RVALUE_SKIP_NOTEBOOK === '1' && 'RVALUE_SKIP_NOTEBOOK=1' };

const CELLS = [
  `import numpy as np, rvalue_explorer as rx\nd = np.load(${JSON.stringify(DIGITS)})\nw = rx.explore(d["scores"], d["labels"], splits=3)\nw`,
  'w.alpha = 0.2\nw.rvalue = "pooled"',
  'print(f"alpha={w.alpha} rvalue={w.rvalue} rows={len(w.summary)} method={w.summary[0][\'Method\']}")',
  'rx.explore(d["scores"], d["labels"], splits=3, panel="coverage")',
];

function notebook() {
  const cells = CELLS.map((source) => ({ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source }));
  const metadata = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };
  return JSON.stringify({ cells, metadata, nbformat: 4, nbformat_minor: 5 });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    }).on('error', reject);
  });
}

// JupyterLab with its settings, workspaces and runtime files in `dir`, so no earlier run shows.
async function startLab(dir) {
  const [port, token] = [await freePort(), randomBytes(16).toString('hex')];
  const env = { ...process.env, HOME: dir, JUPYTER_CONFIG_DIR: join(dir, 'config'), JUPYTER_RUNTIME_DIR: join(dir, 'runtime'),
    JUPYTERLAB_SETTINGS_DIR: join(dir, 'settings'), JUPYTERLAB_WORKSPACES_DIR: join(dir, 'workspaces'), IPYTHONDIR: join(dir, 'ipython') };
  const lab = spawn(PYTHON, ['-m', 'jupyterlab', '--no-browser', '--ip=127.0.0.1', `--port=${port}`, '--port-retries=0', '--allow-root', '--LabApp.extension_manager=readonly',
    `--IdentityProvider.token=${token}`, `--ServerApp.root_dir=${dir}`, '--LabApp.news_url=', '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate'],
  { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  lab.stderr.on('data', (b) => { log += b; });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (lab.exitCode !== null) throw new Error(`jupyterlab exited: ${log}`);
    try {
      if ((await fetch(`${url}/api/status?token=${token}`)).ok) break;
    } catch { /* not listening yet */ }
    if (i > 600) throw new Error(`jupyterlab did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { lab, url, token, log: () => log };
}

// Runs the notebook's cell `i` as a user does: click into it, Shift+Enter; then waits until
// the kernel has taken it (its prompt shows [*] or its number).
async function run(page, i) {
  const cell = page.locator('.jp-Notebook .jp-Cell').nth(i);
  await cell.locator('.jp-InputArea-editor').click();
  await page.keyboard.press('Shift+Enter');
  await cell.locator('.jp-InputPrompt', { hasText: /\[(\*|\d+)\]/ }).waitFor();
}

// Panel 1's figures in `frame` hold pixels that are not blank.
async function drawn(frame) {
  const each = await frame.locator('#panel-coverage canvas').evaluateAll((cs) => cs.map((c) => {
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    return px.some((v, i) => i % 4 === 3 && v > 0);
  }));
  assert.ok(each.length >= 1 && each.every(Boolean), JSON.stringify(each));
}

test('explore shows the explorer in JupyterLab, and α and the method follow both ways; one panel alone', LONG, async (t) => {
  assert.ok(existsSync(PYTHON), `${PYTHON} is missing: run make python-venv and make test-python first`);
  const has = spawnSync(PYTHON, ['-c', 'import anywidget, jupyterlab, rvalue_explorer; rvalue_explorer.explore'], { encoding: 'utf8' });
  assert.equal(has.status, 0, `the venv lacks jupyterlab, anywidget or explore (make python-venv test-python): ${has.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'rvalue-notebook-'));
  writeFileSync(join(dir, 'explore.ipynb'), notebook());
  const { lab, url, token, log } = await startLab(dir);
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    page.setDefaultTimeout(TIMEOUT_MS * 2);
    try {
      await page.goto(`${url}/lab/tree/explore.ipynb?token=${token}`);
      await page.locator('.jp-Notebook .jp-Cell').nth(2).waitFor();
      // The kernel is connected (the status bar says so), not only named.
      await page.getByText(/ipykernel\) \| Idle/).waitFor();
      await run(page, 0);
      const frame = page.frameLocator('iframe[title="rvalue-explorer"]');
      // The page drew the data's panels, and panel 6 has its rows at α = 0.1: the data came as
      // the widget's buffer, its report block is empty.
      await frame.locator('#status[data-state="ready"]').waitFor();
      assert.equal(await frame.locator('#report-data').textContent(), '');
      assert.equal((await frame.locator('#alpha-value').textContent()).trim(), '0.1');
      await drawn(frame);
      // Python moves the slider and chooses a method option.
      await run(page, 1);
      await frame.locator('#alpha-value', { hasText: /^0\.2$/ }).waitFor();
      assert.equal(await frame.locator('#alpha').inputValue(), '40');
      await frame.locator('#kind option[value="pooled"]:checked').waitFor({ state: 'attached' });
      // The reader moves the slider and chooses another option; Python sees both, and panel 6's rows.
      await frame.locator('#alpha').focus();
      await frame.locator('#alpha').press('ArrowRight');
      await frame.locator('#alpha-value', { hasText: /^0\.205$/ }).waitFor();
      await frame.locator('#kind').selectOption('nonparametric');
      await frame.locator('#status[data-state="ready"]').waitFor();
      await run(page, 2);
      const out = page.locator('.jp-Notebook .jp-Cell').nth(2).locator('.jp-OutputArea-output');
      await out.filter({ hasText: 'alpha=' }).waitFor();
      assert.match(await out.textContent(), /alpha=0\.205 rvalue=nonparametric rows=[1-9]\d* method=\S/);
      // One panel alone, as ?embed= shows it, in a frame as tall as the panel.
      await run(page, 3);
      const one = page.locator('iframe[title="rvalue-explorer"]').nth(1).contentFrame();
      await one.locator('body[data-embed="coverage"] #status[data-state="ready"]').waitFor({ state: 'attached' });
      await drawn(one);
      await page.waitForFunction(() => {
        const f = document.querySelectorAll('iframe[title="rvalue-explorer"]')[1];
        const h = Math.ceil(f?.contentDocument?.body?.getBoundingClientRect().height ?? 0);
        return h > 100 && h < 900 && Math.abs(f.getBoundingClientRect().height - h) < 1;
      });
    } finally {
      await screenshot(page, t.name);
    }
  } catch (e) {
    e.message += `\njupyterlab's log:\n${log().slice(-4000)}`;
    throw e;
  } finally {
    await browser.close();
    lab.kill('SIGTERM');
    await new Promise((r) => (lab.exitCode !== null ? r() : lab.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  }
});
