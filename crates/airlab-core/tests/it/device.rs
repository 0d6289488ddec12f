//! The device layer below the qdisc: a packet-count ring, and a BQL-style byte limit that
//! keeps a long ring short so the standing queue stays in the qdisc.

use crate::builders::*;
use crate::common::*;

/// One bulk CUBIC flow over a 10 Mbit/s, 40 ms-RTT bottleneck with pfifo 200 and the given
/// device settings (key, value) on the bottleneck.
fn run(device: &[(&str, &str)]) -> airlab_core::RunOutput {
    let bottleneck = Link::bottleneck("10Mbit", "18ms").qdisc(pfifo(200)).keys(device);
    let scenario = Scenario::new("device", "20s").warmup("5s").dumbbell(&["h1"], &["h2"], "100Mbit", bottleneck);
    run_toml(&scenario.flow(Flow::bulk("h1", "h2", "cubic")).to_string(), Some(1))
}

/// Max of a queue-series column on the bottleneck after the warm-up.
fn max_after_warmup(out: &airlab_core::RunOutput, col: &str) -> f64 {
    let q = &out.queues;
    let values = q.column(col).unwrap_or_else(|| panic!("no column {col}"));
    q.entities()
        .zip(&q.time_s)
        .zip(values)
        .filter(|((e, t), _)| *e == "bottleneck:r1->r2" && **t > 5.0)
        .map(|(_, v)| *v)
        .fold(0.0, f64::max)
}

#[test]
fn a_long_ring_takes_the_queue_and_a_byte_limit_gives_it_back() {
    // A 256-packet driver ring: CUBIC's queue fills the ring (256 + the one in the
    // serializer) before the qdisc holds anything, so an AQM would see only the overflow.
    let ring = run(&[("device_queue", "256")]);
    assert_eq!(max_after_warmup(&ring, "device_pkts"), 257.0);

    // The same ring with a 3 kB byte limit holds at most two full-size packets plus the one
    // that overshoots: the queue is back in the qdisc.
    let bql = run(&[("device_queue", "256"), ("device_queue_bytes", r#""3kB""#)]);
    let device_bytes = max_after_warmup(&bql, "device_bytes");
    assert!(device_bytes <= 3000.0 + 1500.0, "{device_bytes}");
    assert!(max_after_warmup(&bql, "device_pkts") <= 3.0);
    assert!(max_after_warmup(&bql, "backlog_pkts") > 100.0);
    // Either way the link stays busy.
    for out in [&ring, &bql] {
        let util = f(&link(&out.summary, "bottleneck:r1->r2")["utilization"]);
        assert!(util > 0.95, "{util}");
    }
}

#[test]
fn device_byte_limit_is_checked() {
    let link = Link::new("a", "b", "10Mbit", "1ms").key("device_queue_bytes", r#""0B""#);
    let text = Scenario::new("x", "1s").hosts(&["a", "b"]).link(link).to_string();
    let err = airlab_core::scenario::load_str(&text, "x.toml", &[]).unwrap_err();
    assert_eq!(err.key, "link[0].device_queue_bytes");
    assert!(err.message.contains("greater than 0"), "{err}");
}
