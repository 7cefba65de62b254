"""The metric's contract: evaluate's output shape, options, errors, bootstrap, signature."""
import warnings
from fractions import Fraction

import numpy as np
import pytest

from conftest import staged
from oracle import perl_rouge, require_oracle

PRED = "the cat sat on the mat"
REF = "the cat lay on the mat"


def test_evaluate_shape_aggregated(metric):
    out = metric.compute(predictions=[PRED], references=[REF])
    assert list(out) == ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    assert all(type(v) is float for v in out.values())
    # hand computed: 5 of 6 unigrams, 3 of 5 bigrams, LCS "the cat on the mat" = 5 of 6
    assert out["rouge1"] == pytest.approx(float(Fraction(5, 6)), abs=1e-15)
    assert out["rouge2"] == pytest.approx(float(Fraction(3, 5)), abs=1e-15)
    assert out["rougeL"] == pytest.approx(float(Fraction(5, 6)), abs=1e-15)


def test_evaluate_shape_per_example(metric):
    out = metric.compute(predictions=[PRED, "x"], references=[REF, "y"], use_aggregator=False)
    assert list(out) == ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    assert all(type(v) is list and all(type(x) is float for x in v) for v in out.values())
    assert out["rouge1"][1] == 0.0


def test_hand_fractions_for_w_s_su(metric):
    # "a b c d" vs "a b d c": skip-bigrams (any distance) of the reference: ab ac ad bc bd cd
    # (6); of the prediction: ab ad ac bd bc dc -> 5 shared; SU adds the unigrams of all but
    # the last token: reference a b c, prediction a b d -> 2 shared; (5 + 2) / (6 + 3)
    out = metric.compute(predictions=["a b d c"], references=["a b c d"],
                         rouge_types=["rougeS", "rougeSU", "rougeS0"], use_aggregator=False,
                         detailed=True)
    assert out["rougeS"]["recall"][0] == pytest.approx(5 / 6)
    assert out["rougeSU"]["recall"][0] == pytest.approx(7 / 9)
    assert out["rougeS0"]["recall"][0] == pytest.approx(1 / 3)  # bigrams ab bc cd: only ab
    # ROUGE-W, one sentence, identical texts of m tokens: R = m ** (1 - w), P = 1 (SPEC §4.4)
    out = metric.compute(predictions=["a b c d e f"], references=["a b c d e f"],
                         rouge_types=["rougeW"], use_aggregator=False, detailed=True)
    assert out["rougeW"]["recall"][0] == pytest.approx(6 ** (1 - 1.2), abs=1e-12)
    assert out["rougeW"]["precision"][0] == pytest.approx(1.0, abs=1e-12)


def test_detailed_shapes_and_signature(metric):
    out = metric.compute(predictions=[PRED] * 3, references=[[REF, PRED]] * 3,
                         rouge_types=["rouge1", "rougeSU4"], detailed=True)
    assert set(out) == {"rouge1", "rougeSU4", "signature", "count"}
    assert out["count"] == 3
    for t in ("rouge1", "rougeSU4"):
        for k in ("precision", "recall", "fmeasure"):
            assert set(out[t][k]) == {"low", "mid", "high"}
            assert all(type(v) is float for v in out[t][k].values())
    sig = out["signature"]
    for part in ("rouge1+rougeSU4", "profile:rouge_score", "tok:default", "stem:no",
                 "stop:no", "multiref:max", "alpha:0.5", "agg:macro", "bs:1000", "ci:0.95",
                 "seed:12345", "version:"):
        assert part in sig, (part, sig)
    per = metric.compute(predictions=[PRED], references=[REF], use_aggregator=False,
                         detailed=True, use_stemmer=True, rouge_types=["rouge1"])
    assert "stem:porter-nltk" in per["signature"] and "agg:none" in per["signature"]
    assert per["rouge1"]["precision"] == [pytest.approx(5 / 6)]


@pytest.mark.parametrize("mode", ["average", "best", "max"])
def test_default_profile_w_s_su_multi_ref_against_perl(metric, mode):
    """Lowercase ASCII text without stemming: per-example R/P/F equal ROUGE-1.5.5's -d
    output within 1e-5 (the script rounds to 5 decimals)."""
    require_oracle()
    rng = np.random.default_rng(7)
    vocab = "the a cat dog sat on mat lay ran big red it was".split()

    def text():
        return "\n".join(" ".join(rng.choice(vocab, rng.integers(1, 9)))
                         for _ in range(rng.integers(1, 4)))

    pairs = [(text(), [text() for _ in range(rng.integers(1, 4))]) for _ in range(120)]
    types = ["rougeW-1.2", "rougeS4", "rougeSU4", "rougeS", "rougeSU"]
    flags = {"average": "-f A", "best": "-f B", "max": "-f A"}[mode]
    perl = {}
    for opts, names in (("-w 1.2 -2 4 -u", ["ROUGE-W-1.2", "ROUGE-SU4"]),
                        ("-2 4", ["ROUGE-S4"]), ("-2 -1", ["ROUGE-S*"]),
                        ("-2 -1 -u", ["ROUGE-SU*"])):
        res = perl_rouge(pairs, f"{opts} {flags} -a -d -x")
        assert res["returncode"] == 0, res.get("stderr")
        for name in names:
            perl[name] = res["scores"][name]["per_pair"]
    if mode == "max":  # single-reference pairs only: there every mode is the same
        pairs = [(p, r[:1]) for p, r in pairs]
        perl = {}
        for opts, names in (("-w 1.2 -2 4 -u", ["ROUGE-W-1.2", "ROUGE-SU4"]),
                            ("-2 4", ["ROUGE-S4"]), ("-2 -1", ["ROUGE-S*"]),
                            ("-2 -1 -u", ["ROUGE-SU*"])):
            res = perl_rouge(pairs, f"{opts} -a -d -x")
            for name in names:
                perl[name] = res["scores"][name]["per_pair"]
    ours = metric.compute(predictions=[p for p, _ in pairs], references=[r for _, r in pairs],
                          rouge_types=types, multi_ref=mode, use_aggregator=False, detailed=True)
    names = {"rougeW-1.2": "ROUGE-W-1.2", "rougeS4": "ROUGE-S4", "rougeSU4": "ROUGE-SU4",
             "rougeS": "ROUGE-S*", "rougeSU": "ROUGE-SU*"}
    for t, perl_name in names.items():
        for i, expected in enumerate(perl[perl_name]):
            r5, p5 = (float("%.5f" % ours[t][key][i]) for key in ("recall", "precision"))
            assert (r5, p5) == (expected["R"], expected["P"]), (t, i)
            # the script computes F from its rounded R and P (SPEC §5); ours from exact ones
            f5 = float("%.5f" % (2 * p5 * r5 / (p5 + r5))) if p5 + r5 else 0.0
            assert f5 == expected["F"], (t, i)
            assert abs(ours[t]["fmeasure"][i] - expected["F"]) <= 1e-4, (t, i)


def test_bootstrap_same_for_one_compute_and_many_batches(evaluate_metric, realsumm):
    metric = evaluate_metric
    preds = [r["prediction"] for r in realsumm[:300]]
    refs = [r["references"][0] for r in realsumm[:300]]
    one = metric.compute(predictions=preds, references=refs, detailed=True, seed=3)
    for start in range(0, 300, 37):
        metric.add_batch(predictions=preds[start:start + 37], references=refs[start:start + 37])
    many = metric.compute(detailed=True, seed=3)
    assert one == many
    assert many["count"] == 300
    other_seed = metric.compute(predictions=preds, references=refs, detailed=True, seed=4)
    assert other_seed["rouge1"]["fmeasure"]["mid"] == one["rouge1"]["fmeasure"]["mid"]
    assert other_seed["rouge1"]["fmeasure"]["low"] != one["rouge1"]["fmeasure"]["low"]


def test_add_one_by_one_scores_every_example_once(evaluate_metric):
    metric = evaluate_metric
    preds = ["a b c", "a", "c d", ""]
    refs = ["a b", "a", "d", "x"]
    for p, r in zip(preds, refs):
        metric.add(prediction=p, reference=r)
    out = metric.compute(use_aggregator=False, rouge_types=["rouge1"])
    assert out["rouge1"] == pytest.approx([0.8, 1.0, 2 / 3, 0.0])


def test_interval_contains_mean_and_narrows(metric, realsumm):
    preds = [r["prediction"] for r in realsumm]
    refs = [r["references"][0] for r in realsumm]
    small = metric.compute(predictions=preds[:100], references=refs[:100], detailed=True)
    large = metric.compute(predictions=preds, references=refs, detailed=True)
    for out in (small, large):
        for t in ("rouge1", "rougeL"):
            for k in ("precision", "recall", "fmeasure"):
                b = out[t][k]
                assert b["low"] <= b["mid"] <= b["high"]
    width = lambda o: o["rouge1"]["fmeasure"]["high"] - o["rouge1"]["fmeasure"]["low"]
    assert width(large) < width(small) / 3  # 35x the data: about 1/sqrt(35) of the width


def test_warnings(metric):
    # splitting would change rougeLsum: two sentences by the rule-based splitter, no newline
    with pytest.warns(Warning, match="no text contains a newline"):
        metric.compute(predictions=["The cat sat. The dog ran."], references=["a"],
                       rouge_types=["rougeLsum"])
    with pytest.warns(Warning, match='1 of 2 texts have letters but no tokens.*tokenizer="unicode"'):
        metric.compute(predictions=["今天天气很好"], references=["a"], rouge_types=["rouge1"])
    # the hint names the language codes of the script (issue 28: Arabic under "none" said
    # only tokenizer="unicode", not Language -> ar)
    with pytest.warns(Warning) as caught:
        metric.compute(predictions=["القطة جلست على الحصيرة"], references=["القطة على الحصيرة"],
                       rouge_types=["rouge1"])
    assert [str(w.message) for w in caught] == [
        "2 of 2 texts have letters but no tokens; they score 0. The default tokenizer keeps only "
        "a-z and 0-9 (as rouge_score); for texts in Arabic script pass lang=\"ar\" (or fa, ps, "
        "ur), or tokenizer=\"unicode\"."]
    with pytest.warns(Warning, match='CJK script pass lang="zh" \\(or ja\\)'):
        metric.compute(predictions=["今天天气很好"], references=["a"], rouge_types=["rouge1"])
    with pytest.warns(Warning) as caught:  # Greek: no language profile, so no lang hint
        metric.compute(predictions=["καλημέρα"], references=["a"], rouge_types=["rouge1"])
    assert str(caught[0].message).endswith('for other scripts use tokenizer="unicode".')
    with pytest.warns(Warning) as caught:  # an untrained model's output: no hint about scripts
        metric.compute(predictions=["!!! ..."], references=["a"], rouge_types=["rouge1"])
    assert [str(w.message) for w in caught] == [
        "1 of 2 texts hold only punctuation or symbols, which are not tokens; they score 0."]


@pytest.mark.parametrize("prediction, reference", [
    ("a b\nc", "a"),  # newlines: the sentences are given
    ("the cat sat on the mat", "the cat lay on the mat"),  # one sentence: splitting changes nothing
    ("Dr. Smith arrived at 10 a.m. today", "Smith arrived"),  # abbreviations are not ends
])
def test_no_warning_when_nothing_is_wrong(metric, prediction, reference):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric.compute(predictions=[prediction], references=[reference],
                       rouge_types=["rouge1", "rougeLsum", "rougeW"])


def test_empty_strings_score_zero(metric):
    out = metric.compute(predictions=["", "a"], references=["a", ""], use_aggregator=False,
                         rouge_types=["rouge1", "rougeL", "rougeLsum", "rougeSU4"])
    for v in out.values():
        assert v == [0.0, 0.0]


BAD_OPTIONS = [
    ({"rouge_types": ["rouge0"]}, ValueError, "rouge_types"),
    ({"rouge_types": ["rouge_1"]}, ValueError, "rouge_types"),
    ({"rouge_types": ["rougeLSum"]}, ValueError, "rouge_types"),
    ({"rouge_types": ["rougeW-0.5"]}, ValueError, "rouge_types"),
    ({"rouge_types": ["rougeS-2"]}, ValueError, "rouge_types"),
    ({"rouge_types": []}, ValueError, "rouge_types"),
    ({"rouge_types": [1]}, TypeError, "rouge_types"),
    ({"alpha": 1.5}, ValueError, "alpha"),
    ({"alpha": float("nan")}, ValueError, "alpha"),
    ({"alpha": "0.5"}, TypeError, "alpha"),
    ({"confidence": 1.0}, ValueError, "confidence"),
    ({"confidence": 0}, ValueError, "confidence"),
    ({"n_samples": 0}, ValueError, "n_samples"),
    ({"n_samples": 2.5}, TypeError, "n_samples"),
    ({"seed": -1}, ValueError, "seed"),
    ({"multi_ref": "first"}, ValueError, "multi_ref"),
    ({"profile": "rouge156"}, ValueError, "profile"),
    ({"profile": "rouge155", "multi_ref": "max"}, ValueError, "multi_ref"),
    ({"tokenizer": "spacy"}, ValueError, "tokenizer"),
    ({"tokenizer": 3}, TypeError, "tokenizer"),
    ({"use_stemmer": "yes"}, TypeError, "use_stemmer"),
    ({"aggregation": "median"}, ValueError, "aggregation"),
    ({"length_limit_words": 0}, ValueError, "length_limit_words"),
    ({"length_limit_words": 5, "length_limit_bytes": 5}, ValueError, "length_limit"),
]


@pytest.mark.parametrize("options,error,name", BAD_OPTIONS)
def test_bad_options_name_the_argument(metric, options, error, name):
    with pytest.raises(error, match=name):
        metric.compute(predictions=[PRED], references=[REF], **options)


def test_misspelt_option_is_a_type_error(metric):
    with pytest.raises(TypeError, match="use_stemer"):
        metric.compute(predictions=[PRED], references=[REF], use_stemer=True)


BAD_INPUTS = [
    (None, [REF], TypeError, "predictions"),
    ([PRED], None, TypeError, "references"),
    (PRED, [REF], TypeError, "predictions"),
    ([PRED, PRED], [REF], ValueError, "same length"),
    ([], [], ValueError, "predictions"),
    ([None], [REF], TypeError, r"predictions\[0\]"),
    ([b"bytes"], [REF], TypeError, r"predictions\[0\]"),
    ([float("nan")], [REF], TypeError, r"predictions\[0\]"),
    ([PRED], [[]], ValueError, r"references\[0\]"),
    ([PRED], [[REF, None]], TypeError, r"references\[0\]\[1\]"),
    ([PRED], [3], TypeError, r"references\[0\]"),
    ([PRED, PRED], [REF, [REF]], TypeError, "mix"),
]


@pytest.mark.parametrize("preds,refs,error,name", BAD_INPUTS)
def test_bad_inputs_name_the_argument(metric, preds, refs, error, name):
    with pytest.raises(error, match=name):
        metric.compute(predictions=preds, references=refs)


def test_bad_tokenizer_callables(metric):
    with pytest.raises(TypeError, match="tokenizer"):
        metric.compute(predictions=[PRED], references=[REF], tokenizer=lambda s: s)
    with pytest.raises(ValueError, match="tokenizer.*ZeroDivisionError"):
        metric.compute(predictions=[PRED], references=[REF], tokenizer=lambda s: 1 / 0)
    with pytest.raises(TypeError, match="tokenizer.*a list of str"):  # one token not a str
        metric.compute(predictions=[PRED], references=[REF],
                       tokenizer=lambda s: s.split() + [b"x"])
    # str subclasses are str: numpy's str_ tokens score as the same words (hand-computed:
    # "a b c" against "a b d", 2 of 3 unigrams each way)
    import numpy as np

    got = metric.compute(predictions=["a b c"], references=["a b d"], rouge_types=["rouge1"],
                         tokenizer=lambda s: [np.str_(t) for t in s.split()])
    assert got["rouge1"] == pytest.approx(2 / 3, abs=0, rel=1e-15)


def test_compute_with_nothing_added(evaluate_metric, metric):
    with pytest.raises(ValueError, match="predictions"):
        evaluate_metric.compute()
    with pytest.raises(TypeError, match="predictions"):  # the package's: both are required
        metric.compute()


def test_aggregate_does_not_depend_on_row_order(metric, realsumm):
    rows = realsumm[:400]
    shuffled = rows[::-1][::2] + rows[::-1][1::2]
    results = [metric.compute(predictions=[r["prediction"] for r in rs],
                              references=[r["references"] for r in rs],
                              rouge_types=["rouge1", "rougeL"], detailed=True, seed=5)
               for rs in (rows, shuffled)]
    assert results[0] == results[1]


def test_module_doctests_run_as_evaluate_ci_runs_them(metric_module):
    # evaluate's tests/test_metric_common.py: doctest.testmod on the metric module, and
    # results.attempted > 1
    import doctest

    results = doctest.testmod(metric_module, optionflags=doctest.ELLIPSIS)
    assert results.attempted > 1
    assert results.failed == 0


def test_chunked_scoring_equals_one_chunk(metric, metric_module, realsumm, monkeypatch):
    rows = realsumm[:700]
    kwargs = dict(predictions=[r["prediction"] for r in rows],
                  references=[r["references"] for r in rows], detailed=True,
                  rouge_types=["rouge1", "rougeLsum", "rougeW", "rougeSU4"], use_stemmer=True)
    whole = metric.compute(**kwargs)
    monkeypatch.setattr(staged("scorer.pipeline"), "_CHUNK_EXAMPLES", 64)
    assert metric.compute(**kwargs) == whole


def test_checked_options_memo_keeps_the_sign_of_zero(metric):
    # -0.0 == 0.0 (and hash alike), but the signature writes them apart: the memo of checked
    # options must not hand one's options to the other
    sig = {}
    for alpha in (-0.0, 0.0, -0.0):
        out = metric.compute(predictions=["a b"], references=["a c"], rouge_types=["rouge1"],
                             alpha=alpha, detailed=True)
        sig.setdefault(str(alpha), set()).add(
            [part for part in out["signature"].split("|") if part.startswith("alpha:")][0])
    assert sig == {"-0.0": {"alpha:-0"}, "0.0": {"alpha:0"}}


@pytest.mark.parametrize("profile", ["rouge_score", "rouge155"])
def test_rouge_w_precision_of_a_text_against_itself_is_one(metric, profile):
    # the kernel raises lengths to w with the C library's pow, and so must the profile: with
    # numpy's SIMD power the default profile gave 1.0000000000000002 for 7, 21 and 26 words
    for n in range(1, 41):
        text = " ".join(["the"] * n)
        out = metric.compute([text], [text], rouge_types=["rougeW"], detailed=True,
                             profile=profile)
        assert out["rougeW"]["precision"]["mid"] == 1.0, n
