"""The Spark job in a real local Spark (local[2]): the sample corpus split
into three files gives what the batch gives, whatever the shuffle
partitions; bad records are refused by file and line, or skipped."""

import json
import os
import sys

import pytest

pyspark = pytest.importorskip("pyspark", reason="the Spark job needs pyspark (.ci/run installs it)")
numpy = pytest.importorskip("numpy")

from semhash_llm import SemHashError, dedup  # noqa: E402
from semhash_llm import spark as job  # noqa: E402

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "data", "sample.jsonl")


@pytest.fixture(scope="module")
def spark():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("semhash-spark tests")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def split(tmp_path, lines, parts=3):
    """`lines` as `parts` JSONL files of a folder, in order."""
    folder = tmp_path / "in"
    folder.mkdir()
    size = -(-len(lines) // parts)
    for i in range(parts):
        (folder / f"part-{i}.jsonl").write_text("".join(lines[i * size : (i + 1) * size]), encoding="utf-8")
    return str(folder)


def read(path):
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def f32(x):
    return None if x is None else numpy.float32(x)


@pytest.mark.parametrize(
    "partitions,statistics,components,sides_per_part",
    [
        (1, "broadcast", "driver", None),
        (5, "broadcast", "rounds", None),
        (5, "shuffle", "driver", None),
        # More partitions where pairs meet their sides than in the other shuffles.
        (1, "broadcast", "driver", 20),
    ],
)
def test_three_files_give_the_batch_result(spark, tmp_path, monkeypatch, partitions, statistics, components, sides_per_part):
    if sides_per_part is not None:
        monkeypatch.setattr(job, "SIDES_PER_PART", sides_per_part)
    lines = open(SAMPLE, encoding="utf-8").readlines()
    out = tmp_path / "out.jsonl"
    report = job.dedup(
        spark, [split(tmp_path, lines)], str(out), partitions=partitions, statistics=statistics, components=components
    )
    batch = dedup([json.loads(line) for line in lines]).rows
    got = read(out)
    assert report["documents"] == len(got) == len(batch) == 174
    assert sum(r["relation"] != "none" for r in batch) > 20, "the sample holds duplicates"
    for g, b in zip(got, batch):
        assert (g["id"], g["cluster"], g["representative"], g["relation"], g.get("parent")) == (
            b["id"],
            b["cluster"],
            b["representative"],
            b["relation"],
            b["parent"],
        ), g
        assert f32(g["score"]) == f32(b["score"]), g
    assert set(report["seconds"]) >= {"ingest", "exact", "sign", "candidates", "verify", "assign"}


def test_a_repeated_id_is_refused_by_file_and_line(spark, tmp_path):
    lines = [json.dumps({"id": i, "text": f"text number {i} about rivers"}) + "\n" for i in range(6)]
    lines[4] = json.dumps({"id": 1, "text": "another text with a taken id"}) + "\n"
    with pytest.raises(SemHashError, match=r'part-2\.jsonl line 1: duplicate id "1" \(first seen on line 2 of .*part-0\.jsonl\)'):
        job.dedup(spark, [split(tmp_path, lines)], str(tmp_path / "out.jsonl"))


def test_skip_sets_bad_records_aside_and_keeps_every_other_once(spark, tmp_path):
    lines = [json.dumps({"id": f"d{i}", "text": f"a text numbered {i} on its own"}) + "\n" for i in range(6)]
    lines[1] = "{not json\n"
    lines[3] = json.dumps({"id": "d3", "text": ""}) + "\n"
    lines[5] = json.dumps({"id": 1.5, "text": "a float id"}) + "\n"
    lines[0] = "\ufeff" + lines[0]  # a byte-order mark is read past
    out = tmp_path / "out.jsonl"
    with pytest.raises(SemHashError, match=r"part-0\.jsonl line 2: not valid JSON"):
        job.dedup(spark, [split(tmp_path, lines)], str(out))
    with open(tmp_path / "in" / "part-3.jsonl", "wb") as f:
        f.write(b'{"id": "latin1", "text": "caf\xe9"}\n\n{"id": "d6", "text": "the last text of all"}\r\n')
    report = job.dedup(spark, [str(tmp_path / "in")], str(out), on_error="skip")
    assert [r["id"] for r in read(out)] == ["d0", "d2", "d4", "d6"]
    skipped = [(os.path.basename(s["file"]), s["line"], s["error"]) for s in report["skipped"]]
    assert [s[:2] for s in skipped] == [("part-0.jsonl", 2), ("part-1.jsonl", 2), ("part-2.jsonl", 2), ("part-3.jsonl", 1)]
    assert skipped[3][2] == "invalid UTF-8 at byte 29", skipped
    # The command's words for a bad record: the same reader made them.
    assert skipped[2][2].endswith("a number id must be an integer of at most 64 bits (quote larger ones as a string)"), skipped


def test_a_rerun_with_a_work_directory_resumes_from_the_last_finished_stage(spark, tmp_path):
    lines = open(SAMPLE, encoding="utf-8").readlines()
    folder, work = split(tmp_path, lines), str(tmp_path / "work")
    first, second, third = (str(tmp_path / f"{n}.jsonl") for n in ("first", "second", "third"))
    assert job.dedup(spark, [folder], first, work=work)["resumed"] == []
    stages = ["ingest", "exact", "sign", "candidates", "verify"]
    # Kept as Parquet, readable by any engine.
    assert spark.read.parquet(f"{work}/sign").columns == ["head", "copies", "reading", "signature"]
    assert spark.read.parquet(f"{work}/ingest").count() == len(lines)
    assert job.dedup(spark, [folder], second, work=work)["resumed"] == stages
    # As if killed while signing: the later stages not finished, one half written.
    manifest = tmp_path / "work" / "manifest.json"
    kept = json.loads(manifest.read_text())
    kept["finished"] = {k: v for k, v in kept["finished"].items() if k in ("ingest", "exact")}
    manifest.write_text(json.dumps(kept))
    (tmp_path / "work" / ".manifest.json.crc").unlink()  # Hadoop's checksum of the file edited here
    (tmp_path / "work" / "sign" / "_SUCCESS").unlink()
    assert job.dedup(spark, [folder], third, work=work)["resumed"] == ["ingest", "exact"]
    assert open(first, "rb").read() == open(second, "rb").read() == open(third, "rb").read()
    # Another configuration is another run: its work directory is refused.
    with pytest.raises(SemHashError, match="holds the stages of another run"):
        job.dedup(spark, [folder], first, work=work, config={"decide": {"type": "lexical", "threshold": 0.8}})
    # So is a build that stores a stage otherwise, though its version is the same.
    kept["identity"]["stored"]["sign"] = "head long, copies long, text string, signature binary"
    manifest.write_text(json.dumps(kept))
    (tmp_path / "work" / ".manifest.json.crc").unlink()
    with pytest.raises(SemHashError, match="holds the stages of another run"):
        job.dedup(spark, [folder], first, work=work)


def test_component_rounds_find_each_component_and_its_lowest_position(spark):
    import random

    rng = random.Random(7)
    edges = [(i, i + 1) for i in range(0, 60)]  # a long chain: many rounds
    edges += [(100, j) for j in range(101, 140)]  # a star
    edges += [(rng.randrange(200, 400), rng.randrange(200, 400)) for _ in range(150)]
    edges = [(a, b) for a, b in edges if a != b]
    parent = {}

    def find(x):
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    want = {p: find(p) for e in edges for p in e}
    roots, rounds = job._component_roots(spark.sparkContext.parallelize(edges, 4))
    assert dict(roots.collect()) == want
    assert rounds > 1


def test_a_local_master_gets_the_quick_jit_tier_unless_told_otherwise():
    assert job._session_settings("local[2]", []) == {job.LOCAL_JAVA_OPTIONS_KEY: "-XX:TieredStopAtLevel=1"}
    mine = [f"{job.LOCAL_JAVA_OPTIONS_KEY}=-Xss4m", "spark.driver.memory=8g"]
    assert job._session_settings("local[*]", mine) == {job.LOCAL_JAVA_OPTIONS_KEY: "-Xss4m", "spark.driver.memory": "8g"}
    # A cluster's master, or none (spark-submit's): nothing added.
    assert job._session_settings("yarn", []) == {}
    assert job._session_settings(None, ["a.b=c=d"]) == {"a.b": "c=d"}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        job._session_settings("local", ["spark.driver.memory"])
