use std::cell::RefCell;
use std::rc::Rc;

use super::*;
use crate::workers::{Task, QUEUE};
use crate::{Controls, HeldData, Mode, Progress, Source};
use rvalue_core::conformal::RvalueKind;
use rvalue_core::toy::{self, ToyParams};

/// A worker in this thread: what was posted to it, computed when the test says.
#[derive(Default)]
struct Inline {
    holds: RefCell<Vec<usize>>,
    tasks: RefCell<Vec<Task>>,
    terminated: RefCell<bool>,
}

impl Port for Rc<Inline> {
    type File = ();
    fn hold(&self, data: &Dataset) -> bool {
        self.holds.borrow_mut().push(data.scores.n());
        true
    }
    fn hold_file(&self, _: &(), _: &StreamedFile) -> bool {
        false
    }
    fn post(&self, task: &Task) -> bool {
        self.tasks.borrow_mut().push(task.clone());
        true
    }
    fn terminate(&self) {
        *self.terminated.borrow_mut() = true;
    }
}

fn pooled_file() -> (Controls, Arc<Dataset>) {
    let toy = ToyParams { k: 4, m: 6, n_cal: 25, n_test: 30, repeats: 1, ..ToyParams::default() };
    let mut c = Controls { mode: Mode::Scores, splits: 8, toy, ..Controls::default() };
    c.score.kind = RvalueKind::Pooled;
    let (scores, labels) = toy::simulate(&c.toy_params(), 0).unwrap();
    let d = Dataset { scores, labels: Some(labels), single_draw: false };
    (c, Arc::new(d))
}

type Ports = Vec<Rc<Inline>>;

fn spawner(ports: &RefCell<Ports>) -> impl FnMut(usize) -> Option<Rc<Inline>> + '_ {
    |_| {
        let p = Rc::new(Inline::default());
        ports.borrow_mut().push(p.clone());
        Some(p)
    }
}

#[test]
fn the_pool_starts_once_with_its_count() {
    let ports = RefCell::new(Ports::new());
    let mut pool = Pool::new(Some("3".into()));
    assert_eq!((pool.alive(8.0), pool.ready()), (3, 0));
    pool.start(8.0, spawner(&ports));
    pool.start(8.0, spawner(&ports));
    assert_eq!((ports.borrow().len(), pool.alive(1.0), pool.ready()), (3, 3, 0));
    assert_eq!(pool.replied(0, Reply::Ready, None), Some(Replied::Ready));
    assert_eq!((pool.ready(), pool.replied(7, Reply::Ready, None)), (1, None));
    let mut by_cores: Pool<Rc<Inline>> = Pool::new(None);
    by_cores.start(4.0, spawner(&ports));
    assert_eq!(ports.borrow().len(), 6);
}

/// Workers fed a score file's pooled splits hold the file once each, and their answers (here
/// computed in this thread from what was posted) give the job's own analysis; a busy worker is
/// replaced by a fresh one.
#[test]
fn workers_hold_the_file_once_and_their_splits_give_the_job_s_analysis() {
    let (c, d) = pooled_file();
    let alone = AnalysisJob::new(Source::Data(d.clone()), &c).unwrap().run().unwrap();
    let mut job = AnalysisJob::new(Source::Data(d.clone()), &c).unwrap();
    job.step().unwrap();
    let ports = RefCell::new(Ports::new());
    let mut pool = Pool::new(Some("2".into()));
    pool.start(1.0, spawner(&ports));
    pool.replied(0, Reply::Ready, None);
    pool.replied(1, Reply::Ready, None);
    assert_eq!(pool.feed(&mut job, 1, None), 0);
    let (a, b) = (ports.borrow()[0].clone(), ports.borrow()[1].clone());
    assert_eq!((a.tasks.borrow().len(), b.tasks.borrow().len()), (QUEUE, QUEUE));
    assert_eq!(
        (a.holds.borrow().clone(), b.holds.borrow().clone()),
        (vec![d.scores.n()], vec![d.scores.n()])
    );
    let mut held = HeldData::new(d.scores.clone(), d.labels.clone().unwrap()).unwrap();
    let answer = |t: &Task, held: &mut HeldData| Reply::Part {
        serial: t.serial,
        part: t.part,
        result: Ok(held.compute_split(&t.request).unwrap()),
    };
    let first = a.tasks.borrow()[0].clone();
    assert_eq!(pool.replied(0, answer(&first, &mut held), Some((&mut job, 1))), Some(Replied::Taken));
    pool.feed(&mut job, 1, None);
    assert_eq!((a.holds.borrow().len(), a.tasks.borrow().len()), (1, QUEUE + 1), "held once, topped up");
    // Worker b's pieces are of the job still: recycling replaces it, and the job computes them.
    assert_eq!(pool.recycle_busy(spawner(&ports)), 2);
    assert!(*a.terminated.borrow() && *b.terminated.borrow());
    assert_eq!((pool.ready(), pool.alive(1.0), ports.borrow().len()), (0, 2, 4));
    for t in a.tasks.borrow()[1..].iter().chain(b.tasks.borrow().iter()) {
        job.hand_back(t.part);
    }
    while job.step().unwrap() != Progress::Done {}
    let shared = job.finish().unwrap();
    assert_eq!(format!("{:?}", shared.at_alpha(0.1, false)), format!("{:?}", alone.at_alpha(0.1, false)));
}
