//! Panel 7: one test item's rankings and sets at α, stepped through with the item buttons,
//! and rewritten in place where only the set or its cut moved.

use web_sys::{Document, Element};

use wasm_bindgen_futures::spawn_local;

use crate::ui::app::frame::with;
use crate::ui::app::App;
use crate::ui::dom;
use rvalue_model::figure::inspector::{self, RankingColumn};
use rvalue_model::ids;
use rvalue_model::message::about;
use rvalue_model::page::patch::CutMove;
use rvalue_model::page::{step_item, ItemMove};
use rvalue_model::view::{inspector_patch, inspector_view, ColumnPatch, InspectorBody, ListPatch};

impl App {
    /// Panel 7 for the inspector's item ([`inspector_view`]).
    pub(super) fn render_item(&mut self) {
        let Some(a) = self.shown.get() else { return };
        let v = inspector_view(a, self.item, self.controls.alpha, self.controls.never_empty);
        dom::apply(&self.doc, &v.edits(self.item));
        let columns = match v.body {
            InspectorBody::Columns(columns) => {
                show_inspector(&self.doc, self.drawn.inspector(), &columns);
                columns
            }
            InspectorBody::Read { item, range, .. } => {
                self.read_item(item, range);
                Vec::new()
            }
            InspectorBody::Error(_) => Vec::new(),
        };
        self.drawn.set_inspector(columns);
    }

    /// Reads item `item`'s bytes `range` of the streamed file (async) for the
    /// analysis on show, then shows it; once per item and analysis.
    fn read_item(&mut self, item: usize, range: std::ops::Range<u64>) {
        let generation = self.shown.generation();
        let Some(file) = self.source.streamed() else { return };
        if !self.shown.start_reading(item) {
            return;
        }
        let me = self.me.clone();
        spawn_local(async move {
            let got = file.file.read(range).await;
            let Some(app) = me.upgrade() else { return };
            with(&app, |a| {
                // An item of an analysis since replaced: dropped.
                if !a.shown.item_read(generation) {
                    return dom::mark(dom::DROPPED_ANSWER);
                }
                let Some(an) = a.shown.get() else { return };
                match got.and_then(|b| an.supply_item(item, &b)) {
                    Ok(()) => a.render_item(),
                    Err(e) => a.show_error(Some(&about(&file.info.name, &e))),
                }
            });
        });
    }

    pub(in crate::ui::app) fn step_item(&mut self, to: ItemMove) {
        let n = self.shown.get().map_or(0, |a| a.n_inspectable());
        if n == 0 {
            return;
        }
        let random = if to == ItemMove::Random { js_sys::Math::random() } else { 0.0 };
        self.item = step_item(self.item, n, to, random);
        self.drawn.dirty().address = true;
        self.render_item();
    }
}

/// Panel 7: rewrites only what differs from `shown` (what the page shows): a threshold's text,
/// the rows that entered or left the set and the cut's place (an α move), a column's list (a
/// new item), or everything when the columns themselves changed.
fn show_inspector(d: &Document, shown: &[RankingColumn], columns: &[RankingColumn]) {
    let Some(root) = d.get_element_by_id(ids::INSPECTOR) else { return };
    let patched = root.children().length() as usize == columns.len()
        && inspector_patch(shown, columns).is_some_and(|p| patch(&root, &p, columns).is_some());
    if !patched {
        root.set_inner_html(&inspector::inspector(columns));
    }
}

/// Applies `p` ([`inspector_patch`]) to the inspector `root`; `None` where it does not hold
/// what `p` expects, for the caller to write it afresh.
fn patch(root: &Element, p: &[ColumnPatch], columns: &[RankingColumn]) -> Option<()> {
    let qs = root.query_selector_all(".ranking .q").ok()?;
    let lists = root.get_elements_by_class_name("list");
    for (i, (p, new)) in p.iter().zip(columns).enumerate() {
        if p.threshold {
            qs.item(i as u32)?.set_text_content(Some(&new.threshold));
        }
        if p.list != ListPatch::Same {
            let list = lists.item(i as u32)?;
            if !matches!(p.list, ListPatch::Cut(m) if move_cut(&list, m).is_some()) {
                list.set_inner_html(&inspector::ranking_list(new));
            }
        }
    }
    Some(())
}

/// Moves a column's cut in place when only the set changed. The list shows the old cut; the
/// one element found where it is must be the cut, else the caller rebuilds the list.
fn move_cut(list: &Element, m: CutMove) -> Option<()> {
    let items = || list.first_element_child().map(|ol| (ol.children(), ol));
    let cut = |i: usize| items()?.0.item(i as u32).filter(|li| li.class_name() == "cut");
    match m {
        CutMove::Stay => {}
        CutMove::Afresh => return None,
        CutMove::Move { cut: at, before } => {
            let (items, ol) = items()?;
            let cut = cut(at)?;
            let before: web_sys::Node = items.item(before as u32)?.into();
            ol.insert_before(&cut, Some(&before)).ok()?;
        }
        CutMove::Insert { before } => {
            items()?.0.item(before as u32)?.insert_adjacent_html("beforebegin", inspector::CUT_HTML).ok()?
        }
        CutMove::Remove { cut: at } => cut(at)?.remove(),
    }
    Some(())
}
