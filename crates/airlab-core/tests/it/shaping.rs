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
    assert_refused("shaping", "tbf_keys", |edit| edit.snippet().map(text));
}

/// Two UDP senders of 20 Mbit/s each, marked `dscp` 1 and 2, over a 100 Mbit/s link whose
/// r1 -> r2 direction runs `qdisc`, for 10 s: the goodput (Mbit/s) of each.
fn two_marked_senders(qdisc: &str, app: &str) -> (f64, f64) {
    let bottleneck = Link::bottleneck("100Mbit", "5ms").forward_qdisc(qdisc);
    let sender = |from: &str, to: &str, dscp: u8| {
        let f = if app == "cubic" { Flow::bulk(from, to, "cubic") } else { Flow::new(from, to).app(udp(app)) };
        f.name(from).dscp(dscp)
    };
    let flows = [sender("a", "c", 1), sender("b", "d", 2)];
    let scenario = Scenario::new("htb", "10s").warmup("2s").host_jitter("0s");
    let text = scenario.dumbbell(&["a", "b"], &["c", "d"], "1Gbit", bottleneck).flows(flows).to_string();
    let s = run_toml(&text, Some(1)).deterministic_summary();
    (f(&flow(&s, "a")["goodput_mbps"]), f(&flow(&s, "b")["goodput_mbps"]))
}

#[test]
fn htb_classes_shape_each_dscp_to_its_rate() {
    // Paper 000's shaper: one 10 Mbit/s class per direction on one interface, told apart by
    // the flows' marks, each over a 50-packet pfifo. 1472-byte datagrams in 1514-byte frames.
    let htb = r#"{ kind = "htb", classes = [
        { rate = "10Mbit", dscp = 1, qdisc = { kind = "pfifo", limit = 50 } },
        { rate = "10Mbit", dscp = 2, qdisc = { kind = "pfifo", limit = 50 } } ] }"#;
    let (a, b) = two_marked_senders(htb, "20Mbit");
    let want = 10.0 * 1472.0 / 1514.0;
    for got in [a, b] {
        assert!((got / want - 1.0).abs() < 0.005, "{got} against {want}");
    }
}

#[test]
fn htb_classes_share_a_parent_by_their_rates_and_borrow_when_alone() {
    // Parent 10 Mbit/s, classes of 3 and 7 Mbit/s that may borrow up to 10: two CUBIC flows
    // get 3 : 7.
    let htb = r#"{ kind = "htb", rate = "10Mbit", classes = [
        { rate = "3Mbit", ceil = "10Mbit", dscp = 1 }, { rate = "7Mbit", ceil = "10Mbit", dscp = 2 } ] }"#;
    let (a, b) = two_marked_senders(htb, "cubic");
    let share = a / (a + b);
    eprintln!("htb 3/7: {a:.2} and {b:.2} Mbit/s, share {share:.3}");
    assert!((share - 0.3).abs() < 0.02, "{share}");
    let goodput_at_10 = 10.0 * 1448.0 / 1514.0;
    assert!(a + b > 0.97 * goodput_at_10, "{a} + {b}");
    // Alone (the other class has no traffic), a class borrows up to its ceiling: UDP marked 1
    // and 3, where no class takes 3 so it goes out unshaped beside.
    let alone = r#"{ kind = "htb", rate = "10Mbit", classes = [
        { rate = "3Mbit", ceil = "8Mbit", dscp = 1 }, { rate = "7Mbit", dscp = 3 } ] }"#;
    let (a, b) = two_marked_senders(alone, "20Mbit");
    let at = |mbit: f64| mbit * 1472.0 / 1514.0;
    assert!((a / at(8.0) - 1.0).abs() < 0.005, "{a} against {}", at(8.0));
    // The unclassified 20 Mbit/s passes unshaped (the link has 100).
    assert!((b / (20.0 * 1472.0 / 1500.0) - 1.0).abs() < 0.01, "{b}");
}

#[test]
fn htb_classes_take_packets_by_destination_host() {
    // RouterOS-style classification by destination: 3 and 7 Mbit/s for the traffic to c and
    // to d, whatever it is marked.
    let htb = r#"{ kind = "htb", classes = [{ rate = "3Mbit", dst = "c" }, { rate = "7Mbit", dst = "d" }] }"#;
    let (a, b) = two_marked_senders(htb, "20Mbit");
    let at = |mbit: f64| mbit * 1472.0 / 1514.0;
    assert!((a / at(3.0) - 1.0).abs() < 0.005 && (b / at(7.0) - 1.0).abs() < 0.005, "{a} {b}");
}

#[test]
fn an_htb_class_may_take_several_destinations() {
    // One 6 Mbit/s class for the traffic to c and d together: the two senders share its rate
    // (how evenly is up to the drop-tail leaf's phase effects between the two CBR senders).
    let htb = r#"{ kind = "htb", classes = [{ rate = "6Mbit", dst = ["c", "d"] }] }"#;
    let (a, b) = two_marked_senders(htb, "20Mbit");
    let at = |mbit: f64| mbit * 1472.0 / 1514.0;
    assert!(((a + b) / at(6.0) - 1.0).abs() < 0.005 && a > 0.0 && b > 0.0, "{a} {b}");
}

#[test]
fn htb_keys_are_checked() {
    let text = |qdisc: &str| {
        let bottleneck = Link::bottleneck("100Mbit", "5ms").forward_qdisc(qdisc);
        let flows = [Flow::new("s", "d").app(udp("1Mbit"))];
        Scenario::new("htb", "1s").dumbbell(&["s"], &["d"], "1Gbit", bottleneck).flows(flows).to_string()
    };
    assert_refused("shaping", "htb_keys", |edit| edit.snippet().map(text));
    // A class's key can be overridden like any other.
    let htb = r#"{ kind = "htb", classes = [{ rate = "1Mbit" }] }"#;
    let resolved = load_with(&text(htb), &[("bottleneck.forward.qdisc.classes[0].rate", "2Mbit")]).unwrap();
    let json = serde_json::to_value(&resolved.directions).unwrap().to_string();
    assert!(json.contains(r#""classes":[{"#) && json.contains(r#""rate":"2Mbit""#), "{json}");
}

#[test]
fn htb_on_a_wifi_ap_shapes_each_stations_traffic() {
    // An AP's interface above mac80211 with one class per station, as a per-client limit.
    let htb = r#"{ kind = "htb", classes = [{ rate = "5Mbit", dst = "s1" }, { rate = "3Mbit", dst = "s2" }] }"#;
    let bss = Wifi::bss("ax", "ap", &["s1", "s2"]).name("bss").node("ap", &[("qdisc", htb)]);
    let flows = ["s1", "s2"].map(|s| Flow::new("ap", s).name(s).app(udp("20Mbit")));
    let scenario = Scenario::new("htb-wifi", "6s").hosts(&["ap", "s1", "s2"]).warmup("1s").wifi(bss).flows(flows);
    let s = run_toml(&scenario.to_string(), Some(1)).deterministic_summary();
    let at = |mbit: f64| mbit * 1472.0 / 1514.0;
    for (name, mbit) in [("s1", 5.0), ("s2", 3.0)] {
        let got = f(&flow(&s, name)["goodput_mbps"]);
        assert!((got / at(mbit) - 1.0).abs() < 0.005, "{name}: {got} against {}", at(mbit));
    }
}
