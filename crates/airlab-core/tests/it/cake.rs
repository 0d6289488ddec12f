//! CAKE end to end: host fairness under the isolation modes, and the shaper holding its rate
//! with the queue kept in CAKE rather than in the device below it.
//!
//! Topology: a, b -- r1 == 10 Mbit/s, 10 ms == r2 -- c, d (access links 100 Mbit/s, 1 ms).
//! Host a runs one bulk CUBIC flow to c, host b eight to d. Distinct destinations matter for
//! triple-isolate: it scales a flow's quantum by the larger of its source and destination host
//! loads, so nine flows into one destination host would share per flow (see docs/models/cake.md).

use crate::builders::*;
use crate::common::*;

/// The bottleneck direction r1 -> r2 runs `qdisc`, the bottleneck link has `bottleneck_keys`
/// (key, TOML value) besides, and host b runs `b_flows` flows; every flow runs `app` (bulk TCP
/// CUBIC unless `app` is a UDP app).
fn scenario(qdisc: &str, bottleneck_keys: &[(&str, &str)], b_flows: u32, app: &str) -> String {
    let bottleneck = Link::bottleneck("10Mbit", "10ms").keys(bottleneck_keys).forward_qdisc(qdisc);
    let flow = |from: &str, to: &str| {
        let f = Flow::new(from, to).name(from).app(app);
        if app == BULK {
            f.cc("cubic")
        } else {
            f
        }
    };
    let flows = [flow("a", "c"), flow("b", "d").count(b_flows)];
    let scenario = Scenario::new("cake-hosts", "25s").warmup("5s");
    scenario.dumbbell(&["a", "b"], &["c", "d"], "100Mbit", bottleneck).flows(flows).to_string()
}

/// Goodput of host a and of host b (sum of its flows), Mbit/s, after warm-up.
fn host_goodputs(isolation: &str, app: &str) -> (f64, f64) {
    let qdisc = format!("{{ kind = \"cake\", isolation = \"{isolation}\" }}");
    let out = run_toml(&scenario(&qdisc, &[], 8, app), None);
    let s = &out.summary;
    let a = f(&flow(s, "a")["goodput_mbps"]);
    let b: f64 = (1..=8).map(|k| f(&flow(s, &format!("b.{k}"))["goodput_mbps"])).sum();
    eprintln!("{isolation}: host a {a:.2} Mbit/s, host b {b:.2} Mbit/s");
    (a, b)
}

/// With every flow backlogged (UDP at the link rate), triple-isolate's DRR serves the two
/// hosts equally, however many flows each has.
#[test]
fn triple_isolate_shares_between_hosts() {
    let (a, b) = host_goodputs("triple-isolate", &udp("10Mbit"));
    let share = a / (a + b);
    assert!((share - 0.5).abs() < 0.01, "host a's share {share:.3} ({a:.2} vs {b:.2})");
}

/// With TCP the hosts' shares also depend on how each host's flows use them: host a's one
/// CUBIC flow empties its queue for a while after each COBALT drop (its cwnd of about 12
/// falls under its 10-packet BDP), and CAKE gives that time to host b, whose eight flows
/// come back as sparse flows. Host a keeps most of its half; the link stays full.
#[test]
fn triple_isolate_with_tcp_keeps_the_link_full() {
    let (a, b) = host_goodputs("triple-isolate", BULK);
    let share = a / (a + b);
    assert!((0.4..0.55).contains(&share), "host a's share {share:.3} ({a:.2} vs {b:.2})");
    assert!(a + b > 0.98 * 9.65, "the link stays full: {:.2}", a + b);
}

#[test]
fn flows_mode_shares_between_flows() {
    let (a, b) = host_goodputs("flows", BULK);
    let share = b / (a + b);
    assert!((share - 8.0 / 9.0).abs() < 0.0889, "host b's share {share:.3}, expected 8/9");
}

/// Shaped at 8 Mbit/s with 18 bytes of framing, over a 10 Mbit/s link that frames the same way
/// and whose driver ring could hold 100 packets.
#[test]
fn the_shaper_holds_its_rate_and_keeps_the_queue() {
    let qdisc = r#"{ kind = "cake", bandwidth = "8Mbit", overhead = 18 }"#;
    let out = run_toml(&scenario(qdisc, &[("overhead", "18"), ("device_queue", "100")], 2, BULK), None);
    let s = &out.summary;
    let util = f(&link(s, "bottleneck:r1->r2")["utilization"]);
    // Utilization = time serializing (IP bytes + 18) at 10 Mbit/s: 0.8 at exactly 8 Mbit/s.
    let rate = util * 10.0;
    let q = s["queues"].as_array().unwrap().iter().find(|q| q["name"] == "bottleneck:r1->r2").unwrap();
    let sojourn = f(&q["sojourn_ms"]["p50"]);
    let rtt = f(&flow(s, "a")["rtt_ms"]["p50"]);
    eprintln!("shaped: {rate:.4} Mbit/s of IP + overhead, cake sojourn p50 {sojourn:.2} ms, RTT p50 {rtt:.2} ms");
    assert!((rate - 8.0).abs() < 0.08, "shaped rate {rate:.4} Mbit/s");
    assert!(sojourn > 1.0, "the standing queue is in CAKE: sojourn p50 {sojourn} ms");
    // Base RTT 24 ms + ~1.6 ms of serialization + the ACKs' own waits (an ACK every second
    // segment: 1.5 ms at 8 Mbit/s; up to 1 ms of SACK compression after CAKE's drops); the rest
    // is CAKE's queue. A queue in the 100-packet ring below would add up to 120 ms.
    assert!(rtt - 24.0 - sojourn < 8.0, "RTT {rtt} ms beyond base + CAKE sojourn {sojourn} ms");
}

/// A flow's `dscp` reaches CAKE's tins: with diffserv3 and both hosts backlogged (UDP at the
/// link rate, host a's packets marked CS1 = 8), host a lands in the Bulk tin, which keeps
/// priority only up to its threshold of 1/16 of the bandwidth (Linux `cake_config_diffserv3`),
/// so host b's best-effort flow takes the rest; unmarked, the hosts share evenly.
#[test]
fn a_flows_dscp_selects_cakes_tin() {
    let cake = r#"{ kind = "cake", bandwidth = "9Mbit", tins = "diffserv3" }"#;
    let shares = |dscp: u8, tcp: bool| {
        let bottleneck = Link::bottleneck("10Mbit", "10ms").forward_qdisc(cake);
        let sender = |from: &str, to: &str| match tcp {
            true => Flow::bulk(from, to, "cubic").name(from),
            false => Flow::new(from, to).name(from).app(udp("10Mbit")),
        };
        let flows = [sender("a", "c").dscp(dscp), sender("b", "d")];
        let text = Scenario::new("cake-tins", "10s").warmup("2s");
        let text = text.dumbbell(&["a", "b"], &["c", "d"], "100Mbit", bottleneck).flows(flows).to_string();
        let s = run_toml(&text, Some(1)).summary;
        let (a, b) = (f(&flow(&s, "a")["goodput_mbps"]), f(&flow(&s, "b")["goodput_mbps"]));
        a / (a + b)
    };
    let (marked, unmarked) = (shares(8, false), shares(0, false));
    eprintln!("host a's share: CS1 {marked:.3}, unmarked {unmarked:.3}");
    assert!((0.04..0.1).contains(&marked), "{marked}");
    assert!((unmarked - 0.5).abs() < 0.02, "{unmarked}");
    // A TCP flow's data segments carry its DSCP too.
    let tcp = shares(8, true);
    eprintln!("CUBIC: CS1 {tcp:.3}");
    assert!(tcp < 0.15, "{tcp}");
}

#[test]
fn a_dscp_beyond_six_bits_is_refused() {
    let bottleneck = Link::bottleneck("10Mbit", "10ms");
    let flows = [Flow::new("a", "c").app(udp("1Mbit")).dscp(64)];
    let text = Scenario::new("dscp", "1s").dumbbell(&["a"], &["c"], "100Mbit", bottleneck).flows(flows).to_string();
    assert_error(load_with(&text, &[]), "flow[0].dscp", "0 to 63");
}
