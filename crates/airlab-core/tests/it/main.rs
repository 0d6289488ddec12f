//! The engine's integration tests, in one binary (one link step for all of them). Each module
//! checks one area end to end through the public API.

mod builders;
mod common;

mod apps;
mod aqm;
mod batches;
mod bbr1;
mod bbr23;
mod cake;
mod determinism;
mod device;
mod fairtt;
mod fccc;
mod fuzz;
mod golden;
mod host_queue;
mod layering;
mod mac80211;
mod metrics;
mod mu_scheduler;
mod ofdma;
mod scenario;
mod shaping;
mod tcp_reference;
mod ul_ofdma;
mod wifi;
mod wifi_channel;
mod wifi_rate_schedule;
mod wifi_scenario;
mod xlayer;
