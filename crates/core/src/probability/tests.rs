use super::*;
use crate::float16;

/// The float16 nearest `x` (finite, in range), by bisection over the ordered positive codes.
fn to_f16(x: f64) -> u16 {
    let (sign, a) = if x < 0.0 { (0x8000u16, -x) } else { (0, x) };
    let (mut lo, mut hi) = (0u16, 0x7bffu16);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if float16::to_f64(mid) <= a {
            lo = mid
        } else {
            hi = mid
        }
    }
    let pick = if a - float16::to_f64(lo) <= float16::to_f64(hi) - a { lo } else { hi };
    sign | pick
}

fn tensor(rows: &[&[f64]]) -> ScoreTensor {
    let k = rows[0].len();
    ScoreTensor::new(rows.len(), 1, k, rows.concat()).unwrap()
}

#[test]
fn softmax_is_stable_for_extreme_logits() {
    let mut p = Vec::new();
    softmax_into(&[1e308, 1e308 - 1e292, -1e308], &mut p);
    assert!(p.iter().all(|x| x.is_finite()));
    assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    softmax_into(&[1000.0, 999.0], &mut p);
    let e = libm::exp(-1.0);
    assert!((p[0] - 1.0 / (1.0 + e)).abs() < 1e-15);
    assert!((log_sum_exp(&[1000.0, 1000.0]) - (1000.0 + libm::log(2.0))).abs() < 1e-12);
    assert!((log_sum_exp(&[-1000.0, -1000.0]) - (-1000.0 + libm::log(2.0))).abs() < 1e-12);
}

#[test]
fn auto_reads_each_kind_including_float16_rounded_rows() {
    let probs = [0.7, 0.2, 0.1];
    let logs: Vec<f64> = probs.iter().map(|p: &f64| p.ln()).collect();
    let logits = [2.0, 0.5, -1.0];
    assert_eq!(detect(&tensor(&[&probs])), ScoresAre::Probabilities);
    assert_eq!(detect(&tensor(&[&logs])), ScoresAre::LogProbabilities);
    assert_eq!(detect(&tensor(&[&logits])), ScoresAre::Logits);
    // One row that breaks a reading breaks it for the data set.
    assert_eq!(detect(&tensor(&[&probs, &[0.5, 0.5, 0.5]])), ScoresAre::Logits);
    // Rows rounded to float16: 1000 classes of a peaked distribution.
    let k = 1000;
    let raw: Vec<f64> = (0..k).map(|j| -(j as f64) / 50.0).collect();
    let mut p = Vec::new();
    softmax_into(&raw, &mut p);
    let half = |v: &[f64]| -> Vec<u16> { v.iter().map(|&x| to_f16(x)).collect() };
    let as_f16 = |v: &[f64]| ScoreTensor::from_f16_bits(1, 1, k, half(v)).unwrap();
    assert_eq!(detect(&as_f16(&p)), ScoresAre::Probabilities);
    let lp: Vec<f64> = p.iter().map(|x| x.ln()).collect();
    assert_eq!(detect(&as_f16(&lp)), ScoresAre::LogProbabilities);
}

#[test]
fn explicit_readings_are_checked_with_the_row_named() {
    let t = tensor(&[&[0.5, 0.5], &[0.6, 0.6]]);
    let e = resolve(&t, ScoresAre::Probabilities).unwrap_err().to_string();
    assert!(e.contains("item 1") && e.contains("sum to 1.2"), "{e}");
    let e = resolve(&tensor(&[&[-0.1, 1.1]]), ScoresAre::Probabilities).unwrap_err().to_string();
    assert!(e.contains("negative"), "{e}");
    assert!(resolve(&tensor(&[&[0.5, 0.1]]), ScoresAre::LogProbabilities).is_err());
    assert_eq!(resolve(&t, ScoresAre::Logits).unwrap(), ScoresAre::Logits);
}

#[test]
fn mean_probabilities_average_the_draws() {
    let t = ScoreTensor::new(1, 2, 2, vec![0.0, 0.0, 0.0, 2f64.ln()]).unwrap();
    let p = mean_probabilities(&t, ScoresAre::Logits).unwrap();
    assert!((p[0] - (0.5 + 1.0 / 3.0) / 2.0).abs() < 1e-15 && (p[1] - (0.5 + 2.0 / 3.0) / 2.0).abs() < 1e-15);
    let q = mean_probabilities(
        &ScoreTensor::new(1, 2, 2, vec![0.2, 0.8, 0.4, 0.6]).unwrap(),
        ScoresAre::Probabilities,
    )
    .unwrap();
    assert!((q[0] - 0.3).abs() < 1e-15);
    assert!(mean_probabilities(&t, ScoresAre::Auto).is_err());
}

/// Blocks seen apart and merged decide as one pass over all of them, for every mix of kinds;
/// a detector crosses threads as one byte.
#[test]
fn detectors_merged_decide_as_one_pass() {
    let kinds: [&[f64]; 3] = [&[0.7, 0.2, 0.1], &[-0.1, -2.5, -3.0], &[2.0, -1.0, 0.5]];
    let kinds =
        kinds.map(|r| if r[0] < 0.0 { r.iter().map(|x| x - log_sum_exp(r)).collect() } else { r.to_vec() });
    for a in &kinds {
        for b in &kinds {
            let (ta, tb) = (tensor(&[a]), tensor(&[b]));
            let mut merged = Detector::default();
            for t in [&ta, &tb] {
                let mut one = Detector::default();
                one.see(t);
                merged.merge(Detector::from_byte(one.to_byte()).unwrap());
            }
            assert_eq!(merged.choice(), detect(&tensor(&[a, b])), "{a:?} then {b:?}");
        }
    }
    assert_eq!(Detector::from_byte(4), None);
}
