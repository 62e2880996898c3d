#!/usr/bin/env python3
"""Labelled pairs ({"a", "b", "label"}) scored with a peer's own similarity,
for benches/bench: precision / recall / F1 at the peer's default threshold
and at the best threshold on the labels (the same measures as
`semhash eval --pairs`; see common.best_threshold).

    pairs_job.py --tool datasketch PAIRS.jsonl    # MinHash (128 perms) estimated Jaccard,
                                                  # word 3-grams and char 5-grams; default 0.9
    pairs_job.py --tool rensa PAIRS.jsonl         # RMinHash (128 perms) word 3-grams; 0.8
    pairs_job.py --tool semhash --model DIR PAIRS.jsonl
                                                  # cosine of the model2vec embeddings; 0.9
    pairs_job.py --tool text-dedup PAIRS.jsonl    # text-dedup's own MinHash (word 5-grams,
        # 250 perms, sha1): default = its duplicate rule, the two share an LSH band of
        # optimal_param(0.7, 250); best = threshold on its estimated Jaccard

Prints one JSON object: {"tool", "version", "pairs", "signals": {name:
{"score", "default", "best"}}}.
"""
import argparse
import json

import numpy as np

from common import SHINGLERS, best_threshold, dist_version, pair_metrics, pair_metrics_at

SEED = 42


def minhash_signals(texts, tool):
    """name -> (per-text signature, similarity(sig, sig), default threshold,
    None); text-dedup's has (signature, similarity, rule description, rule)."""
    if tool == "datasketch":
        from datasketch import MinHash

        def sketch(shingler):
            sets = [[s.encode("utf-8") for s in shingler(t)] for t in texts]
            return MinHash.bulk(sets, num_perm=128, seed=SEED)
        variants = {"word-3": SHINGLERS["word-3"], "char-5": SHINGLERS["char-5"]}
        default = 0.9
    else:
        from rensa import RMinHash

        def sketch(shingler):
            return RMinHash.from_token_sets([list(shingler(t)) for t in texts],
                                            num_perm=128, seed=SEED)
        variants = {"word-3": SHINGLERS["word-3"]}
        default = 0.8
    out = {}
    for name, shingler in variants.items():
        sigs = sketch(shingler)
        out[f"{name} MinHash Jaccard"] = (sigs, lambda x, y: x.jaccard(y), default, None)
    return out


def semhash_signals(texts, model_dir):
    from model2vec import StaticModel
    emb = StaticModel.from_pretrained(model_dir).encode(texts)
    norms = np.linalg.norm(emb, axis=1, keepdims=True)
    emb = emb / np.where(norms == 0, 1.0, norms)
    return {"cosine (wordllama static model)": (emb, lambda x, y: float(np.dot(x, y)), 0.9, None)}


def textdedup_signals(texts):
    """text-dedup's own fingerprint (text_dedup.minhash.embed_func) with one
    hash range per permutation, so the signature is the full MinHash."""
    from text_dedup import minhash as td
    from text_dedup.utils import optimal_param, sha1_hash
    num_perm, ngram, min_length, threshold = 250, 5, 5, 0.7
    dtype, max_hash, prime = np.uint64, np.uint32((1 << 32) - 1), np.uint64((1 << 61) - 1)
    rng = np.random.RandomState(td.SEED)
    perms = (rng.randint(1, prime, size=(num_perm,), dtype=dtype),
             rng.randint(0, prime, size=(num_perm,), dtype=dtype))
    bands, rows = optimal_param(threshold, num_perm, false_positive_weight=0.5,
                                false_negative_weight=0.5)
    sigs = []
    for t in texts:
        if len(td.NON_ALPHA.split(t.lower())) < min_length:
            sigs.append(None)  # text-dedup drops such a document before hashing
            continue
        r = td.embed_func(t, 0, num_perm=num_perm, ngram_size=ngram, min_length=min_length,
                          hashranges=[(i, i + 1) for i in range(num_perm)], permutations=perms,
                          hash_func=lambda b: sha1_hash(b, d=32), dtype=dtype,
                          max_hash=max_hash, modulo_prime=prime)
        sigs.append(np.frombuffer(b"".join(r[td.SIGNATURE_COLUMN]), dtype=dtype))

    def jaccard(x, y):
        return 0.0 if x is None or y is None else float(np.mean(x == y))

    def same_band(x, y):
        if x is None or y is None:
            return False
        eq = x == y
        return any(eq[b * rows:(b + 1) * rows].all() for b in range(bands))
    rule = f"shares one of its {bands} LSH bands of {rows} rows (its rule at threshold 0.7)"
    return {"word-5 MinHash Jaccard": (sigs, jaccard, rule, same_band)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pairs")
    ap.add_argument("--tool", required=True, choices=["datasketch", "rensa", "semhash", "text-dedup"])
    ap.add_argument("--model", help="model2vec model folder (semhash)")
    a = ap.parse_args()

    rows = []
    with open(a.pairs, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                rows.append((d["a"], d["b"], bool(d["label"])))
    texts = sorted({t for a_, b_, _ in rows for t in (a_, b_)})
    pos = {t: i for i, t in enumerate(texts)}
    if a.tool in ("datasketch", "rensa"):
        signals = minhash_signals(texts, a.tool)
    elif a.tool == "semhash":
        signals = semhash_signals(texts, a.model)
    else:
        signals = textdedup_signals(texts)

    out = {"tool": a.tool, "version": dist_version(a.tool), "pairs": len(rows), "signals": {}}
    for name, (sigs, sim, default, rule) in signals.items():
        scored = [(sim(sigs[pos[x]], sigs[pos[y]]), label) for x, y, label in rows]
        if rule is None:
            at_default = pair_metrics_at(scored, default)
            how = f"similarity >= {default}"
        else:  # default is the rule's description
            at_default = pair_metrics((rule(sigs[pos[x]], sigs[pos[y]]), label) for x, y, label in rows)
            how = default
        out["signals"][name] = {"default_rule": how, "default": at_default,
                                "best": best_threshold(scored)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
