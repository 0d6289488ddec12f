//! The bounds a scenario stays within, so that a run takes bounded memory and time and no
//! quantity overflows the engine's integer arithmetic. Each bound is named in the error that
//! enforces it, and docs/scenario.md lists them all.

use super::KeyError;
use crate::sim::{Time, SEC};

/// The longest simulated time: of a run, and of any duration a scenario gives (7 days). Sums
/// of a few such times stay far below the 584 years a u64 of nanoseconds holds.
pub const MAX_TIME: Time = 7 * 24 * 3_600 * SEC;
/// The fastest rate a scenario gives: 1 Tbit/s.
pub const MAX_RATE: u64 = 1_000_000_000_000;
/// The largest size a scenario gives: 1 TiB.
pub const MAX_BYTES: u64 = 1 << 40;
/// The shortest period of an event that repeats on its own: defined with the engine's clock,
/// whose apps declare it in their parameters.
pub use crate::sim::MIN_PERIOD;
/// Hosts and routers. Routes are held per node and destination host: at most 2^20 next hops
/// (a 1024-node scenario resolves in about a second; 4096 nodes took minutes and 4 GB).
pub const MAX_NODES: usize = 1_024;
/// Links: wired ones and the pairs of Wi-Fi members that exchange frames together (both are
/// neighbours for routing and have an interface per direction). A mesh without `peers` makes
/// every pair of its members a link.
pub const MAX_LINKS: usize = 4_096;
/// Bounds on a driver ring: beyond this the "device" is really a second, hidden qdisc.
pub const MAX_DEVICE_QUEUE: u32 = crate::net::MAX_DEVICE_QUEUE;
/// Flows, after `count` copies.
pub const MAX_FLOWS: u64 = 10_000;
/// Rows of all result tables together: the time series' samples (duration / interval) times
/// entities (flows, queues, link directions, Wi-Fi links), the batches table's rows (batches
/// times flows), a ping's reply per ping sent and a flow completion time per connection.
/// About 3 GB at the widest rows.
pub const MAX_SERIES_ROWS: u64 = 20_000_000;
/// Packets the apps send on their own schedule in one run (ping requests and replies, UDP
/// datagrams, the segments of `periodic` connections), each counted once per hop it crosses:
/// a packet costs two to three events per hop. A run at the bound took 55 s (pings over three
/// hops each way, 900 MB for their rows) to 83 s (a hundred UDP flows over one hop) on a
/// 2-core AMD EPYC (docs/scenario.md#limits).
pub const MAX_APP_PACKETS: u64 = 100_000_000;
/// Connections the apps open in one run (one per `bulk` and `transfer` flow, one per period of
/// a `periodic` one). Each is held to the end of the run, about 2 KB, and is a row of the
/// flow completion times: a run of a million 1448-byte connections took 11 s and 1.9 GB.
pub const MAX_CONNECTIONS: u64 = 1_000_000;
/// Bytes of scenario text (a file, or text given to the API). The largest built-in scenario has
/// a few kB; many hosts or flows are written with `count`.
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;
/// Queues the qdiscs and mac80211's TXQs allocate when the run is built, over every interface:
/// a flow queue of fq_codel, CAKE or a TXQ is about 100 bytes, so this is about 1.7 GB, the
/// order of the time series' bound. Linux bounds each qdisc (fq_codel's 65536 flows); this
/// bounds their sum, which thousands of interfaces would multiply.
pub const MAX_QUEUES: u64 = 1 << 24;
/// Bytes of framing a wired link adds to each packet (as CAKE's `overhead`).
pub const MAX_OVERHEAD: u32 = 256;
/// The largest window TCP can advertise, 65535 << 14 (window scaling, RFC 7323).
pub const MAX_RWND: u64 = 65_535 << 14;
/// Linux's `TCP_RTO_MAX`: no retransmission timeout is longer.
pub const MAX_RTO_MIN: Time = 120 * SEC;
/// Segments of the initial congestion window.
pub const MAX_INITIAL_CWND: u32 = 65_535;
/// Characters of a name (node, link, Wi-Fi network, flow, scenario) or other label. Names are
/// labels in tables, plot legends, `--set` paths and messages, and entity names join up to
/// three of them (`link:from->to`); 64 characters is more than any label needs and keeps those
/// at a line's width.
pub const MAX_NAME_CHARS: usize = 64;

/// Checks the name `name` written at `key`: not empty, at most [`MAX_NAME_CHARS`] characters,
/// no control characters (a line break or an escape would garble every table it is printed
/// in). `what` names the kind of name in the message ("flow").
pub(crate) fn check_name(key: impl Into<String>, name: &str, what: &str) -> Result<(), KeyError> {
    if name.trim().is_empty() {
        return Err(KeyError::new(key, format!("{what} names must not be empty")));
    }
    check_label(key, name).map_err(|e| KeyError::new(e.key, format!("{what} name {}", e.message)))
}

/// Checks a label written at `key` (a name, or a text parameter such as a registry group):
/// at most [`MAX_NAME_CHARS`] characters and no control characters.
pub(crate) fn check_label(key: impl Into<String>, label: &str) -> Result<(), KeyError> {
    let chars = label.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(KeyError::new(
            key,
            format!("is {chars} characters long, more than the {MAX_NAME_CHARS} a name may have"),
        ));
    }
    match label.chars().find(|c| c.is_control()) {
        Some(c) => Err(KeyError::new(key, format!("contains the control character {c:?}, which cannot be printed"))),
        None => Ok(()),
    }
}
