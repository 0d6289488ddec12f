//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation).
//! The sampler itself is filled in alongside the socket.

use crate::sim::Time;

/// One delivery-rate sample, produced per ACK.
#[derive(Clone, Debug, Default)]
pub struct RateSample {
    /// Segments delivered over the sampling interval.
    pub delivered: u64,
    /// Sampling interval: max(send elapsed, ACK elapsed).
    pub interval: Time,
    /// Delivery rate in bytes per second (0 when the sample is invalid).
    pub delivery_rate: f64,
    /// The sample was taken while the sender was application-limited.
    pub is_app_limited: bool,
    /// `C.delivered` when the newest acknowledged segment was sent.
    pub prior_delivered: u64,
    /// Segments in flight when the newest acknowledged segment was sent... (after it was sent).
    pub tx_in_flight: u64,
    /// Segments lost over the sampling interval.
    pub lost: u64,
    /// RTT of the newest acknowledged segment.
    pub rtt: Time,
}
