use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn the_time_left_is_the_pace_so_far() {
    assert_eq!(time_left(1500.0, 0.5), "", "too early to say");
    assert_eq!(time_left(10_000.0, 0.01), "", "too little done to say");
    assert_eq!(time_left(10_000.0, 0.5), ", about 10 s left");
    assert_eq!(time_left(60_000.0, 0.25), ", about 3 min left");
    assert_eq!(time_left(3_600_000.0, 0.2), ", about 4.0 h left");
}

#[test]
fn the_estimate_speaks_until_the_pace_can() {
    assert_eq!(estimate_left(30.4), ", about 30 s left by the estimate");
    assert_eq!(estimate_left(-5.0), ", about 1 s left by the estimate", "overdue");
    assert_eq!(estimate_left(600.0), ", about 10 min left by the estimate");
    assert_eq!(estimate_left(7200.0), ", about 2.0 h left by the estimate");
    let early = progress("Scoring", 0.01, 1000.0, Some(50.0), "toy");
    assert_eq!(early, "Scoring – 1 %, about 49 s left by the estimate. Showing toy.");
    let paced = progress("Scoring", 0.5, 10_000.0, Some(100.0), "toy");
    assert_eq!(paced, "Scoring – 50 %, about 10 s left. Showing toy.");
    assert_eq!(progress("Scoring", 0.2, 500.0, None, "x"), "Scoring – 20 %. Showing x.");
    assert_eq!(
        on_gpu("Ranking", 0.5, 10_000.0, "x"),
        "Ranking on the GPU – 50 %, about 10 s left. Showing x."
    );
}

#[test]
fn partials_are_shown_first_then_at_a_pace() {
    assert!(partial_due((1, 10), 50.0, 0, 0.0), "the first at once");
    assert!(!partial_due((1, 10), 50.0, 1, 500.0), "nothing new");
    assert!(!partial_due((5, 10), 1000.0, 1, 100.0), "too soon");
    assert!(partial_due((5, 10), 1000.0, 1, 500.0));
    assert!(!partial_due((9, 10), 900.0, 1, 500.0), "the rest is quicker than a repaint");
}

#[test]
fn what_a_job_is_of() {
    let mut c = Controls::default();
    assert_eq!(job_what(&c, Some(("f.npz", 10)), None), format!("toy, {} repeats", c.toy.repeats));
    c.mode = Mode::Scores;
    c.splits = 3;
    assert_eq!(job_what(&c, Some(("f.npz", 10)), None), "f.npz, 3 splits");
    let (cal, test) = c.true_draws_sizes(40, 10);
    let pooled = job_what(&c, Some(("f.npz", 10)), Some(40));
    assert!(
        pooled.contains(&format!("{cal} of the pool's 40")) && pooled.contains(&format!("all {test} items"))
    );
    assert_eq!(partial_what(2, 5), "toy, 2 of 5 repeats so far");
}

#[test]
fn a_pool_calibrates_pooled_r_values_only() {
    assert_eq!(needs_all_candidates(RvalueKind::Pooled), None);
    let why = needs_all_candidates(RvalueKind::Parametric).unwrap_or_default();
    assert!(why.starts_with("Parametric CP_r needs every candidate's draws"));
    assert!(needs_all_candidates(RvalueKind::Nonparametric).is_some());
}

#[test]
fn sentences_of_the_status_line() {
    assert_eq!(cancelled(true, "toy"), "Not started. Showing toy.");
    assert_eq!(cancelled(false, "toy"), "Cancelled. Showing toy.");
    assert_eq!(finished("toy", 1.234, ", CPU"), "Showing toy (computed in 1.23 s, CPU).");
    assert_eq!(where_run(", CPU", 0, false, false, false), ", CPU");
    assert_eq!(where_run(", CPU", 3, false, false, false), ", CPU; 3 of the repeats in worker threads");
    assert_eq!(where_run("", 2, true, false, false), "; 2 of the splits in worker threads");
    assert!(where_run("", 2, false, true, true).contains("shares and groups of splits"));
    assert!(where_run("", 2, false, true, false).ends_with("file's shares in worker threads"));
    assert_eq!(threads(0), "");
    assert_eq!(threads(3), " · repeats and pooled splits on 4 threads");
    let line = compute_line("GPU", "why not", 3);
    assert_eq!(
        (line.text_of(ids::DEVICE), line.attr_of(ids::DEVICE, "title")),
        (Some("GPU"), Some("why not"))
    );
    assert_eq!(line.text_of(ids::THREADS), Some(threads(3).as_str()));
    assert!(no_workers("big.npy").starts_with("Pooled CP_r on big.npy"));
    assert!(failed_running("big.npy: gone.").starts_with("big.npy: gone"));
    assert!(failed_running("the file is gone.").starts_with("The file is gone. The results"));
    assert_eq!(confirm_long("It reads."), "It reads. Start it, or Cancel to keep the results shown.");
    assert_eq!(State::Confirm.name(), "confirm");
}
