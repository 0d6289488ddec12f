//! Wi-Fi rate schedules end to end: a station switching between 24 and 6 Mbit/s every second
//! (paper 004's robustness test) carries what the MAC can carry at each rate, second by second.

use crate::builders::*;
use crate::common::*;

/// An 802.11a BSS whose one station saturates the uplink with UDP for `duration`, at 24 Mbit/s
/// or on a rate `schedule`.
fn switching(duration: &str, schedule: Option<&str>) -> String {
    let mut sta = vec![("rate", r#""24Mbit""#)];
    sta.extend(schedule.map(|schedule| ("schedule", schedule)));
    let bss = Wifi::bss("a", "ap", &["sta"]).name("bss").node("sta", &sta);
    let up = Flow::new("sta", "ap").name("up").app(r#"{ kind = "udp" }"#);
    Scenario::new("switching", duration).hosts(&["ap", "sta"]).wifi(bss).flow(up).to_string()
}

/// One station alone, saturated with 1500-byte IP packets: IP bits per frame exchange over
/// its mean duration, AIFS + 7.5 slots of backoff + data PPDU + SIFS + ACK (5 GHz OFDM: slot
/// 9 us, SIFS 16 us, AIFS = SIFS + 3 slots; 20 us preamble and 4 us symbols of 24 bits per
/// Mbit/s; the MPDU adds 38 bytes of MAC header, LLC and FCS to the IP packet).
fn single_station_mbps(rate_mbit: u64, ack_us: f64) -> f64 {
    let bits = 16 + 8 * (1500 + 38) + 6;
    let symbols = (bits as f64 / (4 * rate_mbit) as f64).ceil();
    let ppdu_us = 20.0 + 4.0 * symbols;
    let exchange_us = (16.0 + 3.0 * 9.0) + 7.5 * 9.0 + ppdu_us + 16.0 + ack_us;
    1500.0 * 8.0 / exchange_us
}

#[test]
fn the_rate_alternates_every_second_and_throughput_follows_it() {
    let out = run_toml(&switching("10s", Some(ALTERNATING_24_6)), None);
    let w = &out.wifi;
    let times: Vec<f64> = w.entities().zip(&w.time_s).filter(|(e, _)| *e == "bss:sta->ap").map(|(_, t)| *t).collect();
    assert_eq!(times.len(), 100);
    // Sample at t covers (t - 0.1 s, t]: second k = ceil(t) - 1 runs at 24 Mbit/s when k is
    // even, 6 when odd. Both directions follow the station's schedule.
    let expected = |t: f64| if ((t - 1e-9).ceil() as u64 - 1).is_multiple_of(2) { 24.0 } else { 6.0 };
    for link in ["bss:sta->ap", "bss:ap->sta"] {
        let rates = w.values_of(link, "phy_rate_mbps");
        for (t, rate) in times.iter().zip(&rates) {
            assert!((rate - expected(*t)).abs() < 1e-9, "{link} at {t} s: {rate} Mbit/s");
        }
    }

    // Throughput per 100 ms, averaged over the seconds at each rate (the first second too:
    // the sender saturates the queue at once).
    let throughput = w.values_of("bss:sta->ap", "throughput_mbps");
    let mean_at = |rate: f64| {
        let v: Vec<f64> =
            times.iter().zip(&throughput).filter(|(t, _)| expected(**t) == rate).map(|(_, x)| *x).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let (fast, slow) = (mean_at(24.0), mean_at(6.0));
    // ACK at 24 Mbit/s: 28 us; at 6: 44 us.
    let (fast_model, slow_model) = (single_station_mbps(24, 28.0), single_station_mbps(6, 44.0));
    let ratio = slow / fast;
    eprintln!(
        "24 Mbit/s seconds: {fast:.2} Mbit/s (model {fast_model:.2}); 6 Mbit/s seconds: {slow:.2} (model {slow_model:.2}); \
         ratio {ratio:.3} (model {:.3})",
        slow_model / fast_model
    );
    // About 7000 frames at 24 and 2200 at 6 average the backoff well; the rest is the one
    // exchange in progress at each switch.
    assert!((fast / fast_model - 1.0).abs() < 0.03, "24 Mbit/s: {fast} vs {fast_model}");
    assert!((slow / slow_model - 1.0).abs() < 0.03, "6 Mbit/s: {slow} vs {slow_model}");
    assert!((0.29..0.33).contains(&ratio), "ratio {ratio}");

    // The summary keeps the link's own PHY.
    let link =
        &out.summary["wifi"][0]["links"].as_array().unwrap().iter().find(|l| l["name"] == "bss:sta->ap").unwrap();
    assert_eq!(f(&link["phy_rate_mbps"]), 24.0);
}

#[test]
fn a_schedule_that_runs_once_keeps_its_last_step_and_starts_from_the_base() {
    // No period: 24 Mbit/s (the base) until 0.5 s, then 6 from 0.5 s, then 12 from 1.25 s on.
    let once = r#"{ steps = [{ at = "0.5s", rate = "6Mbit" }, { at = "1.25s", rate = "12Mbit" }] }"#;
    let out = run_toml(&switching("3s", Some(once)), None);
    let rates = out.wifi.values_of("bss:sta->ap", "phy_rate_mbps");
    assert_eq!(rates.len(), 30);
    let near = |i: usize, want: f64| assert!((rates[i] - want).abs() < 1e-9, "row {i}: {} vs {want}", rates[i]);
    near(0, 24.0); // (0, 0.1]
    near(4, 24.0); // (0.4, 0.5]
    near(5, 6.0); // (0.5, 0.6]
    near(11, 6.0); // (1.1, 1.2]
    near(12, 0.5 * 6.0 + 0.5 * 12.0); // (1.2, 1.3]: a mix, as the interval's mean
    near(13, 12.0);
    near(29, 12.0);
}

#[test]
fn rate_schedules_are_deterministic() {
    let text = switching("10s", Some(ALTERNATING_24_6));
    let a = run_toml(&text, Some(7));
    let b = run_toml(&text, Some(7));
    assert_eq!(a.deterministic_summary(), b.deterministic_summary());
    // Debug text compares NaN (no PPDU in an interval) as equal.
    assert_eq!(
        format!("{:?}", a.wifi.columns().collect::<Vec<_>>()),
        format!("{:?}", b.wifi.columns().collect::<Vec<_>>())
    );
    // The schedule matters: without it the station stays at 24 Mbit/s and carries more.
    let c = run_toml(&switching("10s", None), Some(7));
    let goodput = |o: &airlab_core::RunOutput| f(&flow(&o.summary, "up")["goodput_mbps"]);
    assert!(goodput(&a) < 0.75 * goodput(&c), "{} vs {}", goodput(&a), goodput(&c));
}

#[test]
fn builtin_rate_switch_scenario_alternates_ed1() {
    let out = run_builtin("wifi/rate-switch", &[], None);
    let rates = out.wifi.values_of("bss1:ed1->ap1", "phy_rate_mbps");
    assert_eq!((rates[0], rates[9], rates[10], rates[19], rates[20]), (24.0, 24.0, 6.0, 6.0, 24.0));
    assert!(out.wifi.values_of("bss1:ed2->ap1", "phy_rate_mbps").iter().all(|r| *r == 24.0));
    // A longer period by --set: 1 s at 24 Mbit/s, then 3 s at 6.
    let out = run_builtin("wifi/rate-switch", &[("wifi.bss1.node.ed1.schedule.period", "4s")], None);
    let rates = out.wifi.values_of("bss1:ap1->ed1", "phy_rate_mbps");
    assert_eq!((rates[9], rates[10], rates[39], rates[40]), (24.0, 6.0, 6.0, 24.0));
}
