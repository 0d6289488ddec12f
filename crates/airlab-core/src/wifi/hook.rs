//! What an access point may do with the packets it forwards besides forwarding them: a hook
//! sees every packet the AP receives from a station over the air, and may write into it (an
//! in-band telemetry header), and every packet the AP queues for a station. Paper 004's
//! airtime telemetry is one ([`super::telemetry::AirtimeTable`]); a new one is a type with
//! this trait, handed to the AP's device with [`super::net::WifiDev::with_hook`].

use super::phy::TxVector;
use crate::net::{NodeId, Packet};
use crate::sim::Time;

pub trait ApHook {
    /// A packet from the station at `device` arrived over the air, sent at `txv` (the link's
    /// SU rate); `mac_losses` counts the station's frames its MAC gave up so far.
    fn on_uplink(&mut self, device: NodeId, pkt: &mut Packet, txv: &TxVector, mac_losses: u64, now: Time);

    /// A packet the AP is about to queue for one of its stations.
    fn on_downlink(&mut self, pkt: &Packet, now: Time);
}
