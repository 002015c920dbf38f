//! Seeded synthetic score tensors and units: the page's synthetic CIFAR-100-shaped sample, and
//! the inputs of the benchmarks and of the agreement tests (nothing large is committed).

use crate::rng::{key_of, open01, philox4x32_10};
use crate::tensor::ScoreTensor;
use crate::Result;

/// A CIFAR-100-shaped logit tensor: `n` items × `m` draws × `k` classes, label `item mod k`.
/// Each class has a latent logit (the true one higher) and its own draw-to-draw spread, so
/// stable and unstable candidates mix as in a weighted-bootstrap ensemble. Logits are rounded
/// to `f32`, as a model's outputs are. The scores are finite; an empty dimension is refused as
/// [`ScoreTensor::new`] refuses it.
pub fn logits(n: usize, m: usize, k: usize, seed: u64) -> Result<(ScoreTensor, Vec<usize>)> {
    let data = logit_items(0..n, m, k, seed).into_iter().map(f64::from).collect();
    Ok((ScoreTensor::new(n, m, k, data)?, labels(n, k)))
}

/// Label `item mod k` of each of `n` items (none for `k = 0`, which every tensor refuses).
fn labels(n: usize, k: usize) -> Vec<usize> {
    (0..n).map(|i| i.checked_rem(k).unwrap_or(0)).collect()
}

/// Items `items` of [`logits`]' tensor (label `item mod k`), as f32 in row-major order: a file
/// larger than memory is written a block at a time with the same scores.
pub fn logit_items(items: std::ops::Range<usize>, m: usize, k: usize, seed: u64) -> Vec<f32> {
    let mut data = Vec::with_capacity(items.len() * m * k);
    let (mut latent, mut spread) = (vec![0.0; k], vec![0.0; k]);
    for i in items {
        for c in 0..k {
            let z = standard_normal(seed, i as u32, u32::MAX, c as u32);
            latent[c] = if c == i % k { 2.0 + z } else { z };
            spread[c] = 0.2 + 0.8 * standard_normal(seed, i as u32, u32::MAX - 1, c as u32).abs();
        }
        for d in 0..m {
            for c in 0..k {
                let z = standard_normal(seed, i as u32, d as u32, c as u32);
                data.push((latent[c] + spread[c] * z) as f32);
            }
        }
    }
    data
}

/// The CIFAR-100 shape used by the benchmarks: 2000 items, 31 draws, 100 classes.
// The shape is fixed and not empty, and the logits are finite: `logits` cannot refuse it.
#[allow(clippy::expect_used)]
pub fn cifar_like(seed: u64) -> (ScoreTensor, Vec<usize>) {
    logits(2000, 31, 100, seed).expect("a fixed shape of finite logits")
}

/// `u` units with estimates and noise variances, as an rvalues-package input.
pub fn units(u: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let x = (0..u).map(|i| 1.5 * standard_normal(seed, i as u32, 0, 0)).collect();
    let s = (0..u)
        .map(|i| {
            let se = 0.3 + standard_normal(seed, i as u32, 1, 0).abs();
            se * se
        })
        .collect();
    (x, s)
}

/// The standard normal for (seed, item, draw, candidate) by Box–Muller on one Philox4x32-10
/// block (counter `[item, draw, cand, 0]`): the benchmarks' inputs, kept as they were when the
/// toy simulator used this recipe so that benchmark figures stay comparable across versions.
#[inline]
pub fn standard_normal(seed: u64, item: u32, draw: u32, cand: u32) -> f64 {
    let w = philox4x32_10([item, draw, cand, 0], key_of(seed));
    let u1 = open01(w[0]);
    let u2 = open01(w[1]);
    (-2.0 * libm::log(u1)).sqrt() * libm::cos(std::f64::consts::TAU * u2)
}

/// CLIP-shaped zero-shot softmax probabilities: `n` items × `m` draws × `k` classes, label
/// `item mod k`. Each class has a latent cosine similarity to the image (about 0.2, the true
/// class a margin higher, the others spread downwards with a heavy tail, so that some are far
/// off), each draw (a prompt or adapter perturbation) moves it by a class-dependent amount, and
/// CLIP's logit scale of 100 turns similarities into logits. The softmax runs in `f32`, as a
/// model's does: on the benchmark's shape 84 % of probabilities are below 1e-6, 2.5 % subnormal
/// and 3.8 % exactly 0, and confident items tie at 1; the mean score's accuracy is 0.67. An empty
/// dimension is refused as [`ScoreTensor::new`] refuses it.
pub fn clip_probabilities(n: usize, m: usize, k: usize, seed: u64) -> Result<(ScoreTensor, Vec<usize>)> {
    let labels = labels(n, k);
    let (latent, sensitivity) = clip_latent(n, k, &labels, seed);
    let mut data = Vec::with_capacity(n * m * k);
    let mut logit = vec![0f32; k];
    for i in 0..n {
        for d in 0..m {
            for (c, l) in logit.iter_mut().enumerate() {
                let z = standard_normal(seed, i as u32, d as u32, c as u32);
                *l = (100.0 * (latent[i * k + c] + sensitivity[i * k + c] * z)) as f32;
            }
            data.extend(softmax_f32(&logit).into_iter().map(f64::from));
        }
    }
    Ok((ScoreTensor::new(n, m, k, data)?, labels))
}

/// Per item and class, the latent cosine similarity and its draw-to-draw spread.
fn clip_latent(n: usize, k: usize, labels: &[usize], seed: u64) -> (Vec<f64>, Vec<f64>) {
    let z = |j: usize, stream: u32| standard_normal(seed, (j / k) as u32, stream, (j % k) as u32);
    let latent = (0..n * k)
        .map(|j| {
            if j % k == labels[j / k] {
                0.3 + 0.03 * z(j, u32::MAX)
            } else {
                // Most classes sit near the image's similarity, some far below it.
                let far = z(j, u32::MAX - 1);
                0.2 + 0.03 * z(j, u32::MAX) - 0.2 * far * far
            }
        })
        .collect();
    let sensitivity = (0..n * k)
        .map(|j| {
            let s = z(j, u32::MAX - 3);
            0.025 * (0.2 + s * s)
        })
        .collect();
    (latent, sensitivity)
}

/// A softmax in `f32` arithmetic (shifted by the maximum, as frameworks compute it).
fn softmax_f32(logit: &[f32]) -> Vec<f32> {
    let top = logit.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = logit.iter().map(|&l| libm::expf(l - top)).collect();
    let sum: f32 = e.iter().sum();
    e.iter().map(|&x| x / sum).collect()
}

/// [`clip_probabilities`] as log-probabilities: the natural log of each `f32` probability in
/// f64 (strictly increasing there, so every ranking and r-value is the same), with exact zeros
/// sent to −1000, below the log of the smallest subnormal.
pub fn clip_log_probabilities(n: usize, m: usize, k: usize, seed: u64) -> Result<(ScoreTensor, Vec<usize>)> {
    let (p, labels) = clip_probabilities(n, m, k, seed)?;
    let data = p.data().iter().map(|&x| if x > 0.0 { libm::log(x) } else { -1000.0 }).collect();
    Ok((ScoreTensor::new(n, m, k, data)?, labels))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// An empty dimension is the error `ScoreTensor::new` gives, which a caller can match, and
    /// never a panic (`k = 0` has no label to give an item).
    #[test]
    fn empty_shapes_are_refused() {
        for (n, m, k) in [(0, 3, 4), (3, 0, 4), (3, 2, 0)] {
            assert!(logits(n, m, k, 1).is_err(), "{n}×{m}×{k}");
            assert!(clip_probabilities(n, m, k, 1).is_err(), "{n}×{m}×{k}");
            assert!(clip_log_probabilities(n, m, k, 1).is_err(), "{n}×{m}×{k}");
        }
        let (t, labels) = logits(5, 2, 3, 1).unwrap();
        assert_eq!((t.n(), labels), (5, vec![0, 1, 2, 0, 1]));
    }
}
