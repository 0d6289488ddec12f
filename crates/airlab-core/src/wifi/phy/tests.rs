//! Expected values come from outside the code: the rate tables of IEEE 802.11 (as rounded to
//! 0.1 Mbit/s in `reference-facts.md` §6.4), hand computations of N_SD·N_BPSCS·R·N_SS/T_SYM,
//! and the durations of ns-3's `src/wifi/test/tx-duration-test.cc`.

use super::*;
use crate::sim::{NS, US};

/// Rate in units of 0.1 Mbit/s, rounded half up like the standard's tables.
fn tenths_mbps(tx: TxVector) -> u64 {
    (tx.rate_bps() + 50_000) / 100_000
}

fn check_tenths(cases: &[(TxVector, u64)]) {
    for &(tx, tenths) in cases {
        assert_eq!(tx.validate(), Ok(()), "{tx:?}");
        assert_eq!(tenths_mbps(tx), tenths, "{tx:?}: {} bit/s", tx.rate_bps());
    }
}

#[test]
fn non_ht_rates() {
    for rate in [6, 9, 12, 18, 24, 36, 48, 54] {
        let tx = TxVector::non_ht(rate);
        assert_eq!(tx.validate(), Ok(()));
        assert_eq!(tx.rate_bps(), u64::from(rate) * 1_000_000);
    }
}

#[test]
fn ht_rates_match_the_standard_table() {
    // MCS 0-7, one stream: 20 MHz long/short GI, 40 MHz long/short GI.
    let lgi20 = [65, 130, 195, 260, 390, 520, 585, 650];
    let sgi20 = [72, 144, 217, 289, 433, 578, 650, 722];
    let lgi40 = [135, 270, 405, 540, 810, 1080, 1215, 1350];
    let sgi40 = [150, 300, 450, 600, 900, 1200, 1350, 1500];
    let mut cases = Vec::new();
    for mcs in 0..8u8 {
        let i = usize::from(mcs);
        cases.push((TxVector::ht(mcs, 20, false), lgi20[i]));
        cases.push((TxVector::ht(mcs, 20, true), sgi20[i]));
        cases.push((TxVector::ht(mcs, 40, false), lgi40[i]));
        cases.push((TxVector::ht(mcs, 40, true), sgi40[i]));
    }
    // MCS 15: two streams of 64-QAM 5/6.
    cases.extend([
        (TxVector::ht(15, 20, false), 1300),
        (TxVector::ht(15, 20, true), 1444),
        (TxVector::ht(15, 40, false), 2700),
        (TxVector::ht(15, 40, true), 3000),
    ]);
    check_tenths(&cases);
}

#[test]
fn ht_rates_exact_to_the_bit() {
    // 108 subcarriers × 6 bits × 5/6 × 2 streams = 1080 bits per 3.6 µs.
    assert_eq!(TxVector::ht(15, 40, true).rate_bps(), 300_000_000);
    // 52 × 6 × 5/6 × 2 = 520 bits per 3.6 µs = 144 444 444.4 bit/s.
    assert_eq!(TxVector::ht(15, 20, true).rate_bps(), 144_444_444);
    // 52 × 1 × 1/2 = 26 bits per 4 µs.
    assert_eq!(TxVector::ht(0, 20, false).rate_bps(), 6_500_000);
    assert_eq!(TxVector::ht(0, 20, false).nss, 1);
    assert_eq!(TxVector::ht(31, 40, true).nss, 4);
    // MCS 31: 4 × 108 × 6 × 5/6 = 2160 bits per 3.6 µs.
    assert_eq!(TxVector::ht(31, 40, true).rate_bps(), 600_000_000);
}

#[test]
fn vht_rates_match_the_standard_table() {
    // 80 MHz, one stream, MCS 0-9, long / short GI.
    let lgi80 = [293, 585, 878, 1170, 1755, 2340, 2633, 2925, 3510, 3900];
    let sgi80 = [325, 650, 975, 1300, 1950, 2600, 2925, 3250, 3900, 4333];
    let mut cases = Vec::new();
    for mcs in 0..10u8 {
        cases.push((TxVector::vht(mcs, 1, 80, false), lgi80[usize::from(mcs)]));
        cases.push((TxVector::vht(mcs, 1, 80, true), sgi80[usize::from(mcs)]));
    }
    cases.extend([
        (TxVector::vht(9, 1, 160, false), 7800),
        (TxVector::vht(9, 1, 160, true), 8667),
        (TxVector::vht(8, 1, 20, false), 780),
        (TxVector::vht(9, 3, 20, false), 2600),
        (TxVector::vht(9, 2, 40, true), 4000),
    ]);
    check_tenths(&cases);
    // 468 × 8 × 5/6 × 8 streams = 24 960 bits per 3.6 µs: the 6.93 Gbit/s of 802.11ac.
    assert_eq!(TxVector::vht(9, 8, 160, true).rate_bps(), 6_933_333_333);
    assert_eq!(TxVector::vht(9, 1, 80, true).rate_bps(), 433_333_333);
}

#[test]
fn he_rates_match_the_ru_table() {
    // One stream, 0.8 µs GI; columns are RUs of 26, 52, 106, 242, 484, 996 and 2x996 tones.
    let rus = [26, 52, 106, 242, 484, 996, RU_2X996];
    let widths = [20, 20, 20, 20, 40, 80, 160];
    let rows: [(u8, [u64; 7]); 5] = [
        (0, [9, 18, 38, 86, 172, 360, 721]),
        (3, [35, 71, 150, 344, 688, 1441, 2882]),
        (7, [88, 176, 375, 860, 1721, 3603, 7206]),
        (9, [118, 235, 500, 1147, 2294, 4804, 9608]),
        (11, [147, 294, 625, 1434, 2868, 6005, 12010]),
    ];
    let mut cases = Vec::new();
    for (mcs, tenths) in rows {
        for i in 0..rus.len() {
            cases.push((TxVector::he(mcs, 1, widths[i], 800).with_ru(rus[i]), tenths[i]));
        }
        // The full-channel RU of an HE SU PPDU gives the same rates.
        for (i, width) in [(3, 20), (4, 40), (5, 80), (6, 160)] {
            cases.push((TxVector::he(mcs, 1, width, 800), tenths[i]));
        }
    }
    check_tenths(&cases);
}

#[test]
fn he_rates_scale_with_the_guard_interval() {
    // 234 × 1 × 1/2 = 117 bits per 12.8 µs + GI.
    assert_eq!(TxVector::he(0, 1, 20, 800).rate_bps(), 8_602_941); // 117 / 13.6 µs
    assert_eq!(TxVector::he(0, 1, 20, 1600).rate_bps(), 8_125_000); // 117 / 14.4 µs
    assert_eq!(TxVector::he(0, 1, 20, 3200).rate_bps(), 7_312_500); // 117 / 16 µs
                                                                    // 980 × 10 × 5/6 = 8166.67 bits per symbol (not an integer).
    assert_eq!(TxVector::he(11, 1, 80, 800).rate_bps(), 600_490_196);
    assert_eq!(TxVector::he(11, 1, 80, 3200).rate_bps(), 510_416_666);
    // The headline figures of 802.11ax: 1201 Mbit/s for 2 streams at 80 MHz, 9.6 Gbit/s for 8
    // streams at 160 MHz.
    assert_eq!(TxVector::he(11, 2, 80, 800).rate_bps(), 1_200_980_392);
    assert_eq!(TxVector::he(11, 8, 160, 800).rate_bps(), 9_607_843_137);
}

/// ns-3 `tx-duration-test.cc`: (vector, [duration of 1536 B, 76 B, 14 B PSDUs] in ns).
fn check_durations(cases: &[(TxVector, [Time; 3])]) {
    for &(tx, expected) in cases {
        assert_eq!(tx.validate(), Ok(()), "{tx:?}");
        for (bytes, want) in [1536, 76, 14].into_iter().zip(expected) {
            assert_eq!(tx.ppdu_duration(bytes), want, "{tx:?}, {bytes} B");
        }
    }
}

#[test]
fn non_ht_durations_match_ns3() {
    check_durations(&[(TxVector::non_ht(54), [248 * US, 32 * US, 24 * US])]);
    // 802.11g: the same plus the 6 µs signal extension of the 2.4 GHz band.
    let erp = MacTiming::erp_2_4ghz();
    let tx = TxVector::non_ht(54);
    assert_eq!([1536, 76, 14].map(|b| erp.airtime(&tx, b)), [254 * US, 38 * US, 30 * US]);
}

#[test]
fn ht_durations_match_ns3() {
    check_durations(&[
        (TxVector::ht(7, 20, false), [228 * US, 48 * US, 40 * US]),
        (TxVector::ht(0, 20, true), [1_742_400 * NS, 126 * US, 57_600 * NS]),
        (TxVector::ht(6, 20, true), [226_800 * NS, 46_800 * NS, 39_600 * NS]),
        (TxVector::ht(7, 40, false), [128 * US, 44 * US, 40 * US]),
        (TxVector::ht(7, 40, true), [118_800 * NS, 43_200 * NS, 39_600 * NS]),
    ]);
    // At 2.4 GHz ns-3 adds the signal extension to HT PPDUs as well.
    assert_eq!(MacTiming::erp_2_4ghz().airtime(&TxVector::ht(7, 20, false), 1536), 234 * US);
}

#[test]
fn vht_durations_match_ns3() {
    check_durations(&[
        (TxVector::vht(8, 1, 20, false), [196 * US, 48 * US, 40 * US]),
        (TxVector::vht(8, 1, 20, true), [180 * US, 46_800 * NS, 39_600 * NS]),
        (TxVector::vht(9, 1, 40, false), [108 * US, 40 * US, 40 * US]),
        (TxVector::vht(9, 1, 40, true), [100_800 * NS, 39_600 * NS, 39_600 * NS]),
        (TxVector::vht(0, 1, 80, false), [460 * US, 60 * US, 44 * US]),
        (TxVector::vht(0, 1, 80, true), [417_600 * NS, 57_600 * NS, 43_200 * NS]),
        (TxVector::vht(9, 1, 80, false), [68 * US, 40 * US, 40 * US]),
        (TxVector::vht(9, 1, 80, true), [64_800 * NS, 39_600 * NS, 39_600 * NS]),
        (TxVector::vht(8, 1, 160, false), [56 * US, 40 * US, 40 * US]),
        (TxVector::vht(8, 1, 160, true), [54 * US, 39_600 * NS, 39_600 * NS]),
    ]);
}

#[test]
fn he_su_durations_match_ns3() {
    check_durations(&[
        (TxVector::he(0, 1, 20, 800), [1_485_600 * NS, 125_600 * NS, 71_200 * NS]),
        (TxVector::he(0, 1, 40, 800), [764_800 * NS, 84_800 * NS, 57_600 * NS]),
        (TxVector::he(0, 1, 80, 800), [397_600 * NS, 71_200 * NS, 57_600 * NS]),
        (TxVector::he(0, 1, 160, 800), [220_800 * NS, 57_600 * NS, 57_600 * NS]),
        (TxVector::he(0, 1, 20, 1600), [1_570_400 * NS, 130_400 * NS, 72_800 * NS]),
        (TxVector::he(0, 1, 40, 1600), [807_200 * NS, 87_200 * NS, 58_400 * NS]),
        (TxVector::he(0, 1, 80, 1600), [418_400 * NS, 72_800 * NS, 58_400 * NS]),
        (TxVector::he(0, 1, 160, 1600), [231_200 * NS, 58_400 * NS, 58_400 * NS]),
        (TxVector::he(0, 1, 20, 3200), [1740 * US, 140 * US, 76 * US]),
        (TxVector::he(0, 1, 40, 3200), [892 * US, 92 * US, 60 * US]),
        (TxVector::he(0, 1, 80, 3200), [460 * US, 76 * US, 60 * US]),
        (TxVector::he(0, 1, 160, 3200), [252 * US, 60 * US, 60 * US]),
        (TxVector::he(11, 1, 20, 800), [139_200 * NS, 57_600 * NS, 57_600 * NS]),
        (TxVector::he(11, 1, 40, 800), [98_400 * NS, 57_600 * NS, 57_600 * NS]),
        (TxVector::he(11, 1, 80, 800), [71_200 * NS, 57_600 * NS, 57_600 * NS]),
        (TxVector::he(11, 1, 160, 800), [57_600 * NS, 57_600 * NS, 57_600 * NS]),
        (TxVector::he(11, 1, 20, 1600), [144_800 * NS, 58_400 * NS, 58_400 * NS]),
        (TxVector::he(11, 1, 40, 1600), [101_600 * NS, 58_400 * NS, 58_400 * NS]),
        (TxVector::he(11, 1, 80, 1600), [72_800 * NS, 58_400 * NS, 58_400 * NS]),
        (TxVector::he(11, 1, 160, 1600), [58_400 * NS, 58_400 * NS, 58_400 * NS]),
        (TxVector::he(11, 1, 20, 3200), [156 * US, 60 * US, 60 * US]),
        (TxVector::he(11, 1, 40, 3200), [108 * US, 60 * US, 60 * US]),
        (TxVector::he(11, 1, 80, 3200), [76 * US, 60 * US, 60 * US]),
        (TxVector::he(11, 1, 160, 3200), [60 * US, 60 * US, 60 * US]),
    ]);
}

#[test]
fn he_ru_ppdu_has_the_tb_preamble() {
    // An HE TB PPDU has no SIG-B but an HE-STF 4 µs longer than HE SU: 20 + 4 + 8 + 8 + 8 =
    // 48 µs, then ⌈12 310 / 117⌉ = 106 symbols; ns-3's HE MU anchor for the same data is
    // 8 µs of SIG-B longer (`he_mu_ppdu_matches_ns3`).
    let tx = TxVector::he(0, 1, 40, 800).with_ru(242);
    assert_eq!(tx.validate(), Ok(()));
    assert_eq!(tx.preamble_duration(), 48 * US);
    assert_eq!(tx.ppdu_duration(1536), 1_493_600 * NS - 4 * US);
}

#[test]
fn preambles_grow_with_the_streams() {
    // HT-mixed: 20 + HT-SIG 8 + HT-STF 4 + 4 per HT-LTF (1, 2, 4, 4 for 1-4 streams).
    assert_eq!(
        [0, 8, 16, 24].map(|mcs| TxVector::ht(mcs, 20, false).preamble_duration()),
        [36, 40, 48, 48].map(|t| t * US)
    );
    // VHT (ns-3, no SIG-B): 20 + 8 + 4 + 4 per VHT-LTF (1, 2, 4, 4, 6, 6, 8, 8).
    let vht = [1, 2, 3, 4, 5, 6, 7, 8].map(|nss| TxVector::vht(0, nss, 80, false).preamble_duration() / US);
    assert_eq!(vht, [36, 40, 48, 48, 56, 56, 64, 64]);
    // HE SU: 20 + RL-SIG 4 + HE-SIG-A 8 + HE-STF 4 + 8 per HE-LTF.
    let he = [1, 2, 3, 4].map(|nss| TxVector::he(0, nss, 80, 800).preamble_duration() / US);
    assert_eq!(he, [44, 52, 68, 68]);
    assert_eq!(TxVector::non_ht(6).preamble_duration(), 20 * US);
}

#[test]
fn control_frames_at_basic_rates() {
    let (r6, r12, r24) = (TxVector::non_ht(6), TxVector::non_ht(12), TxVector::non_ht(24));
    // ACK: 16 + 112 + 6 = 134 bits; 6 symbols of 24 bits, 3 of 48, 2 of 96.
    assert_eq!(ack_duration(&r6), 44 * US);
    assert_eq!(ack_duration(&r12), 32 * US);
    assert_eq!(ack_duration(&r24), 28 * US);
    assert_eq!(cts_duration(&r6), 44 * US);
    // RTS: 182 bits → 8 symbols at 6 Mbit/s.
    assert_eq!(rts_duration(&r6), 52 * US);
    // Compressed Block Ack, 32 B: 278 bits → 12 symbols at 6, 3 at 24 Mbit/s.
    assert_eq!(block_ack_bytes(64), 32);
    assert_eq!(block_ack_duration(&r6, 64), 68 * US);
    assert_eq!(block_ack_duration(&r24, 64), 32 * US);
    // HE's 256-MPDU window: 56 B = 470 bits → 5 symbols at 24 Mbit/s.
    assert_eq!(block_ack_bytes(256), 56);
    assert_eq!(block_ack_duration(&r24, 256), 40 * US);
}

#[test]
fn control_response_rate_follows_the_non_ht_reference_rate() {
    let rate = |tx: TxVector| tx.control_response_rate().rate_bps() / 1_000_000;
    assert_eq!(rate(TxVector::non_ht(54)), 24);
    assert_eq!(rate(TxVector::non_ht(24)), 24);
    assert_eq!(rate(TxVector::non_ht(18)), 12);
    assert_eq!(rate(TxVector::non_ht(9)), 6);
    assert_eq!(rate(TxVector::ht(7, 40, true)), 24); // 64-QAM 5/6 → reference 54
    assert_eq!(rate(TxVector::ht(2, 20, false)), 12); // QPSK 3/4 → 18
    assert_eq!(rate(TxVector::ht(11, 20, false)), 24); // 16-QAM 1/2 → 24
    assert_eq!(rate(TxVector::ht(8, 40, false)), 6); // BPSK 1/2 → 6
    assert_eq!(rate(TxVector::vht(0, 1, 80, false)), 6); // 29.3 Mbit/s, but BPSK 1/2
    assert_eq!(rate(TxVector::he(11, 2, 160, 800)), 24);
    assert_eq!(TxVector::ht(7, 20, false).control_response_rate(), TxVector::non_ht(24));
}

#[test]
fn mac_timing() {
    let t = MacTiming::ofdm_5ghz();
    assert_eq!(t.difs(), 34 * US);
    assert_eq!([2, 3, 7].map(|n| t.aifs(n)), [34 * US, 43 * US, 79 * US]);
    // SIFS 16 + ACK at 6 Mbit/s 44 + DIFS 34.
    assert_eq!(t.eifs(&TxVector::non_ht(6)), 94 * US);
    assert_eq!(t.airtime(&TxVector::non_ht(6), ACK_BYTES), 44 * US);
    let g = MacTiming::erp_2_4ghz();
    assert_eq!(g.difs(), 28 * US);
    // SIFS 10 + ACK 44 + signal extension 6 + DIFS 28.
    assert_eq!(g.eifs(&TxVector::non_ht(6)), 88 * US);
}

#[test]
fn frame_sizes() {
    assert_eq!(mpdu_bytes(1500), 1538);
    assert_eq!(mpdu_bytes(40), 78);
    assert_eq!(ampdu_subframe_bytes(1538), 1544);
    assert_eq!(ampdu_subframe_bytes(1536), 1540);
    assert_eq!(ampdu_bytes([1538]), 1542);
    assert_eq!(ampdu_bytes([1538, 1538]), 1544 + 1542);
    assert_eq!(ampdu_bytes([78, 1538, 1538]), 84 + 1544 + 1542);
    assert_eq!(ampdu_bytes([]), 0);
}

#[test]
fn aggregation_limits() {
    assert_eq!(PPDU_MAX_TIME, 5_484 * US);
    assert_eq!(Format::Ht.max_ampdu_bytes(), Some(65_535));
    assert_eq!(Format::Vht.max_ampdu_bytes(), Some(1_048_575));
    assert_eq!(Format::He.max_ampdu_bytes(), Some(6_500_631));
    assert_eq!(Format::NonHt.max_ampdu_bytes(), None);
    assert_eq!(Format::NonHt.max_psdu_bytes(), 4095);
    assert_eq!(Format::Vht.max_psdu_bytes(), 4_692_480);
    assert_eq!([Format::Ht, Format::Vht, Format::He].map(Format::block_ack_window), [Some(64), Some(64), Some(256)]);
}

#[test]
fn psdu_bytes_within_is_the_largest_psdu_that_fits() {
    // HT MCS 7, 20 MHz: (228 − 36) / 4 = 48 symbols of 260 bits, less 22 bits → 1557 B.
    assert_eq!(TxVector::ht(7, 20, false).psdu_bytes_within(228 * US), 1557);
    assert_eq!(TxVector::non_ht(6).psdu_bytes_within(19 * US), 0);
    let vectors = [
        TxVector::non_ht(6),
        TxVector::non_ht(54),
        TxVector::ht(0, 20, true),
        TxVector::ht(23, 40, true),
        TxVector::vht(9, 2, 80, true),
        TxVector::vht(7, 7, 160, false),
        TxVector::he(11, 1, 160, 800),
        TxVector::he(5, 2, 80, 3200).with_ru(106),
    ];
    for tx in vectors {
        assert_eq!(tx.validate(), Ok(()), "{tx:?}");
        for max in [80 * US, 100 * US, 1_000 * US, 2_080 * US, PPDU_MAX_TIME] {
            let bytes = tx.psdu_bytes_within(max);
            assert!(bytes > 0, "{tx:?} {max}");
            assert!(tx.ppdu_duration(bytes) <= max, "{tx:?} {max}");
            assert!(tx.ppdu_duration(bytes + 1) > max, "{tx:?} {max}");
        }
    }
}

#[test]
fn validate_rejects_what_the_standard_lacks() {
    let err = |tx: TxVector| tx.validate().unwrap_err();
    assert_eq!(err(TxVector::ht(32, 20, false)), "HT MCS 32 is out of range 0-31");
    assert_eq!(err(TxVector { nss: 1, ..TxVector::ht(15, 20, false) }), "HT MCS 15 carries 2 spatial streams, not 1");
    assert_eq!(err(TxVector::ht(7, 80, false)), "HT channel width must be 20 or 40 MHz, not 80 MHz");
    assert_eq!(
        err(TxVector { gi_ns: 1600, ..TxVector::ht(7, 20, false) }),
        "HT guard interval must be 800 or 400 ns, not 1600 ns"
    );
    assert_eq!(err(TxVector::non_ht(11)), "non-HT rate must be 6, 9, 12, 18, 24, 36, 48 or 54 Mbit/s");
    assert_eq!(
        err(TxVector { width_mhz: 40, ..TxVector::non_ht(6) }),
        "non-HT channel width must be 20 MHz, not 40 MHz"
    );
    assert_eq!(err(TxVector::vht(10, 1, 80, false)), "VHT MCS 10 is out of range 0-9");
    assert_eq!(err(TxVector::vht(0, 9, 80, false)), "VHT supports 1 to 8 spatial streams, not 9");
    assert!(err(TxVector::vht(9, 1, 20, false)).starts_with("VHT MCS 9 at 20 MHz is not valid with 1 spatial streams"));
    assert!(err(TxVector::vht(6, 3, 80, true)).starts_with("VHT MCS 6 at 80 MHz is not valid with 3 spatial streams"));
    for (mcs, nss, width) in [(9, 2, 20), (9, 4, 20), (6, 7, 80), (9, 6, 80), (9, 3, 160)] {
        assert!(TxVector::vht(mcs, nss, width, false).validate().is_err(), "MCS {mcs} × {nss} at {width} MHz");
    }
    for (mcs, nss, width) in [(9, 3, 20), (9, 6, 20), (8, 1, 20), (6, 2, 80), (6, 4, 80), (9, 3, 80), (9, 4, 160)] {
        assert_eq!(TxVector::vht(mcs, nss, width, false).validate(), Ok(()), "MCS {mcs} × {nss} at {width} MHz");
    }
    assert_eq!(err(TxVector::he(12, 1, 20, 800)), "HE MCS 12 is out of range 0-11");
    assert_eq!(err(TxVector::he(0, 1, 20, 400)), "HE guard interval must be 800, 1600 or 3200 ns, not 400 ns");
    assert_eq!(
        err(TxVector::he(0, 1, 20, 800).with_ru(100)),
        "HE RU size must be 26, 52, 106, 242, 484, 996 or 1992 tones, not 100 tones"
    );
    assert_eq!(err(TxVector::he(0, 1, 20, 800).with_ru(484)), "an HE RU of 484 tones does not fit in a 20 MHz channel");
    assert_eq!(
        err(TxVector::he(0, 1, 80, 800).with_ru(RU_2X996)),
        "an HE RU of 1992 tones does not fit in a 80 MHz channel"
    );
    assert_eq!(
        err(TxVector::vht(0, 1, 80, false).with_ru(26)),
        "VHT PPDUs have no resource units: ru_tones is for HE only"
    );
    assert_eq!(TxVector::he(11, 8, 160, 3200).with_ru(RU_2X996).validate(), Ok(()));
    assert_eq!(TxVector::he(0, 1, 20, 800).with_ru(26).validate(), Ok(()));
}

#[test]
fn tail_bits_count_once_per_encoder() {
    // VHT MCS 8 at 160 MHz: 2808 data bits per symbol, 702 Mbit/s, so 2 BCC encoders. A 348 B
    // PSDU is 16 + 2784 + 2 × 6 = 2812 bits: one symbol too many for a single symbol, which it
    // would fit with one encoder (2806 bits).
    let tx = TxVector::vht(8, 1, 160, false);
    assert_eq!(tx.bcc_encoders(), 2);
    assert_eq!(tx.ppdu_duration(348), 36 * US + 2 * 4 * US);
    assert_eq!(tx.ppdu_duration(347), 36 * US + 4 * US);
    assert_eq!(TxVector::vht(8, 4, 160, false).bcc_encoders(), 6); // 2808 Mbit/s
    assert_eq!(TxVector::vht(7, 7, 160, false).bcc_encoders(), 9); // the tables' exception (rule: 8)
    assert_eq!(TxVector::ht(15, 40, true).bcc_encoders(), 1); // 300 Mbit/s
    assert_eq!(TxVector::ht(21, 40, false).bcc_encoders(), 2); // 324 Mbit/s
    assert_eq!(TxVector::he(11, 8, 160, 800).bcc_encoders(), 1); // LDPC
}

#[test]
fn equal_ru_allocations_match_ns3() {
    use mu::RuAllocation;
    // `HeRu::GetEqualSizedRusForStations`: the largest number of equal RUs not above n.
    // (width, [(stations, RU tones, RUs)]).
    type Rows = &'static [(usize, u16, usize)];
    let cases: [(u16, Rows); 3] = [
        (20, &[(1, 242, 1), (2, 106, 2), (3, 106, 2), (4, 52, 4), (8, 52, 4), (9, 26, 9), (30, 26, 9)]),
        (40, &[(1, 484, 1), (3, 242, 2), (4, 106, 4), (7, 106, 4), (8, 52, 8), (17, 52, 8), (18, 26, 18)]),
        (80, &[(1, 996, 1), (2, 484, 2), (4, 242, 4), (8, 106, 8), (16, 52, 16), (36, 52, 16), (37, 26, 37)]),
    ];
    for (width, rows) in cases {
        for &(stations, tones, count) in rows {
            assert_eq!(RuAllocation::equal(width, stations), RuAllocation { width_mhz: width, tones, count });
        }
    }
    assert_eq!(RuAllocation::equal(160, 4), RuAllocation { width_mhz: 160, tones: 484, count: 4 });
    assert_eq!(RuAllocation::equal(160, 1).tones, RU_2X996);
}

#[test]
fn sig_b_matches_ns3() {
    // ns-3 `MuSigDurationTest`: (width, users per content channel, SIG-B MCS) -> duration.
    let cases = [
        (20, (2, 0), 5, 4 * US),
        (40, (2, 4), 4, 4 * US),
        (40, (2, 5), 3, 8 * US),
        (80, (3, 6), 1, 16 * US),
        (80, (18, 18), 5, 12 * US),
    ];
    for (width, users, mcs, want) in cases {
        assert_eq!(mu::sig_b_duration(width, users, mcs), want, "{width} MHz {users:?} MCS {mcs}");
    }
    // Equal allocations: content channels and durations worked by hand from the field sizes
    // (80 MHz 37x26: 19 + 18 users, 27 + 9 x 52 + 31 = 526 bits, 21 symbols at MCS 0).
    use mu::RuAllocation;
    let alloc = |width, n| RuAllocation::equal(width, n);
    assert_eq!(alloc(40, 18).content_channel_users(), (9, 9));
    assert_eq!(alloc(80, 37).content_channel_users(), (19, 18));
    assert_eq!(alloc(80, 4).content_channel_users(), (2, 2));
    assert_eq!(alloc(80, 2).content_channel_users(), (1, 1));
    for (a, mcs, want) in [
        (alloc(20, 4), 0, 20),
        (alloc(20, 4), 5, 4),
        (alloc(20, 9), 0, 40),
        (alloc(80, 37), 0, 84),
        (alloc(80, 37), 5, 12),
        (alloc(80, 16), 2, 16),
        (alloc(80, 4), 0, 16),
    ] {
        assert_eq!(a.sig_b_duration(mcs), want * US, "{a:?} MCS {mcs}");
    }
}

#[test]
fn he_mu_ppdu_matches_ns3() {
    use mu::{he_mu_ppdu_duration, RuAllocation};
    // ns-3 `CheckMuTxDuration`: 40 MHz, two 242-tone RUs, 1536 B each at HE-MCS 0, GI 0.8 µs:
    // the HE SU time of one user plus a two-symbol SIG-B.
    let alloc = RuAllocation::equal(40, 2);
    let user = TxVector::he(0, 1, 40, 800).with_ru(242);
    assert_eq!(he_mu_ppdu_duration(&alloc, &[(user, 1536), (user, 1536)]), 1_493_600 * NS);
    // A DL MU cycle worked by hand: 20 MHz, four 52-tone RUs at HE-MCS 7, GI 0.8, seven
    // 1538-byte MPDUs per station (A-MPDU 10 806 B, 361 symbols of 13.6 µs); SIG-B at MCS 5 is
    // one symbol: 48 + 4909.6 µs. The station with fewer bytes is padded to the longest.
    let alloc = RuAllocation::equal(20, 4);
    let user = TxVector::he(7, 1, 20, 800).with_ru(52);
    let psdu = ampdu_bytes([mpdu_bytes(1500); 7]);
    assert_eq!(psdu, 10_806);
    let users = [(user, psdu), (user, psdu), (user, psdu), (user, 1542)];
    assert_eq!(he_mu_ppdu_duration(&alloc, &users), 4_957_600 * NS);
    // SIG-B goes at the lowest user's MCS: with one station at MCS 0 it takes 5 symbols.
    let slow = TxVector::he(0, 1, 20, 800).with_ru(52);
    assert_eq!(mu::sig_b_mcs(&[user, slow]), 0);
}

#[test]
fn mu_control_frames() {
    use mu::frames::*;
    let (six, twenty_four) = (TxVector::non_ht(6), TxVector::non_ht(24));
    // Sizes (28 + 6N, 28 + 5N, 28 + 9N, 22 + 36N with 256-bit bitmaps) and airtimes at the
    // basic rates, 20 + 4 x ceil((22 + 8 L) / N_DBPS) µs.
    assert_eq!([basic_trigger_bytes(4), bsrp_trigger_bytes(4), mu_bar_bytes(4)], [52, 48, 64]);
    assert_eq!(multi_sta_block_ack_bytes(4, 256), 166);
    assert_eq!(multi_sta_block_ack_bytes(4, 64), 70);
    assert_eq!(six.ppdu_duration(basic_trigger_bytes(4)), 96 * US);
    assert_eq!(six.ppdu_duration(bsrp_trigger_bytes(4)), 88 * US);
    assert_eq!(six.ppdu_duration(mu_bar_bytes(4)), 112 * US);
    assert_eq!(six.ppdu_duration(mu_bar_bytes(9)), 172 * US);
    assert_eq!(twenty_four.ppdu_duration(multi_sta_block_ack_bytes(4, 256)), 80 * US);
    assert_eq!(six.ppdu_duration(multi_sta_block_ack_bytes(1, 256)), 104 * US);
}
