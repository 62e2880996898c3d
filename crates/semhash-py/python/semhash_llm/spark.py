"""De-duplication as an Apache Spark job: the same Rust core in every task.

The batch pipeline is cut into stage functions (``semhash::stages`` in Rust,
:class:`semhash_llm._native.Stages` here), each of one document, one pair or
one group; Spark does the shuffles between them. The output is what
``semhash dedup`` writes for the same input (the same clusters,
representatives, relations and scores), whatever the number of files and
partitions::

    semhash-spark dedup --master 'local[2]' DIR_OR_FILES... -o OUT.jsonl
    spark-submit .../semhash_llm/spark.py dedup hdfs:///corpus -o OUT.jsonl   # on a cluster

Stages (each forced and timed; ``stats["seconds"]``): ingest (global input
order from each file's lines, read once; bad records and repeated ids refused, or
skipped with ``--on-error skip``) -> exact -> corpus statistics (document
frequencies, then the content counts behind the boilerplate discount) ->
sign -> candidates (band and passage keys grouped; hot buckets capped as in a
batch) -> word statistics -> verify -> connected components (on the driver
from the links alone, or by large-star / small-star rounds on the executors
from ten million links) -> assign (star clustering per component, on the
executors) -> number clusters -> write.

Runs on Spark: the lexical pipeline. Not staged: the semantic stage, the
judge and snippet reports (they run in ``semhash dedup`` on one machine).
Every executor needs this package installed (the same build: scores are
compared bit for bit). The output is written by the driver, to its own file
system.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from typing import Any, Dict, Iterable, List, Optional, Sequence

from semhash_llm import _config_json, _native
from semhash_llm._native import SemHashError

__all__ = ["dedup", "main"]

_BATCH = 512

#: Bytes of broadcast statistics per distinct text, measured at 100k texts
#: (df 77, content counts 14, words 11, context fillers 205; vocabularies
#: grow slower than corpora, so larger corpora need less per text).
TABLE_BYTES_PER_TEXT = 306


def _broadcast_fits(sc: Any, distinct: int) -> bool:
    """Whether ``statistics="auto"`` broadcasts: the tables, estimated at
    :data:`TABLE_BYTES_PER_TEXT`, take at most an eighth of the smaller of
    the driver's and an executor's memory (each holds them whole); otherwise
    they are joined to each text through shuffles, which scale with the
    cluster rather than with one process."""
    # In local mode the executor is the driver's JVM.
    keys = ["spark.driver.memory"] + ([] if sc.master.startswith("local") else ["spark.executor.memory"])
    memory = min(_bytes(sc.getConf().get(key, "1g")) for key in keys)
    return distinct * TABLE_BYTES_PER_TEXT <= memory // 8


def _bytes(size: str) -> int:
    """Spark's memory sizes ("512m", "8g", a number of MiB) in bytes."""
    size = size.strip().lower().rstrip("b")
    units = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
    return int(float(size[:-1]) * units[size[-1]]) if size[-1:] in units else int(size) * 2**20


#: Below this many links, ``components="auto"`` finds the connected
#: components on the driver (a link is four numbers; 10 million as Python
#: tuples are a few GB there); from it on, by rounds on the executors.
DRIVER_LINKS_BELOW = 10_000_000


_NATIVE: Dict[Optional[str], Any] = {}


def _stages(config: Optional[str]):
    """One native Stages per Python worker process and configuration."""
    if config not in _NATIVE:
        _NATIVE[config] = _native.Stages(config)
    return _NATIVE[config]


def _batched(rows: Iterable[Any], size: int = _BATCH):
    batch: List[Any] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _answers(config: Optional[str], method: str, ask, *first):
    """A partition function that pairs each row with the native stage's
    answer for it: ``method(*first, [ask(row) for row in batch])``, asked a
    batch at a time."""

    def run(rows):
        for batch in _batched(rows):
            yield from zip(batch, getattr(_stages(config), method)(*first, [ask(r) for r in batch]))

    return run


_TABLES: Dict[int, Any] = {}


def _loaded(table: Any, load=_native.CountTable):
    """A broadcast table, loaded (``load(value)``) once per Python worker
    process (a worker holds one object per broadcast; the last few are kept)."""
    if id(table) not in _TABLES:
        if len(_TABLES) >= 4:
            del _TABLES[next(iter(_TABLES))]
        _TABLES[id(table)] = (table, load(table.value))
    return _TABLES[id(table)][1]


def _sum_words(x, y):
    """Two partial word statistics summed: (short texts, word table, filler set)."""
    return x[0] + y[0], _native.merge_counts(x[1], y[1]), _native.merge_fillers(x[2], y[2])


def _partial(rows, count, add=_native.merge_counts, zero=b""):
    """One partition's partial table: ``count(batch)`` of each batch, added."""
    return [functools.reduce(add, (count(batch) for batch in _batched(rows, 8 * _BATCH)), zero)]


def _gathered(tables: Any, P: int, split, merge, finish) -> bytes:
    """One count table from an RDD of partial tables: each is cut by hash
    into ``P`` parts (``split``), the parts are merged on the executor they
    land on (``merge``) and made a count table there (``finish``), and only
    those travel to the driver, which joins them (they hold other hashes)."""
    parts = _by_block(tables.flatMap(lambda table: split(table, P)), P)
    done = parts.mapPartitions(lambda blocks: [finish(functools.reduce(merge, (b for _, b in blocks), b""))])
    return functools.reduce(_native.merge_counts, done.collect(), b"")


def _summed(tables: Any, P: int, least: int = 1) -> bytes:
    """One count table from an RDD of partial ones, summed, keeping counts
    of at least ``least``."""
    return _gathered(tables, P, _native.split_counts, _native.merge_counts, lambda t: _native.counts_at_least(t, least))


def _files(sc: Any, inputs: Sequence[str]) -> List[str]:
    """Input files in order: a folder stands for its files, sorted by name.
    Read through Hadoop's file systems, so ``hdfs://``, ``s3a://`` and local
    paths all work."""
    jvm, conf = sc._jvm, sc._jsc.hadoopConfiguration()
    files: List[str] = []
    for name in inputs:
        path = jvm.org.apache.hadoop.fs.Path(name)
        fs = path.getFileSystem(conf)
        if not fs.exists(path):
            raise OSError(f"no such file or folder: {name}")
        if fs.getFileStatus(path).isDirectory():
            inside = [st.getPath() for st in fs.listStatus(path) if st.isFile()]
            kept = sorted((p.getName(), p.toString()) for p in inside if not p.getName().startswith((".", "_")))
            files.extend(full for _, full in kept)
        else:
            files.append(fs.makeQualified(path).toString())
    if not files:
        raise SemHashError("no input files")
    return files


def _score(x: float) -> str:
    """A score as the command writes it (the shortest text of the 32-bit float)."""
    try:
        import numpy

        return str(numpy.float32(x))
    except ImportError:  # pragma: no cover - numpy comes with pandas and pyspark
        return repr(x)


def _hadoop(sc: Any, name: str):
    path = sc._jvm.org.apache.hadoop.fs.Path(name)
    return path, path.getFileSystem(sc._jsc.hadoopConfiguration())


#: How each kept stage's rows are stored: a Parquet schema, a row as a
#: record of it, and the row back from a record. Ids are kept as their JSON
#: (a number id stays a number); 64-bit numbers fit Parquet's signed longs.
_STORED = {
    "ingest": (
        "position long, id string, text string",
        lambda r: (r[0], json.dumps(r[1][0]), r[1][1]),
        lambda r: (r[0], (json.loads(r[1]), r[2])),
    ),
    "exact": (
        "key binary, positions array<long>, text string",
        lambda r: (r[0], r[1][0], r[1][1]),
        lambda r: (bytes(r[0]), (list(r[1]), r[2])),
    ),
    "sign": (
        "head long, copies long, reading binary, signature binary",
        lambda r: (r[0],) + tuple(r[1]),
        lambda r: (r[0], (r[1], bytes(r[2]), bytes(r[3]))),
    ),
    "candidates": ("part int, block binary", tuple, lambda r: (r[0], bytes(r[1]))),
    "verify": ("a long, b long, relation string, score double", tuple, tuple),
}


class _Work:
    """Finished stages kept under a work directory (any Hadoop file system):
    each stage's rows as Parquet (:data:`_STORED`), and ``manifest.json`` naming
    the run (configuration, input files with their sizes and times, fields,
    bad-input policy, package version) and the stages finished with their
    small results. A rerun of the same run loads them instead of computing
    them; a work directory of another run is refused."""

    def __init__(self, spark: Any, folder: Optional[str], identity: dict):
        self.spark, self.sc, self.folder = spark, spark.sparkContext, folder
        self.identity, self.finished, self.resumed = identity, {}, []
        if folder is None:
            return
        text = self._read("manifest.json")
        if text is not None:
            manifest = json.loads(text)
            if manifest.get("identity") != identity:
                raise SemHashError(
                    f"work directory {folder} holds the stages of another run (other input, configuration or "
                    "version): empty it or choose another"
                )
            self.finished = manifest.get("finished", {})

    def _read(self, name: str) -> Optional[str]:
        path, fs = _hadoop(self.sc, f"{self.folder}/{name}")
        if not fs.exists(path):
            return None
        jvm = self.sc._jvm
        reader = jvm.java.io.BufferedReader(jvm.java.io.InputStreamReader(fs.open(path), "UTF-8"))
        try:
            return reader.readLine()
        finally:
            reader.close()

    def _write(self, name: str, text: str) -> None:
        path, fs = _hadoop(self.sc, f"{self.folder}/{name}")
        tmp, _ = _hadoop(self.sc, f"{self.folder}/{name}.tmp")
        out = fs.create(tmp, True)
        out.write(bytearray(text.encode("utf-8")))
        out.close()
        fs.delete(path, False)
        fs.rename(tmp, path)

    def keep(self, name: str, compute):
        """``compute()`` gives (rows, small result); kept, or loaded when a
        run before finished this stage."""
        if self.folder is None:
            return compute()
        path = f"{self.folder}/{name}"
        schema, record, row = _STORED[name]
        if name not in self.finished:
            rows, small = compute()
            # Overwritten: what a killed run left half written.
            self.spark.createDataFrame(rows.map(record), schema).write.mode("overwrite").parquet(path)
            self.finished[name] = small
            self._write("manifest.json", json.dumps({"identity": self.identity, "finished": self.finished}))
        else:
            self.resumed.append(name)
        return self.spark.read.parquet(path).rdd.map(row), self.finished[name]


def _identity(sc: Any, files: List[str], conf: Optional[str], fields: List[str], on_error: str) -> dict:
    """What makes two runs the same run."""
    from importlib.metadata import version

    stats = []
    for name in files:
        path, fs = _hadoop(sc, name)
        status = fs.getFileStatus(path)
        stats.append([name, status.getLen(), status.getModificationTime()])
    config = json.loads(conf) if conf else json.loads(_native.default_config())
    # The stages' schemas too: a build of the same version may store a stage
    # otherwise (the sign stage's text became a reading on 12-05).
    stored = {name: schema for name, (schema, _, _) in _STORED.items()}
    return {
        "files": stats,
        "config": config,
        "fields": fields,
        "on_error": on_error,
        "version": version("semhash-llm"),
        "stored": stored,
    }


def _prepared(conf: Optional[str]):
    """A partition function: head -> (its copies' positions, text) rows to
    head -> (copies, the text prepared as bytes), for the passes that sign it."""

    def prepare(rows):
        for batch in _batched(rows):
            for (head, (copies, _)), p in zip(batch, _stages(conf).prepare_texts([r[1][1] for r in batch])):
                yield head, (len(copies), p)

    return prepare


def _signed_by_broadcast(sc: Any, conf: Optional[str], heads: Any, distinct: int, P: int):
    """Signs ``heads`` (head -> (its copies' positions, text)) under
    statistics that every worker holds whole: partitions count, Spark sums,
    the sums are broadcast. Gives head -> (copies, reading, signature): a
    short text's reading is what the later stages read of it, a long one's
    is empty (its signature decides)."""

    def signed():
        # Each text is prepared once, for the three passes over it.
        prepared = heads.mapPartitions(_prepared(conf)).cache()
        packed = prepared.map(lambda kv: kv[1][1])
        df = _summed(packed.mapPartitions(lambda rows: _partial(rows, _stages(conf).count_shingles)), P, least=2)
        df = sc.broadcast(df)
        content = packed.mapPartitions(lambda rows: _partial(rows, lambda b: _stages(conf).count_content(b, _loaded(df))))
        content = sc.broadcast(_summed(content, P))

        def sign(rows):
            stages = _stages(conf)
            corpus = _loaded(content, lambda table: stages.statistics(distinct, df.value, table))
            for batch in _batched(rows):
                answers = stages.sign_prepared([r[1][1] for r in batch], corpus)
                for (head, (copies, _)), (sig, reading) in zip(batch, answers):
                    yield head, (copies, reading, sig)

        return prepared.mapPartitions(sign)

    return signed


def _signed_by_shuffle(conf: Optional[str], heads: Any, distinct: int, P: int):
    """Signs ``heads`` (head -> (its copies' positions, text)) with each text's own counts
    joined to it through shuffles of blocks: no table is held whole anywhere.
    A text stays in its head's partition from step to step, and a shingle's
    records meet in the shingle's (``route_held`` to ``sign_held`` in the
    native stages). Gives what :func:`_signed_by_broadcast` gives."""

    def routed(rows):
        for batch in _batched(rows):
            yield from _stages(conf).route_held([(head, copies, p) for head, (copies, p) in batch], P)

    def step(method, *first):
        return lambda blocks: getattr(_stages(conf), method)(blocks, *first)

    def signed():
        held = _by_block(heads.mapPartitions(_prepared(conf)).mapPartitions(routed), P)
        for method in ("held_df", "held_content", "held_counts"):
            held = _by_block(held.mapPartitions(step(method, P)), P)
        return held.mapPartitions(step("sign_held", distinct)).map(lambda r: (r[0], (r[1], r[2][1], r[2][0])))

    return signed


#: Texts per partition where pairs meet their sides: a task holds its
#: partition's sides whole (signature, and a short text's reading and its
#: words read for verifying), so the partitions grow in number with the corpus rather than
#: in size. Smaller partitions copy each side to more of them (at a million
#: documents, 25,000 moved 5.7 GB and 100,000 3.8 GB).
SIDES_PER_PART = 100_000


def _meeting_parts(distinct: int, P: int) -> int:
    """Partitions where candidate pairs meet their sides (at least ``P``)."""
    return max(P, -(-distinct // SIDES_PER_PART))


def _by_block(rdd: Any, P: int) -> Any:
    """Blocks of records keyed by their partition, sent there."""
    return rdd.partitionBy(P, _identity_part)


def _identity_part(part: int) -> int:
    return part


def _links_by_broadcast(sc: Any, conf: Optional[str], signed: Any, pairs: Any, P: int, meet: int):
    """Counts the word statistics (partitions count, Spark sums, the sums
    are broadcast); returns the links the candidate pairs make. The pairs
    (blocks from ``candidate_pairs``) meet their sides natively, as blocks:
    each side goes to its position's partition, which sends it on to the
    partitions of its pairs' higher sides, where they are verified (``meet``
    partitions: :func:`_meeting_parts`)."""
    texts = signed.map(lambda kv: (kv[1][1], kv[1][2]))
    partials = texts.mapPartitions(lambda rows: _partial(rows, _stages(conf).count_words, _sum_words, (0, b"", b"")))
    partials = partials.cache()
    short = partials.map(lambda p: p[0]).sum()
    fillers = partials.map(lambda p: p[2])
    contexts = _gathered(fillers, P, _native.split_fillers, _native.merge_fillers, _native.context_counts)
    words = sc.broadcast((short, _summed(partials.map(lambda p: p[1]), P), contexts))
    partials.unpersist()

    def routed_sides(rows):
        for batch in _batched(rows):
            yield from _stages(conf).route_sides([(r[0], r[1][1], r[1][2]) for r in batch], meet)

    def verify(blocks):
        stages = _stages(conf)
        yield from stages.verify_blocks(blocks, words=_loaded(words, lambda value: stages.word_table(*value)))

    return _verified(conf, signed.mapPartitions(routed_sides), pairs, meet, verify)


def _verified(conf: Optional[str], sides: Any, pairs: Any, meet: int, verify):
    """The links the candidate pairs (blocks from ``candidate_pairs``) make:
    each side (blocks of side records at their positions' partitions) is
    sent on, once, to the partitions of its pairs' higher sides, where
    ``verify`` takes a partition's blocks to its links."""

    def send_sides(blocks):
        yield from _stages(conf).send_sides(blocks, meet)

    met = _by_block(sides.union(pairs), meet).mapPartitions(send_sides)
    return _by_block(met, meet).mapPartitions(verify)


def _links_by_shuffle(conf: Optional[str], signed: Any, pairs: Any, meet: int):
    """Joins each short text's own word counts to it through shuffles of
    blocks (each word's texts counted in the word's partition, each
    context's fillers in the context's, the counts sent back to the texts'
    partitions); returns the links the candidate pairs make, the pairs
    meeting their sides (counts in them) as with broadcast statistics."""
    short_docs = signed.filter(lambda kv: len(kv[1][1]) > 0).count()  # a long text's reading is empty

    def routed_words(rows):
        for batch in _batched(rows):
            yield from _stages(conf).route_words([(r[0], r[1][1], r[1][2]) for r in batch], meet)

    def answer_words(blocks):
        yield from _stages(conf).answer_words(blocks, meet)

    def verify(blocks):
        yield from _stages(conf).verify_blocks(blocks, short_docs=short_docs)

    sides = _by_block(signed.mapPartitions(routed_words), meet).mapPartitions(answer_words).cache()
    sides.count()
    return _verified(conf, sides, pairs, meet, verify)


def _line(id_: Any, cluster: int, rep_id: Any, relation: str, score: float, parent_id: Any) -> str:
    """One document's output line, as ``semhash dedup`` writes it."""
    line = (
        f'{{"id":{json.dumps(id_, ensure_ascii=False)},"cluster":{cluster},'
        f'"representative":{json.dumps(rep_id, ensure_ascii=False)},"relation":"{relation}",'
        f'"score":{_score(score)}'
    )
    if parent_id is not None:
        line += f',"parent":{json.dumps(parent_id, ensure_ascii=False)}'
    return line + "}\n"


def _numbered_on_driver(sc: Any, links: List[Any], docs: Any, documents: int, assign, P: int, lap):
    """Output rows (id, cluster, representative's id, relation, score,
    parent's id) in position order, for ``links`` held on the driver:
    connected components by union-find there, the star clustering of each
    (``assign``) on the executors, and the clusters numbered while the ids
    stream past in position order (a cluster's number is taken at its first
    position). The driver holds the linked documents' placements and the
    ids of their representatives and parents, as it holds their links.
    Returns the rows (an iterator) and the number of clusters."""
    parent: Dict[int, int] = {}

    def find(x: int) -> int:
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(x, x) != root:
            parent[x], x = root, parent[x]
        return root

    for a, b, _, _ in links:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    components: Dict[int, List[Any]] = {}
    for link in links:
        components.setdefault(find(link[0]), []).append(link)
    lap("components")
    placed = sc.parallelize(list(components.values()), max(1, sc.defaultParallelism)).mapPartitions(assign)
    placements = {p[0]: p[1:] for p in placed.collect()}  # position -> (representative, parent, relation, score)
    lap("assign")
    named = sc.broadcast({q for rep, up, _, _ in placements.values() for q in (rep, up) if q is not None})
    id_of = dict(docs.filter(lambda kv: kv[0] in named.value).map(lambda kv: (kv[0], kv[1][0])).collect())
    ordered = docs.map(lambda kv: (kv[0], kv[1][0])).sortByKey(numPartitions=P)
    clusters = documents - len(placements) + len({rep for rep, _, _, _ in placements.values()})
    lap("number")

    def rows():
        taken = 0  # clusters numbered so far
        number: Dict[int, int] = {}  # representative -> its cluster's number
        for position, id_ in ordered.toLocalIterator():
            placement = placements.get(position)
            if placement is None:  # a cluster of its own
                yield id_, taken, id_, "none", 0.0, None
                taken += 1
                continue
            rep, up, relation, score = placement
            if rep not in number:
                number[rep] = taken
                taken += 1
            yield id_, number[rep], id_of[rep], relation, score, None if up is None else id_of[up]

    return rows(), clusters


def _numbered_on_executors(links: Any, docs: Any, assign, P: int, lap):
    """Output rows as :func:`_numbered_on_driver` gives them, with nothing
    held whole on the driver: connected components by large-star /
    small-star rounds, the star clustering of each on the executors, the
    clusters numbered by a sort of their first positions and the ids joined
    to representatives and parents. Returns the rows (an iterator), the
    rounds and the number of clusters."""
    root, rounds = _component_roots(links.map(lambda link: (link[0], link[1])))
    root = root.cache()
    root.count()
    by_root = links.map(lambda link: (link[0], link)).join(root, P).map(lambda kv: (kv[1][1], kv[1][0]))
    placed = by_root.groupByKey(P).values().mapPartitions(assign)
    singles = docs.keys().map(lambda p: (p, None)).subtractByKey(root, P).keys()
    lap("components")
    singles = singles.map(lambda p: (p, (p, None, "none", 0.0)))
    placements = placed.map(lambda p: (p[0], p[1:])).union(singles).cache()  # pos -> (rep, parent, relation, score)
    placements.count()
    lap("assign")

    # Clusters numbered in order of their first documents; ids joined back.
    firsts = placements.map(lambda kv: (kv[1][0], kv[0])).reduceByKey(min, P)
    numbers = firsts.map(lambda kv: (kv[1], kv[0])).sortByKey(numPartitions=P).map(lambda kv: kv[1]).zipWithIndex()  # rep -> cluster
    clusters = numbers.count()
    ids = docs.mapValues(lambda v: v[0])

    def by_parent(kv):
        # Keyed -1 without a parent: a shuffle that spills sorts its keys,
        # and None does not sort with numbers.
        _, (((pos, parent, relation, score), cluster), rep_id) = kv
        return -1 if parent is None else parent, (pos, cluster, rep_id, relation, score)

    rows = (
        placements.map(lambda kv: (kv[1][0], (kv[0],) + kv[1][1:]))  # rep -> (pos, parent, relation, score)
        .join(numbers, P)
        .join(ids, P)  # rep -> (((pos, parent, relation, score), cluster), rep id)
        .map(by_parent)
        .leftOuterJoin(ids, P)  # parent -> ((pos, cluster, rep id, relation, score), parent id)
        .map(lambda kv: (kv[1][0][0], kv[1][0][1:] + (kv[1][1],)))
        .join(ids, P)  # pos -> ((cluster, rep id, relation, score, parent id), id)
        .sortByKey(numPartitions=P)
    )
    lap("number")
    return ((id_,) + rest for _, (rest, id_) in rows.toLocalIterator()), rounds, clusters


def _component_roots(edges: Any) -> Any:
    """(position, lowest position of its component) for every position in
    ``edges`` (pairs of positions), by large-star / small-star rounds
    (Kiveris et al., "Connected Components in MapReduce and Beyond", 2014):
    each round points every node's larger neighbours, then its smaller ones,
    at the lowest node it sees, until every component is a star around its
    lowest node. Each round's edges are checkpointed locally, so the lineage
    stays one round long. Returns the roots and the number of rounds."""

    def large_star(kv):
        u, vs = kv
        m = min(min(vs), u)
        return [(v, m) for v in vs if v > u]

    def small_star(kv):
        u, vs = kv
        m = min(min(vs), u)
        return [(v, m) for v in set(vs) | {u} if v != m]

    edges = edges.map(lambda e: (max(e), min(e))).distinct()
    rounds = 0
    while True:
        rounds += 1
        both = edges.flatMap(lambda e: [e, (e[1], e[0])])
        edges = both.groupByKey().flatMap(large_star).distinct()
        edges = edges.map(lambda e: (max(e), min(e))).groupByKey().flatMap(small_star).distinct()
        edges.localCheckpoint()
        # Stars: every child has one parent, and no parent is a child.
        children = edges.map(lambda e: (e[0], 1)).reduceByKey(lambda a, b: a + b)
        if children.filter(lambda kv: kv[1] > 1).isEmpty() and edges.values().distinct().map(
            lambda p: (p, None)
        ).join(children).isEmpty():
            break
    roots = edges.values().distinct().map(lambda p: (p, p))
    return edges.union(roots), rounds


def dedup(
    spark: Any,
    inputs: Sequence[str],
    output: str,
    *,
    config: Any = None,
    id_field: str = "id",
    text_field: str = "text",
    on_error: str = "fail",
    partitions: Optional[int] = None,
    work: Optional[str] = None,
    statistics: str = "auto",
    components: str = "auto",
) -> Dict[str, Any]:
    """De-duplicates the JSONL files ``inputs`` (folders stand for their
    files, by name) on ``spark`` and writes one result line per document to
    ``output``, in input order; every shuffle has ``partitions`` parts
    (default: the context's default parallelism). Returns the run's counts, the records set
    aside (with ``on_error="skip"``), the seconds of each stage and when
    each ended (``ended_at``, seconds since the epoch: to match Spark's own
    stage records, as ``benches/spark/scale.py`` does).

    With ``work`` (a folder on any Hadoop file system), finished stages are
    kept there, and a rerun of the same run (same files, configuration and
    options) after a kill starts from the last one finished
    (``stats["resumed"]`` names those loaded).

    ``statistics`` says how the corpus statistics reach the texts being
    signed: ``"broadcast"`` (each partition counts its texts, Spark sums the
    tables and hands the sum to every worker), ``"shuffle"`` (counts joined
    to each text through shuffles; no table held whole anywhere) or
    ``"auto"`` (broadcast when the tables fit: :func:`_broadcast_fits`). The
    output is the same.

    Raises :class:`SemHashError` naming the file and line of a bad record or
    a repeated id (unless ``on_error="skip"``).
    """
    if on_error not in ("fail", "skip"):
        raise SemHashError(f'on_error must be "fail" or "skip", got {on_error!r}')
    if components not in ("auto", "driver", "rounds"):
        raise SemHashError(f'components must be "auto", "driver" or "rounds", got {components!r}')
    if statistics not in ("auto", "broadcast", "shuffle"):
        raise SemHashError(f'statistics must be "auto", "broadcast" or "shuffle", got {statistics!r}')
    conf = _config_json(config)
    _stages(conf)  # refuses a bad or semantic configuration before any job runs
    sc = spark.sparkContext
    P = partitions or sc.defaultParallelism
    seconds: Dict[str, float] = {}
    ended_at: Dict[str, float] = {}
    clock = [time.perf_counter()]

    def lap(name: str) -> None:
        now = time.perf_counter()
        seconds[name] = round(now - clock[0], 3)
        ended_at[name] = time.time()
        clock[0] = now

    files = _files(sc, inputs)
    kept = _Work(spark, work, _identity(sc, files, conf, [id_field, text_field], on_error))

    def ingest():
        """Global positions in input order: a file's lines follow the last
        line read from the files before it. Files are read as bytes
        (Spark's text reader would replace bad UTF-8 without a word), each
        whole by one task, as a gzipped JSONL shard would be anyway, and
        only once: the positions come from the parsed records."""
        index_of = {name: i for i, name in enumerate(files)}
        raw = sc.binaryFiles(",".join(files), max(1, min(len(files), P)))

        def parse(kv):
            f = index_of[kv[0]]
            for line, id_, spelled, text, error in _stages(conf).read_jsonl(kv[1], id_field, text_field):
                yield (f, line, (id_, spelled, text), error)

        def last_lines(rows):
            last: Dict[int, int] = {}
            for f, line, _, _ in rows:
                last[f] = max(last.get(f, 0), line)
            return last.items()

        read = raw.flatMap(parse).cache()
        last: Dict[int, int] = {}
        for f, line in read.mapPartitions(last_lines).collect():
            last[f] = max(last.get(f, 0), line)
        offsets = {}
        total = 0
        for i in range(len(files)):
            offsets[i] = total
            total += last.get(i, 0)
        parsed = read.map(lambda r: (offsets[r[0]] + r[1] - 1,) + r)
        bad = parsed.filter(lambda r: r[4] is not None).map(lambda r: (r[0], r[1], r[2], r[4]))
        good = parsed.filter(lambda r: r[4] is None).map(lambda r: (r[0], (r[1], r[2]) + r[3]))
        # Repeated ids: the first keeps it, the later ones are refused.
        by_id = good.map(lambda r: (r[1][3], (r[0], r[1][0], r[1][1]))).groupByKey(P).mapValues(sorted)
        repeats = by_id.filter(lambda kv: len(kv[1]) > 1).flatMap(
            lambda kv: [(p, f, l, f"duplicate id {json.dumps(kv[0])} (first seen on line {kv[1][0][2]} of {files[kv[1][0][1]]})") for p, f, l in kv[1][1:]]
        )
        bad = bad.union(repeats)
        skipped = [list(b) for b in sorted(bad.collect())]
        if skipped and on_error == "fail":
            position, f, line, error = skipped[0]
            raise SemHashError(f"{files[f]} line {line}: {error}")
        refused = {p for p, _, _, _ in skipped}
        return good.filter(lambda r: r[0] not in refused).map(lambda r: (r[0], (r[1][2], r[1][4]))), skipped

    docs, skipped = kept.keep("ingest", ingest)
    docs = docs.cache()
    documents = docs.count()
    lap("ingest")

    # Exact: the lowest position holds a text; the others are its copies.
    # Each text travels with its key, so the head's text needs no join.
    def holding(copies):
        copies = sorted(copies)  # (position, text); positions differ
        return [p for p, _ in copies], copies[0][1]

    keyed_docs = docs.mapPartitions(_answers(conf, "exact_keys", lambda r: r[1][1])).map(
        lambda ra: (bytes(ra[1]), (ra[0][0], ra[0][1][1]))
    )
    holders, _ = kept.keep("exact", lambda: (keyed_docs.groupByKey(P).mapValues(holding), None))
    heads = holders.map(lambda kv: (kv[1][0][0], (kv[1][0][1:], kv[1][1])))  # head -> (its copies, text)
    heads = heads.cache()
    distinct = heads.count()
    copy_links = heads.flatMap(lambda kv: [(p, kv[0], "exact", 1.0) for p in kv[1][0]])
    lap("exact")

    # Corpus statistics: df, then content_df under that df.
    broadcast = statistics == "broadcast" or (statistics == "auto" and _broadcast_fits(sc, distinct))
    if broadcast:
        sign = _signed_by_broadcast(sc, conf, heads, distinct, P)
    else:
        sign = _signed_by_shuffle(conf, heads, distinct, P)
    signed, _ = kept.keep("sign", lambda: (sign(), None))
    signed = signed.cache()
    signed.count()
    lap("sign")

    # Candidates: one shared band key, or enough shared passage keys. Keys
    # and pairs travel as blocks of records, one per partition and target.
    def routed_keys(rows):
        for batch in _batched(rows):
            yield from _stages(conf).route_keys([(r[0], r[1][0], r[1][2]) for r in batch], P)

    def bucket_pairs(blocks):
        yield from _stages(conf).bucket_pairs(blocks, P)

    meet = _meeting_parts(distinct, P)

    def candidate_pairs(blocks):
        yield from _stages(conf).candidate_pairs(blocks, meet)

    pairs, _ = kept.keep(
        "candidates",
        lambda: (
            _by_block(_by_block(signed.mapPartitions(routed_keys), P).mapPartitions(bucket_pairs), P).mapPartitions(candidate_pairs),
            None,
        ),
    )
    pairs = pairs.cache()  # blocks of pairs, by partition
    candidates = pairs.map(lambda kv: _native.pair_count(kv[1])).sum()
    lap("candidates")

    # Word statistics of the short texts, then each candidate pair's verdict.
    if broadcast:
        links = _links_by_broadcast(sc, conf, signed, pairs, P, meet)
    else:
        links = _links_by_shuffle(conf, signed, pairs, meet)
    lap("word statistics")
    kept_links, _ = kept.keep("verify", lambda: (links.union(copy_links), None))
    kept_links = kept_links.cache()
    link_count = kept_links.count()
    lap("verify")

    def assign(groups):
        stages = _stages(conf)
        for links_of in groups:
            positions = sorted({p for a, b, _, _ in links_of for p in (a, b)})
            yield from stages.cluster_component(positions, list(links_of))

    links_rdd = kept_links.map(tuple)
    if components == "rounds" or (components == "auto" and link_count >= DRIVER_LINKS_BELOW):
        rows, rounds, clusters = _numbered_on_executors(links_rdd, docs, assign, P, lap)
    else:
        rounds = None
        rows, clusters = _numbered_on_driver(sc, links_rdd.collect(), docs, documents, assign, P, lap)

    with open(output, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(_line(*row))
    lap("write")
    return {
        "documents": documents,
        "distinct_texts": distinct,
        "candidate_pairs": candidates,
        "links": link_count,
        "component_rounds": rounds,
        "clusters": clusters,
        "skipped": [{"file": files[f], "line": l, "error": e} for _, f, l, e in skipped],
        "resumed": kept.resumed,
        "seconds": seconds,
        "ended_at": ended_at,
    }


#: The JVM of a local run (``--master local[...]``, unless ``--spark-conf``
#: sets this key) compiles with the quick JIT tier only. In local mode the
#: driver's JVM is also the executor, on the same few cores as the Python
#: workers, and the optimizing tier's compile threads take those cores for
#: code that mostly moves bytes between them.
LOCAL_JAVA_OPTIONS_KEY = "spark.driver.extraJavaOptions"
LOCAL_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1"


def _session_settings(master: Optional[str], spark_conf: Sequence[str]) -> Dict[str, str]:
    """The session's settings from ``--spark-conf KEY=VALUE`` options, with
    :data:`LOCAL_JAVA_OPTIONS` for a local master unless they set its key."""
    settings = {}
    for setting in spark_conf:
        key, eq, value = setting.partition("=")
        if not eq:
            raise ValueError(f"--spark-conf takes KEY=VALUE, got {setting!r}")
        settings[key] = value
    if (master or "").startswith("local") and LOCAL_JAVA_OPTIONS_KEY not in settings:
        settings[LOCAL_JAVA_OPTIONS_KEY] = LOCAL_JAVA_OPTIONS
    return settings


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``semhash-spark dedup``: see the module docs."""
    parser = argparse.ArgumentParser(prog="semhash-spark", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("dedup", help="de-duplicate JSONL files on Spark")
    run.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL files, or folders of them")
    run.add_argument("-o", "--output", required=True, help="where to write one result line per document")
    run.add_argument(
        "--master",
        help="as in spark-submit (default: what spark-submit or the environment sets); a local master's JVM "
        f"runs with {LOCAL_JAVA_OPTIONS} unless --spark-conf sets {LOCAL_JAVA_OPTIONS_KEY}",
    )
    run.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting, as spark-submit's --conf (e.g. spark.driver.memory=8g; with local mode's 1g, --statistics auto broadcasts below about 430,000 distinct texts)",
    )
    run.add_argument("--config", help="configuration file (JSON, as `semhash config` prints)")
    run.add_argument("--id-field", default="id")
    run.add_argument("--text-field", default="text")
    run.add_argument("--on-error", choices=["fail", "skip"], default="fail")
    run.add_argument("--shuffle-partitions", type=int, help="parts of every shuffle (default: Spark's default parallelism)")
    run.add_argument("--report", help="write the counts and the seconds of each stage here (JSON)")
    run.add_argument("--work", help="keep finished stages in this folder; a rerun of the same job resumes from them")
    run.add_argument(
        "--statistics",
        choices=["auto", "broadcast", "shuffle"],
        default="auto",
        help="hand the corpus statistics to every worker, or join them through shuffles (auto: broadcast when they take at most an eighth of the driver's and executors' memory)",
    )
    run.add_argument(
        "--components",
        choices=["auto", "driver", "rounds"],
        default="auto",
        help=f"find connected components on the driver or by large-star/small-star rounds (auto: driver below {DRIVER_LINKS_BELOW:,} links)",
    )
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession

    # Local workers run this interpreter (it has the package); a cluster's
    # workers run what PYSPARK_PYTHON names there.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("semhash-spark dedup").config("spark.ui.showConsoleProgress", "false")
    if args.master:
        builder = builder.master(args.master)
    try:
        settings = _session_settings(args.master, args.spark_conf)
    except ValueError as e:
        parser.error(str(e))
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try:
        config = open(args.config, encoding="utf-8").read() if args.config else None
        report = dedup(
            spark,
            args.inputs,
            args.output,
            config=config,
            id_field=args.id_field,
            text_field=args.text_field,
            on_error=args.on_error,
            partitions=args.shuffle_partitions,
            work=args.work,
            statistics=args.statistics,
            components=args.components,
        )
    except (SemHashError, OSError) as e:
        print(f"semhash-spark: error: {e}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
    for s in report["skipped"]:
        print(f"semhash-spark: warning: skipped {s['file']} line {s['line']}: {s['error']}", file=sys.stderr)
    print(
        f"semhash-spark: {report['documents']} documents, {report['distinct_texts']} distinct texts, "
        f"{report['candidate_pairs']} candidate pairs, {report['clusters']} clusters",
        file=sys.stderr,
    )
    print(f"{'stage':<16} {'seconds':>8}", file=sys.stderr)
    for stage, s in report["seconds"].items():
        print(f"{stage:<16} {s:>8.2f}", file=sys.stderr)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    # Run as a file (spark-submit): the job's functions must come from the
    # installed module, which Spark ships to workers by name, not from
    # __main__, whose functions would be pickled with the driver's state.
    from semhash_llm.spark import main as installed_main

    sys.exit(installed_main())
