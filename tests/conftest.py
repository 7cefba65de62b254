"""Shared fixtures: the metric loaded through evaluate.load, as users load it.

evaluate stages rouge_metric.py and its helpers into HF_MODULES_CACHE, and rouge_backend keeps
the compiled kernels in ROUGE_METRIC_CACHE_DIR. One cache folder per test session (shared with
the subprocesses the tests start) means the kernels compile once per session, not once per
test. The session compiles every kernel before its first test (compiled_kernels), so that the
tests score on the compiled kernels; tests of the numpy twins and of a cold start ask for them
(ROUGE_METRIC_BACKEND=numpy, or a fresh cache folder in a subprocess).
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
os.environ.setdefault("ROUGE_METRIC_CACHE_DIR", str(_SESSION_CACHE / "kernels"))
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# evaluate imports the staged metric as evaluate_modules.metrics...: with HF_MODULES_CACHE on the
# path, any process of the session can import it too (pytest-xdist's controller unpickles the
# RougeWarnings its workers report)
(_SESSION_CACHE / "modules").mkdir(parents=True, exist_ok=True)  # a missing path entry is
# remembered as missing (sys.path_importer_cache): it must exist before the first import
for path in (REPO, Path(__file__).resolve().parent, _SESSION_CACHE / "modules"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


def load_metric(path=None):
    import evaluate

    return evaluate.load(str(path or REPO / "rouge_metric.py"))


@functools.lru_cache(maxsize=None)
def compiled_kernels():
    """rouge_kernels as numba compiled it, every kernel compiled (once per session)."""
    metric = load_metric()
    metric.compile_kernels(wait=True)
    return staged("rouge_backend").compiled_kernels()


@functools.lru_cache(maxsize=None)
def staged(name: str):
    """A helper module (rouge_text, rouge_pipeline, ...) as evaluate stages it beside the
    metric: in a package, so that the helpers' relative imports work."""
    metric = load_metric()
    return importlib.import_module(f"{type(metric).__module__.rpartition('.')[0]}.{name}")


@pytest.fixture(scope="session")
def metric():
    compiled_kernels()
    return load_metric()


@pytest.fixture(scope="session")
def metric_module(metric):
    return sys.modules[type(metric).__module__]


@pytest.fixture(scope="session")
def realsumm():
    import json

    with open(DATA, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def needed(module: str):
    """An optional test dependency: skipped locally when missing, imported (so a failure) in
    CI, where requirements-dev.txt installs it."""
    if os.environ.get("CI"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With CI set nothing may pass by skipping (a missing oracle, browser or package): any
    skip is reported as a failure, whatever helper asked for it."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI") and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped in CI (CI is set: every test must run): {report.longrepr}"


def engine_rows(realsumm, n):
    """n (prediction, references) rows for the engines' tests and benchmark: realsumm's 3,500,
    then variants (sentences rotated), every fifth round an exact copy (copies of an example
    must meet in one state)."""
    out = []
    for i in range(n):
        row = realsumm[i % len(realsumm)]
        turn = i // len(realsumm)
        sentences = row["prediction"].split("\n")
        if turn % 5:
            k = turn % len(sentences)
            sentences = sentences[k:] + sentences[:k] + [f"variant {turn}"]
        out.append(("\n".join(sentences), row["references"]))
    return out
