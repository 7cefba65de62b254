"""The kernels of kernels.registry of the profiles that count sets (pltrdy's rouge 1.0.1,
rouge-chinese 1.0.3): ROUGE-N over distinct n-grams, and pltrdy's ROUGE-L, the distinct words
on the LCS of each pair of sentences. Their numpy twins are in kernels.twins_sets.

* ``distinct_ngram_stats``: (hit, pred_count, ref_count) with hit the number of distinct
  n-grams both texts have, and the counts those of each text's distinct n-grams.
* ``set_union_lcs_stats``: (words, pred_words, ref_words), where words is the number of
  distinct words on pltrdy's traceback of the LCS of every (reference sentence, prediction
  sentence) pair (``_recon_lcs``: equal tokens -> diagonal; up when the cell above is
  strictly larger, else left), and the counts those of each text's distinct words.
"""

from __future__ import annotations

import numpy as np

from .registry import copy_range, pair_dense_ids, dense_ids_into, table_size, njit
from .score import bit_rows, checkpoint_rows
from .union import mark_lcs_bits


# --------------------------------------------------------------------------------------------
# ROUGE-N over distinct n-grams


@njit(cache=True)
def _count_new(ids, lo, hi, flags, bit):
    """How many distinct ids ids[lo:hi] holds, setting ``bit`` in flags[id] for each."""
    count = 0
    for i in range(lo, hi):
        if not flags[ids[i]] & bit:
            flags[ids[i]] |= bit
            count += 1
    return count


@njit(cache=True, nogil=True)
def distinct_ngram_stats(tokens, text_offsets, pair_pred, pair_ref, orders):
    """ROUGE-N over distinct n-grams for each N in orders (int64, ascending): int64[pairs,
    len(orders), 3] of (shared distinct n-grams, the prediction's, the reference's). The
    n-gram ids of level n are made from level n - 1's and the unigrams: time
    O((len_p + len_r) * max(orders)) per pair."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, orders.shape[0], 3), dtype=np.int64)
    top = orders[orders.shape[0] - 1] if orders.shape[0] else 0
    for k in range(n_pairs):
        p = pair_pred[k]
        r = pair_ref[k]
        p0, p1, r0, r1 = text_offsets[p], text_offsets[p + 1], text_offsets[r], text_offsets[r + 1]
        lp = p1 - p0
        lr = r1 - r0
        if lp == 0 and lr == 0:
            continue
        both = np.empty(lp + lr, dtype=np.int64)
        copy_range(tokens, p0, p1, both, 0)
        copy_range(tokens, r0, r1, both, lp)
        unigram, u = pair_dense_ids(both)
        gram = unigram.copy()
        keys = np.empty(lp + lr, dtype=np.int64)
        flags = np.zeros(lp + lr, dtype=np.int8)
        q = 0
        for n in range(1, min(top, max(lp, lr)) + 1):
            if n > 1:  # gram[i]: the id of the n-gram at i, for windows inside one text
                for i in range(lp + lr):
                    inside = i + n <= lp if i < lp else i + n <= lp + lr
                    keys[i] = gram[i] * u + unigram[i + n - 1] if inside else -1
                gram, _ = pair_dense_ids(keys)
            if orders[q] != n:
                continue
            for i in range(lp + lr):
                flags[i] = 0
            cp = max(0, lp - n + 1)
            cr = max(0, lr - n + 1)
            out[k, q, 1] = _count_new(gram, 0, cp, flags, 1)
            out[k, q, 2] = _count_new(gram, lp, lp + cr, flags, 2)
            hit = 0
            for i in range(lp, lp + cr):
                g = gram[i]
                if flags[g] == 3:
                    flags[g] = 7  # counted
                    hit += 1
            out[k, q, 0] = hit
            q += 1
    return out


# --------------------------------------------------------------------------------------------
# pltrdy's ROUGE-L: distinct words on the LCS of each pair of sentences


@njit(cache=True)
def _mark_long_reference(ids, y0, m, x0, n, head, nxt, mask_of, match, mask):
    """pltrdy's traceback of its own table: reference sentence y = ids[y0:y0 + m] (rows,
    any length) against prediction sentence x = ids[x0:x0 + n] (bit rows of ceil(n / 64)
    words), marking mask[j - 1] on each match. Off a match it goes up only when the cell
    above is strictly larger: as the larger of up and left is c[i][j] and neither is below
    c[i][j] - 1, exactly when left is c[i][j] - 1, when bit j - 1 of row i is a zero, so
    one bit decides each step. Every b-th row is kept (b = sqrt(m)); a block of b rows is
    recomputed from its checkpoint, over the words left of the path, when the traceback
    reaches it (each block once: the path only moves up and left); a row without a match
    there is the row above (slot). O(sqrt(m) * n / 64) words; at most two passes of the rows
    with a match. head and mask_of (filled with -1, at least u long), nxt (n) and match
    (zeroed) are scratch, left as they were. Returns how many positions it newly marked."""
    y = ids[y0:y0 + m]
    x = ids[x0:x0 + n]
    words = (n + 63) // 64
    masks, b, checkpoints = checkpoint_rows(y, x, head, nxt, mask_of, match)
    block = np.empty((b + 1, words), dtype=np.uint64)
    slot = np.zeros(b + 1, dtype=np.int64)  # row i0 + r of the block is block[slot[r]]
    one = np.uint64(1)
    new = 0
    i = m
    j = n
    i0 = m + 1  # first row of the block held (none yet)
    while i > 0 and j > 0:
        if y[i - 1] == x[j - 1]:
            i -= 1
            j -= 1
            if not mask[j]:
                mask[j] = True
                new += 1
            continue
        if i <= i0:  # row i: recompute its block, the words left of column j
            i0 = ((i - 1) // b) * b
            width = (j + 63) >> 6
            block[0, :width] = checkpoints[i0 // b, :width]
            held = 0
            for r in range(1, min(b, m - i0) + 1):
                # a row whose first match lies past the words held equals the row above
                first = head[y[i0 + r - 1]]
                if 0 <= first < width * 64:
                    block[held + 1, :width] = block[held, :width]
                    held += 1
                    bit_rows(block[held, :width], y, i0 + r - 1, i0 + r, head, nxt, mask_of,
                             masks, match)
                slot[r] = held
        if (block[slot[i - i0], (j - 1) >> 6] >> np.uint64((j - 1) & 63)) & one:
            j -= 1  # c[i][j - 1] = c[i][j]: the cell above is not larger
        else:
            i -= 1
    for pos in range(n):
        head[x[pos]] = -1
        mask_of[x[pos]] = -1
    return new


@njit(cache=True)
def _set_union_mask(ids, lp, sent_p, sent_r, mask, by_word, scratch):
    """Mark mask[i] for each prediction position i (ids[:lp]; its sentences at sent_p) on
    pltrdy's traceback of the LCS of some (reference sentence, prediction sentence) pair (the
    reference at ids[lp:], its sentences at sent_r). Returns how many positions it marked,
    or with by_word how many distinct words: then it marks until each word that can be is
    marked somewhere (the statistics count words; the Space highlights every position).

    pltrdy traces its table (reference rows, prediction columns) up when the cell above is
    strictly larger, else left. Up to 64 reference words: mark_lcs_bits' rule (up when up
    >= left) on the transposed table, the prediction sentence as rows, the reference's
    words one machine word (the same path); past that, _mark_long_reference on pltrdy's
    own table. Either way the marks fall on the prediction. scratch: _set_union_buffers'."""
    bit_of, rows, head, nxt, mask_of, match = scratch
    # seen_in: which reference sentence last held each id. A traceback marks only positions
    # whose word its reference sentence has: a sentence pair without such a position still
    # unmarked (by_word: such a word) is skipped, and once all are marked, the rest
    seen_in = np.full(ids.shape[0], -1, dtype=np.int64)
    for q in range(lp, ids.shape[0]):
        seen_in[ids[q]] = 0
    done = np.zeros(ids.shape[0], dtype=np.bool_)  # by_word: the words marked so far
    markable = 0
    for q in range(lp):
        if seen_in[ids[q]] == 0 and not done[ids[q]]:
            markable += 1
            done[ids[q]] = by_word  # (each word counted once)
    for q in range(lp):
        done[ids[q]] = False
    marked = 0
    for si in range(sent_r.shape[0] - 1):
        y0 = lp + sent_r[si]
        y1 = lp + sent_r[si + 1]
        if y1 == y0 or marked == markable:
            continue
        for q in range(y0, y1):
            seen_in[ids[q]] = si + 1
        for sj in range(sent_p.shape[0] - 1):
            x0 = sent_p[sj]
            x1 = sent_p[sj + 1]
            fresh = False
            for q in range(x0, x1):
                if seen_in[ids[q]] == si + 1 and not (done[ids[q]] if by_word else mask[q]):
                    fresh = True
                    break
            if not fresh:
                continue
            if y1 - y0 <= 64:
                new = mark_lcs_bits(ids, x0, x1 - x0, y0, y1 - y0, bit_of, rows, mask[x0:x1])
            else:
                new = _mark_long_reference(ids, y0, y1 - y0, x0, x1 - x0, head, nxt, mask_of,
                                           match, mask[x0:x1])
            if not by_word:
                marked += new
                continue
            for q in range(x0, x1):
                if mask[q] and not done[ids[q]]:
                    done[ids[q]] = True
                    marked += 1
    return marked


@njit(cache=True)
def _set_union_buffers(max_p, max_r, n_ids):
    """Scratch arrays for _set_union_mask over sentences of up to max_p (prediction) x max_r
    (reference) tokens and up to n_ids ids: mark_lcs_bits' (zeroed), then those of
    _mark_long_reference (empty unless a reference sentence has more than 64 tokens)."""
    long = max_r > 64
    return (np.zeros(n_ids, dtype=np.uint64), np.empty(max_p + 1, dtype=np.uint64),
            np.full(n_ids if long else 0, -1, dtype=np.int64),
            np.empty(max_p if long else 0, dtype=np.int64),
            np.full(n_ids if long else 0, -1, dtype=np.int64),
            np.zeros((max_p + 63) // 64 if long else 0, dtype=np.uint64))


@njit(cache=True)
def set_union_mask(tokens, lp, sent_p, sent_r):
    """The Space's highlights: the prediction positions _set_union_mask marks, for one pair
    (tokens: the prediction's, then the reference's; sentence bounds relative to each)."""
    ids, _ = pair_dense_ids(tokens)
    max_p = 0
    for s in range(sent_p.shape[0] - 1):
        max_p = max(max_p, sent_p[s + 1] - sent_p[s])
    max_r = 0
    for s in range(sent_r.shape[0] - 1):
        max_r = max(max_r, sent_r[s + 1] - sent_r[s])
    scratch = _set_union_buffers(max_p, max_r, ids.shape[0])
    mask = np.zeros(lp, dtype=np.bool_)
    _set_union_mask(ids, lp, sent_p, sent_r, mask, False, scratch)
    return mask


@njit(cache=True, nogil=True)
def set_union_lcs_stats(tokens, sent_offsets, text_sent_offsets, pair_pred, pair_ref):
    """pltrdy's ROUGE-L: int64[pairs, 3] of (distinct words on the LCS tracebacks of the
    sentence pairs, distinct words of the prediction, distinct words of the reference)."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, 3), dtype=np.int64)
    n_max = 0
    max_p = 0
    max_r = 0
    for k in range(n_pairs):
        for side in range(2):
            t = pair_pred[k] if side == 0 else pair_ref[k]
            longest = 0
            for s in range(text_sent_offsets[t], text_sent_offsets[t + 1]):
                longest = max(longest, sent_offsets[s + 1] - sent_offsets[s])
            if side == 0:
                max_p = max(max_p, longest)
            else:
                max_r = max(max_r, longest)
        p, r = pair_pred[k], pair_ref[k]
        n_max = max(n_max, sent_offsets[text_sent_offsets[p + 1]]
                    - sent_offsets[text_sent_offsets[p]] + sent_offsets[text_sent_offsets[r + 1]]
                    - sent_offsets[text_sent_offsets[r]])
    both = np.empty(n_max, dtype=np.int64)
    ids = np.empty(n_max, dtype=np.int64)
    first = np.empty(table_size(n_max), dtype=np.int64)
    flags = np.zeros(n_max, dtype=np.int8)
    mask = np.zeros(n_max, dtype=np.bool_)
    scratch = _set_union_buffers(max_p, max_r, n_max)
    for k in range(n_pairs):
        p, r = pair_pred[k], pair_ref[k]
        sp0, sp1 = text_sent_offsets[p], text_sent_offsets[p + 1]
        sr0, sr1 = text_sent_offsets[r], text_sent_offsets[r + 1]
        t_p0, t_r0 = sent_offsets[sp0], sent_offsets[sr0]
        lp = sent_offsets[sp1] - t_p0
        lr = sent_offsets[sr1] - t_r0
        copy_range(tokens, t_p0, t_p0 + lp, both, 0)
        copy_range(tokens, t_r0, t_r0 + lr, both, lp)
        u = dense_ids_into(both, lp + lr, ids, first)
        for t in range(u):
            flags[t] = 0
        out[k, 1] = _count_new(ids, 0, lp, flags, 1)
        out[k, 2] = _count_new(ids, lp, lp + lr, flags, 2)
        if lp == 0 or lr == 0:
            continue
        for i in range(lp):
            mask[i] = False
        out[k, 0] = _set_union_mask(ids[:lp + lr], lp, sent_offsets[sp0:sp1 + 1] - t_p0,
                                    sent_offsets[sr0:sr1 + 1] - t_r0, mask, True, scratch)
    return out
