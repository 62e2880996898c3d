#!/usr/bin/env python3
"""MinHash peer job for benches/bench (rensa or datasketch): the whole
near-duplicate job a user of the library would run, end to end, on a JSONL
file of {"id", "text"} documents.

    read JSONL -> shingles (Python) -> MinHash signatures -> LSH insert all
    -> query candidates -> keep candidate pairs with estimated Jaccard
    >= threshold -> union-find clusters -> write the kept documents

Defaults are each library's documented ones:
- datasketch 2.0.0: `MinHashLSH(threshold=0.9, num_perm=128)` (its defaults;
  bands and rows from its own optimiser), `MinHash.bulk`.
- rensa 0.5.0: threshold 0.8 and 128 permutations as in its README; its LSH
  needs the bands given: 16 bands x 8 rows (candidate probability 0.95 at
  Jaccard 0.8), `RMinHash.from_token_sets` (its batch API).
Shingles: word 3-grams for both (see common.word_shingles); --shingles char-5
for character 5-grams. A document with no shingle is its own cluster.

Prints one JSON line on stdout: docs, pairs, clusters, parameters, timings
(ms). --clusters FILE also writes one {"id", "cluster"} line per document.
"""
import argparse
import json
import sys

from common import SHINGLERS, Laps, UnionFind, dist_version, read_docs, write_outputs

DEFAULTS = {"datasketch": {"threshold": 0.9, "num_perm": 128, "bands": None},
            "rensa": {"threshold": 0.8, "num_perm": 128, "bands": 16}}
SEED = 42


class Datasketch:
    def __init__(self, threshold, num_perm, bands):
        import datasketch
        self.m = datasketch
        params = None if bands is None else (bands, num_perm // bands)
        self.lsh = datasketch.MinHashLSH(threshold=threshold, num_perm=num_perm, params=params)
        self.num_perm = num_perm
        self.bands, self.rows = self.lsh.b, self.lsh.r

    def sketch(self, token_sets):
        data = [[s.encode("utf-8") for s in tokens] for tokens in token_sets]
        return self.m.MinHash.bulk(data, num_perm=self.num_perm, seed=SEED)

    def index(self, keyed):
        with self.lsh.insertion_session() as session:
            for key, mh in keyed:
                session.insert(key, mh, check_duplication=False)

    def query(self, mh):
        return self.lsh.query(mh)


class Rensa:
    def __init__(self, threshold, num_perm, bands):
        import rensa
        self.m = rensa
        if bands is None or num_perm % bands:
            sys.exit(f"minhash_job: rensa needs --bands dividing --num-perm {num_perm}")
        self.lsh = rensa.RMinHashLSH(threshold, num_perm, bands)
        self.num_perm = num_perm
        self.bands, self.rows = bands, num_perm // bands

    def sketch(self, token_sets):
        return self.m.RMinHash.from_token_sets([list(t) for t in token_sets],
                                               num_perm=self.num_perm, seed=SEED)

    def index(self, keyed):
        for key, mh in keyed:
            self.lsh.insert(key, mh)

    def query(self, mh):
        return self.lsh.query(mh)


LIBS = {"datasketch": Datasketch, "rensa": Rensa}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", help="JSONL with id and text fields")
    ap.add_argument("--lib", required=True, choices=sorted(LIBS))
    ap.add_argument("--output", help="write the kept documents (first of each cluster) here")
    ap.add_argument("--clusters", help="write {id, cluster} per document here")
    ap.add_argument("--threshold", type=float, help="Jaccard threshold (library default)")
    ap.add_argument("--num-perm", type=int)
    ap.add_argument("--bands", type=int, help="LSH bands (rensa: must divide --num-perm)")
    ap.add_argument("--shingles", choices=sorted(SHINGLERS), default="word-3")
    a = ap.parse_args()
    d = DEFAULTS[a.lib]
    threshold = d["threshold"] if a.threshold is None else a.threshold
    num_perm = a.num_perm or d["num_perm"]
    bands = a.bands or d["bands"]

    laps = Laps()
    ids, texts = read_docs(a.input)
    n = len(ids)
    laps("read")
    shingle = SHINGLERS[a.shingles]
    sets = [shingle(t) for t in texts]
    laps("shingle")
    lib = LIBS[a.lib](threshold, num_perm, bands)
    indexed = [i for i in range(n) if sets[i]]
    mhs = dict(zip(indexed, lib.sketch([sets[i] for i in indexed])))
    laps("minhash")
    lib.index((i, mhs[i]) for i in indexed)
    laps("lsh_insert")
    cand = set()
    for i in indexed:
        for j in lib.query(mhs[i]):
            if j != i:
                cand.add((i, j) if i < j else (j, i))
    laps("lsh_query")
    pairs = [(i, j) for (i, j) in cand if mhs[i].jaccard(mhs[j]) >= threshold]
    laps("verify")
    uf = UnionFind(n)
    for i, j in pairs:
        uf.union(i, j)
    roots = uf.roots()
    clusters = len(set(roots))
    laps("cluster")
    write_outputs(a, ids, texts, roots)
    laps("write")
    print(json.dumps({
        "tool": a.lib, "version": dist_version(a.lib), "docs": n,
        "empty_docs": n - len(indexed), "candidate_pairs": len(cand), "pairs": len(pairs),
        "clusters": clusters, "duplicates_removed": n - clusters,
        "params": {"threshold": threshold, "num_perm": num_perm, "bands": lib.bands,
                   "rows": lib.rows, "seed": SEED, "shingles": a.shingles, "verify": True},
        "timings_ms": laps.total(),
    }))


if __name__ == "__main__":
    main()
