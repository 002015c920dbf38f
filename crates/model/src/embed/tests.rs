use super::*;

#[test]
fn a_panel_keeps_the_sliders_it_needs() {
    assert_eq!(slider_ids(Panel::Scores).collect::<Vec<_>>(), ["sigma2"]);
    assert_eq!(slider_ids(Panel::Threshold).collect::<Vec<_>>(), ["beta", "sigma2"]);
    assert_eq!(slider_ids(Panel::Coverage).collect::<Vec<_>>(), ["alpha"]);
}

#[test]
fn a_tour_step_keeps_its_control_first_then_its_panels_sliders() {
    let step = crate::tour::step(1).unwrap();
    let ids = tour_controls(step);
    assert_eq!(ids[0], step.control);
    let sliders: Vec<&str> = step.panels.iter().flat_map(|&p| slider_ids(p)).collect();
    assert_eq!(&ids[1..], &sliders[..]);
    assert!(ids.len() > 1, "{ids:?}");
}

#[test]
fn heights_are_posted_for_a_panel_or_the_tour_and_when_they_change() {
    assert_eq!(posted_as(Some(Panel::Coverage), true), Some(Panel::Coverage.name()));
    assert_eq!(posted_as(None, true), Some("tour"));
    assert_eq!(posted_as(None, false), None);
    let mut h = Heights::default();
    assert_eq!(h.changed(100.2), Some(101.0));
    assert_eq!(h.changed(100.9), None);
    assert_eq!(h.changed(0.0), Some(0.0));
    assert_eq!(h.changed(0.0), None);
}

#[test]
fn embed_marks_keep_a_panel_with_its_sliders_or_a_steps_card_and_panels() {
    assert_eq!(marks(None, None), None);
    let step = crate::tour::step(1).unwrap();
    let p = marks(Some(Panel::Threshold), Some(step)).unwrap();
    assert_eq!(
        (p.name, p.keep, p.sliders),
        ("threshold", vec![Panel::Threshold.element_id()], vec!["beta", "sigma2"])
    );
    assert!(p.controls.is_empty(), "a panel keeps sliders by their wrapper");
    let t = marks(None, Some(step)).unwrap();
    assert_eq!((t.name, t.keep[0].as_str(), t.keep.len()), ("tour", crate::ids::TOUR, step.panels.len() + 1));
    assert!(step.panels.iter().all(|p| t.keep.contains(&p.element_id())));
    assert_eq!((t.sliders.len(), t.controls), (0, tour_controls(step)));
}

#[test]
fn the_height_message_is_json_of_type_height_and_panel() {
    let h = Heights::default().changed(311.2).unwrap();
    assert_eq!(
        height_message(h, "coverage"),
        r#"{"type":"rvalue-explorer:height","height":312,"panel":"coverage"}"#
    );
    assert_eq!(height_message(0.0, "tour"), r#"{"type":"rvalue-explorer:height","height":0,"panel":"tour"}"#);
}
