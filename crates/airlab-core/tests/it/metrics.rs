//! The numbers a run reports, checked for consistency with each other and with bounds no
//! distribution can break: quantiles against Markov's inequality, the summary's measurement
//! window against the time series, and per-interval series against their own units.

use crate::builders::*;
use crate::common::*;
use airlab_core::metrics::series::Table;
use serde_json::Value;

fn queue<'a>(s: &'a Value, name: &str) -> &'a Value {
    s["queues"].as_array().unwrap().iter().find(|q| q["name"] == name).unwrap_or_else(|| panic!("no queue {name}"))
}

/// Values of `column` for rows of `entity` with their times.
fn series(t: &Table, entity: &str, column: &str) -> Vec<(f64, f64)> {
    let values = t.values_of(entity, column);
    let times: Vec<f64> = t.time_s.iter().zip(t.entities()).filter(|(_, e)| *e == entity).map(|(t, _)| *t).collect();
    times.into_iter().zip(values).collect()
}

/// Markov's inequality: for non-negative values P(X >= a) <= mean / a, so the q-quantile is at
/// most mean / (1 - q). The quantile sketch may report up to 0.4 % above the exact value.
fn assert_markov(name: &str, dist: &Value) {
    let mean = f(&dist["mean"]);
    for (key, q) in [("p50", 0.5), ("p95", 0.95), ("p99", 0.99)] {
        let v = f(&dist[key]);
        assert!(v <= mean / (1.0 - q) * 1.004 + 1e-9, "{name}: {key} = {v} ms but the mean is {mean} ms");
    }
    assert!(f(&dist["min"]) <= f(&dist["p50"]) && f(&dist["p99"]) <= f(&dist["max"]), "{name}: {dist}");
}

#[test]
fn sub_millisecond_sojourns_are_resolved() {
    // The 100 Mbit/s access queue of the dumbbell holds a packet now and then for a fraction
    // of a 0.12 ms serialization: a mean of microseconds. The old sketch put every value
    // below 1 ms in one bucket and reported p50 = p95 = p99 = 0.5 ms beside it.
    let out = run_builtin("basics/dumbbell-cubic", &[("duration", "10s")], None);
    let s = &out.summary;
    for q in s["queues"].as_array().unwrap() {
        if !q["sojourn_ms"].is_null() {
            assert_markov(q["name"].as_str().unwrap(), &q["sojourn_ms"]);
        }
    }
    let access = &queue(s, "h1-r1:h1->r1")["sojourn_ms"];
    assert!(f(&access["mean"]) < 0.01, "{access}");
    assert!(f(&access["p99"]) < 0.13, "p99 within one 100 Mbit/s serialization: {access}");
}

#[test]
fn every_counter_leaves_the_warm_up_out() {
    let out = run_builtin("basics/dumbbell-cubic", &[("duration", "30s"), ("metrics.warmup", "20s")], None);
    let s = &out.summary;
    // Link throughput over the same window as utilization: IP bytes with no link overhead,
    // so throughput = utilization x rate exactly (it read 3.32 beside 0.997 x 10).
    let b = link(s, "bottleneck:r1->r2");
    let (util, thr) = (f(&b["utilization"]), f(&b["throughput_mbps"]));
    assert!(util > 0.95, "{b}");
    assert!((thr - util * 10.0).abs() < 1e-9, "throughput {thr} vs utilization {util} x 10 Mbit/s");
    // Drops and retransmits in the summary are the rise of the cumulative series over the
    // window (from the sample at 20 s to the one at 30 s).
    let rise = |t: &Table, entity: &str, column: &str| {
        let v = series(t, entity, column);
        let at = |time: f64| v.iter().find(|(t, _)| (t - time).abs() < 1e-9).unwrap().1;
        at(30.0) - at(20.0)
    };
    let q = queue(s, "bottleneck:r1->r2");
    let drops = rise(&out.queues, "bottleneck:r1->r2", "drops");
    assert!(drops > 0.0);
    assert_eq!(f(&q["drops"]), drops);
    let fl = flow(s, "cubic");
    assert_eq!(f(&fl["retransmits"]), rise(&out.flows, "cubic", "retransmits"));
    assert_eq!(f(&fl["queue_drops"]), drops);
    // Enqueued minus dequeued minus drops is what the queue gained over the window.
    let backlog = |time: f64| {
        series(&out.queues, "bottleneck:r1->r2", "backlog_pkts")
            .iter()
            .find(|(t, _)| (t - time).abs() < 1e-9)
            .unwrap()
            .1
    };
    let gained = f(&q["enqueued"]) - f(&q["dequeued"]) - f(&q["drops"]);
    assert_eq!(gained, backlog(30.0) - backlog(20.0));
}

#[test]
fn the_smoothed_rtt_is_summarized_from_the_series_after_the_warm_up() {
    let out = run_builtin("basics/dumbbell-cubic", &[("duration", "20s"), ("metrics.warmup", "5s")], None);
    let fl = flow(&out.summary, "cubic");
    let srtt = &fl["srtt_ms"];
    let mut after: Vec<f64> =
        series(&out.flows, "cubic", "srtt_ms").into_iter().filter(|(t, _)| *t > 5.0 + 1e-9).map(|(_, v)| v).collect();
    after.sort_by(f64::total_cmp);
    assert_eq!(f(&srtt["min"]), after[0]);
    let mean = after.iter().sum::<f64>() / after.len() as f64;
    assert!((f(&srtt["mean"]) - mean).abs() < 1e-9);
    // The standing queue of a 50-packet pfifo: the smoothed RTT and the raw samples agree on
    // the median within a few milliseconds.
    let (s50, r50) = (f(&srtt["p50"]), f(&fl["rtt_ms"]["p50"]));
    assert!((s50 - r50).abs() < 3.0, "srtt p50 {s50} vs raw RTT p50 {r50}");
    assert!(fl["srtt_ms"]["p95"].as_f64().unwrap() >= s50);
    // A ping flow has no smoothed RTT.
    let out = run_builtin("aqm/bufferbloat-pfifo", &[("duration", "8s")], None);
    assert!(flow(&out.summary, "probe")["srtt_ms"].is_null());
}

/// The jitter `ss`-based tools report: the mean absolute difference of the smoothed RTT from
/// one sample to the next, over the samples after the warm-up; and the retransmission rate,
/// retransmissions over data segments sent, which for random loss on the wire is the loss
/// probability (each lost segment sent once more; the retransmissions lose too).
#[test]
fn srtt_jitter_and_retransmit_rate_follow_their_definitions() {
    let sets = [("duration", "20s"), ("metrics.warmup", "5s"), ("link.bottleneck.loss", "0.01")];
    let out = run_builtin("basics/dumbbell-cubic", &sets, None);
    let fl = flow(&out.summary, "cubic");
    let after: Vec<f64> =
        series(&out.flows, "cubic", "srtt_ms").into_iter().filter(|(t, _)| *t > 5.0 + 1e-9).map(|(_, v)| v).collect();
    let steps: Vec<f64> = after.windows(2).map(|w| (w[1] - w[0]).abs()).collect();
    let jitter = steps.iter().sum::<f64>() / steps.len() as f64;
    assert!((f(&fl["srtt_jitter_ms"]) - jitter).abs() < 1e-9 && jitter > 0.0, "{} vs {jitter}", fl["srtt_jitter_ms"]);
    let (segs, retx) = (f(&fl["data_segs_out"]), f(&fl["retransmits"]));
    assert!((f(&fl["retransmit_rate"]) - retx / segs).abs() < 1e-12);
    assert!((0.008..0.012).contains(&(retx / segs)), "{retx} of {segs}");
    // New data: what was delivered in the window, give or take the window's change in flight.
    let new_bytes = (segs - retx) * 1448.0;
    let delivered = f(&fl["bytes_delivered"]);
    assert!((new_bytes - delivered).abs() < 200.0 * 1448.0, "{new_bytes} sent, {delivered} delivered");
    // UDP has neither.
    let udp = run_builtin("aqm/bufferbloat-pfifo", &[("duration", "8s")], None);
    let probe = flow(&udp.summary, "probe");
    assert!(probe["srtt_jitter_ms"].is_null() && probe["retransmit_rate"].is_null());
}

/// A 1 Mbit/s link sampled every millisecond: a 1500-byte packet takes 12 ms to serialize,
/// so one packet spans twelve intervals.
#[test]
fn a_transmission_longer_than_the_interval_is_split_across_intervals() {
    let sender = Flow::new("a", "b").name("u").app(udp("2Mbit"));
    let slow = Link::new("a", "b", "1Mbit", "5ms");
    let scenario = Scenario::new("slow", "3s").hosts(&["a", "b"]).link(slow).flow(sender);
    let out = run_toml(&scenario.interval("1ms").warmup("1s").to_string(), None);
    let name = "a-b:a->b";
    let util = series(&out.links, name, "utilization");
    let thr = series(&out.links, name, "throughput_mbps");
    for ((t, u), (_, x)) in util.iter().zip(&thr) {
        assert!((0.0..=1.0).contains(u), "utilization {u} at {t}");
        assert!(*x <= 1.0 + 1e-9, "throughput {x} Mbit/s on a 1 Mbit/s link at {t}");
    }
    // Saturated: every interval after the start is fully busy, at the IP share of the rate.
    let after: Vec<_> = util.iter().zip(&thr).filter(|((t, _), _)| *t > 0.1).collect();
    assert!(after.iter().all(|((_, u), (_, x))| (*u - 1.0).abs() < 1e-9 && (*x - 1.0).abs() < 1e-9));
    let l = link(&out.summary, name);
    assert!((f(&l["utilization"]) - 1.0).abs() < 1e-9 && (f(&l["throughput_mbps"]) - 1.0).abs() < 1e-9, "{l}");
}

/// One 802.11n station at MCS 0 sending 65,507-byte datagrams: each PPDU is on the air for
/// about 80 ms, close to the 100 ms sampling interval.
#[test]
fn wifi_airtime_and_frame_counts_stay_consistent_per_interval() {
    let wifi = Wifi::bss("n", "ap", &["sta"]).key("mcs", 0).key("aggregation", "{ enabled = false }");
    let jumbo = Flow::new("sta", "ap").app(r#"{ kind = "udp", rate = "10Mbit", packet_size = "65507B" }"#);
    let scenario = Scenario::new("jumbo", "4s").hosts(&["ap", "sta"]).warmup("1050ms").wifi(wifi).flow(jumbo);
    let out = run_toml(&scenario.to_string(), None);
    let name = "wifi0:sta->ap";
    let share = series(&out.wifi, name, "airtime_share");
    assert!(share.iter().any(|(_, a)| *a > 0.5), "the station is busy");
    for (t, a) in &share {
        assert!((0.0..=1.0).contains(a), "airtime share {a} at {t}");
    }
    let links = out.summary["wifi"][0]["links"].as_array().unwrap();
    let l = links.iter().find(|l| l["name"] == name).unwrap();
    let airtime = f(&l["airtime_share"]);
    assert!(airtime > 0.5 && airtime <= 1.0, "{l}");
    assert!(f(&out.summary["wifi"][0]["busy_share"]) <= 1.0);
    assert!(l["mpdus_acked"].as_u64() <= l["mpdus"].as_u64(), "{l}");
}
