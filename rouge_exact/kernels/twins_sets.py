"""The numpy twins of the kernels of the profiles that count sets (kernels.registry'
distinct_ngram_stats and set_union_lcs_stats, and their tokenizer's scan_words),
re-exported by kernels.twins, where kernels.backend finds every twin by its kernel's name:
the same statistics for all the pairs of a call at once."""

from __future__ import annotations

import numpy as np

from .twins import pair_positions, sentence_pairs, ngram_levels, traced_positions


def _distinct_per_pair(n_pairs: int, pair: np.ndarray, key: np.ndarray) -> np.ndarray:
    """How many distinct keys each pair has (pair, key: int64 arrays of equal length)."""
    if key.shape[0] == 0:
        return np.zeros(n_pairs, dtype=np.int64)
    _, dense = np.unique(key, return_inverse=True)
    width = int(dense.max()) + 1
    return np.bincount(np.unique(pair * width + dense.reshape(-1)) // width, minlength=n_pairs)


def distinct_ngram_stats(tokens, text_offsets, pair_pred, pair_ref, orders):
    """kernels.registry.distinct_ngram_stats: int64[pairs, len(orders), 3] of (shared
    distinct n-grams, the prediction's, the reference's)."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, len(orders), 3), dtype=np.int64)
    for q, p_pair, p_gram, r_pair, r_gram in ngram_levels(tokens, text_offsets, pair_pred,
                                                          pair_ref, orders):
        width = int(max(p_gram.max(initial=0), r_gram.max(initial=0))) + 1
        a = np.unique(p_pair * width + p_gram)
        b = np.unique(r_pair * width + r_gram)
        out[:, q, 0] = np.bincount(np.intersect1d(a, b, assume_unique=True) // width,
                                   minlength=n_pairs)
        out[:, q, 1] = np.bincount(a // width, minlength=n_pairs)
        out[:, q, 2] = np.bincount(b // width, minlength=n_pairs)
    return out


def set_union_lcs_stats(tokens, sent_offsets, text_sent_offsets, pair_pred, pair_ref):
    """kernels.registry.set_union_lcs_stats: int64[pairs, 3] of (distinct words on pltrdy's
    LCS tracebacks of the sentence pairs, the prediction's distinct words, the reference's).

    kernels.twins's traceback of every (row sentence, column sentence) pair marks the row
    sentence, up on ties: with the prediction's sentences as the rows, that is pltrdy's
    traceback (up when strictly larger, else left) of its table with reference rows."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, 3), dtype=np.int64)
    text_offsets = sent_offsets[text_sent_offsets]
    for column, texts in ((1, pair_pred), (2, pair_ref)):
        pos, owner, _ = pair_positions(text_offsets, texts)
        out[:, column] = _distinct_per_pair(n_pairs, owner, tokens[pos])
    sent_len = np.diff(sent_offsets)
    pos, pair = traced_positions(tokens, sent_offsets, *sentence_pairs(
        sent_len, text_sent_offsets, pair_ref, pair_pred))  # rows: the prediction's sentences
    out[:, 0] = _distinct_per_pair(n_pairs, pair, tokens[pos])
    return out


# scan_words' twin is the tokenizers' own Python (text.peers.words_batch), in the layer above
# the kernels: text.peers hands it here as it is imported, before anything can scan
SCAN_WORDS_TWIN: list = []


def scan_words(points, text_ends, rule):
    """kernels.scan.scan_words: text.peers.words_batch, the tokenizers' own Python."""
    return SCAN_WORDS_TWIN[0](points, text_ends, rule)
