//! The receive buffer and the window it advertises, as Linux: autotuning (dynamic right-sizing,
//! `tcp_rcv_space_adjust`) grows the buffer once per receiver RTT to hold twice what the
//! application read in the last RTT, plus a margin for a sender still speeding up, bounded by
//! `tcp_rmem[2]`; a share of the buffer (the profile's window ratio: Linux 6.6+'s payload over
//! truesize, or `tcp_adv_win_scale`'s 1/2 before) may be advertised. The advertised window
//! itself opens more slowly (`rcv_ssthresh`, `tcp_grow_window`): it starts at the largest
//! multiple of the MSS that fits the SYN's 16-bit field and grows by two segments per full
//! segment received while the buffer allows more. Every segment that grows it is acknowledged
//! at once (Linux sets quick-ACK mode), which in slow start gives one ACK per segment.

use crate::sim::Time;

/// Linux `TCP_INIT_CWND`: the first measurement's target is ten segments.
const INIT_SEGMENTS: u64 = 10;
/// The largest window a SYN can carry (window scaling applies after the handshake).
const SYN_WINDOW_MAX: u64 = 65535;

#[derive(Clone, Debug)]
pub struct RcvBuf {
    /// SO_RCVBUF was set: this window, always.
    fixed: Option<u64>,
    max: u64,
    /// The buffer (Linux `sk_rcvbuf`).
    pub size: u64,
    /// The share of the buffer that may be advertised.
    ratio: f64,
    /// The window as opened so far (Linux `rcv_ssthresh`).
    ssthresh: u64,
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
    /// A buffer of `rmem` (min, default, max) autotuned, advertising `ratio` of itself, or a
    /// fixed window of `fixed` bytes.
    pub fn new(rmem: [u64; 3], ratio: f64, fixed: Option<u64>, mss: u32) -> Self {
        let mss = u64::from(mss);
        let size = rmem[1];
        let cap = (size as f64 * ratio) as u64;
        let ssthresh = cap.min(SYN_WINDOW_MAX) / mss * mss;
        let space = ssthresh.min(INIT_SEGMENTS * mss);
        RcvBuf { fixed, max: rmem[2], size, ratio, ssthresh, space, space_seq: 0, space_time: 0, rtt: 0, mss }
    }

    /// The most the buffer lets the window open to (Linux `tcp_win_from_space(sk_rcvbuf)`;
    /// the application reads at once, so the buffer is free).
    fn cap(&self) -> u64 {
        (self.size as f64 * self.ratio) as u64
    }

    /// The window to advertise.
    pub fn window(&self) -> u64 {
        self.fixed.unwrap_or_else(|| self.ssthresh.min(self.cap()))
    }

    /// An in-order segment of `len` bytes arrived (Linux `tcp_grow_window`, for segments of
    /// 128 bytes or more): open the window by two segments if the buffer allows. Returns
    /// whether it grew, in which case the segment is acknowledged at once.
    pub fn on_segment(&mut self, len: u64) -> bool {
        let room = self.cap().saturating_sub(self.ssthresh);
        if self.fixed.is_some() || len < 128 || room == 0 {
            return false;
        }
        self.ssthresh += room.min((2 * self.mss).max(2 * len));
        true
    }

    /// The receiver's RTT estimate from timestamps (Linux `rcv_rtt_est`), 0 before a sample.
    pub fn rtt(&self) -> Time {
        self.rtt
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
            if self.fixed.is_none() {
                // Twice the last RTT's reading plus 16 segments, and more in proportion to
                // how much faster the sender became (slow start).
                let mut window = 2 * read + 16 * self.mss;
                window += 2 * (window * (read - self.space) / self.space);
                // The buffer that advertises `window` (Linux `tcp_space_from_win`).
                self.size = self.size.max(((window as f64 / self.ratio) as u64).min(self.max));
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

    /// A reader whose rate doubles every 50 ms RTT, as under slow start: the buffer stays
    /// ahead of what one RTT delivers, growing by about four times per RTT, up to rmem[2].
    #[test]
    fn the_buffer_grows_ahead_of_a_doubling_sender_up_to_rmem_max() {
        let mss = 1448;
        let mut buf = RcvBuf::new([4096, 131072, 6 << 20], 0.5, None, mss);
        assert_eq!(buf.cap(), 65536, "half of tcp_rmem[1]");
        buf.on_timestamp_echo(60 * MS, 10 * MS);
        let (mut copied, mut per_rtt) = (0, 10 * u64::from(mss));
        let mut caps = vec![];
        for k in 1..=10 {
            copied += per_rtt;
            buf.on_read(k * 50 * MS, copied);
            assert!(buf.cap() >= per_rtt.min(3 << 20), "round {k}: cap {} < {per_rtt}", buf.cap());
            caps.push(buf.cap());
            per_rtt *= 2;
        }
        // Round 1 reads 10 segments, no more than the first target: the buffer stays.
        assert_eq!(caps[0], 65536);
        // Round 2: read 20 segments = 28960 B vs 14480 B before: window 2 x 28960 + 16 MSS =
        // 81088, plus 2 x 81088 x (28960 - 14480) / 14480 = 162176: a buffer for 243264 B.
        assert_eq!(caps[1], 243264);
        assert_eq!(*caps.last().unwrap(), 3 << 20, "capped at half of tcp_rmem[2]");
    }

    /// The testbed kernel (6.18, tcp_rmem[1] = 131072) offers 65160 B in its SYN-ACK, then
    /// 67, 70, 73, 75, 78, 79 x 1024 B on the ACKs of the first six segments, one ACK each,
    /// and 79 x 1024 B from then on until autotuning enlarges the buffer.
    #[test]
    fn the_window_opens_by_two_segments_per_segment_up_to_the_buffer() {
        let mut buf = RcvBuf::new([4096, 131072, 32 << 20], 0.62, None, 1448);
        assert_eq!(buf.window(), 65160, "45 segments: the most a SYN can offer");
        let mut grew = vec![];
        for _ in 0..8 {
            grew.push(buf.on_segment(1448));
        }
        assert_eq!(grew, [true, true, true, true, true, true, false, false]);
        // 131072 x 0.62 = 81264 B = 79.4 x 1024.
        assert_eq!(buf.window(), 81264);
        assert!(!buf.on_segment(100), "short segments do not open the window");
    }

    #[test]
    fn a_fixed_window_never_moves() {
        let mut buf = RcvBuf::new([4096, 131072, 6 << 20], 0.62, Some(65536), 1448);
        buf.on_timestamp_echo(60 * MS, 10 * MS);
        buf.on_read(100 * MS, 10 << 20);
        assert!(!buf.on_segment(1448));
        assert_eq!(buf.window(), 65536);
    }
}
