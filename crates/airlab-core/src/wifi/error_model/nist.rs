//! The NIST error rate model (Pursley and Royster's bounds, as ns-3's `NistErrorRateModel`
//! evaluates them), for every OFDM format: non-HT, HT, VHT and HE.
//!
//! 1. The uncoded bit error rate of the constellation in AWGN at SNR γ (linear): BPSK
//!    ½·erfc(√γ), QPSK ½·erfc(√(γ/2)), square M-QAM (k = √M) (k−1)/(k·log₂k)·erfc(√(3γ/(2(M−1)))).
//! 2. The convolutional code's first-event error bound with hard decisions: with the
//!    Bhattacharyya parameter D = √(4p(1−p)) of that bit error rate p,
//!    Pe = 1/(2b) · Σ a_d · D^d over the code's distance spectrum (b = 1, 2, 3, 5 for rates 1/2,
//!    2/3, 3/4, 5/6: the punctured codes' period).
//! 3. n bits succeed with (1 − min(Pe, 1))^n.
//!
//! Checked against the values of ns-3's `WifiErrorRateModelsTestCaseNist` (see the tests). The
//! SNR is per spatial stream: several streams split the bits, not the power (as ns-3 does when
//! a station has as many antennas as streams), so n counts the bits of one stream.

use super::{Build, Component, ErrorModel};
use crate::params::no_check;
use crate::wifi::phy::TxVector;

pub static NIST: Component = Component {
    name: "nist",
    doc: "Pursley and Royster's bounds on the coded bit error in AWGN (ns-3's NistErrorRateModel)",
    params: &[],
    check: no_check,
    build: Build(|_| Box::new(Nist)),
};

struct Nist;

impl ErrorModel for Nist {
    fn chunk_success(&self, txv: &TxVector, snr_db: f64, bits: u64) -> f64 {
        bits_success(bit_error(txv, snr_db), bits)
    }

    /// Found by bisection to 1e-6 dB.
    fn snr_threshold_db(&self, txv: &TxVector, ber: f64) -> f64 {
        let (mut lo, mut hi) = (-20.0, 80.0);
        while hi - lo > 1e-6 {
            let mid = 0.5 * (lo + hi);
            if bit_error(txv, mid) > ber {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        hi
    }
}

/// A code's distance spectrum: (a_d, d) terms of its first-event error bound.
type Spectrum = &'static [(f64, i32)];

/// Rate 1/2, the 802.11 mother code (free distance 10).
const RATE_1_2: Spectrum = &[
    (36.0, 10),
    (211.0, 12),
    (1_404.0, 14),
    (11_633.0, 16),
    (77_433.0, 18),
    (502_690.0, 20),
    (3_322_763.0, 22),
    (21_292_910.0, 24),
    (134_365_911.0, 26),
];

/// Rate 2/3, punctured (free distance 6).
const RATE_2_3: Spectrum = &[
    (3.0, 6),
    (70.0, 7),
    (285.0, 8),
    (1_276.0, 9),
    (6_160.0, 10),
    (27_128.0, 11),
    (117_019.0, 12),
    (498_860.0, 13),
    (2_103_891.0, 14),
    (8_784_123.0, 15),
];

/// Rate 3/4, punctured (free distance 5).
const RATE_3_4: Spectrum = &[
    (42.0, 5),
    (201.0, 6),
    (1_492.0, 7),
    (10_469.0, 8),
    (62_935.0, 9),
    (379_644.0, 10),
    (2_253_373.0, 11),
    (13_073_811.0, 12),
    (75_152_755.0, 13),
    (428_005_675.0, 14),
];

/// Rate 5/6, punctured (free distance 4; Haccoun and Bégin 1984, Table V).
const RATE_5_6: Spectrum = &[
    (92.0, 4),
    (528.0, 5),
    (8_694.0, 6),
    (79_453.0, 7),
    (792_114.0, 8),
    (7_375_573.0, 9),
    (67_884_974.0, 10),
    (610_875_423.0, 11),
    (5_427_275_376.0, 12),
    (47_664_215_639.0, 13),
];

/// Bit error rate of a constellation of 2^`bits` points (1 BPSK, 2 QPSK, 4-10 square QAM)
/// in AWGN at linear SNR `snr`.
fn uncoded_ber(bits: u64, snr: f64) -> f64 {
    match bits {
        1 => 0.5 * libm::erfc(libm::sqrt(snr)),
        2 => 0.5 * libm::erfc(libm::sqrt(snr / 2.0)),
        _ => {
            let points = (1u64 << bits) as f64;
            let k = (1u64 << (bits / 2)) as f64;
            let z = libm::sqrt(3.0 * snr / (2.0 * (points - 1.0)));
            (k - 1.0) / (k * (bits / 2) as f64) * libm::erfc(z)
        }
    }
}

/// The decoded bit error bound Pe of the code `(num, den)` at channel bit error rate `p`.
fn coded_pe(code: (u64, u64), p: f64) -> f64 {
    let (b, spectrum) = match code {
        (1, 2) => (1.0, RATE_1_2),
        (2, 3) => (2.0, RATE_2_3),
        (3, 4) => (3.0, RATE_3_4),
        _ => (5.0, RATE_5_6),
    };
    let d = libm::sqrt(4.0 * p * (1.0 - p));
    let sum: f64 = spectrum.iter().map(|&(a, e)| a * libm::pow(d, f64::from(e))).sum();
    (sum / (2.0 * b)).min(1.0)
}

/// Linear SNR from decibels.
fn from_db(db: f64) -> f64 {
    libm::pow(10.0, db / 10.0)
}

/// Pe: the probability that a decoded data bit sent with `txv` errs at an SNR of `snr_db` per
/// stream (0 when the channel makes no bit errors at all).
fn bit_error(txv: &TxVector, snr_db: f64) -> f64 {
    let m = txv.modulation();
    let p = uncoded_ber(m.bits, from_db(snr_db));
    if p == 0.0 {
        0.0
    } else {
        coded_pe(m.code, p)
    }
}

/// The probability that `bits` decoded bits, each erring with probability `pe`, all arrive.
fn bits_success(pe: f64, bits: u64) -> f64 {
    if pe == 0.0 {
        1.0
    } else {
        libm::pow(1.0 - pe, bits as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-3's `WifiErrorRateModelsTestCaseNist`: success of 16000 bits (2000 bytes) at an SNR,
    /// to the precision the test states.
    #[test]
    fn chunk_success_matches_ns3s_nist_test_values() {
        let cases: [(u16, f64, f64, f64); 12] = [
            (6, 3.0, 0.020, 0.001),
            (6, 4.0, 0.885, 0.001),
            (6, 5.0, 0.997, 0.001),
            (9, 7.0, 0.918, 0.001),
            (12, 7.0, 0.881, 0.001),
            (18, 9.5, 0.623, 0.001),
            (24, 13.0, 0.495, 0.001),
            (36, 16.5, 0.818, 0.001),
            (48, 21.0, 0.649, 0.001),
            (54, 22.0, 0.410, 0.001),
            (54, 23.0, 0.958, 0.001),
            (54, 21.0, 5.44e-8, 1e-9),
        ];
        for (mbps, snr_db, want, tol) in cases {
            let got = Nist.chunk_success(&TxVector::non_ht(mbps), snr_db, 16_000);
            assert!((got - want).abs() < tol, "{mbps} Mbit/s at {snr_db} dB: {got} vs ns-3 {want}");
        }
        // The MIMO case: HT MCS 0 at 4 dB, 13000 bits in a 2 ms chunk.
        let got = Nist.chunk_success(&TxVector::ht(0, 20, false), 4.0, 13_000);
        assert!((got - 0.905685).abs() < 1e-6, "{got}");
    }

    #[test]
    fn higher_mcs_needs_more_snr_and_longer_frames_fail_more() {
        let he = |mcs| TxVector::he(mcs, 1, 20, 800);
        let thresholds: Vec<f64> = (0..12).map(|mcs| Nist.snr_threshold_db(&he(mcs), 1e-6)).collect();
        assert!(thresholds.windows(2).all(|w| w[0] < w[1]), "{thresholds:?}");
        // HE MCS 0 and 11 at a decoded bit error of 1e-6: 4.54 and 36.31 dB (worked out from
        // the same formulas, in ns-3's ideal manager as well).
        assert!((thresholds[0] - 4.54).abs() < 0.01 && (thresholds[11] - 36.31).abs() < 0.01, "{thresholds:?}");
        let mpdu = |txv: TxVector, bytes: u64| Nist.chunk_success(&txv, 23.79, 8 * bytes / u64::from(txv.nss));
        let (short, long) = (mpdu(he(7), 100), mpdu(he(7), 1500));
        assert!((long - 0.9).abs() < 0.005 && short > long, "{short} {long}");
        // Two streams carry half the bits each at the same per-stream SNR.
        let two = mpdu(TxVector::he(7, 2, 20, 800), 3000);
        assert!((two - long).abs() < 1e-12);
    }
}
