use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn dirt_is_taken_once_and_frames_asked_for_once() {
    let mut d = Drawn::<u8>::new();
    assert!(d.is_dirty(), "everything is drawn at first");
    assert!(d.take_dirty().any() && !d.is_dirty() && !d.pending().any());
    d.dirty().alpha = true;
    assert!(d.pending().alpha);
    assert!(d.request_frame() && !d.request_frame() && d.frame_pending());
    assert!(d.frame_runs(), "the first frame");
    assert!(!d.frame_pending() && d.request_frame() && !d.frame_runs());
    assert!(d.first_figure() && !d.first_figure());
}

#[test]
fn figures_and_frames_are_kept_until_forgotten() {
    let d = Drawn::<u8>::new();
    let fig = Figure::new("x", "y", (0.0, 1.0), (0.0, 2.0));
    assert!(!d.has_figure("a") && d.figure("a").is_none());
    d.keep("a", fig.clone());
    assert_eq!(d.figure("a").map(|f| f.y), Some((0.0, 2.0)));
    let mut seen = None;
    d.with_figure("a", |f| seen = Some(f.x));
    assert_eq!(seen, Some((0.0, 1.0)));
    d.forget("a");
    assert!(!d.has_figure("a"));
    let mut d = d;
    d.set_alpha_frame(1, Some(4));
    d.set_theorem3_frame(Some(5));
    assert_eq!((d.alpha_frame(0), d.alpha_frame(1), d.theorem3_frame()), (None, Some(&4), Some(&5)));
}

#[test]
fn written_calls_back_only_on_a_change_with_the_old_value() {
    let w = Written::<Vec<u8>>::default();
    let mut calls = Vec::new();
    w.update(vec![1], |old, new| calls.push((old.clone(), new.clone())));
    w.update(vec![1], |old, new| calls.push((old.clone(), new.clone())));
    w.update(vec![2, 3], |old, new| calls.push((old.clone(), new.clone())));
    assert_eq!(calls, [(vec![], vec![1]), (vec![1], vec![2, 3])]);
}

#[test]
fn panel_9s_canvas_is_stale_until_drawn() {
    let c = ClassesCanvas::default();
    assert!(!c.sized() && !c.skipped() && !c.take_stale());
    c.set_sized(true);
    c.set_skipped(true);
    c.set_stale(true);
    assert!(c.sized() && c.skipped());
    assert!(c.take_stale() && !c.take_stale(), "drawn, so no longer stale");
}
