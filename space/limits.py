"""The Space's own limits, the same on the page and the API, and the check made before any
scoring. A request over a limit is refused with a message that names the limit and the CLI
command that runs the job locally, with no limit.

The cost of a request (seconds, bytes) is the metric's own estimate (``estimate_cost``,
the model of its kernels): the Space keeps no copy of a kernel's threshold, only its budget.
"""

import re
import sys
import unicodedata

import gradio as gr
import numpy as np

from rouge_exact.api import check_inputs
from rouge_exact.explanation import SETTINGS as EXPLAIN_SETTINGS
from rouge_exact.kinds import estimate_cost, resampling_cost, text_sizes
from rouge_exact.options import RougeOptions
from rouge_exact.text.lang import LANGUAGES

MAX_UPLOAD_BYTES = 20 * 1024 * 1024  # per uploaded file
MAX_RECORD_BYTES = 4 * 1024 * 1024  # one JSONL line / CSV record / text line (rouge_exact.io)
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
# characters per text a segmenter may see: their worst case (a sentence repeated, then
# reversed) grows faster than linearly; these keep it well under the CPU budget (measured in
# docs/languages.md). Checked before any segmenter runs.
MAX_SEGMENTER_CHARS = {"jieba": 30_000, "fugashi": 100_000, "pythainlp": 30_000,
                       "burmese": 100_000}
MEMORY_BUDGET_BYTES = 1 << 30
LIMITS = {
    "references per example": MAX_REFERENCES, "characters per text": MAX_TEXT_CHARS,
    "tokens per text (after normalisation)": MAX_TEXT_TOKENS, "examples per corpus": MAX_ROWS,
    "characters per request": MAX_TOTAL_CHARS,
    "N of `rouge<N>`": MAX_NGRAM, "d of `rougeS<d>` / `rougeSU<d>`": MAX_SKIP,
    "bootstrap samples": MAX_SAMPLES, "comparison samples": MAX_COMPARE_SAMPLES,
    "systems compared": MAX_SYSTEMS,
    "characters per text, zh and th (jieba, pythainlp)": MAX_SEGMENTER_CHARS["jieba"],
    "characters per text, ja and my (MeCab, the Burmese rules)": MAX_SEGMENTER_CHARS["fugashi"],
    "estimated CPU time per request (s)": CPU_BUDGET_SECONDS,
    "estimated memory per request (GiB)": MEMORY_BUDGET_BYTES / 2 ** 30,
}

# Reading an upload (rouge_exact.io) and writing its per-example CSV, estimated from counts before
# either runs (CPU seconds, measured on a shared 2-vCPU x86-64 VM on the uploads of the table
# in docs/space.md, "Uploads are costed too", rounded up). A field is a CSV/TSV cell, a JSON
# key or array item, or a line of a text file: reading one and keeping it in its row's
# Rows.extra dict took 0.15-0.4 us for a plain CSV cell and 0.5-0.8 us for a JSON string or
# number; a quoted CSV cell (parsed in Python) took 1 us more, and a JSON array or object kept
# as JSON text 1.2-3.5 us more: they are counted by their quotes and opening brackets. Writing
# a cell of the download's other columns (every row has one for each other column that any row
# has) took 0.3-0.8 us.
READ_SECONDS_PER_BYTE = 4e-8
READ_SECONDS_PER_FIELD = {"csv": 5e-7, "tsv": 5e-7, "text": 5e-7, "jsonl": 1e-6, "json": 1e-6}
READ_SECONDS_PER_MARK = {"csv": 1e-6, "tsv": 1e-6, "text": 0.0, "jsonl": 4e-6, "json": 4e-6}
READ_BYTES_PER_FIELD = 160  # a field's string and its entry in the row's dict, at the peak
WRITE_SECONDS_PER_CELL = 1e-6

# The Which ROUGE? tab (rouge_exact.explain and one walk between two of its conventions): every
# convention the package reproduces scored on the same texts, each with its own tokenizer,
# stemmer, cut and counts. Its cost, estimated before any of it runs (CPU seconds, measured on
# a shared 2-vCPU x86-64 VM with the command in docs/space.md, "What the Which ROUGE? tab
# costs", rounded up), is about 15-45 compute()s: the kernels of EXPLAIN_KERNEL_RUNS compute()s
# (its conventions share columns of counts); the conventions' own tokenizers (Punkt,
# pycocoevalcap's, pltrdy's, rouge-chinese's, the long-word path of each view), up to 1.5 us
# a character in all (0.6-0.9 us on news text and Chinese, 2 us on words too long to pack);
# both stemmers (Porter's, ROUGE-1.5.5's) on each distinct word, at scan_cost's rate; and the
# script's bootstrap (1,000 samples) for each of its EXPLAIN_BOOTSTRAPS conventions. A walk
# on the stored conventions costs less than the explain that stored them (a walk from
# scratch took at most 1.1x an explain on the same texts). These count explain's conventions
# with one reference per example (25 rows, 10 of them the script's); with several references
# it has more rows, one per multi-reference rule a profile allows (45, 12 bootstraps). The
# estimate holds all the same: it is 2.5-4 times what news text takes, and on 2,000 realsumm
# pairs with 3 references it stayed above what they took (7.1 s estimated, 1.1 s taken;
# benchmarks/space_explain_cost.py).
EXPLAIN_KERNEL_RUNS = 20
EXPLAIN_SECONDS_PER_CHAR = 1.5e-6
EXPLAIN_SECONDS = 0.3  # its conventions' options, signatures and rows, whatever the texts
EXPLAIN_STEMMERS = 2
EXPLAIN_BOOTSTRAPS = 10
# The examples a walk's step moves most are shown with their tokens, tokenized again for each
# step before and after it (word by word, each word stemmed afresh: about 32 us a stemmed
# token, 6.4 us a character of 4-letter words); per step at most WALK_EXAMPLES, fewer where
# their texts are long enough to take more than WALK_EXAMPLES_SECONDS (a note says so).
WALK_EXAMPLES = 3
WALK_SECONDS_PER_CHAR = 8e-6
WALK_EXAMPLES_SECONDS = 2.0
WALK_TOKENS_SHOWN = 150  # tokens drawn per text of an example that moves

# what the page draws (the numbers are computed whole; only their display is bounded)
HIGHLIGHT_TOKENS = 2_000  # tokens drawn per text until "Show all tokens" is ticked
HIGHLIGHT_SECONDS = 1.5  # estimated LCS traceback time above which ROUGE-1 is shown instead
SKIP_PAIRS_SHOWN = 12
SKIP_LIST_TOKENS = 400  # skip-bigram pairs are listed for texts up to this many tokens
CHUNK_ROWS = 1_000  # corpus rows scored per step of the progress bar
WORST_SHOWN = 10
PREVIEW_CHARS = 160
DOWNLOADS_KEPT = 16  # per-example CSVs kept on disk (older ones are deleted)

CLI = "rouge-exact"  # the command (pip install rouge-exact)


# what the metric raises on bad input: a wrong value or type, or a language whose package is
# not installed (ImportError naming it). Each reaches the user as its own message; anything
# else is a bug, and Gradio's generic error with a traceback in the log is right for it.
INPUT_ERRORS = (ValueError, TypeError, ImportError)


def input_error(problem: Exception, title: str = "Invalid input") -> gr.Error:
    """The metric's own message for bad input, as the page and the API show it (a gr.Error,
    which is a ValueError, raised inside the try: as it is, its title kept)."""
    if isinstance(problem, gr.Error):
        return problem
    if isinstance(problem, ImportError):
        title = "Missing package"
    return user_error(str(problem), title=title)


class Refused(gr.Error):
    """A request over one of the Space's limits (shown as it is, no traceback)."""


def user_error(message: str, title: str = "Error") -> gr.Error:
    """A problem with the request, shown to the user as it is (no traceback in the log)."""
    return gr.Error(message, title=title, print_exception=False)


def refused(what: str, got, limit, local: str) -> gr.Error:
    return Refused(f"{what}: got {got}; the Space's limit is {limit}. Run it on your machine "
                   f"with no limit: {local}", title="Over the Space's limit",
                   print_exception=False)


def check_texts(predictions: list, references: list) -> tuple:
    """(predictions, references as lists of lists) within the row, reference and character
    limits; the metric's own checks (types, empty lists) come first."""
    try:
        predictions, references = check_inputs(predictions, references)
    except INPUT_ERRORS as problem:
        raise input_error(problem) from None
    if len(predictions) > MAX_ROWS:
        raise refused("examples", f"{len(predictions):,}", f"{MAX_ROWS:,} examples",
                      f"{CLI} --input YOUR_FILE.jsonl")
    references = [[r] if isinstance(r, str) else r for r in references]
    total = sum(map(len, predictions)) + sum(len(r) for refs in references for r in refs)
    if total > MAX_TOTAL_CHARS:
        raise refused("this request", f"{total:,} characters of text",
                      f"{MAX_TOTAL_CHARS:,} characters per request",
                      f"{CLI} --input YOUR_FILE.jsonl")
    for k, (p, refs) in enumerate(zip(predictions, references)):
        if len(refs) > MAX_REFERENCES:
            raise refused(f"references[{k}]", f"{len(refs)} references",
                          f"{MAX_REFERENCES} per example", f"{CLI} --input YOUR_FILE.jsonl")
        for where, text in [(f"predictions[{k}]", p)] + [
                (f"references[{k}][{j}]", r) for j, r in enumerate(refs)]:
            if len(text) > MAX_TEXT_CHARS:
                raise refused(where, f"{len(text):,} characters",
                              f"{MAX_TEXT_CHARS:,} characters per text",
                              f"{CLI} --input YOUR_FILE.jsonl")
    return predictions, references


# Tokenizing's own cost, estimated before tokenizing (CPU seconds on the Space's 2 cores,
# measured with the command in docs/space.md, rounded up): per character by tokenizer kind,
# per distinct whitespace-separated word stemmed (the stemmers are pure Python; a memoized
# word costs nothing, but a request is costed as if none were). Bytes: what tokenizing holds
# per character at its peak.
# (byte: 3 ns; unicode on CJK 1.3 us, on English 0.3 us; jieba 12.5 us on 100k characters)
TOKENIZE_SECONDS_PER_CHAR = {"byte": 1e-8, "string": 1.3e-6, "segmenter": 1.5e-5}
STEM_SECONDS_PER_WORD = 2e-5
TOKENIZE_BYTES_PER_CHAR = 40


# the characters every tokenizer splits a word at: whitespace, Unicode punctuation (P*) and
# ASCII characters that are neither letters nor digits (what the language profiles' BERT rule
# and rouge_score's [a-z0-9]+ both split on), as spaces for str.translate
_SPLIT_AT = {c: " " for c in range(sys.maxunicode + 1)
             if unicodedata.category(chr(c)).startswith("P")
             or (c < 128 and not chr(c).isalnum())}
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")


def distinct_words(texts: list) -> int:
    """At least how many distinct words a stemmer can be handed for these texts, counted
    without tokenizing: the distinct pieces of the texts split at whitespace and punctuation
    ("aaa.bbb,ccc-ddd": 4 pieces, the language profiles' words) together with the distinct
    runs of ASCII letters and digits (rouge_score's and ROUGE-1.5.5's words, before lowering).
    Each tokenizer's words are among the one or the other, so their union is an overestimate."""
    words: set = set()
    for text in texts:
        words.update(text.translate(_SPLIT_AT).split())
        words.update(_ASCII_WORD.findall(text))
    return len(words)


def scan_cost(options, texts: list) -> tuple:
    """(seconds, bytes) of tokenizing these texts, from a cheap scan: characters and the
    distinct words a stemmer may be handed (distinct_words: an overestimate)."""
    per_char = TOKENIZE_SECONDS_PER_CHAR["string"]
    if options.tokenizer.name in ("default", "rouge155"):
        per_char = TOKENIZE_SECONDS_PER_CHAR["byte"]
    elif language_segmenter(options):  # a language profile's, or one a profile cuts with first
        per_char = TOKENIZE_SECONDS_PER_CHAR["segmenter"]
    chars = sum(map(len, texts))
    # the texts are tokenized twice: for their sizes here, then to be scored
    seconds = 2 * per_char * chars
    if options.stemmer is not None:
        seconds += STEM_SECONDS_PER_WORD * distinct_words(texts)
    return seconds, TOKENIZE_BYTES_PER_CHAR * chars


def read_cost(fmt: str, size: int, fields: int, marks: int = 0) -> tuple:
    """(seconds, bytes) of reading a file of ``size`` bytes, at most ``fields`` fields and
    ``marks`` marks of a slower field (quotes in CSV/TSV, opening brackets in JSON) in the
    format ``fmt`` (one of rouge_exact.io.FORMATS), the rows' other fields kept."""
    return (READ_SECONDS_PER_BYTE * size + READ_SECONDS_PER_FIELD[fmt] * fields
            + READ_SECONDS_PER_MARK[fmt] * marks, size + READ_BYTES_PER_FIELD * fields)


def download_cost(rows: int, columns: int) -> float:
    """Seconds of writing the per-example CSV's other columns: a cell per row and column."""
    return WRITE_SECONDS_PER_CELL * rows * columns


def language_segmenter(options) -> str | None:
    """The segmenter (a key of MAX_SEGMENTER_CHARS) that cuts the texts of these checked
    options, or None: lang's, whether the language tokenizer runs it or a profile cuts the
    texts with it before its own tokenizer (pltrdy's and rouge-chinese's with lang="zh")."""
    return next((language.segmenter for language in LANGUAGES
                 if language.code == options.lang), None)


def check_segmenter(options, predictions: list, references: list, local: str) -> None:
    """Refuse a text longer than its language's segmenter may see (MAX_SEGMENTER_CHARS)."""
    segmenter = language_segmenter(options)
    if segmenter is None:
        return
    limit = MAX_SEGMENTER_CHARS[segmenter]
    texts = [(f"predictions[{k}]", p) for k, p in enumerate(predictions)] + [
        (f"references[{k}][{j}]", r) for k, refs in enumerate(references)
        for j, r in enumerate(refs)]
    for where, text in texts:
        if len(text) > limit:
            raise refused(where, f"{len(text):,} characters",
                          f"{limit:,} characters per text with lang={options.lang!r} "
                          f"(its segmenter, {segmenter}, slows down on long texts)", local)


def kernel_cost(options, sizes: dict, rows: int, references: list, repeats: int = 1) -> tuple:
    """The metric's estimate (seconds, bytes) of its kernels on these texts (sizes: of the
    predictions, then of each example's references in turn)."""
    counts = np.array([len(r) for r in references], dtype=np.int64)
    pair_pred = np.repeat(np.arange(rows), counts)
    pair_ref = np.arange(rows, rows + int(counts.sum()))
    return estimate_cost(options, sizes, pair_pred, pair_ref, repeats)


def check_budget(options, predictions: list, references: list, local: str,
                 repeats: int = 1, extra_seconds: float = 0.0, extra_note: str = "",
                 kernel_runs: float = 1.0) -> dict:
    """Refuse up front what is over the token limit or the CPU/memory budget: first by a
    cheap scan (segmenters' character limit, tokenizing's own cost), so that no request is
    tokenized at a cost over the budget; then, on the tokens, by the metric's estimate of its
    kernels' work (repeats: they run that many times; extra_seconds: work besides them, such
    as resampling, or reading an upload and writing its per-example CSV, which extra_note
    names in a refusal, e.g. "3.2 s of it reading the upload"; kernel_runs: the estimate of
    the kernels' work counted that many times, for a request that scores the texts under
    many conventions). Returns (the metric's text sizes, the estimated seconds in all)."""
    texts = list(predictions) + [r for refs in references for r in refs]
    check_segmenter(options, predictions, references, local)
    seconds, peak = scan_cost(options, texts)
    note = f"; {extra_note}" if extra_note else ""
    if seconds + extra_seconds > CPU_BUDGET_SECONDS:
        raise refused("this request", f"an estimated {seconds + extra_seconds:,.0f} s of CPU "
                      f"(tokenizing and stemming{note})",
                      f"about {CPU_BUDGET_SECONDS:g} s per request", local)
    if peak > MEMORY_BUDGET_BYTES:
        raise refused("this request", f"an estimated {peak / 2 ** 30:,.1f} GiB of memory "
                      "(tokenizing)", f"{MEMORY_BUDGET_BYTES / 2 ** 30:g} GiB per request", local)
    try:
        sizes = text_sizes(options, texts)
    except INPUT_ERRORS as problem:
        raise input_error(problem) from None
    too_long = np.flatnonzero(sizes["tokens"] > MAX_TEXT_TOKENS)
    if len(too_long):
        k = int(too_long[0])
        where = f"predictions[{k}]" if k < len(predictions) else "a reference"
        raise refused(where, f"{int(sizes['tokens'][k]):,} tokens after normalisation",
                      f"{MAX_TEXT_TOKENS:,} tokens per text", local)
    kernels, peak = kernel_cost(options, sizes, len(predictions), references, repeats)
    seconds += kernel_runs * kernels + extra_seconds
    if seconds > CPU_BUDGET_SECONDS:
        raise refused("this request", f"an estimated {seconds:,.0f} s of CPU"
                      + (f" ({extra_note})" if extra_note else ""),
                      f"about {CPU_BUDGET_SECONDS:g} s per request", local)
    if peak > MEMORY_BUDGET_BYTES:
        raise refused("this request", f"an estimated {peak / 2 ** 30:,.1f} GiB of memory",
                      f"{MEMORY_BUDGET_BYTES / 2 ** 30:g} GiB per request", local)
    return sizes, seconds


def explain_text_cost(texts: list, rows: int, types: int, words: bool = True) -> float:
    """Seconds of explain's work besides its kernels, from a cheap scan (no tokenizing): the
    conventions' tokenizers over every character, the script's bootstrap of each of its
    conventions and (words) the stemmers over every distinct word (EXPLAIN_SECONDS_PER_CHAR)."""
    samples = RougeOptions.build().n_samples
    seconds = (EXPLAIN_SECONDS + EXPLAIN_SECONDS_PER_CHAR * sum(map(len, texts))
               + EXPLAIN_BOOTSTRAPS * resampling_cost(rows, samples, types))
    if words:  # (counting them takes 0.2 s a million characters: after the rest is in)
        seconds += EXPLAIN_STEMMERS * STEM_SECONDS_PER_WORD * distinct_words(texts)
    return seconds


def check_explain_budget(options, predictions: list, references: list, local: str,
                         extra_seconds: float = 0.0, extra_note: str = "") -> tuple:
    """Refuse up front an explain (and its walk) estimated over the budget: first its
    tokenizers, bootstraps and stemmers (explain_text_cost, before tokenizing), then with
    its kernels (check_budget, EXPLAIN_KERNEL_RUNS times one scoring's). Returns (the text
    sizes, the estimated seconds in all: a walk on its result costs less)."""
    texts = list(predictions) + [r for refs in references for r in refs]
    note = "; ".join(n for n in ("every convention's tokenizers and counts", extra_note) if n)
    for words in (False, True):
        seconds = explain_text_cost(texts, len(predictions), len(options.rouge_types), words)
        if seconds + extra_seconds > CPU_BUDGET_SECONDS:
            raise refused("this request", f"an estimated {seconds + extra_seconds:,.0f} s of "
                          f"CPU ({note})", f"about {CPU_BUDGET_SECONDS:g} s per request", local)
    return check_budget(options, predictions, references, local,
                        extra_seconds=seconds + extra_seconds, extra_note=note,
                        kernel_runs=EXPLAIN_KERNEL_RUNS)


def walk_examples(predictions: list, references: list, seconds_left: float) -> int:
    """How many of the examples each step moves most a walk shows with their tokens: at most
    WALK_EXAMPLES, as many as the longest example (its prediction and references) allows
    within WALK_EXAMPLES_SECONDS and the seconds left in the budget, for every step."""
    longest = max(len(p) + sum(map(len, refs)) for p, refs in zip(predictions, references))
    # each step tokenizes every text of each example it shows twice: before and after it
    per_example = WALK_SECONDS_PER_CHAR * 2 * longest * (len(EXPLAIN_SETTINGS) + 1)
    allowed = min(WALK_EXAMPLES_SECONDS, max(0.0, seconds_left))
    return int(min(WALK_EXAMPLES, allowed // per_example)) if per_example else WALK_EXAMPLES
