//! TCP: the sender and receiver sockets, loss recovery, RTO, delivery-rate sampling and the
//! congestion-control seam.
//!
//! A connection carries data one way (sender to receiver) and ACKs back, like an iperf3 flow.
//! Sockets never touch the world directly: they emit packets and timer requests into a [`Ctx`]
//! and the engine routes and schedules them.

pub mod cc;
pub mod delack;
pub mod jiffies;
pub mod rack;
pub mod rate;
pub mod rcvbuf;
pub mod receiver;
pub mod rto;
pub mod scoreboard;
pub mod sender;

pub use receiver::TcpReceiver;
pub use sender::TcpSender;

use crate::counters::FlowStats;
use crate::net::Packet;
use crate::sim::Time;
use jiffies::Jiffies;
use rto::{RtoMode, DEFAULT_RTO_MIN};

/// Linux 6.x `tcp_rmem` (the testbed kernel's) and `tcp_wmem` defaults.
pub const RMEM_LINUX_6: [u64; 3] = [4096, 131072, 32 << 20];
/// Linux 3.x `tcp_rmem` (87380 default, 6 MiB max on hosts with enough memory).
pub const RMEM_LINUX_3: [u64; 3] = [4096, 87380, 6 << 20];
pub const WMEM_LINUX: [u64; 3] = [4096, 16384, 4 << 20];

/// The share of the receive buffer Linux 6.6+ advertises as window (`scaling_ratio`, payload
/// over truesize of the segments received): the testbed's 6.18 kernel advertises 79 x 1024 B
/// from the 131072 B of `tcp_rmem[1]` (0.617), and 0.62 of its autotuned buffers.
pub const WINDOW_RATIO_LINUX_6: f64 = 0.62;
/// Before 6.6 the share was fixed by `tcp_adv_win_scale`: 1/2 with its default of 1.
pub const WINDOW_RATIO_ADV_WIN_SCALE_1: f64 = 0.5;

/// Linux's `tcp_limit_output_bytes` (4 MiB on the 6.18 kernel the testbed runs; older kernels
/// had less).
pub const LIMIT_OUTPUT_BYTES: u64 = 4 << 20;
/// The kernel's timer tick rate: Kconfig's default `CONFIG_HZ`, and the testbed kernel's.
pub const DEFAULT_HZ: u32 = 250;
/// The tick rates Linux can be built with (`kernel/Kconfig.hz`); 0 fires timers exactly.
pub const HZ_CHOICES: [u32; 5] = [0, 100, 250, 300, 1000];

/// A connection's TCP settings; the defaults are Linux's.
#[derive(Debug, Clone)]
pub struct TcpConfig {
    /// Sender maximum segment size (payload bytes).
    pub mss: u32,
    /// Initial congestion window in segments.
    pub initial_cwnd: u32,
    /// Receiver delayed ACKs as Linux (`tcp/delack.rs`): every second full segment or an adaptive
    /// timer; quick ACKs at start, after a silence longer than the RTO and after duplicates.
    pub delayed_ack: bool,
    /// SACK compression (Linux 4.18+, `tcp_comp_sack_nr`): ACKs of out-of-order data after the
    /// third are held up to min(1 ms, RTT/20).
    pub sack_compression: bool,
    /// A fixed receive window (the receiver's SO_RCVBUF set, which turns autotuning off).
    pub rwnd: Option<u64>,
    /// Linux `tcp_rmem` (min, default, max): the receive buffer starts at the default and
    /// autotunes up to the max; `window_ratio` of it is advertised as window.
    pub rmem: [u64; 3],
    /// The share of the receive buffer advertised as window (set by the profile).
    pub window_ratio: f64,
    /// Linux `tcp_wmem` (min, default, max): the send buffer, which bounds the data
    /// outstanding, autotunes up to the max.
    pub wmem: [u64; 3],
    /// Pace the sender (Linux internal pacing); congestion controls may require it.
    pub pacing: bool,
    /// Negotiate ECN (the sender marks ECT(0), the receiver echoes CE as ECE).
    pub ecn: bool,
    pub rto_min: Time,
    pub rto_mode: RtoMode,
    /// How losses are detected: RACK-TLP (Linux 4.18+) or duplicate-ACK counting (RFC 6675).
    pub recovery: LossDetection,
    /// F-RTO (RFC 5682, Linux `tcp_frto` = 2): detect spurious timeouts and undo them.
    pub frto: bool,
    /// TCP Small Queues (Linux 3.6+): a socket keeps at most about 1 ms of its pacing rate
    /// (8 ms over Wi-Fi) in its own host's qdisc and device.
    pub small_queues: bool,
    /// Cap on those bytes for unpaced sockets (Linux `tcp_limit_output_bytes`).
    pub limit_output_bytes: u64,
    /// The kernel tick the retransmission and delayed-ACK timers fire on (`jiffies.rs`).
    pub jiffies: Jiffies,
    /// Whose mechanisms the socket follows where stacks differ in more than a setting (set by
    /// the profile).
    pub stack: Stack,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1448,
            initial_cwnd: 10,
            delayed_ack: true,
            sack_compression: true,
            rwnd: None,
            rmem: RMEM_LINUX_6,
            window_ratio: WINDOW_RATIO_LINUX_6,
            wmem: WMEM_LINUX,
            pacing: false,
            ecn: false,
            rto_min: DEFAULT_RTO_MIN,
            rto_mode: RtoMode::Linux,
            recovery: LossDetection::RackTlp,
            frto: true,
            small_queues: true,
            limit_output_bytes: LIMIT_OUTPUT_BYTES,
            jiffies: Jiffies::new(DEFAULT_HZ),
            stack: Stack::Linux,
        }
    }
}

/// Whose TCP a socket is, where Linux and ns-3 differ in mechanism rather than in a setting
/// (docs/models/tcp.md, "The ns-3 profile").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Stack {
    /// Linux: quick ACKs and an adaptive delayed-ACK timer, RTT samples from the send times of
    /// the segments an ACK delivers, spurious reductions undone.
    #[default]
    Linux,
    /// ns-3's `TcpSocketBase` (releases 3.36-3.41): an ACK for every second segment or after a
    /// fixed 200 ms, RTT samples from the timestamp echo in whole milliseconds, no undo.
    Ns3,
}

/// How a sender infers loss short of a timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossDetection {
    /// RACK (RFC 8985): a segment is lost once one sent after it is delivered and an RTT plus
    /// a reordering window has passed; tail loss probes (TLP) after 2 sRTT of silence. Finds
    /// lost retransmissions. Linux's default since 4.18.
    RackTlp,
    /// RFC 6675: a segment is lost once 3 segments above it are SACKed; no probes, so tail
    /// losses and lost retransmissions wait for the RTO (Linux before 4.4).
    Rfc6675,
}

/// Timers a socket can ask for. Each is armed lazily: the socket keeps its own deadline and
/// ignores a firing that is no longer due.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    Retransmit,
    Pacing,
    DelayedAck,
    /// The end of a receiver's SACK compression (`delack.rs`).
    SackCompress,
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
///
/// It runs on a clock: exact (the default), or a kernel's jiffies, on which a timer armed at
/// `now` for `at` fires at `clock.expiry(now, at)`, never before `at`. That tick is worked out
/// when it is needed, not at every arming: a sender re-arms its retransmission timer a few
/// times per ACK, and the event queued for an earlier deadline almost always serves.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timer {
    clock: Jiffies,
    deadline: Option<Deadline>,
    scheduled: Option<Time>,
}

/// What a timer was armed for, and when.
#[derive(Clone, Copy, Debug)]
struct Deadline {
    at: Time,
    armed_at: Time,
}

impl Timer {
    /// A timer on `clock`.
    pub fn on(clock: Jiffies) -> Self {
        Timer { clock, ..Default::default() }
    }

    pub fn arm(&mut self, at: Time, kind: TimerKind, ctx: &mut Ctx) {
        self.deadline = Some(Deadline { at, armed_at: ctx.now });
        // An event queued for `at` or earlier serves: the timer fires no earlier than `at`.
        if self.scheduled.is_some_and(|s| s <= at) {
            return;
        }
        let fires = self.clock.expiry(ctx.now, at);
        if self.scheduled.is_none_or(|s| s > fires) {
            self.scheduled = Some(fires);
            ctx.timers.push((fires, kind));
        }
    }

    pub fn cancel(&mut self) {
        self.deadline = None;
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// When the timer fires, if it is armed.
    pub fn deadline(&self) -> Option<Time> {
        self.deadline.map(|d| self.clock.expiry(d.armed_at, d.at))
    }

    /// An engine event for this timer fired at `now`: true if the timer is due. If the
    /// deadline moved later, a new event is requested.
    pub fn fire(&mut self, kind: TimerKind, ctx: &mut Ctx) -> bool {
        if self.scheduled == Some(ctx.now) {
            self.scheduled = None;
        }
        match self.deadline() {
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

#[cfg(test)]
mod tests {
    use super::cc::CaState;
    use super::delack::AckPolicy;
    use super::*;
    use crate::net::packet::flags;
    use crate::net::{Ecn, Payload};
    use crate::sim::MS;

    fn seg(p: &Packet) -> TcpSegment {
        p.tcp().expect("a TCP packet").clone()
    }

    use crate::net::TcpSegment;

    /// A timer on jiffies queues its event for the tick it fires on; moving its deadline later
    /// queues nothing, and the event, finding the timer not yet due, asks for the new tick.
    #[test]
    fn a_timer_on_jiffies_fires_on_its_tick() {
        let mut timer = Timer::on(Jiffies::new(250));
        let mut flow = FlowStats::new("f".into(), "a".into(), "b".into(), None, "bulk");
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        macro_rules! ctx {
            ($now:expr) => {
                Ctx { now: $now, out: &mut out, timers: &mut timers, flow: &mut flow }
            };
        }
        // Armed at 1 ms (jiffy 0) for 41 ms: 10 jiffies, fired at the tick of jiffy 11.
        timer.arm(41 * MS, TimerKind::Retransmit, &mut ctx!(MS));
        assert_eq!(timer.deadline(), Some(44 * MS));
        // Armed again at 2 ms for 60 ms: 15 jiffies, the tick of jiffy 16.
        timer.arm(60 * MS, TimerKind::Retransmit, &mut ctx!(2 * MS));
        assert_eq!(timer.deadline(), Some(64 * MS));
        assert_eq!(timers, [(44 * MS, TimerKind::Retransmit)]);
        assert!(!timer.fire(TimerKind::Retransmit, &mut ctx!(44 * MS)));
        assert_eq!(timers[1..], [(64 * MS, TimerKind::Retransmit)]);
        assert!(timer.fire(TimerKind::Retransmit, &mut ctx!(64 * MS)));
        assert!(!timer.is_armed());
    }

    #[test]
    fn ce_mark_is_echoed_until_the_sender_signals_cwr() {
        // Nothing tells this socket its packets left the host: TSQ would hold all but three.
        let opts = TcpConfig { ecn: true, delayed_ack: false, small_queues: false, ..TcpConfig::default() };
        let cc = cc::CcEnv::scratch(|env| cc::create(&cc::Config::named("reno"), env)).unwrap();
        let mut snd = TcpSender::new(0, 0, 0, 1, opts.clone(), cc);
        let mut rcv = TcpReceiver::new(
            0,
            0,
            1,
            0,
            AckPolicy::default(),
            rcvbuf::RcvBuf::new(RMEM_LINUX_6, WINDOW_RATIO_LINUX_6, None, 1448),
        );
        let mut flow = FlowStats::new("f".into(), "a".into(), "b".into(), None, "bulk");
        let (mut out, mut timers) = (Vec::new(), Vec::new());
        macro_rules! ctx {
            ($now:expr) => {
                Ctx { now: $now, out: &mut out, timers: &mut timers, flow: &mut flow }
            };
        }
        snd.open(&mut ctx!(0));
        snd.write(u64::MAX, &mut ctx!(0));
        let syn = out.pop().unwrap();
        rcv.on_segment(&seg(&syn), Ecn::NotEct, 1448, &mut ctx!(5 * MS));
        let synack = out.pop().unwrap();
        snd.on_segment(&seg(&synack), &mut ctx!(10 * MS));
        let data: Vec<Packet> = std::mem::take(&mut out);
        assert_eq!(data.len(), 10, "initial window");
        assert!(data.iter().all(|p| p.ecn == Ecn::Ect0), "ECN-capable transport");

        // The first segment arrives CE-marked: every ACK echoes ECE.
        for (i, p) in data.iter().enumerate() {
            let ecn = if i == 0 { Ecn::Ce } else { p.ecn };
            rcv.on_segment(&seg(p), ecn, 1448, &mut ctx!(15 * MS));
        }
        let acks: Vec<Packet> = std::mem::take(&mut out);
        assert!(acks.iter().all(|a| seg(a).has(flags::ECE)));

        // The sender halves once (Reno), enters CWR and flags its next segment.
        let cwnd_before = snd.st.cwnd;
        snd.on_segment(&seg(&acks[0]), &mut ctx!(20 * MS));
        assert_eq!(snd.st.ca_state, CaState::Cwr);
        assert_eq!(snd.st.ssthresh, cwnd_before / 2);
        let next = out.drain(..).next().expect("the ACK frees room for new data");
        assert!(seg(&next).has(flags::CWR));
        for a in &acks[1..] {
            snd.on_segment(&seg(a), &mut ctx!(20 * MS));
        }
        assert_eq!(snd.st.ssthresh, cwnd_before / 2, "one reduction per window");

        // The receiver stops echoing once it sees CWR.
        rcv.on_segment(&seg(&next), Ecn::Ect0, 1448, &mut ctx!(25 * MS));
        let ack = out.pop().unwrap();
        assert!(!seg(&ack).has(flags::ECE));
        assert!(matches!(ack.payload, Payload::Tcp(_)));
    }
}
