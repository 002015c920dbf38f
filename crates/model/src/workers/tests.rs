use super::*;
use crate::{compute_part, Controls, Progress, Source};
use rvalue_core::toy::ToyParams;

fn controls(repeats: usize) -> Controls {
    Controls {
        toy: ToyParams { k: 4, m: 6, n_cal: 25, n_test: 30, repeats, ..ToyParams::default() },
        sigma2: 50.0,
        ..Controls::default()
    }
}

fn job(c: &Controls) -> AnalysisJob {
    AnalysisJob::new(Source::Toy(c.toy_params()), c).unwrap()
}

fn running() -> Slot {
    let mut s = Slot::default();
    assert_eq!(s.replied(Reply::Ready, None), Replied::Ready);
    s
}

/// Posts pieces to `slot` while it takes them; the tasks posted.
fn feed(slot: &mut Slot, job: &mut AnalysisJob, serial: u64) -> Vec<Task> {
    let mut out = Vec::new();
    while let Some(t) = slot.next(job, serial) {
        slot.posted(&t, true, job);
        out.push(t);
    }
    out
}

fn answer(t: &Task) -> Reply {
    Reply::Part { serial: t.serial, part: t.part, result: Ok(compute_part(&t.request).unwrap()) }
}

#[test]
fn the_count_is_the_switch_or_the_cores_beyond_the_page_s() {
    assert_eq!(worker_count(Some("3"), 16.0), 3);
    assert_eq!(worker_count(Some("0"), 16.0), 0);
    assert_eq!(worker_count(Some("99"), 1.0), MAX_WORKERS);
    assert_eq!(worker_count(None, 4.0), 3);
    assert_eq!(worker_count(None, 0.0), 0);
    assert_eq!(worker_count(None, 64.0), MAX_WORKERS);
    assert_eq!(worker_count(Some("many"), 2.0), 1);
}

/// Two workers fed repeats, answering out of order, one failing: the job's analysis is the one
/// it computes alone, bit for bit, and the failed worker's repeats come back to the job.
#[test]
fn slots_fed_and_answering_out_of_order_give_the_job_s_analysis() {
    let c = controls(7);
    let alone = job(&c).run().unwrap();
    let mut j = job(&c);
    let (mut a, mut b) = (running(), Slot::default());
    assert_eq!(b.next(&mut j, 1), None, "a starting worker gets nothing");
    let sent_a = feed(&mut a, &mut j, 1);
    assert_eq!(sent_a.iter().map(|t| (t.part, t.work)).collect::<Vec<_>>(), [(1, "repeat"), (2, "repeat")]);
    b.replied(Reply::Ready, None);
    let sent_b = feed(&mut b, &mut j, 1);
    assert_eq!(j.parts_out(), 4);
    assert_eq!(a.replied(answer(&sent_a[1]), Some((&mut j, 1))), Replied::Taken);
    assert_eq!(a.replied(answer(&sent_a[0]), Some((&mut j, 1))), Replied::Taken);
    assert!(!a.busy());
    // Worker b fails one piece: it stops, and its other piece goes back to the job too.
    let failed = Reply::Part { serial: 1, part: sent_b[0].part, result: Err("out of memory".into()) };
    let Replied::Stop(why) = b.replied(failed, Some((&mut j, 1))) else { panic!("not stopped") };
    assert!(why.contains("out of memory"), "{why}");
    assert_eq!((b.state(), j.parts_out(), b.next(&mut j, 1)), (SlotState::Stopped, 0, None));
    while j.step().unwrap() != Progress::Done {}
    let shared = j.finish().unwrap();
    assert_eq!(format!("{:?}", shared.at_alpha(0.1, false)), format!("{:?}", alone.at_alpha(0.1, false)));
}

#[test]
fn a_replaced_job_s_answer_is_dropped_and_a_post_that_fails_stops_the_worker() {
    let c = controls(4);
    let (mut old, mut now) = (job(&c), job(&c));
    let mut slot = running();
    let sent = feed(&mut slot, &mut old, 1);
    assert!(slot.busy());
    assert_eq!(slot.replied(answer(&sent[0]), Some((&mut now, 2))), Replied::Dropped);
    assert_eq!(slot.replied(answer(&sent[1]), None), Replied::Dropped);
    assert!(!slot.busy() && slot.state() == SlotState::Running);
    let t = slot.next(&mut now, 2).unwrap();
    slot.posted(&t, false, &mut now);
    assert_eq!((slot.state(), now.parts_out()), (SlotState::Stopped, 0));
    let mut fresh = Slot::default();
    assert!(
        matches!(fresh.replied(Reply::Failed("no wasm".into()), None), Replied::Stop(w) if w.ends_with("no wasm"))
    );
}

#[test]
fn replies_are_read_from_their_fields() {
    assert_eq!(ReplyFields { ready: true, ..Default::default() }.reply(), Some(Reply::Ready));
    let failed = ReplyFields { failed: Some("x".into()), ..Default::default() };
    assert_eq!(failed.reply(), Some(Reply::Failed("x".into())));
    let part = |bytes: Option<Vec<u8>>, error: Option<&str>| {
        ReplyFields {
            serial: Some(3.0),
            part: Some(2.0),
            bytes,
            error: error.map(String::from),
            ..Default::default()
        }
        .reply()
    };
    assert_eq!(part(Some(vec![1]), None), Some(Reply::Part { serial: 3, part: 2, result: Ok(vec![1]) }));
    assert_eq!(part(None, Some("e")), Some(Reply::Part { serial: 3, part: 2, result: Err("e".into()) }));
    assert_eq!(part(None, None), None);
    assert_eq!(ReplyFields { serial: Some(1.0), bytes: Some(vec![]), ..Default::default() }.reply(), None);
}

#[test]
fn a_task_names_the_worker_s_function() {
    let h = |work| HandOut { part: 4, request: "r".into(), work };
    let names: Vec<_> =
        [Work::Repeat, Work::Split, Work::Share, Work::Splits].map(|w| Task::new(9, &h(w)).work).into();
    assert_eq!(names, ["repeat", "split", "share", "splits"]);
    assert_eq!(
        Task::new(9, &h(Work::Repeat)),
        Task { serial: 9, part: 4, request: "r".into(), work: "repeat" }
    );
}
