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

#[test]
fn each_figure_gets_png_and_svg_then_each_table_a_csv() {
    let groups = button_groups();
    assert_eq!(groups.len(), FIGURES.len() + TABLES.len());
    let formats = |g: &ButtonGroup| g.buttons.iter().map(|b| b.0).collect::<Vec<_>>();
    assert!(groups[..FIGURES.len()].iter().all(|g| formats(g) == ["PNG", "SVG"]));
    assert!(groups[FIGURES.len()..].iter().all(|g| formats(g) == ["CSV"]));
    let classes = groups.iter().filter(|g| g.panel == Panel::Classes).count();
    assert_eq!(classes, 2, "panel 9's figure and its table");
    let g = &groups[2];
    assert_eq!(
        (g.label(), g.button_label("SVG")),
        ("Export panel 3".into(), "Download panel 3 as SVG".into())
    );
}

#[test]
fn only_panels_3_and_4_export_their_alpha_marker() {
    let marked: Vec<(&str, Option<bool>)> = FIGURES.iter().map(|f| (f.name, alpha_marker_of(f))).collect();
    let with: Vec<_> = marked.iter().filter(|m| m.1.is_some()).collect();
    assert_eq!(with, [&("coverage", Some(true)), &("size", Some(false))]);
}
