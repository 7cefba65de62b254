"""The arithmetic every layer shares: P and R as safe divisions, and F. Kept apart from the
kernels and their twins so that the scorer, the kinds and the profiles use the same functions
whichever backend runs."""

from __future__ import annotations

import numpy as np


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
