//! The Wi-Fi MAC end to end: the performance anomaly and airtime fairness, A-MPDU
//! aggregation against no aggregation, per-MPDU errors recovered by retransmission, hidden
//! terminals with and without RTS/CTS, and determinism under contention randomness.
//! (Bianchi's model and the single-station efficiency are checked in `tests/test_wifi_mac.py`,
//! where the analytical models live.)

use crate::builders::*;
use crate::common::*;
use serde_json::Value;

fn wifi_link<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["wifi"][0]["links"].as_array().unwrap().iter().find(|l| l["name"] == name).unwrap_or_else(|| panic!("no {name}"))
}

/// An 802.11a BSS "bss" with a fast (54 Mbit/s) and a slow (6 Mbit/s) station, below `device`.
fn fast_and_slow(device: &str) -> Wifi {
    Wifi::bss("a", "ap", &["fast", "slow"])
        .name("bss")
        .rate("54Mbit")
        .key("device", device)
        .node("slow", &[("rate", r#""6Mbit""#)])
}

/// The fast and slow stations, each saturating with UDP in direction `dir` ("up": stations ->
/// AP; "down": AP -> stations).
fn anomaly(dir: &str, device: &str) -> Value {
    let flow = |i: usize, sta: &str| {
        let (from, to) = if dir == "up" { (sta, "ap") } else { ("ap", sta) };
        Flow::new(from, to).name(&format!("f{i}")).app(udp("60Mbit"))
    };
    let bss = fast_and_slow(device);
    let scenario = Scenario::new("anomaly", "6s").hosts(&["ap", "fast", "slow"]).warmup("1s").wifi(bss);
    run_toml(&scenario.flows([flow(0, "fast"), flow(1, "slow")]).to_string(), None).summary
}

#[test]
fn a_slow_station_drags_a_fast_one_down_to_its_throughput() {
    // Heusse et al. 2003: DCF gives each saturated station the same chance to send a frame,
    // so both get about the same throughput, close to what the slow one alone would get x2.
    let s = anomaly("up", r#"{ kind = "fifo", size = 100 }"#);
    let fast = f(&wifi_link(&s, "bss:fast->ap")["throughput_mbps"]);
    let slow = f(&wifi_link(&s, "bss:slow->ap")["throughput_mbps"]);
    eprintln!("anomaly, uplink: fast {fast:.2} Mbit/s, slow {slow:.2} Mbit/s");
    assert!((fast / slow - 1.0).abs() < 0.1, "fast {fast} slow {slow}");
    // Each frame exchange at 54 Mbit/s takes ~0.3 ms against ~2.2 ms at 6: both sit near
    // 1500 B x 8 / (0.3 + 2.2 + backoff) ms.
    assert!(fast < 6.0, "the fast station is held near the slow one's rate: {fast}");
}

/// The AP sends one TCP CUBIC flow to each station, from per-station queues large enough to
/// hold both standing queues (so the qdisc stays empty, as with mac80211's intermediate
/// queues), served round robin or airtime-fair.
fn downlink_tcp(airtime_fairness: bool) -> Value {
    let device = format!(r#"{{ kind = "per_station", size = 1000, airtime_fairness = {airtime_fairness} }}"#);
    let flows = ["fast", "slow"].map(|sta| Flow::bulk("ap", sta, "cubic").name(&format!("to_{sta}")));
    let scenario = Scenario::new("downlink", "15s").hosts(&["ap", "fast", "slow"]).warmup("5s");
    run_toml(&scenario.wifi(fast_and_slow(&device)).flows(flows).to_string(), None).summary
}

#[test]
fn airtime_fairness_gives_both_stations_equal_airtime_on_the_downlink() {
    let (rr, atf) = (downlink_tcp(false), downlink_tcp(true));
    let share = |s: &Value, sta: &str| f(&wifi_link(s, &format!("bss:ap->{sta}"))["airtime_share"]);
    let goodput = |s: &Value, sta: &str| f(&flow(s, &format!("to_{sta}"))["goodput_mbps"]);
    eprintln!(
        "downlink TCP, round robin: airtime {:.3}/{:.3}, {:.2}/{:.2} Mbit/s; airtime fair: {:.3}/{:.3}, {:.2}/{:.2} Mbit/s",
        share(&rr, "fast"),
        share(&rr, "slow"),
        goodput(&rr, "fast"),
        goodput(&rr, "slow"),
        share(&atf, "fast"),
        share(&atf, "slow"),
        goodput(&atf, "fast"),
        goodput(&atf, "slow")
    );
    // Round robin by frames: the anomaly, equal throughput, the slow station takes most of
    // the airtime.
    assert!((goodput(&rr, "fast") / goodput(&rr, "slow") - 1.0).abs() < 0.1);
    assert!(share(&rr, "slow") > 3.0 * share(&rr, "fast"));
    // Airtime fairness: equal airtime, so the fast station gets several times the throughput.
    let (a, b) = (share(&atf, "fast"), share(&atf, "slow"));
    assert!((a / b - 1.0).abs() < 0.05, "airtime {a} vs {b}");
    assert!(goodput(&atf, "fast") > 4.0 * goodput(&atf, "slow"));
}

/// One TCP CUBIC flow over one 802.11n hop at `mcs`/`width` with short GI, with or without
/// A-MPDU: (goodput Mbit/s, mean RTT ms, mean MPDUs per PPDU of the data direction).
fn one_hop_tcp(mcs: u32, width: u32, aggregation: bool) -> (f64, f64, f64) {
    let aggregation = format!(r#"{{ enabled = {aggregation}, max_mpdus = 32, max_duration = "4ms" }}"#);
    let hop = Wifi::mesh("n", &["a", "b"]).name("chain").key("mcs", mcs).key("width", width).key("gi", r#""400ns""#);
    let hop = hop.key("aggregation", aggregation).key("qdisc", pfifo(1000));
    let scenario = Scenario::new("hop", "8s").hosts(&["a", "b"]).warmup("3s").wifi(hop);
    let text = scenario.flow(Flow::bulk("a", "b", "cubic").name("tcp")).to_string();
    let s = run_toml(&text, None).summary;
    let fl = flow(&s, "tcp");
    let data = wifi_link(&s, "chain:a->b");
    (f(&fl["goodput_mbps"]), f(&fl["rtt_ms"]["mean"]), f(&data["mpdus_per_ppdu"]))
}

#[test]
fn aggregation_multiplies_one_hop_tcp_throughput_at_high_rates() {
    for (mcs, width) in [(15, 20), (15, 40)] {
        let (off, rtt_off, _) = one_hop_tcp(mcs, width, false);
        let (on, rtt_on, mpdus) = one_hop_tcp(mcs, width, true);
        eprintln!(
            "HT MCS{mcs} {width} MHz SGI: no A-MPDU {off:.1} Mbit/s RTT {rtt_off:.0} ms; A-MPDU {on:.1} Mbit/s \
             RTT {rtt_on:.0} ms, {mpdus:.1} MPDUs per PPDU"
        );
        assert!(on > 2.5 * off, "{on} vs {off}");
        // TCP Small Queues keeps about 8 ms of the station's pacing rate (1.2 x its goodput) of
        // truesize in its queues, 6 ms of payload, either way, so neither RTT shows the
        // 1000-packet pfifo (over 100 ms at these rates).
        assert!(rtt_on < 25.0 && rtt_off < 25.0, "RTT {rtt_on} ms with A-MPDU, {rtt_off} ms without");
        assert!(mpdus > 20.0, "aggregates near the 32-MPDU limit: {mpdus}");
    }
}

#[test]
fn mpdu_errors_are_repaired_by_retransmission_without_tcp_seeing_loss() {
    // 10 % MPDU error rate, retry limit 7: a frame is lost for good with probability 1e-7,
    // so TCP sees in-order delivery (the reorder buffer holds frames behind a failed one).
    let lossy = Wifi::mesh("n", &["a", "b"]).name("w").key("mcs", 7).key("per", 0.1);
    let scenario = Scenario::new("lossy", "5s").hosts(&["a", "b"]).wifi(lossy);
    let s = run_toml(&scenario.flow(Flow::bulk("a", "b", "cubic").name("tcp")).to_string(), None).summary;
    let data = wifi_link(&s, "w:a->b");
    let fl = flow(&s, "tcp");
    let retried = f(&data["mpdus"]) - f(&data["mpdus_acked"]);
    eprintln!(
        "PER 0.1: {} MPDUs, {} acked, retransmits at TCP {}",
        data["mpdus"], data["mpdus_acked"], fl["retransmits"]
    );
    assert!(retried / f(&data["mpdus"]) > 0.05, "about 10 % of MPDU transmissions fail");
    assert_eq!(f(&data["mpdu_drops"]), 0.0);
    assert_eq!(f(&fl["retransmits"]), 0.0, "TCP never retransmits");
}

/// Two stations that cannot hear each other send to an AP between them.
fn hidden(rts: bool) -> Value {
    let bss = Wifi::bss("a", "ap", &["s1", "s2"]).name("bss").rate("24Mbit").key("rts", rts);
    let bss = bss.key("hears", r#"[["ap", "s1"], ["ap", "s2"]]"#);
    let flows = [("u1", "s1"), ("u2", "s2")].map(|(name, sta)| Flow::new(sta, "ap").name(name).app(udp("20Mbit")));
    let scenario = Scenario::new("hidden", "5s").hosts(&["ap", "s1", "s2"]).warmup("1s").wifi(bss).flows(flows);
    run_toml(&scenario.to_string(), None).summary
}

#[test]
fn hidden_terminals_collide_and_rts_cts_protects_them() {
    let (plain, rts) = (hidden(false), hidden(true));
    let sum = |s: &Value, key: &str| f(&wifi_link(s, "bss:s1->ap")[key]) + f(&wifi_link(s, "bss:s2->ap")[key]);
    let failed = |s: &Value| sum(s, "failed_ppdus") / sum(s, "ppdus");
    eprintln!(
        "hidden terminals: basic {:.2} Mbit/s, {:.0} % of data PPDUs unacknowledged; RTS/CTS {:.2} Mbit/s, {:.0} %",
        sum(&plain, "throughput_mbps"),
        100.0 * failed(&plain),
        sum(&rts, "throughput_mbps"),
        100.0 * failed(&rts)
    );
    // Without carrier sense between them, the two stations' 0.5 ms frames overlap often; the
    // AP's CTS silences the other station for the whole exchange.
    assert!(failed(&plain) > 0.3, "{}", failed(&plain));
    assert!(failed(&rts) < 0.5 * failed(&plain));
    assert!(sum(&rts, "throughput_mbps") > 1.4 * sum(&plain, "throughput_mbps"));
}

#[test]
fn contention_is_deterministic_for_a_seed_and_varies_across_seeds() {
    let text = builtin_text_cell();
    let a = run_toml(&text, Some(3)).deterministic_summary();
    let b = run_toml(&text, Some(3)).deterministic_summary();
    let c = run_toml(&text, Some(4)).deterministic_summary();
    assert_eq!(a, b);
    assert_ne!(a["wifi"], c["wifi"]);
}

fn builtin_text_cell() -> String {
    let stations = ["s0", "s1", "s2", "s3", "s4", "s5"];
    let flows = (0..6).map(|i| Flow::new(stations[i], "ap").name(&format!("u{i}")).app(udp("20Mbit")));
    let bss = Wifi::bss("ax", "ap", &stations).name("bss");
    let scenario = Scenario::new("cell", "2s").hosts(&["ap", "s0", "s1", "s2", "s3", "s4", "s5"]).wifi(bss);
    scenario.flows(flows).to_string()
}

/// One saturated 802.11a station at 54 Mbit/s (1500-byte UDP) with a TXOP limit: UDP
/// throughput (Mbit/s) at the AP.
fn txop_throughput(txop: &str) -> f64 {
    let bss = Wifi::bss("a", "ap", &["sta"]).name("bss").rate("54Mbit").key("edca", format!("{{ txop = \"{txop}\" }}"));
    let scenario = Scenario::new("txop", "4s").hosts(&["ap", "sta"]).warmup("1s").wifi(bss);
    let text = scenario.flow(Flow::new("sta", "ap").name("u").app(udp("60Mbit"))).to_string();
    f(&wifi_link(&run_toml(&text, None).summary, "bss:sta->ap")["throughput_mbps"])
}

#[test]
fn a_txop_sends_as_many_exchanges_as_fit_after_one_channel_access() {
    // 802.11a 54 Mbit/s, 1538-byte MPDU: PPDU 20 + 58 x 4 = 252 us, ACK at 24 Mbit/s 28 us,
    // SIFS 16, AIFS 43, slot 9, CWmin 15. One exchange is 252 + 16 + 28 = 296 us; within a TXOP
    // each further one adds a SIFS: k exchanges fit in 2.528 ms while 296 + 312 (k - 1) <= 2528,
    // so k = 8. Per access: AIFS + 7.5 slots (mean backoff) + 8 x 296 + 7 x 16 us.
    let (slot, aifs, exchange, sifs) = (9.0, 43.0, 296.0, 16.0);
    let per_access = |k: f64| aifs + 7.5 * slot + k * exchange + (k - 1.0) * sifs;
    let want_one = 12_000.0 / per_access(1.0);
    let want_txop = 8.0 * 12_000.0 / per_access(8.0);
    let (one, txop) = (txop_throughput("0ms"), txop_throughput("2.528ms"));
    eprintln!("TXOP: none {one:.2} Mbit/s (model {want_one:.2}), 2.528 ms {txop:.2} (model {want_txop:.2})");
    assert!((one / want_one - 1.0).abs() < 0.02, "{one} vs {want_one}");
    assert!((txop / want_txop - 1.0).abs() < 0.02, "{txop} vs {want_txop}");
}
