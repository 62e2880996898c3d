#!/usr/bin/env python3
"""text-dedup helpers for benches/bench, run with text-dedup's own virtualenv.

text-dedup is a command, not a library: the timed job is its MinHash command
exactly as a user runs it on a dataset saved to disk,

    python -m text_dedup.minhash --local --path DATASET --output OUT --column text

(defaults: word 5-grams after splitting on non-word characters, 250
permutations, threshold 0.7 -> LSH bands and rows from its optimiser; every
document that shares a band with another is a duplicate, no verification;
documents of fewer than 5 tokens are dropped from the output; num_proc = all
cores). These helpers do the untimed parts around it:

    textdedup_job.py prepare IN.jsonl DATASET     # JSONL -> datasets.save_to_disk
    textdedup_job.py collect DATASET OUT [--clusters FILE]
        # summary JSON line; with --clusters, read OUT/uf.pkl (written by
        # --debug --idx_column id) and write {"id", "cluster"} per document
"""
import argparse
import json
import pickle
import sys

from common import dist_version, read_docs, write_clusters


def prepare(a):
    import datasets
    ids, texts = read_docs(a.input)
    ds = datasets.Dataset.from_dict({"id": [str(i) for i in ids], "text": texts})
    ds.save_to_disk(a.dataset)
    print(json.dumps({"docs": len(ids), "dataset": a.dataset}))


def collect(a):
    import datasets
    src = datasets.load_from_disk(a.dataset)
    out = datasets.load_from_disk(a.output)
    n, kept = len(src), len(out)
    summary = {"tool": "text-dedup", "version": dist_version("text-dedup"), "docs": n,
               "kept": kept, "removed": n - kept}
    if a.clusters:
        # text_dedup.utils.UnionFind, pickled by `--debug`, keyed by the id column.
        with open(f"{a.output}/uf.pkl", "rb") as f:
            uf = pickle.load(f)  # nosec: our own run's file
        ids = src["id"]
        index = {doc_id: i for i, doc_id in enumerate(ids)}
        roots = [index[uf.find(doc_id)] if doc_id in uf.parent else i
                 for i, doc_id in enumerate(ids)]
        # The union-find's root is any member: name each cluster by its first.
        first = {}
        roots = [first.setdefault(r, i) for i, r in enumerate(roots)]
        write_clusters(a.clusters, ids, roots)
        clusters = len(set(roots))
        # Kept = representatives of clusters of documents long enough to hash.
        summary.update({"clusters": clusters, "dropped_short": clusters - kept})
    print(json.dumps(summary))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("input")
    p.add_argument("dataset")
    c = sub.add_parser("collect")
    c.add_argument("dataset")
    c.add_argument("output")
    c.add_argument("--clusters")
    a = ap.parse_args()
    {"prepare": prepare, "collect": collect}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
