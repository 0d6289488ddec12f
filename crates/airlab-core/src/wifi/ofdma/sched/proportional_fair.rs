//! Proportional fair: picks the stations with the highest ratio of their link's PHY rate now
//! to the throughput they were served on average, an exponentially weighted average over the
//! last `window` PPDUs or triggers (a station not picked counts 0 bits). With static rates
//! it serves backlogged stations equally often, like round robin; when a link's rate changes
//! (a `schedule`, a station that moves) it serves the station while its rate is above its
//! usual and defers it while below: the multi-user diversity gain (Kelly's proportional
//! fairness, as cellular schedulers implement it). Ties go to the AP's turn order.

use super::{Build, Component, Eligible, MuScheduler, Served};
use crate::params::{no_check, Kind, Param, Value};

pub static PROPORTIONAL_FAIR: Component = Component {
    name: "proportional_fair",
    doc: "the highest PHY rate over the throughput served on average",
    params: &[Param {
        name: "window",
        kind: Kind::Int { min: 1, max: 1_000_000, unit: "PPDUs" },
        default: Value::Int(100),
        doc: "PPDUs or triggers in the time constant of the served-throughput average",
    }],
    check: no_check,
    build: Build(|c, peers| Box::new(ProportionalFair::new(peers, c.int("window") as f64))),
};

pub struct ProportionalFair {
    /// Per peer: bits served per PPDU or trigger, averaged.
    average: Vec<f64>,
    /// PPDUs or triggers in the average's time constant.
    window: f64,
}

impl ProportionalFair {
    pub fn new(peers: usize, window: f64) -> Self {
        ProportionalFair { average: vec![0.0; peers], window }
    }

    /// The priority of `e`: its rate over its average; a station never served comes first.
    fn priority(&self, e: &Eligible) -> f64 {
        let average = self.average[e.peer as usize];
        if average > 0.0 {
            e.rate_bps as f64 / average
        } else {
            f64::INFINITY
        }
    }
}

impl MuScheduler for ProportionalFair {
    fn pick(&mut self, eligible: &[Eligible], max: usize) -> Vec<u16> {
        let mut ranked: Vec<(f64, u16)> = eligible.iter().map(|e| (self.priority(e), e.peer)).collect();
        // Stable: equal priorities keep the turn order.
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        ranked.into_iter().take(max).map(|(_, peer)| peer).collect()
    }

    fn served(&mut self, served: &[Served]) {
        let mut bits = vec![0u64; self.average.len()];
        for s in served {
            bits[s.peer as usize] += s.bits;
        }
        for (average, bits) in self.average.iter_mut().zip(bits) {
            *average += (bits as f64 - *average) / self.window;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eligible(rates: &[(u16, u64)]) -> Vec<Eligible> {
        rates.iter().map(|&(peer, rate_bps)| Eligible { peer, rate_bps }).collect()
    }

    #[test]
    fn serves_the_best_rate_relative_to_its_history() {
        let mut pf = ProportionalFair::new(3, 100.0);
        // Nobody served yet: the turn order.
        assert_eq!(pf.pick(&eligible(&[(2, 10), (0, 50), (1, 20)]), 2), vec![2, 0]);
        pf.served(&[Served { peer: 0, bits: 1000, airtime: 0 }, Served { peer: 1, bits: 1000, airtime: 0 }]);
        pf.served(&[Served { peer: 2, bits: 1000, airtime: 0 }]);
        // Averages 9.9, 9.9, 10: peer 2 (rate 10) now ranks 1.0 against 50/9.9 and 20/9.9.
        assert_eq!(pf.pick(&eligible(&[(2, 10), (0, 50), (1, 20)]), 2), vec![0, 1]);
        // When peer 2's rate jumps to 60 it ranks 6.0 and overtakes peer 0 (5.05).
        assert_eq!(pf.pick(&eligible(&[(0, 50), (2, 60)]), 1), vec![2]);
        // Averages decay for the stations not served.
        let before = pf.average[2];
        pf.served(&[]);
        assert!((pf.average[2] - before * (1.0 - 1.0 / 100.0)).abs() < 1e-12);
    }
}
