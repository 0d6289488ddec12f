//! A-MPDU aggregation limits of a device, shared by the frame exchange (SU A-MPDUs, HE TB
//! responses, [`super::net`]) and the downlink OFDMA planner ([`super::ofdma::dl`]). A home of
//! its own beside both, so neither imports the other for it.

use crate::sim::Time;
use serde::Serialize;

/// A-MPDU aggregation limits of one node's transmissions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Aggregation {
    pub enabled: bool,
    /// MPDUs per A-MPDU (the driver's limit; capped by the Block Ack window).
    pub max_mpdus: u32,
    /// A-MPDU length in bytes (delimiters and padding included).
    pub max_bytes: u32,
    /// PPDU duration.
    pub max_duration: Time,
}
