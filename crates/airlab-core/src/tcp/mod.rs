//! TCP: the sender and receiver sockets, loss recovery, RTO, delivery-rate sampling and the
//! congestion-control seam.
//!
//! A connection carries data one way (sender to receiver) and ACKs back, like an iperf3 flow.
//! Sockets never touch the world directly: they emit packets and timer requests into a [`Ctx`]
//! and the engine routes and schedules them.

pub mod cc;
pub mod rate;
pub mod receiver;
pub mod rto;
pub mod scoreboard;
pub mod sender;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use crate::metrics::FlowStats;
use crate::net::Packet;
use crate::sim::Time;

/// Timers a socket can ask for. Each is armed lazily: the socket keeps its own deadline and
/// ignores a firing that is no longer due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Retransmit,
    Pacing,
    DelayedAck,
}

/// What a socket may do while handling an input.
pub struct Ctx<'a> {
    pub now: Time,
    pub out: &'a mut Vec<Packet>,
    pub timers: &'a mut Vec<(Time, TimerKind)>,
    pub flow: &'a mut FlowStats,
}

/// A lazily armed timer: `deadline` is when it should fire, `scheduled` the earliest engine
/// event already queued for it. Moving the deadline later costs no new event.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    deadline: Option<Time>,
    scheduled: Option<Time>,
}

impl Timer {
    pub fn arm(&mut self, at: Time, kind: TimerKind, ctx: &mut Ctx) {
        self.deadline = Some(at);
        if self.scheduled.is_none_or(|s| s > at) {
            self.scheduled = Some(at);
            ctx.timers.push((at, kind));
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// An engine event for this timer fired at `now`: true if the timer is due. If the
    /// deadline moved later, a new event is requested.
    pub fn fire(&mut self, kind: TimerKind, ctx: &mut Ctx) -> bool {
        if self.scheduled == Some(ctx.now) {
            self.scheduled = None;
        }
        match self.deadline {
            Some(d) if d <= ctx.now => {
                self.deadline = None;
                true
            }
            Some(d) => {
                if self.scheduled.is_none() {
                    self.scheduled = Some(d);
                    ctx.timers.push((d, kind));
                }
                false
            }
            None => false,
        }
    }
}
