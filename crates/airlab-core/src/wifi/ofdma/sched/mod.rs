//! Multi-user schedulers: which of the stations with frames share the AP's next HE MU PPDU
//! (downlink) or Basic Trigger (uplink). The AP finds the eligible stations, in its turn order
//! (the device layer's service order downlink, round robin from the last served uplink), and
//! the scheduler picks up to the PPDU's number of RUs, best first; the RUs themselves are
//! always equal ([`crate::wifi::phy::mu::RuAllocation::equal`]). After each PPDU or trigger
//! the scheduler learns what every station it picked got.
//!
//! A new scheduler is one file here with a `MuScheduler` and its [`Component`] (parameters
//! declared as a qdisc's are), plus its line in [`REGISTRY`] and its `mod` line.

mod airtime_fair;
mod proportional_fair;
mod round_robin;

use crate::params;
use crate::sim::Time;

/// A station with frames for a multi-user PPDU (downlink) or a reported queue (uplink).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eligible {
    /// The AP's peer index of the station.
    pub peer: u16,
    /// The PHY rate of its link over the whole channel, bit/s.
    pub rate_bps: u64,
}

/// What one picked station got from a PPDU or trigger: the bits it was given room for and
/// the time it used its RU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    pub peer: u16,
    pub bits: u64,
    pub airtime: Time,
}

pub trait MuScheduler {
    /// Up to `max` of `eligible` (in the AP's turn order), in the order they get RUs: when
    /// the channel has fewer RUs than picked, the last wait.
    fn pick(&mut self, eligible: &[Eligible], max: usize) -> Vec<u16>;

    /// A PPDU or trigger went out with the stations `served` (those the RUs covered).
    fn served(&mut self, served: &[Served]);
}

/// How a registered scheduler is made: from its checked parameters, for an AP with `peers`
/// stations.
pub struct Build(pub fn(&Config, usize) -> Box<dyn MuScheduler>);

// Every scheduler `ofdma_scheduler` can name.
params::family!(
    Build,
    [&round_robin::ROUND_ROBIN, &proportional_fair::PROPORTIONAL_FAIR, &airtime_fair::AIRTIME_FAIR],
    "OFDMA scheduler",
    "OfdmaScheduler"
);

/// The scheduler a BSS uses unless `ofdma_scheduler` names another.
pub const DEFAULT: &str = "round_robin";

/// The scheduler `config` describes, for an AP with `peers` stations.
pub fn create(config: &Config, peers: usize) -> Box<dyn MuScheduler> {
    (config.component().build.0)(config, peers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scheduler_builds_from_its_defaults() {
        for config in params::checked_defaults(REGISTRY, |c| c) {
            // A lone eligible station is picked, whatever the ranking.
            let picked = create(&config, 3).pick(&[Eligible { peer: 2, rate_bps: 1 }], 1);
            assert_eq!(picked, vec![2], "{}", config.name());
        }
    }
}
