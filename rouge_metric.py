"""ROUGE for Hugging Face `evaluate`: ROUGE-N, L, Lsum, W, S and SU with precision, recall and F,
a seeded bootstrap interval, a reproducibility signature, and two exact profiles:
``profile="rouge_score"`` (the default: the numbers of rouge_score 0.1.2, which
``evaluate.load("rouge")`` runs) and ``profile="rouge155"`` (the numbers the official
ROUGE-1.5.5 Perl script prints).

The class is an adapter: validate the options once (``RougeOptions``), tokenize the batch
(``rouge_text``), compute integer statistics per (prediction, reference) pair
(``rouge_kernels``), combine references, aggregate (``Aggregate``: exact sums and a Poisson
bootstrap, keeping no rows), format.
"""

import functools
import math
import os
import re
import warnings
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, NamedTuple, Optional, Sequence, Union

import datasets
import evaluate
# numba is used by the kernels; imported here too so that evaluate.load names it when missing
import numba
import numpy as np

from .rouge155_lexicon import (
    SMART_STOPWORDS,
    stem_token_rouge155,
)
from .rouge_kernels import (
    pick,
)
from .rouge_text import (
    StemMemo,
    TokenizedBatch,
    split_sentences as split_sentences_rule_based,
    tokenize_ascii_batch,
    tokenize_string_batch,
    unicode_tokenize,
    whitespace_tokenize,
)

__version__ = "0.2.0"

_ASCII_WORD = re.compile(r"[a-z0-9]+")

DEFAULT_ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
DEFAULT_SEED = 12345
PROFILES = ("rouge_score", "rouge155")
MULTI_REF_MODES = ("max", "average", "best")
TOKENIZER_NAMES = ("default", "unicode", "whitespace")
AGGREGATIONS = ("macro", "micro")
ROUGE_TYPE_GRAMMAR = (
    "rouge<N> (N >= 1), rougeL, rougeLsum, rougeW or rougeW-<weight> (weight > 1, e.g. rougeW-1.5), "
    "rougeS<d> / rougeSU<d> (d >= 0 tokens may lie between the two words) or rougeS / rougeSU "
    "(no distance limit)"
)

_CITATION = """\
@inproceedings{lin-2004-rouge,
    title = "{ROUGE}: A Package for Automatic Evaluation of Summaries",
    author = "Lin, Chin-Yew",
    booktitle = "Text Summarization Branches Out",
    month = jul,
    year = "2004",
    address = "Barcelona, Spain",
    publisher = "Association for Computational Linguistics",
    url = "https://www.aclweb.org/anthology/W04-1013",
    pages = "74--81",
}
"""

_DESCRIPTION = """\
ROUGE (Recall-Oriented Understudy for Gisting Evaluation) compares a generated text with one or
more references by overlapping units: n-grams (ROUGE-N), the longest common subsequence of the
whole text (ROUGE-L) or of its newline-separated sentences (ROUGE-Lsum), the weighted LCS that
favours consecutive matches (ROUGE-W) and skip-bigrams (ROUGE-S, plus unigrams in ROUGE-SU).
Called with evaluate's rouge arguments it returns the same numbers as `rouge_score` 0.1.2;
`profile="rouge155"` reproduces the official ROUGE-1.5.5 Perl script digit for digit.
"""

_KWARGS_DESCRIPTION = """
Args:
    predictions: list of predictions, one string each (sentences separated by "\\n").
    references: list of references: one string or a list of strings per prediction.
    rouge_types: list of types, default ["rouge1", "rouge2", "rougeL", "rougeLsum"]. Grammar:
        rouge<N>, rougeL, rougeLsum, rougeW[-<weight>], rougeS[<d>], rougeSU[<d>].
    use_aggregator: True: one aggregated score per type; False: one score per example.
    use_stemmer: Porter stemming of tokens longer than 3 characters.
    tokenizer: None or "default" (rouge_score's), "unicode", "whitespace", or a callable
        str -> list[str].
    alpha: F = 1 / (alpha / P + (1 - alpha) / R); 0.5 is F1.
    multi_ref: "max" (reference with the best F per type), "average" (counts pooled over the
        references, ROUGE-1.5.5 -f A) or "best" (ROUGE-1.5.5 -f B).
    remove_stopwords: drop the SMART stopwords of ROUGE-1.5.5 before scoring.
    n_samples, confidence, seed: the bootstrap interval.
    aggregation: "macro" (mean of per-example scores) or "micro" (counts pooled over the corpus).
    length_limit_words, length_limit_bytes: truncate every text (ROUGE-1.5.5 -l / -b).
    split_sentences: split sentences with a rule-based splitter before rougeLsum / W.
    profile: "rouge_score" (default) or "rouge155".
    detailed: also return precision and recall, the interval, the signature and the count.
Returns:
    {type: F} (aggregated) or {type: [F, ...]} (per example); with detailed=True
    {type: {"precision": {"low", "mid", "high"}, "recall": ..., "fmeasure": ...},
     "signature": str, "count": int}.
Examples:
    >>> import evaluate
    >>> rouge = evaluate.load(__file__)  # this script; yours: evaluate.load("path/to/rouge_metric.py")
    >>> rouge.compute(predictions=["the cat sat on the mat"], references=["the cat lay on the mat"],
    ...               rouge_types=["rouge1", "rougeL"])
    {'rouge1': 0.8333333333333334, 'rougeL': 0.8333333333333334}
    >>> out = rouge.compute(predictions=["a b c"], references=[["a b", "c"]], rouge_types=["rouge1"],
    ...                     detailed=True)
    >>> out["rouge1"]["recall"]["mid"], out["count"]
    (1.0, 1)
"""


class RougeWarning(UserWarning):
    """Valid input that probably does not mean what the caller thinks."""


@dataclass(frozen=True)
class RougeType:
    """One requested type, parsed: kind is 'n', 'L', 'Lsum', 'W', 'S' or 'SU'."""

    name: str
    kind: str
    n: int = 0
    weight: float = 0.0
    max_skip: int = -1  # S/SU: tokens allowed between the two words; -1 means no limit


def parse_rouge_type(name: object) -> RougeType:
    """Parse one rouge type name per ``ROUGE_TYPE_GRAMMAR``; ValueError otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"rouge_types: each type must be a str, got {name!r} "
                        f"({type(name).__name__}); allowed: {ROUGE_TYPE_GRAMMAR}")
    bad = ValueError(f"rouge_types: invalid type {name!r}; allowed: {ROUGE_TYPE_GRAMMAR}")
    if name == "rougeL":
        return RougeType(name, "L")
    if name == "rougeLsum":
        return RougeType(name, "Lsum")
    rest = name[5:] if name.startswith("rouge") else None
    if rest is None or not rest:
        raise bad
    if rest.isdigit() and rest.isascii():
        if int(rest) < 1 or rest.startswith("0"):
            raise bad
        return RougeType(name, "n", n=int(rest))
    if rest == "W":
        return RougeType(name, "W", weight=1.2)
    if rest.startswith("W-"):
        try:
            weight = float(rest[2:])
        except ValueError:
            raise bad from None
        if not (weight > 1.0 and math.isfinite(weight)):
            raise bad
        return RougeType(name, "W", weight=weight)
    for kind in ("SU", "S"):
        if rest.startswith(kind):
            distance = rest[len(kind):]
            if distance == "":
                return RougeType(name, kind, max_skip=-1)
            if distance.isdigit() and distance.isascii():
                return RougeType(name, kind, max_skip=int(distance))
            raise bad
    raise bad


def _porter_nltk() -> Callable[[str], str]:
    # imported only when stemming: `import nltk` costs 0.2 s, and evaluate.load imports every
    # library this script imports at the top (nltk is in requirements.txt)
    from nltk.stem import porter

    return porter.PorterStemmer().stem


def _nltk_version() -> str:
    import nltk

    return nltk.__version__


# Stem memos, one per stemmer, shared by every metric instance of this process: each distinct
# word is stemmed once per process (bounded: cleared at 1,000,000 words).
_STEM_MEMOS: dict = {}


def _stem_memo(kind: str) -> StemMemo:
    if kind not in _STEM_MEMOS:
        _STEM_MEMOS[kind] = StemMemo(_porter_nltk() if kind == "porter" else stem_token_rouge155)
    return _STEM_MEMOS[kind]


@dataclass(frozen=True)
class RougeOptions:
    """Every setting that changes a number, validated once (``RougeOptions.build``)."""

    rouge_types: tuple
    profile: str
    use_aggregator: bool
    use_stemmer: bool
    tokenizer: Union[str, Callable]
    alpha: float
    multi_ref: str
    remove_stopwords: bool
    n_samples: int
    confidence: float
    seed: int
    detailed: bool
    aggregation: str
    length_limit_words: Optional[int]
    length_limit_bytes: Optional[int]
    split_sentences: bool

    @classmethod
    def build(cls, *, rouge_types=None, use_aggregator=True, use_stemmer=False, tokenizer=None,
              alpha=0.5, multi_ref=None, remove_stopwords=False, n_samples=1000,
              confidence=0.95, seed=DEFAULT_SEED, detailed=False, profile="rouge_score",
              aggregation="macro", length_limit_words=None, length_limit_bytes=None,
              split_sentences=False) -> "RougeOptions":
        if profile not in PROFILES:
            raise ValueError(f"profile: got {profile!r}; allowed: {', '.join(PROFILES)}")
        if rouge_types is None:
            rouge_types = DEFAULT_ROUGE_TYPES
        if isinstance(rouge_types, str):
            rouge_types = [rouge_types]
        if not isinstance(rouge_types, (list, tuple)) or not rouge_types:
            raise ValueError(f"rouge_types: got {rouge_types!r}; expected a non-empty list of "
                             f"names: {ROUGE_TYPE_GRAMMAR}")
        parsed = tuple(parse_rouge_type(t) for t in rouge_types)
        names = [t.name for t in parsed]
        if len(set(names)) != len(names):
            raise ValueError(f"rouge_types: got duplicates in {names!r}")
        for flag_name, flag in (("use_aggregator", use_aggregator), ("use_stemmer", use_stemmer),
                                ("remove_stopwords", remove_stopwords), ("detailed", detailed),
                                ("split_sentences", split_sentences)):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"{flag_name}: got {flag!r} ({type(flag).__name__}); "
                                "allowed: True or False")
        if tokenizer is None:
            tokenizer = "default"
        if isinstance(tokenizer, str):
            if tokenizer not in TOKENIZER_NAMES:
                raise ValueError(f"tokenizer: got {tokenizer!r}; allowed: a callable "
                                 f"str -> list[str] or one of {', '.join(TOKENIZER_NAMES)}")
            if profile == "rouge155" and tokenizer != "default":
                raise ValueError(f"tokenizer: got {tokenizer!r}; the rouge155 profile uses "
                                 "ROUGE-1.5.5's own tokenizer (tokenizer=None or 'default')")
        elif not callable(tokenizer):
            raise TypeError(f"tokenizer: got {tokenizer!r} ({type(tokenizer).__name__}); "
                            f"allowed: a callable str -> list[str] or one of "
                            f"{', '.join(TOKENIZER_NAMES)}")
        elif profile == "rouge155":
            raise ValueError("tokenizer: a callable is not allowed with profile='rouge155' "
                             "(it uses ROUGE-1.5.5's own tokenizer)")
        alpha = _real("alpha", alpha, 0.0, 1.0, "a number with 0 <= alpha <= 1")
        if multi_ref is None:
            multi_ref = "average" if profile == "rouge155" else "max"
        if multi_ref not in MULTI_REF_MODES:
            raise ValueError(f"multi_ref: got {multi_ref!r}; allowed: "
                             f"{', '.join(MULTI_REF_MODES)}")
        if profile == "rouge155" and multi_ref == "max":
            raise ValueError("multi_ref: got 'max'; the rouge155 profile allows 'average' "
                             "(-f A) or 'best' (-f B)")
        n_samples = _integer("n_samples", n_samples, 1, "an integer >= 1")
        confidence = _real("confidence", confidence, 0.0, 1.0, "a number with 0 < confidence < 1")
        if not 0.0 < confidence < 1.0:
            raise ValueError(f"confidence: got {confidence!r}; allowed: 0 < confidence < 1")
        seed = _integer("seed", seed, 0, "an integer >= 0")
        if aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation: got {aggregation!r}; allowed: "
                             f"{', '.join(AGGREGATIONS)}")
        if length_limit_words is not None:
            length_limit_words = _integer("length_limit_words", length_limit_words, 1,
                                          "None or an integer >= 1")
        if length_limit_bytes is not None:
            length_limit_bytes = _integer("length_limit_bytes", length_limit_bytes, 1,
                                          "None or an integer >= 1")
        if length_limit_words is not None and length_limit_bytes is not None:
            raise ValueError("length_limit_words and length_limit_bytes: got both; allowed: "
                             "at most one (as ROUGE-1.5.5's -l and -b)")
        return cls(parsed, profile, bool(use_aggregator), bool(use_stemmer), tokenizer, alpha,
                   multi_ref, bool(remove_stopwords), n_samples, confidence, seed,
                   bool(detailed), aggregation, length_limit_words, length_limit_bytes,
                   bool(split_sentences))

    @property
    def tokenizer_name(self) -> str:
        if callable(self.tokenizer):
            return "callable:" + getattr(self.tokenizer, "__name__", type(self.tokenizer).__name__)
        return "rouge155" if self.profile == "rouge155" else self.tokenizer

    @property
    def stemmer(self) -> Optional[str]:
        """'porter' (nltk, as rouge_score), 'rouge155' (Lin's Porter + WordNet exceptions) or
        None. A callable tokenizer gets no stemming, as in rouge_score."""
        if not self.use_stemmer or callable(self.tokenizer):
            return None
        return "rouge155" if self.profile == "rouge155" else "porter"

    def signature(self) -> str:
        """Every setting that changes a number, in the style of sacrebleu's signatures."""
        stem = {"porter": f"porter-nltk{_nltk_version()}", "rouge155": "rouge155-porter+wordnet2.0",
                None: "no"}[self.stemmer]
        if self.use_stemmer and self.stemmer is None:
            stem = "ignored(callable-tokenizer)"
        parts = [
            "+".join(t.name for t in self.rouge_types),
            f"profile:{self.profile}",
            f"tok:{self.tokenizer_name}",
            f"stem:{stem}",
            f"stop:{'smart' if self.remove_stopwords else 'no'}",
            f"multiref:{self.multi_ref}",
            f"alpha:{self.alpha:g}",
            f"agg:{self.aggregation if self.use_aggregator else 'none'}",
        ]
        if self.length_limit_words is not None:
            parts.append(f"limit:{self.length_limit_words}w")
        if self.length_limit_bytes is not None:
            parts.append(f"limit:{self.length_limit_bytes}b")
        if self.split_sentences:
            parts.append("split:rules")
        if self.use_aggregator:
            parts.append(f"bs:{self.n_samples}")
            parts.append(f"ci:{self.confidence:g}")
            parts.append("seed:perl-srand" if self.profile == "rouge155" else f"seed:{self.seed}")
        parts.append(f"version:{__version__}")
        return "|".join(parts)


def _real(name, value, lo, hi, allowed) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                     np.floating)):
        raise TypeError(f"{name}: got {value!r} ({type(value).__name__}); allowed: {allowed}")
    value = float(value)
    if not (lo <= value <= hi):  # also rejects NaN
        raise ValueError(f"{name}: got {value!r}; allowed: {allowed}")
    return value


def _integer(name, value, lo, allowed) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: got {value!r} ({type(value).__name__}); allowed: {allowed}")
    if value < lo:
        raise ValueError(f"{name}: got {value!r}; allowed: {allowed}")
    return int(value)


# --------------------------------------------------------------------------------------------
# Input validation


def _check_inputs(predictions, references) -> None:
    """TypeError/ValueError naming the argument, before evaluate stores anything."""
    for name, value in (("predictions", predictions), ("references", references)):
        if value is None:
            raise TypeError(f"{name}: got None; allowed: a list of strings")
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
            raise TypeError(f"{name}: got {type(value).__name__}; allowed: a list "
                            f"({'of strings' if name == 'predictions' else 'of strings or of lists of strings'})")
    if len(predictions) != len(references):
        raise ValueError(f"predictions and references: got {len(predictions)} predictions and "
                         f"{len(references)} references; they must have the same length")
    if len(predictions) == 0:
        raise ValueError("predictions: got an empty list; allowed: at least one example "
                         "(or call compute() with no arguments after add/add_batch)")
    for i, p in enumerate(predictions):
        if not isinstance(p, str):
            raise TypeError(f"predictions[{i}]: got {p!r} ({type(p).__name__}); allowed: str")
    shapes = set()
    for i, r in enumerate(references):
        if isinstance(r, str):
            shapes.add("str")
            continue
        if not isinstance(r, (list, tuple)):
            raise TypeError(f"references[{i}]: got {r!r} ({type(r).__name__}); allowed: a str "
                            "or a list of str")
        shapes.add("list")
        if len(r) == 0:
            raise ValueError(f"references[{i}]: got an empty list; allowed: at least one "
                             "reference string per prediction")
        for j, s in enumerate(r):
            if not isinstance(s, str):
                raise TypeError(f"references[{i}][{j}]: got {s!r} ({type(s).__name__}); "
                                "allowed: str")
    if len(shapes) > 1:
        raise TypeError("references: got a mix of strings and lists; allowed: all strings "
                        "(one reference each) or all lists of strings")


# --------------------------------------------------------------------------------------------
# The pipeline: texts -> pair statistics -> per-example scores -> aggregate


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


class _Tokenizer:
    """Turns a list of texts into TokenizedBatch views for the kernels, per the options."""

    def __init__(self, options: RougeOptions, small: bool):
        self.options = options
        self.small = small  # a small batch: see rouge_kernels.pick

    def __call__(self, texts: Sequence[str]) -> TokenizedBatch:
        opts = self.options
        if opts.profile == "rouge155" or opts.tokenizer == "default":
            stem = _stem_memo(opts.stemmer) if opts.stemmer else None
            kernel = functools.partial(pick, small=self.small)
            return tokenize_ascii_batch(
                texts, functools.partial(kernel("scan_ascii_tokens"), parts=_THREADS),
                unicode_lower=opts.profile != "rouge155",
                stem_memo=stem, stopwords=SMART_STOPWORDS if opts.remove_stopwords else None,
                dense_ids=kernel("dense_ids"), scan_stem=kernel("scan_stem_tokens"),
                table_insert=kernel("stem_table_insert"))
        return tokenize_string_batch(texts, lambda text: [_string_tokens(opts, text)])

    def sentences(self, texts: Sequence[str]) -> TokenizedBatch:
        """Sentence view for rougeLsum with a string tokenizer: rouge_score tokenizes each
        non-empty line on its own."""
        return tokenize_string_batch(
            texts, lambda text: [_string_tokens(self.options, s) for s in text.split("\n") if s])


def _string_tokens(options: RougeOptions, text: str) -> list:
    """Tokens of a string tokenizer ("unicode", "whitespace" or the user's callable), checked,
    without the stopwords when asked."""
    tokenize = {"unicode": unicode_tokenize, "whitespace": whitespace_tokenize}.get(
        options.tokenizer, options.tokenizer)
    tokens = _checked_tokens(tokenize, text)
    if options.remove_stopwords:
        tokens = [t for t in tokens if t not in SMART_STOPWORDS]
    return tokens


def _checked_tokens(tokenize, text):
    try:
        tokens = tokenize(text)
    except Exception as error:  # the user's callable failed: say which text and why
        raise ValueError(f"tokenizer: the callable raised {type(error).__name__}: {error} "
                         f"on the text {text[:80]!r}") from error
    if not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
        raise TypeError(f"tokenizer: the callable returned {type(tokens).__name__} "
                        f"{str(tokens)[:80]}; allowed: a list of str")
    return tokens


def _pair_statistics(options: RougeOptions, predictions, references):
    """Tokenize once and run the kernels: {type name: float64[pairs, 3]}, plus pair layout."""
    n_examples = len(predictions)
    if all(type(r) is str for r in references):
        # one reference each: no list per example (10,000 small lists would trigger the
        # garbage collector, whose full collections scan every object of the process)
        ref_counts = np.ones(n_examples, dtype=np.int64)
        texts = list(predictions) + list(references)
    else:
        refs = [[r] if isinstance(r, str) else list(r) for r in references]
        ref_counts = np.array([len(r) for r in refs], dtype=np.int64)
        texts = list(predictions) + [r for row in refs for r in row]
    if options.split_sentences:
        texts = [split_sentences_rule_based(t) for t in texts]
    pair_pred = np.repeat(np.arange(n_examples, dtype=np.int64), ref_counts)
    pair_ref = np.arange(n_examples, n_examples + len(pair_pred), dtype=np.int64)

    tokenizer = _Tokenizer(options, sum(map(len, texts)) <= _SMALL_BATCH_CHARS)
    kinds = {t.kind for t in options.rouge_types}
    if options.length_limit_words is not None:
        texts = [_truncate_words(t, options.length_limit_words) for t in texts]
    flat_texts = texts
    if options.length_limit_bytes is not None:
        flat_texts = [_truncate_bytes(t, options.length_limit_bytes, True) for t in texts]
    if options.length_limit_bytes is not None and (kinds & {"W", "Lsum"} or (
            options.profile == "rouge155" and "L" in kinds)):
        # Under -b ROUGE-1.5.5's sentence reader keeps more text than its joined-text reader
        # (SPEC §2.2). Both views come from one tokenizer call, so that a token has the same
        # id in both (long words get ids per call): rouge155 clips the LCS of the sentence
        # view with unigram tables of the flat view.
        lcs_texts = [_truncate_bytes(t, options.length_limit_bytes, False) for t in texts]
        flat, sent = _split_batch(tokenizer(flat_texts + lcs_texts), flat_texts)
    else:
        flat = tokenizer(flat_texts)
        sent = flat
        if callable(options.tokenizer) or options.tokenizer != "default":
            if kinds & {"Lsum", "W"}:
                sent = tokenizer.sentences(texts)

    flat_offsets = flat.text_offsets
    lengths = np.diff(flat_offsets)
    kernel = functools.partial(
        pick, small=int((lengths[pair_pred] * lengths[pair_ref]).sum()) <= _SMALL_BATCH_CELLS)
    stats = {}
    ngram_orders = [t.n for t in options.rouge_types if t.kind == "n"]
    if ngram_orders:
        by_order = _over_pairs(kernel("ngram_stats"), (flat.tokens, flat_offsets), pair_pred,
                               pair_ref, (max(ngram_orders),))
    for t in options.rouge_types:
        if t.kind == "n":
            values = by_order[:, t.n - 1, :]
        elif t.kind == "L" and options.profile != "rouge155":
            values = _over_pairs(kernel("lcs_stats"), (flat.tokens, flat_offsets), pair_pred,
                                 pair_ref)
        elif t.kind in ("L", "Lsum"):
            values = _over_pairs(kernel("union_lcs_stats"), (sent.tokens, sent.sent_offsets,
                                 sent.text_sent_offsets, *_clip_view(options, flat, sent)),
                                 pair_pred, pair_ref)
        elif t.kind == "W":
            values = _over_pairs(kernel("wlcs_stats"), (sent.tokens, sent.sent_offsets,
                                 sent.text_sent_offsets, *_clip_view(options, flat, sent)),
                                 pair_pred, pair_ref, (t.weight,))
        else:
            values = _over_pairs(kernel("skip_bigram_stats"), (flat.tokens, flat_offsets),
                                 pair_pred, pair_ref, (t.max_skip, t.kind == "SU"))
        stats[t.name] = np.asarray(values, dtype=np.float64)
    return stats, ref_counts, texts, flat, sent


_THREADS = max(1, min(8, os.cpu_count() or 1))
# Batches up to these sizes may run the kernels as plain Python (rouge_kernels.pick): about
# 0.1 s at the most, where compiling takes seconds (once per machine) and loading the compiled
# kernels ~0.1 s each (once per process).
_SMALL_BATCH_CHARS = 100_000  # characters of all texts: tokenization
_SMALL_BATCH_CELLS = 150_000  # prediction x reference tokens, summed over the pairs: LCS tables
_SMALL_BATCH_DRAWS = 50_000  # examples x bootstrap samples
_PARALLEL_MIN_PAIRS = 256  # below this many pairs and tokens, threads cost more than they save
_PARALLEL_MIN_TOKENS = 50_000


def _over_pairs(kernel, head: tuple, pair_pred, pair_ref, tail: tuple = ()):
    """kernel(*head, pair_pred, pair_ref, *tail) over chunks of the pairs on a thread pool:
    the kernels release the GIL (numba nogil), so the chunks run on all cores. (numba's own
    parallel=True compiles several times slower, and compilation is the cold-start cost.)"""
    n = len(pair_pred)
    few = n < _PARALLEL_MIN_PAIRS and len(head[0]) < _PARALLEL_MIN_TOKENS  # head[0]: tokens
    if n < 2 or few or _THREADS == 1:
        return kernel(*head, pair_pred, pair_ref, *tail)
    # more chunks than threads, so one chunk of long documents does not hold up the rest
    bounds = np.linspace(0, n, 4 * _THREADS + 1).astype(np.int64)
    chunks = [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    with ThreadPoolExecutor(_THREADS) as pool:
        parts = list(pool.map(
            lambda span: kernel(*head, pair_pred[span[0]:span[1]], pair_ref[span[0]:span[1]],
                                *tail), chunks))
    return np.concatenate(parts)


def _split_batch(batch: TokenizedBatch, first_texts: list) -> tuple:
    """The first len(first_texts) texts of one TokenizedBatch and the rest, as two batches."""
    k = len(first_texts)
    tso, so = batch.text_sent_offsets, batch.sent_offsets
    s_mid = int(tso[k])
    t_mid = int(so[s_mid])
    lengths = np.diff(so[tso[:k + 1]])
    empty = sum(1 for j in np.flatnonzero(lengths == 0).tolist() if first_texts[j].strip())
    first = TokenizedBatch(batch.tokens[:t_mid], so[:s_mid + 1], tso[:k + 1], empty)
    rest = TokenizedBatch(batch.tokens[t_mid:], so[s_mid:] - t_mid, tso[k:] - s_mid, 0)
    return first, rest


def _clip_view(options, flat, sent):
    """Tokens that fill the clipping tables of the union LCS: ROUGE-1.5.5 takes them from its
    joined-text reader (``flat``); rouge_score from the sentence tokens."""
    view = flat if options.profile == "rouge155" else sent
    return view.tokens, view.text_offsets


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _fscore(p: np.ndarray, r: np.ndarray, alpha: float) -> np.ndarray:
    """F = P R / ((1 - alpha) P + alpha R), 0 where that denominator is 0. For alpha = 0.5
    the same expression as rouge_score (2 P R / (P + R)), so the numbers are identical."""
    if alpha == 0.5:
        return _safe_div(2.0 * p * r, p + r)
    return _safe_div(p * r, (1.0 - alpha) * p + alpha * r)


def _round5(x: np.ndarray) -> np.ndarray:
    """Perl's sprintf("%.5f"): correct rounding of the binary double (numpy's round is not).

    k / 1e5 is the double nearest to the decimal k * 10^-5 (IEEE division), so only k, the
    rounded x * 10^5, must be right. The product errs by less than 1e-8 for |x| < 1000, so
    only values within 1e-6 of a tie (and the rest) need the exact, slow formatting."""
    x = np.asarray(x, dtype=np.float64)
    scaled = x * 1e5
    low = np.floor(scaled)
    out = (low + (scaled - low > 0.5)) / 1e5
    exact = ~(np.abs(x) < 1000.0) | (np.abs(scaled - low - 0.5) < 1e-6)
    if exact.any():
        out[exact] = [float("%.5f" % v) for v in x[exact].tolist()]
    return out


def _libm_pow(x: np.ndarray, y: float) -> np.ndarray:
    """x ** y with the C library's pow(), as Perl's ``**`` (and numba's): numpy's SIMD power
    differs from it in the last bit for about 5% of inputs, which ROUGE-1.5.5 shows in its
    15-digit ROUGE-W counts (-t 1) and can show in a rounded score."""
    return np.array([math.pow(v, y) for v in np.ravel(x).tolist()],
                    dtype=np.float64).reshape(np.shape(x))


def _sequential_sums(x: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Sum of each group x[starts[i]:starts[i] + sizes[i]], added left to right as the
    script does (np.add.reduceat adds a group of 3 or more in another order, which can
    change the last bit of ROUGE-W's float counts)."""
    out = x[starts].astype(np.float64)
    for j in range(1, int(sizes.max(initial=1))):
        more = sizes > j
        out[more] += x[starts[more] + j]
    return out


def _pr_from_counts(kind: str, weight: float, hit, den_p, den_r):
    """P and R from pooled counts; ROUGE-W applies f^-1(x) = x ** (1 / weight)."""
    p = _safe_div(hit, den_p)
    r = _safe_div(hit, den_r)
    if kind == "W":
        p = p ** (1.0 / weight)
        r = r ** (1.0 / weight)
    return p, r


def _example_scores(options: RougeOptions, rouge_type: RougeType, values: np.ndarray,
                    ref_counts: np.ndarray):
    """Combine each example's references: per-example (P, R, F) and the counts behind them
    (hit, den_p, den_r) for micro aggregation."""
    kind, weight = rouge_type.kind, rouge_type.weight
    hit, pred_len, ref_den = values[:, 0], values[:, 1], values[:, 2]
    rounding = options.profile == "rouge155"
    power = _libm_pow if rounding else np.power
    if kind == "W":
        # ROUGE-1.5.5 weights the reference base a second time and the prediction length once
        den_p, den_r = power(pred_len, weight), power(ref_den, weight)
    else:
        den_p, den_r = pred_len, ref_den
    starts = np.concatenate(([0], np.cumsum(ref_counts)[:-1]))
    if options.multi_ref == "average" or (ref_counts == 1).all() and options.multi_ref != "max":
        if rounding:
            e_hit, e_den_p, e_den_r = (_sequential_sums(x, starts, ref_counts)
                                       for x in (hit, den_p, den_r))
        else:
            e_hit = np.add.reduceat(hit, starts)
            e_den_p = np.add.reduceat(den_p, starts)
            e_den_r = np.add.reduceat(den_r, starts)
    else:
        p_pair, r_pair = _pr_from_counts(kind, weight, hit, den_p, den_r)
        if options.multi_ref == "max":
            key = _fscore(p_pair, r_pair, options.alpha)  # rouge_score's score_multi
        else:
            # ROUGE-1.5.5 -f B: the reference with the strictly highest single-reference
            # score (recall; N and S rounded to 5 decimals; W as f^-1(hit / base)) wins.
            if kind == "W":
                key = power(_safe_div(hit, ref_den), 1.0 / weight)
            else:
                key = _safe_div(hit, ref_den)
                if kind in ("n", "S", "SU") and rounding:
                    key = _round5(key)
        chosen = _first_max_per_group(key, starts, ref_counts)
        e_hit, e_den_p, e_den_r = hit[chosen], den_p[chosen], den_r[chosen]
    if rounding and kind == "W":
        p = power(_safe_div(e_hit, e_den_p), 1.0 / weight)
        r = power(_safe_div(e_hit, e_den_r), 1.0 / weight)
    else:
        p, r = _pr_from_counts(kind, weight, e_hit, e_den_p, e_den_r)
    if rounding:
        p, r = _round5(p), _round5(r)
        f = _round5(_fscore(p, r, options.alpha))
    else:
        f = _fscore(p, r, options.alpha)
    return np.stack([p, r, f], axis=1), np.stack([e_hit, e_den_p, e_den_r], axis=1)


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


def _perl_interval(sorted_samples: np.ndarray, confidence: float):
    """ROUGE-1.5.5's interval (SPEC §6): both bounds interpolate with the upper fraction."""
    b = len(sorted_samples)
    percent = round(confidence * 100.0, 10)  # -c, as typed
    delta = b * ((100.0 - percent) / 2.0) / 100.0  # the script's operations, in its order
    ua = int(b - delta - 1)
    la = int(delta)
    frac = (b - delta - 1) - ua

    def at(i):
        return float(sorted_samples[i]) if 0 <= i < b else 0.0

    lower = at(la) + (at(la + 1) - at(la)) * frac
    upper = at(ua) + (at(ua + 1) - at(ua)) * frac
    return lower, upper


def _rouge155_aggregate(options: RougeOptions, scores: dict, counts: dict) -> dict:
    """ROUGE-1.5.5's aggregation (SPEC §6) over every row in input order: its bootstrap draws
    row indices, sums the drawn rows in draw order and reports the mean of the sample means.
    {type: {"precision"|"recall"|"fmeasure": (low, mid, high)}}, rounded to 5 decimals."""
    names = list(scores)
    micro = options.aggregation == "micro"
    matrix = np.concatenate([counts[k] if micro else scores[k] for k in names], axis=1)
    # -t 0 divides each sample by N, -t 1 keeps the sums
    bootstrap = pick("perl_bootstrap_means",
                     small=len(matrix) * options.n_samples <= _SMALL_BATCH_DRAWS)
    bounds = np.linspace(0, options.n_samples, _THREADS + 1).astype(np.int64)
    with ThreadPoolExecutor(_THREADS) as pool:
        samples = np.concatenate(list(pool.map(
            lambda lo_hi: bootstrap(matrix, int(lo_hi[1] - lo_hi[0]), not micro,
                                               int(lo_hi[0])), zip(bounds[:-1], bounds[1:]))))
    out = {}
    for t_index, name in enumerate(names):
        block = samples[:, 3 * t_index:3 * t_index + 3]
        if micro:
            p, r = _pr_from_sums(block)
            block = np.stack([p, r, _fscore(p, r, options.alpha)], axis=1)
        entry = {}
        for col, key in enumerate(("precision", "recall", "fmeasure")):
            ordered = np.sort(block[:, col])
            mean = float(np.cumsum(ordered)[-1] / len(ordered))  # Perl's sequential sum
            low, high = _perl_interval(ordered, options.confidence)
            entry[key] = tuple(float("%.5f" % v) for v in (low, mean, high))
        out[name] = entry
    return out


def _pr_from_sums(block):
    """Corpus P and R from summed (hit, den_p, den_r). ROUGE-1.5.5's -t 1 applies no f^-1 to
    ROUGE-W; the rouge_score profile does the same, so that both profiles agree."""
    return _safe_div(block[:, 0], block[:, 1]), _safe_div(block[:, 0], block[:, 2])


@dataclass
class InputNotes:
    """What the input looked like, for the warnings: counted per batch, summed over the
    chunks of a stream (the CLI), then warned about once (``warn_about_input``)."""

    texts: int = 0
    empty_texts: int = 0  # texts with visible characters but no tokens
    texts_with_newline: int = 0
    tokenless_w_references: int = 0  # ROUGE-W pairs whose reference has no tokens

    def add(self, other: "InputNotes") -> None:
        self.texts += other.texts
        self.empty_texts += other.empty_texts
        self.texts_with_newline += other.texts_with_newline
        self.tokenless_w_references += other.tokenless_w_references


def _input_notes(options: RougeOptions, texts, flat: TokenizedBatch, stats) -> InputNotes:
    w_names = [t.name for t in options.rouge_types if t.kind == "W"]
    return InputNotes(
        texts=len(texts),
        empty_texts=flat.empty_texts,
        texts_with_newline=sum("\n" in t for t in texts),
        tokenless_w_references=int((stats[w_names[0]][:, 2] == 0).sum()) if w_names else 0,
    )


def warn_about_input(options: RougeOptions, notes: InputNotes, stacklevel: int = 2) -> None:
    """RougeWarnings for valid input that probably does not mean what the caller thinks."""
    if notes.empty_texts:
        hint = (" Non-Latin scripts need tokenizer='unicode'." if options.profile != "rouge155"
                and options.tokenizer == "default" else "")
        warnings.warn(f"{notes.empty_texts} of {notes.texts} texts are not empty but have no "
                      f"tokens; they score 0.{hint}", RougeWarning, stacklevel=stacklevel + 1)
    wants_sentences = any(t.kind in ("Lsum", "W") or (t.kind == "L" and options.profile == "rouge155")
                          for t in options.rouge_types)
    if wants_sentences and not options.split_sentences and not notes.texts_with_newline:
        warnings.warn("rougeLsum/rougeW split sentences at newlines, and no text contains one: "
                      "they are computed over each whole text as one sentence. Put each "
                      "sentence on its own line, or pass split_sentences=True.", RougeWarning,
                      stacklevel=stacklevel + 1)
    if notes.tokenless_w_references:
        warnings.warn(f"rougeW: {notes.tokenless_w_references} reference(s) have no tokens; "
                      "they score 0 (the ROUGE-1.5.5 script dies on them with a division by "
                      "zero).", RougeWarning, stacklevel=stacklevel + 1)


class ScoredExamples(NamedTuple):
    """What aggregation needs from a batch of examples."""

    scores: dict  # {type: float64[N, 3]} per-example (P, R, F)
    counts: dict  # {type: float64[N, 3]} the counts behind them (hit, den_p, den_r)
    keys: Optional[np.ndarray]  # uint64[N] row keys for the bootstrap (None: not needed)


def example_scores(options: RougeOptions, predictions, references, notes=None) -> ScoredExamples:
    """Per-example scores and counts of a batch (the CLI streams these chunk by chunk into an
    Aggregate). Warns about the input, or, given an InputNotes, adds to it."""
    stats, ref_counts, texts, flat, sent = _pair_statistics(options, predictions, references)
    batch_notes = _input_notes(options, texts, flat, stats)
    if notes is None:
        warn_about_input(options, batch_notes, stacklevel=3)
    else:
        notes.add(batch_notes)
    scores, counts = {}, {}
    for t in options.rouge_types:
        scores[t.name], counts[t.name] = _example_scores(options, t, stats[t.name], ref_counts)
    keys = _row_keys(predictions, references) if _wants_poisson_bootstrap(options) else None
    return ScoredExamples(scores, counts, keys)


def _row_keys(predictions, references) -> np.ndarray:
    """A 64-bit key per example from its own texts: CRC-32 and Adler-32 of the prediction and
    the references. (Two checksums of different kinds: CRC-32 alone is affine in its input,
    so a second CRC would collide together with the first.) The bootstrap weights are drawn
    from it, so they follow the example wherever it arrives (order, chunk, process)."""
    keys = []
    for prediction, refs in zip(predictions, references):
        if isinstance(refs, str):  # the same bytes as [refs]
            data = (prediction + "\0" + refs).encode("utf-8", "surrogatepass")
        else:
            data = "\0".join([prediction, *refs]).encode("utf-8", "surrogatepass")
        keys.append(zlib.crc32(data) << 32 | zlib.adler32(data))
    return np.array(keys, dtype=np.uint64)


def _wants_poisson_bootstrap(options: RougeOptions) -> bool:
    return options.use_aggregator and options.detailed and options.profile == "rouge_score"


# Macro scores in [0, 1] enter the bootstrap as integers in units of 2^-24 (micro: the counts
# themselves, integers but for ROUGE-W's weighted counts): integer sums below 2^53 are exact
# in float64 whatever the order, which holds up to 2^29 examples. The rounding (< 3e-8) is
# far below the bootstrap's own noise and is taken out of the mean (Aggregate._aggregate).
_SCORE_SCALE = 2.0 ** 24
# 2^32 * P(Poisson(1) <= k), k = 0..15 (P(> 15) < 1e-13)
_POISSON_CDF = np.array([math.floor(2.0 ** 32 * math.fsum(math.exp(-1) / math.factorial(j)
                                                          for j in range(k + 1)))
                         for k in range(16)], dtype=np.uint64)
_BOOTSTRAP_MIN_ROWS_PER_THREAD = 1_000
_EXACT_UNIT = 1130  # every finite double is an integer multiple of 2^-1074 (and frexp's 2^-53)


def _exact_column_sums(matrix: np.ndarray) -> list:
    """Column sums of finite floats, exactly, as Python ints in units of 2^-_EXACT_UNIT: the
    same in any order and any chunking; dividing them at the end rounds once, correctly."""
    whole = np.floor(matrix)
    fraction = (matrix - whole) * 2.0 ** 32  # exact: power-of-two scaling of an exact difference
    high = np.floor(fraction)
    low = (fraction - high) * 2.0 ** 32
    if np.all(np.abs(whole) < 2.0 ** 40) and np.array_equal(low, np.floor(low)):
        # the common case, fast: every value is a multiple of 2^-64 (scores above 2^-11, or
        # counts), so its whole part and two 32-bit fraction parts are exact int64 numbers
        parts = [part.astype(np.int64).sum(axis=0).tolist() for part in (whole, high, low)]
        return [((w << 64) + (h << 32) + lo) << (_EXACT_UNIT - 64) for w, h, lo in zip(*parts)]
    mantissa, exponent = np.frexp(matrix)
    digits = (mantissa * 2.0 ** 53).astype(np.int64)  # exact: value = digits * 2^(exponent - 53)
    sums = []
    for c in range(matrix.shape[1]):
        total = 0
        for e in np.unique(exponent[:, c]).tolist():
            chosen = digits[exponent[:, c] == e, c]
            # in two halves of 27 bits, so that an int64 sum cannot overflow
            high, low = int((chosen >> 26).sum()), int((chosen & (2 ** 26 - 1)).sum())
            total += ((high << 26) + low) << (e - 53 + _EXACT_UNIT)
        sums.append(total)
    return sums


class _Occurrences:
    """How many times each row key was seen before: the k-th copy of an example draws its
    bootstrap weights with occurrence k, so identical examples get independent weights (as
    distinct test items should) while the weights stay a function of the multiset of rows.
    uint64 keys and uint32 counts, 12 bytes a key, in sorted runs of decreasing size that
    merge like a binary counter: O(log n) runs, O(n log n) work in all. Distinct examples are
    held once each; a key that repeats across batches may sit in several runs until they
    merge."""

    def __init__(self):
        self.runs = []  # (sorted unique keys, counts)

    def __len__(self) -> int:
        return sum(len(keys) for keys, _ in self.runs)

    def number(self, keys: np.ndarray) -> np.ndarray:
        """The occurrence index of each key (0 for its first copy), counting these too."""
        order = np.argsort(keys, kind="stable")
        unique, first, copies = np.unique(keys[order], return_index=True, return_counts=True)
        before = np.zeros(len(unique), dtype=np.int64)
        for run_keys, run_counts in self.runs:
            at = np.minimum(np.searchsorted(run_keys, unique), len(run_keys) - 1)
            known = run_keys[at] == unique
            before[known] += run_counts[at[known]]
        occurrences = np.empty(len(keys), dtype=np.int64)
        occurrences[order] = (np.arange(len(keys)) - np.repeat(first, copies)
                              + np.repeat(before, copies))
        self.runs.append((unique, copies.astype(np.uint32)))
        while len(self.runs) > 1 and len(self.runs[-1][0]) >= len(self.runs[-2][0]):
            (k2, c2), (k1, c1) = self.runs.pop(), self.runs.pop()
            merged_keys, inverse = np.unique(np.concatenate([k1, k2]), return_inverse=True)
            merged_counts = np.zeros(len(merged_keys), dtype=np.uint32)
            np.add.at(merged_counts, inverse, np.concatenate([c1, c2]))
            self.runs.append((merged_keys, merged_counts))
        return occurrences


def _poisson_sums(fixed: np.ndarray, keys: np.ndarray, occurrences: np.ndarray, seed: int,
                  n_samples: int) -> tuple:
    """poisson_bootstrap_sums over row ranges on the thread pool, summed."""
    n = len(keys)
    parts = max(1, min(_THREADS, n // _BOOTSTRAP_MIN_ROWS_PER_THREAD))
    bounds = np.linspace(0, n, parts + 1).astype(np.int64)
    seed64 = np.uint64(seed % 2 ** 64)

    bootstrap = pick("poisson_bootstrap_sums", small=n * n_samples <= _SMALL_BATCH_DRAWS)

    def run(span):
        lo, hi = span
        return bootstrap(fixed[lo:hi], keys[lo:hi], occurrences[lo:hi], seed64, n_samples,
                         _POISSON_CDF)

    spans = list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))
    if parts == 1:
        return run(spans[0])
    with ThreadPoolExecutor(parts) as pool:
        results = list(pool.map(run, spans))
    return sum(r[0] for r in results), sum(r[1] for r in results)


class Aggregate:
    """The aggregation of everything added (``add`` per batch, in any order and chunking),
    formatted by ``result()``.

    Under the default profile it keeps no rows: exact column sums give the mean, and the
    bootstrap is a Poisson bootstrap kept as sums per sample (each example enters each sample
    w ~ Poisson(1) times, w drawn from the example's own texts, the seed and its copy number),
    summed as exact integers, so that the numbers do not depend on the order, the chunks or
    the processes the examples came from (micro ROUGE-W's weighted counts are not integers:
    its interval can move in the last bits with the order). What grows is the copy-number
    register, 12 bytes per distinct example. Per-example rows are kept only when they are the
    output (use_aggregator=False) or under the rouge155 profile (its bootstrap draws rows by
    index, in input order)."""

    def __init__(self, options: RougeOptions):
        self.options = options
        self.names = [t.name for t in options.rouge_types]
        self.count = 0
        self._rows = []  # ScoredExamples, when the rows themselves are needed
        self._keep_rows = not options.use_aggregator or options.profile == "rouge155"
        self._micro = options.aggregation == "micro"
        width = 3 * len(self.names)
        self._exact = [0] * width
        self._bootstrap = _wants_poisson_bootstrap(options)
        if self._bootstrap:
            self._occurrences = _Occurrences()
            self._fixed_totals = [0] * width  # what the samples would sum with all weights 1
            self._sample_sums = np.zeros((options.n_samples, width), dtype=np.float64)
            self._sample_weights = np.zeros(options.n_samples, dtype=np.int64)

    def add(self, batch: ScoredExamples) -> None:
        n = len(next(iter(batch.scores.values())))
        self.count += n
        if self._keep_rows:
            self._rows.append(batch)
            return
        used = batch.counts if self._micro else batch.scores
        matrix = np.concatenate([used[name] for name in self.names], axis=1)
        self._exact = [a + b for a, b in zip(self._exact, _exact_column_sums(matrix))]
        if self._bootstrap:
            fixed = matrix if self._micro else np.rint(matrix * _SCORE_SCALE)
            self._fixed_totals = [a + b for a, b in zip(self._fixed_totals,
                                                        _exact_column_sums(fixed))]
            sums, weights = _poisson_sums(fixed, batch.keys,
                                          self._occurrences.number(batch.keys),
                                          self.options.seed, self.options.n_samples)
            self._sample_sums += sums
            self._sample_weights += weights

    def rows(self) -> tuple:
        """({type: float64[N, 3]} scores, counts) of the kept rows, in the order added."""
        return tuple({name: np.concatenate([getattr(b, part)[name] for b in self._rows])
                      for name in self.names} for part in ("scores", "counts"))

    def result(self) -> dict:
        """The output dict of compute()."""
        options = self.options
        if self.count == 0:
            raise ValueError("predictions: no examples were given (add/add_batch/compute got "
                             "none); allowed: at least one")
        if not options.use_aggregator:
            scores, _ = self.rows()
            if not options.detailed:
                return {name: s[:, 2].tolist() for name, s in scores.items()}
            out = {name: {"precision": s[:, 0].tolist(), "recall": s[:, 1].tolist(),
                          "fmeasure": s[:, 2].tolist()} for name, s in scores.items()}
        else:
            agg = _rouge155_aggregate(options, *self.rows()) \
                if options.profile == "rouge155" else self._aggregate()
            if not options.detailed:
                return {name: entry["fmeasure"][1] for name, entry in agg.items()}
            out = {name: {key: dict(zip(("low", "mid", "high"), bounds)) for key, bounds in
                          entry.items()} for name, entry in agg.items()}
        out["signature"] = options.signature()
        out["count"] = self.count
        return out

    def _aggregate(self) -> dict:
        """{type: {"precision"|"recall"|"fmeasure": (low, mid, high)}} (low = high = mid
        without the bootstrap)."""
        options = self.options
        tail = 100.0 * (1.0 - options.confidence) / 2.0
        used = self._bootstrap and self._sample_weights > 0  # a sample that drew nothing
        out = {}
        for t_index, name in enumerate(self.names):
            cols = slice(3 * t_index, 3 * t_index + 3)
            mid = self._scores(self._exact[cols], self.count << _EXACT_UNIT)
            bounds = np.stack([mid, mid])
            if np.any(used):
                samples = self._scores(self._sample_sums[used, cols],
                                       self._sample_weights[used] * _SCORE_SCALE)
                # the fixed-point rounding moves every sample alike: take it out, so that
                # the samples are centred as if the values had not been rounded
                full = self._scores(self._fixed_totals[cols],
                                    self.count << (_EXACT_UNIT + 24))  # 24: _SCORE_SCALE
                samples += mid - full
                bounds = np.percentile(samples, [tail, 100.0 - tail], axis=0)
            out[name] = {key: (float(bounds[0, col]), float(mid[col]), float(bounds[1, col]))
                         for col, key in enumerate(("precision", "recall", "fmeasure"))}
        return out

    def _scores(self, sums, units) -> np.ndarray:
        """(P, R, F) from the column sums of one type (rows: samples, or one row of Python
        ints, divided exactly): macro: sums of (P, R, F) over units; micro: sums of (hit,
        den_p, den_r)."""
        if isinstance(sums, list):  # exact Python ints: a / b is correctly rounded
            a, b, c = sums
            if self._micro:
                p, r = (a / b if b else 0.0), (a / c if c else 0.0)
                return np.array([p, r, _fscore(np.array([p]), np.array([r]),
                                                self.options.alpha)[0]])
            return np.array([a / units, b / units, c / units])
        if self._micro:
            p, r = _pr_from_sums(sums)
            return np.stack([p, r, _fscore(p, r, self.options.alpha)], axis=1)
        return sums / np.asarray(units, dtype=np.float64)[:, None]


_CHUNK_EXAMPLES = 50_000  # examples tokenized and scored at a time: bounds the token arrays
_THREAD_CHUNK_MIN = 1_000  # examples per chunk below which one thread does it all


def score_batch(options: RougeOptions, predictions, references) -> dict:
    """The whole computation for validated options and inputs, in chunks of examples (the
    numbers do not depend on the chunking; the warnings are about the whole)."""
    n = len(predictions)
    size = _CHUNK_EXAMPLES
    if _THREADS > 1 and n >= 2 * _THREAD_CHUNK_MIN:
        # one chunk per thread (at least): tokenization's GIL-free parts overlap too
        size = min(size, -(-n // _THREADS))
    spans = [(i, min(i + size, n)) for i in range(0, n, size)]
    notes = [InputNotes() for _ in spans]
    with ThreadPoolExecutor(min(_THREADS, len(spans))) as pool:
        chunks = list(pool.map(
            lambda k: example_scores(options, predictions[spans[k][0]:spans[k][1]],
                                     references[spans[k][0]:spans[k][1]], notes[k]),
            range(len(spans))))
    for more in notes[1:]:
        notes[0].add(more)
    warn_about_input(options, notes[0], stacklevel=3)
    aggregate = Aggregate(options)
    for chunk in chunks:
        aggregate.add(chunk)
    return aggregate.result()


# --------------------------------------------------------------------------------------------
# The evaluate.Metric


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RougeMetric(evaluate.Metric):
    """ROUGE-N/L/Lsum/W/S/SU with P/R/F, a seeded bootstrap and a signature."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features({
                    "predictions": datasets.Value("string", id="sequence"),
                    "references": datasets.Sequence(datasets.Value("string", id="sequence")),
                }),
                datasets.Features({
                    "predictions": datasets.Value("string", id="sequence"),
                    "references": datasets.Value("string", id="sequence"),
                }),
            ],
            codebase_urls=["https://github.com/google-research/google-research/tree/master/rouge"],
            reference_urls=["https://aclanthology.org/W04-1013/"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Validate the options (and the inputs, when given) before evaluate stores anything,
        so that a typo fails at once with a message that names the argument."""
        RougeOptions.build(**kwargs)
        if predictions is not None or references is not None:
            _check_inputs(predictions, references)
        elif getattr(self, "writer", None) is None:
            raise ValueError("predictions: nothing to score; pass predictions= and references= "
                             "or call add/add_batch before compute()")
        if predictions is not None and getattr(self, "writer", None) is None \
                and self.num_process == 1:
            # Everything is in hand and nothing was added before: evaluate would only write
            # the inputs to Arrow and read them back. Score them directly.
            return self._compute(predictions=list(predictions), references=list(references),
                                 **kwargs)
        return super().compute(predictions=predictions, references=references, **kwargs)

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of examples (checked at once; scored at compute())."""
        _check_inputs(predictions, references)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example (checked at once; scored at compute())."""
        _check_inputs([prediction], [reference])
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, predictions, references, rouge_types=None, use_aggregator=True,
                 use_stemmer=False, tokenizer=None, *, alpha=0.5, multi_ref=None,
                 remove_stopwords=False, n_samples=1000, confidence=0.95, seed=DEFAULT_SEED,
                 detailed=False, profile="rouge_score", aggregation="macro",
                 length_limit_words=None, length_limit_bytes=None, split_sentences=False):
        options = RougeOptions.build(
            rouge_types=rouge_types, use_aggregator=use_aggregator, use_stemmer=use_stemmer,
            tokenizer=tokenizer, alpha=alpha, multi_ref=multi_ref,
            remove_stopwords=remove_stopwords, n_samples=n_samples, confidence=confidence,
            seed=seed, detailed=detailed, profile=profile, aggregation=aggregation,
            length_limit_words=length_limit_words, length_limit_bytes=length_limit_bytes,
            split_sentences=split_sentences)
        if len(predictions) == 0:
            raise ValueError("predictions: no examples were given (add/add_batch/compute got "
                             "none); allowed: at least one")
        if options.use_stemmer and callable(options.tokenizer):
            warnings.warn("use_stemmer has no effect with a callable tokenizer (as in "
                          "rouge_score): stem inside your tokenizer.", RougeWarning, stacklevel=3)
        return score_batch(options, predictions, references)


def tokens_of(text: str, **options) -> list:
    """The tokens ROUGE compares in ``text``, per sentence (lowercased, stopwords removed,
    stemmed, as the options say): for displays and debugging. Scoring works on ids instead."""
    opts = RougeOptions.build(**options)
    sentences = text.split("\n")
    if opts.profile == "rouge155" or opts.tokenizer == "default":
        stem = _stem_memo(opts.stemmer).stem if opts.stemmer else None
        out = []
        for sentence in sentences:
            if opts.profile == "rouge155":
                lowered = sentence.encode("utf-8", "surrogatepass").lower().decode("ascii", "replace")
            else:
                lowered = sentence.lower()
            words = _ASCII_WORD.findall(lowered)
            if opts.remove_stopwords:
                words = [w for w in words if w not in SMART_STOPWORDS]
            if stem is not None:
                words = [stem(w) if len(w) > 3 else w for w in words]
            if opts.profile != "rouge155":  # rouge_score drops a stem that is not [a-z0-9]+
                words = [w for w in words if _ASCII_WORD.fullmatch(w)]
            out.append(words)
        return out
    return [_string_tokens(opts, s) for s in sentences]
