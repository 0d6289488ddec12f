//! End-to-end checks of TCP against independent references: link capacity and queue bounds,
//! the Mathis formula, fairness between equal flows, and the slow-start completion time.

use crate::builders::*;
use crate::common::*;

/// One CUBIC flow, 10 Mbit/s, 20 ms base RTT, pfifo 50, 60 s.
#[test]
fn single_cubic_flow_fills_the_bottleneck_with_bounded_delay() {
    let out = run_builtin("basics/dumbbell-cubic", &[("metrics.warmup", "5s")], None);
    let s = &out.summary;
    let util = f(&link(s, "bottleneck:r1->r2")["utilization"]);
    assert!(util >= 0.95, "bottleneck utilization after 5 s: {util}");
    // Queueing delay is bounded by the 50-packet pfifo plus the one-packet device ring and the
    // packet in serialization: 52 x 1.2 ms on top of the 20 ms base RTT. After the warm-up the
    // queue never drains: CUBIC's cut to 0.7 x (BDP + 52 packets) leaves 0.7 x 68.7 - 16.7 =
    // 31.4 packets queued, so the smallest RTT is 20 + 31.4 x 1.2 = 57.7 ms.
    let fl = flow(s, "cubic");
    let rtt = &fl["rtt_ms"];
    let (min, mean, max) = (f(&rtt["min"]), f(&rtt["mean"]), f(&rtt["max"]));
    let serialization_ms = 1500.0 * 8.0 / 10e6 * 1e3;
    let bdp = 10e6 * 0.020 / (1500.0 * 8.0);
    let floor = 20.0 + (0.7 * (bdp + 52.0) - bdp) * serialization_ms;
    assert!((min - floor).abs() < 2.0, "min RTT after the warm-up {min}, CUBIC's floor {floor}");
    assert!(mean > 20.0 && mean < 20.0 + 50.0 * serialization_ms, "mean RTT {mean}");
    assert!(max <= 20.0 + 53.0 * serialization_ms + 1.0, "max RTT {max}");
    // Every loss is a queue overflow: what the sender marked lost is exactly what the pfifo
    // dropped, nothing was lost on a wire, and each loss was repaired once.
    let drops = fl["queue_drops"].as_u64().unwrap();
    assert!(drops > 0, "a CUBIC flow must overflow a 50-packet buffer");
    assert_eq!(fl["lost"].as_u64().unwrap(), drops);
    assert_eq!(fl["wire_lost"].as_u64().unwrap(), 0);
    assert_eq!(fl["retransmits"].as_u64().unwrap(), drops);
    let q = s["queues"].as_array().unwrap().iter().find(|q| q["name"] == "bottleneck:r1->r2").unwrap();
    assert_eq!(q["drops"].as_u64().unwrap(), drops);
}

/// a -- r -- b over 1 Gbit/s links, 100 ms base RTT: a bulk flow of `cc`, and random loss with
/// probability `loss` on a -> r behind a queue that never overflows.
fn lossy_path(cc: &str, loss: f64, delayed_ack: bool, seconds: u32) -> String {
    let lossy = Link::new("a", "r", "1Gbit", "25ms").key("forward", format!("{{ loss = {loss} }}"));
    let links = [lossy.qdisc(pfifo(100_000)), Link::new("r", "b", "1Gbit", "25ms")];
    let bulk = Flow::bulk("a", "b", cc).tcp(format!("{{ delayed_ack = {delayed_ack} }}"));
    let scenario = Scenario::new("lossy", &format!("{seconds}s")).hosts(&["a", "b"]).routers(&["r"]).links(links);
    scenario.flow(bulk).to_string()
}

/// Mathis et al. 1997: throughput = MSS/RTT * sqrt(3 / (2 b p)). Linux counts ACKed segments
/// rather than ACKs when growing cwnd (RFC 3465 byte counting), so cwnd grows one segment
/// per RTT whatever the ACK ratio: b = 1 with and without delayed ACKs.
#[test]
fn newreno_under_random_loss_follows_the_mathis_formula() {
    for (p, seconds) in [(0.001, 400), (0.01, 400)] {
        for delayed_ack in [false, true] {
            let out = run_toml(&lossy_path("reno", p, delayed_ack, seconds), Some(3));
            let fl = flow(&out.summary, "flow0");
            let goodput = f(&fl["goodput_mbps"]);
            let rtt_s = 0.100;
            let b = 1.0;
            let mathis = 1448.0 * 8.0 / rtt_s * (3.0 / (2.0 * b * p)).sqrt() / 1e6;
            let ratio = goodput / mathis;
            assert!(
                (0.75..=1.25).contains(&ratio),
                "p={p} delayed_ack={delayed_ack}: goodput {goodput:.3} Mbit/s vs Mathis {mathis:.3} (ratio {ratio:.3})"
            );
        }
    }
}

#[test]
fn two_equal_rtt_cubic_flows_share_fairly() {
    let out = run_builtin("basics/dumbbell-2cubic", &[], None);
    let jain = f(&out.summary["jain_index"]);
    assert!(jain >= 0.95, "Jain index {jain}");
}

/// 1 MB over an idle 50 Mbit/s, 20 ms path. Closed form: one RTT of handshake, then slow-start
/// rounds of 10, 20, 40, ... segments each taking one RTT while the window cannot fill the
/// pipe, then the rest of the data back to back at the link rate, then half an RTT for the last
/// byte to reach the receiver (where the FCT ends).
#[test]
fn transfer_completes_in_the_slow_start_closed_form() {
    let transfer = Flow::new("a", "b").cc("cubic").app(r#"{ kind = "transfer", size = "1MB" }"#);
    let scenario = Scenario::new("transfer", "5s").hosts(&["a", "b"]).link(Link::new("a", "b", "50Mbit", "10ms"));
    let out = run_toml(&scenario.flow(transfer).to_string(), None);
    let fct = f(&flow(&out.summary, "flow0")["fct_s"]["mean"]);

    let (rtt, rate, mss): (f64, f64, f64) = (0.020, 50e6, 1448.0);
    let tau = 1500.0 * 8.0 / rate; // serialization of one full segment
    let segments = (1e6 / mss).ceil();
    let (mut window, mut sent, mut t) = (10.0, 0.0, rtt);
    while window * tau < rtt && sent + window < segments {
        sent += window;
        window *= 2.0;
        t += rtt;
    }
    t += (segments - sent) * tau + rtt / 2.0;
    let err = (fct - t).abs() / t;
    assert!(err < 0.10, "FCT {fct:.4} s vs closed form {t:.4} s ({:.1} %)", err * 100.0);
}
