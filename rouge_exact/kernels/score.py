"""The pair kernels of kernels.registry that read each text as one sequence: ROUGE-N (n-grams by
doubling), ROUGE-L (the LCS of the whole texts, bit-parallel) and ROUGE-S/SU (skip-bigrams),
and the bit-parallel LCS rows that the union LCS (kernels.union) shares."""

from __future__ import annotations

import numpy as np

from .registry import clipped_hits, copy_range, pair_dense_ids, pair_ids, njit


# --------------------------------------------------------------------------------------------
# ROUGE-N


@njit(cache=True)
def _join_windows(a_ids, a, b_ids, b, lp, lr):
    """Dense ids of the (a + b)-grams of both texts from those of the a-grams and b-grams
    (each: prediction windows, then reference windows): the (a + b)-gram at i is the a-gram
    at i followed by the b-gram at i + a, keyed exactly as id_a * u_b + id_b. Needs
    lp, lr >= a + b."""
    cp = lp - a - b + 1
    cr = lr - a - b + 1
    u_b = 0
    # only the b-grams' own windows: the slots after them are unused, and a stale value there
    # (np.empty) made u_b huge, so a_id * u_b wrapped and distinct n-grams could collide
    for i in range((lp - b + 1) + (lr - b + 1)):
        u_b = max(u_b, b_ids[i] + 1)
    keys = np.empty(cp + cr, dtype=np.int64)
    a_ref = lp - a + 1  # where each level's reference windows start
    b_ref = lp - b + 1
    for i in range(cp):
        keys[i] = a_ids[i] * u_b + b_ids[i + a]
    for i in range(cr):
        keys[cp + i] = a_ids[a_ref + i] * u_b + b_ids[b_ref + i + a]
    ids, _ = pair_dense_ids(keys)
    return ids


@njit(cache=True)
def _ngram_pair(tokens, p0, p1, r0, r1, orders, out):
    """Fill out[q] = (hit, pred_count, ref_count) for n = orders[q] (ascending). Only the
    requested orders are built, each from the ids of power-of-two orders (doubling): time
    O((len_p + len_r) * log n) per order, memory O((len_p + len_r) * log n_max)."""
    lp = p1 - p0
    lr = r1 - r0
    for q in range(orders.shape[0]):
        n = orders[q]
        out[q, 0] = 0
        out[q, 1] = max(0, lp - n + 1)
        out[q, 2] = max(0, lr - n + 1)
    shortest = min(lp, lr)
    if shortest == 0:
        return
    both = np.empty(lp + lr, dtype=np.int64)
    copy_range(tokens, p0, p1, both, 0)
    copy_range(tokens, r0, r1, both, lp)
    ids, u = pair_dense_ids(both)
    # powers[t]: ids of the 2^t-grams (2^t <= shortest and <= the largest order asked: rouge1
    # needs no doubling at all), the same length-(lp + lr) slots
    longest = min(shortest, orders[orders.shape[0] - 1])
    n_powers = 1
    while (1 << n_powers) <= longest:
        n_powers += 1
    powers = np.zeros((n_powers, lp + lr), dtype=np.int64)
    copy_range(ids, 0, lp + lr, powers[0], 0)
    for t in range(1, n_powers):
        half = 1 << (t - 1)
        level = _join_windows(powers[t - 1], half, powers[t - 1], half, lp, lr)
        copy_range(level, 0, level.shape[0], powers[t], 0)
    for q in range(orders.shape[0]):
        n = orders[q]
        if n > shortest:
            break
        t = n_powers - 1
        while (1 << t) > n:
            t -= 1
        win = powers[t][:lp + lr - 2 * ((1 << t) - 1)]
        size = 1 << t
        for s in range(t - 1, -1, -1):
            if n & (1 << s):
                win = _join_windows(win, size, powers[s], 1 << s, lp, lr)
                size += 1 << s
        cp = lp - n + 1
        out[q, 0] = clipped_hits(win[:cp], win[cp:], lp + lr)
        if out[q, 0] == 0:
            break  # no n-gram in common: no longer one either


@njit(cache=True, nogil=True)
def ngram_stats(tokens, text_offsets, pair_pred, pair_ref, orders):
    """ROUGE-N statistics for each N in orders (int64, ascending): int64[pairs, len(orders),
    3] of (hit, pred_count, ref_count)."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, orders.shape[0], 3), dtype=np.int64)
    for k in range(n_pairs):
        p = pair_pred[k]
        r = pair_ref[k]
        _ngram_pair(tokens, text_offsets[p], text_offsets[p + 1], text_offsets[r],
                    text_offsets[r + 1], orders, out[k])
    return out


# --------------------------------------------------------------------------------------------
# ROUGE-L: LCS length, bit-parallel


@njit(cache=True)
def _lcs_length(a: np.ndarray, b: np.ndarray, u: int) -> int:
    """LCS length of two arrays of dense ids (< u) in O(len(a) / 64) words of state: Hyyro's
    bit-vector algorithm, V' = (V + (V & M)) | (V & ~M), one row per token of b."""
    n = a.shape[0]
    if n == 0 or b.shape[0] == 0:
        return 0
    words = (n + 63) // 64
    head = np.full(u, -1, dtype=np.int64)
    nxt = np.empty(n, dtype=np.int64)
    mask_of = np.full(u, -1, dtype=np.int64)
    masks = match_rows(a, head, nxt, mask_of, words)
    v = np.full(words, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    match = np.zeros(words, dtype=np.uint64)
    bit_rows(v, b, 0, b.shape[0], head, nxt, mask_of, masks, match)
    return zeros_below_words(v, n)


@njit(cache=True, nogil=True)
def lcs_stats(tokens, text_offsets, pair_pred, pair_ref):
    """ROUGE-L (whole text as one sequence): int64[pairs, 3] of (lcs, pred_len, ref_len)."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, 3), dtype=np.int64)
    for k in range(n_pairs):
        ids_p, ids_r, u = pair_ids(tokens, text_offsets, pair_pred[k], pair_ref[k])
        out[k, 0] = _lcs_length(ids_p, ids_r, u)
        out[k, 1] = ids_p.shape[0]
        out[k, 2] = ids_r.shape[0]
    return out


@njit(cache=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def zeros_below(v, j):
    """Zero bits of v among bits 0..j-1: the LCS table value c[i][j] of bit row v."""
    low = np.uint64(0xFFFFFFFFFFFFFFFF) if j >= 64 else (np.uint64(1) << np.uint64(j)) - np.uint64(1)
    return _popcount(~v & low)


@njit(cache=True)
def match_rows(x, head, nxt, mask_of, words):
    """Link the positions of each id in x (head[id]: first, -1 none; nxt[pos]: next of the
    same id) and precompute the match row of every id that occurs more than `words` times
    (mask_of[id]: its row in the result; at most 64 such ids). A row's match mask then
    costs O(words) for a frequent id and O(occurrences) <= O(words) for the others: a text
    of few distinct words no longer costs O(n) per row."""
    n = x.shape[0]
    for pos in range(n - 1, -1, -1):
        nxt[pos] = head[x[pos]]
        head[x[pos]] = pos
    k = 0
    for pos in range(n):
        if head[x[pos]] == pos:  # first occurrence: count this id's positions
            count = 0
            p = pos
            while p >= 0:
                count += 1
                p = nxt[p]
            if count > words:
                mask_of[x[pos]] = k
                k += 1
    masks = np.zeros((k, words), dtype=np.uint64)
    for pos in range(n):
        row = mask_of[x[pos]]
        if row >= 0:
            masks[row, pos >> 6] |= np.uint64(1) << np.uint64(pos & 63)
    return masks


@njit(cache=True)
def bit_rows(v, tokens, lo, hi, head, nxt, mask_of, masks, match):
    """Rows lo..hi - 1 of the bit-vector LCS in place: for each row's token its match row
    M, from masks (frequent ids) or built in the zeroed scratch row match from the linked
    positions (left zeroed), and Hyyro's step V' = (V + (V & M)) | (V & ~M) over multiword
    rows. A run of rows per call, the step written inline: a numba call that passes arrays
    costs their reference counting, which per row was most of the time of ROUGE-L
    (measured: 5.9-8.0 against 2.5 us a realsumm pair)."""
    one = np.uint64(1)
    zero = np.uint64(0)
    words = v.shape[0]
    for i in range(lo, hi):
        token = tokens[i]
        first = head[token]
        if first < 0:
            continue  # no match in this row: it stays as it is
        row = mask_of[token]
        if row < 0:
            pos = first
            while pos >= 0:
                match[pos >> 6] |= one << np.uint64(pos & 63)
                pos = nxt[pos]
        carry = zero
        for w in range(words):
            m = masks[row, w] if row >= 0 else match[w]
            a = v[w]
            b = a & m
            s = a + b
            c1 = one if s < a else zero
            s2 = s + carry
            c2 = one if s2 < s else zero
            carry = c1 | c2
            v[w] = s2 | (a & ~m)
        if row < 0:
            pos = first
            while pos >= 0:
                match[pos >> 6] = zero
                pos = nxt[pos]


@njit(cache=True)
def checkpoint_rows(y, x, head, nxt, mask_of, match):
    """The bit rows of the LCS table of y (rows) against x (ceil(len(x) / 64) words a row),
    every b-th one kept (b = sqrt(len(y))): (masks, b, checkpoints), checkpoints[k] the row
    k * b and masks match_rows'. A traceback over them recomputes a block of b rows from its
    checkpoint when it reaches it (union's _mark_lcs_bit_rows, sets' _mark_long_reference,
    each with its tie rule): O(sqrt(len(y)) * len(x) / 64) words for a table of any size.
    head, nxt, mask_of and match: bit_rows' scratch (head and mask_of filled with -1)."""
    m = y.shape[0]
    words = (x.shape[0] + 63) // 64
    masks = match_rows(x, head, nxt, mask_of, words)
    b = max(1, int(np.sqrt(m)))
    checkpoints = np.empty((m // b + 1, words), dtype=np.uint64)
    v = np.full(words, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    checkpoints[0, :] = v
    for i in range(b, m + 1, b):
        bit_rows(v, y, i - b, i, head, nxt, mask_of, masks, match)
        checkpoints[i // b, :] = v
    return masks, b, checkpoints


@njit(cache=True)
def zeros_below_words(v, j):
    """c[i][j] of multiword bit row v: its zero bits among bits 0..j-1."""
    total = 0
    for w in range(j >> 6):
        total += _popcount(~v[w])
    if j & 63:
        total += zeros_below(v[j >> 6], j & 63)
    return total


# --------------------------------------------------------------------------------------------
# ROUGE-S / SU


@njit(cache=True)
def _positions(ids, u):
    """The positions of each id in ids as linked lists: head[id] is the first (-1: none),
    nxt[pos] the next position of the same id."""
    head = np.full(u, -1, dtype=np.int64)
    nxt = np.empty(ids.shape[0], dtype=np.int64)
    for pos in range(ids.shape[0] - 1, -1, -1):
        nxt[pos] = head[ids[pos]]
        head[ids[pos]] = pos
    return head, nxt


@njit(cache=True)
def _skip_count(n, gap):
    """Skip-bigrams of an n-token text with at most gap tokens between the two words."""
    count = 0
    for i in range(n - 1):
        count += min(n - 1 - i, gap + 1)
    return count


@njit(cache=True)
def _skip_hits_by_first_word(ids_p, ids_r, u, gap):
    """Clipped hits of the skip-bigrams with at most gap tokens between, one first word a at
    a time: count the second words after each occurrence of a in the prediction (cnt_p) and
    in the reference (cnt_r, only where cnt_p > 0), add sum_b min(cnt_p[b], cnt_r[b]), clear
    what was touched. O(u) memory; time the number of skip-bigrams of the common first
    words, at most (len_p + len_r) * (gap + 1)."""
    lp = ids_p.shape[0]
    lr = ids_r.shape[0]
    head_p, nxt_p = _positions(ids_p, u)
    head_r, nxt_r = _positions(ids_r, u)
    cnt_p = np.zeros(u, dtype=np.int64)
    cnt_r = np.zeros(u, dtype=np.int64)
    touched = np.empty(u, dtype=np.int64)
    hits = 0
    for a in range(u):
        if head_p[a] < 0 or head_r[a] < 0:
            continue
        n_touched = 0
        i = head_p[a]
        while i >= 0:
            for j in range(i + 1, min(lp - 1, i + gap + 1) + 1):
                b = ids_p[j]
                if cnt_p[b] == 0:
                    touched[n_touched] = b
                    n_touched += 1
                cnt_p[b] += 1
            i = nxt_p[i]
        i = head_r[a]
        while i >= 0:
            for j in range(i + 1, min(lr - 1, i + gap + 1) + 1):
                b = ids_r[j]
                if cnt_p[b] > 0:
                    cnt_r[b] += 1
            i = nxt_r[i]
        for q in range(n_touched):
            b = touched[q]
            hits += min(cnt_p[b], cnt_r[b])
            cnt_p[b] = 0
            cnt_r[b] = 0
    return hits


@njit(cache=True)
def _skip_hits_by_second_word(ids_p, ids_r, common, c, gap):
    """The same hits, one common second word b at a time: only words in both texts can
    match (common[id]: 0..c-1 for those, else -1), so for each such b one pass over each text
    counts c(a, b) = #{i < j <= i + gap + 1: t_i = a, t_j = b} for every common first word
    a, from the counts of each word in the window before j; add min(c_pred(a, b),
    c_ref(a, b)). O(u) memory, O((len_p + len_r) * c) time: the cheaper way when few words
    are shared and gap is large."""
    seen = np.zeros(c, dtype=np.int64)
    pairs_p = np.zeros(c, dtype=np.int64)
    pairs_r = np.zeros(c, dtype=np.int64)
    hits = 0
    for b in range(c):
        for ids, pairs in ((ids_p, pairs_p), (ids_r, pairs_r)):
            for a in range(c):
                seen[a] = 0
                pairs[a] = 0
            for j in range(ids.shape[0]):
                if j - gap - 2 >= 0:  # position j - gap - 2 leaves the window
                    k = common[ids[j - gap - 2]]
                    if k >= 0:
                        seen[k] -= 1
                k = common[ids[j]]
                if k < 0:
                    continue
                if k == b:
                    for a in range(c):
                        pairs[a] += seen[a]
                seen[k] += 1
        for a in range(c):
            hits += min(pairs_p[a], pairs_r[a])
    return hits


@njit(cache=True)
def _common_words(ids_p, ids_r, u):
    """common[id]: 0..c-1 for the ids in both texts, else -1; c; and how many tokens of the
    two texts hold such an id."""
    in_p = np.zeros(u, dtype=np.bool_)
    in_r = np.zeros(u, dtype=np.bool_)
    for t in ids_p:
        in_p[t] = True
    for t in ids_r:
        in_r[t] = True
    common = np.full(u, -1, dtype=np.int64)
    c = 0
    for t in range(u):
        if in_p[t] and in_r[t]:
            common[t] = c
            c += 1
    n_tokens = 0
    for t in ids_p:
        n_tokens += 1 if in_r[t] else 0
    for t in ids_r:
        n_tokens += 1 if in_p[t] else 0
    return common, c, n_tokens


@njit(cache=True, nogil=True)
def skip_bigram_stats(tokens, text_offsets, pair_pred, pair_ref, max_skip, unigrams):
    """ROUGE-S<max_skip> (SU with unigrams=True; max_skip < 0: no limit):
    int64[pairs, 3] of (hit, pred_count, ref_count). O(len_p + len_r) memory per pair: the
    skip-bigrams are counted per first word or per common second word (whichever costs less),
    never listed."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, 3), dtype=np.int64)
    for k in range(n_pairs):
        ids_p, ids_r, u = pair_ids(tokens, text_offsets, pair_pred[k], pair_ref[k])
        lp = ids_p.shape[0]
        lr = ids_r.shape[0]
        # a gap at or past the longer text is no limit; clamped, i + gap + 1 cannot overflow
        gap = max(lp, lr) if max_skip < 0 else min(max_skip, max(lp, lr))
        count_p = _skip_count(lp, gap)
        count_r = _skip_count(lr, gap)
        common, c, common_tokens = _common_words(ids_p, ids_r, u)
        if c * (lp + lr + common_tokens) < common_tokens * (gap + 1):
            hit = _skip_hits_by_second_word(ids_p, ids_r, common, c, gap)
        else:
            hit = _skip_hits_by_first_word(ids_p, ids_r, u, gap)
        if unigrams:  # SU: the unigrams of all but the last token
            if lp > 1 and lr > 1:
                hit += clipped_hits(ids_p[:lp - 1], ids_r[:lr - 1], u)
            count_p += max(lp - 1, 0)
            count_r += max(lr - 1, 0)
        out[k, 0] = hit
        out[k, 1] = count_p
        out[k, 2] = count_r
    return out
