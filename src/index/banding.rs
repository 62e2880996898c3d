//! Choosing LSH bands and rows from a similarity threshold.
//!
//! With `b` bands of `r` rows, two sketches of similarity `s` share a bucket
//! with probability `1 − (1 − sʳ)ᵇ`, an S-curve. The pair `(b, r)` (with
//! `b · r ≤ K`) is the one that minimises
//! `w_fp · ∫₀ᵗ P(s) ds + w_fn · ∫ₜ¹ (1 − P(s)) ds`: the weighted area of
//! candidates below the threshold and of misses above it.

/// Bands and rows of an LSH index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Banding {
    /// `b`: bands, each its own bucket key. More bands catch pairs of lower
    /// similarity.
    pub bands: usize,
    /// `r`: sketch values per band, all of which must agree. More rows
    /// steepen the S-curve.
    pub rows: usize,
}

impl Banding {
    /// Probability that two sketches of similarity `s` share a bucket.
    pub fn collision_probability(&self, s: f64) -> f64 {
        1.0 - (1.0 - s.powi(self.rows as i32)).powi(self.bands as i32)
    }

    /// The best banding of `perms` values for `threshold`.
    pub fn optimal(threshold: f64, perms: usize, fp_weight: f64, fn_weight: f64) -> Banding {
        let t = threshold.clamp(0.01, 0.99);
        let integrate = |f: &dyn Fn(f64) -> f64, a: f64, b: f64| {
            const STEPS: usize = 200;
            let h = (b - a) / STEPS as f64;
            (0..=STEPS).map(|i| f(a + i as f64 * h) * if i == 0 || i == STEPS { 0.5 } else { 1.0 }).sum::<f64>() * h
        };
        let mut best = (f64::INFINITY, Banding { bands: 1, rows: perms.max(1) });
        for bands in 1..=perms {
            for rows in 1..=perms / bands {
                let banding = Banding { bands, rows };
                let fp = integrate(&|s| banding.collision_probability(s), 0.0, t);
                let fne = integrate(&|s| 1.0 - banding.collision_probability(s), t, 1.0);
                let err = fp_weight * fp + fn_weight * fne;
                if err < best.0 {
                    best = (err, banding);
                }
            }
        }
        best.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s_curve_is_centred_near_the_threshold() {
        for t in [0.5, 0.7, 0.85] {
            let b = Banding::optimal(t, 128, 0.5, 0.5);
            assert!(b.bands * b.rows <= 128);
            assert!(b.collision_probability(t - 0.2) < 0.5, "{b:?} at {t}");
            assert!(b.collision_probability((t + 0.15).min(1.0)) > 0.8, "{b:?} at {t}");
        }
    }

    #[test]
    fn weighting_misses_more_lowers_the_curve() {
        let balanced = Banding::optimal(0.7, 128, 0.5, 0.5);
        let recall = Banding::optimal(0.7, 128, 0.2, 0.8);
        assert!(recall.collision_probability(0.7) > balanced.collision_probability(0.7));
    }
}
