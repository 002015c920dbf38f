// A Web Worker of the explorer (src/ui/workers.rs): it runs the page's own wasm module and
// computes the toy repeats the page hands it, so that repeats run on several cores. Started as
// a module worker from the page's origin (the CSP's 'self').
//
// Messages in:  {init: {js, module}}  the page's wasm-bindgen module URL and its compiled
//                                     WebAssembly.Module (instantiated here, not compiled again);
//               {serial, part, request}  a repeat to compute (`explorer::compute_part`).
// Messages out: {ready: true} or {failed}  after init;
//               {serial, part, bytes} or {serial, part, error}  per repeat (bytes transferred).

let bindings = null;

self.onmessage = async (event) => {
  const m = event.data;
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
  const { serial, part, request } = m;
  try {
    if (!bindings) throw new Error("the worker's wasm is not ready");
    const bytes = bindings.rvalue_compute_part(request);
    self.postMessage({ serial, part, bytes }, [bytes.buffer]);
  } catch (e) {
    // A panic traps the instance for good: the page stops using this worker.
    self.postMessage({ serial, part, error: String(e) });
  }
};
