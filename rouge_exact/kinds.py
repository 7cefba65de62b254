"""The ROUGE kinds, declared once: one ``Kind`` per kind (ROUGE-N, L, Lsum, W, S, SU) in
``KINDS`` holds everything that varies by kind: its names and grammar, its kernel, arguments
and cost, how its counts become P, R and F, the reference ROUGE-1.5.5's -f B takes, what the
Space marks and says behind a number, its README row and the profiles that score it.
``registered`` adds one for the length of a block; ``kind_of`` maps a type to what it runs as
under a profile.

The cost model (``estimate_cost``, ``resampling_cost``, ``text_sizes``): seconds and bytes of
the kernels' work for the pairs of one request, calibrated on a 2-core machine; it errs on the
high side. docs/design.md, "Adding a ROUGE kind", has the rest.
"""

from __future__ import annotations

import contextlib
import functools
import math
from dataclasses import dataclass
from collections.abc import Callable, Iterator

import numpy as np

from .kernels import registry as _kernels
from .kernels.backend import (
    THREADS,
    helper,
    register_kernel,
    unregister_kernel,
)
from .profiles import (
    PROFILES,
)
from .text.tokenizers import (
    split_sentences as split_sentences_rule_based,
)
from .arithmetic import safe_div

# Bounds of the names (each checked before any work; see the README's option table)
MAX_NGRAM = 1000  # N of rouge<N>
MAX_SKIP = 2 ** 40  # d of rougeS<d>/rougeSU<d> at or above this is the unlimited count
# ROUGE-W's w. ROUGE-1.5.5 weights the reference twice: its recall divides by (sum of
# len^w)^w, up to n^(w^2) for n tokens (summed over examples under micro aggregation, still at
# most total^(w^2)). With w <= 5 and at most 2^40 tokens that is <= 2^1000: finite, and the
# ratio hit / den >= 2^-1000 a normal float, so f and f^-1 stay accurate. (w = 10 overflowed
# to inf, a silent recall of 0, from 1,250 tokens on.)
MAX_W_WEIGHT = 5.0
DEFAULT_W_WEIGHT = 1.2

BIT_ROW_TOKENS = 64  # sentences up to this long run bit-parallel (one machine word per row)
DP_WHOLE_CELLS = 1 << 22  # (weighted) LCS tables up to this many cells are kept whole


@dataclass(frozen=True)
class RougeType:
    """One requested type, parsed: ``kind`` is its key in KINDS ('n', 'L', 'Lsum', 'W', 'S',
    'SU', or a registered kind's)."""

    name: str
    kind: str
    n: int = 0
    weight: float = 0.0
    max_skip: int = -1  # S/SU: tokens allowed between the two words; -1 means no limit

    @property
    def spec(self) -> Kind:
        """The Kind that declares this type (looked up, so a type never outlives its kind's
        registration unnoticed)."""
        return KINDS[self.kind]


# --------------------------------------------------------------------------------------------
# Names


def _digits(text: str) -> bool:
    return text.isdigit() and text.isascii()


def _parse_ngram(name: str) -> RougeType | None:
    rest = name[5:] if name.startswith("rouge") else ""
    if not _digits(rest) or rest.startswith("0") or len(rest) > len(str(MAX_NGRAM)) \
            or int(rest) > MAX_NGRAM:
        return None
    return RougeType(name, "n", n=int(rest))


def _parse_exact(key: str, name: str) -> RougeType | None:
    return RougeType(name, key) if name == "rouge" + key else None


def _parse_wlcs(name: str) -> RougeType | None:
    if name == "rougeW":
        return RougeType(name, "W", weight=DEFAULT_W_WEIGHT)
    if not name.startswith("rougeW-"):
        return None
    try:
        weight = float(name[7:])
    except ValueError:
        return None
    if not (1.0 < weight <= MAX_W_WEIGHT):  # also rejects NaN and inf
        return None
    return RougeType(name, "W", weight=weight)


def _parse_skip(key: str, name: str) -> RougeType | None:
    if not name.startswith("rouge" + key):
        return None
    distance = name[5 + len(key):]
    if distance == "":
        return RougeType(name, key, max_skip=-1)
    if not _digits(distance):
        return None
    # a distance at or above any text's length counts every skip-bigram: stored bounded, so
    # that no kernel index can overflow (int() of a long string, too)
    far = len(distance) > len(str(MAX_SKIP)) or int(distance) >= MAX_SKIP
    return RougeType(name, key, max_skip=MAX_SKIP if far else int(distance))


# --------------------------------------------------------------------------------------------
# Costs


def _cell_seconds(longest: np.ndarray) -> np.ndarray:
    """Seconds per DP cell of the (weighted) LCS with traceback, by the longest sentence:
    measured ~2.5 ns for sentences of 25 tokens, 5-11 ns at 2k-10k, 10-15 ns at 15k-20k when
    scoring, up to 32 ns for the highlights' tracebacks at 20k (the rows leave the caches)."""
    return (2.5e-9 + 1.25e-8 * np.minimum(1.0, longest / 5000.0)) \
        * np.maximum(1.0, longest / 15000.0)


def _dp_bytes(rows: float, cols: float) -> float:
    """Memory of one checkpointed (weighted) LCS table in kernels.union: the whole table up
    to DP_WHOLE_CELLS cells, else 2 sqrt(rows) rows of it (16 bytes a cell)."""
    rows, cols = max(rows, cols), min(rows, cols)
    if (rows + 1) * (cols + 1) <= DP_WHOLE_CELLS:
        return 32.0 * (rows + 1) * (cols + 1)
    return 32.0 * (2 * math.sqrt(rows) + 2) * (max(rows, cols) + 1)


@dataclass(frozen=True)
class Pairs:
    """Sizes of the two texts of each pair (float64 arrays, one entry per pair)."""
    lp: np.ndarray  # tokens of the prediction
    lr: np.ndarray  # tokens of the reference
    sp: np.ndarray  # sentences
    sr: np.ndarray
    sent_p: np.ndarray  # tokens in sentences
    sent_r: np.ndarray
    long_p: np.ndarray  # tokens in sentences over BIT_ROW_TOKENS
    short_p: np.ndarray  # sentences of at most BIT_ROW_TOKENS
    max_p: np.ndarray  # the longest sentence
    max_r: np.ndarray


def _ngram_cost(t, p: Pairs, repeats: int, traceback: bool) -> tuple:
    return 5e-8 * t.n * float((p.lp + p.lr).sum()), 0.0


def _lcs_cost(t, p: Pairs, repeats: int, traceback: bool) -> tuple:
    seconds = repeats * 2e-9 * float((p.lp * np.ceil(p.lr / BIT_ROW_TOKENS) + p.lp + p.lr).sum())
    peak = 0.0
    if traceback:  # one sentence per text, through the union kernel's DP
        seconds += repeats * float((_cell_seconds(np.maximum(p.lp, p.lr)) * p.lp * p.lr).sum())
        peak = _dp_bytes(float(p.lp.max()), float(p.lr.max()))
    return seconds, peak


def _union_cost(t, p: Pairs, repeats: int, traceback: bool, weighted: bool = False) -> tuple:
    dp_cells = p.sent_p * p.sent_r if weighted else p.long_p * p.sent_r
    bit_work = 0.0 if weighted else p.sr * (p.sent_p - p.long_p) + p.short_p * p.sent_r
    seconds = repeats * float((_cell_seconds(np.maximum(p.max_p, p.max_r)) * dp_cells
                               + 2e-9 * bit_work + 1e-6 * p.sp * p.sr).sum())
    needs_dp = (p.max_p > BIT_ROW_TOKENS) | weighted
    peak = 0.0
    if needs_dp.any():
        peak = _dp_bytes(float(p.max_p[needs_dp].max()), float(p.max_r[needs_dp].max()))
    return seconds, peak


def _skip_cost(t, p: Pairs, repeats: int, traceback: bool) -> tuple:
    if t.max_skip < 0:
        return 2e-9 * float(((p.lp + p.lr) * np.minimum(p.lp, p.lr)).sum()), 0.0
    keys = (p.lp + p.lr) * (t.max_skip + 1)
    return 2e-8 * float(keys.sum()), 48.0 * float(keys.max())


# --------------------------------------------------------------------------------------------
# Kernel arguments: (rouge_type, flat batch, sentence batch, clip view) -> (before the pairs,
# after the pairs)


def _flat(t, flat, sent, clip) -> tuple:
    return (flat.tokens, flat.text_offsets), ()


def _by_sentence(t, flat, sent, clip, weighted: bool = False) -> tuple:
    return (sent.tokens, sent.sent_offsets, sent.text_sent_offsets, *clip), (
        (t.weight,) if weighted else ())


def _skip(t, flat, sent, clip, unigrams: bool = False) -> tuple:
    return (flat.tokens, flat.text_offsets), (t.max_skip, unigrams)


# --------------------------------------------------------------------------------------------
# Best reference under ROUGE-1.5.5's -f B: the one with the strictly highest single-reference
# score, (profile, rouge_type, hit, reference count) -> the key each reference is ranked by


def recall_key(profile, t, hit: np.ndarray, ref_den: np.ndarray) -> np.ndarray:
    """The recall, as computed."""
    return safe_div(hit, ref_den)


def rounded_recall_key(profile, t, hit: np.ndarray, ref_den: np.ndarray) -> np.ndarray:
    """The recall rounded as the profile rounds scores (ROUGE-1.5.5 ranks N and S by it)."""
    return profile.rounding(safe_div(hit, ref_den))


def _weighted_recall_key(profile, t, hit: np.ndarray, ref_den: np.ndarray) -> np.ndarray:
    """f^-1(hit / base), or the profile's own key (py-rouge's)."""
    if profile.weighted_best_key is not None:
        return profile.weighted_best_key(profile.power, hit, ref_den, t.weight)
    return profile.power(safe_div(hit, ref_den), 1.0 / t.weight)


# --------------------------------------------------------------------------------------------
# The Space's highlights: (rouge_type, flat batch, view, clip view) of the two texts
# (prediction, reference) -> [marks on the prediction's tokens, marks on the reference's],
# bool arrays over the view's tokens (the sentence view for a kind that reads sentences)


def text_ids(batch) -> list:
    """The token ids of each text of a batch of two."""
    offsets = batch.text_offsets
    return [batch.tokens[offsets[k]:offsets[k + 1]] for k in (0, 1)]


def _clipped_ngram_marks(a, b, n: int) -> np.ndarray:
    """Positions of ``a`` inside its clipped-matched n-grams: each n-gram of ``a`` matches
    while ``b`` has copies of it left, first come first served (sum min(count_a, count_b)
    n-grams in all, ROUGE-N's hit)."""
    left: dict = {}
    for i in range(len(b) - n + 1):
        gram = tuple(b[i:i + n])
        left[gram] = left.get(gram, 0) + 1
    marks = np.zeros(len(a), dtype=np.bool_)
    for i in range(len(a) - n + 1):
        gram = tuple(a[i:i + n])
        if left.get(gram, 0) > 0:
            left[gram] -= 1
            marks[i:i + n] = True
    return marks


def skip_bigram_matches(a, b, max_skip: int) -> list:
    """[((first, second), clipped count)] of the skip-bigrams two id lists share (at most
    ``max_skip`` tokens between the words; -1: any), most frequent first. Quadratic in the
    lengths: for the Space's display of short texts."""
    def counts(ids):
        out: dict = {}
        for i in range(len(ids) - 1):
            last = len(ids) - 1 if max_skip < 0 else min(len(ids) - 1, i + max_skip + 1)
            for j in range(i + 1, last + 1):
                out[ids[i], ids[j]] = out.get((ids[i], ids[j]), 0) + 1
        return out

    in_a, in_b = counts(a), counts(b)
    shared = [(key, min(c, in_b[key])) for key, c in in_a.items() if key in in_b]
    return sorted(shared, key=lambda item: -item[1])


def _ngram_marks(t, flat, view, clip) -> list:
    """The tokens of the clipped-matched n-grams."""
    a, b = (ids.tolist() for ids in text_ids(view))
    return [_clipped_ngram_marks(a, b, t.n), _clipped_ngram_marks(b, a, t.n)]


def _skip_marks(t, flat, view, clip) -> list:
    """The tokens of shared skip-bigrams (skip_bigram_matches lists the pairs)."""
    ids = text_ids(view)
    shared = skip_bigram_matches(ids[0].tolist(), ids[1].tolist(), t.max_skip)
    tokens = list({token for pair, _ in shared for token in pair})
    return [np.isin(x, tokens) for x in ids]


def _traced_marks(t, flat, view, clip, by_sentence: bool, weighted: bool = False) -> list:
    """The positions the scoring kernel's traceback counts (the union LCS per reference
    sentence, clipped; one sentence per text for a whole-text LCS), on the reference; the
    prediction's marks are the same traceback with the texts' roles swapped."""
    union_pair = helper("_union_pair")
    ids = text_ids(view)
    if by_sentence:
        sentences = [view.sent_offsets[view.text_sent_offsets[k]:
                                       view.text_sent_offsets[k + 1] + 1] for k in (0, 1)]
        clip_ids = [clip[0][clip[1][k]:clip[1][k + 1]] for k in (0, 1)]
    else:  # one sentence per text: the union LCS of one pair of sentences is an LCS
        offsets = view.text_offsets
        sentences = [np.array([offsets[k], offsets[k + 1]]) for k in (0, 1)]
        clip_ids = ids
    weight = float(t.weight) if weighted else None
    marks = []
    for y, x in ((1, 0), (0, 1)):  # marks on text y, traced against text x
        tokens = np.concatenate([ids[x], ids[y]])
        sent = np.concatenate([sentences[x] - sentences[x][0],
                               sentences[y][1:] - sentences[y][0] + len(ids[x])])
        clip_tokens = np.concatenate([clip_ids[x], clip_ids[y]])
        mask = np.zeros(len(ids[y]), dtype=np.bool_)
        n_x = len(sentences[x]) - 1
        union_pair(tokens.astype(np.int64), sent.astype(np.int64), 0, n_x, n_x,
                   len(sent) - 1, clip_tokens.astype(np.int64), 0, len(clip_ids[x]),
                   len(clip_ids[x]), len(clip_tokens), weight, mask)
        marks.append(mask)
    marks.reverse()
    return marks


# --------------------------------------------------------------------------------------------
# The kinds


@dataclass(frozen=True)
class Kind:
    """Everything that varies by ROUGE kind (see the module docstring).

    parse: name -> its RougeType, or None when the name is not one of this kind (or out of
    its bounds); the kinds are tried in KINDS' order. kernel: the name of its kernels.registry
    kernel and of that kernel's numpy twin in kernels.twins. arguments: (rouge_type, flat
    batch, sentence batch, clip view) -> (the kernel's arguments before the pairs, after
    them). cost: (rouge_type, Pairs, repeats, traceback) -> (seconds, peak bytes).
    weighted: the kernel's counts are lengths to weight by f(k) = k^weight, and P and R are
    f^-1(hit / f(count)) (ROUGE-W); otherwise P = hit / prediction count, R = hit / reference
    count. best_key: (profile, rouge_type, hit, reference count) -> the key that -f B ranks
    references by. marks: the Space's highlights (see _traced_marks). explanation: what the
    highlights mark, formatted with the type's n, weight and max_skip. profiles: the names of
    the profiles that score it; None: every profile."""

    key: str
    label: str
    grammar: str
    unit: str
    examples: tuple
    parse: Callable[[str], RougeType | None]
    kernel: str
    arguments: Callable
    sentences: bool
    cost: Callable
    best_key: Callable
    marks: Callable
    explanation: str
    weighted: bool = False
    profiles: tuple | None = None
    skip_pairs: bool = False  # the Space lists the shared skip-bigrams under the highlights

    def explain(self, rouge_type: RougeType) -> str:
        """What the Space's highlights of rouge_type mark, in words."""
        return self.explanation.format(n=rouge_type.n, weight=rouge_type.weight,
                                       max_skip=rouge_type.max_skip)

    def scored_by(self, profile) -> bool:
        """Whether a profile (or the name of one) scores this kind: both the kind and the
        profile may name which."""
        profile = PROFILES[profile] if isinstance(profile, str) else profile
        return (self.profiles is None or profile.name in self.profiles) and (
            profile.kinds is None or self.key in profile.kinds)

    @property
    def order(self) -> int:
        """Its place among the kinds (the Space lists types by it)."""
        return list(KINDS).index(self.key)


_LCS_MARKED = "tokens on a longest common subsequence, as the scoring kernel traces it"

KINDS = {
    "n": Kind(
        key="n", label="ROUGE-N", grammar=f"rouge<N> (1 <= N <= {MAX_NGRAM})",
        unit="n-grams of N tokens", examples=("rouge1", "rouge2", "rouge3", "rouge4"),
        parse=_parse_ngram, kernel="ngram_stats", arguments=_flat, sentences=False,
        cost=_ngram_cost, best_key=rounded_recall_key, marks=_ngram_marks,
        explanation="tokens of the {n}-grams the two texts share (each counted at most as "
                    "often as the other text has it)"),
    # rouge155's ROUGE-L is summary-level: it runs as Lsum (kind_of)
    "L": Kind(
        key="L", label="ROUGE-L", grammar="rougeL",
        unit="the longest common subsequence (LCS) of the two texts", examples=("rougeL",),
        parse=functools.partial(_parse_exact, "L"), kernel="lcs_stats", arguments=_flat,
        sentences=False, cost=_lcs_cost, best_key=recall_key,
        marks=functools.partial(_traced_marks, by_sentence=False), explanation=_LCS_MARKED),
    "Lsum": Kind(
        key="Lsum", label="ROUGE-Lsum", grammar="rougeLsum",
        unit="the union LCS over the sentences (the lines of the text)",
        examples=("rougeLsum",), parse=functools.partial(_parse_exact, "Lsum"),
        kernel="union_lcs_stats", arguments=_by_sentence, sentences=True, cost=_union_cost,
        best_key=recall_key, marks=functools.partial(_traced_marks, by_sentence=True),
        explanation="tokens on the union of each reference sentence's LCS with the "
                    "prediction's sentences, as the scoring kernel traces it"),
    "W": Kind(
        key="W", label="ROUGE-W",
        grammar=f"rougeW or rougeW-<weight> (1 < weight <= {MAX_W_WEIGHT:g}, e.g. rougeW-1.5)",
        unit=f"the weighted LCS, which favours consecutive matches (w = {DEFAULT_W_WEIGHT:g} by "
             "default)", examples=("rougeW",), parse=_parse_wlcs,
        kernel="wlcs_stats", arguments=functools.partial(_by_sentence, weighted=True),
        sentences=True, cost=functools.partial(_union_cost, weighted=True),
        best_key=_weighted_recall_key,
        marks=functools.partial(_traced_marks, by_sentence=True, weighted=True),
        explanation="tokens on the weighted LCS, underlined by consecutive run (longer runs "
                    "weigh more: f(k) = k^w)", weighted=True),
    "S": Kind(
        key="S", label="ROUGE-S",
        grammar="rougeS<d> or rougeS (d >= 0 tokens may lie between the two words; rougeS: "
                "any number)",
        unit="skip-bigrams: ordered pairs of words with at most d tokens between them",
        examples=("rougeS4", "rougeS"), parse=functools.partial(_parse_skip, "S"),
        kernel="skip_bigram_stats", arguments=_skip, sentences=False, cost=_skip_cost,
        best_key=rounded_recall_key, marks=_skip_marks,
        explanation="tokens of the skip-bigrams (ordered word pairs) the texts share",
        skip_pairs=True),
    "SU": Kind(
        key="SU", label="ROUGE-SU", grammar="rougeSU<d> or rougeSU (d as in rougeS<d>)",
        unit="skip-bigrams plus unigrams", examples=("rougeSU4", "rougeSU"),
        parse=functools.partial(_parse_skip, "SU"), kernel="skip_bigram_stats",
        arguments=functools.partial(_skip, unigrams=True), sentences=False, cost=_skip_cost,
        best_key=rounded_recall_key, marks=_skip_marks,
        explanation="tokens of the skip-bigrams and unigrams the texts share",
        skip_pairs=True),
}

# --------------------------------------------------------------------------------------------
# The kinds a profile's own counting runs (profiles: counting, rouge_l): no name parses to
# them; a type of the named kind runs as one of them under that profile (kind_of)


def _distinct_ngram_marks(t, flat, view, clip) -> list:
    """The tokens of the n-grams of each text that the other text has too."""
    a, b = (ids.tolist() for ids in text_ids(view))
    marks = []
    for x, y in ((a, b), (b, a)):
        others = {tuple(y[i:i + t.n]) for i in range(len(y) - t.n + 1)}
        mark = np.zeros(len(x), dtype=np.bool_)
        for i in range(len(x) - t.n + 1):
            if tuple(x[i:i + t.n]) in others:
                mark[i:i + t.n] = True
        marks.append(mark)
    return marks


def _set_union_marks(t, flat, view, clip) -> list:
    """The tokens of the words pltrdy's ROUGE-L counts: the distinct words on the LCS of some
    (reference sentence, prediction sentence) pair, wherever they stand in either text."""
    ids = text_ids(view)
    sentences = [view.sent_offsets[view.text_sent_offsets[k]:view.text_sent_offsets[k + 1] + 1]
                 for k in (0, 1)]
    on_path = helper("set_union_mask")(np.concatenate(ids).astype(np.int64), len(ids[0]),
                                       sentences[0] - sentences[0][0],
                                       sentences[1] - sentences[1][0])
    words = np.unique(ids[0][on_path])
    return [np.isin(x, words) for x in ids]


PROFILE_KINDS = {
    ("n", "distinct"): Kind(
        key="n", label="ROUGE-N", grammar=KINDS["n"].grammar,
        unit="distinct n-grams of N tokens", examples=KINDS["n"].examples,
        parse=_parse_ngram, kernel="distinct_ngram_stats", arguments=_flat, sentences=False,
        cost=_ngram_cost, best_key=recall_key, marks=_distinct_ngram_marks,
        explanation="tokens of the {n}-grams both texts have (each distinct n-gram counted "
                    "once)"),
    ("L", "union"): KINDS["Lsum"],
    # every sentence pair's table is filled whole for the traceback, as ROUGE-W's
    ("L", "set_union"): Kind(
        key="L", label="ROUGE-L", grammar=KINDS["L"].grammar,
        unit="the distinct words on the LCS of each pair of sentences",
        examples=KINDS["L"].examples, parse=KINDS["L"].parse, kernel="set_union_lcs_stats",
        arguments=lambda t, flat, sent, clip: ((sent.tokens, sent.sent_offsets,
                                                sent.text_sent_offsets), ()),
        sentences=True, cost=functools.partial(_union_cost, weighted=True),
        best_key=recall_key, marks=_set_union_marks,
        explanation="tokens whose word lies on the LCS of some pair of sentences (each "
                    "distinct word counted once)"),
}


# memos of things made from parsed types (options' checked options, scorer.pipeline's
# plans): emptied whenever KINDS changes, so that none outlives its kind
KIND_MEMOS: list = []


def _forget_memos() -> None:
    for memo in KIND_MEMOS:
        memo.clear()


@contextlib.contextmanager
def registered(kind: Kind, twin: Callable | None = None) -> Iterator[Kind]:
    """KINDS with ``kind`` added, last in the order, for the length of the block (then as it
    was). Every surface scores it: compute(), the CLI, the evaluate metric, the Space.

    twin: the numpy twin of its kernel, for a kind whose kernel is not in this package:
    kernels.backend serves it as the kernel ``kind.kernel`` for the block, in every backend
    (kernels.backend.register_kernel). Without a twin the kernel must be kernels.registry' own.
    Registration changes module state: do it before scoring, not while other threads score
    (a test, a plugin at import)."""
    if kind.key in KINDS:
        raise ValueError(f"kind: got {kind.key!r}, already a kind; allowed: a key not in "
                         f"{', '.join(KINDS)}")
    if twin is None and not hasattr(_kernels, kind.kernel):
        raise ValueError(f"twin: got None for {kind.kernel}, which kernels.registry does not "
                         "have; allowed: its numpy twin")
    if twin is not None:
        register_kernel(kind.kernel, twin)  # (refuses a kernel name that exists)
    KINDS[kind.key] = kind
    _forget_memos()
    try:
        yield kind
    finally:
        del KINDS[kind.key]
        if twin is not None:
            unregister_kernel(kind.kernel)
        _forget_memos()


def kind_of(options, rouge_type) -> Kind:
    """The kind rouge_type runs as under these options: the profile's own counting of ROUGE-N
    and its ROUGE-L (rouge155's is summary-level, pltrdy's a union of sets), else its own."""
    declared = {"n": options.profile.counting, "L": options.profile.rouge_l}
    return PROFILE_KINDS.get((rouge_type.kind, declared.get(rouge_type.kind)),
                             KINDS[rouge_type.kind])


def text_sizes(options, texts: list) -> dict:
    """Per text (int64 arrays): tokens, tokens in sentences, sentences, the longest sentence,
    the tokens in sentences over BIT_ROW_TOKENS, and the sentences of at most that."""
    if options.split_sentences:
        texts = [split_sentences_rule_based(t) for t in texts]
    token_options = dict(stemmer=options.stemmer, stopwords=options.remove_stopwords)
    flat = options.tokenizer.batch(texts, **token_options)
    sent = options.tokenizer.sentence_batch(texts, **token_options) or flat
    lengths = np.diff(sent.sent_offsets)
    owner = np.repeat(np.arange(len(texts)), np.diff(sent.text_sent_offsets))
    longest = np.zeros(len(texts), dtype=np.int64)
    np.maximum.at(longest, owner, lengths)
    long = lengths > BIT_ROW_TOKENS
    return {"tokens": np.diff(flat.text_offsets),
            "sent_tokens": np.bincount(owner, lengths, len(texts)).astype(np.int64),
            "sentences": np.diff(sent.text_sent_offsets).astype(np.int64),
            "longest": longest,
            "long_tokens": np.bincount(owner, lengths * long, len(texts)).astype(np.int64),
            "short_sentences": np.bincount(owner, (lengths > 0) & ~long,
                                           len(texts)).astype(np.int64)}


def estimate_cost(options, sizes: dict, pair_pred: np.ndarray, pair_ref: np.ndarray,
                  repeats: int = 1, traceback: bool = False) -> tuple:
    """(seconds, bytes) the kernels need for these pairs (indices into the texts of
    ``sizes``). repeats: the kernels run that many times (per-reference scores, a display's
    two directions); traceback: ROUGE-L traced back, as a display of the matched tokens does
    (a full DP, where scoring counts bit-parallel)."""
    f = lambda key, idx: sizes[key][idx].astype(np.float64)  # noqa: E731
    pairs = Pairs(lp=f("tokens", pair_pred), lr=f("tokens", pair_ref),
                  sp=f("sentences", pair_pred), sr=f("sentences", pair_ref),
                  sent_p=f("sent_tokens", pair_pred), sent_r=f("sent_tokens", pair_ref),
                  long_p=f("long_tokens", pair_pred), short_p=f("short_sentences", pair_pred),
                  max_p=f("longest", pair_pred), max_r=f("longest", pair_ref))
    total = float(sizes["tokens"].sum())
    seconds, peak = 2e-8 * total, 64.0 * total  # tokenizing
    for t in options.rouge_types:
        s, b = kind_of(options, t).cost(t, pairs, repeats, traceback)
        seconds, peak = seconds + s, max(peak, b)
    return seconds / max(1, min(THREADS, len(pair_pred))) ** 0.5, peak * THREADS


def resampling_cost(rows: int, samples: int, types: int, systems: int = 0) -> float:
    """Seconds of resampling. systems=0: compute()'s bootstrap of one corpus, ~2 ns per row,
    sample and type. systems=k: compare() of k systems, whose resamples are drawn per row and
    sample for each system: ~120 ns each (measured: 4 systems x 2,000 rows x 5,000 samples,
    3.4-4.7 s on 2 loaded cores, nearly the same for 1 and 3 types), plus 1,000 resamples for
    the intervals of every test."""
    if systems == 0:
        return 2e-9 * rows * samples * types
    return 1.2e-7 * rows * (samples + 1000) * systems * max(1, types / 3)
