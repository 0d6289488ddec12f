//! Round robin, ns-3's `RrMultiUserScheduler` in its simplest reading: the first stations in
//! the AP's turn order, whatever their rate or history. Since that order rotates (the device
//! layer serves its stations in turn, the uplink turn passes to the station after the last
//! served), every backlogged station is picked equally often.

use super::{Build, Component, Eligible, MuScheduler, Served};
use crate::params::no_check;

pub static ROUND_ROBIN: Component = Component {
    name: "round_robin",
    doc: "ns-3's RrMultiUserScheduler: the first stations in the AP's turn order",
    params: &[],
    check: no_check,
    build: Build(|_, _| Box::new(RoundRobin)),
};

pub struct RoundRobin;

impl MuScheduler for RoundRobin {
    fn pick(&mut self, eligible: &[Eligible], max: usize) -> Vec<u16> {
        eligible.iter().take(max).map(|e| e.peer).collect()
    }

    fn served(&mut self, _: &[Served]) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_the_first_in_turn() {
        let eligible: Vec<Eligible> = [3, 1, 2].map(|peer| Eligible { peer, rate_bps: 1 }).to_vec();
        assert_eq!(RoundRobin.pick(&eligible, 2), vec![3, 1]);
        assert_eq!(RoundRobin.pick(&eligible, 8), vec![3, 1, 2]);
    }
}
