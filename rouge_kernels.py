"""Scoring kernels for rouge_metric: pure numba functions on integer token ids.

Every kernel takes a flat ``int64`` array of token ids plus offsets, and a list of
(prediction text, reference text) pairs given as two index arrays, and returns integer
sufficient statistics per pair (ROUGE-W returns weighted floats, as its definition does).
Floats are made from the statistics afterwards: per-example P, R, F by ``example_prf`` (or by
numpy in rouge_pipeline where a profile rounds or ROUGE-W's powers apply).

Layout of a tokenized batch::

    tokens[text_offsets[k]:text_offsets[k + 1]]        tokens of text k
    sent_offsets[text_sent_offsets[k] : text_sent_offsets[k + 1] + 1]
                                                        token bounds of the sentences of text k

Token ids only need to be equal for equal tokens; each kernel re-interns the two texts of a
pair into dense local ids (0..u-1) with a hash table whose slots compare the ids themselves, so
n-gram and skip-bigram keys are exact integers (no collisions) and memory stays O(length of the
pair).

Definitions follow ROUGE-1.5.5 (``tests/rouge155/SPEC.md``) and rouge_score 0.1.2:

* ROUGE-N: ``hit = sum_g min(c_pred(g), c_ref(g))``; counts ``max(0, len - n + 1)``.
* ROUGE-L: length of the LCS of the two whole texts (bit-parallel, Hyyro 2004).
* ROUGE-Lsum / ROUGE-1.5.5's ROUGE-L: summary-level union LCS with unigram clipping.
* ROUGE-W: ROUGE-1.5.5's weighted LCS (run-based hits on reference positions).
* ROUGE-S/SU: skip-bigrams with at most ``max_skip`` tokens between (``-1`` = no limit);
  SU adds the unigrams of all but the last token.
* The profiles that count sets (pltrdy, rouge_chinese): ROUGE-N over distinct n-grams
  (``distinct_ngram_stats``), and pltrdy's ROUGE-L (``set_union_lcs_stats``): the distinct
  words on its LCS traceback of every (reference sentence, prediction sentence) pair.

Also the byte scanner that tokenizes (and, from a table, stems) a whole batch; the
aggregate's exact column sums and per-example P, R, F; and the two bootstraps: the default
profile's Poisson bootstrap (integer sums that do not depend on row order) and ROUGE-1.5.5's
(Perl's drand48, seeds 0..B-1) for ``rouge155``.

Each kernel has an example call (``EXAMPLES``, at the end), which compiles it; its numpy twin
of the same name is in ``rouge_vectorized``; ``rouge_backend`` chooses which one runs.
"""

from __future__ import annotations

import numpy as np


# numba is imported only when rouge_backend compiles this file (use_numba): importing it takes
# 0.3-0.7 s, which a first call served by the numpy twins does without. Until then @njit leaves
# each function as it is, so this file also runs as plain Python (rouge_backend._python).

def njit(*args, **options):
    """numba.njit, applied later by use_numba(): marks the function with its options."""
    def mark(function):
        function.njit_options = options
        return function
    return mark(args[0]) if args and callable(args[0]) and not options else mark


def use_numba() -> None:
    """Replace every @njit function of this module by its numba dispatcher, all at once: the
    kernels find each other as module globals, so all must be dispatchers before one compiles.
    Run only on the copy rouge_backend imports from its cache folder."""
    if globals().get("_NUMBA"):
        return
    import numba

    for name, value in list(globals().items()):
        if callable(value) and hasattr(value, "njit_options"):
            # no C-callable wrapper: nothing calls the kernels through ctypes, and making one
            # for each function was ~13% of their compile time (measured)
            globals()[name] = numba.njit(no_cfunc_wrapper=True, **value.njit_options)(value)
    globals()["_NUMBA"] = True


# --------------------------------------------------------------------------------------------
# helpers


@njit(cache=True)
def _copy(src, s0, s1, dst, d0):
    """dst[d0:d0 + s1 - s0] = src[s0:s1], as a loop: numba compiles slice assignment slowly,
    and compilation is the cold-start cost."""
    for i in range(s1 - s0):
        dst[d0 + i] = src[s0 + i]


@njit(cache=True, nogil=True)
def _dense_ids(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Map values to 0..u-1 (equal values, equal ids; in order of first appearance) with an
    open-addressing hash table: exact (slots compare the values themselves), O(n)."""
    n = values.shape[0]
    ids = np.empty(n, dtype=np.int64)
    first = np.empty(_table_size(n), dtype=np.int64)
    return ids, _dense_ids_into(values, n, ids, first)


@njit(cache=True)
def _table_size(n):
    """Slots of _dense_ids_into's hash table for n values: the least power of two >= 2n."""
    size = 2
    while size < 2 * n:
        size *= 2
    return size


@njit(cache=True)
def _dense_ids_into(values, n, ids, first):
    """_dense_ids of values[:n] into the scratch arrays ids (>= n) and first (the table: >=
    _table_size(n) slots, reset here): the kernels that intern every pair allocate them once
    per call, sized to the largest pair, instead of twice per pair. Returns u."""
    if n == 0:
        return 0
    size = _table_size(n)
    bits = 0
    while (1 << bits) < size:
        bits += 1
    mask = size - 1
    for h in range(size):
        first[h] = -1  # slot -> index of the value's first occurrence
    shift = np.uint64(64 - bits)
    next_id = 0
    for i in range(n):
        v = values[i]
        h = np.int64((np.uint64(v) * np.uint64(0x9E3779B97F4A7C15)) >> shift)
        while True:
            j = first[h]
            if j < 0:
                first[h] = i
                ids[i] = next_id
                next_id += 1
                break
            if values[j] == v:
                ids[i] = ids[j]
                break
            h = (h + 1) & mask
    return next_id


def dense_ids(values: np.ndarray) -> tuple:
    """Ids 0..u-1 for int64 values (equal values, equal ids), and u: O(n) hashing."""
    return _dense_ids(np.ascontiguousarray(values, dtype=np.int64))


@njit(cache=True)
def _pair_ids(tokens: np.ndarray, text_offsets: np.ndarray, p: int, r: int):
    """Dense local ids of the pair of texts p and r: (pred ids, ref ids, vocabulary size)."""
    p0, p1, r0, r1 = text_offsets[p], text_offsets[p + 1], text_offsets[r], text_offsets[r + 1]
    lp = p1 - p0
    lr = r1 - r0
    both = np.empty(lp + lr, dtype=np.int64)
    _copy(tokens, p0, p1, both, 0)
    _copy(tokens, r0, r1, both, lp)
    ids, u = _dense_ids(both)
    return ids[:lp], ids[lp:], u


@njit(cache=True)
def _clipped_hits(ids_a: np.ndarray, ids_b: np.ndarray, u: int) -> int:
    """sum over ids k < u of min(count_a(k), count_b(k))."""
    left = np.zeros(u, dtype=np.int64)
    for k in ids_a:
        left[k] += 1
    hits = 0
    for k in ids_b:
        if left[k] > 0:
            left[k] -= 1
            hits += 1
    return hits


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
    ids, _ = _dense_ids(keys)
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
    _copy(tokens, p0, p1, both, 0)
    _copy(tokens, r0, r1, both, lp)
    ids, u = _dense_ids(both)
    # powers[t]: ids of the 2^t-grams (2^t <= shortest and <= the largest order asked: rouge1
    # needs no doubling at all), the same length-(lp + lr) slots
    longest = min(shortest, orders[orders.shape[0] - 1])
    n_powers = 1
    while (1 << n_powers) <= longest:
        n_powers += 1
    powers = np.zeros((n_powers, lp + lr), dtype=np.int64)
    _copy(ids, 0, lp + lr, powers[0], 0)
    for t in range(1, n_powers):
        half = 1 << (t - 1)
        level = _join_windows(powers[t - 1], half, powers[t - 1], half, lp, lr)
        _copy(level, 0, level.shape[0], powers[t], 0)
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
        out[q, 0] = _clipped_hits(win[:cp], win[cp:], lp + lr)
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
    masks = _match_rows(a, head, nxt, mask_of, words)
    v = np.full(words, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    match = np.zeros(words, dtype=np.uint64)
    _bit_rows(v, b, 0, b.shape[0], head, nxt, mask_of, masks, match)
    return _zeros_below_words(v, n)


@njit(cache=True, nogil=True)
def lcs_stats(tokens, text_offsets, pair_pred, pair_ref):
    """ROUGE-L (whole text as one sequence): int64[pairs, 3] of (lcs, pred_len, ref_len)."""
    n_pairs = pair_pred.shape[0]
    out = np.zeros((n_pairs, 3), dtype=np.int64)
    for k in range(n_pairs):
        ids_p, ids_r, u = _pair_ids(tokens, text_offsets, pair_pred[k], pair_ref[k])
        out[k, 0] = _lcs_length(ids_p, ids_r, u)
        out[k, 1] = ids_p.shape[0]
        out[k, 2] = ids_r.shape[0]
    return out


# --------------------------------------------------------------------------------------------
# Summary-level union LCS (rougeLsum; ROUGE-1.5.5's ROUGE-L) and weighted LCS (ROUGE-W)


@njit(cache=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _zeros_below(v, j):
    """Zero bits of v among bits 0..j-1: the LCS table value c[i][j] of bit row v."""
    low = np.uint64(0xFFFFFFFFFFFFFFFF) if j >= 64 else (np.uint64(1) << np.uint64(j)) - np.uint64(1)
    return _popcount(~v & low)


@njit(cache=True)
def _mark_lcs_bits(ids, y0, m, x0, n, bit_of, rows, mask):
    """_mark_path (unweighted) of y = ids[y0:y0 + m] and a prediction sentence x =
    ids[x0:x0 + n] of at most 64 tokens: the DP rows are machine words (Hyyro's bit-vector
    LCS), the traceback reads c[i][j] by popcount. Same path, O(m + n) instead of O(m * n).
    The sentences as offsets into one array, not slices: a slice passed per sentence pair
    costs its creation and reference counting (see _bit_rows). bit_of is a zeroed scratch
    array indexed by token id (left zeroed). Returns how many positions it newly marked."""
    one = np.uint64(1)
    for j in range(n):
        bit_of[ids[x0 + j]] |= one << np.uint64(j)
    v = np.uint64(0xFFFFFFFFFFFFFFFF)
    rows[0] = v
    for i in range(m):
        match = bit_of[ids[y0 + i]]
        v = (v + (v & match)) | (v & ~match)
        rows[i + 1] = v
    for j in range(n):
        bit_of[ids[x0 + j]] = np.uint64(0)
    new = 0
    i = m
    j = n
    while i > 0 and j > 0:
        if ids[y0 + i - 1] == ids[x0 + j - 1]:
            i -= 1
            j -= 1
            if not mask[i]:  # newly on a path (inline: see _bit_rows on calls per step)
                mask[i] = True
                new += 1
        elif _zeros_below(rows[i - 1], j) >= _zeros_below(rows[i], j - 1):
            i -= 1
        else:
            j -= 1
    return new


@njit(cache=True)
def _match_rows(x, head, nxt, mask_of, words):
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
def _bit_rows(v, tokens, lo, hi, head, nxt, mask_of, masks, match):
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
def _zeros_below_words(v, j):
    """c[i][j] of multiword bit row v: its zero bits among bits 0..j-1."""
    total = 0
    for w in range(j >> 6):
        total += _popcount(~v[w])
    if j & 63:
        total += _zeros_below(v[j >> 6], j & 63)
    return total


@njit(cache=True)
def _mark_lcs_bit_rows(y, x, head, nxt, mask_of, match, mask):
    """_mark_lcs_bits for a prediction sentence of any length: rows of ceil(len(x) / 64)
    words, every b-th row kept (b = sqrt(len(y))) and a block of b rows recomputed from its
    checkpoint when the traceback reaches it (each block once: the path only moves up).
    O(sqrt(len(y)) * len(x) / 64) words, two passes of len(y) * len(x) / 64 word steps.
    head and mask_of (filled with -1, at least u long), nxt and match (zeroed) are scratch.
    Returns how many positions it newly marked."""
    m = y.shape[0]
    n = x.shape[0]
    words = (n + 63) // 64
    masks = _match_rows(x, head, nxt, mask_of, words)
    b = max(1, int(np.sqrt(m)))
    checkpoints = np.empty((m // b + 1, words), dtype=np.uint64)
    block = np.empty((b + 1, words), dtype=np.uint64)
    v = np.full(words, np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    for w in range(words):
        checkpoints[0, w] = v[w]
    for i in range(b, m + 1, b):
        _bit_rows(v, y, i - b, i, head, nxt, mask_of, masks, match)
        for w in range(words):
            checkpoints[i // b, w] = v[w]
    new = 0
    i = m
    j = n
    i0 = m + 1  # first row of the block held (none yet)
    while i > 0 and j > 0:
        if y[i - 1] == x[j - 1]:
            i -= 1
            j -= 1
            if not mask[i]:
                mask[i] = True
                new += 1
            continue
        if i - 1 < i0:  # rows i - 1 and i: recompute their block
            i0 = ((i - 1) // b) * b
            for w in range(words):
                block[0, w] = checkpoints[i0 // b, w]
            for r in range(1, min(b, m - i0) + 1):
                for w in range(words):
                    block[r, w] = block[r - 1, w]
                _bit_rows(block[r], y, i0 + r - 1, i0 + r, head, nxt, mask_of, masks, match)
        if _zeros_below_words(block[i - 1 - i0], j) >= _zeros_below_words(block[i - i0], j - 1):
            i -= 1
        else:
            j -= 1
    for pos in range(n):
        head[x[pos]] = -1
        mask_of[x[pos]] = -1
    return new


_BASE_CELLS = 1 << 16  # sub-tables up to this many cells are filled whole (1 MiB)


@njit(cache=True)
def _wlcs_cell(c_diag, l_diag, c_up, c_left, equal, weighted, f):
    """One cell of ROUGE-1.5.5's (weighted) LCS table: (c, run length). Equal tokens -> the
    diagonal plus 1, or for the weighted LCS plus f(k+1) - f(k), f(k) = k**weight, added in
    the script's order (c + f(k+1)) - f(k), since a regrouping changes which tied path wins;
    otherwise the larger of up and left, up on ties (run length 0)."""
    if equal:
        if weighted:
            return c_diag + f[l_diag + 1] - f[l_diag], l_diag + 1
        return c_diag + 1.0, l_diag + 1
    if c_up >= c_left:
        return c_up, 0
    return c_left, 0


@njit(cache=True)
def _trace_block(y, x, weighted, f, i0, i1, j0, j1, edge_c, edge_l, top, left, mask, c, l):  # noqa: E741
    """Fill rows i0..i1 x columns j0..j1 of the table whole into c/l (row i0 from
    edge_*[top:], column j0 from edge_*[left:]), then trace back from (i1, j1) until row i0
    or column j0, marking reference positions. Returns how many it newly marked."""
    rows = i1 - i0 + 1
    width = j1 - j0 + 1
    for k in range(width):
        c[k] = edge_c[top + k]
        l[k] = edge_l[top + k]
    for r in range(1, rows):
        row = r * width
        c[row] = edge_c[left + r]
        l[row] = edge_l[left + r]
        yi = y[i0 + r - 1]
        for k in range(1, width):
            c[row + k], l[row + k] = _wlcs_cell(
                c[row - width + k - 1], l[row - width + k - 1], c[row - width + k],
                c[row + k - 1], yi == x[j0 + k - 1], weighted, f)
    new = 0
    r = rows - 1
    k = width - 1
    while r > 0 and k > 0:
        if y[i0 + r - 1] == x[j0 + k - 1]:
            r -= 1
            k -= 1
            if not mask[i0 + r]:
                mask[i0 + r] = True
                new += 1
        elif c[(r - 1) * width + k] >= c[r * width + k - 1]:
            r -= 1
        else:
            k -= 1
    return new


@njit(cache=True)
def _dp_row(prev_c, prev_l, cur_c, cur_l, left_c, left_l, yi, x, j0, width, weighted, f):
    """One row of the (weighted) LCS table over columns j0..j0 + width - 1, from the row above
    (prev_*) and the row's left edge (left_*), into cur_*."""
    cur_c[0] = left_c
    cur_l[0] = left_l
    for k in range(1, width):
        cur_c[k], cur_l[k] = _wlcs_cell(prev_c[k - 1], prev_l[k - 1], prev_c[k], cur_c[k - 1],
                                        yi == x[j0 + k - 1], weighted, f)


@njit(cache=True)
def _push(tasks, n_tasks, i0, i1, j0, j1, top, left, end):
    """Put task (rows i0..i1, columns j0..j1, edges at top/left, arena end) on the stack."""
    tasks[n_tasks, 0] = i0
    tasks[n_tasks, 1] = i1
    tasks[n_tasks, 2] = j0
    tasks[n_tasks, 3] = j1
    tasks[n_tasks, 4] = top
    tasks[n_tasks, 5] = left
    tasks[n_tasks, 6] = end
    return n_tasks + 1


@njit(cache=True)
def _mark_path(y, x, weighted, f, mask, buf_c, buf_l, zeros_c, zeros_l, base_cells):
    """Trace back ROUGE-1.5.5's (weighted) LCS table of reference sentence y (rows) and
    prediction sentence x (columns) as the script and rouge_score do (equal tokens ->
    diagonal, marking mask[i - 1]; up >= left -> up; else left) in O((len(x) + len(y)) *
    log len(y)) memory, Hirschberg-style. Returns how many positions it newly marked.

    A task is a block of rows i0..i1 x columns j0..j1 with its top row and left column
    given (in the arena edge_c/edge_l); it follows the path from (i1, j1) until row i0 or
    column j0. Up to base_cells cells (or two rows) the block is filled whole (buf_c/buf_l).
    Otherwise one pass over its rows, two rolling rows, also carries for every cell below the
    middle row h the column at which that cell's traceback reaches row h (a traceback step is
    decided by the cell's own comparison, known as soon as the cell is), so the path's
    crossing (h, jh) is known after one pass. Below h the path stays in columns >= jh, and at
    column jh it can only go up: rows h..i1 x columns jh..j1 (given row h, and column jh from
    a second pass) and rows i0..h x columns j0..jh are independent halves. Time about 3x the
    cells; tasks run from a stack (numba's cache does not keep recursive functions)."""
    m = y.shape[0]
    n = x.shape[0]
    # zero as an int64, not a literal 0: numba compiles a callee once more for each literal
    # argument (0.3-0.4 s for _trace_block)
    zero = np.int64(0)
    if (m + 1) * (n + 1) <= min(base_cells, buf_c.shape[0]):  # zeros_*: >= max(m, n) + 1
        return _trace_block(y, x, weighted, f, zero, m, zero, n, zeros_c, zeros_l, zero, zero,
                            mask, buf_c, buf_l)
    levels = 2
    while (1 << (levels - 2)) < m + 1:
        levels += 1
    # the arena holds the edges of the tasks on the stack, stack-like: a task's children's
    # edges lie above its own, and popping a task frees everything above its end
    edge_c = np.zeros((levels + 1) * (n + 2) + 2 * (m + 2) + 2 * levels, dtype=np.float64)
    edge_l = np.zeros(edge_c.shape[0], dtype=np.int64)
    tasks = np.empty((2 * levels + 4, 7), dtype=np.int64)  # i0 i1 j0 j1 top left end
    prev_c = np.empty(n + 1, dtype=np.float64)
    cur_c = np.empty(n + 1, dtype=np.float64)
    prev_l = np.empty(n + 1, dtype=np.int64)
    cur_l = np.empty(n + 1, dtype=np.int64)
    prev_x = np.empty(n + 1, dtype=np.int64)  # column where row i-1's traceback meets row h
    cur_x = np.empty(n + 1, dtype=np.int64)  # (-1: it meets column j0 first)
    row_h_c = np.empty(n + 1, dtype=np.float64)
    row_h_l = np.empty(n + 1, dtype=np.int64)
    # the whole table; its top row (at 0) and left column (at n + 1) are zeros
    n_tasks = _push(tasks, zero, zero, m, zero, n, zero, n + 1, n + m + 2)
    new = 0
    while n_tasks > 0:
        n_tasks -= 1
        i0 = tasks[n_tasks, 0]
        i1 = tasks[n_tasks, 1]
        j0 = tasks[n_tasks, 2]
        j1 = tasks[n_tasks, 3]
        top = tasks[n_tasks, 4]
        left = tasks[n_tasks, 5]
        end = tasks[n_tasks, 6]
        rows = i1 - i0 + 1
        width = j1 - j0 + 1
        if rows * width <= base_cells or rows <= 2:
            if rows * width <= buf_c.shape[0]:
                new += _trace_block(y, x, weighted, f, i0, i1, j0, j1, edge_c, edge_l, top,
                                    left, mask, buf_c, buf_l)
            else:  # two rows by a long sentence: O(len(x))
                new += _trace_block(y, x, weighted, f, i0, i1, j0, j1, edge_c, edge_l, top,
                                    left, mask, np.empty(rows * width, dtype=np.float64),
                                    np.empty(rows * width, dtype=np.int64))
            continue
        h = (i0 + i1) // 2
        for k in range(width):
            prev_c[k] = edge_c[top + k]
            prev_l[k] = edge_l[top + k]
        for i in range(i0 + 1, h + 1):  # down to the middle row
            _dp_row(prev_c, prev_l, cur_c, cur_l, edge_c[left + i - i0], edge_l[left + i - i0],
                    y[i - 1], x, j0, width, weighted, f)
            prev_c, cur_c = cur_c, prev_c
            prev_l, cur_l = cur_l, prev_l
        for k in range(width):
            row_h_c[k] = prev_c[k]
            row_h_l[k] = prev_l[k]
            prev_x[k] = j0 + k
        for i in range(h + 1, i1 + 1):  # below it, also where each cell's path meets it
            cur_c[0] = edge_c[left + i - i0]
            cur_l[0] = edge_l[left + i - i0]
            cur_x[0] = -1
            yi = y[i - 1]
            for k in range(1, width):
                equal = yi == x[j0 + k - 1]
                cur_c[k], cur_l[k] = _wlcs_cell(prev_c[k - 1], prev_l[k - 1], prev_c[k],
                                                cur_c[k - 1], equal, weighted, f)
                if equal:
                    cur_x[k] = prev_x[k - 1]
                elif prev_c[k] >= cur_c[k - 1]:
                    cur_x[k] = prev_x[k]
                else:
                    cur_x[k] = cur_x[k - 1]
            prev_c, cur_c = cur_c, prev_c
            prev_l, cur_l = cur_l, prev_l
            prev_x, cur_x = cur_x, prev_x
        jh = prev_x[width - 1]
        if jh <= j0:  # the path leaves through column j0 at or below row h: rows h..i1 only
            for k in range(width):
                edge_c[end + k] = row_h_c[k]
                edge_l[end + k] = row_h_l[k]
            n_tasks = _push(tasks, n_tasks, h, i1, j0, j1, end, left + h - i0, end + width)
            continue
        # column jh of rows h..i1 (the lower half's left edge), then row h from column jh
        sub = jh - j0 + 1
        col = end
        for k in range(sub):
            prev_c[k] = row_h_c[k]
            prev_l[k] = row_h_l[k]
        edge_c[col] = row_h_c[sub - 1]
        edge_l[col] = row_h_l[sub - 1]
        for i in range(h + 1, i1 + 1):
            _dp_row(prev_c, prev_l, cur_c, cur_l, edge_c[left + i - i0], edge_l[left + i - i0],
                    y[i - 1], x, j0, sub, weighted, f)
            edge_c[col + i - h] = cur_c[sub - 1]
            edge_l[col + i - h] = cur_l[sub - 1]
            prev_c, cur_c = cur_c, prev_c
            prev_l, cur_l = cur_l, prev_l
        row = col + i1 - h + 1
        for k in range(sub - 1, width):
            edge_c[row + k - sub + 1] = row_h_c[k]
            edge_l[row + k - sub + 1] = row_h_l[k]
        # the upper half runs after the lower one (the path's order); it reuses this
        # task's edges and end, which frees the lower half's
        n_tasks = _push(tasks, n_tasks, i0, h, j0, jh, top, left, end)
        n_tasks = _push(tasks, n_tasks, h, i1, jh, j1, row, col, row + width - sub + 1)
    return new


@njit(cache=True)
def _max_sentence_len(sent_offsets, s0, s1):
    longest = 0
    for s in range(s0, s1):
        longest = max(longest, sent_offsets[s + 1] - sent_offsets[s])
    return longest


@njit(cache=True)
def _union_sizes(sent_offsets, bounds):
    """The largest pair of _union_pairs' bounds: (its values: sentence and clipping tokens,
    its longest prediction sentence, its longest reference sentence)."""
    n_max = 0
    max_p = 0
    max_r = 0
    for k in range(bounds.shape[0]):
        n_max = max(n_max, sent_offsets[bounds[k, 1]] - sent_offsets[bounds[k, 0]]
                    + sent_offsets[bounds[k, 3]] - sent_offsets[bounds[k, 2]]
                    + bounds[k, 5] - bounds[k, 4] + bounds[k, 7] - bounds[k, 6])
        max_p = max(max_p, _max_sentence_len(sent_offsets, bounds[k, 0], bounds[k, 1]))
        max_r = max(max_r, _max_sentence_len(sent_offsets, bounds[k, 2], bounds[k, 3]))
    return n_max, max_p, max_r


@njit(cache=True)
def _union_pair(tokens, sent_offsets, s_p0, s_p1, s_r0, s_r1, clip_tokens, c_p0, c_p1, c_r0,
                c_r1, weight, mask_out):
    """Union-LCS hits of one pair (see union_lcs_stats / wlcs_stats): _union_pairs of one row.
    weight: None for the union LCS, whose hit is an int; a float for ROUGE-W, whose hit is
    sum f(run). mask_out, when non-empty, receives the counted reference positions (relative
    to the reference's first token)."""
    bounds = np.empty((1, 8), dtype=np.int64)
    bounds[0, 0] = s_p0
    bounds[0, 1] = s_p1
    bounds[0, 2] = s_r0
    bounds[0, 3] = s_r1
    bounds[0, 4] = c_p0
    bounds[0, 5] = c_p1
    bounds[0, 6] = c_r0
    bounds[0, 7] = c_r1
    hits = np.zeros(1, dtype=np.float64)
    _union_pairs(tokens, sent_offsets, clip_tokens, bounds, weight, hits, mask_out)
    return hits[0]


@njit(cache=True)
def _union_pairs(tokens, sent_offsets, clip_tokens, bounds, weight, hits, mask_out):
    """hits[k] = the union-LCS hits of pair k, whose prediction has sentences bounds[k, 0] ..
    bounds[k, 1] - 1 and reference bounds[k, 2] .. bounds[k, 3] - 1, and whose clipping
    tokens are clip_tokens[bounds[k, 4]:bounds[k, 5]] and [bounds[k, 6]:bounds[k, 7]].
    mask_out, when non-empty (one pair), receives the counted reference positions (relative
    to the reference's first token).

    All pairs in one call, with scratch arrays allocated once, sized to the largest pair, and
    reset per pair: allocating them per pair (about 16 arrays) and calling a helper with
    arrays per sentence pair (their reference counting) was most of rougeLsum's time.

    Every branch on the kind tests ``weight is None`` itself: numba decides such a test when
    it compiles (dead branch pruning on an argument's type), so each kind compiles only its
    own path (the bit-vector LCS or the weighted table): about half the compile time each."""
    n_max, max_p, max_r = _union_sizes(sent_offsets, bounds)
    both = np.empty(n_max, dtype=np.int64)
    ids = np.empty(n_max, dtype=np.int64)
    first = np.empty(_table_size(n_max), dtype=np.int64)
    # per id (u <= n_max): unigram tables for clipping, ids in the prediction, bit masks
    left_p = np.empty(n_max, dtype=np.int64)
    left_r = np.empty(n_max, dtype=np.int64)
    in_pred = np.empty(n_max, dtype=np.bool_)
    bit_of = np.zeros(n_max if weight is None else 0, dtype=np.uint64)  # left zeroed
    rows = np.empty(max_r + 1 if weight is None else 0, dtype=np.uint64)
    mask = np.zeros(max_r, dtype=np.bool_)
    # multiword bit rows for long prediction sentences (left filled with -1 / zeroed)
    long_bits = weight is None and max_p > 64
    head = np.full(n_max if long_bits else 0, -1, dtype=np.int64)
    mask_of = np.full(n_max if long_bits else 0, -1, dtype=np.int64)
    nxt = np.empty(max_p if long_bits else 0, dtype=np.int64)
    match = np.zeros((max_p + 63) // 64 if long_bits else 0, dtype=np.uint64)
    # the DP table for the weighted LCS (a larger one than a pair needs takes the same
    # paths in _mark_path: a block fits it exactly when it has at most _BASE_CELLS cells)
    buf_size = 1 if weight is None else min(_BASE_CELLS, (max_r + 1) * (max_p + 1))
    buf_c = np.empty(buf_size, dtype=np.float64)
    buf_l = np.empty(buf_size, dtype=np.int64)
    zeros_c = np.zeros(0 if weight is None else max(max_p, max_r) + 1, dtype=np.float64)
    zeros_l = np.zeros(zeros_c.shape[0], dtype=np.int64)
    # f(k) = k**weight for the run lengths k a sentence pair can reach
    f = np.zeros(1 if weight is None else min(max_p, max_r) + 2, dtype=np.float64)
    if weight is not None:
        for k in range(f.shape[0]):
            f[k] = float(k) ** weight
    for k in range(bounds.shape[0]):
        hits[k] = 0.0
        s_p0, s_p1, s_r0, s_r1 = bounds[k, 0], bounds[k, 1], bounds[k, 2], bounds[k, 3]
        c_p0, c_p1, c_r0, c_r1 = bounds[k, 4], bounds[k, 5], bounds[k, 6], bounds[k, 7]
        t_p0 = sent_offsets[s_p0]
        t_r0 = sent_offsets[s_r0]
        lp = sent_offsets[s_p1] - t_p0
        lr = sent_offsets[s_r1] - t_r0
        if lp == 0 or lr == 0:
            continue
        # dense ids over the sentence tokens and the clipping tokens of both texts together:
        # the prediction's at 0, the reference's at lp (rb), the clipping tokens after them
        nc_p = c_p1 - c_p0
        nc_r = c_r1 - c_r0
        n = lp + lr + nc_p + nc_r
        _copy(tokens, t_p0, t_p0 + lp, both, 0)
        _copy(tokens, t_r0, t_r0 + lr, both, lp)
        _copy(clip_tokens, c_p0, c_p1, both, lp + lr)
        _copy(clip_tokens, c_r0, c_r1, both, lp + lr + nc_p)
        u = _dense_ids_into(both, n, ids, first)
        rb = lp
        # unigram tables for clipping: a token is a hit only while both texts have copies left
        for t in range(u):
            left_p[t] = 0
            left_r[t] = 0
            in_pred[t] = False
        for i in range(lp + lr, lp + lr + nc_p):
            left_p[ids[i]] += 1
        for i in range(lp + lr + nc_p, n):
            left_r[ids[i]] += 1
        for i in range(lp):
            in_pred[ids[i]] = True
        hit = 0.0
        for si in range(s_r0, s_r1):
            y0 = sent_offsets[si] - t_r0
            y1 = sent_offsets[si + 1] - t_r0
            m = y1 - y0
            ry = rb + y0  # the sentence's tokens: ids[ry:ry + m]
            # only a position whose token the prediction has can be marked: once all of them
            # are, no other prediction sentence changes the union (this keeps many tiny
            # sentences, e.g. "a\n" * 50000, from costing a DP per sentence pair)
            markable = 0
            for q in range(m):
                mask[q] = False
                markable += 1 if in_pred[ids[ry + q]] else 0
            marked = 0
            for sj in range(s_p0, s_p1):
                if marked == markable:
                    break
                x0 = sent_offsets[sj] - t_p0
                nx = sent_offsets[sj + 1] - t_p0 - x0
                if nx == 0:
                    continue
                if weight is not None:
                    marked += _mark_path(ids[ry:ry + m], ids[x0:x0 + nx], True, f, mask, buf_c,
                                         buf_l, zeros_c, zeros_l, _BASE_CELLS)
                elif nx <= 64:
                    marked += _mark_lcs_bits(ids, ry, m, x0, nx, bit_of, rows, mask)
                else:
                    marked += _mark_lcs_bit_rows(ids[ry:ry + m], ids[x0:x0 + nx], head, nxt,
                                                 mask_of, match, mask)
            run = 0
            for q in range(m):
                if mask[q]:
                    t = ids[ry + q]
                    if left_r[t] > 0 and left_p[t] > 0:
                        left_r[t] -= 1
                        left_p[t] -= 1
                        if mask_out.shape[0] > 0:
                            mask_out[y0 + q] = True
                        if weight is None:
                            hit += 1.0
                        else:
                            # runs are consecutive marked reference positions (ROUGE-1.5.5); a
                            # marked position that fails the clip neither counts nor ends the
                            # run, and a run left open by such a position at the end is
                            # dropped.
                            run += 1
                            if q + 1 == m or not mask[q + 1]:
                                hit += float(run) ** weight
                                run = 0
        hits[k] = hit


@njit(cache=True, nogil=True)
def union_lcs_stats(tokens, sent_offsets, text_sent_offsets, clip_tokens, clip_offsets,
                    pair_pred, pair_ref):
    """Summary-level union LCS: int64[pairs, 3] of (hit, pred_len, ref_len).

    Sentences come from ``tokens``/``sent_offsets``; the unigram clipping tables and pred_len
    from ``clip_tokens[clip_offsets[k]:clip_offsets[k + 1]]``; ref_len is the sum of the
    reference's sentence lengths. The two views hold the same tokens except under
    ROUGE-1.5.5's byte limit, where its two readers differ: its ROUGE-L divides by the base
    of the sentences (``lcs``) and by the peer's unigram count (``computeLCSScore``)."""
    out = np.zeros((pair_pred.shape[0], 3), dtype=np.int64)
    _union_stats(tokens, sent_offsets, text_sent_offsets, clip_tokens, clip_offsets, pair_pred,
                 pair_ref, None, out)
    return out


@njit(cache=True, nogil=True)
def wlcs_stats(tokens, sent_offsets, text_sent_offsets, clip_tokens, clip_offsets, pair_pred,
               pair_ref, weight):
    """ROUGE-W: float64[pairs, 3] of (weighted hit, pred_len, ref_base), where
    ref_base = sum over reference sentences of len**weight. ROUGE-1.5.5 then scores
    R = (hit / ref_base**weight)**(1/weight) and P = (hit / pred_len**weight)**(1/weight)."""
    out = np.zeros((pair_pred.shape[0], 3), dtype=np.float64)
    _union_stats(tokens, sent_offsets, text_sent_offsets, clip_tokens, clip_offsets, pair_pred,
                 pair_ref, float(weight), out)
    return out


@njit(cache=True, inline="always")
def _union_stats(tokens, sent_offsets, text_sent_offsets, clip_tokens, clip_offsets, pair_pred,
                 pair_ref, weight, out):
    """Fill out[k] = (hit, pred_len, sum over reference sentences of len**weight) for
    union_lcs_stats (weight None: integers, exact in float64) and wlcs_stats (a float).

    Inlined into both (numba's IR inliner): as a function of its own, numba optimised and
    generated machine code for it and all it calls once more; union_lcs_stats compiled ~8%
    faster without it (7.9-8.1 s against 8.5-9.0 s). Inlining the small helpers too, or
    the per-pair function (_union_pair then, _union_pairs now), made the compile slower."""
    n_pairs = pair_pred.shape[0]
    bounds = np.empty((n_pairs, 8), dtype=np.int64)
    for k in range(n_pairs):
        p = pair_pred[k]
        r = pair_ref[k]
        bounds[k, 0] = text_sent_offsets[p]
        bounds[k, 1] = text_sent_offsets[p + 1]
        bounds[k, 2] = text_sent_offsets[r]
        bounds[k, 3] = text_sent_offsets[r + 1]
        bounds[k, 4] = clip_offsets[p]
        bounds[k, 5] = clip_offsets[p + 1]
        bounds[k, 6] = clip_offsets[r]
        bounds[k, 7] = clip_offsets[r + 1]
    hits = np.empty(n_pairs, dtype=np.float64)
    _union_pairs(tokens, sent_offsets, clip_tokens, bounds, weight, hits,
                 np.zeros(0, dtype=np.bool_))
    for k in range(n_pairs):
        p = pair_pred[k]
        r = pair_ref[k]
        out[k, 0] = hits[k]
        out[k, 1] = clip_offsets[p + 1] - clip_offsets[p]
        base = 0.0
        for s in range(text_sent_offsets[r], text_sent_offsets[r + 1]):
            length = float(sent_offsets[s + 1] - sent_offsets[s])
            base += length if weight is None else length ** weight
        out[k, 2] = base


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
        ids_p, ids_r, u = _pair_ids(tokens, text_offsets, pair_pred[k], pair_ref[k])
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
                hit += _clipped_hits(ids_p[:lp - 1], ids_r[:lr - 1], u)
            count_p += max(lp - 1, 0)
            count_r += max(lr - 1, 0)
        out[k, 0] = hit
        out[k, 1] = count_p
        out[k, 2] = count_r
    return out


# --------------------------------------------------------------------------------------------
# Bootstrap


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
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
            step = np.uint64(b // 2 + 1) * _GOLDEN
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
# Tokenization of a whole batch


_WORD_BYTE = np.zeros(256, dtype=np.int64)  # base-37 digit of a token byte, 0 for separators
for _b in range(26):
    _WORD_BYTE[97 + _b] = 1 + _b
for _b in range(10):
    _WORD_BYTE[48 + _b] = 27 + _b


def scan_ascii_tokens(buf: np.ndarray, max_packed_len: int, parts: int = 1):
    """Find the tokens (maximal runs of [a-z0-9]) of a lowercased byte buffer.

    Texts are separated by byte 0 and sentences by byte 10 ('\\n'). Tokens of at most
    ``max_packed_len`` (<= 12) characters get an exact base-37 code (> 0); longer ones get
    code 0 and are resolved by the caller from (start, end). Two passes (count, then fill),
    so nothing is allocated for the worst case; a large buffer is cut at text boundaries
    into ``parts`` pieces scanned on threads (the passes release the GIL).

    Returns (codes, starts, ends, sent_ends, text_ends): token codes and byte spans, and for
    each sentence / text the index one past its last token / sentence. (The one scanner,
    _scan_stem, without stemming, and with the spans of every token.)"""
    cuts = [0]
    if parts > 1 and buf.shape[0] > (1 << 20):
        raw = buf.tobytes()
        for k in range(1, parts):
            nul = raw.find(b"\x00", max(cuts[-1], buf.shape[0] * k // parts))
            if nul < 0:
                break
            cuts.append(nul + 1)  # the next piece starts after the separator
    bounds = list(zip(cuts, cuts[1:] + [buf.shape[0] + 1]))

    def scan(span):
        piece = buf[span[0]:span[1] - 1] if span[1] <= buf.shape[0] else buf[span[0]:]
        codes, sent_ends, text_ends, _, _, _, _, starts, ends = _scan_stem(
            piece, _WORD_BYTE, max_packed_len, _NO_TABLE, _NO_TABLE, False, True)
        return codes, starts, ends, sent_ends, text_ends

    if len(bounds) == 1:
        return scan(bounds[0])
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(bounds)) as pool:
        pieces = list(pool.map(scan, bounds))
    # each piece ends its last sentence and text itself; shift its indices and offsets
    codes, starts, ends, sent_ends, text_ends = [], [], [], [], []
    n_tok = 0
    n_sent = 0
    for (lo, _), (c, st, en, se, te) in zip(bounds, pieces):
        codes.append(c)
        starts.append(st + lo)
        ends.append(en + lo)
        sent_ends.append(se + n_tok)
        text_ends.append(te + n_sent)
        n_tok += c.shape[0]
        n_sent += se.shape[0]
    return tuple(np.concatenate(a) for a in (codes, starts, ends, sent_ends, text_ends))


# --------------------------------------------------------------------------------------------
# Tokenization and stemming of a whole batch in one pass (the fast path of
# rouge_text.tokenize_ascii_batch)

_NO_TABLE = np.zeros(2, dtype=np.int64)  # an empty stem table, for scans without stemming
_WORD_BYTE_FOLD = _WORD_BYTE.copy()  # the same, and A-Z as a-z: no lowercasing pass first
for _b in range(26):
    _WORD_BYTE_FOLD[65 + _b] = 1 + _b

MIN_STEM_CODE = 52060  # the smallest code of a 4-character word (3 characters: <= 50652)


@njit(cache=True)
def _scan_stem_counts(buf, digit):
    """The number of tokens and of sentence breaks, without branches on the bytes."""
    n_tok = 0
    n_breaks = 0
    prev = 0
    for i in range(buf.shape[0]):
        ch = buf[i]
        inside = 1 if digit[ch] > 0 else 0
        n_tok += inside & (prev ^ 1)
        prev = inside
        n_breaks += 1 if (ch == 10) | (ch == 0) else 0
    return n_tok, n_breaks


@njit(cache=True)
def _table_geometry(size):
    """(shift, mask) of an open-addressing table of `size` (a power of two) slots."""
    bits = 0
    while (1 << bits) < size:
        bits += 1
    return np.uint64(64 - bits), size - 1


@njit(cache=True)
def _slot(keys, code, shift, mask):
    """The slot of code in the table: where it is, or the empty slot (key 0) where it goes
    (Fibonacci hashing, linear probing)."""
    h = np.int64((np.uint64(code) * _GOLDEN) >> shift)
    while keys[h] != 0 and keys[h] != code:
        h = (h + 1) & mask
    return h


@njit(cache=True, nogil=True)
def _scan_stem(buf, digit, max_packed_len, keys, vals, stem, spans):
    """The byte scanner: one pass (after a branch-free count) that finds the tokens (runs of
    bytes with digit > 0), packs each into its base-37 code and, when stem is True, replaces
    each code >= MIN_STEM_CODE by its stem from the hash table (keys, vals). Returns codes
    (0 for tokens longer than max_packed_len), sent_ends, text_ends, the long tokens (index,
    start, end), the indices of the tokens to stem that the table does not resolve (not
    there, or a stem that does not pack: value <= 0), and with spans True the byte span
    (starts, ends) of every token (else empty)."""
    n = buf.shape[0]
    n_tok, n_breaks = _scan_stem_counts(buf, digit)
    codes = np.empty(n_tok, dtype=np.int64)
    sent_ends = np.empty(n_breaks + 1, dtype=np.int64)
    text_ends = np.empty(n_breaks + 1, dtype=np.int64)
    n_long_max = n // (max_packed_len + 1) + 1
    long_tok = np.empty(n_long_max, dtype=np.int64)
    long_start = np.empty(n_long_max, dtype=np.int64)
    long_end = np.empty(n_long_max, dtype=np.int64)
    pending = np.empty(n_tok if stem else 0, dtype=np.int64)
    starts = np.empty(n_tok if spans else 0, dtype=np.int64)
    ends = np.empty(n_tok if spans else 0, dtype=np.int64)
    shift, mask = _table_geometry(keys.shape[0])
    t = 0
    n_sent = 0
    n_text = 0
    n_long = 0
    n_pending = 0
    i = 0
    while i < n:
        d = digit[buf[i]]
        if d > 0:
            start = i
            code = d
            i += 1
            while i < n:
                d = digit[buf[i]]
                if d == 0:
                    break
                code = code * 37 + d
                i += 1
            if spans:
                starts[t] = start
                ends[t] = i
            if i - start > max_packed_len:
                code = 0
                long_tok[n_long] = t
                long_start[n_long] = start
                long_end[n_long] = i
                n_long += 1
            elif stem and code >= MIN_STEM_CODE:
                h = _slot(keys, code, shift, mask)
                if keys[h] == code and vals[h] > 0:
                    code = vals[h]
                else:  # not in the table yet, or a stem that does not pack: the caller's
                    pending[n_pending] = t
                    n_pending += 1
            codes[t] = code
            t += 1
            continue
        ch = buf[i]
        if ch == 10 or ch == 0:
            sent_ends[n_sent] = t
            n_sent += 1
            if ch == 0:
                text_ends[n_text] = n_sent
                n_text += 1
        i += 1
    sent_ends[n_sent] = t  # the end of the buffer ends the last sentence and text
    n_sent += 1
    text_ends[n_text] = n_sent
    n_text += 1
    return (codes, sent_ends[:n_sent], text_ends[:n_text], long_tok[:n_long],
            long_start[:n_long], long_end[:n_long], pending[:n_pending], starts, ends)


def scan_stem_tokens(buf: np.ndarray, max_packed_len: int, keys: np.ndarray, vals: np.ndarray,
                     stem: bool):
    """scan_ascii_tokens of a buffer that is not lowercased yet (A-Z read as a-z), with the
    stems of a hash table applied on the way (see _scan_stem)."""
    return _scan_stem(buf, _WORD_BYTE_FOLD, max_packed_len, keys, vals, stem, False)[:7]


@njit(cache=True, nogil=True)
def stem_table_insert(keys, vals, new_keys, new_vals):
    """Insert new_keys -> new_vals into the open-addressing table (keys, vals) in place
    (key 0 marks an empty slot; the caller keeps the load below 1/2)."""
    shift, mask = _table_geometry(keys.shape[0])
    for q in range(new_keys.shape[0]):
        code = new_keys[q]
        h = _slot(keys, code, shift, mask)
        keys[h] = code
        vals[h] = new_vals[q]


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
    operations of rouge_aggregate.fscore in the same order (IEEE, no fast-math: no fused
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


# --------------------------------------------------------------------------------------------
# The profiles that count sets (pltrdy's rouge 1.0.1, rouge-chinese 1.0.3): ROUGE-N over
# distinct n-grams, and pltrdy's ROUGE-L, the distinct words on the LCS of each pair of
# sentences


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
        _copy(tokens, p0, p1, both, 0)
        _copy(tokens, r0, r1, both, lp)
        unigram, u = _dense_ids(both)
        gram = unigram.copy()
        keys = np.empty(lp + lr, dtype=np.int64)
        flags = np.zeros(lp + lr, dtype=np.int8)
        q = 0
        for n in range(1, min(top, max(lp, lr)) + 1):
            if n > 1:  # gram[i]: the id of the n-gram at i, for windows inside one text
                for i in range(lp + lr):
                    inside = i + n <= lp if i < lp else i + n <= lp + lr
                    keys[i] = gram[i] * u + unigram[i + n - 1] if inside else -1
                gram, _ = _dense_ids(keys)
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
def _set_union_mask(ids, lp, sent_p, sent_r, mask, buf_c, buf_l, zeros_c, zeros_l, f):
    """Mark mask[i] for each prediction position i (ids[:lp]; its sentences at sent_p) on
    pltrdy's traceback of the LCS of some (reference sentence, prediction sentence) pair (the
    reference at ids[lp:], its sentences at sent_r). Returns how many it marked.

    pltrdy traces its table (reference rows, prediction columns) up when the cell above is
    strictly larger, else left: _mark_path's rule (up when up >= left) on the transposed
    table, the prediction sentence as rows, so its marks fall on the prediction."""
    # which reference sentence last held each id: a sentence pair without a shared word has
    # an empty LCS, and is skipped; once every prediction position whose word the reference
    # has is marked, no traceback can mark more
    seen_in = np.full(ids.shape[0], -1, dtype=np.int64)
    for q in range(lp, ids.shape[0]):
        seen_in[ids[q]] = 0
    markable = 0
    for q in range(lp):
        markable += 1 if seen_in[ids[q]] == 0 else 0
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
            shared = False
            for q in range(x0, x1):
                if seen_in[ids[q]] == si + 1:
                    shared = True
                    break
            if shared:
                marked += _mark_path(ids[x0:x1], ids[y0:y1], False, f, mask[x0:x1], buf_c,
                                     buf_l, zeros_c, zeros_l, _BASE_CELLS)
    return marked


@njit(cache=True)
def _set_union_buffers(max_p, max_r):
    """Scratch arrays for _mark_path over sentences of up to max_p x max_r tokens."""
    size = min(_BASE_CELLS, (max_p + 1) * (max_r + 1))
    zeros = max(max_p, max_r) + 1
    return (np.empty(size, dtype=np.float64), np.empty(size, dtype=np.int64),
            np.zeros(zeros, dtype=np.float64), np.zeros(zeros, dtype=np.int64),
            np.zeros(1, dtype=np.float64))


@njit(cache=True)
def set_union_mask(tokens, lp, sent_p, sent_r):
    """The Space's highlights: the prediction positions _set_union_mask marks, for one pair
    (tokens: the prediction's, then the reference's; sentence bounds relative to each)."""
    ids, _ = _dense_ids(tokens)
    max_p = 0
    for s in range(sent_p.shape[0] - 1):
        max_p = max(max_p, sent_p[s + 1] - sent_p[s])
    max_r = 0
    for s in range(sent_r.shape[0] - 1):
        max_r = max(max_r, sent_r[s + 1] - sent_r[s])
    buf_c, buf_l, zeros_c, zeros_l, f = _set_union_buffers(max_p, max_r)
    mask = np.zeros(lp, dtype=np.bool_)
    _set_union_mask(ids, lp, sent_p, sent_r, mask, buf_c, buf_l, zeros_c, zeros_l, f)
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
    first = np.empty(_table_size(n_max), dtype=np.int64)
    flags = np.zeros(n_max, dtype=np.int8)
    mask = np.zeros(n_max, dtype=np.bool_)
    buf_c, buf_l, zeros_c, zeros_l, f = _set_union_buffers(max_p, max_r)
    for k in range(n_pairs):
        p, r = pair_pred[k], pair_ref[k]
        sp0, sp1 = text_sent_offsets[p], text_sent_offsets[p + 1]
        sr0, sr1 = text_sent_offsets[r], text_sent_offsets[r + 1]
        t_p0, t_r0 = sent_offsets[sp0], sent_offsets[sr0]
        lp = sent_offsets[sp1] - t_p0
        lr = sent_offsets[sr1] - t_r0
        _copy(tokens, t_p0, t_p0 + lp, both, 0)
        _copy(tokens, t_r0, t_r0 + lr, both, lp)
        u = _dense_ids_into(both, lp + lr, ids, first)
        for t in range(u):
            flags[t] = 0
        out[k, 1] = _count_new(ids, 0, lp, flags, 1)
        out[k, 2] = _count_new(ids, lp, lp + lr, flags, 2)
        if lp == 0 or lr == 0:
            continue
        for i in range(lp):
            mask[i] = False
        _set_union_mask(ids[:lp + lr], lp, sent_offsets[sp0:sp1 + 1] - t_p0,
                        sent_offsets[sr0:sr1 + 1] - t_r0, mask, buf_c, buf_l, zeros_c,
                        zeros_l, f)
        words = 0
        for i in range(lp):
            if mask[i] and not flags[ids[i]] & 4:
                flags[ids[i]] |= 4
                words += 1
        out[k, 0] = words
    return out


# --------------------------------------------------------------------------------------------
# One example call per kernel, on a tiny input with the argument types the scorer uses (one
# compiled signature each: readonly uint8 buffers, C-contiguous int64 arrays). rouge_backend
# compiles a kernel by calling its example; the order is the compile order (what a first call
# of the default types needs first).


def _examples():
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    tokens, offsets = i64([1, 2, 3, 4, 1, 3, 2]), i64([0, 4, 7])
    sent, text_sent = i64([0, 2, 4, 7]), i64([0, 2, 3])
    pred, ref = i64([0]), i64([1])
    buf = np.frombuffer(b"The cats sat\nthe mat\x00a dog", dtype=np.uint8)
    table = np.zeros(64, dtype=np.int64)
    cdf = (np.array([0.36787944, 0.73575888, 0.9196986, 0.98101184, 0.99634015, 0.99940582,
                     0.99991676, 0.99998975, 0.99999887, 1.0]) * 2.0 ** 32).astype(np.uint64)
    return {
        "scan_stem_tokens": lambda K: K.scan_stem_tokens(buf, 12, table, table.copy(), True),
        "scan_ascii_tokens": lambda K: K.scan_ascii_tokens(buf, 12),
        "dense_ids": lambda K: K.dense_ids(tokens),
        "stem_table_insert": lambda K: K.stem_table_insert(table.copy(), table.copy(),
                                                           i64([60000]), i64([5])),
        "ngram_stats": lambda K: K.ngram_stats(tokens, offsets, pred, ref, i64([1, 2])),
        "union_lcs_stats": lambda K: K.union_lcs_stats(tokens, sent, text_sent, tokens,
                                                       offsets, pred, ref),
        "lcs_stats": lambda K: K.lcs_stats(tokens, offsets, pred, ref),
        "exact_column_sums": lambda K: K.exact_column_sums(np.ones((2, 3))),
        "example_prf": lambda K: K.example_prf(np.ones((2, 2, 3)), 0.5),
        "poisson_bootstrap_sums": lambda K: K.poisson_bootstrap_sums(
            np.ones((3, 3)), np.arange(3, dtype=np.uint64), i64([0, 0, 0]), np.uint64(1), 4,
            cdf),
        "wlcs_stats": lambda K: K.wlcs_stats(tokens, sent, text_sent, tokens, offsets, pred,
                                             ref, 1.2),
        "skip_bigram_stats": lambda K: K.skip_bigram_stats(tokens, offsets, pred, ref, 4, True),
        "perl_bootstrap_means": lambda K: K.perl_bootstrap_means(np.ones((3, 3)), 4, True, 0),
        "distinct_ngram_stats": lambda K: K.distinct_ngram_stats(tokens, offsets, pred, ref,
                                                                 i64([1, 2])),
        "set_union_lcs_stats": lambda K: K.set_union_lcs_stats(tokens, sent, text_sent, pred,
                                                               ref),
    }


EXAMPLES = _examples()
