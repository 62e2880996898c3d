"""models/reference.json: known answers for the Rust side (tokenizer ids and embeddings).

For each sentence: the pruned tokenizer's ids (special tokens added, truncated
at 256, no padding), the student's embedding computed by onnxruntime from the
committed ONNX (masked mean of last_hidden_state, then L2 normalization; one
sentence per run, so no padding), and the teacher's embedding (its own
tokenizer, same pooling). `batch_check` says how far the embeddings of the same
sentences move when they are run as one right-padded batch.

    python3 models/reference.py --onnx models/student.onnx --tokenizer models/tokenizer.json --out models/reference.json
"""

import argparse
import json
from pathlib import Path

import numpy as np

from common import MAX_LEN, encode, encoder_from_teacher, load_tokenizer, np_mean_pool_normalize, set_threads, sha256, teacher_dir

LONG = (
    "In the beginning God created the heaven and the earth. And the earth was without form, and void; "
    "and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters. "
) * 8 + "This last sentence lies past the 256-token limit and must not change the embedding."

SENTENCES = [
    "Hello, world!",
    "The quick brown fox jumps over the lazy dog.",
    "A library for parsing JSON in C, with a small footprint and no dependencies.",
    "And God said, Let there be light: and there was light.",
    "God said, \u201cLet there be light,\u201d and there was light.",
    "Quantity is no substitute for quality, but its the only one we've got",
    "Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e \u2014 na\u00efve r\u00e9sum\u00e9 in Z\u00fcrich, \u00a3100 or \u20ac120?",
    "\u0422he qu\u0456ck br\u043ewn f\u043ex (Cyrillic look-alikes), zero\u200bwidth and non\u00a0breaking spaces.",
    "\u6771\u4eac\u306f\u65e5\u672c\u306e\u9996\u90fd\u3067\u3059\u3002 \U0001F600 emoji and CJK text",
    "e-mail: someone@example.org; URL https://example.org/a?b=c&d=e #tag $5.00 100%",
    "sesquipedalian antidisestablishmentarianism floccinaucinihilipilification",
    "a",
    LONG,
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    set_threads(1)
    import onnxruntime as ort
    import torch

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(a.onnx, so, providers=["CPUExecutionProvider"])
    stok = load_tokenizer(a.tokenizer)
    ttok = load_tokenizer(teacher_dir() / "tokenizer.json")
    teacher = encoder_from_teacher(list(range(6))).eval()

    cases = []
    singles = []
    for s in SENTENCES:
        ids, mask = encode(stok, [s])
        h = sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})[0]
        e = np_mean_pool_normalize(h, mask)[0]
        singles.append(e)
        tids, tmask = encode(ttok, [s])
        with torch.no_grad():
            th = teacher(torch.from_numpy(tids), torch.from_numpy(tmask))[0].numpy()
        te = np_mean_pool_normalize(th, tmask)[0]
        full = stok.encode(s).overflowing
        cases.append(
            {
                "text": s,
                "ids": [int(x) for x in ids[0]],
                "tokens": stok.encode(s).tokens,
                "truncated": bool(len(full) > 0),
                "student": [float(x) for x in e],
                "teacher": [float(x) for x in te],
                "cos_student_teacher": float(e @ te),
            }
        )
    ids, mask = encode(stok, SENTENCES)  # one padded batch
    h = sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})[0]
    eb = np_mean_pool_normalize(h, mask)
    batch_min_cos = float(min((eb[i] @ singles[i]) for i in range(len(SENTENCES))))
    out = {
        "about": "Known answers for the Rust side: ids from tokenizer.json; embeddings = masked mean of "
        "last_hidden_state over the sequence, then L2 normalization; student by onnxruntime from student.onnx, "
        "teacher = all-MiniLM-L6-v2 with its own tokenizer. Expect cosine >= 0.9999 to these.",
        "onnx": Path(a.onnx).name,
        "onnx_sha256": sha256(a.onnx),
        "tokenizer": Path(a.tokenizer).name,
        "tokenizer_sha256": sha256(a.tokenizer),
        "max_length": MAX_LEN,
        "onnxruntime": ort.__version__,
        "batch_check": {"padded_batch_vs_single_min_cos": batch_min_cos, "padded_length": int(ids.shape[1])},
        "cases": cases,
    }
    Path(a.out).write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({"cases": len(cases), "batch_min_cos": batch_min_cos, "n_tokens": [len(c["ids"]) for c in cases], "cos_st": [round(c["cos_student_teacher"], 4) for c in cases]}))


if __name__ == "__main__":
    main()
