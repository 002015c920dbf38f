// A Web Worker of the explorer (crates/web: pool.rs posts to it, worker.rs holds what it
// calls): it runs the page's own wasm module and computes the toy repeats or score file splits
// the page hands it, so that they run on several cores. Started as a module worker from the page's origin (the CSP's 'self').
//
// Messages in:  {init: {js, module}}  the page's wasm-bindgen module URL and its compiled
//                                     WebAssembly.Module (instantiated here, not compiled again);
//               {hold: [n, m, k, labels, scores]}  a score file, held for the splits after it
//                                     (scores: a Float64Array, Float32Array or, float16 as
//                                     its bit patterns, a Uint16Array);
//               {holdFile: [File, labels]}  a file too large to hold: its handle and its
//                                     labels (a Float64Array), for the shares and pooled splits
//                                     after it (read here a range at a time into one buffer);
//               {holdHosted: [url, name, size, labels]}  the same for a file on the page's
//                                     own site, read with HTTP Range requests;
//               {serial, part, request, work}  work to compute: "repeat" a toy repeat
//                                     (`explorer::compute_part`), "split" a pooled split of the
//                                     file held, "share" a share of the streamed file's items,
//                                     "splits" a group of its pooled splits.
// Messages out: {ready: true} or {failed}  after init;
//               {serial, part, bytes} or {serial, part, error}  per repeat (bytes transferred).

let bindings = null;

// A group of splits takes many steps, each reading ahead asynchronously: the messages are
// handled one after the other.
let queue = Promise.resolve();
self.onmessage = (event) => {
  queue = queue.then(() => handle(event.data));
};

// Pooled CP_r on the group of splits `request` names, a step at a time.
async function splits(request) {
  bindings.rvalue_splits_start(request);
  for (;;) {
    const bytes = await bindings.rvalue_splits_step();
    if (bytes) return bytes;
  }
}

async function handle(m) {
  if (m.init) {
    try {
      const b = await import(m.init.js);
      await b.default({ module_or_path: m.init.module });
      bindings = b;
      self.postMessage({ ready: true });
    } catch (e) {
      self.postMessage({ failed: String(e) });
    }
    return;
  }
  if (m.holdFile || m.holdHosted) {
    // A file read a block at a time: its handle (or a hosted file's address), not its bytes.
    // One that cannot be opened fails its shares, which the page then reads itself.
    try {
      if (m.holdFile) bindings.rvalue_hold_file(...m.holdFile);
      else bindings.rvalue_hold_hosted(...m.holdHosted);
    } catch {}
    return;
  }
  if (m.hold) {
    // A file that cannot be held fails its splits, which the page then computes itself.
    try {
      bindings.rvalue_hold_data(...m.hold);
    } catch {}
    return;
  }
  const { serial, part, request, work } = m;
  const compute = {
    repeat: () => bindings.rvalue_compute_part(request),
    split: () => bindings.rvalue_compute_split(request),
    share: () => bindings.rvalue_compute_share(request),
    splits: () => splits(request),
  }[work];
  try {
    if (!bindings) throw new Error("the worker's wasm is not ready");
    if (!compute) throw new Error(`no such work: ${work}`);
    const bytes = await compute();
    self.postMessage({ serial, part, bytes }, [bytes.buffer]);
  } catch (e) {
    // A panic traps the instance for good: the page stops using this worker.
    self.postMessage({ serial, part, error: String(e) });
  }
}
