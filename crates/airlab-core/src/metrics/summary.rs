//! The run summary (`summary.json`): per flow, queue and link, plus Jain's fairness index.
//! Statistics of sampled series and counters exclude the warm-up period
//! (`metrics.warmup`); RTT, sojourn and FCT distributions cover the whole run.

use super::Quantiles;
use crate::sim::{secs, Time};
use crate::world::World;
use serde_json::{json, Value};

/// Linear-interpolated percentile of unsorted values (numpy's default), NaNs ignored.
pub fn percentile(values: &[f64], q: f64) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Some(v[lo] + (v[hi] - v[lo]) * (pos - lo as f64))
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1 for a single flow or all-zero inputs.
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() || sq == 0.0 {
        1.0
    } else {
        sum * sum / (x.len() as f64 * sq)
    }
}

fn dist(q: &Quantiles) -> Value {
    match q.mean() {
        None => Value::Null,
        Some(mean) => json!({
            "min": q.min(), "mean": mean, "p50": q.quantile(0.5), "p95": q.quantile(0.95),
            "p99": q.quantile(0.99), "max": q.max(),
        }),
    }
}

fn fct_stats(durations: &[f64]) -> Value {
    if durations.is_empty() {
        return json!({ "count": 0, "mean": null, "min": null, "p50": null, "p95": null, "max": null });
    }
    let mean = durations.iter().sum::<f64>() / durations.len() as f64;
    json!({
        "count": durations.len(),
        "mean": mean,
        "min": durations.iter().copied().fold(f64::INFINITY, f64::min),
        "p50": percentile(durations, 0.5),
        "p95": percentile(durations, 0.95),
        "max": durations.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    })
}

/// Samples of `column` for `entity` taken in (from, to].
fn window(t: &super::series::Table, entity: &str, column: &str, from: Time, to: Time) -> Vec<f64> {
    let (from, to) = (secs(from), secs(to));
    let times: Vec<f64> =
        t.time_s.iter().zip(&t.entity).filter(|(_, e)| e.as_str() == entity).map(|(t, _)| *t).collect();
    t.values_of(entity, column)
        .into_iter()
        .zip(times)
        .filter(|(_, time)| *time > from + 1e-12 && *time <= to + 1e-12)
        .map(|(v, _)| v)
        .collect()
}

pub fn summarize(w: &World, scenario: &str, seed: u64) -> Value {
    let end = w.duration;
    let mut goodputs = Vec::new();
    let flows: Vec<Value> = w
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let from = f.start.max(w.warmup);
            let to = f.stop.min(end);
            let active = secs(to.saturating_sub(from));
            let bytes = f.bytes_delivered - w.delivered_at_warmup[i].min(f.bytes_delivered);
            let goodput = if active > 0.0 { bytes as f64 * 8.0 / active / 1e6 } else { 0.0 };
            if f.app != "ping" {
                goodputs.push(goodput);
            }
            let samples = window(&w.flow_series, &f.name, "goodput_mbps", from, to);
            let finite = matches!(f.app, "transfer" | "periodic");
            let fcts: Vec<f64> = f.completions.iter().map(|c| secs(c.end - c.start)).collect();
            let mut v = json!({
                "name": f.name, "src": f.src, "dst": f.dst, "cc": f.cc, "app": f.app,
                "goodput_mbps": goodput,
                "goodput_stats_mbps": { "median": percentile(&samples, 0.5), "p95": percentile(&samples, 0.95) },
                "bytes_delivered": f.bytes_delivered,
                "rtt_ms": dist(&f.rtt_ms),
                "jitter_ms": f.jitter_ms(),
                "retransmits": f.retransmits,
                "lost": f.lost,
                "queue_drops": f.queue_drops,
                "wire_lost": f.wire_lost,
                "ecn_marks": f.marks,
                "fct_s": if finite { fct_stats(&fcts) } else { Value::Null },
            });
            if f.app == "udp" {
                let due = f.udp_highest_seq;
                let loss = if due > 0 { 1.0 - f.udp_received as f64 / due as f64 } else { 0.0 };
                v["udp"] = json!({ "sent": f.udp_sent, "received": f.udp_received, "loss_rate": loss,
                                   "owd_ms": dist(&f.owd_ms) });
            }
            v
        })
        .collect();
    let span = end.saturating_sub(w.warmup).max(1);
    let queue = |name: &str, node: &str, link: &str, kind: &str, st: &crate::net::iface::IfaceStats| {
        let backlog = window(&w.queue_series, name, "backlog_pkts", w.warmup, end);
        json!({
            "name": name, "node": node, "link": link, "kind": kind,
            "enqueued": st.enqueued, "dequeued": st.dequeued, "drops": st.dropped, "marks": st.marked,
            "sojourn_ms": dist(&st.sojourn_ms),
            "backlog_pkts": {
                "mean": (!backlog.is_empty()).then(|| backlog.iter().sum::<f64>() / backlog.len() as f64),
                "max": backlog.iter().copied().fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x)))),
            },
        })
    };
    let mut queues: Vec<Value> = w
        .ifaces
        .iter()
        .map(|i| queue(&i.name, &w.nodes[i.from as usize].name, &i.link, i.qdisc.kind(), &i.stats))
        .collect();
    for net in &w.wifi {
        for d in &net.devs {
            queues.push(queue(&d.name, &w.nodes[d.node as usize].name, &net.name, d.qdisc.kind(), &d.stats));
        }
    }
    let links: Vec<Value> = w
        .ifaces
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let busy = i.stats.busy - w.busy_at_warmup[k];
            json!({
                "name": i.name, "link": i.link,
                "from": w.nodes[i.from as usize].name, "to": w.nodes[i.to as usize].name,
                "rate_mbps": i.rate_bps as f64 / 1e6,
                "utilization": (busy as f64 / span as f64).min(1.0),
                "throughput_mbps": i.stats.tx_bytes as f64 * 8.0 / secs(end) / 1e6,
                "wire_lost": i.stats.wire_lost,
            })
        })
        .collect();
    json!({
        "scenario": scenario,
        "seed": seed,
        "duration_s": secs(end),
        "warmup_s": secs(w.warmup),
        "flows": flows,
        "queues": queues,
        "links": links,
        "wifi": wifi_summary(w, span),
        "jain_index": jain_index(&goodputs),
    })
}

/// Per Wi-Fi network: the share of time the channel carried a transmission, and per
/// directed link its airtime, throughput, aggregation and losses after the warm-up.
fn wifi_summary(w: &World, span: Time) -> Value {
    let nets: Vec<Value> = w
        .wifi
        .iter()
        .map(|net| {
            let mut links = Vec::new();
            for d in &net.devs {
                for p in &d.peers {
                    let (s, b) = (&p.stats, &p.at_warmup);
                    let ppdus = s.ppdus - b.ppdus;
                    let ampdus = s.ampdus - b.ampdus;
                    // The link's own PHY; a rate schedule's steps show in the series.
                    let txv = p.base_txv();
                    links.push(json!({
                        "name": format!("{}:{}->{}", net.name, w.nodes[d.node as usize].name, w.nodes[p.node as usize].name),
                        "from": w.nodes[d.node as usize].name, "to": w.nodes[p.node as usize].name,
                        "phy_rate_mbps": txv.rate_bps() as f64 / 1e6,
                        "airtime_share": secs(s.airtime - b.airtime) / secs(span),
                        "throughput_mbps": (s.bytes_acked - b.bytes_acked) as f64 * 8.0 / secs(span) / 1e6,
                        "ppdus": ppdus,
                        "failed_ppdus": s.ppdus_failed - b.ppdus_failed,
                        "collisions": s.collisions - b.collisions,
                        "mpdus": s.mpdus - b.mpdus,
                        "mpdus_acked": s.mpdus_acked - b.mpdus_acked,
                        "mpdu_drops": s.mpdus_dropped - b.mpdus_dropped,
                        "mpdus_per_ppdu": (ppdus > 0).then(|| (s.mpdus - b.mpdus) as f64 / ppdus as f64),
                        "ampdus": ampdus,
                        "mpdus_per_ampdu": (ampdus > 0).then(|| (s.ampdu_mpdus - b.ampdu_mpdus) as f64 / ampdus as f64),
                    }));
                }
            }
            json!({ "name": net.name, "busy_share": secs(net.busy_time) / secs(w.duration), "links": links })
        })
        .collect();
    Value::Array(nets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_of_two_flows_matches_the_closed_form() {
        // r = x1/x2 = 1.44 gives (1+r)^2 / (2(1+r^2)) = 0.968.
        let r: f64 = 1.44;
        let want = (1.0 + r).powi(2) / (2.0 * (1.0 + r * r));
        assert!((jain_index(&[r, 1.0]) - want).abs() < 1e-12);
        assert!((jain_index(&[5.0, 5.0, 5.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn percentile_interpolates_linearly() {
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.5));
        assert_eq!(percentile(&[f64::NAN, 7.0], 0.95), Some(7.0));
        assert_eq!(percentile(&[], 0.5), None);
    }
}
