"""Build every file in models/ from scratch: the one command of models/README.md.

    python3 -m venv target/models-work/venv
    target/models-work/venv/bin/pip install -r models/requirements.txt
    target/models-work/venv/bin/python models/build.py --work target/models-work --data ../shared/data

Steps (each is skipped when its output exists, so an interrupted build resumes;
the distillation resumes from its own checkpoint):
  1. WordNet: `apt-get download wordnet-base`, `dpkg -x` into WORK/dl (nothing installed)
  2. prepare_data.py  -> WORK/data/{train,val}.jsonl
  3. prune_vocab.py   -> WORK/vocab/{tokenizer.json,keep_ids.json}
  4. distill.py       -> WORK/train/student.pt   (the long step: about 57 min on one core)
  5. export.py        -> models/student.onnx (emb8_fp16) and WORK/export/student_{fp32,fp16,emb8,int8}.onnx
  6. evaluate.py      -> models/quality.json
  7. reference.py     -> models/reference.json
and models/tokenizer.json is the pruned tokenizer of step 3.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The run that made the committed student (see models/README.md).
DISTILL_ARGS = [
    "--layers", "0,3,5", "--steps", "1000", "--batch", "64", "--aug", "0.25", "--tau", "0.05", "--alpha", "0.1",
    "--lr", "2e-4", "--warmup", "50", "--train-max-len", "96", "--val-size", "1000", "--eval-every", "100",
    "--log-every", "20", "--ckpt-minutes", "4", "--seed", "20261130",
]
SHIPPED = "emb8_fp16"
OTHER_FORMATS = ["fp32", "fp16", "emb8", "int8"]


def run(cmd, log=None):
    print("+", " ".join(map(str, cmd)), flush=True)
    t0 = time.time()
    subprocess.run([str(c) for c in cmd], check=True, cwd=HERE)
    dt = time.time() - t0
    print(f"  {dt / 60:.1f} min", flush=True)
    if log:
        with open(log, "a") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')}\t{dt:.0f}s\t{' '.join(map(str, cmd))}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True, help="scratch folder (venv, downloads, checkpoints): target/models-work")
    ap.add_argument("--data", required=True, help="../shared/data")
    ap.add_argument("--models", default=str(HERE), help="where the committed files go")
    ap.add_argument("--steps", type=int, default=None, help="override the distillation's step count")
    a = ap.parse_args()
    for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ[k] = "1"
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    work = Path(a.work).resolve()
    data = Path(a.data).resolve()
    models = Path(a.models).resolve()
    work.mkdir(parents=True, exist_ok=True)
    log = work / "build-times.tsv"
    py = sys.executable

    wn = work / "dl" / "wn" / "usr" / "share" / "wordnet"
    if not (wn / "data.noun").exists():
        (work / "dl").mkdir(exist_ok=True)
        subprocess.run(["apt-get", "download", "wordnet-base"], check=True, cwd=work / "dl")
        deb = sorted(glob.glob(str(work / "dl" / "wordnet-base_*.deb")))[-1]
        subprocess.run(["dpkg", "-x", deb, str(work / "dl" / "wn")], check=True)
    if not (work / "data" / "train.jsonl").exists():
        run([py, "prepare_data.py", "--data", data, "--wordnet", wn, "--out", work / "data"], log)
    if not (work / "vocab" / "keep_ids.json").exists():
        run([py, "prune_vocab.py", "--data", work / "data", "--out", work / "vocab"], log)
    if not (work / "train" / "student.pt").exists():
        args = list(DISTILL_ARGS)
        if a.steps:
            args[args.index("--steps") + 1] = str(a.steps)
        run([py, "distill.py", "--work", work, *args], log)

    shutil.copy(work / "vocab" / "tokenizer.json", models / "tokenizer.json")
    student = work / "train" / "student.pt"
    onnx = models / "student.onnx"
    run([py, "export.py", "--student", student, "--out", onnx, "--format", SHIPPED, "--work", work], log)
    fmt_specs = [f"{SHIPPED}={onnx}"]
    for f in OTHER_FORMATS:
        p = work / "export" / f"student_{f}.onnx"
        run([py, "export.py", "--student", student, "--out", p, "--format", f, "--work", work], log)
        fmt_specs.append(f"{f}={p}")
    run(
        [py, "evaluate.py", "--work", work, "--pairs", data / "pairs" / "bible_ot_pairs.jsonl", "--onnx", onnx,
         "--tokenizer", models / "tokenizer.json", "--student", student, "--format-onnx", *fmt_specs,
         "--threads", "2", "--out", models / "quality.json"],
        log,
    )
    run([py, "reference.py", "--onnx", onnx, "--tokenizer", models / "tokenizer.json", "--out", models / "reference.json"], log)
    run(["bash", "checksums.sh"], log)
    print(f"done; step times in {log}")


if __name__ == "__main__":
    main()
