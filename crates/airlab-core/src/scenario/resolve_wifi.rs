//! `[[wifi]]` networks: structural and parameter checks, and resolution into the explicit
//! [`ResolvedWifi`] form (every member with its interface, every directed link with its PHY).
//!
//! Checks run on each table as written (the network's and each `[[wifi.node]]`), so that an
//! error names the key where the offending value is, even when another layer shadows it; the
//! PHY of each link is then checked as a whole, for combinations that no single key decides.

use super::components;
use super::limits::{check_name, MAX_LINKS, MAX_TELEMETRY_HEADER, MAX_TIMESLOT, MIN_PERIOD, MIN_QUANTUM};
use super::model::*;
use super::resolve::{Nodes, DEFAULT_QDISC, MAX_DEVICE_QUEUE};
use super::units::{Bytes, Duration, Rate};
use super::wifi::*;
use super::KeyError;
use crate::qdisc;
use crate::sim::{Time, US};
use crate::wifi::channel::{Propagation, Radio};
use crate::wifi::mac80211::Mac80211Params;
use crate::wifi::net::{Aggregation, Edca};
use crate::wifi::ofdma::{MuEdca, Ofdma, UlOfdma, Uora};
use crate::wifi::queues::DeviceLayer;
use crate::wifi::telemetry::Timeslot;
use std::collections::{BTreeMap, BTreeSet};

/// Non-HT (802.11a) rates in Mbit/s.
pub const A_RATES_MBIT: [u64; 8] = [6, 9, 12, 18, 24, 36, 48, 54];
/// aPPDUMaxTime: the longest HT-mixed, VHT or HE PPDU.
pub const MAX_PPDU_DURATION: Time = 5_484 * US;
/// The largest contention window the 4-bit ECWmin/ECWmax fields express (2^15 - 1).
pub const MAX_CW: u32 = 32_767;
/// The largest AIFSN (a 4-bit field).
pub const MAX_AIFSN: u32 = 15;
/// dot11ShortRetryLimit is 1 to 255.
pub const MAX_RETRY_LIMIT: u32 = 255;
/// The TXOP limit field counts units of 32 us in 8 bits.
/// Bounds that let a Wi-Fi event fit the engine's 8-byte event (`wifi::net::WifiEvent::pack`).
const MAX_NETWORKS: usize = crate::wifi::net::MAX_NETWORKS;
const MAX_MEMBERS: usize = u16::MAX as usize;
const MAX_STEPS: usize = u16::MAX as usize;

pub const MAX_TXOP: Time = 255 * 32 * US;
/// The largest non-HT PSDU (aPSDUMaxLength of 802.11a).
const MAX_NON_HT_PSDU: u32 = 4_095;

impl Standard {
    /// "802.11n", for messages.
    pub fn label(self) -> &'static str {
        match self {
            Standard::A => "802.11a",
            Standard::N => "802.11n",
            Standard::Ac => "802.11ac",
            Standard::Ax => "802.11ax",
        }
    }

    /// MPDUs a Block Ack agreement covers: the most one A-MPDU may carry (1 for 802.11a,
    /// which does not aggregate).
    pub fn block_ack_window(self) -> u32 {
        match self {
            Standard::A => 1,
            Standard::N | Standard::Ac => 64,
            Standard::Ax => 256,
        }
    }

    /// The longest A-MPDU in bytes (for 802.11a, the longest PSDU).
    pub fn max_ampdu_bytes(self) -> u32 {
        match self {
            Standard::A => MAX_NON_HT_PSDU,
            Standard::N => 65_535,
            Standard::Ac => 1_048_575,
            Standard::Ax => 6_500_631,
        }
    }

    /// The PHY of a link that sets nothing: 54 Mbit/s for 802.11a, else MCS 7, one spatial
    /// stream, 20 MHz, 800 ns guard interval.
    pub fn default_phy(self) -> PhySpec {
        let rate_bps = if self == Standard::A { 54_000_000 } else { 0 };
        let mcs = if self == Standard::A { 0 } else { 7 };
        PhySpec { rate_bps, mcs, nss: 1, width_mhz: 20, gi_ns: 800 }
    }

    /// The fastest PHY of one stream at 20 MHz: what ideal rate control may pick from when
    /// no `mcs` or `rate` caps it.
    fn fastest_phy(self) -> PhySpec {
        let d = self.default_phy();
        match self {
            Standard::A => PhySpec { rate_bps: 54_000_000, ..d },
            Standard::N => PhySpec { mcs: 7, ..d },
            Standard::Ac | Standard::Ax => PhySpec { mcs: self.max_mcs(), ..d },
        }
    }

    /// Aggregation of an interface that sets nothing: on, up to the Block Ack window and the
    /// longest A-MPDU, in PPDUs of at most 5.484 ms (off for 802.11a).
    pub fn default_aggregation(self) -> Aggregation {
        Aggregation {
            enabled: self != Standard::A,
            max_mpdus: self.block_ack_window(),
            max_bytes: self.max_ampdu_bytes(),
            max_duration: MAX_PPDU_DURATION,
        }
    }

    fn widths(self) -> &'static [u16] {
        match self {
            Standard::A => &[20],
            Standard::N => &[20, 40],
            Standard::Ac | Standard::Ax => &[20, 40, 80, 160],
        }
    }

    fn guard_intervals_ns(self) -> &'static [u64] {
        match self {
            Standard::A => &[800],
            Standard::N | Standard::Ac => &[800, 400],
            Standard::Ax => &[800, 1600, 3200],
        }
    }

    fn max_mcs(self) -> u8 {
        match self {
            Standard::A => 0,
            Standard::N => 31,
            Standard::Ac => 9,
            Standard::Ax => 11,
        }
    }
}

impl ResolvedWifi {
    pub fn node(&self, name: &str) -> Option<&ResolvedWifiNode> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// The directed link `from -> to`, if the two exchange frames.
    pub fn link(&self, from: &str, to: &str) -> Option<&ResolvedWifiLink> {
        self.links.iter().find(|l| l.from == from && l.to == to)
    }

    /// True if two different members hear each other's transmissions (carrier sense).
    pub fn hears_each_other(&self, a: &str, b: &str) -> bool {
        if a == b || self.node(a).is_none() || self.node(b).is_none() {
            return false;
        }
        match &self.hears {
            None => true,
            Some(pairs) => pairs.iter().any(|[x, y]| (x == a && y == b) || (x == b && y == a)),
        }
    }
}

/// Checks a directed link's PHY against its standard: every value in range, and a valid
/// combination. On error, the PHY key to blame (`rate`, `mcs`, `width`, `gi`, `nss`) and what
/// was expected. Combinations are blamed on `mcs`, the key most often changed.
pub fn check_phy(standard: Standard, phy: &PhySpec) -> Result<(), (&'static str, String)> {
    let std = standard.label();
    if standard == Standard::A {
        check_rate(standard, phy.rate_bps).map_err(|m| ("rate", m))?;
        if phy.mcs != 0 {
            return Err(("mcs", format!("{std} has no MCS (it is 0 in the resolved PHY), got {}", phy.mcs)));
        }
    } else {
        if phy.rate_bps != 0 {
            return Err(("rate", format!("{std} sets `mcs`, not a non-HT rate (0 in the resolved PHY)")));
        }
        check_mcs(standard, phy.mcs).map_err(|m| ("mcs", m))?;
    }
    check_width(standard, phy.width_mhz).map_err(|m| ("width", m))?;
    check_gi(standard, u64::from(phy.gi_ns)).map_err(|m| ("gi", m))?;
    match standard {
        Standard::A if phy.nss != 1 => {
            return Err(("nss", format!("{std} sends one spatial stream, got nss = {}", phy.nss)))
        }
        Standard::N if phy.nss != phy.mcs / 8 + 1 => {
            return Err((
                "nss",
                format!(
                    "HT MCS {} has {} spatial stream(s) (nss = mcs / 8 + 1), got nss = {}",
                    phy.mcs,
                    phy.mcs / 8 + 1,
                    phy.nss
                ),
            ))
        }
        Standard::Ac | Standard::Ax => check_nss(standard, phy.nss).map_err(|m| ("nss", m))?,
        _ => {}
    }
    if standard == Standard::Ac {
        check_vht_combination(phy).map_err(|m| ("mcs", m))?;
    }
    Ok(())
}

/// 802.11ac leaves out the MCS, width and stream combinations whose bits do not divide evenly
/// among OFDM symbols and encoders (IEEE 802.11-2016, 21.5).
fn check_vht_combination(phy: &PhySpec) -> Result<(), String> {
    let (mcs, width, nss) = (phy.mcs, phy.width_mhz, phy.nss);
    let valid = match (mcs, width) {
        (9, 20) => nss == 3 || nss == 6,
        (6, 80) => nss != 3 && nss != 7,
        (9, 80) => nss != 6,
        (9, 160) => nss != 3,
        _ => true,
    };
    if valid {
        return Ok(());
    }
    let hint = if (mcs, width) == (9, 20) { " (at 20 MHz, MCS 9 needs nss = 3 or 6)" } else { "" };
    Err(format!(
        "VHT MCS {mcs} is not defined at {width} MHz with {nss} spatial stream(s){hint}; \
         choose another MCS, width or nss"
    ))
}

fn check_rate(standard: Standard, bps: u64) -> Result<(), String> {
    if bps.is_multiple_of(1_000_000) && A_RATES_MBIT.contains(&(bps / 1_000_000)) {
        return Ok(());
    }
    let rates = A_RATES_MBIT.map(|r| r.to_string()).join(", ");
    Err(format!("{} rates are {rates} Mbit/s, got {}", standard.label(), Rate(bps)))
}

fn check_mcs(standard: Standard, mcs: u8) -> Result<(), String> {
    let max = standard.max_mcs();
    if mcs <= max {
        return Ok(());
    }
    let streams = if standard == Standard::N { " (0-7: 1 spatial stream, 8-15: 2, 16-23: 3, 24-31: 4)" } else { "" };
    Err(format!("mcs must be 0 to {max} for {}{streams}, got {mcs}", standard.label()))
}

fn check_width(standard: Standard, width: u16) -> Result<(), String> {
    let widths = standard.widths();
    if widths.contains(&width) {
        return Ok(());
    }
    let list = widths.iter().map(u16::to_string).collect::<Vec<_>>().join(" or ");
    Err(format!("width must be {list} (MHz) for {}, got {width}", standard.label()))
}

fn check_gi(standard: Standard, gi_ns: u64) -> Result<(), String> {
    let gis = standard.guard_intervals_ns();
    if gis.contains(&gi_ns) {
        return Ok(());
    }
    let list = gis.iter().map(|g| format!("\"{g}ns\"")).collect::<Vec<_>>().join(" or ");
    Err(format!("gi must be {list} for {}, got \"{}\"", standard.label(), Duration(gi_ns)))
}

fn check_nss(standard: Standard, nss: u8) -> Result<(), String> {
    if (1..=8).contains(&nss) {
        return Ok(());
    }
    Err(format!("nss must be 1 to 8 spatial streams for {}, got {nss}", standard.label()))
}

/// Checks the PHY keys written in one table: each applies to the standard and is in range.
fn check_phy_keys(standard: Standard, keys: &WifiPhyKeys) -> Result<(), (&'static str, String)> {
    let std = standard.label();
    if let Some(rate) = keys.rate {
        if standard != Standard::A {
            return Err(("rate", format!("`rate` is the non-HT rate of 802.11a; {std} sets `mcs` instead")));
        }
        check_rate(standard, rate.0).map_err(|m| ("rate", m))?;
    }
    if let Some(mcs) = keys.mcs {
        if standard == Standard::A {
            let rates = A_RATES_MBIT.map(|r| r.to_string()).join(", ");
            return Err(("mcs", format!("802.11a has no MCS; set `rate` to one of {rates} Mbit/s")));
        }
        check_mcs(standard, mcs).map_err(|m| ("mcs", m))?;
    }
    if let Some(width) = keys.width {
        check_width(standard, width).map_err(|m| ("width", m))?;
    }
    if let Some(gi) = keys.gi {
        check_gi(standard, gi.0).map_err(|m| ("gi", m))?;
    }
    if let Some(nss) = keys.nss {
        match standard {
            Standard::A => return Err(("nss", "802.11a sends one spatial stream; remove `nss`".into())),
            Standard::N => {
                return Err((
                    "nss",
                    "802.11n MCS imply the spatial streams (nss = mcs / 8 + 1: MCS 0-7 one stream, \
                     8-15 two, ...); remove `nss` and choose the MCS"
                        .into(),
                ))
            }
            Standard::Ac | Standard::Ax => check_nss(standard, nss).map_err(|m| ("nss", m))?,
        }
    }
    if let Some(per) = keys.per {
        if !(0.0..1.0).contains(&per) {
            return Err(("per", format!("per must be a probability in [0, 1), such as 0.01; got {per}")));
        }
    }
    if let Some(d) = keys.distance_m {
        if !(d > 0.0 && d <= MAX_DISTANCE_M) {
            return Err((
                "distance_m",
                format!("distance_m must be above 0 and at most {MAX_DISTANCE_M} metres, got {d}"),
            ));
        }
        if keys.snr_db.is_some() {
            return Err(("snr_db", "set distance_m or snr_db, not both: the SNR follows from the distance".into()));
        }
    }
    if let Some(snr) = keys.snr_db {
        if !(MIN_SNR_DB..=MAX_SNR_DB).contains(&snr) {
            return Err(("snr_db", format!("snr_db must be {MIN_SNR_DB} to {MAX_SNR_DB} dB, got {snr}")));
        }
    }
    Ok(())
}

/// The range of `distance_m` and `snr_db`.
const MAX_DISTANCE_M: f64 = 100_000.0;
const MIN_SNR_DB: f64 = -50.0;
const MAX_SNR_DB: f64 = 100.0;

/// The `channel` table: ns-3's defaults for the missing keys, every value in a physical range.
fn resolve_channel(t: &WifiChannel) -> Result<Propagation, (&'static str, String)> {
    let d = Propagation::NS3;
    let checked = |name: &'static str, value: Option<f64>, default: f64, range: (f64, f64), unit: &str| {
        let v = value.unwrap_or(default);
        if v.is_finite() && (range.0..=range.1).contains(&v) {
            Ok(v)
        } else {
            Err((name, format!("{name} must be {} to {} {unit}, got {v}", range.0, range.1)))
        }
    };
    Ok(Propagation {
        tx_power_dbm: checked("tx_power_dbm", t.tx_power_dbm, d.tx_power_dbm, (-50.0, 50.0), "dBm")?,
        noise_figure_db: checked("noise_figure_db", t.noise_figure_db, d.noise_figure_db, (0.0, 30.0), "dB")?,
        path_loss_exponent: checked("path_loss_exponent", t.path_loss_exponent, d.path_loss_exponent, (1.0, 8.0), "")?,
        reference_loss_db: checked("reference_loss_db", t.reference_loss_db, d.reference_loss_db, (0.0, 200.0), "dB")?,
        reference_distance_m: checked(
            "reference_distance_m",
            t.reference_distance_m,
            d.reference_distance_m,
            (0.001, 1000.0),
            "metres",
        )?,
        detection_rssi_dbm: checked(
            "detection_rssi_dbm",
            t.detection_rssi_dbm,
            d.detection_rssi_dbm,
            (-200.0, 0.0),
            "dBm",
        )?,
        detection_snr_db: checked("detection_snr_db", t.detection_snr_db, d.detection_snr_db, (-50.0, 100.0), "dB")?,
    })
}

fn check_aggregation_keys(standard: Standard, agg: &WifiAggregation) -> Result<(), (&'static str, String)> {
    let std = standard.label();
    if standard == Standard::A {
        if agg.enabled == Some(true) {
            return Err((
                "enabled",
                "802.11a has no A-MPDU aggregation (it came with 802.11n); remove `enabled = true`".into(),
            ));
        }
        let limits = [
            ("max_mpdus", agg.max_mpdus.is_some()),
            ("max_bytes", agg.max_bytes.is_some()),
            ("max_duration", agg.max_duration.is_some()),
        ];
        if let Some((field, _)) = limits.into_iter().find(|(_, set)| *set) {
            return Err((field, format!("802.11a has no A-MPDU aggregation, so `{field}` does not apply")));
        }
        return Ok(());
    }
    if let Some(n) = agg.max_mpdus {
        let window = standard.block_ack_window();
        if !(1..=window).contains(&n) {
            return Err((
                "max_mpdus",
                format!("max_mpdus must be 1 to {window} for {std} (its Block Ack window), got {n}"),
            ));
        }
    }
    if let Some(n) = agg.max_bytes {
        let max = standard.max_ampdu_bytes();
        if !(1..=max).contains(&n) {
            return Err(("max_bytes", format!("max_bytes must be 1 to {max} for {std} (its longest A-MPDU), got {n}")));
        }
    }
    if let Some(d) = agg.max_duration {
        if d.0 == 0 || d.0 > MAX_PPDU_DURATION {
            return Err((
                "max_duration",
                format!(
                    "max_duration must be greater than 0 and at most 5.484ms (aPPDUMaxTime, the longest PPDU), got {d}"
                ),
            ));
        }
    }
    Ok(())
}

/// A contention window pair (the keys `names`, each 2^k - 1 from `least` to [`MAX_CW`],
/// ordered), missing values taken from `default`.
fn resolve_cw(
    (cw_min, cw_max): (Option<u32>, Option<u32>),
    names: (&'static str, &'static str),
    default: (u32, u32),
    least: u32,
) -> Result<(u32, u32), (&'static str, String)> {
    for (field, cw) in [(names.0, cw_min), (names.1, cw_max)] {
        if let Some(cw) = cw {
            if !(least..=MAX_CW).contains(&cw) || !(cw + 1).is_power_of_two() {
                return Err((
                    field,
                    format!(
                        "{field} must be of the form 2^k - 1 between {least} and {MAX_CW} (such as 15, 31, 1023), got {cw}"
                    ),
                ));
            }
        }
    }
    let (min, max) = (cw_min.unwrap_or(default.0), cw_max.unwrap_or(default.1));
    if max < min {
        let (blame, note) = if cw_max.is_some() { (names.1, "") } else { (names.0, ", the default") };
        return Err((blame, format!("{} ({max}{note}) must be at least {} ({min})", names.1, names.0)));
    }
    Ok((min, max))
}

/// The keys of an EDCA contention window.
const CW_KEYS: (&str, &str) = ("cw_min", "cw_max");

fn resolve_edca(edca: &WifiEdca) -> Result<Edca, (&'static str, String)> {
    let d = Edca::BEST_EFFORT;
    let (cw_min, cw_max) = resolve_cw((edca.cw_min, edca.cw_max), CW_KEYS, (d.cw_min, d.cw_max), 1)?;
    let aifsn = edca.aifsn.unwrap_or(d.aifsn);
    if !(1..=MAX_AIFSN).contains(&aifsn) {
        return Err((
            "aifsn",
            format!(
                "aifsn must be 1 to {MAX_AIFSN} slots (best effort uses 3; 2 is the least for a station), got {aifsn}"
            ),
        ));
    }
    let retry_limit = edca.retry_limit.unwrap_or(d.retry_limit);
    if !(1..=MAX_RETRY_LIMIT).contains(&retry_limit) {
        return Err((
            "retry_limit",
            format!("retry_limit must be 1 to {MAX_RETRY_LIMIT} transmission attempts (default 7), got {retry_limit}"),
        ));
    }
    let txop = edca.txop.map_or(d.txop, |t| t.0);
    if txop > MAX_TXOP {
        return Err((
            "txop",
            format!("txop must be at most 8.16ms (255 x 32us; 0 for one exchange per access), got {}", Duration(txop)),
        ));
    }
    Ok(Edca { cw_min, cw_max, aifsn, retry_limit, txop })
}

/// The device layer of a network that does not name one: Linux's mac80211 layer for 802.11ax
/// (the APs of papers 000 and 001 run it), per-station queues otherwise.
fn default_device(standard: Standard) -> DeviceLayer {
    match standard {
        Standard::Ax => DeviceLayer::Mac80211(Mac80211Params::LINUX),
        _ => DeviceLayer::PerStation { size: DEFAULT_DEVICE_SIZE, airtime_fairness: false },
    }
}

fn check_device(device: &DeviceSpec) -> Result<(), (&'static str, String)> {
    let (DeviceSpec::Fifo { size, .. } | DeviceSpec::PerStation { size, .. }) = *device else {
        return check_mac80211(device.layer());
    };
    if let DeviceSpec::Fifo { lifetime: Some(lifetime), .. } = *device {
        if lifetime.0 == 0 {
            return Err(("lifetime", "lifetime must be longer than 0 (leave it out for none)".into()));
        }
    }
    if !(1..=MAX_DEVICE_QUEUE).contains(&size) {
        return Err((
            "size",
            format!("size must be 1 to {MAX_DEVICE_QUEUE} packets (put long queues in `qdisc`), got {size}"),
        ));
    }
    Ok(())
}

/// The mac80211 layer's keys, with the bounds of their Linux counterparts where Linux has
/// them (fq_codel's flow count and quantum range).
fn check_mac80211(layer: DeviceLayer) -> Result<(), (&'static str, String)> {
    let DeviceLayer::Mac80211(p) = layer else { return Ok(()) };
    if !(1..=65_536).contains(&p.flows) {
        return Err(("flows", format!("flows must be 1 to 65536, got {}", p.flows)));
    }
    if !(MIN_QUANTUM..=1 << 20).contains(&u64::from(p.quantum)) {
        return Err((
            "quantum",
            format!(
                "quantum must be {} to 1MiB (a packet waits a round per quantum of its bytes), got {}",
                Bytes(MIN_QUANTUM),
                Bytes(p.quantum.into())
            ),
        ));
    }
    if p.limit == 0 || p.memory_limit == 0 {
        let key = if p.limit == 0 { "limit" } else { "memory_limit" };
        return Err((key, format!("{key} must be > 0")));
    }
    if p.target == 0 || p.target >= p.interval {
        return Err((
            "target",
            format!("target must be > 0 and less than interval ({}), got {}", Duration(p.interval), Duration(p.target)),
        ));
    }
    if p.aql_low == 0 || p.aql_low > p.aql_high {
        return Err((
            "aql_low",
            format!("aql_low must be > 0 and at most aql_high ({}), got {}", Duration(p.aql_high), Duration(p.aql_low)),
        ));
    }
    Ok(())
}

/// Checks the settings of one table (the network's, at `at` = `wifi[i]`, or a member's, at
/// `wifi[i].node[j]`) on their own.
fn check_table(
    standard: Standard,
    at: &str,
    phy: &WifiPhyKeys,
    aggregation: &WifiAggregation,
    qdisc: Option<&toml::Table>,
    device: Option<&DeviceSpec>,
    nodes: &Nodes,
) -> Result<Option<qdisc::Config>, KeyError> {
    let under = |table: &str, (field, message): (&str, String)| KeyError::new(format!("{at}{table}.{field}"), message);
    check_phy_keys(standard, phy).map_err(|e| under("", e))?;
    check_aggregation_keys(standard, aggregation).map_err(|e| under(".aggregation", e))?;
    let qdisc = qdisc.map(|table| components::qdisc(table, &format!("{at}.qdisc"))).transpose()?;
    if let Some(q) = &qdisc {
        nodes.check_host_refs(q, &format!("{at}.qdisc"))?;
    }
    if let Some(device) = device {
        check_device(device).map_err(|e| under(".device", e))?;
    }
    Ok(qdisc)
}

/// Checks a member's `schedule` at `at` (`wifi[0].node[1].schedule`): at least one step, each
/// `at` after the previous one and within the period, and each step's PHY keys.
fn check_schedule(standard: Standard, at: &str, schedule: &WifiSchedule) -> Result<(), KeyError> {
    if let Some(period) = schedule.period {
        // A repeating schedule changes the rate once per step and period.
        let steps = schedule.steps.len().max(1) as u64;
        if period.0 < steps.saturating_mul(MIN_PERIOD) {
            return Err(KeyError::new(
                format!("{at}.period"),
                format!(
                    "the period must be at least {} ({} per step: steps repeat at most once per \
                     microsecond), got {period}; leave it out for a schedule that runs once",
                    Duration(steps * MIN_PERIOD),
                    Duration(MIN_PERIOD)
                ),
            ));
        }
    }
    if schedule.steps.is_empty() {
        return Err(KeyError::new(
            format!("{at}.steps"),
            "a schedule needs at least one step, such as [{ at = \"1s\", rate = \"6Mbit\" }]",
        ));
    }
    if schedule.steps.len() > MAX_STEPS {
        return Err(KeyError::new(format!("{at}.steps"), format!("a schedule has at most {MAX_STEPS} steps")));
    }
    for (k, step) in schedule.steps.iter().enumerate() {
        let step_at = format!("{at}.steps[{k}]");
        if k > 0 && step.at.0 <= schedule.steps[k - 1].at.0 {
            return Err(KeyError::new(
                format!("{step_at}.at"),
                format!(
                    "steps must be in strictly increasing order of `at`: got \"{}\" after \"{}\" (steps[{}])",
                    step.at,
                    schedule.steps[k - 1].at,
                    k - 1
                ),
            ));
        }
        if let Some(period) = schedule.period.filter(|p| step.at.0 >= p.0) {
            return Err(KeyError::new(
                format!("{step_at}.at"),
                format!("`at` must be less than the period (\"{period}\"), got \"{}\"", step.at),
            ));
        }
        check_phy_keys(standard, &step.phy_keys())
            .map_err(|(field, message)| KeyError::new(format!("{step_at}.{field}"), message))?;
    }
    Ok(())
}

/// One table of PHY keys in the precedence order of a link, and where it is written.
#[derive(Clone)]
struct PhyLayer {
    at: String,
    keys: WifiPhyKeys,
}

/// Where a link's receiver is: at a distance, or at a given SNR.
#[derive(Clone, Copy)]
enum Position {
    Distance(f64),
    Snr(f64),
}

/// A link's PHY keys layered: each key from the first layer that sets it, else the default.
/// `distance_m` and `snr_db` say the same thing, so the first layer that sets either decides.
/// Under ideal rate control a missing `mcs` or `rate` means the standard's fastest.
struct LinkKeys {
    phy: PhySpec,
    per: f64,
    position: Option<Position>,
    rate_control: RateControl,
}

fn layered_phy(standard: Standard, layers: &[PhyLayer]) -> LinkKeys {
    fn pick<T>(layers: &[PhyLayer], get: impl Fn(&WifiPhyKeys) -> Option<T>) -> Option<T> {
        layers.iter().find_map(|layer| get(&layer.keys))
    }
    let rate_control = pick(layers, |k| k.rate_control).unwrap_or(RateControl::Fixed);
    let d = if rate_control == RateControl::Ideal { standard.fastest_phy() } else { standard.default_phy() };
    let mcs = if standard == Standard::A { 0 } else { pick(layers, |k| k.mcs).unwrap_or(d.mcs) };
    let nss = match standard {
        Standard::A => 1,
        Standard::N => mcs / 8 + 1,
        Standard::Ac | Standard::Ax => pick(layers, |k| k.nss).unwrap_or(d.nss),
    };
    let phy = PhySpec {
        rate_bps: if standard == Standard::A { pick(layers, |k| k.rate).map_or(d.rate_bps, |r| r.0) } else { 0 },
        mcs,
        nss,
        width_mhz: pick(layers, |k| k.width).unwrap_or(d.width_mhz),
        // Checked against the standard's guard intervals, so it fits.
        gi_ns: pick(layers, |k| k.gi).map_or(d.gi_ns, |gi| u16::try_from(gi.0).unwrap_or(u16::MAX)),
    };
    let position = pick(layers, |k| match (k.distance_m, k.snr_db) {
        (Some(d), _) => Some(Position::Distance(d)),
        (None, Some(snr)) => Some(Position::Snr(snr)),
        (None, None) => None,
    });
    LinkKeys { phy, per: pick(layers, |k| k.per).unwrap_or(0.0), position, rate_control }
}

/// The link's radio, and under ideal rate control its PHY with the MCS (or 802.11a rate) that
/// rate control picks: the fastest valid one up to `keys.phy`'s, in its group of streams for
/// 802.11n.
fn link_radio(standard: Standard, keys: &LinkKeys, channel: &Propagation) -> (PhySpec, Option<Radio>) {
    let width = keys.phy.width_mhz;
    let radio = keys.position.map(|p| match p {
        Position::Distance(d) => channel.at_distance(d, width),
        Position::Snr(snr) => channel.with_snr(snr, width),
    });
    let Some(radio) = radio.filter(|_| keys.rate_control == RateControl::Ideal) else {
        return (keys.phy, radio);
    };
    let cap = keys.phy;
    let candidates: Vec<PhySpec> = match standard {
        Standard::A => A_RATES_MBIT
            .iter()
            .map(|&r| PhySpec { rate_bps: r * 1_000_000, ..cap })
            .filter(|p| p.rate_bps <= cap.rate_bps)
            .collect(),
        // 802.11n numbers its MCS across streams: the candidates keep the cap's streams.
        Standard::N => (cap.mcs / 8 * 8..=cap.mcs).map(|mcs| PhySpec { mcs, ..cap }).collect(),
        // 802.11ac leaves some MCS out at some widths and streams.
        Standard::Ac | Standard::Ax => {
            (0..=cap.mcs).map(|mcs| PhySpec { mcs, ..cap }).filter(|p| check_phy(standard, p).is_ok()).collect()
        }
    };
    let txvs: Vec<_> = candidates.iter().map(|p| tx_vector(standard, p)).collect();
    let chosen = crate::wifi::channel::ideal(&txvs, radio.snr_db);
    let phy = candidates[txvs.iter().position(|t| *t == chosen).expect("ideal picks a candidate")];
    (phy, Some(radio))
}

/// The key a PHY field of a link was taken from (the network's key when it is a default).
fn phy_source(layers: &[PhyLayer], field: &str, network: &str) -> String {
    let set = |k: &WifiPhyKeys| match field {
        "rate" => k.rate.is_some(),
        "mcs" => k.mcs.is_some(),
        "width" => k.width.is_some(),
        "gi" => k.gi.is_some(),
        "nss" => k.nss.is_some(),
        "rate_control" => k.rate_control.is_some(),
        _ => k.per.is_some(),
    };
    let at = layers.iter().find(|layer| set(&layer.keys)).map_or(network, |layer| layer.at.as_str());
    format!("{at}.{field}")
}

/// Checks every `[[wifi]]` entry and resolves it. `link_names` are the resolved names of the
/// wired links, which share one namespace with the networks.
pub(super) fn resolve_wifi(s: &Scenario, nodes: &Nodes, link_names: &[&str]) -> Result<Vec<ResolvedWifi>, KeyError> {
    let mut names: BTreeMap<String, String> =
        link_names.iter().enumerate().map(|(j, name)| (name.to_string(), format!("link[{j}]"))).collect();
    let mut wired: BTreeMap<[&str; 2], usize> = BTreeMap::new();
    for (j, link) in s.links.iter().enumerate() {
        wired.insert(unordered(&link.between[0], &link.between[1]), j);
    }
    // Node -> (network name, key of its membership), to keep each node in one network.
    let mut membership: BTreeMap<&str, (String, String)> = BTreeMap::new();
    if s.wifi.len() > MAX_NETWORKS {
        return Err(KeyError::new("wifi", format!("a scenario has at most {MAX_NETWORKS} Wi-Fi networks")));
    }
    let mut networks = Vec::with_capacity(s.wifi.len());
    // Links so far: the wired ones, then each network's pairs.
    let mut links = link_names.len();
    for (i, w) in s.wifi.iter().enumerate() {
        if w.members().len() > MAX_MEMBERS {
            return Err(KeyError::new(
                format!("wifi[{i}]"),
                format!("a Wi-Fi network has at most {MAX_MEMBERS} members"),
            ));
        }
        let key = format!("wifi[{i}]");
        if let Some(name) = &w.name {
            check_name(format!("{key}.name"), name, "Wi-Fi network")?;
        }
        let name = w.name.clone().unwrap_or_else(|| format!("wifi{i}"));
        if let Some(other) = names.get(&name) {
            let message = match w.name {
                Some(_) => format!("duplicate name \"{name}\" (also {other}); links and Wi-Fi networks share names"),
                None => format!("the default name \"{name}\" of this network is taken by {other}; give it a `name`"),
            };
            return Err(KeyError::new(format!("{key}.name"), message));
        }
        names.insert(name.clone(), key.clone());

        let listed = check_shape(&key, w)?;
        let pairs = w.pairs().len();
        if links + pairs > MAX_LINKS {
            let (at, hint) = match (&w.ap, &w.peers) {
                (Some(_), _) => ("stations", ""),
                (None, Some(_)) => ("peers", ""),
                (None, None) => ("nodes", "; list `peers` to pair only the members that exchange frames"),
            };
            return Err(KeyError::new(
                format!("{key}.{at}"),
                format!(
                    "{pairs} pairs of members exchange frames, which with the {links} links before them are more \
                     than the {MAX_LINKS} links a scenario may have{hint}"
                ),
            ));
        }
        links += pairs;
        let mut local: BTreeMap<&str, &str> = BTreeMap::new();
        for (member_key, member) in &listed {
            nodes.known(member_key.clone(), member)?;
            if let Some(first) = local.insert(member, member_key) {
                return Err(KeyError::new(
                    member_key.clone(),
                    format!("\"{member}\" is already a member of this network ({first})"),
                ));
            }
            if let Some((network, at)) = membership.get(member) {
                return Err(KeyError::new(
                    member_key.clone(),
                    format!(
                        "\"{member}\" is already in Wi-Fi network \"{network}\" ({at}); \
                         a node can be in at most one Wi-Fi network"
                    ),
                ));
            }
        }
        for (member_key, member) in &listed {
            membership.insert(member, (name.clone(), member_key.clone()));
        }
        networks.push(resolve_network(&key, name, w, &wired, nodes)?);
    }
    Ok(networks)
}

fn unordered<'a>(a: &'a str, b: &'a str) -> [&'a str; 2] {
    if a <= b {
        [a, b]
    } else {
        [b, a]
    }
}

/// BSS or mesh: the right keys are present. Returns the members with the key each is listed at.
fn check_shape<'a>(key: &str, w: &'a Wifi) -> Result<Vec<(String, &'a str)>, KeyError> {
    let at = |field: &str| format!("{key}.{field}");
    match (&w.ap, &w.stations, &w.nodes) {
        (Some(_), _, Some(_)) => Err(KeyError::new(
            at("nodes"),
            "a network is an infrastructure BSS (`ap` and `stations`) or ad hoc/mesh (`nodes`), not both; \
             remove `nodes` or `ap`",
        )),
        (Some(_), _, None) if w.peers.is_some() => Err(KeyError::new(
            at("peers"),
            "`peers` is for ad hoc/mesh networks; in a BSS each station exchanges frames with the AP only",
        )),
        (Some(_), None, None) => Err(KeyError::new(at("stations"), "missing required key: a BSS needs its stations")),
        (Some(_), Some(stations), None) if stations.is_empty() => {
            Err(KeyError::new(at("stations"), "a BSS needs at least one station"))
        }
        (Some(ap), Some(stations), None) => {
            let stations = stations.iter().enumerate().map(|(k, sta)| (format!("{key}.stations[{k}]"), sta.as_str()));
            Ok([(at("ap"), ap.as_str())].into_iter().chain(stations).collect())
        }
        (None, Some(_), _) => Err(KeyError::new(
            at("ap"),
            "missing required key: `stations` belong to an infrastructure BSS, which needs its `ap`; \
             for ad hoc/mesh, list the members in `nodes`",
        )),
        (None, None, None) => Err(KeyError::new(
            key,
            "expected either `ap` and `stations` (an infrastructure BSS) or `nodes` (ad hoc/mesh)",
        )),
        (None, None, Some(members)) if members.len() < 2 => Err(KeyError::new(
            at("nodes"),
            format!("an ad hoc/mesh network needs at least 2 nodes, got {}", members.len()),
        )),
        (None, None, Some(members)) => {
            Ok(members.iter().enumerate().map(|(k, m)| (format!("{key}.nodes[{k}]"), m.as_str())).collect())
        }
    }
}

/// Checks a list of unordered pairs of members (`peers`, `hears`) at `list_key`.
fn check_pairs(list_key: &str, pairs: &[[String; 2]], members: &[&str]) -> Result<(), KeyError> {
    let mut seen: BTreeMap<[&str; 2], usize> = BTreeMap::new();
    let known: BTreeSet<&str> = members.iter().copied().collect();
    for (k, [a, b]) in pairs.iter().enumerate() {
        for (e, end) in [a, b].into_iter().enumerate() {
            if !known.contains(end.as_str()) {
                return Err(KeyError::new(
                    format!("{list_key}[{k}][{e}]"),
                    format!("\"{end}\" is not a member of this network, expected one of: {}", members.join(", ")),
                ));
            }
        }
        if a == b {
            return Err(KeyError::new(
                format!("{list_key}[{k}]"),
                format!("a pair needs two different nodes, got \"{a}\" twice"),
            ));
        }
        if let Some(first) = seen.insert(unordered(a, b), k) {
            let list = list_key.rsplit('.').next().unwrap_or(list_key);
            return Err(KeyError::new(
                format!("{list_key}[{k}]"),
                format!("\"{a}\" and \"{b}\" are already paired at {list}[{first}]"),
            ));
        }
    }
    Ok(())
}

fn resolve_network(
    key: &str,
    name: String,
    w: &Wifi,
    wired: &BTreeMap<[&str; 2], usize>,
    nodes: &Nodes,
) -> Result<ResolvedWifi, KeyError> {
    let standard = w.standard;
    let members = w.members();
    let pairs = w.pairs();
    // Where each pair comes from, for messages.
    let pair_key = |k: usize| match (&w.ap, &w.peers) {
        (Some(_), _) => format!("{key}.stations[{k}]"),
        (None, Some(_)) => format!("{key}.peers[{k}]"),
        (None, None) => format!("{key}.nodes"),
    };

    if let Some(peers) = &w.peers {
        if peers.is_empty() {
            return Err(KeyError::new(
                format!("{key}.peers"),
                "`peers` is empty, so no two members exchange frames; list pairs such as \
                 [[\"n0\", \"n1\"]], or leave `peers` out for every pair",
            ));
        }
        check_pairs(&format!("{key}.peers"), peers, &members)?;
        if let Some((k, lonely)) = members.iter().enumerate().find(|(_, m)| !pairs.iter().any(|p| p.contains(m))) {
            return Err(KeyError::new(
                format!("{key}.nodes[{k}]"),
                format!(
                    "\"{lonely}\" is in no pair of `peers`, so it exchanges frames with no one; pair it or remove it"
                ),
            ));
        }
    }
    for (k, [a, b]) in pairs.iter().enumerate() {
        if let Some(j) = wired.get(&unordered(a, b)) {
            let hint = if w.ap.is_none() && w.peers.is_none() { "; list `peers` without this pair" } else { "" };
            return Err(KeyError::new(
                pair_key(k),
                format!(
                    "\"{a}\" and \"{b}\" are already connected by link[{j}]; \
                     a pair is either wired or Wi-Fi peers, not both{hint}"
                ),
            ));
        }
    }
    if let Some(hears) = &w.hears {
        check_pairs(&format!("{key}.hears"), hears, &members)?;
        let heard: BTreeSet<[&str; 2]> = hears.iter().map(|[a, b]| unordered(a, b)).collect();
        for (k, [a, b]) in pairs.iter().enumerate() {
            if !heard.contains(&unordered(a, b)) {
                let source = match (&w.ap, &w.peers) {
                    (None, None) => "as every pair of `nodes` does without `peers`".to_string(),
                    _ => pair_key(k).strip_prefix(&format!("{key}.")).unwrap_or_default().to_string(),
                };
                return Err(KeyError::new(
                    format!("{key}.hears"),
                    format!(
                        "\"{a}\" and \"{b}\" exchange frames ({source}) but do not hear each other; \
                         add [\"{a}\", \"{b}\"] to `hears`"
                    ),
                ));
            }
        }
    }

    let net_qdisc =
        check_table(standard, key, &w.phy_keys(), &w.aggregation, w.qdisc.as_ref(), w.device.as_ref(), nodes)?;
    let edca =
        resolve_edca(&w.edca).map_err(|(field, message)| KeyError::new(format!("{key}.edca.{field}"), message))?;
    let ofdma = resolve_ofdma(key, w)?;
    let channel = resolve_channel(w.channel.as_ref().unwrap_or(&WifiChannel::default()))
        .map_err(|(field, message)| KeyError::new(format!("{key}.channel.{field}"), message))?;
    let mut tables: BTreeMap<&str, (String, &WifiNode)> = BTreeMap::new();
    let mut qdiscs: BTreeMap<&str, qdisc::Config> = BTreeMap::new();
    for (j, table) in w.node.iter().enumerate() {
        let at = format!("{key}.node[{j}]");
        if !members.contains(&table.name.as_str()) {
            return Err(KeyError::new(
                format!("{at}.name"),
                format!("\"{}\" is not a member of this network, expected one of: {}", table.name, members.join(", ")),
            ));
        }
        let (phy, qdisc, device) = (table.phy_keys(), table.qdisc.as_ref(), table.device.as_ref());
        if let Some(qdisc) = check_table(standard, &at, &phy, &table.aggregation, qdisc, device, nodes)? {
            qdiscs.insert(&table.name, qdisc);
        }
        if let Some(schedule) = &table.schedule {
            check_schedule(standard, &format!("{at}.schedule"), schedule)?;
        }
        if let Some((first, _)) = tables.insert(&table.name, (at.clone(), table)) {
            return Err(KeyError::new(
                format!("{at}.name"),
                format!("\"{}\" already has its settings at {first}", table.name),
            ));
        }
    }

    let mut links = Vec::with_capacity(2 * pairs.len());
    for [a, b] in &pairs {
        for (from, to) in [(a, b), (b, a)] {
            // BSS: the station's settings, then the AP's; mesh: the sender's.
            let in_order: Vec<&str> = match &w.ap {
                Some(ap) => vec![if from == ap { to } else { from }, ap],
                None => vec![from],
            };
            // The tables the link follows, in precedence order.
            let owners: Vec<(&String, &WifiNode)> =
                in_order.into_iter().filter_map(|m| tables.get(m).map(|(at, t)| (at, *t))).collect();
            let mut layers: Vec<PhyLayer> =
                owners.iter().map(|(at, t)| PhyLayer { at: at.to_string(), keys: t.phy_keys() }).collect();
            layers.push(PhyLayer { at: key.to_string(), keys: w.phy_keys() });
            let check = |layers: &[PhyLayer]| {
                let keys = layered_phy(standard, layers);
                if keys.rate_control == RateControl::Ideal && keys.position.is_none() {
                    return Err(KeyError::new(
                        phy_source(layers, "rate_control", key),
                        format!(
                            "ideal rate control picks the MCS from the SNR, and link {from} -> {to} has none: \
                             set `distance_m` or `snr_db`"
                        ),
                    ));
                }
                let (phy, radio) = link_radio(standard, &keys, &channel);
                check_phy(standard, &phy).map_err(|(field, message)| {
                    KeyError::new(phy_source(layers, field, key), format!("{message} (link {from} -> {to})"))
                })?;
                Ok::<_, KeyError>((phy, keys.per, radio))
            };
            let (phy, per, radio) = check(&layers)?;
            // The first table in precedence order with a schedule; each step's keys rank just
            // above that table's own.
            let schedule = match owners.iter().position(|(_, t)| t.schedule.is_some()) {
                None => None,
                Some(owner) => {
                    let (at, table) = owners[owner];
                    let schedule = table.schedule.as_ref().expect("found by its schedule");
                    let mut steps = Vec::with_capacity(schedule.steps.len());
                    for (k, step) in schedule.steps.iter().enumerate() {
                        let mut layers = layers.clone();
                        let step_at = format!("{at}.schedule.steps[{k}]");
                        layers.insert(owner, PhyLayer { at: step_at, keys: step.phy_keys() });
                        let (phy, _, radio) = check(&layers)?;
                        steps.push(ResolvedStep { at: step.at.0, phy, radio });
                    }
                    Some(ResolvedSchedule { period: schedule.period.map(|p| p.0), steps })
                }
            };
            links.push(ResolvedWifiLink { from: from.to_string(), to: to.to_string(), phy, per, radio, schedule });
        }
    }

    let defaults = standard.default_aggregation();
    let nodes = members
        .iter()
        .map(|member| {
            let own = tables.get(member).map(|(_, t)| *t);
            let aggregation = Aggregation {
                enabled: layered(own, w, |a| a.enabled).unwrap_or(defaults.enabled),
                max_mpdus: layered(own, w, |a| a.max_mpdus).unwrap_or(defaults.max_mpdus),
                max_bytes: layered(own, w, |a| a.max_bytes).unwrap_or(defaults.max_bytes),
                max_duration: layered(own, w, |a| a.max_duration).map_or(defaults.max_duration, |d| d.0),
            };
            let qdisc = qdiscs.get(member).or(net_qdisc.as_ref()).cloned();
            let device =
                own.and_then(|t| t.device).or(w.device).map_or_else(|| default_device(standard), DeviceSpec::layer);
            // mac80211 marks its interfaces IFF_NO_QUEUE, so Linux gives them `noqueue`.
            let default_qdisc = if matches!(device, DeviceLayer::Mac80211(_)) { "noqueue" } else { DEFAULT_QDISC };
            ResolvedWifiNode {
                name: member.to_string(),
                qdisc: qdisc.unwrap_or_else(|| qdisc::defaults(default_qdisc)),
                device,
                aggregation,
            }
        })
        .collect();

    if ofdma.is_some() {
        // One RU plan splits one channel: every link of the BSS has the same width.
        let ap_links: Vec<&ResolvedWifiLink> = links.iter().collect();
        if let Some(odd) = ap_links.iter().find(|l| l.phy.width_mhz != ap_links[0].phy.width_mhz) {
            return Err(KeyError::new(
                format!("{key}.ofdma"),
                format!(
                    "with OFDMA every station uses the BSS's channel width, but {} -> {} is {} MHz and {} -> {} is {} MHz",
                    ap_links[0].from, ap_links[0].to, ap_links[0].phy.width_mhz, odd.from, odd.to, odd.phy.width_mhz
                ),
            ));
        }
    }
    let hears = w.hears.clone();
    let telemetry = w.airtime_telemetry.as_ref().map(|t| resolve_telemetry(key, w, t)).transpose()?;
    Ok(ResolvedWifi { name, standard, ap: w.ap.clone(), nodes, links, hears, edca, rts: w.rts, ofdma, telemetry })
}

/// `airtime_telemetry`: a BSS's AP accounts its stations; shares and setpoints are fractions
/// of the timeslot, setpoints name stations of the BSS.
fn resolve_telemetry(key: &str, w: &Wifi, t: &WifiTelemetry) -> Result<ResolvedTelemetry, KeyError> {
    let at = |field: &str| format!("{key}.airtime_telemetry{field}");
    if w.ap.is_none() {
        return Err(KeyError::new(at(""), "needs a BSS: only an AP keeps an airtime table; set `ap`"));
    }
    let fraction = |field: &str, x: f64| {
        if x > 0.0 && x <= 1.0 {
            Ok(x)
        } else {
            Err(KeyError::new(at(field), format!("must be a fraction of the timeslot in (0, 1], not {x}")))
        }
    };
    // The AP closes a timeslot at most once per `MIN_PERIOD` (the computed one is clamped the
    // same way), and packets carry it in 32 bits of microseconds.
    let slot_length = |field: &str, ts: Time| {
        if (MIN_PERIOD..=MAX_TIMESLOT).contains(&ts) {
            return Ok(ts);
        }
        Err(KeyError::new(
            at(field),
            format!(
                "must be {} to {} (a timeslot closes at most once per {}, and packets carry it in 32 bits of \
                 microseconds), got {}",
                Duration(MIN_PERIOD),
                Duration(MAX_TIMESLOT),
                Duration(MIN_PERIOD),
                Duration(ts)
            ),
        ))
    };
    let timeslot = match (t.timeslot, t.timeslot_scale, t.initial_timeslot) {
        (Some(Duration(ts)), None, None) => Timeslot::Fixed(slot_length(".timeslot", ts)?),
        (Some(_), _, _) => {
            return Err(KeyError::new(
                at(".timeslot"),
                "a fixed timeslot takes no `timeslot_scale` or `initial_timeslot` (they shape the computed one); remove one",
            ))
        }
        (None, scale, initial) => {
            let scale = scale.unwrap_or(1.0);
            if !(scale.is_finite() && scale > 0.0) {
                return Err(KeyError::new(at(".timeslot_scale"), format!("must be a number > 0, not {scale}")));
            }
            let initial = initial.map_or(ResolvedTelemetry::DEFAULT_INITIAL_TIMESLOT, |d| d.0);
            Timeslot::Auto { scale, initial: slot_length(".initial_timeslot", initial)? }
        }
    };
    let share = fraction(".share", t.share.unwrap_or(ResolvedTelemetry::DEFAULT_SHARE))?;
    let stations = w.stations.as_deref().unwrap_or_default();
    let mut setpoints = Vec::new();
    for (host, &sp) in t.setpoints.iter().flatten() {
        if !stations.contains(host) {
            return Err(KeyError::new(
                at(&format!(".setpoints.{host}")),
                format!("\"{host}\" is not a station of this BSS (stations: {})", stations.join(", ")),
            ));
        }
        setpoints.push((host.clone(), fraction(&format!(".setpoints.{host}"), sp)?));
    }
    let idle = t.idle.map_or(ResolvedTelemetry::DEFAULT_IDLE, |d| d.0);
    if idle == 0 {
        return Err(KeyError::new(at(".idle"), "must be longer than 0"));
    }
    let header_bytes = t.header_bytes.unwrap_or(0);
    if header_bytes > MAX_TELEMETRY_HEADER {
        return Err(KeyError::new(
            at(".header_bytes"),
            format!(
                "must be at most {MAX_TELEMETRY_HEADER} bytes (the largest IPv6 extension header, RFC 8200), \
                 got {header_bytes}"
            ),
        ));
    }
    Ok(ResolvedTelemetry { airtime: t.airtime.unwrap_or_default(), timeslot, share, setpoints, idle, header_bytes })
}

/// The range of `ofdma_poll_interval`.
const MIN_POLL_INTERVAL: Time = 1_000 * US;
const MAX_POLL_INTERVAL: Time = 10_000_000 * US;

/// `ofdma` and its settings: OFDMA needs an 802.11ax BSS with an AP. `ofdma_stations` is
/// checked whenever given, and refused without any `ofdma` key (it would do nothing); the
/// uplink settings (`ofdma_bsrp`, `ofdma_poll_interval`, `mu_edca`) likewise need an `ofdma` key allowing the uplink.
/// With `ofdma = "off"` they stay unused, so that a sweep can turn OFDMA off.
fn resolve_ofdma(key: &str, w: &Wifi) -> Result<Option<Ofdma>, KeyError> {
    let max_stations = w.ofdma_stations.map_or(Ofdma::DEFAULT_MAX_STATIONS, |n| n as usize);
    // With random access only, an AP may schedule nobody: every RU is an RA-RU.
    let least = if w.uora.is_some() && w.ofdma == Some(OfdmaMode::Ul) { 0 } else { 1 };
    if !(least..=Ofdma::MAX_STATIONS).contains(&max_stations) {
        let message = format!(
            "must be {least} to {} stations (the RUs of a channel; 0 only for uplink random access), not {max_stations}",
            Ofdma::MAX_STATIONS
        );
        return Err(KeyError::new(format!("{key}.ofdma_stations"), message));
    }
    let uora = w
        .uora
        .as_ref()
        .map(resolve_uora)
        .transpose()
        .map_err(|(field, message)| KeyError::new(format!("{key}.uora.{field}"), message))?;
    let mu_edca = w
        .mu_edca
        .as_ref()
        .map(resolve_mu_edca)
        .transpose()
        .map_err(|(field, message)| KeyError::new(format!("{key}.mu_edca.{field}"), message))?;
    let uplink_keys = [
        ("ofdma_bsrp", w.ofdma_bsrp.is_some()),
        ("ofdma_poll_interval", w.ofdma_poll_interval.is_some()),
        ("mu_edca", w.mu_edca.is_some()),
        ("uora", w.uora.is_some()),
    ];
    let poll_interval = w.ofdma_poll_interval.map(|d| d.0);
    if let Some(interval) = poll_interval.filter(|t| !(MIN_POLL_INTERVAL..=MAX_POLL_INTERVAL).contains(t)) {
        let message = format!("must be 1ms to 10s, got {}", Duration(interval));
        return Err(KeyError::new(format!("{key}.ofdma_poll_interval"), message));
    }
    let mode = match w.ofdma {
        None => {
            let given =
                [("ofdma_stations", w.ofdma_stations.is_some()), ("ofdma_scheduler", w.ofdma_scheduler.is_some())]
                    .into_iter()
                    .chain(uplink_keys);
            if let Some((name, _)) = given.into_iter().find(|&(_, set)| set) {
                let message = format!("`{name}` needs an `ofdma` key (\"dl\", \"ul\" or \"both\")");
                return Err(KeyError::new(format!("{key}.{name}"), message));
            }
            return Ok(None);
        }
        Some(OfdmaMode::Off) => return Ok(None),
        Some(mode) => mode,
    };
    if w.standard != Standard::Ax {
        let message = format!("OFDMA is 802.11ax's; this network is {}", w.standard.label());
        return Err(KeyError::new(format!("{key}.ofdma"), message));
    }
    if w.ap.is_none() {
        let message = "OFDMA is scheduled by an AP: give the network `ap` and `stations`";
        return Err(KeyError::new(format!("{key}.ofdma"), message));
    }
    let uplink = matches!(mode, OfdmaMode::Ul | OfdmaMode::Both);
    if !uplink {
        if let Some((name, _)) = uplink_keys.into_iter().find(|&(_, set)| set) {
            let message = format!("`{name}` sets up uplink OFDMA: it needs `ofdma = \"ul\"` or `\"both\"`");
            return Err(KeyError::new(format!("{key}.{name}"), message));
        }
    }
    let ul = uplink.then(|| UlOfdma { bsrp: w.ofdma_bsrp.unwrap_or(true), mu_edca, poll_interval, uora });
    let dl = matches!(mode, OfdmaMode::Dl | OfdmaMode::Both);
    Ok(Some(Ofdma { max_stations, dl, ul, scheduler: w.ofdma_scheduler.unwrap_or_default() }))
}

/// The `uora` table: 1 to 74 RA-RUs (at most the RUs of a channel) and an OFDMA contention
/// window (OCW, 2^k - 1 up to 127: the UORA Parameter Set's 3-bit exponents).
fn resolve_uora(t: &WifiUora) -> Result<Uora, (&'static str, String)> {
    let ra_rus = t.ra_rus.map_or(1, |n| n as usize);
    if !(1..=Ofdma::MAX_STATIONS).contains(&ra_rus) {
        return Err(("ra_rus", format!("ra_rus must be 1 to {} RUs, got {ra_rus}", Ofdma::MAX_STATIONS)));
    }
    let (ocw_min, ocw_max) = resolve_cw((t.ocw_min, t.ocw_max), ("ocw_min", "ocw_max"), Uora::DEFAULT_OCW, 0)?;
    if ocw_max > MAX_OCW {
        return Err(("ocw_max", format!("ocw_max must be at most {MAX_OCW} (2^7 - 1), got {ocw_max}")));
    }
    Ok(Uora { ra_rus, ocw_min, ocw_max })
}

/// The largest OFDMA contention window a UORA Parameter Set can announce.
const MAX_OCW: u32 = 127;

/// The `mu_edca` table: AIFSN 0 (EDCA off while the timer runs) or 2 to 15, contention
/// windows as for EDCA (0 allowed), and a timer of 1 to 255 units of 8 TU (8.192 ms).
fn resolve_mu_edca(t: &WifiMuEdca) -> Result<MuEdca, (&'static str, String)> {
    let d = MuEdca::OPENWRT_BEST_EFFORT;
    let (cw_min, cw_max) = resolve_cw((t.cw_min, t.cw_max), CW_KEYS, (d.cw_min, d.cw_max), 0)?;
    let aifsn = t.aifsn.unwrap_or(d.aifsn);
    if aifsn == 1 || aifsn > MAX_AIFSN {
        let message = format!("aifsn must be 0 (EDCA disabled while the timer runs) or 2 to {MAX_AIFSN}, got {aifsn}");
        return Err(("aifsn", message));
    }
    let timer = t.timer.map_or(d.timer, |t| t.0);
    let unit = MuEdca::TIMER_UNIT;
    if timer == 0 || !timer.is_multiple_of(unit) || timer > 255 * unit {
        let message =
            format!("timer must be 1 to 255 units of 8.192ms (8 TU), up to 2088.96ms, got {}", Duration(timer));
        return Err(("timer", message));
    }
    Ok(MuEdca { aifsn, cw_min, cw_max, timer })
}

/// An aggregation key of a member: its own table's, else the network's.
fn layered<T>(own: Option<&WifiNode>, w: &Wifi, get: fn(&WifiAggregation) -> Option<T>) -> Option<T> {
    own.and_then(|t| get(&t.aggregation)).or_else(|| get(&w.aggregation))
}
