#!/usr/bin/env python3
"""How far can a learned decision get on the labelled package descriptions
with the signals this project has? A ceiling study for issue 14's targets
(precision >= 0.85 at recall >= 0.35 on npm_pairs.jsonl), not a model that
ships.

Features per pair: the word alignment's similarity and residues and the char
similarity (from `semhash compare`), IDF-weighted word Dice before and after
pairing leftover words whose static embeddings (models/static_probe.py's
table) have cosine >= 0.6, the largest unmatched word's information, the
static-embedding cosine of the texts (SIF-weighted) and of their leftover
words, the number of leftover words, the longest leftover word in word
pieces, lengths and capitalised words. With `--semantic`, also what the
product itself computes from meaning: the cosine of the student encoder
(`semhash compare --semantic`), of the shipped static table (`--embedder
static`) and the local judge's score (`semhash judge --judge local`).

Two learners (logistic regression, gradient boosting) are scored by 5-fold
cross-validation with folds grouped by connected ids, so that no text is in
training and test at once. Prints the best F1 and the recall at precision
>= 0.85 / 0.8 / 0.7.

    benches/natural/ceiling.py --semhash target/release/semhash --data ../shared/data

Needs numpy, onnxruntime, tokenizers and scikit-learn.
"""
import argparse
import collections
import json
import math
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "models"))
import static_probe  # noqa: E402  (the table's recipe, in one place)
from tokenizers import Tokenizer  # noqa: E402


def fold(s):
    return re.sub(r"[^\w\s]|_", " ", unicodedata.normalize("NFKC", s).casefold()).split()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--semhash", default=str(ROOT / "target/release/semhash"))
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--semantic", action="store_true",
                    help="add the student's and the static table's cosines and the local judge's score")
    args = ap.parse_args()
    pairs_path = args.data / "natural" / "npm_pairs.jsonl"
    pairs = [json.loads(line) for line in open(pairs_path)]

    def semhash_lines(*command):
        out = subprocess.run([args.semhash, *command, str(pairs_path)], capture_output=True, text=True, check=True)
        return [json.loads(line) for line in out.stdout.splitlines()]

    signals = [line["signals"] for line in semhash_lines("compare")]

    meaning = [[] for _ in pairs]
    if args.semantic:
        for command in (["compare", "--semantic"], ["compare", "--semantic", "--embedder", "static"]):
            for row, line in zip(meaning, semhash_lines(*command)):
                row.append(line["signals"]["cosine"] or 0.0)
        for row, line in zip(meaning, semhash_lines("judge", "--judge", "local")):
            row.append(line["score"] or 0.0)

    tok = Tokenizer.from_file(str(ROOT / "models" / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    table = static_probe.token_table(tok)
    counts = static_probe.token_counts(tok, args.data)
    p = (counts + 1) / (counts.sum() + len(table))
    centred = table - table.mean(0)
    sif = centred * (1e-3 / (1e-3 + p))[:, None]

    def unit(v):
        return v / max(np.linalg.norm(v), 1e-9)

    def pieces(text):
        return tok.encode(text, add_special_tokens=False).ids

    word_vec = {}

    def wv(w):
        if w not in word_vec:
            ids = pieces(w)
            word_vec[w] = unit(centred[ids].mean(0)) if ids else np.zeros(centred.shape[1])
        return word_vec[w]

    def text_vec(t):
        ids = pieces(t)
        return unit(sif[ids].mean(0)) if ids else np.zeros(sif.shape[1])

    corpus = [fold(json.loads(line)["text"]) for line in open(args.data / "natural" / "npm_summaries.jsonl")]
    df = collections.Counter(w for t in corpus for w in set(t))
    n = len(corpus) + 10

    def info(w):
        return 1.0 if any(c.isdigit() for c in w) else min(1.0, max(0.0, math.log(n / (df[w] + 1)) / math.log(n)))

    def dice(a, b, synonyms):
        ca, cb = collections.Counter(a), collections.Counter(b)
        la, lb = list((ca - cb).elements()), list((cb - ca).elements())
        matched = sum(info(w) for w in (ca & cb).elements())
        ua, ub = [info(w) for w in la], [info(w) for w in lb]
        if synonyms and la and lb:
            m = np.array([wv(w) for w in la]) @ np.array([wv(w) for w in lb]).T
            while m.max() >= 0.6:
                i, j = np.unravel_index(np.argmax(m), m.shape)
                matched += min(ua[i], ub[j])
                ua[i] = ub[j] = 0.0
                m[i, :] = m[:, j] = -9
        ra, rb = sum(ua), sum(ub)
        return [2 * matched / max(2 * matched + ra + rb, 1e-9), max(ua + ub + [0.0]), max(ra, rb), min(ra, rb)], la, lb

    rows = []
    for q, s, extra in zip(pairs, signals, meaning):
        a, b = fold(q["a"]), fold(q["b"])
        plain, la, lb = dice(a, b, False)
        soft, _, _ = dice(a, b, True)
        bags = [unit(np.mean([wv(w) for w in side], 0)) for side in (la, lb) if side]
        d = s["differences"] or {"matched": 0.0, "residue_a": 1.0, "residue_b": 1.0}
        total = 2 * d["matched"] + d["residue_a"] + d["residue_b"]
        rows.append(plain + soft + [
            float(text_vec(q["a"]) @ text_vec(q["b"])),
            float(bags[0] @ bags[1]) if len(bags) == 2 else 1.0,
            len(la) + len(lb),
            max([len(pieces(w)) for w in la + lb] + [0]),
            min(len(a), len(b)), abs(len(a) - len(b)),
            sum(1 for w in re.findall(r"\w+", q["a"] + " " + q["b"]) if w[0].isupper()),
            2 * d["matched"] / max(total, 1e-9), max(d["residue_a"], d["residue_b"]),
            min(d["residue_a"], d["residue_b"]), s["char_sim"],
        ] + extra)
    x, y = np.array(rows), np.array([q["label"] for q in pairs])

    parent = {}

    def find(v):
        while parent.setdefault(v, v) != v:
            v = parent[v]
        return v

    for q in pairs:
        parent[find(q["a_id"])] = find(q["b_id"])
    roots = sorted({find(q["a_id"]) for q in pairs})
    group = np.array([roots.index(find(q["a_id"])) % 5 for q in pairs])

    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    learners = {
        "logistic regression": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "gradient boosting": lambda: GradientBoostingClassifier(n_estimators=150, max_depth=2, learning_rate=0.05, subsample=0.8, random_state=0),
    }
    print(f"{len(pairs)} pairs ({y.sum()} duplicates), {x.shape[1]} features, 5 grouped folds")
    for name, make in learners.items():
        score = np.zeros(len(y))
        for k in range(5):
            train = group != k
            score[~train] = make().fit(x[train], y[train]).predict_proba(x[~train])[:, 1]
        order = np.argsort(-score)
        tp = np.cumsum(y[order])
        precision, recall = tp / np.arange(1, len(y) + 1), tp / y.sum()
        f1 = 2 * precision * recall / np.maximum(precision + recall, 1e-9)
        at = lambda p: recall[precision >= p].max() if (precision >= p).any() else 0.0
        print(f"{name:<20} best F1 {f1.max():.3f}; recall at precision >= 0.85 {at(0.85):.3f}, >= 0.8 {at(0.8):.3f}, >= 0.7 {at(0.7):.3f}")


if __name__ == "__main__":
    main()
