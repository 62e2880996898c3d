#!/usr/bin/env python3
"""semhash (MinishLab, PyPI `semhash`) peer job for benches/bench: the whole
job a semhash user runs on a JSONL file of {"id", "text"} documents.

    read JSONL -> load the model2vec model -> SemHash.from_records (exact
    grouping, embeddings, usearch index) -> self_deduplicate(threshold=0.9,
    its default) -> clusters -> write the kept documents

The model is the one --model names (benches/bench builds it from the
wordllama wheel with build_model.py): semhash's usual potion-base-8M cannot
be fetched here. A filtered record joins the cluster of the record it
duplicates (`duplicate_of`); exact copies join their first copy.

Prints one JSON line on stdout: docs, clusters, parameters, timings (ms).
--clusters FILE also writes one {"id", "cluster"} line per document.
"""
import argparse
import json

from common import Laps, dist_version, read_docs, write_outputs

DEFAULT_THRESHOLD = 0.9  # SemHash.self_deduplicate(threshold=0.9)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", help="JSONL with id and text fields")
    ap.add_argument("--model", required=True, help="model2vec model folder")
    ap.add_argument("--output", help="write the kept documents here")
    ap.add_argument("--clusters", help="write {id, cluster} per document here")
    ap.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    a = ap.parse_args()

    laps = Laps()
    from model2vec import StaticModel
    from semhash import SemHash
    laps("import")
    ids, texts = read_docs(a.input)
    n = len(ids)
    records = [{"i": i, "text": t} for i, t in enumerate(texts)]
    laps("read")
    model = StaticModel.from_pretrained(a.model)
    laps("load_model")
    sh = SemHash.from_records(records, columns=["text"], model=model)
    laps("index")
    result = sh.self_deduplicate(threshold=a.threshold)
    laps("deduplicate")
    roots = list(range(n))
    for dup in result.filtered:
        roots[dup.record["i"]] = dup.duplicate_of["i"]
    # duplicate_of is always a selected record, so one hop reaches the root.
    clusters = len(set(roots))
    if len(result.selected) != clusters:
        raise SystemExit(f"semhash_job: {len(result.selected)} selected but {clusters} clusters")
    laps("cluster")
    write_outputs(a, ids, texts, roots)
    laps("write")
    print(json.dumps({
        "tool": "semhash", "version": dist_version("semhash"),
        "model2vec": dist_version("model2vec"), "docs": n, "clusters": clusters,
        "duplicates_removed": n - clusters,
        "exact_removed": sum(1 for d in result.filtered if d.exact),
        "params": {"threshold": a.threshold, "model": a.model, "ann_backend": "usearch (default)",
                   "columns": ["text"]},
        "timings_ms": laps.total(),
    }))


if __name__ == "__main__":
    main()
