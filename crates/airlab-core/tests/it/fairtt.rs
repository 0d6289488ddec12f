//! FaiRTT end to end on paper 003's dumbbell (reading B: base RTTs 15 and 5 ms, 10 BDP of
//! Drop-Tail). The registry discounts the long-RTT flow only: its share falls below BBRv2's,
//! the short-RTT flow is never adjusted, and the link stays as busy.

use crate::common::*;

fn run(cc: &str) -> airlab_core::RunOutput {
    let overrides = [("duration", "40s"), ("flow.elephant.cc", cc), ("flow.mice.cc", cc)];
    run_builtin("fairtt/variant-b", &overrides, Some(1))
}

/// The values of time-series column `col` for flow `name`.
fn series(out: &airlab_core::RunOutput, name: &str, col: &str) -> Vec<f64> {
    let values = out.flows.column(col).unwrap_or_else(|| panic!("no column {col}"));
    out.flows.entities().zip(values).filter(|(e, _)| *e == name).map(|(_, v)| *v).collect()
}

#[test]
fn fairtt_discounts_the_long_rtt_flow_only() {
    let bbr2 = run("bbr2");
    let fairtt = run("fairtt");
    let (b, f_) = (&bbr2.summary, &fairtt.summary);
    let share = |s: &serde_json::Value| {
        let e = f(&flow(s, "elephant")["goodput_mbps"]);
        let m = f(&flow(s, "mice")["goodput_mbps"]);
        (e, m, e / (e + m))
    };
    let (be, bm, b_share) = share(b);
    let (fe, fm, f_share) = share(f_);
    eprintln!("bbr2 {be:.3}/{bm:.3}, fairtt {fe:.3}/{fm:.3}");
    // BBRv2 favours the long-RTT flow in a deep buffer; FaiRTT takes bandwidth from it.
    assert!(b_share > 0.6, "bbr2 elephant share {b_share:.3}");
    assert!(f_share < b_share - 0.2, "fairtt elephant share {f_share:.3} vs bbr2 {b_share:.3}");
    // Utilization is not lost: both deliver at least 95 % of the payload capacity between them.
    let capacity = 10.0 * 1000.0 / 1052.0;
    assert!(fe + fm > 0.95 * capacity && be + bm > 0.95 * capacity, "{} {}", fe + fm, be + bm);

    // After start-up both flows are in the registry; the elephant is adjusted, the mice never.
    let late = |v: Vec<f64>| v[10..].to_vec();
    assert!(late(series(&fairtt, "elephant", "cc.fairtt_flows")).iter().all(|&n| n == 2.0));
    assert!(late(series(&fairtt, "mice", "cc.fairtt_kappa")).iter().all(|&k| k == 1.0));
    let kappa = late(series(&fairtt, "elephant", "cc.fairtt_kappa"));
    let adjusted = kappa.iter().filter(|&&k| k < 1.0).count();
    assert!(adjusted * 2 > kappa.len(), "elephant adjusted in {adjusted} of {} samples", kappa.len());
    // κ = minRTT / lastRTT ≥ mice RTprop / (elephant RTprop + the whole 10 BDP buffer).
    assert!(kappa.iter().all(|&k| k > 5.0 / (15.0 + 10.0 * 15.0) && k <= 1.0), "{kappa:?}");
}
