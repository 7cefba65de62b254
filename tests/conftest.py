"""Shared fixtures: the package rouge_exact, as users import it, and the evaluate face.

The tests import the installed package (``pip install -e .``): ``metric`` is the package's
API (compute, compare, partial, finalize, ...), ``metric_module`` its evaluate face
(``rouge_exact.hf``), ``staged(name)`` one of its modules (``staged("scorer.pipeline")``).
Only the tests of the evaluate face itself (add/add_batch, evaluate.load from a folder,
evaluate's Arrow path) go through ``load_metric()``, which is evaluate.load of the thin
script rouge_metric.py (evaluate copies it into HF_MODULES_CACHE; it imports the package).
kernels.backend keeps the compiled kernels in ROUGE_METRIC_CACHE_DIR. One cache folder per test session (shared with
the subprocesses the tests start) means the kernels compile once per session, not once per
test. The session compiles every kernel before its first test (compiled_kernels), so that the
tests score on the compiled kernels; tests of the numpy twins and of a cold start ask for them
(ROUGE_METRIC_BACKEND=numpy, or a fresh cache folder in a subprocess).
"""
import functools
import hashlib
import importlib
import json
import os
import struct
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "realsumm.jsonl"  # REALSumm, CC BY 4.0: tests/data/DATA.md
PACKAGE = "rouge_exact"

_SESSION_CACHE = Path(os.environ.get("ROUGE_TEST_CACHE") or tempfile.mkdtemp(prefix="rouge_test_cache_"))
os.environ["ROUGE_TEST_CACHE"] = str(_SESSION_CACHE)
os.environ["HF_MODULES_CACHE"] = str(_SESSION_CACHE / "modules")
os.environ.setdefault("ROUGE_METRIC_CACHE_DIR", str(_SESSION_CACHE / "kernels"))
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# The property tests draw the same examples on every run (derandomize: each test's seed comes
# from its name), so CI passes or fails the same way each time, and a failure prints the
# falsifying example with the @reproduce_failure blob that replays it.
# HYPOTHESIS_PROFILE=explore draws fresh examples, and a failure prints its @seed.
settings.register_profile("repeatable", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

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


@functools.cache
def compiled_kernels():
    """kernels.registry as numba compiled it (it names the kernels of every kernel module), every
    kernel compiled (once per session)."""
    backend = staged("kernels.backend")
    backend.compile_all()
    return backend.compiled_kernels()


class _CompiledAtFirstUse:
    """compiled_kernels()'s names, compiled when a test first reads one: a test module's
    ``K = COMPILED`` costs nothing at collection (compiling or loading every kernel takes
    seconds to minutes)."""

    def __getattr__(self, name: str):
        # only the kernel modules' names (their plain-Python copy says which, without numba):
        # pytest looks at a module's names as it collects
        if name.startswith("__") or not hasattr(staged("kernels.registry"), name):
            raise AttributeError(name)
        return getattr(compiled_kernels(), name)


COMPILED = _CompiledAtFirstUse()


def staged(name: str):
    """A module of the package ("text.tokenizers", "scorer.pipeline", ...), imported as users
    import it. The package must be installed: pip install -e . (the README's test command does)."""
    try:
        return importlib.import_module(f"{PACKAGE}.{name}")
    except ModuleNotFoundError as error:
        if error.name != PACKAGE:
            raise
        raise RuntimeError(f"{PACKAGE} is not installed in this environment: run "
                           "`pip install -e .` in the repository (or bash .ci/run)") from None


@pytest.fixture(scope="session")
def metric():
    """The package's API: compute, compare, partial, finalize, score_spark, ..."""
    compiled_kernels()
    return importlib.import_module(PACKAGE)


@pytest.fixture(scope="session")
def evaluate_metric():
    """The evaluate face: evaluate.load of rouge_metric.py (add/add_batch, evaluate's path)."""
    compiled_kernels()
    return load_metric()


@pytest.fixture(scope="session")
def metric_module():
    """The evaluate face of the package: rouge_exact.hf (the Metric class)."""
    return staged("hf")


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


def pltrdy_rouge():
    """pltrdy's rouge 1.0.1, the oracle of profile pltrdy, imported as ``needed`` does. The
    wheel of rouge-chinese also writes a package "rouge" (an old copy of its own code) over
    pltrdy's, and py-rouge's is named "rouge" too: .ci/run installs pltrdy's last, and a
    module that is not pltrdy's own is refused (CI) or skips the module (locally)."""
    module = needed("rouge")
    if getattr(module, "__version__", None) != "1.0.1" or hasattr(module.Rouge, "cut_sent"):
        wrong = ("the package 'rouge' is not pltrdy's rouge 1.0.1 (rouge-chinese's wheel "
                 "writes its own copy there): pip install --force-reinstall --no-deps "
                 "rouge==1.0.1")
        if os.environ.get("CI"):
            raise ImportError(wrong)
        pytest.skip(wrong, allow_module_level=True)
    return module


def py_rouge_answers(requests: list, **run) -> list:
    """py-rouge's answers to these requests (tests/py_rouge_oracle.py, one subprocess): a
    failure with CI set (an oracle may not be missing there), else a skip saying how to
    install it."""
    import py_rouge_oracle

    reason = py_rouge_oracle.missing()
    if reason:
        if os.environ.get("CI"):
            raise RuntimeError(reason)
        pytest.skip(reason)
    return py_rouge_oracle.run(requests, **run)["answers"]


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


# -- a state's parts, edited and re-hashed as an attacker would (tests of the state checks) ----

def split_state(data: bytes) -> tuple:
    """(header dict, {array name: array}) of state bytes (the format of Scorer.to_bytes)."""
    magic = staged("scorer.pipeline").STATE_MAGIC
    body, start = data[:-32], len(magic) + 4
    (size,) = struct.unpack("<I", body[len(magic):start])
    header = json.loads(body[start:start + size])
    arrays, offset = {}, start + size
    for name, dtype, shape in header["arrays"]:
        count = int(np.prod(shape))
        arrays[name] = np.frombuffer(body, dtype=dtype, count=count, offset=offset).reshape(
            shape).copy()
        offset += arrays[name].nbytes
    return header, arrays


def join_state(header: dict, arrays: dict, raw_header: bytes = None, blobs: bytes = None):
    """State bytes of these parts (the arrays the header lists, those given; or these raw
    bytes after the header), with a valid SHA-256 (anyone can compute one)."""
    magic = staged("scorer.pipeline").STATE_MAGIC
    head = raw_header if raw_header is not None else json.dumps(header).encode("utf-8")
    if blobs is None:
        blobs = b"".join(arrays[name].astype(dtype).tobytes() for name, dtype, _ in
                         header["arrays"] if name in arrays)
    body = magic + struct.pack("<I", len(head)) + head + blobs
    return body + hashlib.sha256(body).digest()


def edited(data: bytes, edit) -> bytes:
    """The state bytes with edit(header, arrays) applied, re-hashed."""
    header, arrays = split_state(data)
    edit(header, arrays)
    return join_state(header, arrays)
