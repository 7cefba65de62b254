"""Until numba has a kernel, calls run on rouge_vectorized (numpy over the whole batch) or on
rouge_kernels run as plain Python (rouge_warmup picks per call): the same numbers as the
compiled kernels, for every type, profile and option that reaches a kernel, and for batches
of many pairs (the numpy tier works on all pairs at once)."""
import types
import warnings

from conftest import staged
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import rouge_kernels as K
import rouge_vectorized as V
import rouge_warmup as W
from test_kernels import PAIR, batch, text

TWIN = K.pure_python_twin()

# several pairs in one call, with prediction sentences past 64 and 128 tokens (several machine
# words) now and then, and a prediction scored against several references
long_sentence = st.lists(st.integers(0, 5), min_size=60, max_size=140)
many_texts = st.lists(st.one_of(text, st.lists(long_sentence, min_size=1, max_size=2)),
                      min_size=2, max_size=8)


def _calls(tokens, sent_offsets, text_sent_offsets, offsets, pred, ref):
    return [("ngram_stats", (tokens, offsets, pred, ref, np.array([1, 2, 3]))),
            ("ngram_stats", (tokens, offsets, pred, ref, np.array([2, 5]))),
            ("lcs_stats", (tokens, offsets, pred, ref)),
            ("union_lcs_stats", (tokens, sent_offsets, text_sent_offsets, tokens, offsets, pred,
                                 ref)),
            ("wlcs_stats", (tokens, sent_offsets, text_sent_offsets, tokens, offsets, pred, ref,
                            1.2)),
            ("skip_bigram_stats", (tokens, offsets, pred, ref, 4, True)),
            ("skip_bigram_stats", (tokens, offsets, pred, ref, 0, False)),
            ("skip_bigram_stats", (tokens, offsets, pred, ref, -1, False)),
            ("skip_bigram_stats", (tokens, offsets, pred, ref, -1, True))]


@settings(max_examples=100, deadline=None)
@given(pred=text, ref=text)
def test_twin_kernels_equal_compiled(pred, ref):
    tokens, sent_offsets, text_sent_offsets, offsets = batch(pred, ref)
    with np.errstate(over="ignore"):
        for name, args in _calls(tokens, sent_offsets, text_sent_offsets, offsets, *PAIR):
            assert np.array_equal(getattr(TWIN, name)(*args), getattr(K, name)(*args)), name


def _draw_pairs(data, n):
    """Up to 6 (prediction, reference) text indices among n texts, repeats allowed."""
    pred = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=6)),
                    dtype=np.int64)
    ref = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=len(pred),
                                      max_size=len(pred))), dtype=np.int64)
    return pred, ref


@settings(max_examples=150, deadline=None)
@given(texts=many_texts, data=st.data())
def test_vectorized_kernels_equal_compiled_on_batches(texts, data):
    tokens, sent_offsets, text_sent_offsets, offsets = batch(*texts)
    n = len(texts)
    pred, ref = _draw_pairs(data, n)
    for name, args in _calls(tokens, sent_offsets, text_sent_offsets, offsets, pred, ref):
        if not hasattr(V, name):
            continue
        assert np.array_equal(getattr(V, name)(*args), getattr(K, name)(*args)), name
    ids, u = V.dense_ids(tokens)
    expected_ids, expected_u = K.dense_ids(tokens)
    assert u == expected_u and np.array_equal(ids, expected_ids)


ascii_text = st.lists(st.sampled_from(list("abzAZ09 \n.,-é") + ["running", "x" * 13]),
                      max_size=30).map("".join)


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(ascii_text, min_size=1, max_size=5), stem_some=st.booleans())
def test_vectorized_scanners_equal_compiled(texts, stem_some):
    buf = np.frombuffer("\x00".join(texts).encode("utf-8"), dtype=np.uint8)
    for got, want in zip(V.scan_ascii_tokens(buf, 12), K.scan_ascii_tokens(buf, 12)):
        assert np.array_equal(got, want)
    # a stem table filled by both inserts: some codes stem to a code, some to -1 (unpacked)
    codes = K.scan_ascii_tokens(np.frombuffer(buf.tobytes().lower(), dtype=np.uint8), 12)[0]
    chosen = np.unique(codes[codes >= K.MIN_STEM_CODE])[: 3 if stem_some else 0]
    stems = np.where(np.arange(len(chosen)) % 2 == 0, chosen // 5 + 1, -1).astype(np.int64)
    tables = []
    for insert in (K.stem_table_insert, V.stem_table_insert):
        keys, vals = np.zeros(16, dtype=np.int64), np.zeros(16, dtype=np.int64)
        insert(keys, vals, chosen, stems)
        tables.append((keys, vals))
    for stem in (True, False):
        want = K.scan_stem_tokens(buf, 12, *tables[0], stem)
        got = V.scan_stem_tokens(buf, 12, *tables[1], stem)  # another layout, same lookups
        for a, b in zip(got, want):
            assert np.array_equal(a, b)


def test_vectorized_stem_table_insert_keeps_every_key_reachable():
    rng = np.random.default_rng(7)
    codes = np.unique(rng.integers(K.MIN_STEM_CODE, 37 ** 8, 3000))
    keys, vals = np.zeros(8192, dtype=np.int64), np.zeros(8192, dtype=np.int64)
    V.stem_table_insert(keys, vals, codes, codes // 3)
    V.stem_table_insert(keys, vals, codes[:10], -np.ones(10, dtype=np.int64))  # updates
    slot = V._probe(keys, codes)
    assert (slot >= 0).all()
    assert np.array_equal(vals[slot], np.where(np.arange(len(codes)) < 10, -1, codes // 3))


def _forced(tier):
    def pick(name, small):
        if tier == "python":
            function = getattr(TWIN, name)
        else:
            function = getattr(V, name, None) or getattr(TWIN, name)

        def run(*args, **kwargs):
            with np.errstate(over="ignore"):
                return function(*args, **kwargs)

        return run

    return pick


CASES = [
    dict(rouge_types=["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True),
    dict(rouge_types=["rougeW-1.2", "rougeS4", "rougeSU4", "rougeS", "rougeSU"],
         multi_ref="average", remove_stopwords=True),
    dict(rouge_types=["rouge1", "rougeL", "rougeW", "rougeSU4"], profile="rouge155",
         use_stemmer=True, length_limit_bytes=300),
    dict(rouge_types=["rouge2", "rougeLsum"], aggregation="micro", multi_ref="best"),
]


@pytest.mark.parametrize("options", CASES)
def test_metric_on_every_tier_equals_compiled(metric, metric_module, realsumm, monkeypatch,
                                              options):
    rows = realsumm[::70]  # 50 rows, 1-4 references each
    kwargs = dict(predictions=[r["prediction"] for r in rows],
                  references=[r["references"] for r in rows], detailed=True, **options)
    staged("rouge_kernels").warm_up(options["rouge_types"],
                                    profile=options.get("profile", "rouge_score"), detailed=True)
    modules = ("rouge_profiles", "rouge_pipeline", "rouge_aggregate")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in modules:  # the compiled kernels, whatever the batch size
            monkeypatch.setattr(staged(name), "pick",
                                lambda kernel, small: getattr(staged("rouge_kernels"), kernel))
        compiled = [metric.compute(**kwargs), metric.compute(use_aggregator=False, **kwargs)]
        for tier in ("vectorised", "python"):
            for name in modules:
                monkeypatch.setattr(staged(name), "pick", _forced(tier))
            assert [metric.compute(**kwargs),
                    metric.compute(use_aggregator=False, **kwargs)] == compiled, tier


@settings(max_examples=200, deadline=None)
@given(texts=many_texts, data=st.data())
def test_union_lcs_over_one_sentence_per_text_is_the_lcs(texts, data):
    """lcs_stats' stand-in (rouge_warmup.STAND_INS): the union LCS of texts that are one
    sentence each, clipped by the same tokens, has the LCS's counts, for any pairs."""
    tokens, _, _, offsets = batch(*texts)
    n = len(texts)
    pred, ref = _draw_pairs(data, n)
    one_each = np.arange(n + 1, dtype=np.int64)
    assert np.array_equal(K.union_lcs_stats(tokens, offsets, one_each, tokens, offsets, pred, ref),
                          K.lcs_stats(tokens, offsets, pred, ref))


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_rouge_l_by_its_stand_in_equals_rouge_score(metric, realsumm, monkeypatch, use_stemmer):
    from rouge_score import rouge_scorer

    rows = realsumm[::9]
    predictions = [r["prediction"] for r in rows]
    references = [r["references"][0] for r in rows]
    staged("rouge_kernels").warm_up(["rougeLsum"])
    pipeline = staged("rouge_pipeline")
    asked = []
    monkeypatch.setattr(pipeline, "stand_in", lambda name: asked.append(name) or
                        W.STAND_INS.get(name, name))  # as before lcs_stats is compiled
    ours = metric.compute(predictions=predictions, references=references, rouge_types=["rougeL"],
                          use_stemmer=use_stemmer, use_aggregator=False)["rougeL"]
    assert asked == ["lcs_stats"]
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=use_stemmer)
    assert ours == [scorer.score(r, p)["rougeL"].fmeasure for p, r in zip(predictions, references)]


def test_stand_in_only_until_the_kernel_is_there(monkeypatch):
    monkeypatch.setattr(W, "start_background_compile", lambda **kind: [])
    monkeypatch.setattr(W, "background_mode", lambda: "process")
    have = set()
    monkeypatch.setattr(W, "ready", lambda name: name in have)
    monkeypatch.setattr(W, "cached", lambda name: False)
    assert W.stand_in("lcs_stats") == "lcs_stats"  # neither: the tiers of lcs_stats itself
    have.add("union_lcs_stats")
    assert W.stand_in("lcs_stats") == "union_lcs_stats"
    assert W.stand_in("ngram_stats") == "ngram_stats"  # no stand-in
    have.add("lcs_stats")
    assert W.stand_in("lcs_stats") == "lcs_stats"
    have.discard("lcs_stats")
    monkeypatch.setattr(W, "cached", lambda name: name == "lcs_stats")
    assert W.stand_in("lcs_stats") == "lcs_stats"  # loading it takes ~0.01 s
    monkeypatch.setattr(W, "background_mode", lambda: "off")  # numba's behaviour: compile it
    monkeypatch.setattr(W, "cached", lambda name: False)
    assert W.stand_in("lcs_stats") == "lcs_stats"


def test_pick_per_call(monkeypatch):
    not_compiled = types.SimpleNamespace(signatures=[])
    tokens, sent_offsets, text_sent_offsets, offsets = batch([[1, 2, 3]], [[1, 3]])
    K.lcs_stats(tokens, offsets, *PAIR)  # numba has it now (compiled, or from its cache)
    assert K.pick("lcs_stats", small=True) is K.lcs_stats
    monkeypatch.setitem(K.__dict__, "_lcs_dummy", not_compiled)
    monkeypatch.setitem(K._COMPILED_BY, "lcs_stats", "_lcs_dummy")
    monkeypatch.setattr(W, "start_background_compile", lambda **kind: [])
    monkeypatch.setattr(W, "cached", lambda name: False)
    chosen = K.pick("lcs_stats", small=False)
    assert chosen is not K.lcs_stats
    assert W.tier_of("lcs_stats", False, (tokens, offsets, *PAIR)) == "vectorised"
    assert tuple(chosen(tokens, offsets, *PAIR)[0]) == (2, 3, 2)
    # the bootstrap has no numpy twin: plain Python for a small batch, the compiler for a big one
    monkeypatch.setitem(K._COMPILED_BY, "perl_bootstrap_means", "_lcs_dummy")
    args = (np.ones((3, 2)), 10, True, 0)
    assert W.tier_of("perl_bootstrap_means", True, args) == "python"
    assert W.tier_of("perl_bootstrap_means", False, args) == "wait"
    # past its bounds the numpy tier waits for the compiler too
    monkeypatch.setattr(W, "VECTOR_MAX_CELLS", 1)
    assert W.tier_of("lcs_stats", False, (tokens, offsets, *PAIR)) == "wait"
    # once the disk cache has it, loading it beats every other tier
    monkeypatch.setattr(W, "cached", lambda name: True)
    assert W.tier_of("lcs_stats", True, (tokens, offsets, *PAIR)) == "wait"


def test_vectorized_skip_bigrams_refuse_to_list_too_many():
    """The numpy tier lists skip-bigrams (length x distance of them): past MAX_SKIP_KEYS it
    steps aside (a loaded CI once ran rougeS15000 on 2 x 20k tokens there, out of memory),
    and the kernels, which count in O(length), give the hand-computed numbers."""
    n = 20_000
    tokens = np.concatenate([np.arange(n), np.arange(n)[::-1]]).astype(np.int64)
    offsets = np.array([0, n, 2 * n], dtype=np.int64)
    pred, ref = np.array([0, 0]), np.array([0, 1])
    with pytest.raises(V.OutOfScope, match="skip-bigrams to list"):
        V.skip_bigram_stats(tokens, offsets, pred, ref, 15_000, False)
    count = sum(n - g for g in range(1, 15_002))  # gaps 1..d+1, every pair of the text
    assert K.skip_bigram_stats(tokens, offsets, pred, ref, 15_000, False).tolist() == \
        [[count, count, count], [0, count, count]]
    # within the bound the numpy tier still serves (and agrees)
    short = np.concatenate([np.arange(300), np.arange(300)[::-1]]).astype(np.int64)
    args = (short, np.array([0, 300, 600]), pred, ref, -1, True)
    assert np.array_equal(V.skip_bigram_stats(*args), K.skip_bigram_stats(*args))
