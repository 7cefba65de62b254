"""No kernel reads memory it did not write.

The kernels reuse scratch buffers made with np.empty, whose contents are whatever the
allocator hands back: a read before a write gives numbers that depend on memory (a CI run once
saw rouge4 off by 1/34 from such a read in the n-gram ids). Here the kernels run as plain
Python (the same source as the compiled tier) with np.empty replaced by allocations filled
with hostile values (huge integers, NaN, random bits), and must give exactly what the compiled
kernels give. The scratch threshold of the linear-space traceback is lowered so that small
inputs take its block path too."""
import importlib
import os
import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from conftest import COMPILED

K = COMPILED  # (compiled at the first test that reads a kernel)
from conftest import staged
from test_kernels import batch
from test_backend import _calls as tier_calls

_FILL = np.random.default_rng(2024)


class _PoisonedNumpy:
    """numpy, except that empty() returns arrays full of values no kernel should ever see."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def empty(shape, dtype=np.float64):
        out = np.zeros(shape, dtype=dtype)
        kind = out.dtype.kind
        if kind == "f":
            out.fill(np.nan)
        elif kind == "b":
            out[...] = _FILL.integers(0, 2, out.shape).astype(bool)
        elif kind in "iu":
            # powers of two make products wrap to 0 (how the n-gram ids once collided), the
            # extremes make sums overflow and indices fail
            info = np.iinfo(out.dtype)
            hostile = np.array([1 << 62, 1 << 61, 1 << 32, info.max, info.min, info.max // 3],
                               dtype=out.dtype)
            out[...] = hostile[_FILL.integers(0, len(hostile), out.shape)]
        return out


def _poisoned_twin():
    """The kernel files run once more as plain Python (their @njit marks functions only until
    kernels.backend compiles them), as a package of their own, on poisoned numpy."""
    package = types.ModuleType("rouge_kernels_poisoned")
    package.__path__ = [os.path.dirname(staged("kernels.registry").__file__)]
    sys.modules[package.__name__] = package
    twin = importlib.import_module(f"{package.__name__}.registry")
    for module in twin.modules():
        module.np = _PoisonedNumpy()
    # the Hirschberg-style blocks of mark_path on small sentences
    sys.modules[f"{package.__name__}.union"].BASE_CELLS = 12
    return twin


POISONED = _poisoned_twin()

sentence = st.lists(st.integers(0, 6), max_size=12)
long_sentence = st.lists(st.integers(0, 4), min_size=62, max_size=140)  # several bit words
texts = st.lists(st.lists(st.one_of(sentence, sentence, long_sentence), max_size=4),
                 min_size=2, max_size=5)


def _calls(tokens, sent_offsets, text_sent_offsets, offsets, pred, ref):
    """test_tiers' calls of every scoring kernel, and orders and distances past theirs."""
    return tier_calls(tokens, sent_offsets, text_sent_offsets, offsets, pred, ref) + [
        ("ngram_stats", (tokens, offsets, pred, ref, np.array([3, 4, 9]))),
        ("skip_bigram_stats", (tokens, offsets, pred, ref, 9, True))]


@settings(max_examples=60, deadline=None)
@given(texts=texts, data=st.data())
@pytest.mark.slow
def test_scoring_kernels_ignore_what_empty_buffers_hold(texts, data):
    tokens, sent_offsets, text_sent_offsets, offsets = batch(*texts)
    # large token ids, as the scanner's base-37 codes are
    tokens = tokens * 1_000_003 + 37 ** 11
    n = len(texts)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                               min_size=1, max_size=4))
    pred = np.array([p for p, _ in pairs], dtype=np.int64)
    ref = np.array([r for _, r in pairs], dtype=np.int64)
    with np.errstate(over="ignore"):
        for name, args in _calls(tokens, sent_offsets, text_sent_offsets, offsets, pred, ref):
            got = getattr(POISONED, name)(*args)
            assert np.array_equal(got, getattr(K, name)(*args)), name
        ids, u = POISONED.dense_ids(tokens)
        expected_ids, expected_u = K.dense_ids(tokens)
        assert u == expected_u and np.array_equal(ids, expected_ids)


@settings(max_examples=40, deadline=None)
@given(words=st.lists(st.sampled_from(["the", "Running", "cats", "x" * 15, "a1", "é", ".",
                                       "\n", "\x00", "ZZZZZZZZZZZZZ"]), max_size=40))
def test_scanner_ignores_what_empty_buffers_hold(words):
    buf = np.frombuffer(" ".join(words).encode("utf-8"), dtype=np.uint8)
    keys, vals = np.zeros(16, dtype=np.int64), np.zeros(16, dtype=np.int64)
    code = K.scan_ascii_tokens(np.frombuffer(b"cats", dtype=np.uint8), 12)[0]
    K.stem_table_insert(keys, vals, code, np.array([7], dtype=np.int64))
    lower = np.frombuffer(buf.tobytes().lower(), dtype=np.uint8)
    with np.errstate(over="ignore"):  # the base-37 codes and hashes wrap, as compiled
        for stem in (True, False):
            want = K.scan_stem_tokens(buf, 12, keys, vals, stem)
            got = POISONED.scan_stem_tokens(buf, 12, keys, vals, stem)
            for a, b in zip(got, want):
                assert np.array_equal(a, b)
        for a, b in zip(POISONED.scan_ascii_tokens(lower, 12), K.scan_ascii_tokens(lower, 12)):
            assert np.array_equal(a, b)


def test_bootstraps_ignore_what_empty_buffers_hold(metric_module):
    rng = np.random.default_rng(5)
    values = rng.integers(0, 1 << 40, (37, 3)).astype(np.int64)
    keys = rng.integers(0, 1 << 63, 37, dtype=np.uint64)
    occurrences = np.zeros(37, dtype=np.int64)
    cdf = staged("scorer.aggregate")._POISSON_CDF
    args = (values, keys, occurrences, np.uint64(11), 50, cdf)
    floats = rng.random((23, 3))
    with np.errstate(over="ignore"):  # the seed mixing wraps, as compiled
        for got, want in zip(POISONED.poisson_bootstrap_sums(*args),
                             K.poisson_bootstrap_sums(*args)):
            assert np.array_equal(got, want)
        assert np.array_equal(POISONED.perl_bootstrap_means(floats, 40),
                              K.perl_bootstrap_means(floats, 40))
