//! Paper 001's measurement method as a feature of any run: batches of delivered packets that
//! end the run, active-period goodput of on/off sources, and the one-way delay of TCP data.

use crate::builders::*;
use crate::common::*;

/// A CUBIC bulk flow on the 10 Mbit/s dumbbell, and a source opening a 100 kB transfer every
/// 500 ms beside it (two hosts on the left share the bottleneck), for 60 s or six batches of
/// 1000 delivered packets.
fn scenario() -> String {
    let bottleneck = Link::bottleneck("10Mbit", "8ms").qdisc(pfifo(50));
    let mice = Flow::new("h3", "h2").name("mice").cc("cubic");
    Scenario::new("batches", "60s")
        .dumbbell(&["h1", "h3"], &["h2"], "100Mbit", bottleneck)
        .metric("batches", "{ packets = 1000, count = 6 }")
        .flow(Flow::bulk("h1", "h2", "cubic").name("bulk"))
        .flow(mice.app(r#"{ kind = "periodic", size = "100kB", period = "500ms" }"#))
        .to_string()
}

#[test]
fn batches_of_delivered_packets_end_the_run() {
    let out = run_toml(&scenario(), Some(1));
    let b = &out.batches;
    let s = &out.summary;
    assert_eq!(s["batches"]["completed"], 6);
    assert_eq!(s["batches"]["discard"], 1);
    // Six batches of 1000 packets of a 10 Mbit/s bottleneck (about 860 full segments a
    // second): the run ends after about 7 s, not at its 60 s duration, when the last closes.
    let ends: Vec<f64> = b.time_s.iter().step_by(2).copied().collect();
    let run_end = f(&s["duration_s"]);
    assert_eq!(*ends.last().unwrap(), run_end);
    assert!((6.0..8.5).contains(&run_end), "{run_end}");
    // Each batch holds exactly its packets (the closing packet lands in one batch), each batch
    // starts where the last ended.
    let pkts: Vec<f64> = b.column("packets").unwrap().to_vec();
    for k in 0..6 {
        assert_eq!(pkts[2 * k] + pkts[2 * k + 1], 1000.0, "batch {k}");
    }
    let starts = b.column("start_s").unwrap();
    for k in 1..6 {
        assert_eq!(starts[2 * k], ends[k - 1]);
    }
    // The bytes of all batches are everything delivered.
    for name in ["bulk", "mice"] {
        let bytes: f64 = b.values_of(name, "bytes").iter().sum();
        assert_eq!(bytes, f(&flow(s, name)["bytes_delivered"]), "{name}");
    }
}

#[test]
fn an_on_off_source_is_measured_over_its_active_periods() {
    let out = run_toml(&scenario(), Some(1));
    let b = &out.batches;
    // The bulk flow is active all the time; the mice source only while a transfer is open,
    // and its active time is the time its transfers took (they do not overlap: each takes
    // well under the 500 ms period).
    let span: f64 = b.values_of("bulk", "active_s").iter().sum();
    assert!((span - f(&out.summary["duration_s"])).abs() < 1e-9);
    let active: f64 = b.values_of("mice", "active_s").iter().sum();
    let fct = out.fcts.column("fct_s").unwrap();
    let done: f64 = fct.iter().sum();
    let open_at_end = active - done;
    assert!((0.0..0.5).contains(&open_at_end), "active {active} s, transfers {done} s");
    assert!(fct.iter().all(|&t| t < 0.5), "{fct:?}");
    // So its goodput over the active periods is its bytes over that time, above the average
    // over the whole batch by the share of the batch it was idle.
    let on = b.values_of("mice", "active_goodput_mbps");
    let avg = b.values_of("mice", "goodput_mbps");
    let (act, start) = (b.values_of("mice", "active_s"), b.values_of("mice", "start_s"));
    let ends: Vec<f64> = b.time_s.iter().step_by(2).copied().collect();
    for k in 0..on.len() {
        let idle = 1.0 - act[k] / (ends[k] - start[k]);
        assert!(idle > 0.05 && on[k] > avg[k], "batch {k}: {} vs {}", on[k], avg[k]);
        assert!((on[k] * act[k] - avg[k] * (ends[k] - start[k])).abs() < 1e-9, "batch {k}");
    }
}

#[test]
fn tcp_data_packets_have_one_way_delays() {
    let out = run_toml(&scenario(), Some(1));
    let s = &out.summary;
    // Propagation 10 ms plus three serializations of a full 1500-byte frame (0.12 + 1.2 +
    // 0.12 ms) is the floor; the 50-packet FIFO at 10 Mbit/s and the frame in service add up
    // to 61.2 ms, and the access link's queue a little more.
    let floor = 10.0 + 0.12 + 1.2 + 0.12;
    for name in ["bulk", "mice"] {
        let owd = &flow(s, name)["owd_ms"];
        assert!(f(&owd["min"]) >= floor - 0.01, "{name}: {owd}");
        assert!(f(&owd["max"]) <= floor + 62.0, "{name}: {owd}");
    }
    // The bulk flow's first segments meet an empty queue.
    assert!(f(&flow(s, "bulk")["owd_ms"]["min"]) < floor + 0.2);
    // A batch's mean one-way delay lies between the run's extremes.
    for v in out.batches.values_of("mice", "owd_ms").iter().filter(|v| v.is_finite()) {
        assert!(*v >= floor - 0.01 && *v <= floor + 62.0, "{v}");
    }
}

/// Batches that would all be complete within the warm-up begin at its end with the summary's
/// window: the run used to stop inside the warm-up, and the summary divided a whole run's
/// counts by a 1 ns window (utilization 11,574,512 on a 10 Mbit/s link).
#[test]
fn batches_begin_when_the_warm_up_ends() {
    let text = scenario()
        .replace("batches = { packets = 1000, count = 6 }", "warmup = \"5s\"\nbatches = { packets = 100, count = 3 }");
    let out = run_toml(&text, Some(1));
    let s = &out.summary;
    assert_eq!(s["batches"]["completed"], 3);
    assert_eq!(out.batches.values_of("bulk", "start_s")[0], 5.0);
    // 300 packets at 10 Mbit/s take about 0.35 s after the warm-up.
    let end = f(&s["duration_s"]);
    assert!((5.2..6.0).contains(&end), "{end}");
    let bottleneck = link(s, "bottleneck:r1->r2");
    let utilization = f(&bottleneck["utilization"]);
    assert!((0.9..=1.0).contains(&utilization), "{bottleneck}");
    // the link's rate, up to the rounding of bytes x 8 / window (10.000000000000002 seen)
    assert!(f(&bottleneck["throughput_mbps"]) <= 10.0 + 1e-9, "{bottleneck}");
    // The batches hold what the window delivered.
    let packets: f64 = ["bulk", "mice"].iter().flat_map(|f| out.batches.values_of(f, "packets")).sum();
    assert_eq!(packets, 300.0);
}

#[test]
fn batches_may_count_chosen_flows_only() {
    // Counting the mice source's packets alone: each batch holds 300 of them, however many
    // the bulk flow delivers meanwhile, so the run lasts several times longer.
    let text =
        scenario().replace("count = 6 }", "count = 3, flows = [\"mice\"] }").replace("packets = 1000", "packets = 300");
    let out = run_toml(&text, Some(1));
    assert_eq!(out.batches.values_of("mice", "packets"), [300.0, 300.0, 300.0]);
    let bulk: f64 = out.batches.values_of("bulk", "packets").iter().sum();
    assert!(bulk > 3.0 * 900.0, "{bulk}");
    assert_eq!(out.summary["batches"]["completed"], 3);
}

#[test]
fn batch_keys_are_checked() {
    let with = |b: &str| scenario().replace("batches = { packets = 1000, count = 6 }", b);
    assert_refused("batches", "batch_keys", |edit| edit.snippet().map(with));
}

#[test]
fn completions_are_numbered_within_their_flow() {
    // The bulk connection opens first; the mice source's transfers are still its 0th, 1st, ...
    let out = run_toml(&scenario(), Some(1));
    let conns: Vec<f64> = out.fcts.values_of("mice", "conn");
    assert!(conns.len() > 5);
    assert!(conns.iter().enumerate().all(|(k, &c)| c == k as f64), "{conns:?}");
}
