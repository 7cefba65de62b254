"""The one pipeline behind every surface: texts -> tokens -> ids -> kernels -> per-example
statistics -> aggregate -> format.

``Scorer(options)`` is the only way to a number: ``add(predictions, references)`` scores a
batch (in chunks, on threads) and adds it to an ``Aggregate``; ``result()`` formats compute()'s
output; ``warnings()`` says what is true of everything added. ``compute()``, ``add``/
``add_batch``, the CLI, the Space and the engines all go through it.

* tokens: the options' ``TokenizerProfile`` (rouge_text) gives a ``TokenizedBatch``;
* kernels (rouge_kernels) give integer statistics per (prediction, reference) pair; which
  kernel, and whatever else varies by ROUGE kind, is the type's ``Kind`` (rouge_registry);
* ``example_statistics`` combines the references of each example per the profile (max F,
  pooled counts or ROUGE-1.5.5's best) into per-example (P, R, F) and counts;
* ``Aggregate`` (rouge_aggregate) sums them, with the bootstrap interval.

For the Space: ``reference_scores`` (each reference's own P/R/F and the one the multi_ref
mode picks, ``chosen_references``) and ``pair_marks`` (the tokens behind a number, as the
kind marks them: for L/Lsum/W the union-LCS kernel's own traceback).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import operator
import re
import struct
import types
import weakref
import zlib
from typing import Optional, Sequence

import numpy as np

from .rouge_aggregate import (
    Aggregate,
    NOTE_COUNTS,
    InputNotes,
    ScoredExamples,
    fscore,
    safe_div,
    wants_poisson_bootstrap,
)
from .rouge_backend import (
    kernel,
    mode,
    threads_here,
)
from .rouge_pool import (
    run_parts,
)
from .rouge_profiles import (
    no_rounding,
)
from .rouge_registry import (
    KIND_MEMOS,
    KINDS,
    kind_of,
    skip_bigram_matches,  # (re-exported: the metric's name for the Space)
    text_ids,
)
from .rouge_lang import (
    fallback_warning,
    no_stemmer_warning,
    script_hint,
    script_of,
)
from .rouge_options import (
    MAX_SAMPLES,
    RougeOptions,
    __version__,
    RougeType,
)
from .rouge_text import (
    ByteTokenizer,
    ForkSafeLock,
    NotText,
    StringTokenizer,
    TokenizedBatch,
    first_not_text,
    split_sentences as split_sentences_rule_based,
)

_PARALLEL_MIN_PAIRS = 32  # below this many pairs and tokens, the pool costs more than it saves
_PARALLEL_MIN_TOKENS = 50_000
_PAIRS_PER_CHUNK = 8  # the fewest pairs a chunk of kernel calls on the pool gets
_CHUNK_EXAMPLES = 50_000  # examples tokenized and scored at a time: bounds the token arrays
_THREAD_CHUNK_MIN = 32  # examples per chunk below which one thread does it all


# --------------------------------------------------------------------------------------------
# ROUGE-1.5.5's length limits (-l, -b)

def _truncate_words(text: str, limit: int) -> str:
    """ROUGE-1.5.5 -l: keep the first `limit` whitespace chunks (Perl split /\\s+/, which
    yields a leading empty chunk when a line starts with whitespace), line by line."""
    kept = []
    count = 0
    for line in _rouge155_lines(text):
        words = _perl_split(line)
        if count + len(words) < limit:
            kept.append(line)
            count += len(words)
            continue
        kept.append(" ".join(words[:limit - count]))
        break
    return "\n".join(kept)


_PERL_SPACE = re.compile(r"[ \t\n\r\f\v]+")  # Perl's \s on bytes: ASCII whitespace only


def _perl_split(line: str) -> list:
    r"""Perl's split /\s+/ of the raw bytes: only ASCII whitespace separates (not NBSP, the
    em space or \x1c-\x1f, which Python's \s matches); UTF-8 multi-byte sequences never
    contain an ASCII byte, so splitting the str is the same."""
    parts = _PERL_SPACE.split(line)
    while parts and parts[-1] == "":  # Perl drops trailing empty fields
        parts.pop()
    return parts


def _truncate_bytes(text: str, limit: int, count_bytes: bool) -> str:
    """ROUGE-1.5.5 -b: readText keeps sentences while the running byte count stays below the
    limit and cuts the first that does not fit; readText_LCS never increases its count
    (count_bytes=False), so it keeps every short sentence and cuts the first long one."""
    kept = []
    used = 0
    for line in _rouge155_lines(text):
        raw = line.encode("utf-8", "surrogatepass")
        if used + len(raw) < limit:
            kept.append(line)
            if count_bytes:
                used += len(raw)
            continue
        kept.append(raw[:limit - used].decode("utf-8", "replace"))
        break
    return "\n".join(kept)


def _rouge155_lines(text: str) -> list:
    """ROUGE-1.5.5's sentences: the non-empty lines (whitespace-only lines are kept)."""
    return [line for line in text.split("\n") if line]



# --------------------------------------------------------------------------------------------
# Pair statistics


class _Plan:
    """What scoring a batch needs from an option set, worked out once per option set (a small
    call would otherwise pay for it each time)."""

    def __init__(self, options: RougeOptions):
        types = options.rouge_types
        self.names = tuple(t.name for t in types)
        self.kinds = tuple(kind_of(options, t) for t in types)  # what each type runs as
        # ROUGE-N's orders are scored in one kernel call
        orders = sorted({t.n for t in types if t.kind == "n"})
        self.ngram_orders = np.array(orders, dtype=np.int64)  # only these orders are built
        self.ngram_column = {n: q for q, n in enumerate(orders)}
        # the sentence view of a language tokenizer (rougeLsum, rougeW: XL-Sum's lines)
        self.sentence_view = any(t.spec.sentences for t in types)
        self.reads_sentences = any(kind.sentences for kind in self.kinds)
        self.w_types = tuple((j, t.weight) for j, t in enumerate(types) if t.spec.weighted)


# id(options) -> (weak reference to the options, plan). Options built from plain values are
# reused, so their plan is found again; the cache keeps no options (nor a user's tokenizer
# function in them) alive, and a dead entry's id, reused by new options, is told apart.
_PLANS: dict = {}
KIND_MEMOS.append(_PLANS)


def _plan(options: RougeOptions) -> _Plan:
    entry = _PLANS.get(id(options))
    if entry is not None and entry[0]() is options:
        return entry[1]
    if len(_PLANS) >= 256:
        _PLANS.clear()
    plan = _Plan(options)
    _PLANS[id(options)] = (weakref.ref(options), plan)
    return plan


def _tokenizer_checks_texts(options: RougeOptions) -> bool:
    """Whether the tokenizer finds a str that is not text (a lone surrogate) itself: the byte
    tokenizers encode each non-ASCII text as they go (rouge_text._ascii_buffer), and get the
    texts as given unless sentences are split or lengths limited first."""
    return (type(options.tokenizer) is ByteTokenizer and not options.split_sentences
            and options.length_limit_words is None and options.length_limit_bytes is None)


def not_text(predictions, references) -> Optional[NotText]:
    """The first text of these rows that is not text (a lone surrogate), or None: the
    predictions, then the references row by row, each named as the user gave it
    (``predictions[i]``, ``references[i]``, ``references[i][j]``). check_inputs' full check,
    and the scorer's on an error, so the same one is named whatever the chunks."""
    found = first_not_text("predictions", predictions)
    if found is not None:
        return found
    if set(map(type, references)) <= {str}:
        return first_not_text("references", references)
    for i, row in enumerate(references):
        if isinstance(row, str):
            found = first_not_text("references", [row])
            found = found and NotText(f"references[{i}]", found.bad)
        else:
            found = first_not_text(f"references[{i}]", row)
        if found is not None:
            return found
    return None


def _pair_statistics(options: RougeOptions, predictions, references):
    """Tokenize once and run the kernels: float64[pairs, types, 3], the statistics of each
    pair per type (in options.rouge_types' order), plus pair layout. A text that is not text
    (a lone surrogate) is a NotText naming it (not_text): found by the byte tokenizers as
    they encode, else looked for here first."""
    if not _tokenizer_checks_texts(options):
        found = not_text(predictions, references)
        if found is not None:
            raise found
    try:
        return _pair_statistics_of(options, predictions, references)
    except NotText as error:  # the byte tokenizer's, which knows only its place in texts
        raise (not_text(predictions, references) or error) from None


def _pair_statistics_of(options: RougeOptions, predictions, references):
    n_examples = len(predictions)
    plan = _plan(options)
    if set(map(type, references)) <= {str}:  # (in C: this thread holds the GIL here)
        # one reference each: no list per example (10,000 small lists would trigger the
        # garbage collector, whose full collections scan every object of the process)
        ref_counts = np.ones(n_examples, dtype=np.int64)
        texts = [*predictions, *references]
        pair_pred = np.arange(n_examples, dtype=np.int64)
    else:
        refs = [[r] if isinstance(r, str) else list(r) for r in references]
        ref_counts = np.array([len(r) for r in refs], dtype=np.int64)
        if not ref_counts.all():  # compute() checks this first; the engines' rows come here
            i = int(np.argmin(ref_counts))
            raise ValueError(f"references[{i}]: got an empty list; allowed: at least one "
                             "reference string per prediction")
        texts = list(predictions) + [r for row in refs for r in row]
        pair_pred = np.repeat(np.arange(n_examples, dtype=np.int64), ref_counts)
    if options.split_sentences:
        texts = [split_sentences_rule_based(t) for t in texts]
    pair_ref = np.arange(n_examples, n_examples + len(pair_pred), dtype=np.int64)

    tokenizer = options.tokenizer
    token_options = dict(stemmer=options.stemmer, stopwords=options.remove_stopwords)
    if options.length_limit_words is not None:
        texts = [_truncate_words(t, options.length_limit_words) for t in texts]
    flat_texts = texts
    if options.length_limit_bytes is not None:
        flat_texts = [_truncate_bytes(t, options.length_limit_bytes, True) for t in texts]
    if options.length_limit_bytes is not None and plan.reads_sentences:
        # Under -b ROUGE-1.5.5's sentence reader keeps more text than its joined-text reader
        # (SPEC §2.2). Both views come from one tokenizer call, so that a token has the same
        # id in both (long words get ids per call): rouge155 clips the LCS of the sentence
        # view with unigram tables of the flat view.
        lcs_texts = [_truncate_bytes(t, options.length_limit_bytes, False) for t in texts]
        flat, sent = _split_batch(tokenizer.batch(flat_texts + lcs_texts,
                                                  **token_options), len(flat_texts))
    else:
        flat = tokenizer.batch(flat_texts, **token_options)
        sent = flat
        if plan.sentence_view:
            sent = tokenizer.sentence_batch(texts, **token_options) or flat

    flat_offsets = flat.text_offsets
    stats = np.empty((len(pair_pred), len(options.rouge_types), 3), dtype=np.float64)
    backend = mode()  # read once (it reads the environment)
    if len(plan.ngram_orders):
        by_order = _over_pairs(kernel(KINDS["n"].kernel, backend), (flat.tokens, flat_offsets),
                               pair_pred, pair_ref, (plan.ngram_orders,))
    for j, (t, kind) in enumerate(zip(options.rouge_types, plan.kinds)):
        if t.kind == "n":
            stats[:, j] = by_order[:, plan.ngram_column[t.n], :]
        else:
            head, tail = kind.arguments(t, flat, sent, _clip_view(options, flat, sent))
            stats[:, j] = _over_pairs(kernel(kind.kernel, backend), head, pair_pred, pair_ref,
                                      tail)
    return stats, ref_counts, texts, flat, sent



def _over_pairs(kernel, head: tuple, pair_pred, pair_ref, tail: tuple = ()):
    """kernel(*head, pair_pred, pair_ref, *tail) over chunks of the pairs on a thread pool:
    the kernels release the GIL (numba nogil), so the chunks run on all cores. (numba's own
    parallel=True compiles several times slower, and compilation is the cold-start cost.)"""
    n = len(pair_pred)
    threads = threads_here()
    few = n < _PARALLEL_MIN_PAIRS and len(head[0]) < _PARALLEL_MIN_TOKENS  # head[0]: tokens
    if n < 2 or few or threads == 1:
        return kernel(*head, pair_pred, pair_ref, *tail)
    # more chunks than threads, so one chunk of long documents does not hold up the rest; at
    # least _PAIRS_PER_CHUNK pairs each, so that a small call's chunks are worth a hand-off
    parts = max(2, min(4 * threads, n // _PAIRS_PER_CHUNK))
    bounds = np.linspace(0, n, parts + 1).astype(np.int64)
    chunks = [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    parts = run_parts(
        lambda span: kernel(*head, pair_pred[span[0]:span[1]], pair_ref[span[0]:span[1]],
                            *tail), chunks)
    return np.concatenate(parts)


def _split_batch(batch: TokenizedBatch, k: int) -> tuple:
    """The first k texts of one TokenizedBatch and the rest, as two batches."""
    tso, so = batch.text_sent_offsets, batch.sent_offsets
    s_mid = int(tso[k])
    t_mid = int(so[s_mid])
    first = TokenizedBatch(batch.tokens[:t_mid], so[:s_mid + 1], tso[:k + 1])
    rest = TokenizedBatch(batch.tokens[t_mid:], so[s_mid:] - t_mid, tso[k:] - s_mid)
    return first, rest


def _clip_view(options, flat, sent):
    """Tokens that fill the clipping tables of the union LCS: ROUGE-1.5.5 takes them from its
    joined-text reader (``flat``); rouge_score from the sentence tokens."""
    view = flat if options.profile.clip_from_flat else sent
    return view.tokens, view.text_offsets



# --------------------------------------------------------------------------------------------
# Per-example scores


def _sequential_sums(x: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Sum of each group x[starts[i]:starts[i] + sizes[i]], added left to right as the
    script does (np.add.reduceat adds a group of 3 or more in another order, which can
    change the last bit of ROUGE-W's float counts)."""
    out = x[starts].astype(np.float64)
    for j in range(1, int(sizes.max(initial=1))):
        more = sizes > j
        out[more] += x[starts[more] + j]
    return out


def _precision_recall(options: RougeOptions, rouge_type: RougeType, hit, pred_len, ref_den):
    """(P, R) from the counts, unrounded: for a weighted kind (ROUGE-W), ROUGE-1.5.5 weights
    the reference base a second time and the prediction length once, then applies f^-1(x) =
    x ** (1 / weight)."""
    power, weight = options.profile.power, rouge_type.weight
    if not rouge_type.spec.weighted:
        return safe_div(hit, pred_len), safe_div(hit, ref_den)
    p = safe_div(hit, power(pred_len, weight))
    r = safe_div(hit, power(ref_den, weight))
    return power(p, 1.0 / weight), power(r, 1.0 / weight)


def example_statistics(options: RougeOptions, rouge_types: Sequence[RougeType],
                       values: np.ndarray, ref_counts: np.ndarray) -> tuple:
    """Combine each example's references per the options: per-example (P, R, F) and the
    counts behind them (hit, den_p, den_r) for micro aggregation, both float64[N, types, 3],
    from the pairs' values float64[pairs, types, 3] (types in ``rouge_types``' order).

    All types at once: a small call's cost is numpy's per-operation overhead, not the
    arithmetic, which is elementwise (IEEE, the same numbers whatever the shape). A weighted
    kind's (ROUGE-W's) powers are taken per type, on strided columns as before (numpy's SIMD
    power differs from libm in the last bit; on the pinned numpy strided and contiguous input
    give the same)."""
    profile = options.profile
    w_types = [(j, t.weight) for j, t in enumerate(rouge_types) if t.spec.weighted]
    counts = values  # (hit, den_p, den_r) of each pair (not written to: the caller's)
    if w_types:
        counts = values.copy()
    for j, weight in w_types:  # a weighted kind's counts hold f(len) = len ** weight
        counts[:, j, 1] = profile.power(values[:, j, 1], weight)
        counts[:, j, 2] = profile.power(values[:, j, 2], weight)
    if len(ref_counts) == len(values):  # (every example has a reference or more)
        chosen = counts  # one pair per example: in every multi_ref mode its own counts
    else:
        starts = np.concatenate(([0], np.cumsum(ref_counts)[:-1]))
        chosen = np.empty((len(ref_counts), *counts.shape[1:]), dtype=np.float64)
        for j, t in enumerate(rouge_types):
            rows = chosen_references(options, t, values[:, j], ref_counts)
            for c in range(3):
                x = counts[:, j, c]
                if rows is not None:
                    chosen[:, j, c] = x[rows]
                elif profile.sequential_sums:
                    chosen[:, j, c] = _sequential_sums(x, starts, ref_counts)
                else:
                    chosen[:, j, c] = np.add.reduceat(x, starts)
    if options.multi_ref == "max_pr" and len(ref_counts) != len(values):
        return _separate_maxima(options, rouge_types, values, ref_counts), chosen
    if not w_types and profile.rounding is no_rounding and profile.f_rule is fscore:
        # the common case: one kernel call
        return kernel("example_prf")(np.ascontiguousarray(chosen), float(options.alpha)), chosen
    out = np.empty(chosen.shape, dtype=np.float64)  # (P, R, F)
    # P and R in one division: hit / (den_p, den_r), 0 where the denominator is 0
    pr = out[..., :2]
    pr[...] = 0.0
    np.divide(chosen[..., :1], chosen[..., 1:], out=pr, where=chosen[..., 1:] > 0)
    for j, weight in w_types:  # the counts hold f(len) already: only f^-1 is left to apply
        for c in (0, 1):  # on a contiguous column, as the numbers were always made
            pr[:, j, c] = profile.power(np.ascontiguousarray(pr[:, j, c]), 1.0 / weight)
    rounded = profile.rounding(pr)
    if rounded is not pr:
        pr[...] = rounded
    out[..., 2] = profile.rounding(options.fscore(pr[..., 0], pr[..., 1]))
    return out, chosen


def _separate_maxima(options: RougeOptions, rouge_types: Sequence[RougeType],
                     values: np.ndarray, ref_counts: np.ndarray) -> np.ndarray:
    """multi_ref max_pr (coco-caption's): P and R each the maximum of the references' own,
    maybe from two references, and F of those two; float64[N, types, 3]."""
    starts = np.concatenate(([0], np.cumsum(ref_counts)[:-1]))
    out = np.empty((len(ref_counts), len(rouge_types), 3), dtype=np.float64)
    for j, t in enumerate(rouge_types):
        p, r = _precision_recall(options, t, values[:, j, 0], values[:, j, 1], values[:, j, 2])
        out[:, j, 0] = np.maximum.reduceat(p, starts)
        out[:, j, 1] = np.maximum.reduceat(r, starts)
    pr = out[..., :2]
    rounded = options.profile.rounding(pr)
    if rounded is not pr:
        pr[...] = rounded
    out[..., 2] = options.profile.rounding(options.fscore(pr[..., 0], pr[..., 1]))
    return out


def chosen_references(options: RougeOptions, rouge_type: RougeType, values: np.ndarray,
                      ref_counts: np.ndarray):
    """The pair (row of ``values``) that each example's score comes from, int64[N], or None
    where the multi_ref mode pools the references' counts (average; one reference each
    outside max mode) or takes its P and R apart (max_pr)."""
    if options.multi_ref in ("average", "max_pr") or \
            (ref_counts == 1).all() and options.multi_ref != "max":
        return None
    hit, ref_den = values[:, 0], values[:, 2]
    if options.multi_ref == "max":  # rouge_score's score_multi: the best F
        key = options.fscore(*_precision_recall(options, rouge_type, hit, values[:, 1], ref_den))
    else:  # ROUGE-1.5.5 -f B: the reference with the strictly highest key, the kind's
        key = rouge_type.spec.best_key(options.profile, rouge_type, hit, ref_den)
    starts = np.concatenate(([0], np.cumsum(ref_counts)[:-1]))
    return _first_max_per_group(key, starts, ref_counts)


def _first_max_per_group(key: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Index of the first maximum of key within each group (both originals keep the first
    reference on ties)."""
    if (sizes == 1).all():
        return starts.copy()
    chosen = starts.copy()
    for i in np.flatnonzero(sizes > 1).tolist():
        s = starts[i]
        chosen[i] = s + int(np.argmax(key[s:s + sizes[i]]))
    return chosen



def _row_keys(predictions, references) -> np.ndarray:
    """A 64-bit key per example from its own texts: CRC-32 and Adler-32 of the prediction and
    the references. (Two checksums of different kinds: CRC-32 alone is affine in its input,
    so a second CRC would collide together with the first.) The bootstrap weights are drawn
    from it, so they follow the example wherever it arrives (order, chunk, process).

    The checksummed bytes are an unambiguous encoding of the texts, so that distinct rows never
    share a key through it: texts without NUL are joined with NUL (split on it, they come
    back; this is the encoding that every published interval was drawn from, kept so that
    none changes); a row with a NUL in a text is length-prefixed instead, after a 0xFF byte,
    which no UTF-8 (hence no NUL-joined row) holds."""
    keys = []
    for prediction, refs in zip(predictions, references):
        texts = [prediction, refs] if isinstance(refs, str) else [prediction, *refs]  # as [str]
        joined = "\0".join(texts)
        if joined.count("\0") == len(texts) - 1:  # no text holds a NUL (the common case)
            data = joined.encode("utf-8", "surrogatepass")
        else:
            parts = [b"\xff"]
            for text in texts:
                raw = text.encode("utf-8", "surrogatepass")
                parts += [len(raw).to_bytes(8, "little"), raw]
            data = b"".join(parts)
        keys.append(zlib.crc32(data) << 32 | zlib.adler32(data))
    return np.array(keys, dtype=np.uint64)



# --------------------------------------------------------------------------------------------
# What the input looked like, and the warnings that are true of it

_MAY_END_SENTENCE = re.compile(r"[.!?。！？]")


def _input_notes(options: RougeOptions, texts, flat: TokenizedBatch, stats) -> InputNotes:
    notes = InputNotes(texts=len(texts))
    offsets = flat.text_offsets
    for k in (offsets[1:] == offsets[:-1]).nonzero()[0].tolist():
        text = texts[k]
        if any(ch.isalnum() for ch in text):
            notes.tokenless_letters += 1
            notes.tokenless_script = notes.tokenless_script or script_of(text)
        elif not text.isspace() and text:
            notes.tokenless_symbols += 1
    if len(texts) > 256 and options.tokenizer.line_sentences \
            and options.length_limit_bytes is None:
        # flat holds a sentence per line of these very texts: no second pass over their
        # characters (~0.8 ms a 3,000-example chunk, holding the GIL; for a few texts the
        # pass costs less than the numpy calls)
        sentences = np.diff(flat.text_sent_offsets)
        notes.texts_with_newline = int(np.count_nonzero(sentences > 1))
    else:
        notes.texts_with_newline = sum(map(operator.contains, texts, itertools.repeat("\n")))
    notes.segmenter_fallbacks = getattr(flat, "segmenter_fallbacks", 0)
    plan = _plan(options)
    if plan.reads_sentences and not options.split_sentences and not notes.texts_with_newline:
        # one text the rule-based splitter would split is enough for the warning: stop there
        notes.multi_sentence_texts = int(any(
            _MAY_END_SENTENCE.search(t) and "\n" in split_sentences_rule_based(t)
            for t in texts))
    if plan.w_types:
        notes.tokenless_w_references = int((stats[:, plan.w_types[0][0], 2] == 0).sum())
    return notes


def input_warnings(options: RougeOptions, notes: InputNotes) -> list:
    """The warnings that are true of everything added, as sentences."""
    out = []
    if notes.tokenless_letters:
        hint = ""
        if options.profile.tokenizer is None and options.tokenizer.name == "default":
            script = script_hint(notes.tokenless_script)
            hint = (" The default tokenizer keeps only a-z and 0-9 (as rouge_score); "
                    + (f"{script}, or tokenizer=\"unicode\"." if script else
                       "for other scripts use tokenizer=\"unicode\"."))
        out.append(f"{notes.tokenless_letters} of {notes.texts} texts have letters but no "
                   f"tokens; they score 0.{hint}")
    if notes.tokenless_symbols:
        out.append(f"{notes.tokenless_symbols} of {notes.texts} texts hold only punctuation or "
                   "symbols, which are not tokens; they score 0.")
    if notes.multi_sentence_texts and not notes.texts_with_newline:
        out.append("rougeLsum/rougeW compare sentence by sentence, and sentences are the lines "
                   "of a text: no text contains a newline, but some hold several sentences. "
                   "Put each sentence on its own line, or pass split_sentences=True.")
    if notes.tokenless_w_references:
        out.append(f"rougeW: {notes.tokenless_w_references} reference(s) have no tokens; they "
                   "score 0 (the ROUGE-1.5.5 script dies on them with a division by zero).")
    if notes.segmenter_fallbacks:
        out.append(fallback_warning(notes.segmenter_fallbacks, options.tokenizer))
    if options.use_stemmer and options.stemmer is None and options.lang is not None:
        out.append(no_stemmer_warning(options.tokenizer))
    elif options.use_stemmer and options.stemmer is None:
        out.append(f"use_stemmer has no effect with the {options.tokenizer.name} tokenizer "
                   "(as in rouge_score): stem inside your tokenizer.")
    if options.use_aggregator and options.detailed and \
            options.n_samples * (1.0 - options.confidence) / 2.0 < 1.0:
        need = int(np.ceil(2.0 / (1.0 - options.confidence) - 1e-9))
        # never recommend a count the options refuse: past MAX_SAMPLES, the fix is a lower
        # confidence (the highest any allowed count serves: MAX_SAMPLES * (1 - c) / 2 >= 1)
        fix = f"use n_samples >= {need}" if need <= MAX_SAMPLES else (
            f"no allowed n_samples (at most {MAX_SAMPLES:,}) is enough; use confidence <= "
            f"{1.0 - 2.0 / MAX_SAMPLES:g}")
        level = f"{options.confidence * 100:.10g}%"  # 99.99999999%, not a rounded 100%
        out.append(f"n_samples={options.n_samples} is too few for a {level} interval: each "
                   f"tail holds less than one bootstrap sample; {fix}.")
    return out


# --------------------------------------------------------------------------------------------
# The scorer


def example_scores(options: RougeOptions, predictions, references) -> tuple:
    """(ScoredExamples, InputNotes) of one batch of checked inputs (a lone surrogate, which
    the scoring finds: NotText)."""
    stats, ref_counts, texts, flat, sent = _pair_statistics(options, predictions, references)
    types = options.rouge_types
    all_scores, all_counts = example_statistics(options, types, stats, ref_counts)
    keys = _row_keys(predictions, references) if wants_poisson_bootstrap(options) else None
    return (ScoredExamples(_plan(options).names, all_scores, all_counts, keys),
            _input_notes(options, texts, flat, stats))


def _concatenated(batches: list) -> ScoredExamples:
    """One ScoredExamples of several, rows in order."""
    if len(batches) == 1:
        return batches[0]
    first = batches[0]
    return ScoredExamples(
        first.names, np.concatenate([b.score_array for b in batches]),
        np.concatenate([b.count_array for b in batches]),
        None if first.keys is None else np.concatenate([b.keys for b in batches]))


_STATE_MAGIC = b"ROUGE-METRIC-STATE\0"
_STATE_FORMAT = 1
# A state file is an input (its SHA-256 is a checksum, not a key: an edited state re-hashes):
# from_bytes checks every field's type and bounds before any use.
_STATE_FIELDS = ("format", "version", "options", "notes", "count", "exact", "arrays")
_STATE_ARRAYS = {"sample_sums": 2, "sample_weights": 1, "keys": 1, "copies": 1}  # name: ndim
_STATE_DEPTH = 4  # the header's nesting: {"arrays": [[name, dtype, [shape]]]}
_STATE_HEADER_MAX = 1 << 24  # bytes: a state of 1,000 rouge types has a header of ~1 MB
_EXACT_DIGITS = 700  # an exact sum below 2^63 * 2^1024 in units of 2^-1130 has <= 668 digits
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def _json_depth(text: bytes) -> int:
    """The deepest nesting of [ and { in JSON text (strings skipped), counted without
    recursion (json.loads recurses: a header nested 100,000 deep is a RecursionError)."""
    marks = np.frombuffer(_JSON_STRING.sub(b'""', text), dtype=np.uint8)
    steps = np.isin(marks, list(b"[{")).astype(np.int64) - np.isin(marks, list(b"]}"))
    return int(np.cumsum(steps).max(initial=0))


def _state_header(data: bytes, start: int) -> tuple:
    """(the JSON header of a state, where its arrays start), data without its digest:
    checked for size, depth, format, version and its fields; ValueError naming what is
    wrong."""
    (size,) = struct.unpack("<I", data[len(_STATE_MAGIC):start])
    if size > min(_STATE_HEADER_MAX, len(data) - start):
        raise ValueError(f"data: corrupted state header (its size: got {size} bytes; allowed: "
                         f"at most {min(_STATE_HEADER_MAX, len(data) - start)})")
    text = data[start:start + size]
    depth = _json_depth(text)
    if depth > _STATE_DEPTH:
        raise ValueError(f"data: corrupted state header (nested {depth} deep; allowed: at "
                         f"most {_STATE_DEPTH})")
    try:
        header = json.loads(text.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise ValueError("data: corrupted state header") from None
    if not isinstance(header, dict):
        raise ValueError("data: corrupted state header (not a JSON object)")
    if header.get("format") != _STATE_FORMAT:
        raise ValueError(f"data: state format {header.get('format')!r}; allowed: "
                         f"{_STATE_FORMAT}")
    if header.get("version") != __version__:
        raise ValueError(f"data: a state of rouge_metric {header.get('version')!r}; this is "
                         f"{__version__}: its numbers would differ (allowed: the same version)")
    if sorted(header) != sorted(_STATE_FIELDS):
        raise ValueError(f"data: corrupted state header (fields: got {sorted(header)}; "
                         f"allowed: {', '.join(_STATE_FIELDS)})")
    return header, start + size


def _state_notes(notes, count: int) -> InputNotes:
    """The header's input notes: a count each, none above the texts scored, and at least a
    prediction and a reference per example."""
    if not isinstance(notes, dict) or sorted(notes) != sorted(NOTE_COUNTS):
        got = sorted(notes) if isinstance(notes, dict) else type(notes).__name__
        raise ValueError(f"data: corrupted state (notes: got {got}; allowed: "
                         f"{', '.join(NOTE_COUNTS)})")
    texts = notes["texts"]
    if type(texts) is not int or not 2 * count <= texts < 2 ** 63:
        raise ValueError(f"data: corrupted state (notes.texts: got {texts!r:.40}; allowed: an "
                         f"integer from 2 * count = {2 * count} to 2^63 - 1)")
    for name in NOTE_COUNTS:
        value = notes[name]
        if type(value) is not int or not 0 <= value <= texts:
            raise ValueError(f"data: corrupted state (notes.{name}: got {value!r:.40}; "
                             f"allowed: an integer from 0 to notes.texts = {texts})")
    return InputNotes(**notes)


def _state_arrays(data: bytes, offset: int, entries) -> dict:
    """The raw arrays that follow the header, as the header lists them ([name, dtype,
    shape]): known names, each once, and exactly the bytes there are."""
    if not isinstance(entries, list):
        raise ValueError(f"data: corrupted state (arrays: got {type(entries).__name__}; "
                         "allowed: a list)")
    arrays = {}
    for i, entry in enumerate(entries):
        ok = isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str) \
            and entry[0] in _STATE_ARRAYS \
            and entry[0] not in arrays and isinstance(entry[1], str) \
            and isinstance(entry[2], list) and len(entry[2]) == _STATE_ARRAYS[entry[0]] \
            and all(type(n) is int and n >= 0 for n in entry[2])
        if ok:
            try:
                dtype = np.dtype(entry[1])
            except (TypeError, ValueError):
                ok = False
        if not ok or dtype.hasobject:
            raise ValueError(f"data: corrupted state (arrays[{i}]: got {entry!r:.80}; "
                             f"allowed: [name, dtype, shape] of {', '.join(_STATE_ARRAYS)}, "
                             "each once)")
        name, _, shape = entry
        count = int(np.prod(shape, dtype=object))  # Python ints: no overflow
        if offset + count * dtype.itemsize > len(data):
            raise ValueError(f"data: corrupted state ({name}: shape {shape} of {dtype.str} "
                             f"needs more bytes than the state has)")
        array = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
        arrays[name] = array.astype(array.dtype.newbyteorder("=")).reshape(shape)
        offset += array.nbytes
    if offset != len(data):
        raise ValueError(f"data: corrupted state ({len(data) - offset} trailing bytes)")
    return arrays


def _state_options(options: RougeOptions):
    """What must agree for two states to merge: every option (callables by identity: see
    _same_callables)."""
    try:
        return options.as_kwargs()
    except ValueError:
        return options


def _tokenizer_callables(tokenizer) -> tuple:
    """What a tokenizer without a name of its own runs (a user's callable, or a tokenizer
    object): the functions of a StringTokenizer, else the object itself."""
    if isinstance(tokenizer, StringTokenizer):
        return tokenizer.function, tokenizer.sentence_function
    return (tokenizer,)


def _same_callable(a, b) -> bool:
    """Identity: two lambdas share a name (and a signature) but not their tokens. A bound
    method is made anew at each ``obj.tokenize``: the same method of the same object is the
    same callable."""
    if isinstance(a, types.MethodType) and isinstance(b, types.MethodType):
        return a.__self__ is b.__self__ and a.__func__ is b.__func__
    return a is b


def _same_callables(a: RougeOptions, b: RougeOptions) -> bool:
    return all(map(_same_callable, _tokenizer_callables(a.tokenizer),
                   _tokenizer_callables(b.tokenizer)))


# Scorers in the order they were made: a pair of their locks is always taken in this order,
# so that a.merge(b) and b.merge(a) on two threads cannot each hold one lock and wait for the
# other. (next() on an itertools.count is atomic under the GIL.)
_SCORER_ORDER = itertools.count()


class Scorer:
    """The one way to a number: ``add`` batches (from any thread), then ``result``.

    Nothing is lost: every example given to ``add`` is in the result exactly once; threads
    may add concurrently (the aggregate is updated under a lock)."""

    def __init__(self, options: RougeOptions):
        self.options = options
        self.aggregate = Aggregate(options)
        self.notes = InputNotes()
        self._lock = ForkSafeLock()
        self._order = next(_SCORER_ORDER)  # the lock order (see _SCORER_ORDER)

    def add(self, predictions: Sequence[str], references: Sequence,
            rows: bool = True) -> Optional[ScoredExamples]:
        """Score a batch of checked inputs and add it; returns the batch's per-example
        statistics (rows=False: None, and no copy that gathers them). Large batches are
        scored in chunks, on threads."""
        n = len(predictions)
        size = _CHUNK_EXAMPLES
        threads = threads_here()
        if threads > 1 and n >= 2 * _THREAD_CHUNK_MIN:
            # two chunks per thread, so that a thread slowed by the others' GIL-held parts
            # (text to bytes) does not hold up the call, and tokenization overlaps too; but a
            # small call in at most 8 chunks (a chunk's own GIL-held steps, ~0.1 ms, would
            # queue behind each other on many threads: 512 pairs in 16 chunks of 32 took
            # longer on 16 emulated cores than in 8 of 64, benchmarks/scaling.py --parts emulate)
            chunks = min(2 * threads, max(8, n // 256))
            size = min(size, max(_THREAD_CHUNK_MIN, -(-n // chunks)))
        spans = [(i, min(i + size, n)) for i in range(0, n, size)]
        if not spans:  # nothing to add
            if not rows:
                return None
            empty = np.zeros((0, len(self.options.rouge_types), 3), dtype=np.float64)
            keys = np.zeros(0, dtype=np.uint64) if wants_poisson_bootstrap(self.options) \
                else None
            return ScoredExamples(_plan(self.options).names, empty, empty.copy(), keys)

        def score(span):  # the chunk's sums too: the lock below then only adds integers
            batch, notes = example_scores(self.options, predictions[span[0]:span[1]],
                                          references[span[0]:span[1]])
            return batch, notes, self.aggregate.column_sums(batch)

        try:
            if len(spans) == 1:  # its kernels may use the threads (no slices: a small call)
                batch, notes = example_scores(self.options, predictions, references)
                chunks = [(batch, notes, None)]
            else:  # each chunk on one thread, kernels included (rouge_backend.threads_here)
                chunks = run_parts(score, spans)
        except NotText as error:  # a chunk's: name the batch's first, on any thread count
            raise (not_text(predictions, references) or error) from None
        with self._lock:  # all chunks or none: an error above added nothing
            for batch, notes, sums in chunks:
                self.aggregate.add(batch, sums)
                self.notes.add(notes)
        return _concatenated([batch for batch, _, _ in chunks]) if rows else None

    # -- the public, mergeable state (rouge.partial / merge / to_bytes / finalize) --------------

    def merge(self, other: "Scorer") -> "Scorer":
        """A new Scorer holding both (associative and commutative; neither is changed).
        ValueError if the options differ, or if an example was added to both (see
        Aggregate.merge)."""
        if not isinstance(other, Scorer):
            raise TypeError(f"other: got {type(other).__name__}; allowed: a state from "
                            "rouge.partial() or rouge.state_from_bytes()")
        mine = _state_options(self.options)
        if mine != _state_options(other.options):
            raise ValueError(f"other: the states were made with different options "
                             f"({self.options.signature()} vs {other.options.signature()}); "
                             "allowed: states of the same options")
        if isinstance(mine, RougeOptions) and not _same_callables(self.options, other.options):
            # a callable's name is all the signature shows of it: two of one name may differ
            a, b = (_tokenizer_callables(s.options.tokenizer)[0] for s in (self, other))
            raise ValueError(f"other: the states were made with different tokenizers of one "
                             f"name, {self.options.tokenizer.name} ({a!r} vs {b!r}); allowed: "
                             "states made with the same tokenizer (callables are compared by "
                             "identity)")
        merged = Scorer(self.options)
        first, second = sorted((self, other), key=operator.attrgetter("_order"))
        with first._lock:
            if second is first:  # a.merge(a): its one lock, once (it is not reentrant)
                return self._merged_into(merged, other)
            with second._lock:
                return self._merged_into(merged, other)

    def _merged_into(self, merged: "Scorer", other: "Scorer") -> "Scorer":
        """merged, holding self's and other's sums (the caller holds both locks)."""
        merged.aggregate = self.aggregate.merge(other.aggregate)
        merged.notes.add(self.notes)
        merged.notes.add(other.notes)
        return merged

    def to_bytes(self) -> bytes:
        """The state in a versioned plain format (no pickle): a JSON header (format, metric
        version, options, notes, exact sums), raw little-endian arrays and a SHA-256 of it all."""
        with self._lock:
            data = self.aggregate.arrays()
            header = {"format": _STATE_FORMAT, "version": __version__,
                      "options": self.options.as_kwargs(),
                      "notes": {name: getattr(self.notes, name) for name in NOTE_COUNTS},
                      "count": data.pop("count"),
                      "exact": [str(v) for v in data.pop("exact")], "arrays": []}
        blobs = []
        for name, array in data.items():
            array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
            header["arrays"].append([name, array.dtype.str, list(array.shape)])
            blobs.append(array.tobytes())
        head = json.dumps(header).encode("utf-8")
        body = _STATE_MAGIC + struct.pack("<I", len(head)) + head + b"".join(blobs)
        return body + hashlib.sha256(body).digest()  # a flipped bit anywhere is refused

    @classmethod
    def from_bytes(cls, data) -> "Scorer":
        """The inverse of to_bytes, checked: ValueError naming what is wrong."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data: got {type(data).__name__}; allowed: bytes from "
                            "state.to_bytes()")
        data = bytes(data)
        start = len(_STATE_MAGIC) + 4
        if not data.startswith(_STATE_MAGIC) or len(data) < start + 32:
            raise ValueError("data: not a rouge_metric state (no magic)")
        data, digest = data[:-32], data[-32:]
        if hashlib.sha256(data).digest() != digest:
            raise ValueError("data: corrupted state (checksum mismatch)")
        header, offset = _state_header(data, start)
        options = header["options"]
        if not isinstance(options, dict) or sorted(options) != sorted(RougeOptions.names()):
            got = sorted(options) if isinstance(options, dict) else type(options).__name__
            raise ValueError(f"data: corrupted state (options: got {got}; allowed: every "
                             f"option of compute(): {', '.join(RougeOptions.names())})")
        try:
            options = RougeOptions.build(**options)
        except (TypeError, ValueError, OverflowError) as error:  # (alpha=10**400: Overflow)
            raise ValueError(f"data: corrupted state (options: {error})") from None
        exact = header["exact"]
        if not isinstance(exact, list):
            raise ValueError(f"data: corrupted state (exact: got {type(exact).__name__}; "
                             "allowed: a list of decimal strings)")
        for i, value in enumerate(exact):
            # decimal digits (int() would take " 1", "1_0" and 50 MB of digits too); the
            # aggregate checks the values, by name
            digits = value[value[:1] == "-":] if isinstance(value, str) else ""
            if not (0 < len(digits) <= _EXACT_DIGITS and digits.isascii() and digits.isdigit()):
                shown = repr(value[:40] + "..." if isinstance(value, str) and len(value) > 40
                             else value)
                raise ValueError(f"data: corrupted state (exact[{i}]: got {shown:.60}; "
                                 f"allowed: a decimal integer of at most {_EXACT_DIGITS} "
                                 "digits, as a string)")
        arrays = _state_arrays(data, offset, header["arrays"])
        scorer = cls(options)
        scorer.aggregate = Aggregate.from_arrays(options, {
            "count": header["count"], "exact": [int(v) for v in exact], **arrays})
        scorer.notes = _state_notes(header["notes"], scorer.aggregate.count)
        return scorer

    def __reduce__(self):  # picklable (the lock and the options' functions are not)
        return Scorer.from_bytes, (self.to_bytes(),)

    def warnings(self) -> list:
        """The input warnings that are true of everything added so far."""
        with self._lock:
            return input_warnings(self.options, self.notes)

    def result(self) -> dict:
        """compute()'s output for everything added."""
        with self._lock:
            return self.aggregate.result()


def tokens_of(text: str, **options) -> list:
    """The tokens ROUGE compares in ``text``, per sentence (lowercased, stopwords removed,
    stemmed, as the options say): what scoring compares, as strings."""
    opts = RougeOptions.build(**options)
    return opts.tokenizer.tokens(text, stemmer=opts.stemmer, stopwords=opts.remove_stopwords)


# --------------------------------------------------------------------------------------------
# What the Space shows: each reference's own scores, and the matches behind a number


def reference_scores(options: RougeOptions, prediction: str, references: Sequence[str]) -> dict:
    """{type name: (float64[refs, 3], chosen)}: P, R, F of the prediction against each
    reference alone, and the index of the reference the example's score comes from (None
    where the multi_ref mode pools the references)."""
    stats, ref_counts, *_ = _pair_statistics(options, [prediction], [list(references)])
    ones = np.ones(len(references), dtype=np.int64)  # each reference alone
    alone = example_statistics(options, options.rouge_types, stats, ones)[0]
    out = {}
    for j, t in enumerate(options.rouge_types):
        chosen = chosen_references(options, t, stats[:, j], ref_counts)
        out[t.name] = (alone[:, j], None if chosen is None else int(chosen[0]))
    return out


def pair_marks(options: RougeOptions, prediction: str, reference: str, rouge_type: RougeType):
    """The tokens behind one pair's number, for display: (marks on the prediction's tokens,
    marks on the reference's tokens, tokens of each), tokens as ``tokens_of`` gives them
    (flattened over sentences), marks bool arrays: what the kind's ``marks`` says
    (rouge_registry: for L, Lsum and W the union-LCS kernel's own traceback)."""
    texts = [prediction, reference]
    if options.split_sentences:
        texts = [split_sentences_rule_based(t) for t in texts]
    token_options = dict(stemmer=options.stemmer, stopwords=options.remove_stopwords)
    tokenizer = options.tokenizer
    flat = tokenizer.batch(texts, **token_options)
    kind = kind_of(options, rouge_type)
    view = (tokenizer.sentence_batch(texts, **token_options) or flat) if kind.sentences \
        else flat
    words = [[w for s in tokenizer.tokens(t, **token_options) for w in s] for t in texts]
    if [len(x) for x in text_ids(view)] != [len(w) for w in words]:
        raise ValueError("the tokenizer's views of the texts differ; no marks to show")
    marks = kind.marks(rouge_type, flat, view, _clip_view(options, flat, view))
    return marks[0], marks[1], words[0], words[1]
