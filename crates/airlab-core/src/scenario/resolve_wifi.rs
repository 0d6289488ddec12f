//! `[[wifi]]` networks: structural checks, and resolution into the explicit [`ResolvedWifi`]
//! form (every member with its interface, every directed link with its PHY). The checks of
//! single tables are in the sibling files: PHY keys, schedules and the channel in
//! `wifi_phy_keys.rs`, MAC settings and the device layer in `wifi_access.rs`, OFDMA in
//! `wifi_ofdma.rs`, the AP hook here; the 802.11 facts they check
//! against are in `wifi/phy/standard.rs`.
//!
//! Checks run on each table as written (the network's and each `[[wifi.node]]`), so that an
//! error names the key where the offending value is, even when another layer shadows it; the
//! PHY of each link is then checked as a whole, for combinations that no single key decides.

use super::components;
use super::limits::{check_name, MAX_LINKS};
use super::model::*;
use super::nodes::Nodes;
use super::resolved::DEFAULT_QDISC;
use super::wifi::*;
use super::wifi_access::{check_aggregation_keys, default_device, resolve_edca};
use super::wifi_ofdma::resolve_ofdma;
use super::wifi_phy_keys::{check_phy_keys, check_schedule, resolve_channel};
use super::KeyError;
use crate::qdisc;
use crate::wifi::channel::{Channel, Radio};
use crate::wifi::device::DeviceLayer;
use crate::wifi::error_model::{self, ErrorModel};
use crate::wifi::net::Aggregation;
use crate::wifi::propagation;
use crate::wifi::rate::{self, RateControl};
use crate::wifi::{device, hook};
use std::collections::{BTreeMap, BTreeSet};

/// Bounds that let a Wi-Fi event fit the engine's 8-byte event (`wifi::net::WifiEvent::pack`).
const MAX_NETWORKS: usize = crate::wifi::net::MAX_NETWORKS;
const MAX_MEMBERS: usize = u16::MAX as usize;

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

/// The interface layers one table names, each read at its key; a member's replace the
/// network's whole.
struct Interface {
    qdisc: Option<qdisc::Config>,
    device: Option<device::Config>,
}

/// Checks the settings of one table (the network's, at `at` = `wifi[i]`, or a member's, at
/// `wifi[i].node[j]`) on their own, and reads the interface layers it names.
fn check_table(
    standard: Standard,
    at: &str,
    phy: &WifiPhyKeys,
    aggregation: &WifiAggregation,
    (qdisc, device): (Option<&toml::Table>, Option<&toml::Table>),
    nodes: &Nodes,
) -> Result<Interface, KeyError> {
    let under = |table: &str, (field, message): (&str, String)| KeyError::new(format!("{at}{table}.{field}"), message);
    check_phy_keys(standard, phy).map_err(|e| under("", e))?;
    check_aggregation_keys(standard, aggregation).map_err(|e| under(".aggregation", e))?;
    let qdisc = qdisc.map(|table| components::kind_table::<qdisc::Build>(table, &format!("{at}.qdisc"))).transpose()?;
    if let Some(q) = &qdisc {
        nodes.check_host_refs(q, &format!("{at}.qdisc"))?;
    }
    let device =
        device.map(|table| components::kind_table::<device::Build>(table, &format!("{at}.device"))).transpose()?;
    Ok(Interface { qdisc, device })
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
/// Under a rate control that adapts, a missing `mcs` or `rate` means the standard's fastest.
struct LinkKeys {
    phy: PhySpec,
    per: f64,
    position: Option<Position>,
}

fn pick<T>(layers: &[PhyLayer], get: impl Fn(&WifiPhyKeys) -> Option<T>) -> Option<T> {
    layers.iter().find_map(|layer| get(&layer.keys))
}

fn layered_phy(standard: Standard, layers: &[PhyLayer], adapts: bool) -> LinkKeys {
    let d = if adapts { standard.fastest_phy() } else { standard.default_phy() };
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
    LinkKeys { phy, per: pick(layers, |k| k.per).unwrap_or(0.0), position }
}

/// The rate control of the first layer that names one (read at its key), else the default.
fn layered_rate_control(layers: &[PhyLayer]) -> Result<rate::Config, KeyError> {
    match layers.iter().find_map(|l| l.keys.rate_control.as_ref().map(|v| (v, &l.at))) {
        Some((value, at)) => components::name_or_table::<rate::Build>(value, &format!("{at}.rate_control")),
        None => Ok(rate::Config::named(rate::DEFAULT)),
    }
}

/// The link's radio, and under a rate control that adapts its PHY with the MCS (or 802.11a
/// rate) it picks of the valid ones up to `keys.phy`'s, in its group of streams for 802.11n,
/// against the network's `errors`.
fn link_radio(
    standard: Standard,
    keys: &LinkKeys,
    channel: &Channel,
    rate_control: &dyn RateControl,
    errors: &dyn ErrorModel,
) -> (PhySpec, Option<Radio>) {
    let width = keys.phy.width_mhz;
    let radio = keys.position.map(|p| match p {
        Position::Distance(d) => channel.at_distance(d, width),
        Position::Snr(snr) => channel.with_snr(snr, width),
    });
    let Some(radio) = radio.filter(|_| rate_control.adapts()) else {
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
    let chosen = rate_control.pick(&txvs, radio.snr_db, errors);
    let phy = candidates[txvs.iter().position(|t| *t == chosen).expect("rate control picks a candidate")];
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

    let tables_of_net = (w.qdisc.as_ref(), w.device.as_ref());
    let net_interface = check_table(standard, key, &w.phy_keys(), &w.aggregation, tables_of_net, nodes)?;
    let edca =
        resolve_edca(&w.edca).map_err(|(field, message)| KeyError::new(format!("{key}.edca.{field}"), message))?;
    let ofdma = resolve_ofdma(key, w)?;
    let channel = resolve_channel(w.channel.as_ref().unwrap_or(&WifiChannel::default()), &format!("{key}.channel"))?;
    // The channel and error model the links are placed and their rates picked with.
    let radio_channel = Channel::new(channel.transceiver, propagation::create(&channel.propagation));
    let errors = error_model::create(&channel.error_model);
    let mut tables: BTreeMap<&str, (String, &WifiNode)> = BTreeMap::new();
    let mut interfaces: BTreeMap<&str, Interface> = BTreeMap::new();
    for (j, table) in w.node.iter().enumerate() {
        let at = format!("{key}.node[{j}]");
        if !members.contains(&table.name.as_str()) {
            return Err(KeyError::new(
                format!("{at}.name"),
                format!("\"{}\" is not a member of this network, expected one of: {}", table.name, members.join(", ")),
            ));
        }
        let own_tables = (table.qdisc.as_ref(), table.device.as_ref());
        let interface = check_table(standard, &at, &table.phy_keys(), &table.aggregation, own_tables, nodes)?;
        interfaces.insert(&table.name, interface);
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
                let config = layered_rate_control(layers)?;
                let rate_control = rate::create(&config);
                let keys = layered_phy(standard, layers, rate_control.adapts());
                if rate_control.adapts() && keys.position.is_none() {
                    return Err(KeyError::new(
                        phy_source(layers, "rate_control", key),
                        format!(
                            "{} rate control picks the MCS from the SNR, and link {from} -> {to} has none: \
                             set `distance_m` or `snr_db`",
                            config.name()
                        ),
                    ));
                }
                let (phy, radio) = link_radio(standard, &keys, &radio_channel, rate_control.as_ref(), errors.as_ref());
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
            let interface = interfaces.get(member);
            let qdisc = interface.and_then(|i| i.qdisc.as_ref()).or(net_interface.qdisc.as_ref()).cloned();
            let device = interface.and_then(|i| i.device.as_ref()).or(net_interface.device.as_ref());
            let device = device.cloned().unwrap_or_else(|| default_device(standard));
            // mac80211 marks its interfaces IFF_NO_QUEUE, so Linux gives them `noqueue`.
            let mac80211 = matches!(device::layer(&device), DeviceLayer::Mac80211(_));
            let default_qdisc = if mac80211 { "noqueue" } else { DEFAULT_QDISC };
            ResolvedWifiNode {
                name: member.to_string(),
                qdisc: qdisc.unwrap_or_else(|| qdisc::Config::named(default_qdisc)),
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
    let ap_hook = w.ap_hook.as_ref().map(|t| resolve_ap_hook(key, w, t)).transpose()?;
    Ok(ResolvedWifi {
        name,
        standard,
        ap: w.ap.clone(),
        nodes,
        links,
        hears,
        channel,
        edca,
        rts: w.rts,
        ofdma,
        ap_hook,
    })
}

/// `ap_hook`: a component of a BSS's AP; the hosts it names are stations of the BSS.
fn resolve_ap_hook(key: &str, w: &Wifi, table: &toml::Table) -> Result<hook::Config, KeyError> {
    let at = format!("{key}.ap_hook");
    if w.ap.is_none() {
        return Err(KeyError::new(at, "needs a BSS: only an AP forwards its stations' packets; set `ap`"));
    }
    let config = components::kind_table::<hook::Build>(table, &at)?;
    let stations = w.stations.as_deref().unwrap_or_default();
    if let Some((param, host)) = config.host_refs().into_iter().find(|(_, host)| !stations.contains(host)) {
        return Err(KeyError::new(
            format!("{at}.{param}"),
            format!("\"{host}\" is not a station of this BSS (stations: {})", stations.join(", ")),
        ));
    }
    Ok(config)
}

/// An aggregation key of a member: its own table's, else the network's.
fn layered<T>(own: Option<&WifiNode>, w: &Wifi, get: fn(&WifiAggregation) -> Option<T>) -> Option<T> {
    own.and_then(|t| get(&t.aggregation)).or_else(|| get(&w.aggregation))
}
