#!/usr/bin/env bash
# The 16-core sweep of docs/performance.md, as one prepared script for a lent device machine
# (../.library/device/README.md): 16 CPU cores, Python 3.12 with numpy, numba, pandas and
# pyarrow, no network. Two steps:
#
#   bash benchmarks/device.sh prepare   # here: the wheels and the corpus into .device/
#   bash benchmarks/device.sh run       # there, through the device tool's run, with
#                                       # carry [".device"] and timeout_s 600
#
# prepare downloads what the machine lacks as Python 3.12 wheels (the versions of
# benchmarks/requirements.txt: evaluate, datasets and their dill, multiprocess and fsspec (the
# newest datasets takes), nltk and its defusedxml, rouge-score-rs, and a wheel built here of
# rouge-score, which PyPI has as a source archive only). The corpus, tests/data/realsumm.jsonl,
# travels with the checkout. .device/ is in .gitignore: nothing of it is committed.
#
# run installs the wheels into /tmp/site (the checkout's rouge_exact/ is imported from the
# checkout: its root goes on PYTHONPATH), prints the machine and the versions, compiles the
# kernels once, and runs benchmarks/scaling.py: threads 1, 2, 4, 8, 16 at 100,000 pairs (ours
# against rs), the GIL-held share in the chunks of 16 threads, and the small calls (1, 8, 64,
# 512 pairs against rs and rouge_score), then benchmarks/process.py (whole processes against
# the peers). The tables go to stdout and to $OUT/scaling16.md (and $OUT/process.md):
# 237 s in all on the stand-in below (2 cores, cold kernel cache). DEVICE_PAIRS and
# DEVICE_PARTS override the pairs and the tables (scaling.py's --pairs and --parts).
#
# Tried here on a stand-in: a Python 3.12 venv holding only what the device's image holds of
# our needs (tests nothing of the GPU): DEVICE_PYTHON=/path/to/python bash benchmarks/device.sh run
set -euo pipefail
cd "$(dirname "$0")/.."
step="${1:-}"
pairs="${DEVICE_PAIRS:-100000}"
parts="${DEVICE_PARTS:-threads,held,batches}"

if [ "$step" = prepare ]; then
    # more wheels as arguments, e.g. pyarrow==26.0.1 (55 MB: only if run says datasets needs
    # it; the tool carries 64 MiB, the checkout included)
    shift
    mkdir -p .device/wheels
    rm -f .device/wheels/*.whl
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 -d .device/wheels \
        evaluate==0.4.6 datasets==5.2.0 dill==0.4.1 multiprocess==0.70.19 fsspec==2026.9.0 \
        nltk==3.10.4 defusedxml==0.7.1 rouge-score-rs==0.2.1 "$@"
    python3 -m pip wheel -q --no-deps -w .device/wheels rouge-score==0.1.2  # pure Python
    # what the tool carries: the checkout's files and .device, 64 MiB at most
    total=$(( $(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1) \
              + $(du -sb .device | cut -f1) ))
    echo "checkout + .device: $(( total / 1048576 )) MiB of the tool's 64"
    [ "$total" -le $(( 64 * 1048576 )) ] || { echo "over 64 MiB: carry fewer wheels" >&2; exit 1; }
    echo 'now: run(command="bash benchmarks/device.sh run", carry=[".device"], timeout_s=600)'
    exit 0
fi

if [ "$step" != run ]; then
    echo "usage: bash benchmarks/device.sh prepare|run" >&2
    exit 2
fi
python="${DEVICE_PYTHON:-python3}"
out="${OUT:-/tmp/device-out}"
if ! ls .device/wheels/*.whl > /dev/null 2>&1; then
    echo ".device/ is missing: run 'bash benchmarks/device.sh prepare' here and carry .device" >&2
    exit 1
fi
mkdir -p "$out"
"$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .device/wheels/*.whl
# the checkout's root on the path: its rouge_exact/ is the package that the thin rouge_metric.py
# imports (nothing is pip-installed there); the carried wheels before it
export PYTHONPATH="/tmp/site:$PWD" PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 HF_EVALUATE_OFFLINE=1
# (no network there: evaluate and the hub must not try it)
{
    echo "## The machine"
    nproc
    lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|Socket|L2|L3)' || true
    "$python" - <<'EOF'
import platform
from importlib import metadata
names = ["numpy", "numba", "llvmlite", "evaluate", "datasets", "nltk", "pyarrow", "pandas",
         "fsspec", "huggingface-hub", "rouge-score-rs", "rouge-score"]
import rouge_exact
print(platform.python_version(), {n: metadata.version(n) for n in names},
      "rouge_exact", rouge_exact.__version__, "from", rouge_exact.__file__)
# everything the children import, before any time is spent: a failure here names the
# package to carry (prepare takes more wheels as arguments)
import evaluate, datasets, nltk.stem.porter, numba, rouge_score.rouge_scorer, rouge_score_rs
import rouge_exact.hf, rouge_exact.api
EOF
    start=$(date +%s)
    # compile the kernels once into the cache every child then loads (cold: ~20 s here)
    "$python" -c "import warnings, evaluate; warnings.simplefilter('ignore');
evaluate.load('rouge_metric.py').compile_kernels(wait=True)"
    echo "kernels compiled in $(( $(date +%s) - start )) s"
    "$python" benchmarks/scaling.py --python "$python" --pairs "$pairs" \
        --threads 1,2,4,8,16 --parts "$parts" --held-as 16
    # whole processes against the peers (the command, evaluate.load, new words a call)
    "$python" benchmarks/process.py --python "$python" --out "$out/process.md"
    echo "all in $(( $(date +%s) - start )) s"
} 2>&1 | tee "$out/scaling16.md"
