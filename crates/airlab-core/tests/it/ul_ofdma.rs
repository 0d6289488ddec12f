//! 802.11ax uplink OFDMA end to end: the AP's trigger cycles (BSRP, buffer status reports,
//! Basic Trigger, HE TB data, Multi-STA Block Ack) against their hand-computed durations, with
//! and without BSRP, per-MPDU retries, MU EDCA, hidden stations and TCP over them.

use crate::builders::*;
use crate::common::*;
use serde_json::Value;

/// MU EDCA with AIFSN 0: after their first acknowledged TB PPDU the stations send only when
/// triggered, so every cycle is the AP's.
const TRIGGERED_ONLY: &str = r#"{ aifsn = 0, cw_min = 15, cw_max = 1023, timer = "2088.96ms" }"#;

/// More than a station's share of any cell here.
const SATURATING: &str = "30Mbit";

/// An 802.11ax BSS at `width` MHz, HE-MCS 7, GI 0.8 µs with `n` stations each sending UDP at
/// `rate` to the AP, with uplink OFDMA for `n` stations and `keys`.
fn uplink(n: usize, width: u16, rate: &str, keys: &[(&str, &str)], seed: Option<u64>) -> Value {
    let stations: Vec<String> = (1..=n).map(|i| format!("s{i}")).collect();
    let names: Vec<&str> = stations.iter().map(String::as_str).collect();
    let bss = Wifi::bss("ax", "ap", &names)
        .name("bss")
        .key("width", width)
        .key("mcs", 7)
        .key("gi", "\"800ns\"")
        .key("ofdma_stations", n);
    let bss = keys.iter().fold(bss, |bss, (k, v)| bss.key(k, v));
    let hosts = [&["ap"], names.as_slice()].concat();
    let flows = names.iter().map(|s| Flow::new(s, "ap").name(&format!("from_{s}")).app(udp(rate)));
    let scenario = Scenario::new("ul-ofdma", "4s").hosts(&hosts).warmup("1s").wifi(bss).flows(flows);
    run_toml(&scenario.to_string(), seed).deterministic_summary()
}

fn uplink_links(s: &Value) -> impl Iterator<Item = &Value> {
    s["wifi"][0]["links"].as_array().unwrap().iter().filter(|l| l["to"] == "ap")
}

/// A saturated trigger cycle for four stations on 52-tone RUs at HE-MCS 7, GI 0.8 µs, from
/// the AP's first trigger to the Multi-STA Block Ack: BSRP for 4 (48 bytes at 6 Mbit/s,
/// 88 us), SIFS, the QoS Null reports in HE TB PPDUs (48 us preamble + 2 symbols of 13.6 us),
/// SIFS, the Basic Trigger for 4 (52 bytes, 96 us), SIFS, the TB data PPDU the AP grants in
/// full (the stations report 65,024 bytes, more than aPPDUMaxTime holds: the 48 us preamble
/// and the 399 whole symbols of 13.6 us that fit in 5484 us), SIFS, the Multi-STA Block Ack
/// for 4 (166 bytes at 24 Mbit/s, 80 us).
const TB_PPDU_US: f64 = 48.0 + 399.0 * 13.6;
const CYCLE_4_US: f64 = 88.0 + 16.0 + 75.2 + 16.0 + 96.0 + 16.0 + TB_PPDU_US + 16.0 + 80.0;

#[test]
fn a_saturated_ul_trigger_cycle_matches_its_hand_computed_duration() {
    // Each station fits seven 1538-byte MPDUs in the 399 data symbols after the TB preamble
    // (an A-MPDU of 10806 bytes takes 361 symbols of 240 bits; eight would take 412). The AP
    // contends before each cycle: AIFS 43 us + 7.5 slots of 9 us on average.
    let want = 4.0 * 7.0 * 1472.0 * 8.0 / (43.0 + 67.5 + CYCLE_4_US); // 55.0 Mbit/s
    let s = uplink(4, 20, SATURATING, &[("ofdma", "\"ul\""), ("mu_edca", TRIGGERED_ONLY)], None);
    let got = goodput_sum(&s);
    eprintln!("UL OFDMA, 4 stations: {got:.2} Mbit/s, hand-computed {want:.2}");
    assert!((got / want - 1.0).abs() < 0.01, "{got} vs {want}");
    let ul = &s["wifi"][0]["ul_ofdma"];
    assert!((f(&ul["cycle_us"]) - CYCLE_4_US).abs() < 0.01, "{ul}");
    assert_eq!(ul["users_per_trigger"], 4.0);
    assert_eq!(ul["bsrps"], ul["cycles"]);
    for link in uplink_links(&s) {
        assert_eq!(f(&link["mpdus_per_ampdu"]), 7.0, "{}", link["name"]);
        assert_eq!(link["mu_ppdus"], link["ppdus"], "{}: every PPDU is an HE TB PPDU", link["name"]);
        assert_eq!(link["mu_ru_tones"], 52.0);
        assert_eq!(link["collisions"], 0);
    }
    // The same seed gives the same run.
    assert_eq!(s, uplink(4, 20, SATURATING, &[("ofdma", "\"ul\""), ("mu_edca", TRIGGERED_ONLY)], None));
}

#[test]
fn without_bsrp_the_ap_grants_from_the_queue_sizes_the_data_carried() {
    // The cycle is the Basic Trigger, the TB data and the Multi-STA Block Ack: each station's
    // QoS Control field reported its queue for the next grant.
    let cycle_us = 96.0 + 16.0 + TB_PPDU_US + 16.0 + 80.0;
    let want = 4.0 * 7.0 * 1472.0 * 8.0 / (43.0 + 67.5 + cycle_us); // 56.9 Mbit/s
    let keys = [("ofdma", "\"ul\""), ("mu_edca", TRIGGERED_ONLY), ("ofdma_bsrp", "false")];
    let s = uplink(4, 20, SATURATING, &keys, None);
    let got = goodput_sum(&s);
    eprintln!("UL OFDMA without BSRP, 4 stations: {got:.2} Mbit/s, hand-computed {want:.2}");
    assert!((got / want - 1.0).abs() < 0.01, "{got} vs {want}");
    let ul = &s["wifi"][0]["ul_ofdma"];
    assert_eq!(ul["bsrps"], 0);
    assert!((f(&ul["cycle_us"]) - cycle_us).abs() < 0.01, "{ul}");
}

#[test]
fn mpdus_lost_in_a_tb_ppdu_are_retried() {
    // The Multi-STA Block Ack leaves out the MPDUs in error; the stations send them again in
    // a later TB PPDU, so UDP loses nothing and the goodput falls by about the error rate.
    let keys = [("ofdma", "\"ul\""), ("mu_edca", TRIGGERED_ONLY)];
    let clean = goodput_sum(&uplink(4, 20, SATURATING, &keys, None));
    let s = uplink(4, 20, SATURATING, &[keys[0], keys[1], ("per", "0.1")], None);
    let lossy = goodput_sum(&s);
    eprintln!("UL OFDMA with PER 0.1: {lossy:.2} Mbit/s against {clean:.2}");
    assert!((lossy / clean - 0.9).abs() < 0.03, "{lossy} vs {clean}");
    for link in uplink_links(&s) {
        assert_eq!(link["mpdu_drops"], 0, "{}", link["name"]);
    }
}

#[test]
fn mu_edca_moves_the_uplink_from_contention_to_triggers() {
    // Without MU EDCA the stations keep contending with EDCA beside the AP's triggers and
    // collide among themselves; OpenWrt's set (AIFSN 8, CW 511-1023) makes their own
    // accesses rare, and AIFSN 0 stops them.
    let tb_share = |s: &Value| {
        let (tb, all) = uplink_links(s).fold((0.0, 0.0), |(tb, all), l| (tb + f(&l["mu_ppdus"]), all + f(&l["ppdus"])));
        tb / all
    };
    let collisions = |s: &Value| uplink_links(s).map(|l| f(&l["collisions"])).sum::<f64>();
    let edca = uplink(4, 20, SATURATING, &[("ofdma", "\"ul\"")], None);
    let openwrt = uplink(4, 20, SATURATING, &[("ofdma", "\"ul\""), ("mu_edca", "{}")], None);
    let off = uplink(4, 20, SATURATING, &[("ofdma", "\"ul\""), ("mu_edca", TRIGGERED_ONLY)], None);
    let shares = [tb_share(&edca), tb_share(&openwrt), tb_share(&off)];
    eprintln!(
        "TB share of uplink PPDUs: EDCA {:.3}, OpenWrt MU EDCA {:.3}, AIFSN 0 {:.3}; collisions {} / {} / {}",
        shares[0],
        shares[1],
        shares[2],
        collisions(&edca),
        collisions(&openwrt),
        collisions(&off)
    );
    assert!(shares[0] < shares[1] && shares[1] < shares[2] && shares[2] == 1.0, "{shares:?}");
    assert!(collisions(&edca) > collisions(&openwrt) && collisions(&off) == 0.0);
}

#[test]
fn with_edca_disabled_light_uplink_waits_for_the_aps_polls() {
    // At 2 Mbit/s per station each frame leaves by EDCA before the next arrives, so the
    // stations report empty queues and the AP never triggers. Polling every 5 ms, the AP gets
    // them into TB PPDUs; MU AIFSN 0 then keeps them from contending, and a datagram waits for
    // the next poll: the one-way delay grows from EDCA's 2 ms to about the poll interval.
    let edca_off = ("mu_edca", TRIGGERED_ONLY);
    let unpolled = uplink(4, 20, "2Mbit", &[("ofdma", "\"ul\""), edca_off], None);
    let polled = uplink(4, 20, "2Mbit", &[("ofdma", "\"ul\""), edca_off, ("ofdma_poll_interval", "\"5ms\"")], None);
    let owd_p95 = |s: &Value| {
        s["flows"].as_array().unwrap().iter().map(|flow| f(&flow["udp"]["owd_ms"]["p95"])).fold(0.0, f64::max)
    };
    let (ul, polled_ul) = (&unpolled["wifi"][0]["ul_ofdma"], &polled["wifi"][0]["ul_ofdma"]);
    eprintln!(
        "light uplink: OWD p95 {:.2} ms unpolled ({ul}), {:.2} ms polled every 5 ms ({polled_ul})",
        owd_p95(&unpolled),
        owd_p95(&polled)
    );
    assert_eq!(ul["cycles"], 0);
    assert!(owd_p95(&unpolled) < 3.0);
    // A BSRP per 5 ms over the 3 s window (a few more when reports ask for a grant), with
    // most stations in each TB PPDU.
    assert!((600.0..610.0).contains(&f(&polled_ul["bsrps"])), "{polled_ul}");
    assert!(f(&polled_ul["users_per_trigger"]) > 3.0, "{polled_ul}");
    assert!((4.5..6.5).contains(&owd_p95(&polled)), "{}", owd_p95(&polled));
    assert!((goodput_sum(&polled) / goodput_sum(&unpolled) - 1.0).abs() < 0.01);
}

#[test]
fn a_lone_random_access_station_follows_the_obo_rule() {
    // All RUs random access (ofdma_stations = 0), one RA-RU, one saturated station whose EDCA
    // MU AIFSN 0 disables after its first success. Each attempt succeeds and draws a new OBO
    // uniform on 0..7; the station sends at the trigger where the OBO is within the one RA-RU,
    // i.e. after max(OBO, 1) triggers: 29/8 = 3.625 on average, 0.276 successes per trigger.
    // (Paper 000's eq. 4 counts (W + 1) / 2 = 4.5 backoff slots per stage-0 attempt: 0.222.)
    let keys = [("ofdma", "\"ul\""), ("mu_edca", TRIGGERED_ONLY), ("ofdma_bsrp", "false"), ("uora", "{ ra_rus = 1 }")];
    let scenario = |stations: &str| {
        let bss = Wifi::bss("ax", "ap", &["s1"]).name("bss").key("mcs", 7).key("ofdma_stations", stations);
        let bss = keys.iter().fold(bss, |bss, (k, v)| bss.key(k, v));
        let flow = Flow::new("s1", "ap").app(udp("300Mbit"));
        Scenario::new("uora", "12s").hosts(&["ap", "s1"]).warmup("1s").wifi(bss).flows([flow]).to_string()
    };
    // A run has about 1950 triggers and 540 successes; seeds 1-6 spread 520-583, so the
    // rate is taken over all six.
    let (mut successes, mut triggers) = (0.0, 0.0);
    for seed in 1..=6 {
        let s = run_toml(&scenario("0"), Some(seed)).summary;
        let ul = &s["wifi"][0]["ul_ofdma"];
        successes += f(&ul["ra_successes"]);
        triggers += f(&ul["basic_triggers"]);
        assert_eq!(s["wifi"][0]["links"][1]["collisions"], 0);
    }
    let per_trigger = successes / triggers;
    eprintln!("lone UORA station: {per_trigger:.4} successes per trigger against 8/29 = 0.2759");
    assert!((per_trigger / (8.0 / 29.0) - 1.0).abs() < 0.04, "{per_trigger}");
    // With the station scheduled (ofdma_stations = 1) it never needs the RA-RU.
    let scheduled = run_toml(&scenario("1"), None).summary;
    let ul = &scheduled["wifi"][0]["ul_ofdma"];
    assert_eq!((ul["ra_attempts"].clone(), ul["users_per_trigger"].clone()), (0.into(), 1.0.into()), "{ul}");
}

#[test]
fn hidden_stations_are_triggered_together() {
    // The stations do not hear each other; the AP's trigger reaches all of them and their TB
    // PPDUs arrive together, so the cycle is the same as in a fully connected cell.
    let hidden = r#"[["ap", "s1"], ["ap", "s2"], ["ap", "s3"], ["ap", "s4"]]"#;
    let keys = [("ofdma", "\"ul\""), ("mu_edca", TRIGGERED_ONLY)];
    let connected = goodput_sum(&uplink(4, 20, SATURATING, &keys, None));
    let s = uplink(4, 20, SATURATING, &[keys[0], keys[1], ("hears", hidden)], None);
    assert!((goodput_sum(&s) / connected - 1.0).abs() < 0.002, "{} vs {connected}", goodput_sum(&s));
}

#[test]
fn tcp_uploads_share_the_trigger_cycles() {
    // Paper 000's shape: three laptops upload with CUBIC through the AP to a wired server;
    // the AP triggers them (OpenWrt's MU EDCA) and sends their ACKs down in HE MU PPDUs. The
    // round robin shares the cycles evenly.
    let names = ["s1", "s2", "s3"];
    let bss = Wifi::bss("ax", "ap", &names)
        .name("bss")
        .key("width", 20)
        .key("mcs", 7)
        .key("ofdma", "\"both\"")
        .key("mu_edca", "{}");
    let flows = names.map(|s| Flow::bulk(s, "server", "cubic").name(&format!("from_{s}")));
    let scenario = Scenario::new("ul-tcp", "15s")
        .hosts(&["server", "s1", "s2", "s3"])
        .routers(&["ap"])
        .link(Link::new("server", "ap", "1Gbit", "2ms"))
        .warmup("3s")
        .wifi(bss)
        .flows(flows);
    let s = run_toml(&scenario.to_string(), None).summary;
    let total = goodput_sum(&s);
    let jain = f(&s["jain_index"]);
    let ul = &s["wifi"][0]["ul_ofdma"];
    eprintln!("3 CUBIC uploads over UL OFDMA: {total:.2} Mbit/s, Jain {jain:.3}, {ul}");
    assert!(total > 30.0 && jain > 0.95, "{total} Mbit/s, Jain {jain}");
    // Three stations split 20 MHz into two 106-tone RUs (ns-3's equal RUs): two per trigger,
    // the third first in line for the next.
    assert_eq!(ul["users_per_trigger"], 2.0, "{ul}");
}

#[test]
fn uplink_ofdma_keys_are_checked() {
    let with = |keys: &[(&str, &str)]| {
        let bss = Wifi::bss("ax", "ap", &["s1", "s2"]).name("bss");
        let bss = keys.iter().fold(bss, |bss, (k, v)| bss.key(k, v));
        Scenario::new("bad", "1s").hosts(&["ap", "s1", "s2"]).wifi(bss).to_string()
    };
    let ul = ("ofdma", "\"ul\"");
    assert!(load_with(&with(&[ul, ("mu_edca", "{}"), ("ofdma_bsrp", "false")]), &[]).is_ok());
    assert_refused("ul_ofdma", "uplink_keys", |edit| edit.snippet().map(|keys| with(&[]) + keys));
}
