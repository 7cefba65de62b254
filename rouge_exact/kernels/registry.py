"""The kernels' registry: what the kernel modules share, and every kernel by name.

A kernel is a pure function on a flat ``int64`` array of token ids with offsets and two index
arrays of (prediction, reference) text pairs; it returns integer statistics per pair
(ROUGE-W: weighted floats, as its definition is). The kernel modules, by concern, are
``MODULES``: this one, ``scan`` (the batch scanners), ``score`` (ROUGE-N, L, S/SU), ``union``
(the union LCS, ROUGE-W), ``sums`` (exact sums, per-example P/R/F, the bootstraps) and
``sets`` (the profiles that count sets). This one holds the ``@njit`` marker and
``use_numba``, the dense-id helpers, and an example call per kernel (``EXAMPLES``), which
compiles it; every kernel is also a name of this module. The kernel modules import only numpy
and each other: the backend copies them into its cache folder as a package of their own.
docs/design.md, "The kernels", has the batch layout, the definitions and how to add a module.
"""

from __future__ import annotations

import importlib

import numpy as np


# numba is imported only when kernels.backend compiles these files (use_numba): importing it takes
# 0.3-0.7 s, which a first call served by the numpy twins does without. Until then @njit leaves
# each function as it is, so the files also run as plain Python (kernels.backend._python).

def njit(*args, **options):
    """numba.njit, applied later by use_numba(): marks the function with its options."""
    def mark(function):
        function.njit_options = options
        return function
    return mark(args[0]) if args and callable(args[0]) and not options else mark


# The kernel modules, this one first: kernels.backend copies these files into its cache folder
# (keyed by all of their texts) and imports them from there.
MODULES = ("registry", "scan", "score", "union", "sums", "sets", "porter")


def modules() -> list:
    """The kernel modules of this copy (the package's, evaluate's staged one, or the cache
    folder's), imported from the package this module is in."""
    package = __name__.rpartition(".")[0]
    # (by name: this copy's package, the package's own or the backend's compiled copy)
    return [importlib.import_module(f"{package}.{name}") for name in MODULES]


def use_numba() -> None:
    """Replace every @njit function of the kernel modules by its numba dispatcher, all at
    once: the kernels find each other as module globals, their own module's and those they
    import from another, so all must be dispatchers before one compiles (numba cannot call a
    plain Python function), and a function named in several modules must be the same
    dispatcher in each. Run only on the copy kernels.backend imports from its cache folder."""
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
    by name (EXAMPLES, kernels.backend, the tests). The modules are imported at the first such
    look-up, not with this one, as they import it."""
    if not name.startswith("__"):  # (the import system asks for __path__ and the like)
        for module in modules()[1:]:
            if name in vars(module):
                return vars(module)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --------------------------------------------------------------------------------------------
# helpers


@njit(cache=True)
def copy_range(src, s0, s1, dst, d0):
    """dst[d0:d0 + s1 - s0] = src[s0:s1], as a loop: numba compiles slice assignment slowly,
    and compilation is the cold-start cost."""
    for i in range(s1 - s0):
        dst[d0 + i] = src[s0 + i]


@njit(cache=True, nogil=True)
def pair_dense_ids(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Map values to 0..u-1 (equal values, equal ids; in order of first appearance) with an
    open-addressing hash table: exact (slots compare the values themselves), O(n)."""
    n = values.shape[0]
    ids = np.empty(n, dtype=np.int64)
    first = np.empty(table_size(n), dtype=np.int64)
    return ids, dense_ids_into(values, n, ids, first)


@njit(cache=True)
def table_size(n):
    """Slots of dense_ids_into's hash table for n values: the least power of two >= 2n."""
    size = 2
    while size < 2 * n:
        size *= 2
    return size


@njit(cache=True)
def dense_ids_into(values, n, ids, first):
    """pair_dense_ids of values[:n] into the scratch arrays ids (>= n) and first (the table: >=
    table_size(n) slots, reset here): the kernels that intern every pair allocate them once
    per call, sized to the largest pair, instead of twice per pair. Returns u."""
    if n == 0:
        return 0
    size = table_size(n)
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
    return pair_dense_ids(np.ascontiguousarray(values, dtype=np.int64))


@njit(cache=True)
def pair_ids(tokens: np.ndarray, text_offsets: np.ndarray, p: int, r: int):
    """Dense local ids of the pair of texts p and r: (pred ids, ref ids, vocabulary size)."""
    p0, p1, r0, r1 = text_offsets[p], text_offsets[p + 1], text_offsets[r], text_offsets[r + 1]
    lp = p1 - p0
    lr = r1 - r0
    both = np.empty(lp + lr, dtype=np.int64)
    copy_range(tokens, p0, p1, both, 0)
    copy_range(tokens, r0, r1, both, lp)
    ids, u = pair_dense_ids(both)
    return ids[:lp], ids[lp:], u


@njit(cache=True)
def clipped_hits(ids_a: np.ndarray, ids_b: np.ndarray, u: int) -> int:
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
# kernels.scan) and splitmix64's step (the Poisson bootstrap, kernels.sums)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


# --------------------------------------------------------------------------------------------
# One example call per kernel, on a tiny input with the argument types the scorer uses (one
# compiled signature each: readonly uint8 buffers, C-contiguous int64 arrays). kernels.backend
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
        # "cats", "running" (text.tokenizers.encode_token)
        "porter_stem_codes": lambda K: K.porter_stem_codes(i64([154087, 47666258701])),
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
