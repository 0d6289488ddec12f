//! A bounded-memory distribution of times: an HdrHistogram in nanoseconds with two significant
//! digits (exact below 256 ns, buckets at most 1/128 wide above), plus the exact count, sum,
//! minimum and maximum. A quantile is reported as the middle of its bucket, so it is within
//! 0.4 % of the exact nearest-rank value over the whole range, from nanoseconds to hours.

use crate::sim::Time;
use hdrhistogram::Histogram;

/// Significant decimal digits the histogram keeps.
const SIGFIG: u8 = 2;

#[derive(Clone, Debug)]
pub struct Quantiles {
    hist: Histogram<u64>,
    sum: u128,
    min: Time,
    max: Time,
}

impl Default for Quantiles {
    fn default() -> Self {
        Self::new()
    }
}

impl Quantiles {
    pub fn new() -> Self {
        let hist = Histogram::new(SIGFIG).expect("2 significant digits is a valid precision");
        Quantiles { hist, sum: 0, min: Time::MAX, max: 0 }
    }

    /// Record one value in nanoseconds.
    pub fn add(&mut self, ns: Time) {
        if self.hist.record(ns).is_err() {
            // Beyond what the histogram can grow to (about 146 years): counted at its top.
            self.hist.saturating_record(ns);
        }
        self.sum += u128::from(ns);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Forget every value (the start of a measurement window).
    pub fn clear(&mut self) {
        self.hist.reset();
        self.sum = 0;
        self.min = Time::MAX;
        self.max = 0;
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// The exact mean, in nanoseconds.
    pub fn mean(&self) -> Option<f64> {
        (self.count() > 0).then(|| self.sum as f64 / self.count() as f64)
    }

    pub fn min(&self) -> Option<Time> {
        (self.count() > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<Time> {
        (self.count() > 0).then_some(self.max)
    }

    /// The q-quantile (q in [0, 1]) in nanoseconds, nearest-rank: the middle of the bucket
    /// holding it, clamped to the observed range.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.count() == 0 {
            return None;
        }
        let upper = self.hist.value_at_quantile(q);
        let mid = self.hist.median_equivalent(upper);
        Some(mid.clamp(self.min, self.max) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{MS, SEC, US};

    /// Exact nearest-rank quantile of sorted values.
    fn nearest_rank(sorted: &[Time], q: f64) -> f64 {
        let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1] as f64
    }

    #[test]
    fn quantiles_within_half_a_percent_from_nanoseconds_to_minutes() {
        // Log-uniform values over 1 ns .. 100 s: every decade must be resolved alike.
        let mut values: Vec<Time> = (0..20_000).map(|i| 10f64.powf(i as f64 / 2_000.0).round() as Time).collect();
        let mut q = Quantiles::new();
        for &v in &values {
            q.add(v);
        }
        values.sort_unstable();
        for p in [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999] {
            let want = nearest_rank(&values, p);
            let got = q.quantile(p).unwrap();
            assert!((got - want).abs() <= 0.004 * want + 0.5, "p{p}: {got} vs {want}");
        }
        assert_eq!(q.min(), Some(1));
        assert_eq!(q.max(), Some(*values.last().unwrap()));
    }

    #[test]
    fn sub_millisecond_values_keep_their_spread() {
        // Sojourns of 2 us .. 900 us: the old sketch reported 0.5 ms for all of them.
        let mut q = Quantiles::new();
        for us in 1..=900 {
            q.add(us * US);
        }
        let p50 = q.quantile(0.5).unwrap();
        let p99 = q.quantile(0.99).unwrap();
        assert!((p50 - 450.0 * US as f64).abs() < 0.004 * 450.0 * US as f64, "p50 {p50}");
        assert!((p99 - 891.0 * US as f64).abs() < 0.004 * 891.0 * US as f64, "p99 {p99}");
        assert!((q.mean().unwrap() - 450.5 * US as f64).abs() < 1e-6);
    }

    #[test]
    fn zero_and_huge_values_are_counted() {
        let mut q = Quantiles::new();
        q.add(0);
        q.add(0);
        q.add(3_600 * SEC);
        assert_eq!(q.quantile(0.5), Some(0.0));
        let top = q.quantile(1.0).unwrap();
        assert!((top - (3_600 * SEC) as f64).abs() <= 0.004 * (3_600 * SEC) as f64);
        assert_eq!(q.count(), 3);
    }

    #[test]
    fn empty_and_cleared_have_no_statistics() {
        let mut q = Quantiles::new();
        assert_eq!(q.quantile(0.5), None);
        assert_eq!(q.mean(), None);
        q.add(5 * MS);
        q.clear();
        assert_eq!(q.count(), 0);
        assert_eq!(q.min(), None);
        q.add(7 * MS);
        assert_eq!(q.quantile(0.5), Some((7 * MS) as f64));
        assert_eq!(q.mean(), Some((7 * MS) as f64));
    }

    #[test]
    fn a_single_value_is_exact() {
        let mut q = Quantiles::new();
        q.add(42 * MS + 17);
        assert_eq!(q.quantile(0.5), Some((42 * MS + 17) as f64));
    }
}
