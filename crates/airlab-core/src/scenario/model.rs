//! The scenario schema, defined once: these serde types are what a scenario file may say.
//! Quantities with units are parsed by the newtypes in [`super::units`].

use super::units::{Bytes, Duration, Rate};
use super::wifi::{OfdmaMode, Standard};
use crate::tcp::{self, rto, TcpConfig};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Simulated time to run.
    pub duration: Duration,
    /// Run seed, 0 to 2^64 - 1; the `seed` argument of a run overrides it. Seeds above
    /// 2^63 - 1, TOML's largest integer, are written as a string of digits.
    #[serde(default = "default_seed", deserialize_with = "seed")]
    #[schemars(with = "SeedSchema")]
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
    /// Median of the random time between a pure ACK reaching a host over a wired link and TCP
    /// acting on it (the path's and the stack's latency beyond the links' delays); a data
    /// segment takes twice as long at the median. Log-normal, measured on the testbed. It
    /// breaks the exact phase locking of a fully deterministic drop-tail queue; "0s" turns it
    /// off.
    #[serde(default = "default_host_jitter")]
    pub host_jitter: Duration,
}

pub fn default_seed() -> u64 {
    1
}

/// What a seed is expected to be, in every message about one.
const SEED_EXPECTED: &str = "a whole number from 0 to 18446744073709551615 (above 9223372036854775807, \
                             TOML's largest integer, written as a string: \"18446744073709551615\")";

/// A seed: an integer, or a string of decimal digits for the seeds TOML integers cannot hold
/// (`--set seed=18446744073709551615` reads as that string), as `--seed` takes them.
fn seed<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct Seed;
    impl serde::de::Visitor<'_> for Seed {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str(SEED_EXPECTED)
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u64, E> {
            let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
            v.parse().ok().filter(|_| digits).ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(v), &self))
        }
    }
    d.deserialize_any(Seed)
}

/// The schema of a seed: an integer, or a string of digits.
struct SeedSchema;

impl JsonSchema for SeedSchema {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Seed".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "Run seed, 0 to 2^64 - 1; above 2^63 - 1 written as a string of digits.",
            "anyOf": [
                { "type": "integer", "minimum": 0 },
                { "type": "string", "pattern": "^[0-9]{1,20}$" },
            ],
        })
    }
}

pub fn default_host_jitter() -> Duration {
    Duration(DEFAULT_HOST_JITTER)
}

/// Measured on the testbed (docs/models/tcp.md, "Timing noise"): two delay-line hops and the
/// sender's stack, from perf traces of a four-flow sharing cell.
pub const DEFAULT_HOST_JITTER: crate::sim::Time = 16 * crate::sim::US;
/// The longest host jitter a scenario may ask for.
pub const MAX_HOST_JITTER: crate::sim::Time = 10 * crate::sim::MS;

/// A point-to-point wired link. Settings at the top level apply to both directions;
/// `forward` (between[0] -> between[1]) and `reverse` override them per direction.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkDirection {
    pub rate: Option<Rate>,
    pub delay: Option<Duration>,
    /// Probability that a packet is lost on the wire, independently per packet, in [0, 1).
    pub loss: Option<f64>,
    /// Bytes of link-layer framing added to each packet's IP length when serializing.
    pub overhead: Option<u32>,
    /// The qdisc layer of the egress interface feeding this direction (`kind` and the
    /// parameters the qdisc declares; read in resolution).
    #[schemars(with = "Option<super::component_schema::KindTable<crate::qdisc::Build>>")]
    pub qdisc: Option<toml::Table>,
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
    pub qdisc: crate::qdisc::Config,
    pub device_queue: u32,
    pub device_queue_bytes: Option<Bytes>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Route {
    /// Node holding the route.
    pub at: String,
    /// Destination host.
    pub to: String,
    /// Next hop: a neighbour of `at`.
    pub via: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Flow {
    /// Defaults to "flow<i>"; with `count > 1`, copies are named "<name>.<k>".
    #[serde(default)]
    pub name: Option<String>,
    pub from: Senders,
    pub to: String,
    /// Congestion control for TCP apps (bulk, transfer, periodic); not allowed for udp/ping.
    #[serde(default)]
    #[schemars(with = "Option<super::component_schema::CcName>")]
    pub cc: Option<String>,
    /// Parameters of the congestion control, as it declares them; read in resolution.
    #[serde(default)]
    #[schemars(with = "super::component_schema::CcParams")]
    pub cc_params: toml::Table,
    /// What the flow sends: `kind` and the parameters the app declares; read in resolution.
    #[schemars(with = "super::component_schema::KindTable<crate::app::Build>")]
    pub app: toml::Table,
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
    /// DSCP of the packets the flow's sender sends (its socket's IP_TOS >> 2), 0 to 63.
    #[serde(default, deserialize_with = "dscp")]
    #[schemars(range(max = 63))]
    pub dscp: u8,
}

pub fn default_count() -> u32 {
    1
}

/// The largest DSCP: the 6 bits of the DS field.
pub const MAX_DSCP: u8 = 63;

/// A DSCP, 0 to [`MAX_DSCP`], with that range in the message for any other number.
fn dscp<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    struct Dscp;
    impl serde::de::Visitor<'_> for Dscp {
        type Value = u8;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a DSCP, a whole number from 0 to {MAX_DSCP} (the 6 bits of the DS field)")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u8, E> {
            u8::try_from(v)
                .ok()
                .filter(|&v| v <= MAX_DSCP)
                .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u8, E> {
            match u64::try_from(v) {
                Ok(v) => self.visit_u64(v),
                Err(_) => Err(E::invalid_value(serde::de::Unexpected::Signed(v), &self)),
            }
        }
    }
    d.deserialize_u64(Dscp)
}

/// A flow's sender: one host, or a list the copies take in turn (copy k from the k-th, cycling),
/// so `count` picks how many of a set of devices send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Senders {
    One(String),
    Many(Vec<String>),
}

/// Reads a host name or a list of host names, and says so for anything else (serde's untagged
/// enums only say that no variant matched).
impl<'de> Deserialize<'de> for Senders {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Senders;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a host name or a list of host names, such as \"h1\" or [\"h1\", \"h2\"]")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Senders, E> {
                Ok(Senders::One(v.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Senders, A::Error> {
                let mut hosts = Vec::new();
                while let Some(HostName(host)) = seq.next_element()? {
                    hosts.push(host);
                }
                Ok(Senders::Many(hosts))
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// One entry of a list of senders.
struct HostName(String);

impl<'de> Deserialize<'de> for HostName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = HostName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a host name such as \"h1\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HostName, E> {
                Ok(HostName(v.to_string()))
            }
        }
        d.deserialize_str(Visitor)
    }
}

impl Senders {
    pub fn hosts(&self) -> &[String] {
        match self {
            Senders::One(h) => std::slice::from_ref(h),
            Senders::Many(hs) => hs,
        }
    }

    /// The sender of copy `k` (from 0).
    pub fn of_copy(&self, k: usize) -> &str {
        let hosts = self.hosts();
        &hosts[k % hosts.len()]
    }
}

/// Per-flow TCP settings of the sending and receiving host stacks. `profile` names a Linux
/// whose defaults fill every key not given.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TcpOptions {
    pub profile: Profile,
    pub mss: Option<u32>,
    pub initial_cwnd: Option<u32>,
    /// Receiver delayed ACKs as Linux (`tcp/delack.rs`): every second full segment or an adaptive
    /// timer; quick ACKs at start, after a silence longer than the RTO and after duplicates.
    pub delayed_ack: Option<bool>,
    /// SACK compression (Linux 4.18+): ACKs of out-of-order data after the third held up to
    /// min(1 ms, RTT/20).
    pub sack_compression: Option<bool>,
    /// A fixed receive window (as SO_RCVBUF, which turns autotuning off).
    pub rwnd: Option<Bytes>,
    /// Linux `tcp_rmem` and `tcp_wmem`: [min, default, max] buffer sizes.
    pub rmem: Option<[Bytes; 3]>,
    pub wmem: Option<[Bytes; 3]>,
    /// Pace the sender (Linux internal pacing); congestion controls may require it.
    pub pacing: Option<bool>,
    /// Negotiate ECN (sender marks ECT(0), receiver echoes CE as ECE).
    pub ecn: Option<bool>,
    /// Minimum retransmission timeout.
    pub rto_min: Option<Duration>,
    /// `linux`: RTO = SRTT + max(4 RTTVAR, rto_min); `rfc6298`: max(SRTT + 4 RTTVAR, rto_min).
    pub rto_mode: Option<RtoMode>,
    /// `rack-tlp` (Linux 4.18+): RACK loss detection and tail loss probes; `rfc6675`: three
    /// SACKed segments above a hole, no probes (Linux before 4.4).
    pub recovery: Option<LossDetection>,
    /// F-RTO (RFC 5682): detect spurious retransmission timeouts and undo them.
    pub frto: Option<bool>,
    /// TCP Small Queues: keep about 1 ms of the pacing rate (8 ms over Wi-Fi) in the host.
    pub small_queues: Option<bool>,
    /// Linux `tcp_limit_output_bytes`: cap on those bytes for unpaced sockets.
    pub limit_output_bytes: Option<Bytes>,
    /// The kernel's `CONFIG_HZ`: the retransmission and delayed-ACK timers fire on its ticks
    /// (100, 250, 300 or 1000; 0 fires them at their exact deadlines).
    pub timer_hz: Option<u32>,
}

/// The Linux whose TCP defaults a flow takes (see docs/models/tcp.md).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// Linux 6.x, as the testbed's kernel: RACK-TLP, F-RTO, TSQ, 4 MiB output limit, rmem up
    /// to 32 MiB.
    #[default]
    #[serde(rename = "linux-6")]
    Linux6,
    /// Linux 3.3 (paper 002's hosts): RFC 6675 recovery without RACK or TLP, F-RTO, no TCP
    /// Small Queues (3.6) or SACK compression (4.18), rmem up to 6 MiB.
    #[serde(rename = "linux-3.3")]
    Linux33,
    /// ns-3's `TcpSocketBase` (3.36-3.41) with its attribute defaults: 536-byte segments,
    /// 128 KiB buffers, an ACK every second segment or after 200 ms, RTO at least 1 s,
    /// RFC 6675 loss marking, no RACK, TLP, F-RTO or undo, no TSQ, exact timers.
    #[serde(rename = "ns-3")]
    Ns3,
}

/// ns-3's `SndBufSize` and `RcvBufSize` defaults (bytes): without autotuning, the receive
/// buffer is the window, and a bulk sender's full send buffer bounds the same flight.
pub const NS3_SOCKET_BUFFER: u64 = 131072;

impl Profile {
    pub fn config(self) -> TcpConfig {
        let linux6 = TcpConfig::default();
        match self {
            Profile::Linux6 => linux6,
            Profile::Linux33 => TcpConfig {
                recovery: tcp::LossDetection::Rfc6675,
                small_queues: false,
                sack_compression: false,
                rmem: tcp::RMEM_LINUX_3,
                window_ratio: tcp::WINDOW_RATIO_ADV_WIN_SCALE_1,
                ..linux6
            },
            Profile::Ns3 => TcpConfig {
                mss: 536,
                sack_compression: false,
                rwnd: Some(NS3_SOCKET_BUFFER),
                rto_min: crate::sim::SEC,
                rto_mode: rto::RtoMode::Rfc6298,
                recovery: tcp::LossDetection::Rfc6675,
                frto: false,
                small_queues: false,
                jiffies: tcp::jiffies::Jiffies::new(0),
                stack: tcp::Stack::Ns3,
                ..linux6
            },
        }
    }
}

impl TcpOptions {
    /// Every key written out with the value it takes (for the resolved scenario).
    pub fn filled(&self) -> TcpOptions {
        let c = self.config();
        let bytes = |b: [u64; 3]| [Bytes(b[0]), Bytes(b[1]), Bytes(b[2])];
        TcpOptions {
            profile: self.profile,
            mss: Some(c.mss),
            initial_cwnd: Some(c.initial_cwnd),
            delayed_ack: Some(c.delayed_ack),
            sack_compression: Some(c.sack_compression),
            rwnd: c.rwnd.map(Bytes),
            rmem: Some(bytes(c.rmem)),
            wmem: Some(bytes(c.wmem)),
            pacing: Some(c.pacing),
            ecn: Some(c.ecn),
            rto_min: Some(Duration(c.rto_min)),
            rto_mode: Some(match c.rto_mode {
                rto::RtoMode::Linux => RtoMode::Linux,
                rto::RtoMode::Rfc6298 => RtoMode::Rfc6298,
            }),
            recovery: Some(match c.recovery {
                tcp::LossDetection::RackTlp => LossDetection::RackTlp,
                tcp::LossDetection::Rfc6675 => LossDetection::Rfc6675,
            }),
            frto: Some(c.frto),
            small_queues: Some(c.small_queues),
            limit_output_bytes: Some(Bytes(c.limit_output_bytes)),
            timer_hz: Some(c.jiffies.hz()),
        }
    }

    /// The settings as the TCP sockets take them: the profile's, with the keys given.
    pub fn config(&self) -> TcpConfig {
        let mut c = self.profile.config();
        let bytes = |b: [Bytes; 3]| [b[0].0, b[1].0, b[2].0];
        c.mss = self.mss.unwrap_or(c.mss);
        c.initial_cwnd = self.initial_cwnd.unwrap_or(c.initial_cwnd);
        c.delayed_ack = self.delayed_ack.unwrap_or(c.delayed_ack);
        c.sack_compression = self.sack_compression.unwrap_or(c.sack_compression);
        c.rwnd = self.rwnd.map(|b| b.0).or(c.rwnd);
        c.rmem = self.rmem.map(bytes).unwrap_or(c.rmem);
        c.wmem = self.wmem.map(bytes).unwrap_or(c.wmem);
        c.pacing = self.pacing.unwrap_or(c.pacing);
        c.ecn = self.ecn.unwrap_or(c.ecn);
        c.rto_min = self.rto_min.map_or(c.rto_min, |d| d.0);
        c.rto_mode = self.rto_mode.map_or(c.rto_mode, |m| match m {
            RtoMode::Linux => rto::RtoMode::Linux,
            RtoMode::Rfc6298 => rto::RtoMode::Rfc6298,
        });
        c.recovery = self.recovery.map_or(c.recovery, |r| match r {
            LossDetection::RackTlp => tcp::LossDetection::RackTlp,
            LossDetection::Rfc6675 => tcp::LossDetection::Rfc6675,
        });
        c.frto = self.frto.unwrap_or(c.frto);
        c.small_queues = self.small_queues.unwrap_or(c.small_queues);
        c.limit_output_bytes = self.limit_output_bytes.map_or(c.limit_output_bytes, |b| b.0);
        c.jiffies = self.timer_hz.map_or(c.jiffies, tcp::jiffies::Jiffies::new);
        c
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LossDetection {
    RackTlp,
    Rfc6675,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoMode {
    Linux,
    Rfc6298,
}

#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Metrics {
    /// Sampling period of the time series.
    pub interval: Duration,
    /// Ignore the first `warmup` when computing summary statistics of time series.
    pub warmup: Duration,
    /// Cut the run into batches of delivered packets and end it after the last.
    pub batches: Option<BatchSpec>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics { interval: Duration(100 * crate::sim::MS), warmup: Duration(0), batches: None }
    }
}

/// `[metrics] batches`: batch means by delivered data packets.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchSpec {
    /// Data packets delivered per batch (all flows together).
    pub packets: u64,
    /// Batches: the run ends when the last is complete, or at `duration`.
    pub count: u32,
    /// Leading batches the batch means leave out.
    #[serde(default = "default_discard")]
    pub discard: u32,
    /// Count only these flows' packets (a name, or a flow's base name for all its copies);
    /// empty: every flow's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flows: Vec<String>,
}

fn default_discard() -> u32 {
    1
}

/// Declares a table of the scenario that also takes the PHY keys of a Wi-Fi link, between
/// its own keys `{ before }` and `{ after }`, and its `phy_keys()`. serde cannot flatten
/// shared keys into a table that refuses unknown ones (`deny_unknown_fields`), so they are
/// written once here.
macro_rules! with_phy_keys {
    ($(#[$meta:meta])* pub struct $name:ident { $($before:tt)* } { $($after:tt)* }) => {
        $(#[$meta])*
        pub struct $name {
            $($before)*
        /// Non-HT rate (802.11a only).
        pub rate: Option<Rate>,
        pub mcs: Option<u8>,
        /// Channel width in MHz.
        pub width: Option<u16>,
        /// Guard interval.
        pub gi: Option<Duration>,
        /// Spatial streams (802.11ac/ax; 802.11n derives them from the MCS).
        pub nss: Option<u8>,
        /// Per-MPDU error probability, in [0, 1).
        pub per: Option<f64>,
        /// Distance between the link's ends, in metres (the SNR follows from `channel`).
        pub distance_m: Option<f64>,
        /// The receiver's SNR over the channel width, in dB (instead of a distance).
        pub snr_db: Option<f64>,
        /// "fixed" (the `mcs`/`rate` keys) or "ideal" (the fastest the SNR allows), or a table of
        /// a rate control's `kind` and parameters (read in resolution).
        #[schemars(with = "Option<super::component_schema::NameOrTable<crate::wifi::rate::Build>>")]
        pub rate_control: Option<toml::Value>,
            $($after)*
        }

        impl $name {
            /// Its PHY keys, to layer them over other tables'.
            pub fn phy_keys(&self) -> WifiPhyKeys {
                WifiPhyKeys {
                    rate: self.rate,
                    mcs: self.mcs,
                    width: self.width,
                    gi: self.gi,
                    nss: self.nss,
                    per: self.per,
                    distance_m: self.distance_m,
                    snr_db: self.snr_db,
                    rate_control: self.rate_control.clone(),
                }
            }
        }
    };
}

with_phy_keys! {
/// A Wi-Fi network (`[[wifi]]`): an infrastructure BSS (`ap` and `stations`) or an ad hoc/mesh
/// network (`nodes`, and optionally `peers`). Its PHY keys apply to every link of the network
/// unless a member's `[[wifi.node]]` table overrides them; `None` means the standard's default.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Wifi {
    /// Defaults to "wifi<i>"; unique among Wi-Fi networks and links.
    pub name: Option<String>,
    pub standard: Standard,
    /// The access point of an infrastructure BSS.
    pub ap: Option<String>,
    /// The stations of an infrastructure BSS; each exchanges frames with the AP only.
    pub stations: Option<Vec<String>>,
    /// The members of an ad hoc/mesh network.
    pub nodes: Option<Vec<String>>,
    /// Mesh only: the pairs that exchange frames; every pair when absent.
    pub peers: Option<Vec<[String; 2]>>,
    /// Carrier-sense graph (unordered pairs that hear each other); everyone hears everyone when
    /// absent.
    pub hears: Option<Vec<[String; 2]>>,
    }
    {
    /// The network's radio channel: radios, propagation loss and error model (ns-3's defaults).
    pub channel: Option<WifiChannel>,
    /// RTS/CTS before every data frame.
    #[serde(default)]
    pub rts: bool,
    /// "off" (default) or, in an 802.11ax BSS, "dl": the AP sends to several stations in one
    /// HE MU PPDU.
    pub ofdma: Option<OfdmaMode>,
    /// The most stations in one DL MU PPDU or uplink trigger (ns-3's `NStations`, 4 by default).
    pub ofdma_stations: Option<u32>,
    /// Who shares each MU PPDU and trigger: a scheduler's name ("round_robin", the default,
    /// "proportional_fair" or "airtime_fair") or a table of its `kind` and parameters (read in
    /// resolution).
    #[schemars(with = "Option<super::component_schema::NameOrTable<crate::wifi::ofdma::sched::Build>>")]
    pub ofdma_scheduler: Option<toml::Value>,
    /// Uplink OFDMA: start every trigger cycle with a Buffer Status Report Poll (default true).
    pub ofdma_bsrp: Option<bool>,
    /// Uplink OFDMA: the AP also polls its stations this often (none by default).
    pub ofdma_poll_interval: Option<Duration>,
    /// Uplink OFDMA: random-access RUs in every Basic Trigger (none by default).
    pub uora: Option<WifiUora>,
    /// Uplink OFDMA: the MU EDCA parameter set the AP advertises (none by default).
    pub mu_edca: Option<WifiMuEdca>,
    /// A hook at the AP that sees the packets it forwards: `{ kind = "airtime_telemetry", ... }`
    /// accounts its stations' airtime and writes it into their packets (paper 004).
    #[schemars(with = "Option<super::component_schema::KindTable<crate::wifi::hook::Build>>")]
    pub ap_hook: Option<toml::Table>,
    #[serde(default)]
    pub edca: WifiEdca,
    #[serde(default)]
    pub aggregation: WifiAggregation,
    /// The qdisc layer of every member's Wi-Fi interface.
    #[schemars(with = "Option<super::component_schema::KindTable<crate::qdisc::Build>>")]
    pub qdisc: Option<toml::Table>,
    /// The device layer of every member's Wi-Fi interface: a table of its `kind` and
    /// parameters (read in resolution).
    #[schemars(with = "Option<super::component_schema::KindTable<crate::wifi::device::Build>>")]
    pub device: Option<toml::Table>,
    /// Per-member settings (`[[wifi.node]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node: Vec<WifiNode>,
}
}

with_phy_keys! {
/// The settings of one member of a Wi-Fi network (`[[wifi.node]]`), over the network's.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiNode {
    /// A member of the network.
    pub name: String,
    }
    {
    /// Layered key by key over the network's `aggregation`.
    #[serde(default)]
    pub aggregation: WifiAggregation,
    #[schemars(with = "Option<super::component_schema::KindTable<crate::qdisc::Build>>")]
    pub qdisc: Option<toml::Table>,
    #[schemars(with = "Option<super::component_schema::KindTable<crate::wifi::device::Build>>")]
    pub device: Option<toml::Table>,
    /// PHY changes over time, of the links this table's PHY keys apply to.
    pub schedule: Option<WifiSchedule>,
}
}

/// A member's PHY over time (`schedule` in `[[wifi.node]]`): from each step's `at` on, the
/// step's PHY keys are layered over the member's own; before the first step the links keep
/// their PHY.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiSchedule {
    /// The steps repeat every `period`; without it they run once.
    pub period: Option<Duration>,
    /// At least one, in increasing order of `at`.
    pub steps: Vec<WifiScheduleStep>,
}

/// One step of a [`WifiSchedule`]: when it starts and the PHY keys it sets (none: back to
/// the links' own PHY). A step has no `per` or `rate_control`: those stay the member's.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiScheduleStep {
    /// Time from the start of the run, or of the period when there is one.
    pub at: Duration,
    pub rate: Option<Rate>,
    pub mcs: Option<u8>,
    pub width: Option<u16>,
    pub gi: Option<Duration>,
    pub nss: Option<u8>,
    /// A station that moves: its distance, or its SNR, from this step on.
    pub distance_m: Option<f64>,
    pub snr_db: Option<f64>,
}

impl WifiScheduleStep {
    /// The step's PHY keys.
    pub fn phy_keys(&self) -> WifiPhyKeys {
        let (rate, mcs, width, gi, nss) = (self.rate, self.mcs, self.width, self.gi, self.nss);
        let (distance_m, snr_db) = (self.distance_m, self.snr_db);
        WifiPhyKeys { rate, mcs, width, gi, nss, distance_m, snr_db, ..WifiPhyKeys::default() }
    }
}

/// The radio channel of a network as written; missing keys take ns-3's defaults. The
/// transmit power, noise figure and detection thresholds are the members' radios'; the path
/// between them is `propagation`'s, and which bits arrive at an SNR `error_model`'s.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiChannel {
    pub tx_power_dbm: Option<f64>,
    pub noise_figure_db: Option<f64>,
    pub detection_rssi_dbm: Option<f64>,
    pub detection_snr_db: Option<f64>,
    /// The propagation loss model: "log_distance" (the default, with ns-3's numbers) or a table
    /// of a model's `kind` and parameters (read in resolution).
    #[schemars(with = "Option<super::component_schema::NameOrTable<crate::wifi::propagation::Build>>")]
    pub propagation: Option<toml::Value>,
    /// The error rate model: "nist" (the default) or a table of a model's `kind` and parameters
    /// (read in resolution).
    #[schemars(with = "Option<super::component_schema::NameOrTable<crate::wifi::error_model::Build>>")]
    pub error_model: Option<toml::Value>,
}

/// EDCA parameters as written; missing ones take the best-effort defaults.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiEdca {
    pub cw_min: Option<u32>,
    pub cw_max: Option<u32>,
    pub aifsn: Option<u32>,
    pub retry_limit: Option<u32>,
    pub txop: Option<Duration>,
}

/// UL OFDMA random access as written; missing keys take one RA-RU and the default OFDMA
/// contention window (OCW 7-31).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiUora {
    pub ra_rus: Option<u32>,
    pub ocw_min: Option<u32>,
    pub ocw_max: Option<u32>,
}

/// The MU EDCA parameter set as written; missing keys take OpenWrt's best-effort values
/// (AIFSN 8, CWmin 511, CWmax 1023, timer 2088.96 ms).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiMuEdca {
    pub aifsn: Option<u32>,
    pub cw_min: Option<u32>,
    pub cw_max: Option<u32>,
    pub timer: Option<Duration>,
}

/// A-MPDU aggregation as written; missing keys take the next layer's value or the standard's
/// default.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiAggregation {
    pub enabled: Option<bool>,
    pub max_mpdus: Option<u32>,
    /// Bytes (a plain integer, like the 802.11 limits it is compared with).
    pub max_bytes: Option<u32>,
    pub max_duration: Option<Duration>,
}

/// The PHY keys of a `[[wifi]]` entry or a `[[wifi.node]]` table, to layer them.
#[derive(Debug, Clone, Default)]
pub struct WifiPhyKeys {
    pub rate: Option<Rate>,
    pub mcs: Option<u8>,
    pub width: Option<u16>,
    pub gi: Option<Duration>,
    pub nss: Option<u8>,
    pub per: Option<f64>,
    pub distance_m: Option<f64>,
    pub snr_db: Option<f64>,
    pub rate_control: Option<toml::Value>,
}

impl Wifi {
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
