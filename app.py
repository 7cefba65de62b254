"""ROUGE playground: the Gradio app of the `rouge_metric` Space.

Run it with ``python app.py`` (port: $GRADIO_SERVER_PORT, default 7860; host:
$GRADIO_SERVER_NAME, default 127.0.0.1). The metric is loaded with
``evaluate.load(<folder of this file>/rouge_metric.py)``, the same code path as every user of
the metric; the module-level helpers (``tokens_of``, ``RougeOptions``, ``Scorer``) are reached through the loaded module.

Two tabs:
- *Single example*: one prediction against one to five references, a P/R/F table per ROUGE
  type, the tokens ROUGE matched highlighted in both texts, and the signature.
- *Corpus*: a JSONL, JSON, CSV or pair of text files scored in chunks (with a progress bar),
  P/R/F with the bootstrap interval as a bar chart, the distribution of per-example F, the
  worst examples, and a CSV download of every example's scores.

Two API endpoints for ``gradio_client``: ``/rouge`` (one example) and ``/rouge_corpus``.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import math
import os
import re
import sys
import tempfile
import threading
import warnings
from collections import Counter
from pathlib import Path
from typing import Optional, Union

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import evaluate  # noqa: E402
import gradio as gr  # noqa: E402
import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent

MAX_UPLOAD_BYTES = 20 * 1024 * 1024  # per uploaded file
MAX_UPLOAD_LABEL = "20 MB"
MAX_TEXT_CHARS = 100_000  # per prediction or reference
MAX_REFERENCES = 5  # reference boxes in the single-example tab
CHUNK_SIZE = 500  # examples scored per step of the corpus progress bar
LCS_CELL_LIMIT = 2_000_000  # token pairs above which the LCS highlight is skipped
WORST_SHOWN = 5
PREVIEW_CHARS = 160

ROUGE_TYPE_CHOICES = ["rouge1", "rouge2", "rouge3", "rouge4", "rougeL", "rougeLsum", "rougeW",
                      "rougeS4", "rougeSU4", "rougeS", "rougeSU"]
DEFAULT_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
HIGHLIGHT_CHOICES = [("ROUGE-1 (unigrams)", "rouge1"), ("ROUGE-2 (bigrams)", "rouge2"),
                     ("ROUGE-3 (trigrams)", "rouge3"), ("ROUGE-4 (4-grams)", "rouge4"),
                     ("ROUGE-L (longest common subsequence)", "rougeL"),
                     ("ROUGE-Lsum (union LCS per sentence)", "rougeLsum")]
MATCH, NO_MATCH = "matched", "not matched"
COLOR_MAP = {MATCH: "#22c55e", NO_MATCH: "#cbd5e1"}
BAR_COLORS = {"precision": "#6366f1", "recall": "#14b8a6", "fmeasure": "#f59e0b"}

metric = evaluate.load(str(HERE / "rouge_metric.py"), keep_in_memory=True)
rouge_module = sys.modules[type(metric).__module__]
RougeOptions = rouge_module.RougeOptions
Scorer = rouge_module.Scorer
tokens_of = rouge_module.tokens_of
split_sentences_rule_based = getattr(rouge_module, "split_sentences_rule_based", None)
unicode_tokenize = getattr(rouge_module, "unicode_tokenize", None)
METRIC_VERSION = getattr(rouge_module, "__version__", "?")

# evaluate's Metric keeps per-call state (its writer and buffers): one compute() at a time.
_METRIC_LOCK = threading.Lock()
# warnings.catch_warnings swaps process-wide state, so only one thread records at a time
# (lock order: _METRIC_LOCK, then _WARNINGS_LOCK).
_WARNINGS_LOCK = threading.Lock()


@contextlib.contextmanager
def _recorded_warnings():
    """The warnings raised inside the block, as a list (filled when the block ends)."""
    with _WARNINGS_LOCK, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def _warm_up() -> None:
    """Compile the numba kernels (15-20 s cold) before the first visitor needs them."""
    try:
        # what the first page load needs comes first; the lock is released between steps
        for types, profile, multi_ref, aggregate in (
                (DEFAULT_TYPES, "rouge_score", "max", False),
                (ROUGE_TYPE_CHOICES, "rouge_score", "max", False),
                (ROUGE_TYPE_CHOICES, "rouge_score", "max", True),
                (ROUGE_TYPE_CHOICES, "rouge155", "average", False),
                (ROUGE_TYPE_CHOICES, "rouge155", "average", True)):
            with _METRIC_LOCK, _recorded_warnings():
                metric.compute(predictions=["the cat sat\non the mat"],
                               references=[["the cat lay on the mat", "a cat"]],
                               rouge_types=types, profile=profile, multi_ref=multi_ref,
                               use_aggregator=aggregate, detailed=True, n_samples=20)
    except Exception as error:  # a warm-up failure must not take the app down
        print(f"warm-up failed: {type(error).__name__}: {error}", file=sys.stderr)


# --------------------------------------------------------------------------------------------
# Options


def _error(message: str, title: str = "Error") -> gr.Error:
    """A readable error for the page (a toast) and for API clients; no server traceback."""
    return gr.Error(message, title=title, print_exception=False)


def _parse_types(selected, extra: str) -> list:
    types = list(selected or [])
    for name in re.split(r"[\s,;]+", extra or ""):
        if name and name not in types:
            types.append(name)
    if not types:
        raise _error("Pick at least one ROUGE type (or type one under “More types”).",
                     title="No ROUGE type")
    return types


def _options(types, extra, use_stemmer, remove_stopwords, profile, alpha, multi_ref, tokenizer,
             split_sentences) -> dict:
    """The metric's keyword arguments from the option controls (not validated yet)."""
    return {
        "rouge_types": _parse_types(types, extra),
        "use_stemmer": bool(use_stemmer),
        "remove_stopwords": bool(remove_stopwords),
        "profile": profile or "rouge_score",
        "alpha": float(alpha if alpha is not None else 0.5),
        "multi_ref": multi_ref or None,
        "tokenizer": tokenizer or "default",
        "split_sentences": bool(split_sentences),
    }


def _validate(options: dict, **extra) -> object:
    """RougeOptions.build, with the metric's ValueError/TypeError shown as a readable error."""
    try:
        return RougeOptions.build(**options, **extra)
    except (ValueError, TypeError) as error:
        raise _error(str(error), title="Invalid option") from None


def _check_text(text: str, what: str) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise _error(f"{what} has {len(text):,} characters; the limit is {MAX_TEXT_CHARS:,} "
                     "characters per text.", title="Text too long")


def _warning_notes(caught) -> list:
    notes = []
    for w in caught:
        message = str(w.message)
        if message not in notes:
            notes.append(message)
    return notes


# --------------------------------------------------------------------------------------------
# Single example: scores


def _compute_example(prediction: str, references: list, options: dict):
    """metric.compute(detailed=True, use_aggregator=False) on one example; (result, notes)."""
    with _METRIC_LOCK, _recorded_warnings() as caught:
        try:
            result = metric.compute(predictions=[prediction], references=[list(references)],
                                    use_aggregator=False, detailed=True, **options)
        except (ValueError, TypeError) as error:
            raise _error(str(error), title="Invalid input") from None
    return result, _warning_notes(caught)


def _per_example(result: dict, types: list) -> dict:
    """{type: {"precision", "recall", "fmeasure"}} of the one example in a per-example result."""
    return {t: {k: float(result[t][k][0]) for k in ("precision", "recall", "fmeasure")}
            for t in types}


def _table_html(scores: dict, alpha: float) -> str:
    f_head = "F<sub>1</sub>" if alpha == 0.5 else f"F (α = {alpha:g})"
    rows = []
    for name, s in scores.items():
        cells = []
        for key in ("precision", "recall", "fmeasure"):
            v = s[key]
            width = max(0.0, min(1.0, v)) * 100
            cells.append(
                f'<td class="score {key}" data-value="{v!r}"><span class="num">{v:.4f}</span>'
                f'<span class="bar"><span style="width:{width:.1f}%;'
                f'background:{BAR_COLORS[key]}"></span></span></td>')
        rows.append(f'<tr data-type="{html.escape(name)}"><th scope="row">{html.escape(name)}'
                    f'</th>{"".join(cells)}</tr>')
    return ('<table class="rouge-table" id="rouge-scores"><thead><tr><th>ROUGE type</th>'
            f'<th>Precision</th><th>Recall</th><th>{f_head}</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _notes_md(notes: list) -> str:
    return "\n".join(f"⚠️ {n}" for n in notes) if notes else ""


# --------------------------------------------------------------------------------------------
# Single example: matched tokens


def _token_options(options: dict) -> dict:
    keys = ("use_stemmer", "remove_stopwords", "profile", "tokenizer", "multi_ref")
    return {k: options[k] for k in keys if k in options}


def _unicode_class(ch: str, cache: dict = {}) -> int:  # noqa: B006 (a memo)
    """0: separator, 1: part of a word, 2: a token by itself (CJK, Thai ...), as the
    unicode tokenizer sees ``ch`` (told apart by tokenizing the character doubled)."""
    if ch not in cache:
        if ch.isspace():
            cache[ch] = 0
        else:
            cache[ch] = min(len(unicode_tokenize(ch + ch)), 2)
    return cache[ch]


def _candidate_spans(text: str, options: dict) -> list:
    """(start, end) of each stretch of ``text`` that yields the tokens one at a time."""
    tokenizer = options.get("tokenizer", "default")
    if options.get("profile") == "rouge155" or tokenizer == "default":
        lowered = text.lower()
        if len(lowered) == len(text) and options.get("profile") != "rouge155":
            return [m.span() for m in re.finditer(r"[a-z0-9]+", lowered)]
        return [m.span() for m in re.finditer(r"[A-Za-z0-9]+", text)]
    if tokenizer == "whitespace" or unicode_tokenize is None:
        return [m.span() for m in re.finditer(r"\S+", text)]
    spans, start = [], None
    for i, ch in enumerate(text):
        cls = _unicode_class(ch)
        if cls == 1:
            if start is None:
                start = i
            continue
        if start is not None:
            spans.append((start, i))
            start = None
        if cls == 2:
            spans.append((i, i + 1))
    if start is not None:
        spans.append((start, len(text)))
    return spans


class TokenView:
    """The tokens ROUGE compares in one text (from ``tokens_of``), each with its characters in
    the shown text when they can be found: ``spans[k]`` is (start, end) or None."""

    def __init__(self, text: str, options: dict):
        self.text = text
        self.sentences = tokens_of(text, **options)  # per "\n"-separated sentence
        self.tokens = [t for sentence in self.sentences for t in sentence]
        self.sentence_of = [i for i, s in enumerate(self.sentences) for _ in s]
        self.spans = self._align(options)
        if self.spans is None:  # show ROUGE's own tokens instead of the text
            self.text, self.spans = self._token_text()
            self.aligned = False
        else:
            self.aligned = True

    def _align(self, options: dict):
        memo: dict = {}
        spans = []
        for start, end in _candidate_spans(self.text, options):
            piece = self.text[start:end]
            if piece not in memo:
                memo[piece] = [t for s in tokens_of(piece, **options) for t in s]
            spans.extend([(start, end)] * len(memo[piece]))
            pieces = memo[piece]
            if len(spans) > len(self.tokens) or self.tokens[len(spans) - len(pieces):len(spans)] \
                    != pieces:
                return None
        return spans if len(spans) == len(self.tokens) else None

    def _token_text(self):
        out, spans, pos = [], [], 0
        for s_index, sentence in enumerate(self.sentences):
            if s_index:
                out.append("\n")
                pos += 1
            for k, token in enumerate(sentence):
                if k:
                    out.append(" ")
                    pos += 1
                spans.append((pos, pos + len(token)))
                out.append(token)
                pos += len(token)
        return "".join(out), spans

    def highlighted(self, marks: list) -> list:
        """gr.HighlightedText value: [(text, label or None)], label per token."""
        pieces, pos = [], 0
        char_label: dict = {}
        for (start, end), marked in zip(self.spans, marks):
            label = MATCH if marked else NO_MATCH
            # a piece carrying two tokens (rare) shows matched if either is
            if char_label.get((start, end)) != MATCH:
                char_label[(start, end)] = label
        for (start, end), label in sorted(char_label.items()):
            if start > pos:
                pieces.append((self.text[pos:start], None))
            pieces.append((self.text[start:end], label))
            pos = end
        if pos < len(self.text):
            pieces.append((self.text[pos:], None))
        return pieces


def ngram_marks(a: list, b: list, n: int):
    """Tokens of the clipped-matched n-grams: each n-gram of ``a`` matches at most as many
    times as it occurs in ``b`` (and the other way round). Returns (marks_a, marks_b, hits)."""
    grams_a = [tuple(a[i:i + n]) for i in range(len(a) - n + 1)]
    grams_b = [tuple(b[i:i + n]) for i in range(len(b) - n + 1)]

    def mark(grams, other, length):
        marks = [False] * length
        available = Counter(other)
        hits = 0
        for i, g in enumerate(grams):
            if available[g] > 0:
                available[g] -= 1
                hits += 1
                marks[i:i + n] = [True] * n
        return marks, hits

    marks_a, hits = mark(grams_a, grams_b, len(a))
    marks_b, _ = mark(grams_b, grams_a, len(b))
    return marks_a, marks_b, hits


def lcs_pairs(a: list, b: list) -> list:
    """Index pairs (i, j) of one longest common subsequence of a and b (plain DP)."""
    m, n = len(a), len(b)
    table = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        row, prev, ai = table[i], table[i - 1], a[i - 1]
        for j in range(1, n + 1):
            if ai == b[j - 1]:
                row[j] = prev[j - 1] + 1
            else:
                row[j] = prev[j] if prev[j] >= row[j - 1] else row[j - 1]
    pairs, i, j = [], m, n
    while i and j:
        if a[i - 1] == b[j - 1]:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif table[i - 1][j] >= table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]


def lcs_marks(a: list, b: list):
    pairs = lcs_pairs(a, b)
    marks_a, marks_b = [False] * len(a), [False] * len(b)
    for i, j in pairs:
        marks_a[i] = marks_b[j] = True
    return marks_a, marks_b, len(pairs)


def union_lcs_marks(pred: TokenView, ref: TokenView):
    """ROUGE-Lsum (and ROUGE-1.5.5's ROUGE-L): for each reference sentence the union of its LCS
    with every prediction sentence, clipped by token counts as rouge_score does."""
    pred_sents = _sentence_index(pred)
    ref_sents = _sentence_index(ref)
    marks_p, marks_r = [False] * len(pred.tokens), [False] * len(ref.tokens)
    count_p, count_r = Counter(pred.tokens), Counter(ref.tokens)
    hits = 0
    for r_positions in ref_sents:
        r_tokens = [ref.tokens[k] for k in r_positions]
        partner: dict = {}  # reference position -> prediction positions it was aligned with
        for p_positions in pred_sents:
            p_tokens = [pred.tokens[k] for k in p_positions]
            for i, j in lcs_pairs(r_tokens, p_tokens):
                partner.setdefault(r_positions[i], []).append(p_positions[j])
        for r_pos in sorted(partner):
            token = ref.tokens[r_pos]
            if count_p[token] > 0 and count_r[token] > 0:
                count_p[token] -= 1
                count_r[token] -= 1
                hits += 1
                marks_r[r_pos] = True
                free = [p for p in partner[r_pos] if not marks_p[p]]
                marks_p[(free or partner[r_pos])[0]] = True
    return marks_p, marks_r, hits


def _sentence_index(view: TokenView) -> list:
    out: list = [[] for _ in view.sentences]
    for k, s in enumerate(view.sentence_of):
        out[s].append(k)
    return [s for s in out if s]


def match_marks(kind: str, pred: TokenView, ref: TokenView, profile: str):
    """(marks on the prediction, marks on the reference, hits, unit name) for one pair."""
    if kind.startswith("rouge") and kind[5:].isdigit():
        n = int(kind[5:])
        marks_p, marks_r, hits = ngram_marks(pred.tokens, ref.tokens, n)
        return marks_p, marks_r, hits, f"{n}-gram" if n > 1 else "unigram"
    if kind == "rougeL" and profile != "rouge155":
        marks_p, marks_r, hits = lcs_marks(pred.tokens, ref.tokens)
        return marks_p, marks_r, hits, "LCS token"
    marks_p, marks_r, hits = union_lcs_marks(pred, ref)
    return marks_p, marks_r, hits, "union-LCS token"


def highlights(prediction: str, references: list, options: dict, kind: str):
    """HighlightedText values for the prediction and each reference, and a caption."""
    topts = _token_options(options)
    if options.get("split_sentences") and split_sentences_rule_based is not None:
        prediction = split_sentences_rule_based(prediction)
        references = [split_sentences_rule_based(r) for r in references]
    pred = TokenView(prediction, topts)
    refs = [TokenView(r, topts) for r in references]
    longest = max(len(r.tokens) for r in refs)
    if kind in ("rougeL", "rougeLsum") and len(pred.tokens) * longest > LCS_CELL_LIMIT:
        kind_note = (f"The texts are too long to show the LCS here "
                     f"({len(pred.tokens):,} × {longest:,} tokens); showing ROUGE-1 matches.")
        kind = "rouge1"
    else:
        kind_note = ""
    results = [match_marks(kind, pred, r, topts.get("profile", "rouge_score")) for r in refs]
    best = max(range(len(refs)), key=lambda k: (results[k][2], -k))
    marks_p, _, hits, unit = results[best]
    pred_value = pred.highlighted(marks_p)
    ref_values = [r.highlighted(res[1]) for r, res in zip(refs, results)]
    against = f" reference {best + 1}" if len(refs) > 1 else " the reference"
    lines = [f"**{kind}**: {hits} matched {unit}{'s' if hits != 1 else ''} between the prediction "
             f"({len(pred.tokens)} tokens) and{against} ({len(refs[best].tokens)} tokens)."]
    if len(refs) > 1:
        lines.append(f"The prediction is marked against reference {best + 1}, the one with the "
                     "most matches; each reference is marked against the prediction.")
    if kind_note:
        lines.append(kind_note)
    if not (pred.aligned and all(r.aligned for r in refs)):
        lines.append("Some text could not be lined up with its tokens, so ROUGE's tokens are "
                     "shown instead.")
    lines.append("Coloured words are the tokens ROUGE compares (lower-cased"
                 + (", stemmed" if options.get("use_stemmer") else "")
                 + (", stopwords dropped" if options.get("remove_stopwords") else "")
                 + "); uncoloured text is ignored.")
    return pred_value, ref_values, "  \n".join(lines)


# --------------------------------------------------------------------------------------------
# Single example: the event handlers


def _collect_references(n_refs, ref_texts) -> list:
    n = int(n_refs or 1)
    refs = [r for r in ref_texts[:n] if r is not None and r.strip()]
    if not refs:
        raise _error("Type at least one reference.", title="No reference")
    for k, r in enumerate(refs):
        _check_text(r, f"Reference {k + 1}")
    return refs


def _single_inputs(args):
    prediction, n_refs = args[0], args[1]
    ref_texts = list(args[2:2 + MAX_REFERENCES])
    option_values = args[2 + MAX_REFERENCES:2 + MAX_REFERENCES + 9]
    kind = args[2 + MAX_REFERENCES + 9]
    if prediction is None or not prediction.strip():
        raise _error("Type a prediction (the generated text to score).", title="No prediction")
    _check_text(prediction, "The prediction")
    refs = _collect_references(n_refs, ref_texts)
    options = _options(*option_values)
    return prediction, refs, options, kind


def score_single(*args):
    """The Score button: table, highlights, signature, notes."""
    prediction, refs, options, kind = _single_inputs(args)
    _validate(options)
    result, notes = _compute_example(prediction, refs, options)
    scores = _per_example(result, options["rouge_types"])
    pred_value, ref_values, caption = highlights(prediction, refs, options, kind)
    ref_updates = [gr.update(value=ref_values[k] if k < len(ref_values) else None,
                             visible=k < len(ref_values),
                             label=f"Reference {k + 1}" if len(ref_values) > 1 else "Reference")
                   for k in range(MAX_REFERENCES)]
    return (_table_html(scores, options["alpha"]), _notes_md(notes), result["signature"],
            pred_value, *ref_updates, caption)


def rehighlight(*args):
    """The highlight selector: redraw the marks without scoring again."""
    try:
        prediction, refs, options, kind = _single_inputs(args)
        _validate(options)
    except gr.Error:
        return (gr.update(),) * (MAX_REFERENCES + 2)
    pred_value, ref_values, caption = highlights(prediction, refs, options, kind)
    ref_updates = [gr.update(value=ref_values[k] if k < len(ref_values) else None,
                             visible=k < len(ref_values)) for k in range(MAX_REFERENCES)]
    return (pred_value, *ref_updates, caption)


def _ref_box_updates(n: int):
    return [gr.update(visible=k < n) for k in range(MAX_REFERENCES)]


def add_reference(n_refs):
    n = min(int(n_refs or 1) + 1, MAX_REFERENCES)
    return (n, *_ref_box_updates(n), gr.update(interactive=n < MAX_REFERENCES),
            gr.update(interactive=n > 1))


def remove_reference(n_refs, *ref_texts):
    n = max(int(n_refs or 1) - 1, 1)
    cleared = [gr.update(value="", visible=False) if k >= n else gr.update(visible=True)
               for k in range(MAX_REFERENCES)]
    return (n, *cleared, gr.update(interactive=n < MAX_REFERENCES), gr.update(interactive=n > 1))


def example_chosen(prediction, *ref_texts):
    """An example fills the boxes: show as many reference boxes as it has references."""
    n = max([1] + [k + 1 for k, t in enumerate(ref_texts) if t])
    return (n, *_ref_box_updates(n), gr.update(interactive=n < MAX_REFERENCES),
            gr.update(interactive=n > 1))


def profile_changed(profile, multi_ref):
    """ROUGE-1.5.5 has no 'max' mode and averages by default: switch to 'average'."""
    if profile == "rouge155" and multi_ref == "max":
        gr.Info("The rouge155 profile has no “max” mode; switched to “average” "
                "(ROUGE-1.5.5's -f A).")
        return gr.update(value="average")
    return gr.update()


# --------------------------------------------------------------------------------------------
# Corpus: reading the files


def _file_path(file) -> Optional[str]:
    if file is None:
        return None
    if isinstance(file, (list, tuple)):
        return _file_path(file[0]) if file else None
    return file if isinstance(file, str) else getattr(file, "name", None) or file.get("path")


def _read_text_file(path: str, label: str) -> str:
    size = os.path.getsize(path)
    if size > MAX_UPLOAD_BYTES:
        raise _error(f"{label} is {size / 1024 / 1024:.1f} MB; uploads are limited to "
                     f"{MAX_UPLOAD_LABEL}.", title="File too large")
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _error(f"{label} is not UTF-8 text (byte {error.start:,} cannot be decoded).",
                     title="Unreadable file") from None


def _reference_value(value, where: str):
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(r, str) for r in value):
        return value
    if isinstance(value, list) and not value:
        raise _error(f"{where}: “references” is an empty list; give at least one reference.",
                     title="Bad corpus")
    raise _error(f"{where}: “references” must be a string or a list of strings, got "
                 f"{type(value).__name__}.", title="Bad corpus")


def _example_from_record(record, where: str):
    if not isinstance(record, dict):
        raise _error(f"{where}: expected a JSON object "
                     '{"prediction": ..., "references": ...}, got '
                     f"{type(record).__name__}.", title="Bad corpus")
    for key in ("prediction", "references"):
        if key not in record:
            found = ", ".join(sorted(map(str, record))) or "none"
            raise _error(f"{where}: missing key “{key}” (keys found: {found}).",
                         title="Bad corpus")
    if not isinstance(record["prediction"], str):
        raise _error(f"{where}: “prediction” must be a string, got "
                     f"{type(record['prediction']).__name__}.", title="Bad corpus")
    return record["prediction"], _reference_value(record["references"], where)


def parse_jsonl(text: str, name: str):
    preds, refs = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise _error(f"{name}, line {number}: not valid JSON ({error.msg} at column "
                         f"{error.colno}).", title="Bad JSON") from None
        p, r = _example_from_record(record, f"{name}, line {number}")
        preds.append(p)
        refs.append(r)
    return preds, refs


def parse_json(text: str, name: str):
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        if "\n" in text.strip():  # a .json file that is really JSON Lines
            return parse_jsonl(text, name)
        raise _error(f"{name}: not valid JSON ({error.msg} at line {error.lineno}, column "
                     f"{error.colno}).", title="Bad JSON") from None
    if isinstance(data, dict) and "predictions" in data and "references" in data:
        data = [{"prediction": p, "references": r}
                for p, r in zip(data["predictions"], data["references"])]
    if not isinstance(data, list):
        raise _error(f"{name}: expected a list of "
                     '{"prediction": ..., "references": ...} objects.', title="Bad corpus")
    preds, refs = [], []
    for k, record in enumerate(data, start=1):
        p, r = _example_from_record(record, f"{name}, item {k}")
        preds.append(p)
        refs.append(r)
    return preds, refs


def parse_csv(text: str, name: str):
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.DictReader(io.StringIO(text), dialect=dialect)
    columns = [c.strip() for c in (reader.fieldnames or [])]
    for key in ("prediction", "references"):
        if key not in columns:
            raise _error(f"{name}: missing column “{key}” (columns found: "
                         f"{', '.join(columns) or 'none'}). The first row must name the "
                         "columns prediction and references.", title="Missing column")
    reader.fieldnames = columns
    preds, refs = [], []
    try:
        for row in reader:
            number = reader.line_num
            prediction, reference = row.get("prediction"), row.get("references")
            if prediction is None or reference is None:
                raise _error(f"{name}, line {number}: the row has fewer cells than the "
                             "header.", title="Bad CSV")
            stripped = reference.strip()
            if stripped.startswith("[") and stripped.endswith("]"):
                try:
                    reference = _reference_value(json.loads(stripped), f"{name}, line {number}")
                except json.JSONDecodeError:
                    pass  # a reference that happens to be bracketed text
            preds.append(prediction)
            refs.append(reference)
    except csv.Error as error:
        raise _error(f"{name}, line {reader.line_num}: {error}.", title="Bad CSV") from None
    return preds, refs


def _lines(text: str) -> list:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def load_corpus(corpus_file, pred_file, ref_files):
    """(predictions, references, description) from the uploads; gr.Error on any problem."""
    path = _file_path(corpus_file)
    if path:
        name = Path(path).name
        text = _read_text_file(path, name)
        suffix = Path(path).suffix.lower()
        if suffix == ".csv" or suffix == ".tsv":
            preds, refs = parse_csv(text, name)
        elif suffix == ".json":
            preds, refs = parse_json(text, name)
        else:
            preds, refs = parse_jsonl(text, name)
        source = name
    else:
        pred_path = _file_path(pred_file)
        ref_paths = [p for p in (ref_files or []) if p] if isinstance(ref_files, list) else (
            [_file_path(ref_files)] if ref_files else [])
        ref_paths = [_file_path(p) for p in ref_paths]
        if not pred_path and not ref_paths:
            raise _error("Upload a corpus: a JSONL/JSON/CSV file, or a predictions text file "
                         "and one or more references text files.", title="No corpus")
        if not pred_path or not ref_paths:
            missing = "predictions" if not pred_path else "references"
            raise _error(f"Upload the {missing} text file too (one example per line).",
                         title="Missing file")
        pred_name = Path(pred_path).name
        preds = _lines(_read_text_file(pred_path, pred_name))
        columns = []
        for ref_path in ref_paths:
            ref_name = Path(ref_path).name
            lines = _lines(_read_text_file(ref_path, ref_name))
            if len(lines) != len(preds):
                raise _error(f"Line counts differ: {pred_name} has {len(preds):,} lines, "
                             f"{ref_name} has {len(lines):,}. Each line is one example.",
                             title="Mismatched files")
            columns.append(lines)
        refs = [list(row) if len(row) > 1 else row[0] for row in zip(*columns)]
        source = f"{pred_name} + {', '.join(Path(p).name for p in ref_paths)}"
    if not preds:
        raise _error("The corpus has no examples.", title="Empty corpus")
    if len({isinstance(r, str) for r in refs}) > 1:  # the metric wants one shape
        refs = [[r] if isinstance(r, str) else r for r in refs]
    for k, (p, r) in enumerate(zip(preds, refs), start=1):
        _check_text(p, f"Example {k}: the prediction")
        for j, text in enumerate([r] if isinstance(r, str) else r, start=1):
            _check_text(text, f"Example {k}: reference {j}")
    return preds, refs, source


# --------------------------------------------------------------------------------------------
# Corpus: scoring


def score_corpus_lists(predictions, references, options: dict, aggregation: str, n_samples: int,
                       confidence: float, seed: int, progress=None):
    """Score in chunks with the metric's Scorer: the same numbers as
    metric.compute(use_aggregator=True, detailed=True)."""
    opts = _validate(options, use_aggregator=True, detailed=True, aggregation=aggregation,
                     n_samples=int(n_samples), confidence=float(confidence), seed=int(seed))
    n = len(predictions)
    scorer = Scorer(opts)
    scores: dict = {}
    for start in range(0, n, CHUNK_SIZE):
        if progress is not None:
            progress((start, n), desc=f"Scoring examples {start + 1:,}–"
                                      f"{min(start + CHUNK_SIZE, n):,} of {n:,}",
                     unit="examples")
        try:
            batch = scorer.add(predictions[start:start + CHUNK_SIZE],
                               references[start:start + CHUNK_SIZE])
        except (ValueError, TypeError) as error:
            raise _error(str(error), title="Invalid input") from None
        for name, values in batch.scores.items():
            scores.setdefault(name, []).append(values)
    scores = {k: np.concatenate(v) for k, v in scores.items()}
    return scorer.result(), scores, scorer.warnings()


def _summary_html(result: dict, types: list, confidence: float) -> str:
    rows = []
    for name in types:
        cells = []
        for key in ("precision", "recall", "fmeasure"):
            e = result[name][key]
            cells.append(f'<td class="score {key}" data-mid="{e["mid"]!r}" data-low="{e["low"]!r}"'
                         f' data-high="{e["high"]!r}"><span class="num">{e["mid"]:.4f}</span>'
                         f'<span class="ci">[{e["low"]:.4f}, {e["high"]:.4f}]</span></td>')
        rows.append(f'<tr data-type="{html.escape(name)}"><th scope="row">{html.escape(name)}'
                    f'</th>{"".join(cells)}</tr>')
    return ('<table class="rouge-table" id="corpus-scores"><thead><tr><th>ROUGE type</th>'
            f'<th>Precision</th><th>Recall</th><th>F</th></tr></thead><tbody>{"".join(rows)}'
            f'</tbody></table><p class="caption">Mid value with the {confidence:.0%} bootstrap '
            f'interval in brackets; {result["count"]:,} examples.</p>')


def bar_chart_svg(result: dict, types: list, confidence: float) -> str:
    """Grouped bars (P, R, F per type) with the bootstrap interval as error bars."""
    width, height = 760, 300
    left, right, top, bottom = 48, 16, 34, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    group_w = plot_w / max(len(types), 1)
    bar_w = min(34.0, group_w * 0.8 / 3)

    def y(v):
        return top + plot_h * (1 - max(0.0, min(1.0, v)))

    parts = [f'<svg class="chart" id="corpus-bar-chart" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="P, R and F per ROUGE type with {confidence:.0%} '
             'bootstrap intervals" xmlns="http://www.w3.org/2000/svg">']
    for tick in np.linspace(0, 1, 6):
        ty = y(tick)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{ty:.1f}" y2="{ty:.1f}" '
                     'class="grid"/>')
        parts.append(f'<text x="{left - 8}" y="{ty + 4:.1f}" text-anchor="end" '
                     f'class="tick">{tick:.1f}</text>')
    for g, name in enumerate(types):
        x0 = left + g * group_w + (group_w - 3 * bar_w) / 2
        for k, key in enumerate(("precision", "recall", "fmeasure")):
            e = result[name][key]
            bx = x0 + k * bar_w
            parts.append(f'<rect x="{bx + 1:.1f}" y="{y(e["mid"]):.1f}" width="{bar_w - 2:.1f}" '
                         f'height="{top + plot_h - y(e["mid"]):.1f}" fill="{BAR_COLORS[key]}" '
                         f'rx="2"><title>{name} {key}: {e["mid"]:.4f} [{e["low"]:.4f}, '
                         f'{e["high"]:.4f}]</title></rect>')
            cx = bx + bar_w / 2
            parts.append(f'<g class="errorbar"><line x1="{cx:.1f}" x2="{cx:.1f}" '
                         f'y1="{y(e["low"]):.1f}" y2="{y(e["high"]):.1f}"/>'
                         f'<line x1="{cx - 4:.1f}" x2="{cx + 4:.1f}" y1="{y(e["low"]):.1f}" '
                         f'y2="{y(e["low"]):.1f}"/><line x1="{cx - 4:.1f}" x2="{cx + 4:.1f}" '
                         f'y1="{y(e["high"]):.1f}" y2="{y(e["high"]):.1f}"/></g>')
        parts.append(f'<text x="{left + (g + 0.5) * group_w:.1f}" y="{height - bottom + 20}" '
                     f'text-anchor="middle" class="label">{html.escape(name)}</text>')
    lx = left
    for key, label in (("precision", "Precision"), ("recall", "Recall"),
                       ("fmeasure", "F")):
        parts.append(f'<rect x="{lx}" y="10" width="12" height="12" rx="2" '
                     f'fill="{BAR_COLORS[key]}"/><text x="{lx + 17}" y="20" class="legend">'
                     f'{label}</text>')
        lx += 30 + 8 * len(label)
    parts.append(f'<text x="{width - right}" y="20" text-anchor="end" class="legend muted">'
                 f'error bars: {confidence:.0%} bootstrap interval</text>')
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{top + plot_h}" '
                 f'y2="{top + plot_h}" class="axis"/></svg>')
    return "".join(parts)


def histogram_svg(values: np.ndarray, name: str, bins: int = 20) -> str:
    """Histogram of per-example F in [0, 1], with the mean marked."""
    width, height = 760, 260
    left, right, top, bottom = 48, 16, 40, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    counts, edges = np.histogram(np.clip(values, 0, 1), bins=bins, range=(0.0, 1.0))
    peak = max(int(counts.max()), 1)
    nice = _nice_max(peak)
    parts = [f'<svg class="chart" id="corpus-histogram" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="Distribution of per-example {name} F" '
             'xmlns="http://www.w3.org/2000/svg">']
    parts_count = next((k for k in (5, 4, 2) if (nice / k).is_integer()), 1)
    for tick in np.linspace(0, nice, parts_count + 1):
        ty = top + plot_h * (1 - tick / nice)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{ty:.1f}" y2="{ty:.1f}" '
                     'class="grid"/>')
        parts.append(f'<text x="{left - 8}" y="{ty + 4:.1f}" text-anchor="end" '
                     f'class="tick">{tick:g}</text>')
    bw = plot_w / bins
    for k, c in enumerate(counts):
        h = plot_h * c / nice
        parts.append(f'<rect x="{left + k * bw + 1:.1f}" y="{top + plot_h - h:.1f}" '
                     f'width="{bw - 2:.1f}" height="{h:.1f}" fill="{BAR_COLORS["fmeasure"]}" '
                     f'rx="2"><title>F in [{edges[k]:.2f}, {edges[k + 1]:.2f}): {c} examples'
                     '</title></rect>')
    for tick in np.linspace(0, 1, 11):
        parts.append(f'<text x="{left + plot_w * tick:.1f}" y="{height - bottom + 18}" '
                     f'text-anchor="middle" class="tick">{tick:.1f}</text>')
    mean = float(np.mean(values)) if len(values) else 0.0
    mx = left + plot_w * max(0.0, min(1.0, mean))
    parts.append(f'<line x1="{mx:.1f}" x2="{mx:.1f}" y1="{top - 4}" y2="{top + plot_h}" '
                 'class="mean"/>')
    anchor = "end" if mean > 0.8 else "start"
    label_x = mx - 6 if mean > 0.8 else mx + 6
    parts.append(f'<text x="{label_x:.1f}" y="{top - 8}" text-anchor="{anchor}" '
                 f'class="legend mean-label">mean {mean:.3f}</text>')
    parts.append(f'<text x="{left}" y="16" class="legend">{html.escape(name)} F per example '
                 f'({len(values):,} examples)</text>')
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{top + plot_h}" '
                 f'y2="{top + plot_h}" class="axis"/></svg>')
    return "".join(parts)


def _nice_max(peak: int) -> float:
    magnitude = 10 ** math.floor(math.log10(peak))
    for step in (1, 2, 2.5, 5, 10):
        if step * magnitude >= peak:
            return float(step * magnitude)
    return float(10 * magnitude)


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS - 1] + "…"


def worst_rows(state: dict, name: str) -> list:
    f = state["scores"][name][:, 2]
    order = np.argsort(f, kind="stable")[:WORST_SHOWN]
    rows = []
    for k in order.tolist():
        refs = state["references"][k]
        refs = [refs] if isinstance(refs, str) else refs
        shown = _preview(refs[0]) + (f"  (+{len(refs) - 1} more)" if len(refs) > 1 else "")
        rows.append([k + 1, round(float(f[k]), 4), _preview(state["predictions"][k]), shown])
    return rows


def write_scores_csv(state: dict) -> str:
    folder = tempfile.mkdtemp(prefix="rouge_scores_")
    path = os.path.join(folder, "rouge_per_example.csv")
    types = list(state["scores"])
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["example", "prediction", "references"]
                        + [f"{t}_{k}" for t in types for k in ("precision", "recall",
                                                                  "fmeasure")])
        for k, (p, r) in enumerate(zip(state["predictions"], state["references"])):
            refs = r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)
            writer.writerow([k + 1, p, refs] + [repr(float(v)) for t in types
                                                 for v in state["scores"][t][k]])
    return path


def score_corpus(corpus_file, pred_file, ref_files, *args, progress=gr.Progress()):
    """The corpus Score button."""
    option_values = args[:9]
    aggregation, n_samples, confidence, seed = args[9:13]
    options = _options(*option_values)
    _validate(options)
    progress(0, desc="Reading the corpus")
    preds, refs, source = load_corpus(corpus_file, pred_file, ref_files)
    result, scores, notes = score_corpus_lists(preds, refs, options, aggregation, n_samples,
                                               confidence, seed, progress)
    types = options["rouge_types"]
    state = {"predictions": preds, "references": refs, "scores": scores}
    first = types[0]
    progress(1.0, desc="Writing the per-example CSV")
    csv_path = write_scores_csv(state)
    header = (f"**{len(preds):,} examples** from `{source.replace('`', '')}`, "
              f"{aggregation} aggregation, {int(n_samples):,} bootstrap samples.")
    return (header + ("\n\n" + _notes_md(notes) if notes else ""),
            _summary_html(result, types, float(confidence)),
            bar_chart_svg(result, types, float(confidence)),
            gr.update(choices=types, value=first),
            histogram_svg(scores[first][:, 2], first),
            worst_rows(state, first),
            gr.update(value=csv_path, visible=True),
            result["signature"],
            state)


def corpus_view_changed(state, name):
    if not state or name not in state.get("scores", {}):
        return gr.update(), gr.update()
    return histogram_svg(state["scores"][name][:, 2], name), worst_rows(state, name)


# --------------------------------------------------------------------------------------------
# API endpoints (gradio_client)


def rouge(prediction: str, references: list[str], rouge_types: Optional[list[str]] = None,
          use_stemmer: bool = False, remove_stopwords: bool = False,
          profile: str = "rouge_score", alpha: float = 0.5, multi_ref: Optional[str] = None,
          tokenizer: str = "default") -> dict:
    """Score one prediction against one or more references. Returns
    {type: {"precision", "recall", "fmeasure"}, "signature": str} (per-example values of
    compute(detailed=True, use_aggregator=False))."""
    if isinstance(references, str):
        references = [references]
    if not references:
        raise _error("references: give at least one reference.")
    _check_text(prediction or "", "The prediction")
    for k, r in enumerate(references):
        _check_text(r, f"Reference {k + 1}")
    options = {"rouge_types": list(rouge_types or DEFAULT_TYPES), "use_stemmer": use_stemmer,
               "remove_stopwords": remove_stopwords, "profile": profile, "alpha": alpha,
               "multi_ref": multi_ref or None, "tokenizer": tokenizer or "default"}
    _validate(options)
    result, _ = _compute_example(prediction, references, options)
    out: dict = _per_example(result, options["rouge_types"])
    out["signature"] = result["signature"]
    return out


def rouge_corpus(predictions: list[str], references: list[Union[str, list[str]]],
                 rouge_types: Optional[list[str]] = None, use_stemmer: bool = False,
                 remove_stopwords: bool = False, profile: str = "rouge_score",
                 alpha: float = 0.5, multi_ref: Optional[str] = None,
                 aggregation: str = "macro", n_samples: int = 1000,
                 confidence: float = 0.95, seed: int = 12345) -> dict:
    """Score a corpus. Returns compute(detailed=True)'s result: {type: {"precision"|"recall"|
    "fmeasure": {"low", "mid", "high"}}, "signature", "count"}."""
    if len(predictions) != len(references):
        raise _error(f"Got {len(predictions)} predictions and {len(references)} references.")
    if not predictions:
        raise _error("The corpus has no examples.")
    for k, (p, r) in enumerate(zip(predictions, references), start=1):
        _check_text(p, f"Example {k}: the prediction")
        for text in [r] if isinstance(r, str) else r:
            _check_text(text, f"Example {k}: a reference")
    if len({isinstance(r, str) for r in references}) > 1:
        references = [[r] if isinstance(r, str) else r for r in references]
    options = {"rouge_types": list(rouge_types or DEFAULT_TYPES), "use_stemmer": use_stemmer,
               "remove_stopwords": remove_stopwords, "profile": profile, "alpha": alpha,
               "multi_ref": multi_ref or None}
    result, _, _ = score_corpus_lists(list(predictions), list(references), options, aggregation,
                                      n_samples, confidence, seed)
    return result


# --------------------------------------------------------------------------------------------
# The page

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
    ["A storm knocked out power to thousands of homes on Tuesday.",
     "Thousands of homes lost power on Tuesday after a storm.",
     "Tuesday's storm left thousands of homes without electricity.",
     "On Tuesday a storm cut power to thousands of households."],
]

INTRO = f"""
# ROUGE playground
**ROUGE** scores a generated text (the *prediction*) by how much it overlaps with one or more
human-written *references*: shared n-grams (ROUGE-N), the longest common subsequence (ROUGE-L,
and ROUGE-Lsum per sentence), the weighted LCS (ROUGE-W) and skip-bigrams (ROUGE-S/SU).
Precision asks how much of the prediction is in the reference, recall how much of the reference
is in the prediction. This page runs the `rouge_metric` for Hugging Face `evaluate`
(v{METRIC_VERSION}): the default profile reproduces `rouge_score` (what
`evaluate.load("rouge")` runs), the `rouge155` profile the official ROUGE-1.5.5 script.
"""

USAGE = """
```python
import evaluate
rouge = evaluate.load("<namespace>/rouge_metric")
rouge.compute(predictions=["the cat sat on the mat"],
              references=[["the cat lay on the mat"]],
              rouge_types=["rouge1", "rougeL"], detailed=True)
```
From Python, the Space's own API answers too: `gradio_client.Client("<namespace>/rouge_metric")`
with `.predict(prediction, references, api_name="/rouge")` (one example) or
`api_name="/rouge_corpus"` (a list of predictions and references).

**Corpus files**: JSON Lines, one `{"prediction": "...", "references": "..." or ["...", ...]}`
per line; a JSON list of such objects; a CSV with `prediction` and `references` columns
(a cell may hold a JSON list of references); or a predictions text file with one or more
reference files, one example per line. Up to 20 MB per file and 100,000 characters per text.
In JSON, `\\n` separates the sentences that ROUGE-Lsum and ROUGE-W use.
"""

CSS = """
.gradio-container { max-width: 1320px !important; margin: 0 auto; }
#intro h1 { margin-bottom: 0.2em; }
#intro p { font-size: 0.98em; line-height: 1.5; }
.rouge-table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums;
  border: none !important; margin: 0 !important; }
.rouge-table tr { border: none !important; }
.rouge-table th, .rouge-table td { padding: 8px 12px !important; text-align: left;
  border: none !important; border-bottom: 1px solid var(--border-color-primary) !important;
  background: transparent !important; }
.rouge-table thead th { font-size: 0.85em; text-transform: uppercase; letter-spacing: 0.04em;
  color: var(--body-text-color-subdued); }
.rouge-table tbody th { font-family: var(--font-mono); font-weight: 600; }
.rouge-table .num { display: block; font-weight: 600; }
.rouge-table .ci { display: block; font-size: 0.8em; color: var(--body-text-color-subdued); }
.rouge-table .bar { display: block; height: 5px; margin-top: 4px; border-radius: 3px;
  background: var(--border-color-primary); overflow: hidden; }
.rouge-table .bar > span { display: block; height: 100%; border-radius: 3px; }
.placeholder { color: var(--body-text-color-subdued); padding: 24px; text-align: center;
  border: 1px dashed var(--border-color-primary); border-radius: 8px; }
.caption { font-size: 0.85em; color: var(--body-text-color-subdued); margin-top: 6px; }
svg.chart { width: 100%; height: auto; color: var(--body-text-color); }
svg.chart .grid { stroke: var(--border-color-primary); stroke-width: 1; }
svg.chart .axis { stroke: var(--body-text-color-subdued); stroke-width: 1; }
svg.chart .tick { font-size: 11px; fill: var(--body-text-color-subdued); }
svg.chart .label { font-size: 12px; font-family: var(--font-mono); fill: currentColor; }
svg.chart .legend { font-size: 12px; fill: currentColor; }
svg.chart .muted { fill: var(--body-text-color-subdued); }
svg.chart .errorbar line { stroke: currentColor; stroke-width: 1.5; }
svg.chart .mean { stroke: #ef4444; stroke-width: 2; stroke-dasharray: 4 3; }
svg.chart .mean-label { fill: #ef4444; font-weight: 600; }
#signature textarea, #corpus-signature textarea { font-family: var(--font-mono);
  font-size: 0.85em; }
#score-button, #corpus-button { min-height: 44px; }
"""

THEME = gr.themes.Soft(
    primary_hue="indigo", secondary_hue="teal", neutral_hue="slate",
    font=["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Helvetica Neue", "Arial",
          "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "DejaVu Sans Mono",
               "monospace"])

PLACEHOLDER_SCORES = '<div class="placeholder">Press <b>Score</b> to see P/R/F per type.</div>'
PLACEHOLDER_CORPUS = ('<div class="placeholder">Upload a corpus and press <b>Score corpus</b>.'
                      '</div>')


def build_demo() -> gr.Blocks:
    with gr.Blocks(title="ROUGE playground · rouge_metric") as demo:
        gr.Markdown(INTRO, elem_id="intro")
        with gr.Row(equal_height=False):
            with gr.Column(scale=1, min_width=280):
                with gr.Group():
                    rouge_types = gr.CheckboxGroup(
                        ROUGE_TYPE_CHOICES, value=DEFAULT_TYPES, label="ROUGE types",
                        info="N-grams 1-4, LCS (L, Lsum), weighted LCS (W), skip-bigrams "
                             "(S4/SU4: gap ≤ 4; S/SU: any gap)", elem_id="rouge-types")
                    extra_types = gr.Textbox(
                        label="More types", placeholder="e.g. rougeW-1.5, rouge5, rougeSU9",
                        lines=1, elem_id="extra-types")
                with gr.Group():
                    use_stemmer = gr.Checkbox(label="Porter stemmer", value=False,
                                              elem_id="use-stemmer")
                    remove_stopwords = gr.Checkbox(label="Remove stopwords (SMART list)",
                                                   value=False, elem_id="remove-stopwords")
                profile = gr.Radio(["rouge_score", "rouge155"], value="rouge_score",
                                   label="Profile",
                                   info="rouge_score 0.1.2 or the ROUGE-1.5.5 Perl script",
                                   elem_id="profile")
                multi_ref = gr.Radio(["max", "average", "best"], value="max",
                                     label="Several references",
                                     info="max: best reference per type; average: counts "
                                          "pooled (-f A); best: -f B", elem_id="multi-ref")
                alpha = gr.Slider(0.0, 1.0, value=0.5, step=0.05, label="α (F weight)",
                                  info="F = 1 / (α/P + (1-α)/R); 0.5 is F1", elem_id="alpha")
                with gr.Accordion("Tokenizer", open=False):
                    tokenizer = gr.Radio(["default", "unicode", "whitespace"], value="default",
                                         label="Tokenizer",
                                         info="default: rouge_score's [a-z0-9]+; unicode: any "
                                              "script", elem_id="tokenizer")
                    split_sentences = gr.Checkbox(
                        label="Split sentences (rule-based) for Lsum / W", value=False,
                        elem_id="split-sentences")
            option_inputs = [rouge_types, extra_types, use_stemmer, remove_stopwords, profile,
                             alpha, multi_ref, tokenizer, split_sentences]

            with gr.Column(scale=3):
                with gr.Tabs():
                    with gr.Tab("Single example", id="single"):
                        initial_refs = sum(1 for r in EXAMPLES[1][1:] if r)
                        n_refs = gr.Number(value=initial_refs, visible=False, precision=0)
                        with gr.Row(equal_height=False):
                            with gr.Column(scale=1):
                                prediction = gr.Textbox(
                                    label="Prediction", lines=3, max_lines=12,
                                    value=EXAMPLES[1][0], elem_id="prediction",
                                    placeholder="The generated text to score")
                                ref_boxes = []
                                for k in range(MAX_REFERENCES):
                                    ref_boxes.append(gr.Textbox(
                                        label=f"Reference {k + 1}", lines=3, max_lines=12,
                                        value=EXAMPLES[1][1 + k] if k < 3 else "",
                                        visible=k < initial_refs,
                                        elem_id=f"reference-{k + 1}",
                                        placeholder="A human-written reference"))
                                with gr.Row():
                                    add_ref = gr.Button("+ Add reference", size="sm",
                                                        variant="secondary", elem_id="add-ref")
                                    remove_ref = gr.Button("− Remove reference", size="sm",
                                                           variant="secondary",
                                                           elem_id="remove-ref",
                                                           interactive=initial_refs > 1)
                                score_button = gr.Button("Score", variant="primary",
                                                         elem_id="score-button")
                            with gr.Column(scale=1):
                                table = gr.HTML(PLACEHOLDER_SCORES, elem_id="scores-table",
                                                js_on_load=None, label="Scores")
                                notes = gr.Markdown("", elem_id="notes")
                                signature = gr.Textbox(label="Signature", interactive=False,
                                                       lines=2, buttons=["copy"],
                                                       elem_id="signature")
                        gr.Examples(EXAMPLES, inputs=[prediction, *ref_boxes[:3]],
                                    outputs=[n_refs, *ref_boxes, add_ref, remove_ref],
                                    fn=example_chosen, run_on_click=True,
                                    cache_examples=False, api_visibility="private",
                                    label="Examples (click one, then Score)",
                                    example_labels=["the cat sat on the mat",
                                                    "News summary, two references",
                                                    "Stemming matters",
                                                    "Paraphrases, three references"])
                        gr.Markdown("### Matched tokens")
                        highlight_kind = gr.Dropdown(HIGHLIGHT_CHOICES, value="rouge1",
                                                     label="Show matches of",
                                                     elem_id="highlight-kind")
                        pred_hl = gr.HighlightedText(label="Prediction", color_map=COLOR_MAP,
                                                     show_legend=True, elem_id="highlight-pred",
                                                     combine_adjacent=False)
                        ref_hls = [gr.HighlightedText(label="Reference", color_map=COLOR_MAP,
                                                      show_legend=False,
                                                      show_inline_category=False,
                                                      visible=k < initial_refs,
                                                      elem_id=f"highlight-ref-{k + 1}")
                                   for k in range(MAX_REFERENCES)]
                        caption = gr.Markdown("", elem_id="highlight-caption")

                    with gr.Tab("Corpus", id="corpus"):
                        gr.Markdown("Score a whole test set: a **JSON Lines** file "
                                    '(`{"prediction": ..., "references": ...}` per line), a '
                                    "JSON list, a **CSV** with `prediction` and `references` "
                                    "columns (a cell may hold a JSON list), or a predictions "
                                    "**text file** with one or more reference files (one "
                                    "example per line; one file per reference set). Up to "
                                    f"{MAX_UPLOAD_LABEL} per file, "
                                    f"{MAX_TEXT_CHARS:,} characters per text.")
                        with gr.Row(equal_height=True):
                            corpus_file = gr.File(label="Corpus file (JSONL, JSON or CSV)",
                                                  file_types=[".jsonl", ".json", ".csv", ".tsv",
                                                              ".txt"],
                                                  elem_id="corpus-file", height=150, scale=2)
                            pred_file = gr.File(label="…or predictions (.txt)",
                                                file_types=[".txt"], elem_id="pred-file",
                                                height=150, scale=1)
                            ref_files = gr.File(label="…and reference file(s) (.txt)",
                                                file_types=[".txt"], file_count="multiple",
                                                elem_id="ref-files", height=150, scale=1)
                        with gr.Accordion("Aggregation and bootstrap", open=False):
                            with gr.Row():
                                aggregation = gr.Radio(
                                    ["macro", "micro"], value="macro", label="Aggregation",
                                    info="macro: mean of per-example scores; micro: counts "
                                         "pooled over the corpus")
                                n_samples = gr.Slider(100, 5000, value=1000, step=100,
                                                      label="Bootstrap samples")
                                confidence = gr.Slider(0.5, 0.99, value=0.95, step=0.01,
                                                       label="Confidence")
                                seed = gr.Number(value=12345, precision=0, label="Seed",
                                                 minimum=0)
                        corpus_button = gr.Button("Score corpus", variant="primary",
                                                  elem_id="corpus-button")
                        corpus_header = gr.Markdown("", elem_id="corpus-header")
                        corpus_table = gr.HTML(PLACEHOLDER_CORPUS, elem_id="corpus-table",
                                               js_on_load=None)
                        bar_chart = gr.HTML("", elem_id="corpus-bars", js_on_load=None)
                        with gr.Row(equal_height=False):
                            hist_kind = gr.Dropdown(DEFAULT_TYPES, value="rouge1",
                                                    label="ROUGE type shown below",
                                                    elem_id="hist-kind", scale=1)
                            download = gr.File(label="Per-example scores (CSV)",
                                               visible=False, elem_id="corpus-download",
                                               interactive=False, scale=2, height=70)
                        histogram = gr.HTML("", elem_id="corpus-hist", js_on_load=None)
                        worst = gr.Dataframe(headers=["#", "F", "Prediction", "Reference"],
                                             datatype=["number", "number", "str", "str"],
                                             label=f"The {WORST_SHOWN} worst examples",
                                             interactive=False, wrap=True,
                                             column_widths=["6%", "9%", "42%", "43%"],
                                             elem_id="corpus-worst")
                        corpus_signature = gr.Textbox(label="Signature", interactive=False,
                                                      buttons=["copy"],
                                                      elem_id="corpus-signature")
                        corpus_state = gr.State(None)

                    with gr.Tab("How to use", id="usage"):
                        gr.Markdown(USAGE)

        # events: single example
        single_inputs = [prediction, n_refs, *ref_boxes, *option_inputs, highlight_kind]
        single_outputs = [table, notes, signature, pred_hl, *ref_hls, caption]
        score_button.click(score_single, single_inputs, single_outputs, api_name="score",
                           api_visibility="undocumented", concurrency_id="single",
                           show_progress_on=[table])
        demo.load(score_single, single_inputs, single_outputs, api_visibility="private",
                  concurrency_id="single", show_progress_on=[table])
        highlight_kind.change(rehighlight, single_inputs, [pred_hl, *ref_hls, caption],
                              api_visibility="private", concurrency_id="single")
        add_ref.click(add_reference, [n_refs], [n_refs, *ref_boxes, add_ref, remove_ref],
                      api_visibility="private", queue=False)
        remove_ref.click(remove_reference, [n_refs, *ref_boxes],
                         [n_refs, *ref_boxes, add_ref, remove_ref], api_visibility="private",
                         queue=False)
        profile.change(profile_changed, [profile, multi_ref], [multi_ref],
                       api_visibility="private")

        # events: corpus
        corpus_button.click(
            score_corpus, [corpus_file, pred_file, ref_files, *option_inputs, aggregation,
                           n_samples, confidence, seed],
            [corpus_header, corpus_table, bar_chart, hist_kind, histogram, worst, download,
             corpus_signature, corpus_state],
            api_visibility="private", concurrency_id="corpus", concurrency_limit=2,
            show_progress_on=[corpus_table])
        hist_kind.input(corpus_view_changed, [corpus_state, hist_kind], [histogram, worst],
                        api_visibility="private", queue=False)

        gr.api(rouge, api_name="rouge", concurrency_id="single")
        gr.api(rouge_corpus, api_name="rouge_corpus", concurrency_id="corpus")
    return demo


demo = build_demo()

if __name__ == "__main__":
    threading.Thread(target=_warm_up, name="rouge-warm-up", daemon=True).start()
    demo.queue(default_concurrency_limit=4)
    demo.launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
                server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
                max_file_size=MAX_UPLOAD_BYTES, theme=THEME, css=CSS,
                footer_links=["api", "gradio"])
