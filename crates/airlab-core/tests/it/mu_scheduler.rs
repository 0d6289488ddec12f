//! The multi-user schedulers end to end: who shares the AP's HE MU PPDUs under round robin,
//! proportional fair and airtime fair, in cells built to tell them apart.

use crate::builders::*;
use crate::common::*;
use airlab_core::wifi::phy::{self, TxVector};
use airlab_core::RunOutput;

/// An 802.11ax BSS at 20 MHz with `n` stations, downlink OFDMA for 4 stations per PPDU (four
/// 52-tone RUs) under `scheduler` (as a scenario writes it), saturating UDP to every station, and per-station `nodes`
/// settings; per-station queues deep enough (100000 packets in all) that every station stays
/// backlogged.
fn cell(n: usize, scheduler: &str, agg: &str, nodes: &[(&str, &[(&str, &str)])]) -> RunOutput {
    let stations: Vec<String> = (1..=n).map(|i| format!("s{i}")).collect();
    let names: Vec<&str> = stations.iter().map(String::as_str).collect();
    let bss = Wifi::bss("ax", "ap", &names)
        .name("bss")
        .key("mcs", 7)
        .key("gi", "\"800ns\"")
        .key("ofdma", "\"dl\"")
        .key("ofdma_stations", 4)
        .key("ofdma_scheduler", scheduler)
        .key("aggregation", agg)
        .key("device", "{ kind = \"per_station\", size = 100000 }");
    let bss = nodes.iter().fold(bss, |bss, (name, keys)| bss.node(name, keys));
    let hosts = [&["ap"], names.as_slice()].concat();
    let flows = names.iter().map(|s| Flow::new("ap", s).name(s).app(udp("40Mbit")));
    let scenario =
        Scenario::new("mu-scheduler", "3s").hosts(&hosts).warmup("1s").interval("100ms").wifi(bss).flows(flows);
    run_toml(&scenario.to_string(), Some(1))
}

fn mu_ppdus(out: &RunOutput, station: &str) -> f64 {
    f(&out.deterministic_summary()["wifi"][0]["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["from"] == "ap" && l["to"] == station)
        .unwrap()["mu_ppdus"])
}

#[test]
fn proportional_fair_serves_a_station_while_its_rate_is_high() {
    // s1 alternates HE-MCS 11 and MCS 3 every 100 ms; the others stay at MCS 7. Round robin
    // serves it in its slow and fast periods alike (141 and 136 PPDUs, seed 1); proportional
    // fair mostly while fast (239 and 5).
    let swing = [("schedule", r#"{ period = "200ms", steps = [{ at = "0s", mcs = 11 }, { at = "100ms", mcs = 3 }] }"#)];
    let split = |scheduler: &str| {
        let out = cell(8, scheduler, "{}", &[("s1", &swing)]);
        let ppdus = out.wifi.values_of("bss:ap->s1", "mu_ppdus");
        let rates = out.wifi.values_of("bss:ap->s1", "phy_rate_mbps");
        let (mut fast, mut slow) = (0.0, 0.0);
        for (n, rate) in ppdus.iter().zip(&rates) {
            if *rate > 100.0 {
                fast += n
            } else {
                slow += n
            }
        }
        (fast, slow)
    };
    let (rr_fast, rr_slow) = split("\"round_robin\"");
    let (pf_fast, pf_slow) = split("\"proportional_fair\"");
    eprintln!("round robin {rr_fast}/{rr_slow}, proportional fair {pf_fast}/{pf_slow}");
    assert!((rr_fast / rr_slow - 1.0).abs() < 0.25, "round robin {rr_fast} fast, {rr_slow} slow");
    assert!(pf_fast > 3.0 * pf_slow, "proportional fair {pf_fast} fast, {pf_slow} slow");
    // The default window written out is the same scheduler.
    assert_eq!(split("{ kind = \"proportional_fair\", window = 100 }"), (pf_fast, pf_slow));
    // Averaged over one PPDU, every station left out last time ranks first next time: the
    // two halves of the cell alternate whatever their rates, as under round robin.
    let (w1_fast, w1_slow) = split("{ kind = \"proportional_fair\", window = 1 }");
    eprintln!("proportional fair over one PPDU {w1_fast}/{w1_slow}");
    assert!((w1_fast / w1_slow - 1.0).abs() < 0.25, "window 1: {w1_fast} fast, {w1_slow} slow");
}

#[test]
fn airtime_fair_gives_fast_stations_more_ppdus_for_equal_airtime() {
    // Eight MPDUs at most per A-MPDU: on a 52-tone RU s1-s4 (HE-MCS 11) send eight in 3.4 ms
    // and pad; s5-s8 (MCS 7) fit seven in the PPDU's 5.4 ms. Round robin serves all equally
    // often, so the slow stations get more airtime; airtime fair serves the fast ones more
    // often, in the ratio of the two A-MPDUs' airtimes, so that airtime evens out.
    let fast = [("mcs", "11")];
    let nodes: Vec<(&str, &[(&str, &str)])> = ["s1", "s2", "s3", "s4"].iter().map(|s| (*s, &fast[..])).collect();
    let run = |scheduler: &str| {
        let out = cell(8, scheduler, "{ max_mpdus = 8 }", &nodes);
        let s = out.deterministic_summary();
        let link = |to: &str| s["wifi"][0]["links"].as_array().unwrap().iter().find(|l| l["to"] == to).unwrap().clone();
        assert_eq!(
            (link("s1")["mpdus_per_ppdu"].clone(), link("s5")["mpdus_per_ppdu"].clone()),
            (8.0.into(), 7.0.into())
        );
        let count = |names: &[&str]| names.iter().map(|s| mu_ppdus(&out, s)).sum::<f64>();
        count(&["s1", "s2", "s3", "s4"]) / count(&["s5", "s6", "s7", "s8"])
    };
    let airtime = |mcs: u8, mpdus: usize| {
        let psdu = (0..mpdus).fold(0, |psdu, _| phy::ampdu_append(psdu, phy::mpdu_bytes(1500)));
        TxVector::he(mcs, 1, 20, 800).with_ru(52).data_duration(psdu) as f64
    };
    let equal_airtime = airtime(7, 7) / airtime(11, 8);
    let (rr, af) = (run("\"round_robin\""), run("\"airtime_fair\""));
    eprintln!("fast/slow PPDUs: round robin {rr:.3}, airtime fair {af:.3} (equal airtime: {equal_airtime:.3})");
    assert!((rr - 1.0).abs() < 0.02, "{rr}");
    assert!((af / equal_airtime - 1.0).abs() < 0.03, "{af} against {equal_airtime}");
}

#[test]
fn the_scheduler_key_is_checked() {
    assert_refused("mu_scheduler", "scheduler_key", |edit| edit.snippet().map(one_station_ax));
}
