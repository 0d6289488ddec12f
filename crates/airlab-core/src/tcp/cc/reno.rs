//! NewReno window control as in Linux `tcp_reno`: slow start up to ssthresh, then one segment
//! per cwnd of ACKed segments, and a halving of cwnd on loss. The NewReno part (partial ACKs
//! during recovery) lives in the socket's loss recovery, not here.

use super::{Build, CcState, Component, CongestionControl};
use crate::params::no_check;

/// Reno has no tunables.
pub static RENO: Component = Component {
    name: "reno",
    doc: "NewReno window control (Linux tcp_reno)",
    params: &[],
    check: no_check,
    build: Build(|_, _| Ok(Box::new(Reno))),
};

#[derive(Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn cong_avoid(&mut self, s: &mut CcState, acked: u32) {
        // An application-limited flow has not proven the network can take a larger window.
        if !s.is_cwnd_limited {
            return;
        }
        let mut acked = acked;
        if s.in_slow_start() {
            acked = s.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        let cwnd = s.cwnd;
        s.cong_avoid_ai(cwnd, acked);
    }

    fn ssthresh(&mut self, s: &CcState) -> u32 {
        (s.cwnd / 2).max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(cwnd: u32, ssthresh: u32) -> CcState {
        let mut s = CcState::new(1448, cwnd);
        s.ssthresh = ssthresh;
        s
    }

    /// Feed one round of ACKs, one per segment of the window at the round's start.
    fn ack_round(cc: &mut Reno, s: &mut CcState) {
        for _ in 0..s.cwnd {
            cc.cong_avoid(s, 1);
        }
    }

    #[test]
    fn slow_start_doubles_per_round_and_stops_at_ssthresh() {
        let mut cc = Reno;
        let mut s = state(10, 64);
        ack_round(&mut cc, &mut s);
        assert_eq!(s.cwnd, 20);
        ack_round(&mut cc, &mut s);
        assert_eq!(s.cwnd, 40);
        ack_round(&mut cc, &mut s);
        // 64 reached by slow start; the 16 ACKs left add 16/64 of a segment in CA.
        assert_eq!(s.cwnd, 64);
        assert_eq!(s.cwnd_cnt, 16);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window_of_acks() {
        let mut cc = Reno;
        let mut s = state(50, 50);
        for round in 1..=5 {
            ack_round(&mut cc, &mut s);
            assert_eq!(s.cwnd, 50 + round);
        }
    }

    #[test]
    fn no_growth_when_application_limited() {
        let mut cc = Reno;
        let mut s = state(10, 64);
        s.is_cwnd_limited = false;
        ack_round(&mut cc, &mut s);
        assert_eq!(s.cwnd, 10);
    }

    #[test]
    fn loss_halves_the_window_with_a_floor_of_two() {
        let mut cc = Reno;
        assert_eq!(cc.ssthresh(&state(100, 50)), 50);
        assert_eq!(cc.ssthresh(&state(33, 50)), 16);
        assert_eq!(cc.ssthresh(&state(3, 50)), 2);
    }
}
