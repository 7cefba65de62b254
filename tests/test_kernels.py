"""The numba kernels against the slow, obviously correct reference in naive_rouge.py
(which test_naive_vs_perl.py checks against the Perl script itself)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import naive_rouge
from conftest import COMPILED, staged

K = COMPILED  # (compiled at the first test that reads a kernel)

# small alphabets make repeats, ties and partial matches likely
sentence = st.lists(st.integers(0, 5), max_size=9)
text = st.lists(sentence, max_size=4)


def batch(*texts):
    """Flat layout of texts given as lists of sentences of int tokens."""
    tokens, sent_offsets, text_sent_offsets = [], [0], [0]
    for t in texts:
        for s in t:
            tokens.extend(s)
            sent_offsets.append(len(tokens))
        text_sent_offsets.append(len(sent_offsets) - 1)
    sent_offsets = np.array(sent_offsets, dtype=np.int64)
    text_sent_offsets = np.array(text_sent_offsets, dtype=np.int64)
    return (np.array(tokens, dtype=np.int64), sent_offsets, text_sent_offsets,
            sent_offsets[text_sent_offsets])


def flat(t):
    return [tok for s in t for tok in s]


PAIR = (np.array([0], dtype=np.int64), np.array([1], dtype=np.int64))
SETTINGS = settings(max_examples=300, deadline=None)


@SETTINGS
@given(pred=text, ref=text)
def test_ngram_stats_equal_naive(pred, ref):
    tokens, _, _, offsets = batch(pred, ref)
    out = K.ngram_stats(tokens, offsets, *PAIR, np.arange(1, 8))
    for n in range(1, 8):
        assert tuple(out[0, n - 1]) == naive_rouge.ngram_stats(flat(pred), flat(ref), n)


@SETTINGS
@given(pred=text, ref=text)
@pytest.mark.slow
def test_lcs_stats_equal_naive(pred, ref):
    tokens, _, _, offsets = batch(pred, ref)
    out = K.lcs_stats(tokens, offsets, *PAIR)
    assert tuple(out[0]) == naive_rouge.lcs_stats(flat(pred), flat(ref))


@settings(max_examples=100, deadline=None)
@given(a=st.lists(st.integers(0, 3), max_size=200), b=st.lists(st.integers(0, 3), max_size=200))
def test_bit_parallel_lcs_across_words(a, b):
    # lengths past 64 and 128 exercise the carry between machine words
    assert K._lcs_length(np.array(a, dtype=np.int64), np.array(b, dtype=np.int64), 4) == \
        naive_rouge.lcs_length(a, b)


@SETTINGS
@given(pred=text, ref=text)
def test_union_lcs_equal_naive(pred, ref):
    tokens, sent_offsets, text_sent_offsets, offsets = batch(pred, ref)
    out = K.union_lcs_stats(tokens, sent_offsets, text_sent_offsets, tokens, offsets, *PAIR)
    assert tuple(out[0]) == naive_rouge.union_lcs_stats(pred, ref)


@SETTINGS
@given(pred=text, ref=text, weight=st.sampled_from([1.2, 1.5, 2.0]))
def test_wlcs_equal_naive(pred, ref, weight):
    tokens, sent_offsets, text_sent_offsets, offsets = batch(pred, ref)
    out = K.wlcs_stats(tokens, sent_offsets, text_sent_offsets, tokens, offsets, *PAIR, weight)
    hit, pred_total, ref_base = naive_rouge.wlcs_stats(pred, ref, weight)
    assert out[0, 0] == pytest.approx(hit, rel=1e-12, abs=1e-12)
    assert out[0, 1] == pred_total
    assert out[0, 2] == pytest.approx(ref_base, rel=1e-12)


@SETTINGS
@given(pred=text, ref=text, max_skip=st.sampled_from([-1, 0, 1, 4, 40, 2 ** 40]),
       unigrams=st.booleans())
def test_skip_bigrams_equal_naive(pred, ref, max_skip, unigrams):
    tokens, _, _, offsets = batch(pred, ref)
    out = K.skip_bigram_stats(tokens, offsets, *PAIR, max_skip, unigrams)
    assert tuple(out[0]) == naive_rouge.skip_bigram_stats(
        flat(pred), flat(ref), None if max_skip < 0 else max_skip, unigrams)


@settings(max_examples=50, deadline=None)
@given(pred=text, ref=text)
def test_swapping_texts_swaps_counts(pred, ref):
    tokens, sent_offsets, text_sent_offsets, offsets = batch(pred, ref)
    fwd, back = PAIR, PAIR[::-1]
    for kernel in (lambda p: K.ngram_stats(tokens, offsets, *p, np.array([3]))[:, 0],
                   lambda p: K.lcs_stats(tokens, offsets, *p),
                   lambda p: K.skip_bigram_stats(tokens, offsets, *p, 4, False)):
        a, b = kernel(fwd)[0], kernel(back)[0]
        assert (a[0], a[1], a[2]) == (b[0], b[2], b[1])


@settings(max_examples=40, deadline=None)
@given(pred=st.lists(st.lists(st.integers(0, 4), min_size=50, max_size=150), max_size=3),
       ref=st.lists(st.lists(st.integers(0, 4), max_size=80), max_size=3))
@pytest.mark.slow
def test_union_lcs_long_sentences_equal_naive(pred, ref):
    # prediction sentences past 64 tokens take the DP-table path instead of the bit rows
    tokens, sent_offsets, text_sent_offsets, offsets = batch(pred, ref)
    out = K.union_lcs_stats(tokens, sent_offsets, text_sent_offsets, tokens, offsets, *PAIR)
    assert tuple(out[0]) == naive_rouge.union_lcs_stats(pred, ref)


def test_identical_texts_match_fully():
    t = [[1, 2, 3, 1], [4, 2]]
    tokens, sent_offsets, text_sent_offsets, offsets = batch(t, t)
    # 6 tokens, 5 bigrams (N-grams run across sentence breaks)
    assert tuple(K.ngram_stats(tokens, offsets, *PAIR, np.array([1, 2]))[0, 1]) == (5, 5, 5)
    assert tuple(K.lcs_stats(tokens, offsets, *PAIR)[0]) == (6, 6, 6)
    assert tuple(K.union_lcs_stats(tokens, sent_offsets, text_sent_offsets, tokens, offsets,
                                   *PAIR)[0]) == (6, 6, 6)


def test_many_pairs_in_parallel_equal_one_by_one():
    rng = np.random.default_rng(0)
    texts = [[list(rng.integers(0, 6, rng.integers(0, 12))) for _ in range(rng.integers(1, 4))]
             for _ in range(60)]
    tokens, sent_offsets, text_sent_offsets, offsets = batch(*texts)
    pred = np.arange(0, 60, 2, dtype=np.int64)
    ref = pred + 1
    out = K.union_lcs_stats(tokens, sent_offsets, text_sent_offsets, tokens, offsets, pred, ref)
    for k in range(30):
        assert tuple(out[k]) == naive_rouge.union_lcs_stats(texts[2 * k], texts[2 * k + 1])


def test_perl_drand48_matches_spec_example():
    # SPEC §6: seven instances scoring [1,0,0,0,0,0,0] print an average of 0.14300 with -r 1000
    values = np.array([[1.0], [0], [0], [0], [0], [0], [0]])
    means = np.sort(K.perl_bootstrap_means(values, 1000)[:, 0])
    assert "%.5f" % (np.cumsum(means)[-1] / 1000) == "0.14300"


def test_only_two_non_ascii_characters_lower_to_ascii():
    # the fast tokenizer path lowercases ASCII bytes only, unless one of these is present
    import re
    import sys

    rouge_text = staged("text.tokenizers")

    found = tuple(chr(c) for c in range(0x80, sys.maxunicode + 1)
                  if re.search("[a-z0-9]", chr(c).lower()))
    assert found == rouge_text.LOWERS_TO_ASCII


def test_text_holding_nul_is_still_one_text():
    rouge_text = staged("text.tokenizers")

    batch = rouge_text.tokenize_ascii_batch(["a\x00b", "c"], K.scan_ascii_tokens,
                                            unicode_lower=True)
    assert list(batch.text_offsets) == [0, 2, 3]


@settings(max_examples=300, deadline=None)
@given(y=st.lists(st.integers(0, 3), min_size=1, max_size=40),
       x=st.lists(st.integers(0, 3), min_size=1, max_size=40),
       weighted=st.booleans(), base_cells=st.integers(1, 60))
@pytest.mark.slow
def test_linear_space_traceback_marks_the_same_path(y, x, weighted, base_cells):
    # the divide-and-conquer traceback (small base_cells: many levels) must mark exactly
    # what the traceback of the whole table marks (naive_rouge's, ROUGE-1.5.5's order)
    weight = 1.2
    table = naive_rouge._wlcs_table(y, x, weight) if weighted else naive_rouge._lcs_table(y, x)
    marked = naive_rouge._trace_back(table, y, x)
    marks = [i in marked for i in range(len(y))]
    y = np.array(y, dtype=np.int64)
    x = np.array(x, dtype=np.int64)
    f = np.array([float(k) ** weight for k in range(len(x) + len(y) + 2)])
    got = np.zeros(len(y), dtype=np.bool_)
    buf = base_cells + 3 * (len(x) + 1)
    new = K.mark_path(y, x, weighted, f, got, np.empty(buf), np.empty(buf, dtype=np.int64),
                       np.zeros(len(x) + len(y) + 1), np.zeros(len(x) + len(y) + 1, np.int64),
                       base_cells)
    assert got.tolist() == marks
    assert new == sum(marks)


@settings(max_examples=30, deadline=None)
@given(texts=st.lists(st.text(alphabet="ab1 \n.\x00é", max_size=30), min_size=1, max_size=40))
def test_scan_in_pieces_equals_one_scan(texts):
    buf = np.frombuffer("\x00".join(texts).encode("utf-8") * 1, dtype=np.uint8)
    # force the split path on a small buffer by padding it past the 1 MiB threshold
    pad = np.frombuffer(b" " * (1 << 20) + b"\x00", dtype=np.uint8)
    big = np.concatenate([buf, np.frombuffer(b"\x00", dtype=np.uint8), pad, buf])
    one = K.scan_ascii_tokens(big, 12, parts=1)
    for parts in (2, 3):
        split = K.scan_ascii_tokens(big, 12, parts=parts)
        for a, b in zip(one, split):
            assert a.tolist() == b.tolist()


@settings(max_examples=300, deadline=None)
@given(pred=st.lists(st.integers(0, 6), max_size=40), ref=st.lists(st.integers(0, 6), max_size=40),
       max_skip=st.one_of(st.integers(0, 45), st.just(-1)))
def test_both_skip_bigram_counts_equal_naive(pred, ref, max_skip):
    # skip_bigram_stats takes whichever of the two is cheaper; each must be exact on its own
    ids, u = K.dense_ids(np.array(pred + ref, dtype=np.int64))
    ids_p, ids_r = ids[:len(pred)], ids[len(pred):]
    gap = max(len(pred), len(ref)) if max_skip < 0 else max_skip
    expected = naive_rouge.skip_bigram_stats(pred, ref, None if max_skip < 0 else max_skip,
                                             False)[0]
    common, c, _ = K._common_words(ids_p, ids_r, u)
    assert K._skip_hits_by_first_word(ids_p, ids_r, u, gap) == expected
    assert K._skip_hits_by_second_word(ids_p, ids_r, common, c, gap) == expected


@pytest.mark.parametrize("max_skip", [-1, 0, 3, 100, 699, 700, 2 ** 40])
def test_long_skip_bigram_texts_equal_naive(max_skip):
    rng = np.random.default_rng(3)
    pred = [list(rng.integers(0, 40, 700))]
    ref = [list(rng.integers(0, 400, 650))]
    tokens, _, _, offsets = batch(pred, ref)
    for unigrams in (False, True):
        out = K.skip_bigram_stats(tokens, offsets, *PAIR, max_skip, unigrams)
        assert tuple(out[0]) == naive_rouge.skip_bigram_stats(
            flat(pred), flat(ref), None if max_skip < 0 else max_skip, unigrams)


@settings(max_examples=100, deadline=None)
@given(y=st.lists(st.integers(0, 3), min_size=1, max_size=300),
       x=st.lists(st.integers(0, 3), min_size=65, max_size=300))
def test_multiword_bit_rows_mark_the_same_path(y, x):
    # prediction sentences past 64 tokens: bit rows of several words, checkpointed blocks
    marked = naive_rouge._trace_back(naive_rouge._lcs_table(y, x), y, x)
    got = np.zeros(len(y), dtype=np.bool_)
    head = np.full(4, -1, dtype=np.int64)
    mask_of = np.full(4, -1, dtype=np.int64)
    new = K._mark_lcs_bit_rows(np.array(y, dtype=np.int64), np.array(x, dtype=np.int64), head,
                               np.empty(len(x), dtype=np.int64), mask_of,
                               np.zeros((len(x) + 63) // 64, dtype=np.uint64), got)
    assert got.tolist() == [i in marked for i in range(len(y))]
    assert new == len(marked) and (head == -1).all() and (mask_of == -1).all()


def test_many_one_token_sentences_cost_one_dp_each():
    # "a\n" * n against itself: every reference sentence is fully marked by the first
    # prediction sentence, so the loop stops there (it was n^2 sentence pairs)
    n = 20000
    tokens = np.ones(2 * n, dtype=np.int64)
    sent_offsets = np.arange(2 * n + 1, dtype=np.int64)
    text_sent_offsets = np.array([0, n, 2 * n], dtype=np.int64)
    offsets = sent_offsets[text_sent_offsets]
    assert K.union_lcs_stats(tokens, sent_offsets, text_sent_offsets, tokens, offsets,
                             *PAIR)[0].tolist() == [n, n, n]
    assert K.wlcs_stats(tokens, sent_offsets, text_sent_offsets, tokens, offsets, *PAIR,
                        1.2)[0].tolist() == [n, n, n]


@settings(max_examples=300, deadline=None)
@given(pred=st.lists(st.integers(0, 2), max_size=40), ref=st.lists(st.integers(0, 2), max_size=40),
       orders=st.sets(st.integers(1, 45), min_size=1, max_size=6))
def test_requested_ngram_orders_equal_naive(pred, ref, orders):
    # each order built by doubling from power-of-two orders; texts of few words repeat long
    # n-grams, so high orders still match
    orders = sorted(orders)
    tokens, _, _, offsets = batch([pred], [ref])
    out = K.ngram_stats(tokens, offsets, *PAIR, np.array(orders, dtype=np.int64))
    for q, n in enumerate(orders):
        assert tuple(out[0, q]) == naive_rouge.ngram_stats(pred, ref, n)


def test_join_windows_ignores_stale_slots():
    """_join_windows keys an (a + b)-gram as id_a * u_b + id_b, with u_b from the b-grams'
    own windows only: a stale value in the unused slots after them (the level buffers are
    reused) once made u_b 2^62 + 1, so a_id * u_b wrapped and (4, 0) met (0, 4); CI caught it
    as a rouge4 precision 1/34 off rouge_score on a realsumm row."""
    kernels = K
    # a = b = 1, lp = lr = 2: unigram windows [p0, p1 | r0, r1]; bigrams (p0 p1), (r0 r1)
    stale = 2 ** 62
    a_ids = np.array([4, 0, 0, 4, stale, stale], dtype=np.int64)
    b_ids = a_ids.copy()
    functions = [kernels._join_windows]
    if hasattr(kernels._join_windows, "py_func"):
        functions.append(kernels._join_windows.py_func)
    for join in functions:
        ids = join(a_ids, 1, b_ids, 1, 2, 2)
        # bigrams "4 0" and "0 4" differ: two distinct ids, as a dict of tuples gives them
        assert len(ids) == 2 and ids[0] != ids[1], join
