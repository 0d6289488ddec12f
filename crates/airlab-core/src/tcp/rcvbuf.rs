//! The receive buffer and the window it advertises, with Linux's autotuning (dynamic
//! right-sizing, `tcp_rcv_space_adjust`): once per receiver RTT the buffer grows to hold twice
//! what the application read in the last RTT, plus a margin for a sender still speeding up,
//! bounded by `tcp_rmem[2]`. Half of the buffer is advertised as window (Linux's
//! `tcp_adv_win_scale` = 1; 6.6+ uses the measured payload/truesize ratio, about the same for
//! full-size segments).

use crate::sim::Time;

/// Linux `TCP_INIT_CWND`: the first measurement's target is ten segments.
const INIT_SEGMENTS: u64 = 10;

#[derive(Clone, Debug)]
pub struct RcvBuf {
    /// SO_RCVBUF was set: the window never changes.
    locked: bool,
    max: u64,
    /// The buffer (Linux `sk_rcvbuf`).
    pub size: u64,
    /// Bytes read in the last measured RTT (`rcvq_space.space`), and where and when the
    /// current measurement began.
    space: u64,
    space_seq: u64,
    space_time: Time,
    /// The receiver's RTT estimate from timestamp echoes (`rcv_rtt_est`): a lower sample is
    /// taken at once, a higher one with gain 1/8.
    rtt: Time,
    mss: u64,
}

impl RcvBuf {
    /// A buffer of `rmem` (min, default, max) autotuned, or a fixed window of `fixed` bytes.
    pub fn new(rmem: [u64; 3], fixed: Option<u64>, mss: u32) -> Self {
        let mss = u64::from(mss);
        let (size, locked) = match fixed {
            Some(window) => (2 * window, true),
            None => (rmem[1], false),
        };
        let space = (size / 2).min(INIT_SEGMENTS * mss);
        RcvBuf { locked, max: rmem[2], size, space, space_seq: 0, space_time: 0, rtt: 0, mss }
    }

    /// The window to advertise.
    pub fn window(&self) -> u64 {
        self.size / 2
    }

    /// A full-sized segment echoed `tsecr`, the time one of our ACKs left: an RTT sample.
    pub fn on_timestamp_echo(&mut self, now: Time, tsecr: Time) {
        if tsecr > 0 && now > tsecr {
            let sample = now - tsecr;
            self.rtt = if self.rtt == 0 || sample < self.rtt { sample } else { self.rtt + (sample - self.rtt) / 8 };
        }
    }

    /// The application has read everything below `copied` at `now` (Linux
    /// `tcp_rcv_space_adjust`).
    pub fn on_read(&mut self, now: Time, copied: u64) {
        if self.rtt == 0 || now - self.space_time < self.rtt {
            return;
        }
        let read = copied - self.space_seq;
        if read > self.space {
            if !self.locked {
                // Twice the last RTT's reading plus 16 segments, and more in proportion to
                // how much faster the sender became (slow start).
                let mut window = 2 * read + 16 * self.mss;
                window += 2 * (window * (read - self.space) / self.space);
                self.size = self.size.max((2 * window).min(self.max));
            }
            self.space = read;
        }
        self.space_seq = copied;
        self.space_time = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MS;

    /// A reader whose rate doubles every 50 ms RTT, as under slow start: the window stays
    /// ahead of what one RTT delivers, growing by about four times per RTT, up to rmem[2].
    #[test]
    fn the_window_grows_ahead_of_a_doubling_sender_up_to_rmem_max() {
        let mss = 1448;
        let mut buf = RcvBuf::new([4096, 131072, 6 << 20], None, mss);
        assert_eq!(buf.window(), 65536, "half of tcp_rmem[1]");
        buf.on_timestamp_echo(60 * MS, 10 * MS);
        let (mut copied, mut per_rtt) = (0, 10 * u64::from(mss));
        let mut windows = vec![];
        for k in 1..=10 {
            copied += per_rtt;
            buf.on_read(k * 50 * MS, copied);
            assert!(buf.window() >= per_rtt.min(3 << 20), "round {k}: window {} < {per_rtt}", buf.window());
            windows.push(buf.window());
            per_rtt *= 2;
        }
        // Round 1 reads 10 segments, no more than the first target: the window stays.
        assert_eq!(windows[0], 65536);
        // Round 2: read 20 segments = 28960 B vs 14480 B before: window 2 x 28960 + 16 MSS =
        // 81088, plus 2 x 81088 x (28960 - 14480) / 14480 = 162176: 243264 B advertised.
        assert_eq!(windows[1], 243264);
        assert_eq!(*windows.last().unwrap(), 3 << 20, "capped at half of tcp_rmem[2]");
    }

    #[test]
    fn a_fixed_window_never_moves() {
        let mut buf = RcvBuf::new([4096, 131072, 6 << 20], Some(65536), 1448);
        buf.on_timestamp_echo(60 * MS, 10 * MS);
        buf.on_read(100 * MS, 10 << 20);
        assert_eq!(buf.window(), 65536);
    }
}
