use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn load_sentences() {
    assert!(no_labels("x.npy").starts_with("x.npy has no labels") && no_labels("x").ends_with(UNCHANGED));
    assert_eq!(load_failed("x.npy: bad header."), format!("x.npy: bad header. {UNCHANGED}"));
    assert_eq!(loaded("a.npz", None), "Loaded a.npz: the data stays in this page.");
    assert!(loaded("a.npz", Some("Pool read.")).ends_with("page. Pool read."));
    for upload in [false, true] {
        let e = put_in("Loaded a.npz.", upload);
        assert_eq!((e.text_of(ids::DATA_NAME), e.hidden_of(ids::ERROR)), (Some("Loaded a.npz."), Some(true)));
        assert_eq!(e.hidden_of(ids::URL_NOTES), upload.then_some(true), "the note stays unless asked for");
    }
    let c = Controls::default();
    let s = opened_streamed("big.npy", (1000, 30, 10), 2_400_000_000, &c);
    assert!(s.starts_with("Opened big.npy (1000 × 30 × 10, 2.4 GB)"), "{s}");
    assert_eq!(
        s.contains("CP_r starts with the nonparametric"),
        streamed_kind(&c.for_mode(Mode::Scores), true).is_some()
    );
}

#[test]
fn a_streamed_file_starts_nonparametric() {
    let mut c = Controls::default().for_mode(Mode::Scores);
    c.score.kind = RvalueKind::Pooled;
    assert_eq!(streamed_kind(&c, true), Some(RvalueKind::Nonparametric));
    assert_eq!(streamed_kind(&c, false), None, "held whole");
    c.score.kind = RvalueKind::Parametric;
    assert_eq!(streamed_kind(&c, true), None);
    assert_eq!(streamed_kind(&Controls::default(), true), None, "the toy");
}

#[test]
fn who_computes_a_jobs_parts() {
    let mut c = Controls::default();
    c.toy.repeats = 1;
    assert!(!uses_workers(&c, false, false));
    c.toy.repeats = 4;
    assert!(uses_workers(&c, false, false));
    let mut s = Controls::default().for_mode(Mode::Scores);
    s.score.kind = RvalueKind::Pooled;
    s.splits = 3;
    assert!(uses_workers(&s, false, true));
    assert!(!uses_workers(&s, false, false), "a pool's splits run in the page");
    assert!(uses_workers(&s, true, false), "a streamed file's shares");
    s.splits = 1;
    assert!(!uses_workers(&s, false, true));
}
