#!/usr/bin/env python3
"""Audit a `semhash dedup` run by reading: sample what it merged, label it
against a rubric (../shared/data/natural/RUBRIC.md), score the labels.

    benches/natural/audit.py sample CORPUS.jsonl OUT.jsonl --n 200 --seed 1 -o DIR
        writes DIR/links.tsv (non-exact links: a document and its parent) and
        DIR/members.tsv (a member and its cluster's representative), each
        `key<TAB>A<TAB>B` as the rubric asks, N rows drawn at random
    benches/natural/audit.py score DIR/links.tsv LABELS.tsv
        precision of the sample (share labelled 1) with a 95% Wilson interval
    benches/natural/audit.py merged OUT.jsonl LABELS.tsv
        of the labelled pairs (every sample's labels pooled, as in
        audit/pooled.labels.tsv), those OUT still puts in one cluster and the
        share of them labelled 1: a variant's precision over all the labels
        there are, without labelling again (not a random sample of its links
        when the labels come from looser runs)

Exact copies are not sampled: `semhash` settles them by key, and a pair whose
texts differ only in case, punctuation or whitespace says nothing about the
decisions that can go wrong. Standard library only.
"""
import argparse
import json
import math
import random
import re
import sys
import unicodedata
from pathlib import Path


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        rows = []
        for i, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"{path}:{i}: not valid JSON ({e})")
        return rows


def trivially_equal(a, b):
    """Equal after the normalization every tool agrees on (the exact stage)."""
    fold = lambda s: re.sub(r"\W+", " ", unicodedata.normalize("NFKC", s).casefold()).strip()
    return fold(a) == fold(b)


def one_line(s):
    return re.sub(r"\s+", " ", s).strip()


def read_run(corpus, output, id_field="id", text_field="text"):
    """A corpus's texts by id and a `semhash dedup` output of it, refused
    unless the output has a line for every document and no other."""
    text = {str(d[id_field]): d[text_field] for d in read_jsonl(corpus)}
    out = read_jsonl(output)
    unknown = [str(r["id"]) for r in out if str(r["id"]) not in text]
    if unknown or len(out) != len(text):
        sys.exit(f"{output} is not a dedup output of {corpus}: {len(out)} lines for "
                 f"{len(text)} documents" + (f", unknown id {unknown[0]!r}" if unknown else ""))
    return text, out


def non_exact_links(out):
    """A dedup output's links other than exact copies: (document, parent)."""
    return [(str(r["id"]), str(r["parent"])) for r in out if r.get("parent") is not None and r["relation"] != "exact"]


def sample(args):
    text, out = read_run(args.corpus, args.output, args.id_field, args.text_field)
    links, members = non_exact_links(out), []
    for r in out:
        doc = str(r["id"])
        rep = str(r["representative"])
        if rep != doc:
            members.append((doc, rep))
    rng = random.Random(args.seed)
    folder = Path(args.o)
    folder.mkdir(parents=True, exist_ok=True)
    for name, pairs in (("links", links), ("members", members)):
        pairs = [(a, b) for a, b in pairs if not trivially_equal(text[a], text[b])]
        chosen = rng.sample(pairs, min(args.n, len(pairs)))
        with open(folder / f"{name}.tsv", "w", encoding="utf-8") as f:
            for a, b in chosen:
                f.write(f"{a}|{b}\t{one_line(text[a])}\t{one_line(text[b])}\n")
        print(f"{name}: {len(chosen)} of {len(pairs)} non-trivial pairs -> {folder / (name + '.tsv')}")


def wilson(k, n, z=1.96):
    if n == 0:
        return (0.0, 0.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def pair(key):
    """A pair's key in one order: "a|b" and "b|a" are one pair, whichever
    way a sample drew it."""
    return "|".join(sorted(key.split("|", 1)))


def read_labels(path):
    labels = {}
    for i, line in enumerate(open(path, encoding="utf-8")):
        parts = line.rstrip("\n").split("\t")
        if i == 0 and parts[0] == "key":
            continue
        if len(parts) != 2 or parts[1] not in ("0", "1"):
            sys.exit(f"{path}:{i + 1}: want key<TAB>0|1, got {line!r}")
        key, label = pair(parts[0]), int(parts[1])
        if labels.get(key, label) != label:
            sys.exit(f"{path}:{i + 1}: {parts[0]} is labelled both 0 and 1")
        labels[key] = label
    return labels


def score(args):
    keys = [pair(line.split("\t", 1)[0]) for line in open(args.sample, encoding="utf-8") if line.strip()]
    labels = read_labels(args.labels)
    missing = [k for k in keys if k not in labels]
    if missing:
        sys.exit(f"{len(missing)} sampled pairs have no label, e.g. {missing[0]}")
    k, n = sum(labels[key] for key in keys), len(keys)
    lo, hi = wilson(k, n)
    print(f"{args.sample}: {k} of {n} labelled duplicate: precision {k / n:.3f} (95% CI {lo:.3f}-{hi:.3f})")


def merged(args):
    cluster = {str(r["id"]): r["cluster"] for r in read_jsonl(args.output)}
    labels = read_labels(args.labels)
    unknown = [k for k in labels if any(d not in cluster for d in k.split("|"))]
    if unknown:
        sys.exit(f"{args.output} lacks a document of {len(unknown)} labelled pairs, e.g. {unknown[0]}")
    kept = [v for k, v in labels.items() if cluster[k.split("|")[0]] == cluster[k.split("|")[1]]]
    print(f"{args.output}: merges {len(kept)} of {len(labels)} labelled pairs, {sum(kept)} labelled duplicate: "
          f"precision {sum(kept) / max(len(kept), 1):.3f}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("corpus")
    s.add_argument("output")
    s.add_argument("--n", type=int, default=200)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--id-field", default="id")
    s.add_argument("--text-field", default="text")
    s.add_argument("-o", required=True)
    c = sub.add_parser("score")
    c.add_argument("sample")
    c.add_argument("labels")
    m = sub.add_parser("merged")
    m.add_argument("output")
    m.add_argument("labels")
    args = p.parse_args()
    {"sample": sample, "score": score, "merged": merged}[args.cmd](args)


if __name__ == "__main__":
    main()
