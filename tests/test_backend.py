"""kernels.backend: which implementation of a kernel runs, and the guest's manners.

* Every implementation gives the compiled kernels' numbers: the numpy twins (kernels.twins),
  the package's kernel modules run as plain Python, and the metric under
  ROUGE_METRIC_BACKEND=numpy.
* A call leaves the process as it found it: the collector stays on, no signal handler changes,
  csv's field limit stays, the metric pickles and deep-copies, a fork right after
  evaluate.load returns at once and its child scores, a child forked while another thread
  scores can score, and the compile process ends with the process that started it (the CLI).
"""
import copy
from fractions import Fraction
import gc
import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
import time
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import COMPILED, REPO, load_metric, staged
from test_kernels import PAIR, batch, text

K = COMPILED  # (compiled at the first test that reads a kernel)
PY = staged("kernels.registry")  # the package's: plain Python (the backend compiles a copy)
V = staged("kernels.twins")

# several pairs in one call, with prediction sentences past 64 and 128 tokens (several machine
# words) now and then, and a prediction scored against several references
long_sentence = st.lists(st.integers(0, 5), min_size=60, max_size=140)
many_texts = st.lists(st.one_of(text, st.lists(long_sentence, min_size=1, max_size=2)),
                      min_size=2, max_size=8)


def _calls(tokens, sent_offsets, text_sent_offsets, offsets, pred, ref):
    return [("ngram_stats", (tokens, offsets, pred, ref, np.array([1, 2, 3]))),
            ("ngram_stats", (tokens, offsets, pred, ref, np.array([2, 5]))),
            ("lcs_stats", (tokens, offsets, pred, ref)),
            ("union_lcs_stats", (tokens, sent_offsets, text_sent_offsets, tokens, offsets, pred,
                                 ref)),
            ("wlcs_stats", (tokens, sent_offsets, text_sent_offsets, tokens, offsets, pred, ref,
                            1.2)),
            ("skip_bigram_stats", (tokens, offsets, pred, ref, 4, True)),
            ("skip_bigram_stats", (tokens, offsets, pred, ref, 0, False)),
            ("skip_bigram_stats", (tokens, offsets, pred, ref, -1, False)),
            ("skip_bigram_stats", (tokens, offsets, pred, ref, -1, True))]


@settings(max_examples=100, deadline=None)
@given(pred=text, ref=text)
def test_plain_python_kernels_equal_compiled(pred, ref):
    tokens, sent_offsets, text_sent_offsets, offsets = batch(pred, ref)
    with np.errstate(over="ignore"):
        for name, args in _calls(tokens, sent_offsets, text_sent_offsets, offsets, *PAIR):
            assert np.array_equal(getattr(PY, name)(*args), getattr(K, name)(*args)), name


def _draw_pairs(data, n):
    """Up to 6 (prediction, reference) text indices among n texts, repeats allowed."""
    pred = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6)),
                    dtype=np.int64)
    ref = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=len(pred),
                                      max_size=len(pred))), dtype=np.int64)
    return pred, ref


@settings(max_examples=150, deadline=None)
@given(texts=many_texts, data=st.data())
@pytest.mark.slow
def test_vectorized_kernels_equal_compiled_on_batches(texts, data):
    tokens, sent_offsets, text_sent_offsets, offsets = batch(*texts)
    n = len(texts)
    pred, ref = _draw_pairs(data, n)
    for name, args in _calls(tokens, sent_offsets, text_sent_offsets, offsets, pred, ref):
        if not hasattr(V, name):
            continue
        assert np.array_equal(getattr(V, name)(*args), getattr(K, name)(*args)), name
    ids, u = V.dense_ids(tokens)
    expected_ids, expected_u = K.dense_ids(tokens)
    assert u == expected_u and np.array_equal(ids, expected_ids)


ascii_text = st.lists(st.sampled_from(list("abzAZ09 \n.,-é") + ["running", "x" * 13]),
                      max_size=30).map("".join)


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(ascii_text, min_size=1, max_size=5), stem_some=st.booleans())
def test_vectorized_scanners_equal_compiled(texts, stem_some):
    buf = np.frombuffer("\x00".join(texts).encode("utf-8"), dtype=np.uint8)
    for got, want in zip(V.scan_ascii_tokens(buf, 12), K.scan_ascii_tokens(buf, 12)):
        assert np.array_equal(got, want)
    # a stem table filled by both inserts: some codes stem to a code, some to -1 (unpacked)
    codes = K.scan_ascii_tokens(np.frombuffer(buf.tobytes().lower(), dtype=np.uint8), 12)[0]
    chosen = np.unique(codes[codes >= K.MIN_STEM_CODE])[: 3 if stem_some else 0]
    stems = np.where(np.arange(len(chosen)) % 2 == 0, chosen // 5 + 1, -1).astype(np.int64)
    tables = []
    for insert in (K.stem_table_insert, V.stem_table_insert):
        keys, vals = np.zeros(16, dtype=np.int64), np.zeros(16, dtype=np.int64)
        insert(keys, vals, chosen, stems)
        tables.append((keys, vals))
    for stem in (True, False):
        want = K.scan_stem_tokens(buf, 12, *tables[0], stem)
        got = V.scan_stem_tokens(buf, 12, *tables[1], stem)  # another layout, same lookups
        for a, b in zip(got, want):
            assert np.array_equal(a, b)


def test_vectorized_stem_table_insert_keeps_every_key_reachable():
    rng = np.random.default_rng(7)
    codes = np.unique(rng.integers(K.MIN_STEM_CODE, 37 ** 8, 3000))
    keys, vals = np.zeros(8192, dtype=np.int64), np.zeros(8192, dtype=np.int64)
    V.stem_table_insert(keys, vals, codes, codes // 3)
    V.stem_table_insert(keys, vals, codes[:10], -np.ones(10, dtype=np.int64))  # updates
    slot = V._probe(keys, codes)
    assert (slot >= 0).all()
    assert np.array_equal(vals[slot], np.where(np.arange(len(codes)) < 10, -1, codes // 3))




def test_poisson_bootstrap_twin_equals_compiled():
    cdf = staged("scorer.aggregate")._POISSON_CDF
    rng = np.random.default_rng(3)
    for rows, samples in ((1, 1), (7, 5), (600, 1000), (2500, 33)):
        values = rng.integers(0, 1 << 40, (rows, 3)).astype(np.float64)
        keys = rng.integers(0, 1 << 63, rows, dtype=np.uint64)
        occurrences = rng.integers(0, 3, rows)
        args = (values, keys, occurrences, np.uint64(rows), samples, cdf)
        for got, want in zip(V.poisson_bootstrap_sums(*args), K.poisson_bootstrap_sums(*args)):
            assert np.array_equal(got, want)
    # weighted counts (ROUGE-W, micro) are not integers: their sums depend on the order, so
    # the twin steps aside for the compiled kernel
    with pytest.raises(V.OutOfScope, match="not integers"):
        V.poisson_bootstrap_sums(values + 0.5, keys, occurrences, np.uint64(1), 3, cdf)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(
    st.floats(min_value=0, max_value=1, allow_nan=False),  # macro scores
    st.integers(0, 2 ** 30).map(float),  # micro counts
    st.floats(min_value=-1e15, max_value=1e15, allow_nan=False),  # anything finite
    st.sampled_from([2.0 ** 40, -(2.0 ** 40) + 1, 2.0 ** -64, 2.0 ** -65, 0.1, -0.0])),
    min_size=1, max_size=60), columns=st.integers(1, 4))
def test_exact_column_sums_twin_equals_compiled_and_fractions(values, columns):
    matrix = np.array(values[:len(values) // columns * columns] or values[:1] * columns,
                      dtype=np.float64).reshape(-1, columns)
    got, common = K.exact_column_sums(matrix)
    twin, twin_common = V.exact_column_sums(matrix)
    assert common == twin_common and np.array_equal(got, twin)
    # the common case: every value a multiple of 2^-64 in [0, 2^40)
    fits = all(0 <= v < 2 ** 40 and (Fraction(v) * 2 ** 64).denominator == 1
               for v in matrix.ravel().tolist())
    assert common == fits
    if common:  # whole + high 2^-32 + low 2^-64, summed per column
        for c in range(columns):
            want = sum(map(Fraction, matrix[:, c].tolist()))
            assert Fraction(int(got[0, c])) + Fraction(int(got[1, c]), 2 ** 32) + \
                Fraction(int(got[2, c]), 2 ** 64) == want


@settings(max_examples=300, deadline=None)
@given(counts=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 400), st.integers(0, 400)),
                       min_size=1, max_size=24),
       scale=st.sampled_from([1.0, 0.37, 1e-3]),
       alpha=st.sampled_from([0.5, 0.0, 1.0, 0.2, 1 / 3, 0.8, 0.999]))
def test_example_prf_kernel_and_twin_equal_the_numpy_formulas(counts, scale, alpha):
    # P, R, F of the counts as the scorer computes them elementwise (arithmetic's safe_div and
    # fscore): the kernel must give the same doubles (no fused multiply-add, same order)
    arithmetic = staged("arithmetic")
    n = len(counts) // 2 or 1
    values = np.array(counts[:2 * n] if len(counts) >= 2 else counts * 2, dtype=np.float64)
    values = values.reshape(n, 2, 3) * scale  # scale: non-integer counts (ROUGE-W-like)
    hit, den_p, den_r = values[..., 0], values[..., 1], values[..., 2]
    p, r = arithmetic.safe_div(hit, den_p), arithmetic.safe_div(hit, den_r)
    want = np.stack([p, r, arithmetic.fscore(p, r, alpha)], axis=2)
    # (the twin is written with safe_div and fscore themselves: the kernel is what is tested)
    assert K.example_prf(values, alpha).tobytes() == want.tobytes()


CASES = [
    dict(rouge_types=["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True),
    dict(rouge_types=["rougeW-1.2", "rougeS4", "rougeSU4", "rougeS", "rougeSU"],
         multi_ref="average", remove_stopwords=True),
    dict(rouge_types=["rouge1", "rougeL", "rougeW", "rougeSU4"], profile="rouge155",
         use_stemmer=True, length_limit_bytes=300, n_samples=50),
    dict(rouge_types=["rouge2", "rougeLsum"], aggregation="micro", multi_ref="best"),
    # micro ROUGE-W's weighted counts are not integers: past its twin, the Poisson bootstrap
    # runs as plain Python under ROUGE_METRIC_BACKEND=numpy (it raised OutOfScope)
    dict(rouge_types=["rougeW-1.2", "rouge1"], aggregation="micro", n_samples=40),
]


def _same(numpy_backend, compiled, options):
    """Equal, except that micro ROUGE-W's interval bounds are sums of non-integers, which the
    compiled kernel adds in its own order (scorer.aggregate.Aggregate): there the last bits."""
    if not (options.get("aggregation") == "micro" and "rougeW-1.2" in options["rouge_types"]):
        return numpy_backend == compiled
    assert numpy_backend[1] == compiled[1]  # per example: no bootstrap
    for got, want in zip(numpy_backend[:1], compiled[:1]):
        bounds = got["rougeW-1.2"], want["rougeW-1.2"]
        assert {k: v for k, v in got.items() if k != "rougeW-1.2"} == \
            {k: v for k, v in want.items() if k != "rougeW-1.2"}
        for key in ("precision", "recall", "fmeasure"):
            a, b = bounds[0][key], bounds[1][key]
            assert a["mid"] == b["mid"]
            assert a["low"] == pytest.approx(b["low"], rel=1e-12, abs=0)
            assert a["high"] == pytest.approx(b["high"], rel=1e-12, abs=0)
    return True


@pytest.mark.parametrize("options", CASES)
def test_metric_on_the_numpy_backend_equals_compiled(metric, realsumm, monkeypatch, options):
    rows = realsumm[::70]  # 50 rows, 1-4 references each
    kwargs = dict(predictions=[r["prediction"] for r in rows],
                  references=[r["references"] for r in rows], detailed=True, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = [metric.compute(**kwargs), metric.compute(use_aggregator=False, **kwargs)]
        monkeypatch.setenv("ROUGE_METRIC_BACKEND", "numpy")
        # numba's kernels are never looked at: the twins, or plain Python past them
        monkeypatch.setattr(staged("kernels.backend"), "_compiled", _Untouchable())
        assert _same([metric.compute(**kwargs), metric.compute(use_aggregator=False, **kwargs)],
                     compiled, options)


class _Untouchable(dict):
    def _touched(self, *args):
        raise AssertionError("a compiled kernel was looked up under ROUGE_METRIC_BACKEND=numpy")

    get = __getitem__ = __contains__ = __len__ = _touched


def test_backend_override_is_checked(metric, monkeypatch):
    monkeypatch.setenv("ROUGE_METRIC_BACKEND", "cuda")
    with pytest.raises(ValueError, match="ROUGE_METRIC_BACKEND: got 'cuda'; allowed: 'numba', 'numpy'"):
        metric.compute(predictions=["a"], references=["a"])


THREAD_CAP_REFUSED = "ROUGE_METRIC_THREADS: got {!r}; allowed: a positive integer or unset"


@pytest.mark.parametrize("given", ["abc", "0", "-1", "2.5", " 2.5", "+2", "\u0663"])
def test_an_invalid_thread_cap_is_refused_by_name(monkeypatch, given):
    """threads_setting() (and check_settings(), which the rouge command calls) refuse what is
    not a positive integer, as mode() refuses ROUGE_METRIC_BACKEND=junk; thread_count()
    ignores it (the CPUs this process may use)."""
    backend = staged("kernels.backend")
    for name in ("ROUGE_METRIC_BACKEND", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ROUGE_METRIC_THREADS", given)
    for check in (backend.threads_setting, backend.check_settings):
        with pytest.raises(ValueError) as error:
            check()
        assert str(error.value) == THREAD_CAP_REFUSED.format(given)
    assert backend.thread_count() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("given, cap", [("1", 1), (" 3 ", 3), ("", None), (None, None)])
def test_a_valid_thread_cap_passes_the_checks(monkeypatch, given, cap):
    backend = staged("kernels.backend")
    for name in ("ROUGE_METRIC_BACKEND", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS",
                 "ROUGE_METRIC_THREADS"):
        monkeypatch.delenv(name, raising=False)
    if given is not None:
        monkeypatch.setenv("ROUGE_METRIC_THREADS", given)
    assert backend.threads_setting() == cap
    backend.check_settings()  # nothing to refuse
    assert backend.thread_count() == min(cap or 10 ** 6, len(os.sched_getaffinity(0)))
    monkeypatch.setenv("ROUGE_METRIC_BACKEND", "junk")
    with pytest.raises(ValueError, match="^ROUGE_METRIC_BACKEND: got 'junk'; allowed: "):
        backend.check_settings()


_THREADS_IGNORED = textwrap.dedent("""
    import json, os, sys, warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import rouge_exact
        from rouge_exact.kernels import backend
        imported = len(caught)
        out = [rouge_exact.compute(["the cats sat on the mat"], ["the cat lay on the mat"],
                                   rouge_types=["rouge1", "rougeL"]) for _ in range(2)]
    print(json.dumps(dict(out=out, threads=backend.THREADS, imported=imported,
                          cpus=len(os.sched_getaffinity(0)),
                          warnings=[[w.category.__name__, str(w.message)] for w in caught])))
""")


def test_the_library_warns_once_of_an_invalid_thread_cap_and_ignores_it():
    """ROUGE_METRIC_THREADS=2.5: the package imports and scores (rouge_score's numbers) on the
    CPUs it may use, and one SettingWarning, at the first call, names the variable."""
    from rouge_score import rouge_scorer

    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_NUM_THREADS",
                                                            "OMP_NUM_THREADS")}
    env.update(ROUGE_METRIC_THREADS="2.5", ROUGE_METRIC_BACKEND="numpy")
    done = subprocess.run([sys.executable, "-c", _THREADS_IGNORED], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["threads"] == got["cpus"] and got["imported"] == 0
    assert len(got["warnings"]) == 1 and got["warnings"][0][0] == "SettingWarning"
    assert got["warnings"][0][1].startswith(THREAD_CAP_REFUSED.format("2.5") + "; ignored")
    want = rouge_scorer.RougeScorer(["rouge1", "rougeL"]).score("the cat lay on the mat",
                                                                 "the cats sat on the mat")
    assert got["out"] == [{t: want[t].fmeasure for t in ("rouge1", "rougeL")}] * 2


def test_vectorized_skip_bigrams_refuse_to_list_too_many():
    """The numpy tier lists skip-bigrams (length x distance of them): past MAX_TWIN_CELLS it
    steps aside (a loaded CI once ran rougeS15000 on 2 x 20k tokens there, out of memory),
    and the kernels, which count in O(length), give the hand-computed numbers."""
    n = 20_000
    tokens = np.concatenate([np.arange(n), np.arange(n)[::-1]]).astype(np.int64)
    offsets = np.array([0, n, 2 * n], dtype=np.int64)
    pred, ref = np.array([0, 0]), np.array([0, 1])
    with pytest.raises(V.OutOfScope, match="skip-bigrams to list"):
        V.skip_bigram_stats(tokens, offsets, pred, ref, 15_000, False)
    count = sum(n - g for g in range(1, 15_002))  # gaps 1..d+1, every pair of the text
    assert K.skip_bigram_stats(tokens, offsets, pred, ref, 15_000, False).tolist() == \
        [[count, count, count], [0, count, count]]
    # within the bound the numpy tier still serves (and agrees)
    short = np.concatenate([np.arange(300), np.arange(300)[::-1]]).astype(np.int64)
    args = (short, np.array([0, 300, 600]), pred, ref, -1, True)
    assert np.array_equal(V.skip_bigram_stats(*args), K.skip_bigram_stats(*args))


# --------------------------------------------------------------------------------------------
# A polite guest


def _fresh_env(tmp_path) -> dict:
    """A subprocess's environment with empty caches: the metric staged anew, nothing compiled."""
    return dict(os.environ, HF_MODULES_CACHE=str(tmp_path / "modules"),
                ROUGE_METRIC_CACHE_DIR=str(tmp_path / "kernels"), PYTHONPATH=str(REPO))


def _alive(marker: str) -> list:
    """Pids of the processes whose command line holds `marker`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def test_a_call_leaves_the_collector_and_signal_handlers_as_they_were(metric, realsumm):
    rows = realsumm[:2000]
    handlers = {s: signal.getsignal(s) for s in signal.valid_signals()}
    seen, done = [], threading.Event()

    def sample():
        while not done.is_set():
            seen.append(gc.isenabled())
            time.sleep(0.0005)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        # until the sampler has looked often enough: how many calls that takes depends on the
        # machine's speed and load (two calls gave 93 samples once in a loaded CI run)
        deadline = time.monotonic() + 120
        while len(seen) <= 100 and time.monotonic() < deadline:
            for options in ({}, dict(use_stemmer=True, detailed=True, rouge_types=["rougeW"])):
                metric.compute(predictions=[r["prediction"] for r in rows],
                               references=[r["references"] for r in rows], **options)
    finally:
        done.set()
        sampler.join()
    assert len(seen) > 100 and all(seen)
    assert {s: signal.getsignal(s) for s in signal.valid_signals()} == handlers


def test_the_metric_pickles_and_deep_copies(evaluate_metric):
    metric = evaluate_metric
    """Fresh, and after add_batch + compute() (evaluate then keeps the cache files' locks)."""
    used = load_metric()
    used.add_batch(predictions=["a b"], references=["a c"])
    assert used.compute(rouge_types=["rouge1"]) == {"rouge1": 0.5}
    for original in (metric, used):
        for twin in (pickle.loads(pickle.dumps(original)), copy.deepcopy(original)):
            assert twin.compute(predictions=["the cat sat"], references=["the cat lay"],
                                rouge_types=["rouge1"]) == {"rouge1": 2 / 3}
            twin.add(prediction="a b c", reference="a b")
            assert twin.compute(rouge_types=["rouge1"]) == {"rouge1": 0.8}


_FORK_AFTER_LOAD = textwrap.dedent("""
    import json, os, sys, time, evaluate
    metric = evaluate.load(sys.argv[1])
    metric.compile_kernels()  # (the compile process starts: evaluate.load starts nothing)
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        out = metric.compute(predictions=["the cats sat"], references=["the cat lay"],
                             rouge_types=["rouge1", "rougeL"], detailed=True, use_stemmer=True)
        print(json.dumps([out["rouge1"]["fmeasure"]["mid"], out["rougeL"]["recall"]["mid"]]),
              flush=True)
        os._exit(0)
    took = time.perf_counter() - start
    _, status = os.waitpid(pid, 0)
    print(json.dumps([took, status]), flush=True)
""")


@pytest.mark.slow
def test_fork_right_after_load_returns_at_once_and_the_child_scores(tmp_path):
    """Empty caches: the compile process runs when the fork comes; the fork does not wait for
    it, and the child scores, stemming (cats -> cat), on the numpy twins: rouge1 F = 2/3 by
    hand."""
    done = subprocess.run([sys.executable, "-c", _FORK_AFTER_LOAD, str(REPO / "rouge_metric.py")],
                          env=_fresh_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    child, parent = [json.loads(line) for line in done.stdout.splitlines()]
    assert child == [2 / 3, 2 / 3]
    took, status = parent
    assert status == 0 and took < 1.0


_FORK_WHILE_SCORING = textwrap.dedent("""
    import json, os, sys, threading, time, evaluate
    metric = evaluate.load(sys.argv[1])
    metric.compile_kernels(wait=True)
    rows = ["word%d other%d the cat sat on the mat" % (i, i % 7) for i in range(20000)]
    busy = threading.Thread(target=lambda: [metric.compute(predictions=rows, references=rows,
                                                           use_stemmer=True) for _ in range(3)])
    busy.start()
    lock = metric._lock._lock
    while lock.acquire(blocking=False):  # free: fork only once the busy thread holds it
        lock.release()
        time.sleep(0.001)
    pid = os.fork()
    if pid == 0:
        out = metric.compute(predictions=["the cats sat"], references=["the cat sat"],
                             use_stemmer=True, rouge_types=["rouge1"])
        print(json.dumps(out["rouge1"]), flush=True)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    busy.join()
    print(status, flush=True)
""")


@pytest.mark.slow
def test_a_child_forked_while_another_thread_scores_can_score(tmp_path):
    """The metric's lock and the stem memo's belonged to the parent's scoring thread at the
    fork: the child gets fresh ones (it used to block forever)."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", _FORK_WHILE_SCORING, str(REPO / "rouge_metric.py")],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1.0", "0"]


_PARENT_EXITS = textwrap.dedent("""
    import sys, evaluate
    metric = evaluate.load(sys.argv[1])
    metric.compile_kernels()  # (wait=False: evaluate.load itself starts nothing)
    backend = sys.modules["rouge_exact.kernels.backend"]  # the package's, as the script imports it
    process = backend._state["process"]
    print(process.pid, process.poll() is None, flush=True)
""")


def test_the_compile_process_ends_with_the_process_that_started_it(tmp_path):
    """Empty caches: compile_kernels() starts the compile process; the parent exits at once
    and the compile process, reading its stdin from the parent, ends too."""
    done = subprocess.run([sys.executable, "-c", _PARENT_EXITS, str(REPO / "rouge_metric.py")],
                          env=_fresh_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    _, running = done.stdout.split()
    assert running == "True"  # it was compiling when the parent exited
    deadline = time.monotonic() + 10
    while _alive(str(tmp_path / "kernels")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(str(tmp_path / "kernels")) == []


def test_the_cli_leaves_no_process_behind(tmp_path):
    """Empty caches: the CLI scores on the numpy twins while the compile process starts (300
    pairs: past the cost of starting it, kernels.backend.worth_compiling); when the CLI exits
    the compile process ends too (its stdin closes). What it cached stays."""
    env = _fresh_env(tmp_path)
    pairs = tmp_path / "pairs.jsonl"
    with open(REPO / "tests" / "data" / "realsumm.jsonl", encoding="utf-8") as rows:
        pairs.write_text("".join(next(rows) for _ in range(300)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "rouge_exact", "--input", str(pairs),
                           "--use-stemmer"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "kernels"
    assert list(folder.glob("kernels-*/registry.py"))  # the compile process was started
    deadline = time.monotonic() + 10
    while _alive(str(folder)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(str(folder)) == []
