"""Shared by benches/bench and the peer jobs: standard library only, so it
runs in the driver's Python and in every peer virtualenv.

- reading documents and writing a job's results (one summary JSON line on
  stdout; optionally one {"id", "cluster"} line per input document);
- the shingling the MinHash peers use;
- scoring: `pair_metrics_at` / `best_threshold` and `cluster_metrics`, ports
  of `PairMetrics` and `cluster_metrics` in src/eval.rs, so that a peer that
  only gives clusters or similarities is scored exactly as `semhash eval`
  scores this project (benches/bench checks the port against `semhash eval`
  on every run).
"""
import json
import re
import time

WORD = re.compile(r"\w+")


# ---------------------------------------------------------------- documents

def read_docs(path):
    """(ids, texts) of a JSONL file of {"id", "text"} objects."""
    ids, texts = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                ids.append(d["id"])
                texts.append(d["text"])
    return ids, texts


def write_kept(path, ids, texts, roots):
    """The documents a user keeps: the first (smallest index) of each cluster."""
    with open(path, "w", encoding="utf-8") as f:
        for i, (doc_id, text) in enumerate(zip(ids, texts)):
            if roots[i] == i:
                f.write(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False) + "\n")


def write_clusters(path, ids, roots):
    """One {"id", "cluster"} line per input document, in input order."""
    with open(path, "w", encoding="utf-8") as f:
        for doc_id, root in zip(ids, roots):
            f.write(json.dumps({"id": doc_id, "cluster": root}, ensure_ascii=False) + "\n")


def write_outputs(args, ids, texts, roots):
    """What a job's --output (kept documents) and --clusters flags ask for."""
    if args.output:
        write_kept(args.output, ids, texts, roots)
    if args.clusters:
        write_clusters(args.clusters, ids, roots)


def dist_version(name):
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:
        return None


class Laps:
    """Named wall-clock laps in milliseconds, for a job's summary line."""

    def __init__(self):
        self.t0 = self.tick = time.perf_counter()
        self.ms = {}

    def __call__(self, name):
        now = time.perf_counter()
        self.ms[name] = round((now - self.tick) * 1000.0, 3)
        self.tick = now

    def total(self):
        self.ms["total"] = round((time.perf_counter() - self.t0) * 1000.0, 3)
        return self.ms


# ---------------------------------------------------------------- shingles

def word_shingles(text, n=3):
    """Lower-cased \\w+ words, n consecutive words joined by one space; a
    text with fewer than n words gives its words."""
    words = WORD.findall(text.lower())
    if len(words) < n:
        return set(words)
    return {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}


def char_shingles(text, n=5):
    """Character n-grams of the lower-cased text with runs of whitespace made
    one space; a shorter text gives itself."""
    t = " ".join(text.lower().split())
    if len(t) <= n:
        return {t} if t else set()
    return {t[i:i + n] for i in range(len(t) - n + 1)}


SHINGLERS = {"word-3": word_shingles, "char-5": char_shingles}


# ---------------------------------------------------------------- clusters

class UnionFind:
    """Union-find over 0..n-1; the root of a set is its smallest member."""

    def __init__(self, n):
        self.parent = list(range(n))

    def find(self, x):
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def roots(self):
        return [self.find(i) for i in range(len(self.parent))]


# ---------------------------------------------------------------- scoring (src/eval.rs)

def _metrics(threshold, tp, fp, fn):
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"threshold": threshold, "true_positives": tp, "false_positives": fp,
            "false_negatives": fn, "precision": precision, "recall": recall, "f1": f1}


def pair_metrics(predicted_and_labels):
    """PairMetrics::of_predictions: [(predicted duplicate, label)] -> P/R/F1."""
    tp = fp = fn = 0
    for predicted, label in predicted_and_labels:
        if predicted and label:
            tp += 1
        elif predicted:
            fp += 1
        elif label:
            fn += 1
    return _metrics(None, tp, fp, fn)


def pair_metrics_at(scored, threshold):
    """Metrics of `score >= threshold` over [(score, label)]."""
    m = pair_metrics((s >= threshold, label) for s, label in scored)
    m["threshold"] = threshold
    return m


def best_threshold(scored):
    """PairMetrics::best_threshold: the threshold on the score (duplicate when
    score >= t) with the best F1, over [(score, label)]."""
    ordered = sorted(scored, key=lambda x: -x[0])
    positives = sum(1 for _, label in ordered if label)
    best = _metrics(float("inf"), 0, 0, positives)
    tp = fp = 0
    for i, (score, label) in enumerate(ordered):
        if label:
            tp += 1
        else:
            fp += 1
        if i + 1 < len(ordered) and ordered[i + 1][0] == score:
            continue  # only a threshold between distinct scores is realisable
        m = _metrics(score, tp, fp, positives - tp)
        if m["f1"] > best["f1"]:
            best = m
    return best


def _pairs(n):
    return n * (n - 1) // 2


def cluster_metrics(truth, predicted):
    """cluster_metrics: truth[i] = (true cluster, type), predicted[i] = predicted
    cluster. Per type: docs, true_pairs, found_pairs, recall (None without true
    pairs), false_pairs (pairs in one predicted cluster but different true
    clusters that touch the type) and wrongly_merged_docs."""
    assert len(truth) == len(predicted)
    out = {}

    def entry(kind):
        return out.setdefault(kind, {"docs": 0, "true_pairs": 0, "found_pairs": 0,
                                     "recall": None, "false_pairs": 0,
                                     "wrongly_merged_docs": 0})

    by_true = {}
    for (cluster, kind), p in zip(truth, predicted):
        k, split = by_true.setdefault(cluster, (kind, {}))
        split[p] = split.get(p, 0) + 1
        entry(kind)["docs"] += 1
    for kind, split in by_true.values():
        m = out[kind]
        m["true_pairs"] += _pairs(sum(split.values()))
        m["found_pairs"] += sum(_pairs(n) for n in split.values())

    by_predicted = {}
    for (cluster, kind), p in zip(truth, predicted):
        members = by_predicted.setdefault(p, {})
        count, k = members.get(cluster, (0, kind))
        members[cluster] = (count + 1, k)
    for members in by_predicted.values():
        if len(members) < 2:
            continue
        total = sum(c for c, _ in members.values())
        cross_all = _pairs(total) - sum(_pairs(c) for c, _ in members.values())
        for kind in sorted({k for _, k in members.values()}):
            others = sum(c for c, k in members.values() if k != kind)
            others_same = sum(_pairs(c) for c, k in members.values() if k != kind)
            m = out[kind]
            m["false_pairs"] += cross_all - (_pairs(others) - others_same)
            m["wrongly_merged_docs"] += sum(c for c, k in members.values() if k == kind)
    for m in out.values():
        if m["true_pairs"]:
            m["recall"] = m["found_pairs"] / m["true_pairs"]
    return dict(sorted(out.items()))


def cluster_sizes(clusters_path):
    """Sizes of the clusters of a job's {"id", "cluster"} file."""
    sizes = {}
    with open(clusters_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                c = str(json.loads(line)["cluster"])
                sizes[c] = sizes.get(c, 0) + 1
    return list(sizes.values())


def stress_scores(truth_path, clusters_path):
    """Scores a job's {"id", "cluster"} file against a stress file ({"id",
    "cluster", "type"}): {"per_type", "false_pairs", "documents"}. Every
    truth id must have exactly one line in the clusters file."""
    truth_rows = []
    with open(truth_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                truth_rows.append((str(d["id"]), str(d["cluster"]), str(d["type"])))
    predicted = {}
    with open(clusters_path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                key = str(d["id"])
                if key in predicted:
                    raise ValueError(f"{clusters_path}: id {key!r} appears twice")
                predicted[key] = str(d["cluster"])
    missing = [i for i, _, _ in truth_rows if i not in predicted]
    if missing or len(predicted) != len(truth_rows):
        raise ValueError(f"{clusters_path}: {len(missing)} of {len(truth_rows)} ids missing, "
                         f"{len(predicted)} lines")
    labels = [predicted[i] for i, _, _ in truth_rows]
    per_type = cluster_metrics([(c, k) for _, c, k in truth_rows], labels)
    overall = cluster_metrics([(c, "all") for _, c, _ in truth_rows], labels)["all"]
    return {"documents": len(truth_rows), "per_type": per_type,
            "false_pairs": overall["false_pairs"]}
