"""Language profiles: the tokenization and stemming of XL-Sum's multilingual ROUGE.

``lang=`` (an ISO 639-1 code or XL-Sum's language name) selects a ``LanguageTokenizer`` whose
tokens are those XL-Sum's ``multilingual_rouge_scoring`` (PyPI ``multilingual-rouge`` 0.0.1)
compares: lowercase; BERT's punctuation rule; a segmenter for Chinese, Japanese, Thai and
Burmese (else OpenNMT's pre-tokenizer); with use_stemmer, its stemmer for tokens longer than
3 characters; empty tokens dropped (rougeLsum's lines skip the segmenter, as XL-Sum's do).

This module holds the punctuation rule and the tokenizer profile; its siblings hold the
language table and the optional packages' import (``languages``), the segmenters, the
stemmers and each token's line for the Space (``lines``); ``data`` is vendored data.
docs/languages.md describes each step.
"""

from __future__ import annotations

import functools
import itertools
import re
import threading
import unicodedata
from dataclasses import dataclass

import numpy as np

from ..rouge155_lexicon import SMART_STOPWORDS
from ...kernels.pool import ForkSafeLock
from ..tokenizers import TokenizerProfile
from ..tokenizers import TokenizedBatch
# The tokenizer's parts, and the names imported from text.lang (re-exported: the options, the
# pipeline, the metric, the Space and the tests import the languages, the stemmers and
# token_lines from here)
from .languages import (
    LANGUAGE_CODES,  # noqa: F401 - re-exported
    LANGUAGES,  # noqa: F401 - re-exported
    Language,
    require_package,
    package_version,
    resolve_language,
    script_hint,  # noqa: F401 - re-exported
    script_of,  # noqa: F401 - re-exported
)
from .segmenters import (
    SEGMENTERS,
    burmese_segment,  # noqa: F401 - re-exported
)
from .stemmers import (
    HINDI_SUFFIXES,  # noqa: F401 - re-exported
    STEMMERS,
    BengaliStemmer,  # noqa: F401 - re-exported
    hindi_stem,  # noqa: F401 - re-exported
    stopword_list,  # noqa: F401 - re-exported
)
from .lines import (
    token_lines,
)


# --------------------------------------------------------------------------------------------
# The punctuation rule (BERT's BasicTokenizer, as multilingual-rouge's sanitizer)

class _CleanTable(dict):
    """A ``str.translate`` table, filled per code point when first seen (bounded by Unicode's
    1,114,112 code points): None drops the character, " " splits there, else it is kept.
    A line end stays a line end (it splits as " " does), so that one cleaning of a text
    serves both its words and its lines (rougeLsum).
    The classes come from this Python's unicodedata, as multilingual-rouge's."""

    def __missing__(self, cp: int):
        ch = chr(cp)
        category = unicodedata.category(ch)
        if ch == "\n":
            value = ch
        elif ch in "\t\r" or ch == " " or category == "Zs":
            value = " "
        elif cp == 0 or cp == 0xFFFD or category[0] == "C":
            value = None
        elif (33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126
              or category[0] == "P"):
            value = " "
        else:
            value = cp
        self[cp] = value
        return value


_CLEAN = _CleanTable()


_ASCII_RUNS = re.compile(r"[a-z]+|[0-9]+")
_ASCII_DIGIT = re.compile(r"[0-9]")


def clean_words(text: str) -> list:
    """The words of a lowercased text under the punctuation rule."""
    return text.translate(_CLEAN).split()


def clean_text(text: str) -> str:
    """A text lowercased and under the punctuation rule, its line ends kept: its words are
    ``.split()``, the words of its k-th line (``text.split("\\n")[k]``) those of the k-th
    ``.split("\\n")``. str.lower maps no character to or from a line end, and a line end is
    neither cased nor case-ignorable (the final-sigma rule does not look across it), so the
    lowercase of a text is that of its lines joined."""
    return text.lower().translate(_CLEAN)


_DELETED = 0xFFFFFFFF  # clean_texts' mark of a code point the table removes
_CLEAN_GROUP_CHARS = 1 << 22  # characters cleaned at once: ~15 bytes each in arrays


def clean_texts(texts: list) -> list:
    """clean_text of each text. A batch with non-ASCII text is mapped in numpy, code point by
    code point through a lookup table of the code points it holds: str.translate looks the
    table up as a dict for every character (0.17 s of 0.65 s for 10,000 Hindi pairs). The
    table maps each code point to one code point or to nothing, so lengths only shrink.
    Texts go in groups of about _CLEAN_GROUP_CHARS characters (a longer text alone), which
    bounds the arrays."""
    out, group, size = [], [], 0
    for text in texts:
        if group and size + len(text) > _CLEAN_GROUP_CHARS:
            out += _clean_group(group)
            group, size = [], 0
        group.append(text)
        size += len(text)
    return out + _clean_group(group) if group else out


def _clean_group(texts: list) -> list:
    lowered = [text.lower() for text in texts]
    joined = "".join(lowered)
    if joined.isascii():  # str.translate caches an ASCII table: fast already
        return [text.translate(_CLEAN) for text in lowered]
    # surrogatepass: a lone surrogate is a code point like any other (category Cs: removed)
    points = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    present = np.zeros(0x110000, dtype=np.bool_)
    present[points] = True
    table = np.zeros(0x110000, dtype=np.uint32)
    for point in np.flatnonzero(present).tolist():
        value = _CLEAN[point]
        table[point] = _DELETED if value is None else \
            (value if isinstance(value, int) else ord(value))
    mapped = table[points]
    kept = mapped != _DELETED
    out = mapped[kept].tobytes().decode("utf-32-le", "surrogatepass")
    # each text's end in out: the kept code points before its end in joined
    ends = np.cumsum(np.fromiter(map(len, lowered), dtype=np.int64, count=len(lowered)))
    kept_before = np.concatenate(([0], np.cumsum(kept, dtype=np.int64)))
    bounds = [0] + kept_before[ends].tolist()
    return [out[start:end] for start, end in zip(bounds, bounds[1:])]


# BERT's CJK ideograph ranges: the pre-tokenizer's output gets a space around each of them
_CJK = re.compile("([\u4e00-\u9fff\u3400-\u4dbf\U00020000-\U0002a6df\U0002a700-\U0002b73f"
                  "\U0002b740-\U0002b81f\U0002b820-\U0002ceaf\uf900-\ufaff"
                  "\U0002f800-\U0002fa1f])")


def _split_cjk(tokens: list) -> list:
    """The pre-tokenizer's tokens with each CJK ideograph a token (XL-Sum's scorer)."""
    joined = " ".join(tokens)
    if _CJK.search(joined) is not None:
        joined = _CJK.sub(r" \1 ", joined)
    return joined.split()


# --------------------------------------------------------------------------------------------
# The tokenizer profile

_STEM_MIN_LENGTH = 3  # multilingual-rouge stems tokens longer than this
# distinct words a memo (stems, pre-tokenizer pieces) holds before it is cleared, and the
# characters of its words: ~200 bytes a short word, and a long word its length, so each memo
# stays within ~50 MB (issue 27: with 1,000,000 words and no character bound, a server's RSS
# grew by 1 GB on three requests of fresh long words, and stayed there)
_MEMO_MAX = 200_000
_MEMO_MAX_CHARS = 8_000_000


@dataclass(frozen=True)
class LanguageBatch(TokenizedBatch):
    """A TokenizedBatch that also counts the texts whose segmenter found no tokens."""

    segmenter_fallbacks: int = 0


class LanguageTokenizer(TokenizerProfile):
    """XL-Sum's tokens of one language (see the module docstring). ``batch`` gives the tokens
    of rouge1/2/L/S/W (segmenter or pre-tokenizer), ``sentence_batch`` the per-line tokens of
    rougeLsum (neither). Thread-safe: one batch at a time (MeCab and nltk's Arabic stemmer
    keep state)."""

    stems = True

    def __init__(self, language: Language):
        self.language = language
        self.name = f"lang:{language.code}"
        self._lock = ForkSafeLock()
        pyonmttok = require_package("pyonmttok", "pyonmttok", language)
        self._pretokenize = pyonmttok.Tokenizer("aggressive").tokenize
        self.pretokenizer_name = f"onmt-aggressive{package_version('pyonmttok')}"
        self._segment, self.segmenter_name = None, None
        if language.segmenter:
            self._segment, self.segmenter_name = SEGMENTERS[language.segmenter](language)
        self._stem, self.stemmer_name = None, None
        if language.stemmer:
            self._stem, self.stemmer_name = STEMMERS[language.stemmer](language)
        self._memo: dict = {}  # word -> stem
        self._pieces: dict = {}  # word -> its pre-tokenizer tokens (None: see _pretokenized)
        self._changed: set = set()  # words of _pieces whose tokens are not the word alone
        self._memo_chars = 0  # characters of _memo's words and stems (_MEMO_MAX_CHARS)
        self._pieces_chars = 0  # and of _pieces' words and pieces
        # per thread (the Scorer tokenizes chunks on threads), the last batch's texts ->
        # their clean_text, for the same thread's sentence_batch
        self._cleaned = threading.local()

    def signature(self) -> str:
        parts = [self.segmenter_name, self.pretokenizer_name] if self.segmenter_name else \
            [self.pretokenizer_name]
        return f"xlsum-{self.language.code}({'+'.join(parts)})"

    # -- one text ---------------------------------------------------------------------------

    def _form(self, word: str, stem: bool, stopwords: bool) -> str | None:
        """What a token becomes: dropped (None) if a SMART stopword (remove_stopwords) or if
        its stem is empty; stemmed if longer than 3 characters."""
        if stopwords and word in SMART_STOPWORDS:
            return None
        if stem and self._stem is not None and len(word) > _STEM_MIN_LENGTH:
            memo = self._memo
            form = memo.get(word)
            if form is None:
                self._memo_chars += 2 * len(word)  # the word and its stem, roughly
                if len(memo) >= _MEMO_MAX or self._memo_chars > _MEMO_MAX_CHARS:
                    memo.clear()
                    self._memo_chars = 2 * len(word)
                form = memo[word] = self._stem(word)
            word = form
        return word or None

    def _flat(self, cleaned: str) -> tuple:
        """(tokens before stemming, whether the segmenter fell back) of a whole text, from its
        clean_text: the tokens batch gives it (tokens' and the tests' one path to them)."""
        tokens, fell_back = self._words(cleaned)
        if fell_back is None:
            return self._pretokenized(tokens), False
        return tokens, fell_back

    def _words(self, cleaned: str) -> tuple:
        """_flat of a text's clean_text, but without a segmenter a non-ASCII text's words
        come before pre-tokenization, with None for fell_back (batch pre-tokenizes them
        together: _pretokenized_lists)."""
        if self._segment is None and cleaned.isascii():
            # only a-z, 0-9 and spaces are left: OpenNMT's aggressive mode splits letters
            # from digits (tests/test_lang.py checks this against pyonmttok)
            if _ASCII_DIGIT.search(cleaned) is None:
                return cleaned.split(), False
            return _ASCII_RUNS.findall(cleaned), False
        words = cleaned.split()
        if self._segment is None:
            return words, None  # None: to pre-tokenize
        clean = " ".join(words)
        tokens = self._segment(clean) if clean else []
        if tokens or not clean:
            return tokens, False
        return self._pretokenized(words), True

    def _pretokenized_lists(self, word_lists: list) -> list:
        """_pretokenized of each list of words, the batch's new words pre-tokenized once. A
        word whose tokens are not itself alone is in ``_changed`` (kept across batches; a
        stale entry only sends a text to the slower path): a text with none of them is its
        own tokens."""
        memo, changed = self._pieces, self._changed
        distinct = set(itertools.chain.from_iterable(word_lists))
        new = distinct.difference(memo)
        if new:
            if self._pieces_full(new):
                new = distinct
            for word in new:
                self._learn(word)
        return [words if changed.isdisjoint(words) else self._joined_pieces(words)
                for words in word_lists]

    def _pretokenized(self, words: list) -> list:
        """The pre-tokenizer's tokens of a text's words (joined by spaces), a CJK ideograph a
        token. OpenNMT's tokens of a word do not depend on the other words, but for a word
        that starts with a combining mark (the mark then joins the space before it): each
        distinct word is pre-tokenized once (memo), a text with such a word as a whole."""
        memo = self._pieces
        new = set(words).difference(memo)  # O(len(words)): set.difference looks up a dict
        if new:
            if self._pieces_full(new):
                new = set(words)
            for word in new:
                self._learn(word)
        return self._joined_pieces(words)

    def _pieces_full(self, new: set) -> bool:
        """Empty _pieces (True) if the new words would pass _MEMO_MAX or _MEMO_MAX_CHARS."""
        chars = 2 * sum(map(len, new))  # the words and their pieces, roughly
        if len(self._pieces) + len(new) > _MEMO_MAX or \
                self._pieces_chars + chars > _MEMO_MAX_CHARS:
            self._pieces.clear()
            self._changed.clear()  # of the words just forgotten: each is learnt again
            self._pieces_chars = 0
            return True
        return False

    def _joined_pieces(self, words: list) -> list:
        """_pretokenized of words that are all in the memo (no look for new ones: in
        Persian text half the texts hold a word that pyonmttok splits, and come here)."""
        pieces = list(map(self._pieces.__getitem__, words))
        if None in pieces:
            return self._pretokenize_text(" ".join(words))
        return list(itertools.chain.from_iterable(pieces))

    def _learn(self, word: str) -> None:
        """Memoize a word's pre-tokenizer tokens; note it in _changed unless they are it."""
        pieces = self._pieces[word] = self._word_pieces(word)
        self._pieces_chars += 2 * len(word)
        if pieces is None or len(pieces) != 1 or pieces[0] != word:
            self._changed.add(word)

    def _word_pieces(self, word: str) -> tuple | None:
        """The pre-tokenizer's tokens of one word; None if they depend on the space before."""
        if word.isascii():  # only a-z and 0-9: as in _words
            return (word,) if _ASCII_DIGIT.search(word) is None else \
                tuple(_ASCII_RUNS.findall(word))
        tokens = self._pretokenize(word)[0]
        # a word that starts with a letter or a digit does not join the space before (checked
        # for every such code point of this Unicode with pyonmttok 1.38.1): one call, not two
        if not word[0].isalnum() and self._pretokenize("x " + word)[0] != ["x", *tokens]:
            return None
        return tuple(_split_cjk(tokens))

    def _pretokenize_text(self, clean: str) -> list:
        return _split_cjk(self._pretokenize(clean)[0])

    def _lines(self, text: str, cleaned: str | None = None) -> list:
        """rougeLsum's tokens before stemming: each non-empty line, with neither segmenter nor
        pre-tokenizer (multilingual-rouge's quirk). ``cleaned``: the text's clean_text."""
        if cleaned is None:
            cleaned = clean_text(text)
        if "\n" not in text:
            return [cleaned.split()] if text else []
        return [clean.split() for line, clean in zip(text.split("\n"), cleaned.split("\n"))
                if line]

    # -- TokenizerProfile --------------------------------------------------------------------

    def _interned(self, token_lists: list, stem: bool, stopwords: bool) -> tuple:
        """(token ids, tokens per list) after stopwords and stemming, each distinct word
        finished once per batch."""
        words = list(itertools.chain.from_iterable(token_lists))
        forms = dict.fromkeys(words)
        ids: dict = {}
        for word in forms:
            form = self._form(word, stem, stopwords)
            forms[word] = -1 if form is None else ids.setdefault(form, len(ids))
        array = np.fromiter(map(forms.__getitem__, words), dtype=np.int64, count=len(words))
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        kept = array >= 0
        if not kept.all():
            owner = np.repeat(np.arange(len(token_lists)), lengths)
            lengths = np.bincount(owner[~kept], minlength=len(token_lists))
            lengths = np.fromiter(map(len, token_lists), dtype=np.int64,
                                  count=len(token_lists)) - lengths
            array = array[kept]
        return array, lengths

    def batch(self, texts, *, stemmer, stopwords):
        with self._lock:
            # each text cleaned once: sentence_batch (rougeLsum) reuses the last batch's
            distinct = list(dict.fromkeys(texts))
            cleaned = self._cleaned.texts = dict(zip(distinct, clean_texts(distinct)))
            flat = [self._words(cleaned[text]) for text in texts]
            token_lists = [t for t, _ in flat]
            if self._segment is None:
                indices = [k for k, (_, todo) in enumerate(flat) if todo is None]
                done = self._pretokenized_lists([token_lists[k] for k in indices])
                for k, tokens in zip(indices, done):
                    token_lists[k] = tokens
            tokens, lengths = self._interned(token_lists, bool(stemmer), stopwords)
        fallbacks = sum(1 for _, fell_back in flat if fell_back)
        sent_offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        return LanguageBatch(tokens, sent_offsets, np.arange(len(texts) + 1, dtype=np.int64),
                             fallbacks)

    def sentence_batch(self, texts, *, stemmer, stopwords):
        with self._lock:
            known = getattr(self._cleaned, "texts", {})
            self._cleaned.texts = {}
            per_text = [self._lines(text, known.get(text)) for text in texts]
            lines = [line for text_lines in per_text for line in text_lines]
            tokens, lengths = self._interned(lines, bool(stemmer), stopwords)
        sent_offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        counts = np.fromiter(map(len, per_text), dtype=np.int64, count=len(per_text))
        text_sent_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        return LanguageBatch(tokens, sent_offsets, text_sent_offsets, 0)

    def tokens(self, text, *, stemmer, stopwords):
        """The tokens rouge1/2/L compare, split into the text's lines (``text.split("\\n")``,
        for the Space's highlights): flattened, exactly ``batch``'s, which segments the whole
        text at once (its line ends as spaces): jieba and newmm give a token of that space,
        and MeCab's segmentation may look across it, so segmenting line by line would give
        other tokens. A token goes to the line of its first character that is not a space
        (the pre-tokenizer keeps a space before a combining mark in the token of the mark), a
        space token between two words to the line of the word before it (token_lines)."""
        with self._lock:
            cleaned = clean_text(text)  # its line ends are text's: clean_text keeps them
            flat, fell_back = self._flat(cleaned)
            numbers = token_lines(flat, cleaned,
                                  self.language.segmenter == "burmese" and not fell_back)
            out = [[] for _ in range(cleaned.count("\n") + 1)]
            for token, number in zip(flat, numbers):
                form = self._form(token, bool(stemmer), stopwords)
                if form:
                    out[number].append(form)
            return out


@functools.cache
def segmenter(language: Language) -> tuple:
    """A language's segmenter alone, (function, name): the profiles whose scripts cut Chinese
    with jieba before their own tokenizer (profiles: languages)."""
    return SEGMENTERS[language.segmenter](language)


@functools.cache
def _language_tokenizer(language: Language) -> LanguageTokenizer:
    return LanguageTokenizer(language)


def language_tokenizer(lang) -> LanguageTokenizer:
    """The process's tokenizer of a language (loaded once: jieba's dictionary, MeCab)."""
    return _language_tokenizer(resolve_language(lang))


def stemmer_signature(tokenizer: LanguageTokenizer) -> str:
    """The signature's stem field for use_stemmer=True."""
    if tokenizer.stemmer_name is None:
        return f"none(no-stemmer:{tokenizer.language.code})"
    return tokenizer.stemmer_name


def no_stemmer_warning(tokenizer: LanguageTokenizer) -> str:
    language = tokenizer.language
    return (f"lang={language.code!r} ({language.name}) has no stemmer: use_stemmer=True stems "
            "nothing, as in multilingual-rouge (which warns 'unknown stemmer language').")


def fallback_warning(count: int, tokenizer: LanguageTokenizer) -> str:
    return (f"lang={tokenizer.language.code!r}: the segmenter ({tokenizer.segmenter_name}) "
            f"found no tokens in {count} text(s); they were tokenized with the default "
            "pre-tokenizer, as multilingual-rouge does ('No tokens found using inferred "
            "tokenizer, switching to default tokenizer').")
