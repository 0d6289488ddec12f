//! Applications and socket features checked against closed forms on idle or simple paths.

use crate::builders::*;
use crate::common::*;

/// a -- r -- b, each link with `delay` one way; the bottleneck is r -> b. `flow` runs from a to b.
/// Without host jitter, so that delays are the closed forms' exactly.
fn chain(rate_ab: &str, rate_rb: &str, delay: &str, duration: &str, flow: Flow) -> String {
    let bottleneck = Link::new("r", "b", rate_rb, delay).name("bottleneck").qdisc(pfifo(100));
    let links = [Link::new("a", "r", rate_ab, delay), bottleneck];
    let scenario = Scenario::new("chain", duration).host_jitter("0s").hosts(&["a", "b"]).routers(&["r"]);
    scenario.links(links).flow(flow).to_string()
}

#[test]
fn ping_on_an_idle_path_measures_propagation_plus_serialization() {
    let ping = Flow::new("a", "b").app(r#"{ kind = "ping", interval = "100ms", size = "84B" }"#);
    let out = run_toml(&chain("100Mbit", "100Mbit", "10ms", "5s", ping), None);
    let rtt = &flow(&out.summary, "flow0")["rtt_ms"];
    // 4 x 10 ms propagation + 4 serializations of 84 bytes at 100 Mbit/s (6.72 us each).
    let want = 40.0 + 4.0 * 84.0 * 8.0 / 100e6 * 1e3;
    for key in ["min", "p50", "max"] {
        assert!((f(&rtt[key]) - want).abs() < 0.01, "{key}: {} vs {want}", rtt[key]);
    }
    assert_eq!(out.summary["flows"][0]["fct_s"], serde_json::Value::Null);
    // The pings table: one row per reply, probe k sent at k x 100 ms, back one RTT later.
    let (seq, rtts) = (out.pings.values_of("flow0", "seq"), out.pings.values_of("flow0", "rtt_ms"));
    assert_eq!(seq, (0..50).map(f64::from).collect::<Vec<_>>());
    for (k, (&at, &rtt)) in out.pings.time_s.iter().zip(&rtts).enumerate() {
        assert!((rtt - want).abs() < 0.01, "reply {k}: {rtt} ms");
        assert!((at - (k as f64 * 0.1 + want / 1e3)).abs() < 1e-6, "reply {k} at {at} s");
    }
}

#[test]
fn udp_below_capacity_is_lossless_at_its_rate() {
    let out = run_toml(&chain("100Mbit", "10Mbit", "5ms", "10s", Flow::new("a", "b").app(udp("5Mbit"))), None);
    let fl = flow(&out.summary, "flow0");
    let udp = &fl["udp"];
    // The last datagrams are still in flight when the run ends.
    assert!(f(&udp["loss_rate"]) < 0.001, "{udp}");
    // The rate counts whole IP packets; goodput counts the 1472-byte payloads.
    let want = 5.0 * 1472.0 / 1500.0;
    assert!((f(&fl["goodput_mbps"]) - want).abs() / want < 0.01, "{}", fl["goodput_mbps"]);
    // One-way delay: 2 x 5 ms propagation + two serializations, no queueing.
    let owd = f(&udp["owd_ms"]["p95"]);
    let want_owd = 10.0 + 1500.0 * 8.0 / 100e6 * 1e3 + 1500.0 * 8.0 / 10e6 * 1e3;
    assert!((owd - want_owd).abs() < 0.1, "{owd} vs {want_owd}");
}

#[test]
fn saturating_udp_fills_the_bottleneck_and_loses_the_excess() {
    let saturating = Flow::new("a", "b").app(r#"{ kind = "udp" }"#);
    let out = run_toml(&chain("100Mbit", "10Mbit", "5ms", "10s", saturating), None);
    let fl = flow(&out.summary, "flow0");
    let want = 10.0 * 1472.0 / 1500.0;
    assert!((f(&fl["goodput_mbps"]) - want).abs() / want < 0.02, "{}", fl["goodput_mbps"]);
    // Sent at 100 Mbit/s, served at 10: about 90 % dropped at the bottleneck queue.
    assert!((f(&fl["udp"]["loss_rate"]) - 0.9).abs() < 0.01, "{}", fl["udp"]);
}

#[test]
fn periodic_app_opens_one_connection_per_period() {
    let periodic = Flow::new("a", "b").cc("cubic").app(r#"{ kind = "periodic", size = "100KB", period = "1s" }"#);
    let out = run_toml(&chain("100Mbit", "10Mbit", "5ms", "10s", periodic), None);
    let fct = &flow(&out.summary, "flow0")["fct_s"];
    assert_eq!(fct["count"], 10, "{fct}");
    // 100 kB = 70 segments: handshake + rounds of 10, 20, 40 + serialization at 10 Mbit/s.
    assert!(f(&fct["max"]) < 0.25, "{fct}");
    assert_eq!(out.fcts.rows(), 10);
}

/// The flow completion time runs from the SYN leaving to the receiver holding the last byte
/// (as the testbed's sink measures it), not to the sender's ACK of it: one segment over an idle
/// chain takes the handshake's round trip plus one data packet's way.
#[test]
fn fct_ends_when_the_receiver_holds_the_last_byte() {
    let one = Flow::new("a", "b").cc("cubic").app(r#"{ kind = "transfer", size = "1000B" }"#);
    let out = run_toml(&chain("100Mbit", "10Mbit", "5ms", "1s", one), None);
    let fct = f(&flow(&out.summary, "flow0")["fct_s"]["mean"]);
    let ser = |bytes: f64, rate: f64| bytes * 8.0 / rate;
    // SYN and SYN-ACK (60 B) cross both links; the data packet is 1000 B + 52 B of headers.
    let handshake = 20e-3 + 2.0 * (ser(60.0, 100e6) + ser(60.0, 10e6));
    let data = 10e-3 + ser(1052.0, 100e6) + ser(1052.0, 10e6);
    assert!((fct - (handshake + data)).abs() < 1e-6, "FCT {fct} vs {}", handshake + data);
}

#[test]
fn random_start_offsets_depend_on_the_seed() {
    let app = r#"{ kind = "periodic", size = "10KB", period = "1s", random_start = "1s" }"#;
    let text = chain("100Mbit", "10Mbit", "5ms", "3s", Flow::new("a", "b").cc("cubic").app(app));
    let first_start = |seed| run_toml(&text, Some(seed)).fcts.time_s[0];
    let (a, b) = (first_start(1), first_start(2));
    assert!(a < 1.0 && b < 1.0 && a != b, "{a} {b}");
    assert_eq!(first_start(1), a);
}

#[test]
fn receive_window_caps_throughput_at_rwnd_per_rtt() {
    let bulk = Flow::bulk("a", "b", "cubic").tcp(r#"{ rwnd = "64KiB" }"#);
    let out = run_toml(&chain("1Gbit", "1Gbit", "5ms", "10s", bulk), None);
    // 65536 bytes hold 45 full segments; the RTT is 20 ms plus a little serialization.
    let want = 45.0 * 1448.0 * 8.0 / 0.020 / 1e6;
    let got = f(&flow(&out.summary, "flow0")["goodput_mbps"]);
    assert!(got < want && got > 0.95 * want, "{got} vs {want}");
}

#[test]
fn pacing_spares_the_initial_window() {
    let fct = |segments: u32, pacing: bool| {
        let app = format!(r#"{{ kind = "transfer", size = "{}B" }}"#, segments * 1448);
        let sender = Flow::new("a", "b").cc("cubic").app(&app).tcp(format!("{{ pacing = {pacing} }}"));
        let out = run_toml(&chain("1Gbit", "1Gbit", "25ms", "2s", sender), None);
        f(&flow(&out.summary, "flow0")["fct_s"]["mean"])
    };
    // Linux (`tcp_update_skb_after_send`) paces from the tenth segment on, as the original
    // sch_fq did: an IW10 transfer is not slowed at all, a longer one is.
    assert_eq!(fct(10, true), fct(10, false));
    let (unpaced, paced) = (fct(30, false), fct(30, true));
    assert!(paced > unpaced + 0.001, "paced {paced} unpaced {unpaced}");
}

#[test]
fn delivery_rate_samples_measure_the_bottleneck() {
    let out = run_builtin("basics/dumbbell-cubic", &[("duration", "20s")], None);
    let rates: Vec<f64> =
        out.flows.values_of("cubic", "delivery_rate_mbps").into_iter().skip(50).filter(|r| *r > 0.0).collect();
    let median = airlab_core::metrics::summary::percentile(&rates, 0.5).unwrap();
    // Payload rate of a saturated 10 Mbit/s link carrying 1448-byte segments in 1500-byte packets.
    let want = 10.0 * 1448.0 / 1500.0;
    assert!((median - want).abs() / want < 0.03, "{median} vs {want}");
}
