"""The coco profile against coco-caption itself (pycocoevalcap 1.2's Rouge, its ROUGE-L):
per image, and the mean over images. The references are pycocoevalcap's own code, run here."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from conftest import needed, staged

# the peer: a skip with its reason where it is missing (outside CI, where it must be there)
Rouge = needed("pycocoevalcap.rouge.rouge").Rouge


# lowercase words, a capital, punctuation, and "" (two spaces in a row: an empty token)
WORDS = ["a", "dog", "cat", "on", "the", "grass", "man", "riding", "horse", "with", "of",
         "two", "A", "Dog", ".", ",", ""]


def _caption(rng: random.Random, longest: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, longest)))


def _coco(predictions, references):
    """pycocoevalcap's (mean, per-image scores), images keyed by their position."""
    gts = {i: list(refs) for i, refs in enumerate(references)}
    res = {i: [p] for i, p in enumerate(predictions)}
    return Rouge().compute_score(gts, res)


def _generated(seed: int, n: int):
    rng = random.Random(seed)
    predictions = [_caption(rng, 12) for _ in range(n)]
    references = [[_caption(rng, 14) for _ in range(rng.randint(1, 7))] for _ in range(n)]
    return predictions, references


def test_generated_captions_equal_pycocoevalcap(metric):
    """6,000 generated images with 1-7 references each: every per-image ROUGE-L equal, bit
    for bit; the corpus score is the exact mean of those (np.mean may round it 1 ulp off)."""
    predictions, references = _generated(seed=20261127, n=6000)
    coco_mean, coco_scores = _coco(predictions, references)
    ours = metric.compute(predictions=predictions, references=references, profile="coco",
                          rouge_types=["rougeL"], use_aggregator=False)
    assert np.array_equal(np.array(ours["rougeL"]), coco_scores)
    corpus = metric.compute(predictions=predictions, references=references, profile="coco",
                            rouge_types=["rougeL"])["rougeL"]
    exact = sum(Fraction(x) for x in coco_scores.tolist()) / len(coco_scores)
    assert corpus == float(exact)
    assert math.isclose(corpus, coco_mean, rel_tol=4e-16)


def test_separate_maxima_come_from_different_references(metric):
    """Hand-computed: "a x" against "a" (LCS 1: P 1/2, R 1) and "a x y z" (LCS 2: P 1, R 1/2).
    coco takes P = 1 from the second, R = 1 from the first, so F = 1 though no reference
    matches; max (the best F of one reference) gives the second's."""
    scores = metric.compute(predictions=["a x"], references=[["a", "a x y z"]],
                            profile="coco", rouge_types=["rougeL"], use_aggregator=False,
                            detailed=True)["rougeL"]
    assert scores == {"precision": [1.0], "recall": [1.0], "fmeasure": [1.0]}
    assert scores["fmeasure"][0] == _coco(["a x"], [["a", "a x y z"]])[1][0]
    best = metric.compute(predictions=["a x"], references=[["a", "a x y z"]], profile="coco",
                          rouge_types=["rougeL"], use_aggregator=False, detailed=True,
                          multi_ref="max")["rougeL"]
    f_one = (1 + 1.2 ** 2) * 0.5 * 1.0 / (1.0 + 1.2 ** 2 * 0.5)  # the first: P 1/2, R 1
    f_two = (1 + 1.2 ** 2) * 1.0 * 0.5 / (0.5 + 1.2 ** 2 * 1.0)  # the second: P 1, R 1/2
    assert f_one > f_two and best == {"precision": [0.5], "recall": [1.0], "fmeasure": [f_one]}


@pytest.mark.parametrize("prediction, references", [
    ("", [""]),                      # one empty token each: LCS 1
    ("", ["a dog"]),
    ("a  dog", ["a dog", "  "]),     # empty tokens match empty tokens
    ("A Dog .", ["a dog ."]),        # nothing is lowercased or split off
    ("a dog", ["a dog\nruns"]),      # a newline is part of a token
])
def test_edge_cases_equal_pycocoevalcap(metric, prediction, references):
    ours = metric.compute(predictions=[prediction], references=[references], profile="coco",
                          rouge_types=["rougeL"], use_aggregator=False)["rougeL"][0]
    assert ours == _coco([prediction], [references])[1][0]


def test_realsumm_sentences_equal_pycocoevalcap(metric, realsumm):
    """Sentences of realsumm's summaries as captions: each system sentence against the
    reference's sentences (1-7 of them)."""
    predictions, references = [], []
    for row in realsumm[:1500]:
        sentences = row["prediction"].split("\n")
        refs = row["references"][0].split("\n")[:7]
        predictions.append(sentences[row["doc"] % len(sentences)])
        references.append(refs)
    _, coco_scores = _coco(predictions, references)
    ours = metric.compute(predictions=predictions, references=references, profile="coco",
                          rouge_types=["rougeL"], use_aggregator=False)["rougeL"]
    assert np.array_equal(np.array(ours), coco_scores)


def test_profile_declares_its_own_conventions(metric, metric_module):
    """The profile's defaults: max_pr, beta = 1.2 (in the signature as its alpha), its tokens;
    micro aggregation of max_pr is refused by name; an explicit alpha is the alpha F."""
    options = staged("options").RougeOptions.build
    opts = options(profile="coco")
    assert opts.multi_ref == "max_pr" and opts.alpha == 1 / (1 + 1.2 ** 2)
    assert "profile:coco" in opts.signature() and "multiref:max_pr" in opts.signature()
    with pytest.raises(ValueError, match="aggregation: got 'micro' with multi_ref='max_pr'"):
        options(profile="coco", aggregation="micro")
    with pytest.raises(ValueError, match="tokenizer"):
        options(profile="coco", tokenizer="unicode")
    f1 = metric.compute(predictions=["a x"], references=[["a x y z"]], profile="coco",
                        rouge_types=["rougeL"], alpha=0.5)["rougeL"]
    assert f1 == 2 * 1.0 * 0.5 / (1.0 + 0.5)


def test_every_surface_takes_the_profile(metric):
    """The interval and compare() score coco-caption's numbers: the interval's mid and each
    system's compare() score are pycocoevalcap's mean, the interval holds it strictly inside
    (300 images vary), and compare() tells the reversed captions apart."""
    predictions, references = _generated(seed=7, n=300)
    other = [p[::-1] for p in predictions]
    coco_a, coco_b = _coco(predictions, references)[0], _coco(other, references)[0]
    detailed = metric.compute(predictions=predictions, references=references, profile="coco",
                              rouge_types=["rougeL"], detailed=True)["rougeL"]["fmeasure"]
    assert math.isclose(detailed["mid"], coco_a, rel_tol=4e-16)
    assert detailed["low"] < coco_a < detailed["high"]
    result = metric.compare({"a": predictions, "b": other}, references, profile="coco",
                            rouge_types=["rougeL"], n_samples=200)
    assert "profile:coco" in result["signature"]
    assert math.isclose(result["a"]["rougeL"]["fmeasure"]["score"], coco_a, rel_tol=1e-14)
    assert math.isclose(result["b"]["rougeL"]["fmeasure"]["score"], coco_b, rel_tol=1e-14)
    assert math.isclose(result["b"]["rougeL"]["fmeasure"]["delta"], coco_b - coco_a,
                        rel_tol=1e-12)


def test_space_takes_the_profile_and_its_weight(metric):
    """The Space's profile menu lists coco; choosing it moves the F-weight slider from a
    profile's default to coco's, and that slider value scores coco-caption's F exactly."""
    import importlib

    gr = pytest.importorskip("gradio")
    handlers = importlib.import_module("space.handlers")
    options = importlib.import_module("space.options")
    assert "coco" in options.control("profile")["choices"]
    mode, weight, types = handlers.profile_changed("coco", "max", 0.5, ["rougeL"])
    assert mode == gr.update() and weight == gr.update(value=1 / (1 + 1.2 ** 2))
    assert types == gr.update()  # coco scores every kind
    assert handlers.profile_changed("coco", "max", 0.3, ["rougeL"])[1] == gr.update()
    assert handlers.profile_changed("rouge_score", "max_pr", 1 / (1 + 1.2 ** 2), []) == \
        (gr.update(), gr.update(value=0.5), gr.update())
    page = options.page_options(["rougeL"], "", False, False, "coco", 1 / (1 + 1.2 ** 2),
                                "max_pr", None, False, None)
    assert page["alpha"] is None
    predictions, references = _generated(seed=11, n=200)
    scored = metric.compute(predictions=predictions, references=references,
                            use_aggregator=False, **page)["rougeL"]
    assert np.array_equal(np.array(scored), _coco(predictions, references)[1])


@pytest.mark.parametrize("prediction, reference", [("a dog\nruns", "a dog runs"), ("", "a"),
                                                   ("a  dog", "a dog")])
def test_what_the_space_shows_is_what_coco_scores(metric_module, prediction, reference):
    """The tokens shown are coco's own (split on single spaces: a newline stays in its token,
    "" is one empty token), and the marked ones are as many as the LCS that scores."""
    opts = staged("options").RougeOptions.build(profile="coco", rouge_types=["rougeL"])
    assert staged("scorer.display").tokens_of(prediction, profile="coco") == [prediction.split(" ")]
    marks_p, marks_r, words_p, words_r = staged("scorer.display").pair_marks(
        opts, prediction, reference, opts.rouge_types[0])
    assert list(words_p) == prediction.split(" ") and list(words_r) == reference.split(" ")
    lcs = _coco([prediction], [[reference]])  # F from coco's own LCS: P = lcs / len(words_p)
    p = int(marks_p.sum()) / len(words_p)
    r = int(marks_r.sum()) / len(words_r)
    f = (1 + 1.2 ** 2) * p * r / (r + 1.2 ** 2 * p) if p and r else 0.0
    assert f == lcs[1][0]


def test_micro_and_the_signature_under_coco(metric):
    """Micro pools the counts (average mode: "a x" against "a" and "a x y z": hits 1 + 2,
    prediction tokens 2 + 2, reference tokens 1 + 4), then coco's F of P = 3/4, R = 3/5."""
    out = metric.compute(predictions=["a x"], references=[["a", "a x y z"]], profile="coco",
                         rouge_types=["rougeL"], multi_ref="average", aggregation="micro",
                         detailed=True)
    p, r = 3 / 4, 3 / 5
    assert out["rougeL"]["precision"]["mid"] == p and out["rougeL"]["recall"]["mid"] == r
    assert out["rougeL"]["fmeasure"]["mid"] == (1 + 1.2 ** 2) * p * r / (r + 1.2 ** 2 * p)
    assert "|alpha:beta1.2|" in out["signature"]
    assert "|alpha:0.409836|" in metric.compute(
        predictions=["a"], references=["a"], profile="coco", alpha=0.409836,
        detailed=True)["signature"]


def test_no_sentence_warning_under_coco(metric):
    """coco's tokens have no sentences (rougeLsum is its whole text): the warning about
    sentences on one line does not apply."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric.compute(predictions=["A man rides. A dog runs."], references=["A man rides."],
                       profile="coco")
