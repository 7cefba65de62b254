"""The one pipeline behind every surface: texts -> tokens -> ids -> kernels -> per-example
statistics -> aggregate -> format.

``Scorer(options)`` is the only way to a number: ``add(predictions, references)`` scores a
batch (in chunks, on threads) and adds it to an ``Aggregate``; ``result()`` formats compute()'s
output; ``warnings()`` says what is true of everything added. ``compute()``, evaluate's
``add``/``add_batch``, the command, the Space and the engines all go through it.
``pair_statistics`` tokenizes once and runs the kernels; ``example_statistics`` combines each
example's references per the profile. docs/design.md, "One call", follows one call through.
"""

from __future__ import annotations

import itertools
import operator
import weakref
import zlib
from collections.abc import Sequence

import numpy as np

from .aggregate import (
    Aggregate,
    NOTE_COUNTS,
    InputNotes,
    ScoredExamples,
    wants_poisson_bootstrap,
)
from ..arithmetic import fscore, safe_div
from ..kernels.backend import (
    kernel,
    resolve,
    threads_here,
)
from .limits import (
    truncate_bytes,
    truncate_words,
)
from .notes import (
    input_notes,
    input_warnings,
)
from ..kernels.pool import (
    run_parts,
)
from ..profiles import (
    no_rounding,
)
from ..kinds import (
    KIND_MEMOS,
    kind_of,
)
from ..options import (
    RougeOptions,
    __version__,  # noqa: F401 - re-exported: the tests read the version here
    RougeType,
)
from .state import (
    STATE_MAGIC,  # noqa: F401 - re-exported: the tests read it here
    same_callables,
    state_options,
    tokenizer_callables,
    decode_state,
    encode_state,
)
from ..text.tokenizers import (
    ByteTokenizer,
    ForkSafeLock,
    NotText,
    TokenizedBatch,
    first_not_text,
    split_sentences as split_sentences_rule_based,
)

_PARALLEL_MIN_PAIRS = 32  # below this many pairs and tokens, the pool costs more than it saves
_PARALLEL_MIN_TOKENS = 50_000
_PAIRS_PER_CHUNK = 8  # the fewest pairs a chunk of kernel calls on the pool gets
_CHUNK_EXAMPLES = 50_000  # examples tokenized and scored at a time: bounds the token arrays
_THREAD_CHUNK_MIN = 32  # examples per chunk below which one thread does it all
# from this many examples a call is cut into chunks of examples, each tokenized and scored on
# a thread; below it, one chunk whose kernels are spread over the pool (_over_pairs)
_EXAMPLE_CHUNKS_FROM = 2 * _THREAD_CHUNK_MIN
_ONE = np.ones(1, dtype=np.int64)


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
        # (the profile's counting: every ROUGE-N type runs as the same kind)
        self.ngram_kernel = next((kind.kernel for t, kind in zip(types, self.kinds)
                                  if t.kind == "n"), None)
        self.ngram_orders = np.array(orders, dtype=np.int64)  # only these orders are built
        # where the n-gram kernel's orders go: stats[:, to] = by_order[:, of] (slices when
        # the types are the orders in order, the common case: no fancy indexing)
        to = [j for j, t in enumerate(types) if t.kind == "n"]
        of = [orders.index(types[j].n) for j in to]
        self.ngram_place = (_as_slice(to), _as_slice(of))
        # the other types: (column, type, kind), each one kernel call
        self.others = tuple((j, t, kind) for j, (t, kind) in enumerate(zip(types, self.kinds))
                            if t.kind != "n")
        # the sentence view of a language tokenizer (rougeLsum, rougeW: XL-Sum's lines)
        self.sentence_view = any(t.spec.sentences for t in types)
        self.reads_sentences = any(kind.sentences for kind in self.kinds)
        self.w_types = tuple((j, t.weight) for j, t in enumerate(types) if t.spec.weighted)
        # what each call would otherwise work out again from the options (each a few tenths
        # of a microsecond, and a one-pair call is some forty such steps)
        self.checks_texts = _tokenizer_checks_texts(options)
        self.token_options = {"stemmer": options.stemmer,
                              "stopwords": options.remove_stopwords}
        self.row_keys = wants_poisson_bootstrap(options)
        # the profile's P, R and F are example_prf's (the alpha formula), rounded (if at all)
        # each on its own after it (torchmetrics' float32): one kernel call, then the rounding
        profile = options.profile
        self.plain_prf = profile.f_rule is fscore and (
            profile.rounding is no_rounding or not profile.f_from_rounded)
        self.rounds_prf = profile.rounding is not no_rounding
        self.alpha = float(options.alpha)
        # the kernels a batch runs, resolved together once a call (kernels.backend.resolve)
        self.kernel_names = tuple(dict.fromkeys(
            ([self.ngram_kernel] if len(orders) else []) +
            [kind.kernel for _, _, kind in self.others] + ["example_prf"]))


# id(options) -> (weak reference to the options, plan). Options built from plain values are
# reused, so their plan is found again; the cache keeps no options (nor a user's tokenizer
# function in them) alive, and a dead entry's id, reused by new options, is told apart.
_PLANS: dict = {}
KIND_MEMOS.append(_PLANS)


def _as_slice(indices: list):
    """indices as a slice where they are consecutive and ascending (the common case: basic
    indexing), else as an int64 array."""
    first = indices[0] if indices else 0
    if indices == list(range(first, first + len(indices))):
        return slice(first, first + len(indices))
    return np.array(indices, dtype=np.int64)


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
    tokenizers encode each non-ASCII text as they go (text.tokenizers._ascii_buffer), and get the
    texts as given unless sentences are split or lengths limited first."""
    return (type(options.tokenizer) is ByteTokenizer and not options.split_sentences
            and options.length_limit_words is None and options.length_limit_bytes is None)


def not_text(predictions, references) -> NotText | None:
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


def pair_statistics(options: RougeOptions, predictions, references,
                    kernels: dict | None = None):
    """Tokenize once and run the kernels: float64[pairs, types, 3], the statistics of each
    pair per type (in options.rouge_types' order), plus pair layout. A text that is not text
    (a lone surrogate) is a NotText naming it (not_text): found by the byte tokenizers as
    they encode, else looked for here first. kernels: call_kernels(options), when the caller
    has resolved them."""
    plan = _plan(options)
    kernels = kernels or call_kernels(options)
    if not plan.checks_texts:
        found = not_text(predictions, references)
        if found is not None:
            raise found
    try:
        return _pair_statistics_of(options, predictions, references, plan, kernels)
    except NotText as error:  # the byte tokenizer's, which knows only its place in texts
        raise (not_text(predictions, references) or error) from None


def _pair_statistics_of(options: RougeOptions, predictions, references, plan: _Plan,
                        kernels: dict):
    n_examples = len(predictions)
    if set(map(type, references)) <= {str}:  # (in C: this thread holds the GIL here)
        # one reference each: no list per example (10,000 small lists would trigger the
        # garbage collector, whose full collections scan every object of the process)
        ref_counts = _ONE.repeat(n_examples)  # (np.ones is a Python function: 3x the time)
        texts = [*predictions, *references]
        ids = np.arange(2 * n_examples, dtype=np.int64)  # text k's pair: (k, n + k)
        pair_pred, pair_ref = ids[:n_examples], ids[n_examples:]
    else:
        refs = [[r] if isinstance(r, str) else list(r) for r in references]
        ref_counts = np.array([len(r) for r in refs], dtype=np.int64)
        if not ref_counts.all():  # compute() checks this first; the engines' rows come here
            i = int(np.argmin(ref_counts))
            raise ValueError(f"references[{i}]: got an empty list; allowed: at least one "
                             "reference string per prediction")
        texts = list(predictions) + [r for row in refs for r in row]
        pair_pred = np.repeat(np.arange(n_examples, dtype=np.int64), ref_counts)
        pair_ref = np.arange(n_examples, n_examples + len(pair_pred), dtype=np.int64)
    stats, texts, flat, sent = _text_pairs(options, plan, kernels, texts, pair_pred, pair_ref)
    return stats, ref_counts, texts, flat, sent


def _cut(rule, text: str, *limit):
    return rule(text, *limit)


def text_pair_statistics(options: RougeOptions, texts: Sequence[str], pair_pred: np.ndarray,
                         pair_ref: np.ndarray, kernels: dict | None = None,
                         cut=_cut) -> np.ndarray:
    """pair_statistics' float64[pairs, types, 3] of pairs given as positions in texts (pair i:
    texts[pair_pred[i]] against texts[pair_ref[i]]), so that a text many pairs read (a
    reference shared by several systems' summaries) is tokenized once. Checked texts only
    (check_inputs'): explain, whose rows share their texts, calls it. cut(rule, text, *limit)
    applies a length limit's rule to a text (explain remembers the cuts: its stemmed and
    unstemmed rows cut the same texts)."""
    plan = _plan(options)
    kernels = kernels or call_kernels(options)
    return _text_pairs(options, plan, kernels, list(texts), pair_pred, pair_ref, cut)[0]


def _text_pairs(options: RougeOptions, plan: _Plan, kernels: dict, texts: list,
                pair_pred: np.ndarray, pair_ref: np.ndarray, cut=_cut) -> tuple:
    """(stats, texts as cut, flat batch, sentence batch) of pairs given as positions in texts."""
    texts, flat, sent = _tokenized(options, plan, *texts_as_read(options, texts, cut), cut)
    stats = np.empty((len(pair_pred), len(plan.names), 3), dtype=np.float64)
    _over_pairs(_kernel_calls(options, plan, flat, sent, kernels), stats, pair_pred, pair_ref,
                len(flat.tokens))
    if options.profile.signed_ngram_counts and len(plan.ngram_orders):
        _signed_ngram_counts(options.rouge_types, stats, flat, pair_pred, pair_ref)
    return stats, texts, flat, sent


def texts_as_read(options: RougeOptions, texts: list, cut=_cut) -> tuple:
    """(texts, flat_texts): the texts as the scorer tokenizes them, each step by
    cut(rule, text, *limit) (explain remembers them): a sentence per line (split_sentences),
    then the length limit: the profile's own cutters (py-rouge's), else ROUGE-1.5.5's -l,
    then its -b, whose joined-text reader (flat_texts) keeps less than its sentence reader
    (the texts: SPEC §2.2)."""
    if options.split_sentences:
        texts = [cut(split_sentences_rule_based, t) for t in texts]
    words, limit = options.length_limit_words, options.length_limit_bytes
    if options.profile.truncators is not None:
        cut_words, cut_chars = options.profile.truncators
        if words:  # (0: no limit)
            texts = [cut(cut_words, t, words) for t in texts]
        elif limit:
            texts = [cut(cut_chars, t, limit) for t in texts]
        return texts, texts
    if words is not None:
        texts = [cut(truncate_words, t, words) for t in texts]
    if limit is None:
        return texts, texts
    return texts, [cut(truncate_bytes, t, limit, True) for t in texts]


def _tokenized(options: RougeOptions, plan: _Plan, texts: list, flat_texts: list,
               cut=_cut) -> tuple:
    """(texts as cut by the length limit, the flat batch, the sentence batch) of texts as
    texts_as_read gives them."""
    tokenizer = options.tokenizer
    token_options = plan.token_options
    if options.profile.truncators is not None:  # (its sentences are the lines)
        flat = tokenizer.batch(texts, **token_options)
        return texts, flat, flat
    if options.length_limit_bytes is not None and plan.reads_sentences:
        # Under -b ROUGE-1.5.5's sentence reader keeps more text than its joined-text reader
        # (SPEC §2.2). Both views come from one tokenizer call, so that a token has the same
        # id in both (long words get ids per call): rouge155 clips the LCS of the sentence
        # view with unigram tables of the flat view.
        lcs_texts = [cut(truncate_bytes, t, options.length_limit_bytes, False)
                     for t in texts]
        flat, sent = _split_batch(tokenizer.batch(flat_texts + lcs_texts,
                                                  **token_options), len(flat_texts))
        if tokenizer.own_sentences:  # its sentences are not batch()'s lines (torchmetrics')
            sent = tokenizer.sentence_batch(lcs_texts, **token_options) or sent
    else:
        flat = tokenizer.batch(flat_texts, **token_options)
        sent = flat
        if plan.sentence_view:
            sent = tokenizer.sentence_batch(texts, **token_options) or flat
    return texts, flat, sent


def _signed_ngram_counts(rouge_types, stats: np.ndarray, flat, pair_pred, pair_ref) -> None:
    """ROUGE-N's counts as py-rouge makes them: len - n + 1 n-grams in a text of len tokens,
    0 or fewer below n tokens (the kernels count max(0, len - n + 1); the hits are 0 there
    either way)."""
    lengths = np.diff(flat.text_offsets).astype(np.float64)
    for j, t in enumerate(rouge_types):
        if t.kind == "n":
            stats[:, j, 1] = lengths[pair_pred] - (t.n - 1)
            stats[:, j, 2] = lengths[pair_ref] - (t.n - 1)


def _kernel_calls(options: RougeOptions, plan: _Plan, flat, sent, kernels: dict) -> list:
    """The kernel calls of a batch: (kernel, its arguments before the pairs, after them,
    (columns of stats it fills, columns of its result)); ROUGE-N's orders in one call."""
    calls = []
    if len(plan.ngram_orders):
        calls.append((kernels[plan.ngram_kernel], (flat.tokens, flat.text_offsets),
                      (plan.ngram_orders,), plan.ngram_place))
    clip = clip_view(options, flat, sent)
    for j, t, kind in plan.others:
        head, tail = kind.arguments(t, flat, sent, clip)
        calls.append((kernels[kind.kernel], head, tail, (j, slice(None))))
    return calls


def _over_pairs(calls: list, stats: np.ndarray, pair_pred, pair_ref, tokens: int) -> None:
    """Every kernel call over the pairs, into stats (float64[pairs, types, 3]): in spans of
    pairs on the kept pool, each span all the calls, so that a call hands work to the
    threads once, not once per kernel. The kernels release the GIL (numba nogil), so the
    spans run on all cores. (numba's own parallel=True compiles several times slower, and
    compilation is the cold-start cost.)"""

    def run(span):
        lo, hi = span
        pred, ref = pair_pred[lo:hi], pair_ref[lo:hi]
        for function, head, tail, (to, of) in calls:
            stats[lo:hi, to] = function(*head, pred, ref, *tail)[:, of]

    n = len(pair_pred)
    threads = threads_here()
    if n < 2 or threads == 1 or (n < _PARALLEL_MIN_PAIRS and tokens < _PARALLEL_MIN_TOKENS):
        run((0, n))
        return
    # more spans than threads, so that one span of long documents does not hold up the rest;
    # at least _PAIRS_PER_CHUNK pairs each, so that a small call's spans are worth a hand-off
    parts = max(2, min(4 * threads, n // _PAIRS_PER_CHUNK))
    bounds = np.linspace(0, n, parts + 1).astype(np.int64).tolist()
    run_parts(run, [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo])


def _split_batch(batch: TokenizedBatch, k: int) -> tuple:
    """The first k texts of one TokenizedBatch and the rest, as two batches."""
    tso, so = batch.text_sent_offsets, batch.sent_offsets
    s_mid = int(tso[k])
    t_mid = int(so[s_mid])
    first = TokenizedBatch(batch.tokens[:t_mid], so[:s_mid + 1], tso[:k + 1])
    rest = TokenizedBatch(batch.tokens[t_mid:], so[s_mid:] - t_mid, tso[k:] - s_mid)
    return first, rest


def clip_view(options, flat, sent):
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
                       values: np.ndarray, ref_counts: np.ndarray,
                       kernels: dict | None = None) -> tuple:
    """Combine each example's references per the options: per-example (P, R, F) and the
    counts behind them (hit, den_p, den_r) for micro aggregation, both float64[N, types, 3],
    from the pairs' values float64[pairs, types, 3] (types in ``rouge_types``' order).

    All types at once: a small call's cost is numpy's per-operation overhead, not the
    arithmetic, which is elementwise (IEEE, the same numbers whatever the shape). A weighted
    kind's (ROUGE-W's) powers are taken per type, on strided columns as before (numpy's SIMD
    power differs from libm in the last bit; on the pinned numpy strided and contiguous input
    give the same). kernels: call_kernels(options), when the caller has resolved them."""
    profile = options.profile
    plan = _plan(options)
    w_types = plan.w_types if rouge_types is options.rouge_types else \
        [(j, t.weight) for j, t in enumerate(rouge_types) if t.spec.weighted]
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
    if options.multi_ref == "mean_prf" and len(ref_counts) != len(values):
        # each pair's own P, R and F (one reference each), then the profile's mean of them
        alone = np.ones(len(values), dtype=np.int64)
        pairs = example_statistics(options, rouge_types, values, alone, kernels)[0]
        return profile.reference_mean(pairs, ref_counts), chosen
    if not w_types and plan.plain_prf:  # the common case: one kernel call
        prf = kernels["example_prf"] if kernels else kernel("example_prf")
        out = prf(np.ascontiguousarray(chosen), plan.alpha)
        return (profile.rounding(out) if plan.rounds_prf else out), chosen
    out = np.empty(chosen.shape, dtype=np.float64)  # (P, R, F)
    # P and R in one division: hit / (den_p, den_r), 0 where the denominator is 0 (signed
    # counts: py-rouge divides by a negative one too)
    pr = out[..., :2]
    pr[...] = 0.0
    dens = chosen[..., 1:]
    np.divide(chosen[..., :1], dens, out=pr,
              where=dens != 0 if profile.signed_ngram_counts else dens > 0)
    for j, weight in w_types:  # the counts hold f(len) already: only f^-1 is left to apply
        for c in (0, 1):  # on a contiguous column, as the numbers were always made
            pr[:, j, c] = profile.power(np.ascontiguousarray(pr[:, j, c]), 1.0 / weight)
    if not profile.f_from_rounded:
        out[..., 2] = profile.rounding(options.fscore(pr[..., 0], pr[..., 1]))
    rounded = profile.rounding(pr)
    if rounded is not pr:
        pr[...] = rounded
    if profile.f_from_rounded:
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
    outside max mode), takes its P and R apart (max_pr) or averages the references' scores
    (mean_prf)."""
    if options.multi_ref in ("average", "max_pr", "mean_prf") or \
            (ref_counts == 1).all() and options.multi_ref != "max":
        return None
    hit, ref_den = values[:, 0], values[:, 2]
    if options.multi_ref == "max":  # rouge_score's score_multi: the best F, as reported
        p, r = _precision_recall(options, rouge_type, hit, values[:, 1], ref_den)
        key = _reported_f(options, p, r)
    else:  # ROUGE-1.5.5 -f B: the reference with the strictly highest key, the kind's
        key = rouge_type.spec.best_key(options.profile, rouge_type, hit, ref_den)
    starts = np.concatenate(([0], np.cumsum(ref_counts)[:-1]))
    return _first_max_per_group(key, starts, ref_counts)


def _reported_f(options: RougeOptions, p: np.ndarray, r: np.ndarray) -> np.ndarray:
    """F as the profile reports it, from unrounded P and R (torchmetrics' argmax compares its
    float32 F: two references whose F differ only below float32's precision tie there)."""
    rounding = options.profile.rounding
    if rounding is no_rounding:
        return options.fscore(p, r)
    if options.profile.f_from_rounded:
        p, r = rounding(p), rounding(r)
    return rounding(options.fscore(p, r))


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
# The scorer


def call_kernels(options: RougeOptions, *more: str) -> dict:
    """The kernels one call with these options runs (and ``more``), resolved once: the
    call's one look-up of the backend."""
    return resolve(_plan(options).kernel_names + more)


def example_scores(options: RougeOptions, predictions, references,
                   kernels: dict | None = None) -> tuple:
    """(ScoredExamples, InputNotes) of one batch of checked inputs (a lone surrogate, which
    the scoring finds: NotText). kernels: call_kernels(options), when the caller has them."""
    kernels = kernels or call_kernels(options)
    stats, ref_counts, texts, flat, sent = pair_statistics(options, predictions, references,
                                                           kernels)
    all_scores, all_counts = example_statistics(options, options.rouge_types, stats,
                                                ref_counts, kernels)
    plan = _plan(options)
    keys = _row_keys(predictions, references) if plan.row_keys else None
    return (ScoredExamples(plan.names, all_scores, all_counts, keys),
            input_notes(options, texts, flat, stats, plan, ref_counts))


def _concatenated(batches: list) -> ScoredExamples:
    """One ScoredExamples of several, rows in order."""
    if len(batches) == 1:
        return batches[0]
    first = batches[0]
    return ScoredExamples(
        first.names, np.concatenate([b.score_array for b in batches]),
        np.concatenate([b.count_array for b in batches]),
        None if first.keys is None else np.concatenate([b.keys for b in batches]))


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
            rows: bool = True) -> ScoredExamples | None:
        """Score a batch of checked inputs and add it; returns the batch's per-example
        statistics (rows=False: None, and no copy that gathers them). Large batches are
        scored in chunks, on threads."""
        n = len(predictions)
        size = _CHUNK_EXAMPLES
        threads = threads_here()
        if threads > 1 and n >= _EXAMPLE_CHUNKS_FROM:
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

        # what every chunk runs, chosen once a call
        kernels = call_kernels(self.options, "exact_column_sums")
        sums = kernels["exact_column_sums"]

        def score(span):  # the chunk's sums too: the lock below then only adds integers
            batch, notes = example_scores(self.options, predictions[span[0]:span[1]],
                                          references[span[0]:span[1]], kernels)
            return batch, notes, self.aggregate.column_sums(batch, sums)

        try:
            if len(spans) == 1:  # its kernels may use the threads (no slices: a small call)
                batch, notes = example_scores(self.options, predictions, references, kernels)
                chunks = [(batch, notes, self.aggregate.column_sums(batch, sums))]
            else:  # each chunk on one thread, kernels included (kernels.backend.threads_here)
                chunks = run_parts(score, spans)
        except NotText as error:  # a chunk's: name the batch's first, on any thread count
            raise (not_text(predictions, references) or error) from None
        with self._lock:  # all chunks or none: an error above added nothing
            for batch, notes, sums in chunks:
                self.aggregate.add(batch, sums)
                self.notes.add(notes)
        return _concatenated([batch for batch, _, _ in chunks]) if rows else None

    # -- the public, mergeable state (rouge.partial / merge / to_bytes / finalize) --------------

    def merge(self, other: Scorer) -> Scorer:
        """A new Scorer holding both (associative and commutative; neither is changed; under
        a profile of sequential means, py_rouge's, other's rows come after self's, and the
        mean may move in the last bits with the order). ValueError if the options differ, or
        if an example was added to both (see Aggregate.merge)."""
        if not isinstance(other, Scorer):
            raise TypeError(f"other: got {type(other).__name__}; allowed: a state from "
                            "rouge.partial() or rouge.state_from_bytes()")
        mine = state_options(self.options)
        if mine != state_options(other.options):
            raise ValueError(f"other: the states were made with different options "
                             f"({self.options.signature()} vs {other.options.signature()}); "
                             "allowed: states of the same options")
        if isinstance(mine, RougeOptions) and not same_callables(self.options, other.options):
            # a callable's name is all the signature shows of it: two of one name may differ
            a, b = (tokenizer_callables(s.options.tokenizer)[0] for s in (self, other))
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

    def _merged_into(self, merged: Scorer, other: Scorer) -> Scorer:
        """merged, holding self's and other's sums (the caller holds both locks)."""
        merged.aggregate = self.aggregate.merge(other.aggregate)
        merged.notes.add(self.notes)
        merged.notes.add(other.notes)
        return merged

    def to_bytes(self, key: bytes | None = None) -> bytes:
        """The state in a versioned plain format (no pickle): a JSON header (format, metric
        version, options, notes, exact sums), raw little-endian arrays and a SHA-256 of it all,
        or with key (bytes, at least 16 of them) an HMAC-SHA256 that only that key makes."""
        with self._lock:
            data = self.aggregate.arrays()
            notes = {name: getattr(self.notes, name) for name in NOTE_COUNTS}
        return encode_state(self.options, notes, data, key)

    @classmethod
    def from_bytes(cls, data, key: bytes | None = None) -> Scorer:
        """The inverse of to_bytes, checked: ValueError naming what is wrong (with key: a
        state not signed with that key is refused)."""
        options, aggregate, notes = decode_state(data, key)
        scorer = cls(options)
        scorer.aggregate = aggregate
        scorer.notes = notes
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

