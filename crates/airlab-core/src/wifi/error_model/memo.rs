//! Remembered answers of an error model. A model is a pure function of its arguments, and a
//! network asks it the same questions over and over: every MPDU of a link at a fixed SNR and
//! rate asks for the same chunk success, and the ideal rate control asks for the same rates'
//! SNR thresholds at each pick. The NIST model evaluates about fifteen `pow`s per answer (about
//! 3,500 instructions), so a lookup pays for itself many times. Answers are exactly the model's
//! own, so runs are bit-identical with and without this layer.

use super::ErrorModel;
use crate::wifi::phy::TxVector;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::hash::Hash;

/// Answers kept per question kind before the table starts over: a run whose SNRs never repeat
/// (a station walking) cannot grow it without bound.
const CAPACITY: usize = 4096;

/// `model` with its answers remembered.
pub struct Memo {
    model: Box<dyn ErrorModel>,
    /// (vector, SNR in dB as bits, bits) -> success.
    success: RefCell<FxHashMap<(TxVector, u64, u64), f64>>,
    /// (vector, bit error as bits) -> threshold in dB.
    threshold: RefCell<FxHashMap<(TxVector, u64), f64>>,
}

impl Memo {
    pub fn new(model: Box<dyn ErrorModel>) -> Self {
        Memo { model, success: RefCell::default(), threshold: RefCell::default() }
    }
}

/// The remembered answer to `key`, or `answer()` remembered.
fn recall<K: Hash + Eq>(table: &RefCell<FxHashMap<K, f64>>, key: K, answer: impl FnOnce() -> f64) -> f64 {
    if let Some(&known) = table.borrow().get(&key) {
        return known;
    }
    let value = answer();
    let mut table = table.borrow_mut();
    if table.len() >= CAPACITY {
        table.clear();
    }
    table.insert(key, value);
    value
}

impl ErrorModel for Memo {
    fn chunk_success(&self, txv: &TxVector, snr_db: f64, bits: u64) -> f64 {
        recall(&self.success, (*txv, snr_db.to_bits(), bits), || self.model.chunk_success(txv, snr_db, bits))
    }

    fn snr_threshold_db(&self, txv: &TxVector, ber: f64) -> f64 {
        recall(&self.threshold, (*txv, ber.to_bits()), || self.model.snr_threshold_db(txv, ber))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::error_model::{create_uncached, Config};

    /// The same answers as the model's own, to the bit, asked once or again, and after the
    /// table started over.
    #[test]
    fn answers_are_the_models_own() {
        let model = create_uncached(&Config::named("nist"));
        let memo = Memo::new(create_uncached(&Config::named("nist")));
        let txv = TxVector::he(7, 1, 20, 800);
        for round in 0..2 {
            for k in 0..(CAPACITY + 10) {
                let snr = 20.0 + k as f64 * 1e-3;
                let (want, got) = (model.chunk_success(&txv, snr, 12_000), memo.chunk_success(&txv, snr, 12_000));
                assert_eq!(want.to_bits(), got.to_bits(), "round {round}, {snr} dB");
            }
            assert!(memo.success.borrow().len() <= CAPACITY);
        }
        let want = model.snr_threshold_db(&txv, 1e-6);
        assert_eq!(memo.snr_threshold_db(&txv, 1e-6).to_bits(), want.to_bits());
        assert_eq!(memo.snr_threshold_db(&txv, 1e-6).to_bits(), want.to_bits());
        assert_ne!(memo.snr_threshold_db(&txv, 1e-3), want);
    }
}
