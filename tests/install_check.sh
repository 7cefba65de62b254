#!/usr/bin/env bash
# The package as a user installs it: a wheel built from this checkout, installed into a fresh
# venv, used from a folder outside the checkout; then the same from a git URL (a git+file://
# URL of this clone stands in for the public one). .ci/run runs it; so can you:
#   bash tests/install_check.sh [python]
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
PY="${1:-python3}"
work="$(mktemp -d -t rouge_install_XXXXXX)"
trap 'rm -rf "$work"' EXIT
log() { echo "[install-check] $*"; }

log "wheel"
"$PY" -m pip wheel -q --no-deps -w "$work/dist" "$repo" 2>&1 | grep -v "^WARNING: Location" || true
wheel=$(ls "$work"/dist/rouge_exact-*.whl)
"$PY" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel" 2>&1 | grep -v "^WARNING: Location" || true

cd "$work"  # outside the checkout: nothing of it on sys.path
export ROUGE_METRIC_CACHE_DIR="$work/kernels"
"$work/venv/bin/python" - "$repo" <<'PY'
import sys

import rouge_exact
from rouge_exact import rouge_scorer, scoring

assert rouge_exact.__file__.startswith(sys.prefix), rouge_exact.__file__  # the installed copy
heavy = [m for m in ("evaluate", "datasets", "pyarrow", "pandas") if m in sys.modules]
assert not heavy, heavy
out = rouge_exact.compute(["the cat sat on the mat"], ["the cat lay on the mat"],
                          rouge_types=["rouge1", "rougeL"])
# 5 of 6 unigrams match both ways (P = R = 5/6), and the LCS is 5 long: F = 5/6
assert out == {"rouge1": 5 / 6, "rougeL": 5 / 6}, out
scores = rouge_scorer.RougeScorer(["rouge1", "rougeL"]).score("the cat lay on the mat",
                                                             "the cat sat on the mat")
assert scores["rouge1"] == scoring.Score(5 / 6, 5 / 6, 5 / 6), scores
print("python API and rouge_score's API: ok", rouge_exact.__version__)
PY
"$work/venv/bin/rouge-exact" --help | head -1
"$work/venv/bin/python" -m rouge_exact --help | head -1
test ! -e "$work/venv/bin/rouge"  # pltrdy's rouge keeps its command name
printf 'the cat sat on the mat\n' > "$work/p.txt"
printf 'the cat lay on the mat\n' > "$work/r.txt"
"$work/venv/bin/rouge-exact" "$work/p.txt" "$work/r.txt" --rouge-types rouge1 --json \
  | "$work/venv/bin/python" -c "import json, sys; r = json.load(sys.stdin); assert r['rouge1']['fmeasure']['mid'] == 5 / 6, r; print('rouge-exact command: ok')"

if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  log "git+file:// of a clone (what pip install \"git+<repository url>\" does)"
  git clone -q "$repo" "$work/clone"
  "$work/venv/bin/python" -m pip uninstall -q -y rouge-exact
  "$work/venv/bin/python" -m pip install -q "git+file://$work/clone" 2>&1 | grep -v "^WARNING: Location" || true
  "$work/venv/bin/python" -c "import rouge_exact; print('git install: ok', rouge_exact.__version__, rouge_exact.compute(['a b'], ['a b']))"
fi
log "ok"
