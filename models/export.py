"""Export the student to ONNX for tract 0.23, in several weight storage formats.

The graph (torch.onnx.export, opset 17, dynamo=False, dynamic batch and sequence):

  inputs   input_ids       int64 [batch, sequence]   ids of models/tokenizer.json
           attention_mask  int64 [batch, sequence]   1 = token, 0 = padding
  outputs  last_hidden_state  float32 [batch, sequence, 384]
           attentions         float32 [batch, 12, sequence, sequence]
                              last layer's attention probabilities (softmax output)

The attention mask is turned into the additive mask (1 - mask) * -1e4 inside
the graph (our own, not transformers' mask builder, which tract rejects). No
pooling and no normalization: the caller takes the masked mean of
last_hidden_state over the sequence and L2-normalizes it.

Weight storage (--format), applied to the exported fp32 graph by rewriting its
initializers:
  fp32       as trained
  fp16       every large weight fp16, followed by a Cast to float32
  emb8       word-embedding table int8 with one fp32 scale per row (symmetric,
             scale = max|row| / 127): the Gather picks int8 rows and their
             scales, and Cast + Mul turn only those rows into float32; every
             other large weight fp32
  emb8_fp16  word-embedding table as emb8, the other large weights fp16 + Cast
  int8       table as emb8, matrices int8 per output column, each dequantized
             as a whole by Cast + Mul
"Large" means at least 4096 elements; biases and LayerNorm parameters stay fp32.

Every Cast / Mul that dequantizes a whole weight has only constant inputs.
tract 0.23 folds such a node into a float32 constant when it optimizes the
model, but only when the result stays within max(its inputs' size, 4 MiB)
(CONST_FOLD_MEM_BUDGET in tract-core's optim/prop_const.rs). Every layer
matrix (at most 384 x 1536 floats, 2.4 MB) and the position table qualify, so
they run as plain float32; the 28,848 x 384 word table (44 MB in float32) would
not, and dequantizing it whole made each call about 25 ms slower. Hence the
gather-then-dequantize form for the table: the table stays int8 in memory and
each call converts only its own rows.

    python3 models/export.py --student WORK/train/student.pt --out models/student.onnx --format emb8_fp16
"""

import argparse
import json
from pathlib import Path

import numpy as np

from common import build_encoder_class, set_threads

FORMATS = ("fp32", "fp16", "emb8", "emb8_fp16", "int8")
LARGE = 4096


def load_student(path):
    import torch

    st = torch.load(path, map_location="cpu", weights_only=False)
    Encoder = build_encoder_class()
    enc = Encoder(st["vocab"], len(st["layers"]))
    enc.load_state_dict(st["model"])
    return enc.eval(), st


def export_fp32(enc, path):
    import torch

    class Wrapper(torch.nn.Module):
        def __init__(self, enc):
            super().__init__()
            self.enc = enc

        def forward(self, input_ids, attention_mask):
            return self.enc(input_ids, attention_mask)

    ids = torch.tensor([[2, 1000, 2000, 3000, 3], [2, 1500, 3, 0, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    torch.onnx.export(
        Wrapper(enc),
        (ids, mask),
        str(path),
        opset_version=17,
        dynamo=False,
        do_constant_folding=True,
        input_names=["input_ids", "attention_mask"],
        output_names=["last_hidden_state", "attentions"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "sequence"},
            "last_hidden_state": {0: "batch", 1: "sequence"},
            "attentions": {0: "batch", 2: "sequence", 3: "sequence"},
        },
    )


def quant_rows(w):
    """Symmetric int8 per row of a 2-D array: (q int8, scale float32 [rows, 1])."""
    s = np.abs(w).max(axis=1, keepdims=True) / 127.0
    s[s == 0] = 1.0
    q = np.clip(np.round(w / s), -127, 127).astype(np.int8)
    return q, s.astype(np.float32)


def restore_format(model, fmt, vocab):
    """Rewrite large float initializers into the storage format `fmt` (see module doc)."""
    import onnx
    from onnx import helper, numpy_helper

    if fmt == "fp32":
        return model
    g = model.graph
    new_inits, new_nodes, rewired = [], [], []
    for init in list(g.initializer):
        w = numpy_helper.to_array(init)
        if w.dtype != np.float32 or w.size < LARGE:
            new_inits.append(init)
            continue
        name = init.name
        is_table = w.ndim == 2 and w.shape[0] == vocab
        int8 = (is_table and fmt in ("emb8", "emb8_fp16", "int8")) or (fmt == "int8" and w.ndim == 2)
        if int8 and is_table:
            # one scale per token row; the Gather picks int8 rows and their scales,
            # and only the picked rows are turned into float32
            q, s = quant_rows(w)
            new_inits += [numpy_helper.from_array(q, name + "_q"), numpy_helper.from_array(s, name + "_scale")]
            users = [n for n in g.node if name in n.input]
            for n in users:
                axis = [at.i for at in n.attribute if at.name == "axis"]
                assert n.op_type == "Gather" and n.input[0] == name and axis in ([], [0]), n
                out, ids = n.output[0], n.input[1]
                n.input[0] = name + "_q"
                n.output[0] = out + "_q"
                rewired.append(
                    (out + "_q", [
                        helper.make_node("Gather", [name + "_scale", ids], [out + "_scale"], axis=0, name=out + "_gather_scale"),
                        helper.make_node("Cast", [out + "_q"], [out + "_qf"], to=onnx.TensorProto.FLOAT, name=out + "_cast"),
                        helper.make_node("Mul", [out + "_qf", out + "_scale"], [out], name=out + "_dequant"),
                    ])
                )
            continue
        if int8:
            qt, st = quant_rows(w.T)  # MatMul weights are [in, out]: one scale per output column
            q, s = qt.T.copy(), st.T.copy()
            new_inits += [numpy_helper.from_array(q, name + "_q"), numpy_helper.from_array(s, name + "_scale")]
            new_nodes += [
                helper.make_node("Cast", [name + "_q"], [name + "_qf"], to=onnx.TensorProto.FLOAT, name=name + "_cast"),
                helper.make_node("Mul", [name + "_qf", name + "_scale"], [name], name=name + "_dequant"),
            ]
        elif fmt in ("fp16", "emb8_fp16", "int8"):
            new_inits.append(numpy_helper.from_array(w.astype(np.float16), name + "_fp16"))
            new_nodes.append(helper.make_node("Cast", [name + "_fp16"], [name], to=onnx.TensorProto.FLOAT, name=name + "_cast"))
        else:
            new_inits.append(init)
    del g.initializer[:]
    g.initializer.extend(new_inits)
    nodes = []
    after = dict(rewired)
    for n in g.node:
        nodes.append(n)
        nodes.extend(after.get(n.output[0], []))
    del g.node[:]
    g.node.extend(new_nodes + nodes)
    onnx.checker.check_model(model)
    return model


def export(student_pt, out, fmt, work_dir=None):
    import onnx

    enc, st = load_student(student_pt)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(work_dir or out.parent) / (out.stem + ".fp32.tmp.onnx")
    export_fp32(enc, tmp)
    model = onnx.load(str(tmp))
    model = restore_format(model, fmt, st["vocab"])
    model.producer_name = "semhash-llm models/export.py"
    meta = {"format": fmt, "layers_from_teacher": ",".join(map(str, st["layers"])), "pooling": "masked mean of last_hidden_state, then L2 normalization (not in the graph)"}
    for k, v in meta.items():
        p = model.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(model, str(out))
    tmp.unlink()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--student", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--format", default="emb8_fp16", choices=FORMATS)
    ap.add_argument("--work", default=None, help="where the temporary fp32 export goes")
    a = ap.parse_args()
    set_threads(1)
    p = export(a.student, a.out, a.format, a.work)
    print(json.dumps({"out": str(p), "bytes": p.stat().st_size, "format": a.format}))


if __name__ == "__main__":
    main()
