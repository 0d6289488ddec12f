//! The sender's retransmission queue with SACK state (RFC 2018, RFC 6675).
//!
//! Segments are kept in sequence order. Counters follow Linux so that
//! in_flight = packets_out - (sacked_out + lost_out) + retrans_out  (`tcp_packets_in_flight`).

use super::rate::TxSnapshot;
use crate::sim::Time;
use std::collections::VecDeque;

/// RFC 8985 `RACK_sent_after`: (t1, seq1) was sent after (t2, seq2). Transmission order, which
/// RACK and the scoreboard's walk over retransmissions both go by.
pub fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// RFC 6675 DupThresh, Linux's default `tp->reordering`.
pub const DUP_THRESH: u32 = 3;

#[derive(Clone, Debug)]
pub struct Segment {
    pub start: u64,
    pub end: u64,
    /// Time of the latest (re)transmission.
    pub sent_at: Time,
    /// Retransmitted at least once: no RTT sample from it (Karn's rule).
    pub ever_retransmitted: bool,
    pub sacked: bool,
    pub lost: bool,
    /// A retransmission is in flight (Linux `TCPCB_SACKED_RETRANS`).
    pub retrans_in_flight: bool,
    pub snap: TxSnapshot,
}

impl Segment {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// A segment newly delivered by an ACK, as the socket needs it for RTT and rate sampling.
#[derive(Clone, Copy, Debug)]
pub struct Delivered {
    pub sent_at: Time,
    pub end: u64,
    pub ever_retransmitted: bool,
    pub snap: TxSnapshot,
    pub cumulative: bool,
}

#[derive(Default)]
pub struct Scoreboard {
    segs: VecDeque<Segment>,
    pub sacked_out: u32,
    pub lost_out: u32,
    pub retrans_out: u32,
    /// SACK blocks of the previous ACK: parts of new blocks inside them are already marked.
    sack_cache: Vec<(u64, u64)>,
    /// End of the highest SACKed segment (RACK.fack).
    pub highest_sacked: u64,
}

impl Scoreboard {
    pub fn packets_out(&self) -> u32 {
        self.segs.len() as u32
    }

    pub fn in_flight(&self) -> u32 {
        self.packets_out() + self.retrans_out - (self.sacked_out + self.lost_out)
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn push(&mut self, seg: Segment) {
        self.segs.push_back(seg);
    }

    pub fn get_mut(&mut self, idx: usize) -> &mut Segment {
        &mut self.segs[idx]
    }

    /// Remove segments wholly below `ack`, reporting the ones not already SACKed.
    pub fn ack_up_to(&mut self, ack: u64, out: &mut Vec<Delivered>) {
        while let Some(front) = self.segs.front_mut() {
            if front.end <= ack {
                let seg = self.segs.pop_front().expect("front exists");
                self.forget(&seg);
                if !seg.sacked {
                    out.push(Delivered {
                        sent_at: seg.sent_at,
                        end: seg.end,
                        ever_retransmitted: seg.ever_retransmitted,
                        snap: seg.snap,
                        cumulative: true,
                    });
                }
            } else {
                if front.start < ack {
                    // A partial ACK inside a segment (only after MSS changes; kept for safety).
                    front.start = ack;
                }
                break;
            }
        }
    }

    fn forget(&mut self, seg: &Segment) {
        if seg.sacked {
            self.sacked_out -= 1;
        }
        if seg.lost {
            self.lost_out -= 1;
        }
        if seg.retrans_in_flight {
            self.retrans_out -= 1;
        }
    }

    /// Mark segments covered by the SACK blocks, reporting the newly SACKed ones.
    pub fn sack(&mut self, blocks: impl Iterator<Item = (u64, u64)>, out: &mut Vec<Delivered>) {
        let blocks: Vec<(u64, u64)> = blocks.collect();
        let cache = std::mem::replace(&mut self.sack_cache, blocks);
        for i in 0..self.sack_cache.len() {
            let (start, end) = self.sack_cache[i];
            self.mark_outside(&cache, start, end, out);
        }
    }

    /// Mark the parts of [start, end) outside the `cache` blocks, in sequence order: the block
    /// less the first cached one, then each remaining piece less the next, and so on.
    fn mark_outside(&mut self, cache: &[(u64, u64)], start: u64, end: u64, out: &mut Vec<Delivered>) {
        let Some((&(cs, ce), rest)) = cache.split_first() else {
            self.mark_sacked(start, end, out);
            return;
        };
        if ce <= start || cs >= end {
            self.mark_outside(rest, start, end, out);
            return;
        }
        if start < cs {
            self.mark_outside(rest, start, cs, out);
        }
        if ce < end {
            self.mark_outside(rest, ce, end, out);
        }
    }

    fn mark_sacked(&mut self, start: u64, end: u64, out: &mut Vec<Delivered>) {
        let mut i = self.segs.partition_point(|seg| seg.end <= start);
        while i < self.segs.len() && self.segs[i].start < end {
            let seg = &mut self.segs[i];
            if !seg.sacked && seg.start >= start && seg.end <= end {
                seg.sacked = true;
                self.sacked_out += 1;
                self.highest_sacked = self.highest_sacked.max(seg.end);
                if seg.lost {
                    seg.lost = false;
                    self.lost_out -= 1;
                }
                if seg.retrans_in_flight {
                    seg.retrans_in_flight = false;
                    self.retrans_out -= 1;
                }
                out.push(Delivered {
                    sent_at: seg.sent_at,
                    end: seg.end,
                    ever_retransmitted: seg.ever_retransmitted,
                    snap: seg.snap,
                    cumulative: false,
                });
            }
            i += 1;
        }
    }

    /// RFC 6675 IsLost: a segment is lost once DupThresh segments above it are SACKed.
    /// Returns the number of segments newly marked lost and appends their send snapshots to
    /// `lost`.
    pub fn mark_lost(&mut self, lost: &mut Vec<TxSnapshot>) -> u32 {
        if self.sacked_out < DUP_THRESH {
            return 0;
        }
        let mut sacked_seen = 0;
        let mut newly = 0;
        for seg in self.segs.iter_mut() {
            if seg.sacked {
                sacked_seen += 1;
                continue;
            }
            if self.sacked_out - sacked_seen < DUP_THRESH {
                break;
            }
            if !seg.lost {
                seg.lost = true;
                newly += 1;
                lost.push(seg.snap);
            }
        }
        self.lost_out += newly;
        newly
    }

    /// Retransmission timeout: every segment not SACKed is lost and no retransmission is in
    /// flight any more (Linux `tcp_enter_loss`). With RACK (`recent` = Some((now, RACK.rtt)))
    /// the segments after the first that were sent within the last RACK.rtt are spared: they
    /// may still arrive (Linux `tcp_timeout_mark_lost`). Returns the number newly marked lost.
    pub fn mark_all_lost(&mut self, recent: Option<(Time, Time)>, lost: &mut Vec<TxSnapshot>) -> u32 {
        let mut newly = 0;
        let mut retrans_cleared = 0;
        for (i, seg) in self.segs.iter_mut().enumerate() {
            if seg.sacked || recent.is_some_and(|(now, rtt)| i > 0 && seg.sent_at + rtt > now) {
                continue;
            }
            if seg.retrans_in_flight {
                seg.retrans_in_flight = false;
                retrans_cleared += 1;
            }
            if !seg.lost {
                seg.lost = true;
                newly += 1;
                lost.push(seg.snap);
            }
        }
        self.retrans_out -= retrans_cleared;
        self.lost_out += newly;
        newly
    }

    /// Whether [`Scoreboard::rack_mark_lost`] would stop at the first segment, marking nothing
    /// and asking for no timer: the oldest outstanding segment is an original transmission,
    /// neither SACKed nor marked lost, sent after (`xmit_ts`, `end_seq`).
    pub fn rack_stops_at_oldest(&self, xmit_ts: Time, end_seq: u64) -> bool {
        self.segs.front().is_none_or(|seg| {
            !seg.sacked && !seg.lost && !seg.ever_retransmitted && !sent_after(xmit_ts, end_seq, seg.sent_at, seg.end)
        })
    }

    /// RACK's loss marking (RFC 8985 step 5, Linux `tcp_rack_detect_loss`): each segment not
    /// SACKed, sent before (`xmit_ts`, `end_seq`) and at least `wait` (RACK.rtt + reo_wnd) ago
    /// is lost; a lost retransmission makes its segment due again. Returns how many segments
    /// were marked (lost retransmissions included) and, if some qualify but are not old enough
    /// yet, the time until the last of them is.
    pub fn rack_mark_lost(
        &mut self,
        xmit_ts: Time,
        end_seq: u64,
        wait: Time,
        now: Time,
        lost: &mut Vec<TxSnapshot>,
    ) -> (u32, Option<Time>) {
        let (mut newly_lost, mut retrans_lost, mut timeout) = (0, 0, None);
        for seg in self.segs.iter_mut() {
            if seg.sacked || (seg.lost && !seg.retrans_in_flight) {
                continue;
            }
            if !sent_after(xmit_ts, end_seq, seg.sent_at, seg.end) {
                // Original transmissions go out in sequence order, so every later one was
                // sent after this one; only retransmissions can be older further on.
                if seg.ever_retransmitted {
                    continue;
                }
                break;
            }
            let due = seg.sent_at + wait;
            if due > now {
                timeout = Some(timeout.map_or(due - now, |t: Time| t.max(due - now)));
                continue;
            }
            if seg.lost {
                seg.retrans_in_flight = false;
                retrans_lost += 1;
            } else {
                seg.lost = true;
                newly_lost += 1;
            }
            lost.push(seg.snap);
        }
        self.lost_out += newly_lost;
        self.retrans_out -= retrans_lost;
        (newly_lost + retrans_lost, timeout)
    }

    /// A timeout proved spurious: no segment is lost after all (Linux clears `TCPCB_LOST`).
    pub fn unmark_lost(&mut self) {
        for seg in self.segs.iter_mut() {
            seg.lost = false;
        }
        self.lost_out = 0;
    }

    /// When the oldest outstanding segment was last sent (0 if none is).
    pub fn oldest_sent_at(&self) -> Time {
        self.segs.front().map_or(0, |s| s.sent_at)
    }

    /// The highest segment sent (for a tail loss probe to retransmit).
    pub fn last_index(&self) -> Option<usize> {
        self.segs.len().checked_sub(1)
    }

    /// Take back the newest segment if it is new data starting at `seq` that was never sent
    /// (the local qdisc refused it). Returns whether it was.
    pub fn pop_new(&mut self, seq: u64) -> bool {
        let is_it = self.segs.back().is_some_and(|s| s.start == seq && !s.ever_retransmitted);
        if is_it {
            self.segs.pop_back();
        }
        is_it
    }

    /// The retransmission of the segment starting at `seq` never left the host: it is due
    /// again.
    pub fn cancel_retransmission(&mut self, seq: u64) {
        let i = self.segs.partition_point(|s| s.end <= seq);
        if let Some(seg) = self.segs.get_mut(i).filter(|s| s.start == seq && s.retrans_in_flight) {
            seg.retrans_in_flight = false;
            self.retrans_out -= 1;
        }
    }

    /// RFC 6675 NextSeg rule 1: the first lost segment without a retransmission in flight.
    pub fn next_retransmission(&self) -> Option<usize> {
        // A retransmitted segment stays `lost` until it is ACKed or SACKed, as in Linux, so
        // when every lost segment has a retransmission in flight there is nothing to resend.
        if self.lost_out <= self.retrans_out {
            return None;
        }
        self.segs.iter().position(|s| s.lost && !s.retrans_in_flight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut sb = Scoreboard::default();
        for i in 0..n {
            sb.push(Segment {
                start: i * 100,
                end: (i + 1) * 100,
                sent_at: i,
                ever_retransmitted: false,
                sacked: false,
                lost: false,
                retrans_in_flight: false,
                snap: TxSnapshot::default(),
            });
        }
        sb
    }

    #[test]
    fn three_sacks_above_a_hole_mark_it_lost() {
        let mut sb = board(10);
        let mut out = Vec::new();
        sb.sack([(100, 300)].into_iter(), &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(sb.mark_lost(&mut Vec::new()), 0, "two SACKed segments are not enough");
        sb.sack([(100, 400)].into_iter(), &mut out);
        assert_eq!(out.len(), 3, "the SACK cache avoids re-reporting");
        let mut lost = Vec::new();
        assert_eq!(sb.mark_lost(&mut lost), 1);
        assert_eq!(lost.len(), 1);
        assert_eq!(sb.lost_out, 1);
        assert_eq!(sb.next_retransmission(), Some(0));
        // 10 out, 3 sacked, 1 lost: 6 in flight.
        assert_eq!(sb.in_flight(), 6);
    }

    /// A block that spans a cached one reports the parts on either side, in sequence order.
    #[test]
    fn a_sack_block_around_a_cached_one_reports_both_sides_in_order() {
        let mut sb = board(10);
        let mut out = Vec::new();
        sb.sack([(300, 500)].into_iter(), &mut out);
        out.clear();
        sb.sack([(100, 700), (300, 500)].into_iter(), &mut out);
        assert_eq!(out.iter().map(|d| d.end).collect::<Vec<_>>(), [200, 300, 600, 700]);
        assert_eq!(sb.sacked_out, 6);
    }

    /// RACK's walk stops at an oldest segment sent after RACK's: nothing marked, no timer.
    /// Once that segment is older, or a retransmission, the walk has to look.
    #[test]
    fn rack_stops_at_an_oldest_segment_sent_after_its_own() {
        let mut sb = board(4);
        // RACK at segment 0 (sent at 0, ending at 100): segment 1 is the oldest after an ACK.
        sb.ack_up_to(100, &mut Vec::new());
        assert!(sb.rack_stops_at_oldest(0, 100));
        assert_eq!(sb.rack_mark_lost(0, 100, 0, 10, &mut Vec::new()), (0, None));
        // RACK at segment 3 (SACKed): segments 1 and 2 were sent before it.
        sb.sack([(300, 400)].into_iter(), &mut Vec::new());
        assert!(!sb.rack_stops_at_oldest(3, 400));
        assert_eq!(sb.rack_mark_lost(3, 400, 0, 10, &mut Vec::new()), (2, None));
        let mut sb = board(2);
        sb.get_mut(0).ever_retransmitted = true;
        assert!(!sb.rack_stops_at_oldest(0, 0));
    }

    #[test]
    fn cumulative_ack_removes_and_reports_unsacked_only() {
        let mut sb = board(5);
        let mut out = Vec::new();
        sb.sack([(200, 300)].into_iter(), &mut out);
        out.clear();
        sb.ack_up_to(400, &mut out);
        assert_eq!(out.len(), 3);
        assert_eq!(sb.packets_out(), 1);
        assert_eq!(sb.sacked_out, 0);
    }

    #[test]
    fn timeout_marks_everything_unsacked_lost() {
        let mut sb = board(4);
        let mut out = Vec::new();
        sb.sack([(300, 400)].into_iter(), &mut out);
        assert_eq!(sb.mark_all_lost(None, &mut Vec::new()), 3);
        assert_eq!(sb.in_flight(), 0);
    }
}
