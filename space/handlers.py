"""The page's event handlers. Each takes its inputs by name (app.py wires them with
``wiring.bind``: the Options panel arrives as one dict, named as ``options.OPTION_NAMES``, the
reference boxes as one list), checks and scores through ``scoring``, and returns what the page
shows. An error replaces every result it invalidates, so that no stale number stays beside it.
"""

import html

import gradio as gr

from rouge_exact.options import parse_rouge_type
from rouge_exact.profiles import PROFILES
from rouge_exact.significance import DEFAULT_SAMPLES

from .files import read_corpus, read_systems, write_scores_csv
from .limits import CLI, MAX_REFERENCES, check_budget, check_texts, user_error
from .options import build_options, cli_flags, page_options
from .render import (bar_chart_svg, chart_pair, comparison_html, corpus_latex,
                     corpus_markdown, error_html, histogram_svg, scores_table_html,
                     summary_html, table_latex, table_markdown, warnings_html, worst_html)
from .explain_view import conventions_panel_html, walk_html
from .scoring import (compare_lists, explain_lists, highlight_panels, score_corpus_lists,
                      score_example, walk_again)

# --------------------------------------------------------------------------------------------
# The Example tab


def example_inputs(prediction: str, n_refs, boxes: list, options: dict) -> tuple:
    """(prediction, references, the metric's options) from the Example tab: the first n_refs
    reference boxes that hold text, and the Options panel's values."""
    references = [r for r in list(boxes)[:int(n_refs or 1)] if r and r.strip()]
    if not prediction or not prediction.strip():
        raise user_error("Type a prediction (the generated text to score) in the Prediction "
                         "box.", title="No prediction")
    if not references:
        raise user_error("Type at least one reference in the Reference box.",
                         title="No reference")
    return prediction, references, page_options(**options)


def score_single(prediction: str, n_refs, boxes: list, options: dict, kind: str,
                 show_all: bool):
    """The Score button: table (with per-reference scores and warnings), signature, the
    copyable tables, the highlight menu and the highlights (yielded again as more tokens are
    drawn, with Show all tokens). An error replaces them all."""
    try:
        prediction, references, options = example_inputs(prediction, n_refs, boxes, options)
        scored = score_example(prediction, references, options)
        names = list(scored["scores"])
        kind = kind if kind in names else names[0]
        panels = highlight_panels(prediction, references, options, kind, bool(show_all),
                                  sizes=scored["sizes"])
        first = next(panels)
    except gr.Error as error:
        yield (error_html(error, "single-error"), gr.update(value="", visible=False),
               "", "", gr.update(choices=[], value=None, interactive=False),
               '<p class="empty">Fix the problem above, then press <b>Score</b>.</p>')
        return
    # every update carries all outputs, so that the last one is the whole result (the API's)
    outputs = (scores_table_html(scored), gr.update(value=scored["signature"], visible=True),
               table_markdown(scored["scores"]), table_latex(scored["scores"]),
               gr.update(choices=names, value=kind, interactive=True))
    yield (*outputs, first)
    for panel in panels:
        yield (*outputs, panel)


def rehighlight(prediction: str, n_refs, boxes: list, options: dict, kind: str,
                show_all: bool):
    """The Show matches of menu / Show all tokens: redraw the marks only (progressively)."""
    try:
        prediction, references, options = example_inputs(prediction, n_refs, boxes, options)
        (prediction,), (references,) = check_texts([prediction], [references])
        # with several references the highlights score each reference alone again
        opts = build_options(**options)
        sizes, _ = check_budget(opts, [prediction], [references],
                                f"{CLI} --input example.jsonl {cli_flags(opts)}",
                                repeats=1 + (len(references) > 1))
        yield from highlight_panels(prediction, references, options, kind, bool(show_all),
                                    sizes=sizes)
    except gr.Error as error:
        yield error_html(error, "highlight-error")


def _reference_boxes(n: int) -> tuple:
    """The reference count, each box shown or hidden, and the +/− buttons enabled or not."""
    return (n, *[gr.update(visible=k < n) for k in range(MAX_REFERENCES)],
            gr.update(interactive=n < MAX_REFERENCES), gr.update(interactive=n > 1))


def add_reference(n_refs):
    return _reference_boxes(min(int(n_refs or 1) + 1, MAX_REFERENCES))


def remove_reference(n_refs):
    n = max(int(n_refs or 1) - 1, 1)
    boxes = [gr.update(value="", visible=False) if k >= n else gr.update(visible=True)
             for k in range(MAX_REFERENCES)]
    return (n, *boxes, gr.update(interactive=n < MAX_REFERENCES), gr.update(interactive=n > 1))


def example_chosen(prediction, *references):
    """An example fills the boxes: as many reference boxes as it has references (gr.Examples
    passes the prediction, then each of its reference boxes)."""
    return _reference_boxes(max([1] + [k + 1 for k, t in enumerate(references) if t]))


def profile_changed(profile, multi_ref, alpha, rouge_types):
    """A profile takes its own multi_ref default where the mode shown is not one of its own
    (ROUGE-1.5.5 has no 'max'), and its own F weight where the slider shows a profile's
    default (coco: beta = 1.2), not a weight the user chose. The types it does not score
    (pltrdy's and rouge-chinese's: ROUGE-N and L only) are unticked."""
    chosen = PROFILES[profile]
    mode = gr.update()
    if multi_ref not in chosen.multi_ref_allowed:
        mode = gr.update(value=chosen.multi_ref_default)
    weight = gr.update()
    if any(alpha == p.alpha for p in PROFILES.values()) and alpha != chosen.alpha:
        weight = gr.update(value=chosen.alpha)
    scored = [name for name in rouge_types
              if parse_rouge_type(name).spec.scored_by(chosen)]
    return mode, weight, gr.update(value=scored) if scored != list(rouge_types) else gr.update()


# --------------------------------------------------------------------------------------------
# The Corpus and Compare tabs


def _no_progress(*args, **kwargs) -> None:
    """Progress reports go nowhere (a handler called outside a Gradio event)."""


def score_corpus(corpus_file, pred_file, ref_files, options: dict, aggregation: str,
                 n_samples, confidence, seed, progress=_no_progress):
    """The Score corpus button. An error replaces every result it invalidates."""
    try:
        options = page_options(**options)
        progress(0, desc="Reading the corpus")
        # refused before its rows are read when reading them is over the budget; then the
        # reading and the per-example CSV count in the request's budget
        preds, refs, source, extra, seconds, note = read_corpus(corpus_file, pred_file,
                                                                ref_files)
        result, scores, notes = score_corpus_lists(preds, refs, options, aggregation,
                                                   n_samples, confidence, seed, progress,
                                                   upload_seconds=seconds, upload_note=note)
    except gr.Error as error:
        return (error_html(error, "corpus-error"), "", gr.update(visible=False, choices=[],
                                                                 value=None),
                "", "", gr.update(value=None, visible=False),
                gr.update(value="", visible=False), "", "", None)
    types = list(scores)
    state = {"predictions": preds, "references": refs, "scores": scores, "extra": extra}
    progress(1.0, desc="Writing the per-example CSV")
    header = (f'<p class="corpus-header" id="corpus-header"><b>{len(preds):,} examples</b> '
              f"from {html.escape(source)} · {aggregation} aggregation · "
              f"{int(n_samples):,} bootstrap samples</p>")
    summary = summary_html(result, float(confidence), aggregation, build_options(**options))
    return (header + warnings_html(notes) + summary,
            chart_pair(bar_chart_svg, result, float(confidence)),
            gr.update(choices=types, value=types[0], visible=True),
            chart_pair(histogram_svg, scores[types[0]][:, 2], types[0]),
            worst_html(state, types[0]),
            gr.update(value=write_scores_csv(state), visible=True),
            gr.update(value=result["signature"], visible=True),
            corpus_markdown(result), corpus_latex(result), state)


def corpus_view_changed(state, name):
    """The type shown under the corpus results: its histogram and worst examples."""
    if not state or name not in state.get("scores", {}):
        return gr.update(), gr.update()
    return (chart_pair(histogram_svg, state["scores"][name][:, 2], name),
            worst_html(state, name))


def test_changed(test: str):
    """A test picked in the Compare tab: its own default count of trials or resamples."""
    if test in DEFAULT_SAMPLES:
        return gr.update(value=DEFAULT_SAMPLES[test])
    return gr.update()


def compare_page(systems_file, system_files, ref_files, options: dict, baseline: str,
                 test: str, n_samples, confidence, seed):
    """The Compare button: the tests' tables and charts, and the signature."""
    try:
        options = page_options(**options)
        predictions, references, seconds, note = read_systems(systems_file, system_files,
                                                              ref_files)
        base = baseline.strip() if baseline and baseline.strip() else next(iter(predictions))
        result, notes = compare_lists(predictions, references, options, base, test,
                                      int(n_samples), int(seed), float(confidence),
                                      upload_seconds=seconds, upload_note=note)
    except gr.Error as error:
        return error_html(error, "compare-error"), gr.update(value="", visible=False)
    return (warnings_html(notes) + comparison_html(result, base, float(confidence), test),
            gr.update(value=result["signature"], visible=True))


# --------------------------------------------------------------------------------------------
# The Which ROUGE? tab


def _explain_outputs(state: dict) -> tuple:
    """The tab's two panels from explain_lists' (or walk_again's) result."""
    results = conventions_panel_html(state["explained"], state["walk"], state["source"],
                                     warnings_html(state["warnings"]))
    return results, walk_html(state["walk"], state["examples"], state["notes"])


def explain_page(corpus_file, pred_file, ref_files, options: dict, figures: str, walk_from: str,
                 walk_to: str, progress=_no_progress):
    """The Explain button: the table of conventions, the walk between the two chosen, the
    menus' choices (the conventions' names) and the stored result (for the menus' walks).
    An error replaces both panels."""
    try:
        types = page_options(**options)["rouge_types"]
        progress(0, desc="Reading the corpus")
        preds, refs, source, _, seconds, note = read_corpus(corpus_file, pred_file, ref_files)
        progress(0.1, desc="Scoring every convention")
        state = explain_lists(preds, refs, types, figures, walk_from, walk_to,
                              upload_seconds=seconds, upload_note=note)
    except gr.Error as error:
        return (error_html(error, "explain-error"), "", gr.update(), gr.update(), None)
    state["source"] = source
    names = [row.name for row in state["explained"].rows]
    walk = state["walk"]
    return (*_explain_outputs(state), gr.update(choices=names, value=walk.start),
            gr.update(choices=names, value=walk.end), state)


def explain_walk_changed(state, walk_from: str, walk_to: str):
    """A convention picked in the From or To menu: the walk between them on the stored
    result (nothing before the first run: the button uses the menus)."""
    if not state:
        return gr.update(), gr.update(), state
    try:
        state = walk_again(state, walk_from, walk_to)
    except gr.Error as error:
        return gr.update(), error_html(error, "walk-error"), state
    return (*_explain_outputs(state), state)
