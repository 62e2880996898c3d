#!/usr/bin/env python3
"""Plots for benches/bench, from the results.json it wrote (run with the
peers' virtualenv: matplotlib).

    plots.py results.json OUT_DIR

Writes throughput.png (docs/s against N), memory.png (peak MiB against N),
stress_recall.png (per-type recall, and false pairs, by tool) and
pairs_f1.png (Bible pairs F1 at the default and the best threshold).
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TYPES = ["boilerplate", "hot", "short", "contain"]
TOOL_ORDER = ["semhash-llm", "datasketch", "rensa", "semhash", "text-dedup"]


def label(r):
    if r["tool"] == "semhash-llm":
        return f"semhash-llm {r['variant']}"
    return r["tool"]


def speed_lines(results):
    lines = {}
    for r in results:
        if r["phase"] == "speed" and r["status"] == "ok":
            key = label(r) + (f", {r['threads']} thr" if r["tool"] == "semhash-llm" else "")
            lines.setdefault(key, []).append((r["docs"], r))
    return {k: sorted(v, key=lambda x: x[0]) for k, v in lines.items()}


def against_n(results, field, ylabel, title, path, machine):
    lines = speed_lines(results)
    fig, ax = plt.subplots(figsize=(10, 5))
    for key, pts in lines.items():
        xs = [n for n, _ in pts]
        ys = [r[field] for _, r in pts]
        style = "-" if key.startswith("semhash-llm") else "--"
        ax.plot(xs, ys, style, marker="o", label=key)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("documents (N)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{title}\n{machine}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    if lines:
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def stress_bars(results, path):
    rows = [r for r in results if r["phase"] == "stress" and r["status"] == "ok"
            and "port check" not in r["variant"]]
    rows.sort(key=lambda r: TOOL_ORDER.index(r["tool"]) if r["tool"] in TOOL_ORDER else 99)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 5), gridspec_kw={"width_ratios": [3, 2]})
    width = 0.8 / max(1, len(rows))
    for k, r in enumerate(rows):
        vals = [(r["metrics"]["per_type"].get(t) or {}).get("recall") or 0.0 for t in TYPES]
        xs = [i + (k - (len(rows) - 1) / 2) * width for i in range(len(TYPES))]
        ax.bar(xs, vals, width, label=label(r))
        fp = [(r["metrics"]["per_type"].get(t) or {}).get("false_pairs", 0) + 1
              for t in TYPES + ["viral", "singleton"]]
        xs2 = [i + (k - (len(rows) - 1) / 2) * width for i in range(len(TYPES) + 2)]
        ax2.bar(xs2, fp, width, label=label(r))
    ax.set_xticks(range(len(TYPES)), TYPES)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("recall (pair counting)")
    ax.set_title("Stress set: recall per duplicate type")
    if rows:
        fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=len(rows), fontsize=8)
    ax2.set_xticks(range(len(TYPES) + 2), TYPES + ["viral", "singleton"], rotation=30)
    ax2.set_yscale("log")
    ax2.set_ylabel("false pairs touching the type + 1 (log)")
    ax2.set_title("Stress set: false pairs")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def pairs_bars(results, path):
    bars = []
    for r in results:
        if r["phase"] != "pairs" or r["status"] != "ok":
            continue
        for name, s in r["metrics"]["signals"].items():
            if s.get("default") is None and r["tool"] == "semhash-llm":
                continue  # char_sim / weighted_sim: signals, not the tool's decision
            d = s["default"]["f1"] if s.get("default") else 0.0
            bars.append((f"{label(r)}\n{name}", d, s["best"]["f1"]))
    fig, ax = plt.subplots(figsize=(max(7, 1.3 * len(bars)), 5))
    xs = range(len(bars))
    ax.bar([x - 0.2 for x in xs], [b[1] for b in bars], 0.4, label="default threshold")
    ax.bar([x + 0.2 for x in xs], [b[2] for b in bars], 0.4, label="best threshold (tuned on labels)")
    ax.set_xticks(list(xs), [b[0] for b in bars], fontsize=7, rotation=20, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("F1")
    ax.set_title("Bible paraphrase pairs: F1")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    raw = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2])
    m = raw["machine"]
    machine = f"{m['cpus']} CPUs, {m['cpu_model']}; commit {m['commit']}"
    res = raw["results"]
    against_n(res, "docs_per_s", "documents per second (log)", "Throughput against N",
              out / "throughput.png", machine)
    against_n(res, "peak_mib", "peak memory, MiB (log)", "Peak memory against N",
              out / "memory.png", machine)
    stress_bars(res, out / "stress_recall.png")
    pairs_bars(res, out / "pairs_f1.png")


if __name__ == "__main__":
    main()
