//! RTT estimation and the retransmission timeout (RFC 6298), with Linux's floor.
//!
//! `Rfc6298`: RTO = max(SRTT + max(G, 4 RTTVAR), rto_min).
//! `Linux`:   RTO = SRTT + max(4 RTTVAR, rto_min) — Linux adds the 200 ms floor to the variance
//! term (`tcp_set_rto`), so its RTO is never below SRTT + 200 ms. Linux also tracks the maximum
//! deviation over the last RTT (`mdev_max_us`) before smoothing; we use RFC 6298's RTTVAR,
//! which differs only in how fast the variance decays after a spike.

use crate::sim::{Time, MS, SEC, US};

/// How the RTO floor applies (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoMode {
    Linux,
    Rfc6298,
}

/// Clock granularity G of RFC 6298 (our clock is exact; Linux measures RTT in microseconds).
const GRANULARITY: Time = US;
/// RFC 6298 (2.1) and Linux `TCP_TIMEOUT_INIT`.
pub const INITIAL_RTO: Time = SEC;
/// Linux `TCP_RTO_MAX`.
pub const MAX_RTO: Time = 120 * SEC;
/// Linux `TCP_RTO_MIN`.
pub const DEFAULT_RTO_MIN: Time = 200 * MS;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    pub srtt: Time,
    pub rttvar: Time,
    pub min_rtt: Time,
    rto: Time,
    backoff: u32,
    rto_min: Time,
    mode: RtoMode,
}

impl RttEstimator {
    pub fn new(rto_min: Time, mode: RtoMode) -> Self {
        RttEstimator { srtt: 0, rttvar: 0, min_rtt: 0, rto: INITIAL_RTO, backoff: 0, rto_min, mode }
    }

    pub fn has_sample(&self) -> bool {
        self.srtt > 0
    }

    /// Fold in one RTT measurement (RFC 6298 section 2.2 and 2.3).
    pub fn sample(&mut self, rtt: Time) {
        let rtt = rtt.max(1);
        if self.srtt == 0 {
            self.srtt = rtt;
            self.rttvar = rtt / 2;
        } else {
            let err = self.srtt.abs_diff(rtt);
            // beta = 1/4, alpha = 1/8; the variance is updated with the old SRTT.
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + rtt) / 8;
        }
        self.rto = match self.mode {
            RtoMode::Rfc6298 => (self.srtt + GRANULARITY.max(4 * self.rttvar)).max(self.rto_min),
            RtoMode::Linux => self.srtt + (4 * self.rttvar).max(self.rto_min),
        }
        .min(MAX_RTO);
    }

    /// Fold a sample into the minimum RTT. Linux feeds it the newest ACKed segment's RTT
    /// (`ca_rtt`), which a delayed ACK inflates least.
    pub fn update_min(&mut self, rtt: Time) {
        let rtt = rtt.max(1);
        self.min_rtt = if self.min_rtt == 0 { rtt } else { self.min_rtt.min(rtt) };
    }

    /// The timeout to arm now, including exponential backoff.
    pub fn rto(&self) -> Time {
        (self.rto << self.backoff.min(16)).min(MAX_RTO)
    }

    /// Timeouts in a row (exponent of the backoff).
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// A retransmission timeout fired: double the timer (RFC 6298 5.5).
    pub fn back_off(&mut self) {
        self.backoff += 1;
    }

    /// New data was acknowledged: collapse the backoff (RFC 6298 5.7, Linux `icsk_backoff = 0`).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6298 by hand, in floating point, for comparison.
    fn reference(samples: &[f64], rto_min: f64, linux: bool) -> f64 {
        let (mut srtt, mut rttvar) = (samples[0], samples[0] / 2.0);
        for &r in &samples[1..] {
            rttvar = 0.75 * rttvar + 0.25 * (srtt - r).abs();
            srtt = 0.875 * srtt + 0.125 * r;
        }
        if linux {
            srtt + (4.0 * rttvar).max(rto_min)
        } else {
            (srtt + (4.0 * rttvar).max(1e-6)).max(rto_min)
        }
    }

    fn run(samples_ms: &[f64], mode: RtoMode) -> f64 {
        let mut e = RttEstimator::new(DEFAULT_RTO_MIN, mode);
        for &s in samples_ms {
            e.sample((s * MS as f64) as Time);
        }
        e.rto() as f64 / MS as f64
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(RttEstimator::new(DEFAULT_RTO_MIN, RtoMode::Linux).rto(), SEC);
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        // R = 100 ms: SRTT 100, RTTVAR 50, RFC RTO = 100 + 200 = 300 ms.
        assert!((run(&[100.0], RtoMode::Rfc6298) - 300.0).abs() < 1e-3);
        // Linux: 100 + max(200, 200) = 300 ms as well.
        assert!((run(&[100.0], RtoMode::Linux) - 300.0).abs() < 1e-3);
    }

    #[test]
    fn floor_applies_differently_in_linux_and_rfc_modes() {
        // Stable 20 ms RTT: the variance decays, the RFC RTO sits on the 200 ms floor while
        // Linux's sits at SRTT + 200 ms.
        let samples = vec![20.0; 50];
        let rfc = run(&samples, RtoMode::Rfc6298);
        let linux = run(&samples, RtoMode::Linux);
        assert!((rfc - 200.0).abs() < 1e-3, "{rfc}");
        assert!((linux - 220.0).abs() < 0.01, "{linux}");
        assert!((rfc - reference(&samples, 200.0, false)).abs() < 0.01);
        assert!((linux - reference(&samples, 200.0, true)).abs() < 0.01);
    }

    #[test]
    fn matches_reference_for_varying_samples() {
        let samples = [300.0, 120.0, 500.0, 80.0, 250.0, 900.0, 310.0, 305.0];
        for (mode, linux) in [(RtoMode::Rfc6298, false), (RtoMode::Linux, true)] {
            let got = run(&samples, mode);
            let want = reference(&samples, 200.0, linux);
            assert!((got - want).abs() < 0.01, "{mode:?}: {got} vs {want}");
        }
    }

    #[test]
    fn backoff_doubles_and_caps_at_120_s() {
        let mut e = RttEstimator::new(DEFAULT_RTO_MIN, RtoMode::Rfc6298);
        e.sample(100 * MS);
        e.back_off();
        assert_eq!(e.rto(), 600 * MS);
        e.back_off();
        assert_eq!(e.rto(), 1200 * MS);
        for _ in 0..20 {
            e.back_off();
        }
        assert_eq!(e.rto(), MAX_RTO);
        e.reset_backoff();
        assert_eq!(e.rto(), 300 * MS);
    }
}
