"""The arithmetic every layer shares: P and R as safe divisions, F, and exact sums.

An exact sum is one scheme: a column's sum as a Python int in units of 2^-unit, the same in
any order and chunking, divided once at the end (one correct rounding). It is reached three
ways: the fixed-point parts of values that are multiples of 2^-64 (``fixed_point_parts``, or
its compiled kernel), the frexp digits of any finite double (units of 2^-1130), and, for the
bootstrap's weighted sample sums, 19-bit limbs of x * 2^73 that float matrix products add
exactly (``limbs``, ``joined``); compare()'s resampled sums split each statistic into 26-bit
integer parts (``IntegerParts``). Kept apart from the kernels and their twins so that every
layer uses the same functions whichever backend runs."""

from __future__ import annotations

import numpy as np

MEASURES = ("precision", "recall", "fmeasure")  # a score's three numbers, in order


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def fscore(p: np.ndarray, r: np.ndarray, alpha: float) -> np.ndarray:
    """F = P R / ((1 - alpha) P + alpha R), 0 where that denominator is 0. For alpha = 0.5
    the same expression as rouge_score (2 P R / (P + R)), so the numbers are identical."""
    if alpha == 0.5:
        return safe_div(2.0 * p * r, p + r)
    return safe_div(p * r, (1.0 - alpha) * p + alpha * r)


def fixed_point_parts(matrix: np.ndarray) -> tuple:
    """kernels.sums.exact_column_sums in numpy (its twin): (int64[3, C] column sums of the
    whole parts and of the two 32-bit halves of the fractions, True), or (zeros, False) where
    some value is not a multiple of 2^-64 in [0, 2^40)."""
    whole = np.floor(matrix)
    fraction = (matrix - whole) * 2.0 ** 32  # exact: power-of-two scaling of an exact difference
    high = np.floor(fraction)
    low = (fraction - high) * 2.0 ** 32
    if not ((whole >= 0.0) & (whole < 2.0 ** 40)).all() or not (low == np.floor(low)).all():
        return np.zeros((3, matrix.shape[1]), dtype=np.int64), False
    return np.stack((whole, high, low)).astype(np.int64).sum(axis=1), True


# Macro scores x in [0, 1] enter the bootstrap exactly, as the integer X = x * 2^73 written in
# four limbs of 19 bits (micro: the counts themselves, integers but for ROUGE-W's weighted
# counts). Every sample sum of a limb is an integer below 2^53 (2^19 * 15 * 2^29 examples),
# so float64 adds it exactly in any order and grouping; the limbs are joined as Python ints
# at the end, and each sample's mean is one correctly rounded division. Every score of 2^-20
# or more (any text under a million tokens) is a multiple of 2^-73; a smaller one is rounded
# to it (an error below 2^-73).
SCORE_BITS = 73
LIMB_BITS = 19
LIMBS = 4  # 4 x 19 = 76 bits >= X's 74
EXACT_UNIT = 1130  # every finite double is an integer multiple of 2^-1074 (and frexp's 2^-53)
FAST_UNIT = 64  # exact_column_sums' common case: multiples of 2^-64


def exact_sums(matrix: np.ndarray, parts_of=None) -> tuple:
    """(sums, unit): column sums of finite floats, exactly, as Python ints in units of
    2^-unit: the same in any order and any chunking; dividing them at the end rounds once,
    correctly. unit is FAST_UNIT in the common case, else EXACT_UNIT: a small call's sums and
    mean are then ints of a few digits, not of 1,130 bits (Python's int / int is correctly
    rounded, so the mean is the same double either way). parts_of: fixed_point_parts, or the
    compiled kernel of the same result (kernels.sums.exact_column_sums)."""
    parts, common = (parts_of or fixed_point_parts)(
        np.ascontiguousarray(matrix, dtype=np.float64))
    if common:
        # the common case, fast: every value is a multiple of 2^-64 in [0, 2^40) (scores
        # above 2^-11, or counts), so its whole part and two 32-bit fraction parts are exact
        # int64 numbers
        return [(w << 64) + (h << 32) + lo for w, h, lo in zip(*parts.tolist())], FAST_UNIT
    mantissa, exponent = np.frexp(matrix)
    digits = (mantissa * 2.0 ** 53).astype(np.int64)  # exact: value = digits * 2^(exponent - 53)
    sums = []
    for c in range(matrix.shape[1]):
        total = 0
        for e in np.unique(exponent[:, c]).tolist():
            chosen = digits[exponent[:, c] == e, c]
            # in two halves of 27 bits, so that an int64 sum cannot overflow
            high, low = int((chosen >> 26).sum()), int((chosen & (2 ** 26 - 1)).sum())
            total += ((high << 26) + low) << (e - 53 + EXACT_UNIT)
        sums.append(total)
    return sums, EXACT_UNIT


def exact_means(matrix: np.ndarray, parts_of=None) -> np.ndarray:
    """Column means of finite floats (rows: examples), each the exact mean rounded once: the
    mean compute() reports (compare() reports its systems' scores with it)."""
    rows = matrix.shape[0] << EXACT_UNIT
    sums = in_unit(*exact_sums(matrix, parts_of), EXACT_UNIT)
    return np.array([total / rows for total in sums], dtype=np.float64)


def in_unit(sums: list, unit: int, wanted: int) -> list:
    """Exact sums in units of 2^-unit, in units of 2^-wanted (wanted >= unit)."""
    return sums if unit == wanted else [v << (wanted - unit) for v in sums]


def limbs(matrix: np.ndarray) -> np.ndarray:
    """float64[N, C] scores in [0, 1] as float64[N, C * LIMBS] exact 19-bit integer limbs of
    x * 2^73, low limb first (column c's limbs at c * LIMBS ...)."""
    rest = np.rint(matrix * 2.0 ** SCORE_BITS)  # exact: a power-of-two scaling
    out = np.empty(matrix.shape + (LIMBS,), dtype=np.float64)
    for j in range(LIMBS):
        high = np.floor(rest / 2.0 ** LIMB_BITS)  # exact: integers and a power of two
        out[..., j] = rest - high * 2.0 ** LIMB_BITS  # exact: an integer below 2^19
        rest = high
    return out.reshape(matrix.shape[0], -1)


def joined(limb_sums: np.ndarray) -> list:
    """Python ints of float64[C * LIMBS] limb sums (each an exact integer)."""
    values = [int(v) for v in limb_sums.tolist()]
    return [sum(values[c * LIMBS + j] << (LIMB_BITS * j) for j in range(LIMBS))
            for c in range(len(values) // LIMBS)]


# compare()'s resampled sums: each statistic as integer-valued float parts, scaled per column
PART_BITS = 26


class IntegerParts:
    """Statistics float64[n, systems, columns] as integer-valued float64 parts whose sums are
    exact. Column c is x = (hi + lo * 2^-26) * 2^-e_c with |hi|, lo < 2^26, e_c chosen from
    the column's largest magnitude over all systems, so that the same statistic of two
    systems can be added part by part (bits below 2^-52 of that magnitude are dropped: under
    2.3e-16 relative). lo parts are kept only for the columns that need them (not for integer
    counts). parts: float64[n, systems * parts per system], system-major."""

    def __init__(self, stacked: np.ndarray):
        n, n_systems, _ = stacked.shape
        largest = np.abs(stacked).max(axis=(0, 1))
        self.exponent = PART_BITS - np.frexp(np.where(largest > 0, largest, 1.0))[1]
        low = np.ldexp(stacked, self.exponent)
        high = np.floor(low)
        # in place (O(n) memory counts at a million rows): low = floor((x - hi) 2^26), where
        # x - hi is exact
        np.subtract(low, high, out=low)
        np.floor(np.ldexp(low, PART_BITS, out=low), out=low)
        self.low_columns = np.flatnonzero(low.any(axis=(0, 1)))
        self.n_systems = n_systems
        self.parts = np.concatenate([high, low[:, :, self.low_columns]], axis=2).reshape(
            n, -1)

    def join(self, part_sums: np.ndarray) -> np.ndarray:
        """Exact part sums [..., systems * parts] -> float64 sums [..., systems, columns],
        each rounded once."""
        per_system = part_sums.reshape(part_sums.shape[:-1] + (self.n_systems, -1))
        width = len(self.exponent)
        high = per_system[..., :width].copy()
        high[..., self.low_columns] += np.ldexp(per_system[..., width:], -PART_BITS)
        return np.ldexp(high, -self.exponent)
