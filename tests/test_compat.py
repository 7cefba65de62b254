"""rouge_exact.rouge_scorer and rouge_exact.scoring (docs/rouge_score.md) against rouge_score
0.1.2 itself: every number is compared with ``==`` (the namedtuples, hence every float to the
last bit) with what rouge_score returns for the same call, never with numbers of ours.

* REALSumm (tests/data/realsumm.jsonl, 3,500 rows): score, score_batch and score_multi (other
  systems' predictions of the same document as extra targets), stemmed and not;
* split_summaries, tokenizer objects, odd texts, errors, pickling;
* BootstrapAggregator under the same np.random.seed, and with its own seed=;
* the call patterns of lm-evaluation-harness, HELM, LightEval and TRL reward functions, each
  run once on each module.
"""
import json
import pickle
import random

import nltk
import numpy as np
import pytest
from conftest import DATA
from nltk.tokenize.punkt import PunktSentenceTokenizer
from conftest import needed  # (an optional test package: a skip with its reason outside CI)
rs_scorer = needed("rouge_score.rouge_scorer")
rs_scoring = needed("rouge_score.scoring")
rs_tokenizers = needed("rouge_score.tokenizers")

from rouge_exact import rouge_scorer as ex_scorer
from rouge_exact import scoring as ex_scoring

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
MODULES = {"rouge_score": (rs_scorer, rs_scoring), "rouge_exact": (ex_scorer, ex_scoring)}


@pytest.fixture(scope="module", autouse=True)
def compiled(metric):
    """The compiled kernels (conftest's metric fixture compiles them once per session)."""


@pytest.fixture(scope="module")
def rows():
    with open(DATA, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def several_targets(rows):
    """Per row: its reference, then 0 to 3 other systems' predictions of the same document
    (rows alternate how many), as score_multi's targets."""
    by_doc = {}
    for r in rows:
        by_doc.setdefault(r["doc"], []).append(r["prediction"])
    return [[r["references"][0]] + [p for p in by_doc[r["doc"]] if p != r["prediction"]][:i % 4]
            for i, r in enumerate(rows)]


def assert_same(ours: list, theirs: list):
    """Equal lists of {type: Score}; on a difference, the first row that differs (not a diff
    of 3,500 dicts)."""
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, f"row {i}: ours {a} != rouge_score's {b}"
        assert list(a) == list(b), f"row {i}: the types' order differs"


# --------------------------------------------------------------------------------------------
# (a) REALSumm, every row (the slow tier: ~30 s of rouge_score per stemming setting on this
# 2-core VM) and every 10th row (the fast tier)


@pytest.mark.parametrize("step", [pytest.param(1, marks=pytest.mark.slow, id="all-3500-rows"),
                                  pytest.param(10, id="every-10th-row")])
@pytest.mark.parametrize("use_stemmer", [False, True])
def test_realsumm(rows, step, use_stemmer):
    rows = rows[::step]
    theirs = rs_scorer.RougeScorer(TYPES, use_stemmer=use_stemmer)
    ours = ex_scorer.RougeScorer(TYPES, use_stemmer=use_stemmer)
    targets = [r["references"][0] for r in rows]
    predictions = [r["prediction"] for r in rows]
    want = [theirs.score(t, p) for t, p in zip(targets, predictions)]
    assert_same([ours.score(t, p) for t, p in zip(targets, predictions)], want)
    assert_same(ours.score_batch(targets, predictions), want)  # chunks on threads from 256

    several = several_targets(rows)
    assert {len(t) for t in several} == {1, 2, 3, 4}
    want = [theirs.score_multi(t, p) for t, p in zip(several, predictions)]
    assert_same([ours.score_multi(t, p) for t, p in zip(several, predictions)], want)


def test_scores_are_score_namedtuples_of_floats(rows):
    scores = ex_scorer.RougeScorer(TYPES).score(rows[0]["references"][0], rows[0]["prediction"])
    for score in scores.values():
        assert type(score) is ex_scoring.Score and score._fields == rs_scoring.Score._fields
        assert all(type(x) is float for x in score)


ODD_TEXTS = ["", " ", "\n\n", "...!", "The cat", "the cat\nsat on\n\nthe mat.", "İstanbul ß café",
             "ＫＥＬＶＩＮ kelvin", "running runs ran runner", "a1 2024 x\ty", "state-of-the-art"]


@pytest.mark.parametrize("use_stemmer", [False, True])
def test_odd_texts(use_stemmer):
    """Empty texts (rouge_score's LCS gives int 0 there: equal to our 0.0), tokenless ones,
    non-ASCII letters, every pair both ways; repeated types collapse to one key as there."""
    types = ["rouge1", "rouge3", "rougeL", "rougeLsum", "rouge1"]
    theirs = rs_scorer.RougeScorer(types, use_stemmer=use_stemmer)
    ours = ex_scorer.RougeScorer(types, use_stemmer=use_stemmer)
    pairs = [(a, b) for a in ODD_TEXTS for b in ODD_TEXTS]
    want = [theirs.score(t, p) for t, p in pairs]
    assert_same([ours.score(t, p) for t, p in pairs], want)
    assert_same(ours.score_batch([t for t, _ in pairs], [p for _, p in pairs]), want)
    assert_same([ours.score_multi(ODD_TEXTS, p) for p in ODD_TEXTS],
                [theirs.score_multi(ODD_TEXTS, p) for p in ODD_TEXTS])


@pytest.mark.parametrize("split_summaries", [False, True])
def test_lone_surrogate_scores_as_rouge_score_does(punkt_without_data, split_summaries):
    """rouge_score's tokenizer reads a lone surrogate (bad decoding) as a separator; the engine
    refuses it as text, so the default tokenizer's path reads it as a space: the same tokens
    (after nltk's sentence splitting, which sees it as there)."""
    theirs = rs_scorer.RougeScorer(TYPES, split_summaries=split_summaries)
    ours = ex_scorer.RougeScorer(TYPES, split_summaries=split_summaries)
    pairs = [("the cat\ud800sat", "the cat sat"), ("a \udcff b\nc", "a b c\ud800"),
             ("It ended.\ud800 Then it rained. Here", "it ended. then it\nrained here\udcff.")]
    for t, p in pairs:
        assert ours.score(t, p) == theirs.score(t, p)
        assert ours.score_multi([p, t], t) == theirs.score_multi([p, t], t)
    assert_same(ours.score_batch(*zip(*pairs)), [theirs.score(t, p) for t, p in pairs])


# --------------------------------------------------------------------------------------------
# split_summaries and tokenizer objects


@pytest.fixture
def punkt_without_data(monkeypatch):
    """nltk.sent_tokenize needs nltk's punkt_tab data, which this machine lacks (and CI cannot
    download): both modules look nltk.sent_tokenize up at each call, so both get an untrained
    Punkt tokenizer here, which splits at '. ' and keeps a newline inside a sentence."""
    monkeypatch.setattr(nltk, "sent_tokenize", PunktSentenceTokenizer().tokenize)
    return nltk.sent_tokenize


class Whitespace(rs_tokenizers.Tokenizer):
    """A tokenizer object as rouge_score's docs describe: str.split, case kept."""

    def tokenize(self, text):
        return text.split()


class Characters(rs_tokenizers.Tokenizer):
    """Every character but spaces a token, as a Chinese tokenizer passed to rouge_score does."""

    def tokenize(self, text):
        return [c for c in text if not c.isspace()]


def split_texts(rows):
    """Realsumm predictions as given, on one line, and with newlines inside sentences."""
    texts = []
    for i, r in enumerate(rows):
        text = r["prediction"]
        texts.append([text, text.replace(" .\n", ". "), text.replace(" , ", " ,\n")][i % 3])
    return texts


# (rouge_score's LCS over characters is Python's: 30 rows of it take seconds)
@pytest.mark.parametrize("tokenizer, n", [(None, 240), (Whitespace(), 240), (Characters(), 30)],
                         ids=["default", "whitespace", "characters"])
@pytest.mark.parametrize("use_stemmer", [False, True])
def test_split_summaries(rows, punkt_without_data, tokenizer, n, use_stemmer):
    rows = rows[:n]
    predictions = split_texts(rows)
    targets = [r["references"][0].replace("\n", " ") for r in rows]  # sentences from punkt
    # the data holds sentences with a newline inside (they must stay one sentence)
    assert any("\n" in s for p in predictions for s in punkt_without_data(p))
    kwargs = dict(use_stemmer=use_stemmer, split_summaries=True, tokenizer=tokenizer)
    theirs = rs_scorer.RougeScorer(TYPES, **kwargs)
    ours = ex_scorer.RougeScorer(TYPES, **kwargs)
    want = [theirs.score(t, p) for t, p in zip(targets, predictions)]
    assert_same([ours.score(t, p) for t, p in zip(targets, predictions)], want)
    assert_same(ours.score_batch(targets, predictions), want)
    several = [[t, predictions[i - 1]] for i, t in enumerate(targets)]
    assert_same([ours.score_multi(t, p) for t, p in zip(several, predictions)],
                [theirs.score_multi(t, p) for t, p in zip(several, predictions)])
    # only rougeLsum reads sentences: alone, it splits too
    alone = ex_scorer.RougeScorer(["rougeLsum"], **kwargs)
    assert [alone.score(t, p)["rougeLsum"] for t, p in zip(targets, predictions)] == \
        [s["rougeLsum"] for s in want]


@pytest.mark.parametrize("tokenizer, n", [(Whitespace(), 300), (Characters(), 30),
                                          (rs_tokenizers.DefaultTokenizer(use_stemmer=True), 300)],
                         ids=["whitespace", "characters", "rouge_score-default-stemmed"])
def test_tokenizer_objects(rows, tokenizer, n):
    """A tokenizer object, use_stemmer ignored as rouge_score ignores it; rouge_score's own
    DefaultTokenizer passed as an object too."""
    rows = rows[:n]
    targets = [r["references"][0] for r in rows]
    predictions = [r["prediction"] for r in rows]
    theirs = rs_scorer.RougeScorer(TYPES, use_stemmer=True, tokenizer=tokenizer)
    ours = ex_scorer.RougeScorer(TYPES, use_stemmer=True, tokenizer=tokenizer)
    want = [theirs.score(t, p) for t, p in zip(targets, predictions)]
    assert_same([ours.score(t, p) for t, p in zip(targets, predictions)], want)
    assert_same(ours.score_batch(targets, predictions), want)
    assert ours.score_multi(targets[:3], predictions[0]) == \
        theirs.score_multi(targets[:3], predictions[0])


def test_pickles_as_its_arguments(rows):
    """Worker processes get the scorer pickled (TRL's spawned reward workers, datasets.map)."""
    scorer = ex_scorer.RougeScorer(["rouge2", "rougeLsum"], use_stemmer=True,
                                   tokenizer=Whitespace())
    copy = pickle.loads(pickle.dumps(scorer))
    assert copy.rouge_types == ["rouge2", "rougeLsum"]
    t, p = rows[0]["references"][0], rows[0]["prediction"]
    assert copy.score(t, p) == scorer.score(t, p) == \
        rs_scorer.RougeScorer(["rouge2", "rougeLsum"], tokenizer=Whitespace()).score(t, p)


# --------------------------------------------------------------------------------------------
# Errors: the argument, what was given, what is allowed


@pytest.mark.parametrize("make, error, words", [
    (lambda: ex_scorer.RougeScorer("rouge1"), TypeError, ["rouge_types", "'rouge1'", "list"]),
    (lambda: ex_scorer.RougeScorer(["rougeX"]), ValueError, ["rouge_types", "rougeX", "rouge9"]),
    (lambda: ex_scorer.RougeScorer(["rouge0"]), ValueError, ["rouge_types", "rouge0"]),
    (lambda: ex_scorer.RougeScorer([]), ValueError, ["rouge_types", "empty"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"], use_stemmer="yes"), TypeError,
     ["use_stemmer", "'yes'", "True or False"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"], split_summaries=1), TypeError,
     ["split_summaries", "True or False"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"], tokenizer=str.split), TypeError,
     ["tokenizer", "tokenize"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"]).score(None, "a"), TypeError,
     ["target", "None", "str"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"]).score("a", ["a"]), TypeError,
     ["prediction", "list", "str"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"]).score_multi("a b", "a"), TypeError,
     ["targets", "str", "list of str"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"]).score_multi([], "a"), ValueError,
     ["targets", "empty"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"]).score_multi(["a", 3], "a"), TypeError,
     ["targets[1]", "int", "str"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"]).score_batch(["a"], ["a", "b"]), ValueError,
     ["targets and predictions", "1 targets", "2 predictions"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"]).score_batch(["a", b"b"], ["a", "b"]), TypeError,
     ["targets[1]", "bytes", "str"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"], tokenizer=Whitespace()).score("a", "b\ud800"),
     ValueError, ["prediction", "surrogate"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"], tokenizer=Whitespace())
     .score_batch(["a", "b\ud800"], ["a", "b"]), ValueError, ["targets[1]", "surrogate"]),
    (lambda: ex_scorer.RougeScorer(["rouge1"], tokenizer=Whitespace())
     .score_multi(["a", "b\ud800"], "b"), ValueError, ["targets[1]", "surrogate"]),
    (lambda: ex_scoring.BootstrapAggregator(confidence_interval=1.5), ValueError,
     ["confidence_interval", "1.5", "[0, 1]"]),
    (lambda: ex_scoring.BootstrapAggregator(n_samples=0), ValueError, ["n_samples", "0", ">= 1"]),
    (lambda: ex_scoring.BootstrapAggregator(n_samples=10.0), TypeError, ["n_samples", "float"]),
    (lambda: ex_scoring.BootstrapAggregator(seed=-1), ValueError, ["seed", "-1"]),
    (lambda: ex_scoring.BootstrapAggregator(seed="1"), TypeError, ["seed", "str", "None"]),
    (lambda: ex_scoring.BootstrapAggregator().add_scores([0.5]), TypeError, ["scores", "list"]),
    (lambda: ex_scoring.BootstrapAggregator().add_scores({"rouge1": 0.5}), TypeError,
     ["scores['rouge1']", "float", "Score"]),
])
def test_errors_name_the_argument(make, error, words):
    with pytest.raises(error) as raised:
        make()
    for word in words:
        assert word in str(raised.value)


def test_score_batch_of_nothing():
    assert ex_scorer.RougeScorer(TYPES).score_batch([], []) == []


# --------------------------------------------------------------------------------------------
# (b) BootstrapAggregator: rouge_score's draws from the global random state


@pytest.fixture(scope="module")
def theirs_scores(rows):
    """rouge_score's own scores of 500 REALSumm rows, as rouge_score users add them."""
    scorer = rs_scorer.RougeScorer(TYPES)
    return [scorer.score(r["references"][0], r["prediction"]) for r in rows[:500]]


def example_scores(theirs_scores, n):
    """n per-example scores: rouge_score's of REALSumm rows (repeated past 500: the draws and
    the means are what is under test) and, last, of two pairs with an empty text (whose LCS
    scores are int 0 there: with n <= 2 the rougeL rows are all ints)."""
    scorer = rs_scorer.RougeScorer(TYPES)
    out = (theirs_scores * (n // len(theirs_scores) + 1))[:max(0, n - 2)]
    return (out + [scorer.score("", "x"), scorer.score("a b", "")])[-n:]


def aggregate(module, scores, seed, reorder=False, **kwargs):
    aggregator = module.BootstrapAggregator(**kwargs)
    for i, s in enumerate(scores):  # a dict's order decides the order of the draws
        aggregator.add_scores(dict(reversed(s.items())) if reorder and i % 2 else s)
    if seed is not None:
        np.random.seed(seed)
    return aggregator.aggregate()


@pytest.mark.parametrize("n", [1, 2, 3, 37, 1000, 3500, 3502])
@pytest.mark.parametrize("k", [0, 7, 12345])
def test_aggregator_same_draws_as_rouge_score(theirs_scores, n, k):
    scores = example_scores(theirs_scores, n)
    want = aggregate(rs_scoring, scores, k)
    after = np.random.get_state()
    got = aggregate(ex_scoring, scores, k)
    assert got == want and list(got) == list(want)
    assert type(got["rouge1"]) is ex_scoring.AggregateScore
    # the same number of draws taken from the global state
    assert np.array_equal(np.random.get_state()[1], after[1])
    assert np.random.get_state()[2] == after[2]


@pytest.mark.parametrize("kwargs", [dict(confidence_interval=0.9), dict(n_samples=1),
                                    dict(n_samples=7, confidence_interval=0.5),
                                    dict(confidence_interval=1.0, n_samples=2000),
                                    dict(confidence_interval=0)])
def test_aggregator_options(theirs_scores, kwargs):
    scores = example_scores(theirs_scores, 300)
    for reorder in (False, True):
        assert aggregate(ex_scoring, scores, 3, reorder, **kwargs) == \
            aggregate(rs_scoring, scores, 3, reorder, **kwargs)


def test_aggregator_of_nothing_and_of_other_namedtuples(theirs_scores):
    assert ex_scoring.BootstrapAggregator().aggregate() == {} == \
        rs_scoring.BootstrapAggregator().aggregate()
    # rouge_score's own Score added to ours: the bounds come back in that class, as there
    scores = example_scores(theirs_scores, 50)
    got = aggregate(ex_scoring, scores, 5)
    assert type(got["rougeL"].mid) is rs_scoring.Score
    assert got == aggregate(rs_scoring, scores, 5)


@pytest.mark.parametrize("k", [0, 99, 2 ** 32 - 1])
def test_aggregator_own_seed(theirs_scores, k):
    """seed=k: its own RandomState(k), new at each aggregate(): rouge_score's numbers after
    np.random.seed(k), the same on every call, and the global state untouched."""
    scores = example_scores(theirs_scores, 200)
    want = aggregate(rs_scoring, scores, k)
    np.random.seed(2024)
    before = np.random.get_state()
    aggregator = ex_scoring.BootstrapAggregator(seed=k)
    for s in scores:
        aggregator.add_scores(s)
    assert aggregator.aggregate() == want
    assert aggregator.aggregate() == want
    after = np.random.get_state()
    assert np.array_equal(after[1], before[1]) and after[2] == before[2]


# --------------------------------------------------------------------------------------------
# (c) The call patterns of real frameworks, each a function of the two modules (rouge_scorer,
# scoring), run on rouge_score and on rouge_exact with the same seed, results compared ==.


def lm_eval_truthfulqa_rouge(rouge_scorer, scoring, refs, preds):
    """EleutherAI/lm-evaluation-harness, lm_eval/tasks/truthfulqa/utils.py: rouge(refs, preds)
    (t5-style: RougeScorer(rouge_types), a BootstrapAggregator fed score() per pair, the mid
    F x 100), as process_results_gen calls it: one reference at a time, the max over them."""
    def rouge(refs, preds):
        rouge_types = ["rouge1", "rouge2", "rougeLsum"]
        scorer = rouge_scorer.RougeScorer(rouge_types)

        def _prepare_summary(summary):
            return summary.replace(" . ", ".\n")

        aggregator = scoring.BootstrapAggregator()
        for ref, pred in zip(refs, preds):
            aggregator.add_scores(scorer.score(_prepare_summary(ref), _prepare_summary(pred)))
        result = aggregator.aggregate()
        return {type: result[type].mid.fmeasure * 100 for type in rouge_types}

    np.random.seed(42)
    whole = rouge(refs, preds)
    per_ref = [rouge([ref], [preds[0]]) for ref in refs]
    return whole, {t: np.nanmax([s[t] for s in per_ref]) for t in whole}


def helm_reference_metrics(rouge_scorer, scoring, golds, preds):
    """stanford-crfm/helm, src/helm/benchmark/metrics/evaluate_reference_metrics.py:
    get_rouge_function(rouge_type) = RougeScorer([rouge_type], use_stemmer=True) and
    .score(gold, pred)[rouge_type].fmeasure; compute_reference_metrics takes the max over the
    golds (score_1) and over golds x predictions (score_k); get_chinese_rouge_function passes
    a character tokenizer object (HELM's ChineseTokenizer; Characters stands in for it)."""
    from functools import partial

    def rouge_score(gold, pred, rouge_type, scorer):
        return scorer.score(gold, pred)[rouge_type].fmeasure

    def get_rouge_function(rouge_type, tokenizer=None):
        scorer = rouge_scorer.RougeScorer([rouge_type], use_stemmer=True, tokenizer=tokenizer)
        return partial(rouge_score, scorer=scorer, rouge_type=rouge_type)

    out = {}
    for name, fn in {"rouge_1": get_rouge_function("rouge1"),
                     "rouge_2": get_rouge_function("rouge2"),
                     "rouge_l": get_rouge_function("rougeL"),
                     "chinese_rouge_1": get_rouge_function("rouge1", Characters())}.items():
        out[name] = (max(fn(gold, preds[0]) for gold in golds),
                     max(fn(gold, pred) for gold in golds for pred in preds))
    return out


def lighteval_rouge(rouge_scorer, scoring, golds, predictions):
    """huggingface/lighteval, src/lighteval/metrics/metrics_sample.py, class ROUGE:
    RougeScorer([methods], tokenizer=tokenizer) for one method; _rouge_score (np.mean of F over
    golds x predictions), _rouge_score_multi_golds (score_multi per prediction) and
    _rouge_score_with_bootsrap (BootstrapAggregator, mid F x 100)."""
    out = {}
    for method in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
        scorer = rouge_scorer.RougeScorer([method], tokenizer=None)
        out[method, "mean"] = np.mean([scorer.score(g, p)[method].fmeasure
                                       for p in predictions for g in golds])
        out[method, "multi"] = np.mean([scorer.score_multi(golds, p)[method].fmeasure
                                        for p in predictions])
        aggregator = scoring.BootstrapAggregator()
        for g, p in zip(golds, predictions):
            aggregator.add_scores(scorer.score(g, p))
        np.random.seed(7)
        out[method, "bootstrap"] = aggregator.aggregate()[method].mid.fmeasure * 100
    return out


def trl_rouge_reward(rouge_scorer, scoring, completions, answer):
    """A ROUGE reward for TRL's GRPOTrainer, to TRL's contract (huggingface/trl,
    trl/rewards/accuracy_rewards.py: reward(completions, <dataset column>, **kwargs) ->
    list[float], a conversational completion being [{"role": "assistant", "content": ...}];
    trl/rewards/other_rewards.py: a callable class, as the reward must pickle for the async
    rollout worker's spawned process), with the body users write with rouge_score: a scorer
    made once, scorer.score(reference, completion)["rougeL"].fmeasure."""
    class RougeReward:
        __name__ = "rouge_reward"

        def __init__(self):
            self.scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)

        def __call__(self, completions, answer, **kwargs):
            contents = [completion[0]["content"] for completion in completions]
            return [self.scorer.score(ref, gen)["rougeL"].fmeasure
                    for gen, ref in zip(contents, answer)]

    reward = RougeReward()
    worker_copy = pickle.loads(pickle.dumps(reward.scorer))  # what a spawned worker gets
    direct = reward(completions, answer=answer, trainer_state=None)
    reward.scorer = worker_copy
    assert reward(completions, answer=answer) == direct
    return direct


@pytest.fixture(scope="module")
def framework_data(rows):
    """Seeded: short sentence-level texts (truthfulqa-, HELM-like answers) from REALSumm."""
    rng = random.Random(20240613)
    sentences = [s for r in rows for s in r["prediction"].split("\n")]
    golds = rng.sample(sentences, 12)
    preds = rng.sample(sentences, 12)
    return golds, preds


@pytest.mark.parametrize("pattern", [lm_eval_truthfulqa_rouge, helm_reference_metrics,
                                     lighteval_rouge])
def test_framework_pattern(framework_data, pattern):
    golds, preds = framework_data
    want = pattern(*MODULES["rouge_score"], golds, preds)
    got = pattern(*MODULES["rouge_exact"], golds, preds)
    assert got == want


def test_trl_reward(rows):
    rng = random.Random(5)
    sample = rng.sample(rows, 64)
    completions = [[{"role": "assistant", "content": r["prediction"]}] for r in sample]
    answer = [r["references"][0] for r in sample]
    want = trl_rouge_reward(*MODULES["rouge_score"], completions, answer)
    assert trl_rouge_reward(*MODULES["rouge_exact"], completions, answer) == want
    assert len(set(want)) > 10  # rewards that differ, not a constant
