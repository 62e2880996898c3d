#!/usr/bin/env python3
"""The Spark job at scale on this machine: time, shuffle bytes and memory per stage.

    python benches/spark/scale.py [--docs 1000000] [--files 8] [--work DIR] [--data ../shared/data]

Builds a corpus of ``--docs`` documents (every text of the shared corpora
once, in a fixed order, then edited copies of them until the count is
reached: each copy drops one word of its original and swaps two others, so
the corpus holds real near duplicates as well as distinct texts), splits it
into ``--files`` files, runs ``semhash dedup`` on the whole and
``semhash-spark dedup --master local[2]`` on the files with Spark's event
log on (driver memory 8g unless ``--driver-memory``: local mode's default
1g does not hold a million documents' statistics or links), checks the outputs are byte-identical, and prints per stage: the
seconds, and the shuffle bytes written and read by the Spark stages that
ended within it (from the event log), and the peak resident memory of the
Spark processes together within it (the JVM, which is driver and executor in
local mode, and its Python workers; sampled every 0.2 s from /proc; the
session's start counts to ingest); then the whole run's peak against the
native run's.

Needs the ``semhash`` binary (``cargo build --release``) and the Python
package with its ``spark`` extra in the running interpreter.
"""

import argparse
import glob
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    "corpora/debian_descriptions.jsonl",
    "corpora/gcide_entries.jsonl",
    "corpora/fortunes.jsonl",
    "natural/npm_summaries.jsonl",
    "stress/stress_dev.jsonl",
]


def corpus(data: Path, n: int, out: Path) -> None:
    texts = []
    for source in SOURCES:
        with open(data / source, encoding="utf-8") as f:
            texts.extend(json.loads(line)["text"] for line in f if line.strip())
    rng = random.Random(2026)
    with open(out, "w", encoding="utf-8") as w:
        for i in range(n):
            text = texts[i % len(texts)]
            if i >= len(texts):
                words = text.split()
                if len(words) > 3:
                    del words[rng.randrange(len(words))]
                    a, b = rng.randrange(len(words)), rng.randrange(len(words))
                    words[a], words[b] = words[b], words[a]
                text = " ".join(words) if words else text
            w.write(json.dumps({"id": i, "text": text}, ensure_ascii=False) + "\n")


def split(path: Path, files: int, folder: Path) -> None:
    lines = open(path, encoding="utf-8").readlines()
    folder.mkdir(parents=True, exist_ok=True)
    per = -(-len(lines) // files)
    for k in range(files):
        with open(folder / f"part-{k:02d}.jsonl", "w", encoding="utf-8") as w:
            w.writelines(lines[k * per : (k + 1) * per])


def tree_rss(root_pid: int) -> int:
    """Resident bytes of a process and all its descendants."""
    children = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = open(stat).read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.split("/")[2]))
        except (OSError, IndexError, ValueError):
            pass
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def run_sampled(cmd, env=None):
    """Runs `cmd`; returns (seconds, [(time since the epoch, resident bytes
    of its process tree)] sampled every 0.2 s)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env)
    samples = []

    def sample():
        while proc.poll() is None:
            samples.append((time.time(), tree_rss(proc.pid)))
            time.sleep(0.2)

    t = threading.Thread(target=sample)
    t.start()
    if proc.wait() != 0:
        sys.exit(f"scale: {cmd[0]} failed")
    t.join()
    return time.perf_counter() - start, samples


def peak_by_stage(samples, ended_at: dict):
    """The highest sample taken within each pipeline stage (before its end
    and after the one before)."""
    bounds = sorted(ended_at.items(), key=lambda kv: kv[1])
    out = {name: 0 for name, _ in bounds}
    for at, rss in samples:
        name = next((n for n, t in bounds if at <= t), None)
        if name is not None:
            out[name] = max(out[name], rss)
    return out


def shuffle_by_stage(log_dir: Path, ended_at: dict):
    """Shuffle bytes written and read by the Spark stages that completed
    within each pipeline stage (by the stages' completion times)."""
    # Spark 4 writes a folder of rolling event files per application.
    logs = sorted(p for p in log_dir.rglob("events_*") if p.is_file())
    bounds = sorted(ended_at.items(), key=lambda kv: kv[1])
    out = {name: [0, 0] for name, _ in bounds}
    for line in (line for log in logs for line in open(log, encoding="utf-8") if line.strip()):
        event = json.loads(line)
        if event.get("Event") != "SparkListenerStageCompleted":
            continue
        info = event["Stage Info"]
        done = info.get("Completion Time", 0) / 1000
        metrics = {a.get("Name"): a.get("Value") for a in info.get("Accumulables", [])}
        written = int(metrics.get("internal.metrics.shuffle.write.bytesWritten") or 0)
        read = int(metrics.get("internal.metrics.shuffle.read.remoteBytesRead") or 0) + int(
            metrics.get("internal.metrics.shuffle.read.localBytesRead") or 0
        )
        name = next((n for n, t in bounds if done <= t), bounds[-1][0])
        out[name][0] += written
        out[name][1] += read
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--work", default="/tmp/semhash-spark-scale")
    parser.add_argument("--driver-memory", default="8g", help="the Spark driver's (and in local mode the executor's) heap")
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--semhash", default=str(Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "semhash"))
    args = parser.parse_args()
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    whole = work / "docs.jsonl"
    corpus(Path(args.data), args.docs, whole)
    split(whole, args.files, work / "in")

    native_s, _ = run_sampled([args.semhash, "dedup", str(whole), "-o", str(work / "native.jsonl"), "--quiet"])
    native_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024

    logs = work / "events"
    logs.mkdir()
    conf = f"--driver-memory {args.driver_memory} --conf spark.eventLog.enabled=true --conf spark.eventLog.compress=false"
    env = dict(os.environ, PYSPARK_SUBMIT_ARGS=f"{conf} --conf spark.eventLog.dir=file://{logs} pyspark-shell")
    spark_s, samples = run_sampled(
        [sys.executable, "-m", "semhash_llm.spark", "dedup", "--master", "local[2]", str(work / "in"),
         "-o", str(work / "spark.jsonl"), "--report", str(work / "report.json")],
        env=env,
    )
    same = open(work / "native.jsonl", "rb").read() == open(work / "spark.jsonl", "rb").read()
    report = json.load(open(work / "report.json"))
    shuffle = shuffle_by_stage(logs, report["ended_at"])
    spark_peak = max(rss for _, rss in samples)
    peaks = peak_by_stage(samples, report["ended_at"])

    print(f"{report['documents']:,} documents, {report['distinct_texts']:,} distinct texts, "
          f"{report['candidate_pairs']:,} candidate pairs, {report['links']:,} links, {report['clusters']:,} clusters")
    print(f"semhash dedup: {native_s:.1f} s, peak {native_peak / 2**20:.0f} MiB")
    print(f"semhash-spark dedup --master local[2] ({args.files} files, driver memory {args.driver_memory}): {spark_s:.1f} s "
          f"({spark_s / native_s:.1f}x), peak {spark_peak / 2**20:.0f} MiB (JVM and Python workers together); "
          f"output {'byte-identical' if same else 'DIFFERENT'}")
    print(f"{'stage':<16} {'seconds':>8} {'shuffle written':>16} {'shuffle read':>13} {'peak resident':>14}")
    for name, s in report["seconds"].items():
        w, r = shuffle.get(name, (0, 0))
        print(f"{name:<16} {s:>8.1f} {w / 1e6:>13.1f} MB {r / 1e6:>10.1f} MB {peaks.get(name, 0) / 2**20:>10.0f} MiB")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
