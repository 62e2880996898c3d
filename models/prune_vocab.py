"""Prune the teacher's WordPiece vocabulary to the tokens real English uses.

Kept: every token that occurs when the teacher's tokenizer cuts the training
corpora (train.jsonl + val.jsonl of prepare_data.py) at least --min-count times,
every single-character token and its '##' form (so any word still tokenizes,
into smaller pieces at worst, instead of turning into [UNK]), and
[PAD] [UNK] [CLS] [SEP] [MASK]. Kept tokens keep their relative order, so
[PAD] stays id 0.

Writes to --out:
  tokenizer.json  the pruned tokenizer (same normalizer, pre-tokenizer, template;
                  truncation at 256, padding to the longest in a batch with [PAD] = 0)
  keep_ids.json   {"teacher_ids": [...]}: new id i is teacher id teacher_ids[i]
  stats.json      counts
"""

import argparse
import collections
import json
from pathlib import Path

from common import MAX_LEN, read_jsonl, set_threads, teacher_dir

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="WORK/data from prepare_data.py")
    ap.add_argument("--out", required=True)
    ap.add_argument("--min-count", type=int, default=1)
    a = ap.parse_args()
    set_threads(1)
    from tokenizers import Tokenizer

    src = json.loads((teacher_dir() / "tokenizer.json").read_text(encoding="utf-8"))
    tok = Tokenizer.from_file(str(teacher_dir() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()

    counts = collections.Counter()
    n_text = 0
    for name in ("train", "val"):
        batch = []
        for r in read_jsonl(Path(a.data) / f"{name}.jsonl"):
            batch.append(r["text"])
            if len(batch) == 10000:
                for e in tok.encode_batch(batch, add_special_tokens=False):
                    counts.update(e.ids)
                n_text += len(batch)
                batch = []
        for e in tok.encode_batch(batch, add_special_tokens=False):
            counts.update(e.ids)
        n_text += len(batch)

    vocab = src["model"]["vocab"]  # token -> id
    by_id = sorted(vocab.items(), key=lambda kv: kv[1])
    keep = []
    n_single = 0
    for t, i in by_id:
        single = len(t) == 1 or (t.startswith("##") and len(t) == 3)
        n_single += single
        if t in SPECIALS or single or counts[i] >= a.min_count:
            keep.append((t, i))
    new_id = {t: j for j, (t, _) in enumerate(keep)}
    assert new_id["[PAD]"] == 0

    out = dict(src)
    out["model"] = dict(src["model"])
    out["model"]["vocab"] = new_id
    out["added_tokens"] = [dict(t, id=new_id[t["content"]]) for t in src["added_tokens"]]
    pp = json.loads(json.dumps(src["post_processor"]))
    for name, st in pp["special_tokens"].items():
        st["ids"] = [new_id[name]]
    out["post_processor"] = pp
    out["truncation"] = {"direction": "Right", "max_length": MAX_LEN, "strategy": "LongestFirst", "stride": 0}
    out["padding"] = {
        "strategy": "BatchLongest",
        "direction": "Right",
        "pad_to_multiple_of": None,
        "pad_id": 0,
        "pad_type_id": 0,
        "pad_token": "[PAD]",
    }
    od = Path(a.out)
    od.mkdir(parents=True, exist_ok=True)
    (od / "tokenizer.json").write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    (od / "keep_ids.json").write_text(json.dumps({"teacher_ids": [i for _, i in keep]}))

    # the pruned tokenizer must load and agree with the teacher's wherever all tokens were kept
    new = Tokenizer.from_file(str(od / "tokenizer.json"))
    probe = "Hello, world! The naïve café's résumé — 日本語 🙂 and sesquipedalian words."
    ids = new.encode(probe).ids
    assert ids[0] == new_id["[CLS]"] and ids[-1] == new_id["[SEP]"]
    stats = {
        "texts_counted": n_text,
        "tokens_counted": sum(counts.values()),
        "teacher_vocab": len(vocab),
        "seen_in_corpus": len(counts),
        "single_char_tokens": n_single,
        "min_count": a.min_count,
        "kept": len(keep),
    }
    (od / "stats.json").write_text(json.dumps(stats, indent=1))
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
