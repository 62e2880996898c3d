#!/usr/bin/env bash
# Learns the semantic hyperplanes (models/sph-128.bin) on student embeddings of
# the Debian, GCIDE and fortunes corpora, and measures them against random
# hyperplanes on the Bible pairs. Usage: bash models/train_sph.sh [BITS] [SAMPLE]
set -euo pipefail
cd "$(dirname "$0")/.."
bits=${1:-128}
sample=${2:-12000}
data=../shared/data
work=target/models-work
mkdir -p "$work"
cat "$data"/corpora/{debian_descriptions,fortunes,gcide_entries}.jsonl > "$work/sph-corpus.jsonl"
cargo run --release --locked -- train-sph "$work/sph-corpus.jsonl" \
  --on-error skip --bits "$bits" --sample "$sample" -o "models/sph-$bits.bin" \
  --eval-pairs "$data/pairs/bible_ot_pairs.jsonl" --eval-max 5000 \
  --report "models/sph-$bits.report.json" --cache "$work/embeddings"
models/checksums.sh
