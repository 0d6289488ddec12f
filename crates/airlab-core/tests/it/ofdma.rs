//! 802.11ax downlink OFDMA end to end: the AP's HE MU PPDUs against the closed form of their
//! cycle, per-MPDU retries inside them, TCP over them, and the keys' checks.

use crate::builders::*;
use crate::common::*;
use serde_json::Value;

/// An 802.11ax BSS at `width` MHz, HE-MCS 7, GI 0.8 µs with `n` stations, the AP sending UDP at
/// 30 Mbit/s to each (saturating), with `keys` on the network.
fn downlink(n: usize, width: u16, keys: &[(&str, &str)], seed: Option<u64>) -> Value {
    let stations: Vec<String> = (1..=n).map(|i| format!("s{i}")).collect();
    let names: Vec<&str> = stations.iter().map(String::as_str).collect();
    let mut bss = Wifi::bss("ax", "ap", &names).name("bss").key("width", width).key("mcs", 7).key("gi", "\"800ns\"");
    for (k, v) in keys {
        bss = bss.key(k, v);
    }
    let hosts = [&["ap"], names.as_slice()].concat();
    let flows = names.iter().map(|s| Flow::new("ap", s).name(&format!("to_{s}")).app(udp("30Mbit")));
    let scenario = Scenario::new("dl-ofdma", "6s").hosts(&hosts).warmup("1s").wifi(bss).flows(flows);
    run_toml(&scenario.to_string(), seed).deterministic_summary()
}

#[test]
fn a_saturated_dl_mu_cycle_matches_its_closed_form() {
    // One cycle: AIFS 43 us + mean backoff 7.5 x 9 us, the HE MU PPDU on four 52-tone RUs
    // (seven 1538-byte MPDUs each: 48 us of preamble with one SIG-B symbol + 361 symbols of
    // 13.6 us = 4957.6 us), SIFS, the MU-BAR for four stations at 6 Mbit/s (112 us), SIFS,
    // the Block Acks in HE TB PPDUs at MCS 5 (48 + 3 x 14.4 = 91.2 us).
    let cycle_us = 43.0 + 7.5 * 9.0 + 4957.6 + 16.0 + 112.0 + 16.0 + 91.2;
    let want = 4.0 * 7.0 * 1472.0 * 8.0 / cycle_us; // 62.2 Mbit/s of UDP payload
    let s = downlink(4, 20, &[("ofdma", "\"dl\"")], None);
    let got = goodput_sum(&s);
    eprintln!("DL OFDMA, 4 stations: {got:.2} Mbit/s, closed form {want:.2}");
    assert!((got / want - 1.0).abs() < 0.01, "{got} vs {want}");
    // Every station is in every PPDU, with seven MPDUs each.
    for link in s["wifi"][0]["links"].as_array().unwrap().iter().filter(|l| l["from"] == "ap") {
        let per_ppdu = f(&link["mpdus_per_ampdu"]);
        assert!((per_ppdu - 7.0).abs() < 0.05, "{}: {per_ppdu} MPDUs per PPDU", link["name"]);
        assert_eq!(link["mu_ppdus"], link["ppdus"], "{}: every PPDU is an HE MU PPDU", link["name"]);
        assert_eq!(link["mu_ru_tones"], 52.0);
        // 48 data subcarriers x 5 bits (64-QAM 5/6) per 13.6 us symbol.
        assert!((f(&link["mu_ru_rate_mbps"]) - 240.0 / 13.6).abs() < 1e-3, "{}", link["mu_ru_rate_mbps"]);
    }
    // The driver FIFO and the per-station queues (with or without airtime fairness) offer
    // the scheduler the same stations as mac80211's firmware queues.
    for device in [
        r#"{ kind = "fifo", size = 128 }"#,
        r#"{ kind = "per_station", size = 128 }"#,
        r#"{ kind = "per_station", size = 128, airtime_fairness = true }"#,
    ] {
        let other = goodput_sum(&downlink(4, 20, &[("ofdma", "\"dl\""), ("device", device)], None));
        assert!((other / want - 1.0).abs() < 0.01, "{device}: {other} vs {want}");
    }
    // The same seed gives the same run.
    assert_eq!(s, downlink(4, 20, &[("ofdma", "\"dl\"")], None));
    // Eight stations at 40 MHz on eight 52-tone RUs: the same PPDU (SIG-B of 4 + 4 users is
    // still one symbol), an MU-BAR for eight at 6 Mbit/s of 160 us.
    let cycle_us = 43.0 + 7.5 * 9.0 + 4957.6 + 16.0 + 160.0 + 16.0 + 91.2;
    let want = 8.0 * 7.0 * 1472.0 * 8.0 / cycle_us; // 123.2 Mbit/s
    let got = goodput_sum(&downlink(8, 40, &[("ofdma", "\"dl\""), ("ofdma_stations", "8")], None));
    eprintln!("DL OFDMA, 8 stations at 40 MHz: {got:.2} Mbit/s, closed form {want:.2}");
    assert!((got / want - 1.0).abs() < 0.01, "{got} vs {want}");
    // Stations hidden from each other still answer the trigger together: the AP receives
    // their HE TB Block Acks as one transmission.
    let hidden = r#"[["ap", "s1"], ["ap", "s2"], ["ap", "s3"], ["ap", "s4"]]"#;
    let with_hidden = downlink(4, 20, &[("ofdma", "\"dl\""), ("hears", hidden)], None);
    assert_eq!(goodput_sum(&with_hidden), goodput_sum(&s));
    // "off" is single-user service, as without the key.
    assert_eq!(downlink(4, 20, &[("ofdma", "\"off\"")], None), downlink(4, 20, &[], None));
}

#[test]
fn long_frames_go_faster_single_user_than_on_four_rus() {
    // Without OFDMA the AP sends one A-MPDU at a time over the whole channel: 37 MPDUs fit in
    // aPPDUMaxTime (44 us of HE SU preamble + 391 symbols = 5361.6 us), then a Block Ack at
    // 24 Mbit/s (40 us). Four 52-tone RUs carry 192 data subcarriers against the channel's
    // 234, so for long saturated downloads DL OFDMA is the slower of the two here.
    let cycle_us = 43.0 + 7.5 * 9.0 + 5361.6 + 16.0 + 40.0;
    let want = 37.0 * 1472.0 * 8.0 / cycle_us; // 78.8 Mbit/s
    let su = goodput_sum(&downlink(4, 20, &[], None));
    let mu = goodput_sum(&downlink(4, 20, &[("ofdma", "\"dl\"")], None));
    eprintln!("4 stations, UDP: SU {su:.2} Mbit/s (closed form {want:.2}), DL OFDMA {mu:.2}");
    assert!((su / want - 1.0).abs() < 0.01, "SU {su} vs {want}");
    assert!(mu < su, "SU {su} MU {mu}");
}

#[test]
fn mpdus_lost_in_an_mu_ppdu_are_retried() {
    // With 10 % of MPDUs in error each station's Block Ack asks for the missing ones again:
    // UDP loses (almost) nothing, and the goodput falls by about the error rate.
    let clean = goodput_sum(&downlink(4, 20, &[("ofdma", "\"dl\"")], None));
    let s = downlink(4, 20, &[("ofdma", "\"dl\""), ("per", "0.1")], None);
    let lossy = goodput_sum(&s);
    eprintln!("DL OFDMA with PER 0.1: {lossy:.2} Mbit/s against {clean:.2}");
    assert!((lossy / clean - 0.9).abs() < 0.03, "{lossy} vs {clean}");
    for link in s["wifi"][0]["links"].as_array().unwrap().iter().filter(|l| l["from"] == "ap") {
        assert_eq!(link["mpdu_drops"], 0, "{}", link["name"]);
    }
}

#[test]
fn tcp_downloads_share_the_mu_ppdus() {
    // Four CUBIC downloads from the AP: the stations' ACKs go up by EDCA, the data down in HE
    // MU PPDUs that carry every station with frames, so the flows share the link evenly
    // (Jain 0.995-0.998 over seeds 1-3, where single-user service gives 0.93-0.98).
    let names = ["s1", "s2", "s3", "s4"];
    let bss = Wifi::bss("ax", "ap", &names).name("bss").key("width", 20).key("mcs", 7).key("ofdma", "\"dl\"");
    let flows = names.map(|s| Flow::bulk("ap", s, "cubic").name(&format!("to_{s}")));
    let scenario = Scenario::new("dl-tcp", "20s").hosts(&["ap", "s1", "s2", "s3", "s4"]).warmup("3s").wifi(bss);
    let s = run_toml(&scenario.flows(flows).to_string(), None).summary;
    let total = goodput_sum(&s);
    let jain = f(&s["jain_index"]);
    eprintln!("4 CUBIC downloads over DL OFDMA: {total:.2} Mbit/s, Jain {jain:.3}");
    assert!(total > 40.0 && jain > 0.98, "{total} Mbit/s, Jain {jain}");
}

#[test]
fn ofdma_keys_are_checked() {
    let with = |standard: &str, keys: &[(&str, &str)]| {
        let mut bss = Wifi::bss(standard, "ap", &["s1", "s2"]).name("bss");
        for (k, v) in keys {
            bss = bss.key(k, v);
        }
        Scenario::new("bad", "1s").hosts(&["ap", "s1", "s2"]).wifi(bss).to_string()
    };
    assert_error(load_with(&with("n", &[("ofdma", "\"dl\"")]), &[]), "wifi[0].ofdma", "802.11ax");
    assert_refused("ofdma", "ofdma_keys", |edit| edit.snippet().map(|keys| with("ax", &[]) + keys));
    let mesh = Wifi::mesh("ax", &["a", "b"]).key("ofdma", "\"dl\"");
    let text = Scenario::new("bad", "1s").hosts(&["a", "b"]).wifi(mesh).to_string();
    assert_error(load_with(&text, &[]), "wifi[0].ofdma", "AP");
}
