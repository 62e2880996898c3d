"""Probe for issue 15's static embedding stage: is a token table distilled
from the student good enough to be worth a Rust stage?

The model2vec recipe, measured before anything is built: each vocabulary
token alone through `student.onnx` ([CLS] token [SEP], masked mean of the
last hidden state), centred, optionally PCA-reduced, and weighted by
smooth inverse frequency a / (a + p(token)) with token frequencies counted
on the unlabelled corpora. A text's embedding is the mean of its tokens'
rows; pairs are scored by cosine. Prints, for each variant, the F1 at the
best threshold (an upper bound: the threshold is chosen on the labels) and
the recall at precision >= 0.85 on the Bible pairs and the labelled npm
pairs.

    python models/static_probe.py --data ../shared/data

Needs numpy, onnxruntime and tokenizers (models/requirements.txt). Nothing
is written but the printed table.
"""

import argparse
import itertools
import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

HERE = Path(__file__).resolve().parent


def token_table(tokenizer):
    """Student embedding of every vocabulary token on its own."""
    session = ort.InferenceSession(str(HERE / "student.onnx"), providers=["CPUExecutionProvider"])
    vocab = tokenizer.get_vocab_size()
    table = np.zeros((vocab, 384), np.float32)
    for start in range(0, vocab, 1024):
        ids = np.arange(start, min(vocab, start + 1024))
        x = np.stack([np.full_like(ids, 2), ids, np.full_like(ids, 3)], 1).astype(np.int64)
        hidden = session.run(["last_hidden_state"], {"input_ids": x, "attention_mask": np.ones_like(x)})[0]
        table[start : start + len(ids)] = hidden.mean(1)
    return table


# The unlabelled corpora whose token frequencies weigh the rows.
CORPORA = ["natural/npm_summaries.jsonl", "corpora/debian_descriptions.jsonl", "corpora/gcide_entries.jsonl", "corpora/fortunes.jsonl"]


def token_counts(tokenizer, data):
    counts = np.zeros(tokenizer.get_vocab_size(), np.int64)
    for name in CORPORA:
        with open(data / name) as f:
            texts = [json.loads(line).get("text", "")[:2000] for line in itertools.islice(f, 200_000)]
        for enc in tokenizer.encode_batch(texts, add_special_tokens=False):
            np.add.at(counts, enc.ids, 1)
    return counts


def score(scores, labels):
    order = np.argsort(-scores)
    tp = np.cumsum(labels[order])
    precision = tp / np.arange(1, len(labels) + 1)
    recall = tp / labels.sum()
    f1 = 2 * precision * recall / np.maximum(precision + recall, 1e-9)
    ok = precision >= 0.85
    return f1.max(), recall[ok].max() if ok.any() else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    args = ap.parse_args()
    tokenizer = Tokenizer.from_file(str(HERE / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    table = token_table(tokenizer)
    counts = token_counts(tokenizer, args.data)
    p = (counts + 1) / (counts.sum() + len(table))
    sets = {}
    for name, path in [("bible", "pairs/bible_ot_pairs.jsonl"), ("npm", "natural/npm_pairs.jsonl")]:
        pairs = [json.loads(line) for line in open(args.data / path)]
        ids = lambda side: [[i for i in e.ids if i > 4] for e in tokenizer.encode_batch([q[side] for q in pairs])]
        sets[name] = (ids("a"), ids("b"), np.array([q["label"] for q in pairs]))
    centred = table - table.mean(0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    print(f"{'dims':>4} {'sif a':>6} | {'bible F1':>8} {'R@P.85':>6} | {'npm F1':>6} {'R@P.85':>6}")
    for dims in [384, 256, 128]:
        reduced = centred if dims == 384 else centred @ vt[:dims].T
        for a in [None, 1e-3, 1e-4]:
            rows = reduced * (1.0 if a is None else (a / (a + p))[:, None])
            out = []
            for a_ids, b_ids, labels in sets.values():
                def embed(all_ids):
                    e = np.stack([rows[i].mean(0) if i else np.zeros(dims) for i in all_ids])
                    return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-9)
                out.extend(score((embed(a_ids) * embed(b_ids)).sum(1), labels))
            print(f"{dims:>4} {a if a else '-':>6} | {out[0]:8.3f} {out[1]:6.3f} | {out[2]:6.3f} {out[3]:6.3f}", flush=True)


if __name__ == "__main__":
    main()
