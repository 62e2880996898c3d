"""Builds `static-128.bin`, the static embedding table (issue 15): a text's
embedding is the weighted sum of its tokens' rows, no transformer run.

The model2vec recipe, as measured by `static_probe.py`: every vocabulary
token alone through `student.onnx` ([CLS] token [SEP], mean of the last
hidden state), centred, reduced to 128 dimensions by PCA, and weighted by
smooth inverse frequency a / (a + p(token)) with a = 1e-3 and token
frequencies counted on the unlabelled corpora under ../shared/data. Each row
is stored as int8 with one f32 scale (the SIF weight folded in); the special
tokens ([PAD] [UNK] [CLS] [SEP] [MASK]) get scale 0, so they add nothing.
Last comes the centre: the mean of the texts' normalised sums over the same
corpora, which every embedding has subtracted before it is normalised again.
Without it any two texts share that common direction (the median cosine of
random pairs is 0.25, after it 0.0), so cosine thresholds and blocking radii
would mean other things than for the student.

File format (little-endian), read by `src/encoder/static_table.rs`:

    magic b"SHST", u32 version (1), u32 tokens, u32 dims,
    f32 scale[tokens], i8 row[tokens][dims], f32 centre[dims],
    u64 xxh3-64 (seed 0) of everything before it.

    python models/static_table.py --data ../shared/data

Needs numpy, onnxruntime, tokenizers and xxhash (models/requirements.txt). The
result is deterministic for a given onnxruntime build (the rows are
rounded to int8, so a last-bit change in a hidden state rarely moves one).
"""

import argparse
import itertools
import json
import struct
import subprocess
from pathlib import Path

import numpy as np
import xxhash
from tokenizers import Tokenizer

from static_probe import CORPORA, HERE, token_counts, token_table

DIMS = 128
SIF_A = 1e-3
SPECIAL = 5  # [PAD] [UNK] [CLS] [SEP] [MASK] are ids 0..4


def build(data: Path):
    tokenizer = Tokenizer.from_file(str(HERE / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    table = token_table(tokenizer).astype(np.float64)
    counts = token_counts(tokenizer, data)
    p = (counts + 1) / (counts.sum() + len(table))
    centred = table - table.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    # An SVD's signs are arbitrary; fix each axis so its largest loading is positive.
    vt = vt[:DIMS] * np.sign(vt[:DIMS][np.arange(DIMS), np.abs(vt[:DIMS]).argmax(1)])[:, None]
    rows = centred @ vt.T
    peak = np.abs(rows).max(1)
    quantised = np.clip(np.rint(rows / peak[:, None] * 127), -127, 127).astype(np.int8)
    scale = (peak / 127 * SIF_A / (SIF_A + p)).astype(np.float32)
    scale[:SPECIAL] = 0
    return scale, quantised, centre(tokenizer, data, scale, quantised)


def centre(tokenizer, data, scale, quantised):
    """Mean of the normalised row sums of 20,000 texts of each corpus."""
    rows = quantised.astype(np.float32) * scale[:, None]
    total, count = np.zeros(rows.shape[1], np.float64), 0
    for name in CORPORA:
        with open(data / name) as f:
            texts = [json.loads(line).get("text", "")[:2000] for line in itertools.islice(f, 20_000)]
        for enc in tokenizer.encode_batch(texts, add_special_tokens=False):
            v = rows[enc.ids].sum(0)
            norm = np.linalg.norm(v)
            if norm > 0:
                total, count = total + v / norm, count + 1
    return (total / count).astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=HERE / "static-128.bin")
    args = ap.parse_args()
    scale, rows, mean = build(args.data)
    body = b"SHST" + struct.pack("<III", 1, *rows.shape) + scale.tobytes() + rows.tobytes() + mean.tobytes()
    args.out.write_bytes(body + struct.pack("<Q", xxhash.xxh3_64_intdigest(body, seed=0)))
    print(f"{args.out}: {rows.shape[0]} tokens x {rows.shape[1]} dims, {len(body) + 8} bytes")
    subprocess.run(["bash", str(HERE / "checksums.sh")], check=True)


if __name__ == "__main__":
    main()
