"""The summary-level kernels of kernels.registry: the union LCS (rougeLsum; ROUGE-1.5.5's
ROUGE-L) and ROUGE-1.5.5's weighted LCS (ROUGE-W), which mark the reference positions on the
LCS of every sentence pair (bit-parallel, or by a linear-space traceback of the table)."""

from __future__ import annotations

import numpy as np

from .registry import copy_range, dense_ids_into, table_size, njit
from .score import (
    bit_rows,
    checkpoint_rows,
    zeros_below,
    zeros_below_words,
)


# --------------------------------------------------------------------------------------------
# Summary-level union LCS (rougeLsum; ROUGE-1.5.5's ROUGE-L) and weighted LCS (ROUGE-W)


@njit(cache=True)
def mark_lcs_bits(ids, y0, m, x0, n, bit_of, rows, mask):
    """mark_path (unweighted) of y = ids[y0:y0 + m] and a prediction sentence x =
    ids[x0:x0 + n] of at most 64 tokens: the DP rows are machine words (Hyyro's bit-vector
    LCS), the traceback reads c[i][j] by popcount. Same path, O(m + n) instead of O(m * n).
    The sentences as offsets into one array, not slices: a slice passed per sentence pair
    costs its creation and reference counting (see bit_rows). bit_of is a zeroed scratch
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
            if not mask[i]:  # newly on a path (inline: see bit_rows on calls per step)
                mask[i] = True
                new += 1
        elif zeros_below(rows[i - 1], j) >= zeros_below(rows[i], j - 1):
            i -= 1
        else:
            j -= 1
    return new


@njit(cache=True)
def _mark_lcs_bit_rows(y, x, head, nxt, mask_of, match, mask):
    """mark_lcs_bits for a prediction sentence of any length: rows of ceil(len(x) / 64)
    words, every b-th row kept (b = sqrt(len(y))) and a block of b rows recomputed from its
    checkpoint when the traceback reaches it (each block once: the path only moves up).
    O(sqrt(len(y)) * len(x) / 64) words, two passes of len(y) * len(x) / 64 word steps.
    head and mask_of (filled with -1, at least u long), nxt and match (zeroed) are scratch.
    Returns how many positions it newly marked."""
    m = y.shape[0]
    n = x.shape[0]
    words = (n + 63) // 64
    masks, b, checkpoints = checkpoint_rows(y, x, head, nxt, mask_of, match)
    block = np.empty((b + 1, words), dtype=np.uint64)
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
                bit_rows(block[r], y, i0 + r - 1, i0 + r, head, nxt, mask_of, masks, match)
        if zeros_below_words(block[i - 1 - i0], j) >= zeros_below_words(block[i - i0], j - 1):
            i -= 1
        else:
            j -= 1
    for pos in range(n):
        head[x[pos]] = -1
        mask_of[x[pos]] = -1
    return new


BASE_CELLS = 1 << 16  # sub-tables up to this many cells are filled whole (1 MiB)


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
def mark_path(y, x, weighted, f, mask, buf_c, buf_l, zeros_c, zeros_l, base_cells):
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
    first = np.empty(table_size(n_max), dtype=np.int64)
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
    # paths in mark_path: a block fits it exactly when it has at most BASE_CELLS cells)
    buf_size = 1 if weight is None else min(BASE_CELLS, (max_r + 1) * (max_p + 1))
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
        copy_range(tokens, t_p0, t_p0 + lp, both, 0)
        copy_range(tokens, t_r0, t_r0 + lr, both, lp)
        copy_range(clip_tokens, c_p0, c_p1, both, lp + lr)
        copy_range(clip_tokens, c_r0, c_r1, both, lp + lr + nc_p)
        u = dense_ids_into(both, n, ids, first)
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
                    marked += mark_path(ids[ry:ry + m], ids[x0:x0 + nx], True, f, mask, buf_c,
                                         buf_l, zeros_c, zeros_l, BASE_CELLS)
                elif nx <= 64:
                    marked += mark_lcs_bits(ids, ry, m, x0, nx, bit_of, rows, mask)
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
