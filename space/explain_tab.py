"""The Which ROUGE? tab's components below its file inputs (app.py lays those out, as the
Corpus tab's) and its wiring: the reported figures, the walk's two conventions, the Explain
button and the two result panels. Kept here because app.py is the page at 300 lines at most."""

import gradio as gr
from rouge_exact.profiles import PROFILES

from . import handlers
from .page import EMPTY_EXPLAIN, FIGURES_INFO, FRESH_JS, RESULTS, SHOW_JS, STALE_NOTE
from .scoring import WALK_FROM, WALK_TO
from .wiring import bind, mark_stale

# before a first run the menus offer each profile at its defaults (a row whenever the profile
# scores one of the types) and the walk's end; then the conventions' own names
FIRST_CHOICES = list(dict.fromkeys([WALK_FROM, WALK_TO, *PROFILES]))


def explain_tab(structured, predictions, references) -> dict:
    """The components after the tab's file inputs (app.py's _file_inputs)."""
    ui: dict = {"file": structured, "pred_file": predictions, "ref_files": references}
    ui["figures"] = gr.Textbox(label="Reported figures to match (optional)", lines=1,
                               placeholder="rouge1=44.16, rouge2=21.28, rougeL=40.90",
                               info=FIGURES_INFO, elem_id="explain-figures")
    with gr.Row(equal_height=True, elem_id="walk-ends"):
        ui["walk_from"] = gr.Dropdown(FIRST_CHOICES, value=WALK_FROM, label="Walk from",
                                      elem_id="walk-from", min_width=200)
        ui["walk_to"] = gr.Dropdown(FIRST_CHOICES, value=WALK_TO, label="to",
                                    elem_id="walk-to", min_width=200)
    ui["button"] = gr.Button("Explain", variant="primary", elem_id="explain-button")
    gr.HTML(STALE_NOTE % ("explain", "Explain"), elem_id="explain-stale")
    ui["results"] = gr.HTML(EMPTY_EXPLAIN, elem_id="explain-results")
    ui["walk"] = gr.HTML("", elem_id="explain-walk")
    ui["state"] = gr.State(None)
    return ui


def wire_explain(ui: dict, options: dict) -> None:
    """The button runs explain and the walk (the heavy slot, as the Corpus tab); a menu's
    choice walks again on the stored result; a new input, the figures or the panel's types
    mark the results stale (the other options do not apply here)."""
    inputs = dict(corpus_file=ui["file"], pred_file=ui["pred_file"],
                  ref_files=ui["ref_files"], options=options, figures=ui["figures"],
                  walk_from=ui["walk_from"], walk_to=ui["walk_to"])
    panels = [ui["results"], ui["walk"]]
    ui["button"].click(*bind(handlers.explain_page, **inputs),
                       [*panels, ui["walk_from"], ui["walk_to"], ui["state"]],
                       api_visibility="private", concurrency_id="heavy", concurrency_limit=1,
                       js=FRESH_JS % dict(tab="explain", target=RESULTS["explain"]),
                       show_progress_on=[ui["results"]]).then(
        None, None, None, js=SHOW_JS % RESULTS["explain"])
    for menu in (ui["walk_from"], ui["walk_to"]):
        menu.select(*bind(handlers.explain_walk_changed, state=ui["state"],
                          walk_from=ui["walk_from"], walk_to=ui["walk_to"]),
                    [*panels, ui["state"]], api_visibility="private", concurrency_id="heavy",
                    show_progress_on=[ui["walk"]])
    mark_stale([ui["file"], ui["pred_file"], ui["ref_files"], ui["figures"],
                options["rouge_types"], options["extra_types"]], "explain")
