//! 802.11ax multi-user OFDMA in a BSS: the AP splits the channel into resource units and
//! serves several stations in one PPDU, downlink ([`dl`]: HE MU PPDUs) or uplink ([`ul`]:
//! trigger frames soliciting HE TB PPDUs). These modules decide who is served, on which RUs and
//! for how long ([`sched`]: the multi-user schedulers); the frame exchanges on the air are in
//! [`crate::wifi::net`].

pub mod dl;
pub mod sched;
pub mod ul;

use crate::sim::Time;
use serde::Serialize;
pub use ul::{MuEdca, Obo, UlScheduler, Uora};

/// OFDMA settings of a BSS.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ofdma {
    /// Most stations in one MU PPDU or trigger (ns-3 `RrMultiUserScheduler::NStations`).
    pub max_stations: usize,
    /// The AP sends HE MU PPDUs.
    pub dl: bool,
    /// The AP triggers uplink HE TB PPDUs.
    pub ul: Option<UlOfdma>,
    /// Who shares each MU PPDU and trigger.
    pub scheduler: sched::Config,
}

/// Uplink OFDMA settings of a BSS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct UlOfdma {
    /// Each trigger cycle starts with a Buffer Status Report Poll; without it the AP grants
    /// from the queue sizes the stations' data frames carried.
    pub bsrp: bool,
    /// The MU EDCA parameters the AP advertises, which a station uses after an uplink
    /// trigger-based transmission of its was acknowledged; `None`: stations keep EDCA.
    pub mu_edca: Option<MuEdca>,
    /// The AP also polls its stations this often, reports or not (ns-3's
    /// `AccessReqInterval`); `None`: only when a station reported data.
    pub poll_interval: Option<Time>,
    /// Random-access RUs in every Basic Trigger.
    pub uora: Option<Uora>,
}

impl Ofdma {
    /// ns-3's default number of stations per MU PPDU.
    pub const DEFAULT_MAX_STATIONS: usize = 4;
    /// The most RUs a channel splits into (37 × 26 tones at 80 MHz, 74 at 160 MHz: ns-3's bound).
    pub const MAX_STATIONS: usize = 74;
}

/// The largest queue size the QoS Control field reports: 254 units of 256 octets.
pub const MAX_QUEUE_REPORT: u32 = 254 * 256;

/// A station's queue size as the QoS Control field carries it (802.11-2020 9.2.4.5.6): in
/// units of 256 octets, rounded up, at most [`MAX_QUEUE_REPORT`] (255 units means "unknown").
pub fn queue_size_report(bytes: u64) -> u32 {
    (bytes.div_ceil(256) * 256).min(u64::from(MAX_QUEUE_REPORT)) as u32
}
