//! A bounded-memory distribution: log-spaced buckets with 1 % relative width, plus exact
//! count, sum, min and max. Percentiles are accurate to about ±0.5 %.

const GROWTH: f64 = 1.01;

#[derive(Clone, Debug, Default)]
pub struct Quantiles {
    counts: Vec<u64>,
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
}

impl Quantiles {
    pub fn new() -> Self {
        Quantiles { counts: Vec::new(), count: 0, sum: 0.0, min: f64::INFINITY, max: f64::NEG_INFINITY }
    }

    fn bucket(x: f64) -> usize {
        // Values below 1 share bucket 0; the unit is chosen by the caller (e.g. microseconds).
        if x < 1.0 {
            0
        } else {
            1 + (x.ln() / GROWTH.ln()) as usize
        }
    }

    /// Representative value of a bucket: its geometric midpoint, clamped to the observed range.
    fn value(&self, b: usize) -> f64 {
        let v = if b == 0 { 0.5 } else { GROWTH.powf(b as f64 - 0.5) };
        v.clamp(self.min, self.max)
    }

    pub fn add(&mut self, x: f64) {
        let b = Self::bucket(x.max(0.0));
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.count += 1;
        self.sum += x;
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }

    pub fn min(&self) -> Option<f64> {
        (self.count > 0).then_some(self.min)
    }

    pub fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }

    /// The q-quantile (q in [0, 1]), nearest-rank.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(self.value(b));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_uniform_samples_within_half_a_percent() {
        let mut q = Quantiles::new();
        for i in 1..=10_000 {
            q.add(i as f64);
        }
        for (p, want) in [(0.5, 5000.0), (0.95, 9500.0), (0.99, 9900.0)] {
            let got = q.quantile(p).unwrap();
            assert!((got - want).abs() / want < 0.006, "p{p}: {got} vs {want}");
        }
        assert_eq!(q.min(), Some(1.0));
        assert_eq!(q.max(), Some(10_000.0));
        assert!((q.mean().unwrap() - 5000.5).abs() < 1e-9);
    }

    #[test]
    fn empty_has_no_statistics() {
        let q = Quantiles::new();
        assert_eq!(q.quantile(0.5), None);
        assert_eq!(q.mean(), None);
    }

    #[test]
    fn single_value_is_exact() {
        let mut q = Quantiles::new();
        q.add(42.0);
        assert_eq!(q.quantile(0.5), Some(42.0));
    }
}
