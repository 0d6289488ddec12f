//! `[[wifi]]` sections of scenario files: resolution, routing over Wi-Fi, checks and overrides.

use airlab_core::params::Value;
use airlab_core::qdisc;
use airlab_core::scenario::wifi::{PhySpec, ResolvedSchedule, ResolvedStep, ResolvedWifi, Standard};
use airlab_core::scenario::{check_phy, load_str, Resolved, ScenarioError};
use airlab_core::sim::{MS, SEC, US};
use airlab_core::wifi::device::layer;
use airlab_core::wifi::device::DeviceLayer;
use airlab_core::wifi::net::{Aggregation, Edca};

use crate::builders::*;
use crate::common::{assert_error, assert_refused, load_with, replace_once, Edit};

/// A wired server behind an AP router and two stations; the AP and `sta2` override the PHY.
fn bss() -> String {
    let sta2 = [("mcs", "3"), ("gi", r#""400ns""#), ("aggregation", "{ max_mpdus = 32 }")];
    let bss = Wifi::bss("n", "ap", &["sta1", "sta2"]).name("bss").key("mcs", 7).key("width", 40);
    let bss = bss.node("sta2", &sta2).node("ap", &[("mcs", "5"), ("per", "0.1")]);
    let scenario = Scenario::new("bss", "10s").hosts(&["server", "sta1", "sta2"]).routers(&["ap"]);
    let scenario = scenario.link(Link::new("server", "ap", "1Gbit", "5ms")).wifi(bss);
    scenario.flow(Flow::bulk("server", "sta1", "cubic")).flow(Flow::new("sta2", "sta1").app(PING)).to_string()
}

/// Five nodes in a line, each hearing only its neighbours: 802.11n at MCS 15, 40 MHz, short GI
/// (300 Mbit/s), with ath9k's aggregation limits.
fn chain() -> String {
    let line = r#"[["n0", "n1"], ["n1", "n2"], ["n2", "n3"], ["n3", "n4"]]"#;
    let mesh = Wifi::mesh("n", &["n0", "n1", "n2", "n3", "n4"]).name("mesh").key("peers", line).key("hears", line);
    let ath9k = r#"{ max_mpdus = 32, max_duration = "4ms" }"#;
    let mesh = mesh.key("mcs", 15).key("width", 40).key("gi", r#""400ns""#).key("aggregation", ath9k);
    let scenario = Scenario::new("chain", "10s").hosts(&["n0", "n4"]).routers(&["n1", "n2", "n3"]).wifi(mesh);
    scenario.flow(Flow::bulk("n0", "n4", "reno")).to_string()
}

/// The BSS with a `replace` case of refused/wifi_scenario.toml.
fn bss_with(edit: Edit) -> Option<String> {
    let (from, to) = edit.replace()?;
    Some(replace_once(&bss(), from, to))
}

/// The BSS with a case of refused/wifi_scenario.toml: an `edit` as network keys in place of its
/// `mcs = 7` and `width = 40`, a `replace` as for [`bss_with`].
fn bss_keys(edit: Edit) -> Option<String> {
    match edit {
        Edit::Snippet(keys) => Some(replace_once(&bss(), "mcs = 7\nwidth = 40\n", keys)),
        _ => bss_with(edit),
    }
}

/// The chain with a `replace` case of refused/wifi_scenario.toml.
fn chain_with(edit: Edit) -> Option<String> {
    let (from, to) = edit.replace()?;
    Some(replace_once(&chain(), from, to))
}

fn load(text: &str) -> Result<Resolved, ScenarioError> {
    load_str(text, "test.toml", &[])
}

fn phy(mcs: u8, nss: u8, width_mhz: u16, gi_ns: u16) -> PhySpec {
    PhySpec { rate_bps: 0, mcs, nss, width_mhz, gi_ns }
}

/// The path of packets from `from` to `to`, following the next hops.
fn path(r: &Resolved, from: &str, to: &str) -> String {
    let mut path = vec![from.to_string()];
    while path.last().unwrap() != to {
        let at = path.last().unwrap().clone();
        path.push(r.next_hop[&(at, to.to_string())].clone());
        assert!(path.len() < 10, "no path: {path:?}");
    }
    path.join(" ")
}

fn link_phy(w: &ResolvedWifi, from: &str, to: &str) -> (PhySpec, f64) {
    let link = w.link(from, to).unwrap_or_else(|| panic!("no link {from} -> {to}"));
    (link.phy, link.per)
}

#[test]
fn bss_resolves_with_defaults_and_precedence() {
    let r = load(&bss()).unwrap();
    assert_eq!(r.wifi.len(), 1);
    let w = &r.wifi[0];
    assert_eq!((w.name.as_str(), w.standard, w.ap.as_deref()), ("bss", Standard::N, Some("ap")));
    let members: Vec<&str> = w.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(members, ["ap", "sta1", "sta2"]);
    let links: Vec<(&str, &str)> = w.links.iter().map(|l| (l.from.as_str(), l.to.as_str())).collect();
    assert_eq!(links, [("ap", "sta1"), ("sta1", "ap"), ("ap", "sta2"), ("sta2", "ap")]);

    // sta1 has no settings: the AP's MCS and PER, the network's width, the default GI.
    for (from, to) in [("ap", "sta1"), ("sta1", "ap")] {
        assert_eq!(link_phy(w, from, to), (phy(5, 1, 40, 800), 0.1), "{from} -> {to}");
    }
    // sta2's MCS and GI beat the AP's; the AP's PER still applies.
    for (from, to) in [("ap", "sta2"), ("sta2", "ap")] {
        assert_eq!(link_phy(w, from, to), (phy(3, 1, 40, 400), 0.1), "{from} -> {to}");
    }

    assert_eq!(w.edca, Edca { cw_min: 15, cw_max: 1023, aifsn: 3, retry_limit: 7, txop: 0 });
    assert!(!w.rts);
    assert_eq!(w.hears, None);
    assert!(w.hears_each_other("sta1", "sta2"));
    let ht = Aggregation { enabled: true, max_mpdus: 64, max_bytes: 65_535, max_duration: 5_484 * US };
    for node in &w.nodes {
        let max_mpdus = if node.name == "sta2" { 32 } else { 64 };
        assert_eq!(node.aggregation, Aggregation { max_mpdus, ..ht }, "{}", node.name);
        assert_eq!(node.qdisc, qdisc::Config::named("pfifo"));
        assert_eq!(layer(&node.device), DeviceLayer::PerStation { size: 128, airtime_fairness: false });
    }

    // Routes run over the BSS; station to station goes through the AP (a router).
    assert_eq!(path(&r, "server", "sta1"), "server ap sta1");
    assert_eq!(path(&r, "sta1", "server"), "sta1 ap server");
    assert_eq!(path(&r, "sta2", "sta1"), "sta2 ap sta1");

    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains(r#""wifi":[{"name":"bss","standard":"n","ap":"ap""#), "{json}");
}

#[test]
fn standard_defaults() {
    let net = |standard: &str| {
        replace_once(&bss(), "standard = \"n\"\nap = \"ap\"", &format!("standard = \"{standard}\"\nap = \"ap\""))
    };
    // Without PHY keys (the file's are for 802.11n).
    let plain = |standard: &str| {
        let text = net(standard).replace("mcs = 7\nwidth = 40\n", "");
        let text = text.replace("mcs = 3\ngi = \"400ns\"\n", "").replace("mcs = 5\n", "");
        let text = text.replace("aggregation = { max_mpdus = 32 }\n", "");
        load(&text).unwrap_or_else(|e| panic!("{e}")).wifi.remove(0)
    };
    let a = plain("a");
    assert_eq!(a.links[0].phy, PhySpec { rate_bps: 54_000_000, mcs: 0, nss: 1, width_mhz: 20, gi_ns: 800 });
    assert!(!a.nodes[0].aggregation.enabled);
    for (standard, max_mpdus, max_bytes) in [("n", 64, 65_535), ("ac", 64, 1_048_575), ("ax", 256, 6_500_631)] {
        let w = plain(standard);
        assert_eq!(w.links[0].phy, phy(7, 1, 20, 800), "{standard}");
        let want = Aggregation { enabled: true, max_mpdus, max_bytes, max_duration: 5_484 * US };
        assert_eq!(w.nodes[0].aggregation, want, "{standard}");
    }
}

#[test]
fn mesh_chain_routes_hop_by_hop() {
    let r = load(&chain()).unwrap();
    let w = &r.wifi[0];
    assert_eq!(w.ap, None);
    assert_eq!(w.links.len(), 8);
    assert_eq!((w.links[0].from.as_str(), w.links[0].to.as_str()), ("n0", "n1"));
    assert_eq!((w.links[7].from.as_str(), w.links[7].to.as_str()), ("n4", "n3"));
    // MCS 15 = two streams: 300 Mbit/s at 40 MHz with the short GI.
    assert!(w.links.iter().all(|l| l.phy == phy(15, 2, 40, 400)));
    let ath9k = Aggregation { enabled: true, max_mpdus: 32, max_bytes: 65_535, max_duration: 4 * MS };
    assert!(w.nodes.iter().all(|n| n.aggregation == ath9k));
    assert!(w.hears_each_other("n1", "n2") && !w.hears_each_other("n0", "n2"));

    assert_eq!(path(&r, "n0", "n4"), "n0 n1 n2 n3 n4");
    assert_eq!(path(&r, "n4", "n0"), "n4 n3 n2 n1 n0");

    // Every pair exchanges frames by default: one hop.
    let all_pairs = replace_once(
        &chain(),
        "peers = [[\"n0\", \"n1\"], [\"n1\", \"n2\"], [\"n2\", \"n3\"], [\"n3\", \"n4\"]]\n",
        "",
    );
    let all_pairs = replace_once(
        &all_pairs,
        "hears = [[\"n0\", \"n1\"], [\"n1\", \"n2\"], [\"n2\", \"n3\"], [\"n3\", \"n4\"]]\n",
        "",
    );
    let r = load(&all_pairs).unwrap();
    assert_eq!(r.wifi[0].links.len(), 20);
    assert_eq!((r.wifi[0].links[2].from.as_str(), r.wifi[0].links[2].to.as_str()), ("n0", "n2"));
    assert_eq!(path(&r, "n0", "n4"), "n0 n4");
}

#[test]
fn explicit_routes_use_wifi_peers() {
    let text = chain() + "[[route]]\nat = \"n1\"\nto = \"n4\"\nvia = \"n2\"\n";
    assert_eq!(path(&load(&text).unwrap(), "n0", "n4"), "n0 n1 n2 n3 n4");
    let text = chain() + "[[route]]\nat = \"n1\"\nto = \"n4\"\nvia = \"n3\"\n";
    assert_error(load(&text), "route[0].via", "\"n3\" is not a neighbour of \"n1\", expected one of: n0, n2");
}

#[test]
fn mesh_node_settings_apply_to_its_own_transmissions() {
    // `[[wifi.node]]` belongs to the last `[[wifi]]` even after other tables.
    let text = chain() + "[[wifi.node]]\nname = \"n2\"\nmcs = 8\nper = 0.05\nqdisc = { kind = \"fq_codel\" }\n";
    let r = load(&text).unwrap();
    let w = &r.wifi[0];
    assert_eq!(link_phy(w, "n2", "n1"), (phy(8, 2, 40, 400), 0.05));
    assert_eq!(link_phy(w, "n2", "n3"), (phy(8, 2, 40, 400), 0.05));
    assert_eq!(link_phy(w, "n1", "n2"), (phy(15, 2, 40, 400), 0.0));
    assert_eq!(w.node("n2").unwrap().qdisc.name(), "fq_codel");
    assert_eq!(w.node("n1").unwrap().qdisc, qdisc::Config::named("pfifo"));
}

#[test]
fn node_tables_may_be_an_inline_array() {
    let text = replace_once(
        &bss(),
        "width = 40\n",
        "width = 40\nnode = [{ name = \"sta1\", mcs = 0 }, { name = \"sta2\", device = { kind = \"fifo\" } }]\n",
    );
    let text = text.split("[[wifi.node]]").next().unwrap().to_string()
        + "[[flow]]\nfrom = \"server\"\nto = \"sta1\"\ncc = \"cubic\"\napp = { kind = \"bulk\" }\n";
    let r = load(&text).unwrap();
    let w = &r.wifi[0];
    assert_eq!(link_phy(w, "sta1", "ap").0.mcs, 0);
    assert_eq!(link_phy(w, "sta2", "ap").0.mcs, 7);
    assert_eq!(layer(&w.node("sta2").unwrap().device), DeviceLayer::Fifo { size: 128, lifetime: None });
}

#[test]
fn a_bss_with_a_wired_uplink_runs_end_to_end() {
    // server -> ap over the wire, ap -> sta1 over the air; sta2 pings sta1 through the AP.
    let r = load(&bss()).unwrap();
    let world = airlab_core::scenario::build::build(&r, 1);
    assert_eq!((world.nodes.len(), world.wifi.len(), world.wifi[0].devs.len()), (4, 1, 3));
    let out = crate::common::run(&r, None);
    let s = &out.summary;
    let flows = s["flows"].as_array().unwrap();
    let goodput = flows[0]["goodput_mbps"].as_f64().unwrap();
    let link =
        |name: &str| s["wifi"][0]["links"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap().clone();
    // Every data packet crosses bss:ap->sta1: its throughput is the flow's goodput in IP
    // bytes (1500 per 1448 of payload), less what was still in flight at the end.
    let carried = link("bss:ap->sta1")["throughput_mbps"].as_f64().unwrap();
    assert!(goodput > 20.0, "TCP over HT MCS 5 at 40 MHz: {goodput} Mbit/s");
    assert!((carried / (goodput * 1500.0 / 1448.0) - 1.0).abs() < 0.02, "{carried} vs {goodput}");
    // The pings take two Wi-Fi hops each way: sta2 -> ap -> sta1 and back.
    let rtt = &flows[1]["rtt_ms"];
    assert!(rtt["min"].as_f64().unwrap() > 0.0 && flows[1]["app"] == "ping", "{}", flows[1]);
    assert!(link("bss:sta2->ap")["ppdus"].as_u64().unwrap() >= 99, "{}", link("bss:sta2->ap"));
}

// ---- checks: each names the key and says what was expected ----

#[test]
fn members_must_be_declared_nodes_once() {
    assert_refused("wifi_scenario", "members", bss_with);
}

#[test]
fn a_node_is_in_one_network_at_most() {
    let text = chain() + "\n[[wifi]]\nstandard = \"ac\"\nnodes = [\"n4\", \"n0\"]\n";
    assert_error(
        load(&text),
        "wifi[1].nodes[0]",
        "\"n4\" is already in Wi-Fi network \"mesh\" (wifi[0].nodes[4]); a node can be in at most one Wi-Fi network",
    );
}

#[test]
fn bss_and_mesh_keys_do_not_mix() {
    assert_refused("wifi_scenario", "bss_and_mesh_keys", bss_with);
    let text = replace_once(&chain(), "nodes = [\"n0\", \"n1\", \"n2\", \"n3\", \"n4\"]", "");
    assert_error(load(&text), "wifi[0]", "expected either `ap` and `stations` (an infrastructure BSS) or `nodes`");
    let text = "name = \"x\"\nduration = \"1s\"\nhosts = [\"a\"]\n[[wifi]]\nstandard = \"n\"\nnodes = [\"a\"]\n";
    assert_error(load(text), "wifi[0].nodes", "needs at least 2 nodes, got 1");
}

#[test]
fn peers_and_hears_are_pairs_of_members() {
    assert_refused("wifi_scenario", "peers_and_hears", chain_with);
    let text = replace_once(&bss(), "width = 40\n", "width = 40\nhears = [[\"ap\", \"sta1\"]]\n");
    assert_error(load(&text), "wifi[0].hears", "\"ap\" and \"sta2\" exchange frames (stations[1])");
    // Hidden stations are fine.
    let text = replace_once(&bss(), "width = 40\n", "width = 40\nhears = [[\"ap\", \"sta1\"], [\"sta2\", \"ap\"]]\n");
    assert!(!load(&text).unwrap().wifi[0].hears_each_other("sta1", "sta2"));
}

#[test]
fn a_pair_is_wired_or_wifi_not_both() {
    assert_refused("wifi_scenario", "wired_or_wifi_mesh", chain_with);
    assert_refused("wifi_scenario", "wired_or_wifi_bss", bss_with);
}

#[test]
fn names_are_unique_among_links_and_networks() {
    let unnamed = replace_once(&bss(), "name = \"bss\"\nstandard", "standard");
    assert_eq!(load(&unnamed).unwrap().wifi[0].name, "wifi0");
    assert_refused("wifi_scenario", "unique_names", |edit| {
        let (from, to) = edit.replace()?;
        Some(replace_once(&unnamed, from, to))
    });
}

#[test]
fn unknown_keys_are_refused() {
    assert_refused("wifi_scenario", "unknown_keys", bss_with);
}

#[test]
fn the_standard_is_required_and_known() {
    assert_refused("wifi_scenario", "standard", bss_with);
}

#[test]
fn node_settings_name_a_member() {
    assert_refused("wifi_scenario", "node_settings", bss_with);
}

#[test]
fn phy_keys_are_checked_per_standard() {
    assert_refused("wifi_scenario", "phy_keys", bss_keys);

    let net = |keys: &str| replace_once(&bss(), "mcs = 7\nwidth = 40\n", keys);
    let std = |standard: &str, keys: &str| {
        replace_once(&net(keys), "standard = \"n\"", &format!("standard = \"{standard}\""))
    };
    assert_error(load(&std("a", "mcs = 3")), "wifi[0].mcs", "802.11a has no MCS; set `rate` to one of 6, 9, 12");
    let text = replace_once(&std("a", "rate = \"11Mbit\""), "mcs = 3\n", "").replace("mcs = 5\n", "");
    assert_error(load(&text), "wifi[0].rate", "802.11a rates are 6, 9, 12, 18, 24, 36, 48, 54 Mbit/s, got 11Mbit");
    assert_refused("wifi_scenario", "phy_keys_802_11ac", |edit| edit.snippet().map(|keys| std("ac", keys)));
    assert_error(
        load(&std("ax", "gi = \"400ns\"")),
        "wifi[0].gi",
        "\"800ns\" or \"1600ns\" or \"3200ns\" for 802.11ax",
    );
    let ax = std("ax", "mcs = 11\nwidth = 160\ngi = \"3200ns\"\nnss = 4");
    assert_error(load(&ax), "wifi[0].node[0].gi", "for 802.11ax, got \"400ns\"");
    let r = load(&replace_once(&ax, "gi = \"400ns\"", "gi = \"1.6us\"")).unwrap();
    assert_eq!(link_phy(&r.wifi[0], "ap", "sta2").0, phy(3, 4, 160, 1600));
}

#[test]
fn vht_mcs9_at_20mhz_needs_3_or_6_streams() {
    let ac = |keys: &str| {
        replace_once(&replace_once(&bss(), "mcs = 7\nwidth = 40\n", keys), "standard = \"n\"", "standard = \"ac\"")
    };
    assert_error(
        load(&replace_once(&ac("mcs = 9\nwidth = 20"), "mcs = 3\n", "").replace("mcs = 5\n", "")),
        "wifi[0].mcs",
        "VHT MCS 9 is not defined at 20 MHz with 1 spatial stream(s) (at 20 MHz, MCS 9 needs nss = 3 or 6)",
    );
    // The combination is checked per link: sta2 at MCS 9 with the network's 20 MHz.
    assert_error(
        load(&replace_once(&ac("width = 20"), "mcs = 3", "mcs = 9")),
        "wifi[0].node[0].mcs",
        "(link ap -> sta2)",
    );
    assert!(load(&replace_once(&ac("width = 20\nnss = 3"), "mcs = 3", "mcs = 9")).is_ok());

    assert_eq!(check_phy(Standard::Ac, &phy(9, 1, 20, 800)).unwrap_err().0, "mcs");
    assert!(check_phy(Standard::Ac, &phy(9, 3, 20, 800)).is_ok());
    assert!(check_phy(Standard::Ac, &phy(9, 6, 20, 400)).is_ok());
    assert!(check_phy(Standard::Ac, &phy(6, 3, 80, 800)).is_err());
    assert!(check_phy(Standard::Ac, &phy(9, 3, 160, 800)).is_err());
    assert!(check_phy(Standard::Ac, &phy(9, 4, 160, 800)).is_ok());
    assert!(check_phy(Standard::Ax, &phy(9, 1, 20, 800)).is_ok());
    assert_eq!(check_phy(Standard::N, &phy(15, 1, 40, 400)).unwrap_err().0, "nss");
    assert!(check_phy(Standard::N, &phy(15, 2, 40, 400)).is_ok());
}

#[test]
fn aggregation_limits_follow_the_standard() {
    let agg = |table: &str| replace_once(&bss(), "mcs = 7\nwidth = 40\n", &format!("aggregation = {table}\n"));
    assert_refused("wifi_scenario", "aggregation", |edit| match edit {
        Edit::Snippet(table) => Some(agg(table)),
        _ => bss_with(edit),
    });
    let ax = replace_once(&agg("{ max_mpdus = 256, enabled = false }"), "standard = \"n\"", "standard = \"ax\"");
    let ax = replace_once(&ax, "gi = \"400ns\"", "gi = \"1600ns\"");
    let r = load(&ax).unwrap();
    // sta2's table changes max_mpdus only; `enabled = false` comes from the network.
    let sta2 = r.wifi[0].node("sta2").unwrap().aggregation;
    assert_eq!((sta2.enabled, sta2.max_mpdus, sta2.max_bytes), (false, 32, 6_500_631));
    assert_eq!(r.wifi[0].node("ap").unwrap().aggregation.max_mpdus, 256);

    let a = |table: &str| {
        let text = replace_once(&agg(table), "standard = \"n\"", "standard = \"a\"");
        text.replace("mcs = 3\n", "")
            .replace("mcs = 5\n", "")
            .replace("gi = \"400ns\"\n", "")
            .replace("aggregation = { max_mpdus = 32 }\n", "")
    };
    assert_refused("wifi_scenario", "aggregation_802_11a", |edit| edit.snippet().map(a));
    assert!(load(&a("{ enabled = false }")).is_ok());
}

#[test]
fn edca_parameters_are_checked() {
    let edca = |table: &str| replace_once(&bss(), "mcs = 7\nwidth = 40\n", &format!("edca = {table}\n"));
    let r = load(&edca("{ cw_min = 31, txop = \"2.528ms\" }")).unwrap();
    assert_eq!(r.wifi[0].edca, Edca { cw_min: 31, cw_max: 1023, aifsn: 3, retry_limit: 7, txop: 2_528 * US });
    assert_refused("wifi_scenario", "edca", |edit| edit.snippet().map(edca));
    assert!(load(&edca("{ aifsn = 1 }")).is_ok());
}

#[test]
fn interface_layers_are_checked_where_written() {
    assert_refused("wifi_scenario", "interface_layers", bss_keys);
    let net = |keys: &str| replace_once(&bss(), "mcs = 7\nwidth = 40\n", keys);
    let text = replace_once(
        &net("qdisc = { kind = \"fq_codel\" }\ndevice = { kind = \"per_station\", airtime_fairness = true }"),
        "per = 0.1",
        "per = 0.1\nqdisc = { kind = \"pfifo\", limit = 64 }",
    );
    let r = load(&text).unwrap();
    let w = &r.wifi[0];
    assert_eq!(w.node("ap").unwrap().qdisc, qdisc::Config::named("pfifo").with("limit", Value::Int(64)));
    assert_eq!(w.node("sta1").unwrap().qdisc.name(), "fq_codel");
    assert!(w.nodes.iter().all(|n| layer(&n.device) == DeviceLayer::PerStation { size: 128, airtime_fairness: true }));
}

// ---- rate schedules ----

/// An 802.11a BSS: sta2 alternates 24 and 6 Mbit/s every second, the AP and sta3 set fixed rates.
fn switch() -> String {
    let bss = Wifi::bss("a", "ap", &["sta1", "sta2", "sta3"]).name("bss").rate("54Mbit");
    let bss = bss.node("sta2", &[("rate", r#""24Mbit""#), ("schedule", ALTERNATING_24_6)]);
    let bss = bss.node("ap", &[("rate", r#""36Mbit""#)]).node("sta3", &[("rate", r#""48Mbit""#)]);
    let scenario = Scenario::new("switch", "10s").hosts(&["ap", "sta1", "sta2", "sta3"]).wifi(bss);
    scenario.flow(Flow::new("sta2", "ap").app(r#"{ kind = "udp" }"#)).to_string()
}

fn non_ht(mbit: u64) -> PhySpec {
    PhySpec { rate_bps: mbit * 1_000_000, mcs: 0, nss: 1, width_mhz: 20, gi_ns: 800 }
}

fn steps(period: Option<u64>, steps: &[(u64, PhySpec)]) -> Option<ResolvedSchedule> {
    let steps = steps.iter().map(|&(at, phy)| ResolvedStep { at, phy, radio: None }).collect();
    Some(ResolvedSchedule { period, steps })
}

fn schedule_of(w: &ResolvedWifi, from: &str, to: &str) -> Option<ResolvedSchedule> {
    w.link(from, to).unwrap_or_else(|| panic!("no link {from} -> {to}")).schedule.clone()
}

#[test]
fn a_station_schedule_resolves_to_explicit_phys_in_both_directions() {
    let r = load(&switch()).unwrap_or_else(|e| panic!("{e}"));
    let w = &r.wifi[0];
    let want = steps(Some(2 * SEC), &[(0, non_ht(24)), (SEC, non_ht(6))]);
    for (from, to) in [("ap", "sta2"), ("sta2", "ap")] {
        assert_eq!(link_phy(w, from, to).0, non_ht(24), "{from} -> {to}: the base PHY");
        assert_eq!(schedule_of(w, from, to), want, "{from} -> {to}");
    }
    for sta in ["sta1", "sta3"] {
        assert_eq!(schedule_of(w, "ap", sta), None);
        assert_eq!(schedule_of(w, sta, "ap"), None);
    }
    let json = serde_json::to_string(&r).unwrap();
    assert!(json.contains(r#""schedule":{"period":2000000000,"steps":[{"at":0,"phy":{"rate_bps":24000000"#), "{json}");
}

#[test]
fn an_ap_schedule_follows_the_precedence_of_its_keys() {
    let text = replace_once(
        &switch(),
        "name = \"ap\"\nrate = \"36Mbit\"\n",
        "name = \"ap\"\nrate = \"36Mbit\"\nschedule = { steps = [{ at = \"3s\", rate = \"12Mbit\" }] }\n",
    );
    let r = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let w = &r.wifi[0];
    // sta1 sets nothing: the AP's steps apply to both directions, once.
    assert_eq!(schedule_of(w, "ap", "sta1"), steps(None, &[(3 * SEC, non_ht(12))]));
    assert_eq!(schedule_of(w, "sta1", "ap"), steps(None, &[(3 * SEC, non_ht(12))]));
    // sta3's own rate ranks above the AP's steps, as above the AP's rate.
    assert_eq!(schedule_of(w, "sta3", "ap"), steps(None, &[(3 * SEC, non_ht(48))]));
    // sta2's own schedule shadows the AP's.
    assert_eq!(schedule_of(w, "ap", "sta2"), steps(Some(2 * SEC), &[(0, non_ht(24)), (SEC, non_ht(6))]));
}

#[test]
fn steps_are_layered_over_the_members_own_phy_keys() {
    // 802.11n: sta2 sets MCS 3 and the short GI; a step sets MCS 15 (two streams), and a step
    // without PHY keys returns to sta2's own PHY.
    let text = replace_once(
        &bss(),
        "gi = \"400ns\"\n",
        "gi = \"400ns\"\nschedule = { steps = [{ at = \"1s\", mcs = 15 }, { at = \"2.5s\" }] }\n",
    );
    let r = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let want = steps(None, &[(SEC, phy(15, 2, 40, 400)), (2_500 * MS, phy(3, 1, 40, 400))]);
    assert_eq!(schedule_of(&r.wifi[0], "sta2", "ap"), want);
    assert_eq!(schedule_of(&r.wifi[0], "ap", "sta2"), want);
    // In a mesh, of the node's own transmissions only.
    let text = chain() + "[[wifi.node]]\nname = \"n1\"\nschedule = { steps = [{ at = \"1s\", mcs = 8 }] }\n";
    let r = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let w = &r.wifi[0];
    assert_eq!(schedule_of(w, "n1", "n0"), steps(None, &[(SEC, phy(8, 2, 40, 400))]));
    assert_eq!(schedule_of(w, "n1", "n2"), steps(None, &[(SEC, phy(8, 2, 40, 400))]));
    assert_eq!(schedule_of(w, "n0", "n1"), None);
    assert_eq!(schedule_of(w, "n2", "n1"), None);
}

#[test]
fn schedules_are_checked_where_written() {
    let sched = |table: &str| {
        replace_once(&switch(), &format!("schedule = {ALTERNATING_24_6}"), &format!("schedule = {table}"))
    };
    let at = "wifi[0].node[0].schedule";
    assert_refused("wifi_scenario", "schedules", |edit| edit.snippet().map(sched));
    let n = |table: &str| replace_once(&bss(), "gi = \"400ns\"\n", &format!("gi = \"400ns\"\nschedule = {table}\n"));
    assert_refused("wifi_scenario", "schedules_802_11n", |edit| edit.snippet().map(n));
    // A combination is checked per link and step: VHT MCS 9 at 20 MHz needs 3 or 6 streams.
    let ac =
        replace_once(&n("{ steps = [{ at = \"0s\", mcs = 9, width = 20 }] }"), "standard = \"n\"", "standard = \"ac\"");
    assert_error(
        load(&ac),
        &format!("{at}.steps[0].mcs"),
        "VHT MCS 9 is not defined at 20 MHz with 1 spatial stream(s)",
    );
    assert!(load(&replace_once(&ac, "mcs = 9, width = 20", "mcs = 9, width = 20, nss = 3")).is_ok());
}

#[test]
fn set_reaches_a_schedule() {
    let r = load_with(&switch(), &[("wifi.bss.node.sta2.schedule.period", "\"4s\"")]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(schedule_of(&r.wifi[0], "sta2", "ap").unwrap().period, Some(4 * SEC));
    let r = load_with(&switch(), &[("wifi.bss.node.sta2.schedule.steps[1].rate", "12Mbit")]).unwrap();
    assert_eq!(schedule_of(&r.wifi[0], "ap", "sta2").unwrap().steps[1].phy, non_ht(12));
    let sets = [("wifi.bss.node.sta3.schedule", "{ steps = [{ at = \"5s\", rate = \"6Mbit\" }] }")];
    let r = load_with(&switch(), &sets).unwrap();
    assert_eq!(schedule_of(&r.wifi[0], "sta3", "ap"), steps(None, &[(5 * SEC, non_ht(6))]));
    let err = load_with(&switch(), &[("wifi.bss.node.sta2.schedule.steps[1].at", "7")]).unwrap_err();
    assert_eq!(err.key, "wifi[0].node[0].schedule.steps[1].at");
    assert!(err.message.contains("has no unit") && err.message.contains("(from --set"), "{err}");
    assert_error(
        load_with(&switch(), &[("wifi.bss.node.sta2.schedule.period", "1s")]),
        "wifi[0].node[0].schedule.steps[1].at",
        "less than the period (\"1s\")",
    );
}

// ---- --set overrides ----

#[test]
fn set_wifi_keys_by_index_and_name() {
    let r = load_with(&chain(), &[("wifi[0].mcs", "7")]).unwrap();
    assert!(r.wifi[0].links.iter().all(|l| (l.phy.mcs, l.phy.nss) == (7, 1)));
    let r = load_with(&bss(), &[("wifi.bss.width", "20"), ("wifi.bss.node.sta2.mcs", "15")]).unwrap();
    assert_eq!(link_phy(&r.wifi[0], "sta2", "ap").0, phy(15, 2, 20, 400));
    let r = load_with(&bss(), &[("bss.gi", "400ns"), ("wifi[0].node[1].per", "0")]).unwrap();
    assert_eq!(link_phy(&r.wifi[0], "ap", "sta1"), (phy(5, 1, 40, 400), 0.0));
    let r = load_with(&bss(), &[("wifi.bss.aggregation.max_duration", "4ms"), ("wifi.bss.edca.cw_min", "31")]).unwrap();
    assert_eq!(r.wifi[0].node("ap").unwrap().aggregation.max_duration, 4 * MS);
    assert_eq!(r.wifi[0].edca.cw_min, 31);
    // A network without a name is "wifi<i>".
    let unnamed = replace_once(&chain(), "name = \"mesh\"\n", "");
    let r = load_with(&unnamed, &[("wifi.wifi0.width", "20")]).unwrap();
    assert_eq!(r.wifi[0].links[0].phy.width_mhz, 20);
}

#[test]
fn set_rate_of_an_11a_member() {
    let a = replace_once(&chain(), "standard = \"n\"", "standard = \"a\"");
    let a = replace_once(
        &a,
        "mcs = 15\nwidth = 40\ngi = \"400ns\"\naggregation = { max_mpdus = 32, max_duration = \"4ms\" }\n",
        "",
    );
    let a = replace_once(&a, "[[flow]]", "[[wifi.node]]\nname = \"n1\"\n\n[[flow]]");
    let r = load_with(&a, &[("wifi[0].node[0].rate", "\"6Mbit\""), ("wifi.mesh.rate", "24Mbit")]).unwrap();
    let w = &r.wifi[0];
    assert_eq!(link_phy(w, "n1", "n2").0.rate_bps, 6_000_000);
    assert_eq!(link_phy(w, "n2", "n1").0.rate_bps, 24_000_000);
}

#[test]
fn set_wifi_errors_name_the_override() {
    let err = load_with(&chain(), &[("wifi[0].mcs", "300")]).unwrap_err();
    assert_eq!(err.key, "wifi[0].mcs");
    assert!(
        err.message.contains("expected a whole number from 0 to 255")
            && err.message.contains("(from --set wifi[0].mcs=300)"),
        "{err}"
    );
    assert_refused("wifi_scenario", "wifi_sets", |edit| matches!(edit, Edit::Set(..)).then(chain));
    let err = load_with(&chain(), &[("wifi.mesh.edca.cwmin", "3")]).unwrap_err();
    assert_eq!(err.key, "wifi[0].edca.cwmin");
    assert!(err.message.contains("from --set"), "{err}");
}

// ---- documentation ----

#[test]
fn docs_examples_load() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/scenario.md");
    let docs = std::fs::read_to_string(file).unwrap();
    let examples: Vec<&str> = docs
        .split("```toml\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap())
        .filter(|block| block.contains("[[wifi]]"))
        .collect();
    assert_eq!(examples.len(), 3);
    let bss = load(examples[0]).unwrap_or_else(|e| panic!("{e}"));
    let w = &bss.wifi[0];
    assert_eq!((link_phy(w, "ap", "near").0.mcs, link_phy(w, "far", "ap").0.mcs), (7, 1));
    assert_eq!(layer(&w.node("far").unwrap().device), DeviceLayer::PerStation { size: 128, airtime_fairness: true });
    let chain = load(examples[1]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(path(&chain, "n0", "n4"), "n0 n1 n2 n3 n4");
    assert!(chain.wifi[0].links.iter().all(|l| l.phy == phy(15, 2, 40, 400)));
    let switch = load(examples[2]).unwrap_or_else(|e| panic!("{e}"));
    let want = steps(Some(2 * SEC), &[(0, non_ht(24)), (SEC, non_ht(6))]);
    assert_eq!(schedule_of(&switch.wifi[0], "ap1", "ed1"), want);
    assert_eq!(schedule_of(&switch.wifi[0], "ed2", "ap1"), None);
    assert_eq!(path(&switch, "ed1", "ed3"), "ed1 ap1 ap2 ed3");
}

#[test]
fn a_fifo_device_may_bound_how_long_frames_wait() {
    let with = |device: &str| {
        let text = replace_once(
            &bss(),
            "width = 40\n",
            &format!("width = 40\nnode = [{{ name = \"ap\", device = {device} }}]\n"),
        );
        text.split("[[wifi.node]]").next().unwrap().to_string()
            + "[[flow]]\nfrom = \"server\"\nto = \"sta1\"\ncc = \"cubic\"\napp = { kind = \"bulk\" }\n"
    };
    let r = load(&with("{ kind = \"fifo\", size = 500, lifetime = \"500ms\" }")).unwrap();
    let lifetime = Some(500 * airlab_core::sim::MS);
    assert_eq!(layer(&r.wifi[0].node("ap").unwrap().device), DeviceLayer::Fifo { size: 500, lifetime });
    assert_refused("wifi_scenario", "fifo_lifetime", |edit| edit.snippet().map(with));
}
