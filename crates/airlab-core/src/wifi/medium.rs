//! One node's view of the shared channel and its place in the contention: physical carrier
//! sense (how many transmissions it hears), virtual carrier sense (NAV), the frame it is
//! locked onto, and the EDCA backoff that counts idle slots and freezes while the medium is busy.
//!
//! Backoff is event driven rather than ticked per slot: while the medium is idle a node's
//! access time is `idle start + IFS + slots x slot`; when the medium turns busy before then,
//! the whole slots that elapsed are taken off and the rest waits for the next idle period
//! (802.11-2020 10.23.2). Two nodes whose access times fall on the same nanosecond both
//! transmit, which is how collisions arise: slots are aligned because every node counts from
//! the same end of the busy period.

use crate::sim::Time;

#[derive(Default)]
pub struct Medium {
    /// Transmissions by others this node hears right now.
    pub busy: u32,
    /// This node's own radio is transmitting.
    pub transmitting: bool,
    /// Virtual carrier sense: a frame it overheard reserved the medium until then.
    pub nav_until: Time,
    /// When physical carrier sense last went idle.
    pub idle_since: Time,
    /// The last frame it received was corrupted, so it defers EIFS instead of AIFS.
    pub eifs: bool,
    /// The AIFS and EIFS of its countdown (MU EDCA changes them for a while).
    pub ifs: (Time, Time),
    /// Its EDCA is disabled until then (MU EDCA with AIFSN 0): no countdown before.
    pub edca_off_until: Time,
    /// The transmission it is receiving (locked onto at its start) and whether it is still
    /// intact.
    pub rx: Option<(u32, bool)>,
    /// Backoff slots left; counted only while `pending`.
    pub slots: u32,
    /// Wants the channel: has frames, or runs the post-transmission backoff.
    pub pending: bool,
    /// Scheduled access time while counting down, and its generation (stale events of an
    /// earlier countdown carry an older one).
    pub access_at: Option<Time>,
    pub access_gen: u32,
}

impl Medium {
    /// Physically and virtually idle at `now`.
    pub fn is_idle(&self, now: Time) -> bool {
        self.busy == 0 && !self.transmitting && now >= self.nav_until
    }

    /// When the slot countdown starts: the later of the physical and virtual idle starts (and
    /// of the end of disabled EDCA), plus the inter-frame space.
    pub fn countdown_start(&self) -> Time {
        let (aifs, eifs) = self.ifs;
        self.idle_since.max(self.nav_until).max(self.edca_off_until) + if self.eifs { eifs } else { aifs }
    }

    /// The medium turned busy at `now`: stop counting, keeping the slots not yet used. A
    /// countdown that ends exactly now goes ahead (the node cannot sense a transmission that
    /// starts in the same slot), so it is left to fire.
    pub fn freeze(&mut self, now: Time, slot: Time) {
        let Some(at) = self.access_at else { return };
        if at == now {
            return;
        }
        let start = self.countdown_start();
        if now > start {
            let elapsed = ((now - start) / slot).min(u64::from(self.slots)) as u32;
            self.slots -= elapsed;
        }
        self.access_at = None;
        self.access_gen = self.access_gen.wrapping_add(1);
    }

    /// When to transmit if the medium stays idle, for a node that is pending and idle.
    pub fn access_time(&self, now: Time, slot: Time) -> Time {
        (self.countdown_start() + u64::from(self.slots) * slot).max(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::US;

    const SLOT: Time = 9 * US;
    const AIFS: Time = 43 * US;
    const EIFS: Time = 103 * US;

    #[test]
    fn backoff_freezes_with_the_slots_not_yet_counted() {
        let mut m = Medium { idle_since: 1000 * US, slots: 10, pending: true, ifs: (AIFS, EIFS), ..Medium::default() };
        let at = m.access_time(1000 * US, SLOT);
        assert_eq!(at, 1000 * US + AIFS + 10 * SLOT);
        m.access_at = Some(at);
        // Busy 4.5 slots into the countdown: 4 whole slots are used.
        m.freeze(1000 * US + AIFS + 4 * SLOT + SLOT / 2, SLOT);
        assert_eq!((m.slots, m.access_at), (6, None));
        // Busy during AIFS: nothing is used.
        m.idle_since = 2000 * US;
        m.access_at = Some(m.access_time(2000 * US, SLOT));
        m.freeze(2000 * US + AIFS - 1, SLOT);
        assert_eq!(m.slots, 6);
    }

    #[test]
    fn a_countdown_ending_as_the_medium_turns_busy_still_fires() {
        let mut m = Medium { slots: 3, pending: true, ifs: (AIFS, EIFS), ..Medium::default() };
        let at = m.access_time(0, SLOT);
        m.access_at = Some(at);
        m.freeze(at, SLOT);
        assert_eq!(m.access_at, Some(at));
    }

    #[test]
    fn eifs_and_nav_delay_the_countdown() {
        let mut m = Medium { idle_since: 100 * US, eifs: true, ifs: (AIFS, EIFS), ..Medium::default() };
        assert_eq!(m.countdown_start(), 100 * US + EIFS);
        m.eifs = false;
        m.nav_until = 500 * US;
        assert_eq!(m.countdown_start(), 500 * US + AIFS);
        assert!(!m.is_idle(499 * US) && m.is_idle(500 * US));
        // Disabled EDCA (MU EDCA with AIFSN 0) holds the countdown back like a NAV.
        m.edca_off_until = 800 * US;
        assert_eq!(m.countdown_start(), 800 * US + AIFS);
    }
}
