//! The scenario schema, defined once: these serde types are what a scenario file may say.
//! Quantities with units are parsed by the newtypes in [`super::units`].

use super::units::{Bytes, Duration, Rate};
use super::wifi::{DeviceSpec, Standard};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Simulated time to run.
    pub duration: Duration,
    /// Run seed; the `seed` argument of a run overrides it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// End hosts: run TCP/UDP endpoints and apps.
    #[serde(default)]
    pub hosts: Vec<String>,
    /// Routers: forward only.
    #[serde(default)]
    pub routers: Vec<String>,
    #[serde(default, rename = "link")]
    pub links: Vec<Link>,
    /// Wi-Fi networks: infrastructure BSSs and ad hoc/mesh networks.
    #[serde(default)]
    pub wifi: Vec<Wifi>,
    /// Explicit static routes; missing ones are filled with shortest (fewest-hop) paths.
    #[serde(default, rename = "route")]
    pub routes: Vec<Route>,
    #[serde(default, rename = "flow")]
    pub flows: Vec<Flow>,
    #[serde(default)]
    pub metrics: Metrics,
}

pub fn default_seed() -> u64 {
    1
}

/// A point-to-point wired link. Settings at the top level apply to both directions;
/// `forward` (between[0] -> between[1]) and `reverse` override them per direction.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// Defaults to "a-b" for `between = ["a", "b"]`.
    #[serde(default)]
    pub name: Option<String>,
    pub between: [String; 2],
    #[serde(flatten)]
    pub both: LinkDirection,
    #[serde(default)]
    pub forward: Option<LinkDirection>,
    #[serde(default)]
    pub reverse: Option<LinkDirection>,
}

/// The settings of one direction of a link (every field optional so that they can be layered).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkDirection {
    pub rate: Option<Rate>,
    pub delay: Option<Duration>,
    /// Probability that a packet is lost on the wire, independently per packet, in [0, 1).
    pub loss: Option<f64>,
    /// Bytes of link-layer framing added to each packet's IP length when serializing.
    pub overhead: Option<u32>,
    /// The qdisc layer of the egress interface feeding this direction.
    pub qdisc: Option<QdiscSpec>,
    /// Packets the device (driver ring) holds besides the one being serialized.
    pub device_queue: Option<u32>,
    /// Byte limit of the device layer in the spirit of BQL: the qdisc hands the device another
    /// packet only while fewer bytes than this are queued to it (serializer included).
    pub device_queue_bytes: Option<Bytes>,
}

/// A fully resolved link direction, after layering `forward`/`reverse` over the shared settings.
#[derive(Debug, Clone, Serialize)]
pub struct ResolvedDirection {
    /// Name of the link this direction belongs to.
    pub link: String,
    pub from: String,
    pub to: String,
    pub rate: Rate,
    pub delay: Duration,
    pub loss: f64,
    pub overhead: u32,
    pub qdisc: QdiscSpec,
    pub device_queue: u32,
    pub device_queue_bytes: Option<Bytes>,
}

/// Queue disciplines. New AQMs add a variant here and a file in `qdisc/`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscSpec {
    /// Tail-drop FIFO with a packet limit (Linux `pfifo`; default limit = txqueuelen 1000).
    Pfifo {
        #[serde(default = "default_pfifo_limit")]
        limit: u32,
    },
    /// Tail-drop FIFO with a byte limit (Linux `bfifo`; default 1000 x 1514 bytes).
    Bfifo {
        #[serde(default = "default_bfifo_limit")]
        limit: Bytes,
    },
    /// CoDel AQM on one FIFO (RFC 8289, Linux `codel`; defaults as `tc qdisc add ... codel`).
    Codel {
        /// Packets; tail drop beyond.
        #[serde(default = "default_pfifo_limit")]
        limit: u32,
        #[serde(default = "default_codel_target")]
        target: Duration,
        #[serde(default = "default_codel_interval")]
        interval: Duration,
        /// Mark ECN-capable packets instead of dropping them (off in Linux `codel`).
        #[serde(default)]
        ecn: bool,
        /// CE-mark ECN-capable packets whose sojourn exceeds this; off when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ce_threshold: Option<Duration>,
    },
    /// Flow queueing with CoDel per flow (RFC 8290, Linux `fq_codel`; Linux defaults).
    FqCodel {
        /// Packets in all flow queues.
        #[serde(default = "default_fq_codel_limit")]
        limit: u32,
        /// Hash buckets (flow queues).
        #[serde(default = "default_fq_codel_flows")]
        flows: u32,
        /// Bytes per flow per deficit-round-robin round.
        #[serde(default = "default_fq_codel_quantum")]
        quantum: Bytes,
        #[serde(default = "default_codel_target")]
        target: Duration,
        #[serde(default = "default_codel_interval")]
        interval: Duration,
        /// Bytes in all flow queues.
        #[serde(default = "default_fq_codel_memory_limit")]
        memory_limit: Bytes,
        /// Mark ECN-capable packets instead of dropping them (on in Linux `fq_codel`).
        #[serde(default = "default_true")]
        ecn: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ce_threshold: Option<Duration>,
        /// Packets dropped at most from the fattest flow per overflow.
        #[serde(default = "default_fq_codel_drop_batch")]
        drop_batch: u32,
    },
    /// The cross-layer AQM of paper 001: mice/bulk classes, each with its own qdisc
    /// (FQ-CoDel with Linux defaults), served by a two-class weighted round robin.
    Xlayer {
        /// A flow is bulk when its bytes / the mean flow bytes ≥ z.
        #[serde(default = "default_xlayer_z")]
        z: f64,
        /// Mice packets per round per active mice flow (bulk: one per flow).
        #[serde(default = "default_xlayer_k")]
        k: f64,
        /// Flows the mean is over: `recent` (active and ended within `history`) or `active`.
        #[serde(default)]
        mean: XlayerMean,
        #[serde(default = "default_xlayer_history")]
        history: Duration,
        /// A flow idle this long has ended.
        #[serde(default = "default_xlayer_active_timeout")]
        active_timeout: Duration,
        /// `intended` (counters per packet, mice first) or `literal` (Algorithm 1 as printed).
        #[serde(default)]
        wrr: XlayerWrr,
        #[serde(default = "default_fq_codel")]
        bulk: Box<QdiscSpec>,
        #[serde(default = "default_fq_codel")]
        mice: Box<QdiscSpec>,
    },
    /// CAKE shaper + AQM + flow/host isolation (Linux `sch_cake`); defaults follow Linux.
    Cake(CakeSpec),
}

/// Which flows `xlayer`'s mean flow size is over.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum XlayerMean {
    #[default]
    Recent,
    Active,
}

/// Which round robin `xlayer` runs.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum XlayerWrr {
    #[default]
    Intended,
    Literal,
}

impl QdiscSpec {
    /// Check the parameters: on error, the key below the qdisc (e.g. "limit") and what was
    /// expected.
    pub fn check(&self) -> Result<(), (String, String)> {
        self.check_own().map_err(|(key, msg)| (key.to_string(), msg))?;
        if let QdiscSpec::Xlayer { bulk, mice, .. } = self {
            for (name, class) in [("bulk", bulk), ("mice", mice)] {
                if matches!(**class, QdiscSpec::Xlayer { .. }) {
                    return Err((format!("{name}.kind"), "a class of xlayer cannot be xlayer itself".into()));
                }
                class.check().map_err(|(key, msg)| (format!("{name}.{key}"), msg))?;
            }
        }
        Ok(())
    }

    fn check_own(&self) -> Result<(), (&'static str, String)> {
        match self {
            QdiscSpec::Cake(cake) => cake.check(),
            QdiscSpec::Pfifo { limit } => check_limit(u64::from(*limit)),
            QdiscSpec::Bfifo { limit } => check_limit(limit.0),
            QdiscSpec::Codel { limit, target, interval, .. } => {
                check_limit(u64::from(*limit))?;
                check_codel(*target, *interval)
            }
            QdiscSpec::FqCodel { limit, flows, quantum, target, interval, memory_limit, drop_batch, .. } => {
                check_limit(u64::from(*limit))?;
                check_codel(*target, *interval)?;
                if !(1..=MAX_FQ_CODEL_FLOWS).contains(flows) {
                    return Err(("flows", format!("flows must be in 1..={MAX_FQ_CODEL_FLOWS} (Linux), got {flows}")));
                }
                if !(MIN_FQ_CODEL_QUANTUM..=MAX_FQ_CODEL_QUANTUM).contains(&quantum.0) {
                    return Err((
                        "quantum",
                        format!(
                            "quantum must be {MIN_FQ_CODEL_QUANTUM} to {MAX_FQ_CODEL_QUANTUM} bytes (Linux), got {}",
                            quantum.0
                        ),
                    ));
                }
                if memory_limit.0 == 0 {
                    return Err(("memory_limit", "the memory limit must be greater than 0".into()));
                }
                if *drop_batch == 0 {
                    return Err(("drop_batch", "drop_batch must be at least 1 packet".into()));
                }
                Ok(())
            }
            QdiscSpec::Xlayer { z, k, active_timeout, .. } => {
                if !(z.is_finite() && *z > 0.0) {
                    return Err(("z", format!("z must be a positive number (the paper uses 4), got {z}")));
                }
                if !(k.is_finite() && *k > 0.0) {
                    return Err(("k", format!("k must be a positive number (the paper uses 3), got {k}")));
                }
                if active_timeout.0 == 0 {
                    return Err(("active_timeout", "active_timeout must be greater than 0".into()));
                }
                Ok(())
            }
        }
    }
}

/// Linux `fq_codel` refuses more buckets than this.
pub const MAX_FQ_CODEL_FLOWS: u32 = 65536;
/// Linux raises a smaller quantum to 256 bytes and refuses one above 1 MiB.
pub const MIN_FQ_CODEL_QUANTUM: u64 = 256;
pub const MAX_FQ_CODEL_QUANTUM: u64 = 1 << 20;

fn check_limit(limit: u64) -> Result<(), (&'static str, String)> {
    if limit == 0 {
        return Err(("limit", "the queue limit must be greater than 0".into()));
    }
    Ok(())
}

/// CoDel needs a window to watch (`interval`) that is longer than the delay it aims at.
fn check_codel(target: Duration, interval: Duration) -> Result<(), (&'static str, String)> {
    if interval.0 == 0 {
        return Err(("interval", "interval must be greater than 0".into()));
    }
    if target.0 == 0 || target >= interval {
        return Err((
            "target",
            format!("target must be greater than 0 and less than interval ({}), got {}", interval, target),
        ));
    }
    Ok(())
}

/// CAKE's parameters, named after `tc qdisc ... cake` keywords.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CakeSpec {
    /// Shaper rate; without it CAKE does not shape (Linux `unlimited`, the default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Rate>,
    /// Expected round-trip time: the CoDel interval, with target = rtt / 20 (tc `rtt`).
    pub rtt: Duration,
    /// Flow and host isolation mode.
    pub isolation: CakeIsolation,
    /// DiffServ tin layout.
    pub tins: CakeTins,
    /// Bytes of framing per packet the shaper accounts for (may be negative), like tc
    /// `overhead`.
    pub overhead: i32,
    /// Minimum packet unit: shorter packets are accounted as this many bytes.
    pub mpu: u32,
    /// Mark ECN-capable packets instead of dropping them (Linux CAKE always does).
    pub ecn: bool,
    /// Buffer memory limit; by default 4 x bandwidth x rtt, at least 4 MiB, when shaped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<Bytes>,
}

impl Default for CakeSpec {
    fn default() -> Self {
        CakeSpec {
            bandwidth: None,
            rtt: Duration(100 * crate::sim::MS),
            isolation: CakeIsolation::TripleIsolate,
            tins: CakeTins::Diffserv3,
            overhead: 0,
            mpu: 0,
            ecn: true,
            memory_limit: None,
        }
    }
}

impl CakeSpec {
    fn check(&self) -> Result<(), (&'static str, String)> {
        if self.bandwidth.is_some_and(|b| b.0 < 8 * 64) {
            return Err((
                "bandwidth",
                "the shaper rate must be at least 512bit (64 bytes/s); leave it out for no shaping".into(),
            ));
        }
        if self.rtt.0 < 20 * crate::sim::NS {
            return Err(("rtt", "rtt must be at least 20ns (the target is rtt / 20)".into()));
        }
        if !(-64..=256).contains(&self.overhead) {
            return Err(("overhead", format!("overhead must be in [-64, 256] bytes, got {}", self.overhead)));
        }
        if self.mpu > 256 {
            return Err(("mpu", format!("mpu must be at most 256 bytes, got {}", self.mpu)));
        }
        if self.memory_limit.is_some_and(|m| m.0 == 0) {
            return Err(("memory_limit", "the memory limit must be greater than 0".into()));
        }
        Ok(())
    }
}

/// What CAKE isolates flows by (tc keywords); the dual and triple modes also share bandwidth
/// fairly between hosts.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum CakeIsolation {
    /// One queue for everything.
    Flowblind,
    Srchost,
    Dsthost,
    /// Source-destination host pairs.
    Hosts,
    /// 5-tuples, like fq_codel.
    Flows,
    /// Flows, and fairness between source hosts.
    DualSrchost,
    /// Flows, and fairness between destination hosts.
    DualDsthost,
    /// Flows, and fairness between source and between destination hosts.
    TripleIsolate,
}

/// CAKE's DiffServ tin layouts (tc keywords). Linux's `diffserv8` and `precedence` are not
/// modelled.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CakeTins {
    Besteffort,
    Diffserv3,
    Diffserv4,
}

pub fn default_pfifo_limit() -> u32 {
    1000
}
pub fn default_bfifo_limit() -> Bytes {
    Bytes(1000 * 1514)
}
pub fn default_codel_target() -> Duration {
    Duration(crate::qdisc::codel::DEFAULT_TARGET)
}
pub fn default_codel_interval() -> Duration {
    Duration(crate::qdisc::codel::DEFAULT_INTERVAL)
}
pub fn default_fq_codel_limit() -> u32 {
    10240
}
pub fn default_fq_codel_flows() -> u32 {
    1024
}
/// The MTU of an Ethernet device with its header, as Linux `psched_mtu`.
pub fn default_fq_codel_quantum() -> Bytes {
    Bytes(crate::qdisc::codel::MTU)
}
/// 32 MB in Linux's sense (32 << 20 bytes).
pub fn default_fq_codel_memory_limit() -> Bytes {
    Bytes(32 << 20)
}
pub fn default_fq_codel_drop_batch() -> u32 {
    64
}
pub fn default_xlayer_z() -> f64 {
    4.0
}
pub fn default_xlayer_k() -> f64 {
    3.0
}
/// Ended flows count towards the mean for 10 s (reproduction-targets.md P1.1).
pub fn default_xlayer_history() -> Duration {
    Duration(10 * crate::sim::SEC)
}
/// A flow idle for 2 s has ended (airlab does not model FIN).
pub fn default_xlayer_active_timeout() -> Duration {
    Duration(2 * crate::sim::SEC)
}
/// FQ-CoDel with every Linux default.
pub fn default_fq_codel() -> Box<QdiscSpec> {
    Box::new(QdiscSpec::FqCodel {
        limit: default_fq_codel_limit(),
        flows: default_fq_codel_flows(),
        quantum: default_fq_codel_quantum(),
        target: default_codel_target(),
        interval: default_codel_interval(),
        memory_limit: default_fq_codel_memory_limit(),
        ecn: true,
        ce_threshold: None,
        drop_batch: default_fq_codel_drop_batch(),
    })
}
fn default_true() -> bool {
    true
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// Node holding the route.
    pub at: String,
    /// Destination host.
    pub to: String,
    /// Next hop: a neighbour of `at`.
    pub via: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    /// Defaults to "flow<i>"; with `count > 1`, copies are named "<name>.<k>".
    #[serde(default)]
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    /// Congestion control for TCP apps (bulk, transfer, periodic); not allowed for udp/ping.
    #[serde(default)]
    pub cc: Option<String>,
    /// Algorithm parameters, checked by the algorithm itself.
    #[serde(default)]
    pub cc_params: BTreeMap<String, serde_json::Value>,
    pub app: App,
    #[serde(default)]
    pub start: Option<Duration>,
    /// Defaults to the scenario duration.
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Number of identical copies of this flow.
    #[serde(default = "default_count")]
    pub count: u32,
    #[serde(default)]
    pub tcp: TcpOptions,
}

pub fn default_count() -> u32 {
    1
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum App {
    /// iperf3-like: send as much as TCP allows from start to stop.
    Bulk,
    /// Send `size` bytes, then close; the flow completion time is recorded.
    Transfer { size: Bytes },
    /// Open a new connection every `period` carrying `size` bytes (MGEN-like).
    Periodic {
        size: Bytes,
        period: Duration,
        /// Random offset of the first connection, uniform in [0, random_start).
        #[serde(default)]
        random_start: Option<Duration>,
    },
    /// Constant-bit-rate UDP; without `rate`, saturates the sender's first hop.
    Udp {
        #[serde(default)]
        rate: Option<Rate>,
        #[serde(default = "default_udp_size")]
        packet_size: Bytes,
    },
    /// ping-like latency probe.
    Ping {
        #[serde(default = "default_ping_interval")]
        interval: Duration,
        #[serde(default = "default_ping_size")]
        size: Bytes,
    },
}

pub fn default_udp_size() -> Bytes {
    Bytes(1472)
}
pub fn default_ping_interval() -> Duration {
    Duration(100 * crate::sim::MS)
}
pub fn default_ping_size() -> Bytes {
    Bytes(64)
}

/// Per-flow TCP settings; defaults follow Linux.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpOptions {
    pub mss: u32,
    pub initial_cwnd: u32,
    /// Receiver delayed ACKs (every second full segment, 40 ms timer, quick ACKs at start).
    pub delayed_ack: bool,
    /// Receive window advertised by the receiver.
    pub rwnd: Bytes,
    /// Pace the sender (Linux internal pacing); congestion controls may require it.
    pub pacing: bool,
    /// Negotiate ECN (sender marks ECT(0), receiver echoes CE as ECE).
    pub ecn: bool,
    /// Minimum retransmission timeout.
    pub rto_min: Duration,
    /// `linux`: RTO = SRTT + max(4 RTTVAR, rto_min); `rfc6298`: max(SRTT + 4 RTTVAR, rto_min).
    pub rto_mode: RtoMode,
}

impl Default for TcpOptions {
    fn default() -> Self {
        TcpOptions {
            mss: 1448,
            initial_cwnd: 10,
            delayed_ack: true,
            rwnd: Bytes(64 * 1024 * 1024),
            pacing: false,
            ecn: false,
            rto_min: Duration(200 * crate::sim::MS),
            rto_mode: RtoMode::Linux,
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RtoMode {
    Linux,
    Rfc6298,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Metrics {
    /// Sampling period of the time series.
    pub interval: Duration,
    /// Ignore the first `warmup` when computing summary statistics of time series.
    pub warmup: Duration,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics { interval: Duration(100 * crate::sim::MS), warmup: Duration(0) }
    }
}

/// A Wi-Fi network (`[[wifi]]`): an infrastructure BSS (`ap` and `stations`) or an ad hoc/mesh
/// network (`nodes`, and optionally `peers`). Its PHY keys apply to every link of the network
/// unless a member's `[[wifi.node]]` table overrides them; `None` means the standard's default.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wifi {
    /// Defaults to "wifi<i>"; unique among Wi-Fi networks and links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub standard: Standard,
    /// The access point of an infrastructure BSS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ap: Option<String>,
    /// The stations of an infrastructure BSS; each exchanges frames with the AP only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stations: Option<Vec<String>>,
    /// The members of an ad hoc/mesh network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<String>>,
    /// Mesh only: the pairs that exchange frames; every pair when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peers: Option<Vec<[String; 2]>>,
    /// Carrier-sense graph (unordered pairs that hear each other); everyone hears everyone when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hears: Option<Vec<[String; 2]>>,
    /// Non-HT rate (802.11a only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcs: Option<u8>,
    /// Channel width in MHz.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u16>,
    /// Guard interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gi: Option<Duration>,
    /// Spatial streams (802.11ac/ax; 802.11n derives them from the MCS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nss: Option<u8>,
    /// Per-MPDU error probability, in [0, 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<f64>,
    /// RTS/CTS before every data frame.
    #[serde(default)]
    pub rts: bool,
    #[serde(default)]
    pub edca: WifiEdca,
    #[serde(default)]
    pub aggregation: WifiAggregation,
    /// The qdisc layer of every member's Wi-Fi interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdisc: Option<QdiscSpec>,
    /// The device layer of every member's Wi-Fi interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceSpec>,
    /// Per-member settings (`[[wifi.node]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node: Vec<WifiNode>,
}

/// The settings of one member of a Wi-Fi network (`[[wifi.node]]`), over the network's.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WifiNode {
    /// A member of the network.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcs: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gi: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nss: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per: Option<f64>,
    /// Layered key by key over the network's `aggregation`.
    #[serde(default)]
    pub aggregation: WifiAggregation,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qdisc: Option<QdiscSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceSpec>,
    /// PHY changes over time, of the links this table's PHY keys apply to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<WifiSchedule>,
}

/// A member's PHY over time (`schedule` in `[[wifi.node]]`): from each step's `at` on, the
/// step's PHY keys are layered over the member's own; before the first step the links keep
/// their PHY.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WifiSchedule {
    /// The steps repeat every `period`; without it they run once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<Duration>,
    /// At least one, in increasing order of `at`.
    pub steps: Vec<WifiScheduleStep>,
}

/// One step of a [`WifiSchedule`]: when it starts and the PHY keys it sets (none: back to
/// the links' own PHY).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WifiScheduleStep {
    /// Time from the start of the run, or of the period when there is one.
    pub at: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcs: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gi: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nss: Option<u8>,
}

/// EDCA parameters as written; missing ones take the best-effort defaults.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WifiEdca {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_min: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_max: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aifsn: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txop: Option<Duration>,
}

/// A-MPDU aggregation as written; missing keys take the next layer's value or the standard's
/// default.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WifiAggregation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_mpdus: Option<u32>,
    /// Bytes (a plain integer, like the 802.11 limits it is compared with).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_duration: Option<Duration>,
}

/// The PHY keys of a `[[wifi]]` entry or a `[[wifi.node]]` table, to layer them.
#[derive(Debug, Clone, Copy, Default)]
pub struct WifiPhyKeys {
    pub rate: Option<Rate>,
    pub mcs: Option<u8>,
    pub width: Option<u16>,
    pub gi: Option<Duration>,
    pub nss: Option<u8>,
    pub per: Option<f64>,
}

impl Wifi {
    pub fn phy_keys(&self) -> WifiPhyKeys {
        let (rate, mcs, width, gi, nss, per) = (self.rate, self.mcs, self.width, self.gi, self.nss, self.per);
        WifiPhyKeys { rate, mcs, width, gi, nss, per }
    }

    /// The members: the AP then the stations (a BSS), or `nodes` (ad hoc/mesh).
    pub fn members(&self) -> Vec<&str> {
        let ap = self.ap.iter();
        let listed = if self.ap.is_some() { &self.stations } else { &self.nodes };
        ap.chain(listed.iter().flatten()).map(String::as_str).collect()
    }

    /// The pairs that exchange frames, in order: the AP with each station; the mesh `peers`, or
    /// every pair of members in member order.
    pub fn pairs(&self) -> Vec<[&str; 2]> {
        if let Some(ap) = &self.ap {
            return self.stations.iter().flatten().map(|sta| [ap.as_str(), sta.as_str()]).collect();
        }
        if let Some(peers) = &self.peers {
            return peers.iter().map(|[a, b]| [a.as_str(), b.as_str()]).collect();
        }
        let members = self.members();
        let mut pairs = Vec::new();
        for (i, a) in members.iter().enumerate() {
            for b in &members[i + 1..] {
                pairs.push([*a, *b]);
            }
        }
        pairs
    }
}

impl WifiNode {
    pub fn phy_keys(&self) -> WifiPhyKeys {
        let (rate, mcs, width, gi, nss, per) = (self.rate, self.mcs, self.width, self.gi, self.nss, self.per);
        WifiPhyKeys { rate, mcs, width, gi, nss, per }
    }
}

impl WifiScheduleStep {
    /// The step's PHY keys (a step has no `per`).
    pub fn phy_keys(&self) -> WifiPhyKeys {
        let (rate, mcs, width, gi, nss) = (self.rate, self.mcs, self.width, self.gi, self.nss);
        WifiPhyKeys { rate, mcs, width, gi, nss, per: None }
    }
}
