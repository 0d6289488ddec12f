//! COBALT ("CoDel + BLUE Alternate"), CAKE's per-flow AQM, as Linux `sch_cake.c` implements it.
//!
//! CoDel part: once the sojourn time stays above `target`, signal (ECN mark or drop) first one
//! `interval` later, then at `interval / sqrt(count)` spacings. Unlike reference CoDel, the
//! count decays one step per `interval / sqrt(count)` while the flow is below target or empty,
//! instead of being reset. BLUE part: when the flow overflows the buffer its drop probability
//! `p_drop` rises by 1/256 (at most once per `target`); when it is found empty it falls by
//! 1/4096. BLUE drops never mark: it exists for flows that ignore CoDel's signals.

use crate::sim::{Rng, Time};

/// BLUE increment per overflow, 1/256 of a 32-bit probability (Linux `p_inc = 1 << 24`).
const P_INC: u32 = 1 << 24;
/// BLUE decrement per empty-queue event, 1/4096 (Linux `p_dec = 1 << 20`).
const P_DEC: u32 = 1 << 20;

/// The per-tin constants COBALT runs with.
#[derive(Clone, Copy, Debug)]
pub struct CobaltParams {
    pub target: Time,
    pub interval: Time,
    /// Serialization time of one MTU at the tin's rate (0 when unshaped): COBALT never signals
    /// while the sojourn is below 4 of them, so that a slow link is not mistaken for a queue.
    pub mtu_time: Time,
}

/// What COBALT decided for a packet leaving a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Signal {
    /// Set CE on the packet (it was ECN-capable).
    pub mark: bool,
    /// Drop the packet (CoDel on a non-ECN packet, or BLUE).
    pub drop: bool,
}

/// COBALT state of one flow queue.
#[derive(Clone, Debug, Default)]
pub struct Cobalt {
    pub count: u32,
    /// 1/sqrt(count) in Q0.32 fixed point.
    rec_inv_sqrt: u32,
    /// Next CoDel signal; outside dropping, an activity timeout.
    pub drop_next: Time,
    blue_timer: Time,
    /// BLUE drop probability as a fraction of 2^32.
    pub p_drop: u32,
    dropping: bool,
}

/// One Newton-Raphson step towards 1/sqrt(count) in Q0.32 (the Linux arithmetic, including
/// its wrapping, so that the spacings match the kernel's to the nanosecond).
const fn newton_step(count: u32, rec_inv_sqrt: u32) -> u32 {
    let invsqrt = rec_inv_sqrt as u64;
    let invsqrt2 = (invsqrt * invsqrt) >> 32;
    let val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2) >> 2;
    (val.wrapping_mul(invsqrt) >> (32 - 2 + 1)) as u32
}

/// Below 16, one Newton step from the previous count is too coarse; Linux caches values
/// refined by four steps each. Entries 0 and 1 are both ~1.0.
const REC_INV_SQRT_CACHE: [u32; 16] = {
    let mut cache = [u32::MAX; 16];
    let mut count = 1;
    while count < 16 {
        let mut v = cache[count - 1];
        let mut k = 0;
        while k < 4 {
            v = newton_step(count as u32, v);
            k += 1;
        }
        cache[count] = v;
        count += 1;
    }
    cache
};

/// `t + interval / sqrt(count)`, the CoDel control law.
fn control_law(t: Time, interval: Time, rec_inv_sqrt: u32) -> Time {
    t + ((interval as u128 * rec_inv_sqrt as u128) >> 32) as Time
}

/// `now - t` as a signed number: CoDel's schedule may lie in the future or the past.
fn since(now: Time, t: Time) -> i64 {
    now as i64 - t as i64
}

impl Cobalt {
    pub fn new() -> Self {
        Cobalt { rec_inv_sqrt: REC_INV_SQRT_CACHE[0], ..Default::default() }
    }

    fn update_inv_sqrt(&mut self) {
        self.rec_inv_sqrt = match REC_INV_SQRT_CACHE.get(self.count as usize) {
            Some(&cached) => cached,
            None => newton_step(self.count, self.rec_inv_sqrt),
        };
    }

    /// Whether the flow's state has not decayed to rest yet (it stays in the decaying list).
    pub fn is_active(&self, now: Time) -> bool {
        self.p_drop > 0 || self.count > 0 || now < self.drop_next
    }

    /// The flow overflowed the buffer: raise BLUE's drop probability and start CoDel dropping.
    /// Returns true if BLUE went from quiescent to active.
    pub fn queue_full(&mut self, p: &CobaltParams, now: Time) -> bool {
        let mut up = false;
        if now - self.blue_timer > p.target {
            up = self.p_drop == 0;
            self.p_drop = self.p_drop.saturating_add(P_INC);
            self.blue_timer = now;
        }
        self.dropping = true;
        self.drop_next = now;
        if self.count == 0 {
            self.count = 1;
        }
        up
    }

    /// The flow was serviced but found empty: decay BLUE and CoDel. Returns true if BLUE went
    /// from active to quiescent.
    pub fn queue_empty(&mut self, p: &CobaltParams, now: Time) -> bool {
        let mut down = false;
        if self.p_drop > 0 && now - self.blue_timer > p.target {
            self.p_drop = self.p_drop.saturating_sub(P_DEC);
            self.blue_timer = now;
            down = self.p_drop == 0;
        }
        self.dropping = false;
        if self.count > 0 && since(now, self.drop_next) >= 0 {
            self.count -= 1;
            self.update_inv_sqrt();
            self.drop_next = control_law(self.drop_next, p.interval, self.rec_inv_sqrt);
        }
        down
    }

    /// Judge a packet leaving the flow after `sojourn` in the queue. `ect`: the packet may be
    /// marked instead of dropped. `rng` serves BLUE's coin, drawn only while `p_drop > 0`.
    pub fn should_drop(&mut self, p: &CobaltParams, now: Time, sojourn: Time, ect: bool, rng: &mut Rng) -> Signal {
        let mut signal = Signal::default();
        // Egress mode: Linux's extra "2 x mtu_time x bulk flows" floor applies to ingress only.
        let over_target = sojourn > p.target && sojourn > 4 * p.mtu_time;
        let next_due = self.count > 0 && since(now, self.drop_next) >= 0;
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = control_law(now, p.interval, self.rec_inv_sqrt);
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else {
            self.dropping = false;
        }

        if next_due && self.dropping {
            signal.mark = ect;
            signal.drop = !ect;
            self.count = self.count.saturating_add(1);
            self.update_inv_sqrt();
            self.drop_next = control_law(self.drop_next, p.interval, self.rec_inv_sqrt);
        } else {
            // Below target (or not yet due): let the count decay for every spacing that passed.
            let mut due = next_due;
            while due {
                self.count -= 1;
                self.update_inv_sqrt();
                self.drop_next = control_law(self.drop_next, p.interval, self.rec_inv_sqrt);
                due = self.count > 0 && since(now, self.drop_next) >= 0;
            }
        }

        if self.p_drop > 0 && (rng.next_u64() as u32) < self.p_drop {
            signal.drop = true;
        }

        // `drop_next` doubles as an activity timeout while the count is zero.
        if self.count == 0 {
            self.drop_next = now + p.interval;
        } else if since(now, self.drop_next) > 0 && !signal.drop {
            self.drop_next = now;
        }
        signal
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MS;

    const P: CobaltParams = CobaltParams { target: 5 * MS, interval: 100 * MS, mtu_time: 0 };

    #[test]
    fn inverse_square_roots_are_accurate() {
        for count in 1..200u32 {
            let mut c = Cobalt::new();
            for k in 1..=count {
                c.count = k;
                c.update_inv_sqrt();
            }
            let got = c.rec_inv_sqrt as f64 / 2f64.powi(32);
            let want = 1.0 / (count as f64).sqrt();
            assert!((got - want).abs() / want < 0.01, "count {count}: {got} vs {want}");
        }
    }

    /// A queue held at 50 ms sojourn, one packet per ms: signals come one interval after the
    /// queue went over target, then at interval/sqrt(count) spacings.
    fn signal_times(ect: bool) -> Vec<(Time, Signal)> {
        let mut c = Cobalt::new();
        let mut rng = Rng::stream(1, "t");
        let mut out = Vec::new();
        for ms in 1..=1500 {
            let now = ms * MS;
            let s = c.should_drop(&P, now, 50 * MS, ect, &mut rng);
            if s != Signal::default() {
                out.push((now, s));
            }
        }
        out
    }

    #[test]
    fn drop_spacing_follows_interval_over_sqrt_count() {
        let drops = signal_times(false);
        assert!(drops.iter().all(|(_, s)| s.drop && !s.mark));
        // First signal one interval after the first over-target packet (at 1 ms).
        assert_eq!(drops[0].0, 101 * MS);
        for (k, w) in drops.windows(2).enumerate() {
            let count = (k + 2) as f64; // the count after the first signal is 2
            let want = 100.0 / count.sqrt();
            let got = (w[1].0 - w[0].0) as f64 / MS as f64;
            // Packets leave every 1 ms, so a signal lands on the first packet after it is due.
            assert!(got >= want - 1.0 && got <= want + 1.5, "gap {k}: {got} ms, expected {want:.2}");
        }
        assert!(drops.len() > 20, "{} drops in 1.5 s", drops.len());
    }

    #[test]
    fn ect_packets_are_marked_not_dropped() {
        let marks = signal_times(true);
        assert_eq!(marks.len(), signal_times(false).len());
        assert!(marks.iter().all(|(_, s)| s.mark && !s.drop));
    }

    #[test]
    fn below_target_nothing_happens_and_the_count_decays() {
        let mut c = Cobalt::new();
        let mut rng = Rng::stream(1, "t");
        for ms in 1..=300 {
            c.should_drop(&P, ms * MS, 50 * MS, false, &mut rng);
        }
        let count = c.count;
        assert!(count > 2);
        for ms in 301..=2000 {
            assert_eq!(c.should_drop(&P, ms * MS, MS, false, &mut rng), Signal::default());
        }
        assert_eq!(c.count, 0, "the count decays once per spacing while below target");
    }

    #[test]
    fn blue_rises_on_overflow_at_most_once_per_target_and_falls_when_empty() {
        let mut c = Cobalt::new();
        assert!(c.queue_full(&P, 10 * MS));
        assert_eq!(c.p_drop, P_INC);
        assert!(!c.queue_full(&P, 12 * MS), "within target of the last increase");
        assert_eq!(c.p_drop, P_INC);
        c.queue_full(&P, 16 * MS);
        assert_eq!(c.p_drop, 2 * P_INC);
        c.queue_empty(&P, 30 * MS);
        assert_eq!(c.p_drop, 2 * P_INC - P_DEC);
        // BLUE drops even ECN-capable packets below target.
        c.p_drop = u32::MAX / 2;
        let mut rng = Rng::stream(2, "t");
        let drops = (0..1000).filter(|k| c.should_drop(&P, (100 + k) * MS, 0, true, &mut rng).drop).count();
        assert!((400..600).contains(&drops), "p = 1/2 gave {drops} drops of 1000");
    }
}
