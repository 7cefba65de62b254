"""Named profiles: everything that differs between one ROUGE and another, as objects.

A ``TokenizerProfile`` says what ROUGE compares in a text: ``batch`` turns a list of texts into
the token ids the kernels score, ``tokens`` gives the same tokens as strings (``tokens_of`` and
the Space's highlights use it). The named ones are ``default`` (rouge_score's), ``rouge155``
(ROUGE-1.5.5's), ``unicode``, ``whitespace``; a user's callable and the language profiles
(``rouge_lang``) are string tokenizers too.

A ``Profile`` holds every decision that differs between rouge_score 0.1.2 (``rouge_score``)
and the ROUGE-1.5.5 script (``rouge155``): the tokenizer and stemmer, what ROUGE-L means, which
tokens fill the union LCS's clipping tables, rounding, ``pow``, the multi-reference default,
the bootstrap and its seed label. No other module compares profile names: adding a profile is
adding one object to ``PROFILES``.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np

from .rouge155_lexicon import (
    SMART_STOPWORDS,
    stem_token_rouge155,
)
from .rouge_backend import (
    THREADS,
    kernel,
)
from .rouge_text import (
    StemMemo,
    TokenizedBatch,
    tokenize_ascii_batch,
    tokenize_string_batch,
    unicode_tokenize,
    whitespace_tokenize,
)

_ASCII_WORD = re.compile(r"[a-z0-9]+")


# --------------------------------------------------------------------------------------------
# Stemmers: one memo per stemmer, shared by every metric instance of this process (a documented,
# bounded cache: each distinct word is stemmed once per process; cleared at 1,000,000 words).

_STEM_MEMOS: dict = {}


def _porter_nltk() -> Callable[[str], str]:
    # imported only when stemming: `import nltk` costs 0.2 s, and evaluate.load imports every
    # library the metric script imports at the top (nltk is in requirements.txt)
    from nltk.stem import porter

    return porter.PorterStemmer().stem


def nltk_version() -> str:
    import nltk

    return nltk.__version__


def stem_memo(stemmer: str) -> StemMemo:
    """The process's memo of 'porter' (nltk, as rouge_score) or 'rouge155' (Lin's Porter
    variant with WordNet 2.0's exceptions)."""
    if stemmer not in _STEM_MEMOS:
        _STEM_MEMOS[stemmer] = StemMemo(_porter_nltk() if stemmer == "porter"
                                        else stem_token_rouge155)
    return _STEM_MEMOS[stemmer]


# --------------------------------------------------------------------------------------------
# Tokenizer profiles


class TokenizerProfile:
    """What ROUGE compares in a text. Subclasses have a ``name`` and ``stems`` (whether
    use_stemmer applies to them)."""

    def batch(self, texts: Sequence[str], *, stemmer: Optional[str],
              stopwords: bool) -> TokenizedBatch:
        """Token ids of the texts, with a sentence per newline-separated line where the
        tokenizer keeps them (``sentence_view`` says)."""
        raise NotImplementedError

    def sentence_batch(self, texts: Sequence[str], *, stemmer: Optional[str],
                       stopwords: bool) -> Optional[TokenizedBatch]:
        """The sentence view for rougeLsum/W when ``batch`` has none (None: batch has it)."""
        return None

    def tokens(self, text: str, *, stemmer: Optional[str], stopwords: bool) -> list:
        """The tokens of each newline-separated sentence, as strings."""
        raise NotImplementedError

    def signature(self) -> str:
        return self.name


@dataclass(frozen=True)
class ByteTokenizer(TokenizerProfile):
    """The ASCII tokenizers, scanned in one pass over the batch's bytes (rouge_text):
    rouge_score's (``unicode_lower``: str.lower first; a stem that is not [a-z0-9]+ is
    dropped) and ROUGE-1.5.5's (raw bytes, A-Z lowered only; stems kept as they are)."""

    name: str
    unicode_lower: bool
    stems: bool = True

    def batch(self, texts, *, stemmer, stopwords):
        return tokenize_ascii_batch(
            texts, functools.partial(kernel("scan_ascii_tokens"), parts=THREADS),
            unicode_lower=self.unicode_lower,
            stem_memo=stem_memo(stemmer) if stemmer else None,
            stopwords=SMART_STOPWORDS if stopwords else None,
            dense_ids=kernel("dense_ids"), scan_stem=kernel("scan_stem_tokens"),
            table_insert=kernel("stem_table_insert"))

    def tokens(self, text, *, stemmer, stopwords):
        stem = stem_memo(stemmer).stem if stemmer else None
        out = []
        for sentence in text.split("\n"):
            if self.unicode_lower:
                lowered = sentence.lower()
            else:
                lowered = sentence.encode("utf-8", "surrogatepass").lower().decode("ascii",
                                                                                 "replace")
            words = _ASCII_WORD.findall(lowered)
            if stopwords:
                words = [w for w in words if w not in SMART_STOPWORDS]
            if stem is not None:
                words = [stem(w) if len(w) > 3 else w for w in words]
            if self.unicode_lower:  # rouge_score drops a stem that is not [a-z0-9]+
                words = [w for w in words if _ASCII_WORD.fullmatch(w)]
            out.append(words)
        return out


@dataclass(frozen=True)
class StringTokenizer(TokenizerProfile):
    """A tokenizer that gives string tokens (``function(text) -> list[str]``), interned to
    ids here. As in rouge_score, rougeLsum tokenizes each non-empty line on its own.
    ``sentence_function`` (language profiles) tokenizes those lines differently."""

    name: str
    function: Callable = field(compare=False)
    stems: bool = False
    sentence_function: Optional[Callable] = field(default=None, compare=False)

    def _tokens(self, function, text, stopwords):
        try:
            tokens = function(text)
        except Exception as error:  # the user's callable failed: say which text and why
            raise ValueError(f"tokenizer: {self.name} raised {type(error).__name__}: {error} "
                             f"on the text {text[:80]!r}") from error
        if not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
            raise TypeError(f"tokenizer: {self.name} returned {type(tokens).__name__} "
                            f"{str(tokens)[:80]}; allowed: a list of str")
        if stopwords:
            tokens = [t for t in tokens if t not in SMART_STOPWORDS]
        return tokens

    def batch(self, texts, *, stemmer, stopwords):
        return tokenize_string_batch(texts, lambda text: [self._tokens(self.function, text,
                                                                       stopwords)])

    def sentence_batch(self, texts, *, stemmer, stopwords):
        return tokenize_string_batch(texts, lambda text: self.tokens(text, stemmer=stemmer,
                                                                     stopwords=stopwords))

    def tokens(self, text, *, stemmer, stopwords):
        function = self.sentence_function or self.function
        return [self._tokens(function, s, stopwords) for s in text.split("\n") if s]


DEFAULT_TOKENIZER = ByteTokenizer("default", unicode_lower=True)
ROUGE155_TOKENIZER = ByteTokenizer("rouge155", unicode_lower=False)
TOKENIZERS = {
    "default": DEFAULT_TOKENIZER,
    "unicode": StringTokenizer("unicode", unicode_tokenize),
    "whitespace": StringTokenizer("whitespace", whitespace_tokenize),
}


def callable_tokenizer(function: Callable) -> StringTokenizer:
    name = getattr(function, "__name__", type(function).__name__)
    return StringTokenizer(f"callable:{name}", function)


# --------------------------------------------------------------------------------------------
# Profiles


def _perl_round5(x: np.ndarray) -> np.ndarray:
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


def _no_rounding(x: np.ndarray) -> np.ndarray:
    return x


@dataclass(frozen=True)
class Profile:
    """Every decision that differs between two ROUGE implementations."""

    name: str
    tokenizer: Optional[TokenizerProfile]  # fixed tokenizer; None: the user's choice
    stemmer: str  # what use_stemmer turns on for the byte tokenizers
    rouge_l: str  # "lcs": LCS of the whole texts; "union": summary-level union LCS
    clip_from_flat: bool  # union-LCS clipping tables from the joined-text view (ROUGE-1.5.5)
    rounding: Callable = field(compare=False)  # applied to per-example P, R, F
    power: Callable = field(compare=False)  # f(k) = k ** w of ROUGE-W
    sequential_sums: bool  # pool multi-reference counts left to right (Perl's float order)
    multi_ref_default: str
    multi_ref_allowed: tuple
    bootstrap: str  # "poisson": order-free, keeps no rows; "perl": the script's, keeps rows
    seed_label: Callable = field(compare=False)  # seed -> the signature's seed field
    exact_tiebreak_rounding: bool  # -f B rounds N/S recall keys to 5 decimals

    @property
    def keeps_rows(self) -> bool:
        return self.bootstrap == "perl"


ROUGE_SCORE = Profile(
    name="rouge_score", tokenizer=None, stemmer="porter", rouge_l="lcs", clip_from_flat=False,
    rounding=_no_rounding, power=np.power, sequential_sums=False, multi_ref_default="max",
    multi_ref_allowed=("max", "average", "best"), bootstrap="poisson",
    seed_label=lambda seed: f"seed:{seed}", exact_tiebreak_rounding=False)

ROUGE155 = Profile(
    name="rouge155", tokenizer=ROUGE155_TOKENIZER, stemmer="rouge155", rouge_l="union",
    clip_from_flat=True, rounding=_perl_round5, power=_libm_pow, sequential_sums=True,
    multi_ref_default="average", multi_ref_allowed=("average", "best"), bootstrap="perl",
    seed_label=lambda seed: "seed:perl-srand", exact_tiebreak_rounding=True)

PROFILES = {p.name: p for p in (ROUGE_SCORE, ROUGE155)}
