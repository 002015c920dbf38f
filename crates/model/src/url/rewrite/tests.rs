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
