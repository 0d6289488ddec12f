//! The MAC frame the device layers queue and the exchange sends: one IP packet with its link-level
//! sequence number, its transmission attempts and the times the queues account it by.

use crate::net::Packet;
use crate::sim::Time;

/// One MAC frame carrying one IP packet, with its link-level sequence number and the
/// transmission attempts it has had.
#[derive(Clone, Debug)]
pub struct Mpdu {
    pub pkt: Packet,
    /// Sequence number on its link (per transmitter and receiver), from 0.
    pub seq: u64,
    pub attempts: u32,
    /// The airtime AQL counts for the frame while the firmware holds it (mac80211 only).
    pub aql: Time,
    /// When it entered the device layer (for mac80211, its firmware queue).
    pub queued_at: Time,
}
