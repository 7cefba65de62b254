"""The tokenizers of the profiles that reproduce other packages' own text handling, which
profiles names: coco-caption's (pycocoevalcap: the text split on single spaces, as it is),
pltrdy's rouge 1.0.1 and rouge-chinese 1.0.3's (their sentence splitters, then
whitespace-separated words), string tokenizers (text.tokenizers.StringTokenizer); and
torchmetrics 1.9.0's, a byte tokenizer (rouge_score's tokens; rougeLsum's sentences are nltk's
English Punkt's, text.punkt)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .rouge155_lexicon import SMART_STOPWORDS
from ..kernels import twins_sets
from ..kernels.backend import kernel, mode
from . import punkt
from .tokenizers import (
    ByteTokenizer,
    StringTokenizer,
    TokenizedBatch,
    tokenize_string_batch,
)


def coco_split(text: str) -> list[str]:
    """coco-caption's ROUGE-L tokens: the text split on single spaces, as it is (its PTB
    tokenizer lowercases and splits punctuation before); "" and "a  b" give empty tokens."""
    return text.split(" ")


@dataclass(frozen=True)
class WholeTextTokenizer(StringTokenizer):
    """A string tokenizer without sentences: the whole text is one, newlines and all (as
    coco-caption, whose tokens may hold a newline, and where "" is one empty token)."""

    has_sentences = False

    def sentence_batch(self, texts, *, stemmer, stopwords):
        return None  # the flat view serves rougeLsum too

    def tokens(self, text, *, stemmer, stopwords):
        return [self._tokens(self.function, text, stopwords)]


def pltrdy_sentences(text: str) -> list[str]:
    """pltrdy's rouge 1.0.1 (Rouge._get_scores): its sentences are the text split on ".",
    the dots dropped ("3.5" is two words)."""
    return text.split(".")


# rouge-chinese 1.0.3's Rouge.cut_sent: a line break after 。！？ or ? (unless a closing quote
# follows), after six dots, after two ellipses, and after a closing quote that follows 。！？ or ?
# (unless more punctuation follows); then trailing whitespace is dropped and the lines are its
# sentences (line breaks already in the text end sentences too)
_AFTER_END = re.compile(r"([。！？\?])([^”’])")
_AFTER_DOTS = re.compile(r"(\.{6})([^”’])")
_AFTER_ELLIPSES = re.compile(r"(\…{2})([^”’])")
_AFTER_QUOTE = re.compile(r"([。！？\?][”’])([^，。！？\?])")


def _break_between(match: re.Match) -> str:
    """r"\1\n\2", each rule's replacement (a function: the template is expanded in Python
    per match, 2.6x slower)."""
    return match[1] + "\n" + match[2]


def rouge_chinese_sentences(text: str) -> list[str]:
    """rouge-chinese 1.0.3's sentences (Rouge.cut_sent): its four rules in its order, each
    skipped where the text lacks what it needs (the rules only insert line breaks, so what a
    rule needs is there before the others ran or not at all; the regex passes were most of
    the tokenizer's time)."""
    ends = "。" in text or "！" in text or "？" in text or "?" in text
    if ends:
        text = _AFTER_END.sub(_break_between, text)
    if "......" in text:
        text = _AFTER_DOTS.sub(_break_between, text)
    if "……" in text:
        text = _AFTER_ELLIPSES.sub(_break_between, text)
    if ends and ("”" in text or "’" in text):
        text = _AFTER_QUOTE.sub(_break_between, text)
    return text.rstrip().split("\n")


SENTENCE_RULES = (pltrdy_sentences, rouge_chinese_sentences)  # scan_words' rule 0 and 1


def sentence_words(sentences: Callable[[str], list], text: str) -> list:
    """The words of each non-empty sentence of the text, as those packages read them:
    ``" ".join(s.split()).split(" ")``, so a sentence of spaces alone is one empty word."""
    return [s.split() or [""] for s in sentences(text) if s]


def words_batch(points: np.ndarray, text_ends: np.ndarray, rule: int) -> tuple:
    """kernels.registry.scan_words by the tokenizers' own Python (its numpy twin, found in
    kernels.twins): the texts decoded, cut by SENTENCE_RULES[rule] and interned."""
    text = points.tobytes().decode("utf-32-le")
    bounds = [0, *text_ends.tolist()]
    batch = tokenize_string_batch([text[a:b] for a, b in zip(bounds, bounds[1:])],
                                  lambda t: sentence_words(SENTENCE_RULES[rule], t))
    return batch.tokens, batch.sent_offsets, batch.text_sent_offsets


twins_sets.SCAN_WORDS_TWIN[:] = [words_batch]


@dataclass(frozen=True)
class SentenceTokenizer(StringTokenizer):
    """pltrdy's rouge and rouge-chinese: ``function`` (one of SENTENCE_RULES) cuts a text
    into sentences, and each non-empty one is ``" ".join(sentence.split()).split(" ")``, so a
    sentence of spaces alone is one empty token, as in those packages. ROUGE-N and their
    ROUGE-L read the words of all sentences in a row; pltrdy's union LCS reads the sentences.
    A text with no sentence ("", or dots alone for pltrdy) has no tokens: those packages raise
    "Hypothesis is empty." on it; here it scores 0 (what LLaMA-Factory's guard and
    LongBench's except: both print). ``segmenter``: a function cutting the text into words
    first (jieba for lang="zh", whose words are joined with spaces, as those scripts do).

    A batch is scanned by kernels.registry.scan_words, compiled: cutting and interning in
    Python were two thirds of a call on short texts."""

    segmenter: Callable | None = field(default=None, compare=False)
    own_sentences = True
    empty_raises = True  # those packages raise on a text without words (scorer.notes says so)

    def tokens(self, text, *, stemmer, stopwords):
        if self.segmenter is not None:
            text = " ".join(self.segmenter(text))
        sentences = sentence_words(self.function, text)
        if stopwords:
            sentences = [[t for t in s if t not in SMART_STOPWORDS] for s in sentences]
        return sentences

    def batch(self, texts, *, stemmer, stopwords):
        """The sentence view (the sentences are the profile's own, not the lines)."""
        if stopwords:  # (the scanner keeps every word)
            return StringTokenizer.sentence_batch(self, texts, stemmer=stemmer,
                                                  stopwords=stopwords)
        if self.segmenter is not None:
            texts = [" ".join(self.segmenter(t)) for t in texts]
        # one buffer of code points (UTF-32 in C), then one compiled pass over it
        points = np.frombuffer("".join(texts).encode("utf-32-le"), dtype="<u4")
        ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)))
        return TokenizedBatch(*kernel("scan_words", mode())(
            points, ends, SENTENCE_RULES.index(self.function)))

    def sentence_batch(self, texts, *, stemmer, stopwords):
        return None  # batch() has the sentences


# Punkt's lines of texts already split: {text: lines}, at most _PUNKT_MEMO_CHARS characters of
# texts in all (then emptied). Punkt is Python, ~60 us a text; the same texts come back when
# a reference is scored again (each evaluation of a training run, explain's stemmed and
# unstemmed rows). A dict's get and set are atomic: threads share it without a lock.
_PUNKT_MEMO: dict = {}
_PUNKT_MEMO_CHARS = 1 << 22
_punkt_memo_size = [0]


def forget_punkt_lines() -> None:
    """Empty the memo of Punkt's lines (benchmarks/explain_speed.py times explain() on texts
    it has not split before)."""
    _PUNKT_MEMO.clear()
    _punkt_memo_size[0] = 0


def punkt_lines(text: str) -> str:
    """The text with a line per sentence of nltk's English Punkt (nltk.sent_tokenize, as
    torchmetrics cuts rougeLsum's sentences), the line breaks inside a sentence made spaces
    (to the tokens a line break is a space too)."""
    lines = _PUNKT_MEMO.get(text)
    if lines is None:
        lines = "\n".join(s.replace("\n", " ") for s in punkt.sent_tokenize(text))
        if _punkt_memo_size[0] + len(text) > _PUNKT_MEMO_CHARS:
            _PUNKT_MEMO.clear()
            _punkt_memo_size[0] = 0
        if len(text) <= _PUNKT_MEMO_CHARS // 64:  # (a long document is not kept)
            _PUNKT_MEMO[text] = lines
            _punkt_memo_size[0] += len(text)
    return lines


@dataclass(frozen=True)
class PunktTokenizer(ByteTokenizer):
    """torchmetrics 1.9.0's ROUGE tokens: rouge_score's (lowercase, runs of [a-z0-9], Porter
    stems of tokens longer than 3 characters, as the default tokenizer: its regex
    normalizer and whitespace split find the same tokens); rougeLsum's sentences are nltk's
    English Punkt's (nltk.sent_tokenize), each tokenized alone, not the lines of the text.
    Punkt breaks only right after ".", "?", "!" or closing punctuation, so no token spans two
    sentences, and the sentences' tokens in a row are the text's: ROUGE-N and L read the
    plain scan (no Punkt), rougeLsum the scan of punkt_lines."""

    own_sentences = True  # sentences by Punkt, not the lines of the text
    keeps_n_tags = True  # torchmetrics' re.sub("<n>", "", x) discards its result

    def sentence_batch(self, texts, *, stemmer, stopwords):
        try:
            punkt.require_model()
        except ImportError as error:  # say what needs it: rouge1, rouge2 and rougeL do not
            raise ImportError(f"rougeLsum with profile {self.name} cuts sentences as "
                              f"torchmetrics does, with nltk's English Punkt: {error}") from None
        return ByteTokenizer.batch(self, [punkt_lines(t) for t in texts], stemmer=stemmer,
                                   stopwords=stopwords)

    def tokens(self, text, *, stemmer, stopwords):
        return ByteTokenizer.tokens(self, punkt_lines(text), stemmer=stemmer,
                                    stopwords=stopwords)


COCO_TOKENIZER = WholeTextTokenizer("coco", coco_split)
PLTRDY_TOKENIZER = SentenceTokenizer("pltrdy", pltrdy_sentences)
ROUGE_CHINESE_TOKENIZER = SentenceTokenizer("rouge_chinese", rouge_chinese_sentences)
TORCHMETRICS_TOKENIZER = PunktTokenizer("torchmetrics", unicode_lower=True)
