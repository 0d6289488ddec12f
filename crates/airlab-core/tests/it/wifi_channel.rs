//! The channel error model end to end: MPDU losses at a given SNR against the NIST error rate,
//! goodput against distance with fixed MCS and with ideal rate control, the RU power gain of
//! an HE TB PPDU, preamble detection, stations that move, and the keys' checks.

use crate::builders::*;
use crate::common::*;
use airlab_core::wifi::channel::{Channel, Transceiver};
use airlab_core::wifi::phy::{self, TxVector};
use airlab_core::wifi::{error_model, propagation};
use serde_json::Value;

/// One station of a BSS receiving saturating UDP from its AP for `duration`, with the
/// network's `keys`; the summary.
fn downlink(standard: &str, keys: &[(&str, &str)], duration: &str) -> Value {
    let bss = keys.iter().fold(Wifi::bss(standard, "ap", &["sta"]).name("bss"), |w, (k, v)| w.key(k, v));
    let scenario = Scenario::new("channel", duration)
        .hosts(&["ap", "sta"])
        .warmup("0.2s")
        .wifi(bss)
        .flow(Flow::new("ap", "sta").name("down").app(udp("700Mbit")));
    run_toml(&scenario.to_string(), Some(1)).deterministic_summary()
}

fn goodput(s: &Value) -> f64 {
    f(&flow(s, "down")["goodput_mbps"])
}

fn ap_link(s: &Value) -> &Value {
    s["wifi"][0]["links"].as_array().unwrap().iter().find(|l| l["from"] == "ap").unwrap()
}

#[test]
fn mpdu_losses_follow_the_nist_error_rate_at_the_links_snr() {
    // 802.11a at 54 Mbit/s (64-QAM 3/4), 1500-byte datagrams: 1538-byte MPDUs. At 22.3 dB a
    // third of them are lost; the MAC retries them, so the link's MPDU success ratio is the
    // model's.
    let snr = 22.3;
    let nist = error_model::create(&error_model::Config::named("nist"));
    let want = nist.chunk_success(&TxVector::non_ht(54), snr, 8 * u64::from(phy::mpdu_bytes(1500)));
    assert!((0.55..0.8).contains(&want), "{want}");
    let s = downlink("a", &[("snr_db", "22.3")], "3s");
    let l = ap_link(&s);
    let got = f(&l["mpdus_acked"]) / f(&l["mpdus"]);
    // About 6,900 MPDUs: the binomial standard error is 0.006.
    assert!((got - want).abs() < 0.02, "success {got} against NIST {want}");
    assert!((f(&l["snr_db"]) - snr).abs() < 1e-12);
    // The same link at 30 dB loses nothing; with per = 0.1 as well it loses a tenth.
    let clean = ap_link(&downlink("a", &[("snr_db", "30")], "1s")).clone();
    assert_eq!(clean["mpdus"], clean["mpdus_acked"]);
    let both = downlink("a", &[("snr_db", "22.3"), ("per", "0.1")], "3s");
    let l = ap_link(&both);
    let got = f(&l["mpdus_acked"]) / f(&l["mpdus"]);
    assert!((got - 0.9 * want).abs() < 0.02, "{got} against {}", 0.9 * want);
}

/// Saturated downlink goodput of an 802.11ax station at `distance` metres (20 MHz, GI 0.8 µs),
/// at fixed `mcs` or, with `None`, under ideal rate control.
fn ax_goodput(distance: f64, mcs: Option<u8>) -> f64 {
    ax_goodput_with(distance, mcs, &[])
}

fn ax_goodput_with(distance: f64, mcs: Option<u8>, keys: &[(&str, &str)]) -> f64 {
    let d = distance.to_string();
    let mut keys = [&[("distance_m", d.as_str()), ("gi", "\"800ns\"")], keys].concat();
    let m = mcs.map(|m| m.to_string());
    match &m {
        Some(m) => keys.push(("mcs", m)),
        None => keys.push(("rate_control", "\"ideal\"")),
    }
    goodput(&downlink("ax", &keys, "0.7s"))
}

#[test]
fn with_ideal_rate_control_goodput_falls_monotonically_with_distance() {
    let distances = [1.0, 4.0, 8.0, 12.0, 16.0, 22.0, 28.0, 35.0, 42.0, 50.0, 53.0];
    let curve: Vec<f64> = distances.iter().map(|&d| ax_goodput(d, None)).collect();
    eprintln!("{curve:?}");
    assert!(curve.windows(2).all(|w| w[1] <= w[0]), "not monotonic: {curve:?}");
    // Near the AP it is HE-MCS 11; at 50 m the SNR is 12.3 dB: MCS 2 (threshold 10.5 dB);
    // beyond 51.5 m the AP's frames fall below the -82 dBm detection floor.
    assert!(curve[0] > 100.0 && curve[9] > 10.0 && curve[9] < 25.0, "{curve:?}");
    assert_eq!(curve[10], 0.0);
}

#[test]
fn a_fixed_mcs_works_until_its_snr_threshold_and_then_fails() {
    // For each HE MCS, 1.5 dB above and below the SNR at which a 1538-byte MPDU is lost with
    // probability 1/2 (20 MHz: SNR = 63.31 - 30 log10 d). HE-MCS 0-2 need less SNR than the
    // preamble's -82 dBm detection floor allows (it is 12.1 dB over the noise), so for MCS 0
    // the floor comes down to -100 dBm.
    let p = Channel::new(Transceiver::NS3, propagation::create(&propagation::Config::named("log_distance")));
    let nist = error_model::create(&error_model::Config::named("nist"));
    let low_floor = [("channel", "{ detection_rssi_dbm = -100 }")];
    for (mcs, keys) in [(0u8, &low_floor[..]), (3, &[]), (7, &[]), (11, &[])] {
        let txv = TxVector::he(mcs, 1, 20, 800);
        let bits = 8 * u64::from(phy::mpdu_bytes(1500));
        let (mut lo, mut hi) = (-10.0, 60.0);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if nist.chunk_success(&txv, mid, bits) < 0.5 {
                lo = mid
            } else {
                hi = mid
            }
        }
        let distance = |snr: f64| 10f64.powf((p.at_distance(1.0, 20).snr_db - snr) / 30.0);
        let run = |snr: f64| ax_goodput_with(distance(snr), Some(mcs), keys);
        let (near, far, clean) = (run(hi + 1.5), run(hi - 1.5), run(60.0));
        assert!(near > 0.9 * clean, "MCS {mcs}: {near} of {clean} Mbit/s 1.5 dB above");
        assert!(far < 0.1 * clean, "MCS {mcs}: {far} of {clean} Mbit/s 1.5 dB below");
    }
    // With the default floor, MCS 0 at that distance is not even detected.
    assert_eq!(ax_goodput(85.0, Some(0)), 0.0);
}

#[test]
fn an_uplink_ru_concentrates_the_stations_power() {
    // Four stations at 18 dB (20 MHz): HE-MCS 7 needs about 23.8 dB for a 1538-byte MPDU, so
    // single-user uplink loses nearly everything; on a 52-tone RU (4 MHz of noise) the same
    // power gives 25 dB, and the triggered uplink carries.
    let names = ["s1", "s2", "s3", "s4"];
    let run = |ofdma: &str| {
        let bss = Wifi::bss("ax", "ap", &names)
            .name("bss")
            .key("mcs", 7)
            .key("gi", "\"800ns\"")
            .key("snr_db", 18)
            .key("ofdma", ofdma)
            .key("mu_edca", "{ aifsn = 0 }")
            // The stations' single-user frames, and the queue sizes in them, do not get
            // through: the AP polls.
            .key("ofdma_poll_interval", "\"5ms\"");
        let flows = names.iter().map(|s| Flow::new(s, "ap").name(s).app(udp("30Mbit")));
        let hosts = ["ap", "s1", "s2", "s3", "s4"];
        let scenario = Scenario::new("ru-gain", "1.5s").hosts(&hosts).warmup("0.5s").wifi(bss).flows(flows);
        let s = run_toml(&scenario.to_string(), Some(1)).deterministic_summary();
        names.iter().map(|n| f(&flow(&s, n)["goodput_mbps"])).sum::<f64>()
    };
    let (su, ul) = (run("\"off\""), run("\"ul\""));
    assert!(su < 1.0 && ul > 40.0, "single-user {su}, triggered {ul} Mbit/s");
}

#[test]
fn a_station_that_walks_away_drops_its_rate_step_by_step() {
    // Ideal rate control re-picks the MCS at each step of the station's schedule.
    let text = Scenario::new("walk", "2.4s")
        .hosts(&["ap", "sta"])
        .warmup("0.4s")
        .wifi(
            Wifi::bss("ax", "ap", &["sta"])
                .name("bss")
                .key("rate_control", "\"ideal\"")
                .node("sta", &[("distance_m", "2"), ("schedule", r#"{ steps = [{ at = "1.4s", distance_m = 30 }] }"#)]),
        )
        .flow(Flow::new("ap", "sta").name("down").app(udp("700Mbit")))
        .to_string();
    let resolved = load_with(&text, &[]).unwrap();
    let link = resolved.wifi[0].link("ap", "sta").unwrap();
    let step = link.schedule.as_ref().unwrap().steps[0];
    // 2 m: 54.3 dB, MCS 11; 30 m: 19.0 dB, MCS 4 (threshold 17.3 dB).
    assert_eq!((link.phy.mcs, step.phy.mcs), (11, 4));
    assert!((step.radio.unwrap().snr_db - 18.998).abs() < 0.01, "{:?}", step.radio);
    let walking = goodput(&run_toml(&text, Some(1)).deterministic_summary());
    let (near, far) = (ax_goodput(2.0, None), ax_goodput(30.0, None));
    let halfway = (near + far) / 2.0;
    assert!((walking - halfway).abs() < 0.05 * halfway, "{walking} against {near} and {far}");
}

#[test]
fn channel_keys_are_checked() {
    let base = one_station_ax;
    assert_refused("wifi_channel", "channel_keys", |edit| edit.snippet().map(base));
    // A station's distance beats the network's SNR: the first table that places the link decides.
    let text = base("snr_db = 40\n[[wifi.node]]\nname = \"sta\"\ndistance_m = 10");
    let resolved = load_with(&text, &[]).unwrap();
    let radio = resolved.wifi[0].link("ap", "sta").unwrap().radio.unwrap();
    assert!((radio.snr_db - 33.31).abs() < 0.01, "{radio:?}");
    // --set reaches the keys.
    let moved = load_with(&base("distance_m = 10"), &[("wifi0.channel.tx_power_dbm", "20")]).unwrap();
    let radio = moved.wifi[0].link("ap", "sta").unwrap().radio.unwrap();
    assert!((radio.snr_db - 37.29).abs() < 0.01, "{radio:?}");
}

#[test]
fn the_channel_names_its_propagation_loss_and_error_models() {
    let snr_at_10m = |channel: &str| {
        let resolved = load_with(&one_station_ax(&format!("distance_m = 10\nchannel = {channel}")), &[]).unwrap();
        resolved.wifi[0].link("ap", "sta").unwrap().radio.unwrap().snr_db
    };
    // Unnamed, the models are log-distance with ns-3's numbers and NIST, written back in full.
    let resolved = load_with(&one_station_ax("distance_m = 10"), &[]).unwrap();
    let written = serde_json::to_value(&resolved.wifi[0].channel).unwrap();
    let want = serde_json::json!({
        "tx_power_dbm": 16.0206, "noise_figure_db": 7.0, "detection_rssi_dbm": -82.0, "detection_snr_db": 4.0,
        "propagation": { "kind": "log_distance", "exponent": 3.0, "reference_loss_db": 46.6777, "reference_distance_m": 1.0 },
        "error_model": { "kind": "nist" },
    });
    assert_eq!(written, want);
    // Named explicitly they are the same models, to the last bit.
    let ns3 = snr_at_10m("{}");
    assert_eq!(snr_at_10m("{ propagation = \"log_distance\", error_model = { kind = \"nist\" } }"), ns3);
    assert_eq!(snr_at_10m("{ propagation = { kind = \"log_distance\", exponent = 3 } }"), ns3);
    // Each parameter is read: 20 dB per decade instead of 30, a lower reference loss, a
    // reference distance of 10 m (no decade beyond it).
    let set = |param: &str| snr_at_10m(&format!("{{ propagation = {{ kind = \"log_distance\", {param} }} }}"));
    assert!((set("exponent = 2") - ns3 - 10.0).abs() < 1e-9);
    assert!((set("reference_loss_db = 40") - ns3 - 6.6777).abs() < 1e-9);
    assert!((set("reference_distance_m = 10") - ns3 - 30.0).abs() < 1e-9);
    assert_refused("wifi_channel", "flat_channel_keys", |edit| match edit {
        Edit::Snippet(keys) => Some(one_station_ax(keys)),
        Edit::Set(..) => Some(one_station_ax("distance_m = 10")),
        Edit::Replace(..) => None,
    });
}

#[test]
fn ideal_rate_control_takes_its_bit_error_threshold() {
    // HE 20 MHz at 29 dB: ns-3's 1e-6 clears MCS 7 (MCS 8 needs 29.20 dB); at 1e-3 MCS 9
    // (28.04 dB) is clear too, and the resolved link carries it.
    let mcs = |rate_control: &str| {
        let text = one_station_ax(&format!("snr_db = 29\ngi = \"800ns\"\nrate_control = {rate_control}"));
        load_with(&text, &[]).unwrap().wifi[0].link("ap", "sta").unwrap().phy.mcs
    };
    assert_eq!(mcs("\"ideal\""), 7);
    assert_eq!(mcs("{ kind = \"ideal\" }"), 7);
    assert_eq!(mcs("{ kind = \"ideal\", ber = 1e-3 }"), 9);
    // Up to the mcs key: a cap below what the SNR allows stays the cap.
    assert_eq!(mcs("{ kind = \"ideal\", ber = 1e-3 }\nmcs = 5"), 5);
}
