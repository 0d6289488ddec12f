//! Uplink OFDMA at an access point: trigger-based access (802.11ax-2021 26.5.2). A cycle is
//! the cascade of paper 000's equation 1 (and of ns-3 with `ContinueTxopAfterBsrp`): a Buffer
//! Status Report Poll, the stations' buffer status reports in HE TB PPDUs, a Basic Trigger
//! granting RUs to the stations with data, their data in HE TB PPDUs of the length the trigger
//! sets, and a Multi-STA Block Ack, each a SIFS after the previous frame.
//!
//! The scheduler is round robin, as ns-3's `RrMultiUserScheduler` with equal RUs: it polls up
//! to `max_stations` stations in turn, and grants up to `max_stations` of those that reported
//! a non-empty queue, starting with the next in turn. The TB PPDU lasts what the largest
//! granted queue needs, at most the AP's PPDU limit; stations with less send what they have
//! and pad. With random access ([`Uora`]) a Basic Trigger also offers RA-RUs, on which the
//! stations it does not schedule contend by their OFDMA backoff ([`Obo`]).

use crate::sim::{Time, US};
use crate::wifi::phy::mu::{frames, RuAllocation};
use crate::wifi::phy::{self, TxVector};
use serde::Serialize;

/// A QoS Null frame carrying a buffer status report (26-byte QoS header, FCS; ns-3 sends no HT
/// Control field) as an A-MPDU subframe with its delimiter: 34 bytes.
pub const BSR_PSDU_BYTES: u32 = phy::AMPDU_DELIMITER_BYTES + phy::QOS_DATA_HEADER_BYTES + phy::FCS_BYTES;

/// The MU EDCA parameter set an AP advertises (802.11ax-2021 9.4.2.245, 26.2.7): after the AP
/// acknowledged QoS data a station sent in an HE TB PPDU, the station contends with these
/// instead of its EDCA parameters until `timer` passes without another such acknowledgement.
/// AIFSN 0 disables EDCA for that time: the station then sends only when triggered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MuEdca {
    pub aifsn: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    pub timer: Time,
}

impl MuEdca {
    /// The MU EDCA Timer's unit: 8 TU.
    pub const TIMER_UNIT: Time = 8 * 1024 * US;
    /// OpenWrt's best-effort set (hostapd `he_mu_edca_ac_be_*` in OpenWrt's mac80211.sh):
    /// AIFSN 8, ECWmin 9, ECWmax 10, timer 255 units (2.09 s).
    pub const OPENWRT_BEST_EFFORT: MuEdca =
        MuEdca { aifsn: 8, cw_min: 511, cw_max: 1023, timer: 255 * Self::TIMER_UNIT };

    /// Whether the set disables EDCA while its timer runs (MU AIFSN 0).
    pub fn disables_edca(&self) -> bool {
        self.aifsn == 0
    }
}

/// UL OFDMA random access (UORA, 802.11ax-2021 26.5.4): every Basic Trigger also offers
/// `ra_rus` random-access RUs. A station with data and no RU of its own in the trigger counts
/// its OFDMA backoff (OBO) down by the number of RA-RUs and, once it is within them, sends on
/// one picked at random. Two stations on one RA-RU collide. The OFDMA contention window (OCW)
/// starts at `ocw_min`, doubles after a failure up to `ocw_max`, and resets after a success.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Uora {
    pub ra_rus: usize,
    pub ocw_min: u32,
    pub ocw_max: u32,
}

impl Uora {
    /// dot11OCWmin and dot11OCWmax, used when the AP sends no UORA Parameter Set.
    pub const DEFAULT_OCW: (u32, u32) = (7, 31);
}

/// A station's OFDMA backoff.
#[derive(Debug, Clone, Copy, Default)]
pub struct Obo {
    pub counter: u32,
    pub ocw: u32,
}

impl Obo {
    /// Run the backoff for a trigger with `ra_rus` RA-RUs: the RA-RU to send on, if any.
    pub fn on_trigger(&mut self, ra_rus: usize, rng: &mut crate::sim::Rng) -> Option<u16> {
        let ra = ra_rus as u32;
        if self.counter <= ra {
            self.counter = 0;
            Some(rng.below(u64::from(ra)) as u16)
        } else {
            self.counter -= ra;
            None
        }
    }

    /// After a random-access transmission: the window resets on success (or when the frames
    /// were given up), doubles otherwise, and a new backoff is drawn.
    pub fn after_attempt(&mut self, reset: bool, uora: &Uora, rng: &mut crate::sim::Rng) {
        self.ocw = if reset { uora.ocw_min } else { (2 * self.ocw + 1).min(uora.ocw_max) };
        self.counter = rng.below(u64::from(self.ocw) + 1) as u32;
    }
}

/// What the AP knows of its stations' uplink queues, and whose turn it is.
pub struct UlScheduler {
    /// Per AP peer: the queue size the station last reported, in bytes (0 if none).
    reported: Vec<u32>,
    /// The peer the next poll and grant start from.
    next: usize,
    /// The AP's last channel access served the uplink: with downlink frames waiting, the next
    /// serves the downlink (ns-3 alternates DL MU and UL MU the same way).
    pub last_was_ul: bool,
}

impl UlScheduler {
    pub fn new(peers: usize) -> Self {
        UlScheduler { reported: vec![0; peers], next: 0, last_was_ul: false }
    }

    /// Station `peer` reported `bytes` queued (in a BSR, or the QoS Control field of a data frame).
    pub fn report(&mut self, peer: u16, bytes: u32) {
        self.reported[peer as usize] = bytes;
    }

    pub fn reported(&self, peer: u16) -> u32 {
        self.reported[peer as usize]
    }

    /// Whether some station has reported a non-empty queue: the AP then contends to trigger it.
    pub fn has_demand(&self) -> bool {
        self.reported.iter().any(|&b| b > 0)
    }

    /// The stations a BSRP polls: up to `max`, in turn from the next one.
    pub fn poll(&self, max: usize) -> Vec<u16> {
        let n = self.reported.len();
        (0..n.min(max)).map(|k| ((self.next + k) % n) as u16).collect()
    }

    /// The stations a Basic Trigger may serve: those with a non-empty reported queue, in turn
    /// from the next one.
    pub fn candidates(&self) -> Vec<u16> {
        let n = self.reported.len();
        (0..n).map(|k| (self.next + k) % n).filter(|&p| self.reported[p] > 0).map(|p| p as u16).collect()
    }

    /// A Basic Trigger served the candidates up to `last`: the turn passes to the next station.
    pub fn served(&mut self, last: u16) {
        self.next = (usize::from(last) + 1) % self.reported.len();
    }
}

/// A trigger about to be sent: the RUs it assigns, its own airtime and the HE TB PPDU length
/// it asks for (the same for every station: the trigger's UL Length). The first
/// `alloc.count - ra_rus` RUs go to stations, the rest are random-access RUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TriggerPlan {
    pub alloc: RuAllocation,
    pub ra_rus: usize,
    pub trigger_dur: Time,
    pub tb_dur: Time,
}

impl TriggerPlan {
    /// The RUs assigned to stations.
    pub fn scheduled(&self) -> usize {
        self.alloc.count - self.ra_rus
    }
}

/// Control frames of the cycle go at 6 Mbit/s, non-HT duplicate over the channel (ns-3 sends
/// a trigger for several stations at the lowest basic rate).
fn trigger_duration(bytes: u32) -> Time {
    TxVector::non_ht(6).ppdu_duration(bytes)
}

/// A BSRP for the stations with uplink vectors `users` (full channel, `width_mhz`): as many as
/// equal RUs take (`alloc.count`, the first ones), each answering with a QoS Null.
pub fn plan_bsrp(width_mhz: u16, users: &[TxVector]) -> TriggerPlan {
    let alloc = RuAllocation::equal(width_mhz, users.len());
    let tb_dur = users[..alloc.count]
        .iter()
        .map(|txv| txv.with_ru(alloc.tones).ppdu_duration(BSR_PSDU_BYTES))
        .max()
        .unwrap_or(0);
    TriggerPlan { alloc, ra_rus: 0, trigger_dur: trigger_duration(frames::bsrp_trigger_bytes(alloc.count)), tb_dur }
}

/// A Basic Trigger for the stations `users` = (uplink vector, reported queue in PSDU bytes)
/// and `ra_rus` random-access RUs: equal RUs for both, the RA-RUs kept when the channel has
/// fewer RUs than asked (the last users wait). The TB PPDU lasts what the largest granted
/// queue needs on its RU (all of it when there are RA-RUs, whose senders the AP does not
/// know), at most the whole data symbols that fit in `max_duration` (a TB PPDU's length comes
/// from the trigger's L-SIG length, which the station rounds to whole symbols: ns-3
/// `HePhy::ConvertLSigLengthToHeTbPpduDuration`), with the preamble and symbol of `reference`,
/// a station's uplink vector.
pub fn plan_basic(
    width_mhz: u16,
    users: &[(TxVector, u32)],
    ra_rus: usize,
    reference: &TxVector,
    max_duration: Time,
) -> TriggerPlan {
    let alloc = RuAllocation::equal(width_mhz, users.len() + ra_rus);
    let ra_rus = ra_rus.min(alloc.count);
    let granted = &users[..alloc.count - ra_rus];
    let reference = reference.with_ru(alloc.tones);
    let (preamble, symbol) = (reference.preamble_duration(), reference.symbol_duration());
    let longest = preamble + max_duration.saturating_sub(preamble) / symbol * symbol;
    let needed = granted.iter().map(|&(txv, bytes)| txv.with_ru(alloc.tones).ppdu_duration(bytes)).max();
    let tb_dur = if ra_rus > 0 { longest } else { needed.unwrap_or(0).min(longest) };
    let trigger_dur = trigger_duration(frames::basic_trigger_bytes(alloc.count));
    TriggerPlan { alloc, ra_rus, trigger_dur, tb_dur }
}

/// The Multi-STA Block Ack to `users` stations, the first of which sent with `first` (its RU
/// vector): at the control response rate for that vector (ns-3), with 256-bit bitmaps (HE's
/// Block Ack window).
pub fn multi_sta_block_ack_duration(users: usize, first: &TxVector) -> Time {
    let window = phy::Format::He.block_ack_window().expect("HE has Block Ack");
    first.control_response_rate().ppdu_duration(frames::multi_sta_block_ack_bytes(users, window))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_polls_in_turn_and_grants_only_reported_queues() {
        let mut s = UlScheduler::new(5);
        assert!(!s.has_demand());
        assert_eq!(s.poll(3), vec![0, 1, 2]);
        s.report(1, 256);
        s.report(3, 512);
        s.report(4, 256);
        assert_eq!(s.candidates(), vec![1, 3, 4]);
        s.served(3);
        // The turn passed to station 4, and wraps around.
        assert_eq!(s.poll(3), vec![4, 0, 1]);
        assert_eq!(s.candidates(), vec![4, 1, 3]);
        // Only the first was served (say, RUs ran out): the second keeps its turn.
        s.served(4);
        assert_eq!(s.candidates(), vec![1, 3, 4]);
    }

    #[test]
    fn the_ofdma_backoff_counts_down_by_the_ra_rus_and_doubles_on_failure() {
        let uora = Uora { ra_rus: 2, ocw_min: 7, ocw_max: 31 };
        let mut rng = crate::sim::Rng::stream(1, "obo");
        let mut obo = Obo { counter: 5, ocw: 7 };
        assert_eq!(obo.on_trigger(2, &mut rng), None);
        assert_eq!(obo.counter, 3);
        assert_eq!(obo.on_trigger(2, &mut rng), None);
        // Within the two RA-RUs: send on one of them.
        assert!(obo.on_trigger(2, &mut rng).is_some_and(|ru| ru < 2));
        assert_eq!(obo.counter, 0);
        for want in [15, 31, 31] {
            obo.after_attempt(false, &uora, &mut rng);
            assert_eq!(obo.ocw, want);
            assert!(obo.counter <= want);
        }
        obo.after_attempt(true, &uora, &mut rng);
        assert_eq!(obo.ocw, 7);
    }

    #[test]
    fn cycle_frames_have_ns3_durations() {
        // 4 users at 20 MHz: BSRP 28 + 20 = 48 bytes at 6 Mbit/s = 20 + 4 * ceil((22 + 384) / 24)
        // = 88 us; a Basic Trigger 52 bytes, 92 us (facts file, section 3).
        let he = TxVector::he(7, 1, 20, 800);
        let bsrp = plan_bsrp(20, &[he; 4]);
        assert_eq!((bsrp.alloc.tones, bsrp.alloc.count, bsrp.trigger_dur), (52, 4, 88 * US));
        // The QoS Null on a 52-tone RU at HE-MCS 7 (N_DBPS 48 * 6 * 5/6 = 240 bits per 13.6 us symbol):
        // 48 us TB preamble + ceil((16 + 272 + 6) / 234) = 2 symbols.
        assert_eq!(bsrp.tb_dur, 48 * US + 2 * 13_600 * crate::sim::NS);
        let basic = plan_basic(20, &[(he, 6_000), (he, 100_000), (he, 256), (he, 256)], 0, &he, 5_484 * US);
        assert_eq!(basic.trigger_dur, 96 * US, "52 bytes: 20 + 4 * ceil((22 + 416) / 24)");
        // The largest queue is capped by the PPDU limit, in whole symbols: (5484 - 48) / 13.6
        // = 399.7, so 399.
        assert_eq!(basic.tb_dur, 48 * US + 399 * 13_600 * crate::sim::NS);
        let small = plan_basic(20, &[(he, 6_000), (he, 256)], 0, &he, 5_484 * US);
        // Two 106-tone RUs: N_DBPS 102 * 6 * 5/6 = 510 bits; ceil((16 + 48000 + 6) / 510) = 95 symbols.
        assert_eq!(small.tb_dur, 48 * US + 95 * 13_600 * crate::sim::NS);
        // Two RA-RUs beside three users: four 52-tone RUs, two of them random access, and the
        // TB PPDU as long as the limit allows.
        let ra = plan_basic(20, &[(he, 256), (he, 256), (he, 256)], 2, &he, 5_484 * US);
        assert_eq!((ra.alloc.count, ra.ra_rus, ra.scheduled(), ra.tb_dur), (4, 2, 2, basic.tb_dur));
        // Multi-STA BA for 4 users: 22 + 4 * 36 = 166 bytes at 24 Mbit/s = 20 + 4 * ceil(1350 / 96) = 80 us.
        assert_eq!(multi_sta_block_ack_duration(4, &he.with_ru(52)), 80 * US);
    }
}
