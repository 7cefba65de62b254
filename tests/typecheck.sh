#!/usr/bin/env bash
# mypy on the public API (pyproject.toml's [tool.mypy]): rouge_exact, rouge_api, rouge_scorer,
# scoring. The repository root is the package, so mypy is shown it under the package's name:
# a private temporary folder holding one link, rouge_exact -> the checkout.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${1:-$ROOT/.venv/bin/python}"
PYTHON="$(cd "$(dirname "$PYTHON")" && pwd)/$(basename "$PYTHON")"  # (the venv's link, kept)
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
ln -s "$ROOT" "$WORK/rouge_exact"
cd "$WORK"
"$PYTHON" -m mypy --config-file "$ROOT/pyproject.toml" --cache-dir "$WORK/.mypy_cache" \
    -m rouge_exact -m rouge_exact.rouge_api -m rouge_exact.rouge_scorer -m rouge_exact.scoring
