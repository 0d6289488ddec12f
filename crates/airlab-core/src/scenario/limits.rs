//! The bounds a scenario stays within, so that a run takes bounded memory and time and no
//! quantity overflows the engine's integer arithmetic. Each bound is named in the error that
//! enforces it, and docs/scenario.md lists them all.

use crate::sim::{Time, SEC, US};

/// The longest simulated time: of a run, and of any duration a scenario gives (7 days). Sums
/// of a few such times stay far below the 584 years a u64 of nanoseconds holds.
pub const MAX_TIME: Time = 7 * 24 * 3_600 * SEC;
/// The fastest rate a scenario gives: 1 Tbit/s.
pub const MAX_RATE: u64 = 1_000_000_000_000;
/// The largest size a scenario gives: 1 TiB.
pub const MAX_BYTES: u64 = 1 << 40;
/// The shortest period of an event that repeats on its own (ping, periodic connections, UDP
/// datagrams, rate-schedule steps): at most a million per simulated second and source.
pub const MIN_PERIOD: Time = US;
/// Hosts and routers.
pub const MAX_NODES: usize = 4_096;
/// Wired links.
pub const MAX_LINKS: usize = 4_096;
/// Flows, after `count` copies.
pub const MAX_FLOWS: u64 = 10_000;
/// Rows of all time series together: samples (duration / interval) times entities (flows,
/// queues, link directions, Wi-Fi links). About 3 GB at the widest rows.
pub const MAX_SERIES_ROWS: u64 = 20_000_000;
/// Bytes of framing a wired link adds to each packet (as CAKE's `overhead`).
pub const MAX_OVERHEAD: u32 = 256;
/// The largest window TCP can advertise, 65535 << 14 (window scaling, RFC 7323).
pub const MAX_RWND: u64 = 65_535 << 14;
/// Linux's `TCP_RTO_MAX`: no retransmission timeout is longer.
pub const MAX_RTO_MIN: Time = 120 * SEC;
/// Segments of the initial congestion window.
pub const MAX_INITIAL_CWND: u32 = 65_535;
