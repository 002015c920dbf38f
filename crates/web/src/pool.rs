//! Toy repeats and a score file's pooled splits on the other cores: the page's Web Workers
//! (`www/worker.js`, running `crate::worker`). The running job hands out repeats or splits
//! ([`AnalysisJob::hand_out`]) to idle workers while the page's thread computes the others, and
//! records each in order whoever computed it, so the numbers are those of one thread, bit for
//! bit. A worker gets a score file once ([`rvalue_model::HeldData`]), before the first split of
//! it; a file too large to hold is posted as its handle, and the worker reads the shares handed
//! to it ([`crate::streamed`]).
//!
//! One worker per core beyond the page's own (`navigator.hardwareConcurrency − 1`, at most
//! [`rvalue_model::workers::MAX_WORKERS`]), started with the first analysis of several toy
//! repeats or pooled splits; the URL parameter `workers=N` sets the count (0: the page's thread
//! alone), for tests and benchmarks. A worker that fails to start or whose repeat or split
//! fails is stopped, and its work goes back to the job. Which worker gets what, and what a
//! reply does, is [`rvalue_model::workers`]; this posts and reads the messages.

use std::rc::Rc;

use js_sys::{Array, ArrayBuffer, Float32Array, Float64Array, Object, Reflect, Uint16Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::byte_source::ByteSource;
use crate::marks::{mark, DROPPED_ANSWER, SHARE_READ};
use crate::streamed::Streamed;
use rvalue_core::io::Dataset;
use rvalue_core::tensor::Scores;
use rvalue_model::workers::{Port, Replied, ReplyFields, Task};
use rvalue_model::{AnalysisJob, StreamedFile};

pub use rvalue_model::workers::{JobRef, Reply};

/// A Web Worker and its listeners, as the model's pool drives it.
struct Handle {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

/// The page's workers ([`rvalue_model::workers::Pool`]), started when the first toy analysis
/// with several repeats starts (an embedded closed-form panel or a score file never starts
/// them).
pub struct Pool {
    pool: rvalue_model::workers::Pool<Handle>,
    /// Where replies go, once started (for workers started in place of stopped ones).
    on_reply: Option<OnReply>,
}

/// Where worker `i`'s replies go: `(i, reply)`, for [`Pool::replied`].
pub type OnReply = Rc<dyn Fn(usize, Reply)>;

/// The machine's cores, as the browser tells them.
fn cores() -> f64 {
    web_sys::window().map_or(1.0, |w| w.navigator().hardware_concurrency())
}

impl Pool {
    /// A pool of the size `switch` (the `workers` URL parameter) or the machine's cores ask for,
    /// not started yet.
    pub fn new(switch: Option<String>) -> Pool {
        Pool { pool: rvalue_model::workers::Pool::new(switch), on_reply: None }
    }

    /// Starts the workers, once; their replies go to `on_reply`.
    pub fn start(&mut self, on_reply: &OnReply) {
        self.on_reply.get_or_insert_with(|| on_reply.clone());
        let init = init_message();
        self.pool.start(cores(), |i| Handle::start(i, on_reply, init.as_ref()?));
    }

    /// Workers started and not stopped.
    pub fn ready(&self) -> usize {
        self.pool.ready()
    }

    /// Workers running or starting, or (before the pool starts) that it will start.
    pub fn alive(&self) -> usize {
        self.pool.alive(cores())
    }

    /// Stops the workers still busy with work of a job since dropped and starts fresh ones in
    /// their place.
    pub fn recycle_busy(&mut self) {
        let (Some(on_reply), Some(init)) = (self.on_reply.clone(), init_message()) else { return };
        for _ in 0..self.pool.recycle_busy(|i| Handle::start(i, &on_reply, &init)) {
            mark(DROPPED_ANSWER);
        }
    }

    /// Tops up each running worker's queue with repeats or splits of `job` (number `serial`).
    /// A streamed file's shares are read by the workers from `file`.
    pub fn feed(&mut self, job: &mut AnalysisJob, serial: u64, file: Option<&Streamed>) {
        for _ in 0..self.pool.feed(job, serial, file.map(|f| (&f.file, &f.info))) {
            mark(SHARE_READ);
        }
    }

    /// Takes worker `i`'s reply: a repeat of the running job goes to `job`. Whether it was one,
    /// taken.
    pub fn replied(&mut self, i: usize, reply: Reply, job: JobRef) -> bool {
        match self.pool.replied(i, reply, job) {
            Some(Replied::Taken) => true,
            Some(Replied::Dropped) => {
                mark(DROPPED_ANSWER);
                false
            }
            Some(Replied::Stop(why)) => {
                web_sys::console::warn_1(&why.into());
                false
            }
            Some(Replied::Ready) | None => false,
        }
    }
}

impl Handle {
    fn start(i: usize, on_reply: &OnReply, init: &JsValue) -> Option<Handle> {
        let opts = WorkerOptions::new();
        opts.set_type(WorkerType::Module);
        let worker = Worker::new_with_options("www/worker.js", &opts).ok()?;
        let to_app = on_reply.clone();
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
            if let Some(reply) = read_reply(&ev.data()) {
                to_app(i, reply);
            }
        });
        let to_app = on_reply.clone();
        // The script itself did not load or threw at the top level.
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            to_app(i, Reply::Failed("the worker script failed".to_string()));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        worker.post_message(init).ok()?;
        Some(Handle { worker, _on_message: on_message, _on_error: on_error })
    }
}

impl Port for Handle {
    type File = ByteSource;

    /// Posts `data` (its scores' buffer transferred, copied straight from the page's memory).
    fn hold(&self, data: &Dataset) -> bool {
        let t = &data.scores;
        let labels: Vec<f64> = data.labels.iter().flatten().map(|&y| y as f64).collect();
        let (scores, buffer) = stored_array(t.scores());
        let shape = |v: usize| JsValue::from_f64(v as f64);
        let hold = Array::of5(
            &shape(t.n()),
            &shape(t.m()),
            &shape(t.k()),
            &Float64Array::from(&labels[..]),
            &scores,
        );
        let msg = Object::new();
        set(&msg, "hold", &hold) && self.worker.post_message_with_transfer(&msg, &Array::of1(&buffer)).is_ok()
    }

    /// Posts the streamed file's handle or address (not its bytes).
    fn hold_file(&self, file: &ByteSource, info: &StreamedFile) -> bool {
        let labels: Vec<f64> = info.labels.iter().map(|&y| y as f64).collect();
        let labels = Float64Array::from(&labels[..]);
        let (key, hold) = match file {
            ByteSource::File(file) => ("holdFile", Array::of2(file, &labels)),
            ByteSource::Hosted(h) => (
                "holdHosted",
                Array::of4(&h.url.as_str().into(), &h.name.as_str().into(), &(h.size as f64).into(), &labels),
            ),
        };
        let msg = Object::new();
        set(&msg, key, &hold) && self.worker.post_message(&msg).is_ok()
    }

    /// Posts `task` as `{serial, part, request, work}`.
    fn post(&self, task: &Task) -> bool {
        let msg = Object::new();
        set(&msg, "serial", &JsValue::from_f64(task.serial as f64))
            && set(&msg, "part", &JsValue::from_f64(task.part as f64))
            && set(&msg, "request", &JsValue::from_str(&task.request))
            && set(&msg, "work", &JsValue::from_str(task.work))
            && self.worker.post_message(&msg).is_ok()
    }

    fn terminate(&self) {
        self.worker.terminate();
    }
}

/// A tensor's scores as the typed array of their stored type (float16 as their bit patterns in a
/// `Uint16Array`), copied from the page's memory, and its buffer to transfer: a worker holds a
/// float16 or float32 file at its own size, not widened to f64.
fn stored_array(s: Scores<'_>) -> (JsValue, ArrayBuffer) {
    match s {
        Scores::F64(v) => {
            let a = Float64Array::from(v);
            let b = a.buffer();
            (a.into(), b)
        }
        Scores::F32(v) => {
            let a = Float32Array::from(v);
            let b = a.buffer();
            (a.into(), b)
        }
        Scores::F16(v) => {
            let a = Uint16Array::from(v);
            let b = a.buffer();
            (a.into(), b)
        }
    }
}

/// `{init: {js, module}}`: the page's wasm-bindgen module (its URL, from the loader's
/// `modulepreload` link) and the compiled wasm module, so that workers do not compile it again.
fn init_message() -> Option<JsValue> {
    let doc = web_sys::window()?.document()?;
    let link = doc.query_selector("link[rel=modulepreload]").ok()??;
    let js = link.dyn_into::<web_sys::HtmlLinkElement>().ok()?.href();
    let init = Object::new();
    let ok = set(&init, "js", &JsValue::from_str(&js)) && set(&init, "module", &wasm_bindgen::module());
    let msg = Object::new();
    (ok && set(&msg, "init", &init)).then(|| msg.into())
}

fn set(o: &Object, key: &str, v: &JsValue) -> bool {
    Reflect::set(o, &JsValue::from_str(key), v).unwrap_or(false)
}

fn get(o: &JsValue, key: &str) -> Option<JsValue> {
    Reflect::get(o, &JsValue::from_str(key)).ok().filter(|v| !v.is_undefined())
}

fn read_reply(data: &JsValue) -> Option<Reply> {
    let text = |key| get(data, key).map(|v| v.as_string().unwrap_or_default());
    let number = |key| get(data, key).and_then(|v| v.as_f64());
    let bytes = match get(data, "bytes") {
        Some(b) => Some(b.dyn_into::<Uint8Array>().ok()?.to_vec()),
        None => None,
    };
    let fields = ReplyFields {
        ready: get(data, "ready").is_some(),
        failed: text("failed"),
        serial: number("serial"),
        part: number("part"),
        bytes,
        error: text("error"),
    };
    fields.reply()
}
