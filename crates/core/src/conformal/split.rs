//! Calibration/test splits: one given, one of a mask, or a seeded series ([`SplitPlan`]).

use crate::rng::Stream;
use crate::rvalue::ties::TieKey;
use crate::rvalue::{TieOrder, Ties};
use crate::{Error, Result};

/// A calibration/test split; both lists ascending. `seed` and `index` name it in its seeded
/// series (split `index` of `seed`), and key its pooled r-values' exchangeable tie order.
///
/// A prediction's split ([`Split::for_prediction`]) has new items as its test items, and their
/// sets must not depend on the batch they come in nor on an item's place in it: each test item's
/// tie order is keyed by its content (`tie_key`), and a pooled parametric prior is fit on the
/// calibration items alone (docs/method.md §4, §5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub cal: Vec<usize>,
    pub test: Vec<usize>,
    pub seed: u64,
    pub index: u64,
    pub tie_key: TieKey,
}

impl Split {
    /// A split of these items, keyed as split 0 of seed 0.
    pub fn new(cal: Vec<usize>, test: Vec<usize>) -> Self {
        Split { cal, test, seed: 0, index: 0, tie_key: TieKey::Position }
    }

    /// The split as a prediction's: tie orders keyed by each test item's content, a pooled
    /// prior fit on the calibration items alone.
    pub fn for_prediction(self) -> Self {
        Split { tie_key: TieKey::Content, ..self }
    }

    /// Whether this is a prediction's split ([`Split::for_prediction`]).
    pub fn is_prediction(&self) -> bool {
        self.tie_key == TieKey::Content
    }

    /// The split keyed as split `index` of `seed` instead.
    pub fn keyed(self, seed: u64, index: u64) -> Self {
        Split { seed, index, ..self }
    }

    /// Its pooled r-values' tie order under `order`.
    pub fn ties(&self, order: TieOrder) -> Ties {
        let ties = Ties::new(order, self.seed, self.index);
        match self.tie_key {
            TieKey::Position => ties,
            TieKey::Content => ties.by_content(),
        }
    }

    /// Split number `index` of a seeded series: a random permutation, the first
    /// `round(n · cal_fraction)` items calibrate.
    pub fn random(n: usize, cal_fraction: f64, seed: u64, index: usize) -> Result<Self> {
        if !(cal_fraction > 0.0 && cal_fraction < 1.0) {
            return Err(Error::invalid(format!("calibration fraction {cal_fraction} is not in (0, 1)")));
        }
        let n_cal = (n as f64 * cal_fraction).round() as usize;
        if n_cal == 0 || n_cal >= n {
            return Err(Error::invalid(format!(
                "{n} items are too few for a split with calibration fraction {cal_fraction}: \
                 need at least one calibration and one test item"
            )));
        }
        let perm = Stream::new(seed, index as u64).permutation(n);
        let mut cal = perm[..n_cal].to_vec();
        let mut test = perm[n_cal..].to_vec();
        cal.sort_unstable();
        test.sort_unstable();
        Ok(Split { cal, test, seed, index: index as u64, tie_key: TieKey::Position })
    }

    /// The split as a boolean mask over `n` items, `true` = calibration: what `--split` reads,
    /// so a seeded split can be carried to another face.
    pub fn mask(&self, n: usize) -> Vec<bool> {
        let mut mask = vec![false; n];
        for &i in self.cal.iter().filter(|&&i| i < n) {
            mask[i] = true;
        }
        mask
    }

    /// The split of a boolean mask, `true` = calibration.
    pub fn from_mask(mask: &[bool]) -> Result<Self> {
        let cal: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
        let test: Vec<usize> = (0..mask.len()).filter(|&i| !mask[i]).collect();
        if cal.is_empty() || test.is_empty() {
            return Err(Error::invalid(format!(
                "the split mask has {} calibration and {} test items; both must be at least one",
                cal.len(),
                test.len()
            )));
        }
        Ok(Split::new(cal, test))
    }
}

/// Which splits to run.
#[derive(Debug, Clone, PartialEq)]
pub enum SplitPlan {
    /// `count` seeded random splits.
    Random { count: usize, cal_fraction: f64, seed: u64 },
    /// Exactly this split.
    Fixed(Split),
}

impl SplitPlan {
    pub fn splits(&self, n: usize) -> Result<Vec<Split>> {
        match self {
            SplitPlan::Random { count, cal_fraction, seed } => {
                if *count == 0 {
                    return Err(Error::invalid("the number of splits must be at least 1"));
                }
                (0..*count).map(|r| Split::random(n, *cal_fraction, *seed, r)).collect()
            }
            SplitPlan::Fixed(s) => {
                if s.cal.iter().chain(&s.test).any(|&i| i >= n) {
                    return Err(Error::shape(format!("the split refers to items beyond N = {n}")));
                }
                Ok(vec![s.clone()])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_seeded_split_survives_its_mask() {
        for index in [0, 1, 7] {
            let s = Split::random(37, 0.4, 5, index).unwrap();
            let mask = s.mask(37);
            assert_eq!(mask.iter().filter(|&&b| b).count(), s.cal.len());
            let back = Split::from_mask(&mask).unwrap().keyed(5, index as u64);
            assert_eq!(back, s);
        }
    }
}
