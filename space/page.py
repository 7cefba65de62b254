"""The page's fixed content: the intro, the Usage tab, the examples, what the result panels
show before a first run, the scripts run in the browser, and the <head> (styles and the script
that gives inputs the text's direction, from assets/)."""

import json
import os
from pathlib import Path

from rouge_exact.significance import DEFAULT_SAMPLES, DEFAULT_TEST, TESTS
from rouge_exact.version import __version__

from .limits import CLI, LIMITS, MAX_UPLOAD_BYTES

ASSETS = Path(__file__).resolve().parent / "assets"

# what the browser's checks need: the upload limit (feedback.js refuses a larger file before
# Gradio uploads it) and the CLI command a refusal offers
_CONFIG = {"uploadLimit": MAX_UPLOAD_BYTES, "cli": CLI,
           "uploadLimitText": f"{MAX_UPLOAD_BYTES // 2 ** 20} MB"}
HEAD = ("\n<style>\n" + (ASSETS / "space.css").read_text(encoding="utf-8") + "</style>\n"
        f"<script>window.ROUGE_SPACE = {json.dumps(_CONFIG)};</script>\n"
        "<script>\n" + (ASSETS / "direction.js").read_text(encoding="utf-8") + "</script>\n"
        "<script>\n" + (ASSETS / "feedback.js").read_text(encoding="utf-8") + "</script>\n")
UPLOAD_LIMIT = _CONFIG["uploadLimitText"]

EXAMPLES = [
    ["the cat sat on the mat", "the cat lay on the mat", "", ""],
    ["Police arrested two men after a break-in at the city museum.\n"
     "Nothing valuable was taken, officials said.",
     "Two men were arrested following a burglary at the city museum.\n"
     "Officials said no valuables were stolen.",
     "Police detained two suspects after the museum break-in.\nNothing of value was taken.",
     ""],
    ["The researchers are running new experiments on stemming.",
     "New experiments on stemming were run by the researcher.", "", ""],
    ["عاد الأطفال إلى المدرسة بعد العطلة الطويلة",
     "رجع الأطفال إلى المدرسة بعد عطلة طويلة", "", ""],
]
EXAMPLE_LABELS = ["the cat sat on the mat", "News summary, two references", "Stemming matters",
                  "Arabic, right to left (set Language to ar)"]

INTRO = f"""
# ROUGE playground
**ROUGE** scores a generated text (the *prediction*) by its overlap with human-written
*references*. This page runs `rouge_metric` v{__version__} for 🤗 `evaluate`: the default
profile gives `rouge_score`'s numbers (what `evaluate.load("rouge")` runs), `rouge155` those of
the ROUGE-1.5.5 script.
"""


def usage_markdown() -> str:
    """The Usage tab: how to load the metric (this Space's id on the Hub), the CLI, the API,
    the corpus formats and the limits."""
    space = os.environ.get("SPACE_ID")
    if space:
        load = f'rouge = evaluate.load("{space}")  # this Space'
        where = (f"`pip install rouge-exact` first: `evaluate.load(\"{space}\")` downloads "
                 "this Space's script, which imports the package (as evaluate's own rouge "
                 "imports rouge_score); "
                 "the package also installs the `rouge-exact` command.")
    else:
        load = ('import rouge_exact  # pip install rouge-exact\n'
                'rouge = evaluate.load(rouge_exact.EVALUATE_SCRIPT)')
        where = ("`pip install rouge-exact` installs the package and the metric's script "
                 "(`rouge_exact.EVALUATE_SCRIPT`; a clone's `rouge_metric.py` is the same "
                 "file). On the Hub, `evaluate.load` takes the Space's id instead of the path: the owner and "
                 "name from its address (this page shows the exact line when it runs there).")
    limits = "\n".join(f"| {k} | {v:,} |" for k, v in LIMITS.items())
    return f"""
```python
import evaluate
{load}
rouge.compute(predictions=["the cat sat on the mat"],
              references=[["the cat lay on the mat"]],
              rouge_types=["rouge1", "rougeL"], detailed=True)
```
{where}

**From the command line** (no limits): `rouge-exact predictions.txt references.txt`,
`rouge-exact --input pairs.jsonl`, `rouge-exact --compare a.txt b.txt
--references refs.txt`, `rouge-exact --explain --input pairs.jsonl --match
rouge1=44.16,rougeL=40.90` (the Which ROUGE? tab).

**This Space's API** (`gradio_client`): `/rouge` (one example), `/rouge_corpus` (lists of
predictions and references), `/rouge_compare` (a dict of systems), `/rouge_explain` (lists of
predictions and references, `match=` reported figures, `a=` and `b=` the walk's two
conventions); the options are keyword arguments named as the metric's (`use_stemmer=True`,
`lang="zh"`, …).

**Comparing systems** (`compare()`, `--compare`, the Compare tab, `/rouge_compare`): the
test is one of {", ".join(f"`{t}`" for t in TESTS)} (default `{DEFAULT_TEST}`).
Approximate randomization and the centred paired bootstrap reject true nulls at the rate they
claim; `sacrebleu-bootstrap` is sacrebleu's (and Moses') rule, kept exact to reproduce
published numbers, and calls about twice as many true nulls significant as it claims;
`sacrebleu-randomization` is sacrebleu's randomization rule (ties not counted), kept only to
reproduce sacrebleu. For
each system, type and measure the result gives the difference from the baseline with a
**per-comparison** interval (this system alone) and a **family-wise** one (Bonferroni over
the systems compared), a **raw** and a **Holm-adjusted** p-value, and a **verdict**: better,
worse or no significant difference (Holm's p below 1 − confidence, then the sign of the
difference), or too few documents (the test cannot reach p < 1 − confidence on so few
differing documents). The metric's docs/significance.md gives the calibration tables.

**Corpus files**: JSON Lines (`{{"prediction": "...", "references": "..." or ["...", ...]}}`
per line), a JSON list of such objects, CSV/TSV with a `prediction` column and `reference`,
`reference_1`, `reference_2`, … or `references` (a JSON list per cell), or a predictions text
file with reference text files, one example per line. A newline inside a text separates the
sentences of ROUGE-Lsum and ROUGE-W. The per-example CSV keeps each row's other fields or
columns (`doc`, `id`, `system`, …) beside its scores, so that they join back.

**Systems files** (Compare): one JSON object per line, `{{"references": ..., "<system>":
"...", ...}}`; the keys `doc` and `id` are ids (a number or a string), not systems; every
other key is a system.

**Limits** (the page and the API alike; a request over one is refused with the CLI command
that runs it on your machine):

| Limit | Value |
|---|---:|
{limits}
"""

# the Run buttons clear their tab's stale mark and an upload's refusal in the browser, and
# bring the results panel (where the progress shows) into view, passing the inputs on as they
# are; SHOW_JS brings the result or the error into view when it has come
FRESH_JS = ("(...args) => { document.body.classList.remove('%(tab)s-stale'); "
            "document.querySelectorAll('.upload-error').forEach(e => e.remove()); "
            "window.rougeShow('%(target)s'); return args; }")
SHOW_JS = "() => { window.rougeShow('%s'); }"
RESULTS = {"single": "#scores-table", "corpus": "#corpus-results",
           "compare": "#compare-results", "explain": "#explain-results"}
# on phones the Options come after the work, collapsed (on load)
COLLAPSE_ON_PHONES_JS = """() => {
  if (window.innerWidth < 768) {
    const button = document.querySelector('#options-accordion > button');
    const content = document.querySelector('#options-accordion [data-testid=accordion-content]');
    if (button && content && content.style.display !== 'none') button.click();
  }
}"""

EMPTY_SINGLE = ('<p class="empty">Type a prediction and a reference (or pick an example), '
                'then press <b>Score</b>.</p>')
EMPTY_HIGHLIGHTS = '<p class="empty">The matched tokens appear here after scoring.</p>'
EMPTY_CORPUS = ('<p class="empty">Upload a corpus file, or a predictions file with its '
                'reference files, then press <b>Score corpus</b>.</p>')
EMPTY_COMPARE = ('<p class="empty">Upload one JSONL file with a key per system, or two or more '
                 'system files with the reference files, then press <b>Compare</b>.</p>')
EMPTY_EXPLAIN = ('<p class="empty">Upload a corpus file, or a predictions file with its '
                 'reference files, then press <b>Explain</b>.</p>')
STALE_NOTE = ('<p class="stale-note" id="%s-stale-note">The inputs or options changed: '
              'press <b>%s</b> to update these results.</p>')

# the file inputs of the Corpus and Compare tabs (app.py's _file_inputs): intro, the structured
# file, the text files, the id of the reference files box
CORPUS_INPUTS = (
    "Score a whole test set. Give **one corpus file** (JSON Lines, JSON, CSV or TSV; see "
    "*Usage*), **or** a predictions text file with one or more reference text files (one "
    "example per line).",
    (f"Corpus file (.jsonl .json .csv .tsv; up to {UPLOAD_LIMIT})",
     [".jsonl", ".ndjson", ".json", ".csv", ".tsv"], "corpus-file"),
    (f"or: predictions (.txt; up to {UPLOAD_LIMIT})", "single", "pred-file"), "ref-files")
COMPARE_INPUTS = (
    "Is a system better than a baseline? Paired significance tests on ROUGE's per-example "
    "statistics, with Holm's correction over the systems compared with the baseline: "
    "approximate randomization (`randomization`), the centred paired bootstrap "
    "(`bootstrap`), or sacrebleu's paired bootstrap rule (`sacrebleu-bootstrap`: only to "
    "reproduce sacrebleu-style numbers; it calls about twice as many true nulls significant "
    "as it claims), or sacrebleu's randomization rule (`sacrebleu-randomization`, likewise "
    f"only to reproduce sacrebleu). The default is `{DEFAULT_TEST}`. Each system gets a verdict; each "
    "interval says whether it is per-comparison or family-wise, each p-value whether it is "
    "raw or Holm-adjusted.",
    ('Systems file (.jsonl: {"references": …, "<system>": …, …}; up to '
     f"{UPLOAD_LIMIT})", [".jsonl", ".ndjson"], "systems-file"),
    (f"or: one file per system (.txt; up to {UPLOAD_LIMIT} each)", "multiple",
     "system-files"), "compare-ref-files")
# the Test menu's help: each test's default count is the metric's (DEFAULT_SAMPLES)
TEST_INFO = "; ".join(f"{test}: {samples:,} by default" + (" (the default test)" if
                                                          test == DEFAULT_TEST else "")
                      for test, samples in DEFAULT_SAMPLES.items())

# the Which ROUGE? tab's inputs (as the Corpus tab's, with their own element ids)
EXPLAIN_INPUTS = (
    "**Which ROUGE is this number?** The same texts scored under every convention this package "
    "reproduces (rouge_score, the ROUGE-1.5.5 script with its options, pycocoevalcap, pltrdy's "
    "rouge, rouge-chinese, torchmetrics, …): the conventions that give the figures a paper "
    "reports, and why two conventions differ, one setting at a time. Give **one corpus file** "
    "or a predictions text file with its reference files (as in *Corpus*). The types are the "
    "Options panel's; its other options do not apply (each convention has its own).",
    (f"Corpus file (.jsonl .json .csv .tsv; up to {UPLOAD_LIMIT})",
     [".jsonl", ".ndjson", ".json", ".csv", ".tsv"], "explain-file"),
    (f"or: predictions (.txt; up to {UPLOAD_LIMIT})", "single", "explain-pred-file"),
    "explain-ref-files")
FIGURES_INFO = ("F unless the type ends in _precision or _recall; 0-1 or 0-100; each figure "
                "stands for what rounds to it (40.90: 40.895 to 40.905)")
