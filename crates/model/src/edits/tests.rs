use super::*;
use crate::ids;

#[test]
fn the_last_write_to_an_element_is_what_it_shows() {
    let mut e = Edits::new();
    e.text(ids::STATUS, "Fetching…").flag(ids::STATUS, "data-state", true).text(ids::STATUS, "Ready");
    e.hidden(ids::TOUR, true).class(ids::TOUR, "tour-key", true).hidden(ids::TOUR, false);
    assert_eq!(e.text_of(ids::STATUS), Some("Ready"));
    assert_eq!(e.attr_of(ids::STATUS, "data-state"), Some("true"));
    assert_eq!(e.hidden_of(ids::TOUR), Some(false));
    assert_eq!(e.class_of(ids::TOUR, "tour-key"), Some(true));
    assert_eq!(e.text_of(ids::TOUR), None);
    assert_eq!(e.class_of(ids::TOUR, "tour-focus"), None);
}

#[test]
fn ids_built_at_run_time_are_edits_too() {
    let mut e = Edits::new();
    e.text(format!("{}-note", ids::STATUS), "n");
    assert_eq!(e.0, vec![Edit::Text("status-note".to_string().into(), "n".into())]);
    let mut all = Edits::new();
    all.body_class("touring", true).extend(e);
    assert_eq!(all.0.len(), 2);
    assert!(!all.is_empty() && Edits::new().is_empty());
}

#[test]
fn markup_is_read_back_apart_from_text() {
    let mut e = Edits::new();
    e.html(ids::STATUS, "<p>a</p>").text(ids::TOUR, "t").html(ids::STATUS, "<p>b</p>");
    assert_eq!(e.html_of(ids::STATUS), Some("<p>b</p>"));
    assert_eq!(e.text_of(ids::STATUS), None);
    assert_eq!(e.html_of(ids::TOUR), None);
}
