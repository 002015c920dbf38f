//! The GPU path in the browser: the probe answers without panicking whether or not the browser
//! has WebGPU, and where it has an adapter, the kernels give the CPU twins' results.

// Tests (not user data paths): a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use rvalue_core::toy::draws;
use wasm_bindgen_test::wasm_bindgen_test as test;

#[test]
async fn the_probe_answers_and_an_adapter_if_any_ranks_like_the_cpu() {
    let adapter = match probe_adapter().await {
        Ok(a) => a,
        // No WebGPU here (Chromium without --enable-unsafe-webgpu on Linux): the CPU path.
        Err(e) => {
            wasm_bindgen_test::console_log!("no adapter, the CPU path: {e}");
            assert!(matches!(e, Error::Gpu { message: ref m } if m.contains("no GPU adapter")), "{e}");
            return;
        }
    };
    wasm_bindgen_test::console_log!("adapter: {adapter:?}");
    assert!(!adapter.name.is_empty());
    let g = Gpu::open(Options::default()).await.expect("an adapter that the probe found opens");
    let scores: Vec<f64> = (0..3 * 5 * 7).map(|i| ((i * 37) % 4) as f64).collect();
    let keys = Keys::of(&scores);
    assert_eq!(g.rank_counts(&keys, 5, 7).await.unwrap(), cpu::rank_counts(&keys, 3, 5, 7));
    // Pooled positions over a split with ties (many equal scores).
    let t = rvalue_core::tensor::ScoreTensor::new(
        9,
        5,
        7,
        (0..9 * 5 * 7).map(|i| ((i * 37) % 4) as f64).collect(),
    )
    .unwrap();
    let labels: Vec<usize> = (0..9).map(|i| i % 7).collect();
    let split = rvalue_core::conformal::Split::random(9, 0.5, 1, 0).unwrap();
    let keys = Keys::of_tensor(&t);
    for ties in rvalue_core::rvalue::TieOrder::ALL {
        let got = pooled_items_async(&g, &t, &keys, &labels, &split, ties).await.unwrap();
        assert_eq!(got, pooled_items_cpu(&t, &keys, &labels, &split, ties).unwrap());
    }
    let z = g.normals(3, 10, 2, 4, 5).await.unwrap();
    let want = draws::normals(3, 10, 2, 4, 5);
    assert!(z.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()));
    let p = rvalue_core::toy::ToyParams { n_cal: 6, n_test: 5, m: 3, repeats: 2, ..Default::default() };
    let (got, _) = toy_repeat_async(&g, &p, 1).await.unwrap();
    let (want, _) = rvalue_core::toy::simulate(&p, 1).unwrap();
    assert!(got.data().iter().zip(want.data().iter()).all(|(a, b)| a.to_bits() == b.to_bits()));
}
