"""Quality of the student against the teacher on the Bible paraphrase pairs.

../shared/data/pairs/bible_ot_pairs.jsonl: kind "same_verse" (label 1) = positives,
"adjacent_verse" (label 0) = hard negatives, "random" (label 0) = random negatives.
For every pair: cosine of the two texts' embeddings (masked mean of
last_hidden_state, L2-normalized), texts truncated at 256 tokens.

Reported:
  spearman_student_teacher  Spearman of the student's pair cosines against the teacher's, all pairs
  auc_hard                  AUC of positives vs hard negatives, teacher and student
  auc_all                   AUC of positives vs all negatives, teacher and student
  formats                   per storage format: cosine of its embeddings to the fp32 student's
                            (mean and min over --format-texts texts) and its AUCs

    python3 models/evaluate.py --work WORK --pairs ../shared/data/pairs/bible_ot_pairs.jsonl \
        --onnx models/student.onnx --tokenizer models/tokenizer.json --out models/quality.json

Embeddings are cached under WORK/eval (the teacher's take the longest: the
45,634 distinct texts through 6 layers, 20-30 minutes on one core).
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

from common import MAX_LEN, encode, encoder_from_teacher, load_tokenizer, np_mean_pool_normalize, read_jsonl, set_threads, sha256, teacher_dir


def auc(pos, neg):
    """Mann-Whitney AUC: probability that a positive scores above a negative (ties count half)."""
    from scipy.stats import rankdata

    r = rankdata(np.concatenate([pos, neg]))
    return float((r[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def batched(texts, tok, fn, bs=32):
    """Embed texts in length-sorted batches; returns [N, 384] L2-normalized, in input order."""
    lens = [len(e.ids) for e in tok.encode_batch(texts)]
    order = np.argsort(lens, kind="stable")
    out = np.zeros((len(texts), 384), dtype=np.float32)
    t0 = time.time()
    for k, i in enumerate(range(0, len(texts), bs)):
        idx = order[i : i + bs]
        ids, mask = encode(tok, [texts[j] for j in idx])
        out[idx] = np_mean_pool_normalize(fn(ids, mask), mask)
        if k % 200 == 0:
            print(f"  {i}/{len(texts)} {time.time() - t0:.0f}s", flush=True)
    return out


def torch_fn(enc):
    import torch

    def f(ids, mask):
        with torch.no_grad():
            return enc(torch.from_numpy(ids), torch.from_numpy(mask))[0].numpy()

    return f


def ort_fn(path, threads=1):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])

    def f(ids, mask):
        return sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})[0]

    return f


def cached(path, make):
    path = Path(path)
    if path.exists():
        return np.load(path)
    e = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, e)
    return e


def pair_metrics(emb, index, pairs):
    a = np.array([index[p["a"]] for p in pairs])
    b = np.array([index[p["b"]] for p in pairs])
    cos = (emb[a] * emb[b]).sum(1)
    kind = np.array([p["kind"] for p in pairs])
    lab = np.array([p["label"] for p in pairs])
    pos = cos[kind == "same_verse"]
    return cos, {
        "auc_hard": auc(pos, cos[kind == "adjacent_verse"]),
        "auc_all": auc(pos, cos[lab == 0]),
        "mean_cos_pos": float(pos.mean()),
        "mean_cos_hard": float(cos[kind == "adjacent_verse"].mean()),
    }


def attention_importance(texts, onnx_path, stok, ttok, keep, n=300):
    """Token importance from last-layer attention, student vs teacher.

    importance(token k) = attention that k receives, averaged over the 12 heads and
    over the real query tokens. Per text, Spearman of the student's importances
    against the teacher's (texts whose pruned tokenization equals the teacher's,
    so tokens line up); reported: the mean over n texts.
    """
    import torch
    from scipy.stats import spearmanr

    teacher = encoder_from_teacher(list(range(6))).eval()
    import onnxruntime as ort

    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    rhos = []
    for i in rng.permutation(len(texts)):
        if len(rhos) >= n:
            break
        sids, smask = encode(stok, [texts[i]])
        tids, tmask = encode(ttok, [texts[i]])
        if sids.shape != tids.shape or [keep[j] for j in sids[0]] != list(tids[0]):
            continue
        sa = sess.run(["attentions"], {"input_ids": sids, "attention_mask": smask})[0][0]
        with torch.no_grad():
            ta = teacher(torch.from_numpy(tids), torch.from_numpy(tmask))[1][0].numpy()
        rhos.append(spearmanr(sa.mean(axis=(0, 1)), ta.mean(axis=(0, 1))).statistic)
    return {"texts": len(rhos), "mean_spearman": float(np.mean(rhos)), "median_spearman": float(np.median(rhos))}


def check_teacher(texts):
    """Our encoder code (common.py) against transformers' BertModel on the teacher: max |diff| of embeddings."""
    import torch
    from transformers import AutoModel

    tok = load_tokenizer(teacher_dir() / "tokenizer.json")
    hf = AutoModel.from_pretrained(str(teacher_dir()), attn_implementation="eager").eval()
    ours = encoder_from_teacher(list(range(6))).eval()
    ids, mask = encode(tok, texts)
    with torch.no_grad():
        h1 = hf(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)).last_hidden_state.numpy()
        h2 = ours(torch.from_numpy(ids), torch.from_numpy(mask))[0].numpy()
    e1, e2 = np_mean_pool_normalize(h1, mask), np_mean_pool_normalize(h2, mask)
    return float((e1 * e2).sum(1).min())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--onnx", required=True, help="the student ONNX to report")
    ap.add_argument("--tokenizer", required=True, help="the student's tokenizer.json")
    ap.add_argument("--student", default=None, help="student.pt (fp32 weights) for the format comparison")
    ap.add_argument("--format-onnx", nargs="*", default=[], help="NAME=PATH of other formats to compare")
    ap.add_argument("--format-texts", type=int, default=3000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--only-teacher", action="store_true", help="just fill the teacher cache")
    ap.add_argument("--only-student", action="store_true", help="just fill the student cache")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    set_threads(a.threads)
    ev = Path(a.work) / "eval"
    pairs = list(read_jsonl(a.pairs))
    texts = sorted(set([p["a"] for p in pairs] + [p["b"] for p in pairs]))
    index = {t: i for i, t in enumerate(texts)}
    res = {"pairs": len(pairs), "distinct_texts": len(texts), "max_len": MAX_LEN}
    res["counts"] = {k: sum(1 for p in pairs if p["kind"] == k) for k in sorted({p["kind"] for p in pairs})}

    ttok = load_tokenizer(teacher_dir() / "tokenizer.json")
    stok = load_tokenizer(a.tokenizer)
    if not a.only_teacher:
        t0 = time.time()
        key = Path(a.onnx).stem + "_" + sha256(a.onnx)[:16]
        se = cached(ev / f"student_{key}.npy", lambda: batched(texts, stok, ort_fn(a.onnx, a.threads)))
        res["student_seconds"] = round(time.time() - t0)
        if a.only_student:
            return
    t0 = time.time()
    te = cached(ev / "teacher_bible.npy", lambda: batched(texts, ttok, torch_fn(encoder_from_teacher(list(range(6))).eval())))
    res["teacher_seconds"] = round(time.time() - t0)
    if a.only_teacher:
        return
    tcos, res["teacher"] = pair_metrics(te, index, pairs)
    scos, res["student"] = pair_metrics(se, index, pairs)
    from scipy.stats import spearmanr

    res["spearman_student_teacher"] = float(spearmanr(scos, tcos).statistic)
    res["pearson_student_teacher"] = float(np.corrcoef(scos, tcos)[0, 1])
    res["mean_abs_cos_diff"] = float(np.abs(scos - tcos).mean())
    res["mean_cos_student_to_teacher_embedding"] = float((se * te).sum(1).mean())
    res["auc_hard_loss"] = res["teacher"]["auc_hard"] - res["student"]["auc_hard"]
    res["auc_all_loss"] = res["teacher"]["auc_all"] - res["student"]["auc_all"]

    # storage formats against the fp32 student, on a fixed sample of the texts
    if a.student or a.format_onnx:
        import torch

        from export import load_student

        rng = np.random.default_rng(0)
        sample = [texts[i] for i in sorted(rng.choice(len(texts), size=min(a.format_texts, len(texts)), replace=False))]
        fmts = {}
        ref = None
        if a.student:
            enc, _ = load_student(a.student)
            ref = batched(sample, stok, torch_fn(enc))
        for spec in a.format_onnx:
            name, path = spec.split("=", 1)
            e = batched(sample, stok, ort_fn(path, a.threads))
            c = (e * ref).sum(1) if ref is not None else None
            fmts[name] = {"bytes": Path(path).stat().st_size}
            if c is not None:
                fmts[name].update(cos_to_fp32_mean=float(c.mean()), cos_to_fp32_min=float(c.min()))
        res["formats"] = {"texts": len(sample), **fmts}
    keep = json.loads((Path(a.work) / "vocab" / "keep_ids.json").read_text())["teacher_ids"]
    res["attention_importance"] = attention_importance(texts, a.onnx, stok, ttok, keep)
    res["teacher_code_check_min_cos"] = check_teacher(texts[:8] + [texts[-1] * 20])
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
