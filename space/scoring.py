"""Each request checked against the Space's limits, then scored by the metric: one example
(with each reference's scores and the matched tokens), a corpus, compared systems. The page's
handlers and the API endpoints both call these, so that the page and the API give the same
numbers and refuse the same requests."""

import contextlib
import html
import sys
import threading
import warnings

import numpy as np

from rouge_exact.api import RESULT_FIELDS, compare
from rouge_exact.explanation import explain
from rouge_exact.kinds import estimate_cost, resampling_cost, text_sizes
from rouge_exact.options import RougeOptions, RougeWarning, parse_rouge_type
from rouge_exact.scorer.display import pair_marks, reference_scores
from rouge_exact.scorer.pipeline import Scorer
from rouge_exact.significance import DEFAULT_SAMPLES, DEFAULT_TEST, TESTS

from .limits import (CHUNK_ROWS, CLI, CPU_BUDGET_SECONDS, HIGHLIGHT_SECONDS, HIGHLIGHT_TOKENS,
                     INPUT_ERRORS, MAX_COMPARE_SAMPLES, MAX_SAMPLES, MAX_SYSTEMS,
                     SKIP_LIST_TOKENS, WALK_EXAMPLES, check_budget, check_explain_budget,
                     check_texts, input_error, refused, scan_cost, user_error, walk_examples)
from .options import (DEFAULT_TYPES, OPTION, build_options, cli_flags, figure_types,
                      parse_figures, parse_types)
from .render import explain_html, highlight_html, skip_pairs_html

# warnings.catch_warnings swaps process-wide state: one recorder at a time
_WARNINGS_LOCK = threading.Lock()


@contextlib.contextmanager
def recorded_warnings():
    """The metric's warnings raised inside the block, as messages (filled when it ends)."""
    with _WARNINGS_LOCK, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RougeWarning)
        messages: list = []
        yield messages
    for w in caught:
        if issubclass(w.category, RougeWarning) and str(w.message) not in messages:
            messages.append(str(w.message))


# --------------------------------------------------------------------------------------------
# One example


def score_example(prediction: str, references: list, options: dict) -> dict:
    """One example through the metric's Scorer: {"scores": {type: (P, R, F)},
    "per_reference": {type: (float64[refs, 3], chosen)}, "signature", "warnings", "opts"}."""
    (prediction,), (references,) = check_texts([prediction], [references])
    opts = build_options(**options, use_aggregator=False, detailed=True)
    # the highlights are bounded on their own (HIGHLIGHT_SECONDS); with several references
    # the kernels run twice (the example, then each reference alone)
    sizes, _ = check_budget(opts, [prediction], [references],
                            f"{CLI} --input example.jsonl {cli_flags(opts)}",
                            repeats=1 + (len(references) > 1))
    scorer = Scorer(opts)
    try:
        batch = scorer.add([prediction], [references])
    except INPUT_ERRORS as error:
        raise input_error(error) from None
    per_reference = reference_scores(opts, prediction, references) \
        if len(references) > 1 else {}
    return {"scores": {name: tuple(float(v) for v in values[0])
                       for name, values in batch.scores.items()},
            "per_reference": per_reference, "signature": scorer.result()["signature"],
            "warnings": scorer.warnings(), "opts": opts, "sizes": sizes}


def highlights(prediction: str, references: list, options: dict, kind: str,
               show_all: bool = False) -> str:
    """The Matched tokens panel in one piece: every token drawn with show_all, else the first
    HIGHLIGHT_TOKENS of each text (see highlight_panels)."""
    first = sys.maxsize if show_all else HIGHLIGHT_TOKENS
    return next(highlight_panels(prediction, references, options, kind, show_all, first))


def highlight_cost(opts, options: dict, texts: list, sizes: dict, rouge_type) -> float:
    """Estimated seconds of the highlights of one type, from the scan's sizes, before any of
    it runs: the metric's estimate of its kernel traced back both ways per reference
    (estimate_cost, traceback=True), and tokenizing the texts three more times (the
    marks' flat and sentence views, and the spans of the tokens in the text), at the scan's
    rate (limits.scan_cost)."""
    n_refs = len(texts) - 1
    kernels, _ = estimate_cost(RougeOptions.build(rouge_types=[rouge_type.name], **{
        k: v for k, v in options.items() if k != "rouge_types"}), sizes,
        np.zeros(n_refs, dtype=np.int64), np.arange(1, n_refs + 1), repeats=2,
        traceback=True)
    return kernels + 1.5 * scan_cost(opts, texts)[0]


def highlight_plan(opts, options: dict, texts: list, sizes: dict, rouge_type) -> tuple:
    """(the type whose matches are drawn, notes): the type asked for when its highlights are
    estimated within HIGHLIGHT_SECONDS (and its skip-bigrams short enough to list), else
    rouge1's, else none (None)."""
    notes = []
    if rouge_type.spec.skip_pairs:  # the shared pairs are listed in Python
        longest = int(sizes["tokens"].max())
        if longest > SKIP_LIST_TOKENS:
            notes.append(f"The shared skip-bigrams are listed for texts of up to "
                         f"{SKIP_LIST_TOKENS} tokens (the longest here has {longest:,}); "
                         "showing the ROUGE-1 matches instead.")
            rouge_type = parse_rouge_type("rouge1")
    seconds = highlight_cost(opts, options, texts, sizes, rouge_type)
    if seconds > HIGHLIGHT_SECONDS and rouge_type.name != "rouge1":
        notes.append(f"The texts are too long to trace {rouge_type.name} here (an estimated "
                     f"{seconds:.1f} s); showing the ROUGE-1 matches instead.")
        rouge_type = parse_rouge_type("rouge1")
        seconds = highlight_cost(opts, options, texts, sizes, rouge_type)
    if seconds > HIGHLIGHT_SECONDS:
        notes.append(f"The texts are too long to mark their tokens here (an estimated "
                     f"{seconds:.1f} s); the scores above are complete.")
        return None, notes
    return rouge_type, notes


def highlight_panels(prediction: str, references: list, options: dict, kind: str,
                     show_all: bool = False, first: int = HIGHLIGHT_TOKENS, sizes=None):
    """The Matched tokens panel: the prediction marked against the reference its score
    comes from (or with the most matches), each reference against the prediction. Yields it
    with the first `first` tokens of each text drawn; with show_all, then again with 4x as
    many each time until every token is (the marks are computed once): the page shows the
    start at once and the rest as the browser draws it."""
    opts = build_options(**options)
    names = [t.name for t in opts.rouge_types]
    kind = kind if kind in names else names[0]
    rouge_type = next(t for t in opts.rouge_types if t.name == kind)
    texts = [prediction, *references]
    if sizes is None:  # the caller checked the budget; the scan's sizes are needed here
        sizes = text_sizes(opts, texts)
    rouge_type, notes = highlight_plan(opts, options, texts, sizes, rouge_type)
    if rouge_type is None:
        yield ('<div id="highlights-inner" data-drawn="0">'
               + "".join(f'<p class="note">{html.escape(n)}</p>' for n in notes) + "</div>")
        return
    try:
        results = [pair_marks(opts, prediction, r, rouge_type) for r in references]
    except INPUT_ERRORS as error:  # the metric could not line its tokens up for display
        yield ('<div id="highlights-inner" data-drawn="0"><p class="note">No highlights for '
               f"these texts: {html.escape(str(error))}.</p></div>")
        return
    best = max(range(len(references)), key=lambda k: (int(np.count_nonzero(results[k][0])), -k))
    if len(references) > 1 and kind in names:
        scored = reference_scores(
            RougeOptions.build(rouge_types=[rouge_type.name], **{
                k: v for k, v in options.items() if k != "rouge_types"}),
            prediction, references)
        chosen = scored[rouge_type.name][1]
        best = best if chosen is None else chosen
    marks_p, _, words_p, _ = results[best]
    with_runs = rouge_type.spec.weighted  # ROUGE-W's consecutive runs are underlined
    caption = [explain_html(rouge_type, len(references), best)]
    if rouge_type.spec.skip_pairs:
        caption.append(skip_pairs_html(results[best], rouge_type))
    caption += [f'<p class="note">{html.escape(n)}</p>' for n in notes]
    shown = [("Prediction", prediction, words_p, marks_p, "hl-pred")]
    for k, (ref, (_, marks_r, _, words_r)) in enumerate(zip(references, results)):
        label = f"Reference {k + 1}" if len(references) > 1 else "Reference"
        shown.append((label, ref, words_r, marks_r, f"hl-ref-{k + 1}"))
    longest = max(len(words) for _, _, words, _, _ in shown)
    drawn = first
    while True:
        coming = show_all and drawn < longest
        blocks = [highlight_html(label, text, words, marks, opts, drawn, with_runs, element_id,
                                 coming)
                  for label, text, words, marks, element_id in shown]
        yield (f'<div id="highlights-inner" data-drawn="{min(drawn, longest)}">'
               f'{"".join(caption)}{"".join(blocks)}</div>')
        if not coming:
            return
        drawn *= 4


# --------------------------------------------------------------------------------------------
# A corpus, and compared systems


def score_corpus_lists(predictions, references, options: dict, aggregation=None,
                       n_samples=None, confidence=None, seed=None, progress=None,
                       upload_seconds: float = 0.0, upload_note: str = ""):
    """Check the limits, then score with the metric's Scorer in chunks: (compute()'s
    detailed result, per-example scores {type: float64[N, 3]}, the metric's warnings).
    aggregation, n_samples, confidence, seed: None is the metric's default.
    upload_seconds: the estimated CPU of reading the upload and writing its per-example CSV
    (files.read_corpus), counted in the request's budget; upload_note names it in a refusal."""
    predictions, references = check_texts(predictions, references)
    if isinstance(n_samples, float) and n_samples.is_integer():
        n_samples = int(n_samples)
    if isinstance(seed, float) and seed.is_integer():
        seed = int(seed)
    if isinstance(n_samples, int) and not isinstance(n_samples, bool) \
            and n_samples > MAX_SAMPLES:
        raise refused("n_samples", f"{n_samples:,}", f"{MAX_SAMPLES:,}",
                      f"{CLI} --input YOUR_FILE.jsonl --n-samples {n_samples}")
    opts = build_options(**options, use_aggregator=True, detailed=True,
                         aggregation=aggregation, n_samples=n_samples, confidence=confidence,
                         seed=seed)
    # the metric's estimate of its bootstrap (its kernels' is check_budget's): one side, a
    # statistic per type
    bootstrap = resampling_cost(len(predictions), opts.n_samples, len(opts.rouge_types))
    check_budget(opts, predictions, references,
                 f"{CLI} --input YOUR_FILE.jsonl {cli_flags(opts)}",
                 extra_seconds=bootstrap + upload_seconds, extra_note=upload_note)
    scorer = Scorer(opts)
    n, scores = len(predictions), {}
    for start in range(0, n, CHUNK_ROWS):
        if progress is not None:
            progress((start, n), desc=f"Scoring examples {start + 1:,}–"
                                      f"{min(start + CHUNK_ROWS, n):,} of {n:,}",
                     unit="examples")
        try:
            batch = scorer.add(predictions[start:start + CHUNK_ROWS],
                               references[start:start + CHUNK_ROWS])
        except INPUT_ERRORS as error:
            raise input_error(error) from None
        for name, values in batch.scores.items():
            scores.setdefault(name, []).append(values)
    return (scorer.result(), {k: np.concatenate(v) for k, v in scores.items()},
            scorer.warnings())


def compare_lists(predictions: dict, references: list, options: dict, baseline=None,
                  test=DEFAULT_TEST, n_samples=None, seed=None,
                  confidence=None, upload_seconds: float = 0.0, upload_note: str = "") -> tuple:
    """Check the limits, then compare(): (its result, its warnings). n_samples=None:
    the test's default count (DEFAULT_SAMPLES); seed, confidence: None is the
    metric's default. upload_seconds, upload_note: as score_corpus_lists' (files.read_systems)."""
    if not isinstance(predictions, dict) or len(predictions) > MAX_SYSTEMS:
        got = f"{len(predictions)} systems" if isinstance(predictions, dict) else \
            type(predictions).__name__
        if isinstance(predictions, dict):
            raise refused("predictions", got, f"{MAX_SYSTEMS} systems",
                          f"{CLI} --compare SYSTEM.txt ... --references REFS.txt")
        raise user_error(f"predictions: got {got}; allowed: a dict {{system: [prediction, ...]}}",
                         title="Invalid input")
    if n_samples is not None and not isinstance(n_samples, bool) and \
            isinstance(n_samples, (int, float)) and n_samples > MAX_COMPARE_SAMPLES:
        raise refused("n_samples", f"{n_samples:,}", f"{MAX_COMPARE_SAMPLES:,}",
                      f"{CLI} --compare SYSTEM.txt ... --references REFS.txt "
                      f"--n-samples {int(n_samples)}")
    if isinstance(n_samples, float) and n_samples.is_integer():
        n_samples = int(n_samples)
    if test not in TESTS:
        raise user_error(f"test: got {test!r}; allowed: {', '.join(TESTS)}",
                         title="Invalid option")
    if not predictions:  # else no system's rows are checked, and there are no references
        raise user_error("predictions: got an empty dict; allowed: a dict {system: "
                         "[prediction, ...]} of 2 to " f"{MAX_SYSTEMS} systems",
                         title="Invalid input")
    reserved = RESULT_FIELDS  # the result's own fields: compare() refuses
    for name in predictions:  # them; refused here before any limit is counted
        if name in reserved:
            raise user_error(f"predictions: the system name {name!r} is one of the result's "
                             f"own fields ({', '.join(map(repr, reserved))}); allowed: any "
                             "other name (rename the system)", title="Invalid input")
    checked = {}
    for name, rows in predictions.items():
        rows, refs = check_texts(rows, references)
        checked[name] = rows
    # the metric checks the count (an error names n_samples); None is the test's default
    opts = build_options(**options, n_samples=DEFAULT_SAMPLES[test]
                         if n_samples is None else n_samples)
    # the metric's estimate of the test's resampling, per row, sample and system
    resampling = resampling_cost(len(refs), opts.n_samples, len(opts.rouge_types),
                                 systems=len(checked))
    all_rows = [p for rows in checked.values() for p in rows]
    all_refs = refs * len(checked)
    check_budget(opts, all_rows, all_refs,
                 f"{CLI} --compare SYSTEM.txt ... --references REFS.txt {cli_flags(opts)}"
                 + (f" --test {test}" if test != DEFAULT_TEST else ""),
                 extra_seconds=resampling + upload_seconds, extra_note=upload_note)
    try:
        with recorded_warnings() as messages:
            given = {k: v for k, v in dict(n_samples=n_samples, seed=seed,
                                           confidence=confidence).items() if v is not None}
            result = compare(predictions=checked, references=refs, baseline=baseline,
                             test=test, **given, **options)
    except INPUT_ERRORS as error:
        raise input_error(error) from None
    return result, messages


# --------------------------------------------------------------------------------------------
# Which ROUGE? (explain, and a walk between two of its conventions)

# the walk the tab starts with: rouge_score's numbers (evaluate's "rouge") to the script's with
# -m, the two conventions papers most often print
WALK_FROM = OPTION["profile"].default
WALK_TO = "rouge155 use_stemmer=True"


def _explain_command(types: list, figures: dict | None, a: str, b: str) -> str:
    """The CLI command that runs the same explain on your machine."""
    command = f"{CLI} --explain --input YOUR_FILE.jsonl"
    if types:
        command += f" --rouge-types {','.join(types)}"
    if figures:
        command += " --match " + ",".join(f"{k}={v}" for k, v in figures.items())
    return command + f' --walk "{a},{b}"'


def _ends(explained, a: str, b: str, strict: bool) -> tuple:
    """(a, b, notes): the walk's two ends, rows of the explanation. A name that is not one is
    refused (strict: the API's), or replaced by the tab's default (the page: its menus list
    the profiles before a first run, and a profile that scores none of the types has no
    row), or by the first or last row, with a note that says so."""
    names = [row.name for row in explained.rows]
    notes, ends = [], []
    for given, default, which in ((a, WALK_FROM, "a"), (b, WALK_TO, "b")):
        if given in names:
            ends.append(given)
            continue
        if strict:
            raise user_error(f"{which}: got {given!r}, not a convention here; allowed: "
                             + ", ".join(repr(n) for n in names), title="Invalid option")
        chosen = default if default in names else names[0 if which == "a" else -1]
        if given:
            notes.append(f"No convention here is named {given!r}; the walk "
                         f"{'starts' if which == 'a' else 'ends'} at {chosen!r} instead.")
        ends.append(chosen)
    return ends[0], ends[1], notes


def explain_lists(predictions, references, rouge_types=None, figures=None, a: str = WALK_FROM,
                  b: str = WALK_TO, upload_seconds: float = 0.0, upload_note: str = "",
                  strict: bool = False) -> dict:
    """Check the limits (the metric's own checks first, then the cost of explain and its walk,
    before any of it runs), then explain() and walk(a, b): {"explained", "walk" (its start
    and end: the two conventions walked), "examples" (shown per step), "warnings", "notes"}.
    rouge_types: None or [] is the metric's defaults; figures: explain's match (a dict, or the
    Reported figures box's text). upload_seconds, upload_note: as score_corpus_lists'.
    strict: a or b that is not a convention here is refused (else replaced: _ends)."""
    predictions, references = check_texts(predictions, references)
    figures = parse_figures(figures)
    if isinstance(rouge_types, str):
        rouge_types = [rouge_types]
    # no types: each profile's own (explain's None), costed as the metric's defaults
    chosen = parse_types(rouge_types) if rouge_types else None
    # the figures' types are scored too: within the Space's bounds on types, and costed
    scored = parse_types((chosen or DEFAULT_TYPES) + figure_types(figures))
    opts = build_options(scored)
    local = _explain_command(chosen, figures, a, b)
    _, estimate = check_explain_budget(opts, predictions, references, local, upload_seconds,
                                       upload_note)
    examples = walk_examples(predictions, references, CPU_BUDGET_SECONDS - estimate)
    try:
        with recorded_warnings() as messages:
            explained = explain(predictions, references, rouge_types=chosen, match=figures)
            a, b, notes = _ends(explained, a, b, strict)
            walked = explained.walk(a, b, examples=examples)
    except INPUT_ERRORS as error:
        raise input_error(error) from None
    return {"explained": explained, "walk": walked, "examples": examples,
            "warnings": messages, "notes": notes + _examples_note(examples)}


def _examples_note(examples: int) -> list:
    if examples >= WALK_EXAMPLES:
        return []
    return [f"The texts are long: each step shows {examples or 'none'} of the examples it "
            f"moves most with their tokens, not {WALK_EXAMPLES} (tokenizing them again for "
            "each step takes time)."]


def walk_again(state: dict, a: str, b: str) -> dict:
    """Another walk on a stored explanation (explain_lists' result): its conventions' counts
    are kept, so this costs less than the explain that stored them, which was within the
    budget; the examples shown are as many as then."""
    explained = state["explained"]
    a, b, notes = _ends(explained, a, b, False)
    try:
        with recorded_warnings():
            walked = explained.walk(a, b, examples=state["examples"])
    except INPUT_ERRORS as error:
        raise input_error(error) from None
    return dict(state, walk=walked, notes=notes + _examples_note(state["examples"]))
