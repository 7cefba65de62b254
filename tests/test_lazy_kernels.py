"""A call loads only what it needs (kernels.backend.worth_compiling, a ski rental).

* a fresh process on a complete kernel cache scores 8 pairs on the numpy twins, without
  importing numba or nltk, and gives rouge_score's numbers;
* a fresh process scoring 2,000 pairs loads the compiled kernels its call uses, and only those;
* worth_compiling's decision on its boundaries (constants set to exact binary fractions).
"""
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from rouge_score import rouge_scorer

from conftest import REPO, staged

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
# what a stemmed call of TYPES runs: rouge_score's tokenizer (scan, ids, stems) and the scorer's
# kernels for ROUGE-N, L and Lsum, then the per-example P/R/F and the exact sums
CALL_KERNELS = {"scan_stem_tokens", "dense_ids", "stem_table_insert", "porter_stem_codes",
                "ngram_stats", "lcs_stats", "union_lcs_stats", "example_prf",
                "exact_column_sums"}

_SCORE = textwrap.dedent("""
    import json, sys
    import rouge_exact
    from rouge_exact.kernels import backend
    rows = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")][:int(sys.argv[2])]
    out = rouge_exact.compute([r["prediction"] for r in rows], [r["references"] for r in rows],
                              rouge_types=json.loads(sys.argv[3]), use_stemmer=True)
    print(json.dumps(dict(out=out, numba="numba" in sys.modules, nltk="nltk" in sys.modules,
                          metadata="importlib.metadata" in sys.modules,
                          compiled=sorted(backend._compiled))))
""")


def _score(path, n) -> dict:
    """A fresh process on the session's kernel cache (complete: the metric fixture)."""
    done = subprocess.run([sys.executable, "-c", _SCORE, str(path), str(n), json.dumps(TYPES)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_a_small_call_on_a_complete_cache_imports_no_numba(metric):
    path = REPO / "examples" / "pairs.jsonl"
    got = _score(path, 8)
    assert got["numba"] is False and got["compiled"] == []
    assert got["nltk"] is False  # the stemmer's twin is kernels/porter.py as plain Python
    # versions (the cache's numba, the signature's nltk) from dist-info names, not metadata
    assert got["metadata"] is False
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    assert len(rows) == 8
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    for t in TYPES:  # rouge_score's mean over the examples of the max over their references
        want = np.mean([scorer.score_multi(r["references"], r["prediction"])[t].fmeasure
                        for r in rows])
        assert got["out"][t] == pytest.approx(want, abs=1e-12), t


def test_a_big_call_loads_the_kernels_it_uses_and_only_those(metric, realsumm):
    got = _score(REPO / "tests" / "data" / "realsumm.jsonl", 2000)
    assert got["numba"] is True
    assert got["compiled"] and set(got["compiled"]) <= CALL_KERNELS, got["compiled"]
    assert "ngram_stats" in got["compiled"]  # (its twin's share alone is past the cost)
    rows = realsumm[:2000]  # the same numbers as this process's compiled kernels give
    want = metric.compute([r["prediction"] for r in rows], [r["references"] for r in rows],
                          rouge_types=TYPES, use_stemmer=True)
    assert got["out"] == want


@pytest.fixture
def costs(monkeypatch):
    """The backend with exact binary constants: numba's import 1/2 s, a load 1/4 s, the
    compile process's start 1/16 s, ngram_stats' twin 2**-10 s per item."""
    backend = staged("kernels.backend")
    monkeypatch.setattr(backend, "NUMBA_IMPORT_SECONDS", 0.5)
    monkeypatch.setattr(backend, "LOAD_SECONDS", {"ngram_stats": 0.25})
    monkeypatch.setattr(backend, "LOAD_SECONDS_DEFAULT", 0.125)
    monkeypatch.setattr(backend, "SPAWN_SECONDS", 0.0625)
    monkeypatch.setattr(backend, "TWIN_SECONDS_PER_ITEM", {"ngram_stats": 2.0 ** -10})
    monkeypatch.setattr(backend, "TWIN_SECONDS_PER_ITEM_DEFAULT", 2.0 ** -12)
    return backend


def test_worth_compiling_on_its_boundaries(costs, monkeypatch):
    worth, eps = costs.worth_compiling, 2.0 ** -30
    args = (np.zeros(100, np.int64), np.zeros((2, 14)), 3, "x")  # 128 items: 1/8 s
    assert costs.twin_seconds("ngram_stats", args) == 0.125
    assert costs.twin_seconds("lcs_stats", args) == 128 * 2.0 ** -12  # (not measured)
    # numba imported (this process): the cost is the load, 1/4 s
    assert "numba" in sys.modules
    assert worth("ngram_stats", args, spent=0.125)
    assert not worth("ngram_stats", args, spent=0.125 - eps)
    assert worth("ngram_stats", (), spent=0.25) and not worth("ngram_stats", (), spent=0.25 - eps)
    assert worth("lcs_stats", (), spent=0.125)  # (a kernel not measured: the default load)
    # the cache lacks kernels: the cost is starting the compile process, 1/16 s
    assert worth("ngram_stats", (), spent=0.0625, cached=False)
    assert not worth("ngram_stats", (), spent=0.0625 - eps, cached=False)
    assert worth("ngram_stats", args, spent=0.0, cached=False)
    # numba not imported: its import comes first, 1/2 + 1/4 s
    monkeypatch.delitem(sys.modules, "numba")
    assert worth("ngram_stats", args, spent=0.625)
    assert not worth("ngram_stats", args, spent=0.625 - eps)
    assert not worth("ngram_stats", args, spent=0.125)


def test_worth_compiling_counts_this_process_twins(costs, monkeypatch):
    """spent=None: the seconds this process's twins have run (the backend times each run)."""
    monkeypatch.setitem(costs._state, "spent", 0.25)
    assert costs.worth_compiling("ngram_stats", ())
    monkeypatch.setitem(costs._state, "spent", 0.25 - 2.0 ** -30)
    assert not costs.worth_compiling("ngram_stats", ())


def test_installed_versions_are_importlib_metadata_s():
    import importlib.metadata

    from rouge_exact.version import installed_version

    for name in ("numba", "nltk", "numpy", "rouge_score", "rouge-score", "jieba", "evaluate"):
        assert installed_version(name) == importlib.metadata.version(name), name
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        installed_version("no-such-distribution-here")
