//! Congestion control: one trait, one file per algorithm (which declares its parameters and
//! how to build it as a [`Component`]), one registration line in [`REGISTRY`].
//!
//! The trait mirrors Linux's `tcp_congestion_ops` so that algorithms port naturally:
//! `ssthresh` is called when a loss or ECN episode starts, `cong_avoid` when the socket lets the
//! window grow (never during a cwnd reduction), `on_ack` on every ACK with the RTT and
//! delivery-rate samples (Linux `pkts_acked` / `cong_control`). An algorithm that sets cwnd
//! and pacing itself in every state (BBR) returns true from `owns_cwnd`; the socket then skips
//! its own PRR reduction and `cong_avoid`.

pub mod bbr;
pub mod bbr1;
mod bbr_shared;
pub mod cubic;
pub mod fairtt;
pub mod fccc;
pub mod hystart;
pub mod minmax;
pub mod reno;

use crate::net::Extension;
use crate::params;
use crate::sim::{Rng, Time, SEC};
use crate::tcp::rate::{RateSample, TxSnapshot};
use std::any::Any;
use std::collections::HashMap;
use std::rc::Rc;

/// Linux's congestion-avoidance states (`tcp_ca_state`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CaState {
    /// Normal operation.
    Open,
    /// SACKed or duplicate-ACKed data, but no loss inferred yet.
    Disorder,
    /// cwnd reduction after an ECN echo.
    Cwr,
    /// Fast recovery after a loss inferred from SACKs.
    Recovery,
    /// After a retransmission timeout.
    Loss,
}

/// The socket's view given to the congestion control; windows are in segments, like Linux.
#[derive(Clone, Debug)]
pub struct CcState {
    pub now: Time,
    /// Sender maximum segment size (payload bytes).
    pub mss: u32,
    /// Congestion window in segments.
    pub cwnd: u32,
    /// Slow-start threshold in segments; `u32::MAX` means infinite.
    pub ssthresh: u32,
    /// Linux `snd_cwnd_cnt`: ACKed segments counted towards the next cwnd increment.
    pub cwnd_cnt: u32,
    /// Upper clamp on cwnd (Linux `snd_cwnd_clamp`).
    pub cwnd_clamp: u32,
    /// Smoothed RTT (0 before the first sample).
    pub srtt: Time,
    /// Minimum RTT seen by the socket (0 before the first sample).
    pub min_rtt: Time,
    /// Segments in flight (sent, not yet SACKed, cumulatively ACKed or marked lost).
    pub packets_in_flight: u32,
    /// True when the last flight was limited by cwnd rather than by the application.
    pub is_cwnd_limited: bool,
    pub ca_state: CaState,
    /// Total segments delivered (cumulatively ACKed or SACKed) so far.
    pub delivered: u64,
    /// Segments delivered by ACKs that carried an ECN echo.
    pub delivered_ce: u64,
    /// Total segments marked lost so far.
    pub lost: u64,
    /// The socket paces its packets (Linux `sk_pacing_status` is not `SK_PACING_NONE`).
    pub paced: bool,
    /// Pacing rate in bytes per second. Linux computes it for every socket (TCP Small Queues
    /// sizes its budget by it), paced or not.
    pub pacing_rate: u64,
    /// When the socket's pacing lets its next packet leave (Linux `tcp_wstamp_ns`, the
    /// earliest departure time); at or before `now` when pacing does not hold it back.
    pub next_departure: Time,
}

impl CcState {
    pub fn new(mss: u32, initial_cwnd: u32) -> Self {
        CcState {
            now: 0,
            mss,
            cwnd: initial_cwnd,
            ssthresh: u32::MAX,
            cwnd_cnt: 0,
            cwnd_clamp: u32::MAX / 2,
            srtt: 0,
            min_rtt: 0,
            packets_in_flight: 0,
            is_cwnd_limited: true,
            ca_state: CaState::Open,
            delivered: 0,
            delivered_ce: 0,
            lost: 0,
            paced: false,
            pacing_rate: 0,
            next_departure: 0,
        }
    }

    /// Linux `bbr_packets_in_net_at_edt`'s interval: how long until the next paced packet may
    /// leave. The packets in flight then are those now less what `bw` (segments per second)
    /// delivers meanwhile.
    pub fn delivered_before_departure(&self, bw: f64) -> u32 {
        let wait = self.next_departure.saturating_sub(self.now);
        (bw * wait as f64 / SEC as f64) as u32
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Linux `tcp_slow_start`: grow cwnd by the ACKed segments up to ssthresh and return the
    /// ACKed segments left over for congestion avoidance.
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = self.cwnd.saturating_add(acked).min(self.ssthresh);
        let used = cwnd - self.cwnd;
        self.cwnd = cwnd.min(self.cwnd_clamp);
        acked - used
    }

    /// Linux `tcp_cong_avoid_ai`: add one segment to cwnd per `w` ACKed segments.
    pub fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
        self.cwnd = self.cwnd.min(self.cwnd_clamp);
    }
}

/// What one ACK told the sender.
#[derive(Clone, Debug, Default)]
pub struct AckSample {
    /// Segments newly delivered (cumulatively ACKed or SACKed) by this ACK.
    pub acked: u32,
    /// RTT measured on this ACK from a segment that was not retransmitted (Karn's rule).
    pub rtt: Option<Time>,
    /// Segments newly marked lost while processing this ACK.
    pub newly_lost: u32,
    /// The ACK carried an ECN echo.
    pub ece: bool,
    /// Delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation).
    pub rate: RateSample,
    /// What a component on the path wrote and the receiver echoed (an AP's airtime
    /// telemetry), as the ACK carried it.
    pub ext: Extension,
}

/// A named variable of a congestion control, exported to the flow time series.
pub type CcVar = (&'static str, f64);

pub trait CongestionControl {
    /// Name as written in scenario files.
    fn name(&self) -> &'static str;

    /// Called once when the connection is established.
    fn init(&mut self, _s: &mut CcState) {}

    /// Every ACK that delivers data, in every state.
    fn on_ack(&mut self, _s: &mut CcState, _ack: &AckSample) {}

    /// Window growth, called only when the socket allows it (not during a reduction).
    fn cong_avoid(&mut self, s: &mut CcState, acked: u32);

    /// Slow-start threshold to use after a loss or ECN episode begins (Linux `ssthresh()`).
    fn ssthresh(&mut self, s: &CcState) -> u32;

    /// A segment was just marked lost; `seg` is the delivery-rate snapshot taken when it was
    /// last sent (BBRv2/v3 use it to find the inflight level at which loss began; Linux
    /// `skb_marked_lost`).
    fn on_lost(&mut self, _s: &mut CcState, _seg: &TxSnapshot) {}

    /// The socket moved to a new congestion-avoidance state.
    fn on_state(&mut self, _s: &mut CcState, _new: CaState) {}

    /// The sender starts transmitting again after `idle` with nothing in flight.
    fn on_tx_restart(&mut self, _s: &mut CcState, _idle: Time) {}

    /// True if the algorithm sets cwnd (and pacing) itself in every state, like BBR.
    fn owns_cwnd(&self) -> bool {
        false
    }

    /// True if the algorithm needs pacing (the socket paces at `CcState::pacing_rate`).
    fn needs_pacing(&self) -> bool {
        false
    }

    /// Internal variables to record in the flow time series.
    fn vars(&self, _out: &mut Vec<CcVar>) {}
}

// Every congestion control a scenario can name.
params::family!(
    Build,
    [&reno::RENO, &cubic::CUBIC, &bbr1::BBR1, &bbr::BBR2, &bbr::BBR3, &fairtt::FAIRTT, &fccc::FCCC],
    "congestion control",
    "CongestionControl"
);

/// How a congestion control is built for one connection from its checked configuration; an
/// error is a conflict with other connections' shared state.
pub struct Build(pub fn(&Config, &mut CcEnv) -> Built);
/// A congestion control for one connection, or why it cannot be made.
pub type Built = Result<Box<dyn CongestionControl>, String>;

/// Build the congestion control `config` describes for one connection.
pub fn create(config: &Config, env: &mut CcEnv) -> Built {
    (config.component().build.0)(config, env)
}

/// Algorithm `name` with the parameters `set`, the others at their defaults (for tests).
#[cfg(test)]
pub(crate) fn config(name: &str, set: &[(&str, params::Value)]) -> Config {
    set.iter().fold(Config::named(name), |c, (param, value)| c.with(param, value.clone()))
}

/// State that connections may share, keyed by a name the scenario gives (e.g. the
/// bottleneck-level registry FaiRTT assumes). Each entry is created by the first connection
/// that asks for it.
#[derive(Default)]
pub struct Shared(HashMap<String, Rc<dyn Any>>);

impl Shared {
    /// The entry called `key`, created with `make` if absent. A key already holding another
    /// type is an error naming it.
    pub fn get_or_insert<T: 'static>(&mut self, key: &str, make: impl FnOnce() -> T) -> Result<Rc<T>, String> {
        let entry = self.0.entry(key.to_string()).or_insert_with(|| Rc::new(make()) as Rc<dyn Any>);
        entry.clone().downcast::<T>().map_err(|_| format!("shared state `{key}` is used by two kinds of algorithm"))
    }
}

/// What a congestion control gets when it is created for a connection.
pub struct CcEnv<'a> {
    /// This connection's own random stream.
    pub rng: Rng,
    /// State shared across connections.
    pub shared: &'a mut Shared,
    /// The connection's index, to tell connections apart in shared state.
    pub conn: u32,
}

impl CcEnv<'_> {
    /// Run `f` with a throwaway environment: to build an algorithm outside a run.
    pub fn scratch<R>(f: impl FnOnce(&mut CcEnv) -> R) -> R {
        let mut shared = Shared::default();
        f(&mut CcEnv { rng: Rng::stream(0, "scratch"), shared: &mut shared, conn: 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every registered congestion control's defaults pass its own ranges and checks, and it
    /// builds from them into what it says it is.
    #[test]
    fn every_cc_builds_from_its_defaults() {
        for config in params::checked_defaults(REGISTRY, |c| c) {
            let built = CcEnv::scratch(|env| create(&config, env).map(|c| c.name()));
            assert_eq!(built, Ok(config.name()));
        }
    }
}
