//! Frame sizes and aggregation limits: what turns an IP packet into PSDU bytes, the control
//! frames of an exchange and how their airtime follows from the basic rate, and the ceilings on
//! A-MPDU length, PPDU duration and the Block Ack window.

use super::{Format, TxVector};
use crate::sim::{Time, SEC, US};

/// MAC header of a QoS Data frame between a station and its AP (frame control 2, duration 2,
/// three addresses 18, sequence control 2, QoS control 2).
pub const QOS_DATA_HEADER_BYTES: u32 = 26;
/// Frame check sequence (CRC-32) ending every MPDU.
pub const FCS_BYTES: u32 = 4;
/// LLC/SNAP header (RFC 1042 encapsulation) in front of an IP packet in an 802.11 MSDU.
pub const LLC_SNAP_BYTES: u32 = 8;

/// The service and tail bits of a non-HT PPDU (16 + 6), as paper 004's eq. 1 counts them.
const SERVICE_TAIL_BITS: f64 = 22.0;

/// Paper 004's eq. 1 as printed: `preamble` plus the service, tail and MPDU bits of an IP
/// packet of `ip_bytes` over `rate_bps`, unrounded to symbols (what its AP and its senders
/// price a packet's airtime with).
pub fn formula_airtime(preamble: Time, ip_bytes: u32, rate_bps: u64) -> Time {
    let bits = SERVICE_TAIL_BITS + 8.0 * f64::from(mpdu_bytes(ip_bytes));
    preamble + (bits * SEC as f64 / rate_bps as f64).round() as Time
}

/// MPDU carrying one IP packet of `ip_bytes` (no A-MSDU, no security): 1500 B → 1538 B.
pub const fn mpdu_bytes(ip_bytes: u32) -> u32 {
    QOS_DATA_HEADER_BYTES + LLC_SNAP_BYTES + ip_bytes + FCS_BYTES
}

/// The MPDU delimiter in front of each MPDU of an A-MPDU (length, CRC and signature).
pub const AMPDU_DELIMITER_BYTES: u32 = 4;

/// An A-MPDU subframe: the delimiter plus the MPDU padded to a multiple of 4 bytes, so that the
/// next delimiter is word-aligned.
pub const fn ampdu_subframe_bytes(mpdu_bytes: u32) -> u32 {
    AMPDU_DELIMITER_BYTES + mpdu_bytes.next_multiple_of(4)
}

/// PSDU length of an A-MPDU of these MPDUs. The last subframe carries no padding, as in ns-3's
/// `MpduAggregator`; VHT and HE pad it too (their A-MPDU length before EOF padding is a multiple
/// of 4), at most 3 bytes more.
pub fn ampdu_bytes(mpdus: impl IntoIterator<Item = u32>) -> u32 {
    mpdus.into_iter().fold(0, ampdu_append)
}

/// An A-MPDU of `ampdu` bytes (0: none yet) with one more MPDU of `mpdu` bytes: the previous
/// last subframe padded to 4 bytes, a delimiter, the MPDU.
pub const fn ampdu_append(ampdu: u32, mpdu: u32) -> u32 {
    ampdu.next_multiple_of(4) + AMPDU_DELIMITER_BYTES + mpdu
}

/// ACK frame: frame control, duration, receiver address, FCS.
pub const ACK_BYTES: u32 = 14;
/// CTS frame: same layout as the ACK.
pub const CTS_BYTES: u32 = 14;
/// RTS frame: an ACK plus the transmitter address.
pub const RTS_BYTES: u32 = 20;

/// Compressed Block Ack frame: 24 bytes (frame control, duration, RA, TA, BA control, starting
/// sequence control, FCS) plus a bitmap of 8 bytes for windows up to 64 (HT/VHT: 32 B) or of
/// 32 bytes for the HE windows up to 256 (56 B).
pub fn block_ack_bytes(window: u16) -> u32 {
    let bitmap = if window <= 64 { 8 } else { 32 };
    24 + bitmap
}

/// Airtime of an ACK sent with `basic` (normally the data PPDU's
/// [`TxVector::control_response_rate`]): 44 µs at 6 Mbit/s, 28 µs at 24 Mbit/s.
pub fn ack_duration(basic: &TxVector) -> Time {
    basic.ppdu_duration(ACK_BYTES)
}

/// Airtime of a compressed Block Ack for a window of `window` MPDUs, sent with `basic`.
pub fn block_ack_duration(basic: &TxVector, window: u16) -> Time {
    basic.ppdu_duration(block_ack_bytes(window))
}

pub fn rts_duration(basic: &TxVector) -> Time {
    basic.ppdu_duration(RTS_BYTES)
}

pub fn cts_duration(basic: &TxVector) -> Time {
    basic.ppdu_duration(CTS_BYTES)
}

/// aPPDUMaxTime: the longest HT-mixed, VHT or HE PPDU (802.11-2020; ns-3 `GetPpduMaxTime`).
/// Non-HT PPDUs are bounded by their 4095-byte PSDU instead.
pub const PPDU_MAX_TIME: Time = 5484 * US;

impl Format {
    /// aPSDUMaxLength in bytes (ns-3 `wifi-standard-constants.h`).
    pub fn max_psdu_bytes(self) -> u32 {
        match self {
            Format::NonHt => 4095,
            Format::Ht => 65_535,
            Format::Vht => 4_692_480,
            Format::He => 6_500_631,
        }
    }

    /// The largest A-MPDU a station may send in this format, from the largest Maximum A-MPDU
    /// Length Exponent it can advertise (HT 2^16 − 1; VHT 2^20 − 1; HE capped by
    /// aPSDUMaxLength); ns-3's `*_MaxAmpduSize` maxima. `None`: non-HT PPDUs carry no A-MPDU.
    pub fn max_ampdu_bytes(self) -> Option<u32> {
        match self {
            Format::NonHt => None,
            Format::Ht => Some(65_535),
            Format::Vht => Some(1_048_575),
            Format::He => Some(6_500_631),
        }
    }

    /// Largest Block Ack window (reorder buffer) in MPDUs: 64 for HT/VHT, 256 for HE (ns-3
    /// `WifiMac::GetMaxBaBufferSize`). `None` for non-HT, which is acknowledged frame by frame.
    pub fn block_ack_window(self) -> Option<u16> {
        match self {
            Format::NonHt => None,
            Format::Ht | Format::Vht => Some(64),
            Format::He => Some(256),
        }
    }
}
