#!/usr/bin/env bash
# The ablation table of models/README.md: retrains the boundary with one part
# removed at a time (same training pairs, from train_boundary.sh's cache) and
# measures each on the Bible pairs and the stress set, then the rules and the
# full model with the local judge. The Bible signals come from one `semhash
# compare --semantic` run (the encoder is most of the time).
# Usage: bash models/ablate_boundary.sh [extra train-boundary flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data
work=${CARGO_TARGET_DIR:-target}/models-work/ablation
mkdir -p "$work"
cargo build --release --locked
semhash=${CARGO_TARGET_DIR:-target}/release/semhash
signals=$work/bible-signals.jsonl
[ -s "$signals" ] || "$semhash" compare "$data/pairs/bible_ot_pairs.jsonl" --semantic -o "$signals"

# row NAME [eval flags...]: one line of the table.
row() {
  local name=$1
  shift
  "$semhash" eval --pairs "$data/pairs/bible_ot_pairs.jsonl" --signals "$signals" "$@" \
    --json "$work/$name.bible.json" > "$work/$name.bible.txt"
  "$semhash" eval --clusters "$data/stress/stress_dev.jsonl" "$@" \
    --json "$work/$name.stress.json" > "$work/$name.stress.txt"
  python3 - "$work" "$name" <<'PY'
import json, sys
work, name = sys.argv[1], sys.argv[2]
b = json.load(open(f"{work}/{name}.bible.json"))["at_config"]
s = json.load(open(f"{work}/{name}.stress.json"))
t = s["per_type"]
cell = lambda k: f'{t[k]["recall"]:.4f} / {t[k]["false_pairs"]}'
print(f'| {name} | {b["f1"]:.4f} | ' + " | ".join(cell(k) for k in ["boilerplate", "contain", "hot", "short"])
      + f' | {t["viral"]["false_pairs"]} | {s["false_pairs"]} |')
PY
}

echo "| decider | Bible F1 at default | boilerplate (recall / false pairs) | contain | hot | short | viral: false pairs | false pairs overall |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
row rules
variants=(
  "full:"
  "no-char_sim:--drop char_sim" "no-weighted_sim:--drop weighted_sim"
  "no-containment:--drop contain_max --drop contain_min" "no-cosine:--drop cosine"
  "no-code_agreement:--drop code_agreement" "no-lengths:--drop len_min --drop len_ratio"
  "no-boilerplate:--drop boilerplate" "no-gate:--no-gate" "no-boundary:--flat-boundary"
)
for v in "${variants[@]}"; do
  name=${v%%:*}; flags=${v#*:}
  # shellcheck disable=SC2086
  bash models/train_boundary.sh "$work/$name.json" "$@" $flags > "$work/$name.train.log" 2>&1
  row "$name" --boundary "$work/$name.json"
done
row full+judge --boundary "$work/full.json" --judge local
