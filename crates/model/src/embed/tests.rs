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
