//! What an access point may do with the packets it forwards besides forwarding them: a hook
//! sees every packet the AP receives from a station over the air, and may write into it (an
//! in-band telemetry header), and every packet the AP queues for a station.
//!
//! Hooks are registry components (`ap_hook = { kind = "airtime_telemetry", ... }` in an
//! infrastructure `[[wifi]]`): a new one is one file here with its [`ApHook`] and its
//! [`Component`] (parameters declared as a qdisc's are), plus its line in [`REGISTRY`] and its
//! `mod` line. Paper 004's airtime telemetry is one ([`airtime_telemetry`]).

pub mod airtime_telemetry;

use super::phy::TxVector;
use crate::net::{NodeId, Packet};
use crate::params;
use crate::sim::Time;

pub trait ApHook {
    /// A packet from the station at `device` arrived over the air, sent at `txv` (the link's
    /// SU rate); `mac_losses` counts the station's frames its MAC gave up so far.
    fn on_uplink(&mut self, device: NodeId, pkt: &mut Packet, txv: &TxVector, mac_losses: u64, now: Time);

    /// A packet the AP is about to queue for one of its stations.
    fn on_downlink(&mut self, pkt: &Packet, now: Time);
}

/// The AP's MAC timing a hook may price airtime with.
#[derive(Debug, Clone, Copy)]
pub struct ApTiming {
    pub difs: Time,
    pub sifs: Time,
}

/// How a registered hook is made from its checked parameters (hosts bound to node ids).
pub struct Build(pub fn(&Config, ApTiming) -> Box<dyn ApHook>);

// Every hook `ap_hook` can name.
params::family!(Build, [&airtime_telemetry::AIRTIME_TELEMETRY], "AP hook", "ApHook");

/// The hook `config` describes, its hosts bound.
pub fn create(config: &Config, timing: ApTiming) -> Box<dyn ApHook> {
    (config.component().build.0)(config, timing)
}
