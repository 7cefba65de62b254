"""The ROUGE kinds, declared once: for each kind, the kernel that scores it and its cost.

The kernels themselves are in ``rouge_kernels`` (each with its example call, which compiles it),
their numpy twins of the same names in ``rouge_vectorized``; ``rouge_backend`` chooses between
the two. This module says which kernel a kind runs and what it costs, so that a front end (the
Space) can refuse, before any scoring, a request over its budget.

The cost model: seconds and bytes of rouge_kernels' work for the pairs of one request,
calibrated on a 2-core machine (ns per DP cell, per sentence pair, per bit row; see
docs/performance.md). It errs on the high side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .rouge_backend import (
    THREADS,
)
from .rouge_text import (
    split_sentences as split_sentences_rule_based,
)

BIT_ROW_TOKENS = 64  # sentences up to this long run bit-parallel (one machine word per row)
DP_WHOLE_CELLS = 1 << 22  # (weighted) LCS tables up to this many cells are kept whole


def _cell_seconds(longest: np.ndarray) -> np.ndarray:
    """Seconds per DP cell of the (weighted) LCS with traceback, by the longest sentence:
    measured ~2.5 ns for sentences of 25 tokens, 5-11 ns at 2k-10k, 10-15 ns at 15k-20k when
    scoring, up to 32 ns for the highlights' tracebacks at 20k (the rows leave the caches)."""
    return (2.5e-9 + 1.25e-8 * np.minimum(1.0, longest / 5000.0)) \
        * np.maximum(1.0, longest / 15000.0)


def _dp_bytes(rows: float, cols: float) -> float:
    """Memory of one checkpointed (weighted) LCS table in rouge_kernels: the whole table up
    to DP_WHOLE_CELLS cells, else 2 sqrt(rows) rows of it (16 bytes a cell)."""
    rows, cols = max(rows, cols), min(rows, cols)
    if (rows + 1) * (cols + 1) <= DP_WHOLE_CELLS:
        return 32.0 * (rows + 1) * (cols + 1)
    return 32.0 * (2 * math.sqrt(rows) + 2) * (max(rows, cols) + 1)


@dataclass(frozen=True)
class Pairs:
    """Sizes of the two texts of each pair (float64 arrays, one entry per pair)."""
    lp: np.ndarray  # tokens of the prediction
    lr: np.ndarray  # tokens of the reference
    sp: np.ndarray  # sentences
    sr: np.ndarray
    sent_p: np.ndarray  # tokens in sentences
    sent_r: np.ndarray
    long_p: np.ndarray  # tokens in sentences over BIT_ROW_TOKENS
    short_p: np.ndarray  # sentences of at most BIT_ROW_TOKENS
    max_p: np.ndarray  # the longest sentence
    max_r: np.ndarray


def _ngram_cost(t, p: Pairs, repeats: int, traceback: bool) -> tuple:
    return 5e-8 * t.n * float((p.lp + p.lr).sum()), 0.0


def _lcs_cost(t, p: Pairs, repeats: int, traceback: bool) -> tuple:
    seconds = repeats * 2e-9 * float((p.lp * np.ceil(p.lr / BIT_ROW_TOKENS) + p.lp + p.lr).sum())
    peak = 0.0
    if traceback:  # one sentence per text, through the union kernel's DP
        seconds += repeats * float((_cell_seconds(np.maximum(p.lp, p.lr)) * p.lp * p.lr).sum())
        peak = _dp_bytes(float(p.lp.max()), float(p.lr.max()))
    return seconds, peak


def _union_cost(t, p: Pairs, repeats: int, traceback: bool) -> tuple:
    weighted = t.kind == "W"
    dp_cells = p.sent_p * p.sent_r if weighted else p.long_p * p.sent_r
    bit_work = 0.0 if weighted else p.sr * (p.sent_p - p.long_p) + p.short_p * p.sent_r
    seconds = repeats * float((_cell_seconds(np.maximum(p.max_p, p.max_r)) * dp_cells
                               + 2e-9 * bit_work + 1e-6 * p.sp * p.sr).sum())
    needs_dp = (p.max_p > BIT_ROW_TOKENS) | weighted
    peak = 0.0
    if needs_dp.any():
        peak = _dp_bytes(float(p.max_p[needs_dp].max()), float(p.max_r[needs_dp].max()))
    return seconds, peak


def _skip_cost(t, p: Pairs, repeats: int, traceback: bool) -> tuple:
    if t.max_skip < 0:
        return 2e-9 * float(((p.lp + p.lr) * np.minimum(p.lp, p.lr)).sum()), 0.0
    keys = (p.lp + p.lr) * (t.max_skip + 1)
    return 2e-8 * float(keys.sum()), 48.0 * float(keys.max())


def _flat(t, flat, sent, clip) -> tuple:
    return (flat.tokens, flat.text_offsets), ()


def _by_sentence(t, flat, sent, clip) -> tuple:
    return (sent.tokens, sent.sent_offsets, sent.text_sent_offsets, *clip), (
        (t.weight,) if t.kind == "W" else ())


def _skip(t, flat, sent, clip) -> tuple:
    return (flat.tokens, flat.text_offsets), (t.max_skip, t.kind == "SU")


@dataclass(frozen=True)
class Kind:
    """One ROUGE kind: the rouge_kernels kernel that scores it; its arguments (rouge_type,
    flat batch, sentence batch, clip view) -> (before the pairs, after the pairs); whether it
    reads sentences; and its cost (rouge_type, Pairs, repeats, traceback) -> (seconds, peak
    bytes). ROUGE-N's orders are scored in one call (the pipeline batches them)."""
    kernel: str
    arguments: Callable
    sentences: bool
    cost: Callable


KINDS = {
    "n": Kind("ngram_stats", _flat, False, _ngram_cost),
    "L": Kind("lcs_stats", _flat, False, _lcs_cost),  # rouge155's ROUGE-L: Lsum's (kind_of)
    "Lsum": Kind("union_lcs_stats", _by_sentence, True, _union_cost),
    "W": Kind("wlcs_stats", _by_sentence, True, _union_cost),
    "S": Kind("skip_bigram_stats", _skip, False, _skip_cost),
    "SU": Kind("skip_bigram_stats", _skip, False, _skip_cost),
}


def kind_of(options, rouge_type) -> Kind:
    """The kind rouge_type runs as under these options (rouge155's ROUGE-L is summary-level)."""
    if rouge_type.kind == "L" and options.profile.rouge_l != "lcs":
        return KINDS["Lsum"]
    return KINDS[rouge_type.kind]


def text_sizes(options, texts: list) -> dict:
    """Per text (int64 arrays): tokens, tokens in sentences, sentences, the longest sentence,
    the tokens in sentences over BIT_ROW_TOKENS, and the sentences of at most that."""
    if options.split_sentences:
        texts = [split_sentences_rule_based(t) for t in texts]
    token_options = dict(stemmer=options.stemmer, stopwords=options.remove_stopwords)
    flat = options.tokenizer.batch(texts, **token_options)
    sent = options.tokenizer.sentence_batch(texts, **token_options) or flat
    lengths = np.diff(sent.sent_offsets)
    owner = np.repeat(np.arange(len(texts)), np.diff(sent.text_sent_offsets))
    longest = np.zeros(len(texts), dtype=np.int64)
    np.maximum.at(longest, owner, lengths)
    long = lengths > BIT_ROW_TOKENS
    return {"tokens": np.diff(flat.text_offsets),
            "sent_tokens": np.bincount(owner, lengths, len(texts)).astype(np.int64),
            "sentences": np.diff(sent.text_sent_offsets).astype(np.int64),
            "longest": longest,
            "long_tokens": np.bincount(owner, lengths * long, len(texts)).astype(np.int64),
            "short_sentences": np.bincount(owner, (lengths > 0) & ~long,
                                           len(texts)).astype(np.int64)}


def estimate_cost(options, sizes: dict, pair_pred: np.ndarray, pair_ref: np.ndarray,
                  repeats: int = 1, traceback: bool = False) -> tuple:
    """(seconds, bytes) the kernels need for these pairs (indices into the texts of
    ``sizes``). repeats: the kernels run that many times (per-reference scores, a display's
    two directions); traceback: ROUGE-L traced back, as a display of the matched tokens does
    (a full DP, where scoring counts bit-parallel)."""
    f = lambda key, idx: sizes[key][idx].astype(np.float64)  # noqa: E731
    pairs = Pairs(lp=f("tokens", pair_pred), lr=f("tokens", pair_ref),
                  sp=f("sentences", pair_pred), sr=f("sentences", pair_ref),
                  sent_p=f("sent_tokens", pair_pred), sent_r=f("sent_tokens", pair_ref),
                  long_p=f("long_tokens", pair_pred), short_p=f("short_sentences", pair_pred),
                  max_p=f("longest", pair_pred), max_r=f("longest", pair_ref))
    total = float(sizes["tokens"].sum())
    seconds, peak = 2e-8 * total, 64.0 * total  # tokenizing
    for t in options.rouge_types:
        s, b = kind_of(options, t).cost(t, pairs, repeats, traceback)
        seconds, peak = seconds + s, max(peak, b)
    return seconds / max(1, min(THREADS, len(pair_pred))) ** 0.5, peak * THREADS


def resampling_cost(rows: int, samples: int, types: int, systems: int = 0) -> float:
    """Seconds of resampling. systems=0: compute()'s bootstrap of one corpus, ~2 ns per row,
    sample and type. systems=k: compare() of k systems, whose resamples are drawn per row and
    sample for each system: ~120 ns each (measured: 4 systems x 2,000 rows x 5,000 samples,
    3.4-4.7 s on 2 loaded cores, nearly the same for 1 and 3 types), plus 1,000 resamples for
    the intervals of every test."""
    if systems == 0:
        return 2e-9 * rows * samples * types
    return 1.2e-7 * rows * (samples + 1000) * systems * max(1, types / 3)
