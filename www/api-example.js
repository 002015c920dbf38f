// The JavaScript API example (www/api-example.html): imports the API module by its fixed names
// (dist/api/, beside www/ in the built site) and computes with it. A documentation page can copy
// the import and the calls below.
import init, * as api from '../api/rvalue.js';

// The rvalues R package's example units: estimates and their standard errors.
const ESTIMATES = [
  0.0932413072, 3.122807035, -2.734865978, 3.693145699, -0.6682825501, -0.1387703824,
  -1.215327455, 1.229268249, 0.7279508849, 0.9488411773, -0.5439484521, 0.7350147419,
];
const STANDARD_ERRORS = [
  1.380980367, 1.579644565, 1.175761284, 1.704021939, 1.062246927, 0.8759811706,
  0.7724286664, 0.6847661966, 1.193888634, 1.032550503, 1.427407055, 0.32182882,
];

// A seeded tensor of n items × m draws × k candidates (mulberry32 and Box–Muller): candidate 0
// is true with mean 1 and sd 1, the others mean 0 and sd 3.
function syntheticScores(n, m, k, seed) {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const scores = new Float64Array(n * m * k);
  for (let i = 0; i < n * m * k; i++) {
    const truth = i % k === 0;
    scores[i] = truth ? 1 + normal() : 3 * normal();
  }
  return { scores, shape: [n, m, k], labels: new Uint32Array(n) };
}

function cell(row, text) {
  const td = document.createElement('td');
  td.textContent = text;
  row.append(td);
}

function showUnits() {
  const se = Float64Array.from(STANDARD_ERRORS);
  const asR = api.rvalues({ x: Float64Array.from(ESTIMATES), se, algorithm: 'grid', rule: 'empirical' });
  const exact = api.rvalues({ x: ESTIMATES, se });
  document.getElementById('units-hyper').textContent = `μ = ${asR.hyper.mu}, τ² = ${asR.hyper.tau2}`;
  const body = document.querySelector('#units tbody');
  ESTIMATES.forEach((x, i) => {
    const row = body.insertRow();
    [i + 1, x, se[i], asR.rvalue[i], exact.rvalue[i]].forEach((v) => cell(row, String(v)));
  });
}

function showConformal() {
  const data = syntheticScores(300, 10, 5, 7);
  document.getElementById('conformal-shape').textContent = data.shape.join(' × ');
  const result = api.conformal({ ...data, alpha: 0.1, splits: 20, seed: 1 });
  const body = document.querySelector('#conformal tbody');
  for (const m of result.methods) {
    const row = body.insertRow();
    [m.method, m.coverage.toFixed(3), m.size.toFixed(3), m.emptyRate.toFixed(3)].forEach((v) => cell(row, v));
  }
}

function showError() {
  try {
    api.rvalues({ x: ESTIMATES, se: STANDARD_ERRORS.slice(1) });
  } catch (e) {
    document.getElementById('error-message').textContent = `${e.name}: ${e.message}`;
  }
}

async function main() {
  const status = document.getElementById('api-status');
  try {
    // Fetches and instantiates rvalue_bg.wasm, which sits beside rvalue.js.
    await init();
    showUnits();
    showConformal();
    document.getElementById('toy-probability').textContent = String(
      api.toyProbability({ muP: 1, sigma2P: 1, muQ: 0, sigma2Q: 1000 }),
    );
    showError();
    // For the browser console (and the page's test).
    window.rvalueApi = api;
    status.textContent = 'Computed in this page.';
    document.body.dataset.ready = 'true';
  } catch (e) {
    status.textContent = `The example failed: ${e.message}`;
    document.body.dataset.ready = 'failed';
    console.error(e);
  }
}

main();
