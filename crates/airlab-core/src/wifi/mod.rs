//! Wi-Fi: the 802.11 PHY (rate tables and PPDU durations) and MAC (EDCA contention,
//! aggregation, Block Ack) that carry packets over a shared channel.
//!
//! - [`phy`]: rates and PPDU durations per format.
//! - [`channel`]: a link's radio channel: received power, noise, SNR, preamble detection.
//! - [`propagation`]: propagation loss models, the power a receiver gets at a distance.
//! - [`error_model`]: error rate models, which bits of a PPDU arrive at an SNR (NIST).
//! - [`rate`]: rate control, the MCS a link sends at for its SNR (fixed, ideal).
//! - [`link`]: a directed link: its PHY (and rate schedule), sequence numbers, counters.
//! - [`medium`]: one node's carrier sense and backoff countdown.
//! - [`mpdu`]: the MAC frame the device layers queue and the exchange sends.
//! - [`queues`]: the device layer below the qdisc (driver FIFO, per-station queues with
//!   optional airtime fairness, or the mac80211 layer).
//! - [`device`]: the device layers a scenario can name, as a component family.
//! - [`mac80211`]: Linux's mac80211 queueing: per-station FQ-CoDel TXQs, the airtime-fair
//!   scheduler and Airtime Queue Limits.
//! - [`reorder`]: the receiver's Block Ack reordering buffer.
//! - [`net`]: a network of nodes sharing a channel, and its frame exchanges, split by phase
//!   (channel access, the exchange, reception and Block Ack, the UL OFDMA trigger cycle).
//! - [`aggregation`]: a device's A-MPDU limits, shared by the exchange and the OFDMA planner.
//! - [`hook`]: what an AP may do with the packets it forwards (paper 004's telemetry).
//! - [`ofdma`]: 802.11ax downlink OFDMA: the AP's multi-user scheduling and RU allocation.

pub mod aggregation;
pub mod channel;
pub mod device;
pub mod error_model;
pub mod hook;
pub mod link;
pub mod medium;
pub mod mpdu;
pub mod net;
pub mod ofdma;
pub mod phy;
pub mod propagation;
pub mod rate;
pub mod reorder;
