#!/usr/bin/env python3
"""rensa peer job for benches/bench: the whole near-duplicate job a user of
rensa would run, end to end, on a JSONL file of {"id", "text"} documents.

    read JSONL -> word 3-gram shingles (Python) -> RMinHash(128 perms, seed 42)
    -> RMinHashLSH insert all -> query candidates -> verify candidate pairs by
    estimated Jaccard >= threshold -> union-find clusters -> write kept docs

Shingles: text lower-cased, words = re.findall(r"\\w+"), three consecutive
words joined by one space; a document with fewer than 3 words uses its words.
Documents with no words at all are not inserted (each is its own cluster).

Prints one JSON line on stdout: docs, pairs, clusters, parameters and
internal timings in milliseconds. Runs with the peers' virtualenv Python
(rensa==0.5.0); uses only rensa and the standard library.
"""
import argparse
import json
import re
import sys
import time

import rensa

WORD = re.compile(r"\w+")


def shingles(text):
    words = WORD.findall(text.lower())
    if len(words) < 3:
        return set(words)
    return {" ".join(words[i:i + 3]) for i in range(len(words) - 2)}


def find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:  # path compression
        parent[x], x = root, parent[x]
    return root


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", help="JSONL with id and text fields")
    ap.add_argument("--output", help="write kept documents (first of each cluster) here")
    ap.add_argument("--threshold", type=float, default=0.7)
    ap.add_argument("--num-perm", type=int, default=128)
    ap.add_argument("--bands", type=int, default=16,
                    help="LSH bands; must divide --num-perm (default 16, i.e. 16 x 8 rows)")
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    if a.num_perm % a.bands:
        sys.exit(f"rensa_job: --bands {a.bands} must divide --num-perm {a.num_perm}")

    t = {}
    t0 = tick = time.perf_counter()

    def lap(name):
        nonlocal tick
        now = time.perf_counter()
        t[name] = round((now - tick) * 1000.0, 3)
        tick = now

    ids, texts = [], []
    with open(a.input, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                ids.append(d["id"])
                texts.append(d["text"])
    n = len(ids)
    lap("read")

    sets = [shingles(x) for x in texts]
    lap("shingle")

    mhs = []
    for s in sets:
        m = rensa.RMinHash(a.num_perm, a.seed)
        if s:
            m.update(list(s))
        mhs.append(m)
    lap("minhash")

    lsh = rensa.RMinHashLSH(a.threshold, a.num_perm, a.bands)
    indexed = [i for i in range(n) if sets[i]]
    for i in indexed:
        lsh.insert(i, mhs[i])
    lap("lsh_insert")

    cand = set()
    for i in indexed:
        for j in lsh.query(mhs[i]):
            if j != i:
                cand.add((i, j) if i < j else (j, i))
    lap("lsh_query")

    pairs = [(i, j) for (i, j) in cand if mhs[i].jaccard(mhs[j]) >= a.threshold]
    lap("verify")

    parent = list(range(n))
    for i, j in pairs:
        ri, rj = find(parent, i), find(parent, j)
        if ri != rj:
            if ri < rj:
                parent[rj] = ri
            else:
                parent[ri] = rj
    roots = [find(parent, i) for i in range(n)]
    clusters = len(set(roots))
    lap("cluster")

    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            for i in range(n):
                if roots[i] == i:  # the smallest index of each cluster is kept
                    f.write(json.dumps({"id": ids[i], "text": texts[i]}, ensure_ascii=False))
                    f.write("\n")
        lap("write")

    t["total"] = round((time.perf_counter() - t0) * 1000.0, 3)
    print(json.dumps({
        "tool": "rensa",
        "version": getattr(rensa, "__version__", None) or _dist_version("rensa"),
        "docs": n,
        "empty_docs": n - len(indexed),
        "candidate_pairs": len(cand),
        "pairs": len(pairs),
        "clusters": clusters,
        "duplicates_removed": n - clusters,
        "params": {"threshold": a.threshold, "num_perm": a.num_perm, "bands": a.bands,
                   "rows": a.num_perm // a.bands, "seed": a.seed, "shingle": "word 3-gram"},
        "timings_ms": t,
    }))


def _dist_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None


if __name__ == "__main__":
    main()
