//! Windowed running maximum or minimum (Kathleen Nichols' algorithm, as Linux's
//! `lib/win_minmax.c`): the best sample seen within the last `window` time units, kept with
//! three candidates so each update is O(1). BBR uses it for the bottleneck bandwidth (a max
//! over rounds) and for min_rtt (a min over time).

#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    t: u64,
    v: f64,
}

#[derive(Clone, Debug)]
pub struct WindowedFilter {
    s: [Sample; 3],
    /// True for a running max, false for a running min.
    max: bool,
    empty: bool,
}

impl WindowedFilter {
    pub fn max() -> Self {
        WindowedFilter { s: [Sample::default(); 3], max: true, empty: true }
    }

    pub fn min() -> Self {
        WindowedFilter { s: [Sample::default(); 3], max: false, empty: true }
    }

    /// The best value in the window (0 before any sample).
    pub fn get(&self) -> f64 {
        self.s[0].v
    }

    /// Forget everything and start from one sample.
    pub fn reset(&mut self, t: u64, v: f64) {
        self.s = [Sample { t, v }; 3];
        self.empty = false;
    }

    fn at_least_as_good(&self, a: f64, b: f64) -> bool {
        if self.max {
            a >= b
        } else {
            a <= b
        }
    }

    /// Add a measurement `v` taken at `t` (time or round count) to a filter over `window`.
    pub fn update(&mut self, window: u64, t: u64, v: f64) -> f64 {
        let sample = Sample { t, v };
        if self.empty || self.at_least_as_good(v, self.s[0].v) || t.saturating_sub(self.s[2].t) > window {
            self.reset(t, v);
            return v;
        }
        if self.at_least_as_good(v, self.s[1].v) {
            self.s[1] = sample;
            self.s[2] = sample;
        } else if self.at_least_as_good(v, self.s[2].v) {
            self.s[2] = sample;
        }
        // Age out the best candidates as the window slides past them; refresh the backups once
        // a quarter and a half of the window have gone by so a stale second-best never lingers.
        let dt = t.saturating_sub(self.s[0].t);
        if dt > window {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = sample;
            if t.saturating_sub(self.s[0].t) > window {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = sample;
            }
        } else if self.s[1].t == self.s[0].t && dt > window / 4 {
            self.s[1] = sample;
            self.s[2] = sample;
        } else if self.s[2].t == self.s[1].t && dt > window / 2 {
            self.s[2] = sample;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact windowed max by brute force, for comparison.
    fn brute(samples: &[(u64, f64)], window: u64, t: u64, max: bool) -> f64 {
        let vals = samples.iter().filter(|(ts, _)| t - ts <= window).map(|(_, v)| *v);
        if max {
            vals.fold(f64::MIN, f64::max)
        } else {
            vals.fold(f64::MAX, f64::min)
        }
    }

    #[test]
    fn max_forgets_a_peak_once_it_leaves_the_window() {
        let mut f = WindowedFilter::max();
        f.update(10, 0, 5.0);
        f.update(10, 1, 9.0);
        assert_eq!(f.get(), 9.0);
        for t in 2..=11 {
            f.update(10, t, 4.0);
        }
        assert_eq!(f.get(), 9.0, "still within the window at t = 11");
        f.update(10, 12, 4.0);
        assert!(f.get() < 9.0, "the peak at t = 1 is older than 10 at t = 12");
    }

    #[test]
    fn tracks_a_decreasing_sequence_close_to_the_exact_window_max() {
        // A falling signal is the hard case: the filter must fall with it, one window late.
        let mut f = WindowedFilter::max();
        let mut seen = Vec::new();
        for t in 0..200u64 {
            let v = 1000.0 - 3.0 * t as f64 + (t % 7) as f64;
            seen.push((t, v));
            let got = f.update(20, t, v);
            let exact = brute(&seen, 20, t, true);
            assert!(got <= exact + 1e-9, "never above the true max");
            assert!(got >= exact - 3.0 * 20.0 / 2.0 - 7.0, "t={t}: {got} vs {exact}");
        }
    }

    #[test]
    fn min_filter_keeps_the_smallest_sample() {
        let mut f = WindowedFilter::min();
        for (t, v) in [(0, 30.0), (1, 20.0), (2, 25.0), (3, 40.0)] {
            f.update(100, t, v);
        }
        assert_eq!(f.get(), 20.0);
        f.update(100, 200, 50.0);
        assert_eq!(f.get(), 50.0, "everything else expired");
    }
}
