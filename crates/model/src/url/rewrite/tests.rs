use super::*;

#[test]
fn the_query_replaces_the_address_own_and_its_fragment() {
    assert_eq!(with_query("http://h/p/?a=1#x", "b=2"), "http://h/p/?b=2");
    assert_eq!(with_query("http://h/p#x", ""), "http://h/p");
    assert_eq!(with_query("http://h/p", "b=2"), "http://h/p?b=2");
}

#[test]
fn a_drag_schedules_one_write_of_its_newest_query() {
    let mut r = Rewrites::new("a=1".into());
    assert!(!r.update("a=1".into()), "the address holds it");
    assert!(r.update("a=2".into()));
    assert!(!r.update("a=3".into()), "the scheduled write takes it");
    assert!(!r.update("a=3".into()));
    assert_eq!(r.due().as_deref(), Some("a=3"));
    assert_eq!(r.due(), None);
    assert!(r.update("a=4".into()));
    r.now("a=5".into());
    assert_eq!(r.due(), None, "written at once: the scheduled write does nothing");
    assert!(!r.update("a=5".into()));
    assert!(r.update("a=1".into()));
}

#[test]
fn copy_link_says_copied_or_how_to_copy() {
    let c = copy_status(true, true);
    assert_eq!((c.hidden_of(ids::LINK_TEXT), c.text_of(ids::COPY_STATUS)), (Some(true), Some("Copied")));
    let manual = copy_status(false, false);
    assert_eq!(manual.hidden_of(ids::LINK_TEXT), None, "the field is shown by the page, selected");
    assert!(manual.text_of(ids::COPY_STATUS).unwrap().starts_with("Press Ctrl+C"));
    assert_eq!(copy_status(false, true).text_of(ids::COPY_STATUS), Some("Copied"));
}
