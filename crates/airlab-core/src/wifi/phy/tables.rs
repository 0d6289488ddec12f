//! The per-MCS constants behind the rate and duration formulas: modulation and coding rate,
//! data subcarriers per channel width or resource unit, and the few VHT combinations the
//! standard treats specially. Sources: IEEE 802.11-2020 clauses 17 (OFDM), 19 (HT) and 21 (VHT),
//! 802.11ax-2021 clause 27 (HE), as ns-3 encodes them (`OfdmPhy`, `HtPhy`, `VhtPhy`, `HePhy`).

/// Modulation and coding of one spatial stream: N_BPSCS coded bits per subcarrier and the
/// convolutional code rate R = `code.0 / code.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Modulation {
    pub bits: u64,
    pub code: (u64, u64),
}

const fn m(bits: u64, num: u64, den: u64) -> Modulation {
    Modulation { bits, code: (num, den) }
}

/// The eight 802.11a/g rates, in Mbit/s; a non-HT [`super::TxVector`]'s `mcs` indexes this.
pub(super) const NON_HT_RATES_MBPS: [u16; 8] = [6, 9, 12, 18, 24, 36, 48, 54];

/// Modulation of each entry of [`NON_HT_RATES_MBPS`] (802.11-2020 Table 17-4).
pub(super) const NON_HT_MODULATION: [Modulation; 8] =
    [m(1, 1, 2), m(1, 3, 4), m(2, 1, 2), m(2, 3, 4), m(4, 1, 2), m(4, 3, 4), m(6, 2, 3), m(6, 3, 4)];

/// The MCS ladder shared by HT (per stream: `mcs % 8`), VHT (0-9) and HE (0-11): BPSK, QPSK,
/// 16-QAM, 64-QAM, 256-QAM (VHT/HE) and 1024-QAM (HE) at their code rates.
pub(super) const MCS_LADDER: [Modulation; 12] = [
    m(1, 1, 2),  // 0 BPSK 1/2
    m(2, 1, 2),  // 1 QPSK 1/2
    m(2, 3, 4),  // 2 QPSK 3/4
    m(4, 1, 2),  // 3 16-QAM 1/2
    m(4, 3, 4),  // 4 16-QAM 3/4
    m(6, 2, 3),  // 5 64-QAM 2/3
    m(6, 3, 4),  // 6 64-QAM 3/4
    m(6, 5, 6),  // 7 64-QAM 5/6
    m(8, 3, 4),  // 8 256-QAM 3/4
    m(8, 5, 6),  // 9 256-QAM 5/6
    m(10, 3, 4), // 10 1024-QAM 3/4
    m(10, 5, 6), // 11 1024-QAM 5/6
];

/// Data subcarriers of a 20 MHz non-HT OFDM symbol.
pub(super) const NON_HT_DATA_SUBCARRIERS: u64 = 48;

/// HT and VHT data subcarriers (N_SD) per channel width.
pub(super) fn ht_vht_data_subcarriers(width_mhz: u16) -> u64 {
    match width_mhz {
        20 => 52,
        40 => 108,
        80 => 234,
        _ => 468, // 160 MHz
    }
}

/// HE resource-unit sizes in tones; 2x996 is written as 1992 ([`super::RU_2X996`]).
pub(super) const HE_RU_TONES: [u16; 7] = [26, 52, 106, 242, 484, 996, 1992];

/// HE data subcarriers of a resource unit (ns-3 `HePhy::GetUsableSubcarriers`): its tones less
/// its pilots (2 in a 26-tone RU, 4 in 52 and 106, 8 in 242, 16 in 484 and 996).
pub(super) fn he_data_subcarriers(ru_tones: u16) -> u64 {
    match ru_tones {
        26 => 24,
        52 => 48,
        106 => 102,
        242 => 234,
        484 => 468,
        996 => 980,
        _ => 1960, // 2x996
    }
}

/// The RU that spans a whole HE channel: an HE SU PPDU uses it.
pub(super) fn he_full_channel_ru(width_mhz: u16) -> u16 {
    match width_mhz {
        20 => 242,
        40 => 484,
        80 => 996,
        _ => 1992,
    }
}

/// VHT MCS/width/N_SS combinations that 802.11ac leaves out of its rate tables, because the
/// coded or data bits would not split evenly over the BCC encoders. ns-3's
/// `VhtPhy::IsCombinationAllowed` lists only the first two for N_SS ≤ 4 (and so rejects MCS 9 at
/// 20 MHz with 6 streams, which the standard allows); this follows the standard's tables, as
/// Wireshark's radiotap dissector does.
pub(super) fn vht_excluded(mcs: u8, nss: u8, width_mhz: u16) -> bool {
    matches!((mcs, width_mhz, nss), (9, 20, 1 | 2 | 4 | 5 | 7 | 8) | (6, 80, 3 | 7) | (9, 80, 6) | (9, 160, 3))
}

/// VHT combinations whose number of BCC encoders N_ES is not the one the per-encoder rate rule
/// gives (802.11-2020 Tables 21-30 ff., as listed in ns-3's `VhtPhy::m_exceptionsMap`), keyed by
/// (width, N_SS, MCS).
pub(super) fn vht_encoders_exception(width_mhz: u16, nss: u8, mcs: u8) -> Option<u64> {
    Some(match (width_mhz, nss, mcs) {
        (80, 7, 2) => 3,
        (80, 7, 7 | 8) | (80, 8, 7) | (160, 4, 7) | (160, 7, 4) => 6,
        (160, 5, 8) | (160, 6, 7) => 8,
        (160, 7, 3) => 4,
        (160, 7, 5) => 7,
        (160, 7, 7) => 9,
        (160, 7, 8 | 9) => 12,
        _ => return None,
    })
}

/// The non-HT reference rate of a modulation (802.11-2020 10.6.6.5.2; ns-3
/// `CalculateNonHtReferenceRate`): the 802.11a/g rate with the same modulation and coding,
/// capped at 54 Mbit/s. It, not the HT/VHT/HE data rate, picks the rate of a control response.
pub(super) fn non_ht_reference_mbps(modulation: Modulation) -> u16 {
    match (modulation.bits, modulation.code) {
        (1, (1, 2)) => 6,
        (1, _) => 9,
        (2, (1, 2)) => 12,
        (2, _) => 18,
        (4, (1, 2)) => 24,
        (4, _) => 36,
        (6, (2, 3)) => 48,
        _ => 54, // 64-QAM 3/4 and 5/6, 256-QAM, 1024-QAM
    }
}
