//! Where a score enters one draw's calibration scores when every one of them is a float16 value
//! (true draws read from a float16 file, as the authors' ImageNet layout stores it): a table over
//! the float16 values between the draw's lowest and highest score, indexed by the value itself.
//! A lookup is one read in a table of one entry per float16 value in the draw's range (about
//! 145 kB on logits), where [`super::table`]'s buckets and scans read two scattered cache lines
//! of tables several times that size; the misses of those reads were most of the time spent
//! placing a test item's candidates.

use super::table::{EntryTable, PAD};

/// For one draw, `ge[o − lo]` = the number of calibration scores `≥` the float16 value of
/// ordinal `o` ([`ordinal`]), for `o` in `lo..=hi + 1` (the last entry is zero). Counts are
/// `u16` (draws of more scores take the general table): half the cache lines a lookup misses,
/// and half the memory (about 72 kB a draw of the authors' ImageNet layout instead of 145).
#[derive(Debug, Clone)]
pub(super) struct CodeTable {
    lo: i32,
    ge: Vec<u16>,
}

/// The lowest ordinal of a finite float16 (that of `−65504`).
const ORD_MIN: i32 = -0x7bff;

/// The largest finite float16's magnitude bits; positive values' bits grow with the value.
const MAX_BITS: i32 = 0x7bff;

/// The magnitude bits of the largest float16 `≤ |s|` (finite `s`; `MAX_BITS + 1` or more
/// beyond the finite range), and whether it equals `|s|`. Float16 ordinals are these bits,
/// negated for negative values: consecutive integers in ascending order of value from
/// [`ORD_MIN`] to [`MAX_BITS`], both zeros at 0 (they compare equal).
#[inline(always)]
fn trunc16(s: f64) -> (i32, bool) {
    let a = s.abs();
    // Below the smallest normal float16 (2^-14) the values are multiples of 2^-24.
    if a < 1.0 / 16384.0 {
        let x = a * 16_777_216.0; // exact: a power of two, and `x < 1024`
        let t = x as i32;
        return (t, f64::from(t) == x);
    }
    let bits = a.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if exp > 15 {
        return (MAX_BITS + 1, false);
    }
    // The exponent field and the top ten bits of the mantissa, truncated.
    let m = ((exp + 15) << 10) | ((bits >> 42) & 0x3ff) as i32;
    (m, bits & ((1 << 42) - 1) == 0)
}

/// Whether `x` (finite) is exactly a float16 value, and its ordinal if so.
#[inline]
fn ordinal(x: f64) -> Option<i32> {
    let (m, exact) = trunc16(x);
    (exact && m <= MAX_BITS).then_some(if x < 0.0 { -m } else { m })
}

/// The ordinal of the lowest float16 value `≥ s` (finite `s`); `None` if no finite float16 is.
/// A calibration score, being a float16 value, is `≥ s` exactly when it is `≥` that value.
#[inline(always)]
fn ordinal_ceil(s: f64) -> Option<i32> {
    let (m, exact) = trunc16(s);
    if s < 0.0 {
        // `−m` is at or above `s`, and the next value down below it unless it equals `s`.
        Some(if m > MAX_BITS { ORD_MIN } else { -m })
    } else {
        let o = if exact { m } else { m + 1 };
        (o <= MAX_BITS).then_some(o)
    }
}

/// The ordinal of the finite float16 value whose descending key is `desc`. The ascending key
/// `!desc` puts the negative values (`−0` taken as `+0`) below `0x8000` and `0x8000 + bits` for
/// the others, so the ordinals follow, one apart, from either side of `0x8000`.
#[inline(always)]
fn ordinal_of_key(desc: u16) -> i32 {
    let ascending = i32::from(!desc);
    ascending - 0x8000 + i32::from(ascending < 0x8000)
}

impl CodeTable {
    /// The table of `cal_s`, one draw's calibration scores, descending (at least one), or
    /// `None` when one of them is not a float16 value, there are more than `u16::MAX` of them,
    /// or the table would hold more than `limit` entries (one per float16 value in the scores'
    /// range).
    pub(super) fn new(cal_s: &[f64], limit: usize) -> Option<Self> {
        if cal_s.len() > usize::from(u16::MAX) {
            return None;
        }
        let (lo, hi) = (ordinal(*cal_s.last()?)?, ordinal(cal_s[0])?);
        let len = usize::try_from(hi - lo).ok()? + 2;
        if len > limit {
            return None;
        }
        let mut ge = vec![0u16; len];
        for &x in cal_s {
            // Descending scores between two float16 values: a slot of the range, or none.
            let slot = usize::try_from(ordinal(x)? - lo).ok()?;
            *ge.get_mut(slot)? += 1;
        }
        // Suffix sums: each value's count of scores at or above it.
        for i in (0..len - 1).rev() {
            ge[i] += ge[i + 1];
        }
        Some(CodeTable { lo, ge })
    }

    /// The number of this draw's `n` calibration scores `≥ score` (finite).
    #[inline(always)]
    pub(super) fn count_ge(&self, score: f64, n: usize) -> u32 {
        match ordinal_ceil(score) {
            Some(o) => self.count_ge_ordinal(o, n),
            None => 0,
        }
    }

    /// The number of the `n` calibration scores `≥` the float16 value of ordinal `o`.
    #[inline(always)]
    fn count_ge_ordinal(&self, o: i32, n: usize) -> u32 {
        match usize::try_from(o - self.lo) {
            Ok(i) => self.ge.get(i).map_or(0, |&c| u32::from(c)),
            // Below the lowest calibration score: all of them are above.
            Err(_) => n as u32,
        }
    }

    /// The number of this draw's `n` calibration scores `> score` (finite): where the run of
    /// those equal to it starts, if there is one.
    #[inline(always)]
    pub(super) fn count_gt(&self, score: f64, n: usize) -> u32 {
        match ordinal(score) {
            // On the grid: those at or above the next value up (none past the largest).
            Some(o) if o < MAX_BITS => self.count_ge_ordinal(o + 1, n),
            Some(_) => 0,
            // Off it, no calibration score equals it.
            None => self.count_ge(score, n),
        }
    }

    /// For a float16 value given by its descending key ([`desc_key16`](crate::rvalue::nonparametric::desc_key16)):
    /// the number of the `n` calibration scores at or above it, and of those above it (where
    /// the run of scores equal to it starts, if there is one). Both are reads of the same
    /// table, next to each other.
    #[inline(always)]
    pub(super) fn ge_gt_of_key(&self, desc: u16, n: usize) -> (u32, u32) {
        let o = ordinal_of_key(desc);
        let gt = if o < MAX_BITS { self.count_ge_ordinal(o + 1, n) } else { 0 };
        (self.count_ge_ordinal(o, n), gt)
    }

    /// [`CodeTable::ge_gt_of_key`]'s first count alone: where the index rule places the value.
    #[inline(always)]
    pub(super) fn ge_of_key(&self, desc: u16, n: usize) -> u32 {
        self.count_ge_ordinal(ordinal_of_key(desc), n)
    }

    /// Where each of `scores` enters the draw: `entries[i]` = the number of calibration scores
    /// `≥ scores[i]`, as [`super::table::EntryTable::entries`] gives it.
    pub(super) fn entries(&self, n: usize, scores: impl Iterator<Item = f64>, entries: &mut [u32]) {
        for (e, s) in entries.iter_mut().zip(scores) {
            *e = self.count_ge(s, n);
        }
    }
}

/// One draw's entry lookup: the float16 table where it applies, the general one otherwise.
#[derive(Debug, Clone)]
pub(super) enum DrawEntry {
    Codes(CodeTable),
    Table(EntryTable),
}

impl DrawEntry {
    /// The lookup of `cal_s`, one draw's calibration scores, descending (at least one), with
    /// `per_score` buckets per score where it takes the general table.
    pub(super) fn new(cal_s: &[f64], per_score: usize) -> Self {
        // No more entries than the general table would hold slots: never more memory.
        let limit = per_score.max(1) * cal_s.len() + 2;
        match CodeTable::new(cal_s, limit) {
            Some(codes) => DrawEntry::Codes(codes),
            None => DrawEntry::Table(EntryTable::new(cal_s, per_score)),
        }
    }

    /// Where each of `scores` enters `cal_s` (the draw's scores, then [`PAD`] times `−∞`):
    /// the number of calibration scores `≥` it.
    #[inline(always)]
    pub(super) fn entries(
        &self,
        cal_s: &[f64],
        scores: impl Iterator<Item = f64> + Clone,
        entries: &mut [u32],
    ) {
        match self {
            DrawEntry::Codes(codes) => codes.entries(cal_s.len() - PAD, scores, entries),
            DrawEntry::Table(table) => table.entries(cal_s, scores, entries),
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A finite float16 as f64, through `half` (an independent conversion).
    fn f16_value(bits: u16) -> Option<f64> {
        let h = half::f16::from_bits(bits);
        h.is_finite().then(|| f64::from(h))
    }

    /// Every finite float16 gets the ordinal of its place in ascending order, both zeros 0, and
    /// the ceiling of a value between two float16 values is the upper one's.
    #[test]
    fn ordinals_follow_every_float16_in_order() {
        let mut values: Vec<f64> = (0..=u16::MAX).filter_map(f16_value).collect();
        values.sort_by(f64::total_cmp);
        values.dedup_by(|a, b| a == b);
        for (i, pair) in values.windows(2).enumerate() {
            let o = ORD_MIN + i as i32;
            assert_eq!(ordinal(pair[0]), Some(o), "{}", pair[0]);
            assert_eq!(ordinal_ceil(pair[0]), Some(o));
            let between = pair[0] + (pair[1] - pair[0]) / 3.0;
            assert_eq!(ordinal(between), None);
            assert_eq!(ordinal_ceil(between), Some(o + 1), "{between}");
        }
        assert_eq!(ordinal(-0.0), Some(0));
        assert_eq!(
            (ordinal_ceil(65504.5), ordinal_ceil(-1e9), ordinal_ceil(1e300)),
            (None, Some(ORD_MIN), None)
        );
    }

    /// Every finite float16's descending key gives its ordinal, both zeros 0.
    #[test]
    fn keys_give_the_ordinals() {
        for bits in 0..=u16::MAX {
            if let Some(x) = f16_value(bits) {
                let key = crate::rvalue::nonparametric::desc_key16(bits);
                assert_eq!(Some(ordinal_of_key(key)), ordinal(x), "bits {bits:#06x}");
            }
        }
    }

    /// Counts are `u16`: a draw of `u16::MAX` scores counts all of them, one more takes the
    /// general table.
    #[test]
    fn tables_hold_up_to_u16_max_scores() {
        let cal_s = vec![1.0; usize::from(u16::MAX)];
        let table = CodeTable::new(&cal_s, usize::MAX).unwrap();
        assert_eq!((table.count_ge(1.0, cal_s.len()), table.count_ge(0.5, cal_s.len())), (65535, 65535));
        assert_eq!((table.count_gt(1.0, cal_s.len()), table.count_ge(2.0, cal_s.len())), (0, 0));
        assert!(CodeTable::new(&vec![1.0; 1 << 16], usize::MAX).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// The table's count is the number of calibration scores at or above the score, for
        /// scores on and off the float16 grid, inside and beyond the calibration range.
        #[test]
        fn counts_are_the_scores_at_or_above(
            cal in proptest::collection::vec(0x3800u16..0x4400, 1..200),
            negate in proptest::collection::vec(any::<bool>(), 200),
            queries in proptest::collection::vec(prop_oneof![
                (0x3000u16..0x4800).prop_map(|b| f16_value(b).unwrap()),
                -3.0f64..3.0,
                Just(0.0), Just(-0.0), Just(1e6), Just(-1e6),
            ], 1..50),
        ) {
            let mut cal_s: Vec<f64> = cal.iter().zip(&negate)
                .map(|(&b, &neg)| f16_value(b).unwrap() * if neg { -1.0 } else { 1.0 }).collect();
            cal_s.sort_by(|a, b| b.total_cmp(a));
            let table = CodeTable::new(&cal_s, usize::MAX).unwrap();
            for &s in &queries {
                let want = cal_s.iter().filter(|&&c| c >= s).count() as u32;
                prop_assert_eq!(table.count_ge(s, cal_s.len()), want, "score {}", s);
                let above = cal_s.iter().filter(|&&c| c > s).count() as u32;
                prop_assert_eq!(table.count_gt(s, cal_s.len()), above, "score {}", s);
            }
            // Off the grid the general table takes over.
            prop_assert!(CodeTable::new(&[1.0 + 1e-9], usize::MAX).is_none());
        }
    }
}
