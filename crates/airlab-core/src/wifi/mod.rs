//! Wi-Fi: the 802.11 PHY (rate tables and PPDU durations) and MAC (EDCA contention,
//! aggregation, Block Ack) that carry packets over a shared channel.

pub mod phy;
