//! The seam through which a variant changes how BBR sizes its window: every place Linux calls
//! `bbr_bdp()` (and so `bbr_inflight()`, the cwnd target, the ProbeRTT window, Drain's and
//! ProbeBW's inflight targets, inflight_hi after Startup) asks the [`BdpModel`].
//!
//! The default [`PlainBdp`] is BBR's own `bw * min_rtt * gain`. A variant such as FaiRTT
//! (paper 003: an RTT-adjusted, exponentially smoothed BDP on top of BBRv2) implements the
//! trait, keeps its own state updated in [`BdpModel::on_ack`] (it may hold an `Rc` to shared
//! state obtained from `CcEnv::shared` when it was built), and is passed to
//! [`super::Bbr::with_bdp_model`].

use crate::sim::{secs, Time};

/// What the core knows after updating its path model on one ACK.
#[derive(Clone, Copy, Debug)]
pub struct BdpObservation {
    pub now: Time,
    /// Bandwidth BBR paces at, min(max_bw, bw_lo), in packets per second.
    pub bw: f64,
    /// The max-filtered bandwidth (bw_hi), in packets per second.
    pub max_bw: f64,
    /// BBR's min_rtt estimate (RTprop); `None` before the first sample.
    pub min_rtt: Option<Time>,
    /// The RTT sample this ACK carried (Karn-safe), if any.
    pub rtt: Option<Time>,
    /// The cwnd gain BBR is about to apply.
    pub cwnd_gain: f64,
}

/// How BBR turns a bandwidth and a gain into a window, in packets.
pub trait BdpModel {
    /// Called on every ACK after the bandwidth and min_rtt estimates are updated and before
    /// cwnd and the pacing rate are set.
    fn on_ack(&mut self, _obs: &BdpObservation) {}

    /// `gain` times the BDP, in packets, before rounding up and the quantization budget.
    /// `bw` (packets per second) is whichever estimate Linux passes at that call site;
    /// `min_rtt` is BBR's current min_rtt (never called before the first RTT sample).
    fn bdp(&self, bw: f64, min_rtt: Time, gain: f64) -> f64;

    /// Variables for the flow time series.
    fn vars(&self, _out: &mut Vec<super::CcVar>) {}
}

/// BBR's own model: BDP = bw * min_rtt.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlainBdp;

impl BdpModel for PlainBdp {
    fn bdp(&self, bw: f64, min_rtt: Time, gain: f64) -> f64 {
        bw * secs(min_rtt) * gain
    }
}
