//! RACK: time-based loss detection (RFC 8985 section 6, Linux `tcp_recovery.c`).
//!
//! A segment is lost once a segment sent after it has been delivered and more than one RTT
//! plus a reordering window has passed since it was sent. Unlike counting duplicate ACKs, this
//! also finds lost retransmissions and losses at the tail of a flight, with a timer for the
//! segments not yet old enough.

use super::scoreboard::{sent_after, Delivered};
use crate::sim::Time;

/// Linux `TCP_RACK_RECOVERY_THRESH`: a DSACK-widened window is kept for this many recoveries.
const REO_WND_PERSIST: u32 = 16;

/// The connection's RACK state.
#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// Send time and end of the most recently sent segment delivered so far (RACK.xmit_ts,
    /// RACK.end_seq).
    pub xmit_ts: Time,
    pub end_seq: u64,
    /// RTT of the newest segment delivered by the latest ACK that moved RACK (RACK.rtt).
    pub rtt: Time,
    /// Reordering was observed on this connection (RACK.reordering_seen, Linux `reord_seen`).
    pub reordering_seen: bool,
    /// The window is `steps` quarters of min_rtt (Linux `reo_wnd_steps`), widened by DSACKs.
    steps: u32,
    /// Recoveries left before the window shrinks back to one step.
    persist: u32,
    /// snd_nxt when the window was last widened: at most one widening per round trip.
    widened_until: u64,
}

impl Rack {
    pub fn new() -> Self {
        Rack { steps: 1, ..Default::default() }
    }

    /// RFC 8985 step 2 (`RACK_update`) over the segments one ACK delivered. A retransmitted
    /// segment whose RTT is below min_rtt was delivered by its original transmission: it tells
    /// nothing about the retransmission's time and is skipped (Linux `tcp_rack_advance`).
    /// Returns whether a segment counted (Linux `rack.advanced`): only then may losses be
    /// detected.
    pub fn update(&mut self, delivered: &[Delivered], now: Time, min_rtt: Time) -> bool {
        let newest = delivered
            .iter()
            .filter(|d| !(d.ever_retransmitted && now - d.sent_at < min_rtt))
            .max_by(|a, b| a.sent_at.cmp(&b.sent_at).then(a.end.cmp(&b.end)));
        if let Some(d) = newest {
            self.rtt = now - d.sent_at;
            if sent_after(d.sent_at, d.end, self.xmit_ts, self.end_seq) {
                self.xmit_ts = d.sent_at;
                self.end_seq = d.end;
            }
        }
        newest.is_some()
    }

    /// RFC 8985 step 4 with Linux's choices (`tcp_rack_reo_wnd`): no reordering seen, so no
    /// patience once in recovery or once `dup_thresh` segments are SACKed (the duplicate-ACK
    /// rule); otherwise a quarter of min_rtt per step, at most the smoothed RTT.
    pub fn reo_wnd(&self, in_recovery: bool, sacked_out: u32, dup_thresh: u32, min_rtt: Time, srtt: Time) -> Time {
        if !self.reordering_seen && (in_recovery || sacked_out >= dup_thresh) {
            return 0;
        }
        (min_rtt / 4 * Time::from(self.steps)).min(srtt)
    }

    /// A DSACK arrived (RFC 8985 step 4): widen the window by one step, once per round trip,
    /// and keep it for the next 16 recoveries. `snd_una` and `snd_nxt` delimit the round.
    pub fn on_dsack(&mut self, snd_una: u64, snd_nxt: u64) {
        if snd_una < self.widened_until {
            return;
        }
        self.steps = (self.steps + 1).min(u32::from(u8::MAX));
        self.persist = REO_WND_PERSIST;
        self.widened_until = snd_nxt;
    }

    /// A recovery episode ended: a widened window decays after 16 of them without DSACKs.
    pub fn on_recovery_end(&mut self) {
        if self.persist > 0 {
            self.persist -= 1;
            if self.persist == 0 {
                self.steps = 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MS;
    use crate::tcp::rate::TxSnapshot;

    fn delivered(sent_at: Time, end: u64, retransmitted: bool) -> Delivered {
        Delivered { sent_at, end, ever_retransmitted: retransmitted, snap: TxSnapshot::default(), cumulative: false }
    }

    #[test]
    fn the_newest_delivered_segment_sets_xmit_ts_and_rtt() {
        let mut r = Rack::new();
        r.update(&[delivered(10 * MS, 1000, false), delivered(12 * MS, 2000, false)], 60 * MS, 40 * MS);
        assert_eq!((r.xmit_ts, r.end_seq, r.rtt), (12 * MS, 2000, 48 * MS));
        // An older segment delivered later keeps xmit_ts but sets the RTT (RFC 8985 step 2).
        r.update(&[delivered(11 * MS, 1500, false)], 70 * MS, 40 * MS);
        assert_eq!((r.xmit_ts, r.rtt), (12 * MS, 59 * MS));
    }

    #[test]
    fn a_retransmission_acked_faster_than_min_rtt_is_ignored() {
        let mut r = Rack::new();
        r.update(&[delivered(50 * MS, 1000, true)], 60 * MS, 40 * MS);
        assert_eq!(r.xmit_ts, 0, "10 ms < min_rtt: the original was delivered");
        r.update(&[delivered(50 * MS, 1000, true)], 95 * MS, 40 * MS);
        assert_eq!((r.xmit_ts, r.rtt), (50 * MS, 45 * MS));
    }

    #[test]
    fn the_reordering_window_follows_linux() {
        let mut r = Rack::new();
        let (min_rtt, srtt) = (40 * MS, 60 * MS);
        assert_eq!(r.reo_wnd(false, 1, 3, min_rtt, srtt), 10 * MS, "min_rtt / 4");
        assert_eq!(r.reo_wnd(false, 3, 3, min_rtt, srtt), 0, "three SACKs: the dupthresh rule");
        assert_eq!(r.reo_wnd(true, 1, 3, min_rtt, srtt), 0, "in recovery");
        r.reordering_seen = true;
        assert_eq!(r.reo_wnd(true, 5, 3, min_rtt, srtt), 10 * MS, "reordering seen: always patient");
        // DSACKs widen it a step per round trip, up to srtt.
        r.on_dsack(0, 100);
        r.on_dsack(50, 100);
        assert_eq!(r.reo_wnd(false, 0, 3, min_rtt, srtt), 20 * MS);
        r.on_dsack(100, 200);
        r.on_dsack(200, 300);
        r.on_dsack(300, 400);
        r.on_dsack(400, 500);
        assert_eq!(r.reo_wnd(false, 0, 3, min_rtt, srtt), srtt);
        for _ in 0..REO_WND_PERSIST {
            r.on_recovery_end();
        }
        assert_eq!(r.reo_wnd(false, 0, 3, min_rtt, srtt), 10 * MS, "back to one step");
    }
}
