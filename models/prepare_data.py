"""Training text for the distillation, from real English written by people.

Sources (never the evaluation files pairs/ and stress/):
  ../shared/data/corpora/debian_descriptions.jsonl, gcide_entries.jsonl, fortunes.jsonl
  WordNet 3.0 glosses and example sentences (Debian package wordnet-base, data.{noun,verb,adj,adv})

Each record is cut into passages of 3 to 64 words (whole sentences where the
text has them, whitespace collapsed), duplicates dropped. Records whose id
hashes into the validation bucket go to val.jsonl (so near-identical Debian
descriptions of one package do not straddle the split by chance less than by
record), the rest to train.jsonl, shuffled with a fixed seed.

    python3 models/prepare_data.py --data ../shared/data --wordnet DIR --out WORK/data
"""

import argparse
import hashlib
import json
import random
import re
from pathlib import Path

from common import read_jsonl

SENT = re.compile(r"(?<=[.!?;:])\s+(?=[\"'(\[]?[A-Z0-9])")


def clean(s):
    return " ".join(s.split())


def passages(text, rng):
    """Split a record into passages of 3..64 words, grouping whole sentences."""
    text = clean(text)
    words = text.split(" ")
    if len(words) < 3:
        return []
    if len(words) <= 64:
        return [text]
    out, cur, n = [], [], 0
    target = rng.randint(8, 64)
    for s in SENT.split(text):
        w = len(s.split(" "))
        if w > 64:  # no sentence boundary: cut into word windows
            if cur:
                out.append(" ".join(cur))
                cur, n = [], 0
            ws = s.split(" ")
            for i in range(0, len(ws), 48):
                out.append(" ".join(ws[i : i + 48]))
            continue
        if n + w > target and cur:
            out.append(" ".join(cur))
            cur, n = [], 0
            target = rng.randint(8, 64)
        cur.append(s)
        n += w
    if cur:
        out.append(" ".join(cur))
    return [p for p in out if len(p.split(" ")) >= 3]


def wordnet_records(wn_dir):
    """(id, text) for each synset: 'lemma, lemma: gloss' and each quoted example."""
    for pos in ("noun", "verb", "adj", "adv"):
        with open(Path(wn_dir) / f"data.{pos}", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("  ") or "|" not in line:
                    continue
                head, gloss = line.split("|", 1)
                parts = head.split()
                offset, n = parts[0], int(parts[3], 16)
                lemmas = [re.sub(r"\(.*\)$", "", parts[4 + 2 * i]).replace("_", " ") for i in range(n)]
                pieces = [p.strip() for p in gloss.strip().split(";")]
                defs = [p for p in pieces if p and not p.startswith('"')]
                exs = [p.strip('"') for p in pieces if p.startswith('"')]
                if defs:
                    yield f"wn:{pos}:{offset}", ", ".join(lemmas) + ": " + "; ".join(defs)
                for j, ex in enumerate(exs):
                    yield f"wn:{pos}:{offset}:{j}", ex


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="../shared/data")
    ap.add_argument("--wordnet", required=True, help="folder holding WordNet data.noun etc.")
    ap.add_argument("--out", required=True)
    ap.add_argument("--val-per-mille", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1234)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)

    def records():
        for name in ("debian_descriptions", "gcide_entries", "fortunes"):
            for r in read_jsonl(Path(a.data) / "corpora" / f"{name}.jsonl"):
                yield name, r["id"], r["text"]
        for rid, text in wordnet_records(a.wordnet):
            yield "wordnet", rid, text

    seen = set()
    train, val = [], []
    counts = {}
    for src, rid, text in records():
        bucket = int(hashlib.sha256(rid.encode()).hexdigest()[:8], 16) % 1000
        for p in passages(text, rng):
            if p in seen:
                continue
            seen.add(p)
            rec = {"text": p, "src": src}
            (val if bucket < a.val_per_mille else train).append(rec)
            counts[src] = counts.get(src, 0) + 1
    rng.shuffle(train)
    rng.shuffle(val)
    for name, rows in (("train", train), ("val", val)):
        with open(out / f"{name}.jsonl", "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    stats = {"train": len(train), "val": len(val), "by_source": counts}
    (out / "stats.json").write_text(json.dumps(stats, indent=1))
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
