"""profile="py_rouge" against py-rouge 1.1 itself (PyPI py-rouge, run in a subprocess from
its own folder by tests/py_rouge_oracle.py): each example's precision, recall and F bit for
bit, and the corpus (py-rouge's mean, the examples' scores added left to right), on seeded
realsumm pairs and seeded edge cases: its defaults (stemming, 665 characters) and its word
limit, no stemming, other alphas, several references pooled (apply_avg) or the best one
(apply_best, ROUGE-W's own key), ROUGE-W, and the signed n-gram counts of texts shorter than
n. Then every surface once: the interval, partial/merge/bytes, compare(), the command, the
signature, and the options it refuses. Hand-worked numbers check the signed counts without
the oracle."""

import json
import math
import random
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from conftest import DATA, py_rouge_answers

PROFILE = dict(profile="py_rouge")
NOLIMIT = {"limit_length": False}  # py-rouge's Rouge() without its 665-character limit
OURS = {"rouge-1": "rouge1", "rouge-2": "rouge2", "rouge-3": "rouge3", "rouge-4": "rouge4",
        "rouge-l": "rougeL", "rouge-w": "rougeW-1.2"}
MEASURES = {"p": "precision", "r": "recall", "f": "fmeasure"}

# --------------------------------------------------------------------------------------------
# The inputs (seeded)

with open(DATA, encoding="utf-8") as _f:
    _ROWS = [json.loads(line) for line in _f]
_RNG = random.Random(20261129)
# 100 single-reference pairs, 20 of them predictions longer than py-rouge's 665 characters
_LONG = [k for k, row in enumerate(_ROWS) if len(row["prediction"]) > 665]
_PICKED = _RNG.sample(_LONG, 20) + _RNG.sample(
    [k for k in range(len(_ROWS)) if k not in set(_LONG)], 80)
_RNG.shuffle(_PICKED)
PREDS = [_ROWS[k]["prediction"] for k in _PICKED]
REFS = [_ROWS[k]["references"][0] for k in _PICKED]
# 24 examples with 3 references: the real one and two other systems' summaries of the document
_BY_DOC: dict = {}
for _row in _ROWS:
    _BY_DOC.setdefault(_row["doc"], []).append(_row["prediction"])
_MULTI = _RNG.sample(range(len(_ROWS)), 24)
MPREDS = [_ROWS[k]["prediction"] for k in _MULTI]
MREFS = [[_ROWS[k]["references"][0]] + _RNG.sample(
    [p for p in _BY_DOC[_ROWS[k]["doc"]] if p != _ROWS[k]["prediction"]], 2) for k in _MULTI]
# ROUGE-W under apply_best: both references are the prediction, so that both score 1 by
# f^-1(hit / base); py-rouge's own key gives the first 0.9999999999999999 and the second 1.0
W_TIE = ("a b c d e f", ["a b c\nd e\nf", "a b c d e f"])
# two systems' summaries of the same 20 documents (compare())
_SYSTEMS = ("abs/bart/out", "abs/semsim/out")
_DOCS = _RNG.sample(sorted({row["doc"] for row in _ROWS}), 20)
_OF = {(row["system"], row["doc"]): row for row in _ROWS}
SYSTEMS = {s: [_OF[s, d]["prediction"] for d in _DOCS] for s in _SYSTEMS}
SYSTEM_REFS = [_OF[_SYSTEMS[0], d]["references"][0] for d in _DOCS]

# edge cases: empty texts, texts shorter than n, punctuation only, "cannot", contractions,
# Unicode case and whitespace, CRLF, empty and blank lines, several references with empty or
# short ones (signed counts: recall above 1 or below 0 once pooled)
_WORDS = ("a b c a b cannot can not can't gonna wanna gimme The THE the cats ran running "
          "runs geese comics \u0130stanbul \u212aelvin Stra\u00dfe caf\u00e9 \u4e2d\u6587 "
          "x1 2015 3.5 accidentally revolutionarize").split()
_SEPARATORS = [" ", " ", " ", "  ", "\t", "\r\n", "\n", "\n\n", " \n ", ".", ",", "!", "-",
               "\u3000", "\xa0", "...", ""]


def _edge_text(rng: random.Random, most: int) -> str:
    return "".join(rng.choice(_WORDS) + rng.choice(_SEPARATORS)
                   for _ in range(rng.randint(0, most)))


def _edges() -> tuple:
    rng = random.Random(5)
    fixed = [("a b c", ["a b c", ""]), ("a b c d", ["a b c d", "", "", "", ""]),
             ("", ["a b", "a"]), ("a", ["a b c", "a"]), ("...", ["!!", ""]), ("a b", ["a b"]),
             ("cannot\r\ncan not", ["can not cannot", "\n\n"]), ("gonna wanna", ["gon na"])]
    generated = [(_edge_text(rng, 8), [_edge_text(rng, rng.choice((1, 3, 8)))
                                       for _ in range(rng.randint(1, 4))]) for _ in range(52)]
    rows = fixed + generated
    return [p for p, _ in rows], [r for _, r in rows]


EPREDS, EREFS = _edges()


# --------------------------------------------------------------------------------------------
# py-rouge's answers, from one subprocess


def _requests() -> dict:
    def scores(hyps, refs, each=False, **options):
        return {"op": "scores_each" if each else "scores", "hypotheses": hyps,
                "references": refs, "options": options}

    n2l = dict(metrics=["rouge-n", "rouge-l"], max_n=2)
    w12 = dict(metrics=["rouge-l", "rouge-w"], weight_factor=1.2)
    keep = dict(apply_avg=False)
    best = dict(apply_avg=False, apply_best=True)
    return {
        # keep-all (apply_avg=False): each pair's own scores
        "single": scores(PREDS, REFS, **NOLIMIT, **keep, metrics=["rouge-n", "rouge-l"],
                         max_n=4),
        "single_w": scores(PREDS[:30], REFS[:30], **NOLIMIT, **keep, **w12),
        "w_at_1": scores(PREDS[:30], REFS[:30], **NOLIMIT, **keep, metrics=["rouge-w"]),
        "nostem": scores(PREDS[:60], REFS[:60], **NOLIMIT, **keep, **n2l, stemming=False,
                         alpha=0.2),
        "alpha1": scores(PREDS[:30], REFS[:30], **NOLIMIT, **keep, **n2l, alpha=1.0),
        # several references: each example's own apply_avg or apply_best scores
        "multi_avg": scores(MPREDS, MREFS, True, **NOLIMIT, **n2l),
        "multi_best": scores(MPREDS, MREFS, True, **NOLIMIT, **best, **n2l),
        "multi_w_avg": scores(MPREDS[:12] + [W_TIE[0]], MREFS[:12] + [W_TIE[1]], True,
                              **NOLIMIT, **w12),
        "multi_w_best": scores(MPREDS[:12] + [W_TIE[0]], MREFS[:12] + [W_TIE[1]], True,
                               **NOLIMIT, **best, **w12),
        # the corpus: Rouge() at its defaults (665 characters, stemming), its word limit,
        # several references pooled and best
        "corpus": scores(PREDS, REFS, **n2l),
        "corpus_words": scores(PREDS, REFS, **n2l, length_limit=40, length_limit_type="words"),
        "corpus_multi": scores(MPREDS, MREFS, **NOLIMIT, **n2l),
        "corpus_multi_best": scores(MPREDS, MREFS, **NOLIMIT, **best, **n2l),
        "systems": [scores(SYSTEMS[s], SYSTEM_REFS, **n2l) for s in _SYSTEMS],
        # edge cases, signed counts included
        "edge_avg": scores(EPREDS, EREFS, True, **NOLIMIT, metrics=["rouge-n", "rouge-l"],
                           max_n=3),
        "edge_best": scores(EPREDS, EREFS, True, **NOLIMIT, **best,
                            metrics=["rouge-n", "rouge-l"], max_n=3),
        "edge_keep": scores(EPREDS, EREFS, **NOLIMIT, **keep, metrics=["rouge-n", "rouge-l"],
                            max_n=3),
        "edge_corpus": scores(EPREDS, EREFS, **NOLIMIT, metrics=["rouge-n", "rouge-l"],
                              max_n=3),
        "w_best_empty": dict(scores(["a b"], [["", "a b"]], **NOLIMIT, **best, **w12),
                             catch=True),
    }


@pytest.fixture(scope="module")
def oracle():
    """{name: py-rouge's answer} (py_rouge_answers: a failure with CI set, else a skip saying
    how to install it)."""
    requests = _requests()
    flat = [r for value in requests.values() for r in (value if isinstance(value, list)
                                                       else [value])]
    answers = iter(py_rouge_answers(flat, timeout=600))
    return {name: [next(answers) for _ in value] if isinstance(value, list) else next(answers)
            for name, value in requests.items()}


def ours(metric, predictions, references, types, **options) -> dict:
    """Each example's scores (compute(use_aggregator=False, detailed=True))."""
    return metric.compute(predictions=predictions, references=references, rouge_types=types,
                          use_aggregator=False, detailed=True, **PROFILE, **options)


def _bits(values) -> list:
    return [float(v).hex() for v in values]


def same_examples(mine: dict, theirs: list, metrics, signed_zero: bool = True) -> None:
    """Each example's (P, R, F) of every metric: bit for bit (signed_zero=False: equal as
    numbers, where py-rouge's 0.0 is the sum 0.0 + -0.0 of a one-example call)."""
    for metric in metrics:
        for k, row in enumerate(theirs):
            a = [mine[OURS[metric]][MEASURES[m]][k] for m in "prf"]
            b = [row[metric][m] for m in "prf"]
            assert (_bits(a) == _bits(b)) if signed_zero else (a == b), (metric, k, a, b)


def keep_all(answer: dict, metrics) -> list:
    """py-rouge's keep-all answer, one reference each, as [{metric: {p, r, f}}]."""
    n = len(answer[metrics[0]])
    return [{m: {s: answer[m][k][s][0] for s in "prf"} for m in metrics} for k in range(n)]


def flattened(answer: dict, metrics) -> list:
    """py-rouge's keep-all answer of several references: a row per (example, reference)."""
    return [{m: {s: answer[m][k][s][j] for s in "prf"} for m in metrics}
            for k in range(len(answer[metrics[0]]))
            for j in range(len(answer[metrics[0]][k]["p"]))]


def same_corpus(result: dict, answer: dict, metrics) -> None:
    """compute()'s corpus P, R and F (the detailed mids) are py-rouge's, bit for bit."""
    for metric in metrics:
        for m, key in MEASURES.items():
            mine = result[OURS[metric]][key]["mid"]
            assert float(mine).hex() == float(answer[metric][m]).hex(), (metric, m, mine,
                                                                          answer[metric][m])


# --------------------------------------------------------------------------------------------
# Each example


def test_each_example_equals_py_rouge(metric, oracle):
    """100 realsumm pairs, stemmed, no limit: rouge1..4 and rougeL as py-rouge's keep-all."""
    m4 = ["rouge-1", "rouge-2", "rouge-3", "rouge-4", "rouge-l"]
    mine = ours(metric, PREDS, REFS, [OURS[m] for m in m4], length_limit_bytes=0)
    same_examples(mine, keep_all(oracle["single"], m4), m4)


def test_rouge_w_and_its_weight(metric, oracle):
    """rougeW-1.2 is py-rouge's rouge-w at weight_factor=1.2; its rouge-w at the default
    weight_factor=1.0 is rougeL; and at 1.2 its rouge-l is not rougeL but rougeL's P and R
    raised to 1/1.2 (a py-rouge bug, not reproduced), with F of those."""
    mine = ours(metric, PREDS[:30], REFS[:30], ["rougeL", "rougeW-1.2"], length_limit_bytes=0)
    theirs = keep_all(oracle["single_w"], ["rouge-l", "rouge-w"])
    same_examples(mine, theirs, ["rouge-w"])
    at_1 = keep_all(oracle["w_at_1"], ["rouge-w"])
    assert [[row["rouge-w"][s] for s in "prf"] for row in at_1] == \
        [[mine["rougeL"][MEASURES[s]][k] for s in "prf"] for k in range(30)]
    for k, row in enumerate(theirs):
        p, r = (mine["rougeL"][key][k] ** (1 / 1.2) for key in ("precision", "recall"))
        f = 0.0 if p == 0.0 or r == 0.0 else p * r / (0.5 * p + 0.5 * r)
        assert _bits([row["rouge-l"][s] for s in "prf"]) == _bits([p, r, f]), k


def test_no_stemming_and_other_alphas(metric, oracle):
    n2l = ["rouge-1", "rouge-2", "rouge-l"]
    types = [OURS[m] for m in n2l]
    mine = ours(metric, PREDS[:60], REFS[:60], types, length_limit_bytes=0, use_stemmer=False,
                alpha=0.2)
    same_examples(mine, keep_all(oracle["nostem"], n2l), n2l)
    mine = ours(metric, PREDS[:30], REFS[:30], types, length_limit_bytes=0, alpha=1.0)
    same_examples(mine, keep_all(oracle["alpha1"], n2l), n2l)


def test_several_references_pooled_and_best(metric, oracle):
    """multi_ref average (apply_avg) and best (apply_best): each example's scores as a
    get_scores call of that example alone gives them; ROUGE-W's best reference by py-rouge's
    own key, which breaks W_TIE's tie (f^-1(hit / base) ties it and keeps the first)."""
    n2l = ["rouge-1", "rouge-2", "rouge-l"]
    types = [OURS[m] for m in n2l]
    for mode, name in (("average", "multi_avg"), ("best", "multi_best")):
        mine = ours(metric, MPREDS, MREFS, types, length_limit_bytes=0, multi_ref=mode)
        same_examples(mine, oracle[name], n2l, signed_zero=False)
    preds, refs = MPREDS[:12] + [W_TIE[0]], MREFS[:12] + [W_TIE[1]]
    for mode, name in (("average", "multi_w_avg"), ("best", "multi_w_best")):
        mine = ours(metric, preds, refs, ["rougeW-1.2"], length_limit_bytes=0, multi_ref=mode)
        same_examples(mine, oracle[name], ["rouge-w"], signed_zero=False)
    # the tie: py-rouge takes the second reference (one line: 6 ** 1.2 of 6 ** 1.2)
    tie = oracle["multi_w_best"][-1]["rouge-w"]
    assert tie["p"] == 1.0 != ours(metric, [W_TIE[0]], [W_TIE[1][:1]], ["rougeW-1.2"],
                                   length_limit_bytes=0)["rougeW-1.2"]["precision"][0]


def test_edge_cases_equal_py_rouge(metric, oracle):
    """Empty and short texts, punctuation, contractions, Unicode, CRLF, blank lines, empty
    references: pooled and best per example (equal as numbers: py-rouge's one-example sums
    start from 0.0), and keep-all, a row per (prediction, reference) pair with
    use_aggregator=False, bit for bit (its -0.0 of 0 / a negative count included)."""
    metrics = ["rouge-1", "rouge-2", "rouge-3", "rouge-l"]
    types = [OURS[m] for m in metrics]
    for mode, name in (("average", "edge_avg"), ("best", "edge_best")):
        mine = ours(metric, EPREDS, EREFS, types, length_limit_bytes=0, multi_ref=mode)
        same_examples(mine, oracle[name], metrics, signed_zero=False)
    pairs = [(p, r) for p, refs in zip(EPREDS, EREFS) for r in refs]
    mine = ours(metric, [p for p, _ in pairs], [r for _, r in pairs], types,
                length_limit_bytes=0)
    theirs = flattened(oracle["edge_keep"], metrics)
    same_examples(mine, theirs, metrics)
    # the cases hold what they test: a signed count's -0.0, a recall above 1 and below 0
    assert any(math.copysign(1.0, row["rouge-2"]["p"]) < 0 for row in theirs)
    recalls = [row["rouge-2"]["r"] for row in oracle["edge_avg"]]
    assert max(recalls) > 1.0 and min(recalls) < 0.0


def test_signed_counts_by_hand(metric):
    """py-rouge counts len - n + 1 n-grams in a text of len tokens, also below n: an empty
    reference has -1 bigrams, and pooled (apply_avg) it lowers the reference count."""
    def scores(pred, refs, n):
        out = metric.compute(predictions=[pred], references=[refs], rouge_types=[f"rouge{n}"],
                             detailed=True, n_samples=40, **PROFILE)[f"rouge{n}"]
        return [out[key]["mid"] for key in ("precision", "recall", "fmeasure")]

    def expected(p: Fraction, r: Fraction) -> list:
        """P and R as fractions of the counts; F by py-rouge's formula on those floats."""
        p, r = float(p), float(r)
        return [p, r, p * r / ((1 - 0.5) * p + 0.5 * r)]

    # "a b c" against "a b c" and "": hits 2 + 0; counts 2 + 2 and 2 + (0 - 1)
    assert scores("a b c", ["a b c", ""], 2) == expected(Fraction(2, 4), Fraction(2, 1)) == \
        [0.5, 2.0, 0.8]
    # trigrams: hits 1 + 0, counts 1 + 1 and 1 + (0 - 2): recall -1, F 2
    assert scores("a b c", ["a b c", ""], 3) == expected(Fraction(1, 2), Fraction(1, -1)) == \
        [0.5, -1.0, 2.0]
    # four empty references: reference count 3 + 4 * (0 - 1) = -1, hit 3: recall -3
    assert scores("a b c d", ["a b c d", "", "", "", ""], 2) == \
        expected(Fraction(3, 15), Fraction(3, -1))


def test_w_best_with_an_empty_reference(metric, oracle):
    """apply_best's ROUGE-W key divides by the reference's count: py-rouge raises
    ZeroDivisionError on an empty reference; here that reference ranks 0 and the other is
    taken."""
    assert oracle["w_best_empty"] == {"raised": "ZeroDivisionError"}
    with pytest.warns(UserWarning, match="rougeW: 1 reference"):
        best = ours(metric, ["a b"], [["", "a b"]], ["rougeW-1.2"], multi_ref="best")
    alone = ours(metric, ["a b"], [["a b"]], ["rougeW-1.2"], multi_ref="best")
    assert best == alone and alone["rougeW-1.2"]["precision"] == [1.0]


# --------------------------------------------------------------------------------------------
# The corpus


def test_the_corpus_is_py_rouges_mean(metric, oracle):
    """py-rouge adds the examples' scores left to right and divides by their count: bit for
    bit at its defaults (665 characters, stemming: compute()'s too under the profile), its
    word limit, several references pooled or best, and the edge cases."""
    n2l = ["rouge-1", "rouge-2", "rouge-l"]
    types = [OURS[m] for m in n2l]

    def corpus(predictions, references, types, **options):
        return metric.compute(predictions=predictions, references=references,
                              rouge_types=types, detailed=True, n_samples=50, **PROFILE,
                              **options)

    assert sum(len(p) > 665 for p in PREDS) == 20  # the default limit cuts these
    same_corpus(corpus(PREDS, REFS, types), oracle["corpus"], n2l)
    same_corpus(corpus(PREDS, REFS, types, length_limit_words=40), oracle["corpus_words"],
                n2l)
    same_corpus(corpus(MPREDS, MREFS, types, length_limit_bytes=0), oracle["corpus_multi"],
                n2l)
    same_corpus(corpus(MPREDS, MREFS, types, length_limit_bytes=0, multi_ref="best"),
                oracle["corpus_multi_best"], n2l)
    e3 = ["rouge-1", "rouge-2", "rouge-3", "rouge-l"]
    same_corpus(corpus(EPREDS, EREFS, [OURS[m] for m in e3], length_limit_bytes=0),
                oracle["edge_corpus"], e3)


def test_sequential_means_add_left_to_right(monkeypatch):
    """py-rouge's sum, 0.0 + x1 + x2 + ... in input order (a -0.0 first is not carried),
    divided by the count: as Python adds them, across the chunks it is taken in."""
    from rouge_exact.scorer import aggregate

    rng = random.Random(3)
    rows = [[rng.choice((-0.0, 0.0, 1.0, 2.0 ** -60, rng.random(), -rng.random() * 3))
             for _ in range(4)] for _ in range(1000)]
    rows[0] = [-0.0, -0.0, 0.1, 0.0]
    for chunk in (1000, 7, 1):
        monkeypatch.setattr(aggregate, "_SEQUENTIAL_ROWS", chunk)
        for n in (1, 2, 1000):
            expected = []
            for c in range(4):
                total = 0.0
                for row in rows[:n]:
                    total += row[c]
                expected.append(total / n)
            got = aggregate.sequential_means(np.array(rows[:n]))
            assert _bits(got) == _bits(expected), (chunk, n)


def test_defaults_are_py_rouges():
    """Without options the profile stems and cuts at 665 characters, as Rouge() does; the
    signature says so; 0 turns the limit off (py-rouge's length_limit=0)."""
    from rouge_exact.options import RougeOptions

    default = RougeOptions.build(**PROFILE)
    explicit = RougeOptions.build(use_stemmer=True, length_limit_bytes=665, **PROFILE)
    assert default == explicit and default.use_stemmer and default.length_limit_bytes == 665
    assert [t.name for t in default.rouge_types] == ["rouge1", "rouge2", "rougeL"]
    signature = default.signature()
    assert "|profile:py_rouge|tok:py_rouge|stem:py_rouge-porter_original-nltk" in signature
    assert "+wordnet2.0+138|" in signature and "|limit:665c|" in signature
    assert "|multiref:average|" in signature
    off = RougeOptions.build(use_stemmer=False, length_limit_bytes=0, **PROFILE)
    assert "|stem:no|" in off.signature() and "|limit:none|" in off.signature()
    assert "|limit:40w|" in RougeOptions.build(length_limit_words=40, **PROFILE).signature()
    # the other profiles keep theirs
    assert not RougeOptions.build().use_stemmer
    assert RougeOptions.build().length_limit_bytes is None


# --------------------------------------------------------------------------------------------
# Every surface


def test_states_merge_in_order(metric, oracle):
    """partial() of two halves, merged in order, through bytes: compute()'s detailed result
    on all the rows, interval included, whose mids are py-rouge's corpus. Merged the other
    way round it is compute() on the rows in that order."""
    types = ["rouge1", "rouge2", "rougeL"]
    options = dict(rouge_types=types, detailed=True, n_samples=100, **PROFILE)
    whole = metric.compute(predictions=PREDS, references=REFS, **options)
    same_corpus(whole, oracle["corpus"], ["rouge-1", "rouge-2", "rouge-l"])
    a = metric.partial(PREDS[:37], REFS[:37], **options)
    b = metric.state_from_bytes(metric.partial(PREDS[37:], REFS[37:], **options).to_bytes())
    merged = metric.state_from_bytes(metric.merge(a, b).to_bytes())
    assert metric.finalize(merged) == whole
    for name in types:
        entry = whole[name]["fmeasure"]
        assert entry["low"] <= entry["mid"] <= entry["high"] and entry["low"] < entry["high"]
    swapped = metric.finalize(b.merge(a))
    assert swapped == metric.compute(predictions=PREDS[37:] + PREDS[:37],
                                     references=REFS[37:] + REFS[:37], **options)


def test_compare_reports_py_rouges_corpus(metric, oracle):
    systems = dict(zip(_SYSTEMS, (SYSTEMS[s] for s in _SYSTEMS)))
    compared = metric.compare(systems, SYSTEM_REFS, n_samples=200, **PROFILE)
    for s, answer in zip(_SYSTEMS, oracle["systems"]):
        for metric_name in ("rouge-1", "rouge-2", "rouge-l"):
            got = compared[s][OURS[metric_name]]["fmeasure"]["score"]
            assert float(got).hex() == float(answer[metric_name]["f"]).hex(), (s, metric_name)
    assert "|profile:py_rouge|" in compared["signature"]


def test_the_command_scores_with_the_profile(tmp_path, oracle):
    """rouge-exact --profile py_rouge: py-rouge's corpus at its defaults."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"prediction": p, "references": [r]}) + "\n"
                            for p, r in zip(PREDS, REFS)), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "rouge_exact", "--input", str(rows),
                          "--profile", "py_rouge", "--json", "--n-samples", "20"],
                         capture_output=True, text=True, check=True, timeout=600).stdout
    result = json.loads(out)
    assert result["count"] == len(PREDS)
    same_corpus(result, oracle["corpus"], ["rouge-1", "rouge-2", "rouge-l"])
    assert "|limit:665c|" in result["signature"]


@pytest.mark.parametrize("options, match", [
    (dict(lang="zh"), r"^lang: got 'zh' with profile='py_rouge'"),
    (dict(tokenizer="unicode"), r"^tokenizer: got 'unicode'; the py_rouge profile uses its "
                                r"own"),
    (dict(multi_ref="max"), r"^multi_ref: got 'max'; the py_rouge profile allows average, "
                            r"best$"),
    (dict(multi_ref="max_pr"), r"^multi_ref: got 'max_pr'"),
    (dict(rouge_types=["rougeLsum"]), r"^rouge_types: got 'rougeLsum' with "
                                      r"profile='py_rouge'"),
    (dict(rouge_types=["rougeS4"]), r"^rouge_types: got 'rougeS4'"),
    (dict(aggregation="micro"), r"^aggregation: got 'micro' with profile='py_rouge'; "
                                r"allowed: 'macro'"),
    (dict(length_limit_bytes=-1), r"^length_limit_bytes: got -1; allowed: .*0 \(no limit\) "
                                  r"with profile py_rouge only$"),
    (dict(length_limit_words=0, length_limit_bytes=0), r"^length_limit_words and "
                                                       r"length_limit_bytes: got both"),
])
def test_what_the_profile_refuses(metric, options, match):
    with pytest.raises(ValueError, match=match):
        metric.compute(predictions=["a"], references=["a"], **{**PROFILE, **options})


def test_no_limit_of_0_elsewhere(metric):
    """0 means no limit only under the profile with py-rouge's limits."""
    for name in ("length_limit_bytes", "length_limit_words"):
        with pytest.raises(ValueError, match=f"^{name}: got 0; allowed: None or an integer "
                                             ">= 1"):
            metric.compute(predictions=["a"], references=["a"], **{name: 0})


def test_the_command_turns_the_profiles_stemming_off(tmp_path):
    """py_rouge stems unless told not to: --no-use-stemmer is py-rouge's stemming=False.
    Hand-counted: "the cats were running" against "the cat runs" shares "the" unstemmed
    (P 1/4, R 1/3), and "the", "cat", "run" stemmed (P 3/4, R 3/3)."""
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"prediction": "the cats were running",
                                "references": ["the cat runs"]}) + "\n", encoding="utf-8")

    def scored(*flags):
        done = subprocess.run([sys.executable, "-m", "rouge_exact", "--jsonl", str(path),
                               "--profile", "py_rouge", "--rouge-types", "rouge1", "--json",
                               *flags], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        return out["rouge1"]["precision"]["mid"], out["rouge1"]["recall"]["mid"]

    assert scored() == scored("--use-stemmer") == (0.75, 1.0)
    assert scored("--no-use-stemmer") == (0.25, float(Fraction(1, 3)))
