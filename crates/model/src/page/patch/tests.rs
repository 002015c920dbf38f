use super::*;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

fn row(head: &str, cells: &[&str]) -> TableRow {
    TableRow { head: head.into(), cells: cells.iter().map(|c| c.to_string()).collect() }
}

/// `old` with `p` applied, as the page applies it.
fn apply(old: &[TableRow], new: &[TableRow], p: &RowsPatch) -> Vec<TableRow> {
    let mut rows = old.to_vec();
    for (r, head) in &p.heads {
        rows[*r].head = head.clone();
    }
    for (r, c, text) in &p.cells {
        rows[*r].cells[*c] = text.clone();
    }
    rows.truncate(rows.len() - p.removed.len());
    rows.extend_from_slice(&new[p.added.clone()]);
    rows
}

#[test]
fn a_patch_rewrites_what_changed_and_adds_or_removes_at_the_end() {
    let old = [row("a", &["1", "2"]), row("b", &["3", "4"]), row("c", &["5", "6"])];
    let new = [row("a", &["1", "9"]), row("B", &["3", "4"])];
    let p = rows_patch(&old, &new).unwrap();
    assert_eq!(p.heads, [(1, "B".to_string())]);
    assert_eq!(p.cells, [(0, 1, "9".to_string())]);
    assert_eq!((p.removed.clone(), p.added.clone()), (2..3, 2..2));
    assert_eq!(apply(&old, &new, &p), new);
    let grown = rows_patch(&new, &old).unwrap();
    assert_eq!((grown.removed.clone(), grown.added.clone()), (2..2, 2..3));
    assert_eq!(apply(&new, &old, &grown), old);
    assert_eq!(
        rows_patch(&old, &old),
        Some(RowsPatch { removed: 3..3, added: 3..3, ..RowsPatch::default() })
    );
}

#[test]
fn an_empty_body_or_another_width_is_written_afresh() {
    assert_eq!(rows_patch(&[], &[row("a", &["1"])]), None);
    assert_eq!(rows_patch(&[row("a", &["1"])], &[row("a", &["1", "2"])]), None);
}

/// The elements of a list of `n` rows with its cut before row `cut`.
fn list(n: usize, cut: Option<usize>) -> Vec<String> {
    let mut l: Vec<String> = (0..n).map(|r| r.to_string()).collect();
    if let Some(c) = cut {
        l.insert(c, "cut".into());
    }
    l
}

#[test]
fn moving_the_cut_in_place_gives_the_list_of_the_new_cut() {
    let n = 5;
    let cuts = [None, Some(1), Some(2), Some(4)];
    for from in cuts {
        for to in cuts {
            let mut l = list(n, from);
            match cut_move(from, to) {
                CutMove::Stay => assert_eq!(from, to),
                CutMove::Afresh => unreachable!("no empty set here"),
                CutMove::Move { cut, before } => {
                    let c = l.remove(cut);
                    l.insert(before - usize::from(before > cut), c);
                }
                CutMove::Insert { before } => l.insert(before, "cut".into()),
                CutMove::Remove { cut } => assert_eq!(l.remove(cut), "cut"),
            }
            assert_eq!(l, list(n, to), "{from:?} → {to:?}");
        }
    }
    assert_eq!(cut_move(Some(0), Some(2)), CutMove::Afresh);
    assert_eq!(cut_move(None, Some(0)), CutMove::Afresh);
}
