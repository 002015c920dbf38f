use super::*;
use std::collections::HashSet;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
fn every_figure_panel_exports_its_canvas_once() {
    let figures: HashSet<&str> = FIGURES.iter().map(|f| f.panel.name()).collect();
    assert_eq!(figures.len(), FIGURES.len());
    let names: HashSet<&str> = FIGURES.iter().map(|f| f.name).collect();
    assert_eq!(names.len(), FIGURES.len(), "file names are unique");
    for f in FIGURES {
        assert!(f.canvas.starts_with("plot-"), "{}", f.canvas);
        if let Some(o) = f.overlay {
            assert_eq!(o, format!("{}-alpha", f.canvas), "the overlay stacks on its canvas");
        }
    }
    for p in [
        Panel::Scores,
        Panel::Threshold,
        Panel::Coverage,
        Panel::Size,
        Panel::Theorem3,
        Panel::Data,
        Panel::Classes,
    ] {
        assert!(figures.contains(p.name()), "{}", p.name());
    }
    assert!(
        !figures.contains(Panel::Summary.name()) && !figures.contains(Panel::Inspector.name()),
        "no canvas"
    );
}

#[test]
fn downloads_are_named_after_the_page() {
    assert_eq!(file_name("coverage", "svg"), "rvalue-explorer-coverage.svg");
    assert_eq!(SPLIT_MASK_FILE, file_name("split-0", "npy"));
    let tables: HashSet<&str> = TABLES.iter().map(|t| t.2).collect();
    assert_eq!(tables.len(), TABLES.len());
}
