//! The token bucket shaper end to end: on a wired link and on a Wi-Fi AP, a `tbf` at 10 Mbit/s
//! passes 10 Mbit/s of frames (IP bytes plus the 14-byte Ethernet header it counts), holds
//! the queue in its child qdisc, and lets a TCP flow through at the shaped rate.

use crate::builders::*;
use crate::common::*;
use serde_json::Value;

/// 10 Mbit/s of 1514-byte frames carry this much IP: 10 x 1500 / 1514.
const SHAPED_IP_MBPS: f64 = 10.0 * 1500.0 / 1514.0;

/// s -- r1 == 100 Mbit/s, 5 ms, `qdisc` on r1 -> r2 == r2 -- d, one flow `flow` for 10 s.
fn wired(qdisc: &str, flow: Flow) -> Value {
    let bottleneck = Link::bottleneck("100Mbit", "5ms").forward_qdisc(qdisc);
    let scenario =
        Scenario::new("tbf", "10s").warmup("2s").host_jitter("0s").dumbbell(&["s"], &["d"], "1Gbit", bottleneck);
    run_toml(&scenario.flow(flow.name("f")).to_string(), Some(1)).deterministic_summary()
}

#[test]
fn tbf_shapes_a_wired_link_to_its_rate() {
    let tbf = r#"{ kind = "tbf", rate = "10Mbit", burst = "15140B" }"#;
    let s = wired(tbf, Flow::new("s", "d").app(udp("20Mbit")));
    let got = f(&link(&s, "bottleneck:r1->r2")["throughput_mbps"]);
    assert!((got / SHAPED_IP_MBPS - 1.0).abs() < 0.005, "{got} against {SHAPED_IP_MBPS}");
    let q = s["queues"].as_array().unwrap().iter().find(|q| q["name"] == "bottleneck:r1->r2").unwrap();
    assert_eq!(q["kind"], "tbf");
    // The default child, a 1514000-byte bfifo, overflows: the excess 10 Mbit/s is dropped.
    assert!(f(&q["drops"]) > 1000.0, "{q}");
    // A CUBIC flow fills the shaper's 50-packet FIFO and gets the shaped rate.
    let pfifo = r#"{ kind = "tbf", rate = "10Mbit", qdisc = { kind = "pfifo", limit = 50 } }"#;
    let tcp = wired(pfifo, Flow::bulk("s", "d", "cubic"));
    let goodput = f(&flow(&tcp, "f")["goodput_mbps"]);
    // TCP/IP headers of 52 bytes (timestamps) per 1500-byte packet.
    let shaped_goodput = SHAPED_IP_MBPS * 1448.0 / 1500.0;
    assert!(goodput > 0.97 * shaped_goodput && goodput < shaped_goodput, "{goodput} against {shaped_goodput}");
}

#[test]
fn tbf_shapes_a_wifi_aps_downlink() {
    // The AP's interface over mac80211 (which never refuses a packet), a 10 Mbit/s tbf above it.
    let bss = Wifi::bss("ax", "ap", &["sta"])
        .name("bss")
        .node("ap", &[("qdisc", r#"{ kind = "tbf", rate = "10Mbit", qdisc = { kind = "pfifo", limit = 50 } }"#)]);
    let scenario = Scenario::new("tbf-wifi", "6s")
        .hosts(&["ap", "sta"])
        .warmup("1s")
        .wifi(bss)
        .flow(Flow::new("ap", "sta").name("down").app(udp("30Mbit")));
    let s = run_toml(&scenario.to_string(), Some(1)).deterministic_summary();
    let down = s["wifi"][0]["links"].as_array().unwrap().iter().find(|l| l["from"] == "ap").unwrap().clone();
    let got = f(&down["throughput_mbps"]);
    assert!((got / SHAPED_IP_MBPS - 1.0).abs() < 0.005, "{got} against {SHAPED_IP_MBPS}");
}

#[test]
fn tbf_keys_are_checked() {
    let text = |qdisc: &str| {
        let bottleneck = Link::bottleneck("100Mbit", "5ms").forward_qdisc(qdisc);
        Scenario::new("tbf", "1s")
            .dumbbell(&["s"], &["d"], "1Gbit", bottleneck)
            .flow(Flow::new("s", "d").app(udp("1Mbit")))
            .to_string()
    };
    let err = |qdisc: &str, key: &str, fragment: &str| assert_error(load_with(&text(qdisc), &[]), key, fragment);
    err(r#"{ kind = "tbf" }"#, "link[1].forward.qdisc.rate", "needs a `rate`");
    err(r#"{ kind = "tbf", rate = "10Mbit", burst = "10B" }"#, "link[1].forward.qdisc.burst", "64");
    err(
        r#"{ kind = "tbf", rate = "10Mbit", qdisc = { kind = "noqueue" } }"#,
        "link[1].forward.qdisc.qdisc.kind",
        "noqueue",
    );
}
