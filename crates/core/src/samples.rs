//! Seeded synthetic score tensors and units: the page's synthetic CIFAR-100-shaped sample, and
//! the inputs of the benchmarks and of the agreement tests (nothing large is committed).

// Seeded inputs made here, never user data: an `expect` states an invariant of the generator.
#![allow(clippy::expect_used)]

use crate::rng::{key_of, open01, philox4x32_10};
use crate::tensor::ScoreTensor;

/// A CIFAR-100-shaped logit tensor: `n` items × `m` draws × `k` classes, label `item mod k`.
/// Each class has a latent logit (the true one higher) and its own draw-to-draw spread, so
/// stable and unstable candidates mix as in a weighted-bootstrap ensemble. Logits are rounded
/// to `f32`, as a model's outputs are.
pub fn logits(n: usize, m: usize, k: usize, seed: u64) -> (ScoreTensor, Vec<usize>) {
    let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
    let mut data = Vec::with_capacity(n * m * k);
    let latent: Vec<f64> = (0..n * k)
        .map(|j| {
            let (i, c) = (j / k, j % k);
            let z = standard_normal(seed, i as u32, u32::MAX, c as u32);
            if c == labels[i] {
                2.0 + z
            } else {
                z
            }
        })
        .collect();
    let spread: Vec<f64> = (0..n * k)
        .map(|j| 0.2 + 0.8 * standard_normal(seed, (j / k) as u32, u32::MAX - 1, (j % k) as u32).abs())
        .collect();
    for i in 0..n {
        for d in 0..m {
            for c in 0..k {
                let z = standard_normal(seed, i as u32, d as u32, c as u32);
                data.push((latent[i * k + c] + spread[i * k + c] * z) as f32 as f64);
            }
        }
    }
    (ScoreTensor::new(n, m, k, data).expect("finite by construction"), labels)
}

/// The CIFAR-100 shape used by the benchmarks: 2000 items, 31 draws, 100 classes.
pub fn cifar_like(seed: u64) -> (ScoreTensor, Vec<usize>) {
    logits(2000, 31, 100, seed)
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
