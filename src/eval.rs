//! Measuring quality on labelled data: pairs and ground-truth clusters.
//!
//! Pair labels (`{"a","b","label"}`) give precision, recall and F1 of the
//! verdicts, and of the score at its best threshold. Ground-truth clusters
//! (`cluster` and `type` per document) are scored by pair counting per type:
//! recall on the true pairs of the type (pairs in the same true cluster that
//! also share a predicted cluster), and false pairs (sharing a predicted
//! cluster, not a true one) that touch a document of the type.

use crate::decide::{PairSignals, Verdict};
use crate::judge::JudgeStats;
use crate::pipeline::RunStats;
use crate::{Deduper, Document, Result};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// What [`evaluate_pairs`] measured (`semhash eval --pairs` prints it and
/// writes it with `--json`).
#[derive(Clone, Debug, Serialize)]
pub struct PairsReport {
    /// Pairs evaluated.
    pub pairs: usize,
    /// Of those, labelled duplicates.
    pub positives: usize,
    /// The verdicts, at the configured decision.
    pub at_config: PairMetrics,
    /// The verdicts' score and each similarity signal at its best threshold
    /// (chosen on these labels: an upper bound, not a setting).
    pub best: BTreeMap<String, PairMetrics>,
    /// Pairs a learned boundary is unsure of (uncertainty >= 0.5): those a
    /// judge would be offered.
    pub uncertain_pairs: usize,
    /// The verdicts on the other pairs (a learned boundary only).
    pub confident: Option<PairMetrics>,
    /// What the judge did, with one.
    pub judge: Option<JudgeStats>,
}

/// Scores labelled pairs (`labels[i]`: pair i is a duplicate) with the
/// pipeline's verdicts, its judge included. `signals`, when given, are the
/// pairs' signals as [`Deduper::compare`] computed them: decided again,
/// not recomputed (the same pairs, in order).
///
/// # Errors
///
/// What [`Deduper::compare_judged`] refuses.
pub fn evaluate_pairs(
    deduper: &Deduper,
    pairs: &[(&str, &str)],
    labels: &[bool],
    signals: Option<Vec<PairSignals>>,
) -> Result<PairsReport> {
    let (results, judged) = deduper.compare_judged(pairs, signals)?;
    let at_config =
        PairMetrics::of_predictions(results.iter().zip(labels).map(|((v, _), &l)| (v.relation.is_duplicate(), l)));
    let best_of = |f: &dyn Fn(&(Verdict, PairSignals)) -> f32| {
        let scored: Vec<(f32, bool)> = results.iter().zip(labels).map(|(r, &l)| (f(r), l)).collect();
        PairMetrics::best_threshold(&scored)
    };
    let mut best = BTreeMap::from([
        ("score".to_owned(), best_of(&|(v, _)| v.score)),
        ("char_sim".to_owned(), best_of(&|(_, s)| s.char_sim)),
        ("weighted_sim".to_owned(), best_of(&|(_, s)| s.weighted_sim)),
    ]);
    if results.iter().any(|(_, s)| s.cosine.is_some()) {
        best.insert("cosine".to_owned(), best_of(&|(_, s)| s.cosine.unwrap_or(0.0)));
    }
    let unsure = |v: &Verdict| v.confidence.is_some_and(|c| c.uncertainty >= 0.5);
    let confident = results.iter().any(|(v, _)| v.confidence.is_some()).then(|| {
        PairMetrics::of_predictions(
            results
                .iter()
                .zip(labels)
                .filter(|((v, _), _)| !unsure(v))
                .map(|((v, _), &l)| (v.relation.is_duplicate(), l)),
        )
    });
    Ok(PairsReport {
        pairs: pairs.len(),
        positives: labels.iter().filter(|&&l| l).count(),
        at_config,
        best,
        uncertain_pairs: results.iter().filter(|(v, _)| unsure(v)).count(),
        confident,
        judge: judged.as_ref().map(JudgeStats::from),
    })
}

/// Where a document belongs in ground truth.
#[derive(Clone, Debug)]
pub struct Truth {
    /// Its true cluster: documents of one cluster are duplicates of each other.
    pub cluster: String,
    /// The kind of duplicate its cluster is (reported per kind).
    pub kind: String,
    /// The viral snippet pasted into it, if any: documents sharing one are
    /// not duplicates, but the snippet should be reported.
    pub snippet: Option<String>,
}

/// What [`evaluate_clusters`] measured (`semhash eval --clusters`).
#[derive(Clone, Debug, Serialize)]
pub struct ClustersReport {
    /// Documents de-duplicated.
    pub documents: usize,
    /// Pair-counting recall and false pairs per kind ([`cluster_metrics`]).
    pub per_type: BTreeMap<String, TypeMetrics>,
    /// Pairs put in one cluster that are in different true clusters.
    pub false_pairs: u64,
    /// True snippet groups (documents sharing one pasted snippet).
    pub snippet_groups: usize,
    /// Of those, the ones reported ([`snippets_found`]).
    pub snippet_groups_found: usize,
    /// The run's counts and timings.
    pub stats: RunStats,
}

/// De-duplicates `docs` (admitted: distinct ids, valid texts) and scores the
/// clusters against `truth` (`truth[i]` for `docs[i]`).
///
/// # Errors
///
/// What [`Deduper::dedup`] refuses.
pub fn evaluate_clusters(deduper: &Deduper, docs: &[Document], truth: &[Truth]) -> Result<ClustersReport> {
    let outcome = deduper.dedup(docs, &crate::util::Silent)?;
    let predicted: Vec<u32> = outcome.docs.iter().map(|r| r.cluster).collect();
    let kinds: Vec<(&str, &str)> = truth.iter().map(|t| (t.cluster.as_str(), t.kind.as_str())).collect();
    let all: Vec<(&str, &str)> = truth.iter().map(|t| (t.cluster.as_str(), "all")).collect();
    let position: HashMap<&str, usize> = docs.iter().enumerate().map(|(i, d)| (d.id.as_str(), i)).collect();
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, t) in truth.iter().enumerate() {
        if let Some(s) = &t.snippet {
            groups.entry(s.clone()).or_default().push(i);
        }
    }
    let reported: Vec<Vec<usize>> =
        outcome.snippets.iter().map(|s| s.docs.iter().map(|id| position[id.as_str()]).collect()).collect();
    Ok(ClustersReport {
        documents: docs.len(),
        per_type: cluster_metrics(&kinds, &predicted),
        false_pairs: cluster_metrics(&all, &predicted)["all"].false_pairs,
        snippet_groups: groups.len(),
        snippet_groups_found: snippets_found(&groups, &reported),
        stats: outcome.stats,
    })
}

/// Precision, recall and F1 at one threshold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PairMetrics {
    /// The score threshold these are at: `None` for boolean predictions,
    /// infinity when predicting no duplicate at all scores best.
    pub threshold: Option<f32>,
    /// Duplicates found.
    pub true_positives: u64,
    /// Pairs called duplicates that are not.
    pub false_positives: u64,
    /// Duplicates missed.
    pub false_negatives: u64,
    /// `tp / (tp + fp)`; 0 when no pair was called a duplicate.
    pub precision: f64,
    /// `tp / (tp + fn)`; 0 when there are no duplicates.
    pub recall: f64,
    /// The harmonic mean of precision and recall; 0 when both are.
    pub f1: f64,
}

impl PairMetrics {
    fn from_counts(threshold: Option<f32>, tp: u64, fp: u64, fneg: u64) -> Self {
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let (precision, recall) = (ratio(tp, tp + fp), ratio(tp, tp + fneg));
        let f1 = if precision + recall == 0.0 { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
        PairMetrics { threshold, true_positives: tp, false_positives: fp, false_negatives: fneg, precision, recall, f1 }
    }

    /// Metrics of boolean predictions against labels.
    pub fn of_predictions(items: impl IntoIterator<Item = (bool, bool)>) -> Self {
        let (mut tp, mut fp, mut fneg) = (0, 0, 0);
        for (predicted, label) in items {
            match (predicted, label) {
                (true, true) => tp += 1,
                (true, false) => fp += 1,
                (false, true) => fneg += 1,
                (false, false) => {}
            }
        }
        Self::from_counts(None, tp, fp, fneg)
    }

    /// The threshold on `score` (duplicate when `score >= t`) with the best F1.
    pub fn best_threshold(scored: &[(f32, bool)]) -> Self {
        let mut sorted: Vec<(f32, bool)> = scored.to_vec();
        sorted.sort_by(|a, b| b.0.total_cmp(&a.0));
        let positives = sorted.iter().filter(|s| s.1).count() as u64;
        let mut best = Self::from_counts(Some(f32::INFINITY), 0, 0, positives);
        let (mut tp, mut fp) = (0u64, 0u64);
        for (i, &(score, label)) in sorted.iter().enumerate() {
            if label {
                tp += 1
            } else {
                fp += 1
            }
            // Only a threshold between distinct scores is realisable.
            if sorted.get(i + 1).is_some_and(|next| next.0 == score) {
                continue;
            }
            let m = Self::from_counts(Some(score), tp, fp, positives - tp);
            if m.f1 > best.f1 {
                best = m;
            }
        }
        best
    }
}

/// Pair-counting scores of one document type.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TypeMetrics {
    /// Documents of this type.
    pub docs: u64,
    /// Pairs of documents in one true cluster, over the true clusters of
    /// this type (a cluster's type is that of its first document).
    pub true_pairs: u64,
    /// Those of the true pairs that also share a predicted cluster.
    pub found_pairs: u64,
    /// `found_pairs / true_pairs` (`None` when the type has no true pairs).
    pub recall: Option<f64>,
    /// Predicted pairs with different true clusters touching this type.
    pub false_pairs: u64,
    /// Documents of this type that share a predicted cluster with a document of another true cluster.
    pub wrongly_merged_docs: u64,
}

/// Scores a predicted clustering against the truth, per type.
/// `truth[i] = (true cluster, type)`, `predicted[i]` = predicted cluster.
pub fn cluster_metrics(truth: &[(&str, &str)], predicted: &[u32]) -> BTreeMap<String, TypeMetrics> {
    assert_eq!(truth.len(), predicted.len());
    let mut out: BTreeMap<String, TypeMetrics> = BTreeMap::new();
    let pairs = |n: u64| n * n.saturating_sub(1) / 2;

    // True pairs and found pairs: group each true cluster by predicted cluster.
    let mut by_true: HashMap<&str, (&str, HashMap<u32, u64>)> = HashMap::new();
    for ((cluster, kind), &p) in truth.iter().zip(predicted) {
        let entry = by_true.entry(cluster).or_insert((kind, HashMap::new()));
        *entry.1.entry(p).or_default() += 1;
        out.entry(kind.to_string()).or_default().docs += 1;
    }
    for (kind, split) in by_true.values() {
        let m = out.get_mut(*kind).expect("type seen");
        m.true_pairs += pairs(split.values().sum());
        m.found_pairs += split.values().map(|&n| pairs(n)).sum::<u64>();
    }

    // False pairs: within each predicted cluster, pairs across true clusters.
    let mut by_predicted: HashMap<u32, HashMap<&str, (u64, &str)>> = HashMap::new();
    for ((cluster, kind), &p) in truth.iter().zip(predicted) {
        by_predicted.entry(p).or_default().entry(cluster).or_insert((0, kind)).0 += 1;
    }
    for members in by_predicted.values().filter(|m| m.len() > 1) {
        let all: u64 = members.values().map(|m| m.0).sum();
        let cross_all = pairs(all) - members.values().map(|m| pairs(m.0)).sum::<u64>();
        let mut kinds: Vec<&str> = members.values().map(|m| m.1).collect();
        kinds.sort_unstable();
        kinds.dedup();
        for kind in kinds {
            let (others, others_same): (u64, u64) =
                members.values().filter(|m| m.1 != kind).fold((0, 0), |(n, s), m| (n + m.0, s + pairs(m.0)));
            let m = out.get_mut(kind).expect("type seen");
            m.false_pairs += cross_all - (pairs(others) - others_same);
            m.wrongly_merged_docs += members.values().filter(|x| x.1 == kind).map(|x| x.0).sum::<u64>();
        }
    }
    for m in out.values_mut() {
        m.recall = (m.true_pairs > 0).then(|| m.found_pairs as f64 / m.true_pairs as f64);
    }
    out
}

/// How many true snippet groups a report found. A group counts as found when
/// one reported snippet holds at least 90% of the group's documents and at
/// least half of that snippet's holders belong to the group.
pub fn snippets_found(truth: &BTreeMap<String, Vec<usize>>, reported: &[Vec<usize>]) -> usize {
    truth
        .values()
        .filter(|group| {
            reported.iter().any(|holders| {
                let inside = holders.iter().filter(|d| group.contains(d)).count();
                inside * 10 >= group.len() * 9 && inside * 2 >= holders.len()
            })
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_threshold_finds_the_separating_score() {
        let scored = [(0.9, true), (0.8, true), (0.7, false), (0.6, true), (0.2, false)];
        let best = PairMetrics::best_threshold(&scored);
        assert_eq!(best.threshold, Some(0.6));
        assert_eq!((best.true_positives, best.false_positives, best.false_negatives), (3, 1, 0));
        let at = PairMetrics::of_predictions([(true, true), (false, true), (true, false)]);
        assert_eq!((at.precision, at.recall), (0.5, 0.5));
    }

    #[test]
    fn pair_counting_per_type() {
        // True: {0,1,2} type a; {3} type b; {4} type b.
        // Predicted: {0,1} {2,3} {4}: finds 1 of 3 a-pairs, one false pair (2,3).
        let truth = [("x", "a"), ("x", "a"), ("x", "a"), ("y", "b"), ("z", "b")];
        let m = cluster_metrics(&truth, &[0, 0, 1, 1, 2]);
        assert_eq!((m["a"].true_pairs, m["a"].found_pairs, m["a"].false_pairs), (3, 1, 1));
        assert_eq!((m["b"].true_pairs, m["b"].false_pairs, m["b"].wrongly_merged_docs), (0, 1, 1));
        assert_eq!(m["b"].recall, None);
    }

    #[test]
    fn snippet_groups_need_most_holders() {
        let truth = BTreeMap::from([("s0".to_string(), (0..10).collect::<Vec<_>>())]);
        assert_eq!(snippets_found(&truth, &[(0..9).collect()]), 1);
        assert_eq!(snippets_found(&truth, &[(0..8).collect()]), 0);
        assert_eq!(snippets_found(&truth, &[(0..30).collect()]), 0);
    }
}
