//! The physical invariants every run's summary obeys, checked after each run before the summary
//! is handed out. A summary that breaks one describes something no network does (a link busy
//! for longer than the window, a flow faster than the slowest hop of its path, more MPDUs
//! acknowledged than sent), so its numbers come from an engine bug, whatever the scenario: the
//! run fails with an [`InternalError`] naming every broken invariant instead of handing them
//! out.
//!
//! The bounds ([`Limits`]) come from the scenario (rates, paths, start times), never from the
//! summary under test. Each is a theorem of the model:
//! - Shares and utilizations are time in the window over the window's length: in [0, 1].
//! - A wired link direction serializes at most its rate (transmission times round up).
//! - Bytes cross a hop at most at its rate (a Wi-Fi link's fastest PHY rate), and only after
//!   their flow started (after the run began, for a Wi-Fi link): those counted in the window
//!   are at most that rate times the time since then. Without a warm-up that is the rate
//!   itself; after one, bytes sent before the window and delivered in it are allowed for.
//! - Counters of the same events (a retransmission is a segment sent; an exchange's
//!   acknowledged and dropped MPDUs are among those it sent) keep their order in any window;
//!   counters of a packet's way in and out (offered, dequeued, dropped; datagrams sent and
//!   received) only over the whole run, when the window has no warm-up before it.

use crate::sim::{secs, Time};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

/// Relative tolerance for the rounding of floating-point sums over a run.
const ROUNDING: f64 = 1e-9;

/// One broken invariant: what broke it (`link "bottleneck:r1->r2"`), which quantity of the
/// summary, its value (NaN when it is not a finite number) and the bound it broke.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub entity: String,
    pub quantity: String,
    pub value: f64,
    pub bound: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{} {} = {}, expected {}", self.entity, self.quantity, self.value, self.bound)
    }
}

/// A run whose summary breaks physical invariants: a bug in the engine, not in the scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct InternalError {
    /// Every invariant the summary breaks, in summary order.
    pub violations: Vec<Violation>,
}

impl fmt::Display for InternalError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let n = self.violations.len();
        let listed: Vec<String> = self.violations.iter().map(Violation::to_string).collect();
        let s = if n == 1 { "" } else { "s" };
        write!(f, "the run's summary breaks {n} physical invariant{s}: {}", listed.join("; "))
    }
}

impl std::error::Error for InternalError {}

/// A flow's bound: when it starts and stops, and the rate of the slowest hop of its path.
#[derive(Clone, Copy)]
struct FlowLimit {
    start_s: f64,
    stop_s: f64,
    bottleneck_bps: f64,
}

/// What the scenario allows each entity of a summary at most, by the entity's summary name.
#[derive(Default)]
pub struct Limits {
    /// Wired link directions (`link:from->to`): their rate in bit/s.
    links: HashMap<String, f64>,
    /// Wi-Fi links (`net:from->to`): the fastest PHY rate they send at, in bit/s.
    wifi_links: HashMap<String, f64>,
    flows: HashMap<String, FlowLimit>,
}

impl Limits {
    /// The wired link direction `name` serializes at `rate_bps`.
    pub fn link(&mut self, name: String, rate_bps: f64) {
        self.links.insert(name, rate_bps);
    }

    /// The Wi-Fi link `name` sends at `fastest_bps` at most (over every step of a rate
    /// schedule).
    pub fn wifi_link(&mut self, name: String, fastest_bps: f64) {
        self.wifi_links.insert(name, fastest_bps);
    }

    /// The flow `name` runs from `start` to `stop` over a path whose slowest hop carries
    /// `bottleneck_bps`.
    pub fn flow(&mut self, name: String, start: Time, stop: Time, bottleneck_bps: f64) {
        self.flows.insert(name, FlowLimit { start_s: secs(start), stop_s: secs(stop), bottleneck_bps });
    }
}

/// Checks `summary` against the physical invariants and the scenario's `limits`.
pub fn check(summary: &Value, limits: &Limits) -> Result<(), InternalError> {
    let mut c = Checker { violations: Vec::new() };
    let run = "the run";
    let end = c.number(run, "duration_s", &summary["duration_s"]).unwrap_or(0.0);
    let warmup = c.number(run, "warmup_s", &summary["warmup_s"]).unwrap_or(0.0);
    if warmup > end {
        c.fail(run, "warmup_s", warmup, format!("at most duration_s = {end}: a window that ends after it begins"));
    }
    // The summary divides by the window, of at least 1 ns.
    let span = (end - warmup).max(1e-9);
    let whole_run = warmup == 0.0;
    // Undefined (null) only when no flow but pings delivered anything.
    let delivering = entries(&summary["flows"]).any(|f| f["app"] != "ping" && f["goodput_mbps"].as_f64() != Some(0.0));
    if delivering || !summary["jain_index"].is_null() {
        c.in_range(run, "jain_index", &summary["jain_index"], 1.0, "");
    }

    for l in entries(&summary["links"]) {
        let entity = format!("link \"{}\"", name(l));
        c.in_range(&entity, "utilization", &l["utilization"], 1.0, "");
        match limits.links.get(name(l)) {
            Some(&rate) => c.in_range(&entity, "throughput_mbps", &l["throughput_mbps"], rate / 1e6, " (its rate)"),
            None => c.fail(&entity, "name", f64::NAN, "a link direction of the scenario".into()),
        }
    }

    for q in entries(&summary["queues"]) {
        let entity = format!("queue \"{}\"", name(q));
        if whole_run {
            c.counts(&entity, &["drops", "dequeued"], "enqueued", q);
            c.counts(&entity, &["marks"], "enqueued", q);
        }
    }

    for f in entries(&summary["flows"]) {
        let entity = format!("flow \"{}\"", name(f));
        c.counts(&entity, &["retransmits"], "data_segs_out", f);
        c.counts(&entity, &["local_drops"], "queue_drops", f);
        c.counts(&entity, &["spurious_rtos"], "undos", f);
        if !f["retransmit_rate"].is_null() {
            c.in_range(&entity, "retransmit_rate", &f["retransmit_rate"], 1.0, "");
        }
        // A datagram sent before the window may arrive in it, after a later one.
        if f["udp"].is_object() && whole_run {
            c.in_range(&entity, "udp.loss_rate", &f["udp"]["loss_rate"], 1.0, "");
            c.counts(&entity, &["received"], "sent", &f["udp"]);
        }
        let Some(limit) = limits.flows.get(name(f)) else {
            c.fail(&entity, "name", f64::NAN, "a flow of the scenario".into());
            continue;
        };
        // The goodput's window runs from the flow's start (or the warm-up's end) to its stop,
        // or later, to its last delivery, but not past the run's end.
        let from = limit.start_s.max(warmup);
        let least = (limit.stop_s.min(end) - from).max(0.0);
        let Some(window) = c.number(&entity, "window_s", &f["window_s"]) else { continue };
        if window < least * (1.0 - ROUNDING) || window > (end - from).max(0.0) * (1.0 + ROUNDING) {
            let bound = format!("from {least} (to its stop) to {} (to the run's end)", end - from);
            c.fail(&entity, "window_s", window, bound);
        } else if window > 0.0 {
            // Bytes counted in the window crossed the slowest hop since the flow started.
            let crossing = from + window - limit.start_s;
            let most = limit.bottleneck_bps * crossing / window / 1e6;
            c.in_range(&entity, "goodput_mbps", &f["goodput_mbps"], most, " (its path's slowest hop)");
        }
    }

    for net in entries(&summary["wifi"]) {
        let entity = format!("Wi-Fi network \"{}\"", name(net));
        c.in_range(&entity, "busy_share", &net["busy_share"], 1.0, "");
        for l in entries(&net["links"]) {
            let entity = format!("Wi-Fi link \"{}\"", name(l));
            c.in_range(&entity, "airtime_share", &l["airtime_share"], 1.0, "");
            c.counts(&entity, &["failed_ppdus"], "ppdus", l);
            c.counts(&entity, &["ampdus"], "ppdus", l);
            c.counts(&entity, &["mu_ppdus"], "ppdus", l);
            c.counts(&entity, &["mpdus_acked", "mpdu_drops"], "mpdus", l);
            match limits.wifi_links.get(name(l)) {
                Some(&rate) => {
                    let most = rate * end / span / 1e6;
                    c.in_range(&entity, "throughput_mbps", &l["throughput_mbps"], most, " (its fastest PHY rate)");
                }
                None => c.fail(&entity, "name", f64::NAN, "a Wi-Fi link of the scenario".into()),
            }
        }
    }

    if c.violations.is_empty() {
        Ok(())
    } else {
        Err(InternalError { violations: c.violations })
    }
}

/// The entries of a list of the summary (none if it is not a list).
fn entries(list: &Value) -> impl Iterator<Item = &Value> {
    list.as_array().into_iter().flatten()
}

fn name(entry: &Value) -> &str {
    entry["name"].as_str().unwrap_or_default()
}

struct Checker {
    violations: Vec<Violation>,
}

impl Checker {
    fn fail(&mut self, entity: &str, quantity: &str, value: f64, bound: String) {
        self.violations.push(Violation { entity: entity.to_string(), quantity: quantity.to_string(), value, bound });
    }

    /// `v` as a number; a missing or non-finite one breaks an invariant of its own.
    fn number(&mut self, entity: &str, quantity: &str, v: &Value) -> Option<f64> {
        match v.as_f64() {
            Some(x) if x.is_finite() => Some(x),
            _ => {
                self.fail(entity, quantity, f64::NAN, "a finite number".into());
                None
            }
        }
    }

    /// `quantity` lies in [0, `max`], up to rounding; `why` says where `max` comes from.
    fn in_range(&mut self, entity: &str, quantity: &str, v: &Value, max: f64, why: &str) {
        if let Some(x) = self.number(entity, quantity, v) {
            if !(0.0..=max * (1.0 + ROUNDING)).contains(&x) {
                self.fail(entity, quantity, x, format!("from 0 to {max}{why}"));
            }
        }
    }

    /// The counters `parts` of `entry` add up to at most its counter `whole`.
    fn counts(&mut self, entity: &str, parts: &[&str], whole: &str, entry: &Value) {
        let mut sum = 0.0;
        for part in parts {
            match self.number(entity, part, &entry[*part]) {
                Some(x) => sum += x,
                None => return,
            }
        }
        if let Some(total) = self.number(entity, whole, &entry[whole]) {
            if sum > total {
                self.fail(entity, &parts.join(" + "), sum, format!("at most {whole} = {total}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SEC;
    use serde_json::json;

    /// A 10 s run: a 10 Mbit/s bottleneck, a bulk flow across it from 1 s, and an 802.11a link
    /// at 24 Mbit/s with a step to 54 Mbit/s.
    fn limits() -> Limits {
        let mut limits = Limits::default();
        limits.link("bottleneck:r1->r2".into(), 10e6);
        limits.wifi_link("bss:r2->sta".into(), 54e6);
        limits.flow("bulk".into(), SEC, 10 * SEC, 10e6);
        limits
    }

    /// A summary of that run that obeys every invariant: the flow at 9.5 Mbit/s, the
    /// bottleneck busy 95 % of the window.
    fn sane() -> Value {
        json!({
            "duration_s": 10.0, "warmup_s": 0.0, "jain_index": 1.0,
            "links": [{ "name": "bottleneck:r1->r2", "utilization": 0.95, "throughput_mbps": 9.5 }],
            "queues": [{ "name": "bottleneck:r1->r2", "enqueued": 100, "dequeued": 90, "drops": 10, "marks": 0 }],
            "flows": [{
                "name": "bulk", "goodput_mbps": 9.5, "window_s": 9.0, "retransmits": 10, "data_segs_out": 7000,
                "local_drops": 0, "queue_drops": 10, "spurious_rtos": 0, "undos": 1, "retransmit_rate": 0.0014,
            }],
            "wifi": [{ "name": "bss", "busy_share": 0.5, "links": [{
                "name": "bss:r2->sta", "airtime_share": 0.4, "throughput_mbps": 20.0, "ppdus": 10,
                "failed_ppdus": 1, "ampdus": 0, "mu_ppdus": 0, "mpdus": 10, "mpdus_acked": 9, "mpdu_drops": 0,
            }]}],
        })
    }

    fn broken(summary: &Value) -> Vec<(String, String)> {
        match check(summary, &limits()) {
            Ok(()) => Vec::new(),
            Err(e) => e.violations.into_iter().map(|v| (v.entity, v.quantity)).collect(),
        }
    }

    #[test]
    fn a_sane_summary_passes() {
        assert_eq!(broken(&sane()), []);
    }

    /// The summary of a run that stopped inside its warm-up (issue 32): every share and rate
    /// divided by a 1 ns window.
    #[test]
    fn a_run_that_ended_inside_its_warm_up_is_caught_with_every_quantity_it_broke() {
        let mut s = sane();
        s["duration_s"] = json!(0.3);
        s["warmup_s"] = json!(5.0);
        s["links"][0]["utilization"] = json!(11_574_512.0);
        s["links"][0]["throughput_mbps"] = json!(1.2e8);
        s["wifi"][0]["busy_share"] = json!(3.65e6);
        let err = check(&s, &limits()).unwrap_err();
        let broken: Vec<(&str, &str)> =
            err.violations.iter().map(|v| (v.entity.as_str(), v.quantity.as_str())).collect();
        assert_eq!(
            broken,
            [
                ("the run", "warmup_s"),
                ("link \"bottleneck:r1->r2\"", "utilization"),
                ("link \"bottleneck:r1->r2\"", "throughput_mbps"),
                ("flow \"bulk\"", "window_s"),
                ("Wi-Fi network \"bss\"", "busy_share"),
            ]
        );
        let message = err.to_string();
        assert!(message.starts_with("the run's summary breaks 5 physical invariants: "), "{message}");
        assert!(message
            .contains("link \"bottleneck:r1->r2\" throughput_mbps = 120000000, expected from 0 to 10 (its rate)"));
    }

    #[test]
    fn a_flow_faster_than_its_slowest_hop_is_caught() {
        // From its start at 1 s to the end at 10 s the flow's bytes crossed the 10 Mbit/s
        // bottleneck: 10 Mbit/s over its active time at most.
        let mut s = sane();
        s["flows"][0]["goodput_mbps"] = json!(10.0);
        assert_eq!(broken(&s), []);
        s["flows"][0]["goodput_mbps"] = json!(10.01);
        assert_eq!(broken(&s), [("flow \"bulk\"".to_string(), "goodput_mbps".to_string())]);
        // With a warm-up to 5 s the window holds its bytes of 5 s, but they may have crossed
        // the bottleneck since 1 s.
        s["warmup_s"] = json!(5.0);
        s["flows"][0]["window_s"] = json!(5.0);
        s["flows"][0]["goodput_mbps"] = json!(17.9);
        assert_eq!(broken(&s), []);
        s["flows"][0]["goodput_mbps"] = json!(18.1);
        assert_eq!(broken(&s).len(), 1);
    }

    /// A flow that stops at 1.0001 s, 100 us after its start: its last bytes arrive after the
    /// stop, and its goodput is over the window to them, which the summary states.
    #[test]
    fn a_flow_s_window_runs_from_its_start_at_least_to_its_stop() {
        let mut limits = limits();
        limits.flow("bulk".into(), SEC, SEC + 100_000, 10e6);
        let check_flow = |window: f64, goodput: f64| {
            let mut s = sane();
            s["flows"][0]["window_s"] = json!(window);
            s["flows"][0]["goodput_mbps"] = json!(goodput);
            check(&s, &limits).err().map(|e| e.violations.into_iter().map(|v| v.quantity).collect::<Vec<_>>())
        };
        // 100 kB delivered by 1.09 s: 8.9 Mbit/s over the 90 ms to the last delivery.
        assert_eq!(check_flow(0.09, 8.9), None);
        // The same bytes over the 100 us to the stop alone (issue 32: 8,000,000 Mbit/s).
        assert_eq!(check_flow(1e-4, 8000.0), Some(vec!["goodput_mbps".to_string()]));
        // A window that ends before the stop, or after the run.
        assert_eq!(check_flow(5e-5, 1.0), Some(vec!["window_s".to_string()]));
        assert_eq!(check_flow(9.5, 1.0), Some(vec!["window_s".to_string()]));
    }

    #[test]
    fn a_wifi_link_is_bounded_by_its_fastest_rate() {
        let mut s = sane();
        s["wifi"][0]["links"][0]["throughput_mbps"] = json!(54.0);
        assert_eq!(broken(&s), []);
        s["wifi"][0]["links"][0]["throughput_mbps"] = json!(54.1);
        assert_eq!(broken(&s), [("Wi-Fi link \"bss:r2->sta\"".to_string(), "throughput_mbps".to_string())]);
        // After a 2 s warm-up, MPDUs sent before the window may be acknowledged in it.
        s["warmup_s"] = json!(2.0);
        s["flows"][0]["window_s"] = json!(8.0);
        s["wifi"][0]["links"][0]["throughput_mbps"] = json!(54.0 * 10.0 / 8.0);
        assert_eq!(broken(&s), []);
    }

    #[test]
    fn counters_out_of_order_and_missing_numbers_are_caught() {
        let mut s = sane();
        s["flows"][0]["retransmits"] = json!(7001);
        s["wifi"][0]["links"][0]["mpdu_drops"] = json!(2);
        s["queues"][0]["drops"] = json!(11);
        s["jain_index"] = Value::Null;
        s["flows"][0]["udp"] = json!({ "sent": 5, "received": 6, "loss_rate": -0.2 });
        let v = check(&s, &limits()).unwrap_err().violations;
        let got: Vec<String> = v.iter().map(Violation::to_string).collect();
        assert_eq!(
            got,
            [
                "the run jain_index = NaN, expected a finite number",
                "queue \"bottleneck:r1->r2\" drops + dequeued = 101, expected at most enqueued = 100",
                "flow \"bulk\" retransmits = 7001, expected at most data_segs_out = 7000",
                "flow \"bulk\" udp.loss_rate = -0.2, expected from 0 to 1",
                "flow \"bulk\" received = 6, expected at most sent = 5",
                "Wi-Fi link \"bss:r2->sta\" mpdus_acked + mpdu_drops = 11, expected at most mpdus = 10",
            ]
        );
        // A packet's way in and out is only checked over the whole run: with a warm-up, packets
        // queued or sent before the window leave or arrive in it.
        let mut s = sane();
        s["warmup_s"] = json!(1.0);
        s["queues"][0]["dequeued"] = json!(120);
        s["flows"][0]["udp"] = json!({ "sent": 5, "received": 6, "loss_rate": -0.2 });
        assert_eq!(broken(&s), []);
    }
}
