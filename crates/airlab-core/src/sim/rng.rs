//! Seeded random streams. Every component that needs randomness owns its own stream, derived
//! from the run seed and a stable stream name, so adding a random component elsewhere never
//! shifts the numbers another component draws.

use rand_core::{Rng as _, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub struct Rng(Xoshiro256PlusPlus);

impl Rng {
    /// The stream called `name` of the run seeded with `seed`.
    pub fn stream(seed: u64, name: &str) -> Rng {
        // FNV-1a: a stable, platform-independent hash of the stream name.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        Rng(Xoshiro256PlusPlus::seed_from_u64(seed ^ h.rotate_left(17)))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Standard normal (rand_distr's ziggurat: no logarithm or cosine per draw on the fast
    /// path, which matters at one draw per packet).
    pub fn normal(&mut self) -> f64 {
        rand_distr::Distribution::sample(&rand_distr::StandardNormal, &mut self.0)
    }

    /// Uniform integer in [0, n); n must be > 0.
    pub fn below(&mut self, n: u64) -> u64 {
        // Lemire's multiply-shift; the bias is < n / 2^64, negligible for simulation use.
        ((self.0.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let draws = |seed: u64, name: &str| -> Vec<u64> {
            let mut r = Rng::stream(seed, name);
            (0..4).map(|_| r.next_u64()).collect()
        };
        let (a, b, c, d) = (draws(7, "x"), draws(7, "x"), draws(7, "y"), draws(8, "x"));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = Rng::stream(1, "u");
        let n = 100_000;
        let mean: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
        assert!((0..1000).all(|_| r.below(10) < 10));
    }

    #[test]
    fn normal_has_the_standard_quantiles() {
        let mut r = Rng::stream(1, "n");
        let mut z: Vec<f64> = (0..200_000).map(|_| r.normal()).collect();
        z.sort_by(f64::total_cmp);
        let q = |p: f64| z[(p * z.len() as f64) as usize];
        // Standard normal quantiles: 0, 1.2816 (p90), 2.3263 (p99).
        assert!(q(0.5).abs() < 0.01, "{}", q(0.5));
        assert!((q(0.9) - 1.2816).abs() < 0.02, "{}", q(0.9));
        assert!((q(0.1) + 1.2816).abs() < 0.02, "{}", q(0.1));
        assert!((q(0.99) - 2.3263).abs() < 0.05, "{}", q(0.99));
    }
}
