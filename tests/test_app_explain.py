"""The Space's Which ROUGE? tab without a browser: the numbers it shows (the table of
conventions, the matches, the walk's chart and table, the examples each step moves) are
rouge_exact.explain()'s, called here on its own, and rouge_score 0.1.2's for its row; what is
over the budget is refused before explain runs, with the command that runs it locally; the
reported figures are read as explain's ``match``. The browser tests are in
test_app_browser.py (test_which_rouge_*)."""
import html
import json
import re
import time
from fractions import Fraction
from types import SimpleNamespace

import pytest
from conftest import needed

rouge_scorer = needed("rouge_score.rouge_scorer")
gr = needed("gradio")

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
MEASURES = ("precision", "recall", "fmeasure")


@pytest.fixture(scope="module")
def space(metric):
    import importlib

    return SimpleNamespace(**{name: importlib.import_module(f"space.{name}") for name in (
        "api", "explain_view", "handlers", "limits", "scoring")})


@pytest.fixture(scope="module")
def corpus(realsumm):
    """8 realsumm summaries, each with its reference and 0 to 2 other systems' summaries of
    the same article as more references (every multi-reference rule then has rows)."""
    by_doc: dict = {}
    for row in realsumm:
        by_doc.setdefault(row["doc"], []).append(row["prediction"])
    rows = realsumm[:8]
    return ([r["prediction"] for r in rows],
            [[r["references"][0]] + [p for p in by_doc[r["doc"]] if p != r["prediction"]][:k % 3]
             for k, r in enumerate(rows)])


def _page_options(**changes) -> dict:
    return dict(dict(rouge_types=list(TYPES), extra_types="", use_stemmer=False,
                     remove_stopwords=False, profile="rouge_score", alpha=0.5, multi_ref="max",
                     tokenizer="default", split_sentences=False, lang="none"), **changes)


def _attrs(tag: str) -> dict:
    return {k: html.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', tag)}


def _tags(text: str, pattern: str) -> list:
    return [_attrs(tag) for tag in re.findall(pattern, text)]


@pytest.fixture(scope="module")
def shown(space, corpus, tmp_path_factory):
    """The Explain button's outputs for the corpus as an uploaded JSONL, with figures that
    rouge_score's own numbers round to (rouge_score 0.1.2 run here), walking rouge_score ->
    rouge155 with -m."""
    predictions, references = corpus
    scorer = rouge_scorer.RougeScorer(TYPES)
    scores = [scorer.score_multi(refs, p) for p, refs in zip(predictions, references)]
    means = {t: {m: float(sum(Fraction(getattr(s[t], m)) for s in scores) / len(scores))
                 for m in MEASURES} for t in TYPES}
    figures = {"rouge1": f"{means['rouge1']['fmeasure'] * 100:.2f}",
               "rougeL": f"{means['rougeL']['fmeasure'] * 100:.2f}"}
    path = tmp_path_factory.mktemp("explain") / "pairs.jsonl"
    path.write_text("".join(json.dumps({"prediction": p, "references": r}) + "\n"
                            for p, r in zip(predictions, references)), encoding="utf-8")
    text = ", ".join(f"{k}={v}" for k, v in figures.items())
    out = space.handlers.explain_page(str(path), None, None, _page_options(), text,
                                      "rouge_score", "rouge155 use_stemmer=True")
    return SimpleNamespace(results=out[0], walk=out[1], menus=out[2:4], state=out[4],
                           figures=figures, means=means)


def test_the_table_is_explains_and_rouge_scores(metric, space, corpus, shown):
    """Every row of the table: explain()'s name, signature and P, R, F per type (the exact
    floats); rouge_score's row is rouge_score 0.1.2's corpus mean; the rows that round to the
    figures are explain()'s matches, marked."""
    predictions, references = corpus
    explained = metric.explain(predictions, references, rouge_types=TYPES,
                               match=shown.figures)
    rows = _tags(shown.results, r'<tr class="convention[^"]*"[^>]*>')
    assert [r["data-name"] for r in rows] == [row.name for row in explained.rows]
    cells = _tags(shown.results, r'<td class="explain-cell"[^>]*>')
    expected = [(t, row.scores[t]) for row in explained.rows for t in TYPES if t in row.scores]
    assert len(cells) == len(expected)
    for cell, (t, scores) in zip(cells, expected):
        assert cell["data-type"] == t
        assert {m: float(cell[f"data-{m}"]) for m in MEASURES} == scores
    for row in explained.rows:
        assert html.escape(row.signature) in shown.results
    rouge_score = next(row for row in explained.rows if row.name == "rouge_score")
    for t in TYPES:
        for m in MEASURES:
            assert rouge_score.scores[t][m] == pytest.approx(shown.means[t][m], abs=1e-15)
    matched = {name for name, _ in explained.matched.matches}
    assert "rouge_score" in matched  # the figures are its own numbers, rounded
    assert {r["data-name"] for r in rows if r["data-match"] == "true"} == matched
    assert html.escape(explained.matched.summary()) in shown.results
    assert shown.results.count("✓ matches") == len(matched)
    # the menus: every convention's name, at the walk's two ends
    names = [row.name for row in explained.rows]
    assert shown.menus[0]["choices"] == names and shown.menus[0]["value"] == "rouge_score"
    assert shown.menus[1]["value"] == "rouge155 use_stemmer=True"


def test_the_walk_is_explains(metric, space, corpus, shown):
    """The chart's bars, the walk table and the examples shown are explain().walk()'s: each
    step's move of F per type (the float of its exact Fraction), the ends' scores, the whole
    gap, and each example moved (its index, type, F before and after, its tokens)."""
    predictions, references = corpus
    walk = metric.explain(predictions, references, rouge_types=TYPES).walk(
        "rouge_score", "rouge155 use_stemmer=True", examples=shown.state["examples"])
    types = list(walk.gap)
    labels = [s.setting for s in walk.steps] + ["whole gap"]
    want = [(t, label, float(step.delta[t]["fmeasure"]) if step else float(
        walk.gap[t]["fmeasure"])) for t in types
        for label, step in zip(labels, [*walk.steps, None])]
    for variant in ("walk-chart", "walk-chart-narrow"):  # both drawings, the same numbers
        svg = re.search(rf'<svg[^>]*id="{variant}".*?</svg>', shown.walk, re.S).group()
        bars = _tags(svg, r'<g class="walk-bar"[^>]*>')
        assert [(b["data-type"], b["data-step"], float(b["data-delta"])) for b in bars] == want
    table = re.search(r'<table class="rouge-table walk".*?</table>', shown.walk, re.S).group()
    steps = re.findall(r'<tr class="step" data-step="([^"]*)"', table)
    assert steps == [s.setting for s in walk.steps]
    deltas = [float(v) for v in re.findall(r'data-delta="([^"]*)"', table)]
    assert deltas == [float(s.delta[t]["fmeasure"]) for s in walk.steps for t in types] + [
        float(walk.gap[t]["fmeasure"]) for t in types]
    values = [float(v) for v in re.findall(r'data-value="([^"]*)"', table)]
    assert values == [walk.start_scores[t]["fmeasure"] for t in types] + [
        walk.end_scores[t]["fmeasure"] for t in types]
    moved = _tags(shown.walk, r'<div class="moved-example"[^>]*>')
    want_moved = [m for s in walk.steps for m in s.moved]
    assert want_moved and len(moved) == len(want_moved)
    for got, m in zip(moved, want_moved):
        assert (int(got["data-index"]), got["data-type"], float(got["data-before"]),
                float(got["data-after"])) == (m.index, m.rouge_type, m.before, m.after)
    # the tokens of the example the stemmer moves most, as its step counts them (stemmed)
    stemmed = next(s for s in walk.steps if s.setting == "stemmer").moved[0]
    first = stemmed.prediction_tokens[1][0][:5]
    assert "<span>" + "</span> <span>".join(map(html.escape, first)) + "</span>" in \
        shown.walk.replace(' class="chg"', "")


def test_a_menu_walks_again_on_the_stored_result(metric, space, corpus, shown):
    """Another convention picked in a menu: the walk between the two, as explain() walks it,
    on the stored conventions; the table marks the new ends."""
    predictions, references = corpus
    results, walk_panel, state = space.handlers.explain_walk_changed(
        shown.state, "coco", "pltrdy")
    walk = metric.explain(predictions, references, rouge_types=TYPES).walk("coco", "pltrdy")
    bars = _tags(walk_panel, r'<g class="walk-bar"[^>]*>')
    assert [float(b["data-delta"]) for b in bars][:len(walk.steps)] == [
        float(s.delta[list(walk.gap)[0]]["fmeasure"]) for s in walk.steps]
    assert "From <code>coco</code> to <code>pltrdy</code>" in walk_panel
    assert state["walk"].start == "coco" and state["walk"].end == "pltrdy"
    coco = re.search(r'<tr[^>]*data-name="coco".*?</tr>', results, re.S).group()
    assert 'badge end">from<' in coco
    # before a first run a menu does nothing (the button reads it)
    assert space.handlers.explain_walk_changed(None, "coco", "pltrdy")[2] is None


def test_the_api_gives_explains_dict(metric, space, corpus):
    predictions, references = corpus
    got = space.api.rouge_explain(predictions, references, ["rouge1", "rougeL"],
                                  "rouge1=44.16", "coco", "torchmetrics")
    explained = metric.explain(predictions, references, rouge_types=["rouge1", "rougeL"],
                               match={"rouge1": "44.16"})
    want = explained.as_dict()
    assert {k: got[k] for k in want} == want
    shown = space.limits.walk_examples(predictions, references, 10.0)
    assert got["walk"] == explained.walk("coco", "torchmetrics", examples=shown).as_dict()
    json.dumps(got)  # JSON as it is
    with pytest.raises(gr.Error, match="b: got 'nope', not a convention here"):
        space.api.rouge_explain(predictions, references, b="nope")


@pytest.mark.parametrize("text, want", [
    ("rouge1=44.16, rouge2=21.28, rougeL=40.90", {"rouge1": "44.16", "rouge2": "21.28",
                                                 "rougeL": "40.90"}),
    ("rouge1: 44.16; rougeL_recall=40.9\nrouge2 = 21.28", {"rouge1": "44.16",
                                                          "rougeL_recall": "40.9",
                                                          "rouge2": "21.28"}),
    ("  ", None), (None, None)])
def test_reported_figures_are_read_as_written(space, text, want):
    """The figures keep the decimals they are written with (40.90: two), as --match does."""
    assert space.scoring.parse_figures(text) == want


@pytest.mark.parametrize("text, message", [
    ("rouge1=44.16 and more", "could not read 'and more'"),
    ("rouge1=44.16, rouge1=44.2", "rouge1 given twice"),
    ("rougeX=44.16", "'rougeX' is not a ROUGE type"),
    ("rouge1=forty", "match: got rouge1='forty', not a number"),
    ("rouge12=30", "the Space's limit"),
])
def test_bad_figures_are_refused_naming_the_box(space, corpus, text, message):
    with pytest.raises(gr.Error) as caught:
        space.scoring.explain_lists(*corpus, TYPES, text)
    assert message in caught.value.message, caught.value.message


def _refused(space, monkeypatch, predictions, references) -> str:
    """explain_lists' refusal, made before explain() runs and within a second."""
    def explain(*args, **kwargs):
        raise AssertionError("explain ran on a request over the budget")

    monkeypatch.setattr(space.scoring, "explain", explain)
    start = time.perf_counter()
    with pytest.raises(gr.Error) as caught:
        space.scoring.explain_lists(predictions, references, TYPES, "rouge1=40", "coco",
                                    "pltrdy")
    assert time.perf_counter() - start < 2.0
    return caught.value.message


def test_over_the_budget_is_refused_before_explain_runs(space, monkeypatch):
    """Long texts (14.4 million characters: their tokenizers alone, at 1.5 us a character,
    are over the 10 s) and long LCS tables (4 examples of 19,000 tokens: one compute() is
    within the budget, 20 are not) are refused before explain runs, with the command that
    runs it with no limit."""
    texts = ["x" * 90_000] * 80
    message = _refused(space, monkeypatch, texts, texts)
    assert "the Space's limit" in message and "every convention's tokenizers" in message
    assert ("rouge-exact --explain --input YOUR_FILE.jsonl --rouge-types "
            'rouge1,rouge2,rougeL,rougeLsum --match rouge1=40 --walk "coco,pltrdy"') in message
    long = "\n".join(" ".join(f"w{(190 * k + j) % 997}" for j in range(190))
                     for k in range(100))
    # one scoring of these is within the budget (the Corpus tab scores them) ...
    space.limits.check_budget(space.scoring.build_options(TYPES), [long] * 4, [[long]] * 4,
                              "local")
    # ... every convention's is not
    message = _refused(space, monkeypatch, [long] * 4, [long] * 4)
    assert "an estimated" in message and "s of CPU (every convention's" in message, message


def test_long_examples_show_fewer_tokens(space):
    """Each step shows at most 3 examples with their tokens; fewer where tokenizing them
    again is estimated over WALK_EXAMPLES_SECONDS, and a note says so."""
    limits = space.limits
    short = limits.walk_examples(["a b c"], [["a b"]], limits.CPU_BUDGET_SECONDS)
    assert short == limits.WALK_EXAMPLES
    long = " ".join(["word"] * 3_000)  # 15,000 characters a text
    assert limits.walk_examples([long], [[long]], limits.CPU_BUDGET_SECONDS) == 0
    state = space.scoring.explain_lists([long, "the cat"], [long[::-1], "the cat sat"],
                                        ["rouge1"])
    assert state["examples"] == 0
    assert "each step shows none of the examples" in " ".join(state["notes"])
    assert "too long to show the examples" in space.explain_view.walk_html(
        state["walk"], 0, state["notes"])


def test_page_errors_replace_both_panels(space):
    out = space.handlers.explain_page(None, None, None, _page_options(), "", "rouge_score",
                                      "coco")
    assert 'class="error-panel"' in out[0] and 'id="explain-error"' in out[0]
    assert out[1] == "" and out[4] is None


def test_moves_are_shown_signed_at_their_scale(space):
    view = space.explain_view
    assert [view.moved_points(v) for v in (0, 0.10009, -0.0000123, 3e-9, -3e-9)] == [
        "0", "+10.01", "-0.0012", "+<0.0001", "-<0.0001"]
