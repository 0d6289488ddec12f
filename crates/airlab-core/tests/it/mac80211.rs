//! The mac80211 layer of a Wi-Fi interface (per-station FQ-CoDel TXQs, airtime fairness, AQL)
//! against what it is known to do: bounded latency under load where a FIFO AP bloats
//! (Høiland-Jørgensen et al., "Ending the Anomaly", ATC 2017: an order of magnitude), drops
//! inside the layer rather than in the qdisc above, and equal airtime for stations at unequal
//! rates.

use crate::builders::*;
use crate::common::*;
use airlab_core::RunOutput;

/// A server behind an 802.11ax AP, a download to each station (`mcs` per station, 20 MHz, one
/// stream; `download` gives the flow its app), a 10 ms ping to the first, and the AP's `device`
/// (and `qdisc`, if given).
fn cell(mcs: &[u8], device: &str, qdisc: Option<&str>, download: fn(Flow) -> Flow) -> RunOutput {
    let names: Vec<String> = (0..mcs.len()).map(|i| format!("sta{i}")).collect();
    let stations: Vec<&str> = names.iter().map(String::as_str).collect();
    let ap: Vec<(&str, &str)> = [("device", device)].into_iter().chain(qdisc.map(|q| ("qdisc", q))).collect();
    let mcs: Vec<String> = mcs.iter().map(u8::to_string).collect();
    let bss = Wifi::bss("ax", "ap", &stations).name("bss").key("width", 20).node("ap", &ap);
    let bss = stations.iter().zip(&mcs).fold(bss, |bss, (s, m)| bss.node(s, &[("mcs", m)]));
    let downloads = stations.iter().map(|s| download(Flow::new("server", s).name(&format!("down-{s}"))));
    let ping = Flow::new("server", "sta0").name("ping").app(r#"{ kind = "ping", interval = "10ms" }"#);
    let scenario = Scenario::new("mac80211-cell", "12s")
        .hosts(&[&["server"], &stations[..]].concat())
        .routers(&["ap"])
        .warmup("4s")
        .link(Link::new("server", "ap", "1Gbit", "2ms"))
        .wifi(bss)
        .flows(downloads)
        .flow(ping);
    run_toml(&scenario.to_string(), Some(1))
}

const MAC80211: &str = r#"{ kind = "mac80211" }"#;
const FIFO_AP: &str = r#"{ kind = "per_station", size = 128 }"#;
/// A CUBIC bulk download.
fn cubic(flow: Flow) -> Flow {
    flow.cc("cubic").app(BULK)
}

fn ap_queue(out: &RunOutput) -> &serde_json::Value {
    let queues = out.summary["queues"].as_array().unwrap();
    queues.iter().find(|q| q["name"] == "bss:ap").expect("the AP's queue")
}

#[test]
fn mac80211_keeps_latency_under_load_an_order_of_magnitude_below_a_fifo_ap() {
    // One CUBIC download at HE MCS 1 (17.2 Mbit/s PHY) and a ping beside it. The FIFO AP
    // (pfifo 1000 over a 128-frame driver queue) lets CUBIC build hundreds of ms; mac80211
    // keeps the ping in a sparse flow of its own behind at most AQL's 12 ms of firmware queue.
    let fifo = cell(&[1], FIFO_AP, Some(r#"{ kind = "pfifo", limit = 1000 }"#), cubic);
    let mac = cell(&[1], MAC80211, None, cubic);
    let p50 = |out: &RunOutput| f(&flow(&out.summary, "ping")["rtt_ms"]["p50"]);
    assert!(p50(&fifo) > 200.0, "FIFO AP ping p50 {} ms", p50(&fifo));
    // The ping's bound under mac80211: 4 ms of wire, at most AQL's 12 ms of CUBIC frames in
    // the firmware ahead of it, the PPDU on the air (at most 5.5 ms) and channel access.
    assert!(p50(&mac) < 24.0, "mac80211 ping p50 {} ms", p50(&mac));
    assert!(p50(&fifo) > 10.0 * p50(&mac));
    // CUBIC's own queue is CoDel's: its sRTT stays near target + AQL, not hundreds of ms.
    let srtt = f(&flow(&mac.summary, "down-sta0")["srtt_ms"]["p50"]);
    assert!(srtt < 60.0, "CUBIC sRTT p50 {srtt} ms under mac80211");
    // The link stays as busy.
    let goodput = |out: &RunOutput| f(&flow(&out.summary, "down-sta0")["goodput_mbps"]);
    assert!(goodput(&mac) > 0.9 * goodput(&fifo), "{} vs {}", goodput(&mac), goodput(&fifo));
}

#[test]
fn mac80211_drops_in_its_txqs_and_the_noqueue_above_never_holds_a_packet() {
    let out = cell(&[1], MAC80211, None, cubic);
    let q = ap_queue(&out);
    assert_eq!(q["kind"], "noqueue");
    assert_eq!(f(&q["drops"]), 0.0);
    assert!(f(&q["device_drops"]) > 0.0, "CoDel in the TXQ drops: {q}");
    assert_eq!(f(&q["backlog_pkts"]["max"]), 0.0);
}

#[test]
fn airtime_fairness_with_aql_gives_stations_at_unequal_rates_equal_airtime() {
    // Saturating UDP to a station at MCS 7 (86 Mbit/s) and one at MCS 1 (17.2 Mbit/s). Round
    // robin over frames gives the slow station most of the air (the performance anomaly);
    // mac80211's airtime scheduler with AQL splits it evenly.
    let saturating = |flow: Flow| flow.app(udp("100Mbit"));
    let airtime = |out: &RunOutput| {
        let links = out.summary["wifi"][0]["links"].as_array().unwrap();
        let at = |name: &str| f(&links.iter().find(|l| l["name"] == name).unwrap()["airtime_share"]);
        let (fast, slow) = (at("bss:ap->sta0"), at("bss:ap->sta1"));
        fast / (fast + slow)
    };
    let rr = cell(&[7, 1], r#"{ kind = "per_station", size = 256 }"#, None, saturating);
    let mac = cell(&[7, 1], MAC80211, None, saturating);
    assert!(airtime(&rr) < 0.35, "round robin: fast station's airtime share {}", airtime(&rr));
    assert!((airtime(&mac) - 0.5).abs() < 0.05, "mac80211: fast station's airtime share {}", airtime(&mac));
}

#[test]
fn mac80211_keys_are_checked() {
    let text = builtin("wifi/ax-cell-10");
    let per_station = r#"device = { kind = "per_station", size = 2000, airtime_fairness = true }"#;
    assert_refused("mac80211", "mac80211_keys", |edit| match edit {
        Edit::Snippet(device) => Some(replace_once(&text, per_station, &format!("device = {device}"))),
        _ => edit.replace().map(|(from, to)| replace_once(&text, from, to)),
    });
}

#[test]
fn mac80211_keys_are_read_and_written_back_in_the_files_units() {
    use airlab_core::sim::MS;
    use airlab_core::wifi::device::layer;
    use airlab_core::wifi::device::mac80211::Mac80211Params;
    use airlab_core::wifi::device::DeviceLayer;
    let text = builtin("wifi/ax-cell-10");
    let device = r#"device = { kind = "mac80211", flows = 1024, quantum = "1514B", target = "5ms", aql_high = "8ms", airtime_fairness = false }"#;
    let text =
        replace_once(&text, r#"device = { kind = "per_station", size = 2000, airtime_fairness = true }"#, device);
    let resolved = load_with(&text, &[]).unwrap();
    let ap = &resolved.wifi[0].nodes[0];
    let want = Mac80211Params {
        flows: 1024,
        quantum: 1514,
        target: 5 * MS,
        aql_high: 8 * MS,
        airtime_fairness: false,
        ..Mac80211Params::LINUX
    };
    assert_eq!(layer(&ap.device), DeviceLayer::Mac80211(want));
    let json = serde_json::to_value(&resolved).unwrap();
    let written = &json["wifi"][0]["nodes"][0]["device"];
    assert_eq!(written["kind"], "mac80211");
    let units = [&written["target"], &written["interval"], &written["quantum"], &written["memory_limit"]];
    assert_eq!(units.map(|v| v.as_str()), [Some("5ms"), Some("100ms"), Some("1514B"), Some("16MiB")]);
    // What it writes reads back to the same layer.
    let table = toml::Value::try_from(written).unwrap();
    let again = replace_once(&text, device, &format!("device = {table}"));
    assert_eq!(load_with(&again, &[]).unwrap().wifi[0].nodes[0].device, ap.device);
}

#[test]
fn an_ax_network_defaults_to_mac80211_under_noqueue_and_the_others_do_not() {
    use airlab_core::wifi::device::layer;
    use airlab_core::wifi::device::DeviceLayer;
    let text = builtin("wifi/ax-cell-10");
    let ax = replace_once(&text, r#"device = { kind = "per_station", size = 2000, airtime_fairness = true }"#, "");
    let resolved = load_with(&ax, &[]).unwrap();
    let ap = &resolved.wifi[0].nodes[0];
    assert!(
        matches!(layer(&ap.device), DeviceLayer::Mac80211(p) if p == airlab_core::wifi::device::mac80211::Mac80211Params::LINUX)
    );
    assert_eq!(ap.qdisc.component().name, "noqueue");
    let ac = replace_once(&ax, r#"standard = "ax""#, r#"standard = "ac""#)
        .replace("mcs = 11", "mcs = 8")
        .replace("mcs = 9", "mcs = 8");
    let resolved = load_with(&ac, &[]).unwrap();
    assert!(matches!(layer(&resolved.wifi[0].nodes[0].device), DeviceLayer::PerStation { .. }));
    assert_eq!(resolved.wifi[0].nodes[0].qdisc.component().name, "pfifo");
}
