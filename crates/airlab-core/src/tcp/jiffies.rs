//! The kernel clock TCP's timers run on: Linux arms the retransmission timer (RTO, tail loss
//! probe, RACK's reordering timeout) and the delayed-ACK timer in jiffies, ticks of 1/HZ, on
//! the timer wheel (`kernel/time/timer.c`), which fires a timer at a tick and never early.
//!
//! A timeout is rounded up to whole jiffies (`usecs_to_jiffies`) and counted from the current
//! jiffy; the wheel then rounds the expiry up to its level's granularity: 1 jiffy below 63
//! jiffies ahead, 8 below 504, 64 below 4032, 512 beyond (`calc_wheel_index`: the bucket is
//! the next multiple of the granularity after the expiry). With HZ = 250 a 40 ms delayed ACK
//! fires 40-48 ms after it is armed and a 300 ms RTO up to 32 ms late. Where the ticks fall
//! against the simulation's clock (`phase`) is one draw per run: every host shares it, as the
//! testbed's namespaces share one kernel.
//!
//! Why it matters: timers that fire at exact times keep a flow's packets at one phase of a
//! bottleneck's packet clock run after run; the kernel's ticks move them by up to a jiffy at
//! every timeout (docs/models/tcp.md, "Timers on jiffies").
use crate::sim::{Time, SEC};

/// The wheel's levels: granularity in jiffies by how far ahead the expiry is (`LVL_START`).
const LEVELS: [(u64, u64); 3] = [(63, 1), (504, 8), (4032, 64)];
/// The granularity beyond the last of those levels (level 3, `LVL_GRAN(3)`).
const OUTER_GRANULARITY: u64 = 512;

/// A kernel's tick: `tick` 0 means timers fire at their exact deadline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Jiffies {
    tick: Time,
    phase: Time,
}

impl Jiffies {
    /// Ticks of 1/`hz` s (0: exact timers), starting at 0.
    pub fn new(hz: u32) -> Self {
        Jiffies { tick: SEC.checked_div(u64::from(hz)).unwrap_or(0), phase: 0 }
    }

    /// The kernel's HZ (0 for exact timers).
    pub fn hz(&self) -> u32 {
        SEC.checked_div(self.tick).unwrap_or(0) as u32
    }

    /// The same ticks, falling `offset` (taken modulo a tick) after the simulation's time 0.
    pub fn with_phase(self, offset: u64) -> Self {
        Jiffies { phase: if self.tick == 0 { 0 } else { offset % self.tick }, ..self }
    }

    /// When a timer armed at `now` for `deadline` fires.
    pub fn expiry(&self, now: Time, deadline: Time) -> Time {
        if self.tick == 0 {
            return deadline;
        }
        // The current jiffy, counted from the tick at `phase`: -1 before it.
        let tick = self.tick as i64;
        let jiffies = (now as i64 - self.phase as i64).div_euclid(tick);
        let timeout = deadline.saturating_sub(now).div_ceil(self.tick);
        let expires = jiffies + timeout as i64;
        let granularity =
            LEVELS.iter().find(|&&(start, _)| timeout < start).map_or(OUTER_GRANULARITY, |&(_, g)| g) as i64;
        let bucket = (expires.div_euclid(granularity) + 1) * granularity;
        (bucket * tick + self.phase as i64) as Time
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::MS;

    /// Before the first tick the current jiffy is the one that began a tick earlier.
    #[test]
    fn a_timer_armed_before_the_first_tick_counts_from_the_jiffy_before_it() {
        let j = Jiffies::new(250).with_phase(3 * MS);
        // At 0 the jiffy began at -1 ms: 10 jiffies expire at jiffy 9, fired at the tick of 10.
        assert_eq!(j.expiry(0, 40 * MS), 43 * MS);
    }

    #[test]
    fn exact_timers_fire_at_their_deadline() {
        assert_eq!(Jiffies::new(0).with_phase(123).expiry(5, 77), 77);
    }

    /// HZ = 250 (4 ms ticks), ticks at 1 ms, 5 ms, 9 ms, ...
    #[test]
    fn a_short_timeout_fires_on_the_tick_after_its_last_whole_jiffy() {
        let j = Jiffies::new(250).with_phase(MS);
        assert_eq!(j.hz(), 250);
        // Armed at 10 ms (jiffy 2, which began at 9 ms) for 40 ms: 10 jiffies, expires at
        // jiffy 12, and level 0 fires it at the tick of jiffy 13 (53 ms): 43 ms after.
        assert_eq!(j.expiry(10 * MS, 50 * MS), 53 * MS);
        // 41 ms rounds up to 11 jiffies.
        assert_eq!(j.expiry(10 * MS, 51 * MS), 57 * MS);
        // Armed on a tick: still the tick after the expiry's jiffy, never early.
        assert_eq!(j.expiry(9 * MS, 49 * MS), 53 * MS);
    }

    /// Timeouts of 63 jiffies and more go to the wheel's level 1, whose buckets are 8 jiffies.
    #[test]
    fn a_long_timeout_waits_for_its_levels_bucket() {
        let j = Jiffies::new(250);
        // From jiffy 1 (4 ms), a 300 ms RTO is 75 jiffies: expires at 76, fires at 80 (320 ms).
        assert_eq!(j.expiry(4 * MS, 304 * MS), 320 * MS);
        // 62 jiffies stay on level 0: 4 + 248 ms expires at jiffy 63, fires at 64.
        assert_eq!(j.expiry(4 * MS, 252 * MS), 256 * MS);
    }
}
