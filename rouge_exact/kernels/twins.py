"""The numpy twins of the kernels: the same statistics, the same numbers, computed on all the
pairs of a call at once with numpy, while the compiled kernels are not there yet (numba takes
seconds to compile a kernel; numpy is there at once). Each takes the arguments of the kernel
of the same name. A twin raises OutOfScope past what it does (a long skip distance on long
texts; sums exact only in one order): the backend then runs the compiled kernel, or the
plain-Python one under ROUGE_METRIC_BACKEND=numpy. Token ids need only be equal for equal
tokens: the keys are (pair, token) or (pair, n-gram id) integers.
"""

from __future__ import annotations

import numpy as np

from . import porter as _porter  # (plain Python: the kernel file, not its compiled copy)

from ..arithmetic import fixed_point_parts as exact_column_sums  # noqa: F401 - the twin
from ..arithmetic import fscore, safe_div

_WORD_BYTE = np.zeros(256, dtype=np.int64)  # as kernels.scan: base-37 digits of [a-z0-9]
_WORD_BYTE[97:123] = np.arange(1, 27)
_WORD_BYTE[48:58] = np.arange(27, 37)
_WORD_BYTE_FOLD = _WORD_BYTE.copy()  # and A-Z read as a-z
_WORD_BYTE_FOLD[65:91] = np.arange(1, 27)
_POW37 = 37 ** np.arange(13, dtype=np.int64)
MIN_STEM_CODE = 52060  # kernels.scan.MIN_STEM_CODE
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


class OutOfScope(Exception):
    """This call is for the compiled kernel."""


# The most cells, matches or sentence pairs a twin lists at once (32 MB an int64 array): the
# twins list what the kernels walk, so a long text (a sentence of 20,000 tokens, 50,000
# one-token sentences, a word repeated 50,000 times) would take gigabytes; past this, the call
# is the compiled kernel's (OutOfScope), whose memory is linear in its input
MAX_TWIN_CELLS = 4_000_000


def _within_budget(cells: int, what: str) -> None:
    if cells > MAX_TWIN_CELLS:
        raise OutOfScope(f"{cells:,} {what} to list (more than {MAX_TWIN_CELLS:,})")


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """concatenate([arange(s, s + n) for s, n in zip(starts, lengths)]) without a loop."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    keep = lengths > 0
    starts, lengths = np.asarray(starts, dtype=np.int64)[keep], lengths[keep]
    step = np.ones(total, dtype=np.int64)
    heads = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    step[0] = starts[0]
    step[heads[1:]] = starts[1:] - (starts[:-1] + lengths[:-1] - 1)
    return np.cumsum(step)


def _owner(lengths: np.ndarray) -> np.ndarray:
    """For the concatenated ranges of the given lengths: the index of the range of each item."""
    return np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)


# --------------------------------------------------------------------------------------------
# Tokenizer


def _token_bounds(buf: np.ndarray, digit: np.ndarray):
    d = digit[buf]
    inside = d > 0
    edge = np.diff(np.concatenate(([False], inside, [False])).astype(np.int8))
    starts = np.flatnonzero(edge == 1)
    ends = np.flatnonzero(edge == -1)
    return d, inside, starts, ends


def _codes(d, inside, starts, ends, max_packed_len):
    """Exact base-37 codes of the tokens of at most max_packed_len (<= 12) bytes, 0 for longer."""
    n_tok = starts.shape[0]
    if n_tok == 0:
        return np.zeros(0, dtype=np.int64)
    pos = np.flatnonzero(inside)
    token_of = np.cumsum(np.isin(pos, starts)) - 1  # byte in pos -> its token
    exponent = ends[token_of] - 1 - pos
    short = (ends - starts) <= max_packed_len
    terms = d[pos] * _POW37[np.minimum(exponent, 12)]
    terms[~short[token_of]] = 0
    first = np.searchsorted(pos, starts)
    return np.add.reduceat(terms, first)


def _breaks(buf, starts):
    """sent_ends and text_ends as the scanners return them."""
    cut = np.flatnonzero((buf == 10) | (buf == 0))
    sent_ends = np.append(np.searchsorted(starts, cut), starts.shape[0]).astype(np.int64)
    text_ends = np.append(np.flatnonzero(buf[cut] == 0) + 1, cut.shape[0] + 1).astype(np.int64)
    return sent_ends, text_ends


def scan_ascii_tokens(buf: np.ndarray, max_packed_len: int, parts: int = 1):
    """kernels.registry.scan_ascii_tokens: (codes, starts, ends, sent_ends, text_ends)."""
    d, inside, starts, ends = _token_bounds(buf, _WORD_BYTE)
    codes = _codes(d, inside, starts, ends, max_packed_len)
    sent_ends, text_ends = _breaks(buf, starts)
    return codes, starts.astype(np.int64), ends.astype(np.int64), sent_ends, text_ends


def _probe(keys: np.ndarray, codes: np.ndarray):
    """Open-addressing lookups of codes in keys (kernels.registry' hash and linear probing): the
    slot of each code, or -1 where an empty slot ends its probe."""
    size = keys.shape[0]
    bits = max(0, (size - 1).bit_length())
    mask = size - 1
    slot = ((codes.astype(np.uint64) * GOLDEN) >> np.uint64(64 - bits)).astype(np.int64) \
        if bits else np.zeros(codes.shape[0], dtype=np.int64)
    found = np.full(codes.shape[0], -2, dtype=np.int64)
    todo = np.arange(codes.shape[0])
    while todo.shape[0]:
        k = keys[slot[todo]]
        hit = k == codes[todo]
        found[todo[hit]] = slot[todo[hit]]
        found[todo[k == 0]] = -1
        todo = todo[(~hit) & (k != 0)]
        slot[todo] = (slot[todo] + 1) & mask
    return found


def scan_stem_tokens(buf: np.ndarray, max_packed_len: int, keys: np.ndarray, vals: np.ndarray,
                     stem: bool):
    """kernels.registry.scan_stem_tokens: (codes, sent_ends, text_ends, long_tok, long_start,
    long_end, pending)."""
    d, inside, starts, ends = _token_bounds(buf, _WORD_BYTE_FOLD)
    codes = _codes(d, inside, starts, ends, max_packed_len)
    long_tok = np.flatnonzero((ends - starts) > max_packed_len).astype(np.int64)
    pending = np.zeros(0, dtype=np.int64)
    if stem:
        candidates = np.flatnonzero(codes >= MIN_STEM_CODE)
        slot = _probe(keys, codes[candidates])
        value = np.where(slot >= 0, vals[np.maximum(slot, 0)], 0)
        resolved = value > 0
        codes[candidates[resolved]] = value[resolved]
        pending = candidates[~resolved].astype(np.int64)
    sent_ends, text_ends = _breaks(buf, starts)
    return (codes, sent_ends, text_ends, long_tok, starts[long_tok].astype(np.int64),
            ends[long_tok].astype(np.int64), pending)


def stem_table_insert(keys, vals, new_keys, new_vals):
    """kernels.registry.stem_table_insert, in rounds: in each, the codes whose slot is theirs or
    empty are written (the first of several wanting one empty slot), the rest probe on.
    Another order of insertion than the kernel's gives another layout, but the same lookups
    (every key stays reachable from its hash without crossing an empty slot)."""
    size = keys.shape[0]
    bits = max(0, (size - 1).bit_length())
    mask = size - 1
    codes = np.asarray(new_keys, dtype=np.int64)
    values = np.asarray(new_vals, dtype=np.int64)
    # the kernel inserts in order: for a repeated code the last value wins
    _, last = np.unique(codes[::-1], return_index=True)
    keep = np.sort(codes.shape[0] - 1 - last)
    codes, values = codes[keep], values[keep]
    slot = ((codes.astype(np.uint64) * GOLDEN) >> np.uint64(64 - bits)).astype(np.int64) \
        if bits else np.zeros(codes.shape[0], dtype=np.int64)
    todo = np.arange(codes.shape[0])
    while todo.shape[0]:
        k = keys[slot[todo]]
        mine = k == codes[todo]
        vals[slot[todo[mine]]] = values[todo[mine]]
        empty = np.flatnonzero(k == 0)
        _, first = np.unique(slot[todo[empty]], return_index=True)
        take = todo[empty[first]]
        keys[slot[take]] = codes[take]
        vals[slot[take]] = values[take]
        done = np.zeros(todo.shape[0], dtype=bool)
        done[mine] = True
        done[empty[first]] = True
        moving = todo[(~done) & (k != 0) & ~mine]
        slot[moving] = (slot[moving] + 1) & mask
        todo = todo[~done]


def dense_ids(values: np.ndarray):
    """kernels.registry.dense_ids: ids 0..u-1 in order of first appearance, and u."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    if values.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), 0
    uniq, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    rank = np.empty(uniq.shape[0], dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(uniq.shape[0])
    return rank[inverse.reshape(-1)], int(uniq.shape[0])


# --------------------------------------------------------------------------------------------
# Counting statistics: clipped multiset intersections per pair


def _clipped_hits_per_pair(n_pairs, pred_pair, pred_key, ref_pair, ref_key):
    """For each pair k: sum over keys g of min(#{pred items of k with key g}, #{ref ...})."""
    hits = np.zeros(n_pairs, dtype=np.int64)
    if pred_key.shape[0] == 0 or ref_key.shape[0] == 0:
        return hits
    _, dense = np.unique(np.concatenate((pred_key, ref_key)), return_inverse=True)
    dense = dense.reshape(-1)
    width = int(dense.max()) + 1
    a, ca = np.unique(pred_pair * width + dense[:pred_key.shape[0]], return_counts=True)
    b, cb = np.unique(ref_pair * width + dense[pred_key.shape[0]:], return_counts=True)
    common, ia, ib = np.intersect1d(a, b, assume_unique=True, return_indices=True)
    np.add.at(hits, common // width, np.minimum(ca[ia], cb[ib]))
    return hits


def pair_positions(text_offsets, texts):
    """Token positions of the given texts, concatenated, and the owning index of each."""
    starts = text_offsets[texts]
    lengths = text_offsets[texts + 1] - starts
    return _ranges(starts, lengths), _owner(lengths), lengths


def _side_windows(text_offsets, pair_pred, pair_ref):
    """The token positions of the pairs' predictions then references, with for each: the pair,
    the side (0 pred, 1 ref), its index within its text and its text's length. A text's
    positions are consecutive, so item q + d is the token d places further on."""
    lengths = np.diff(text_offsets)
    lp, lr = lengths[pair_pred], lengths[pair_ref]
    pos = _ranges(np.concatenate((text_offsets[pair_pred], text_offsets[pair_ref])),
                  np.concatenate((lp, lr)))
    n_pairs = pair_pred.shape[0]
    pair = np.concatenate((_owner(lp), _owner(lr)))
    side = np.repeat(np.array([0, 1], dtype=np.int64), [int(lp.sum()), int(lr.sum())])
    length = np.concatenate((lp, lr))[np.concatenate((_owner(lp), _owner(lr) + n_pairs))]
    heads = np.concatenate(([0], np.cumsum(np.concatenate((lp, lr)))[:-1]))
    local = np.arange(pos.shape[0]) - np.repeat(heads, np.concatenate((lp, lr)))
    return pos, pair, side, local, length, lp, lr


def _dense(values):
    _, ids = np.unique(values, return_inverse=True)
    return ids.reshape(-1).astype(np.int64)


def ngram_levels(tokens, text_offsets, pair_pred, pair_ref, orders):
    """For each N in orders (ascending) that some text is long enough for: (its column in
    orders, the pair and n-gram id of each prediction window, the same of each reference
    window). The ids of level n are made from level n - 1's and the unigrams."""
    orders = np.asarray(orders, dtype=np.int64)
    pos, pair, side, local, length, lp, lr = _side_windows(text_offsets, pair_pred, pair_ref)
    unigram = _dense(tokens[pos])
    vocabulary = int(unigram.max(initial=0)) + 1
    gram = unigram  # gram[q] = id of the n-gram starting at item q (level n)
    column = {int(n): q for q, n in enumerate(orders.tolist())}
    for n in range(1, int(orders.max(initial=0)) + 1):
        valid = local + n <= length
        if n > 1:
            q = np.flatnonzero(valid)
            if q.shape[0] == 0:
                return  # no text this long: no n-grams from here on
            keys = np.full(pos.shape[0], -1, dtype=np.int64)
            keys[q] = gram[q] * vocabulary + unigram[q + n - 1]
            gram = _dense(keys)
        if n in column:
            p = valid & (side == 0)
            r = valid & (side == 1)
            yield column[n], pair[p], gram[p], pair[r], gram[r]


def ngram_stats(tokens, text_offsets, pair_pred, pair_ref, orders):
    """kernels.registry.ngram_stats: int64[pairs, len(orders), 3] of (hit, pred_count, ref_count)
    for each N in orders (ascending)."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, len(orders), 3), dtype=np.int64)
    for q, p_pair, p_gram, r_pair, r_gram in ngram_levels(tokens, text_offsets, pair_pred,
                                                          pair_ref, orders):
        if p_pair.shape[0] and r_pair.shape[0]:
            out[:, q, 0] = _clipped_hits_per_pair(n_pairs, p_pair, p_gram, r_pair, r_gram)
    lengths = np.diff(text_offsets)
    for q, n in enumerate(np.asarray(orders).tolist()):
        out[:, q, 1] = np.maximum(0, lengths[pair_pred] - n + 1)
        out[:, q, 2] = np.maximum(0, lengths[pair_ref] - n + 1)
    return out


def skip_bigram_stats(tokens, text_offsets, pair_pred, pair_ref, max_skip, unigrams):
    """kernels.registry.skip_bigram_stats: int64[pairs, 3] of (hit, pred_count, ref_count). It
    lists the skip-bigrams, O(length x distance) of them: OutOfScope past MAX_TWIN_CELLS (a
    long distance on long texts; the compiled kernel counts them in O(length) memory)."""
    n_pairs = pair_pred.shape[0]
    pos, pair, side, local, length, lp, lr = _side_windows(text_offsets, pair_pred, pair_ref)
    longest = int(length.max(initial=0))
    reach = longest - 1 if max_skip < 0 else min(max_skip + 1, max(longest - 1, 0))
    # how many there are: a text of L tokens has sum over gaps g <= r of L - g, r = min(reach,
    # L - 1) (L <= the tokens of one call: no overflow)
    lengths = np.concatenate((lp, lr)).astype(np.int64)
    gaps = np.maximum(np.minimum(lengths, reach + 1) - 1, 0)
    _within_budget(int((gaps * lengths - gaps * (gaps + 1) // 2).sum()), "skip-bigrams")
    ids = _dense(tokens[pos])
    u = int(ids.max(initial=0)) + 1
    items, keys = [], []
    for gap in range(1, reach + 1):
        q = np.flatnonzero(local + gap < length)
        items.append(q)
        keys.append(ids[q] * u + ids[q + gap])
    if unigrams:
        q = np.flatnonzero(local < length - 1)
        items.append(q)
        keys.append(u * u + ids[q])
    q = np.concatenate(items) if items else np.zeros(0, dtype=np.int64)
    key = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    p = side[q] == 0
    out = np.zeros((n_pairs, 3), dtype=np.int64)
    out[:, 0] = _clipped_hits_per_pair(n_pairs, pair[q[p]], key[p], pair[q[~p]], key[~p])
    out[:, 1] = np.bincount(pair[q[p]], minlength=n_pairs)
    out[:, 2] = np.bincount(pair[q[~p]], minlength=n_pairs)
    return out


# --------------------------------------------------------------------------------------------
# LCS: Hyyro's bit-parallel rows, one step for all pairs at once


def _matches(pred_pos, pred_owner, ref_pos, ref_owner, tokens):
    """All (owner, pred item, ref item) with equal tokens: indices into pred_pos / ref_pos."""
    if pred_pos.shape[0] == 0 or ref_pos.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    _, ids = np.unique(np.concatenate((tokens[pred_pos], tokens[ref_pos])), return_inverse=True)
    ids = ids.reshape(-1)
    width = int(ids.max()) + 1
    pk = pred_owner * width + ids[:pred_pos.shape[0]]
    rk = ref_owner * width + ids[pred_pos.shape[0]:]
    order = np.argsort(pk)
    sorted_pk = pk[order]
    lo = np.searchsorted(sorted_pk, rk, side="left")
    hi = np.searchsorted(sorted_pk, rk, side="right")
    count = hi - lo
    _within_budget(int(count.sum()), "matching token pairs")
    ref_item = np.repeat(np.arange(rk.shape[0]), count)
    pred_item = order[_ranges(lo, count)]
    return pred_item, ref_item


def _add_words(v, m, words):
    """(v + (v & m)) | (v & ~m) on rows of `words` uint64 words (little-endian), with carries."""
    carry = np.zeros(v.shape[0], dtype=np.uint64)
    out = np.empty_like(v)
    for w in range(words):
        x = v[:, w]
        y = x & m[:, w]
        s = x + y
        c1 = (s < x).astype(np.uint64)
        s2 = s + carry
        c2 = (s2 < s).astype(np.uint64)
        carry = c1 | c2
        out[:, w] = s2 | (x & ~m[:, w])
    return out


def lcs_stats(tokens, text_offsets, pair_pred, pair_ref):
    """kernels.registry.lcs_stats: int64[pairs, 3] of (lcs, pred_len, ref_len)."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, 3), dtype=np.int64)
    lengths = np.diff(text_offsets)
    lp, lr = lengths[pair_pred], lengths[pair_ref]
    out[:, 1], out[:, 2] = lp, lr
    # groups of pairs with similar sizes, so the steps (one per reference token) are not
    # wasted on short pairs; words of 64 bits hold the prediction tokens
    words = (lp + 63) // 64
    order = np.lexsort((lr, words))
    for chosen in _groups(order, lr[order] + 1, words[order] + 1, 4_000_000):
        out[chosen, 0] = _lcs_group(tokens, text_offsets, pair_pred[chosen], pair_ref[chosen],
                                    lp[chosen], lr[chosen])
    return out


def _lcs_group(tokens, text_offsets, pair_pred, pair_ref, lp, lr):
    n = pair_pred.shape[0]
    words = max(1, (int(lp.max(initial=0)) + 63) // 64)
    steps = int(lr.max(initial=0))
    if steps == 0 or words == 0:
        return np.zeros(n, dtype=np.int64)
    _within_budget(steps * n * words, "bit-row words")
    p_pos, p_owner, _ = pair_positions(text_offsets, pair_pred)
    r_pos, r_owner, _ = pair_positions(text_offsets, pair_ref)
    pred_item, ref_item = _matches(p_pos, p_owner, r_pos, r_owner, tokens)
    i = p_pos[pred_item] - text_offsets[pair_pred][p_owner[pred_item]]  # bit: pred position
    j = r_pos[ref_item] - text_offsets[pair_ref][r_owner[ref_item]]  # step: ref position
    owner = p_owner[pred_item]
    masks = np.zeros((steps, n, words), dtype=np.uint64)
    np.bitwise_or.at(masks, (j, owner, i >> 6), np.left_shift(np.uint64(1),
                                                              (i & 63).astype(np.uint64)))
    v = np.full((n, words), _ONES, dtype=np.uint64)
    for step in range(steps):
        v = _add_words(v, masks[step], words)
    # zeros among the first lp bits
    bit = np.arange(words * 64)
    valid = bit[None, :] < lp[:, None]
    bits = np.unpackbits(v.view(np.uint8), axis=1, bitorder="little")[:, :words * 64]
    return ((bits == 0) & valid).sum(axis=1).astype(np.int64)


def sentence_pairs(sent_len, text_sent_offsets, pair_pred, pair_ref) -> tuple:
    """Every (reference sentence, prediction sentence) of every pair, both non-empty: their
    sentence indices ys and xs, the pair each belongs to, and their lengths ly and lx."""
    p_s0, p_s1 = text_sent_offsets[pair_pred], text_sent_offsets[pair_pred + 1]
    r_s0, r_s1 = text_sent_offsets[pair_ref], text_sent_offsets[pair_ref + 1]
    n_ps, n_rs = p_s1 - p_s0, r_s1 - r_s0
    per_pair = n_ps * n_rs
    _within_budget(int(per_pair.sum()), "sentence pairs")
    combo_pair = _owner(per_pair)
    within = np.arange(combo_pair.shape[0]) - np.repeat(np.cumsum(per_pair) - per_pair, per_pair)
    ys = r_s0[combo_pair] + within // np.maximum(n_ps[combo_pair], 1)
    xs = p_s0[combo_pair] + within % np.maximum(n_ps[combo_pair], 1)
    ly, lx = sent_len[ys], sent_len[xs]
    live = (ly > 0) & (lx > 0)
    return ys[live], xs[live], combo_pair[live], ly[live], lx[live]


def union_lcs_stats(tokens, sent_offsets, text_sent_offsets, clip_tokens, clip_offsets,
                    pair_pred, pair_ref):
    """kernels.registry.union_lcs_stats: int64[pairs, 3] of (hit, pred_len, ref_len).

    For each (reference sentence y, prediction sentence x) of a pair: the bit rows of the LCS
    table, then the traceback (equal -> diagonal; up >= left -> up; else left) marks positions
    of y, all sentence pairs in step. Then, per token t, the clipped hits are
    min(marked copies of t, copies in the clipping view of the reference, of the prediction):
    the kernel's in-order decrements count exactly that."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, 3), dtype=np.int64)
    out[:, 1] = clip_offsets[pair_pred + 1] - clip_offsets[pair_pred]
    out[:, 2] = sent_offsets[text_sent_offsets[pair_ref + 1]] - \
        sent_offsets[text_sent_offsets[pair_ref]]
    sent_len = np.diff(sent_offsets)
    if n_pairs == 0:
        return out
    pos, pair = traced_positions(tokens, sent_offsets, *sentence_pairs(
        sent_len, text_sent_offsets, pair_pred, pair_ref))
    if pos.shape[0] == 0:
        return out
    # the union: a reference position marked by several prediction sentences counts once
    unique_key = np.unique(pair * tokens.shape[0] + pos)
    pair, pos = unique_key // tokens.shape[0], unique_key % tokens.shape[0]
    # clipping: per (pair, token value) min(marked, clip ref copies, clip pred copies)
    values = tokens[pos]
    cp_pos, cp_owner, _ = pair_positions(clip_offsets, pair_pred)
    cr_pos, cr_owner, _ = pair_positions(clip_offsets, pair_ref)
    all_values = np.concatenate((values, clip_tokens[cp_pos], clip_tokens[cr_pos]))
    _, ids = np.unique(all_values, return_inverse=True)
    ids = ids.reshape(-1)
    width = int(ids.max()) + 1
    m = values.shape[0]
    k_mark = pair * width + ids[:m]
    k_pred = cp_owner * width + ids[m:m + cp_pos.shape[0]]
    k_ref = cr_owner * width + ids[m + cp_pos.shape[0]:]
    a, ca = np.unique(k_mark, return_counts=True)
    b, cb = np.unique(k_pred, return_counts=True)
    c, cc = np.unique(k_ref, return_counts=True)
    ab, ia, ib = np.intersect1d(a, b, assume_unique=True, return_indices=True)
    abc, ja, jc = np.intersect1d(ab, c, assume_unique=True, return_indices=True)
    hits = np.minimum(np.minimum(ca[ia][ja], cb[ib][ja]), cc[jc])
    np.add.at(out[:, 0], abc // width, hits)
    return out


def traced_positions(tokens, sent_offsets, ys, xs, combo_pair, ly, lx) -> tuple:
    """The token positions the traceback of every sentence pair (sentence_pairs' ys, xs,
    combo_pair, ly, lx) marks on its ys sentence, and the pair of each: the sentence pairs in
    groups of similar sizes (the steps are ys tokens, the words of 64 bits hold xs tokens)."""
    marked_pos, marked_pair = [], []
    words = (lx + 63) // 64
    order = np.lexsort((ly, words))
    for c in _groups(order, ly[order] + 1, words[order] + 1, 2_000_000):
        pos, owner = _mark_group(tokens, sent_offsets, ys[c], xs[c], ly[c], lx[c])
        marked_pos.append(pos)
        marked_pair.append(combo_pair[c][owner])
    if not marked_pos:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(marked_pos), np.concatenate(marked_pair)


def _groups(order, steps, width, budget):
    """Cut `order` into runs of consecutive items whose max(steps) * max(width) * len(run)
    stays within budget (at least one item a run): the arrays a group allocates."""
    steps, width = steps.tolist(), width.tolist()
    start, n = 0, len(steps)
    while start < n:
        end, most_steps, most_width = start, 0, 0
        while end < n:
            s, w = max(most_steps, steps[end]), max(most_width, width[end])
            if end > start and s * w * (end + 1 - start) > budget:
                break
            most_steps, most_width, end = s, w, end + 1
        yield order[start:end]
        start = end


def _mark_group(tokens, sent_offsets, ys, xs, ly, lx):
    """Traceback marks of the sentence pairs (y = reference sentence, x = prediction sentence):
    token positions of the marked y tokens and the sentence pair of each."""
    n = ys.shape[0]
    steps = int(ly.max(initial=0))
    words = max(1, (int(lx.max(initial=0)) + 63) // 64)
    _within_budget((steps + 1) * n * (words + 2), "bit-row words")
    y_pos, y_owner, _ = pair_positions(sent_offsets, ys)
    x_pos, x_owner, _ = pair_positions(sent_offsets, xs)
    x_item, y_item = _matches(x_pos, x_owner, y_pos, y_owner, tokens)
    col = x_pos[x_item] - sent_offsets[xs][x_owner[x_item]]
    row = y_pos[y_item] - sent_offsets[ys][y_owner[y_item]]
    masks = np.zeros((steps, n, words), dtype=np.uint64)
    np.bitwise_or.at(masks, (row, x_owner[x_item], col >> 6),
                     np.left_shift(np.uint64(1), (col & 63).astype(np.uint64)))
    # rows[i, c, w]; an extra all-ones word, so that a bound j = 64 * words reads zero there
    rows = np.full((steps + 1, n, words + 1), _ONES, dtype=np.uint64)
    v = rows[0, :, :words].copy()
    for i in range(steps):
        v = _add_words(v, masks[i], words) if words > 1 else (v + (v & masks[i])) | (v & ~masks[i])
        rows[i + 1, :, :words] = v
    # zeros of row i below word w: cumulative over the words
    zeros_before = np.zeros((steps + 1, n, words + 2), dtype=np.int64)
    np.cumsum(np.bitwise_count(~rows), axis=2, out=zeros_before[:, :, 1:])
    # traceback, all sentence pairs in step
    y0 = sent_offsets[ys]
    x0 = sent_offsets[xs]
    return _trace_back(ly, lx, y0, lambda a, ia, ja: (
        tokens[y0[a] + ia - 1] == tokens[x0[a] + ja - 1],
        zeros_below(rows, zeros_before, ia - 1, a, ja)
        >= zeros_below(rows, zeros_before, ia, a, ja - 1)))


def _trace_back(ly, lx, y0, step):
    """The traceback of every sentence pair at once, from (ly, lx): step(a, i, j) says, for
    the pairs a at cells (i, j), whether the tokens are equal (-> diagonal, marking reference
    position i - 1) and whether up >= left (-> up; else left). Returns the marked token
    positions (y0: each pair's first reference token) and the sentence pair of each."""
    i = ly.astype(np.int64).copy()
    j = lx.astype(np.int64).copy()
    out_pos, out_owner = [], []
    active = np.flatnonzero((i > 0) & (j > 0))
    while active.shape[0]:
        a = active
        ia, ja = i[a], j[a]
        equal, up_wins = step(a, ia, ja)
        go_up = ~equal & up_wins
        go_left = ~equal & ~go_up
        out_pos.append(y0[a[equal]] + ia[equal] - 1)
        out_owner.append(a[equal])
        i[a[equal | go_up]] -= 1
        j[a[equal | go_left]] -= 1
        active = a[(i[a] > 0) & (j[a] > 0)]
    if not out_pos:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(out_pos), np.concatenate(out_owner)


def zeros_below(rows, zeros_before, i, c, j):
    """Zero bits of row i of sentence pair c among bits 0..j-1: the LCS table value c[i][j]."""
    w = j >> 6
    low = (np.uint64(1) << (j & 63).astype(np.uint64)) - np.uint64(1)
    return zeros_before[i, c, w] + np.bitwise_count(~rows[i, c, w] & low).astype(np.int64)


# --------------------------------------------------------------------------------------------
# ROUGE-W: ROUGE-1.5.5's weighted LCS, the table filled one anti-diagonal at a time for all
# sentence pairs at once


def _powers(top: int, weight: float) -> np.ndarray:
    """f[k] = float(k) ** weight for k = 0..top, by Python's float power (the C library's pow,
    as the compiled kernel calls it): the same bits as the kernel's k ** weight."""
    return np.array([float(k) ** weight for k in range(top + 1)], dtype=np.float64)


def _sequential_add(n: int, owner: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """total[k] = ((0.0 + t1) + t2) + ... over the terms of owner k, in their order: the
    kernel's running sums, bit for bit (owner sorted, ties in term order)."""
    total = np.zeros(n, dtype=np.float64)
    if owner.shape[0] == 0:
        return total
    starts = np.searchsorted(owner, np.arange(n))
    counts = np.bincount(owner, minlength=n)
    for q in range(int(counts.max())):
        has = np.flatnonzero(counts > q)
        total[has] += terms[starts[has] + q]
    return total


def wlcs_stats(tokens, sent_offsets, text_sent_offsets, clip_tokens, clip_offsets, pair_pred,
               pair_ref, weight):
    """kernels.registry.wlcs_stats: float64[pairs, 3] of (weighted hit, pred_len, ref_base)."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, 3), dtype=np.float64)
    out[:, 1] = clip_offsets[pair_pred + 1] - clip_offsets[pair_pred]
    sent_len = np.diff(sent_offsets)
    f = _powers(int(sent_len.max(initial=0)) + 1, weight)
    r_s0, r_s1 = text_sent_offsets[pair_ref], text_sent_offsets[pair_ref + 1]
    ref_sents = _ranges(r_s0, r_s1 - r_s0)
    out[:, 2] = _sequential_add(n_pairs, _owner(r_s1 - r_s0), f[sent_len[ref_sents]])
    if n_pairs == 0:
        return out
    ys, xs, combo_pair, ly, lx = sentence_pairs(sent_len, text_sent_offsets, pair_pred,
                                                 pair_ref)
    marked_pos, marked_pair = [], []
    order = np.lexsort((lx, ly))
    for c in _groups(order, ly[order] + 1, lx[order] + ly[order] + 1, 1_500_000):
        pos, owner = _weighted_marks(tokens, sent_offsets, ys[c], xs[c], ly[c], lx[c], f)
        marked_pos.append(pos)
        marked_pair.append(combo_pair[c][owner])
    if not marked_pos:
        return out
    key = np.unique(np.concatenate(marked_pair) * tokens.shape[0] + np.concatenate(marked_pos))
    if key.shape[0] == 0:
        return out
    pair, pos = key // tokens.shape[0], key % tokens.shape[0]  # in reference order per pair
    # clipping: the r-th marked copy of token t in a pair is counted while r < min(copies of t
    # in the reference's and in the prediction's clipping view)
    values = tokens[pos]
    cp_pos, cp_owner, _ = pair_positions(clip_offsets, pair_pred)
    cr_pos, cr_owner, _ = pair_positions(clip_offsets, pair_ref)
    _, ids = np.unique(np.concatenate((values, clip_tokens[cp_pos], clip_tokens[cr_pos])),
                       return_inverse=True)
    ids = ids.reshape(-1)
    width = int(ids.max()) + 1
    m = values.shape[0]
    k_mark = pair * width + ids[:m]
    limit = np.minimum(_count_of(k_mark, cp_owner * width + ids[m:m + cp_pos.shape[0]]),
                       _count_of(k_mark, cr_owner * width + ids[m + cp_pos.shape[0]:]))
    by_key = np.argsort(k_mark, kind="stable")  # reference order within a key
    rank = np.empty(m, dtype=np.int64)
    sorted_keys = k_mark[by_key]
    first = np.searchsorted(sorted_keys, sorted_keys, side="left")
    rank[by_key] = np.arange(m) - first
    counted = rank < limit
    # runs: within a reference sentence, a counted position that ends a block of marked
    # positions adds f(counted positions since the last such one); a marked position that is
    # not counted neither counts nor ends a run; what is open at the sentence's end is dropped
    sentence = np.searchsorted(sent_offsets, pos, side="right") - 1
    next_marked = np.zeros(m, dtype=bool)
    next_marked[:-1] = (pos[1:] == pos[:-1] + 1) & (pair[1:] == pair[:-1]) & \
        (sentence[1:] == sentence[:-1])
    flush = counted & ~next_marked
    group_start = np.r_[True, (pair[1:] != pair[:-1]) | (sentence[1:] != sentence[:-1])]
    group = np.cumsum(group_start) - 1
    running = np.cumsum(counted)  # counted positions up to and including each
    starts = np.flatnonzero(group_start)
    before = np.where(starts > 0, running[np.maximum(starts - 1, 0)], 0)  # before each group
    at_flush = np.flatnonzero(flush)
    so_far = running[at_flush] - before[group[at_flush]]  # counted in the sentence so far
    previous = np.zeros(at_flush.shape[0], dtype=np.int64)
    same = group[at_flush][1:] == group[at_flush][:-1]
    previous[1:][same] = so_far[:-1][same]
    run = so_far - previous
    out[:, 0] = _sequential_add(n_pairs, pair[at_flush], f[run])
    return out


def _count_of(keys: np.ndarray, population: np.ndarray) -> np.ndarray:
    """For each key: how many items of population equal it."""
    values, counts = np.unique(population, return_counts=True)
    where = np.searchsorted(values, keys)
    where = np.minimum(where, max(values.shape[0] - 1, 0))
    found = values.shape[0] > 0
    return np.where(found & (values[where] == keys), counts[where], 0) if found else \
        np.zeros(keys.shape[0], dtype=np.int64)


def _weighted_marks(tokens, sent_offsets, ys, xs, ly, lx, f):
    """Traceback marks of the weighted LCS tables of sentence pairs (y reference, x
    prediction): token positions of marked y tokens and the sentence pair of each. The table:
    equal tokens -> diagonal + (f(k + 1) - f(k)) added as (c + f(k+1)) - f(k), k the run
    ending on the diagonal; else the larger of up and left; traceback: equal -> diagonal,
    up >= left -> up, else left (the kernel's _dp_block and mark_path)."""
    n = ys.shape[0]
    rows, cols = int(ly.max()), int(lx.max())
    _within_budget((rows + cols + 1) * (rows + 1) * n, "weighted LCS cells")
    # tokens as [position, sentence pair] (a step reads contiguous rows); padding never equal
    y_tok = np.full((rows, n), -1, dtype=np.int64)
    x_tok = np.full((cols, n), -2, dtype=np.int64)
    y_pos, y_owner, _ = pair_positions(sent_offsets, ys)
    x_pos, x_owner, _ = pair_positions(sent_offsets, xs)
    y_tok[y_pos - sent_offsets[ys][y_owner], y_owner] = tokens[y_pos]
    x_tok[x_pos - sent_offsets[xs][x_owner], x_owner] = tokens[x_pos]
    # the tables by anti-diagonal: cell (i, j) at [i + j, i, pair]; row 0 and column 0 are 0
    c = np.zeros((rows + cols + 1, rows + 1, n), dtype=np.float64)
    run = np.zeros((rows + cols + 1, rows + 1, n), dtype=np.int64)
    for d in range(2, rows + cols + 1):
        lo, hi = max(1, d - cols), min(rows, d - 1)
        # cells (i, d - i) for i = lo..hi; x index d - i - 1 runs down as i runs up
        equal = y_tok[lo - 1:hi] == x_tok[d - hi - 1:d - lo][::-1]
        k = run[d - 2, lo - 1:hi]
        up = c[d - 1, lo - 1:hi]
        left = c[d - 1, lo:hi + 1]
        diagonal = (c[d - 2, lo - 1:hi] + f[k + 1]) - f[k]
        c[d, lo:hi + 1] = np.where(equal, diagonal, np.where(up >= left, up, left))
        run[d, lo:hi + 1] = np.where(equal, k + 1, 0)
    return _trace_back(ly, lx, sent_offsets[ys], lambda a, ia, ja: (
        y_tok[ia - 1, a] == x_tok[ja - 1, a],
        c[ia + ja - 1, ia - 1, a] >= c[ia + ja - 1, ia, a]))


# --------------------------------------------------------------------------------------------
# The default profile's bootstrap

_MIX1 = np.uint64(0xBF58476D1CE4E5B9)  # splitmix64's finalizer (kernels.sums._mix64)
_MIX2 = np.uint64(0x94D049BB133111EB)
_BOOTSTRAP_CELLS = 1 << 22  # rows x samples drawn at a time (32 MB of uint64)


def _mix64(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def poisson_bootstrap_sums(values, keys, occurrences, seed, n_samples, cdf):
    """kernels.registry.poisson_bootstrap_sums: the same splitmix64 streams, drawn for a block of
    rows at once. Its sums equal the kernel's where they are exact in any order: values that
    are integers (fixed-point scores, token counts). ROUGE-W's weighted counts (micro) are
    not: OutOfScope, and the compiled kernel sums them in its own order."""
    if not np.array_equal(values, np.floor(values)):
        raise OutOfScope("values that are not integers: their sums depend on the order")
    n_rows, n_columns = values.shape
    sums = np.zeros((n_samples, n_columns), dtype=np.float64)
    weights = np.zeros(n_samples, dtype=np.int64)
    half = (n_samples + 1) // 2
    steps = (np.arange(1, half + 1, dtype=np.uint64) * GOLDEN)[None, :]
    with np.errstate(over="ignore"):
        row_seeds = _mix64(keys.astype(np.uint64) ^ _mix64(occurrences.astype(np.uint64)
                                                             ^ _mix64(np.uint64(seed))))
        block = max(1, _BOOTSTRAP_CELLS // max(1, n_samples))
        for r0 in range(0, n_rows, block):
            z = _mix64(row_seeds[r0:r0 + block, None] + steps)  # rows x samples/2
            w = np.empty((z.shape[0], 2 * half), dtype=np.float64)
            # sample b takes half b % 2 of output b // 2 + 1; #{k : u >= cdf[k]}
            w[:, 0::2] = np.searchsorted(cdf, z >> np.uint64(32), side="right")
            w[:, 1::2] = np.searchsorted(cdf, z & np.uint64(0xFFFFFFFF), side="right")
            w = w[:, :n_samples]
            weights += w.sum(axis=0).astype(np.int64)
            sums += w.T @ values[r0:r0 + block].astype(np.float64)
    return sums, weights


def example_prf(counts, alpha):
    """As kernels.registry.example_prf: (P, R, F) from (hit, den_p, den_r), elementwise."""
    out = np.empty(counts.shape, dtype=np.float64)
    out[..., :2] = safe_div(counts[..., :1], counts[..., 1:])
    out[..., 2] = fscore(out[..., 0], out[..., 1], alpha)
    return out


def porter_stem_codes(codes):
    """kernels.porter.porter_stem_codes, the same file run as plain Python (~30 us a word):
    a small call's words are stemmed without nltk's import (0.15-0.25 s), which is longer
    than stemming them; tests/test_porter_kernel.py holds it equal to nltk."""
    with np.errstate(over="ignore"):
        return _porter.porter_stem_codes(np.ascontiguousarray(codes, dtype=np.int64))
