//! Multi-user schedulers: which of the stations with frames share the AP's next HE MU PPDU
//! (downlink) or Basic Trigger (uplink). The AP finds the eligible stations, in its turn order
//! (the device layer's service order downlink, round robin from the last served uplink), and
//! the scheduler picks up to the PPDU's number of RUs, best first; the RUs themselves are
//! always equal ([`crate::wifi::phy::mu::RuAllocation::equal`]). After each PPDU or trigger
//! the scheduler learns what every station it picked got.
//!
//! A new scheduler is one file here with a `MuScheduler` and one line in [`SchedulerKind`].

mod airtime_fair;
mod proportional_fair;
mod round_robin;

use crate::sim::Time;
use serde::{Deserialize, Serialize};

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

/// The schedulers, as `ofdma_scheduler` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    /// ns-3's `RrMultiUserScheduler`: the first stations in turn.
    #[default]
    RoundRobin,
    /// The highest PHY rate over average served throughput.
    ProportionalFair,
    /// The least airtime used so far.
    AirtimeFair,
}

impl SchedulerKind {
    /// A scheduler for an AP with `peers` stations.
    pub fn create(self, peers: usize) -> Box<dyn MuScheduler> {
        match self {
            SchedulerKind::RoundRobin => Box::new(round_robin::RoundRobin),
            SchedulerKind::ProportionalFair => Box::new(proportional_fair::ProportionalFair::new(peers)),
            SchedulerKind::AirtimeFair => Box::new(airtime_fair::AirtimeFair::new(peers)),
        }
    }
}
