#!/usr/bin/env python3
"""Build a model2vec static model from the token embeddings that ship inside
the `wordllama` wheel, for the semhash peer (which loads a model2vec model).

semhash's usual model, minishlab/potion-base-8M, is fetched from a model hub
that these machines cannot reach, and no registry package carries a potion
model. wordllama 0.4.0.post1 carries `weights/l2_supercat_256.safetensors`
(32,000 x 256 float16: static embeddings for the Llama 2 tokenizer) and that
tokenizer (`tokenizers/l2_supercat_tokenizer_config.json`). A model2vec
StaticModel made of exactly these (mean of token vectors; cosine similarity
in semhash) embeds a text as wordllama's own `embed` does, up to model2vec
dropping the unknown token.

    build_model.py OUT_DIR      # writes model.safetensors, tokenizer.json, config.json
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="folder for the model2vec model")
    a = ap.parse_args()
    import wordllama
    from model2vec import StaticModel
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    root = Path(wordllama.__file__).parent
    weights = root / "weights" / "l2_supercat_256.safetensors"
    tok_file = root / "tokenizers" / "l2_supercat_tokenizer_config.json"
    for p in (weights, tok_file):
        if not p.is_file():
            sys.exit(f"build_model: {p} is missing from the wordllama package")
    vectors = load_file(str(weights))["embedding.weight"].astype(np.float32)
    tokenizer = Tokenizer.from_file(str(tok_file))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    model = StaticModel(vectors=vectors, tokenizer=tokenizer, normalize=False,
                        base_model_name="wordllama l2_supercat_256 (wordllama 0.4.0.post1)",
                        language=["en"])
    out = Path(a.out)
    model.save_pretrained(str(out))

    # Check: the model2vec model embeds as wordllama itself (cosine ~1).
    from wordllama import WordLlama
    wl = WordLlama.load(cache_dir=root, disable_download=True)
    probe = ["The quick brown fox jumps over the lazy dog.",
             "And God said, Let there be light: and there was light."]
    a_emb = StaticModel.from_pretrained(str(out)).encode(probe)
    b_emb = wl.embed(probe)
    cos = [float(np.dot(x, y) / (np.linalg.norm(x) * np.linalg.norm(y))) for x, y in zip(a_emb, b_emb)]
    (out / "bench-build.json").write_text(json.dumps({
        "source": str(weights), "shape": list(vectors.shape),
        "cosine_vs_wordllama_embed": cos}, indent=1))
    if min(cos) < 0.999:
        sys.exit(f"build_model: converted model disagrees with wordllama (cosine {cos})")
    print(json.dumps({"model": str(out), "cosine_vs_wordllama_embed": cos}))


if __name__ == "__main__":
    main()
