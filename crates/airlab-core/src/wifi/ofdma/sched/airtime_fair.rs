//! Airtime fair: picks the stations that have used the least airtime on their RUs so far (the
//! time their own data took, not the padding to the PPDU's end), so that a station at a low
//! MCS, or with more to send, waits while others catch up. As in mac80211's airtime scheduler
//! (virtual time), a station that had nothing to send earns no credit meanwhile: when it
//! becomes eligible again its account is raised to the least of the stations that stayed
//! eligible. Ties go to the AP's turn order.

use super::{Build, Component, Eligible, MuScheduler, Served};
use crate::params::no_check;
use crate::sim::Time;

pub static AIRTIME_FAIR: Component = Component {
    name: "airtime_fair",
    doc: "the stations that have used the least airtime on their RUs so far",
    params: &[],
    check: no_check,
    build: Build(|_, peers| Box::new(AirtimeFair::new(peers))),
};

pub struct AirtimeFair {
    /// Per peer: airtime used.
    used: Vec<Time>,
    /// Per peer: eligible at the last pick.
    active: Vec<bool>,
}

impl AirtimeFair {
    pub fn new(peers: usize) -> Self {
        AirtimeFair { used: vec![0; peers], active: vec![false; peers] }
    }
}

impl MuScheduler for AirtimeFair {
    fn pick(&mut self, eligible: &[Eligible], max: usize) -> Vec<u16> {
        let staying = eligible.iter().filter(|e| self.active[e.peer as usize]).map(|e| self.used[e.peer as usize]);
        if let Some(floor) = staying.min() {
            for e in eligible.iter().filter(|e| !self.active[e.peer as usize]) {
                let used = &mut self.used[e.peer as usize];
                *used = (*used).max(floor);
            }
        }
        self.active.iter_mut().for_each(|a| *a = false);
        eligible.iter().for_each(|e| self.active[e.peer as usize] = true);
        let mut ranked: Vec<(Time, u16)> = eligible.iter().map(|e| (self.used[e.peer as usize], e.peer)).collect();
        // Stable: equal accounts keep the turn order.
        ranked.sort_by_key(|&(used, _)| used);
        ranked.into_iter().take(max).map(|(_, peer)| peer).collect()
    }

    fn served(&mut self, served: &[Served]) {
        for s in served {
            self.used[s.peer as usize] += s.airtime;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eligible(peers: &[u16]) -> Vec<Eligible> {
        peers.iter().map(|&peer| Eligible { peer, rate_bps: 1 }).collect()
    }

    #[test]
    fn serves_the_least_airtime_first_and_idleness_earns_nothing() {
        let mut af = AirtimeFair::new(3);
        assert_eq!(af.pick(&eligible(&[1, 0]), 1), vec![1]);
        af.served(&[Served { peer: 1, bits: 0, airtime: 300 }]);
        assert_eq!(af.pick(&eligible(&[1, 0]), 1), vec![0]);
        af.served(&[Served { peer: 0, bits: 0, airtime: 100 }]);
        // Peer 0 (100) goes before peer 1 (300) until it has caught up.
        assert_eq!(af.pick(&eligible(&[1, 0]), 2), vec![0, 1]);
        af.served(&[Served { peer: 0, bits: 0, airtime: 100 }]);
        // Peer 2 was idle: it starts level with the least of the others (200), not at 0, and
        // the turn order breaks the tie.
        assert_eq!(af.pick(&eligible(&[1, 0, 2]), 3), vec![0, 2, 1]);
        assert_eq!(af.used, vec![200, 300, 200]);
    }
}
