// Accessibility audit with axe-core (pinned in e2e/package.json) in Chromium: the page, every
// step of the guided tour, every embedded panel and an embedded step, each once its analysis is
// on show. None may have a serious or critical violation; an embedded panel has its level-one
// heading too. Run: `node --test e2e/a11y.test.mjs` after `trunk build --release`.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { TIMEOUT_MS, settled, ready, useExplorer } from './helpers.mjs';

const explorer = useExplorer();
const LONG = { timeout: TIMEOUT_MS * 6 };
// axe-core's own build, evaluated in the page through the DevTools protocol: the page's
// Content-Security-Policy forbids inline scripts, and the page is audited as it ships.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const STEPS = 10;
const PANELS = ['scores', 'threshold', 'coverage', 'size', 'theorem3', 'summary', 'inspector', 'classes'];

// axe's violations on the page as it is now: [{ id, impact, nodes }].
async function audit(page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
}

// Opens `path`, waits for its analysis (or its note, for a page waiting for a file) and audits it.
async function audited(path, state = 'ready') {
  const { page, errors } = await explorer.open(path);
  if (state === 'ready') await ready(page);
  else await settled(page, state);
  const violations = await audit(page);
  assert.deepEqual(errors, [], path);
  return violations;
}

const grave = (violations) => violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');

test('the page and every tour step have no serious or critical axe violation', LONG, async () => {
  assert.deepEqual(grave(await audited('')), [], 'the page');
  for (let n = 1; n <= STEPS; n++) {
    // Steps 9 and 10 are in score mode, waiting for a file.
    const found = await audited(`?tour=${n}`, n >= 9 ? 'note' : 'ready');
    assert.deepEqual(grave(found), [], `tour step ${n}`);
  }
});

test('every embedded panel and an embedded step pass axe, with a level-one heading', LONG, async () => {
  // Panel 1 of the toy is a closed form: its frame runs no analysis ("idle").
  const paths = [
    ...PANELS.map((p) => [`?embed=${p}`, p === 'scores' ? 'idle' : 'ready']),
    ['?mode=scores&sample=digits_wbb.npz&embed=data', 'ready'],
    ['?embed=tour&tour=4', 'ready'],
  ];
  for (const [path, state] of paths) {
    const found = await audited(path, state);
    assert.deepEqual(grave(found), [], path);
    assert.deepEqual(found.filter((v) => v.id === 'page-has-heading-one'), [], path);
  }
});
