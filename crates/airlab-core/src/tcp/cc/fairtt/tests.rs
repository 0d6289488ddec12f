use super::*;
use crate::params::Value;
use crate::sim::Rng;
use crate::tcp::cc::{config, create, Config, Shared};

const BW: f64 = 1250.0; // packets per second: 10 Mbit/s of 1000-byte packets

fn model(shared: &mut Shared, conn: u32, set: &[(&str, Value)]) -> Result<FairttBdp, String> {
    let mut env = CcEnv { rng: Rng::stream(1, "test"), shared, conn };
    FairttBdp::new(Params::of(&config("fairtt", set)), &mut env)
}

fn ack(m: &mut FairttBdp, now: Time, rtt: Time, rtprop: Time) {
    m.on_ack(&BdpObservation { now, bw: BW, max_bw: BW, min_rtt: Some(rtprop), rtt: Some(rtt), cwnd_gain: 2.0 });
}

/// The elephant (RTprop 50 ms, RTT 60 ms) and the mice (30 ms, no queueing) report in turn.
fn elephant_and_mice(p: &[(&str, Value)], acks: u32) -> (FairttBdp, FairttBdp) {
    let mut shared = Shared::default();
    let mut mice = model(&mut shared, 0, p).unwrap();
    let mut elephant = model(&mut shared, 1, p).unwrap();
    for i in 0..acks {
        let now = Time::from(i) * MS;
        ack(&mut mice, now, 30 * MS, 30 * MS);
        ack(&mut elephant, now, 60 * MS, 50 * MS);
    }
    (mice, elephant)
}

#[test]
fn the_elephant_bdp_is_discounted_by_min_rtt_over_its_rtt() {
    let (mice, elephant) = elephant_and_mice(&[], 2000);
    // α = mean RTTest = 45 ms: the mice (30 ms) are below it, the elephant (60 ms) above.
    assert_eq!(mice.kappa(), 1.0);
    assert!((elephant.kappa() - 0.5).abs() < 1e-12, "{}", elephant.kappa());
    let mice_bdp = mice.smoothed_bdp().unwrap();
    let elephant_bdp = elephant.smoothed_bdp().unwrap();
    assert!((mice_bdp - BW * 0.030).abs() < 1e-9, "{mice_bdp}");
    // RTprop 50 ms × κ 0.5, converged after 2000 ACKs (0.99^2000 ≈ 2e-9).
    assert!((elephant_bdp - BW * 0.025).abs() < 1e-6, "{elephant_bdp}");
    // BBR's call sites: gain and a different bandwidth scale the smoothed BDP.
    assert!((elephant.bdp(BW / 2.0, 50 * MS, 2.0) - BW * 0.025).abs() < 1e-6);
}

#[test]
fn the_smoothed_bdp_moves_by_one_minus_gamma_per_ack() {
    let mut shared = Shared::default();
    let mut elephant = model(&mut shared, 1, &[]).unwrap();
    // Alone, the elephant is its own threshold and is not discounted.
    for i in 0..10 {
        ack(&mut elephant, i * MS, 60 * MS, 50 * MS);
    }
    assert_eq!(elephant.kappa(), 1.0);
    let start = elephant.smoothed_bdp().unwrap();
    assert!((start - BW * 0.050).abs() < 1e-9);
    // A short-RTT flow joins: from now on the raw BDP is BW × 50 ms × 30/60.
    let mut mice = model(&mut shared, 0, &[]).unwrap();
    ack(&mut mice, 10 * MS, 30 * MS, 30 * MS);
    let target = BW * 0.050 * 0.5;
    for n in 1..=100u32 {
        ack(&mut elephant, (10 + Time::from(n)) * MS, 60 * MS, 50 * MS);
        let expected = target + (start - target) * 0.99f64.powi(n as i32);
        let got = elephant.smoothed_bdp().unwrap();
        assert!((got - expected).abs() < 1e-9, "after {n} ACKs: {got} vs {expected}");
    }
}

#[test]
fn rtt_estimate_is_an_ewma_weighting_the_newest_sample_by_beta() {
    let mut shared = Shared::default();
    let mut m = model(&mut shared, 0, &[("beta", Value::Real(0.8))]).unwrap();
    ack(&mut m, 0, 40 * MS, 40 * MS);
    assert_eq!(m.rtt_est(), (40 * MS) as f64);
    ack(&mut m, MS, 50 * MS, 40 * MS);
    assert!((m.rtt_est() - 48e6).abs() < 1e-3, "{}", m.rtt_est());
}

#[test]
fn a_flow_that_stops_reporting_leaves_the_registry_after_the_window() {
    let mut shared = Shared::default();
    let mut mice = model(&mut shared, 0, &[]).unwrap();
    let mut elephant = model(&mut shared, 1, &[]).unwrap();
    ack(&mut mice, 0, 30 * MS, 30 * MS);
    ack(&mut elephant, 0, 60 * MS, 50 * MS);
    assert!(elephant.kappa() < 1.0);
    // 1.5 s later the mice has been silent for longer than the 1 s window.
    ack(&mut elephant, 1500 * MS, 60 * MS, 50 * MS);
    assert_eq!(elephant.kappa(), 1.0);
}

#[test]
fn reconstruction_switches_change_the_coefficient() {
    // The flow's own minimum: κ = 50/60 instead of 30/60.
    let (_, own) = elephant_and_mice(&[("kappa_min", Value::Choice("own"))], 10);
    assert!((own.kappa() - 50.0 / 60.0).abs() < 1e-12);
    // The smallest RTprop of the group (the mice's 30 ms; here equal to the default, the
    // smallest recent RTT sample of any flow, as the mice's samples carry no queue).
    let (_, global) = elephant_and_mice(&[("kappa_min", Value::Choice("global"))], 10);
    assert!((global.kappa() - 0.5).abs() < 1e-12);
    // α = N × mean RTprop = 2 × 40 ms = 80 ms: the elephant (60 ms) is below it.
    let (_, flowcount) = elephant_and_mice(&[("alpha", Value::Choice("flowcount_min_rtt"))], 10);
    assert_eq!(flowcount.kappa(), 1.0);
    // The literal eq. 3 multiplies by RTTest (60 ms) instead of RTprop (50 ms).
    let (_, est) = elephant_and_mice(&[("bdp_rtt", Value::Choice("rtt_est")), ("gamma", Value::Real(0.01))], 10);
    assert!((est.smoothed_bdp().unwrap() - BW * 0.060 * 0.5).abs() < 1e-6);
}

#[test]
fn groups_keep_separate_registries() {
    let mut shared = Shared::default();
    let mut mice = model(&mut shared, 0, &[("group", Value::Text("a".into()))]).unwrap();
    let mut elephant = model(&mut shared, 1, &[("group", Value::Text("b".into()))]).unwrap();
    ack(&mut mice, 0, 30 * MS, 30 * MS);
    ack(&mut elephant, 0, 60 * MS, 50 * MS);
    assert_eq!(elephant.kappa(), 1.0);
}

#[test]
fn parameters_are_checked() {
    let mut c = Config::named("fairtt");
    assert!(c.set("beta", Value::Real(1.5)).is_err());
    assert!(c.set("gamma", Value::Choice("high")).is_err());
    assert!(c.set("alpha", Value::Choice("median")).is_err());
    assert!(c.set("registry_window_s", Value::Real(-1.0)).is_err());
    assert!(c.set("ecn", Value::Flag(true)).is_err());
    assert_eq!(Params::of(&c).kappa_min, KappaMin::Window, "the default reading");
    assert!(c.set("kappa_min", Value::Choice("global")).is_ok());
    assert_eq!(Params::of(&c).kappa_min, KappaMin::Global);
    let mut shared = Shared::default();
    model(&mut shared, 0, &[("registry_window_s", Value::Real(1.0))]).unwrap();
    let clash = model(&mut shared, 1, &[("registry_window_s", Value::Real(2.0))]).err().unwrap();
    assert!(clash.contains("two registry windows"), "{clash}");
}

#[test]
fn fairtt_is_bbr2_with_the_model() {
    let cc = CcEnv::scratch(|env| create(&Config::named("fairtt"), env)).unwrap();
    assert_eq!(cc.name(), "fairtt");
    assert!(cc.owns_cwnd() && cc.needs_pacing());
    let mut vars = Vec::new();
    cc.vars(&mut vars);
    for name in ["fairtt_kappa", "fairtt_bdp_pkts", "fairtt_flows", "bbr_pacing_gain"] {
        assert!(vars.iter().any(|(n, _)| *n == name), "{name} missing from {vars:?}");
    }
}

#[test]
fn the_default_minimum_is_the_smallest_recent_sample_queue_included() {
    // Both flows see 10 ms of standing queue: the mice's samples are 40 ms on a 30 ms RTprop.
    // Table I's "minimum value of RTT at time window t" is a sample (κ = 40/70), not BBR's
    // RTprop ("global": κ = 30/70).
    let run = |p: &[(&str, Value)]| {
        let mut shared = Shared::default();
        let mut mice = model(&mut shared, 0, p).unwrap();
        let mut elephant = model(&mut shared, 1, p).unwrap();
        for i in 0..100u32 {
            ack(&mut mice, Time::from(i) * MS, 40 * MS, 30 * MS);
            ack(&mut elephant, Time::from(i) * MS, 70 * MS, 60 * MS);
        }
        elephant.kappa()
    };
    assert!((run(&[]) - 40.0 / 70.0).abs() < 1e-12);
    assert!((run(&[("kappa_min", Value::Choice("global"))]) - 30.0 / 70.0).abs() < 1e-12);
}
