"""The Arrow kernels with pyarrow as the engine: run over shuffled
partitions, they give exactly what ``dedup`` gives; bad batches are refused
by name."""

import json
import os
import random
from collections import Counter, defaultdict

import pytest

pa = pytest.importorskip("pyarrow")

from semhash_llm import SemHashError, dedup  # noqa: E402
from semhash_llm.arrow import Kernels  # noqa: E402

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "data", "sample.jsonl")
HOT = "Breaking: the city council votes to close the old harbour bridge for repairs next month."


def corpus():
    docs = [json.loads(line) for line in open(SAMPLE, encoding="utf-8")]
    # A hot text: copies and near copies beyond a small bucket cap.
    for i in range(40):
        text = [HOT, HOT.replace("next month", "next month!"), HOT.upper(), f"{HOT} ({i})"][i % 4]
        docs.append({"id": f"hot{i}", "text": text})
    # A short pair whose verdict depends on the corpus's word statistics.
    docs += [{"id": "pie", "text": "pie chart for react native"}, {"id": "a-pie", "text": "a pie chart for react native"}]
    return docs


def deal(items, n, rng):
    """``items`` in ``n`` partitions, the partitions and their items shuffled."""
    parts = [[] for _ in range(n)]
    for item in items:
        parts[rng.randrange(n)].append(item)
    for part in parts:
        rng.shuffle(part)
    rng.shuffle(parts)
    return [p for p in parts if p]


def staged(kernels, texts, n, seed):
    """The whole job through the kernels, partition by partition: each
    position's (cluster, representative, parent, relation, score)."""
    rng = random.Random(seed)
    positions = list(range(len(texts)))

    # Exact: heads are the lowest position of each text.
    holders = defaultdict(list)
    for part in deal(positions, n, rng):
        keys = kernels.exact_keys({"text": [texts[p] for p in part]}).column("exact_key").to_pylist()
        for p, key in zip(part, keys):
            holders[key].append(p)
    head_of = {p: min(group) for group in holders.values() for p in group}
    copies = {min(g): len(g) - 1 for g in holders.values()}
    heads = list(copies)

    # Statistics: df, then content_df with each partition's df joined in.
    shingles, prepared = {}, {}
    for part in deal(heads, n, rng):
        out = kernels.prepare(pa.table({"text": pa.array([texts[h] for h in part], pa.large_string())}))
        for h, s, b in zip(part, out.column("shingles").to_pylist(), out.column("prepared").to_pylist()):
            shingles[h], prepared[h] = s, b
    df = Counter(s for h in heads for s in shingles[h])
    content_df = Counter()

    def table_of(part, **columns):
        own = sorted({s for h in part for s in shingles[h]})
        return pa.record_batch({"shingle": pa.array(own, pa.int64()), **{k: [f(s) for s in own] for k, f in columns.items()}})

    for part in deal(heads, n, rng):
        batch = pa.record_batch({"shingles": pa.array([shingles[h] for h in part], pa.list_(pa.int64()))})
        out = kernels.content_shingles(batch, table_of(part, df=df.__getitem__))
        content_df.update(s for row in out.column("content").to_pylist() for s in row)

    # Sign, each partition under the counts of its own shingles.
    signature, reading = {}, {}
    for part in deal(heads, n, rng):
        stats = kernels.statistics(len(heads), table_of(part, df=df.__getitem__, content_df=content_df.__getitem__))
        out = kernels.sign({"prepared": [prepared[h] for h in part]}, stats)
        for h, s, r in zip(part, out.column("signature").to_pylist(), out.column("reading").to_pylist()):
            signature[h], reading[h] = s, r

    # Candidates: each key's members in one batch.
    members = {"band_keys": defaultdict(list), "passage_keys": defaultdict(list)}
    for part in deal(heads, n, rng):
        out = kernels.keys({"signature": [signature[h] for h in part]})
        for kind, buckets in members.items():
            for h, keys in zip(part, out.column(kind).to_pylist()):
                for key in keys:
                    buckets[key].append(h)
    found = {}
    for kind, buckets in members.items():
        found[kind] = Counter()
        for part in deal(list(buckets), n, rng):
            rows = [(key, h, copies[h]) for key in part for h in buckets[key]]
            key, position, copy_count = (list(c) for c in zip(*rows))
            out = kernels.bucket_pairs({"key": pa.array(key, pa.int64()), "position": position, "copies": copy_count})
            found[kind].update(zip(out.column("a").to_pylist(), out.column("b").to_pylist()))
    pairs = set(found["band_keys"]) | {p for p, k in found["passage_keys"].items() if k >= kernels.min_shared_passages}

    # Word statistics of the short texts.
    short = [h for h in heads if reading[h] is not None]
    words, fillers = {}, set()
    for part in deal(short, n, rng):
        out = kernels.word_keys({"reading": pa.array([reading[h] for h in part], pa.binary())})
        for h, w, c, f in zip(part, *(out.column(k).to_pylist() for k in ("words", "contexts", "fillers"))):
            words[h] = (w, c)
            fillers.update(zip(c, f))
    word_texts = Counter(w for ws, _ in words.values() for w in ws)
    context_fillers = Counter(c for c, _ in fillers)

    # Verify, each partition under the counts of its own texts' words.
    links = []
    for part in deal(sorted(pairs), n, rng):
        own = [words[h] for pair in part for h in pair if h in words]
        ws = sorted({w for w, _ in own for w in w})
        cs = sorted({c for _, c in own for c in c})
        table = kernels.word_stats(
            len(short),
            {"word": pa.array(ws, pa.int64()), "texts": [word_texts[w] for w in ws]},
            {"context": pa.array(cs, pa.int64()), "fillers": [context_fillers[c] for c in cs]},
        )
        side = lambda i, what: [what[pair[i]] for pair in part]  # noqa: E731
        batch = {
            "a": [a for a, _ in part],
            "b": [b for _, b in part],
            "a_signature": side(0, signature),
            "b_signature": side(1, signature),
            "a_reading": pa.array(side(0, reading), pa.binary()),
            "b_reading": pa.array(side(1, reading), pa.binary()),
        }
        links += kernels.verify(batch, table).to_pylist()
    links += [{"a": p, "b": h, "relation": "exact", "score": 1.0} for p, h in head_of.items() if p != h]

    # Connected components, each clustered on its own, then numbered.
    root = list(positions)

    def find(x):
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    for link in links:
        a, b = find(link["a"]), find(link["b"])
        root[max(a, b)] = min(a, b)
    components = defaultdict(list)
    for link in links:
        components[find(link["a"])].append(link)
    placed = {p: (p, None, "none", 0.0) for p in positions}
    for part in deal(list(components.values()), n, rng):
        for component in part:
            out = kernels.cluster_component(pa.RecordBatch.from_pylist(component).cast(
                pa.schema([("a", pa.int64()), ("b", pa.int64()), ("relation", pa.string()), ("score", pa.float32())])
            ))
            for row in out.to_pylist():
                placed[row["position"]] = (row["representative"], row["parent"], row["relation"], row["score"])
    first = {}
    for p in positions:
        first.setdefault(placed[p][0], p)
    number = {rep: i for i, rep in enumerate(sorted(first, key=first.get))}
    return [(number[placed[p][0]],) + placed[p] for p in positions]


@pytest.mark.parametrize("config", [None, {"index": {"bucket_cap": 3}}])
def test_kernels_over_shuffled_partitions_give_the_batch_result(config):
    docs = corpus()
    rows = dedup(docs, config=config).rows
    position = {d["id"]: i for i, d in enumerate(docs)}
    want = [
        (r["cluster"], position[r["representative"]], position.get(r["parent"]), r["relation"], r["score"])
        for r in rows
    ]
    assert sum(1 for r in rows if r["relation"] not in ("none", "exact")) > 20, "the corpus has near duplicates"
    kernels = Kernels(config)
    for n, seed in [(1, 1), (3, 2), (7, 3)]:
        assert staged(kernels, [d["text"] for d in docs], n, seed) == want, f"{n} partitions"


def test_bad_batches_are_refused_by_name():
    kernels = Kernels()
    with pytest.raises(SemHashError, match='no column "text"'):
        kernels.exact_keys({"body": ["a text"]})
    with pytest.raises(SemHashError, match='column "text" is null at row 1'):
        kernels.exact_keys({"text": ["a text", None]})
    with pytest.raises(SemHashError, match='column "text" holds Int64'):
        kernels.exact_keys({"text": pa.array([1, 2], pa.int64())})
    with pytest.raises(SemHashError, match='row 0: text is empty'):
        kernels.prepare({"text": [""]})
    with pytest.raises(SemHashError, match="over the limit of 10 bytes"):
        Kernels({"limits": {"max_doc_bytes": 10}}).exact_keys({"text": ["longer than ten bytes"]})
    with pytest.raises(SemHashError, match="not a semhash signature"):
        kernels.keys({"signature": [b"not a signature"]})
    empty = pa.array([], pa.int64())
    stats = kernels.statistics(1, pa.record_batch({"shingle": empty, "df": empty, "content_df": empty}))
    with pytest.raises(SemHashError, match="not a prepared text"):
        kernels.sign({"prepared": [b"\x00" * 3]}, stats)
    with pytest.raises(SemHashError, match="not a relation"):
        kernels.cluster_component({"a": [0], "b": [1], "relation": ["same"], "score": pa.array([1.0], pa.float32())})
    with pytest.raises(SemHashError, match="not a position"):
        kernels.cluster_component({"a": [-1], "b": [1], "relation": ["near"], "score": [0.9]})
    assert kernels.exact_keys({"text": pa.array([], pa.string())}).num_rows == 0
