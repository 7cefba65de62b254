"""Shared fixtures: the metric loaded through evaluate.load, as users load it.

evaluate stages rouge_metric.py and its helpers into HF_MODULES_CACHE, and numba caches the
compiled kernels beside the staged copy. One cache folder per test session (shared with the
subprocesses the tests start) means the kernels compile once per session, not once per test.
"""
import functools
import importlib
import os
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = SHARED / "data" / "realsumm.jsonl"

_SESSION_CACHE = Path(os.environ.get("ROUGE_TEST_CACHE") or tempfile.mkdtemp(prefix="rouge_test_cache_"))
os.environ["ROUGE_TEST_CACHE"] = str(_SESSION_CACHE)
os.environ["HF_MODULES_CACHE"] = str(_SESSION_CACHE / "modules")
os.environ.setdefault("NUMBA_CACHE_DIR", str(_SESSION_CACHE / "numba"))
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

for path in (REPO, Path(__file__).resolve().parent):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


def load_metric(path=None):
    import evaluate

    return evaluate.load(str(path or REPO / "rouge_metric.py"))


@functools.lru_cache(maxsize=None)
def staged(name: str):
    """A helper module (rouge_text, rouge_pipeline, ...) as evaluate stages it beside the
    metric: in a package, so that the helpers' relative imports work."""
    metric = load_metric()
    return importlib.import_module(f"{type(metric).__module__.rpartition('.')[0]}.{name}")


@pytest.fixture(scope="session")
def metric():
    return load_metric()


@pytest.fixture(scope="session")
def metric_module(metric):
    return sys.modules[type(metric).__module__]


@pytest.fixture(scope="session")
def realsumm():
    import json

    with open(DATA, encoding="utf-8") as f:
        return [json.loads(line) for line in f]
