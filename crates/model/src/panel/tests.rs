use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn every_panel_has_a_name_and_an_element() {
    for p in Panel::ALL {
        assert_eq!(p.name().parse::<Panel>(), Ok(p));
        assert_eq!(p.element_id(), format!("panel-{}", p.name()));
    }
    assert!(!Panel::Scores.needs_analysis(Mode::Toy) && Panel::Theorem3.needs_analysis(Mode::Toy));
    assert_eq!(Panel::Data.sliders(), Sliders::default());
}

/// Each panel's number is the one its heading in index.html shows ("5. A false …").
#[test]
fn panel_numbers_are_the_pages() {
    let page = include_str!("../../../../index.html");
    for p in Panel::ALL {
        let at = page.find(&format!("id=\"{}\"", p.element_id())).expect("the panel is in the page");
        let heading = &page[at..][page[at..].find("<h2>").expect("a heading") + 4..];
        assert!(heading.starts_with(&format!("{}. ", p.number())), "{}: {}", p.name(), &heading[..20]);
    }
}
