//! Learning the hyperplanes (paper eqs. 3-10).
//!
//! For a minibatch of embeddings X (n × d) and hyperplanes W (K × d), b:
//!
//! ```text
//! A = X Wᵀ + b        Z = sign(A)        T = tanh(β A)
//! L_sim  = mean_{i≠j} (cos(x_i, x_j) − z_i·z_j / K)²
//! L_orth = ‖W Wᵀ − I‖²_F
//! L_bal  = Σ_k (mean_i T_ik)²
//! L      = L_sim + 0.1 L_orth + 0.01 L_bal + 0.001 ‖W‖²_F
//! ```
//!
//! `sign` has no gradient, so training follows the relaxation `tanh(βA)`
//! with β annealed linearly from 1 to 10 (continuation): early on every margin
//! moves the bits, late the relaxation is the sign up to the points nearest a
//! hyperplane, and the codes used are the signs. (Using the signs forward and
//! the relaxation only backward, straight-through, made L_sim of the signs
//! *rise* as β grew on the student's embeddings: 0.010 → 0.027 over 3,000 steps.) L_sim is a mean over pairs rather
//! than the paper's sum, so the weights of the other terms do not depend on
//! the batch size. Training starts from random hyperplanes (the SimHash
//! baseline it is measured against) and updates by Adam.

use super::projection::Projection;
use crate::sketch::semantic::{cosine, hamming};
use serde::{Deserialize, Serialize};

/// Training knobs; the defaults are the paper's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// `K`: hyperplanes, so bits per code.
    pub bits: usize,
    /// Adam steps.
    pub steps: usize,
    /// Embeddings per minibatch. L_sim compares every pair in it, so a step
    /// costs the square of this.
    pub batch: usize,
    /// Adam's initial learning rate, decayed to 0 on a cosine schedule.
    pub learning_rate: f32,
    /// β of the relaxation `tanh(βA)` at the first step: soft, so every
    /// margin moves the bits.
    pub beta_start: f32,
    /// β at the last step: nearly the sign, which is what the codes use.
    pub beta_end: f32,
    /// Weight of L_orth, which keeps the hyperplanes apart so that bits do
    /// not repeat each other.
    pub orth_weight: f32,
    /// Weight of L_bal, which keeps each bit set for about half the texts: a
    /// bit that is always set says nothing.
    pub balance_weight: f32,
    /// Weight of the L2 penalty on `W`.
    pub l2_weight: f32,
    /// Seeds the starting hyperplanes and the minibatches: the same seed and
    /// embeddings give the same projection.
    pub seed: u64,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            bits: 128,
            steps: 3000,
            batch: 256,
            learning_rate: 1e-3,
            beta_start: 1.0,
            beta_end: 10.0,
            orth_weight: 0.1,
            balance_weight: 0.01,
            l2_weight: 0.001,
            seed: 0x5348_5048,
        }
    }
}

/// Loss terms of one step (for the training log).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Losses {
    /// L_sim of the signs: of the codes as they will be, not of the relaxation.
    pub sim: f32,
    /// L_orth, unweighted.
    pub orth: f32,
    /// L_bal, unweighted.
    pub balance: f32,
    /// The weighted sum of the terms and the L2 penalty (with L_sim of the signs).
    pub total: f32,
}

/// `C = A Bᵀ`: `a` is m × k, `b` is n × k, row-major.
fn matmul_nt(a: &[f32], b: &[f32], k: usize) -> Vec<f32> {
    let mut c = Vec::with_capacity((a.len() / k) * (b.len() / k));
    for row in a.chunks_exact(k) {
        c.extend(b.chunks_exact(k).map(|col| dot(row, col)));
    }
    c
}

/// Dot product with eight partial sums, so it vectorises.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca.remainder().iter().zip(cb.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// `y += s x`.
fn axpy(y: &mut [f32], s: f32, x: &[f32]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += s * x);
}

/// Adam state for one parameter vector (also trains the decision boundary).
pub(crate) struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    pub(crate) fn new(n: usize) -> Self {
        Adam { m: vec![0.0; n], v: vec![0.0; n], t: 0 }
    }

    pub(crate) fn step(&mut self, params: &mut [f32], grad: &[f32], lr: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        self.t += 1;
        let (c1, c2) = (1.0 - B1.powi(self.t), 1.0 - B2.powi(self.t));
        for i in 0..params.len() {
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * grad[i];
            self.v[i] = B2 * self.v[i] + (1.0 - B2) * grad[i] * grad[i];
            params[i] -= lr * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + 1e-8);
        }
    }
}

/// Trains hyperplanes on `embeddings` (`dims` floats each, L2-normalised).
/// `log` receives `(step, losses)` every 100 steps.
pub fn train(embeddings: &[f32], dims: usize, config: &TrainConfig, log: &mut dyn FnMut(usize, Losses)) -> Projection {
    let n_all = embeddings.len() / dims;
    let (bits, n) = (config.bits, config.batch.min(n_all).max(2));
    let mut p = Projection::random(bits, dims, config.seed);
    // Unit hyperplanes: the orthogonality term's fixed point, and a scale at which β means what it says.
    for w in p.weights.chunks_exact_mut(dims) {
        let norm = dot(w, w).sqrt();
        w.iter_mut().for_each(|x| *x /= norm);
    }
    // A sentence encoder's embeddings share a common direction: unrelated
    // texts have cosines around 0.1 to 0.3, not 0. Balanced bits cannot agree
    // on more than half of their bits for such pairs, so L_bal and L_sim would
    // pull against each other. Training sees the embeddings centred on the
    // corpus mean (and renormalised), where unrelated texts are orthogonal;
    // the bias b = −W·mean puts the centring into the hyperplanes, so
    // sign(w·e + b) = sign(w·(e − mean)).
    let mut mean = vec![0f32; dims];
    embeddings.chunks_exact(dims).for_each(|e| axpy(&mut mean, 1.0 / n_all as f32, e));
    let centred: Vec<f32> = embeddings
        .chunks_exact(dims)
        .flat_map(|e| {
            let c: Vec<f32> = e.iter().zip(&mean).map(|(x, m)| x - m).collect();
            let norm = dot(&c, &c).sqrt().max(1e-12);
            c.into_iter().map(move |x| x / norm)
        })
        .collect();
    let embeddings = &centred;
    let mut adam = Adam::new(bits * dims);
    let mut rng = config.seed ^ 0xa5a5;
    let mut batch = vec![0f32; n * dims];
    for step in 0..config.steps {
        for row in batch.chunks_exact_mut(dims) {
            rng = crate::util::hash::mix64(rng);
            let i = (rng % n_all as u64) as usize;
            row.copy_from_slice(&embeddings[i * dims..(i + 1) * dims]);
        }
        let progress = step as f32 / (config.steps.max(2) - 1) as f32;
        let beta = config.beta_start + (config.beta_end - config.beta_start) * progress;
        let (losses, grad_w, _) = gradients(&p, &batch, beta, config);
        // Cosine decay: large steps while β is low, settling as the bits harden.
        let lr = config.learning_rate * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos());
        adam.step(&mut p.weights, &grad_w, lr);
        if step % 100 == 0 || step + 1 == config.steps {
            log(step, losses);
        }
    }
    for (b, w) in p.bias.iter_mut().zip(p.weights.chunks_exact(dims)) {
        *b = -dot(w, &mean);
    }
    p
}

/// Loss and its gradients for W and b on one batch (training keeps b at 0
/// and centres the data instead; the bias gradient is checked in the tests).
fn gradients(p: &Projection, x: &[f32], beta: f32, config: &TrainConfig) -> (Losses, Vec<f32>, Vec<f32>) {
    let (d, k) = (p.dims, p.bits);
    let n = x.len() / d;
    let mut a = matmul_nt(x, &p.weights, d);
    a.chunks_exact_mut(k).for_each(|row| row.iter_mut().zip(&p.bias).for_each(|(a, b)| *a += b));
    let z: Vec<f32> = a.iter().map(|&v| if v > 0.0 { 1.0 } else { -1.0 }).collect();
    // w·e is about 1/√d for a unit hyperplane and a unit embedding in general
    // position: scaled by √d, β's range 1 to 10 goes from soft to nearly sign.
    let beta = beta * (d as f32).sqrt();
    let t: Vec<f32> = a.iter().map(|&v| (beta * v).tanh()).collect();

    // L_sim of the relaxed codes, dL/dT = -4 / (K n (n-1)) D T (D symmetric,
    // zero diagonal); the log reports L_sim of the signs, what the codes will be.
    let s = matmul_nt(x, x, d);
    let (g, g_signs) = (matmul_nt(&t, &t, k), matmul_nt(&z, &z, k));
    let pairs = (n * (n - 1)) as f32;
    let mut dz = vec![0f32; n * k];
    let mut sim = 0f32;
    for i in 0..n {
        for j in 0..n {
            if i == j {
                continue;
            }
            let diff = s[i * n + j] - g[i * n + j] / k as f32;
            sim += (s[i * n + j] - g_signs[i * n + j] / k as f32).powi(2);
            axpy(&mut dz[i * k..(i + 1) * k], -4.0 * diff / (k as f32 * pairs), &t[j * k..(j + 1) * k]);
        }
    }
    sim /= pairs;

    // L_bal: mean tanh per bit.
    let mut mean = vec![0f32; k];
    t.chunks_exact(k).for_each(|row| axpy(&mut mean, 1.0 / n as f32, row));
    let balance: f32 = mean.iter().map(|m| m * m).sum();

    // Through the relaxation: dA = (dZ + dL_bal/dT) ⊙ β (1 − T²).
    let bw = config.balance_weight;
    let da: Vec<f32> =
        (0..n * k).map(|ik| (dz[ik] + bw * 2.0 * mean[ik % k] / n as f32) * beta * (1.0 - t[ik] * t[ik])).collect();
    let mut grad_w = vec![0f32; k * d];
    let mut grad_b = vec![0f32; k];
    for (row_a, row_x) in da.chunks_exact(k).zip(x.chunks_exact(d)) {
        for (kk, &g) in row_a.iter().enumerate() {
            axpy(&mut grad_w[kk * d..(kk + 1) * d], g, row_x);
            grad_b[kk] += g;
        }
    }

    // L_orth = ‖W Wᵀ − I‖², gradient 4 (W Wᵀ − I) W; L2 gradient 2 W.
    let mut wwt = matmul_nt(&p.weights, &p.weights, d);
    (0..k).for_each(|i| wwt[i * k + i] -= 1.0);
    let orth: f32 = wwt.iter().map(|v| v * v).sum();
    for i in 0..k {
        let gi = &mut grad_w[i * d..(i + 1) * d];
        axpy(gi, 2.0 * config.l2_weight, &p.weights[i * d..(i + 1) * d]);
        for j in 0..k {
            axpy(gi, 4.0 * config.orth_weight * wwt[i * k + j], &p.weights[j * d..(j + 1) * d]);
        }
    }
    let l2: f32 = p.weights.iter().map(|w| w * w).sum();
    let total = sim + config.orth_weight * orth + bw * balance + config.l2_weight * l2;
    (Losses { sim, orth, balance, total }, grad_w, grad_b)
}

/// Learned hyperplanes and what was measured making them
/// ([`train_projection`]; `semhash train-sph --report` writes it).
#[derive(Clone, Debug, Serialize)]
pub struct ProjectionTraining {
    /// The learned hyperplanes, their radius table calibrated.
    #[serde(skip)]
    pub projection: Projection,
    /// Random hyperplanes of the same seed, calibrated alike: the baseline.
    #[serde(skip)]
    pub random: Projection,
    /// Embeddings trained on.
    pub texts: usize,
    /// Of those, the ones held out to calibrate the radius tables.
    pub calibration_texts: usize,
    /// Their dimensions.
    pub dims: usize,
    /// The training settings.
    pub config: TrainConfig,
    /// The losses, every step that reported them.
    pub log: Vec<LoggedStep>,
    /// `(cosine, Hamming radius, pairs)` of the learned hyperplanes and of
    /// random ones (the baseline), from the held-out embeddings.
    pub radius: Radii,
}

/// One logged step of training.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct LoggedStep {
    /// The step.
    pub step: usize,
    /// Its losses.
    pub losses: Losses,
}

/// Radius tables of learned and random hyperplanes.
#[derive(Clone, Debug, Serialize)]
pub struct Radii {
    /// The learned hyperplanes'.
    pub learned: Vec<(f32, u32, usize)>,
    /// Random hyperplanes' (same seed, same calibration).
    pub random: Vec<(f32, u32, usize)>,
}

/// Trains hyperplanes on `embeddings` (`dims` wide, row after row): the last
/// tenth (at most 3,000) is held out to calibrate the radius tables of the
/// learned and of random hyperplanes against the rest, which trains.
/// `on_step` sees the losses as [`train`] logs them.
pub fn train_projection(
    embeddings: &[f32],
    dims: usize,
    config: &TrainConfig,
    on_step: &mut dyn FnMut(usize, Losses),
) -> ProjectionTraining {
    let texts = embeddings.len() / dims;
    let held = (texts / 10).min(3000);
    let (training, calibration) = embeddings.split_at((texts - held) * dims);
    let mut log = Vec::new();
    let mut projection = train(training, dims, config, &mut |step, losses| {
        on_step(step, losses);
        log.push(LoggedStep { step, losses });
    });
    let mut random = Projection::random(config.bits, dims, config.seed);
    let radius = Radii {
        learned: calibrate(&mut projection, calibration, training),
        random: calibrate(&mut random, calibration, training),
    };
    ProjectionTraining { projection, random, texts, calibration_texts: held, dims, config: config.clone(), log, radius }
}

/// Cosines at which [`calibrate`] sets a radius.
pub const RADIUS_COSINES: [f32; 10] = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];

/// Fills the projection's radius table: for each cosine level, the 99th
/// percentile Hamming distance of the pairs (a query and a pool embedding) at
/// or above it, never wider than the level below (whose pairs include these).
/// A level with fewer than 20 such pairs takes a radius extrapolated from all
/// pairs (a line fitted through their distances, plus the 99th percentile of
/// its residuals).
/// Pairing held-out queries with the whole pool finds the close pairs a
/// corpus has; pairs within the held-out part alone are almost all unrelated.
pub fn calibrate(p: &mut Projection, queries: &[f32], pool: &[f32]) -> Vec<(f32, u32, usize)> {
    let d = p.dims;
    let pool_codes: Vec<Vec<u64>> = pool.chunks_exact(d).map(|e| p.code(e)).collect();
    let queries: Vec<&[f32]> = queries.chunks_exact(d).collect();
    let pairs: Vec<(f32, u32)> = crate::util::par::flat_map_indexed(&queries, |_, q| {
        let code = p.code(q);
        pool.chunks_exact(d)
            .zip(&pool_codes)
            .filter_map(|(e, c)| {
                let cos = dot(q, e);
                (cos >= RADIUS_COSINES[0]).then(|| (cos, hamming(&code, c)))
            })
            .collect()
    });
    // Hamming distance falls about linearly with cosine: a least-squares line
    // plus the 99th percentile of its residuals extrapolates to levels with
    // too few pairs to measure.
    let n = pairs.len().max(1) as f64;
    let (mc, mh) = pairs.iter().fold((0.0, 0.0), |(c, h), &(x, y)| (c + x as f64 / n, h + y as f64 / n));
    let sxy: f64 = pairs.iter().map(|&(x, y)| (x as f64 - mc) * (y as f64 - mh)).sum();
    let sxx: f64 = pairs.iter().map(|&(x, _)| (x as f64 - mc).powi(2)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let mut residuals: Vec<f64> = pairs.iter().map(|&(x, y)| y as f64 - (mh + slope * (x as f64 - mc))).collect();
    residuals.sort_by(f64::total_cmp);
    let margin = residuals.get((residuals.len() * 99).div_ceil(100).saturating_sub(1)).copied().unwrap_or(0.0);
    let fitted = |c: f32| (mh + slope * (c as f64 - mc) + margin).ceil().max(0.0) as u32;

    let mut table = Vec::new();
    let mut report = Vec::new();
    let mut previous: Option<u32> = None;
    for &level in &RADIUS_COSINES {
        let mut h: Vec<u32> = pairs.iter().filter(|&&(c, _)| c >= level).map(|&(_, h)| h).collect();
        h.sort_unstable();
        let measured = if h.len() >= 20 {
            h[(h.len() * 99).div_ceil(100) - 1]
        } else if pairs.len() >= 20 {
            fitted(level)
        } else {
            (p.bits / 4) as u32
        };
        let radius = previous.map_or(measured, |p| measured.min(p));
        table.push((level, radius));
        report.push((level, radius, h.len()));
        previous = Some(radius);
    }
    p.radius = table;
    report
}

/// How well codes stand in for cosines on held-out data.
#[derive(Clone, Debug, Serialize)]
pub struct CodeQuality {
    /// Pearson correlation of `1 − hamming / K` with cosine over the pairs.
    pub correlation: f64,
    /// Mean of `(cos − z_a·z_b / K)²` over the same pairs: held-out L_sim.
    pub similarity_error: f64,
    /// Share of the true pairs whose partner is among the `budget` nearest
    /// codes of the query (of all candidate partners).
    pub recall_at_budget: f64,
    /// How many nearest codes `recall_at_budget` looks among.
    pub budget: usize,
}

/// `pairs`: `(query, partner)` indices into `embeddings` of true pairs; every
/// partner is a candidate for every query, ranked by Hamming distance (ties
/// counted against the true partner).
pub fn code_quality(p: &Projection, embeddings: &[f32], pairs: &[(usize, usize)], budget: usize) -> CodeQuality {
    let d = p.dims;
    let codes: Vec<Vec<u64>> = embeddings.chunks_exact(d).map(|e| p.code(e)).collect();
    let vec_of = |i: usize| &embeddings[i * d..(i + 1) * d];
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    // Correlation over true pairs and over shifted (mostly unrelated) pairs.
    for (&(a, b), &(_, c)) in pairs.iter().zip(pairs.iter().cycle().skip(1)) {
        for (u, v) in [(a, b), (a, c)] {
            xs.push(1.0 - hamming(&codes[u], &codes[v]) as f64 / p.bits as f64);
            ys.push(cosine(vec_of(u), vec_of(v)) as f64);
        }
    }
    let partners: Vec<usize> = pairs.iter().map(|&(_, b)| b).collect();
    let found = crate::util::par::map(pairs, |&(a, b)| {
        let own = hamming(&codes[a], &codes[b]);
        let closer = partners.iter().filter(|&&c| c != b && hamming(&codes[a], &codes[c]) <= own).count();
        closer < budget
    });
    // 1 − h/K is (1 + z_a·z_b / K) / 2.
    let error = xs.iter().zip(&ys).map(|(x, y)| (y - (2.0 * x - 1.0)).powi(2)).sum::<f64>() / xs.len().max(1) as f64;
    CodeQuality {
        correlation: pearson(&xs, &ys),
        similarity_error: error,
        recall_at_budget: found.iter().filter(|&&f| f).count() as f64 / pairs.len().max(1) as f64,
        budget,
    }
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let cov: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    cov / (vx * vy).sqrt().max(1e-12)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Embeddings in a few tight clusters inside a low-dimensional subspace
    /// of a 32-dimensional space: where learned hyperplanes have room to beat
    /// random ones.
    fn clustered(n: usize, seed: u64) -> Vec<f32> {
        let mut x = seed;
        let mut next = || {
            x = crate::util::hash::mix64(x);
            (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let centres: Vec<Vec<f32>> = (0..8).map(|_| (0..4).map(|_| next()).collect()).collect();
        let mut out = Vec::with_capacity(n * 32);
        for i in 0..n {
            let mut v = vec![0f32; 32];
            for (j, c) in centres[i % 8].iter().enumerate() {
                v[j] = c + 0.15 * next();
            }
            v[4] = 0.5;
            let norm = dot(&v, &v).sqrt();
            out.extend(v.iter().map(|x| x / norm));
        }
        out
    }

    #[test]
    fn training_lowers_the_loss_and_beats_random_hyperplanes() {
        let all = clustered(912, 1);
        let (data, held_out) = all.split_at(512 * 32);
        let config = TrainConfig { bits: 32, steps: 400, batch: 64, learning_rate: 1e-2, ..Default::default() };
        let mut log = Vec::new();
        let learned = train(data, 32, &config, &mut |_, l| log.push(l.sim));
        assert!(log.last().unwrap() < &(log[0] * 0.5), "L_sim {:?}", log);
        // True pairs: documents of the same cluster (i and i + 8).
        let pairs: Vec<(usize, usize)> = (0..200).map(|i| (i, i + 8)).collect();
        let random = Projection::random(32, 32, config.seed);
        let (l, r) = (code_quality(&learned, held_out, &pairs, 5), code_quality(&random, held_out, &pairs, 5));
        assert!(l.correlation > r.correlation + 0.05, "learned {l:?} random {r:?}");
    }

    /// Relaxed loss alone (what the gradient follows), for a finite-difference check.
    fn relaxed_loss(p: &Projection, x: &[f32], beta: f32, c: &TrainConfig) -> f32 {
        let (d, k) = (p.dims, p.bits);
        let n = x.len() / d;
        let beta = beta * (d as f32).sqrt();
        let mut a = matmul_nt(x, &p.weights, d);
        a.chunks_exact_mut(k).for_each(|row| row.iter_mut().zip(&p.bias).for_each(|(a, b)| *a += b));
        let t: Vec<f32> = a.iter().map(|&v| (beta * v).tanh()).collect();
        let (s, g) = (matmul_nt(x, x, d), matmul_nt(&t, &t, k));
        let mut sim = 0.0;
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    sim += (s[i * n + j] - g[i * n + j] / k as f32).powi(2);
                }
            }
        }
        let mut mean = vec![0f32; k];
        t.chunks_exact(k).for_each(|row| axpy(&mut mean, 1.0 / n as f32, row));
        let mut wwt = matmul_nt(&p.weights, &p.weights, d);
        (0..k).for_each(|i| wwt[i * k + i] -= 1.0);
        sim / (n * (n - 1)) as f32
            + c.orth_weight * wwt.iter().map(|v| v * v).sum::<f32>()
            + c.balance_weight * mean.iter().map(|m| m * m).sum::<f32>()
            + c.l2_weight * p.weights.iter().map(|w| w * w).sum::<f32>()
    }

    #[test]
    fn gradients_match_finite_differences() {
        let x = clustered(12, 5);
        let c = TrainConfig { bits: 8, ..Default::default() };
        let mut p = Projection::random(8, 32, 4);
        p.weights.iter_mut().for_each(|w| *w *= 0.2);
        let (_, gw, gb) = gradients(&p, &x, 0.5, &c);
        for (i, want) in [(3usize, gw[3]), (77, gw[77]), (200, gw[200])] {
            let (mut hi, mut lo) = (p.clone(), p.clone());
            hi.weights[i] += 1e-3;
            lo.weights[i] -= 1e-3;
            let numeric = (relaxed_loss(&hi, &x, 0.5, &c) - relaxed_loss(&lo, &x, 0.5, &c)) / 2e-3;
            assert!((numeric - want).abs() < 0.02 * want.abs().max(0.05), "w[{i}]: numeric {numeric}, analytic {want}");
        }
        let (mut hi, mut lo) = (p.clone(), p.clone());
        hi.bias[2] += 1e-3;
        lo.bias[2] -= 1e-3;
        let numeric = (relaxed_loss(&hi, &x, 0.5, &c) - relaxed_loss(&lo, &x, 0.5, &c)) / 2e-3;
        assert!((numeric - gb[2]).abs() < 0.02 * gb[2].abs().max(0.05), "b: numeric {numeric}, analytic {}", gb[2]);
    }

    #[test]
    fn calibration_radius_widens_as_cosine_falls() {
        let data = clustered(300, 3);
        let mut p = Projection::random(64, 32, 9);
        let (queries, pool) = data.split_at(100 * 32);
        let report = calibrate(&mut p, queries, pool);
        assert_eq!(p.radius.len(), RADIUS_COSINES.len());
        assert!(p.radius.windows(2).all(|w| w[0].1 >= w[1].1), "{:?}", report);
    }
}
