use super::*;
use crate::controls::table::{Input, CONTROLS};
use crate::panel::Panel;
use std::collections::HashSet;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

const PAGE: &str = include_str!("../../../../index.html");

/// The ids `index.html` gives its elements, in order.
fn page_ids() -> Vec<&'static str> {
    PAGE.split(" id=\"").skip(1).filter_map(|s| s.split('"').next()).collect()
}

/// The ids the controls table gives the page's inputs and their readouts.
fn control_ids() -> HashSet<String> {
    let mut ids = HashSet::new();
    for c in CONTROLS.iter() {
        ids.insert(c.key.to_string());
        match c.input {
            Input::Slider { .. } => {
                ids.insert(format!("{}-value", c.key));
            }
            Input::Radio => ids.extend(c.names().into_iter().map(|n| format!("{}-{n}", c.key))),
            _ => {}
        }
    }
    ids
}

#[test]
fn every_id_is_the_pages_and_named_by_the_rule() {
    let page: HashSet<&str> = page_ids().into_iter().collect();
    for (name, id) in ALL {
        assert!(page.contains(id), "{id} is not an id in index.html");
        assert_eq!(*name, id.to_uppercase().replace('-', "_"), "{id}'s constant");
    }
}

#[test]
fn ids_are_unique_and_cover_the_page() {
    let ids: HashSet<&str> = ALL.iter().map(|(_, id)| *id).collect();
    assert_eq!(ids.len(), ALL.len(), "an id is listed twice");
    let on_page = page_ids();
    let unique: HashSet<&str> = on_page.iter().copied().collect();
    assert_eq!(unique.len(), on_page.len(), "index.html gives an id twice");
    let controls = control_ids();
    for id in on_page {
        assert!(ids.contains(id) ^ controls.contains(id), "{id}: in exactly one of the tables");
    }
    for p in Panel::ALL {
        assert!(ids.contains(p.element_id().as_str()), "{}", p.name());
    }
}

#[test]
fn a_tables_body_is_selected_under_its_id() {
    assert_eq!(table_body(SUMMARY_TABLE), "#summary-table tbody");
}
