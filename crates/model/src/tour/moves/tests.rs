use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn keys_step_unless_a_field_or_a_button_takes_them() {
    let free = KeyTarget::default();
    let field = KeyTarget { in_field: true, on_button: false };
    let button = KeyTarget { in_field: false, on_button: true };
    assert_eq!(key_move("ArrowRight", false, free), Some(Move::Next));
    assert_eq!(key_move("ArrowLeft", false, free), Some(Move::Back));
    assert_eq!(key_move("ArrowRight", true, free), None, "a modifier");
    assert_eq!(key_move("ArrowRight", false, field), None);
    assert_eq!(key_move("PageDown", false, field), None);
    assert_eq!(key_move("Escape", false, field), Some(Move::Leave));
    assert_eq!(key_move("ArrowRight", false, button), None);
    assert_eq!(key_move("PageDown", false, button), Some(Move::Next), "a clicker from a button");
    assert_eq!(key_move("PageUp", false, button), Some(Move::Back));
    assert_eq!(key_move("a", false, free), None);
}

#[test]
fn moves_stop_at_either_end() {
    let last = STEPS.len();
    assert_eq!(after(1, Move::Back), None);
    assert_eq!(after(1, Move::Next), Some(Some(2)));
    assert_eq!(after(last, Move::Next), None);
    assert_eq!(after(last, Move::Back), Some(Some(last - 1)));
    assert_eq!(after(3, Move::Leave), Some(None));
    assert_eq!(ends(1), (true, false));
    assert_eq!(ends(last), (false, true));
    assert_eq!(count(2), format!("Step 2 of {last}"));
}

#[test]
fn a_step_marks_its_panels_and_its_key_panel() {
    assert_eq!(marks(None, Panel::Coverage), (false, false));
    for (i, s) in STEPS.iter().enumerate() {
        for p in Panel::ALL {
            let (on, key) = marks(Some(i + 1), p);
            assert_eq!(on, s.panels.contains(&p));
            assert_eq!(key, p == s.key_panel());
        }
    }
    assert_eq!(marks(Some(1), Panel::Coverage), (true, true));
    assert_eq!(marks(Some(1), Panel::Summary), (true, false));
    assert_eq!(marks(Some(1), Panel::Scores), (false, false));
}

#[test]
fn a_step_is_tried_once_and_not_on_arrival() {
    assert!(newly_tried(false, true, false));
    assert!(!newly_tried(true, true, false), "once");
    assert!(!newly_tried(false, true, true), "done when the step opened");
    assert!(!newly_tried(false, false, false));
}
