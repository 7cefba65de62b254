"""Scoring kernels for rouge_metric: pure numba functions on integer token ids.

Every kernel takes a flat ``int64`` array of token ids plus offsets, and a list of
(prediction text, reference text) pairs given as two index arrays, and returns integer
sufficient statistics per pair (ROUGE-W returns weighted floats, as its definition does).
Floats are made from the statistics afterwards: per-example P, R, F by ``example_prf`` (or by
numpy in rouge_pipeline where a profile rounds or ROUGE-W's powers apply).

Layout of a tokenized batch::

    tokens[text_offsets[k]:text_offsets[k + 1]]        tokens of text k
    sent_offsets[text_sent_offsets[k] : text_sent_offsets[k + 1] + 1]
                                                        token bounds of the sentences of text k

Token ids only need to be equal for equal tokens; each kernel re-interns the two texts of a
pair into dense local ids (0..u-1) with a hash table whose slots compare the ids themselves, so
n-gram and skip-bigram keys are exact integers (no collisions) and memory stays O(length of the
pair).

Definitions follow ROUGE-1.5.5 (``tests/rouge155/SPEC.md``) and rouge_score 0.1.2:

* ROUGE-N: ``hit = sum_g min(c_pred(g), c_ref(g))``; counts ``max(0, len - n + 1)``.
* ROUGE-L: length of the LCS of the two whole texts (bit-parallel, Hyyro 2004).
* ROUGE-Lsum / ROUGE-1.5.5's ROUGE-L: summary-level union LCS with unigram clipping.
* ROUGE-W: ROUGE-1.5.5's weighted LCS (run-based hits on reference positions).
* ROUGE-S/SU: skip-bigrams with at most ``max_skip`` tokens between (``-1`` = no limit);
  SU adds the unigrams of all but the last token.
* The profiles that count sets (pltrdy, rouge_chinese): ROUGE-N over distinct n-grams
  (``distinct_ngram_stats``), and pltrdy's ROUGE-L (``set_union_lcs_stats``): the distinct
  words on its LCS traceback of every (reference sentence, prediction sentence) pair.

The kernels are in modules by concern, flat files beside this one (``MODULES``):

* ``rouge_kernels_scan``: the scanners that tokenize a whole batch: the byte scanner (which,
  from a table, also stems) and the word scanner of the profiles that count sets;
* ``rouge_kernels_score``: ROUGE-N, ROUGE-L and ROUGE-S/SU, and the bit-parallel LCS rows;
* ``rouge_kernels_union``: the summary-level union LCS and ROUGE-W, with their tracebacks;
* ``rouge_kernels_sums``: the aggregate's exact column sums and per-example P, R, F, and the
  two bootstraps: the default profile's Poisson bootstrap (integer sums that do not depend on
  row order) and ROUGE-1.5.5's (Perl's drand48, seeds 0..B-1) for ``rouge155``;
* ``rouge_kernels_sets``: the kernels of the profiles that count sets.

This one holds what they share: the ``@njit`` marker and ``use_numba``, the dense-id helpers,
and an example call per kernel (``EXAMPLES``, at the end), which compiles it. Every kernel is
also a name of this module (``rouge_kernels.ngram_stats``: ``__getattr__``); its numpy twin of
the same name is in ``rouge_vectorized``; ``rouge_backend`` chooses which one runs.

A kernel module imports numpy and, from the module that defines it, each function it calls
(``from .rouge_kernels import njit, _copy``; ``from .rouge_kernels_score import _bit_rows``),
and marks its compiled functions with this module's ``@njit``. Adding one is its file, its
name in ``MODULES``, its kernels' example calls in ``_examples`` and its line in the staging
block of ``rouge_metric.py`` (evaluate's loader copies only the files named there).
"""

from __future__ import annotations

import importlib

import numpy as np


# numba is imported only when rouge_backend compiles these files (use_numba): importing it takes
# 0.3-0.7 s, which a first call served by the numpy twins does without. Until then @njit leaves
# each function as it is, so the files also run as plain Python (rouge_backend._python).

def njit(*args, **options):
    """numba.njit, applied later by use_numba(): marks the function with its options."""
    def mark(function):
        function.njit_options = options
        return function
    return mark(args[0]) if args and callable(args[0]) and not options else mark


# The kernel modules, this one first: rouge_backend copies these files into its cache folder
# (keyed by all of their texts) and imports them from there.
MODULES = ("registry", "scan", "score", "union", "sums", "sets")


def modules() -> list:
    """The kernel modules of this copy (the package's, evaluate's staged one, or the cache
    folder's), imported from the package this module is in."""
    package = __name__.rpartition(".")[0]
    return [importlib.import_module(f"{package}.{name}") for name in MODULES]


def use_numba() -> None:
    """Replace every @njit function of the kernel modules by its numba dispatcher, all at
    once: the kernels find each other as module globals, their own module's and those they
    import from another, so all must be dispatchers before one compiles (numba cannot call a
    plain Python function), and a function named in several modules must be the same
    dispatcher in each. Run only on the copy rouge_backend imports from its cache folder."""
    if globals().get("_NUMBA"):
        return
    import numba

    dispatchers: dict = {}  # function -> its dispatcher
    for module in modules():
        for name, value in list(vars(module).items()):
            if callable(value) and hasattr(value, "njit_options"):
                if value not in dispatchers:
                    # no C-callable wrapper: nothing calls the kernels through ctypes, and
                    # making one for each function was ~13% of their compile time (measured)
                    dispatchers[value] = numba.njit(no_cfunc_wrapper=True,
                                                    **value.njit_options)(value)
                setattr(module, name, dispatchers[value])
    globals()["_NUMBA"] = True


def __getattr__(name: str):
    """A name of another kernel module, as a name of this one: the kernels are looked up here
    by name (EXAMPLES, rouge_backend, the tests). The modules are imported at the first such
    look-up, not with this one, as they import it."""
    if not name.startswith("__"):  # (the import system asks for __path__ and the like)
        for module in modules()[1:]:
            if name in vars(module):
                return vars(module)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------------------------
# helpers


@njit(cache=True)
def _copy(src, s0, s1, dst, d0):
    """dst[d0:d0 + s1 - s0] = src[s0:s1], as a loop: numba compiles slice assignment slowly,
    and compilation is the cold-start cost."""
    for i in range(s1 - s0):
        dst[d0 + i] = src[s0 + i]


@njit(cache=True, nogil=True)
def _dense_ids(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Map values to 0..u-1 (equal values, equal ids; in order of first appearance) with an
    open-addressing hash table: exact (slots compare the values themselves), O(n)."""
    n = values.shape[0]
    ids = np.empty(n, dtype=np.int64)
    first = np.empty(_table_size(n), dtype=np.int64)
    return ids, _dense_ids_into(values, n, ids, first)


@njit(cache=True)
def _table_size(n):
    """Slots of _dense_ids_into's hash table for n values: the least power of two >= 2n."""
    size = 2
    while size < 2 * n:
        size *= 2
    return size


@njit(cache=True)
def _dense_ids_into(values, n, ids, first):
    """_dense_ids of values[:n] into the scratch arrays ids (>= n) and first (the table: >=
    _table_size(n) slots, reset here): the kernels that intern every pair allocate them once
    per call, sized to the largest pair, instead of twice per pair. Returns u."""
    if n == 0:
        return 0
    size = _table_size(n)
    bits = 0
    while (1 << bits) < size:
        bits += 1
    mask = size - 1
    for h in range(size):
        first[h] = -1  # slot -> index of the value's first occurrence
    shift = np.uint64(64 - bits)
    next_id = 0
    for i in range(n):
        v = values[i]
        h = np.int64((np.uint64(v) * np.uint64(0x9E3779B97F4A7C15)) >> shift)
        while True:
            j = first[h]
            if j < 0:
                first[h] = i
                ids[i] = next_id
                next_id += 1
                break
            if values[j] == v:
                ids[i] = ids[j]
                break
            h = (h + 1) & mask
    return next_id


def dense_ids(values: np.ndarray) -> tuple:
    """Ids 0..u-1 for int64 values (equal values, equal ids), and u: O(n) hashing."""
    return _dense_ids(np.ascontiguousarray(values, dtype=np.int64))


@njit(cache=True)
def _pair_ids(tokens: np.ndarray, text_offsets: np.ndarray, p: int, r: int):
    """Dense local ids of the pair of texts p and r: (pred ids, ref ids, vocabulary size)."""
    p0, p1, r0, r1 = text_offsets[p], text_offsets[p + 1], text_offsets[r], text_offsets[r + 1]
    lp = p1 - p0
    lr = r1 - r0
    both = np.empty(lp + lr, dtype=np.int64)
    _copy(tokens, p0, p1, both, 0)
    _copy(tokens, r0, r1, both, lp)
    ids, u = _dense_ids(both)
    return ids[:lp], ids[lp:], u


@njit(cache=True)
def _clipped_hits(ids_a: np.ndarray, ids_b: np.ndarray, u: int) -> int:
    """sum over ids k < u of min(count_a(k), count_b(k))."""
    left = np.zeros(u, dtype=np.int64)
    for k in ids_a:
        left[k] += 1
    hits = 0
    for k in ids_b:
        if left[k] > 0:
            left[k] -= 1
            hits += 1
    return hits


# 2^64 / the golden ratio: Fibonacci hashing's multiplier (the stem table's slots,
# rouge_kernels_scan) and splitmix64's step (the Poisson bootstrap, rouge_kernels_sums)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


# --------------------------------------------------------------------------------------------
# One example call per kernel, on a tiny input with the argument types the scorer uses (one
# compiled signature each: readonly uint8 buffers, C-contiguous int64 arrays). rouge_backend
# compiles a kernel by calling its example; the order is the compile order (what a first call
# of the default types needs first).


def _examples():
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    tokens, offsets = i64([1, 2, 3, 4, 1, 3, 2]), i64([0, 4, 7])
    sent, text_sent = i64([0, 2, 4, 7]), i64([0, 2, 3])
    pred, ref = i64([0]), i64([1])
    buf = np.frombuffer(b"The cats sat\nthe mat\x00a dog", dtype=np.uint8)
    points = np.frombuffer("a b. \u3002a".encode("utf-32-le"), dtype="<u4")
    table = np.zeros(64, dtype=np.int64)
    cdf = (np.array([0.36787944, 0.73575888, 0.9196986, 0.98101184, 0.99634015, 0.99940582,
                     0.99991676, 0.99998975, 0.99999887, 1.0]) * 2.0 ** 32).astype(np.uint64)
    return {
        "scan_stem_tokens": lambda K: K.scan_stem_tokens(buf, 12, table, table.copy(), True),
        "scan_ascii_tokens": lambda K: K.scan_ascii_tokens(buf, 12),
        "dense_ids": lambda K: K.dense_ids(tokens),
        "stem_table_insert": lambda K: K.stem_table_insert(table.copy(), table.copy(),
                                                           i64([60000]), i64([5])),
        "ngram_stats": lambda K: K.ngram_stats(tokens, offsets, pred, ref, i64([1, 2])),
        "union_lcs_stats": lambda K: K.union_lcs_stats(tokens, sent, text_sent, tokens,
                                                       offsets, pred, ref),
        "lcs_stats": lambda K: K.lcs_stats(tokens, offsets, pred, ref),
        "exact_column_sums": lambda K: K.exact_column_sums(np.ones((2, 3))),
        "example_prf": lambda K: K.example_prf(np.ones((2, 2, 3)), 0.5),
        "poisson_bootstrap_sums": lambda K: K.poisson_bootstrap_sums(
            np.ones((3, 3)), np.arange(3, dtype=np.uint64), i64([0, 0, 0]), np.uint64(1), 4,
            cdf),
        "wlcs_stats": lambda K: K.wlcs_stats(tokens, sent, text_sent, tokens, offsets, pred,
                                             ref, 1.2),
        "skip_bigram_stats": lambda K: K.skip_bigram_stats(tokens, offsets, pred, ref, 4, True),
        "perl_bootstrap_means": lambda K: K.perl_bootstrap_means(np.ones((3, 3)), 4, True, 0),
        "distinct_ngram_stats": lambda K: K.distinct_ngram_stats(tokens, offsets, pred, ref,
                                                                 i64([1, 2])),
        "set_union_lcs_stats": lambda K: K.set_union_lcs_stats(tokens, sent, text_sent, pred,
                                                               ref),
        "scan_words": lambda K: K.scan_words(points, np.cumsum(i64([4, 2])), 1),
    }


EXAMPLES = _examples()
