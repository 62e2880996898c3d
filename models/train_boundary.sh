#!/usr/bin/env bash
# Learns the decision boundary (models/boundary.json) from self-supervised
# pairs: corrupted copies and look-alike neighbours of unlabelled text. The
# Bible verses are the KJV side ("a") of the pairs file, its labels dropped
# unread; verse ids only order them, so adjacent verses are neighbours.
# Usage: bash models/train_boundary.sh [OUTPUT] [extra train-boundary flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-models/boundary.json}
shift || true
data=../shared/data
work=${CARGO_TARGET_DIR:-target}/models-work
mkdir -p "$work"
python3 - "$data/pairs/bible_ot_pairs.jsonl" "$work" <<'PY'
import json, re, sys
src, work = sys.argv[1], sys.argv[2]
verses = {}
for line in open(src, encoding="utf-8"):
    d = json.loads(line)                      # only "id" and "a" are read
    verses.setdefault(d["id"], d["a"])
def key(v):
    book, chapter, verse = v.rsplit(".", 2)
    return (book, int(chapter), int(verse))
order = sorted(verses, key=key)
with open(f"{work}/bible-verses.jsonl", "w", encoding="utf-8") as f:
    for v in order:
        f.write(json.dumps({"id": v, "text": verses[v]}) + "\n")
chapters = {}
for v in order:
    chapters.setdefault(v.rsplit(".", 1)[0], []).append(verses[v])
with open(f"{work}/bible-chapters.jsonl", "w", encoding="utf-8") as f:
    for c, vs in chapters.items():
        f.write(json.dumps({"id": c, "text": "\n".join(vs)}) + "\n")
PY
cargo run --release --locked -- train-boundary \
  "$data"/corpora/{fortunes,debian_descriptions,gcide_entries}.jsonl \
  "$work/bible-verses.jsonl" "$work/bible-chapters.jsonl" \
  --templates "$data/corpora/webpages_dev.jsonl" \
  --cache "$work/boundary-cache" -o "$out" "$@"
models/checksums.sh
