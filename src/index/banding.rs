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
    ///
    /// Both integrals by the trapezoid rule on a fixed grid. For each row
    /// count the miss probability `(1 − sʳ)ᵇ` is built up one band at a
    /// time, a multiplication per grid point instead of a power: every
    /// pipeline chooses its bandings when it is made, and a small batch
    /// must not wait for it.
    pub fn optimal(threshold: f64, perms: usize, fp_weight: f64, fn_weight: f64) -> Banding {
        const STEPS: usize = 200;
        let t = threshold.clamp(0.01, 0.99);
        let grid = |a: f64, b: f64| {
            let h = (b - a) / STEPS as f64;
            ((0..=STEPS).map(|i| a + i as f64 * h).collect::<Vec<f64>>(), h)
        };
        let ((below, h_below), (above, h_above)) = (grid(0.0, t), grid(t, 1.0));
        let end_weight = |i: usize| if i == 0 || i == STEPS { 0.5 } else { 1.0 };
        let mut best = (f64::INFINITY, Banding { bands: 1, rows: perms.max(1) });
        for rows in 1..=perms {
            let one_band = |s: &f64| 1.0 - s.powi(rows as i32);
            let (base_below, base_above): (Vec<f64>, Vec<f64>) =
                (below.iter().map(one_band).collect(), above.iter().map(one_band).collect());
            let (mut miss_below, mut miss_above) = (vec![1.0f64; STEPS + 1], vec![1.0f64; STEPS + 1]);
            for bands in 1..=perms / rows {
                let (mut fp, mut fne) = (0.0, 0.0);
                for i in 0..=STEPS {
                    miss_below[i] *= base_below[i];
                    miss_above[i] *= base_above[i];
                    fp += (1.0 - miss_below[i]) * end_weight(i);
                    fne += miss_above[i] * end_weight(i);
                }
                let err = fp_weight * fp * h_below + fn_weight * fne * h_above;
                if err < best.0 {
                    best = (err, Banding { bands, rows });
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

    /// The direct computation (a power per point and banding), which
    /// `optimal` must agree with.
    fn reference(threshold: f64, perms: usize, fp_weight: f64, fn_weight: f64) -> Banding {
        let t = threshold.clamp(0.01, 0.99);
        let integrate = |f: &dyn Fn(f64) -> f64, a: f64, b: f64| {
            let h = (b - a) / 200.0;
            (0..=200).map(|i| f(a + i as f64 * h) * if i == 0 || i == 200 { 0.5 } else { 1.0 }).sum::<f64>() * h
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

    #[test]
    fn optimal_agrees_with_the_direct_computation() {
        for perms in [1, 7, 64, 128, 256] {
            for t in [0.05, 0.3, 0.5, 0.6, 0.7, 0.85, 0.97] {
                for (fp, fne) in [(0.5, 0.5), (0.2, 0.8), (0.9, 0.1)] {
                    assert_eq!(
                        Banding::optimal(t, perms, fp, fne),
                        reference(t, perms, fp, fne),
                        "t {t} perms {perms}"
                    );
                }
            }
        }
    }
}
