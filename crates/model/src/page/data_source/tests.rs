use std::sync::Arc;

use super::*;
use rvalue_core::conformal::true_draws::TrueDraws;
use rvalue_core::io::{write_npy_f32, BlockLayout};
use rvalue_core::toy::{self, ToyParams};
use rvalue_core::Error;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// A streamed file as a test holds it: what the model knows of it, and nothing else.
#[derive(Clone)]
struct Handle(Arc<StreamedFile>);

impl StreamedHandle for Handle {
    fn info(&self) -> &Arc<StreamedFile> {
        &self.0
    }
}

fn toy_data(labels: bool) -> Dataset {
    let p = ToyParams { k: 3, m: 4, n_cal: 10, n_test: 7, ..ToyParams::default() };
    let (scores, y) = toy::simulate(&p, 0).unwrap();
    Dataset { scores, labels: labels.then_some(y), single_draw: false }
}

fn streamed() -> Handle {
    let (n, m, k) = (6, 2, 3);
    let bytes = write_npy_f32(&[n, m, k], &vec![0.5; n * m * k]);
    let layout = BlockLayout::of_npy_head("big.npy", &bytes[..128], bytes.len() as u64).unwrap();
    Handle(Arc::new(StreamedFile::new("big.npy".into(), layout, vec![0; n]).unwrap()))
}

fn scores() -> Controls {
    Controls { mode: Mode::Scores, ..Controls::default() }
}

fn whole(draws: Option<Arc<TrueDraws>>) -> Loaded<Handle> {
    Loaded::checked("a.npz".into(), Ok(toy_data(true)), (Some(vec!["cat".into()]), draws), &scores()).unwrap()
}

#[test]
fn a_file_without_labels_or_unread_is_refused_with_why() {
    let c = scores();
    let e = Loaded::<Handle>::checked("x.npy".into(), Ok(toy_data(false)), (None, None), &c).err().unwrap();
    assert!(e.starts_with("x.npy has no labels") && e.ends_with(UNCHANGED), "{e}");
    let bad = Loaded::<Handle>::checked("y".into(), Err(Error::invalid("broken")), (None, None), &c);
    let e = bad.err().unwrap();
    assert!(e.to_lowercase().contains("broken") && e.ends_with(UNCHANGED), "{e}");
}

#[test]
fn a_whole_file_is_the_job_source_in_score_mode_only() {
    let mut s = DataSource::<Handle>::new(DataRef::None, 0, false);
    assert!(!s.is_loaded() && s.file().is_none() && s.stats().is_none());
    assert!(s.job_source(&scores()).is_err(), "score mode without a file");
    s.put_in(whole(None), DataRef::Upload);
    assert_eq!(s.file(), Some(("a.npz", 17)));
    assert_eq!(s.class_names(), Some(&["cat".to_string()][..]));
    assert!(matches!(s.job_source(&scores()), Ok(Source::Data(_))));
    assert!(matches!(s.job_source(&Controls::default()), Ok(Source::Toy(_))));
    assert!(matches!(s.stats(), Some(("a.npz", Stats::Summary(_)))));
    assert!(!s.is_streamed() && s.streamed().is_none());
    assert_eq!(s.data_ref(), &DataRef::Upload);
}

#[test]
fn true_draws_go_with_score_mode() {
    let draws = Arc::new(TrueDraws::new(3, 4, vec![0.5; 12]).unwrap());
    let mut s = DataSource::<Handle>::new(DataRef::None, 0, false);
    s.put_in(whole(Some(draws)), DataRef::Upload);
    assert_eq!(s.true_draws(&scores()).map(|d| d.n()), Some(3));
    assert!(s.true_draws(&Controls::default()).is_none());
}

#[test]
fn a_streamed_file_is_its_shape_and_its_handle() {
    let mut s = DataSource::new(DataRef::None, 0, false);
    s.put_in(Loaded::streamed(streamed()), DataRef::Upload);
    assert!(s.is_streamed());
    assert_eq!(s.file(), Some(("big.npy", 6)));
    assert_eq!(s.stats(), Some(("big.npy", Stats::Streamed((6, 2, 3)))));
    assert!(matches!(s.job_source(&scores()), Ok(Source::Streamed(_))));
    assert!(s.streamed().is_some() && s.class_names().is_none() && s.true_draws(&scores()).is_none());
}

#[test]
fn a_links_item_and_sigma2_hold_for_its_file_only() {
    let named = DataRef::Sample("small_long.csv".into());
    let mut s = DataSource::<Handle>::new(named.clone(), 5, true);
    assert_eq!(s.put_in(whole(None), named), 5, "the link's item");
    assert!(!s.take_sigma2_from_data(), "the link's σ² is kept");
    assert_eq!(s.put_in(whole(None), DataRef::Upload), 0, "the next file opens on the first");
    assert!(s.take_sigma2_from_data(), "the next file's σ² is the data's");
    assert!(!s.take_sigma2_from_data(), "asked once");
    s.set_sigma2_from_data(true);
    assert!(s.take_sigma2_from_data());
    // A link without a file: its item and σ² belong to no file.
    let mut s = DataSource::<Handle>::new(DataRef::None, 5, true);
    assert_eq!(s.put_in(whole(None), DataRef::Upload), 0);
    assert!(s.take_sigma2_from_data());
}
