//! A sender whose own interface is the bottleneck: TCP Small Queues keeps its qdisc short, and
//! a segment its qdisc refuses (NET_XMIT_DROP) is sent later, not lost (Linux).

use crate::builders::*;
use crate::common::*;
use serde_json::Value;

/// h1 == 10 Mbit/s, 10 ms, pfifo `limit` == h2: the sender's own qdisc is the bottleneck.
fn host_bottleneck(limit: u32, small_queues: bool) -> Value {
    let link = Link::new("h1", "h2", "10Mbit", "10ms").qdisc(pfifo(limit));
    let bulk = Flow::bulk("h1", "h2", "cubic").tcp(format!("{{ small_queues = {small_queues} }}"));
    let scenario = Scenario::new("host", "12s").hosts(&["h1", "h2"]).warmup("2s").interval("10ms").link(link);
    run_toml(&scenario.flow(bulk).to_string(), Some(1)).summary
}

fn host_queue(s: &Value) -> &Value {
    s["queues"].as_array().unwrap().iter().find(|q| q["node"] == "h1").unwrap()
}

/// With TSQ the limit is max(2 truesizes, pacing_rate / 2^10): at 10 Mbit/s the pacing rate
/// (1.2 x the delivery rate, 1.5 MB/s) allows 1.5 kB per ms, less than two 2.3 kB truesizes,
/// so the socket stops once more than two of its packets are in the host: at most three are
/// queued there. Without TSQ the same flow fills the 1000-packet pfifo (bufferbloat).
#[test]
fn small_queues_keep_a_senders_own_qdisc_to_three_packets() {
    let s = host_bottleneck(1000, true);
    let q = host_queue(&s);
    let max = f(&q["backlog_pkts"]["max"]);
    assert!(max <= 3.0, "TSQ keeps at most 3 packets in the host, got {max}");
    let fl = flow(&s, "flow0");
    assert!(f(&fl["goodput_mbps"]) > 0.95 * 9.65, "the link stays busy: {}", fl["goodput_mbps"]);
    // The oldest segment an ACK covers waited for two packets ahead of it in the host, its own
    // serialization, and the next segment's (the delayed ACK covers two): 20 ms + 4 x 1.2 ms,
    // plus the 52-byte ACK's 0.04 ms.
    let p50 = f(&fl["srtt_ms"]["p50"]);
    let expected = 20.0 + 4.0 * 1.2 + 0.04;
    assert!((p50 - expected).abs() < 0.3, "sRTT p50 {p50} ms, expected {expected}");
    assert_eq!(fl["retransmits"], 0);

    let bloated = host_bottleneck(1000, false);
    let backlog = f(&host_queue(&bloated)["backlog_pkts"]["max"]);
    assert!(backlog > 300.0, "without TSQ CUBIC fills the host's pfifo, max backlog {backlog}");
    assert!(f(&flow(&bloated, "flow0")["srtt_ms"]["p50"]) > 200.0);
}

/// Without TSQ, a 20-packet host qdisc overflows: each refused segment stays unsent and the
/// socket enters CWR, so nothing is lost or retransmitted and the link stays busy.
#[test]
fn a_refused_segment_is_sent_later_not_retransmitted() {
    let s = host_bottleneck(20, false);
    let fl = flow(&s, "flow0");
    let local = fl["local_drops"].as_u64().unwrap();
    assert!(local > 0, "CUBIC must overflow a 20-packet host qdisc");
    assert_eq!(fl["queue_drops"].as_u64().unwrap(), local, "every drop is a local refusal");
    assert_eq!(fl["lost"], 0);
    assert_eq!(fl["retransmits"], 0);
    assert!(f(&fl["goodput_mbps"]) > 0.95 * 9.65, "goodput {}", fl["goodput_mbps"]);
}

/// Paper 002's single 802.11n hop (one CUBIC station, pfifo 1000, A-MPDU): TSQ (mac80211's
/// 8 ms budget) keeps the station's queue short, so no segment is dropped or retransmitted,
/// the goodput is at least what the bloated queue gave, and the RTT falls to the aggregation
/// scale rather than the queue's.
#[test]
fn a_wifi_uplink_has_no_local_losses() {
    let run = |small_queues: &str| {
        let sets = [("duration", "\"8s\""), ("metrics.warmup", "\"2s\""), ("flow.0.tcp.small_queues", small_queues)];
        run_builtin("wifi/hop-300-ampdu", &sets, Some(1)).summary
    };
    let (tsq, bloated) = (run("true"), run("false"));
    let (fl, old) = (flow(&tsq, "tcp"), flow(&bloated, "tcp"));
    assert_eq!(fl["retransmits"], 0);
    assert_eq!(fl["local_drops"], 0);
    assert_eq!(fl["queue_drops"], 0);
    // The same goodput: within 1 % of the bloated queue's (over 6 s the two differ by 0.1 %).
    let (goodput, before) = (f(&fl["goodput_mbps"]), f(&old["goodput_mbps"]));
    assert!(goodput >= 0.99 * before, "{goodput} Mbit/s with TSQ, {before} without");
    let (rtt, bloated_rtt) = (f(&fl["srtt_ms"]["p50"]), f(&old["srtt_ms"]["p50"]));
    assert!(rtt < 20.0 && bloated_rtt > 2.0 * rtt, "sRTT p50 {rtt} ms with TSQ, {bloated_rtt} ms without");
    // Without TSQ the refused segments are still not retransmissions.
    assert_eq!(old["retransmits"], 0);
}

/// `host_jitter` delays each arrival at a host by a random time of that median (twice it for
/// data), keeping the order: with 300 us (a quarter of a packet time at 10 Mbit/s) the ACK
/// clock is perturbed and seeds give different runs; with none, every seed gives the same run.
#[test]
fn host_jitter_varies_runs_by_seed_and_is_bounded() {
    let run = |jitter: &str, seed: u64| {
        let link = Link::new("h1", "r", "100Mbit", "1ms");
        let bottleneck = Link::new("r", "h2", "10Mbit", "9ms").qdisc(pfifo(50));
        let scenario = Scenario::new("jitter", "10s").hosts(&["h1", "h2"]).routers(&["r"]).links([link, bottleneck]);
        let text = scenario.flow(Flow::bulk("h1", "h2", "cubic")).to_string();
        let resolved = load_with(&text, &[("host_jitter", jitter)]).unwrap();
        let s = crate::common::run(&resolved, Some(seed)).summary;
        (f(&flow(&s, "flow0")["rtt_ms"]["mean"]), f(&flow(&s, "flow0")["rtt_ms"]["min"]))
    };
    assert_eq!(run("0s", 1), run("0s", 2), "no jitter: the seed does not matter");
    let (a, b) = (run("300us", 1), run("300us", 2));
    assert_ne!(a, b, "jitter draws differ by seed");
    // Jitter only delays: no RTT sample (the SYN's included) beats the smallest without it,
    // nor gains the medians' 0.9 ms (0.3 ms for the ACK, 0.6 ms for the data) at its luckiest;
    // the mean gains about that much.
    let (mean0, min0) = run("0s", 1);
    assert!(a.1 > min0 && a.1 < min0 + 0.9, "min RTT {} (without jitter {min0})", a.1);
    assert!(a.0 > mean0 + 0.5, "mean RTT {} against {mean0} without jitter", a.0);
    assert_error(load_with(&builtin("basics/dumbbell-cubic"), &[("host_jitter", "20ms")]), "host_jitter", "longer");
}

/// With the default host latency a seed is one realistic run, bit-identical on rerun, and seeds
/// spread as kernel runs do: two CUBIC flows, 20 and 60 ms, over 10 Mbit/s with a 1 BDP pfifo
/// (the validation grid's cubic/mix/rtt20/buf1/10M). The kernel's six seeds give the short
/// flow 0.42-0.52 of the link, a spread of 0.10; with no jitter every seed gives the same 0.51.
/// The level is not asserted here: airlab's mean share in this cell (0.53 against the kernel's
/// 0.46) is one of the TCP grid's misses (docs/validation.md).
#[test]
fn the_default_host_jitter_spreads_seeds_like_kernel_runs() {
    let links = [
        Link::new("h1", "r1", "1Gbit", "0.5ms"),
        Link::new("h3", "r1", "1Gbit", "20.5ms"),
        Link::new("r1", "h2", "10Mbit", "9.5ms").key("device_queue", 0).qdisc(pfifo(17)),
    ];
    let text = Scenario::new("mix", "30s")
        .hosts(&["h1", "h3", "h2"])
        .routers(&["r1"])
        .links(links)
        .warmup("10s")
        .flows([Flow::bulk("h1", "h2", "cubic"), Flow::bulk("h3", "h2", "cubic")])
        .to_string();
    let share = |seed: u64| {
        let s = run_toml(&text, Some(seed)).summary;
        let (short, long) = (f(&flow(&s, "flow0")["goodput_mbps"]), f(&flow(&s, "flow1")["goodput_mbps"]));
        short / (short + long)
    };
    let shares: Vec<f64> = (1..=6).map(share).collect();
    assert_eq!(share(2).to_bits(), shares[1].to_bits(), "a seed reruns bit for bit");
    let (lo, hi) = shares.iter().fold((1.0f64, 0.0f64), |(lo, hi), &s| (lo.min(s), hi.max(s)));
    assert!(hi - lo >= 0.04 && hi - lo <= 0.2, "seeds spread {lo:.3}-{hi:.3}: {shares:.3?}");
}

/// Two CUBIC flows from one host through its own 100 Mbit/s pfifo, the second 3 s after the
/// first. Above TSQ's two-truesize floor a socket may keep pacing_rate / 2^10 in the host,
/// 1.2 x cwnd / sRTT per ms, and a socket TSQ holds back is not cwnd-limited, so its cwnd stops
/// growing: with nothing lost, the shares stay where the cwnds froze. The kernel (Linux 6.18,
/// testbed, 3 runs; docs/models/tcp.md "Sender-local queues") gives 0.82 / 0.18 with cwnds
/// 127 and 31 and no retransmission; without TSQ the flows would fill the 1000-packet pfifo
/// and converge through its losses.
#[test]
fn tsq_freezes_the_split_of_flows_sharing_their_own_hosts_queue() {
    let link = Link::new("h1", "h2", "100Mbit", "5ms").qdisc(pfifo(1000)).key("device_queue", 0);
    let flows = [Flow::bulk("h1", "h2", "cubic"), Flow::bulk("h1", "h2", "cubic").start("3s")];
    let scenario = Scenario::new("local", "30s").hosts(&["h1", "h2"]).warmup("10s").link(link).flows(flows);
    let s = run_toml(&scenario.to_string(), Some(1)).summary;
    let (a, b) = (f(&flow(&s, "flow0")["goodput_mbps"]), f(&flow(&s, "flow1")["goodput_mbps"]));
    let share = a / (a + b);
    assert!((share - 0.82).abs() < 0.1, "first flow's share {share:.3}, kernel 0.82");
    assert_eq!(flow(&s, "flow0")["retransmits"], 0);
    assert_eq!(flow(&s, "flow1")["retransmits"], 0);
}
