//! 802.11 PHY: data rates and PPDU durations for non-HT OFDM (802.11a/g), HT (802.11n), VHT
//! (802.11ac) and HE (802.11ax), plus the MAC timing and frame sizes that go with them (the
//! bit errors of each MCS at an SNR are the error models', [`super::error_model`]).
//!
//! A [`TxVector`] says how a PPDU is sent (format, MCS, spatial streams, channel width, guard
//! interval and, for HE OFDMA, the resource unit). From it come the data rate and the airtime of
//! a PSDU: preamble + ⌈(16 service + 8·bytes + 6·N_ES tail bits) / N_DBPS⌉ symbols. Everything is
//! exact integer arithmetic in nanoseconds; N_DBPS is kept as a fraction so that no float
//! rounding can add or drop a symbol.
//!
//! Durations follow ns-3's `WifiPhy::CalculateTxDuration` and reproduce the anchors of its
//! `tx-duration-test.cc`. Where ns-3 departs from the 802.11 TXTIME equations we follow ns-3,
//! so results compare directly with ns-3 studies:
//! - HT/VHT short GI: the data field lasts exactly N_SYM × 3.6 µs. 802.11-2020 (19.4.3, 21.4.3)
//!   rounds it up to a multiple of 4 µs, T_SYML·⌈T_SYMS·N_SYM / T_SYML⌉, so that legacy stations
//!   can express it in L-SIG; that is up to 3.6 µs longer.
//! - VHT SU: no VHT-SIG-B. The standard's VHT SU preamble carries one 4 µs VHT-SIG-B symbol
//!   (40 µs for 1 stream); ns-3 models it only for VHT MU (36 µs here).
//! - HE: every HE-LTF lasts 8 µs (2x LTF + 1.6 µs GI) whatever the data GI; the standard pairs
//!   the 3.2 µs GI with the 4x LTF (16 µs each). The packet extension (0-16 µs after the data)
//!   is ignored, and so is LDPC's own symbol count: N_SYM uses the BCC formula with one encoder.
//! - STBC, Greenfield HT and HE ER SU are not modelled; HE MU PPDUs (with their HE-SIG-B) are
//!   in [`mu`].
//!
//! The 6 µs signal extension of OFDM PPDUs in the 2.4 GHz band is not part of
//! [`TxVector::ppdu_duration`]: it belongs to the band, so [`MacTiming::airtime`] adds it.

mod frames;
pub mod mu;
pub mod standard;
mod tables;
mod timing;

#[cfg(test)]
mod tests;

pub use frames::{
    ack_duration, ampdu_append, ampdu_bytes, ampdu_subframe_bytes, block_ack_bytes, block_ack_duration, cts_duration,
    formula_airtime, mpdu_bytes, rts_duration, ACK_BYTES, AMPDU_DELIMITER_BYTES, CTS_BYTES, FCS_BYTES, LLC_SNAP_BYTES,
    PPDU_MAX_TIME, QOS_DATA_HEADER_BYTES, RTS_BYTES,
};
pub use timing::MacTiming;

use crate::sim::{Time, NS, SEC, US};
pub(crate) use tables::Modulation;
use tables::{MCS_LADDER, NON_HT_MODULATION, NON_HT_RATES_MBPS};

/// PPDU format, i.e. the PHY clause a transmission follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// 802.11a/g OFDM (clauses 17/18): 20 MHz, 48 data subcarriers, 4 µs symbols.
    NonHt,
    /// 802.11n HT-mixed format (clause 19): 20/40 MHz, up to 4 streams.
    Ht,
    /// 802.11ac VHT single-user (clause 21): 20-160 MHz, up to 8 streams.
    Vht,
    /// 802.11ax HE (clause 27): an HE SU PPDU, or one user's RU of an OFDMA PPDU.
    He,
}

impl Format {
    /// Short name for messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::NonHt => "non-HT",
            Format::Ht => "HT",
            Format::Vht => "VHT",
            Format::He => "HE",
        }
    }
}

/// Guard intervals in nanoseconds. HT/VHT symbols are 3.2 µs + GI, HE symbols 12.8 µs + GI.
pub const LONG_GI_NS: u16 = 800;
pub const SHORT_GI_NS: u16 = 400;

/// The 2x996-tone HE resource unit (all of a 160 MHz channel), as a tone count.
pub const RU_2X996: u16 = 1992;

/// Bits before the PSDU in the data field (the scrambler-seeding SERVICE field).
const SERVICE_BITS: u64 = 16;
/// Zero bits after the PSDU that flush each BCC encoder.
const TAIL_BITS_PER_ENCODER: u64 = 6;
/// L-STF (8 µs) + L-LTF (8 µs) + L-SIG (4 µs): the legacy preamble every format starts with.
const LEGACY_PREAMBLE: Time = 20 * US;

/// How one PPDU is transmitted: the parameters that set its rate and duration.
///
/// Build one with [`TxVector::non_ht`], [`TxVector::ht`], [`TxVector::vht`] or [`TxVector::he`]
/// and check it with [`TxVector::validate`]; the rate and duration methods assume a valid
/// vector (they may panic or return nonsense otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TxVector {
    pub format: Format,
    /// HT 0-31 (the streams are encoded: N_SS = mcs / 8 + 1), VHT 0-9, HE 0-11. For non-HT, the
    /// index of the rate in 6, 9, 12, 18, 24, 36, 48, 54 Mbit/s.
    pub mcs: u8,
    /// Spatial streams N_SS.
    pub nss: u8,
    pub width_mhz: u16,
    pub gi_ns: u16,
    /// HE only: the resource unit (26, 52, 106, 242, 484, 996 or [`RU_2X996`] tones) of an
    /// OFDMA PPDU; `None` is an HE SU PPDU over the whole channel. On its own an RU vector is
    /// an HE TB (uplink OFDMA) PPDU, whose 8 µs HE-STF makes it 4 µs longer than HE SU; a
    /// downlink HE MU PPDU, with its HE-SIG-B, is timed by [`mu::he_mu_ppdu_duration`].
    pub ru_tones: Option<u16>,
}

impl TxVector {
    /// An 802.11a/g OFDM PPDU at `rate_mbps` (6, 9, 12, 18, 24, 36, 48 or 54; any other rate
    /// yields a vector that [`Self::validate`] rejects).
    pub fn non_ht(rate_mbps: u16) -> Self {
        let mcs = NON_HT_RATES_MBPS.iter().position(|&r| r == rate_mbps).map_or(u8::MAX, |i| i as u8);
        TxVector { format: Format::NonHt, mcs, nss: 1, width_mhz: 20, gi_ns: LONG_GI_NS, ru_tones: None }
    }

    /// An HT-mixed PPDU; `mcs` also sets the number of streams (MCS 8-15 are 2 streams, ...).
    pub fn ht(mcs: u8, width_mhz: u16, short_gi: bool) -> Self {
        let gi_ns = if short_gi { SHORT_GI_NS } else { LONG_GI_NS };
        TxVector { format: Format::Ht, mcs, nss: mcs / 8 + 1, width_mhz, gi_ns, ru_tones: None }
    }

    /// A VHT SU PPDU.
    pub fn vht(mcs: u8, nss: u8, width_mhz: u16, short_gi: bool) -> Self {
        let gi_ns = if short_gi { SHORT_GI_NS } else { LONG_GI_NS };
        TxVector { format: Format::Vht, mcs, nss, width_mhz, gi_ns, ru_tones: None }
    }

    /// An HE SU PPDU over the whole channel; `gi_ns` is 800, 1600 or 3200.
    pub fn he(mcs: u8, nss: u8, width_mhz: u16, gi_ns: u16) -> Self {
        TxVector { format: Format::He, mcs, nss, width_mhz, gi_ns, ru_tones: None }
    }

    /// The same transmission confined to one HE resource unit of `tones` tones (OFDMA).
    pub fn with_ru(self, tones: u16) -> Self {
        TxVector { ru_tones: Some(tones), ..self }
    }

    /// Whether the combination exists in the standard; the error says what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        let (format, mcs, nss, width, gi) = (self.format, self.mcs, self.nss, self.width_mhz, self.gi_ns);
        let name = format.name();
        if self.ru_tones.is_some() && format != Format::He {
            return Err(format!("{name} PPDUs have no resource units: ru_tones is for HE only"));
        }
        match format {
            Format::NonHt => {
                if usize::from(mcs) >= NON_HT_RATES_MBPS.len() {
                    return Err("non-HT rate must be 6, 9, 12, 18, 24, 36, 48 or 54 Mbit/s".into());
                }
                if nss != 1 {
                    return Err(format!("non-HT PPDUs carry 1 spatial stream, not {nss}"));
                }
                one_of(width, &[20], "non-HT channel width", "MHz")?;
                one_of(gi, &[LONG_GI_NS], "non-HT guard interval", "ns")
            }
            Format::Ht => {
                if mcs > 31 {
                    return Err(format!("HT MCS {mcs} is out of range 0-31"));
                }
                if nss != mcs / 8 + 1 {
                    return Err(format!("HT MCS {mcs} carries {} spatial streams, not {nss}", mcs / 8 + 1));
                }
                one_of(width, &[20, 40], "HT channel width", "MHz")?;
                one_of(gi, &[LONG_GI_NS, SHORT_GI_NS], "HT guard interval", "ns")
            }
            Format::Vht => {
                if mcs > 9 {
                    return Err(format!("VHT MCS {mcs} is out of range 0-9"));
                }
                streams_1_to_8(name, nss)?;
                one_of(width, &[20, 40, 80, 160], "VHT channel width", "MHz")?;
                one_of(gi, &[LONG_GI_NS, SHORT_GI_NS], "VHT guard interval", "ns")?;
                if tables::vht_excluded(mcs, nss, width) {
                    return Err(format!(
                        "VHT MCS {mcs} at {width} MHz is not valid with {nss} spatial streams \
                         (802.11ac excludes it: the bits do not split evenly over the encoders)"
                    ));
                }
                Ok(())
            }
            Format::He => {
                if mcs > 11 {
                    return Err(format!("HE MCS {mcs} is out of range 0-11"));
                }
                streams_1_to_8(name, nss)?;
                one_of(width, &[20, 40, 80, 160], "HE channel width", "MHz")?;
                one_of(gi, &[800, 1600, 3200], "HE guard interval", "ns")?;
                // MCS 10-11 (1024-QAM) are accepted on every RU, as ns-3's `HePhy::IsAllowed`
                // does; 802.11ax is often read as reserving them for RUs of 242 tones or more.
                if let Some(tones) = self.ru_tones {
                    one_of(tones, &tables::HE_RU_TONES, "HE RU size", "tones")?;
                    if tones > tables::he_full_channel_ru(width) {
                        return Err(format!("an HE RU of {tones} tones does not fit in a {width} MHz channel"));
                    }
                }
                Ok(())
            }
        }
    }

    /// The PHY data rate in bit/s, N_SD · N_BPSCS · R · N_SS / T_SYM, rounded down to the bit/s
    /// (as ns-3's `WifiMode::GetDataRate` truncates): HT MCS 15 at 20 MHz with short GI is
    /// 520 bits per 3.6 µs = 144 444 444 bit/s.
    pub fn rate_bps(&self) -> u64 {
        debug_assert_eq!(self.validate(), Ok(()));
        let (num, den) = self.data_bits_per_symbol();
        num * SEC / (den * self.symbol_duration())
    }

    /// Airtime of a PPDU carrying `psdu_bytes` (the whole MPDU or A-MPDU, FCS included), without
    /// the 2.4 GHz signal extension (see [`MacTiming::airtime`]).
    pub fn ppdu_duration(&self, psdu_bytes: u32) -> Time {
        debug_assert_eq!(self.validate(), Ok(()));
        self.preamble_duration() + self.data_duration(psdu_bytes)
    }

    /// The data field of a PPDU carrying `psdu_bytes`: its symbols, without the preamble.
    pub fn data_duration(&self, psdu_bytes: u32) -> Time {
        self.data_symbols(psdu_bytes) * self.symbol_duration()
    }

    /// The largest PSDU whose PPDU lasts at most `max` (e.g. [`PPDU_MAX_TIME`] or what is left
    /// of a TXOP); 0 when not even an empty PSDU fits. Not capped at the format's maximum
    /// PSDU or A-MPDU length.
    pub fn psdu_bytes_within(&self, max: Time) -> u32 {
        let Some(data_time) = max.checked_sub(self.preamble_duration()) else {
            return 0;
        };
        let symbols = data_time / self.symbol_duration();
        let (num, den) = self.data_bits_per_symbol();
        let overhead = SERVICE_BITS + TAIL_BITS_PER_ENCODER * self.bcc_encoders();
        let payload_bits = (symbols * num / den).saturating_sub(overhead);
        u32::try_from(payload_bits / 8).unwrap_or(u32::MAX)
    }

    /// Preamble and PHY header, from the start of L-STF to the first data symbol.
    pub fn preamble_duration(&self) -> Time {
        let ltfs = Time::from(ltf_count(self.nss));
        match self.format {
            Format::NonHt => LEGACY_PREAMBLE,
            // HT-SIG 8 µs, HT-STF 4 µs, one 4 µs HT-LTF per (rounded-up) stream pair.
            Format::Ht => LEGACY_PREAMBLE + 8 * US + 4 * US + ltfs * 4 * US,
            // VHT-SIG-A 8 µs, VHT-STF 4 µs, VHT-LTFs; no VHT-SIG-B (as ns-3, see module doc).
            Format::Vht => LEGACY_PREAMBLE + 8 * US + 4 * US + ltfs * 4 * US,
            // RL-SIG 4 µs, HE-SIG-A 8 µs, HE-STF 4 µs (8 µs in an HE TB PPDU), 8 µs HE-LTFs.
            Format::He => {
                let he_stf = if self.ru_tones.is_some() { 8 * US } else { 4 * US };
                LEGACY_PREAMBLE + 4 * US + 8 * US + he_stf + ltfs * 8 * US
            }
        }
    }

    /// One OFDM data symbol, guard interval included.
    pub fn symbol_duration(&self) -> Time {
        let gi = Time::from(self.gi_ns) * NS;
        match self.format {
            Format::NonHt => 4 * US,
            Format::Ht | Format::Vht => 3200 * NS + gi,
            Format::He => 12_800 * NS + gi,
        }
    }

    /// The non-HT vector a control response (ACK, Block Ack, CTS) to this PPDU is sent with:
    /// the highest mandatory OFDM rate (6, 12 or 24 Mbit/s, the default basic rate set) that
    /// does not exceed this PPDU's non-HT reference rate, the 802.11a/g rate with the same
    /// modulation and coding (802.11-2020 10.6.6.5.2, as ns-3 does). So HT MCS 7 (64-QAM 5/6,
    /// reference 54) is answered at 24 Mbit/s but VHT MCS 0 at 80 MHz (BPSK 1/2, 29.3 Mbit/s)
    /// at 6 Mbit/s.
    pub fn control_response_rate(&self) -> TxVector {
        let reference = tables::non_ht_reference_mbps(self.modulation());
        let rate = [24, 12, 6].into_iter().find(|&r| r <= reference).unwrap_or(6);
        TxVector::non_ht(rate)
    }

    /// The modulation and code rate of each spatial stream (what an error model reads).
    pub(crate) fn modulation(&self) -> Modulation {
        match self.format {
            Format::NonHt => NON_HT_MODULATION[usize::from(self.mcs)],
            Format::Ht => MCS_LADDER[usize::from(self.mcs % 8)],
            Format::Vht | Format::He => MCS_LADDER[usize::from(self.mcs)],
        }
    }

    /// N_SD: data subcarriers of the channel, or of the RU for HE.
    fn data_subcarriers(&self) -> u64 {
        match self.format {
            Format::NonHt => tables::NON_HT_DATA_SUBCARRIERS,
            Format::Ht | Format::Vht => tables::ht_vht_data_subcarriers(self.width_mhz),
            Format::He => {
                tables::he_data_subcarriers(self.ru_tones.unwrap_or(tables::he_full_channel_ru(self.width_mhz)))
            }
        }
    }

    /// N_DBPS = N_SD · N_BPSCS · N_SS · R as the fraction (numerator, denominator). It is an
    /// integer for every valid non-HT/HT/VHT vector, but not for some HE ones (1024-QAM 5/6 on
    /// 980 or 1960 subcarriers), where ns-3 uses the fractional value too.
    fn data_bits_per_symbol(&self) -> (u64, u64) {
        let Modulation { bits, code: (num, den) } = self.modulation();
        (self.data_subcarriers() * bits * u64::from(self.nss) * num, den)
    }

    /// N_SYM for a PSDU of `psdu_bytes`.
    fn data_symbols(&self, psdu_bytes: u32) -> u64 {
        let (num, den) = self.data_bits_per_symbol();
        let bits = SERVICE_BITS + 8 * u64::from(psdu_bytes) + TAIL_BITS_PER_ENCODER * self.bcc_encoders();
        (bits * den).div_ceil(num)
    }

    /// N_ES, the BCC encoders, each adding 6 tail bits. ns-3's rule: one encoder per 320 (HT,
    /// long GI) / 350 (HT, short GI) / 540 (VHT, long GI) / 600 Mbit/s (VHT, short GI) of data
    /// rate, with the VHT exceptions of the standard's tables; non-HT uses one, and so does HE,
    /// whose high rates use LDPC.
    fn bcc_encoders(&self) -> u64 {
        let short_gi = self.gi_ns == SHORT_GI_NS;
        let per_encoder_bps: u64 = match self.format {
            Format::NonHt | Format::He => return 1,
            Format::Ht if short_gi => 350_000_000,
            Format::Ht => 320_000_000,
            Format::Vht => {
                if let Some(n) = tables::vht_encoders_exception(self.width_mhz, self.nss, self.mcs) {
                    return n;
                }
                if short_gi {
                    600_000_000
                } else {
                    540_000_000
                }
            }
        };
        self.rate_bps().div_ceil(per_encoder_bps)
    }
}

/// HT/VHT/HE long training fields for `nss` streams (802.11-2020 Table 19-13 and its VHT/HE
/// counterparts): 1, 2, 4, 4, 6, 6, 8, 8.
fn ltf_count(nss: u8) -> u8 {
    match nss {
        0..=2 => nss,
        3 | 4 => 4,
        5 | 6 => 6,
        _ => 8,
    }
}

fn streams_1_to_8(format: &str, nss: u8) -> Result<(), String> {
    if (1..=8).contains(&nss) {
        Ok(())
    } else {
        Err(format!("{format} supports 1 to 8 spatial streams, not {nss}"))
    }
}

/// `Err("<what> must be A, B or C <unit>, not V <unit>")` unless `value` is one of `allowed`.
fn one_of(value: u16, allowed: &[u16], what: &str, unit: &str) -> Result<(), String> {
    if allowed.contains(&value) {
        return Ok(());
    }
    let mut list = String::new();
    for (i, a) in allowed.iter().enumerate() {
        if i > 0 {
            list.push_str(if i + 1 == allowed.len() { " or " } else { ", " });
        }
        list.push_str(&a.to_string());
    }
    Err(format!("{what} must be {list} {unit}, not {value} {unit}"))
}
