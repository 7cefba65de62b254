"""ROUGE playground: the Gradio app of the `rouge_metric` Space. This file is the page's layout
only (components and their wiring); the rest is in the ``space`` package beside it.

Run it with ``python app.py`` (port: $GRADIO_SERVER_PORT, default 7860; host:
$GRADIO_SERVER_NAME, default 127.0.0.1). Every number comes from the ``rouge_exact`` package
(the folder beside this file in a clone, or the installed package), through the same scorer as
every other way in; files are read by ``rouge_exact.io`` (the command's reader).

Tabs: *Example* (P/R/F per type, each reference's scores, the matched tokens), *Corpus* (a
file scored with its bootstrap interval, chart, histogram, worst examples, CSV download),
*Compare* (paired significance tests against a baseline), *Which ROUGE?* (every convention on
the same texts, reported figures matched, the walk between two: ``space.explain_tab``) and
*Usage*. API endpoints for ``gradio_client``: ``/rouge``, ``/rouge_corpus``,
``/rouge_compare``, ``/rouge_explain``. Limits (``space.limits``) hold on every path, page and
API alike, and are checked before any scoring; a request over one is refused with a message
naming the limit and the CLI command that runs the job locally.
"""

import os

# the space package first: it turns gradio's usage reports off before gradio is imported
from space import handlers
from space.api import rouge, rouge_compare, rouge_corpus, rouge_explain
from space.explain_tab import explain_tab, wire_explain
from space.limits import (MAX_COMPARE_SAMPLES, MAX_NGRAM, MAX_REFERENCES, MAX_SAMPLES, MAX_SKIP,
                          MAX_UPLOAD_BYTES)
from space.options import OPTION_NAMES, control
from space.page import (COLLAPSE_ON_PHONES_JS, COMPARE_INPUTS, CORPUS_INPUTS, EMPTY_COMPARE,
                        EMPTY_CORPUS, EMPTY_HIGHLIGHTS, EMPTY_SINGLE, EXAMPLE_LABELS, EXAMPLES,
                        EXPLAIN_INPUTS, FRESH_JS, HEAD, INTRO, RESULTS, SHOW_JS, STALE_NOTE,
                        TEST_INFO, usage_markdown)
from space.startup import warm_up, warming_status
from space.wiring import bind, mark_stale

import gradio as gr
from rouge_exact.significance import DEFAULT_SAMPLES, DEFAULT_TEST, TESTS


def build_demo() -> gr.Blocks:
    with gr.Blocks(title="ROUGE playground · rouge_metric", delete_cache=(600, 3600)) as demo:
        gr.Markdown(INTRO, elem_id="intro")
        # while the kernels compile (a fresh Space), what to expect; polled until they are in
        warming = gr.HTML("", elem_id="warming")
        timer = gr.Timer(2.0, active=True)
        demo.load(warming_status, None, [warming, timer], queue=False,
                  api_visibility="private")
        timer.tick(warming_status, None, [warming, timer], queue=False,
                   api_visibility="private")
        # the options after the work in the page's order (Tab's order): on the right on a
        # desktop, below on a phone
        with gr.Row(equal_height=False, elem_id="main-row"):
            with gr.Column(scale=3, min_width=300, elem_id="work-col"):
                # the Language beside the inputs (on a phone the Options are far below)
                lang = gr.Dropdown(**control("lang"), label="Language", elem_id="lang")
                with gr.Tabs():
                    with gr.Tab("Example", id="single"):
                        single = _single_tab()
                    with gr.Tab("Corpus", id="corpus"):
                        corpus = _corpus_tab()
                    with gr.Tab("Compare", id="compare"):
                        compare = _compare_tab()
                    with gr.Tab("Which ROUGE?", id="explain"):
                        explain = explain_tab(*_file_inputs(*EXPLAIN_INPUTS))
                    with gr.Tab("Usage", id="usage"):
                        gr.Markdown(usage_markdown(), elem_id="usage")
            with gr.Column(scale=1, min_width=280, elem_id="options-col"):
                options = _options_panel()
                options["lang"] = lang
        _wire(demo, single, corpus, compare, options)
        wire_explain(explain, options)
        gr.api(rouge, api_name="rouge", concurrency_id="single")
        for heavy in (rouge_corpus, rouge_compare, rouge_explain):
            gr.api(heavy, api_name=heavy.__name__, concurrency_id="heavy")
    return demo


def _options_panel() -> dict:
    """The Options panel's controls, by the name the handlers get their values (OPTION_NAMES)."""
    ui: dict = {}
    with gr.Accordion("Options", open=True, elem_id="options-accordion"):
        # each metric option's choices, default, bounds and help: control(), from the schema
        ui["rouge_types"] = gr.CheckboxGroup(**control("rouge_types"), label="ROUGE types",
                                             elem_id="rouge-types")
        ui["extra_types"] = gr.Textbox(
            label="More types", placeholder="e.g. rougeW-1.5, rouge5, rougeSU9", lines=1,
            elem_id="extra-types", info=f"rouge1…rouge{MAX_NGRAM}, rougeW-<w>, rougeS<d> / "
                                        f"rougeSU<d> (d ≤ {MAX_SKIP})")
        ui["use_stemmer"] = gr.Checkbox(**control("use_stemmer"), label="Stemmer",
                                        elem_id="use-stemmer")
        ui["remove_stopwords"] = gr.Checkbox(**control("remove_stopwords"),
                                             label="Remove stopwords (SMART list)",
                                             elem_id="remove-stopwords")
        ui["profile"] = gr.Radio(**control("profile"), label="Profile", elem_id="profile")
        ui["multi_ref"] = gr.Radio(**control("multi_ref"), label="Several references",
                                   elem_id="multi-ref")
        ui["alpha"] = gr.Slider(**control("alpha", step=0.05), label="α (F weight)",
                                elem_id="alpha")
        ui["tokenizer"] = gr.Radio(**control("tokenizer"), label="Tokenizer",
                                   elem_id="tokenizer")
        ui["split_sentences"] = gr.Checkbox(**control("split_sentences"),
                                            label="Split sentences (rule-based) for Lsum / W",
                                            elem_id="split-sentences")
    # the names page_options takes their values by (the Language: above the tabs)
    assert set(ui) | {"lang"} == set(OPTION_NAMES)
    return ui


def _single_tab() -> dict:
    initial = sum(1 for r in EXAMPLES[1][1:] if r)
    ui: dict = {"n_refs": gr.Number(value=initial, visible=False, precision=0)}
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=280):
            ui["prediction"] = gr.Textbox(label="Prediction", lines=3, max_lines=12,
                                          value=EXAMPLES[1][0], elem_id="prediction",
                                          placeholder="The generated text to score")
            ui["refs"] = [gr.Textbox(label=f"Reference {k + 1}", lines=3, max_lines=12,
                                     value=EXAMPLES[1][1 + k] if k < 3 else "",
                                     visible=k < initial, elem_id=f"reference-{k + 1}",
                                     placeholder="A human-written reference")
                          for k in range(MAX_REFERENCES)]
            with gr.Row():
                ui["add"] = gr.Button("+ Reference", size="sm", variant="secondary",
                                      elem_id="add-ref")
                ui["remove"] = gr.Button("− Reference", size="sm", variant="secondary",
                                         elem_id="remove-ref", interactive=initial > 1)
            ui["score"] = gr.Button("Score", variant="primary", elem_id="score-button")
        with gr.Column(scale=1, min_width=280):
            gr.HTML(STALE_NOTE % ("single", "Score"), elem_id="single-stale")
            ui["table"] = gr.HTML(EMPTY_SINGLE, elem_id="scores-table")
            ui["signature"] = gr.Textbox(label="Signature", interactive=False, lines=2,
                                         buttons=["copy"], elem_id="signature", visible=False)
            with gr.Accordion("Copy the table (Markdown, LaTeX)", open=False,
                              elem_id="single-copy"):
                ui["markdown"] = gr.Textbox(label="Markdown", lines=4, buttons=["copy"],
                                            interactive=False, elem_id="single-markdown")
                ui["latex"] = gr.Textbox(label="LaTeX (booktabs)", lines=4, buttons=["copy"],
                                         interactive=False, elem_id="single-latex")
    ui["examples"] = gr.Examples(
        EXAMPLES, inputs=[ui["prediction"], *ui["refs"][:3]],
        outputs=[ui["n_refs"], *ui["refs"], ui["add"], ui["remove"]],
        fn=handlers.example_chosen, run_on_click=True, cache_examples=False,
        api_visibility="private", label="Examples (click one, then Score)",
        example_labels=EXAMPLE_LABELS)
    gr.Markdown("### Matched tokens")
    with gr.Row(equal_height=True, elem_id="highlight-controls"):
        ui["kind"] = gr.Dropdown([], value=None, label="Show matches of", interactive=False,
                                 elem_id="highlight-kind", scale=3, min_width=160)
        ui["show_all"] = gr.Checkbox(label="Show all tokens", value=False, scale=1,
                                     min_width=180, elem_id="show-all")
    ui["highlights"] = gr.HTML(EMPTY_HIGHLIGHTS, elem_id="highlights")
    return ui


def _file_inputs(intro: str, main: tuple, texts: tuple, ref_id: str) -> tuple:
    """A tab's inputs: its intro, one structured file (main: label, types, element id), or text
    files of one example a line (texts: label, file_count, element id), and reference files."""
    gr.Markdown(intro)
    structured = gr.File(label=main[0], file_types=main[1], elem_id=main[2], height=150)
    with gr.Row(equal_height=False):
        predictions = gr.File(label=texts[0], file_types=[".txt"], file_count=texts[1],
                              elem_id=texts[2], height=150, min_width=240)
        references = gr.File(label="with: reference file(s) (.txt)", file_types=[".txt"],
                             file_count="multiple", elem_id=ref_id, height=150, min_width=240)
    return structured, predictions, references


def _corpus_tab() -> dict:
    ui: dict = {}
    ui["file"], ui["pred_file"], ui["ref_files"] = _file_inputs(*CORPUS_INPUTS)
    with gr.Accordion("Aggregation and bootstrap", open=False):
        ui["aggregation"] = gr.Radio(**control("aggregation"), label="Aggregation",
                                     elem_id="aggregation")
        ui["n_samples"] = gr.Slider(**control("n_samples", step=1, cap=MAX_SAMPLES),
                                    label="Bootstrap samples", elem_id="n-samples")
        ui["confidence"] = gr.Slider(**control("confidence", step=0.01), label="Confidence",
                                     elem_id="confidence")
        ui["seed"] = gr.Number(**control("seed"), precision=0, label="Seed", elem_id="seed")
    ui["button"] = gr.Button("Score corpus", variant="primary", elem_id="corpus-button")
    gr.HTML(STALE_NOTE % ("corpus", "Score corpus"), elem_id="corpus-stale")
    ui["results"] = gr.HTML(EMPTY_CORPUS, elem_id="corpus-results")
    ui["chart"] = gr.HTML("", elem_id="corpus-bars")
    ui["hist_kind"] = gr.Dropdown([], value=None, label="ROUGE type shown below",
                                  elem_id="hist-kind", visible=False)
    ui["histogram"] = gr.HTML("", elem_id="corpus-hist")
    ui["worst"] = gr.HTML("", elem_id="corpus-worst")
    ui["download"] = gr.File(label="Per-example scores (CSV)", visible=False,
                             elem_id="corpus-download", interactive=False)
    ui["signature"] = gr.Textbox(label="Signature", interactive=False, buttons=["copy"],
                                 elem_id="corpus-signature", visible=False)
    with gr.Accordion("Copy the table (Markdown, LaTeX)", open=False, elem_id="corpus-copy"):
        ui["markdown"] = gr.Textbox(label="Markdown", lines=4, buttons=["copy"],
                                    interactive=False, elem_id="corpus-markdown")
        ui["latex"] = gr.Textbox(label="LaTeX (booktabs; ± half the interval)", lines=4,
                                 buttons=["copy"], interactive=False, elem_id="corpus-latex")
    ui["state"] = gr.State(None)
    return ui


def _compare_tab() -> dict:
    ui: dict = {}
    ui["file"], ui["system_files"], ui["ref_files"] = _file_inputs(*COMPARE_INPUTS)
    with gr.Accordion("Test", open=False):
        ui["baseline"] = gr.Textbox(label="Baseline system", placeholder="the first system",
                                    elem_id="baseline")
        ui["test"] = gr.Radio(list(TESTS), value=DEFAULT_TEST, label="Test",
                              info=TEST_INFO, elem_id="compare-test")
        # the test's own default count, set again when the test changes (test_changed)
        samples = control("n_samples", step=1, cap=MAX_COMPARE_SAMPLES)
        samples["value"] = DEFAULT_SAMPLES[DEFAULT_TEST]
        ui["n_samples"] = gr.Slider(**dict(samples, info="trials (randomization) or "
                                           "resamples (bootstrap)"),
                                    label="Trials / resamples", elem_id="compare-n-samples")
        ui["confidence"] = gr.Slider(**control("confidence", step=0.01), label="Confidence",
                                     elem_id="compare-confidence")
        ui["seed"] = gr.Number(**control("seed"), precision=0, label="Seed",
                               elem_id="compare-seed")
    ui["button"] = gr.Button("Compare", variant="primary", elem_id="compare-button")
    gr.HTML(STALE_NOTE % ("compare", "Compare"), elem_id="compare-stale")
    ui["results"] = gr.HTML(EMPTY_COMPARE, elem_id="compare-results")
    ui["signature"] = gr.Textbox(label="Signature", interactive=False, buttons=["copy"],
                                 elem_id="compare-signature", visible=False)
    return ui


def _wire(demo, single: dict, corpus: dict, compare: dict, options: dict) -> None:
    refs = single["refs"]
    example = dict(prediction=single["prediction"], n_refs=single["n_refs"], boxes=refs,
                   options=options, kind=single["kind"], show_all=single["show_all"])
    single_outputs = [single["table"], single["signature"], single["markdown"],
                      single["latex"], single["kind"], single["highlights"]]
    single["score"].click(*bind(handlers.score_single, **example), single_outputs,
                          api_name="score", api_visibility="private", concurrency_id="single",
                          js=FRESH_JS % dict(tab="single", target=RESULTS["single"]),
                          show_progress_on=[single["table"]]).then(
        None, None, None, js=SHOW_JS % RESULTS["single"])
    demo.load(*bind(handlers.score_single, **example), single_outputs,
              api_visibility="private", concurrency_id="single",
              show_progress_on=[single["table"]])
    demo.load(None, None, None, js=COLLAPSE_ON_PHONES_JS)
    for widget in (single["kind"], single["show_all"]):
        widget.input(*bind(handlers.rehighlight, **example), [single["highlights"]],
                     api_visibility="private", concurrency_id="single")
    boxes = [single["n_refs"], *refs, single["add"], single["remove"]]
    single["add"].click(handlers.add_reference, [single["n_refs"]], boxes,
                        api_visibility="private", queue=False)
    single["remove"].click(handlers.remove_reference, [single["n_refs"]], boxes,
                           api_visibility="private", queue=False)
    profile_bound = [options[name] for name in ("multi_ref", "alpha", "rouge_types")]
    options["profile"].change(handlers.profile_changed, [options["profile"], *profile_bound],
                              profile_bound, api_visibility="private", queue=False)
    # what the user changes marks the results it invalidates as stale (input/upload events:
    # a value set by the app itself does not)
    mark_stale([single["prediction"], *refs, single["add"], single["remove"],
                single["examples"].dataset], "single")
    mark_stale(list(options.values()), "single", "corpus", "compare")
    corpus_inputs = dict(corpus_file=corpus["file"], pred_file=corpus["pred_file"],
                         ref_files=corpus["ref_files"], options=options,
                         aggregation=corpus["aggregation"], n_samples=corpus["n_samples"],
                         confidence=corpus["confidence"], seed=corpus["seed"])
    mark_stale([c for name, c in corpus_inputs.items() if name != "options"], "corpus")
    corpus["button"].click(
        *bind(handlers.score_corpus, **corpus_inputs),
        [corpus["results"], corpus["chart"], corpus["hist_kind"], corpus["histogram"],
         corpus["worst"], corpus["download"], corpus["signature"], corpus["markdown"],
         corpus["latex"], corpus["state"]],
        api_visibility="private", concurrency_id="heavy", concurrency_limit=1,
        js=FRESH_JS % dict(tab="corpus", target=RESULTS["corpus"]),
        show_progress_on=[corpus["results"]]).then(None, None, None,
                                                   js=SHOW_JS % RESULTS["corpus"])
    corpus["hist_kind"].input(handlers.corpus_view_changed,
                              [corpus["state"], corpus["hist_kind"]],
                              [corpus["histogram"], corpus["worst"]], api_visibility="private",
                              queue=False)
    compare_inputs = dict(systems_file=compare["file"], system_files=compare["system_files"],
                          ref_files=compare["ref_files"], options=options,
                          baseline=compare["baseline"], test=compare["test"],
                          n_samples=compare["n_samples"], confidence=compare["confidence"],
                          seed=compare["seed"])
    mark_stale([c for name, c in compare_inputs.items() if name != "options"], "compare")
    compare["test"].input(handlers.test_changed, [compare["test"]], [compare["n_samples"]],
                          api_visibility="private", queue=False)
    compare["button"].click(*bind(handlers.compare_page, **compare_inputs),
                            [compare["results"], compare["signature"]],
                            api_visibility="private", concurrency_id="heavy", concurrency_limit=1,
                            js=FRESH_JS % dict(tab="compare", target=RESULTS["compare"]),
                            show_progress_on=[compare["results"]]).then(
        None, None, None, js=SHOW_JS % RESULTS["compare"])


demo = build_demo()

if __name__ == "__main__":
    warm_up()
    demo.queue(default_concurrency_limit=2)
    demo.launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
                server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
                max_file_size=MAX_UPLOAD_BYTES, head=HEAD,
                theme=gr.themes.Soft(primary_hue="indigo", secondary_hue="teal",
                                     neutral_hue="slate"),
                footer_links=["api", "gradio", "settings"])
