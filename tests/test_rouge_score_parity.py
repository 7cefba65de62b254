"""Drop-in promise: with evaluate's rouge arguments, the numbers of rouge_score 0.1.2."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from conftest import needed  # (an optional test package: a skip with its reason outside CI)
rouge_scorer = needed("rouge_score.rouge_scorer")

pytestmark = pytest.mark.slow  # the full tier only: rouge_score itself on thousands of pairs

TYPES = [f"rouge{n}" for n in range(1, 10)] + ["rougeL", "rougeLsum"]
KEYS = ("precision", "recall", "fmeasure")


def assert_same(ours, theirs, types):
    for t in types:
        for k in KEYS:
            a = np.array(ours[t][k], dtype=np.float64)
            b = np.array([getattr(s[t], k) for s in theirs], dtype=np.float64)
            worst = np.abs(a - b).max()
            assert worst <= 1e-12, (t, k, worst, int(np.abs(a - b).argmax()))


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_realsumm_single_reference(metric, realsumm, use_stemmer):
    preds = [r["prediction"] for r in realsumm]
    refs = [r["references"][0] for r in realsumm]
    ours = metric.compute(predictions=preds, references=refs, rouge_types=TYPES,
                          use_stemmer=use_stemmer, use_aggregator=False, detailed=True)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=use_stemmer)
    theirs = [scorer.score(r, p) for p, r in zip(preds, refs)]
    assert_same(ours, theirs, TYPES)
    assert ours["count"] == len(preds) == 3500


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_realsumm_several_references(metric, realsumm, use_stemmer):
    # extra references: other systems' summaries of the same article (1 to 4 per row)
    by_doc = {}
    for r in realsumm:
        by_doc.setdefault(r["doc"], []).append(r["prediction"])
    rows = realsumm[::5]
    preds = [r["prediction"] for r in rows]
    refs = [[r["references"][0]] + [p for p in by_doc[r["doc"]] if p != r["prediction"]][:i % 4]
            for i, r in enumerate(rows)]
    ours = metric.compute(predictions=preds, references=refs, rouge_types=TYPES,
                          use_stemmer=use_stemmer, use_aggregator=False, detailed=True)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=use_stemmer)
    theirs = [scorer.score_multi(r, p) for p, r in zip(preds, refs)]
    assert_same(ours, theirs, TYPES)


def test_aggregated_mid_is_mean_of_rouge_score(metric, realsumm):
    rows = realsumm[:500]
    preds = [r["prediction"] for r in rows]
    refs = [r["references"][0] for r in rows]
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    ours = metric.compute(predictions=preds, references=refs, use_stemmer=True, detailed=True)
    plain = metric.compute(predictions=preds, references=refs, use_stemmer=True)
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=True)
    theirs = [scorer.score(r, p) for p, r in zip(preds, refs)]
    for t in types:
        for k in KEYS:
            mean = float(np.mean([getattr(s[t], k) for s in theirs]))
            assert ours[t][k]["mid"] == pytest.approx(mean, abs=1e-12)
        assert plain[t] == ours[t]["fmeasure"]["mid"]
        assert type(plain[t]) is float


def test_callable_tokenizer_like_evaluate(metric, realsumm):
    # evaluate's rouge wraps a callable as a rouge_score Tokenizer (no stemming then)
    rows = realsumm[:300]
    preds = [r["prediction"] for r in rows]
    refs = [r["references"][0] for r in rows]

    def tokenize(text):
        return text.split()

    class Wrapped:
        def tokenize(self, text):
            return tokenize(text)

    ours = metric.compute(predictions=preds, references=refs, rouge_types=TYPES[:3] + TYPES[-2:],
                          tokenizer=tokenize, use_aggregator=False, detailed=True)
    scorer = rouge_scorer.RougeScorer(TYPES[:3] + TYPES[-2:], tokenizer=Wrapped())
    assert_same(ours, [scorer.score(r, p) for p, r in zip(preds, refs)], TYPES[:3] + TYPES[-2:])


words = st.sampled_from(["the", "The", "cat", "cats", "running", "ran", "x", "A", "a1", "2024",
                         "run", "Running", "café", "don't", "U.S.", "--", "", " ", "!!", "\n",
                         "\n\n", "state-of-the-art", "ＫＥＬＶＩＮ", "İstanbul", "ß", "generously"])
texts = st.lists(words, max_size=25).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.tuples(texts, st.lists(texts, min_size=1, max_size=3)), min_size=1,
                      max_size=6),
       use_stemmer=st.booleans())
def test_generated_text(metric, pairs, use_stemmer):
    preds = [p for p, _ in pairs]
    refs = [r for _, r in pairs]
    types = ["rouge1", "rouge2", "rouge4", "rougeL", "rougeLsum"]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = metric.compute(predictions=preds, references=refs, rouge_types=types,
                              use_stemmer=use_stemmer, use_aggregator=False, detailed=True)
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=use_stemmer)
    assert_same(ours, [scorer.score_multi(r, p) for p, r in zip(preds, refs)], types)
