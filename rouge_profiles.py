"""Named profiles: everything that differs between one ROUGE and another, as objects (the
tokenizers they name are in ``rouge_text``).

A ``Profile`` holds every decision that differs between rouge_score 0.1.2 (``rouge_score``)
and the ROUGE-1.5.5 script (``rouge155``): the tokenizer and stemmer, what ROUGE-L means, which
tokens fill the union LCS's clipping tables, rounding, ``pow``, the multi-reference default,
the bootstrap and its seed label. No other module compares profile names: adding a profile is
adding one object to ``PROFILES``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .rouge_text import (
    ROUGE155_TOKENIZER,
    TokenizerProfile,
)

# --------------------------------------------------------------------------------------------
# Profiles


def _perl_round5(x: np.ndarray) -> np.ndarray:
    """Perl's sprintf("%.5f"): correct rounding of the binary double (numpy's round is not).

    k / 1e5 is the double nearest to the decimal k * 10^-5 (IEEE division), so only k, the
    rounded x * 10^5, must be right. The product errs by less than 1e-8 for |x| < 1000, so
    only values within 1e-6 of a tie (and the rest) need the exact, slow formatting."""
    x = np.asarray(x, dtype=np.float64)
    scaled = x * 1e5
    low = np.floor(scaled)
    out = (low + (scaled - low > 0.5)) / 1e5
    exact = ~(np.abs(x) < 1000.0) | (np.abs(scaled - low - 0.5) < 1e-6)
    if exact.any():
        out[exact] = [float("%.5f" % v) for v in x[exact].tolist()]
    return out


def _libm_pow(x: np.ndarray, y: float) -> np.ndarray:
    """x ** y with the C library's pow(), as Perl's ``**`` (and numba's): numpy's SIMD power
    differs from it in the last bit for about 5% of inputs, which ROUGE-1.5.5 shows in its
    15-digit ROUGE-W counts (-t 1) and can show in a rounded score."""
    values, where = np.unique(np.asarray(x, dtype=np.float64), return_inverse=True)
    # each distinct value once (ROUGE-W's lengths repeat: a Python loop over a batch's few
    # hundred lengths, not its rows)
    powers = np.array([math.pow(v, y) for v in values.tolist()], dtype=np.float64)
    return powers[where].reshape(np.shape(x))


def no_rounding(x: np.ndarray) -> np.ndarray:
    """The rouge_score profile's: scores as computed."""
    return x


@dataclass(frozen=True)
class Profile:
    """Every decision that differs between two ROUGE implementations."""

    name: str
    tokenizer: Optional[TokenizerProfile]  # fixed tokenizer; None: the user's choice
    stemmer: str  # what use_stemmer turns on for the byte tokenizers
    rouge_l: str  # "lcs": LCS of the whole texts; "union": summary-level union LCS
    clip_from_flat: bool  # union-LCS clipping tables from the joined-text view (ROUGE-1.5.5)
    rounding: Callable = field(compare=False)  # applied to per-example P, R, F
    power: Callable = field(compare=False)  # f(k) = k ** w of ROUGE-W
    sequential_sums: bool  # pool multi-reference counts left to right (Perl's float order)
    multi_ref_default: str
    multi_ref_allowed: tuple
    bootstrap: str  # "poisson": order-free, keeps no rows; "perl": the script's, keeps rows
    seed_label: Callable = field(compare=False)  # seed -> the signature's seed field
    exact_tiebreak_rounding: bool  # -f B rounds N/S recall keys to 5 decimals

    @property
    def keeps_rows(self) -> bool:
        return self.bootstrap == "perl"


ROUGE_SCORE = Profile(
    name="rouge_score", tokenizer=None, stemmer="porter", rouge_l="lcs", clip_from_flat=False,
    rounding=no_rounding, power=_libm_pow, sequential_sums=False, multi_ref_default="max",
    multi_ref_allowed=("max", "average", "best"), bootstrap="poisson",
    seed_label=lambda seed: f"seed:{seed}", exact_tiebreak_rounding=False)

ROUGE155 = Profile(
    name="rouge155", tokenizer=ROUGE155_TOKENIZER, stemmer="rouge155", rouge_l="union",
    clip_from_flat=True, rounding=_perl_round5, power=_libm_pow, sequential_sums=True,
    multi_ref_default="average", multi_ref_allowed=("average", "best"), bootstrap="perl",
    seed_label=lambda seed: "seed:perl-srand", exact_tiebreak_rounding=True)

PROFILES = {p.name: p for p in (ROUGE_SCORE, ROUGE155)}
