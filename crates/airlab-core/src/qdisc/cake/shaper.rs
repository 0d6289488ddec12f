//! CAKE's deficit-mode shaper: instead of a token bucket (which needs a burst size), each
//! packet sent pushes the earliest departure of the next one forward by its own serialization
//! time at the configured rate, so the output rate is exact and bursts are at most what the
//! caller's scheduling latency lets through (none, in a simulator).

use crate::sim::{Time, SEC};

/// Linux's MTU for the shaper's per-MTU quantities (`psched_mtu`: 1500 + 14-byte Ethernet).
pub const MTU: u32 = 1514;

/// A rate as time per byte, in Q32 fixed point (Linux keeps it as ns per byte with a shift; a
/// 128-bit product lets one shift serve every rate without overflow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteTime {
    ns_per_byte_q32: u128,
    /// The rate in bytes per second, which Linux derives CAKE's per-tin quantum from.
    pub bytes_per_sec: u64,
}

impl ByteTime {
    pub fn new(rate_bps: u64) -> Self {
        let rate_bps = rate_bps.max(1);
        ByteTime { ns_per_byte_q32: ((8 * SEC as u128) << 32) / rate_bps as u128, bytes_per_sec: rate_bps / 8 }
    }

    /// Time to send `len` bytes at this rate.
    pub fn duration(&self, len: u32) -> Time {
        ((len as u128 * self.ns_per_byte_q32) >> 32) as Time
    }
}

/// The bytes a packet of IP length `size` costs on the shaped link: per-packet framing
/// `overhead` (negative to take headers away), and at least `mpu`, the minimum packet unit.
pub fn adjusted_len(size: u32, overhead: i32, mpu: u32) -> u32 {
    let len = (size as i64 + overhead as i64).max(1) as u32;
    len.max(mpu)
}

/// The earliest time the next packet may leave, for the whole qdisc or one tin.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub rate: ByteTime,
    pub time_next_packet: Time,
}

impl Schedule {
    pub fn new(rate: ByteTime) -> Self {
        Schedule { rate, time_next_packet: 0 }
    }

    /// A schedule in the past means an idle link: restart it at `now` so that idleness does
    /// not accumulate into credit for a burst.
    pub fn restart(&mut self, now: Time) {
        self.time_next_packet = self.time_next_packet.max(now);
    }

    /// The global shaper: the next packet leaves one serialization time after this one's slot.
    pub fn advance(&mut self, len: u32) {
        self.time_next_packet += self.rate.duration(len);
    }

    /// A tin's schedule (Linux `cake_advance_shaper`): a tin running behind catches up slot by
    /// slot, one ahead of `now` moves to at least `now` plus this packet's time. A tin above
    /// its threshold rate thereby loses its priority until its schedule comes due again.
    pub fn advance_tin(&mut self, len: u32, now: Time) {
        let dur = self.rate.duration(len);
        if self.time_next_packet < now {
            self.time_next_packet += dur;
        } else if self.time_next_packet < now + dur {
            self.time_next_packet = now + dur;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::US;

    #[test]
    fn durations_are_exact_serialization_times() {
        let r = ByteTime::new(8_000_000);
        assert_eq!(r.duration(1000), 1000 * US);
        assert_eq!(r.duration(1538), 1538 * US);
        let r = ByteTime::new(10_000_000);
        assert_eq!(r.duration(1500), 1200 * US);
        assert_eq!(r.bytes_per_sec, 1_250_000);
        // 1 byte at 3 bit/s is 8/3 s; the fixed point is within a nanosecond.
        assert!(ByteTime::new(3).duration(1).abs_diff(8 * SEC / 3) <= 1);
    }

    #[test]
    fn overhead_and_mpu() {
        assert_eq!(adjusted_len(1500, 38, 0), 1538);
        assert_eq!(adjusted_len(40, 18, 84), 84);
        assert_eq!(adjusted_len(100, -14, 0), 86);
    }
}
