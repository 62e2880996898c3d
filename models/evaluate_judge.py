"""AUC and best-threshold F1 of the local judge's alignment score against the
plain embedding cosine, on labelled pairs (standard library only):

    semhash judge PAIRS.jsonl -o judge.jsonl
    semhash compare --semantic PAIRS.jsonl -o compare.jsonl
    python3 models/evaluate_judge.py PAIRS.jsonl judge.jsonl compare.jsonl
"""
import json
import sys


def read(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def auc(scored):
    """Probability that a random positive outscores a random negative (ties count half)."""
    scored = sorted(scored)
    rank, i, pos_ranks = 0, 0, 0.0
    while i < len(scored):
        j = i
        while j < len(scored) and scored[j][0] == scored[i][0]:
            j += 1
        mid = (i + 1 + j) / 2  # 1-based mean rank of the tie group
        pos_ranks += mid * sum(1 for k in range(i, j) if scored[k][1])
        i = j
    p = sum(1 for _, y in scored if y)
    n = len(scored) - p
    return (pos_ranks - p * (p + 1) / 2) / (p * n)


def best_f1(scored):
    scored = sorted(scored, reverse=True)
    p_total = sum(1 for _, y in scored if y)
    tp = fp = 0
    best = (0.0, None)
    for k, (s, y) in enumerate(scored):
        tp += y
        fp += not y
        if k + 1 < len(scored) and scored[k + 1][0] == s:
            continue
        f1 = 2 * tp / (tp + fp + p_total)
        if f1 > best[0]:  # on F1 alone: a tie would compare a score with None
            best = (f1, s)
    return best


def f1_of(pred_truth):
    tp = sum(1 for p, y in pred_truth if p and y)
    fp = sum(1 for p, y in pred_truth if p and not y)
    fn = sum(1 for p, y in pred_truth if not p and y)
    return 2 * tp / (2 * tp + fp + fn)


pairs, judged, compared = (read(p) for p in sys.argv[1:4])
labels = [bool(p["label"]) for p in pairs]
align = [(j["score"], y) for j, y in zip(judged, labels)]
cosine = [(c["signals"]["cosine"], y) for c, y in zip(compared, labels)]
print(f"{len(pairs)} pairs, {sum(labels)} positive")
print(f"{'score':<22} {'AUC':>7} {'best F1':>8} {'at':>7}")
for name, scored in [("alignment F1 (judge)", align), ("embedding cosine", cosine)]:
    f1, at = best_f1(scored)
    print(f"{name:<22} {auc(scored):>7.4f} {f1:>8.4f} {at:>7.3f}")
verdict_f1 = f1_of([(j["duplicate"], y) for j, y in zip(judged, labels)])
print(f"judge verdicts at its calibrated midpoint: F1 {verdict_f1:.4f}")

# The judge's real work: the pairs the cheaper score is unsure of.
_, cut = best_f1(cosine)
band = [i for i, (c, _) in enumerate(cosine) if abs(c - cut) <= 0.1]
if band and 0 < sum(labels[i] for i in band) < len(band):
    print(f"{len(band)} pairs with cosine within 0.1 of its best threshold ({cut:.3f}):")
    for name, scored in [("alignment F1 (judge)", align), ("embedding cosine", cosine)]:
        sub = [scored[i] for i in band]
        f1, at = best_f1(sub)
        print(f"  {name:<20} {auc(sub):>7.4f} {f1:>8.4f} {at:>7.3f}")
