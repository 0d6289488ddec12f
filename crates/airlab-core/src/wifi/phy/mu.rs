//! 802.11ax downlink multi-user PPDUs: how an AP splits a channel into equal resource units,
//! what the HE-SIG-B that announces the split costs, and how long the whole HE MU PPDU lasts;
//! plus the sizes of the trigger and multi-station acknowledgement frames around it.
//!
//! Sizes and rules follow 802.11ax-2021 clause 27 as ns-3 encodes them (`HeRu`,
//! `HePpdu::GetSigBFieldSize`, `HePhy::GetSigBMode`, `CtrlTriggerHeader`,
//! `CtrlBAckResponseHeader`); the checks in `tests.rs` are ns-3's `MuSigDurationTest` anchors.
//! Not modelled: MU-MIMO inside an RU, SIG-B compression (full-band MU-MIMO only), the centre
//! 26-tone RUs an allocation of 52- or 106-tone RUs leaves idle, and RUs of mixed sizes.

use super::{TxVector, LEGACY_PREAMBLE};
use crate::sim::{Time, US};

/// A channel split into `count` equal resource units of `tones` tones each, one per station.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuAllocation {
    pub width_mhz: u16,
    pub tones: u16,
    pub count: usize,
}

impl RuAllocation {
    /// The allocation ns-3's round-robin scheduler makes for `stations` (at least 1) stations
    /// (`HeRu::GetEqualSizedRusForStations`): the largest number of equal RUs not above
    /// `stations`. At 20 MHz, 3 stations get two 106-tone RUs and the third waits.
    pub fn equal(width_mhz: u16, stations: usize) -> Self {
        let (tones, count) = super::tables::HE_RU_TONES
            .iter()
            .map(|&tones| (tones, ru_count(width_mhz, tones)))
            .find(|&(_, count)| count > 0 && count <= stations.max(1))
            .expect("every channel has one RU spanning it");
        RuAllocation { width_mhz, tones, count }
    }

    /// Stations (user fields) on each HE-SIG-B content channel. At 20 MHz there is one; from
    /// 40 MHz on, the RUs of odd 20 MHz subchannels go to the first and those of even ones to
    /// the second; an RU spanning 40 MHz or more goes to the emptier one; the centre 26-tone
    /// RU of each 80 MHz goes to the first (lower 80) or second (upper 80) content channel.
    pub fn content_channel_users(&self) -> (usize, usize) {
        if self.width_mhz == 20 {
            return (self.count, 0);
        }
        if self.tones >= 484 {
            return (self.count.div_ceil(2), self.count / 2);
        }
        let subchannels = usize::from(self.width_mhz / 20);
        let per_subchannel = ru_count(20, self.tones);
        let (mut first, mut second) = (per_subchannel * subchannels.div_ceil(2), per_subchannel * (subchannels / 2));
        let centre = self.count - per_subchannel * subchannels;
        first += centre.div_ceil(2);
        second += centre / 2;
        (first, second)
    }

    /// HE-SIG-B of this allocation sent at VHT-MCS `sig_b_mcs` (0-5).
    pub fn sig_b_duration(&self, sig_b_mcs: u8) -> Time {
        sig_b_duration(self.width_mhz, self.content_channel_users(), sig_b_mcs)
    }
}

/// RUs of `tones` tones in a channel of `width_mhz` (802.11ax-2021 Tables 27-7 to 27-9, in the
/// order of [`super::tables::HE_RU_TONES`]). A 26-tone allocation of 80 MHz counts its centre
/// RU (37 = 4 × 9 + 1).
fn ru_count(width_mhz: u16, tones: u16) -> usize {
    const COUNTS: [[usize; 7]; 4] =
        [[9, 4, 2, 1, 0, 0, 0], [18, 8, 4, 2, 1, 0, 0], [37, 16, 8, 4, 2, 1, 0], [74, 32, 16, 8, 4, 2, 1]];
    let width = match width_mhz {
        20 => 0,
        40 => 1,
        80 => 2,
        _ => 3,
    };
    let size = super::tables::HE_RU_TONES.iter().position(|&t| t == tones).expect("a valid RU size");
    COUNTS[width][size]
}

/// Data bits of one 4 µs HE-SIG-B symbol at VHT-MCS 0-5 on 52 data subcarriers.
const SIG_B_BITS_PER_SYMBOL: [u64; 6] = [26, 52, 78, 104, 156, 208];

/// HE-SIG-B for `users` = (first, second) content channel's user fields, at VHT-MCS
/// `sig_b_mcs`: a common field (RU allocation, CRC 4, tail 6: 18 bits up to 40 MHz, 27 at 80,
/// 43 at 160), then user fields in blocks of two (2 × 21 + CRC 4 + tail 6 = 52 bits; a lone last
/// user 31). Both content channels last as long as the fuller one.
pub fn sig_b_duration(width_mhz: u16, users: (usize, usize), sig_b_mcs: u8) -> Time {
    let common: u64 = match width_mhz {
        20 | 40 => 8,
        w => 8 * u64::from(w / 40) + 1,
    } + 10;
    let user_bits = |n: usize| (n / 2) as u64 * 52 + if n % 2 == 1 { 31 } else { 0 };
    let bits = common + user_bits(users.0.max(users.1));
    let per_symbol = SIG_B_BITS_PER_SYMBOL[usize::from(sig_b_mcs.min(5))];
    bits.div_ceil(per_symbol) * 4 * US
}

/// The HE-SIG-B rate ns-3 uses: the VHT MCS equal to the lowest of the users' HE MCSs, at
/// most 5 (`HePhy::GetSigBMode`), so that every addressed station can decode it.
pub fn sig_b_mcs(users: &[TxVector]) -> u8 {
    users.iter().map(|u| u.mcs).min().unwrap_or(0).min(5)
}

/// The HE MU preamble for `users` (their RU vectors) on `alloc`: L-STF, L-LTF, L-SIG (20 µs),
/// RL-SIG 4, HE-SIG-A 8, HE-SIG-B, HE-STF 4 and one 8 µs HE-LTF per stream of the widest user.
pub fn he_mu_preamble(alloc: &RuAllocation, users: &[TxVector]) -> Time {
    let nss = users.iter().map(|tx| tx.nss).max().unwrap_or(1);
    let ltfs = Time::from(super::ltf_count(nss));
    LEGACY_PREAMBLE + 4 * US + 8 * US + alloc.sig_b_duration(sig_b_mcs(users)) + 4 * US + ltfs * 8 * US
}

/// Airtime of an HE MU PPDU carrying `users` = (RU vector, PSDU bytes) on `alloc`: the
/// preamble, then as many data symbols as the longest user needs (the others are padded to it).
pub fn he_mu_ppdu_duration(alloc: &RuAllocation, users: &[(TxVector, u32)]) -> Time {
    let vectors: Vec<TxVector> = users.iter().map(|&(tx, _)| tx).collect();
    let data = users.iter().map(|&(tx, bytes)| tx.data_duration(bytes)).max().unwrap_or(0);
    he_mu_preamble(alloc, &vectors) + data
}

/// Multi-user control frames, in bytes with their 16-byte header (frame control, duration,
/// RA, TA) and 4-byte FCS (ns-3 `CtrlTriggerHeader`, `CtrlBAckResponseHeader`).
pub mod frames {
    /// Header and FCS of a trigger frame plus its 8-byte Common Info.
    const TRIGGER_BASE: u32 = 16 + 4 + 8;

    /// Basic Trigger soliciting uplink data from `users`: a 5-byte User Info and a 1-byte
    /// trigger-dependent field each. No padding (ns-3 adds none for HE).
    pub fn basic_trigger_bytes(users: usize) -> u32 {
        TRIGGER_BASE + 6 * users as u32
    }

    /// Buffer Status Report Poll: a bare 5-byte User Info per station.
    pub fn bsrp_trigger_bytes(users: usize) -> u32 {
        TRIGGER_BASE + 5 * users as u32
    }

    /// MU-BAR: a User Info and a compressed Block Ack Request (control 2, starting sequence 2)
    /// per station.
    pub fn mu_bar_bytes(users: usize) -> u32 {
        TRIGGER_BASE + 9 * users as u32
    }

    /// Multi-STA Block Ack for `users` stations, each with an AID/TID field (2), a starting
    /// sequence (2) and a bitmap of 8 bytes (windows up to 64) or 32 bytes (up to 256); the
    /// frame's own BA control is 2 bytes.
    pub fn multi_sta_block_ack_bytes(users: usize, window: u16) -> u32 {
        let bitmap = if window <= 64 { 8 } else { 32 };
        16 + 4 + 2 + users as u32 * (4 + bitmap)
    }
}
