//! The data-sending side of a TCP connection, modelled on Linux.
//!
//! Handshake (SYN, SYN-ACK; the first data segment completes it), SACK-based loss recovery
//! per RFC 6675 with Proportional Rate Reduction (RFC 6937, Linux `tcp_cwnd_reduction`),
//! retransmission timeout per RFC 6298 with Linux's floor and go-back-N after a timeout,
//! ECN echo handling (RFC 3168), delivery-rate sampling, optional pacing (Linux internal
//! pacing: 200 % of cwnd/srtt in slow start, 120 % after), and slow-start restart after idle.
//! TCP Small Queues and local drops: the socket keeps only a little of its data in its own
//! host's queues and resumes when a packet leaves; a local qdisc that refuses a segment
//! (NET_XMIT_DROP) leaves it unsent and the socket enters CWR, with no loss and no
//! retransmission.
//! Loss detection by RACK-TLP or RFC 6675 is in [`recovery`].
//! Not modelled: TSO/GSO bursts, the FIN exchange (the sender is done when its last byte is
//! ACKed; the connection's completion time is taken at the receiver, `receiver.rs`). A closed
//! connection's last segment carries the FIN flag for components on the path to see
//! ([`TcpSender::close`]); no bare FIN is sent and neither end acts on it.

mod recovery;
#[cfg(test)]
mod tests;
mod undo;

use super::cc::{AckSample, CaState, CcState, CongestionControl};
use super::rack::Rack;
use super::rate::{RateSampler, TxSnapshot};
use super::rto::RttEstimator;
use super::scoreboard::{Delivered, Scoreboard, Segment};
use super::{Ctx, LossDetection, Stack, TcpConfig, Timer, TimerKind};
use crate::net::packet::{flags, SYN_SIZE, TCP_HEADER};
use crate::net::{ConnId, Ecn, FlowId, NodeId, Packet, TcpSegment};
use crate::sim::{Time, MS, SEC, US};
use recovery::XmitTimer;
use undo::{AckFacts, Undo};

/// Linux `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio` (percent).
const PACING_SS_RATIO: f64 = 2.0;
const PACING_CA_RATIO: f64 = 1.2;

/// Linux's default `sk_pacing_shift`: TCP Small Queues lets a socket keep pacing_rate / 2^10
/// bytes (about 1 ms) in its host.
pub const PACING_SHIFT_WIRED: u8 = 10;
/// mac80211's `tx_sk_pacing_shift` (7, about 8 ms): aggregation needs more per station.
pub const PACING_SHIFT_WIFI: u8 = 7;
/// What an skb costs its socket beyond the IP packet (its truesize less the packet), as the
/// testbed's kernel (Linux 6.18, GSO off) reports it: `ss -m` gives 2280 B of `wmem_queued`
/// per full segment in flight (BBRv1, 80 ms, 100 Mbit/s, docs/validation.md), 1448 B of
/// payload in page fragments plus 832 B of skb.
const SKB_OVERHEAD: u64 = 780;

/// The application writes while its socket is writable, which Linux reports while the free
/// send buffer is at least half of what is queued (`sk_stream_is_writeable`): the queue settles
/// at two thirds of `sk_sndbuf` (the testbed kernel's: 0.675 of 4 MiB with 64 KB writes).
const WRITABLE_NUM: u64 = 2;
const WRITABLE_DEN: u64 = 3;

fn truesize(ip_size: u32) -> u64 {
    u64::from(ip_size) + SKB_OVERHEAD
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    SynSent,
    Established,
    /// All application data was ACKed.
    Done,
}

pub struct TcpSender {
    pub conn: ConnId,
    pub flow: FlowId,
    pub node: NodeId,
    pub peer: NodeId,
    opts: TcpConfig,
    pub cc: Box<dyn CongestionControl>,
    /// cwnd, ssthresh and the rest of the state shared with the congestion control.
    pub st: CcState,
    phase: Phase,
    pub rtt: RttEstimator,
    opened_at: Time,
    syn_retransmitted: bool,
    /// Oldest unacknowledged byte and next new byte to send.
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Bytes the application has made available (u64::MAX: unlimited).
    app_end: u64,
    /// The application will write nothing more: the segment carrying byte `app_end` has FIN.
    closed: bool,
    /// Receive window advertised by the peer, and its latest timestamp to echo.
    rwnd: u64,
    ts_recent: Time,
    pub sb: Scoreboard,
    /// snd_nxt when the current Recovery, Loss or CWR episode began (Linux `high_seq`).
    recovery_point: u64,
    prr_delivered: u32,
    prr_out: u32,
    prior_cwnd: u32,
    pub rate: RateSampler,
    pub last_rate: super::rate::RateSample,
    send_cwr: bool,
    /// The retransmission timer, and whether it is armed for the RTO, RACK's reordering
    /// timeout or a tail loss probe.
    rto_timer: Timer,
    xmit_timer: XmitTimer,
    pub rack: Rack,
    /// snd_nxt when the outstanding tail loss probe was sent (Linux `tlp_high_seq`), and
    /// whether the probe was a retransmission.
    tlp_high_seq: Option<u64>,
    tlp_retrans: bool,
    undo: Undo,
    pace_timer: Timer,
    /// Data segments sent, retransmissions included (Linux `tp->data_segs_out`): pacing
    /// spares the first ten.
    segs_sent: u64,
    /// (seq, earliest departure before it) of the segments sent at `last_send`, so a send the
    /// host's qdisc refuses gives its pacing slot back.
    paced_sends: Vec<(u64, Time)>,
    last_send: Time,
    delivered_buf: Vec<Delivered>,
    lost_buf: Vec<TxSnapshot>,
    /// Truesize of this socket's packets still on its host (Linux `sk_wmem_alloc`).
    wmem_alloc: u64,
    /// TCP Small Queues stopped sending until one of those packets leaves.
    tsq_throttled: bool,
    /// Linux `sk_pacing_shift`, set by the device the connection leaves through.
    pacing_shift: u8,
    /// Linux `tcp_cwnd_validate`'s record of how fully the current window used cwnd.
    cwnd_limited: bool,
    max_packets_out: u32,
    cwnd_usage_seq: u64,
}

impl TcpSender {
    pub fn new(
        conn: ConnId,
        flow: FlowId,
        node: NodeId,
        peer: NodeId,
        opts: TcpConfig,
        cc: Box<dyn CongestionControl>,
    ) -> Self {
        let mut st = CcState::new(opts.mss, opts.initial_cwnd);
        // Fixed for the connection: the scenario asks for pacing or the algorithm needs it.
        st.paced = opts.pacing || cc.needs_pacing();
        let rtt = RttEstimator::new(opts.rto_min, opts.rto_mode);
        let rto_timer = Timer::on(opts.jiffies);
        TcpSender {
            conn,
            flow,
            node,
            peer,
            opts,
            cc,
            st,
            phase: Phase::SynSent,
            rtt,
            opened_at: 0,
            syn_retransmitted: false,
            snd_una: 0,
            snd_nxt: 0,
            app_end: 0,
            closed: false,
            rwnd: u64::MAX,
            ts_recent: 0,
            sb: Scoreboard::default(),
            recovery_point: 0,
            prr_delivered: 0,
            prr_out: 0,
            prior_cwnd: 0,
            rate: RateSampler::default(),
            last_rate: Default::default(),
            send_cwr: false,
            rto_timer,
            xmit_timer: XmitTimer::Rto,
            rack: Rack::new(),
            tlp_high_seq: None,
            tlp_retrans: false,
            undo: Undo::default(),
            pace_timer: Timer::default(),
            segs_sent: 0,
            paced_sends: Vec::new(),
            last_send: 0,
            delivered_buf: Vec::new(),
            lost_buf: Vec::new(),
            wmem_alloc: 0,
            tsq_throttled: false,
            pacing_shift: PACING_SHIFT_WIRED,
            cwnd_limited: false,
            max_packets_out: 0,
            cwnd_usage_seq: 0,
        }
    }

    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    pub fn in_flight(&self) -> u32 {
        self.sb.in_flight()
    }

    /// Open the connection: send the SYN.
    pub fn open(&mut self, ctx: &mut Ctx) {
        self.opened_at = ctx.now;
        self.send_syn(ctx);
    }

    /// Make `bytes` more application data available (u64::MAX: unlimited).
    pub fn write(&mut self, bytes: u64, ctx: &mut Ctx) {
        debug_assert!(!self.closed, "a write after close");
        self.app_end = self.app_end.saturating_add(bytes);
        self.try_send(ctx);
    }

    /// The connection leaves its host through a device that sets `sk_pacing_shift` (mac80211
    /// does: [`PACING_SHIFT_WIFI`]).
    pub fn set_pacing_shift(&mut self, shift: u8) {
        self.pacing_shift = shift;
    }

    /// The application closes the connection after its last write: the segment carrying the
    /// last byte, when sent from now on (retransmissions included), has FIN, as Linux
    /// piggybacks the FIN on a queued segment. airlab sends no bare FIN: if the last byte has
    /// already left, only a retransmission of it carries one. Apps that open a connection for
    /// a message of known size close it right after writing it.
    pub fn close(&mut self) {
        self.closed = true;
    }

    /// The application stops writing: no new data beyond what was already sent. Its last byte
    /// left without FIN, and no bare FIN follows.
    pub fn stop(&mut self) {
        self.app_end = self.snd_nxt;
    }

    fn send_syn(&mut self, ctx: &mut Ctx) {
        ctx.out.push(self.packet(SYN_SIZE, Ecn::NotEct, TcpSegment { flags: flags::SYN, ..Default::default() }));
        let rto = self.rtt.rto();
        self.arm_xmit(XmitTimer::Rto, ctx.now + rto, ctx);
    }

    fn packet(&self, size: u32, ecn: Ecn, seg: TcpSegment) -> Packet {
        Packet::tcp_packet(self.flow, self.conn, self.node, self.peer, size, ecn, seg)
    }

    /// A segment (SYN-ACK or ACK) from the receiver.
    pub fn on_segment(&mut self, seg: &TcpSegment, ctx: &mut Ctx) {
        self.st.now = ctx.now;
        if seg.has(flags::ACK) && seg.ack <= self.snd_nxt {
            self.rwnd = seg.wnd;
            self.ts_recent = self.ts_recent.max(seg.tsval);
        }
        match self.phase {
            Phase::SynSent if seg.has(flags::SYN) && seg.has(flags::ACK) => {
                if !self.syn_retransmitted {
                    let rtt = ctx.now - self.opened_at;
                    self.take_rtt_sample(Some(rtt), Some(rtt), ctx);
                }
                self.rtt.reset_backoff();
                self.rto_timer.cancel();
                self.phase = Phase::Established;
                self.cc.init(&mut self.st);
                // Linux processes the SYN-ACK in tcp_ack, which sets the first pacing rate.
                if !self.cc.owns_cwnd() {
                    self.update_pacing_rate();
                }
                self.try_send(ctx);
            }
            Phase::Established if seg.has(flags::ACK) && !seg.has(flags::SYN) => self.on_ack(seg, ctx),
            _ => {}
        }
    }

    /// `seq_rtt` feeds SRTT, the RTO and the flow's RTT statistics; `ca_rtt` the minimum.
    fn take_rtt_sample(&mut self, seq_rtt: Option<Time>, ca_rtt: Option<Time>, ctx: &mut Ctx) {
        if let Some(rtt) = seq_rtt {
            self.rtt.sample(rtt);
            self.st.srtt = self.rtt.srtt;
            ctx.flow.add_rtt(rtt);
        }
        if let Some(rtt) = ca_rtt {
            self.rtt.update_min(rtt);
            self.st.min_rtt = self.rtt.min_rtt;
        }
    }

    fn on_ack(&mut self, seg: &TcpSegment, ctx: &mut Ctx) {
        let now = ctx.now;
        if seg.ack > self.snd_nxt {
            return;
        }
        let prior_delivered = self.rate.delivered;
        let prior_una = self.snd_una;
        let mut delivered = std::mem::take(&mut self.delivered_buf);
        delivered.clear();
        let prior_fack = self.sb.highest_sacked;
        if seg.ack > self.snd_una {
            self.sb.ack_up_to(seg.ack, &mut delivered);
            self.snd_una = seg.ack;
        }
        let dsack = Self::dsack(seg);
        if let Some(block) = dsack {
            self.rack.on_dsack(self.snd_una, self.snd_nxt);
            self.on_dsack_for_undo(block, prior_una);
        }
        let sacks = seg.sack.iter().skip(dsack.is_some() as usize);
        self.sb.sack(sacks.filter(|&(_, e)| e > self.snd_una), &mut delivered);

        // RTT (Linux `tcp_clean_rtx_queue`): of the original transmissions newly delivered, the
        // oldest gives the RTO sample (seq_rtt) and the newest the congestion control's (ca_rtt),
        // SACKed ones before cumulatively ACKed ones for the latter. Retransmitted data among
        // those cumulatively ACKed voids the whole cumulative part (Karn), not only its own
        // (Linux counts a retransmission SACKed earlier too; here only one newly delivered).
        let mut cumulative = RttSpan::default();
        let mut sacked = RttSpan::default();
        let mut retrans_acked = false;
        let ece = seg.has(flags::ECE);
        for d in &delivered {
            self.rate.on_delivered(now, d.sent_at, &d.snap, ece);
            // An original transmission delivered below data SACKed earlier arrived out of
            // order (RACK.reordering_seen, Linux `tcp_check_sack_reordering`).
            if !d.ever_retransmitted && d.end <= prior_fack {
                self.rack.reordering_seen = true;
            }
            if d.ever_retransmitted {
                retrans_acked |= d.cumulative;
            } else if d.cumulative {
                cumulative.add(now - d.sent_at);
            } else {
                sacked.add(now - d.sent_at);
            }
        }
        if retrans_acked {
            cumulative = RttSpan::default();
        }
        let mut seq_rtt = cumulative.oldest.or(sacked.oldest);
        let mut ca_rtt = sacked.newest.or(cumulative.newest);
        let una_advanced = self.snd_una > prior_una;
        // The timestamp echo's RTT, in whole milliseconds of the sender's clock.
        let echo_rtt = (una_advanced && seg.tsecr > 0).then(|| (now / MS - seg.tsecr / MS) * MS);
        if self.opts.stack == Stack::Ns3 {
            // ns-3 measures only from the echo of an ACK for new data
            // (`TcpSocketBase::EstimateRtt`); a 0 ms sample is 1 us.
            let rtt = echo_rtt.map(|r| r.max(US));
            (seq_rtt, ca_rtt) = (rtt, rtt);
        } else if seq_rtt.is_none() && echo_rtt.is_some() {
            // Karn's rule left no sample (only retransmitted data was ACKed): Linux takes the
            // echo's (`tcp_rtt_tsopt_us`) for SRTT and the minimum alike: up to 1 ms below the
            // real RTT, and 1 ms when the clocks agree.
            let rtt = echo_rtt.map(|r| r.max(MS));
            (seq_rtt, ca_rtt) = (rtt, rtt);
        }
        self.take_rtt_sample(seq_rtt, ca_rtt, ctx);
        if una_advanced {
            self.rtt.reset_backoff();
        }
        let rack_advanced = self.rack.update(&delivered, now, self.rtt.min_rtt);
        self.delivered_buf = delivered;
        let reorder_timer_before = self.reorder_timer_armed();
        let newly_lost = self.detect_losses(rack_advanced, ctx);
        let reorder_timer_set = !reorder_timer_before && self.reorder_timer_armed();
        let rs = self.rate.generate(self.rtt.min_rtt, self.opts.mss);
        let acked = (self.rate.delivered - prior_delivered) as u32;
        self.st.delivered = self.rate.delivered;
        self.st.delivered_ce = self.rate.delivered_ce;
        self.st.packets_in_flight = self.sb.in_flight();

        // What the ACK delivered matters to the Loss state only: looked at there.
        if self.st.ca_state == CaState::Loss {
            let delivered = &self.delivered_buf;
            let facts = AckFacts {
                una_advanced,
                original_delivered: delivered.iter().any(|d| !d.ever_retransmitted && d.end <= self.recovery_point),
                data_sacked: delivered.iter().any(|d| !d.cumulative),
            };
            if self.process_loss(&facts, ctx) {
                self.st.packets_in_flight = self.sb.in_flight();
            }
        }
        self.update_state(seg, prior_una, ctx);
        self.try_undo_dsack(ctx);
        self.process_tlp_ack(seg, dsack, una_advanced);

        self.st.is_cwnd_limited = self.is_cwnd_limited();
        let sample = AckSample { acked, rtt: ca_rtt, newly_lost, ece: seg.has(flags::ECE), rate: rs, ext: seg.ext };
        self.cc.on_ack(&mut self.st, &sample);
        if !self.cc.owns_cwnd() {
            match self.st.ca_state {
                CaState::Recovery | CaState::Cwr => self.prr(acked, newly_lost, self.snd_una > prior_una),
                _ if acked > 0 => self.cc.cong_avoid(&mut self.st, acked),
                _ => {}
            }
            self.update_pacing_rate();
        }
        self.last_rate = sample.rate;

        if self.sb.is_empty() {
            self.rto_timer.cancel();
            self.xmit_timer = XmitTimer::Rto;
        } else if una_advanced && !reorder_timer_set {
            self.set_xmit_timer(ctx);
        }
        if self.app_end != u64::MAX && self.snd_una >= self.app_end && self.sb.is_empty() {
            self.complete(ctx);
            return;
        }
        self.try_send(ctx);
    }

    /// Count newly lost segments and show each to the congestion control.
    fn record_losses(&mut self, lost: &mut Vec<TxSnapshot>, ctx: &mut Ctx) {
        // Most ACKs find nothing lost, and the counters are as they were.
        if lost.is_empty() {
            return;
        }
        self.rate.on_lost(lost.len() as u64);
        ctx.flow.total.lost += lost.len() as u64;
        // Count the losses one at a time, as Linux does, so each packet's snapshot is compared
        // with the losses marked up to and including it.
        for snap in lost.drain(..) {
            self.st.lost += 1;
            self.cc.on_lost(&mut self.st, &snap);
        }
        self.st.lost = self.rate.lost;
    }

    /// Congestion-state transitions driven by an ACK (Linux `tcp_fastretrans_alert`, simplified).
    fn update_state(&mut self, seg: &TcpSegment, prior_una: u64, ctx: &mut Ctx) {
        let una_advanced = self.snd_una > prior_una;
        // Leave an episode once everything outstanding at its start is ACKed. CWR is held
        // until data *above* that point is ACKed, so the CWR flag has reached the receiver
        // and ECE echoes of the same congestion event are not taken as a new one (Linux).
        let episode_over = match self.st.ca_state {
            CaState::Recovery | CaState::Loss => self.snd_una >= self.recovery_point,
            CaState::Cwr => self.snd_una > self.recovery_point,
            _ => false,
        };
        if episode_over && una_advanced {
            let undone = self.st.ca_state != CaState::Cwr && self.try_undo_at_episode_end(ctx);
            if matches!(self.st.ca_state, CaState::Recovery | CaState::Loss) {
                self.rack.on_recovery_end();
            }
            if !undone && matches!(self.st.ca_state, CaState::Recovery | CaState::Cwr) && !self.cc.owns_cwnd() {
                // Linux `tcp_end_cwnd_reduction`: settle at ssthresh.
                self.st.cwnd = self.st.ssthresh;
            }
            self.set_state(CaState::Open);
        }
        if self.sb.lost_out > 0 && matches!(self.st.ca_state, CaState::Open | CaState::Disorder | CaState::Cwr) {
            self.begin_reduction(CaState::Recovery);
        } else if seg.has(flags::ECE) && self.opts.ecn && matches!(self.st.ca_state, CaState::Open | CaState::Disorder)
        {
            // RFC 3168: react to ECE at most once per window; CWR tells the receiver we did.
            self.begin_reduction(CaState::Cwr);
            self.send_cwr = true;
        } else if self.st.ca_state == CaState::Open && self.sb.sacked_out > 0 {
            self.set_state(CaState::Disorder);
        } else if self.st.ca_state == CaState::Disorder && self.sb.sacked_out == 0 {
            self.set_state(CaState::Open);
        }
    }

    fn set_state(&mut self, new: CaState) {
        if self.st.ca_state != new {
            self.st.ca_state = new;
            self.cc.on_state(&mut self.st, new);
        }
    }

    /// Start a Recovery or CWR episode (Linux `tcp_init_cwnd_reduction`).
    fn begin_reduction(&mut self, state: CaState) {
        self.save_for_undo(state);
        self.recovery_point = self.snd_nxt;
        self.tlp_high_seq = None;
        self.prior_cwnd = self.st.cwnd;
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.st.ssthresh = self.cc.ssthresh(&self.st);
        self.st.cwnd_cnt = 0;
        self.set_state(state);
    }

    /// Proportional Rate Reduction (RFC 6937), as Linux `tcp_cwnd_reduction`.
    fn prr(&mut self, acked: u32, newly_lost: u32, una_advanced: bool) {
        if acked == 0 && newly_lost == 0 {
            return;
        }
        self.prr_delivered += acked;
        let in_flight = self.sb.in_flight() as i64;
        let ssthresh = self.st.ssthresh as i64;
        let delta = ssthresh - in_flight;
        let mut sndcnt = if delta < 0 {
            let prior = self.prior_cwnd.max(1) as i64;
            (self.prr_delivered as i64 * ssthresh + prior - 1) / prior - self.prr_out as i64
        } else if una_advanced && newly_lost == 0 {
            delta.min((self.prr_delivered as i64 - self.prr_out as i64).max(acked as i64) + 1)
        } else {
            delta.min(acked as i64)
        };
        // Force the fast retransmit when the episode starts.
        if self.prr_out == 0 {
            sndcnt = sndcnt.max(1);
        }
        self.st.cwnd = (in_flight + sndcnt.max(0)).max(1) as u32;
    }

    /// Linux `tcp_update_pacing_rate` for algorithms that do not set their own. Linux keeps
    /// the rate whether or not it paces: TCP Small Queues sizes its limit from it.
    fn update_pacing_rate(&mut self) {
        if self.rtt.srtt == 0 {
            return;
        }
        let ratio = if self.st.cwnd < self.st.ssthresh / 2 { PACING_SS_RATIO } else { PACING_CA_RATIO };
        let window = self.st.cwnd.max(self.sb.packets_out()) as f64 * self.opts.mss as f64;
        self.st.pacing_rate = (ratio * window * SEC as f64 / self.rtt.srtt as f64) as u64;
    }

    /// A timer this socket asked for fired.
    pub fn on_timer(&mut self, kind: TimerKind, ctx: &mut Ctx) {
        self.st.now = ctx.now;
        match kind {
            TimerKind::Retransmit => {
                if self.rto_timer.fire(kind, ctx) {
                    self.on_xmit_timer(ctx);
                }
            }
            TimerKind::Pacing => {
                if self.pace_timer.fire(kind, ctx) {
                    self.try_send(ctx);
                }
            }
            TimerKind::DelayedAck | TimerKind::SackCompress => {}
        }
    }

    /// Retransmission timeout (RFC 6298 section 5, Linux `tcp_enter_loss`).
    fn on_rto(&mut self, ctx: &mut Ctx) {
        self.rtt.back_off();
        if self.phase == Phase::SynSent {
            self.syn_retransmitted = true;
            self.send_syn(ctx);
            return;
        }
        if self.sb.is_empty() {
            return;
        }
        let new_recovery = matches!(self.st.ca_state, CaState::Open | CaState::Disorder | CaState::Cwr);
        if new_recovery {
            self.save_for_undo(CaState::Loss);
            self.st.ssthresh = self.cc.ssthresh(&self.st);
        }
        // Linux judges a timeout with F-RTO unless it hit a recovery in progress the first
        // time (`tcp_enter_loss`); the backoff was raised for this timeout already.
        self.undo.frto = self.opts.frto && (new_recovery || self.rtt.backoff() > 1);
        let mut lost = std::mem::take(&mut self.lost_buf);
        let spare_recent = (self.opts.recovery == LossDetection::RackTlp).then_some((ctx.now, self.rack.rtt));
        self.sb.mark_all_lost(spare_recent, &mut lost);
        self.record_losses(&mut lost, ctx);
        self.lost_buf = lost;
        self.tlp_high_seq = None;
        self.st.cwnd = 1;
        self.st.cwnd_cnt = 0;
        self.recovery_point = self.snd_nxt;
        self.st.next_departure = ctx.now;
        // Re-enter Loss even if already there, so the algorithm sees every timeout.
        self.st.ca_state = CaState::Open;
        self.set_state(CaState::Loss);
        let rto = self.rtt.rto();
        self.arm_xmit(XmitTimer::Rto, ctx.now + rto, ctx);
        self.try_send(ctx);
    }

    /// Send what cwnd, pacing, the receive window and the application allow.
    fn try_send(&mut self, ctx: &mut Ctx) {
        if self.phase != Phase::Established {
            return;
        }
        let now = ctx.now;
        let mut sent = 0;
        let mut sent_new = 0;
        let prior_packets_out = self.sb.packets_out();
        let head_retransmitted = self.sb.next_retransmission() == Some(0);
        loop {
            let in_flight = self.sb.in_flight();
            if in_flight >= self.st.cwnd {
                break;
            }
            if self.st.paced && self.st.pacing_rate > 0 && now < self.st.next_departure {
                self.pace_timer.arm(self.st.next_departure, TimerKind::Pacing, ctx);
                break;
            }
            let retransmission = if self.undo.frto_new_data { None } else { self.sb.next_retransmission() };
            let may_send_new = self.snd_nxt < self.app_end && self.fits_peer_window() && !self.send_buffer_full();
            if retransmission.is_none() && !may_send_new {
                // Application-limited with room in cwnd. Linux checks this as the application
                // writes (`tcp_rate_check_app_limited` in `tcp_sendmsg`), when nothing it wrote
                // is unsent: so when the application has no more data, and when its send buffer
                // is full of data in flight (it writes again once ACKs free space, and finds
                // everything sent); not when the peer's window holds back data already written.
                if self.snd_nxt >= self.app_end || self.send_buffer_full() {
                    self.rate.mark_app_limited(in_flight);
                }
                break;
            }
            if self.small_queue_full(retransmission.is_some()) {
                self.tsq_throttled = true;
                break;
            }
            match retransmission {
                Some(idx) => self.retransmit(idx, true, ctx),
                None => {
                    sent_new += 1;
                    self.send_new(ctx)
                }
            }
            if matches!(self.st.ca_state, CaState::Recovery | CaState::Cwr) {
                self.prr_out += 1;
            }
            sent += 1;
        }
        if self.undo.frto_new_data {
            // F-RTO step 2b: if no new data could go, fall back to retransmitting.
            self.undo.frto_new_data = false;
            if sent_new == 0 {
                self.undo.frto = false;
                self.try_send(ctx);
                return;
            }
        }
        self.st.packets_in_flight = self.sb.in_flight();
        let is_cwnd_limited = self.st.packets_in_flight >= self.st.cwnd;
        if sent > 0 || is_cwnd_limited {
            self.cwnd_validate(is_cwnd_limited);
        }
        // Linux sends retransmissions before new data (`tcp_xmit_retransmit_queue`), and
        // retransmitting the oldest segment restarts the RTO, whatever new data follows it in
        // the same call: the retransmission gets a whole RTO to come back, though it queues
        // behind everything sent before it. New data then (re)starts the RTO only if nothing
        // was out or a probe was pending, and schedules a probe.
        if sent > sent_new && head_retransmitted && self.xmit_timer != XmitTimer::Reorder {
            let rto = self.rtt.rto();
            self.arm_xmit(XmitTimer::Rto, now + rto, ctx);
        }
        if sent_new > 0 {
            if prior_packets_out == 0 || self.xmit_timer == XmitTimer::LossProbe {
                self.rearm_rto(ctx);
            }
            self.schedule_loss_probe(false, ctx);
        }
        if !self.sb.is_empty() && !self.rto_timer.is_armed() {
            self.rearm_rto(ctx);
        }
    }

    /// Linux `tcp_update_skb_after_send`: the next segment may leave one payload length (the
    /// write-queue skb, without headers) over the pacing rate after this one. The first ten
    /// segments leave back to back, as the original sch_fq let them; and a socket that sends
    /// later than its slot allowed gets up to half a gap back ("OS jitter": an ACK-clocked or
    /// timer-woken sender is not held to a schedule it could not keep).
    fn pace(&mut self, seq: u64, payload: u32, now: Time) {
        self.segs_sent += 1;
        if self.last_send != now {
            self.paced_sends.clear();
        }
        self.last_send = now;
        if !self.st.paced || self.st.pacing_rate == 0 {
            return;
        }
        let prior = self.st.next_departure;
        let stamp = prior.max(now);
        self.paced_sends.push((seq, prior));
        let mut next = stamp;
        if self.segs_sent >= 10 {
            let gap = payload as u64 * SEC / self.st.pacing_rate;
            next += gap - (stamp - prior).min(gap / 2);
        }
        self.st.next_departure = next;
    }

    fn reorder_timer_armed(&self) -> bool {
        self.xmit_timer == XmitTimer::Reorder && self.rto_timer.is_armed()
    }

    /// Linux `tcp_cwnd_validate`: remember for the current window whether cwnd was the limit,
    /// and otherwise the most packets it had out, so that a moment held back by TSQ, pacing or
    /// the application does not stop cwnd growth for the whole window.
    fn cwnd_validate(&mut self, is_cwnd_limited: bool) {
        let packets_out = self.sb.packets_out();
        if self.snd_una >= self.cwnd_usage_seq
            || is_cwnd_limited
            || (!self.cwnd_limited && packets_out > self.max_packets_out)
        {
            self.cwnd_limited = is_cwnd_limited;
            self.max_packets_out = packets_out;
            self.cwnd_usage_seq = self.snd_nxt;
        }
    }

    /// Linux `tcp_is_cwnd_limited`: cwnd was the limit in this window, or, in slow start, the
    /// window had out at least half of cwnd (so that cwnd may grow to twice what was used).
    fn is_cwnd_limited(&self) -> bool {
        self.cwnd_limited || (self.st.in_slow_start() && self.st.cwnd < 2 * self.max_packets_out)
    }

    /// Linux `tcp_small_queue_check`: hold the next segment while this socket has more than
    /// max(2 segments, pacing_rate >> pacing_shift) bytes in its host, capped by
    /// `tcp_limit_output_bytes` unless the socket paces; retransmissions may use twice that.
    /// A socket with at most one segment outstanding always sends.
    fn small_queue_full(&self, retransmission: bool) -> bool {
        if !self.opts.small_queues || self.sb.packets_out() <= 1 {
            return false;
        }
        let two_segments = 2 * truesize(self.opts.mss + TCP_HEADER);
        let mut limit = two_segments.max(self.st.pacing_rate >> self.pacing_shift);
        if !self.st.paced {
            limit = limit.min(self.opts.limit_output_bytes);
        }
        if retransmission {
            limit <<= 1;
        }
        self.wmem_alloc > limit
    }

    /// A packet this socket sent left its host (sent or dropped there): its truesize is
    /// returned (Linux `tcp_wfree`).
    pub fn release(&mut self, ip_size: u32) {
        self.wmem_alloc = self.wmem_alloc.saturating_sub(truesize(ip_size));
    }

    /// After [`TcpSender::release`]: a socket TCP Small Queues held back sends again.
    pub fn resume_after_release(&mut self, ctx: &mut Ctx) {
        if self.tsq_throttled {
            self.tsq_throttled = false;
            self.st.now = ctx.now;
            self.try_send(ctx);
        }
    }

    /// The local qdisc refused `unsent[0]` (NET_XMIT_DROP), so the packets this socket emitted
    /// after it were not offered either (Linux stops `tcp_write_xmit` at the failure). None of
    /// them counts as sent: new data goes back to the unsent queue, a retransmission is due
    /// again, and the socket enters CWR (Linux `tcp_enter_cwr`). It resumes on the next ACK or
    /// when one of its packets leaves the host.
    pub fn on_local_refusal(&mut self, unsent: &[Packet], ctx: &mut Ctx) {
        self.st.now = ctx.now;
        for pkt in unsent.iter().rev() {
            let Some(seg) = pkt.tcp().filter(|s| s.len > 0) else { continue };
            self.wmem_alloc = self.wmem_alloc.saturating_sub(truesize(pkt.size));
            if matches!(self.st.ca_state, CaState::Recovery | CaState::Cwr) {
                self.prr_out = self.prr_out.saturating_sub(1);
            }
            // Linux keeps the departure stamp moved up to now, without this segment's gap.
            if let Some(&(_, prior)) = self.paced_sends.iter().rev().find(|(seq, _)| *seq == seg.seq) {
                self.st.next_departure = prior.max(ctx.now);
            }
            if self.sb.pop_new(seg.seq) {
                self.snd_nxt = seg.seq;
            } else {
                self.sb.cancel_retransmission(seg.seq);
                ctx.flow.total.retransmits -= 1;
            }
            if seg.has(flags::CWR) {
                self.send_cwr = true;
            }
        }
        ctx.flow.total.local_drops += 1;
        self.st.packets_in_flight = self.sb.in_flight();
        if matches!(self.st.ca_state, CaState::Open | CaState::Disorder) {
            self.begin_reduction(CaState::Cwr);
            self.send_cwr |= self.opts.ecn;
        }
    }

    /// The send buffer is full: Linux's autotuned `sk_sndbuf` (twice cwnd's worth of skbs,
    /// never the limit below `tcp_wmem[2]`) holds the data outstanding at its truesize, and the
    /// application stops writing at two thirds of it. A SACKed segment costs only its payload:
    /// Linux moves the pages of a newly SACKed skb into the SACKed skb before it and frees the
    /// empty one (`tcp_shift_skb_data`, counted as `TCPSackMerged`), so during a recovery the
    /// application writes, and the sender sends, new data beside the holes.
    fn send_buffer_full(&self) -> bool {
        let unsacked = u64::from(self.sb.packets_out() - self.sb.sacked_out + 1);
        let queued =
            unsacked * truesize(self.opts.mss + TCP_HEADER) + u64::from(self.sb.sacked_out) * u64::from(self.opts.mss);
        queued * WRITABLE_DEN > self.opts.wmem[2] * WRITABLE_NUM
    }

    /// Linux `tcp_snd_wnd_test`: the next new segment must fit wholly in the peer's window.
    fn fits_peer_window(&self) -> bool {
        let len = (self.app_end - self.snd_nxt).min(self.opts.mss as u64);
        self.snd_nxt + len <= self.snd_una.saturating_add(self.rwnd)
    }

    fn data_packet(&mut self, seq: u64, len: u32) -> Packet {
        let mut flags = flags::ACK;
        if self.send_cwr {
            flags |= flags::CWR;
            self.send_cwr = false;
        }
        if self.closed && seq + u64::from(len) == self.app_end {
            flags |= flags::FIN;
        }
        let ecn = if self.opts.ecn { Ecn::Ect0 } else { Ecn::NotEct };
        let size = len + TCP_HEADER;
        self.wmem_alloc += truesize(size);
        let seg = TcpSegment { seq, len, flags, tsval: self.st.now, tsecr: self.ts_recent, ..Default::default() };
        Packet { charged: true, ..self.packet(size, ecn, seg) }
    }

    /// Send the next new segment.
    fn send_new(&mut self, ctx: &mut Ctx) {
        let now = ctx.now;
        if self.sb.is_empty() && self.last_send > 0 {
            self.restart_after_idle(now - self.last_send);
        }
        let len = (self.app_end - self.snd_nxt).min(self.opts.mss as u64) as u32;
        let packets_out = self.sb.packets_out();
        let snap = self.rate.on_send(now, packets_out, self.sb.in_flight() + 1);
        self.sb.push(Segment {
            start: self.snd_nxt,
            end: self.snd_nxt + len as u64,
            sent_at: now,
            ever_retransmitted: false,
            sacked: false,
            lost: false,
            retrans_in_flight: false,
            snap,
        });
        let pkt = self.data_packet(self.snd_nxt, len);
        self.pace(self.snd_nxt, len, now);
        self.snd_nxt += len as u64;
        ctx.flow.total.data_segs_out += 1;
        ctx.out.push(pkt);
    }

    /// Retransmit the segment at `idx`, a lost one (`repair`) or a tail loss probe, which
    /// stays counted in flight as it was.
    fn retransmit(&mut self, idx: usize, repair: bool, ctx: &mut Ctx) {
        let now = ctx.now;
        let packets_out = self.sb.packets_out();
        let in_flight_after = self.sb.in_flight() + u32::from(repair);
        let snap = self.rate.on_send(now, packets_out, in_flight_after);
        let seg = self.sb.get_mut(idx);
        seg.sent_at = now;
        seg.ever_retransmitted = true;
        seg.retrans_in_flight |= repair;
        seg.snap = snap;
        let (seq, len) = (seg.start, seg.len() as u32);
        if repair {
            self.sb.retrans_out += 1;
        }
        self.count_retransmission_for_undo();
        ctx.flow.total.retransmits += 1;
        ctx.flow.total.data_segs_out += 1;
        let pkt = self.data_packet(seq, len);
        self.pace(seq, len, now);
        ctx.out.push(pkt);
    }

    /// Linux `tcp_cwnd_restart`: halve cwnd for every RTO of idle time, down to the initial
    /// window, and let the algorithm shift its epoch.
    fn restart_after_idle(&mut self, idle: Time) {
        self.cc.on_tx_restart(&mut self.st, idle);
        if self.cc.owns_cwnd() {
            return;
        }
        let restart_cwnd = self.opts.initial_cwnd.min(self.st.cwnd);
        let rto = self.rtt.rto().max(1);
        let mut remaining = idle as i64 - rto as i64;
        while remaining > 0 && self.st.cwnd > restart_cwnd {
            self.st.cwnd >>= 1;
            remaining -= rto as i64;
        }
        self.st.cwnd = self.st.cwnd.max(restart_cwnd);
    }

    fn complete(&mut self, ctx: &mut Ctx) {
        self.phase = Phase::Done;
        self.rto_timer.cancel();
        self.pace_timer.cancel();
        ctx.flow.conn_closed(ctx.now);
    }
}

/// The RTTs of the original transmissions one ACK delivered: the oldest and the newest.
#[derive(Default)]
struct RttSpan {
    oldest: Option<Time>,
    newest: Option<Time>,
}

impl RttSpan {
    fn add(&mut self, rtt: Time) {
        self.oldest = Some(self.oldest.map_or(rtt, |r| r.max(rtt)));
        self.newest = Some(self.newest.map_or(rtt, |r| r.min(rtt)));
    }
}
