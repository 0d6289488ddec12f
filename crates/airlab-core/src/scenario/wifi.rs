//! Wi-Fi networks in a scenario (`[[wifi]]`), resolved into the explicit form the MAC runs:
//! every member node with its interface settings, and every directed link with its PHY.

use crate::sim::Time;
use crate::wifi::channel::{Radio, Transceiver};
use crate::wifi::device;
use crate::wifi::net::{Aggregation, Edca};
use crate::wifi::ofdma::Ofdma;
use crate::wifi::phy::TxVector;
use crate::wifi::{error_model, propagation};
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

/// One member of a Wi-Fi network and the settings of its Wi-Fi interface.
#[derive(Debug, Clone, Serialize)]
pub struct ResolvedWifiNode {
    pub name: String,
    pub qdisc: crate::qdisc::Config,
    pub device: device::Config,
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
    /// The radio channel that places the links with `distance_m` or `snr_db`.
    pub channel: ResolvedChannel,
    pub edca: Edca,
    /// RTS/CTS before every data frame.
    pub rts: bool,
    /// Downlink OFDMA at the AP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ofdma: Option<Ofdma>,
    /// The hook at the AP (`ap_hook`), its hosts by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ap_hook: Option<crate::wifi::hook::Config>,
}

/// A network's radio channel (`channel`): its members' radios, the propagation loss between
/// them, and the error model of their receivers, written back as `channel = { tx_power_dbm =
/// ..., propagation = { kind = ... }, error_model = { kind = ... } }`.
#[derive(Debug, Clone, Serialize)]
pub struct ResolvedChannel {
    #[serde(flatten)]
    pub transceiver: Transceiver,
    pub propagation: propagation::Config,
    pub error_model: error_model::Config,
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
