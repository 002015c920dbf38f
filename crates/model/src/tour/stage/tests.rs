use super::super::STEPS;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn the_key_panel_is_the_one_each_step_is_about() {
    let keys: Vec<usize> = STEPS.iter().map(|s| s.key_panel().number()).collect();
    // Step 7 ("Same coverage, smaller sets") is about panel 6's table, not panels 3 and 4.
    assert_eq!(keys, [3, 7, 1, 4, 2, 5, 6, 6, 8, 9]);
    for s in &STEPS {
        assert!(s.panels.contains(&s.key_panel()), "{}", s.title);
    }
}

#[test]
fn every_step_keeps_the_control_it_asks_for_and_it_is_on_the_page() {
    let page = include_str!("../../../../../index.html");
    for s in &STEPS {
        let ids = s.stage_controls();
        assert!(!ids.is_empty(), "{}: {}", s.title, s.control);
        assert!(page.contains(&format!("id=\"{}\"", s.control)), "{}", s.control);
        for id in ids {
            let at = page.find(&format!("id=\"{id}\"")).unwrap_or(usize::MAX);
            let controls = page.find("id=\"controls\"").unwrap_or(0)..page.find("id=\"panels\"").unwrap_or(0);
            assert!(controls.contains(&at), "{}: #{id} among the controls", s.title);
        }
    }
}
