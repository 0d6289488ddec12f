//! Warnings about a sound run whose numbers are easy to misread: the summary is correct, but a
//! researcher should know before quoting it. They go into summary.json (`warnings`) and the
//! CLI prints them.

use serde_json::Value;

/// A measurement window shorter than this holds no steady state: a TCP flow's window takes
/// several round trips to move, and counters still carry packets from before the window
/// (a queue dequeues more than it enqueued in it).
const SHORT_WINDOW_S: f64 = 0.1;

/// The warnings `summary` deserves; `cut_by_batches` when `[metrics] batches` ended the run.
pub fn warnings(summary: &Value, cut_by_batches: bool) -> Vec<String> {
    let mut out = Vec::new();
    let (end, warmup) = (summary["duration_s"].as_f64().unwrap_or(0.0), summary["warmup_s"].as_f64().unwrap_or(0.0));
    let window = end - warmup;
    if window < SHORT_WINDOW_S {
        let why = if cut_by_batches { ", when its batches were complete" } else { "" };
        out.push(format!(
            "the measurement window is only {:.3} ms, from the warm-up's end at {warmup} s to the run's end \
             at {end} s{why}: too short for steady-state numbers, and its counters include packets from \
             before it (a queue may dequeue more than it enqueued)",
            window * 1e3
        ));
    }
    for f in summary["flows"].as_array().into_iter().flatten() {
        let window = f["window_s"].as_f64().unwrap_or(0.0);
        if f["app"] != "ping" && window > 0.0 && f["bytes_delivered"].as_u64() == Some(0) {
            let name = f["name"].as_str().unwrap_or_default();
            out.push(format!("flow \"{name}\" delivered no data in its {window} s of the measurement window"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn summary(end: f64, warmup: f64, delivered: u64) -> Value {
        json!({ "duration_s": end, "warmup_s": warmup, "flows": [
            { "name": "bulk", "app": "bulk", "window_s": end - warmup, "bytes_delivered": delivered },
            { "name": "ping", "app": "ping", "window_s": end - warmup, "bytes_delivered": 0 },
        ]})
    }

    #[test]
    fn a_long_window_with_data_gives_no_warning() {
        assert_eq!(warnings(&summary(10.0, 1.0, 1000), false), Vec::<String>::new());
    }

    #[test]
    fn a_short_window_and_a_silent_flow_are_named() {
        let w = warnings(&summary(0.5019, 0.5, 0), true);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("the measurement window is only 1.900 ms"), "{}", w[0]);
        assert!(w[0].contains("when its batches were complete"), "{}", w[0]);
        assert!(w[1].starts_with("flow \"bulk\" delivered no data"), "{}", w[1]);
    }
}
