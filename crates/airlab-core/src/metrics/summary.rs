//! The run summary (`summary.json`): per flow, queue and link, plus Jain's fairness index.
//! Everything in it describes the measurement window, from the end of the warm-up
//! (`metrics.warmup`) to the end of the run: counters count from the window's start,
//! distributions hold only its samples, and FCTs are those of connections opened in it.

use super::recorder::{Counters, Recorder};
use super::series::Table;
use super::view::{direction_name, RunView};
use crate::counters::Quantiles;
use crate::net::iface::{IfaceCounters, IfaceStats};
use crate::sim::{secs, Time, MS, US};
use crate::wifi::net::UlStats;
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

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1 for a single flow. `None` without flows or
/// when none delivered anything: fairness among nothing is undefined, not perfect.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    let sum: f64 = x.iter().sum();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    (sq > 0.0).then(|| sum * sum / (x.len() as f64 * sq))
}

/// A distribution of times, in milliseconds.
fn dist_ms(q: &Quantiles) -> Value {
    let ms = |ns: f64| ns / MS as f64;
    match q.mean() {
        None => Value::Null,
        Some(mean) => json!({
            "min": q.min().map(|v| ms(v as f64)), "mean": ms(mean),
            "p50": q.quantile(0.5).map(ms), "p95": q.quantile(0.95).map(ms),
            "p99": q.quantile(0.99).map(ms), "max": q.max().map(|v| ms(v as f64)),
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

/// A table's rows grouped by entity, to take windows of its columns.
struct Windows<'a> {
    table: &'a Table,
    rows: Vec<Vec<u32>>,
}

impl<'a> Windows<'a> {
    fn new(table: &'a Table) -> Self {
        Windows { table, rows: table.rows_by_entity() }
    }

    /// Samples of `column` for `entity` taken in (from, to].
    fn values(&self, entity: &str, column: &str, from: Time, to: Time) -> Vec<f64> {
        let (Some(id), Some(col)) = (self.table.entity_id(entity), self.table.column(column)) else {
            return Vec::new();
        };
        let (from, to) = (secs(from), secs(to));
        let times = &self.table.time_s;
        self.rows[id as usize]
            .iter()
            .map(|&r| r as usize)
            .filter(|&r| times[r] > from + 1e-12 && times[r] <= to + 1e-12)
            .map(|r| col[r])
            .collect()
    }
}

/// Minimum, mean, median and 95th percentile of sampled values (`null` without samples).
fn sampled_stats(values: &[f64]) -> Value {
    let v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return Value::Null;
    }
    json!({
        "min": v.iter().copied().fold(f64::INFINITY, f64::min),
        "mean": v.iter().sum::<f64>() / v.len() as f64,
        "p50": percentile(&v, 0.5),
        "p95": percentile(&v, 0.95),
    })
}

/// Mean absolute difference of consecutive samples (`null` with fewer than two): the jitter
/// tools derive from `ss` polls of the smoothed RTT, one sample per metrics interval.
fn mean_abs_step(v: &[f64]) -> Value {
    let steps: Vec<f64> = v.windows(2).map(|w| (w[1] - w[0]).abs()).filter(|d| d.is_finite()).collect();
    if steps.is_empty() {
        return Value::Null;
    }
    json!(steps.iter().sum::<f64>() / steps.len() as f64)
}

/// The summary of the measurement window, from the end of the warm-up to the end of the run.
pub fn summarize(w: &impl RunView, rec: &Recorder, scenario: &str, seed: u64) -> Value {
    let end = w.duration();
    // The window's counters: from the snapshot at its start to the end of the run.
    let (window, last) = (&rec.window, Counters::take(w, end));
    let span = end.saturating_sub(rec.warmup).max(1);
    let (flow_series, queue_series) = (Windows::new(&rec.flows), Windows::new(&rec.queues));
    let mut goodputs = Vec::new();
    let flows: Vec<Value> = w
        .flows()
        .iter()
        .zip(&window.flows)
        .map(|(f, at_window)| {
            let n = f.total.since(at_window);
            // The flow's active period in the window: from its start to its stop, or to the
            // last data that reached its receiver when data sent before the stop arrived after.
            let from = f.start.max(rec.warmup);
            let to = f.stop.max(f.last_delivery).min(end);
            let active = secs(to.saturating_sub(from));
            let goodput = if active > 0.0 { n.bytes_delivered as f64 * 8.0 / active / 1e6 } else { 0.0 };
            if f.app != "ping" {
                goodputs.push(goodput);
            }
            let samples = flow_series.values(&f.name, "goodput_mbps", from, to);
            let srtt = flow_series.values(&f.name, "srtt_ms", from, to);
            let finite = matches!(f.app, "transfer" | "periodic");
            // The connections opened in the window.
            let fcts: Vec<f64> =
                f.completions.iter().filter(|c| c.start >= window.at).map(|c| secs(c.end - c.start)).collect();
            let mut v = json!({
                "name": f.name, "src": f.src, "dst": f.dst, "cc": f.cc, "app": f.app,
                "goodput_mbps": goodput,
                "window_s": active,
                "goodput_stats_mbps": { "median": percentile(&samples, 0.5), "p95": percentile(&samples, 0.95) },
                "bytes_delivered": n.bytes_delivered,
                "rtt_ms": dist_ms(&f.rtt),
                "owd_ms": dist_ms(&f.owd),
                "srtt_ms": if f.cc.is_some() { sampled_stats(&srtt) } else { Value::Null },
                "jitter_ms": f.jitter_ms(),
                "srtt_jitter_ms": if f.cc.is_some() { mean_abs_step(&srtt) } else { Value::Null },
                "data_segs_out": n.data_segs_out,
                "retransmits": n.retransmits,
                "retransmit_rate": (n.data_segs_out > 0).then(|| n.retransmits as f64 / n.data_segs_out as f64),
                "lost": n.lost,
                "queue_drops": n.queue_drops,
                "local_drops": n.local_drops,
                "undos": n.undos,
                "spurious_rtos": n.spurious_rtos,
                "wire_lost": n.wire_lost,
                "ecn_marks": n.marks,
                "fct_s": if finite { fct_stats(&fcts) } else { Value::Null },
            });
            if f.app == "udp" {
                let due = n.udp_highest_seq;
                let loss = if due > 0 { 1.0 - n.udp_received as f64 / due as f64 } else { 0.0 };
                v["udp"] = json!({ "sent": n.udp_sent, "received": n.udp_received, "loss_rate": loss,
                                   "owd_ms": dist_ms(&f.owd) });
            }
            v
        })
        .collect();
    let queue = |name: &str, node: &str, link: &str, kind: &str, st: &IfaceStats, at_window: &IfaceCounters| {
        let backlog = queue_series.values(name, "backlog_pkts", rec.warmup, end);
        let n = st.total.since(at_window);
        json!({
            "name": name, "node": node, "link": link, "kind": kind,
            "enqueued": n.enqueued, "dequeued": n.dequeued, "drops": n.dropped, "marks": n.marked,
            "device_drops": n.device_dropped, "device_marks": n.device_marked,
            "sojourn_ms": dist_ms(&st.sojourn),
            "backlog_pkts": {
                "mean": (!backlog.is_empty()).then(|| backlog.iter().sum::<f64>() / backlog.len() as f64),
                "max": backlog.iter().copied().fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x)))),
            },
        })
    };
    let wired = w.ifaces().iter().map(|i| (&i.name, w.node_name(i.from), &i.link, i.qdisc.kind(), &i.stats));
    let wireless = w
        .wifi()
        .iter()
        .flat_map(|net| net.devs.iter().map(|d| (&d.name, w.node_name(d.node), &net.name, d.qdisc.kind(), &d.stats)));
    let queues: Vec<Value> = wired
        .chain(wireless)
        .zip(&window.queues)
        .map(|((name, node, link, kind, st), at_window)| queue(name, node, link, kind, st, at_window))
        .collect();
    let links: Vec<Value> = w
        .ifaces()
        .iter()
        .enumerate()
        .map(|(k, i)| {
            let tx = last.tx[k].since(&window.tx[k]);
            json!({
                "name": i.name, "link": i.link,
                "from": w.node_name(i.from), "to": w.node_name(i.to),
                "rate_mbps": i.rate_bps as f64 / 1e6,
                "utilization": tx.busy as f64 / span as f64,
                "throughput_mbps": tx.bytes * 8.0 / secs(span) / 1e6,
                "wire_lost": last.queues[k].wire_lost - window.queues[k].wire_lost,
            })
        })
        .collect();
    json!({
        "scenario": scenario,
        "seed": seed,
        "duration_s": secs(end),
        "warmup_s": secs(rec.warmup),
        "flows": flows,
        "queues": queues,
        "links": links,
        "wifi": wifi_summary(w, &last, window, span),
        "jain_index": jain_index(&goodputs),
    })
}

/// Per Wi-Fi network: the share of the measurement window the channel carried a transmission,
/// and per directed link its airtime, throughput, aggregation and losses in the window.
fn wifi_summary(w: &impl RunView, last: &Counters, window: &Counters, span: Time) -> Value {
    let mut k = 0;
    let nets: Vec<Value> = w
        .wifi()
        .iter()
        .enumerate()
        .map(|(i, net)| {
            let mut links = Vec::new();
            for d in &net.devs {
                for p in &d.peers {
                    let n = last.wifi_links[k].since(&window.wifi_links[k]);
                    k += 1;
                    // The link's own PHY; a rate schedule's steps show in the series.
                    let txv = p.base_txv();
                    let mut link = json!({
                        "name": direction_name(&net.name, w.node_name(d.node), w.node_name(p.node)),
                        "from": w.node_name(d.node), "to": w.node_name(p.node),
                        "phy_rate_mbps": txv.rate_bps() as f64 / 1e6,
                        "airtime_share": n.airtime as f64 / span as f64,
                        "throughput_mbps": n.bytes_acked as f64 * 8.0 / secs(span) / 1e6,
                        "ppdus": n.ppdus,
                        "failed_ppdus": n.ppdus_failed,
                        "collisions": n.collisions,
                        "mpdus": n.mpdus,
                        "mpdus_acked": n.mpdus_acked,
                        "mpdu_drops": n.mpdus_dropped,
                        "mpdus_per_ppdu": (n.ppdus > 0).then(|| n.mpdus as f64 / n.ppdus as f64),
                        "ampdus": n.ampdus,
                        "mpdus_per_ampdu": (n.ampdus > 0).then(|| n.ampdu_mpdus as f64 / n.ampdus as f64),
                        "mu_ppdus": n.mu_ppdus,
                        "mu_ru_tones": (n.mu_ppdus > 0).then(|| n.mu_ru_tones as f64 / n.mu_ppdus as f64),
                        "mu_ru_rate_mbps": (n.mu_ppdus > 0).then(|| n.mu_ru_rate as f64 / n.mu_ppdus as f64 / 1e6),
                    });
                    // With a channel model: the receiver's SNR and power (the link's own, too).
                    if let Some(radio) = p.base_radio() {
                        link["snr_db"] = json!(radio.snr_db);
                        link["rx_power_dbm"] = json!(radio.rx_power_dbm);
                    }
                    links.push(link);
                }
            }
            let busy = last.wifi_busy[i] - window.wifi_busy[i];
            let mut summary = json!({ "name": net.name, "busy_share": busy as f64 / span as f64, "links": links });
            if net.runs_ul_ofdma() {
                summary["ul_ofdma"] = ul_ofdma_summary(&last.wifi_ul[i].since(&window.wifi_ul[i]));
            }
            summary
        })
        .collect();
    Value::Array(nets)
}

/// A BSS's uplink OFDMA cycles in the window: how many, how long on average (the trigger-frame
/// cycle), how many stations sent data per Basic Trigger, and the transmissions on random-access
/// RUs (those alone on their RU succeed).
fn ul_ofdma_summary(n: &UlStats) -> Value {
    json!({
        "cycles": n.cycles,
        "cycle_us": (n.cycles > 0).then(|| n.cycle_time as f64 / n.cycles as f64 / US as f64),
        "bsrps": n.bsrps,
        "basic_triggers": n.basic_triggers,
        "users_per_trigger": (n.basic_triggers > 0).then(|| n.tb_users as f64 / n.basic_triggers as f64),
        "ra_attempts": n.ra_attempts,
        "ra_successes": n.ra_successes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_of_two_flows_matches_the_closed_form() {
        // r = x1/x2 = 1.44 gives (1+r)^2 / (2(1+r^2)) = 0.968.
        let r: f64 = 1.44;
        let want = (1.0 + r).powi(2) / (2.0 * (1.0 + r * r));
        assert!((jain_index(&[r, 1.0]).unwrap() - want).abs() < 1e-12);
        assert!((jain_index(&[5.0, 5.0, 5.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }

    #[test]
    fn percentile_interpolates_linearly() {
        assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 0.5), Some(2.5));
        assert_eq!(percentile(&[f64::NAN, 7.0], 0.95), Some(7.0));
        assert_eq!(percentile(&[], 0.5), None);
    }
}
