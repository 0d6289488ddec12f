//! Wi-Fi networks in a scenario (`[[wifi]]`), resolved into the explicit form the MAC runs:
//! every member node with its interface settings, and every directed link with its PHY.

use super::units::{Bytes, Duration};
use crate::sim::Time;
use crate::wifi::channel::Radio;
use crate::wifi::mac80211::Mac80211Params;
use crate::wifi::net::{Aggregation, Edca};
use crate::wifi::ofdma::Ofdma;
use crate::wifi::phy::TxVector;
use crate::wifi::queues::DeviceLayer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// The 802.11 facts live with the PHY model; the scenario layer names them here too.
pub use crate::wifi::phy::standard::{
    check_phy, PhySpec, Standard, A_RATES_MBIT, MAX_AIFSN, MAX_CW, MAX_PPDU_DURATION, MAX_RETRY_LIMIT, MAX_TXOP,
};

/// 802.11ax multi-user OFDMA in a BSS (`ofdma = "off" | "dl" | "ul" | "both"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OfdmaMode {
    /// Single-user transmissions only (the default).
    Off,
    /// Downlink: the AP sends to several stations at once in HE MU PPDUs.
    Dl,
    /// Uplink: the AP triggers several stations to send at once in HE TB PPDUs.
    Ul,
    /// Both directions.
    Both,
}

/// The `device` table of a scenario: the device layer below a Wi-Fi interface's qdisc, where
/// `size` defaults to [`DEFAULT_DEVICE_SIZE`] and `airtime_fairness` to false (true for
/// mac80211, as Linux).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DeviceSpec {
    /// One driver FIFO of `size` packets for all destinations (legacy drivers), whose frames
    /// are dropped after `lifetime` in it (ns-3's WifiMacQueue MaxDelay), if given.
    Fifo {
        #[serde(default = "default_device_size")]
        size: u32,
        #[serde(default)]
        lifetime: Option<Duration>,
    },
    /// mac80211-style queues, one per destination of `size` packets each, served round robin,
    /// or by deficit round robin on airtime when `airtime_fairness`.
    PerStation {
        #[serde(default = "default_device_size")]
        size: u32,
        #[serde(default)]
        airtime_fairness: bool,
    },
    /// Linux's mac80211 layer (per-station FQ-CoDel TXQs, airtime fairness, AQL); every key
    /// defaults to Linux's value ([`Mac80211Params::LINUX`]).
    Mac80211 {
        target: Option<Duration>,
        interval: Option<Duration>,
        ecn: Option<bool>,
        flows: Option<u32>,
        quantum: Option<Bytes>,
        limit: Option<u32>,
        memory_limit: Option<Bytes>,
        aql_low: Option<Duration>,
        aql_high: Option<Duration>,
        aql_threshold: Option<Duration>,
        airtime_fairness: Option<bool>,
    },
}

impl DeviceSpec {
    pub fn layer(self) -> DeviceLayer {
        match self {
            DeviceSpec::Fifo { size, lifetime } => DeviceLayer::Fifo { size, lifetime: lifetime.map(|d| d.0) },
            DeviceSpec::PerStation { size, airtime_fairness } => DeviceLayer::PerStation { size, airtime_fairness },
            DeviceSpec::Mac80211 {
                target,
                interval,
                ecn,
                flows,
                quantum,
                limit,
                memory_limit,
                aql_low,
                aql_high,
                aql_threshold,
                airtime_fairness,
            } => {
                let d = Mac80211Params::LINUX;
                DeviceLayer::Mac80211(Mac80211Params {
                    target: target.map_or(d.target, |t| t.0),
                    interval: interval.map_or(d.interval, |t| t.0),
                    ecn: ecn.unwrap_or(d.ecn),
                    flows: flows.unwrap_or(d.flows),
                    quantum: quantum.map_or(d.quantum, |b| b.0 as u32),
                    limit: limit.unwrap_or(d.limit),
                    memory_limit: memory_limit.map_or(d.memory_limit, |b| b.0),
                    aql_low: aql_low.map_or(d.aql_low, |t| t.0),
                    aql_high: aql_high.map_or(d.aql_high, |t| t.0),
                    aql_threshold: aql_threshold.map_or(d.aql_threshold, |t| t.0),
                    airtime_fairness: airtime_fairness.unwrap_or(d.airtime_fairness),
                })
            }
        }
    }
}

/// Packets per device queue when a scenario does not say.
pub const DEFAULT_DEVICE_SIZE: u32 = 128;

fn default_device_size() -> u32 {
    DEFAULT_DEVICE_SIZE
}

/// One member of a Wi-Fi network and the settings of its Wi-Fi interface.
#[derive(Debug, Clone, Serialize)]
pub struct ResolvedWifiNode {
    pub name: String,
    #[serde(serialize_with = "super::components::serialize_qdisc")]
    pub qdisc: crate::qdisc::Config,
    pub device: DeviceLayer,
    pub aggregation: Aggregation,
}

/// A directed link `from -> to` inside a network.
#[derive(Debug, Clone, Serialize)]
pub struct ResolvedWifiLink {
    pub from: String,
    pub to: String,
    pub phy: PhySpec,
    /// Probability that an MPDU is received in error, independently per MPDU.
    pub per: f64,
    /// The receiver's channel (`distance_m` or `snr_db`); `None`: errors come from `per` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radio: Option<Radio>,
    /// PHY changes over time (`schedule` of the member whose PHY keys the link follows);
    /// `phy` applies before the first step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<ResolvedSchedule>,
}

/// A link's PHY over time: from each step's `at` on (from the start of the run, or of each
/// period), its PHY.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedSchedule {
    /// Steps repeat every `period`; `None`: they run once.
    pub period: Option<Time>,
    /// At least one, `at` strictly increasing and below `period`.
    pub steps: Vec<ResolvedStep>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ResolvedStep {
    pub at: Time,
    pub phy: PhySpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radio: Option<Radio>,
}

/// A Wi-Fi network: an infrastructure BSS (an AP and its stations) or an ad-hoc/mesh network.
#[derive(Debug, Clone, Serialize)]
pub struct ResolvedWifi {
    pub name: String,
    pub standard: Standard,
    /// The AP of an infrastructure BSS; `None` for ad hoc/mesh.
    pub ap: Option<String>,
    /// Members, the AP first.
    pub nodes: Vec<ResolvedWifiNode>,
    /// Both directions of every pair that exchange frames (BSS: AP <-> each station).
    pub links: Vec<ResolvedWifiLink>,
    /// Carrier-sense graph: pairs that hear each other. `None`: every member hears every other.
    pub hears: Option<Vec<[String; 2]>>,
    pub edca: Edca,
    /// RTS/CTS before every data frame.
    pub rts: bool,
    /// Downlink OFDMA at the AP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ofdma: Option<Ofdma>,
    /// The hook at the AP (`ap_hook`), its hosts by name.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "super::components::serialize_ap_hook")]
    pub ap_hook: Option<crate::wifi::hook::Config>,
}

/// The PHY settings of a scenario as the MAC uses them.
pub fn tx_vector(standard: Standard, phy: &PhySpec) -> TxVector {
    match standard {
        Standard::A => TxVector::non_ht((phy.rate_bps / 1_000_000) as u16),
        Standard::N => TxVector::ht(phy.mcs, phy.width_mhz, phy.gi_ns == 400),
        Standard::Ac => TxVector::vht(phy.mcs, phy.nss, phy.width_mhz, phy.gi_ns == 400),
        Standard::Ax => TxVector::he(phy.mcs, phy.nss, phy.width_mhz, phy.gi_ns),
    }
}
