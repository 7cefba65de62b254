#!/usr/bin/env bash
# mypy on the public API (pyproject.toml's [tool.mypy]): rouge_exact, its api, engines,
# rouge_scorer and scoring, as the package's modules.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${1:-$ROOT/.venv/bin/python}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"
"$PYTHON" -m mypy --config-file "$ROOT/pyproject.toml" --cache-dir "$WORK/.mypy_cache" \
    -m rouge_exact -m rouge_exact.api -m rouge_exact.engines -m rouge_exact.rouge_scorer \
    -m rouge_exact.scoring
