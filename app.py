"""ROUGE playground: the Gradio app of the `rouge_metric` Space.

Run it with ``python app.py`` (port: $GRADIO_SERVER_PORT, default 7860; host:
$GRADIO_SERVER_NAME, default 127.0.0.1). The metric is loaded with
``evaluate.load(<folder of this file>/rouge_metric.py)``, the same code path as every user;
every number comes from its one pipeline (``Scorer``, ``reference_scores``, ``pair_marks``,
``compare``), and files are read by ``rouge_io`` (the CLI's reader).

Tabs: *Example* (P/R/F per type, each reference's scores, the matched tokens),
*Corpus* (a file scored with its bootstrap interval, chart, histogram, worst examples, CSV
download), *Compare* (paired significance tests against a baseline) and *Usage*.
API endpoints for ``gradio_client``: ``/rouge``, ``/rouge_corpus``, ``/rouge_compare``.

Limits (``LIMITS``) hold on every path, page and API alike, and are checked before any
scoring; a request over one is refused with a message naming the limit and the CLI command
that runs the job locally.
"""

from __future__ import annotations

import atexit
import contextlib
import csv
import html
import importlib
import json
import math
import os
import re
import shutil
import sys
import tempfile
import threading
import uuid
import warnings
from collections import deque
from pathlib import Path
from typing import Optional, Union

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import evaluate  # noqa: E402
import gradio as gr  # noqa: E402
import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from rouge_io import RowError, Rows, read_system_rows  # noqa: E402

metric = evaluate.load(str(HERE / "rouge_metric.py"), keep_in_memory=True)
rouge_module = sys.modules[type(metric).__module__]
_package = rouge_module.__name__.rpartition(".")[0]
pipeline = importlib.import_module(f"{_package}.rouge_pipeline")
rouge_lang = importlib.import_module(f"{_package}.rouge_lang")
RougeOptions = rouge_module.RougeOptions
RougeWarning = rouge_module.RougeWarning
parse_rouge_type = rouge_module.parse_rouge_type
PROFILES = rouge_module.PROFILES
THREADS = max(1, int(getattr(rouge_module, "THREADS", 1)))
METRIC_VERSION = getattr(rouge_module, "__version__", "?")

# --------------------------------------------------------------------------------------------
# Limits: the same on the page and the API, checked before any scoring

MAX_UPLOAD_BYTES = 20 * 1024 * 1024  # per uploaded file
MAX_RECORD_BYTES = 4 * 1024 * 1024  # one JSONL line / CSV record / text line (rouge_io)
MAX_TEXT_CHARS = 100_000  # per text, before tokenizing
MAX_TEXT_TOKENS = 20_000  # per text, after normalisation (what ROUGE compares)
MAX_REFERENCES = 5  # per example
MAX_ROWS = 20_000  # examples per corpus (and per compared system)
MAX_TOTAL_CHARS = 20_000_000  # characters of all texts of one request (as an upload)
MAX_NGRAM = 9  # N of rouge<N>
MAX_SKIP = 100  # d of rougeS<d> / rougeSU<d> (rougeS / rougeSU: any distance)
MAX_TYPES = 12
MAX_SAMPLES = 5_000  # bootstrap samples of the corpus interval
MAX_COMPARE_SAMPLES = 10_000  # resamples or trials of a comparison
MAX_SYSTEMS = 8
CPU_BUDGET_SECONDS = 10.0  # estimated work of one request
MEMORY_BUDGET_BYTES = 1 << 30
LIMITS = {
    "references per example": MAX_REFERENCES, "characters per text": MAX_TEXT_CHARS,
    "tokens per text (after normalisation)": MAX_TEXT_TOKENS, "examples per corpus": MAX_ROWS,
    "characters per request": MAX_TOTAL_CHARS,
    "N of `rouge<N>`": MAX_NGRAM, "d of `rougeS<d>` / `rougeSU<d>`": MAX_SKIP,
    "bootstrap samples": MAX_SAMPLES, "comparison samples": MAX_COMPARE_SAMPLES,
    "systems compared": MAX_SYSTEMS, "estimated CPU time per request (s)": CPU_BUDGET_SECONDS,
    "estimated memory per request (GiB)": MEMORY_BUDGET_BYTES / 2 ** 30,
}

HIGHLIGHT_TOKENS = 2_000  # tokens drawn per text until "Show all tokens" is ticked
HIGHLIGHT_SECONDS = 1.5  # estimated LCS traceback time above which ROUGE-1 is shown instead
SKIP_PAIRS_SHOWN = 12
SKIP_LIST_TOKENS = 400  # skip-bigram pairs are listed for texts up to this many tokens
CHUNK_ROWS = 1_000  # corpus rows scored per step of the progress bar
WORST_SHOWN = 10
PREVIEW_CHARS = 160
DOWNLOADS_KEPT = 16  # per-example CSVs kept on disk (older ones are deleted)

ROUGE_TYPE_CHOICES = ["rouge1", "rouge2", "rouge3", "rouge4", "rougeL", "rougeLsum", "rougeW",
                      "rougeS4", "rougeSU4", "rougeS", "rougeSU"]
DEFAULT_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
MEASURES = ("precision", "recall", "fmeasure")
BAR_COLORS = {"precision": "#6366f1", "recall": "#14b8a6", "fmeasure": "#f59e0b"}
CLI = "python rouge_cli.py"
# the Language menu, (label, value): "none" is lang=None (rouge_score's tokenizer)
NO_LANGUAGE = "none"
LANGUAGE_CHOICES = [("none (rouge_score's English tokenizer)", NO_LANGUAGE)] + [
    (f"{language.code} — {language.name}" + (" (right to left)" if language.rtl else ""),
     language.code) for language in sorted(rouge_lang.LANGUAGES, key=lambda lg: lg.code)]

# warnings.catch_warnings swaps process-wide state: one recorder at a time
_WARNINGS_LOCK = threading.Lock()


class Refused(gr.Error):
    """A request over one of the Space's limits (shown as it is, no traceback)."""


def _error(message: str, title: str = "Error") -> gr.Error:
    return gr.Error(message, title=title, print_exception=False)


def _refused(what: str, got, limit, local: str) -> gr.Error:
    return Refused(f"{what}: got {got}; the Space's limit is {limit}. Run it on your machine "
                   f"with no limit: {local}", title="Over the Space's limit",
                   print_exception=False)


def fmt(value: float) -> str:
    """Every score on the page: 4 decimals."""
    return f"{value:.4f}"


# --------------------------------------------------------------------------------------------
# Options


def _type_order(rouge_type) -> tuple:
    """Rows in type order: N by N, L, Lsum, W by weight, S and SU by distance."""
    rank = {"n": 0, "L": 1, "Lsum": 2, "W": 3, "S": 4, "SU": 5}[rouge_type.kind]
    distance = math.inf if rouge_type.max_skip < 0 else rouge_type.max_skip
    return rank, rouge_type.n, rouge_type.weight, distance, rouge_type.name


def parse_types(selected, extra: str = "") -> list:
    """The requested type names in type order, within the Space's bounds."""
    names = [n for n in list(selected or []) + re.split(r"[\s,;]+", extra or "") if n]
    if not names:
        raise _error("Pick at least one ROUGE type under Options → ROUGE types.",
                     title="No ROUGE type")
    parsed = {}
    for name in names:
        try:
            t = parse_rouge_type(name)
        except (TypeError, ValueError) as error:
            raise _error(f"Options → More types: {error}", title="Invalid type") from None
        if t.kind == "n" and t.n > MAX_NGRAM:
            raise _refused("rouge_types", name, f"rouge1 … rouge{MAX_NGRAM}",
                           f"{CLI} --rouge-types {name} PREDICTIONS REFERENCES")
        if t.kind in ("S", "SU") and t.max_skip > MAX_SKIP:
            raise _refused("rouge_types", name, f"rouge{t.kind}0 … rouge{t.kind}{MAX_SKIP}, "
                           f"or rouge{t.kind} (any distance)",
                           f"{CLI} --rouge-types {name} PREDICTIONS REFERENCES")
        parsed[name] = t
    if len(parsed) > MAX_TYPES:
        raise _refused("rouge_types", f"{len(parsed)} types", f"{MAX_TYPES} types",
                       f"{CLI} --rouge-types {','.join(parsed)} PREDICTIONS REFERENCES")
    return [t.name for t in sorted(parsed.values(), key=_type_order)]


def build_options(rouge_types, use_stemmer=False, remove_stopwords=False,
                  profile="rouge_score", alpha=0.5, multi_ref=None, tokenizer="default",
                  split_sentences=False, lang=None, **extra):
    """The metric's validated RougeOptions (its ValueError/TypeError shown as they are)."""
    try:
        return RougeOptions.build(
            rouge_types=list(rouge_types), use_stemmer=bool(use_stemmer),
            remove_stopwords=bool(remove_stopwords), profile=profile or "rouge_score",
            alpha=float(0.5 if alpha is None else alpha), multi_ref=multi_ref or None,
            tokenizer=tokenizer or "default", split_sentences=bool(split_sentences),
            lang=lang or None, **extra)
    except (ValueError, TypeError) as error:
        raise _error(str(error), title="Invalid option") from None


def _page_options(types, extra, use_stemmer, remove_stopwords, profile, alpha, multi_ref,
                  tokenizer, split_sentences, lang) -> dict:
    return dict(rouge_types=parse_types(types, extra), use_stemmer=use_stemmer,
                remove_stopwords=remove_stopwords, profile=profile, alpha=alpha,
                multi_ref=multi_ref, tokenizer=tokenizer, split_sentences=split_sentences,
                lang=None if lang in (None, "", NO_LANGUAGE) else lang)


# the Options panel's controls, in _page_options' order (the handlers slice their arguments)
N_OPTIONS = 10


def _cli_flags(options: dict) -> str:
    flags = [f"--rouge-types {','.join(options['rouge_types'])}"]
    for key in ("use_stemmer", "remove_stopwords", "split_sentences"):
        if options.get(key):
            flags.append(f"--{key.replace('_', '-')}")
    for key in ("profile", "multi_ref", "tokenizer", "lang"):
        if options.get(key) and options[key] not in ("rouge_score", "default"):
            flags.append(f"--{key.replace('_', '-')} {options[key]}")
    return " ".join(flags)


# --------------------------------------------------------------------------------------------
# Inputs and the budget


def check_texts(predictions: list, references: list) -> tuple:
    """(predictions, references as lists of lists) within the row, reference and character
    limits; the metric's own checks (types, empty lists) come first."""
    try:
        predictions, references = rouge_module.check_inputs(predictions, references)
    except (TypeError, ValueError) as error:
        raise _error(str(error), title="Invalid input") from None
    if len(predictions) > MAX_ROWS:
        raise _refused("examples", f"{len(predictions):,}", f"{MAX_ROWS:,} examples",
                       f"{CLI} --input YOUR_FILE.jsonl")
    references = [[r] if isinstance(r, str) else r for r in references]
    total = sum(map(len, predictions)) + sum(len(r) for refs in references for r in refs)
    if total > MAX_TOTAL_CHARS:
        raise _refused("this request", f"{total:,} characters of text",
                       f"{MAX_TOTAL_CHARS:,} characters per request",
                       f"{CLI} --input YOUR_FILE.jsonl")
    for k, (p, refs) in enumerate(zip(predictions, references)):
        if len(refs) > MAX_REFERENCES:
            raise _refused(f"references[{k}]", f"{len(refs)} references",
                           f"{MAX_REFERENCES} per example", f"{CLI} --input YOUR_FILE.jsonl")
        for where, text in [(f"predictions[{k}]", p)] + [
                (f"references[{k}][{j}]", r) for j, r in enumerate(refs)]:
            if len(text) > MAX_TEXT_CHARS:
                raise _refused(where, f"{len(text):,} characters",
                               f"{MAX_TEXT_CHARS:,} characters per text",
                               f"{CLI} --input YOUR_FILE.jsonl")
    return predictions, references


def _text_sizes(options, texts: list) -> dict:
    """Per text (int64 arrays): tokens, sentences, the longest sentence, the tokens in
    sentences of more than 64 tokens (no bit-parallel rows), and sentences of at most 64."""
    if options.split_sentences:
        texts = [pipeline.split_sentences_rule_based(t) for t in texts]
    token_options = dict(stemmer=options.stemmer, stopwords=options.remove_stopwords)
    flat = options.tokenizer.batch(texts, small=sum(map(len, texts)) <= 100_000,
                                   **token_options)
    sent = options.tokenizer.sentence_batch(texts, **token_options) or flat
    lengths = np.diff(sent.sent_offsets)
    owner = np.repeat(np.arange(len(texts)), np.diff(sent.text_sent_offsets))
    longest = np.zeros(len(texts), dtype=np.int64)
    np.maximum.at(longest, owner, lengths)
    return {"tokens": np.diff(flat.text_offsets),
            "sent_tokens": np.bincount(owner, lengths, len(texts)).astype(np.int64),
            "sentences": np.diff(sent.text_sent_offsets).astype(np.int64),
            "longest": longest,
            "long_tokens": np.bincount(owner, lengths * (lengths > 64), len(texts)),
            "short_sentences": np.bincount(owner, (lengths > 0) & (lengths <= 64),
                                           len(texts))}


def estimate_cost(options, sizes: dict, pair_pred: np.ndarray, pair_ref: np.ndarray,
                  repeats: int = 1, traceback: bool = False) -> tuple:
    """(seconds, bytes) the kernels need for these pairs: a model of rouge_kernels' costs,
    calibrated on this machine's 2 cores (ns per DP cell, per sentence pair, per bit row;
    see docs/readme_app.md). repeats: the kernels run that many times (per-reference scores,
    the highlights' two directions); traceback: rouge_score's ROUGE-L traced back as the
    highlights do (a full DP, where scoring counts bit-parallel)."""
    lp = sizes["tokens"][pair_pred].astype(np.float64)
    lr = sizes["tokens"][pair_ref].astype(np.float64)
    sp = sizes["sentences"][pair_pred].astype(np.float64)
    sr = sizes["sentences"][pair_ref].astype(np.float64)
    sent_p = sizes["sent_tokens"][pair_pred].astype(np.float64)
    sent_r = sizes["sent_tokens"][pair_ref].astype(np.float64)
    long_p = sizes["long_tokens"][pair_pred].astype(np.float64)
    short_p = sizes["short_sentences"][pair_pred].astype(np.float64)
    max_p = sizes["longest"][pair_pred].astype(np.float64)
    max_r = sizes["longest"][pair_ref].astype(np.float64)
    seconds, peak = 2e-8 * float(sizes["tokens"].sum()), 64.0 * float(sizes["tokens"].sum())
    for t in options.rouge_types:
        kind = t.kind
        if kind == "n":
            seconds += 5e-8 * t.n * float((lp + lr).sum())
        elif kind == "L" and options.profile.rouge_l == "lcs":
            seconds += repeats * 2e-9 * float((lp * np.ceil(lr / 64) + lp + lr).sum())
            if traceback:  # one sentence per text, through the union kernel's DP
                seconds += repeats * float((_cell_seconds(np.maximum(lp, lr)) * lp * lr).sum())
                peak = max(peak, _dp_bytes(float(lp.max()), float(lr.max())))
        elif kind in ("L", "Lsum", "W"):
            dp_cells = sent_p * sent_r if kind == "W" else long_p * sent_r
            bit_work = 0.0 if kind == "W" else sr * (sent_p - long_p) + short_p * sent_r
            seconds += repeats * float((_cell_seconds(np.maximum(max_p, max_r)) * dp_cells
                                            + 2e-9 * bit_work + 1e-6 * sp * sr).sum())
            needs_dp = (max_p > 64) | (kind == "W")
            if needs_dp.any():
                peak = max(peak, _dp_bytes(float(max_p[needs_dp].max()),
                                           float(max_r[needs_dp].max())))
        elif t.max_skip < 0:
            seconds += 2e-9 * float(((lp + lr) * np.minimum(lp, lr)).sum())
        else:
            keys = (lp + lr) * (t.max_skip + 1)
            seconds += 2e-8 * float(keys.sum())
            peak = max(peak, 48.0 * float(keys.max()))
    return seconds / max(1, min(THREADS, len(pair_pred))) ** 0.5, peak * THREADS


def _cell_seconds(longest: np.ndarray) -> np.ndarray:
    """Seconds per DP cell of the (weighted) LCS with traceback, by the longest sentence:
    measured on this machine ~2.5 ns for sentences of 25 tokens, 5-11 ns at 2k-10k, 10-15 ns
    at 15k-20k when scoring, up to 32 ns for the highlights' tracebacks at 20k (the rows
    leave the caches)."""
    return (2.5e-9 + 1.25e-8 * np.minimum(1.0, longest / 5000.0)) \
        * np.maximum(1.0, longest / 15000.0)


def _dp_bytes(rows: float, cols: float) -> float:
    """Memory of one checkpointed (weighted) LCS table in rouge_kernels: the whole table up
    to 4M cells, else 2 sqrt(rows) rows of it (16 bytes a cell), either way round."""
    rows, cols = max(rows, cols), min(rows, cols)
    if (rows + 1) * (cols + 1) <= 1 << 22:
        return 32.0 * (rows + 1) * (cols + 1)
    return 32.0 * (2 * math.sqrt(rows) + 2) * (max(rows, cols) + 1)


def check_budget(options, predictions: list, references: list, local: str,
                 repeats: int = 1, extra_seconds: float = 0.0) -> dict:
    """Refuse up front what is over the token limit or the CPU/memory budget; returns the
    text sizes (tokens per text) for the caller."""
    texts = list(predictions) + [r for refs in references for r in refs]
    try:
        sizes = _text_sizes(options, texts)
    except (TypeError, ValueError) as error:
        raise _error(str(error), title="Invalid input") from None
    too_long = np.flatnonzero(sizes["tokens"] > MAX_TEXT_TOKENS)
    if len(too_long):
        k = int(too_long[0])
        where = f"predictions[{k}]" if k < len(predictions) else "a reference"
        raise _refused(where, f"{int(sizes['tokens'][k]):,} tokens after normalisation",
                       f"{MAX_TEXT_TOKENS:,} tokens per text", local)
    counts = np.array([len(r) for r in references], dtype=np.int64)
    pair_pred = np.repeat(np.arange(len(predictions)), counts)
    pair_ref = np.arange(len(predictions), len(texts))
    seconds, peak = estimate_cost(options, sizes, pair_pred, pair_ref, repeats)
    seconds += extra_seconds
    if seconds > CPU_BUDGET_SECONDS:
        raise _refused("this request", f"an estimated {seconds:,.0f} s of CPU",
                       f"about {CPU_BUDGET_SECONDS:g} s per request", local)
    if peak > MEMORY_BUDGET_BYTES:
        raise _refused("this request", f"an estimated {peak / 2 ** 30:,.1f} GiB of memory",
                       f"{MEMORY_BUDGET_BYTES / 2 ** 30:g} GiB per request", local)
    return sizes


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
# Single example


def score_example(prediction: str, references: list, options: dict) -> dict:
    """One example through the pipeline: {"scores": {type: (P, R, F)}, "per_reference":
    {type: (float64[refs, 3], chosen)}, "signature", "warnings", "options"}."""
    (prediction,), (references,) = check_texts([prediction], [references])
    opts = build_options(**options, use_aggregator=False, detailed=True)
    # the highlights are bounded on their own (HIGHLIGHT_SECONDS); with several references
    # the kernels run twice (the example, then each reference alone)
    check_budget(opts, [prediction], [references],
                 f"{CLI} --input example.jsonl {_cli_flags(options)}",
                 repeats=1 + (len(references) > 1))
    scorer = pipeline.Scorer(opts)
    try:
        batch = scorer.add([prediction], [references])
    except (ValueError, TypeError) as error:
        raise _error(str(error), title="Invalid input") from None
    per_reference = pipeline.reference_scores(opts, prediction, references) \
        if len(references) > 1 else {}
    return {"scores": {name: tuple(float(v) for v in values[0])
                       for name, values in batch.scores.items()},
            "per_reference": per_reference, "signature": scorer.result()["signature"],
            "warnings": scorer.warnings(), "opts": opts}


def _table_rows(scores: dict) -> str:
    rows = []
    for name, values in scores.items():
        cells = "".join(
            f'<td class="score {key}" data-value="{v!r}"><span class="num">{fmt(v)}</span>'
            f'<span class="bar"><span style="width:{max(0.0, min(1.0, v)) * 100:.1f}%;'
            f'background:{BAR_COLORS[key]}"></span></span></td>'
            for key, v in zip(MEASURES, values))
        rows.append(f'<tr data-type="{html.escape(name)}"><th scope="row">{html.escape(name)}'
                    f"</th>{cells}</tr>")
    return "".join(rows)


def _f_head(alpha: float) -> str:
    return "F<sub>1</sub>" if alpha == 0.5 else f"F (α = {alpha:g})"


def scores_table_html(scored: dict) -> str:
    opts = scored["opts"]
    table = ('<div class="table-wrap"><table class="rouge-table" id="rouge-scores"><thead><tr>'
             f'<th>Type</th><th>Precision</th><th>Recall</th><th>{_f_head(opts.alpha)}</th>'
             f'</tr></thead><tbody>{_table_rows(scored["scores"])}</tbody></table></div>')
    return table + per_reference_html(scored) + warnings_html(scored["warnings"])


def per_reference_html(scored: dict) -> str:
    per_ref = scored["per_reference"]
    if not per_ref:
        return ""
    n_refs = len(next(iter(per_ref.values()))[0])
    mode = scored["opts"].multi_ref
    head = "".join(f"<th>Ref {k + 1}</th>" for k in range(n_refs))
    rows = []
    for name, (alone, chosen) in per_ref.items():
        cells = []
        for k in range(n_refs):
            p, r, f = (float(v) for v in alone[k])
            mark = k == chosen
            cells.append(f'<td class="score{" chosen" if mark else ""}" data-ref="{k + 1}" '
                         f'data-value="{f!r}" title="P {fmt(p)} · R {fmt(r)} · F {fmt(f)}">'
                         f'<span class="num">{fmt(f)}{" ★" if mark else ""}</span></td>')
        rows.append(f'<tr data-type="{html.escape(name)}"><th scope="row">'
                    f'{html.escape(name)}</th>{"".join(cells)}</tr>')
    how = {"max": "★ the reference with the best F, which the score above uses (max)",
           "best": "★ the reference ROUGE-1.5.5's -f B picks (best recall)",
           "average": "the score above pools the references' counts (average): no single "
                      "reference is chosen"}[mode]
    return (f'<details class="per-ref" open><summary>F against each reference alone</summary>'
            f'<div class="table-wrap"><table class="rouge-table" id="per-reference"><thead><tr>'
            f'<th>Type</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
            f'<p class="caption">{html.escape(how)}. Hover a cell for P and R.</p></details>')


def warnings_html(messages: list) -> str:
    """The metric's warnings, one list item each, pointing at the page's control."""
    if not messages:
        return ""
    controls = [("lang=", "Options → Language"),
                ("tokenizer=\"unicode\"", "Options → Tokenizer → unicode"),
                ("split_sentences=True", "Options → Tokenizer → Split sentences"),
                ("use_stemmer", "Options → Porter stemmer"),
                ("n_samples", "Aggregation and bootstrap → Bootstrap samples")]
    items = []
    for message in messages:
        hint = [page for code, page in controls if code in message]
        items.append(f"<li>{html.escape(message)}"
                     + (f' <span class="control">On this page: {html.escape(hint[0])}.</span>'
                        if hint else "") + "</li>")
    return f'<ul class="warnings" id="warnings" role="status">{"".join(items)}</ul>'


def error_html(error: gr.Error, element_id: str) -> str:
    title = getattr(error, "title", "Error") or "Error"
    return (f'<div class="error-panel" id="{element_id}" role="alert"><b>{html.escape(title)}'
            f'</b><p>{html.escape(str(error.message))}</p></div>')


# --------------------------------------------------------------------------------------------
# Single example: matched tokens


def token_spans(text: str, words: list, opts) -> Optional[list]:
    """(start, end) in ``text`` of each of ROUGE's tokens ``words``: the tokenizer run on each
    whitespace-separated chunk of the text (no tokenizer produces a token across whitespace),
    narrowed to its letters and digits when the chunk gives one token. None when the chunk
    tokens do not line up with ``words``."""
    memo: dict = {}
    spans: list = []
    token_options = dict(stemmer=opts.stemmer, stopwords=opts.remove_stopwords)
    for match in re.finditer(r"\S+", text):
        chunk = match.group()
        if chunk not in memo:
            memo[chunk] = [w for s in opts.tokenizer.tokens(chunk, **token_options) for w in s]
        pieces = memo[chunk]
        if not pieces:
            continue
        start, end = match.span()
        if len(pieces) == 1:
            a, b = start, end
            while a < b and not text[a].isalnum():
                a += 1
            while b > a and not text[b - 1].isalnum():
                b -= 1
            start, end = (a, b) if a < b else (start, end)
        if words[len(spans):len(spans) + len(pieces)] != pieces:
            return None
        spans.extend(_piece_spans(text, start, end, pieces) if len(pieces) > 1
                     else [(start, end)])
    return spans if len(spans) == len(words) else None


def _piece_spans(text: str, start: int, end: int, pieces: list) -> list:
    """Each token's own characters within one chunk (日本語 -> 日, 本, 語) when the tokens are
    found there in order as they are (lower-cased); else the whole chunk for each."""
    lowered = text[start:end].lower()
    if len(lowered) == end - start:
        spans, pos = [], 0
        for piece in pieces:
            found = lowered.find(piece, pos)
            if found < 0:
                break
            spans.append((start + found, start + found + len(piece)))
            pos = found + len(piece)
        else:
            return spans
    return [(start, end)] * len(pieces)


def _runs(marks, limit: int) -> list:
    """[(first, last)] of each run of consecutive marked tokens among the first ``limit``."""
    runs, start = [], None
    for k in range(min(limit, len(marks))):
        if marks[k] and start is None:
            start = k
        if start is not None and (not marks[k] or k + 1 == min(limit, len(marks))):
            runs.append((start, k if marks[k] else k - 1))
            start = None
    return runs


def highlight_html(label: str, text: str, words: list, marks, opts, drawn: int,
                   with_runs: bool = False, element_id: str = "", more_coming: bool = False) -> str:
    """One text with ROUGE's tokens marked (matched / not matched), right to left where the
    text is (dir="auto"); its first `drawn` tokens (more_coming: the rest is on its way)."""
    limit = min(len(words), drawn)
    spans = token_spans(text, words, opts)
    if spans is None:  # show ROUGE's own tokens instead of the text
        text = " ".join(words[:limit])
        spans, pos = [], 0
        for w in words[:limit]:
            spans.append((pos, pos + len(w)))
            pos += len(w) + 1
    run_of = {}
    if with_runs:
        for first, last in _runs(marks, limit):
            for k in range(first, last + 1):
                run_of[k] = last - first + 1
    out, pos, k = [], 0, 0
    while k < limit:
        start, end = spans[k]
        matched = bool(marks[k])
        j = k + 1
        while j < limit and spans[j] == spans[k]:  # one chunk, several tokens
            matched = matched or bool(marks[j])
            j += 1
        out.append(html.escape(text[pos:start]))
        title = f' title="run of {run_of[k]}"' if k in run_of else ""
        css = ("m run" if k in run_of else "m") if matched else "u"
        out.append(f'<span class="{css}"{title}>{html.escape(text[start:end])}</span>')
        pos, k = end, j
    cut = len(words) - limit
    tail = html.escape(text[pos:]) if not cut else ""
    if not cut:
        more = ""
    elif more_coming:
        more = f'<p class="more drawing">… drawing {cut:,} more tokens</p>'
    else:
        more = (f'<p class="more">… {cut:,} more tokens not drawn; tick <b>Show all tokens</b> '
                "to draw them.</p>")
    matched = int(np.count_nonzero(marks))
    return (f'<div class="hl-block"{f" id={element_id!r}" if element_id else ""}>'
            f'<div class="hl-label">{html.escape(label)} <span class="muted">· {len(words):,} '
            f'tokens, {matched:,} marked</span></div><div class="hl-text" dir="auto">'
            f'{"".join(out)}{tail}</div>{more}</div>')


def highlights(prediction: str, references: list, options: dict, kind: str,
               show_all: bool = False) -> str:
    """The Matched tokens panel in one piece: every token drawn with show_all, else the first
    HIGHLIGHT_TOKENS of each text (see highlight_panels)."""
    first = sys.maxsize if show_all else HIGHLIGHT_TOKENS
    return next(highlight_panels(prediction, references, options, kind, show_all, first))


def highlight_panels(prediction: str, references: list, options: dict, kind: str,
                     show_all: bool = False, first: int = HIGHLIGHT_TOKENS):
    """The Matched tokens panel: the prediction marked against the reference its score
    comes from (or with the most matches), each reference against the prediction. Yields it
    with the first `first` tokens of each text drawn; with show_all, then again with 4x as
    many each time until every token is (the marks are computed once): the page shows the
    start at once and the rest as the browser draws it."""
    opts = build_options(**options)
    names = [t.name for t in opts.rouge_types]
    kind = kind if kind in names else names[0]
    rouge_type = next(t for t in opts.rouge_types if t.name == kind)
    notes = []
    lcs_kind = rouge_type.kind in ("L", "Lsum", "W")
    if lcs_kind:
        sizes = _text_sizes(opts, [prediction, *references])
        pairs = np.arange(1, len(references) + 1)
        seconds, _ = estimate_cost(RougeOptions.build(rouge_types=[kind], **{
            k: v for k, v in options.items() if k != "rouge_types"}), sizes,
            np.zeros(len(references), dtype=np.int64), pairs, repeats=2, traceback=True)
        if seconds > HIGHLIGHT_SECONDS:
            notes.append(f"The texts are too long to trace {kind} here (an estimated "
                         f"{seconds:.1f} s); showing the ROUGE-1 matches instead.")
            rouge_type = parse_rouge_type("rouge1")
    elif rouge_type.kind in ("S", "SU"):  # the shared pairs are listed in Python
        longest = int(_text_sizes(opts, [prediction, *references])["tokens"].max())
        if longest > SKIP_LIST_TOKENS:
            notes.append(f"The shared skip-bigrams are listed for texts of up to "
                         f"{SKIP_LIST_TOKENS} tokens (the longest here has {longest:,}); "
                         "showing the ROUGE-1 matches instead.")
            rouge_type = parse_rouge_type("rouge1")
    results = [pipeline.pair_marks(opts, prediction, r, rouge_type) for r in references]
    best = max(range(len(references)), key=lambda k: (int(np.count_nonzero(results[k][0])), -k))
    if len(references) > 1 and kind in names:
        scored = pipeline.reference_scores(
            RougeOptions.build(rouge_types=[rouge_type.name], **{
                k: v for k, v in options.items() if k != "rouge_types"}),
            prediction, references)
        chosen = scored[rouge_type.name][1]
        best = best if chosen is None else chosen
    marks_p, _, words_p, _ = results[best]
    with_runs = rouge_type.kind == "W"
    caption = [_explain(rouge_type, len(references), best)]
    if rouge_type.kind in ("S", "SU"):
        caption.append(_skip_pairs_html(results[best], rouge_type))
    caption += [f'<p class="note">{html.escape(n)}</p>' for n in notes]
    texts = [("Prediction", prediction, words_p, marks_p, "hl-pred")]
    for k, (ref, (_, marks_r, _, words_r)) in enumerate(zip(references, results)):
        label = f"Reference {k + 1}" if len(references) > 1 else "Reference"
        texts.append((label, ref, words_r, marks_r, f"hl-ref-{k + 1}"))
    longest = max(len(words) for _, _, words, _, _ in texts)
    drawn = first
    while True:
        coming = show_all and drawn < longest
        blocks = [highlight_html(label, text, words, marks, opts, drawn, with_runs, element_id,
                                 coming)
                  for label, text, words, marks, element_id in texts]
        yield (f'<div id="highlights-inner" data-drawn="{min(drawn, longest)}">'
               f'{"".join(caption)}{"".join(blocks)}</div>')
        if not coming:
            return
        drawn *= 4


def _explain(rouge_type, n_refs: int, best: int) -> str:
    what = {"n": f"tokens of the {rouge_type.n}-grams the two texts share (each counted at "
                 "most as often as the other text has it)",
            "L": "tokens on a longest common subsequence, as the scoring kernel traces it",
            "Lsum": "tokens on the union of each reference sentence's LCS with the prediction's"
                    " sentences, as the scoring kernel traces it",
            "W": "tokens on the weighted LCS, underlined by consecutive run (longer runs "
                 "weigh more: f(k) = k^w)",
            "S": "tokens of the skip-bigrams (ordered word pairs) the texts share",
            "SU": "tokens of the skip-bigrams and unigrams the texts share"}[rouge_type.kind]
    against = f"reference {best + 1} (the one its score uses)" if n_refs > 1 else \
        "the reference"
    return (f'<p class="caption"><b>{html.escape(rouge_type.name)}</b>: marked are the {what}.'
            f" The prediction is marked against {against}; each reference against the "
            "prediction. Unmarked text is not a token.</p>")


def _skip_pairs_html(result, rouge_type) -> str:
    _, _, words_p, words_r = result
    ids: dict = {}
    a = [ids.setdefault(w, len(ids)) for w in words_p]
    b = [ids.setdefault(w, len(ids)) for w in words_r]
    word_of = {v: k for k, v in ids.items()}
    shared = pipeline.skip_bigram_matches(a, b, rouge_type.max_skip)
    if not shared:
        return '<p class="note">No shared skip-bigrams.</p>'
    chips = "".join(f'<li><span class="m">{html.escape(word_of[x])}</span> … '
                    f'<span class="m">{html.escape(word_of[y])}</span> × {c}</li>'
                    for (x, y), c in shared[:SKIP_PAIRS_SHOWN])
    return (f'<p class="caption">Shared skip-bigrams ({len(shared):,} distinct, most frequent '
            f'first):</p><ul class="pairs" id="skip-pairs">{chips}</ul>')


# --------------------------------------------------------------------------------------------
# Single example: page handlers


def _single_args(args):
    prediction, n_refs = args[0], int(args[1] or 1)
    references = [r for r in args[2:2 + MAX_REFERENCES][:n_refs] if r and r.strip()]
    first = 2 + MAX_REFERENCES
    option_values = args[first:first + N_OPTIONS]
    kind, show_all = args[first + N_OPTIONS], args[first + N_OPTIONS + 1]
    if not prediction or not prediction.strip():
        raise _error("Type a prediction (the generated text to score) in the Prediction box.",
                     title="No prediction")
    if not references:
        raise _error("Type at least one reference in the Reference box.",
                     title="No reference")
    return prediction, references, _page_options(*option_values), kind, bool(show_all)


def score_single(*args):
    """The Score button: table (with per-reference scores and warnings), signature, the
    copyable tables, the highlight menu and the highlights (yielded again as more tokens are
    drawn, with Show all tokens). An error replaces them all."""
    try:
        prediction, references, options, kind, show_all = _single_args(args)
        scored = score_example(prediction, references, options)
        names = list(scored["scores"])
        kind = kind if kind in names else names[0]
        panels = highlight_panels(prediction, references, options, kind, show_all)
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


def rehighlight(*args):
    """The Show matches of menu / Show all tokens: redraw the marks only (progressively)."""
    try:
        prediction, references, options, kind, show_all = _single_args(args)
        (prediction,), (references,) = check_texts([prediction], [references])
        check_budget(build_options(**options), [prediction], [references],
                     f"{CLI} --input example.jsonl {_cli_flags(options)}")
        yield from highlight_panels(prediction, references, options, kind, show_all)
    except gr.Error as error:
        yield error_html(error, "highlight-error")


def table_markdown(scores: dict) -> str:
    lines = ["| Type | Precision | Recall | F |", "|---|---:|---:|---:|"]
    lines += [f"| {name} | " + " | ".join(fmt(v) for v in values) + " |"
              for name, values in scores.items()]
    return "\n".join(lines)


def table_latex(scores: dict) -> str:
    lines = [r"\begin{tabular}{lrrr}", r"\toprule", r"Type & P & R & F \\", r"\midrule"]
    lines += [f"{name.replace('_', chr(92) + '_')} & "
              + " & ".join(fmt(v) for v in values) + r" \\" for name, values in scores.items()]
    return "\n".join(lines + [r"\bottomrule", r"\end{tabular}"])


def _ref_box_updates(n: int):
    return [gr.update(visible=k < n) for k in range(MAX_REFERENCES)]


def add_reference(n_refs):
    n = min(int(n_refs or 1) + 1, MAX_REFERENCES)
    return (n, *_ref_box_updates(n), gr.update(interactive=n < MAX_REFERENCES),
            gr.update(interactive=n > 1))


def remove_reference(n_refs):
    n = max(int(n_refs or 1) - 1, 1)
    boxes = [gr.update(value="", visible=False) if k >= n else gr.update(visible=True)
             for k in range(MAX_REFERENCES)]
    return (n, *boxes, gr.update(interactive=n < MAX_REFERENCES), gr.update(interactive=n > 1))


def example_chosen(prediction, *ref_texts):
    """An example fills the boxes: as many reference boxes as it has references."""
    n = max([1] + [k + 1 for k, t in enumerate(ref_texts) if t])
    return (n, *_ref_box_updates(n), gr.update(interactive=n < MAX_REFERENCES),
            gr.update(interactive=n > 1))


def profile_changed(profile, multi_ref):
    """A profile without a 'max' mode (ROUGE-1.5.5) takes its own default."""
    allowed = PROFILES[profile].multi_ref_allowed
    if multi_ref not in allowed:
        return gr.update(value=PROFILES[profile].multi_ref_default)
    return gr.update()


# --------------------------------------------------------------------------------------------
# Corpus: reading (rouge_io, the CLI's reader)


def _file_path(file) -> Optional[str]:
    if file is None:
        return None
    if isinstance(file, (list, tuple)):
        return _file_path(file[0]) if file else None
    return file if isinstance(file, str) else getattr(file, "name", None) or file.get("path")


def _display_name(path: str) -> str:
    return Path(path).name


def _read_rows(rows: Rows, shown: str) -> tuple:
    """Up to MAX_ROWS rows; RowError (with the upload's temporary path replaced by the file's
    name) as a readable error."""
    predictions, references = [], []
    try:
        with rows:
            for prediction, refs in rows:
                if len(predictions) == MAX_ROWS:
                    raise _refused("the corpus", f"more than {MAX_ROWS:,} examples",
                                   f"{MAX_ROWS:,} examples", f"{CLI} --input {shown}")
                predictions.append(prediction)
                references.append(refs)
    except RowError as error:
        message = str(error)
        for path in rows.paths:
            message = message.replace(path, _display_name(path))
        raise _error(message, title="Unreadable file") from None
    if not predictions:
        raise _error(f"{shown} has no examples.", title="Empty corpus")
    return predictions, references


def _check_upload(path: str) -> None:
    size = os.path.getsize(path)
    if size > MAX_UPLOAD_BYTES:
        raise _refused(_display_name(path), f"{size / 2 ** 20:.1f} MB",
                       f"{MAX_UPLOAD_BYTES // 2 ** 20} MB per file",
                       f"{CLI} --input {_display_name(path)}")


def _open_rows(path: str, **kwargs) -> Rows:
    try:
        return Rows(path, max_record_bytes=MAX_RECORD_BYTES, **kwargs)
    except RowError as error:
        raise _error(str(error).replace(path, _display_name(path)),
                     title="Unreadable file") from None


def load_corpus(corpus_file, pred_file, ref_files) -> tuple:
    """(predictions, references, description) from the uploads (rouge_io reads every
    format); gr.Error on any problem."""
    path = _file_path(corpus_file)
    ref_paths = [_file_path(p) for p in (ref_files if isinstance(ref_files, list)
                                         else [ref_files] if ref_files else [])]
    ref_paths = [p for p in ref_paths if p]
    pred_path = _file_path(pred_file)
    if path:
        _check_upload(path)
        name = _display_name(path)
        preds, refs = _read_rows(_open_rows(path), name)
        return preds, refs, name
    if not pred_path and not ref_paths:
        raise _error("Upload a corpus file (JSONL, JSON, CSV or TSV), or a predictions text "
                     "file with one or more reference text files.", title="No corpus")
    if not pred_path or not ref_paths:
        missing = "predictions" if not pred_path else "reference"
        raise _error(f"Upload the {missing} text file too (one example per line).",
                     title="Missing file")
    for p in [pred_path, *ref_paths]:
        _check_upload(p)
    shown = " + ".join(_display_name(p) for p in [pred_path, *ref_paths])
    preds, refs = _read_rows(_open_rows(pred_path, format="text", reference_paths=ref_paths),
                             shown)
    return preds, refs, shown


# --------------------------------------------------------------------------------------------
# Corpus: scoring


def score_corpus_lists(predictions, references, options: dict, aggregation="macro",
                       n_samples=1000, confidence=0.95, seed=12345, progress=None):
    """Check the limits, then score with the metric's Scorer in chunks: (compute()'s
    detailed result, per-example scores {type: float64[N, 3]}, the metric's warnings)."""
    predictions, references = check_texts(predictions, references)
    if isinstance(n_samples, float) and n_samples.is_integer():
        n_samples = int(n_samples)
    if isinstance(seed, float) and seed.is_integer():
        seed = int(seed)
    if isinstance(n_samples, int) and not isinstance(n_samples, bool) \
            and n_samples > MAX_SAMPLES:
        raise _refused("n_samples", f"{n_samples:,}", f"{MAX_SAMPLES:,}",
                       f"{CLI} --input YOUR_FILE.jsonl --n-samples {n_samples}")
    opts = build_options(**options, use_aggregator=True, detailed=True,
                         aggregation=aggregation, n_samples=n_samples,
                         confidence=float(confidence), seed=seed)
    bootstrap = 2e-9 * opts.n_samples * len(predictions) * len(opts.rouge_types)
    check_budget(opts, predictions, references,
                 f"{CLI} --input YOUR_FILE.jsonl {_cli_flags(options)}",
                 extra_seconds=bootstrap)
    scorer = pipeline.Scorer(opts)
    n, scores = len(predictions), {}
    for start in range(0, n, CHUNK_ROWS):
        if progress is not None:
            progress((start, n), desc=f"Scoring examples {start + 1:,}–"
                                      f"{min(start + CHUNK_ROWS, n):,} of {n:,}",
                     unit="examples")
        try:
            batch = scorer.add(predictions[start:start + CHUNK_ROWS],
                               references[start:start + CHUNK_ROWS])
        except (ValueError, TypeError) as error:
            raise _error(str(error), title="Invalid input") from None
        for name, values in batch.scores.items():
            scores.setdefault(name, []).append(values)
    return (scorer.result(), {k: np.concatenate(v) for k, v in scores.items()},
            scorer.warnings())


def summary_html(result: dict, confidence: float, aggregation: str) -> str:
    names = [k for k in result if k not in ("signature", "count")]
    rows = []
    for name in names:
        cells = "".join(
            f'<td class="score {key}" data-mid="{result[name][key]["mid"]!r}" '
            f'data-low="{result[name][key]["low"]!r}" data-high="{result[name][key]["high"]!r}">'
            f'<span class="num">{fmt(result[name][key]["mid"])}</span><span class="ci">'
            f'{fmt(result[name][key]["low"])}–{fmt(result[name][key]["high"])}</span></td>'
            for key in MEASURES)
        rows.append(f'<tr data-type="{html.escape(name)}"><th scope="row">{html.escape(name)}'
                    f"</th>{cells}</tr>")
    what = ("the mean over" if aggregation == "macro"
            else "P/R/F of the counts summed over") + f" {result['count']:,} examples"
    return ('<div class="table-wrap"><table class="rouge-table" id="corpus-scores"><thead><tr>'
            '<th>Type</th><th>Precision</th><th>Recall</th><th>F</th></tr></thead><tbody>'
            f'{"".join(rows)}</tbody></table></div><p class="caption">Each cell: {what}, and '
            f'below it the {confidence:.0%} bootstrap interval.</p>')


def bar_chart_svg(result: dict, confidence: float) -> str:
    """Grouped bars (P, R, F per type) with the bootstrap interval as error bars."""
    types = [k for k in result if k not in ("signature", "count")]
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
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" '
                     f'y2="{y(tick):.1f}" class="grid"/><text x="{left - 8}" '
                     f'y="{y(tick) + 4:.1f}" text-anchor="end" class="tick">{tick:.1f}</text>')
    for g, name in enumerate(types):
        x0 = left + g * group_w + (group_w - 3 * bar_w) / 2
        for k, key in enumerate(MEASURES):
            e = result[name][key]
            bx = x0 + k * bar_w
            cx = bx + bar_w / 2
            parts.append(
                f'<rect x="{bx + 1:.1f}" y="{y(e["mid"]):.1f}" width="{bar_w - 2:.1f}" '
                f'height="{top + plot_h - y(e["mid"]):.1f}" fill="{BAR_COLORS[key]}" rx="2">'
                f'<title>{name} {key}: {fmt(e["mid"])} [{fmt(e["low"])}, {fmt(e["high"])}]'
                f'</title></rect><g class="errorbar"><line x1="{cx:.1f}" x2="{cx:.1f}" '
                f'y1="{y(e["low"]):.1f}" y2="{y(e["high"]):.1f}"/><line x1="{cx - 4:.1f}" '
                f'x2="{cx + 4:.1f}" y1="{y(e["low"]):.1f}" y2="{y(e["low"]):.1f}"/><line '
                f'x1="{cx - 4:.1f}" x2="{cx + 4:.1f}" y1="{y(e["high"]):.1f}" '
                f'y2="{y(e["high"]):.1f}"/></g>')
        parts.append(f'<text x="{left + (g + 0.5) * group_w:.1f}" y="{height - bottom + 20}" '
                     f'text-anchor="middle" class="label">{html.escape(name)}</text>')
    lx = left
    for key, label in (("precision", "Precision"), ("recall", "Recall"), ("fmeasure", "F")):
        parts.append(f'<rect x="{lx}" y="10" width="12" height="12" rx="2" '
                     f'fill="{BAR_COLORS[key]}"/><text x="{lx + 17}" y="20" class="legend">'
                     f'{label}</text>')
        lx += 30 + 8 * len(label)
    parts.append(f'<text x="{width - right}" y="20" text-anchor="end" class="legend muted">'
                 f'error bars: {confidence:.0%} bootstrap interval</text><line x1="{left}" '
                 f'x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}" class="axis"/>'
                 "</svg>")
    return "".join(parts)


def histogram_svg(values: np.ndarray, name: str, bins: int = 20) -> str:
    """Histogram of per-example F in [0, 1], with the mean marked."""
    width, height = 760, 260
    left, right, top, bottom = 48, 16, 40, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    counts, edges = np.histogram(np.clip(values, 0, 1), bins=bins, range=(0.0, 1.0))
    nice = _nice_max(max(int(counts.max()), 1))
    parts = [f'<svg class="chart" id="corpus-histogram" viewBox="0 0 {width} {height}" '
             f'role="img" aria-label="Distribution of per-example {name} F" '
             'xmlns="http://www.w3.org/2000/svg">']
    steps = next((k for k in (5, 4, 2) if (nice / k).is_integer()), 1)
    for tick in np.linspace(0, nice, steps + 1):
        ty = top + plot_h * (1 - tick / nice)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{ty:.1f}" y2="{ty:.1f}" '
                     f'class="grid"/><text x="{left - 8}" y="{ty + 4:.1f}" text-anchor="end" '
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
    anchor, label_x = ("end", mx - 6) if mean > 0.8 else ("start", mx + 6)
    parts.append(f'<line x1="{mx:.1f}" x2="{mx:.1f}" y1="{top - 4}" y2="{top + plot_h}" '
                 f'class="mean"/><text x="{label_x:.1f}" y="{top - 8}" text-anchor="{anchor}" '
                 f'class="legend mean-label">mean {fmt(mean)}</text><text x="{left}" y="16" '
                 f'class="legend">{html.escape(name)} F per example ({len(values):,} examples)'
                 f'</text><line x1="{left}" x2="{width - right}" y1="{top + plot_h}" '
                 f'y2="{top + plot_h}" class="axis"/></svg>')
    return "".join(parts)


def _nice_max(peak: int) -> float:
    magnitude = 10 ** math.floor(math.log10(peak))
    return float(next(s * magnitude for s in (1, 2, 2.5, 5, 10) if s * magnitude >= peak))


def _preview(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS - 1] + "…"


def worst_html(state: dict, name: str) -> str:
    """The examples with the lowest F of one type, worst first."""
    f = state["scores"][name][:, 2]
    order = np.argsort(f, kind="stable")[:WORST_SHOWN]
    rows = []
    for k in order.tolist():
        refs = state["references"][k]
        more = f' <span class="muted">(+{len(refs) - 1} more)</span>' if len(refs) > 1 else ""
        rows.append(f'<tr><td class="num">{k + 1:,}</td><td class="num">{fmt(float(f[k]))}'
                    f'</td><td dir="auto">{html.escape(_preview(state["predictions"][k]))}'
                    f'</td><td dir="auto">{html.escape(_preview(refs[0]))}{more}</td></tr>')
    return (f'<p class="caption">The {len(rows)} examples with the lowest {html.escape(name)} '
            'F (row numbers count from 1).</p><div class="table-wrap worst-wrap">'
            '<table class="rouge-table worst" id="corpus-worst-table"><thead><tr><th>Row</th>'
            '<th>F</th><th>Prediction</th><th>Reference</th></tr></thead><tbody>'
            f'{"".join(rows)}</tbody></table></div>')


def safe_cell(value: str) -> str:
    """OWASP's rule against CSV injection: a cell a spreadsheet would read as a formula
    (starting with = + - @, a tab or a carriage return) gets a leading apostrophe."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


class Downloads:
    """The per-example CSVs: one folder for the process, the newest DOWNLOADS_KEPT files kept
    (older ones are deleted as new ones come), the folder removed at exit."""

    def __init__(self):
        self.folder = None
        self.files: deque = deque()
        self.lock = threading.Lock()

    def new_path(self, name: str) -> str:
        with self.lock:
            if self.folder is None or not os.path.isdir(self.folder):
                self.folder = tempfile.mkdtemp(prefix="rouge_app_downloads_")
                atexit.register(shutil.rmtree, self.folder, True)
            while len(self.files) >= DOWNLOADS_KEPT:
                shutil.rmtree(self.files.popleft(), ignore_errors=True)
            folder = os.path.join(self.folder, uuid.uuid4().hex)
            os.mkdir(folder)
            self.files.append(folder)
            return os.path.join(folder, name)


DOWNLOADS = Downloads()


def write_scores_csv(state: dict) -> str:
    path = DOWNLOADS.new_path("rouge_per_example.csv")
    types = list(state["scores"])
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["example", "prediction", "references"]
                        + [f"{t}_{k}" for t in types for k in MEASURES])
        for k, (p, refs) in enumerate(zip(state["predictions"], state["references"])):
            writer.writerow([k + 1, safe_cell(p), " ||| ".join(safe_cell(r) for r in refs)]
                            + [repr(float(v)) for t in types for v in state["scores"][t][k]])
    return path


def score_corpus(corpus_file, pred_file, ref_files, *args, progress=gr.Progress()):
    """The Score corpus button. An error replaces every result it invalidates."""
    option_values, (aggregation, n_samples, confidence, seed) = (args[:N_OPTIONS],
                                                                 args[N_OPTIONS:N_OPTIONS + 4])
    try:
        options = _page_options(*option_values)
        progress(0, desc="Reading the corpus")
        preds, refs, source = load_corpus(corpus_file, pred_file, ref_files)
        result, scores, notes = score_corpus_lists(preds, refs, options, aggregation,
                                                   n_samples, confidence, seed, progress)
    except gr.Error as error:
        return (error_html(error, "corpus-error"), "", gr.update(visible=False, choices=[],
                                                                 value=None),
                "", "", gr.update(value=None, visible=False),
                gr.update(value="", visible=False), "", "", None)
    types = list(scores)
    state = {"predictions": preds, "references": refs, "scores": scores}
    progress(1.0, desc="Writing the per-example CSV")
    header = (f'<p class="corpus-header" id="corpus-header"><b>{len(preds):,} examples</b> '
              f"from {html.escape(source)} · {aggregation} aggregation · "
              f"{int(n_samples):,} bootstrap samples</p>")
    return (header + warnings_html(notes) + summary_html(result, float(confidence), aggregation),
            bar_chart_svg(result, float(confidence)),
            gr.update(choices=types, value=types[0], visible=True),
            histogram_svg(scores[types[0]][:, 2], types[0]), worst_html(state, types[0]),
            gr.update(value=write_scores_csv(state), visible=True),
            gr.update(value=result["signature"], visible=True),
            _corpus_markdown(result), _corpus_latex(result), state)


def _corpus_cells(result: dict):
    names = [k for k in result if k not in ("signature", "count")]
    return [(name, [f"{fmt(result[name][m]['mid'])} ({fmt(result[name][m]['low'])}–"
                    f"{fmt(result[name][m]['high'])})" for m in MEASURES]) for name in names]


def _corpus_markdown(result: dict) -> str:
    lines = ["| Type | Precision | Recall | F |", "|---|---:|---:|---:|"]
    return "\n".join(lines + [f"| {n} | " + " | ".join(c) + " |"
                              for n, c in _corpus_cells(result)])


def _corpus_latex(result: dict) -> str:
    names = [k for k in result if k not in ("signature", "count")]
    lines = [r"\begin{tabular}{lrrr}", r"\toprule", r"Type & P & R & F \\", r"\midrule"]
    for name in names:
        cells = [f"{fmt(result[name][m]['mid'])}$_{{\\pm {fmt((result[name][m]['high'] - result[name][m]['low']) / 2)}}}$"
                 for m in MEASURES]
        lines.append(f"{name} & " + " & ".join(cells) + r" \\")
    return "\n".join(lines + [r"\bottomrule", r"\end{tabular}"])


def corpus_view_changed(state, name):
    if not state or name not in state.get("scores", {}):
        return gr.update(), gr.update()
    return histogram_svg(state["scores"][name][:, 2], name), worst_html(state, name)


# --------------------------------------------------------------------------------------------
# Compare systems (the metric's compare(): rouge_significance)


def compare_lists(predictions: dict, references: list, options: dict, baseline=None,
                  test="bootstrap", n_samples=None, seed=12345, confidence=0.95) -> tuple:
    """Check the limits, then metric.compare(): (its result, its warnings)."""
    if not isinstance(predictions, dict) or len(predictions) > MAX_SYSTEMS:
        got = f"{len(predictions)} systems" if isinstance(predictions, dict) else \
            type(predictions).__name__
        if isinstance(predictions, dict):
            raise _refused("predictions", got, f"{MAX_SYSTEMS} systems",
                           f"{CLI} --compare SYSTEM.txt ... --references REFS.txt")
        raise _error(f"predictions: got {got}; allowed: a dict {{system: [prediction, ...]}}",
                     title="Invalid input")
    if n_samples is not None and not isinstance(n_samples, bool) and \
            isinstance(n_samples, (int, float)) and n_samples > MAX_COMPARE_SAMPLES:
        raise _refused("n_samples", f"{n_samples:,}", f"{MAX_COMPARE_SAMPLES:,}",
                       f"{CLI} --compare SYSTEM.txt ... --references REFS.txt "
                       f"--n-samples {int(n_samples)}")
    if isinstance(n_samples, float) and n_samples.is_integer():
        n_samples = int(n_samples)
    checked = {}
    for name, rows in predictions.items():
        rows, refs = check_texts(rows, references)
        checked[name] = rows
    opts = build_options(**options)
    samples = n_samples or (10_000 if test == "randomization" else 1_000)
    resampling = 2e-9 * samples * len(refs) * len(checked) * len(opts.rouge_types) * 6
    all_rows = [p for rows in checked.values() for p in rows]
    all_refs = refs * len(checked)
    check_budget(opts, all_rows, all_refs,
                 f"{CLI} --compare SYSTEM.txt ... --references REFS.txt {_cli_flags(options)}",
                 extra_seconds=resampling)
    try:
        with recorded_warnings() as messages:
            result = metric.compare(predictions=checked, references=refs, baseline=baseline,
                                    test=test, n_samples=n_samples, seed=seed,
                                    confidence=confidence, **options)
    except (ValueError, TypeError) as error:
        raise _error(str(error), title="Invalid input") from None
    return result, messages


def load_systems(systems_file, system_files, ref_files) -> tuple:
    """({system: predictions}, references) from a JSONL with one key per system, or one
    predictions text file per system plus reference text files."""
    path = _file_path(systems_file)
    if path:
        _check_upload(path)
        predictions, references = {}, []
        try:
            for row, refs in read_system_rows(path, max_record_bytes=MAX_RECORD_BYTES):
                if len(references) == MAX_ROWS:
                    raise _refused("the file", f"more than {MAX_ROWS:,} rows",
                                   f"{MAX_ROWS:,} rows", f"{CLI} --compare {_display_name(path)}")
                for name, text in row.items():
                    predictions.setdefault(name, []).append(text)
                references.append(refs)
        except RowError as error:
            raise _error(str(error).replace(path, _display_name(path)),
                         title="Unreadable file") from None
        if not references:
            raise _error(f"{_display_name(path)} has no rows.", title="Empty file")
        return predictions, references
    paths = [_file_path(f) for f in (system_files or [])]
    refs_paths = [_file_path(f) for f in (ref_files or [])]
    if len(paths) < 2 or not refs_paths:
        raise _error("Upload a JSONL file with a key per system, or two or more system "
                     "files (.txt, one prediction per line) and the reference file(s).",
                     title="Nothing to compare")
    predictions, references = {}, None
    for p in paths + refs_paths:
        _check_upload(p)
    for p in paths:
        name = Path(p).stem
        name = name if name not in predictions else _display_name(p)
        preds, refs = _read_rows(_open_rows(p, format="text", reference_paths=refs_paths),
                                 _display_name(p))
        predictions[name], references = preds, refs
    return predictions, references


def _signed(value: float) -> str:
    return f"{value:+.4f}"


def delta_chart_svg(result: dict, baseline: str, rouge_type: str, confidence: float) -> str:
    """Each system's F difference from the baseline (a dot) with its percentile interval (a
    whisker), around a zero line: green when significantly better, red when worse (Holm)."""
    systems = [k for k in result if k not in ("signature", "count", baseline)]
    entries = [result[s][rouge_type]["fmeasure"] for s in systems]
    reach = max([abs(e[k]) for e in entries for k in ("delta_low", "delta_high")] + [0.001])
    reach = _nice_max(reach * 1000) / 1000  # symmetric axis, at a round number
    # drawn narrow (480 units) so that its text stays readable on a 360 px phone; the CSS caps
    # its width on desktops
    width, row_h, top, bottom = 480, 28, 30, 30
    left, right = 144, 20
    height = top + row_h * len(systems) + bottom
    plot_w = width - left - right

    def x(v):
        return left + plot_w * (0.5 + max(-1.0, min(1.0, v / reach)) / 2)

    parts = [f'<svg class="chart delta-chart" data-type="{html.escape(rouge_type)}" '
             f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(rouge_type)} F '
             f'minus the baseline\'s, with {confidence:.0%} intervals" '
             'xmlns="http://www.w3.org/2000/svg">'
             f'<text x="4" y="16" class="legend">Δ F vs {html.escape(_short(baseline))}'
             f'<tspan class="muted">, whiskers: its {confidence:.0%} interval</tspan></text>']
    for tick in np.linspace(-reach, reach, 5):
        parts.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top - 4}" '
                     f'y2="{height - bottom}" class="{"axis" if tick == 0 else "grid"}"/>'
                     f'<text x="{x(tick):.1f}" y="{height - bottom + 16}" text-anchor="middle" '
                     f'class="tick">{tick:+.3g}</text>')
    for row, (name, e) in enumerate(zip(systems, entries)):
        cy = top + row_h * (row + 0.5)
        significant = e["p_value_holm"] < 1 - confidence
        color = ("#15803d" if e["delta"] > 0 else "#b91c1c") if significant else "#64748b"
        parts.append(
            f'<g class="delta" data-system="{html.escape(name)}" data-delta="{e["delta"]!r}" '
            f'data-low="{e["delta_low"]!r}" data-high="{e["delta_high"]!r}">'
            f'<title>{html.escape(name)}: {_signed(e["delta"])} [{_signed(e["delta_low"])}, '
            f'{_signed(e["delta_high"])}], p (Holm) {fmt(e["p_value_holm"])}</title>'
            f'<text x="{left - 10}" y="{cy + 4:.1f}" text-anchor="end" class="label">'
            f'{html.escape(_short(name))}</text>'
            f'<line x1="{x(e["delta_low"]):.1f}" x2="{x(e["delta_high"]):.1f}" y1="{cy:.1f}" '
            f'y2="{cy:.1f}" stroke="{color}" stroke-width="2"/>'
            f'<circle cx="{x(e["delta"]):.1f}" cy="{cy:.1f}" r="5" fill="{color}"/></g>')
    parts.append("</svg>")
    return "".join(parts)


def _short(name: str, limit: int = 16) -> str:
    return name if len(name) <= limit else name[:limit - 1] + "…"


def comparison_html(result: dict, baseline: str, confidence: float) -> str:
    systems = [k for k in result if k not in ("signature", "count")]
    types = list(result[systems[0]])
    blocks = []
    for t in types:
        rows = []
        for s in systems:
            e = result[s][t]["fmeasure"]
            cells = [f'<td class="num" data-score="{e["score"]!r}">{fmt(e["score"])}'
                     f'<span class="ci">{fmt(e["low"])}–{fmt(e["high"])}</span></td>']
            if s == baseline:
                cells.append('<td colspan="2" class="muted">baseline</td>')
            else:
                better = e["p_value_holm"] < 1 - confidence  # significant, either way
                # green when significantly better than the baseline, red when worse
                tone = (" sig-up" if e["delta"] > 0 else " sig-down") if better else ""
                interval = f'{_signed(e["delta_low"])}–{_signed(e["delta_high"])}'
                cells.append(f'<td class="num{tone}">{_signed(e["delta"])}'
                             f'<span class="ci">{interval}'
                             f'</span></td><td class="num" data-p="{e["p_value"]!r}">'
                             f'{fmt(e["p_value_holm"])}{" *" if better else ""}'
                             f'<span class="ci">raw {fmt(e["p_value"])}</span></td>')
            shown = re.sub(r"([_/.-])", r"\1<wbr>", html.escape(s))  # breaks in long names
            rows.append(f'<tr data-system="{html.escape(s)}"><th scope="row" dir="auto">'
                        f'{shown}</th>{"".join(cells)}</tr>')
        chart = delta_chart_svg(result, baseline, t, confidence)
        blocks.append(f'<h4>{html.escape(t)} F</h4>{chart}<div class="table-wrap"><table '
                      f'class="rouge-table compare" data-type="{html.escape(t)}"><thead><tr>'
                      '<th>System</th><th>F</th><th>Δ vs baseline</th><th>p (Holm)</th>'
                      '</tr></thead><tbody>'
                      f'{"".join(rows)}</tbody></table></div>')
    return (f'<p class="caption">{result["count"]:,} rows. Under each number its '
            f"{confidence:.0%} interval; p is two-sided, corrected by Holm's method over the "
            f"systems (the raw p below it); * : significant at {1 - confidence:.2f}.</p>"
            f'{"".join(blocks)}')


def compare_page(systems_file, system_files, ref_files, *args):
    option_values, (baseline, test, n_samples, confidence, seed) = (
        args[:N_OPTIONS], args[N_OPTIONS:N_OPTIONS + 5])
    try:
        options = _page_options(*option_values)
        predictions, references = load_systems(systems_file, system_files, ref_files)
        base = baseline.strip() if baseline and baseline.strip() else next(iter(predictions))
        result, notes = compare_lists(predictions, references, options, base, test,
                                      int(n_samples), int(seed), float(confidence))
    except gr.Error as error:
        return error_html(error, "compare-error"), gr.update(value="", visible=False)
    return (warnings_html(notes) + comparison_html(result, base, float(confidence)),
            gr.update(value=result["signature"], visible=True))


# --------------------------------------------------------------------------------------------
# API endpoints (gradio_client): the same limits as the page


def _api_options(rouge_types, **options) -> dict:
    return dict(rouge_types=parse_types(rouge_types or DEFAULT_TYPES), **options)


def rouge(prediction: str, references: list[str], rouge_types: Optional[list[str]] = None,
          use_stemmer: bool = False, remove_stopwords: bool = False,
          profile: str = "rouge_score", alpha: float = 0.5, multi_ref: Optional[str] = None,
          tokenizer: str = "default", split_sentences: bool = False,
          lang: Optional[str] = None) -> dict:
    """Score one prediction against one or more references: {type: {"precision", "recall",
    "fmeasure"}, "signature", "warnings"} (compute(detailed=True, use_aggregator=False)'s
    numbers for the one example)."""
    if isinstance(references, str):
        references = [references]
    options = _api_options(rouge_types, use_stemmer=use_stemmer,
                           remove_stopwords=remove_stopwords, profile=profile, alpha=alpha,
                           multi_ref=multi_ref, tokenizer=tokenizer,
                           split_sentences=split_sentences, lang=lang)
    scored = score_example(prediction, references, options)
    out: dict = {name: dict(zip(MEASURES, values)) for name, values in scored["scores"].items()}
    out["signature"] = scored["signature"]
    out["warnings"] = scored["warnings"]
    return out


def rouge_corpus(predictions: list[str], references: list[Union[str, list[str]]],
                 rouge_types: Optional[list[str]] = None, use_stemmer: bool = False,
                 remove_stopwords: bool = False, profile: str = "rouge_score",
                 alpha: float = 0.5, multi_ref: Optional[str] = None,
                 tokenizer: str = "default", split_sentences: bool = False,
                 aggregation: str = "macro", n_samples: int = 1000,
                 confidence: float = 0.95, seed: int = 12345,
                 lang: Optional[str] = None) -> dict:
    """Score a corpus: compute(detailed=True)'s result ({type: {"precision"|"recall"|
    "fmeasure": {"low", "mid", "high"}}, "signature", "count"})."""
    options = _api_options(rouge_types, use_stemmer=use_stemmer,
                           remove_stopwords=remove_stopwords, profile=profile, alpha=alpha,
                           multi_ref=multi_ref, tokenizer=tokenizer,
                           split_sentences=split_sentences, lang=lang)
    result, _, _ = score_corpus_lists(predictions, references, options, aggregation,
                                      n_samples, confidence, seed)
    return result


def rouge_compare(predictions: dict, references: list[Union[str, list[str]]],
                  baseline: Optional[str] = None, test: str = "bootstrap",
                  n_samples: Optional[int] = None, rouge_types: Optional[list[str]] = None,
                  use_stemmer: bool = False, profile: str = "rouge_score",
                  multi_ref: Optional[str] = None, aggregation: str = "macro",
                  confidence: float = 0.95, seed: int = 12345,
                  lang: Optional[str] = None) -> dict:
    """Compare 2+ systems with a baseline: the metric's compare() result."""
    options = _api_options(rouge_types, use_stemmer=use_stemmer, profile=profile,
                           multi_ref=multi_ref, aggregation=aggregation, lang=lang)
    result, _ = compare_lists(predictions, references, options, baseline, test, n_samples,
                              seed, confidence)
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
    ["عاد الأطفال إلى المدرسة بعد العطلة الطويلة",
     "رجع الأطفال إلى المدرسة بعد عطلة طويلة", "", ""],
]
EXAMPLE_LABELS = ["the cat sat on the mat", "News summary, two references", "Stemming matters",
                  "Arabic, right to left (set Language to ar)"]

INTRO = f"""
# ROUGE playground
**ROUGE** scores a generated text (the *prediction*) by its overlap with human-written
*references*. This page runs `rouge_metric` v{METRIC_VERSION} for 🤗 `evaluate`: the default
profile gives `rouge_score`'s numbers (what `evaluate.load("rouge")` runs), `rouge155` those of
the ROUGE-1.5.5 script.
"""


def usage_markdown() -> str:
    space = os.environ.get("SPACE_ID")
    if space:
        load = f'rouge = evaluate.load("{space}")  # this Space'
        where = (f"`evaluate.load(\"{space}\")` downloads this Space's metric files; "
                 f"`git clone https://huggingface.co/spaces/{space}` gives you the CLI too.")
    else:
        load = 'rouge = evaluate.load("path/to/rouge_metric.py")  # a local checkout'
        where = ("Load the metric from its file in a checkout of this Space's repository "
                 "(`evaluate.load` stages `rouge_metric.py` and its sibling modules). On the "
                 "Hub, `evaluate.load` takes the Space's id instead of the path: the owner and "
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

**From the command line** (no limits): `python rouge_cli.py predictions.txt references.txt`,
`python rouge_cli.py --input pairs.jsonl`, `python rouge_cli.py --compare a.txt b.txt
--references refs.txt`.

**This Space's API** (`gradio_client`): `/rouge` (one example), `/rouge_corpus` (lists of
predictions and references), `/rouge_compare` (a dict of systems); the options are keyword
arguments named as the metric's (`use_stemmer=True`, `lang="zh"`, …).

**Corpus files**: JSON Lines (`{{"prediction": "...", "references": "..." or ["...", ...]}}`
per line), a JSON list of such objects, CSV/TSV with a `prediction` column and `reference`,
`reference_1`, `reference_2`, … or `references` (a JSON list per cell), or a predictions text
file with reference text files, one example per line. A newline inside a text separates the
sentences of ROUGE-Lsum and ROUGE-W.

**Limits** (the page and the API alike; a request over one is refused with the CLI command
that runs it on your machine):

| Limit | Value |
|---|---:|
{limits}
"""


CSS = """
.gradio-container { max-width: 1400px !important; margin: 0 auto; }
#intro h1 { margin: 0 0 0.2em; }
#intro p { font-size: 0.95em; line-height: 1.45; margin: 0; }
/* options beside the work on wide screens (left), after it on phones (the DOM order) */
@media (min-width: 1024px) { #options-col { order: -1; } }
@media (max-width: 767px) {
  #main-row { flex-direction: column; }
  #main-row > div { min-width: 0 !important; width: 100%; }
  #intro p { display: none; }
  .gradio-container .main.app { padding-left: 8px !important; padding-right: 8px !important; }
  .gradio-container { max-width: 100vw !important; }
  .rouge-table th, .rouge-table td { padding: 5px 5px !important; font-size: 0.9em; }
  .rouge-table .ci { font-size: 0.75em; }
}
.table-wrap { max-width: 100%; overflow-x: auto; }
.rouge-table { width: 100%; border-collapse: collapse; font-variant-numeric: tabular-nums;
  border: none !important; margin: 0 !important; }
.rouge-table tr { border: none !important; }
.rouge-table th, .rouge-table td { padding: 6px 10px !important; text-align: left;
  border: none !important; border-bottom: 1px solid var(--border-color-primary) !important;
  background: transparent !important; vertical-align: top; }
.rouge-table thead th { font-size: 0.8em; text-transform: uppercase; letter-spacing: 0.03em;
  color: var(--body-text-color-subdued); white-space: nowrap; }
.rouge-table tbody th { font-family: var(--font-mono); font-weight: 600; white-space: nowrap; }
.rouge-table .num, .rouge-table td.num, .rouge-table .ci { white-space: nowrap; }
.rouge-table .num { display: block; font-weight: 600; }
.rouge-table td.num { display: table-cell; }
.rouge-table .ci { display: block; font-size: 0.8em; font-weight: 400;
  color: var(--body-text-color-subdued); }
.rouge-table .bar { display: block; height: 5px; margin-top: 4px; border-radius: 3px;
  background: var(--border-color-primary); overflow: hidden; min-width: 48px; }
.rouge-table .bar > span { display: block; height: 100%; border-radius: 3px; }
.rouge-table td.chosen .num { color: var(--color-accent); }
.rouge-table.worst td { font-size: 0.9em; overflow-wrap: anywhere; }
.rouge-table.compare td.sig-up { color: #15803d; }
.rouge-table.compare td.sig-down { color: #b91c1c; }
.rouge-table.compare tbody th { white-space: normal; overflow-wrap: break-word; }
.rouge-table.compare thead th { white-space: normal; }
@media (max-width: 480px) {  /* four columns of numbers in 360 px, none wrapped */
  .rouge-table.compare th, .rouge-table.compare td { padding: 5px 4px !important;
    font-size: 0.9em; }
}
.worst-wrap { max-height: 420px; overflow-y: auto; }
.per-ref { margin-top: 10px; }
.per-ref summary { cursor: pointer; font-weight: 600; font-size: 0.9em; }
.empty { color: var(--body-text-color-subdued); padding: 18px; text-align: center;
  border: 1px dashed var(--border-color-primary); border-radius: 8px; margin: 0; }
.error-panel { border: 1px solid #ef4444; background: rgba(239, 68, 68, 0.08);
  border-radius: 8px; padding: 12px 14px; overflow-wrap: anywhere; }
.error-panel b { color: #dc2626; }
.error-panel p { margin: 6px 0 0; }
.warnings { margin: 10px 0 0; padding: 10px 14px 10px 30px; border-radius: 8px;
  background: rgba(245, 158, 11, 0.1); border: 1px solid rgba(245, 158, 11, 0.5); }
.warnings li { margin: 2px 0; overflow-wrap: anywhere; }
.warnings .control { font-weight: 600; }
.caption, .note { font-size: 0.85em; color: var(--body-text-color-subdued); margin: 6px 0; }
.muted { color: var(--body-text-color-subdued); font-weight: 400; }
.stale-note { display: none; margin: 0; padding: 8px 12px; border-radius: 8px;
  background: rgba(99, 102, 241, 0.1); border: 1px solid rgba(99, 102, 241, 0.5); }
.single-stale #single-stale-note, .corpus-stale #corpus-stale-note,
.compare-stale #compare-stale-note { display: block; }
.single-stale #scores-table, .single-stale #highlights, .single-stale #signature,
.corpus-stale #corpus-results, .corpus-stale #corpus-bars, .corpus-stale #corpus-hist,
.corpus-stale #corpus-worst, .compare-stale #compare-results { opacity: 0.45; }
#single-stale, #corpus-stale, #compare-stale { min-height: 0 !important; }
.hl-block { margin: 10px 0; }
.hl-label { font-weight: 600; font-size: 0.9em; margin-bottom: 4px; }
.hl-text { white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.9; padding: 8px 10px;
  border: 1px solid var(--border-color-primary); border-radius: 8px; }
.hl-text .m { background: rgba(34, 197, 94, 0.35); border-radius: 3px; padding: 1px 0; }
.hl-text .u { background: rgba(148, 163, 184, 0.25); border-radius: 3px; padding: 1px 0; }
.hl-text .run { border-bottom: 2px solid #15803d; }
.more { font-size: 0.85em; color: var(--body-text-color-subdued); }
ul.pairs { display: flex; flex-wrap: wrap; gap: 6px; list-style: none; padding: 0; margin: 4px 0; }
ul.pairs li { border: 1px solid var(--border-color-primary); border-radius: 12px;
  padding: 1px 8px; font-size: 0.9em; }
svg.chart { width: 100%; height: auto; color: var(--body-text-color); }
svg.delta-chart { max-width: 640px; display: block; }
svg.chart .grid { stroke: var(--border-color-primary); stroke-width: 1; }
svg.chart .axis { stroke: var(--body-text-color-subdued); stroke-width: 1; }
svg.chart .tick { font-size: 11px; fill: var(--body-text-color-subdued); }
svg.chart .label { font-size: 12px; font-family: var(--font-mono); fill: currentColor; }
svg.chart .legend { font-size: 12px; fill: currentColor; }
svg.chart .muted { fill: var(--body-text-color-subdued); }
svg.chart .errorbar line { stroke: currentColor; stroke-width: 1.5; }
svg.chart .mean { stroke: #ef4444; stroke-width: 2; stroke-dasharray: 4 3; }
svg.chart .mean-label { fill: #ef4444; font-weight: 600; }
#signature textarea, #corpus-signature textarea, #compare-signature textarea,
#single-markdown textarea, #single-latex textarea, #corpus-markdown textarea,
#corpus-latex textarea { font-family: var(--font-mono); font-size: 0.85em; }
#score-button, #corpus-button, #compare-button { min-height: 44px; }
#usage table { display: block; overflow-x: auto; }
#usage td:last-child { white-space: nowrap; }
"""

HEAD = """
<style>%s</style>
<script>
// Inputs and highlights follow the text's direction (Arabic, Hebrew ... right to left).
(() => {
  const mark = () => document.querySelectorAll('textarea, input[type=text]').forEach(el => {
    if (el.getAttribute('dir') !== 'auto') el.setAttribute('dir', 'auto'); });
  new MutationObserver(mark).observe(document.documentElement,
    {childList: true, subtree: true, attributes: true, attributeFilter: ['dir']});
  document.addEventListener('DOMContentLoaded', mark);
})();
</script>
""" % CSS

FRESH_JS = "(...args) => { document.body.classList.remove('%s-stale'); return args; }"
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
STALE_NOTE = ('<p class="stale-note" id="%s-stale-note">The inputs or options changed: '
              'press <b>%s</b> to update these results.</p>')


def build_demo() -> gr.Blocks:
    with gr.Blocks(title="ROUGE playground · rouge_metric", delete_cache=(600, 3600)) as demo:
        gr.Markdown(INTRO, elem_id="intro")
        with gr.Row(equal_height=False, elem_id="main-row"):
            with gr.Column(scale=3, min_width=300, elem_id="work-col"):
                with gr.Tabs():
                    with gr.Tab("Example", id="single"):
                        single = _single_tab()
                    with gr.Tab("Corpus", id="corpus"):
                        corpus = _corpus_tab()
                    with gr.Tab("Compare", id="compare"):
                        compare = _compare_tab()
                    with gr.Tab("Usage", id="usage"):
                        gr.Markdown(usage_markdown(), elem_id="usage")
            with gr.Column(scale=1, min_width=280, elem_id="options-col"):
                option_inputs = _options_panel()
        _wire(demo, single, corpus, compare, option_inputs)
        gr.api(rouge, api_name="rouge", concurrency_id="single")
        gr.api(rouge_corpus, api_name="rouge_corpus", concurrency_id="heavy")
        gr.api(rouge_compare, api_name="rouge_compare", concurrency_id="heavy")
    return demo


def _options_panel() -> list:
    with gr.Accordion("Options", open=True, elem_id="options-accordion"):
        rouge_types = gr.CheckboxGroup(
            ROUGE_TYPE_CHOICES, value=DEFAULT_TYPES, label="ROUGE types",
            info="N-grams, LCS (L, Lsum), weighted LCS (W), skip-bigrams (S4/SU4: gap ≤ 4)",
            elem_id="rouge-types")
        extra_types = gr.Textbox(label="More types", placeholder="e.g. rougeW-1.5, rouge5, "
                                 "rougeSU9", lines=1, elem_id="extra-types",
                                 info=f"rouge1…rouge{MAX_NGRAM}, rougeW-<w>, rougeS<d> / "
                                      f"rougeSU<d> (d ≤ {MAX_SKIP})")
        use_stemmer = gr.Checkbox(label="Porter stemmer", value=False, elem_id="use-stemmer")
        remove_stopwords = gr.Checkbox(label="Remove stopwords (SMART list)", value=False,
                                       elem_id="remove-stopwords")
        profile = gr.Radio(list(PROFILES), value="rouge_score", label="Profile",
                           info="rouge_score 0.1.2, or the ROUGE-1.5.5 Perl script",
                           elem_id="profile")
        multi_ref = gr.Radio(["max", "average", "best"], value="max",
                             label="Several references",
                             info="max: best reference per type; average: counts pooled (-f "
                                  "A); best: -f B", elem_id="multi-ref")
        alpha = gr.Slider(0.0, 1.0, value=0.5, step=0.05, label="α (F weight)",
                          info="F = 1 / (α/P + (1-α)/R); 0.5 is F1", elem_id="alpha")
        tokenizer = gr.Radio(list(rouge_module.TOKENIZERS), value="default",
                             label="Tokenizer", info="default: rouge_score's [a-z0-9]+; "
                             "unicode: any script", elem_id="tokenizer")
        split_sentences = gr.Checkbox(label="Split sentences (rule-based) for Lsum / W",
                                      value=False, elem_id="split-sentences")
        lang = gr.Dropdown(LANGUAGE_CHOICES, value=NO_LANGUAGE, label="Language",
                           info="XL-Sum's multilingual ROUGE (its segmenter and stemmer); "
                                "with Profile rouge_score and Tokenizer default",
                           elem_id="lang")
    return [rouge_types, extra_types, use_stemmer, remove_stopwords, profile, alpha,
            multi_ref, tokenizer, split_sentences, lang]


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
        outputs=[ui["n_refs"], *ui["refs"], ui["add"], ui["remove"]], fn=example_chosen,
        run_on_click=True, cache_examples=False, api_visibility="private",
        label="Examples (click one, then Score)", example_labels=EXAMPLE_LABELS)
    gr.Markdown("### Matched tokens")
    with gr.Row(equal_height=True):
        ui["kind"] = gr.Dropdown([], value=None, label="Show matches of", interactive=False,
                                 elem_id="highlight-kind", scale=3, min_width=160)
        ui["show_all"] = gr.Checkbox(label="Show all tokens", value=False, scale=1,
                                     min_width=120, elem_id="show-all")
    ui["highlights"] = gr.HTML(EMPTY_HIGHLIGHTS, elem_id="highlights")
    return ui


# the file inputs of the Corpus and Compare tabs (_file_inputs): intro, the structured file,
# the text files, the id of the reference files box
CORPUS_INPUTS = (
    "Score a whole test set. Give **one corpus file** (JSON Lines, JSON, CSV or TSV; see "
    "*Usage*), **or** a predictions text file with one or more reference text files (one "
    "example per line).",
    ("Corpus file (.jsonl .json .csv .tsv)", [".jsonl", ".ndjson", ".json", ".csv", ".tsv"],
     "corpus-file"),
    ("or: predictions (.txt)", "single", "pred-file"), "ref-files")
COMPARE_INPUTS = (
    "Is a system better than a baseline? Paired significance tests (sacrebleu's paired "
    "bootstrap or approximate randomization) on ROUGE's per-example statistics, with Holm's "
    "correction over the systems.",
    ('Systems file (.jsonl: {"references": …, "<system>": …, …})', [".jsonl", ".ndjson"],
     "systems-file"),
    ("or: one file per system (.txt)", "multiple", "system-files"), "compare-ref-files")


def _file_inputs(intro: str, main: tuple, texts: tuple, ref_id: str) -> tuple:
    """A tab's inputs: its intro, one structured file (main: label, types, element id), or
    text files with one example per line (texts: label, file_count, element id) beside the
    reference files."""
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
        ui["aggregation"] = gr.Radio(["macro", "micro"], value="macro", label="Aggregation",
                                     info="macro: mean of per-example scores; micro: counts "
                                          "pooled over the corpus")
        ui["n_samples"] = gr.Slider(100, MAX_SAMPLES, value=1000, step=100,
                                    label="Bootstrap samples", elem_id="n-samples")
        ui["confidence"] = gr.Slider(0.5, 0.99, value=0.95, step=0.01, label="Confidence")
        ui["seed"] = gr.Number(value=12345, precision=0, label="Seed", minimum=0)
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
        ui["test"] = gr.Radio(["bootstrap", "randomization"], value="bootstrap", label="Test")
        ui["n_samples"] = gr.Slider(100, MAX_COMPARE_SAMPLES, value=1000, step=100,
                                    label="Resamples / trials")
        ui["confidence"] = gr.Slider(0.5, 0.99, value=0.95, step=0.01, label="Confidence")
        ui["seed"] = gr.Number(value=12345, precision=0, label="Seed", minimum=0)
    ui["button"] = gr.Button("Compare", variant="primary", elem_id="compare-button")
    gr.HTML(STALE_NOTE % ("compare", "Compare"), elem_id="compare-stale")
    ui["results"] = gr.HTML(EMPTY_COMPARE, elem_id="compare-results")
    ui["signature"] = gr.Textbox(label="Signature", interactive=False, buttons=["copy"],
                                 elem_id="compare-signature", visible=False)
    return ui


def _wire(demo, single: dict, corpus: dict, compare: dict, option_inputs: list) -> None:
    refs = single["refs"]
    single_inputs = [single["prediction"], single["n_refs"], *refs, *option_inputs,
                     single["kind"], single["show_all"]]
    single_outputs = [single["table"], single["signature"], single["markdown"],
                      single["latex"], single["kind"], single["highlights"]]
    single["score"].click(score_single, single_inputs, single_outputs, api_name="score",
                          api_visibility="private", concurrency_id="single",
                          js=FRESH_JS % "single", show_progress_on=[single["table"]])
    demo.load(score_single, single_inputs, single_outputs, api_visibility="private",
              concurrency_id="single", show_progress_on=[single["table"]])
    demo.load(None, None, None, js=COLLAPSE_ON_PHONES_JS)
    for control in (single["kind"], single["show_all"]):
        control.input(rehighlight, single_inputs, [single["highlights"]],
                      api_visibility="private", concurrency_id="single")
    single["add"].click(add_reference, [single["n_refs"]],
                        [single["n_refs"], *refs, single["add"], single["remove"]],
                        api_visibility="private", queue=False)
    single["remove"].click(remove_reference, [single["n_refs"]],
                           [single["n_refs"], *refs, single["add"], single["remove"]],
                           api_visibility="private", queue=False)
    profile, multi_ref = option_inputs[4], option_inputs[6]
    profile.change(profile_changed, [profile, multi_ref], [multi_ref],
                   api_visibility="private", queue=False)
    # what the user changes marks the results it invalidates as stale (input/upload events:
    # a value set by the app itself does not)
    _mark_stale([single["prediction"], *refs, single["add"], single["remove"],
                 single["examples"].dataset], "single")
    _mark_stale(option_inputs, "single", "corpus", "compare")
    corpus_inputs = [corpus["file"], corpus["pred_file"], corpus["ref_files"], *option_inputs,
                     corpus["aggregation"], corpus["n_samples"], corpus["confidence"],
                     corpus["seed"]]
    _mark_stale(corpus_inputs[:3] + corpus_inputs[-4:], "corpus")
    corpus["button"].click(
        score_corpus, corpus_inputs,
        [corpus["results"], corpus["chart"], corpus["hist_kind"], corpus["histogram"],
         corpus["worst"], corpus["download"], corpus["signature"], corpus["markdown"],
         corpus["latex"], corpus["state"]],
        api_visibility="private", concurrency_id="heavy", concurrency_limit=1,
        js=FRESH_JS % "corpus", show_progress_on=[corpus["results"]])
    corpus["hist_kind"].input(corpus_view_changed, [corpus["state"], corpus["hist_kind"]],
                              [corpus["histogram"], corpus["worst"]], api_visibility="private",
                              queue=False)
    compare_inputs = [compare["file"], compare["system_files"], compare["ref_files"],
                      *option_inputs, compare["baseline"], compare["test"],
                      compare["n_samples"], compare["confidence"], compare["seed"]]
    _mark_stale(compare_inputs[:3] + compare_inputs[-5:], "compare")
    compare["button"].click(compare_page, compare_inputs,
                            [compare["results"], compare["signature"]],
                            api_visibility="private", concurrency_id="heavy",
                            concurrency_limit=1, js=FRESH_JS % "compare",
                            show_progress_on=[compare["results"]])


def _mark_stale(controls: list, *tabs: str) -> None:
    """Mark the tabs' results stale (a browser-side class, no server round trip) when the
    user edits one of the controls."""
    js = ("() => { %s.forEach(t => document.body.classList.add(t + '-stale')); }"
          % json.dumps(list(tabs)))
    for control in controls:
        if isinstance(control, gr.File):
            events = [control.upload, control.clear]
        elif isinstance(control, (gr.Button, gr.Dataset)):
            events = [control.click]
        elif isinstance(control, gr.Slider):
            events = [control.release, control.input]
        else:
            events = [control.input]
        for event in events:
            event(None, None, None, js=js, queue=False)


def _warm_up() -> None:
    """Compile (or load) the numba kernels before the first visitor needs them: texts large
    enough that the pipeline takes the compiled kernels, not their plain-Python twins."""
    words = [f"w{k * 7919 % 500}" for k in range(7_000)]
    texts = ["\n".join(" ".join(words[k + shift:k + 20]) for k in range(0, len(words), 20))
             for shift in (0, 1, 2)]
    try:
        # compile (or load from the kernel cache) what every type needs, and wait for it: the
        # small calls below would otherwise be served by the numpy tier and compile nothing
        kernels = importlib.import_module(f"{_package}.rouge_kernels")
        for profile in PROFILES:
            kernels.warm_up(ROUGE_TYPE_CHOICES, profile=profile, detailed=True)
        options = dict(rouge_types=ROUGE_TYPE_CHOICES)
        for profile in PROFILES:
            multi = PROFILES[profile].multi_ref_default
            score_example(texts[0], texts[1:], dict(options, profile=profile, multi_ref=multi))
            for kind in ("rougeL", "rougeLsum", "rougeW", "rougeSU4"):
                highlights(texts[0], texts[1:], dict(options, profile=profile,
                                                     multi_ref=multi), kind)
            score_corpus_lists(["a b c", "b c"], [["a b"], ["b", "c d"]],
                               dict(options, profile=profile, multi_ref=multi),
                               n_samples=100)
    except Exception as error:  # a warm-up failure must not take the app down
        print(f"warm-up failed: {type(error).__name__}: {error}", file=sys.stderr)
    _warm_up_segmenters()


def _warm_up_segmenters() -> None:
    """Load the Language menu's segmenters that are installed (jieba's dictionary: ~2 s,
    MeCab: ~0.7 s, pythainlp's: ~2.8 s at their first text), so that no visitor waits."""
    for language in rouge_lang.LANGUAGES:
        if not language.segmenter:
            continue
        try:
            tokenizer = rouge_lang.language_tokenizer(language.code)
            tokenizer.tokens("中文 日本語 ภาษาไทย မြန်မာ", stemmer=False, stopwords=False)
        except ImportError:  # not installed: the menu says so when it is chosen
            continue
        except Exception as error:  # noqa: BLE001 - a warm-up failure must not take the app down
            print(f"warm-up of {language.code} failed: {type(error).__name__}: {error}",
                  file=sys.stderr)


demo = build_demo()

if __name__ == "__main__":
    threading.Thread(target=_warm_up, name="rouge-warm-up", daemon=True).start()
    demo.queue(default_concurrency_limit=2)
    demo.launch(server_name=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"),
                server_port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
                max_file_size=MAX_UPLOAD_BYTES, head=HEAD,
                theme=gr.themes.Soft(primary_hue="indigo", secondary_hue="teal",
                                     neutral_hue="slate"),
                footer_links=["api", "gradio"])
