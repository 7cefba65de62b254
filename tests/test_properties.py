"""Properties every type must have (hypothesis), through the metric as users call it."""
import warnings

from hypothesis import given, settings, strategies as st

TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum", "rougeW", "rougeW-2.0",
         "rougeS4", "rougeSU4", "rougeS", "rougeSU", "rougeS0"]
SYMMETRIC = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeS4", "rougeSU4", "rougeS", "rougeSU"]
word = st.sampled_from("the a cat dog sat on mat big red ran".split())
sentence = st.lists(word, min_size=0, max_size=8).map(" ".join)
text = st.lists(sentence, min_size=1, max_size=3).map("\n".join)


def per_example(metric, preds, refs, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return metric.compute(predictions=preds, references=refs, rouge_types=TYPES,
                              use_aggregator=False, detailed=True, **options)


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(text, text), min_size=1, max_size=5),
       profile=st.sampled_from(["rouge_score", "rouge155"]),
       alpha=st.sampled_from([0.0, 0.3, 0.5, 1.0]))
def test_scores_are_in_unit_interval(metric, pairs, profile, alpha):
    out = per_example(metric, [p for p, _ in pairs], [r for _, r in pairs], profile=profile,
                      alpha=alpha)
    for t in TYPES:
        for key in ("precision", "recall", "fmeasure"):
            assert all(0.0 <= v <= 1.0 for v in out[t][key]), (t, key)


@settings(max_examples=60, deadline=None)
@given(t=text)
def test_identical_texts_score_one_where_the_definition_allows(metric, t):
    out = per_example(metric, [t], [t])
    n_tokens = len(t.split())
    for name, needs in (("rouge1", 1), ("rouge2", 2), ("rouge3", 3), ("rougeL", 1),
                        ("rougeLsum", 1), ("rougeS4", 2), ("rougeSU4", 2), ("rougeS", 2),
                        ("rougeSU", 2), ("rougeS0", 2)):
        expected = 1.0 if n_tokens >= needs else 0.0
        assert out[name]["fmeasure"][0] == expected, name
    # ROUGE-W weights the reference twice (ROUGE-1.5.5): for one sentence, precision 1 and
    # recall m ** (1 - w) (SPEC §4.4); runs end at sentence breaks, so only one sentence
    if n_tokens and "\n" not in t.strip():
        assert abs(out["rougeW"]["precision"][0] - 1.0) < 1e-12
        assert abs(out["rougeW"]["recall"][0] - n_tokens ** (1 - 1.2)) < 1e-12


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(text, text), min_size=1, max_size=4))
def test_swapping_prediction_and_reference_swaps_p_and_r(metric, pairs):
    preds = [p for p, _ in pairs]
    refs = [r for _, r in pairs]
    fwd = per_example(metric, preds, refs)
    back = per_example(metric, refs, preds)
    for t in SYMMETRIC:
        assert fwd[t]["precision"] == back[t]["recall"], t
        assert fwd[t]["recall"] == back[t]["precision"], t
