#!/usr/bin/env python3
"""Which links of a `semhash dedup` run join long texts whose headings name
different versions or models? The study behind the heading rule
(`src/sketch/heading.rs`; README, "Long texts are not decided by what
differs, except by their headings"): run on the output of a build without
the rule, it counts what the rule parts; on one with it, none should be
left (the Rust words split at whitespace after normalization, these at
every non-word character, so the two can differ at the margin).

A long text's heading is its first line, when the text has more lines and
that line is at most 300 characters (a Debian package's summary, a page's
title). Two headings name different things here when each has a word with
a digit that the other lacks ("Qt 5 ..." / "Qt 6 ...", "... for the amd64
architecture" / "... riscv64 ..."): a version, an architecture or a model,
what the rubric calls "a different version, number ... that identifies a
different thing".

    benches/natural/headings.py CORPUS.jsonl OUT.jsonl [--labels L.tsv ...]
        [--sample N --seed S -o FILE] [--members]

prints how many of the run's non-exact links such headings would part and
the labels of those that are labelled; with --sample, writes N of them
drawn at random as `key<TAB>A<TAB>B` (the two headings) for labelling
against the rubric, to be scored with `audit.py score`. With --members,
also what the cluster rule (`cluster::Link::apart`) does, simulated on the
output: a member whose heading names other things than a member placed
before it (strongest link first; exact copies follow their text) leaves
its cluster; prints how many leave and, with labels, the labelled pairs
still merged and their precision. On a build with the rule, only members
whose pair the index never proposed are left to move.
"""
import argparse
import random
import re
import unicodedata

from audit import non_exact_links, pair, read_labels, read_run

HEADING_MAX_CHARS = 300


def heading(text):
    """The first line of a text of several lines, when short enough to be a heading."""
    first, _, rest = text.strip().partition("\n")
    return first if rest.strip() and len(first) <= HEADING_MAX_CHARS else None


def numbered_words(line):
    words = re.split(r"[\W_]+", unicodedata.normalize("NFKC", line).casefold())
    return {w for w in words if any(c.isdigit() for c in w)}


def name_different_things(a, b):
    ha, hb = heading(a), heading(b)
    if ha is None or hb is None:
        return False
    wa, wb = numbered_words(ha), numbered_words(hb)
    return bool(wa - wb) and bool(wb - wa)


def leave_clusters(text, out):
    """Cluster of every id once members that name other things than an
    earlier member of their cluster have left (each to a cluster of its
    own), and how many left."""
    cluster = {str(r["id"]): r["cluster"] for r in out}
    members = {}
    for r in out:
        if r.get("parent") is not None and r["relation"] != "exact":
            members.setdefault(r["cluster"], []).append(r)
    left = 0
    for rs in members.values():
        kept = [str(rs[0]["representative"])]
        for r in sorted(rs, key=lambda r: -r["score"]):
            i = str(r["id"])
            if any(name_different_things(text[i], text[k]) for k in kept):
                cluster[i] = ("left", i)
                left += 1
            else:
                kept.append(i)
    # An exact copy's parent is the first document of its text, never a copy.
    for r in out:
        if r["relation"] == "exact":
            cluster[str(r["id"])] = cluster[str(r["parent"])]
    return cluster, left


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("output")
    ap.add_argument("--labels", nargs="*", default=[])
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("-o", "--out")
    ap.add_argument("--members", action="store_true")
    args = ap.parse_args()
    if args.sample and not args.out:
        ap.error("--sample needs -o FILE")
    text, out = read_run(args.corpus, args.output)
    links = non_exact_links(out)
    parted = [(a, b) for a, b in links if name_different_things(text[a], text[b])]
    labels = {k: v for path in args.labels for k, v in read_labels(path).items()}
    keys = [pair(f"{a}|{b}") for a, b in parted]
    known = [labels[k] for k in keys if k in labels]
    print(f"{args.output}: {len(links)} non-exact links, {len(parted)} with headings that name different things; "
          f"{len(known)} of those labelled, {sum(known)} labelled duplicate")
    if args.members:
        cluster, left = leave_clusters(text, out)
        kept = [v for k, v in labels.items() if cluster[k.split("|")[0]] == cluster[k.split("|")[1]]]
        print(f"members that would leave their clusters: {left}; labelled pairs still merged {len(kept)}, "
              f"{sum(kept)} labelled duplicate: precision {sum(kept) / max(len(kept), 1):.3f}")
    if args.sample:
        drawn = random.Random(args.seed).sample(parted, min(args.sample, len(parted)))
        with open(args.out, "w", encoding="utf-8") as w:
            for a, b in drawn:
                w.write(f"{a}|{b}\t{heading(text[a])}\t{heading(text[b])}\n")


if __name__ == "__main__":
    main()
