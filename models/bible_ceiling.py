"""How far can any decider get on the Bible pairs with the signals we have?

Fits classifiers *on the evaluation labels themselves* (5-fold cross-
validation, so each pair is scored by a model that did not see it) and
prints the best F1 any threshold gives. This is a ceiling for the shipped,
self-supervised boundary, which never reads a label; it is an analysis, not
a model, and nothing it fits is used anywhere.

Also counts "same verse" pairs whose labels the versification of the two
translations makes wrong: the KJV verse matches the next WEB verse (the
adjacent-verse negative) far better than its own.

    semhash compare PAIRS --semantic -o SIGNALS          # pair signals
    semhash judge PAIRS --judge-budget 1 --judge-band 0 -o JUDGE   # optional: alignment scores
    python3 -m venv V && V/bin/pip install numpy scikit-learn
    V/bin/python models/bible_ceiling.py PAIRS SIGNALS [JUDGE]
"""
import json
import re
import sys
from collections import Counter

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def signature_features(s):
    """What the shipped boundary sees (src/decide/features.rs), less the flags."""
    g = s["signals"]
    a, b = g["a_in_b"] or 0.0, g["b_in_a"] or 0.0
    short, long = min(g["chars"]), max(g["chars"])
    return [g["char_sim"], g["weighted_sim"], max(a, b), min(a, b), g["cosine"] or 0.0,
            g["code_agreement"] or 0.0, np.log1p(short), short / max(long, 1), max(g["boilerplate"])]


def text_features(a, b):
    """Exact Jaccard and containment of n-grams: what the signatures estimate."""
    norm = lambda t: " ".join(re.sub(r"[^\w\s]", " ", t.lower()).split())
    a, b = norm(a), norm(b)
    grams = lambda t, n: {t[i:i + n] for i in range(max(1, len(t) - n + 1))}
    jac = lambda x, y: len(x & y) / max(1, len(x | y))
    cont = lambda x, y: len(x & y) / max(1, min(len(x), len(y)))
    wa, wb = a.split(), b.split()
    bi = lambda w: set(zip(w, w[1:]))
    return [jac(grams(a, 5), grams(b, 5)), jac(grams(a, 3), grams(b, 3)), jac(set(wa), set(wb)),
            jac(bi(wa), bi(wb)), cont(grams(a, 5), grams(b, 5)), cont(set(wa), set(wb))]


def best_f1(y, score):
    order = np.argsort(-score)
    hits = np.cumsum(y[order])
    f1 = 2 * hits / (np.arange(1, len(y) + 1) + y.sum())
    return f1.max()


def main(pairs_path, signals_path, judge_path=None):
    pairs, signals = read(pairs_path), read(signals_path)
    assert len(pairs) == len(signals), "signals must be `semhash compare` over the same pairs file"
    y = np.array([p["label"] for p in pairs])
    sets = {"signatures": np.array([signature_features(s) for s in signals])}
    sets["signatures + exact n-grams"] = np.c_[sets["signatures"],
                                               [text_features(p["a"], p["b"]) for p in pairs]]
    if judge_path:
        align = np.array([[j["score"]] for j in read(judge_path)])
        sets["signatures + exact n-grams + alignment"] = np.c_[sets["signatures + exact n-grams"], align]
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    print(f"{len(y)} pairs, {y.sum()} positive; best-threshold F1 of out-of-fold probabilities")
    print(f"{'features':45} {'logistic':>9} {'boosted trees':>14}")
    for name, x in sets.items():
        f = [best_f1(y, cross_val_predict(m, x, y, cv=folds, method="predict_proba")[:, 1])
             for m in (LogisticRegression(max_iter=3000), HistGradientBoostingClassifier(random_state=0))]
        print(f"{name:45} {f[0]:9.4f} {f[1]:14.4f}")

    # Versification: KJV v against WEB v (labelled 1) and WEB v+1 (labelled 0).
    cos = lambda i: signals[i]["signals"]["cosine"] or 0.0
    char = lambda i: signals[i]["signals"]["char_sim"]
    same = {p["id"]: i for i, p in enumerate(pairs) if p["kind"] == "same_verse"}
    next_verse = {p["id"].split("|")[0]: i for i, p in enumerate(pairs) if p["kind"] == "adjacent_verse"}
    shifted = [v for v, i in same.items() if v in next_verse
               and cos(next_verse[v]) > cos(i) + 0.1 and char(next_verse[v]) > char(i)]
    books = Counter(v.split(".")[0] for v in shifted)
    print(f"same-verse pairs whose KJV verse matches the next WEB verse better (cosine +0.1 and char "
          f"similarity higher): {len(shifted)} of {sum(v in next_verse for v in same)} checked; "
          f"books {dict(books)}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
