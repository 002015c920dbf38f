//! The score tensor `S[n][m][k]` (docs/method.md §1) and its per-candidate summaries.

use std::borrow::Cow;
use std::fmt::Debug;
use std::sync::Arc;

use crate::{float16, Error, Result};

/// Scores of `n` items × `m` draws × `k` candidates, row-major (`k` fastest), higher is better.
///
/// Stored as read: float32 files stay f32, half the memory of f64, float16 files stay float16
/// (bit patterns, [`crate::float16`]), a quarter of it, and every score is widened to f64
/// (exactly) where it is read, so results do not depend on the storage. Equality compares
/// the widened scores. The scores may also live in memory owned elsewhere
/// ([`ScoreTensor::from_shared`]), read in place and treated exactly as stored ones.
#[derive(Debug, Clone)]
pub struct ScoreTensor {
    n: usize,
    m: usize,
    k: usize,
    data: Storage,
}

#[derive(Debug, Clone)]
enum Storage {
    F64(Vec<f64>),
    F32(Vec<f32>),
    /// binary16 bit patterns.
    F16(Vec<u16>),
    Shared(Arc<dyn SharedScores>),
}

/// Scores owned elsewhere (a numpy array, say) that a tensor reads in place instead of copying.
/// The owner keeps them alive and unchanged for as long as it lives; every call of `scores`
/// must give the same run.
pub trait SharedScores: Send + Sync + Debug {
    fn scores(&self) -> Scores<'_>;
}

/// A run of a tensor's scores in their stored type ([`ScoreTensor::scores`]).
#[derive(Debug, Clone, Copy)]
pub enum Scores<'a> {
    F64(&'a [f64]),
    F32(&'a [f32]),
    /// IEEE binary16 scores as their bit patterns ([`crate::float16`]).
    F16(&'a [u16]),
}

impl<'a> Scores<'a> {
    pub fn len(&self) -> usize {
        match self {
            Scores::F64(s) => s.len(),
            Scores::F32(s) => s.len(),
            Scores::F16(s) => s.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The scores as f64: borrowed when stored so, else widened into `buf`.
    #[inline]
    pub fn widened<'b>(self, buf: &'b mut Vec<f64>) -> &'b [f64]
    where
        'a: 'b,
    {
        match self {
            Scores::F64(s) => s,
            Scores::F32(s) => {
                buf.clear();
                buf.extend(s.iter().map(|&x| f64::from(x)));
                buf
            }
            Scores::F16(s) => {
                buf.clear();
                buf.extend(s.iter().map(|&x| float16::to_f64(x)));
                buf
            }
        }
    }
    /// Index of the first non-finite score.
    pub(crate) fn first_non_finite(self) -> Option<usize> {
        // Branch-free per chunk, so the compiler checks several scores per instruction (an early
        // exit per score costs a branch per score); the position is searched only on failure.
        fn scan<T: Copy>(s: &[T], finite: impl Fn(T) -> bool) -> Option<usize> {
            let all = s.chunks(64).all(|c| c.iter().fold(true, |ok, &x| ok & finite(x)));
            if all {
                None
            } else {
                s.iter().position(|&x| !finite(x))
            }
        }
        match self {
            Scores::F64(s) => scan(s, f64::is_finite),
            Scores::F32(s) => scan(s, f32::is_finite),
            Scores::F16(s) => scan(s, float16::is_finite),
        }
    }
    /// Element `i`, widened exactly.
    #[inline]
    pub fn at(self, i: usize) -> f64 {
        match self {
            Scores::F64(s) => s[i],
            Scores::F32(s) => f64::from(s[i]),
            Scores::F16(s) => float16::to_f64(s[i]),
        }
    }
}

impl ScoreTensor {
    /// Builds a tensor, refusing empty dimensions, a wrong length and non-finite scores.
    pub fn new(n: usize, m: usize, k: usize, data: Vec<f64>) -> Result<Self> {
        ScoreTensor::shaped(n, m, k, Storage::F64(data))?.finite()
    }

    /// [`ScoreTensor::new`] for f32 scores, kept as f32.
    pub fn from_f32(n: usize, m: usize, k: usize, data: Vec<f32>) -> Result<Self> {
        ScoreTensor::shaped(n, m, k, Storage::F32(data))?.finite()
    }

    /// [`ScoreTensor::new`] for float16 scores given as their bit patterns, kept as float16.
    pub fn from_f16_bits(n: usize, m: usize, k: usize, data: Vec<u16>) -> Result<Self> {
        ScoreTensor::shaped(n, m, k, Storage::F16(data))?.finite()
    }

    fn finite(self) -> Result<Self> {
        let (m, k) = (self.m, self.k);
        if let Some(i) = self.scores().first_non_finite() {
            let (item, rest) = (i / (m * k), i % (m * k));
            let x = self.scores().at(i);
            let idx = format!("[{item}][{}][{}]", rest / k, rest % k);
            return Err(Error::invalid(not_finite(&idx, &x.to_string(), x)));
        }
        Ok(self)
    }

    /// [`ScoreTensor::new`] without the scan for non-finite scores, for a producer whose scores
    /// are finite by construction (the toy simulator: finite means plus bounded normals times
    /// finite standard deviations), which the scan would only read again.
    pub(crate) fn from_finite(n: usize, m: usize, k: usize, data: Vec<f64>) -> Result<Self> {
        debug_assert!(data.iter().all(|x| x.is_finite()), "from_finite with a non-finite score");
        ScoreTensor::shaped(n, m, k, Storage::F64(data))
    }

    /// [`ScoreTensor::new`] over scores owned elsewhere (f64, f32 or f16, read as stored): no copy,
    /// the same checks and messages, the same results bit for bit.
    pub fn from_shared(n: usize, m: usize, k: usize, scores: Arc<dyn SharedScores>) -> Result<Self> {
        ScoreTensor::shaped(n, m, k, Storage::Shared(scores))?.finite()
    }

    /// Whether the scores are read in place from memory owned elsewhere.
    pub fn is_shared(&self) -> bool {
        matches!(self.data, Storage::Shared(_))
    }

    /// The tensor, once its dimensions and length are checked (not its scores).
    fn shaped(n: usize, m: usize, k: usize, data: Storage) -> Result<Self> {
        if n == 0 || m == 0 || k == 0 {
            return Err(Error::shape(format!(
                "scores must have at least one item, draw and candidate (got N={n}, M={m}, K={k})"
            )));
        }
        let len =
            n.checked_mul(m).and_then(|x| x.checked_mul(k)).ok_or_else(|| Error::shape("N×M×K overflows"))?;
        let got = stored(&data).len();
        if got != len {
            return Err(Error::shape(format!("expected N×M×K = {n}×{m}×{k} = {len} scores, got {got}")));
        }
        Ok(ScoreTensor { n, m, k, data })
    }

    pub fn n(&self) -> usize {
        self.n
    }
    pub fn m(&self) -> usize {
        self.m
    }
    pub fn k(&self) -> usize {
        self.k
    }
    /// Every score in its stored type.
    #[inline]
    pub fn scores(&self) -> Scores<'_> {
        stored(&self.data)
    }
    /// Every score as f64: borrowed when stored as f64, else a widened copy (twice the f32
    /// tensor's memory, four times the f16 one's; the hot paths read a draw or an item at a
    /// time instead).
    pub fn data(&self) -> Cow<'_, [f64]> {
        match self.scores() {
            Scores::F64(v) => Cow::Borrowed(v),
            Scores::F32(v) => Cow::Owned(v.iter().map(|&x| f64::from(x)).collect()),
            Scores::F16(v) => Cow::Owned(v.iter().map(|&x| float16::to_f64(x)).collect()),
        }
    }
    /// `S[item][draw][cand]`.
    #[inline]
    pub fn get(&self, item: usize, draw: usize, cand: usize) -> f64 {
        self.scores().at((item * self.m + draw) * self.k + cand)
    }
    #[inline]
    fn part(&self, start: usize, len: usize) -> Scores<'_> {
        match self.scores() {
            Scores::F64(v) => Scores::F64(&v[start..start + len]),
            Scores::F32(v) => Scores::F32(&v[start..start + len]),
            Scores::F16(v) => Scores::F16(&v[start..start + len]),
        }
    }
    /// The `K` scores of one draw of one item, in their stored type.
    #[inline]
    pub fn draw_scores(&self, item: usize, draw: usize) -> Scores<'_> {
        self.part((item * self.m + draw) * self.k, self.k)
    }
    /// The `K` scores of one draw of one item as f64 (`buf` holds them unless stored as f64).
    #[inline]
    pub fn draw<'a>(&'a self, item: usize, draw: usize, buf: &'a mut Vec<f64>) -> &'a [f64] {
        self.draw_scores(item, draw).widened(buf)
    }
    /// Items `range` as a tensor of their own, stored as these are (a copy).
    pub fn items(&self, range: std::ops::Range<usize>) -> ScoreTensor {
        let (start, len) = (range.start * self.m * self.k, range.len() * self.m * self.k);
        let data = match self.part(start, len) {
            Scores::F64(v) => Storage::F64(v.to_vec()),
            Scores::F32(v) => Storage::F32(v.to_vec()),
            Scores::F16(v) => Storage::F16(v.to_vec()),
        };
        ScoreTensor { n: range.len(), m: self.m, k: self.k, data }
    }

    /// [`ScoreTensor::from_f32`] for scores already known to be finite (a reader that scanned
    /// them for its own message).
    pub(crate) fn from_finite_f32(n: usize, m: usize, k: usize, data: Vec<f32>) -> Result<Self> {
        ScoreTensor::shaped(n, m, k, Storage::F32(data))
    }

    /// All `M × K` scores of one item as f64 (`buf` holds them unless stored as f64).
    #[inline]
    pub fn item<'a>(&'a self, item: usize, buf: &'a mut Vec<f64>) -> &'a [f64] {
        self.part(item * self.m * self.k, self.m * self.k).widened(buf)
    }
}

/// The scores of a storage, whoever owns them.
#[inline]
fn stored(data: &Storage) -> Scores<'_> {
    match data {
        Storage::F64(v) => Scores::F64(v),
        Storage::F32(v) => Scores::F32(v),
        Storage::F16(v) => Scores::F16(v),
        Storage::Shared(s) => s.scores(),
    }
}

impl PartialEq for ScoreTensor {
    fn eq(&self, other: &Self) -> bool {
        if (self.n, self.m, self.k) != (other.n, other.m, other.k) {
            return false;
        }
        match (self.scores(), other.scores()) {
            (Scores::F64(a), Scores::F64(b)) => a == b,
            (Scores::F32(a), Scores::F32(b)) => a == b,
            (a, b) => (0..a.len()).all(|i| a.at(i) == b.at(i)),
        }
    }
}

crate::options! {
    /// Which variance the r-value uses (docs/method.md §1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum VarianceKind("variance") {
        /// `s = v`: variability itself is the signal (the paper's choice).
        #[default]
        PerDraw = "per-draw",
        /// `s = v / M`: the squared standard error of the mean.
        OfMean = "of-mean",
    }
}

/// Per item and candidate: mean over draws `X` and sample variance `v` (divisor `M − 1`).
#[derive(Debug, Clone, PartialEq)]
pub struct Summaries {
    pub n: usize,
    pub k: usize,
    pub m: usize,
    /// `X[n][k]`.
    pub mean: Vec<f64>,
    /// `v[n][k]`, `0` when `M = 1`.
    pub var: Vec<f64>,
}

impl Summaries {
    /// Welford's update per draw keeps the variance accurate when scores are large and close.
    pub fn of(t: &ScoreTensor) -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { Summaries::of_avx2(t) };
        }
        Summaries::of_any(t)
    }

    /// [`Summaries::of`] with four f64 lanes per vector instead of SSE2's two. No other
    /// feature (no FMA), so every operation is the same.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn of_avx2(t: &ScoreTensor) -> Self {
        Summaries::of_any(t)
    }

    #[inline(always)]
    fn of_any(t: &ScoreTensor) -> Self {
        let (n, m, k) = (t.n, t.m, t.k);
        let mut mean = vec![0.0; n * k];
        let mut var = vec![0.0; n * k];
        let weights: Vec<f64> = (0..m).map(|d| 1.0 / (d + 1) as f64).collect();
        let mut wide = Vec::new();
        for ((i, mu), m2) in (0..n).zip(mean.chunks_exact_mut(k)).zip(var.chunks_exact_mut(k)) {
            // f32 scores are widened as read: a widened copy of an item (800 kB at M = 100,
            // K = 1000) is more than a core's cache holds, and each candidate reads it anew.
            // Float16 scores are made f32 first (exactly, and eight at a time where the CPU
            // can), a copy half the size of f64's.
            match t.part(i * m * k, m * k) {
                Scores::F32(item) => welford_item(item, f64::from, k, &weights, mu, m2),
                Scores::F16(item) => {
                    float16::widen_f32(item, &mut wide);
                    welford_item(&wide, f64::from, k, &weights, mu, m2);
                }
                Scores::F64(item) => welford_item(item, |x| x, k, &weights, mu, m2),
            }
            for v in m2.iter_mut() {
                *v = if m > 1 { (*v / (m - 1) as f64).max(0.0) } else { 0.0 };
            }
        }
        Summaries { n, k, m, mean, var }
    }

    /// The variance the r-value uses for item `i`, candidate `c`.
    #[inline]
    pub fn s(&self, i: usize, c: usize, kind: VarianceKind) -> f64 {
        let v = self.var[i * self.k + c];
        match kind {
            VarianceKind::PerDraw => v,
            VarianceKind::OfMean => v / self.m as f64,
        }
    }

    pub fn mean_row(&self, i: usize) -> &[f64] {
        &self.mean[i * self.k..(i + 1) * self.k]
    }
}

/// [`welford`] over all `k` candidates of one item, `widen` making each score an f64. Sixteen
/// candidates at a time where there are: each one's update waits on its last, and sixteen
/// chains in flight keep the core busy where four left it waiting (0.26 against 0.60 ms an
/// item of 1,000 draws × 1,000 float16 candidates, with [`float16::widen_f32`]).
#[inline(always)]
fn welford_item<T: Copy>(
    item: &[T],
    widen: impl Fn(T) -> f64 + Copy,
    k: usize,
    weights: &[f64],
    mu: &mut [f64],
    m2: &mut [f64],
) {
    let mut c = 0;
    while c < k {
        c += match k - c {
            // Natively only: the page's build has a size budget, and its scores are small.
            #[cfg(not(target_arch = "wasm32"))]
            16.. => welford::<16, T>(item, widen, k, c, weights, mu, m2),
            4.. => welford::<4, T>(item, widen, k, c, weights, mu, m2),
            2 | 3 => welford::<2, T>(item, widen, k, c, weights, mu, m2),
            _ => welford::<1, T>(item, widen, k, c, weights, mu, m2),
        };
    }
}

/// Welford's running mean and sum of squared deviations of candidates `c..c + N` of one item
/// (`item`: its draws of `k` scores, `weights[d] = 1/(d + 1)`) into `mu` and `m2`; returns `N`.
/// The `N` candidates' sums stay in registers over all draws, in vector lanes where the target
/// has them; each lane does the scalar update's operations in the scalar order, so the bits are
/// the same.
#[inline(always)]
fn welford<const N: usize, T: Copy>(
    item: &[T],
    widen: impl Fn(T) -> f64,
    k: usize,
    c: usize,
    weights: &[f64],
    mu: &mut [f64],
    m2: &mut [f64],
) -> usize {
    let (mut mean, mut sq) = ([0.0; N], [0.0; N]);
    for (row, &w) in item.chunks_exact(k).zip(weights) {
        // Never None: c + N ≤ k.
        let Some(x) = row[c..].first_chunk::<N>() else { continue };
        for l in 0..N {
            let x = widen(x[l]);
            let delta = x - mean[l];
            mean[l] += delta * w;
            sq[l] += delta * (x - mean[l]);
        }
    }
    mu[c..c + N].copy_from_slice(&mean);
    m2[c..c + N].copy_from_slice(&sq);
    N
}

/// The message for a score that is not finite: where, what, and for −∞ the usual cause (the
/// log of a probability of 0, as random forests and other hard voters give) and its remedy.
pub(crate) fn not_finite(idx: &str, shown: &str, x: f64) -> String {
    let hint = if x == f64::NEG_INFINITY {
        " (the log of a probability of 0 is -inf: pass the probabilities themselves, or clip \
         them away from 0 before taking logs)"
    } else {
        ""
    };
    format!("score {idx} is {shown}; expected a finite number{hint}")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn summaries_mean_and_sample_variance() {
        // item 0: candidate 0 draws 1,2,3 (mean 2, var 1); candidate 1 draws 5,5,5.
        let t = ScoreTensor::new(1, 3, 2, vec![1.0, 5.0, 2.0, 5.0, 3.0, 5.0]).unwrap();
        let s = Summaries::of(&t);
        assert_eq!(s.mean, vec![2.0, 5.0]);
        assert!((s.var[0] - 1.0).abs() < 1e-15);
        assert_eq!(s.var[1], 0.0);
        assert!((s.s(0, 0, VarianceKind::OfMean) - 1.0 / 3.0).abs() < 1e-15);
    }

    /// Welford one score at a time, in draw order: what [`Summaries::of`] computes.
    fn welford_reference(t: &ScoreTensor) -> (Vec<f64>, Vec<f64>) {
        let (n, m, k) = (t.n(), t.m(), t.k());
        let (mut mean, mut var) = (vec![0.0; n * k], vec![0.0; n * k]);
        for i in 0..n {
            for c in 0..k {
                let (mut mu, mut m2) = (0.0, 0.0);
                for d in 0..m {
                    let x = t.get(i, d, c);
                    let delta = x - mu;
                    mu += delta * (1.0 / (d + 1) as f64);
                    m2 += delta * (x - mu);
                }
                mean[i * k + c] = mu;
                var[i * k + c] = if m > 1 { (m2 / (m - 1) as f64).max(0.0) } else { 0.0 };
            }
        }
        (mean, var)
    }

    #[test]
    fn summaries_are_welford_bit_for_bit() {
        // Every K from 1 to 11 and some past 16 (whole and partial groups of sixteen, four and
        // two candidates), scores large and close, as in the toy's high-variance candidates,
        // and small ones stored as f32 and float16 (subnormals among them).
        let mut s = crate::rng::Stream::new(5, 0);
        for k in (1..=11).chain([16, 21, 37]) {
            for m in [1, 2, 7, 30] {
                let n = 3;
                let data: Vec<f64> = (0..n * m * k).map(|_| 1e6 + 30.0 * (s.uniform() - 0.5)).collect();
                let small: Vec<f64> = (0..n * m * k).map(|_| (s.uniform() - 0.5) * 1e-4).collect();
                let f32s = small.iter().map(|&x| x as f32).collect();
                let f16s = small.iter().map(|&x| half::f16::from_f64(x).to_bits()).collect();
                for t in [
                    ScoreTensor::new(n, m, k, data).unwrap(),
                    ScoreTensor::from_f32(n, m, k, f32s).unwrap(),
                    ScoreTensor::from_f16_bits(n, m, k, f16s).unwrap(),
                ] {
                    let (mean, var) = welford_reference(&t);
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    // The build chosen at run time and the portable one.
                    for got in [Summaries::of(&t), Summaries::of_any(&t)] {
                        assert_eq!(bits(&got.mean), bits(&mean), "K = {k}, M = {m}");
                        assert_eq!(bits(&got.var), bits(&var), "K = {k}, M = {m}");
                    }
                }
            }
        }
    }

    #[test]
    fn single_draw_has_zero_variance() {
        let t = ScoreTensor::new(2, 1, 2, vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(Summaries::of(&t).var.iter().all(|&v| v == 0.0));
    }

    /// Scores owned outside the tensor, as a numpy array's are.
    #[derive(Debug)]
    enum Owner {
        F64(Vec<f64>),
        F32(Vec<f32>),
        F16(Vec<u16>),
    }

    impl SharedScores for Owner {
        fn scores(&self) -> Scores<'_> {
            match self {
                Owner::F64(v) => Scores::F64(v),
                Owner::F32(v) => Scores::F32(v),
                Owner::F16(v) => Scores::F16(v),
            }
        }
    }

    /// Every accessor of a tensor, as bits.
    fn readings(t: &ScoreTensor) -> Vec<u64> {
        let (n, m, k) = (t.n(), t.m(), t.k());
        let mut out = vec![n as u64, m as u64, k as u64, t.scores().len() as u64];
        out.extend(t.data().iter().map(|x| x.to_bits()));
        let mut buf = Vec::new();
        for i in 0..n {
            out.extend(t.item(i, &mut buf).iter().map(|x| x.to_bits()));
            for d in 0..m {
                let kind = match t.draw_scores(i, d) {
                    Scores::F64(_) => 0,
                    Scores::F32(_) => 1,
                    Scores::F16(_) => 2,
                };
                out.push(kind);
                out.extend(t.draw(i, d, &mut buf).iter().map(|x| x.to_bits()));
                out.extend((0..k).map(|c| t.get(i, d, c).to_bits()));
            }
        }
        let s = Summaries::of(t);
        out.extend(s.mean.iter().chain(&s.var).map(|x| x.to_bits()));
        out
    }

    #[test]
    fn shared_scores_read_as_stored_ones() {
        let mut rng = crate::rng::Stream::new(11, 0);
        let (n, m, k) = (6, 5, 7);
        let f64s: Vec<f64> = (0..n * m * k).map(|_| 1e3 * (rng.uniform() - 0.5)).collect();
        let f32s: Vec<f32> = f64s.iter().map(|&x| x as f32).collect();
        let f16s: Vec<u16> = f64s.iter().map(|&x| half::f16::from_f64(x).to_bits()).collect();
        let owned = [
            ScoreTensor::new(n, m, k, f64s.clone()).unwrap(),
            ScoreTensor::from_f32(n, m, k, f32s.clone()).unwrap(),
            ScoreTensor::from_f16_bits(n, m, k, f16s.clone()).unwrap(),
        ];
        let shared = [
            ScoreTensor::from_shared(n, m, k, Arc::new(Owner::F64(f64s))).unwrap(),
            ScoreTensor::from_shared(n, m, k, Arc::new(Owner::F32(f32s))).unwrap(),
            ScoreTensor::from_shared(n, m, k, Arc::new(Owner::F16(f16s))).unwrap(),
        ];
        for (a, b) in owned.iter().zip(&shared) {
            assert!(b.is_shared() && !a.is_shared());
            assert_eq!(readings(a), readings(b));
            assert_eq!(a, b);
            assert_eq!(b, &b.clone());
        }
        assert_ne!(readings(&shared[0]), readings(&shared[1]), "f32 and f64 scores differ");
        assert_ne!(readings(&shared[1]), readings(&shared[2]), "f16 and f32 scores differ");
        // Through a whole split of every method: the same bits.
        let labels: Vec<usize> = (0..n).map(|i| i % k).collect();
        let mask = [true, false, true, true, false, true];
        let split = crate::conformal::Split::from_mask(&mask).unwrap().keyed(0, 0);
        for (method, kind) in crate::conformal::Method::ALL
            .iter()
            .flat_map(|&method| crate::conformal::RvalueKind::ALL.iter().map(move |&kind| (method, kind)))
        {
            let opts = crate::conformal::ScoreOptions { kind, ..Default::default() };
            let run = |t: &ScoreTensor| {
                let prep = crate::conformal::Prepared::new(t, &labels, true).unwrap();
                let mut got = Vec::new();
                prep.calibrate_each_threads(method, &opts, std::slice::from_ref(&split), 1, |_, c| {
                    got.push(format!("{:?} {:?}", c.metrics(0.2, false), c.sizes(0.2, false)));
                })
                .unwrap();
                got
            };
            for (a, b) in owned.iter().zip(&shared) {
                assert_eq!(run(a), run(b), "{method:?} {kind:?}");
            }
        }
    }

    #[test]
    fn shared_scores_are_checked_like_stored_ones() {
        let bad = vec![1.0, 2.0, f64::NAN, 4.0];
        let shared = |n, data: Vec<f64>| ScoreTensor::from_shared(n, 1, 2, Arc::new(Owner::F64(data)));
        let message = |r: Result<ScoreTensor>| r.unwrap_err().to_string();
        assert_eq!(message(shared(2, bad.clone())), message(ScoreTensor::new(2, 1, 2, bad.clone())));
        assert_eq!(message(shared(3, vec![1.0; 4])), message(ScoreTensor::new(3, 1, 2, vec![1.0; 4])));
        assert_eq!(message(shared(0, vec![])), message(ScoreTensor::new(0, 1, 2, vec![])));
        let f32s = Arc::new(Owner::F32(vec![1.0, f32::INFINITY]));
        assert_eq!(
            message(ScoreTensor::from_shared(1, 1, 2, f32s)),
            message(ScoreTensor::from_f32(1, 1, 2, vec![1.0, f32::INFINITY]))
        );
        // float16 ±∞ and NaN (bit patterns 0x7c00, 0xfc00, 0x7e00): the float32 messages.
        for (bits, wide) in [(0x7c00, f32::INFINITY), (0xfc00, f32::NEG_INFINITY), (0x7e00, f32::NAN)] {
            let f16s = Arc::new(Owner::F16(vec![0x3c00, bits]));
            let want = message(ScoreTensor::from_f32(1, 1, 2, vec![1.0, wide]));
            assert_eq!(message(ScoreTensor::from_shared(1, 1, 2, f16s)), want);
            assert_eq!(message(ScoreTensor::from_f16_bits(1, 1, 2, vec![0x3c00, bits])), want);
        }
    }

    #[test]
    fn refuses_non_finite_and_bad_length() {
        assert!(ScoreTensor::new(1, 1, 2, vec![1.0, f64::NAN]).is_err());
        assert!(ScoreTensor::new(1, 1, 2, vec![1.0]).is_err());
        assert!(ScoreTensor::new(0, 1, 2, vec![]).is_err());
    }
}

/// `ScoreTensor` and `ndarray`'s `[N, M, K]` arrays (feature `ndarray`).
#[cfg(feature = "ndarray")]
mod arrays {
    use super::{ScoreTensor, Scores};
    use crate::Result;
    use ndarray::{ArrayView3, CowArray, Ix3};

    impl ScoreTensor {
        /// The tensor as an `[N, M, K]` array of f64: a view of its own scores (no copy) when
        /// they are stored as f64, a widened copy when f32 or f16 ([`ScoreTensor::view_f32`]
        /// borrows the f32 ones).
        pub fn view(&self) -> CowArray<'_, f64, Ix3> {
            let shape = (self.n, self.m, self.k);
            // The data's length is N·M·K by construction (`shaped`), which is all `from_shape`
            // checks for a standard layout.
            #[allow(clippy::expect_used)]
            match self.scores() {
                Scores::F64(s) => {
                    ArrayView3::from_shape(shape, s).expect("a tensor's data has N·M·K scores").into()
                }
                Scores::F32(s) => ArrayView3::from_shape(shape, s)
                    .expect("a tensor's data has N·M·K scores")
                    .mapv(f64::from)
                    .into(),
                Scores::F16(s) => ArrayView3::from_shape(shape, s)
                    .expect("a tensor's data has N·M·K scores")
                    .mapv(crate::float16::to_f64)
                    .into(),
            }
        }

        /// The f32 scores as an `[N, M, K]` view (no copy), if the tensor stores f32.
        pub fn view_f32(&self) -> Option<ArrayView3<'_, f32>> {
            match self.scores() {
                Scores::F32(s) => ArrayView3::from_shape((self.n, self.m, self.k), s).ok(),
                Scores::F64(_) | Scores::F16(_) => None,
            }
        }

        /// A tensor of an `[N, M, K]` view in any memory order (C, Fortran, strided), checked as
        /// [`ScoreTensor::new`] checks. The scores are copied once, into row-major order: one
        /// `memcpy` when the view already is.
        pub fn from_view(a: ArrayView3<'_, f64>) -> Result<Self> {
            let (n, m, k) = a.dim();
            let data = match a.as_slice() {
                Some(s) => s.to_vec(),
                None => a.iter().copied().collect(),
            };
            ScoreTensor::new(n, m, k, data)
        }

        /// [`ScoreTensor::from_view`] for `f32` scores (model outputs), stored as f32: half the
        /// memory, and the same results as the widened scores.
        pub fn from_view_f32(a: ArrayView3<'_, f32>) -> Result<Self> {
            let (n, m, k) = a.dim();
            let data = match a.as_slice() {
                Some(s) => s.to_vec(),
                None => a.iter().copied().collect(),
            };
            ScoreTensor::from_f32(n, m, k, data)
        }

        /// [`ScoreTensor::from_view`] for float16 scores given as their bit patterns, stored as
        /// float16: a quarter of the memory, the same results as the widened scores.
        pub fn from_view_f16_bits(a: ArrayView3<'_, u16>) -> Result<Self> {
            let (n, m, k) = a.dim();
            let data = match a.as_slice() {
                Some(s) => s.to_vec(),
                None => a.iter().copied().collect(),
            };
            ScoreTensor::from_f16_bits(n, m, k, data)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use ndarray::{Array3, ShapeBuilder};

        #[test]
        fn views_round_trip_in_every_layout() {
            let t = ScoreTensor::new(2, 3, 4, (0..24).map(f64::from).collect()).unwrap();
            let v = t.view();
            assert_eq!((v.dim(), v[[1, 2, 3]]), ((2, 3, 4), t.get(1, 2, 3)));
            assert!(v.is_view(), "the view borrows the tensor's scores");
            assert_eq!(ScoreTensor::from_view(v.view()).unwrap(), t);
            // Fortran order and a strided view read back in logical order.
            let f = Array3::from_shape_fn((2, 3, 4).f(), |(i, d, c)| t.get(i, d, c));
            assert_eq!(ScoreTensor::from_view(f.view()).unwrap(), t);
            let wide = Array3::from_shape_fn(
                (2, 3, 8),
                |(i, d, c)| if c % 2 == 0 { t.get(i, d, c / 2) } else { -1.0 },
            );
            let every_other = wide.slice(ndarray::s![.., .., ..;2]);
            assert_eq!(ScoreTensor::from_view(every_other).unwrap(), t);
            let f32s = Array3::from_shape_fn((2, 3, 4), |(i, d, c)| t.get(i, d, c) as f32);
            let narrow = ScoreTensor::from_view_f32(f32s.view()).unwrap();
            assert_eq!(narrow, t);
            assert!(narrow.view_f32().is_some_and(|v| v == f32s) && t.view_f32().is_none());
            assert!(!narrow.view().is_view() && narrow.view() == t.view(), "widened on request");
            // float16 bit patterns in Fortran order: stored as float16, widened on request.
            let bits = Array3::from_shape_fn((2, 3, 4).f(), |(i, d, c)| {
                half::f16::from_f64(t.get(i, d, c)).to_bits()
            });
            let f16 = ScoreTensor::from_view_f16_bits(bits.view()).unwrap();
            assert!(matches!(f16.scores(), Scores::F16(_)) && f16 == t && f16.view_f32().is_none());
            assert!(!f16.view().is_view() && f16.view() == t.view());
        }

        #[test]
        fn views_are_checked_like_any_tensor() {
            let mut a = Array3::<f64>::zeros((2, 2, 2));
            a[[1, 0, 1]] = f64::NAN;
            let e = ScoreTensor::from_view(a.view()).unwrap_err().to_string();
            assert!(e.contains("score [1][0][1] is NaN"), "{e}");
            assert!(ScoreTensor::from_view(Array3::<f64>::zeros((0, 2, 2)).view()).is_err());
        }
    }
}
