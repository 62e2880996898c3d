#!/usr/bin/env bash
# Writes models/SHA256SUMS, which `semhash` checks each model file against
# before loading it (a truncated copy or a flipped bit is refused). Run after
# any script here that rewrites a model file; `sha256sum -c SHA256SUMS` in
# models/ checks them by hand.
set -euo pipefail
cd "$(dirname "$0")"
# Files a script has not made yet are left out.
files=$(ls student.onnx tokenizer.json static-128.bin sph-128.bin sph-static-128.bin boundary.json 2> /dev/null)
sha256sum $files > SHA256SUMS
