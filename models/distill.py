"""Distil a 3-layer student from all-MiniLM-L6-v2 by the paper's eq. 2.

    L = KL(p_teacher || p_student) + alpha * ||e_teacher - e_student||^2

e = mean of the last-layer token states over real tokens (eq. 1), not normalized.
p(.)_i = softmax over j != i of cos(e_i, e_j) / tau: each row of the in-batch
similarity matrix with self-similarity masked out (with it the KL term would be
dominated by the diagonal and say nothing). KL is averaged over the rows; the
L2 term is the squared Euclidean distance summed over the 384 dimensions and
averaged over the batch.

The student starts from teacher layers --layers (embedding table restricted to
the pruned vocabulary of prune_vocab.py) and reads the pruned tokenizer's ids;
the teacher reads its own tokenizer's. A fraction of each batch (--aug, 0.25)
are perturbed copies of the other passages (words dropped, a span cut off, two
words swapped and one dropped) so every batch holds near-duplicates: the KL
term then teaches the fine end of the similarity scale as well as the coarse
one. (At 0.5 the KL term saturates: each row's mass sits on its copy.)
The word-embedding table is frozen unless --train-embeddings is given.
Defaults are the settings of the shipped run (models/README.md).

Batches are built from length-sorted chunks (less padding), in an order fixed
by --seed; augmentation draws from a generator seeded by the step, so a run
resumed from its checkpoint continues exactly as it would have.

Writes to --work/train (or --out): ckpt.pt (every --ckpt-minutes, atomically),
log.jsonl (loss per --log-every steps, validation per --eval-every steps),
student.pt (final weights) and meta.json.
"""

import argparse
import json
import math
import os
import random
import time
from pathlib import Path

import numpy as np

from common import encode, encoder_from_teacher, load_tokenizer, mean_pool, read_texts, seed_all, set_threads, teacher_dir


def perturb(text, rng):
    w = text.split(" ")
    kind = rng.random()
    if len(w) >= 6 and kind < 0.45:  # drop 10-25% of the words
        p = rng.uniform(0.10, 0.25)
        keep = [x for x in w if rng.random() > p]
        w = keep if len(keep) >= 3 else w
    elif len(w) >= 8 and kind < 0.75:  # cut a span off the start or the end
        n = rng.randint(1, max(1, len(w) // 4))
        w = w[n:] if rng.random() < 0.5 else w[:-n]
    elif len(w) >= 4:  # swap two neighbouring words, and drop one
        i = rng.randrange(len(w) - 1)
        w[i], w[i + 1] = w[i + 1], w[i]
        del w[rng.randrange(len(w))]
    return " ".join(w)


def make_batches(texts, tok, batch, seed, chunk_batches=64):
    """Index batches: shuffled texts, cut into chunks, sorted by length in a chunk."""
    rng = random.Random(seed)
    order = list(range(len(texts)))
    rng.shuffle(order)
    lens = [len(e.ids) for e in tok.encode_batch(texts)]
    out = []
    step = batch * chunk_batches
    for c in range(0, len(order), step):
        chunk = sorted(order[c : c + step], key=lambda i: lens[i])
        bs = [chunk[i : i + batch] for i in range(0, len(chunk), batch)]
        bs = [b for b in bs if len(b) == batch]
        rng.shuffle(bs)
        out.extend(bs)
    return out


def kl_in_batch(es, et, tau):
    import torch
    import torch.nn.functional as F

    s = F.normalize(es, dim=-1)
    t = F.normalize(et, dim=-1)
    n = s.shape[0]
    eye = torch.eye(n, dtype=torch.bool, device=s.device)
    ls = (s @ s.T / tau).masked_fill(eye, -1e4)
    lt = (t @ t.T / tau).masked_fill(eye, -1e4)
    logp_s = F.log_softmax(ls, dim=-1)
    p_t = F.softmax(lt, dim=-1)
    logp_t = F.log_softmax(lt, dim=-1)
    return (p_t * (logp_t - logp_s)).masked_fill(eye, 0.0).sum(-1).mean()


def val_metrics(student, stok, val_texts, val_te, pairs, device, bs=64):
    """Spearman(student cos, teacher cos) on val pairs, and mean cos(student e, teacher e)."""
    import torch
    from scipy.stats import spearmanr

    student.eval()
    embs = []
    with torch.no_grad():
        for i in range(0, len(val_texts), bs):
            ids, mask = encode(stok, val_texts[i : i + bs])
            ids, mask = torch.from_numpy(ids).to(device), torch.from_numpy(mask).to(device)
            h, _ = student(ids, mask)
            embs.append(mean_pool(h, mask).float().cpu())
    es = torch.cat(embs).numpy()
    student.train()
    en = es / np.linalg.norm(es, axis=1, keepdims=True)
    tn = val_te / np.linalg.norm(val_te, axis=1, keepdims=True)
    a, b = pairs[:, 0], pairs[:, 1]
    cs = (en[a] * en[b]).sum(1)
    ct = (tn[a] * tn[b]).sum(1)
    return {
        "val_spearman": float(spearmanr(cs, ct).statistic),
        "val_mae_cos": float(np.abs(cs - ct).mean()),
        "val_cos_to_teacher": float((en * tn).sum(1).mean()),
        "val_l2": float(((es - val_te) ** 2).sum(1).mean()),
    }


def teacher_embed(teacher, ttok, texts, device, bs=64):
    import torch

    out = []
    with torch.no_grad():
        for i in range(0, len(texts), bs):
            ids, mask = encode(ttok, texts[i : i + bs])
            ids, mask = torch.from_numpy(ids).to(device), torch.from_numpy(mask).to(device)
            h, _ = teacher(ids, mask)
            out.append(mean_pool(h, mask).float().cpu())
    return torch.cat(out).numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True, help="work dir holding data/ and vocab/")
    ap.add_argument("--out", default=None, help="default WORK/train")
    ap.add_argument("--train-file", default=None, help="default WORK/data/train.jsonl")
    ap.add_argument("--val-file", default=None, help="default WORK/data/val.jsonl")
    ap.add_argument("--train-limit", type=int, default=0, help="use only the first N training passages (0 = all)")
    ap.add_argument("--kl-weight", type=float, default=1.0)
    ap.add_argument("--train-embeddings", action="store_true", help="also train the word embedding table (frozen by default)")
    ap.add_argument("--layers", default="0,3,5", help="teacher layers the student starts from")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--tau", type=float, default=0.05)
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--aug", type=float, default=0.25, help="fraction of a batch that are perturbed views")
    ap.add_argument("--train-max-len", type=int, default=96)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--val-size", type=int, default=1000)
    ap.add_argument("--ckpt-minutes", type=float, default=4.0)
    ap.add_argument("--max-minutes", type=float, default=0, help="stop (after a checkpoint) past this; 0 = no limit")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    set_threads(a.threads)
    import torch

    seed_all(a.seed)
    dev = torch.device(a.device)
    work = Path(a.work)
    out = Path(a.out) if a.out else work / "train"
    out.mkdir(parents=True, exist_ok=True)
    layers = [int(x) for x in a.layers.split(",")]

    ttok = load_tokenizer(teacher_dir() / "tokenizer.json", a.train_max_len)
    stok = load_tokenizer(work / "vocab" / "tokenizer.json", a.train_max_len)
    keep = json.loads((work / "vocab" / "keep_ids.json").read_text())["teacher_ids"]

    teacher = encoder_from_teacher(list(range(6))).to(dev).eval()
    for p in teacher.parameters():
        p.requires_grad_(False)
    student = encoder_from_teacher(layers, vocab_rows=keep).to(dev).train()

    if not a.train_embeddings:
        student.word.weight.requires_grad_(False)
    texts = read_texts(a.train_file or work / "data" / "train.jsonl", a.train_limit)
    val_texts = read_texts(a.val_file or work / "data" / "val.jsonl", a.val_size)
    print(f"{len(texts)} training passages, {len(val_texts)} validation passages", flush=True)

    # validation: teacher embeddings once (cached), random pairs + each item's teacher nearest neighbour
    vcache = out / "val_teacher.npy"
    if vcache.exists():
        val_te = np.load(vcache)
    else:
        val_te = teacher_embed(teacher, ttok, val_texts, dev)
        np.save(vcache, val_te)
    vr = np.random.default_rng(7)
    n = len(val_texts)
    rand_pairs = vr.integers(0, n, size=(20000, 2))
    rand_pairs = rand_pairs[rand_pairs[:, 0] != rand_pairs[:, 1]]
    tn = val_te / np.linalg.norm(val_te, axis=1, keepdims=True)
    sim = tn @ tn.T
    np.fill_diagonal(sim, -2)
    nn_pairs = np.stack([np.arange(n), sim.argmax(1)], 1)
    pairs = np.concatenate([rand_pairs, nn_pairs])

    batches_path = out / "batches.npy"
    if batches_path.exists():
        batches = np.load(batches_path)
    else:
        n_orig = a.batch - int(round(a.batch * a.aug))
        batches = np.array(make_batches(texts, ttok, n_orig, a.seed), dtype=np.int64)
        np.save(batches_path, batches)

    opt = torch.optim.AdamW([p for p in student.parameters() if p.requires_grad], lr=a.lr, weight_decay=0.01)

    def lr_at(step):
        if step < a.warmup:
            return a.lr * (step + 1) / a.warmup
        frac = (step - a.warmup) / max(1, a.steps - a.warmup)
        return a.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, frac))))

    step, elapsed = 0, 0.0
    ckpt = out / "ckpt.pt"
    if ckpt.exists():
        st = torch.load(ckpt, map_location=dev, weights_only=False)
        student.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        step, elapsed = st["step"], st["elapsed"]
        print(f"resumed at step {step} ({elapsed / 60:.1f} min trained)", flush=True)
    log = open(out / "log.jsonl", "a")

    def save_ckpt():
        tmp = out / "ckpt.pt.tmp"
        torch.save({"model": student.state_dict(), "opt": opt.state_dict(), "step": step, "elapsed": elapsed, "args": vars(a)}, tmp)
        os.replace(tmp, ckpt)

    if step == 0:
        m = val_metrics(student, stok, val_texts, val_te, pairs, dev)
        rec = {"step": 0, "minutes": 0.0, **m}
        log.write(json.dumps(rec) + "\n")
        log.flush()
        print(json.dumps(rec), flush=True)

    t0 = time.time() - elapsed
    last_ckpt = time.time()
    acc = {"loss": 0.0, "kl": 0.0, "l2": 0.0, "n": 0}
    while step < a.steps:
        idx = batches[step % len(batches)]
        orig = [texts[i] for i in idx]
        rng = random.Random(a.seed * 1_000_003 + step)
        views = [perturb(orig[i % len(orig)], rng) for i in range(a.batch - len(orig))]
        batch = orig + views
        ti, tm = encode(ttok, batch)
        si, sm = encode(stok, batch)
        ti, tm, si, sm = (torch.from_numpy(x).to(dev) for x in (ti, tm, si, sm))
        with torch.no_grad():
            th, _ = teacher(ti, tm)
            et = mean_pool(th, tm)
        sh, _ = student(si, sm)
        es = mean_pool(sh, sm)
        kl = kl_in_batch(es, et, a.tau)
        l2 = ((es - et) ** 2).sum(-1).mean()
        loss = a.kl_weight * kl + a.alpha * l2
        for g in opt.param_groups:
            g["lr"] = lr_at(step)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(student.parameters(), 1.0)
        opt.step()
        step += 1
        acc["loss"] += loss.item()
        acc["kl"] += kl.item()
        acc["l2"] += l2.item()
        acc["n"] += 1
        elapsed = time.time() - t0
        if step % a.log_every == 0:
            rec = {"step": step, "minutes": round(elapsed / 60, 2), "lr": lr_at(step - 1)}
            rec.update({k: acc[k] / acc["n"] for k in ("loss", "kl", "l2")})
            acc = {"loss": 0.0, "kl": 0.0, "l2": 0.0, "n": 0}
            if step % a.eval_every == 0 or step == a.steps:
                rec.update(val_metrics(student, stok, val_texts, val_te, pairs, dev))
            log.write(json.dumps(rec) + "\n")
            log.flush()
            print(json.dumps(rec), flush=True)
        stop = a.max_minutes and elapsed / 60 > a.max_minutes
        if time.time() - last_ckpt > a.ckpt_minutes * 60 or step == a.steps or stop:
            save_ckpt()
            last_ckpt = time.time()
        if stop:
            print(f"stopping at step {step}: --max-minutes reached; run again to resume", flush=True)
            break
    complete = step >= a.steps
    if complete:
        torch.save({"model": student.state_dict(), "layers": layers, "vocab": len(keep)}, out / "student.pt")
    meta = {"args": vars(a), "steps": step, "complete": complete, "minutes": round(elapsed / 60, 2), "final": val_metrics(student, stok, val_texts, val_te, pairs, dev)}
    (out / "meta.json").write_text(json.dumps(meta, indent=1))
    print(json.dumps(meta), flush=True)


if __name__ == "__main__":
    main()
