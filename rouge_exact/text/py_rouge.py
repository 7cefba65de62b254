"""py-rouge 1.1's text handling (PyPI ``py-rouge``, module ``rouge``: Rouge with
ensure_compatibility=True, its default): its length limits, its tokenizer and its stemmer,
as a TokenizerProfile (the py_rouge profile's).

py-rouge's sentences are the lines (empty ones included). A length limit (on by default: 665
"bytes", which are characters) cuts the text before anything else (``truncate_chars``,
``truncate_words``); each line is lowercased and every character but [A-Za-z0-9] becomes a
space; nltk's word tokenizer then splits only gimme, gonna, gotta, lemme and wanna; tokens
longer than 3 characters are stemmed (WordNet 2.0's exceptions, 138 special cases of its own,
else nltk's Porter in ORIGINAL_ALGORITHM mode). The steps in py-rouge's order are below.
"""

# py-rouge reads a text as follows (Rouge._preprocess_summary_per_sentence for ROUGE-L/W,
# _preprocess_summary_as_a_whole for ROUGE-N, which joins the lines with a space; both give
# the same tokens in the same order):
#
# 1. its sentences are the lines, text.split("\n"), empty ones included;
# 2. the length limit cuts the text before anything else;
# 3. each line is lowercased (str.lower) and every character but [A-Za-z0-9] becomes a space;
# 4. "cannot" becomes "_cannot_" (so that nltk keeps it one word, as ROUGE-1.5.5 does) and the
#    line goes through nltk.word_tokenize. On such a line (letters, digits, "_" and spaces: no
#    sentence end, no punctuation) punkt finds one sentence and nltk's word tokenizer changes
#    nothing but its contractions: the words gimme, gonna, gotta, lemme and wanna are each
#    split in two; every other token is a whitespace-separated word;
# 5. stemming (stemming=True by default) of the tokens longer than 3 characters: WordNet 2.0's
#    exceptions (the same table as ROUGE-1.5.5's), then 138 special cases of its own, else
#    nltk's Porter stemmer in its ORIGINAL_ALGORITHM mode;
# 6. "_cannot_" becomes "cannot" again.
#
# Steps 4-6 act on one whitespace-separated word at a time, so a word's tokens are worked out
# once (word_tokens) and looked up after.

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .rouge155_lexicon import SMART_STOPWORDS, WORDNET_EXCEPTIONS
from .tokenizers import (
    TokenizedBatch,
    TokenizerProfile,
    decode_token,
    encode_token,
    scanned_words,
    stem_memo,
)

__all__ = [
    "DEFAULT_LENGTH_LIMIT",
    "PY_ROUGE_TOKENIZER",
    "PyRougeTokenizer",
    "SPECIAL_CASES",
    "line_tokens",
    "stem_py_rouge",
    "truncate_chars",
    "truncate_words",
    "word_tokens",
]

DEFAULT_LENGTH_LIMIT = 665  # py-rouge's Rouge(length_limit=665, length_limit_type="bytes")

# py-rouge 1.1's rouge/wordnet_key_value_special_cases.txt (Apache-2.0, Diego Antognini):
# the words whose nltk Porter stem differed from ROUGE-1.5.5's on DUC 2004, each with the stem
# it is given instead (136 of them are ROUGE-1.5.5's stem; "revolutionarize" and
# "revolutionarized" get "revolutionari", neither ROUGE-1.5.5's nor nltk's). Its keys and
# WordNet's are disjoint (py-rouge asserts it), so the order of the two look-ups is moot.
_SPECIAL_CASES_TEXT = """
accidentally accid agreement agreem agreements agreem anthropology anthropolog apologize apolog
apologizing apolog apology apolog apologies apolog arguments argum argument argum
assembling assembl assembly assembl bubbly bubbl cannot cannot cardiology cardiolog
congressional congress coincidentally coincid commission commiss commissioner commiss
commissioners commiss compassionate compass components compon component compon
componentized compon continent contin continental contin detrimental detrim dimensional dimens
dimensions dimens disproportionate disproport division divis divisions divis divisional divis
document docum documented docum documenting docum documentation docum documents docum
documentary documentari element elem elements elem environment environ environmental environ
experiments experi experiment experi experimentation experi fundamentalism fundam
fundamental fundam governmental govern ideology ideolog ideologies ideolog ideological ideolog
immiment immim implement implem implementers implem implementation implem implemented implem
implementing implem impression impress impressionable impress impossible imposs
impossibly imposs incredible incred incredibly incred intention intent intentions intent
intentionally intent intergovernmental intergovern internal intern international intern
internationally internat internationalize internat internatioal internatio instrument instrum
instruments instrum instrumental instrum judgement judgem monumental monum monument monum
movements movem movement movem mythology mytholog neurobiology neurobiolog occasion occas
occasions occas occasional occas occasionally occas ostensibly ostens parliament parliam
pharmacology pharmacolog physiology physiolog placement placem possibility possibl
possibly possibl profession profess professional profess professionals profess
psychology psycholog represents repres represent repres represented repres representing repres
representation repres representative repres representatives repres responsibility respons
responsibly respons revolution revolut revolutionize revolut revolutionized revolut
revolutionaries revolutionari revolutionary revolutionari revolutionarize revolutionari
revolutionarized revolutionari sentiments sentim sentiment sentim sentimental sentim
settlements settlem settlement settlem statement statem statements statem supplements supplem
supplement supplem technological technolog technology technolog technologies technolog
terribly terribl testament testam toxicology toxicolog traditionally tradit
transnationalism transnat tournament tournam unconstitutionally unconstitut
unintentionally unintent unrepentant unrep vacationers vacat vacation vacat visibly visibl
"""
_SPECIAL_WORDS = _SPECIAL_CASES_TEXT.split()
SPECIAL_CASES: dict[str, str] = dict(zip(_SPECIAL_WORDS[::2], _SPECIAL_WORDS[1::2]))

# nltk's contractions that survive step 3 (MacIntyreContractions.CONTRACTIONS2, matched
# between word boundaries; wanna before whitespace, which word_tokenize's padding always
# gives it): each splits one whole word in two. ("cannot" is one of them too, but py-rouge
# hides it as "_cannot_", where no word boundary precedes "can".)
_CONTRACTIONS = {"gimme": ("gim", "me"), "gonna": ("gon", "na"), "gotta": ("got", "ta"),
                 "lemme": ("lem", "me"), "wanna": ("wan", "na")}
_NOT_WORD = re.compile(r"[^A-Za-z0-9\n]")  # step 3, the line breaks kept: one pass per text
# step 3 on ASCII text (where str.lower only lowers A-Z) as one bytes.translate: 7x faster
_ASCII_STEP3 = bytes(c + 32 if 65 <= c <= 90 else c if 48 <= c <= 57 or 97 <= c <= 122 or c == 10
                     else 32 for c in range(256))


def _step3(text: str) -> str:
    """The text lowercased, every character but [a-z0-9] and line breaks a space."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_STEP3).decode("ascii")
    return _NOT_WORD.sub(" ", text.lower())


def _porter_original() -> Callable[[str], str]:
    """nltk's Porter stemmer in py-rouge's mode (imported at the first word it stems: nltk
    takes 0.2 s to import)."""
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer("ORIGINAL_ALGORITHM").stem


_PORTER: list = []


def stem_py_rouge(token: str) -> str:
    """py-rouge's Rouge.stem_tokens on one token: tokens of at most 3 characters as they are;
    else WordNet 2.0's exception, py-rouge's special case, or nltk's original Porter stem."""
    if len(token) <= 3:
        return token
    found = WORDNET_EXCEPTIONS.get(token) or SPECIAL_CASES.get(token)
    if found is not None:
        return found
    if not _PORTER:
        _PORTER.append(_porter_original())
    return _PORTER[0](token)


def word_tokens(word: str, stem: bool, stopwords: bool = False,
                stemmer: Callable[[str], str] = stem_py_rouge) -> tuple:
    """The tokens of one word of step 3 (a run of [a-z0-9]) after steps 4-6, stemmed (stem)
    by py-rouge's stemmer, or another (stemmer). stopwords (not py-rouge's: this package's
    remove_stopwords): drop the tokens in ROUGE-1.5.5's SMART list before stemming, as
    ROUGE-1.5.5 does."""
    pieces = _CONTRACTIONS.get(word) or (word.replace("cannot", "_cannot_"),)
    out = []
    for piece in pieces:
        if stopwords and piece.replace("_cannot_", "cannot") in SMART_STOPWORDS:
            continue
        if stem:
            piece = stemmer(piece)
        out.append(piece.replace("_cannot_", "cannot"))
    return tuple(out)


class _WordMemo(dict):
    """word -> word_tokens(word, ...) for one stemmer (a function, or None) and setting of
    stopwords (a dict whose misses work the tokens out: a line's look-ups are one map() in
    C), emptied when it holds max_words words or max_chars characters (a bound on its
    memory: a stream of fresh words, e.g. numbers, cannot grow it without end)."""

    def __init__(self, stem: Callable[[str], str] | None, stopwords: bool,
                 max_words: int = 200_000, max_chars: int = 8_000_000):
        super().__init__()
        self.stem, self.stopwords = stem, stopwords
        self.max_words, self.max_chars = max_words, max_chars
        self._chars = 0

    def _tokens_of(self, word: str) -> tuple:
        """word_tokens(word) with this memo's stemmer and stopwords, room made first."""
        if len(self) >= self.max_words or self._chars > self.max_chars:
            self.clear()
            self._chars = 0
        self._chars += 2 * len(word)  # the word and its tokens, roughly
        return word_tokens(word, self.stem is not None, self.stopwords,
                           self.stem or stem_py_rouge)

    def __missing__(self, word: str) -> tuple:
        out = self[word] = self._tokens_of(word)
        return out


class _TokenMemo(_WordMemo):
    """The same for the words of the scan, keyed as tokenizers.scanned_words gives them (a
    word's packed code, or the word when it does not pack), each -> the packed code of its
    one token, the common case, else a tuple of packed codes and of the tokens that do not
    pack (none for a stopword, two for gimme)."""

    def __missing__(self, key) -> int | tuple:
        if key == 0:  # scanned_words' stand-in for the long words (no token has it)
            return 0
        word = decode_token(key) if isinstance(key, int) else key
        tokens = tuple(encode_token(t) or t for t in self._tokens_of(word))
        out = self[key] = tokens[0] if len(tokens) == 1 and isinstance(tokens[0], int) \
            else tokens
        return out


_MEMOS: dict = {}
_TOKEN_MEMOS: dict = {}
_OTHER_STEMMERS = ("porter", "rouge155")


def _stem_function(stemmer: str | None) -> Callable[[str], str] | None:
    """The stemmer of a name: py-rouge's, or another profile's ('porter', 'rouge155': a
    convention between two, as rouge_exact.explain walks from one to the other), applied as
    py-rouge applies its own (to tokens longer than 3 characters)."""
    if stemmer is None or stemmer == "py_rouge":
        return stemmer and stem_py_rouge
    if stemmer not in _OTHER_STEMMERS:
        raise ValueError(f"stemmer: got {stemmer!r}; allowed: None, 'py_rouge' or another "
                         f"profile's: {', '.join(map(repr, _OTHER_STEMMERS))}")
    stem = stem_memo(stemmer).stem
    return lambda token: stem(token) if len(token) > 3 else token


def _memo(stemmer: str | None, stopwords: bool) -> _WordMemo:
    key = (stemmer, bool(stopwords))
    if key not in _MEMOS:
        _MEMOS[key] = _WordMemo(_stem_function(stemmer), bool(stopwords))
    return _MEMOS[key]


def _token_memo(stemmer: str | None, stopwords: bool) -> _TokenMemo:
    key = (stemmer, bool(stopwords))
    if key not in _TOKEN_MEMOS:
        _TOKEN_MEMOS[key] = _TokenMemo(_stem_function(stemmer), bool(stopwords))
    return _TOKEN_MEMOS[key]


def line_tokens(text: str, memo: _WordMemo) -> list:
    """The tokens of each line of the text (all lines, empty ones too), as py-rouge's
    _preprocess_summary_per_sentence gives them (without its length limit: see
    truncate_chars and truncate_words)."""
    tokens_of, joined = memo.__getitem__, itertools.chain.from_iterable
    return [list(joined(map(tokens_of, line.split())))
            for line in _step3(text).split("\n")]


# --------------------------------------------------------------------------------------------
# Length limits: py-rouge cuts each text before tokenizing it, line by line. Both return the
# lines kept, joined with "\n", so that tokenizing the result gives py-rouge's tokens.


def _check_limit(limit) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"limit: got {limit!r}; allowed: an integer >= 1 (py-rouge's "
                         "length_limit=0 means no limit: do not cut)")


def truncate_chars(text: str, limit: int) -> str:
    """py-rouge's length_limit_type="bytes", which counts characters (len of the str), not
    bytes: each line stripped of whitespace at both ends (str.strip) and counted without
    separators; a line is kept while the count stays below the limit, and the first that
    does not fit is cut to what is left of it (maybe mid-word), and is the last."""
    return _truncate(text, limit, str.strip, str)


def truncate_words(text: str, limit: int) -> str:
    """py-rouge's length_limit_type="words": words are str.split()'s chunks of the raw line
    (punctuation counts: "a - b" is three); lines are kept while the count stays below the
    limit, and the first that does not fit keeps its first words up to the limit."""
    return _truncate(text, limit, str.split, " ".join)


def _truncate(text: str, limit: int, units, joined) -> str:
    """py-rouge's cut of both kinds: a line's units (its characters, stripped, or its words)
    are counted while the count stays below the limit; the first line that does not fit keeps
    what is left of the limit, and is the last."""
    _check_limit(limit)
    kept = []
    used = 0
    for line in text.split("\n"):
        parts = units(line)
        if used + len(parts) < limit:
            kept.append(joined(parts))
            used += len(parts)
            continue
        kept.append(joined(parts[:limit - used]))
        break
    return "\n".join(kept)


# --------------------------------------------------------------------------------------------
# The tokenizer profile


@dataclass(frozen=True)
class PyRougeTokenizer(TokenizerProfile):
    """py-rouge's tokens (steps 3-6 of the module's docstring), a sentence per line of the
    text, empty lines too (the length limit is applied before: truncate_chars,
    truncate_words). ROUGE-N reads the tokens of all lines in a row, ROUGE-L and W line by
    line. stemmer: None, "py_rouge" (py-rouge's stemming=True), or another profile's
    ("porter", "rouge155")."""

    name: str = "py_rouge"
    stems: bool = True
    line_sentences = True  # batch() has a sentence per "\n"-separated line (a class attribute)

    def batch(self, texts: Sequence[str], *, stemmer, stopwords) -> TokenizedBatch:
        # Step 3's words are rouge_score's scan's (runs of [a-z0-9] after str.lower, a
        # sentence per line): one compiled scan, then steps 4-6 once per distinct word.
        keys, inverse, sent_ends, text_ends = scanned_words(texts)
        values = list(map(_token_memo(stemmer, stopwords).__getitem__, keys))
        single = np.fromiter((v if isinstance(v, int) else -1 for v in values),
                             dtype=np.int64, count=len(values))
        if (single >= 0).all():  # every word one token that packs: its code is its id
            tokens = single[inverse]
        else:  # stopwords dropped, gimme split, stems that do not pack (batch-local ids)
            long_ids: dict = {}
            pieces = [(v,) if isinstance(v, int) else tuple(
                t if isinstance(t, int) else long_ids.setdefault(t, -1 - len(long_ids))
                for t in v) for v in values]
            counts = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
            flat = np.fromiter(itertools.chain.from_iterable(pieces), dtype=np.int64,
                               count=int(counts.sum()))
            first = np.cumsum(counts) - counts  # each word's first token in flat
            per_token = counts[inverse]
            ends = np.cumsum(per_token)
            tokens = flat[np.repeat(first[inverse] - (ends - per_token), per_token)
                          + np.arange(int(ends[-1]) if len(ends) else 0)]
            sent_ends = np.concatenate(([0], ends))[sent_ends]
        sent_offsets = np.zeros(len(sent_ends) + 1, dtype=np.int64)
        sent_offsets[1:] = sent_ends
        text_sent_offsets = np.zeros(len(text_ends) + 1, dtype=np.int64)
        text_sent_offsets[1:] = text_ends
        return TokenizedBatch(tokens, sent_offsets, text_sent_offsets)

    def sentence_batch(self, texts, *, stemmer, stopwords):
        return None  # batch() has the sentences

    def tokens(self, text, *, stemmer, stopwords):
        return line_tokens(text, _memo(stemmer, stopwords))


PY_ROUGE_TOKENIZER = PyRougeTokenizer()
