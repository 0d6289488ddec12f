//! The time-series columns, defined once: each table's columns with their unit and meaning.
//! The recorder writes them by these names, Python takes the lists from `airlab._core.columns()`,
//! and a test checks that `docs/results.md` describes every one.

/// One column of a time-series table.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    pub name: &'static str,
    pub unit: &'static str,
    pub doc: &'static str,
}

/// Declares a table's columns: a constant per column (its name), `ALL`, in the documented
/// order, and `id`, each column's id in a table made with `Table::with_columns(ALL)`.
macro_rules! table {
    ($(#[$meta:meta])* $table:ident { $($konst:ident = $name:literal, $unit:literal, $doc:literal;)* }) => {
        $(#[$meta])*
        pub mod $table {
            $(pub const $konst: &str = $name;)*
            /// Every column of the table, in the documented order.
            pub const ALL: &[super::Column] = &[$(super::Column { name: $name, unit: $unit, doc: $doc }),*];

            /// The columns' positions in `ALL`, counted by the compiler.
            #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
            enum Position { $($konst),* }

            /// Each column's id in a table made with `Table::with_columns(ALL)`.
            pub mod id {
                use crate::metrics::series::ColumnId;
                $(pub const $konst: ColumnId = ColumnId::at(super::Position::$konst as u32);)*
            }
        }
    };
}

table! {
    /// `flows`: one row per sample and flow.
    flow {
        GOODPUT = "goodput_mbps", "Mbit/s", "application bytes delivered at the receiver in the interval";
        CWND = "cwnd_pkts", "packets", "congestion window";
        SSTHRESH = "ssthresh_pkts", "packets", "slow-start threshold (NaN = infinite, before the first loss)";
        SRTT = "srtt_ms", "ms", "RFC 6298 smoothed RTT";
        RTTVAR = "rttvar_ms", "ms", "RFC 6298 RTT variation";
        MIN_RTT = "min_rtt_ms", "ms", "minimum RTT seen";
        INFLIGHT = "inflight_bytes", "bytes", "bytes sent and not yet acknowledged or marked lost";
        PACING_RATE = "pacing_rate_mbps", "Mbit/s", "sender pacing rate";
        DELIVERY_RATE = "delivery_rate_mbps", "Mbit/s", "latest delivery-rate sample";
        RETRANSMITS = "retransmits", "packets", "cumulative retransmissions";
        LOST = "lost", "packets", "cumulative segments marked lost";
    }
}

table! {
    /// `queues`: one row per sample and queue (egress interface, wired or Wi-Fi).
    queue {
        BACKLOG_PKTS = "backlog_pkts", "packets", "packets in the qdisc";
        BACKLOG_BYTES = "backlog_bytes", "bytes", "bytes in the qdisc";
        DEVICE_PKTS = "device_pkts", "packets", "packets below the qdisc (device ring or Wi-Fi device queues, and in transmission)";
        DEVICE_BYTES = "device_bytes", "bytes", "bytes below the qdisc of a wired interface";
        SOJOURN = "sojourn_ms", "ms", "mean qdisc sojourn of the packets dequeued in the interval (NaN if none)";
        DROPS = "drops", "packets", "cumulative qdisc drops";
        MARKS = "marks", "packets", "cumulative ECN marks by the qdisc";
        DEVICE_DROPS = "device_drops", "packets", "cumulative drops below the qdisc (mac80211 TXQs: overflow and CoDel)";
        DEVICE_MARKS = "device_marks", "packets", "cumulative ECN marks below the qdisc (mac80211 CoDel)";
    }
}

table! {
    /// `links`: one row per sample and wired link direction.
    link {
        UTILIZATION = "utilization", "0..1", "busy fraction of the interval";
        THROUGHPUT = "throughput_mbps", "Mbit/s", "IP bytes serialized in the interval";
    }
}

table! {
    /// `wifi`: one row per sample and directed Wi-Fi link.
    wifi {
        AIRTIME_SHARE = "airtime_share", "0..1", "channel time the link's exchanges held in the interval / interval";
        THROUGHPUT = "throughput_mbps", "Mbit/s", "IP bytes of MPDUs acknowledged in the interval";
        MPDUS_PER_PPDU = "mpdus_per_ppdu", "MPDUs", "mean MPDUs per data PPDU (NaN if none)";
        PPDUS = "ppdus", "PPDUs", "data PPDUs ended in the interval";
        FAILED_PPDUS = "failed_ppdus", "PPDUs", "of them, those without a response";
        COLLISIONS = "collisions", "PPDUs", "data or RTS PPDUs the receiver lost to another transmission";
        MPDU_DROPS = "mpdu_drops", "MPDUs", "MPDUs given up after the retry limit";
        PHY_RATE = "phy_rate_mbps", "Mbit/s", "PHY rate, time-averaged over the interval";
        MU_PPDUS = "mu_ppdus", "PPDUs", "of the data PPDUs, HE MU PPDUs in which the link had an RU";
        MU_RU_TONES = "mu_ru_tones", "tones", "mean RU size in those (NaN if none)";
        MU_RU_RATE = "mu_ru_rate_mbps", "Mbit/s", "mean PHY rate on those RUs (NaN if none)";
    }
}

table! {
    /// `fcts`: one row per completed connection (`start_s` is the row's time).
    fct {
        CONN = "conn", "", "connection index within the flow";
        END = "end_s", "s", "last byte acknowledged";
        FCT = "fct_s", "s", "flow completion time";
        BYTES = "bytes", "bytes", "bytes the connection carried";
    }
}

table! {
    /// `pings`: one row per ping reply (`time_s` is when it arrived); a request without a
    /// reply has no row.
    ping {
        SEQ = "seq", "", "the echo request's sequence number, from 0";
        RTT = "rtt_ms", "ms", "round-trip time";
    }
}

table! {
    /// `batches`: one row per batch and flow when `[metrics] batches` cuts the run (`end_s` is
    /// the row's time).
    batch {
        BATCH = "batch", "", "batch index from 0 (the first `discard` are the warm-up)";
        START = "start_s", "s", "when the batch began";
        PACKETS = "packets", "packets", "data packets of the flow that brought its receiver new data";
        BYTES = "bytes", "bytes", "application bytes delivered";
        GOODPUT = "goodput_mbps", "Mbit/s", "bytes over the batch's duration";
        ACTIVE = "active_s", "s", "time in the batch with a connection of the flow open (SYN sent, last byte not yet acknowledged)";
        ACTIVE_GOODPUT = "active_goodput_mbps", "Mbit/s", "bytes over the active time (NaN if none)";
        OWD = "owd_ms", "ms", "mean one-way delay of the flow's data packets that arrived (NaN if none)";
        FCTS = "fcts", "connections", "connections that completed in the batch";
        FCT = "fct_s", "s", "their mean completion time (NaN if none)";
    }
}

/// Prefixes of the columns components add: a congestion control's variables in `flows`
/// (`cc.<var>`), a qdisc's in `queues` (`qdisc.<var>`).
pub const CC_PREFIX: &str = "cc.";
pub const QDISC_PREFIX: &str = "qdisc.";

/// The tables a run produces, as the Python API names them: (table, time column, entity
/// column, value columns).
pub const TABLES: &[(&str, &str, &str, &[Column])] = &[
    ("flows", "time_s", "flow", flow::ALL),
    ("queues", "time_s", "queue", queue::ALL),
    ("links", "time_s", "link", link::ALL),
    ("wifi", "time_s", "link", wifi::ALL),
    ("fcts", "start_s", "flow", fct::ALL),
    ("pings", "time_s", "flow", ping::ALL),
    ("batches", "end_s", "flow", batch::ALL),
];
