#!/usr/bin/env bash
# Learns the semantic hyperplanes on embeddings of the Debian, GCIDE and
# fortunes corpora, and measures them against random hyperplanes on the Bible
# pairs: models/sph-BITS.bin over the student's embeddings, or
# models/sph-static-BITS.bin over the static table's.
# Usage: bash models/train_sph.sh [BITS] [SAMPLE] [student|static]
set -euo pipefail
cd "$(dirname "$0")/.."
bits=${1:-128}
sample=${2:-12000}
embedder=${3:-student}
name=$([ "$embedder" = static ] && echo "sph-static-$bits" || echo "sph-$bits")
data=../shared/data
work=target/models-work
mkdir -p "$work"
cat "$data"/corpora/{debian_descriptions,fortunes,gcide_entries}.jsonl > "$work/sph-corpus.jsonl"
cargo run --release --locked -- train-sph "$work/sph-corpus.jsonl" --embedder "$embedder" \
  --on-error skip --bits "$bits" --sample "$sample" -o "models/$name.bin" \
  --eval-pairs "$data/pairs/bible_ot_pairs.jsonl" --eval-max 5000 \
  --report "models/$name.report.json" --cache "$work/embeddings"
models/checksums.sh
