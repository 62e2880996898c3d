//! Training the learned boundary on self-supervised pairs
//! ([`augment`](super::augment) makes them; no evaluation label is used).
//!
//! The loss is a smoothed hinge on the margin of [`fusion`](super::fusion):
//!
//! ```text
//! L = mean_i w_i · softplus(κ (M − y_i m_i)) / κ  +  λ ‖params‖²      y = ±1, M = 1, κ = 4
//! ```
//!
//! Pairs beyond the margin on the right side cost almost nothing, so the
//! boundary is placed by the hard pairs (near-duplicates with heavy edits,
//! neighbours that share a template or a genre), not by the easy bulk; κ
//! keeps the gradient smooth for Adam. `w_i` balances the classes. Each
//! ensemble member trains on its own bootstrap resample from its own
//! initialisation, so members disagree where the data does not pin the
//! boundary down. The margin has no probabilistic scale, so a temperature
//! `T` is fitted afterwards on held-out pairs (log loss, grid search):
//! `p = σ(m / T)`.

use super::features::{at, Features, NAMES};
use super::fusion::{mask, sigmoid, Candidates, LearnedBoundary, Member, Parts, EXPERT_INPUTS, FORMAT, VERSION};
use crate::semantic::train::Adam;
use serde::{Deserialize, Serialize};

/// One training pair.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    /// The pair's features.
    pub features: Features,
    /// The label: a corrupted copy (`true`) or a look-alike (`false`).
    pub duplicate: bool,
}

/// Training knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Ensemble size. Every member but the first trains on a bootstrap
    /// resample, so that members disagree where the data is thin.
    pub members: usize,
    /// Optimiser steps per member.
    pub steps: usize,
    /// Examples drawn per step.
    pub batch: usize,
    /// Adam's initial learning rate, decayed to 0 on a cosine schedule.
    pub learning_rate: f32,
    /// `M` of the hinge: pairs beyond it on the right side cost almost nothing.
    pub margin: f32,
    /// `κ`: how closely the softplus follows the hinge.
    pub sharpness: f32,
    /// `λ`: the weight of the L2 penalty on all parameters.
    pub l2: f32,
    /// Which parts of the model train (ablations switch some off).
    pub parts: Parts,
    /// Features held at 0 (ablations).
    pub dropped: Vec<String>,
    /// Seeds the members' initialisations and resamples: the same seed and
    /// examples give the same model.
    pub seed: u64,
    /// Probability at which a pair is a duplicate in the written model.
    pub threshold: f32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            members: 5,
            steps: 2000,
            batch: 256,
            learning_rate: 0.03,
            margin: 1.0,
            sharpness: 4.0,
            l2: 1e-4,
            parts: Parts { gate: true, adaptive_boundary: true },
            dropped: Vec::new(),
            seed: 0x424e_4459,
            // Chosen on the dev labels: the Bible pairs' F1 rises from 0.873
            // at 0.5 to 0.956 at 0.05 while every stress-set target holds
            // (README, "The decision layer").
            threshold: 0.05,
        }
    }
}

/// A member's start: each expert trusts its own main similarity a little, the
/// gate is even and the boundary flat; `seed` jitters it so members differ.
fn initial(seed: u64) -> Member {
    let mut m = Member::default();
    let mut x = seed;
    for (k, inputs) in EXPERT_INPUTS.iter().enumerate() {
        for &i in *inputs {
            x = crate::util::hash::mix64(x);
            m.experts[k][i] = if matches!(i, at::HAS_EMBEDDING | at::CONTAIN_MIN) { 0.0 } else { 2.0 }
                + (x % 1000) as f32 / 1000.0
                - 0.5;
        }
        m.expert_bias[k] = -1.0;
    }
    m
}

/// Class weights: each class counts for half of the loss.
fn class_weights(examples: &[Example]) -> (f32, f32) {
    let n = examples.len() as f32;
    let pos = examples.iter().filter(|e| e.duplicate).count().max(1) as f32;
    (n / (2.0 * pos), n / (2.0 * (n - pos).max(1.0)))
}

fn softplus(x: f32) -> f32 {
    if x > 20.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

/// Mean loss of one member over `examples` (no regulariser).
pub fn loss(member: &Member, examples: &[Example], config: &TrainConfig) -> f32 {
    let (wp, wn) = class_weights(examples);
    let k = config.sharpness;
    let total: f32 = examples
        .iter()
        .map(|e| {
            let y = if e.duplicate { 1.0 } else { -1.0 };
            let m = member.forward(&e.features, config.parts).margin;
            (if e.duplicate { wp } else { wn }) * softplus(k * (config.margin - y * m)) / k
        })
        .sum();
    total / examples.len().max(1) as f32
}

/// Trains one member on `examples` (features already masked).
fn train_member(examples: &[Example], config: &TrainConfig, seed: u64, log: &mut dyn FnMut(usize, f32)) -> Member {
    let (wp, wn) = class_weights(examples);
    let mut params = initial(seed).flat();
    let mut adam = Adam::new(params.len());
    let mut grad = vec![0.0; params.len()];
    let mut rng = seed ^ 0x5eed;
    let (k, batch) = (config.sharpness, config.batch.max(1));
    for step in 0..config.steps {
        let member = Member::from_flat(&params);
        grad.iter_mut().zip(&params).for_each(|(g, p)| *g = 2.0 * config.l2 * p);
        for _ in 0..batch {
            rng = crate::util::hash::mix64(rng);
            let e = &examples[(rng % examples.len() as u64) as usize];
            let y = if e.duplicate { 1.0 } else { -1.0 };
            let pass = member.forward(&e.features, config.parts);
            // d/dm of softplus(κ(M − y m))/κ is −y σ(κ(M − y m)).
            let d = -y * sigmoid(k * (config.margin - y * pass.margin)) * if e.duplicate { wp } else { wn };
            member.add_margin_gradient(&e.features, &pass, config.parts, d / batch as f32, &mut grad);
        }
        let progress = step as f32 / config.steps.max(2) as f32;
        let lr = config.learning_rate * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos());
        adam.step(&mut params, &grad, lr);
        if step % 200 == 0 || step + 1 == config.steps {
            log(step, loss(&Member::from_flat(&params), examples, config));
        }
    }
    Member::from_flat(&params)
}

/// The temperature with the least log loss of the ensemble on `held_out`.
fn fit_temperature(members: &[Member], held_out: &[Example], parts: Parts) -> f32 {
    let margins: Vec<(Vec<f32>, bool)> = held_out
        .iter()
        .map(|e| (members.iter().map(|m| m.forward(&e.features, parts).margin).collect(), e.duplicate))
        .collect();
    let log_loss = |t: f32| -> f32 {
        margins
            .iter()
            .map(|(ms, y)| {
                let p = ms.iter().map(|m| sigmoid(m / t)).sum::<f32>() / ms.len() as f32;
                -(if *y { p } else { 1.0 - p }).clamp(1e-6, 1.0).ln()
            })
            .sum()
    };
    (1..=60).map(|i| 0.05 * i as f32).min_by(|a, b| log_loss(*a).total_cmp(&log_loss(*b))).expect("non-empty grid")
}

/// Trains the ensemble on `train`, fits its temperature on `held_out`, and
/// returns the boundary (at `config.threshold`). `log(member, step, loss)`.
pub fn train(
    train: &[Example],
    held_out: &[Example],
    config: &TrainConfig,
    candidates: Candidates,
    short_max_chars: u32,
    log: &mut dyn FnMut(usize, usize, f32),
) -> LearnedBoundary {
    let masked = |set: &[Example]| -> Vec<Example> {
        set.iter()
            .map(|e| {
                let mut e = *e;
                mask(&mut e.features, &config.dropped);
                e
            })
            .collect()
    };
    let (train, held_out) = (masked(train), masked(held_out));
    let members: Vec<Member> = (0..config.members.max(1))
        .map(|i| {
            let seed = crate::util::hash::mix64(config.seed.wrapping_add(i as u64));
            // A bootstrap resample per member; the first member sees the data as it is.
            let sample: Vec<Example> = if i == 0 {
                train.clone()
            } else {
                let mut x = seed;
                (0..train.len())
                    .map(|_| {
                        x = crate::util::hash::mix64(x);
                        train[(x % train.len() as u64) as usize]
                    })
                    .collect()
            };
            train_member(&sample, config, seed, &mut |step, l| log(i, step, l))
        })
        .collect();
    let temperature = fit_temperature(&members, if held_out.is_empty() { &train } else { &held_out }, config.parts);
    LearnedBoundary {
        format: FORMAT.to_owned(),
        version: VERSION,
        features: NAMES.iter().map(|s| s.to_string()).collect(),
        dropped: config.dropped.clone(),
        parts: config.parts,
        threshold: config.threshold,
        short_max_chars,
        min_samples: 8,
        containment: 0.9,
        temperature,
        candidates,
        members,
        provenance: serde_json::Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::features::COUNT;

    /// Duplicates have one high similarity of some granularity; others none.
    pub(crate) fn toy(n: usize, seed: u64) -> Vec<Example> {
        let mut x = seed;
        let mut r = || {
            x = crate::util::hash::mix64(x);
            (x % 10_000) as f32 / 10_000.0
        };
        (0..n)
            .map(|i| {
                let duplicate = i % 2 == 0;
                let mut f = [0.0; COUNT];
                f[at::CHAR] = 0.3 * r();
                f[at::WEIGHTED] = 0.3 * r();
                f[at::LEN_MIN] = r();
                f[at::LEN_RATIO] = r();
                if duplicate {
                    let which = [at::CHAR, at::WEIGHTED, at::CONTAIN_MAX][i / 2 % 3];
                    f[which] = 0.7 + 0.3 * r();
                }
                Example { features: f, duplicate }
            })
            .collect()
    }

    #[test]
    fn training_lowers_the_loss_and_separates_the_classes() {
        let data = toy(600, 1);
        let config = TrainConfig { members: 2, steps: 300, ..Default::default() };
        let before = loss(&initial(9), &data, &config);
        let model = train(&data, &toy(200, 2), &config, Candidates::default(), 300, &mut |_, _, _| {});
        let after = loss(&model.members[0], &data, &config);
        assert!(after < before * 0.5, "loss {before} -> {after}");
        let wrong =
            toy(200, 3).iter().filter(|e| (model.predict(&e.features).0.probability >= 0.5) != e.duplicate).count();
        assert!(wrong <= 4, "{wrong} of 200 held-out toy pairs misjudged");
    }
}
