"""Deliberately slow, obviously correct reference implementation of ROUGE-1.5.5 statistics.

Pure Python, standard library only. Works on token lists (lists of ``str`` or ``int``; only
equality and hashing are used). Tokenisation, stemming, stopwords and length limits are NOT
done here: callers pass the tokens the Perl script would see (SPEC §2, §3).

Section numbers (§) refer to ``tests/rouge155/SPEC.md`` (the behaviour of the official
ROUGE-1.5.5.pl); "l.NNNN" are line numbers of the Perl script as given in that spec.

Every function returns *statistics* (hit, peer count, reference count). Turning them into the
printed numbers is done with these rules (SPEC §5)::

    R = round5(hit / ref_count)      (0 if ref_count == 0)
    P = round5(hit / pred_count)     (0 if pred_count == 0)
    F = round5(fscore(P, R, alpha))  -- from the ROUNDED P and R
    round5(x) = float("%.5f" % x)

and for ROUGE-W ``wlcs_prf`` (SPEC §4.4.3). With several references under ``-f A`` the
statistics are pooled before dividing (SPEC §5): hits and reference counts are summed, the
peer count is added once per reference.

Everything is written for clarity, not speed: O(m*n) tables, explicit loops, no caching.
"""
from collections import Counter

__all__ = [
    "ngram_stats",
    "lcs_length",
    "lcs_stats",
    "union_lcs_stats",
    "wlcs_stats",
    "wlcs_prf",
    "skip_bigram_stats",
    "fscore",
]


# --------------------------------------------------------------------------- ROUGE-N


def _ngrams(tokens, n):
    """Multiset of the contiguous n-token windows of ``tokens`` (SPEC §4.1, ``createNGram``)."""
    counts = Counter()
    for i in range(len(tokens) - n + 1):
        counts[tuple(tokens[i:i + n])] += 1
    return counts


def ngram_stats(pred, ref, n):
    """ROUGE-N statistics for one peer/reference pair (SPEC §4.1).

    Returns ``(hit, pred_count, ref_count)`` with

    * ``pred_count = max(0, len(pred) - n + 1)`` and likewise for ``ref`` (the number of
      contiguous n-gram windows, ``createNGram`` l.2598);
    * ``hit = sum over n-grams g of min(count_pred(g), count_ref(g))`` (clipped counts,
      ``ngramScore`` l.2219).

    The token lists are the *joined* text of all sentences (``readText``), so n-grams cross
    sentence boundaries (SPEC §2.3.1, §8.4).
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    pred_grams = _ngrams(pred, n)
    ref_grams = _ngrams(ref, n)
    hit = 0
    for gram, ref_count in ref_grams.items():
        hit += min(ref_count, pred_grams.get(gram, 0))
    return hit, max(0, len(pred) - n + 1), max(0, len(ref) - n + 1)


# --------------------------------------------------------------------------- LCS


def _lcs_table(ref, pred):
    """Textbook LCS table; rows follow ``ref`` (the script's "model"), columns ``pred``."""
    m, n = len(ref), len(pred)
    table = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if ref[i - 1] == pred[j - 1]:
                table[i][j] = table[i - 1][j - 1] + 1
            else:
                table[i][j] = max(table[i - 1][j], table[i][j - 1])
    return table


def lcs_length(a, b):
    """Length of the longest common subsequence of ``a`` and ``b`` (textbook O(mn) DP)."""
    return _lcs_table(a, b)[len(a)][len(b)]


def lcs_stats(pred, ref):
    """Sentence-level ROUGE-L statistics as in rouge_score's ``rougeL``.

    Returns ``(lcs_length(pred, ref), len(pred), len(ref))``. (For a single sentence on each
    side this also equals ``union_lcs_stats([pred], [ref])``: the clipping of SPEC §4.3 never
    removes a token of one common subsequence.)
    """
    return lcs_length(pred, ref), len(pred), len(ref)


def _trace_back(table, ref, pred):
    """Reference positions used by the LCS that the Perl script marks (SPEC §4.3, ``markLCS``).

    Starts at the bottom-right corner of ``table`` (rows = reference) and moves:

    * tokens equal -> diagonal, marking the reference position;
    * else if ``table[i-1][j] >= table[i][j-1]`` -> up (along the reference; wins ties);
    * else -> left.

    The Perl script stores the direction chosen while filling the table (``@b``); recomputing
    it from the table with the same comparisons is equivalent, for LCS and for WLCS alike
    (SPEC §4.4.1: "the mask is then traced back exactly as in 4.3").
    """
    marked = []
    i, j = len(ref), len(pred)
    while i > 0 and j > 0:
        if ref[i - 1] == pred[j - 1]:
            i -= 1
            j -= 1
            marked.append(i)
        elif table[i - 1][j] >= table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return marked


def union_lcs_stats(pred_sents, ref_sents):
    """Summary-level union-LCS ROUGE-L statistics with unigram clipping (SPEC §4.3).

    Exactly rouge_score's ``_summary_level_lcs`` and the Perl ``lcs`` sub (l.2279):

    1. Unigram count tables of the whole reference and the whole peer (SPEC §4.3.1; fresh
       per reference, so they are built here).
    2. For each reference sentence, in order: mark, for every peer sentence, the reference
       positions of ONE LCS chosen by the traceback of ``_trace_back`` (union over the peer
       sentences, SPEC §4.3.2).
    3. Walk the reference positions left to right; a marked position with token ``t`` is a hit
       only if both tables still have ``t`` > 0, and then both are decremented. The tables
       stay decremented across the reference's sentences, so the hit never exceeds the
       clipped unigram hit.

    Returns ``(hit, total pred tokens, total ref tokens)`` (SPEC §4.3.3).
    """
    ref_left = Counter(t for sent in ref_sents for t in sent)
    pred_left = Counter(t for sent in pred_sents for t in sent)
    hit = 0
    for ref in ref_sents:
        mask = [False] * len(ref)
        for pred in pred_sents:
            for pos in _trace_back(_lcs_table(ref, pred), ref, pred):
                mask[pos] = True
        for pos, tok in enumerate(ref):
            if mask[pos] and ref_left[tok] > 0 and pred_left[tok] > 0:
                hit += 1
                ref_left[tok] -= 1
                pred_left[tok] -= 1
    pred_total = sum(len(s) for s in pred_sents)
    ref_total = sum(len(s) for s in ref_sents)
    return hit, pred_total, ref_total


# --------------------------------------------------------------------------- ROUGE-W


def _wlcs_table(ref, pred, weight):
    """Weighted-LCS table of the Perl ``wlcs_inner`` sub (l.2471), SPEC §4.4.1.

    Equal tokens: diagonal, ``c = c_diag + f(k+1) - f(k)`` where ``k`` is the run length of
    consecutive matches ending at the diagonal cell (the run length here becomes ``k+1``).
    Otherwise ``c = up`` if ``up >= left`` else ``left``, and the run length resets to 0.
    The floating-point operations are done in the script's order, ``(c_diag + f(k+1)) - f(k)``,
    because the traceback compares these floats and ties decide which LCS is marked.
    """
    m, n = len(ref), len(pred)
    c = [[0] * (n + 1) for _ in range(m + 1)]
    run = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if ref[i - 1] == pred[j - 1]:
                k = run[i - 1][j - 1]
                c[i][j] = c[i - 1][j - 1] + (k + 1) ** weight - k ** weight
                run[i][j] = k + 1
            elif c[i - 1][j] >= c[i][j - 1]:
                c[i][j] = c[i - 1][j]
                run[i][j] = 0
            else:
                c[i][j] = c[i][j - 1]
                run[i][j] = 0
    return c


def wlcs_stats(pred_sents, ref_sents, weight):
    """ROUGE-W statistics of the Perl ``wlcs`` sub (l.2387), SPEC §4.4.

    ``f(k) = k ** weight``. For each reference sentence ``y`` in order:

    * ``ref_base += f(len(y))`` (weighted per sentence, SPEC §4.4.3);
    * the union mask over the peer sentences is built like in ``union_lcs_stats`` but from the
      WLCS table (``_wlcs_table``), traced back with the same rules (SPEC §4.4.1);
    * the hit is NOT the DP value (SPEC §4.4.2): walk the reference positions; a marked position
      passing the clipping test of §4.3 (tables shared across the reference's sentences) adds 1
      to the current run and decrements the tables; right after such a passing position, the run
      is closed, adding ``f(run)`` to the hit, if the next reference position is unmarked or the
      sentence ends. Runs are consecutive REFERENCE positions (peer-side gaps are ignored).
    * Clip-failure oddities: a marked position that fails the clip adds nothing and closes
      nothing, so the run carries over (even across unmarked positions) to the next passing
      marked position; a run still open at the end of the sentence is dropped.

    Returns ``(hit, pred_total_tokens, ref_base)``; ``hit`` and ``ref_base`` are floats.
    Feed them to ``wlcs_prf`` (the reference side gets weighted a second time there).
    """
    ref_left = Counter(t for sent in ref_sents for t in sent)
    pred_left = Counter(t for sent in pred_sents for t in sent)
    hit = 0
    ref_base = 0
    for ref in ref_sents:
        mask = [False] * len(ref)
        ref_base += len(ref) ** weight
        for pred in pred_sents:
            for pos in _trace_back(_wlcs_table(ref, pred, weight), ref, pred):
                mask[pos] = True
        run = 0
        for pos, tok in enumerate(ref):
            if mask[pos] and ref_left[tok] > 0 and pred_left[tok] > 0:
                run += 1
                if pos + 1 < len(ref) and not mask[pos + 1]:
                    hit += run ** weight
                    run = 0
                elif pos + 1 == len(ref):
                    hit += run ** weight
                    run = 0
                ref_left[tok] -= 1
                pred_left[tok] -= 1
        # a run still open here (last marked position failed the clip) is dropped
    pred_total = sum(len(s) for s in pred_sents)
    return float(hit), pred_total, float(ref_base)


def wlcs_prf(hit, pred_total, ref_base, weight):
    """ROUGE-W recall and precision from ``wlcs_stats`` (SPEC §4.4.3, ``computeWLCSScore``).

    ``R = f^-1(hit / f(ref_base))`` (the reference is weighted twice: ``(sum_i |y_i|^w)^w``),
    ``P = f^-1(hit / f(pred_total))`` (weighted once), with ``f(k) = k ** weight`` and
    ``f^-1(z) = z ** (1 / weight)``; each is 0 when its denominator is 0. Not rounded.

    NOTE: when the reference has zero tokens (``ref_base == 0``) the Perl script does not return
    0: ``wlcs`` divides by the base and perl dies ("Illegal division by zero", exit 255,
    SPEC §4.4.4), for every ``-f``/``-t`` mode. This function returns R = P = 0 in that case.

    For several references (``-f A``) pool first (SPEC §5): ``hit = sum_j hit_j``, reference
    denominator ``sum_j f(ref_base_j)``, peer denominator ``f(pred_total)`` added once per
    reference; then apply ``f^-1`` to the ratios.
    """
    den_r = ref_base ** weight
    den_p = pred_total ** weight
    r = (hit / den_r) ** (1 / weight) if den_r != 0 else 0.0
    p = (hit / den_p) ** (1 / weight) if den_p != 0 else 0.0
    return r, p


# --------------------------------------------------------------------------- ROUGE-S / SU


def _skip_bigrams(tokens, max_skip, unigrams):
    """Multiset of the ``createSkipBigram`` sub (l.2662), SPEC §4.2."""
    unlimited = max_skip is None or max_skip < 0
    grams = Counter()
    n = len(tokens)
    for i in range(n - 1):  # i = 0 .. n-2: the last token never starts anything
        if unigrams:
            grams[(tokens[i],)] += 1
        for j in range(i + 1, n):
            if not unlimited and j > i + max_skip + 1:
                break
            grams[(tokens[i], tokens[j])] += 1
    return grams


def skip_bigram_stats(pred, ref, max_skip, unigrams):
    """ROUGE-S / ROUGE-SU statistics (SPEC §4.2).

    * Skip-bigrams: ordered pairs ``(t_i, t_j)``, ``i < j``, with at most ``max_skip`` tokens
      between them (``j <= i + max_skip + 1``). ``max_skip=None`` (or negative, like the script's
      ``-2 -1``) means no limit; ``max_skip=0`` gives plain bigrams.
    * ``unigrams=True`` (SU, ``-u``): in the same loop over ``i = 0 .. n-2`` the unigram ``t_i``
      is added, so the LAST token's unigram is never added and there is no begin-of-sentence
      token. A one-token text has count 0 (``"cat"`` vs ``"cat"`` scores 0).
    * Built over the joined text: skip-bigrams cross sentence boundaries (SPEC §8.4).
    * ``hit`` = clipped counts as in ROUGE-N.

    Returns ``(hit, pred_count, ref_count)``.
    """
    pred_grams = _skip_bigrams(pred, max_skip, unigrams)
    ref_grams = _skip_bigrams(ref, max_skip, unigrams)
    hit = 0
    for gram, ref_count in ref_grams.items():
        hit += min(ref_count, pred_grams.get(gram, 0))
    return hit, sum(pred_grams.values()), sum(ref_grams.values())


# --------------------------------------------------------------------------- F


def fscore(p, r, alpha):
    """``P*R / ((1-alpha)*P + alpha*R)``, or 0 (SPEC §5).

    The script computes it from the ROUNDED P and R, in exactly this operation order, and gives
    0 unless the denominator is > 0 (``(1-$alpha)*$P+$alpha*$R>0``; for 0 <= alpha <= 1 that
    is "0 if the denominator is 0"). alpha = 0.5 is the harmonic mean, 0 gives R, 1 gives P.
    """
    den = (1 - alpha) * p + alpha * r
    if den > 0:
        return (p * r) / den
    return 0.0
