//! FaiRTT (paper 003): BBRv2 whose BDP is discounted for flows whose RTT is long compared
//! with the other flows on the bottleneck, then exponentially smoothed.
//!
//! The paper's equations were lost; this is the reconstruction of
//! `reproduction-targets.md` (P3.3), with every reconstructed choice a parameter. Per ACK
//! with an RTT sample, for connection i:
//!
//! ```text
//! RTTest_i ← β·lastRTT_i + (1−β)·RTTest_i                     β = 0.8
//! registry ← (RTprop_i, RTTest_i)     N_t, minRTT_t, α_t from the group's active flows
//! BDPraw   ← BtlBw_i · RTprop_i        (× minRTT_t / lastRTT_i when lastRTT_i > α_t)
//! BDP_i    ← γ·BDP_i + (1−γ)·BDPraw                           γ = 0.99
//! ```
//!
//! BBRv2 then sizes every window from `gain × BDP_i` (see [`super::bbr::BdpModel`]); its
//! `flavour` parameter picks the BBRv2 underneath (v2alpha, or the ns-3 port of `bbr2`).

mod registry;

use super::bbr::{v2_constants, Bbr, BdpModel, BdpObservation, FLAVOUR};
use super::{Build, CcEnv, CcVar, Component, Config};
use crate::params::{no_check, Kind, Param, Range, Value};
use crate::sim::{secs, Time, MS, SEC};
pub use registry::Registry;
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

/// Which minimum RTT the adjustment coefficient divides by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KappaMin {
    /// The smallest RTprop among the group's active flows (the default reading).
    Global,
    /// The flow's own RTprop (the reading that contradicts the paper's prose; for comparison).
    Own,
    /// The smallest RTT sample of any active flow within the registry window: "the minimum
    /// value of RTT at time window t" read as a windowed minimum, which includes the standing
    /// queue every flow sees.
    Window,
}

/// How the RTT fairness threshold α_t is formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alpha {
    /// Mean RTTest over the group's active flows (the default reading of eq. 5).
    MeanRttEst,
    /// N_t × mean RTprop (the secondary source's garbled formula).
    FlowcountMinRtt,
}

/// Which RTT the raw BDP multiplies the bandwidth by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BdpRtt {
    /// RTprop, as BBR does.
    Rtprop,
    /// RTTest, the literal eq. 3 (includes queueing delay, so it can feed on itself).
    RttEst,
}

pub static FAIRTT: Component = Component {
    name: "fairtt",
    doc: "FaiRTT (paper 003): BBRv2 with an RTT-fair BDP, as reconstructed in reproduction-targets P3.3",
    params: &[
        Param {
            name: "beta",
            kind: Kind::Real { range: Range::FRACTION, unit: "" },
            default: Value::Real(0.8),
            doc: "weight of the last RTT sample in RTTest",
        },
        Param {
            name: "gamma",
            kind: Kind::Real { range: Range::FRACTION, unit: "" },
            default: Value::Real(0.99),
            doc: "weight of the previous BDP in the smoothed BDP",
        },
        Param {
            name: "group",
            kind: Kind::Text,
            default: Value::Text(Cow::Borrowed("bottleneck")),
            doc: "the registry of flows that share a bottleneck; flows of one group see each other",
        },
        Param {
            name: "registry_window_s",
            kind: Kind::Real { range: Range::POSITIVE, unit: "s" },
            default: Value::Real(1.0),
            doc: "a flow is active while it reported within this window (at least 1 ms)",
        },
        Param {
            name: "alpha",
            kind: Kind::Choice(&["mean_rtt_est", "flowcount_min_rtt"]),
            default: Value::Choice("mean_rtt_est"),
            doc: "the fairness threshold: mean RTTest of active flows, or N x mean RTprop",
        },
        Param {
            name: "kappa_min",
            kind: Kind::Choice(&["window", "global", "own"]),
            default: Value::Choice("window"),
            doc: "the minimum RTT the adjustment divides by: the smallest RTT sample of the group \
                  in the registry window, the smallest RTprop of the group, or the flow's RTprop",
        },
        Param {
            name: "bdp_rtt",
            kind: Kind::Choice(&["rtprop", "rtt_est"]),
            default: Value::Choice("rtprop"),
            doc: "the RTT the raw BDP multiplies the bandwidth by",
        },
        FLAVOUR,
    ],
    check: no_check,
    build: Build(|c: &Config, env| {
        let model = FairttBdp::new(Params::of(c), env)?;
        Ok(Box::new(Bbr::with_bdp_model("fairtt", v2_constants(c), false, env, Box::new(model))))
    }),
};

/// FaiRTT's parameters as typed values (see [`FAIRTT`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    pub beta: f64,
    pub gamma: f64,
    pub group: String,
    pub registry_window: Time,
    pub alpha: Alpha,
    pub kappa_min: KappaMin,
    pub bdp_rtt: BdpRtt,
}

impl Params {
    pub fn of(c: &Config) -> Self {
        Params {
            beta: c.real("beta"),
            gamma: c.real("gamma"),
            group: c.text("group").to_string(),
            registry_window: ((c.real("registry_window_s") * SEC as f64).round() as Time).max(MS),
            alpha: match c.choice("alpha") {
                "flowcount_min_rtt" => Alpha::FlowcountMinRtt,
                _ => Alpha::MeanRttEst,
            },
            kappa_min: match c.choice("kappa_min") {
                "own" => KappaMin::Own,
                "global" => KappaMin::Global,
                _ => KappaMin::Window,
            },
            bdp_rtt: if c.choice("bdp_rtt") == "rtt_est" { BdpRtt::RttEst } else { BdpRtt::Rtprop },
        }
    }
}

/// The FaiRTT BDP model of one connection.
pub struct FairttBdp {
    p: Params,
    conn: u32,
    registry: Rc<RefCell<Registry>>,
    /// RTTest_i in ns; 0 before the first sample.
    rtt_est: f64,
    /// The smoothed BDP (packets) and the bandwidth (packets/s) it was last computed with.
    bdp: Option<(f64, f64)>,
    /// Last values, for the time series.
    kappa: f64,
    alpha_ns: f64,
    flows: usize,
}

impl FairttBdp {
    /// Join the group's registry in `env.shared`.
    pub fn new(p: Params, env: &mut CcEnv) -> Result<Self, String> {
        let key = format!("fairtt/{}", p.group);
        let window = p.registry_window;
        let registry = env.shared.get_or_insert(&key, || RefCell::new(Registry::new(window)))?;
        let held = registry.borrow().window();
        if held != window {
            return Err(format!(
                "fairtt: group `{}` is used with two registry windows ({} s and {} s)",
                p.group,
                secs(held),
                secs(window)
            ));
        }
        Ok(FairttBdp { p, conn: env.conn, registry, rtt_est: 0.0, bdp: None, kappa: 1.0, alpha_ns: 0.0, flows: 0 })
    }

    /// The smoothed BDP in packets, once there is one.
    pub fn smoothed_bdp(&self) -> Option<f64> {
        self.bdp.map(|(b, _)| b)
    }

    /// The last adjustment coefficient applied (1 when the flow was below the threshold).
    pub fn kappa(&self) -> f64 {
        self.kappa
    }

    /// RTTest in ns.
    pub fn rtt_est(&self) -> f64 {
        self.rtt_est
    }
}

impl BdpModel for FairttBdp {
    fn on_ack(&mut self, obs: &BdpObservation) {
        let (Some(last_rtt), Some(rtprop)) = (obs.rtt, obs.min_rtt) else { return };
        if obs.max_bw <= 0.0 {
            return;
        }
        let last = last_rtt as f64;
        self.rtt_est = if self.rtt_est == 0.0 { last } else { self.p.beta * last + (1.0 - self.p.beta) * self.rtt_est };

        let (min_rtt, alpha, flows) = {
            let mut reg = self.registry.borrow_mut();
            reg.report(self.conn, obs.now, last_rtt, rtprop, self.rtt_est);
            let flows = reg.flow_count(obs.now);
            let min_rtt = match self.p.kappa_min {
                KappaMin::Global => reg.min_rtprop(obs.now).unwrap_or(rtprop),
                KappaMin::Own => rtprop,
                KappaMin::Window => reg.min_recent_rtt(obs.now).map_or(rtprop, |r| r as Time),
            };
            let alpha = match self.p.alpha {
                Alpha::MeanRttEst => reg.mean_rtt_est(obs.now).unwrap_or(self.rtt_est),
                Alpha::FlowcountMinRtt => flows as f64 * reg.mean_rtprop(obs.now).unwrap_or(rtprop as f64),
            };
            (min_rtt, alpha, flows)
        };

        let rtt = match self.p.bdp_rtt {
            BdpRtt::Rtprop => rtprop as f64,
            BdpRtt::RttEst => self.rtt_est,
        };
        let mut raw = obs.max_bw * rtt / SEC as f64;
        self.kappa = if last > alpha { (min_rtt as f64 / last).min(1.0) } else { 1.0 };
        raw *= self.kappa;
        let smoothed = match self.bdp {
            // Carry the smoothed value across bandwidth changes: it is in packets at the old
            // bandwidth, so rescale before mixing, as `bdp()` does at other call sites.
            Some((b, bw)) => self.p.gamma * b * (obs.max_bw / bw) + (1.0 - self.p.gamma) * raw,
            None => raw,
        };
        self.bdp = Some((smoothed, obs.max_bw));
        self.alpha_ns = alpha;
        self.flows = flows;
    }

    fn bdp(&self, bw: f64, min_rtt: Time, gain: f64) -> f64 {
        match self.bdp {
            // BBR asks with whichever bandwidth its call site uses (max_bw or bw_lo-bounded).
            Some((b, ref_bw)) => gain * b * (bw / ref_bw),
            None => gain * bw * secs(min_rtt),
        }
    }

    fn vars(&self, out: &mut Vec<CcVar>) {
        out.push(("fairtt_rtt_est_ms", self.rtt_est / MS as f64));
        out.push(("fairtt_alpha_ms", self.alpha_ns / MS as f64));
        out.push(("fairtt_kappa", self.kappa));
        out.push(("fairtt_bdp_pkts", self.smoothed_bdp().unwrap_or(0.0)));
        out.push(("fairtt_flows", self.flows as f64));
    }
}

#[cfg(test)]
mod tests;
