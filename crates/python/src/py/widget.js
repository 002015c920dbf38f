// The browser side of rvalue_explorer.explore (anywidget's module): the explorer page in an
// iframe whose document is the saved report sent as bytes, so the page runs under its own
// Content-Security-Policy with its own code; the data, a binary buffer, is put on the frame
// element, where the page looks for it (its report block is empty). The iframe's document is same-origin (srcdoc), so
// this module moves its sliders as a reader would (value, then the `input` event the page
// listens to) and watches them and panel 6's table to report the state back.
const SLIDERS = ['alpha', 'beta', 'sigma2'];
// The method options' controls: menus, and one checkbox.
const OPTIONS = ['kind', 'prior', 'variance', 'ties', 'coverage', 'never-empty'];

function options(doc) {
  const out = {};
  for (const id of OPTIONS) {
    const el = doc.getElementById(id);
    if (el) out[id] = el.type === 'checkbox' ? el.checked : el.value;
  }
  return out;
}

function setOptions(doc, wanted) {
  for (const [id, v] of Object.entries(wanted ?? {})) {
    const el = doc.getElementById(id);
    if (!el || !OPTIONS.includes(id) || (el.type === 'checkbox' ? el.checked : el.value) === v) continue;
    if (el.type === 'checkbox') el.checked = v;
    else el.value = v;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }
}

function positions(doc) {
  const out = {};
  for (const id of SLIDERS) {
    const el = doc.getElementById(id);
    if (el) out[id] = Number(el.value);
  }
  return out;
}

// Panel 6's rows as objects keyed by the column heads.
function summary(doc) {
  const table = doc.getElementById('summary-table');
  if (!table) return [];
  const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  return [...table.querySelectorAll('tbody tr')].map((tr) => {
    const row = {};
    [...tr.children].forEach((td, i) => { row[heads[i] ?? String(i)] = td.textContent.trim(); });
    return row;
  });
}

function setPositions(doc, wanted) {
  for (const [id, p] of Object.entries(wanted ?? {})) {
    const el = doc.getElementById(id);
    if (el && Number(el.value) !== p) {
      el.value = String(p);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    }
  }
}

function watch(model, doc) {
  const report = () => {
    const [now, old] = [positions(doc), model.get('_positions') ?? {}];
    const [opts, oldOpts] = [options(doc), model.get('_options') ?? {}];
    const moved = SLIDERS.some((id) => now[id] !== old[id]);
    const chosen = OPTIONS.some((id) => opts[id] !== oldOpts[id]);
    if (moved) model.set('_positions', now);
    if (chosen) model.set('_options', opts);
    if (moved || chosen) model.save_changes();
  };
  for (const id of OPTIONS) doc.getElementById(id)?.addEventListener('change', report);
  // The page's status changes with every analysis, also those its own code starts (the
  // settings it opens with), which no event of a control announces.
  const status = doc.getElementById('status');
  if (status) new MutationObserver(report).observe(status, { attributes: true });
  // The outputs beside the sliders change whenever a slider does, by the reader's hand or by
  // the page's own code (the settings it starts with, a preset, the tour).
  const outputs = new MutationObserver(report);
  for (const id of SLIDERS) {
    doc.getElementById(id)?.addEventListener('input', report);
    const out = doc.getElementById(`${id}-value`);
    if (out) outputs.observe(out, { childList: true, subtree: true, characterData: true });
  }
  const tbody = doc.querySelector('#summary-table tbody');
  if (tbody) {
    new MutationObserver(() => {
      model.set('_summary', summary(doc));
      model.save_changes();
    }).observe(tbody, { childList: true, subtree: true, characterData: true });
  }
  return report;
}

// A bytes traitlet arrives as a DataView (or an ArrayBuffer).
const bytes = (v) => (ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v));

function render({ model, el }) {
  const frame = document.createElement('iframe');
  frame.title = 'rvalue-explorer';
  frame.style.cssText = 'width:100%;height:900px;border:0;display:block';
  frame.rvalueReportData = bytes(model.get('_data'));
  frame.srcdoc = new TextDecoder().decode(bytes(model.get('_html')));
  el.appendChild(frame);
  const onSet = () => {
    const doc = frame.contentDocument;
    if (doc) setPositions(doc, model.get('_positions'));
  };
  const onOptions = () => {
    const doc = frame.contentDocument;
    if (doc) setOptions(doc, model.get('_options'));
  };
  frame.addEventListener('load', () => {
    const doc = frame.contentDocument;
    // The page's own sliders exist once its markup has loaded; its wasm listens from then on.
    const wanted = model.get('_positions') ?? {};
    const chosen = model.get('_options') ?? {};
    const report = watch(model, doc);
    if (Object.keys(wanted).length) setPositions(doc, wanted);
    if (Object.keys(chosen).length) setOptions(doc, chosen);
    report();
  });
  // One panel alone (panel=...) posts its height, as any embed does; the frame takes it. The
  // whole page scrolls in 900 px.
  const onHeight = (e) => {
    if (e.source === frame.contentWindow && e.data?.type === 'rvalue-explorer:height' && Number.isFinite(e.data.height)) {
      frame.style.height = `${e.data.height}px`;
    }
  };
  window.addEventListener('message', onHeight);
  model.on('change:_positions', onSet);
  model.on('change:_options', onOptions);
  return () => {
    window.removeEventListener('message', onHeight);
    model.off('change:_positions', onSet);
    model.off('change:_options', onOptions);
  };
}

export default { render };
