"""Named profiles: everything that differs between one ROUGE and another, as objects (the
tokenizers they name are in ``text.tokenizers``).

A ``Profile`` holds every decision that differs between rouge_score 0.1.2 (``rouge_score``),
the ROUGE-1.5.5 script (``rouge155``), coco-caption's ROUGE-L (``coco``), pltrdy's rouge 1.0.1
(``pltrdy``), rouge-chinese 1.0.3 (``rouge_chinese``), torchmetrics 1.9.0 (``torchmetrics``)
and py-rouge 1.1 (``py_rouge``): the tokenizer (and its sentence splitter) and stemmer, its
length limits and default settings, how ROUGE-N counts, what ROUGE-L means, which tokens
fill the union LCS's clipping tables, the F rule and its default weight, rounding, ``pow``,
the multi-reference modes (and how it averages the references' scores, or ranks them), the
corpus mean, the bootstrap and its seed label, the kinds it scores. No other module compares
profile names: adding a profile is adding one object to ``PROFILES``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from collections.abc import Callable

import numpy as np

from .text.tokenizers import (
    ROUGE155_TOKENIZER,
    TokenizerProfile,
)
from .text.peers import (
    COCO_TOKENIZER,
    PLTRDY_TOKENIZER,
    ROUGE_CHINESE_TOKENIZER,
    TORCHMETRICS_TOKENIZER,
)
from .text.py_rouge import (
    DEFAULT_LENGTH_LIMIT as PY_ROUGE_LENGTH_LIMIT,
    PY_ROUGE_TOKENIZER,
    truncate_chars,
    truncate_words,
)
from .arithmetic import fscore, safe_div

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


COCO_BETA = 1.2  # coco-caption's rouge.py: "updated ... based on discussion with Hovey"
COCO_ALPHA = 1.0 / (1.0 + COCO_BETA ** 2)  # the same weighting as alpha: 1 / (1 + beta^2)


def coco_fscore(p: np.ndarray, r: np.ndarray, alpha: float) -> np.ndarray:
    """coco-caption's F at its own weight: (1 + beta^2) P R / (R + beta^2 P), 0 where P or R
    is 0, in its order of operations (the alpha form of the same F differs in the last bit).
    At any other alpha, the alpha-weighted F of the other profiles."""
    if alpha != COCO_ALPHA:
        return fscore(p, r, alpha)
    p, r = np.asarray(p, dtype=np.float64), np.asarray(r, dtype=np.float64)
    b2 = COCO_BETA ** 2
    out = np.zeros(np.broadcast_shapes(p.shape, r.shape), dtype=np.float64)
    both = (p != 0) & (r != 0)
    np.divide((1 + b2) * p * r, r + b2 * p, out=out, where=both)
    return out


def reference_means(values: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """multi_ref mean_prf's mean of each group of sizes[i] consecutive rows of values
    (float64[rows, ...]): added left to right in float64, divided by the count."""
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    total = values[starts].copy()
    for j in range(1, int(sizes.max(initial=1))):
        more = sizes > j
        total[more] += values[starts[more] + j]
    return total / sizes.reshape(-1, *[1] * (values.ndim - 1))


@dataclass(frozen=True)
class Profile:
    """Every decision that differs between two ROUGE implementations."""

    name: str
    tokenizer: TokenizerProfile | None  # fixed tokenizer; None: the user's choice
    stemmer: str  # what use_stemmer turns on for the byte tokenizers
    # "lcs": LCS of the whole texts; "union": summary-level union LCS (ROUGE-1.5.5);
    # "set_union": pltrdy's, the distinct words on the LCS of each pair of sentences
    rouge_l: str
    clip_from_flat: bool  # union-LCS clipping tables from the joined-text view (ROUGE-1.5.5)
    rounding: Callable = field(compare=False)  # applied to per-example P, R, F
    power: Callable = field(compare=False)  # f(k) = k ** w of ROUGE-W
    sequential_sums: bool  # pool multi-reference counts left to right (Perl's float order)
    multi_ref_default: str
    multi_ref_allowed: tuple
    bootstrap: str  # "poisson": order-free, keeps no rows; "perl": the script's, keeps rows
    seed_label: Callable = field(compare=False)  # seed -> the signature's seed field
    alpha: float = 0.5  # the F weight when the alpha option is None
    f_rule: Callable = field(default=fscore, compare=False)  # (P, R, alpha) -> F
    alpha_label: str = ""  # the signature's alpha at the profile's own weight, if not a number
    counting: str = "clipped"  # ROUGE-N: "clipped" n-gram counts, or "distinct" n-grams (sets)
    kinds: tuple | None = None  # the kinds (kinds.KINDS keys) it scores; None: all
    languages: tuple = ()  # lang codes whose segmenter may cut a text before its tokenizer
    rouge_types: tuple | None = None  # the types when none are asked for (None: the metric's)
    program: str = ""  # the program whose numbers it reproduces, as messages name it
    # F from the rounded P and R (ROUGE-1.5.5's, which prints them); False: from the unrounded
    # ones, then rounded itself (torchmetrics' float32 tensors of float64 P, R and F)
    f_from_rounded: bool = True
    # multi_ref mean_prf: (float64[pairs, ...] the pairs' P, R, F, int64[N] references per
    # example) -> float64[N, ...] each example's mean, in the program's arithmetic
    reference_mean: Callable = field(default=reference_means, compare=False)
    # (their name, ours) of the program's own multi-reference modes, for the error that a
    # name of theirs gets (torchmetrics' accumulate="best" is max here, not ROUGE-1.5.5's best)
    foreign_modes: tuple = ()
    # The program's own length limits, (words, characters): functions (text, N) -> the text
    # it keeps, under length_limit_words and length_limit_bytes, where 0 means no limit
    # (py-rouge's length_limit=0); None: ROUGE-1.5.5's -l and -b (scorer.limits)
    truncators: tuple | None = field(default=None, compare=False)
    default_length_limit: int | None = None  # length_limit_bytes where no limit is given
    stems_by_default: bool = False  # use_stemmer where it is not given (None)
    # ROUGE-W's key under multi_ref best: (power, hit, base, weight) -> the key each
    # reference is ranked by (base: the sum of its lines' len^w); None: f^-1(hit / base)
    weighted_best_key: Callable | None = field(default=None, compare=False)
    # the corpus score (macro): "exact", the exact mean of the examples' scores, rounded once;
    # "sequential", added left to right in input order from 0.0 and divided by the count
    # (py-rouge's), which keeps the examples' scores (scorer.aggregate)
    corpus_mean: str = "exact"
    # ROUGE-N counts len - n + 1 n-grams in a text of len tokens, 0 or fewer below n tokens
    # (py-rouge's): pooled over references they can lower the sum; P and R divide by any
    # count but 0
    signed_ngram_counts: bool = False
    aggregations: tuple = ("macro", "micro")  # the aggregation option's values it takes

    @property
    def keeps_rows(self) -> bool:
        return self.bootstrap == "perl"


ROUGE_SCORE = Profile(
    name="rouge_score", tokenizer=None, stemmer="porter", rouge_l="lcs", clip_from_flat=False,
    rounding=no_rounding, power=_libm_pow, sequential_sums=False, multi_ref_default="max",
    multi_ref_allowed=("max", "average", "best", "max_pr", "mean_prf"), bootstrap="poisson",
    seed_label=lambda seed: f"seed:{seed}", program="rouge-score 0.1.2")

ROUGE155 = Profile(
    name="rouge155", tokenizer=ROUGE155_TOKENIZER, stemmer="rouge155", rouge_l="union",
    clip_from_flat=True, rounding=_perl_round5, power=_libm_pow, sequential_sums=True,
    multi_ref_default="average", multi_ref_allowed=("average", "best"), bootstrap="perl",
    seed_label=lambda seed: "seed:perl-srand", program="ROUGE-1.5.5")

# coco-caption (pycocoevalcap 1.2, rouge/rouge.py): tokens are the text split on single spaces
# (its PTB tokenizer runs before); precision and recall are each the maximum over the
# references, maybe from different ones (max_pr); F with beta = 1.2; the mean over images.
COCO = Profile(
    name="coco", tokenizer=COCO_TOKENIZER, stemmer="porter", rouge_l="lcs", clip_from_flat=False,
    rounding=no_rounding, power=_libm_pow, sequential_sums=False, multi_ref_default="max_pr",
    multi_ref_allowed=("max_pr", "max", "average"), bootstrap="poisson",
    seed_label=lambda seed: f"seed:{seed}", alpha=COCO_ALPHA,
    f_rule=coco_fscore, alpha_label="beta1.2", program="pycocoevalcap 1.2 (coco-caption)")


def eps_fscore(p: np.ndarray, r: np.ndarray, alpha: float) -> np.ndarray:
    """pltrdy's rouge and rouge-chinese's F: 2 ((P R) / (P + R + 1e-8)), in their order of
    operations (so a perfect match gives 0.99999999...). At any alpha but 0.5, the
    alpha-weighted F of the other profiles."""
    if alpha != 0.5:
        return fscore(p, r, alpha)
    p, r = np.asarray(p, dtype=np.float64), np.asarray(r, dtype=np.float64)
    return 2.0 * ((p * r) / (p + r + 1e-8))


# pltrdy's rouge 1.0.1 (lm-evaluation-harness's and LongBench's ROUGE): its sentences are the
# text split on "."; ROUGE-N counts distinct n-grams; ROUGE-L is its union LCS over the
# sentences, of sets of words (set_union); F with 1e-8 added to P + R; one reference per call
# (LongBench takes the maximum over the answers: max).
PLTRDY = Profile(
    name="pltrdy", tokenizer=PLTRDY_TOKENIZER, stemmer="porter", rouge_l="set_union",
    clip_from_flat=False, rounding=no_rounding, power=_libm_pow, sequential_sums=False,
    multi_ref_default="max", multi_ref_allowed=("max", "average", "max_pr"),
    bootstrap="poisson", seed_label=lambda seed: f"seed:{seed}",
    f_rule=eps_fscore, alpha_label="f1+1e-8", counting="distinct", kinds=("n", "L"),
    languages=("zh",), rouge_types=("rouge1", "rouge2", "rougeL"),  # (their DEFAULT_METRICS)
    program="pltrdy's rouge 1.0.1")

# rouge-chinese 1.0.3 (LLaMA-Factory's and ChatGLM's compute_metrics): pltrdy's rouge with
# Chinese sentence ends (text.peers.rouge_chinese_sentences), and ROUGE-L one LCS of all
# the words (lists, not sets)
ROUGE_CHINESE = dataclasses.replace(PLTRDY, name="rouge_chinese",
                                    tokenizer=ROUGE_CHINESE_TOKENIZER, rouge_l="lcs",
                                    program="rouge-chinese 1.0.3")


def float32_rounding(x: np.ndarray) -> np.ndarray:
    """torch.tensor(x) of a Python float: the float32 nearest each value (ties to even), as
    float64."""
    return np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)


# torch's CPU sum of float32 (aten/src/ATen/native/cpu/SumKernel.cpp, cascade_sum), which
# torch.mean divides by the count in float32. A row shorter than a vector is summed in four
# interleaved accumulators (row_sum); a longer one in vectors of _TORCH_LANES floats, each lane
# a row_sum, the tail and then the lanes added to a scalar (vectorized_inner_sum). Each
# accumulator adds 2^level_power values before it is folded into the next of four levels
# (multi_row_sum). Checked against torch 2.13.0 on x86-64, where the kernel's vectors hold 8
# floats under AVX2 and AVX512 alike, for 1 to 32,767 values
# (tests/torchmetrics_vectors/live_torchmetrics.py); another vector width (ARM's) adds the
# same numbers in another order.
_TORCH_LANES = 8
_F32 = np.float32


def _multi_row_sum(rows: np.ndarray) -> np.ndarray:
    """multi_row_sum: the float32 sums over axis 0 of rows[size, 4, ...], in cascade levels."""
    size, levels = len(rows), 4
    power = max(4, ((size - 1).bit_length() if size > 2 else 1) // levels)
    step, mask = 1 << power, (1 << power) - 1
    acc = [np.zeros(rows.shape[1:], dtype=_F32) for _ in range(levels)]
    i = 0
    while i + step <= size:
        for _ in range(step):
            acc[0] = acc[0] + rows[i]
            i += 1
        for j in range(1, levels):
            acc[j], acc[j - 1] = acc[j] + acc[j - 1], np.zeros_like(acc[j - 1])
            if i & (mask << (j * power)):
                break
    for row in rows[i:]:
        acc[0] = acc[0] + row
    for j in range(1, levels):
        acc[0] = acc[0] + acc[j]
    return acc[0]


def _row_sum(x: np.ndarray) -> np.ndarray:
    """row_sum: the float32 sum over axis 0 in four interleaved accumulators."""
    quads = len(x) // 4
    partial = _multi_row_sum(x[:4 * quads].reshape(quads, 4, *x.shape[1:]))
    total = partial[0]
    for i in range(4 * quads, len(x)):
        total = total + x[i]
    for k in range(1, 4):
        total = total + partial[k]
    return total


def torch_float32_sum(x: np.ndarray) -> np.ndarray:
    """torch.sum of float32 x[n, ...] over axis 0, as torch's CPU kernel adds (one thread:
    below its 32,768-value grain)."""
    x = np.asarray(x, dtype=_F32)
    if len(x) < _TORCH_LANES:
        return _row_sum(x)
    vectors = len(x) // _TORCH_LANES
    lanes = _row_sum(x[:vectors * _TORCH_LANES].reshape(vectors, _TORCH_LANES, *x.shape[1:]))
    total = np.zeros(x.shape[1:], dtype=_F32)
    for i in range(vectors * _TORCH_LANES, len(x)):
        total = total + x[i]
    for lane in lanes:
        total = total + lane
    return total


def torch_float32_means(values: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """torch.tensor(group).mean() of each group of sizes[i] consecutive rows of values (float32
    numbers as float64[rows, ...]): torch's float32 sum, divided by the count in float32; as
    float64[groups, ...]. Groups of one size at once."""
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    out = np.empty((len(sizes), *values.shape[1:]), dtype=np.float64)
    for size in np.unique(sizes).tolist():
        which = np.flatnonzero(sizes == size)
        rows = values[starts[which][None, :] + np.arange(size)[:, None]]  # [size, groups, ...]
        out[which] = torch_float32_sum(rows) / _F32(size)
    return out


# torchmetrics 1.9.0 (ROUGEScore and functional rouge_score): rouge_score's tokens, counting and
# LCS; rougeLsum's sentences are nltk's English Punkt's (text.peers.PunktTokenizer), not the
# lines. Each example's P, R and F are float32 tensors of float64 numbers (F from the
# unrounded P and R). Several references: per type the one whose float32 F is highest, the
# first on ties (accumulate="best": max), or P, R and F each averaged in float32 as torch
# averages (accumulate="avg": mean_prf, so F is not the F of the P and R it reports). The
# corpus: the mean of the examples' numbers (exact here; torch's float32 sum is within a few
# float32 ulps of it). Types: rouge<N>, rougeL, rougeLsum, as its rouge_keys.
TORCHMETRICS = dataclasses.replace(
    ROUGE_SCORE, name="torchmetrics", tokenizer=TORCHMETRICS_TOKENIZER,
    rounding=float32_rounding, f_from_rounded=False, multi_ref_default="max",
    multi_ref_allowed=("max", "mean_prf"), reference_mean=torch_float32_means,
    foreign_modes=(("best", "max"), ("avg", "mean_prf")), kinds=("n", "L", "Lsum"),
    program="torchmetrics 1.9.0")



def py_rouge_fscore(p: np.ndarray, r: np.ndarray, alpha: float) -> np.ndarray:
    """py-rouge's F: P R / ((1 - alpha) P + alpha R) in its order of operations, 0 where P or
    R is 0 (-0.0 too). With signed n-gram counts P and R may be negative, where py-rouge
    divides as it finds them; where that denominator is 0 (P = -R at alpha 0.5) py-rouge
    raises ZeroDivisionError: 0 here."""
    p, r = np.asarray(p, dtype=np.float64), np.asarray(r, dtype=np.float64)
    den = (1 - alpha) * p + alpha * r
    out = np.zeros(np.broadcast_shapes(p.shape, r.shape), dtype=np.float64)
    np.divide(p * r, den, out=out, where=(p != 0) & (r != 0) & (den != 0))
    return out


def py_rouge_weighted_key(power: Callable, hit: np.ndarray, base: np.ndarray,
                          weight: float) -> np.ndarray:
    """py-rouge's apply_best key of ROUGE-W (its rouge.py, _get_scores_rouge_l_or_w): its
    reference count is base ** w, and the key (hit / count ** (1 / w)) ** (1 / w), which
    differs in the last bit from f^-1(hit / base), enough to break a tie otherwise. An empty
    reference (base 0), where py-rouge raises ZeroDivisionError, ranks 0."""
    count = power(base, weight)
    return power(safe_div(hit, power(count, 1.0 / weight)), 1.0 / weight)


# py-rouge 1.1 (PyPI py-rouge, Rouge() with ensure_compatibility=True, its default): its text
# (text.py_rouge: a sentence per line; lowercase [a-z0-9] words, nltk's contractions split;
# nltk's original Porter with WordNet's exceptions and its own), stemming and its 665-character
# limit unless told otherwise; ROUGE-N's clipped counts with len - n + 1 n-grams per text, even
# below n tokens; ROUGE-L the union LCS over the lines, ROUGE-W the same with weights.
# Several references: counts pooled (apply_avg: average) or the one with the strictly highest
# recall (apply_best: best, with its own key for ROUGE-W); neither (a list per reference) is a
# row per (prediction, reference) pair with use_aggregator=False. The corpus: the examples'
# scores added left to right, divided by their count. Its defaults score rouge-n without an
# order, which computes nothing: the types here are rouge1, rouge2 and rougeL. Its rouge-w at
# its default weight_factor=1.0 is rougeL; rougeW-1.2 is its rouge-w at weight_factor=1.2,
# which also raises its rouge-l's P and R to 1/1.2 (not reproduced: rougeL stays ROUGE-L).
# ensure_compatibility=False (punkt sentences, NLTK_EXTENSIONS Porter) is not reproduced.
PY_ROUGE = dataclasses.replace(
    ROUGE_SCORE, name="py_rouge", tokenizer=PY_ROUGE_TOKENIZER, stemmer="py_rouge",
    rouge_l="union", sequential_sums=True, multi_ref_default="average",
    multi_ref_allowed=("average", "best"), f_rule=py_rouge_fscore, kinds=("n", "L", "W"),
    rouge_types=("rouge1", "rouge2", "rougeL"), program="py-rouge 1.1",
    truncators=(truncate_words, truncate_chars),
    default_length_limit=PY_ROUGE_LENGTH_LIMIT, stems_by_default=True,
    weighted_best_key=py_rouge_weighted_key, corpus_mean="sequential",
    signed_ngram_counts=True, aggregations=("macro",))

PROFILES = {p.name: p for p in (ROUGE_SCORE, ROUGE155, COCO, PLTRDY, ROUGE_CHINESE,
                                TORCHMETRICS, PY_ROUGE)}
