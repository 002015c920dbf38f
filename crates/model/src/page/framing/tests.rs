use super::*;
use crate::url::DataRef;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn framing(embed: Option<Panel>, tour: (Option<usize>, bool)) -> Framing {
    Framing::new(embed, View::default(), false, tour)
}

#[test]
fn a_link_holds_the_framing() {
    let mut f = framing(Some(Panel::Coverage), (Some(3), false));
    f.set_large_text(true);
    let s = f.url_state(Controls::default(), 7, DataRef::default());
    assert_eq!(
        (s.embed, s.tour, s.tour_alone, s.large_text, s.item),
        (Some(Panel::Coverage), Some(3), false, true, 7)
    );
}

#[test]
fn only_a_tour_in_the_page_takes_keys() {
    assert!(framing(None, (Some(1), false)).takes_keys());
    let alone = framing(None, (Some(1), true));
    assert!(!alone.takes_keys() && alone.embedded());
    assert!(!framing(None, (None, false)).takes_keys());
    assert!(framing(Some(Panel::Summary), (None, false)).embedded());
    let mut f = framing(None, (Some(2), false));
    f.leave();
    assert!(f.step().is_none() && !f.takes_keys());
}

#[test]
fn a_step_is_tried_once_unless_done_on_arrival() {
    let mut f = framing(None, (None, false));
    f.go_to(2);
    assert!(!f.try_now(false));
    assert!(f.try_now(true) && f.tried());
    assert!(!f.try_now(true), "tried already");
    f.go_to(3);
    assert!(!f.tried(), "a new step, not yet tried");
    assert!(!f.try_now(true), "its state had it done");
    assert!(!f.try_now(true) && !f.tried());
}
