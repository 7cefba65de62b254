"""The aggregate's kernels of kernels.registry: exact column sums, per-example P, R, F, and the
two bootstraps: the default profile's Poisson bootstrap (integer sums that do not depend on
row order) and ROUGE-1.5.5's (Perl's drand48, seeds 0..B-1) for ``rouge155``."""

from __future__ import annotations

import numpy as np

from .registry import GOLDEN, njit


# --------------------------------------------------------------------------------------------
# Bootstrap


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, nogil=True)
def _mix64(z):
    """splitmix64's finalizer: a bijection of uint64 that scrambles every bit."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def poisson_bootstrap_sums(values, keys, occurrences, seed, n_samples, cdf):
    """Poisson bootstrap (each row enters each sample w ~ Poisson(1) times): (sums float64[B,
    columns] of w * values[row], weights int64[B] of w).

    Row i's weights come from its own splitmix64 stream, seeded by (keys[i], occurrences[i],
    seed) and nothing else: no state runs from row to row. When the values are integers (as
    the caller makes them: scores in fixed point, or token counts) every sum is an integer
    below 2^53, so float64 adds it exactly in any order: the sums then do not depend on the
    order or the grouping of the rows (threads, chunks). cdf[k] is 2**32 * P(Poisson(1) <= k):
    a 32-bit uniform u gives w = #{k : u >= cdf[k]} (at most len(cdf))."""
    n_rows, n_columns = values.shape
    sums = np.zeros((n_samples, n_columns), dtype=np.float64)
    weights = np.zeros(n_samples, dtype=np.int64)
    n_cdf = cdf.shape[0]
    low32 = np.uint64(0xFFFFFFFF)
    seed_mix = _mix64(seed)
    row_seeds = np.empty(n_rows, dtype=np.uint64)
    for i in range(n_rows):
        row_seeds[i] = _mix64(keys[i] ^ _mix64(np.uint64(occurrences[i]) ^ seed_mix))
    # sample b takes half b % 2 of splitmix64 output b // 2 + 1 of the row's stream. Rows go
    # in blocks: a block's weights for two samples, then one dot product per column.
    block = 256
    columns = np.ascontiguousarray(values.T).astype(np.float64)
    w0 = np.zeros(block, dtype=np.float64)
    w1 = np.zeros(block, dtype=np.float64)
    zs = np.zeros(block, dtype=np.uint64)
    cdf8 = np.empty(8, dtype=np.uint64)
    for k in range(8):
        cdf8[k] = cdf[k] if k < n_cdf else np.uint64(0xFFFFFFFFFFFFFFFF)
    for r0 in range(0, n_rows, block):
        size = min(block, n_rows - r0)
        for b in range(0, n_samples, 2):
            step = np.uint64(b // 2 + 1) * GOLDEN
            for j in range(size):  # no branches: vector lanes
                z = _mix64(row_seeds[r0 + j] + step)
                u0 = z >> np.uint64(32)
                u1 = z & low32
                a0 = 0
                a1 = 0
                for k in range(8):  # P(w >= 8) < 1e-5: the rest below
                    a0 += 1 if u0 >= cdf8[k] else 0
                    a1 += 1 if u1 >= cdf8[k] else 0
                zs[j] = z
                w0[j] = a0
                w1[j] = a1
            total0 = 0
            total1 = 0
            for j in range(size):
                if w0[j] == 8:
                    w0[j] = _poisson(zs[j] >> np.uint64(32), cdf, n_cdf)
                if w1[j] == 8:
                    w1[j] = _poisson(zs[j] & low32, cdf, n_cdf)
                total0 += np.int64(w0[j])
                total1 += np.int64(w1[j])
            weights[b] += total0
            if b + 1 < n_samples:
                weights[b + 1] += total1
            for c in range(n_columns):
                d0, d1 = _dot2(w0, w1, columns[c, r0:r0 + size], size)
                sums[b, c] += d0
                if b + 1 < n_samples:
                    sums[b + 1, c] += d1
    return sums, weights


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _dot2(w0, w1, column, size):
    """(w0 . column, w1 . column) over the first size entries. For integer operands whose sums
    stay below 2^53 (see poisson_bootstrap_sums) float64 arithmetic is exact in any order, so
    reassociating it (vector lanes) changes nothing."""
    d0 = 0.0
    d1 = 0.0
    for j in range(size):
        d0 += w0[j] * column[j]
        d1 += w1[j] * column[j]
    return d0, d1


@njit(cache=True, nogil=True)
def _poisson(u, cdf, n_cdf):
    """#{k : u >= cdf[k]}: the first 8 thresholds without branches (P(w >= 8) < 1e-5)."""
    w = 0
    for k in range(8):
        w += 1 if u >= cdf[k] else 0
    if w == 8:
        while w < n_cdf and u >= cdf[w]:
            w += 1
    return w


@njit(cache=True, nogil=True)
def perl_bootstrap_means(values, n_samples, divide=True, first_sample=0):
    """ROUGE-1.5.5's bootstrap (SPEC §6): sample b re-seeds Perl's drand48 with srand(b),
    draws N indices floor(rand() * N) and sums the drawn rows in draw order, then / N
    (divide=False: the sums, as its -t 1 uses them). Computes samples first_sample ..
    first_sample + n_samples - 1 (each depends only on its own seed, so ranges of samples
    can run on separate threads)."""
    n = values.shape[0]
    out = np.zeros((n_samples, values.shape[1]), dtype=np.float64)
    a = np.uint64(0x5DEECE66D)
    c = np.uint64(0xB)
    mask48 = np.uint64((1 << 48) - 1)
    for k in range(n_samples):
        b = first_sample + k
        state = (np.uint64(b) << np.uint64(16)) + np.uint64(0x330E)
        for _ in range(n):
            state = (a * state + c) & mask48
            row = int(np.floor(float(state) / 281474976710656.0 * n))
            for col in range(values.shape[1]):
                out[k, col] += values[row, col]
        if divide:
            for col in range(values.shape[1]):
                out[k, col] /= n
    return out


# --------------------------------------------------------------------------------------------
# Exact sums for the aggregate


@njit(cache=True, nogil=True)
def exact_column_sums(matrix):
    """Column sums of float64[N, C], exactly, in the common case: (int64[3, C], True), the
    sums of each value's whole part and of the two 32-bit halves of its fraction (value =
    whole + high 2^-32 + low 2^-64), when every value is a multiple of 2^-64 in [0, 2^40)
    (scores above 2^-11, or counts); else (zeros, False) and the caller takes the general
    path. (x - floor(x) is exact for x >= 0, not for a tiny negative x.) Integer sums: the
    same in any order and chunking. One pass, one call: the numpy twin's dozen operations
    were a large part of a one-pair compute()."""
    n, c = matrix.shape
    out = np.zeros((3, c), dtype=np.int64)
    for i in range(n):
        for j in range(c):
            x = matrix[i, j]
            whole = np.floor(x)
            fraction = (x - whole) * 4294967296.0  # exact: power-of-two scaling
            high = np.floor(fraction)
            low = (fraction - high) * 4294967296.0
            if not 0.0 <= whole < 1099511627776.0 or low != np.floor(low):  # 2^40; NaN too
                return np.zeros((3, c), dtype=np.int64), False
            out[0, j] += np.int64(whole)
            out[1, j] += np.int64(high)
            out[2, j] += np.int64(low)
    return out, True


# --------------------------------------------------------------------------------------------
# Per-example scores from counts


@njit(cache=True, nogil=True)
def example_prf(counts, alpha):
    """float64[N, T, 3] of (P, R, F) from float64[N, T, 3] counts (hit, den_p, den_r):
    P = hit / den_p, R = hit / den_r, F = P R / ((1 - alpha) P + alpha R) (for alpha = 0.5
    the expression 2 P R / (P + R), as rouge_score), each 0 where its denominator is 0. The
    operations of scorer.aggregate.fscore in the same order (IEEE, no fast-math: no fused
    multiply-add), so the numbers are numpy's. One call: numpy's dozen small operations were
    a large part of a small compute()."""
    n, t, _ = counts.shape
    out = np.zeros((n, t, 3), dtype=np.float64)
    for i in range(n):
        for j in range(t):
            hit = counts[i, j, 0]
            p = hit / counts[i, j, 1] if counts[i, j, 1] > 0 else 0.0
            r = hit / counts[i, j, 2] if counts[i, j, 2] > 0 else 0.0
            if alpha == 0.5:
                num = 2.0 * p * r
                den = p + r
            else:
                num = p * r
                den = (1.0 - alpha) * p + alpha * r
            out[i, j, 0] = p
            out[i, j, 1] = r
            out[i, j, 2] = num / den if den > 0 else 0.0
    return out
