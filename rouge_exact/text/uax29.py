"""The tokenizers unicode-v1 and character-v1 of rouge-score-rs 0.2.1, in Python.

rouge-score-rs (``rouge_score_rs.tokenizers.UnicodeTokenizer`` and ``CharacterTokenizer``)
normalizes a text (NFKC, full case folding, NFKC again), then keeps

* unicode-v1: the words of Unicode's word boundary rules (UAX #29) that hold an Alphabetic
  character or a number (General_Category N), as its Rust crate unicode-segmentation 1.13
  finds them (``unicode_words``);
* character-v1: the extended grapheme clusters (UAX #29) that hold one.

All of it by Unicode 17.0 data, written into ``uax29_data`` by benchmarks/gen_unicode17.py;
tests/test_rs_tokenizers.py holds both to rouge-score-rs itself.
"""

# How: each character becomes a letter that names its Word_Break (or Grapheme_Cluster_Break)
# value (str.translate), and one regular expression over those letters finds the segments:
# the crate's state machine, rule for rule, including where it departs from UAX #29's text (a
# word with a ZWJ before an emoji takes that emoji and ends there; spaces stop taking spaces
# once an Extend or Format character followed them).
#
# Normalization is Python's unicodedata (fast, in C), except in a text that holds a character
# assigned after Unicode 13.0 (Python 3.10's data) which NFKC or case folding changes or
# composes: that text gets this module's NFKC, by the 17.0 data of those characters and
# Python's for the others.

from __future__ import annotations

import bisect
import re
import unicodedata

from . import uax29_data as data

__all__ = ["normalize", "unicode_words", "characters"]


def _class(ranges) -> str:
    return "".join(re.escape(chr(lo)) + ("-" + re.escape(chr(hi)) if hi > lo else "")
                   for lo, hi in ranges)


_NEW = re.compile(f"[{_class(data.NEW_RANGES)}]")
_ALNUM = re.compile(f"[{_class(data.ALNUM_RANGES)}]")


class _Letters(dict):
    """The table ``str.translate`` reads: a code point's letter, found in the ranges the first
    time that character is seen. Emptied past 200,000 characters (a bounded cache)."""

    def __init__(self, starts, letters):
        super().__init__()
        self.starts, self.letters = starts, letters

    def __missing__(self, code_point: int) -> str:
        if len(self) > 200_000:
            self.clear()
        letter = self[code_point] = self.letters[bisect.bisect_right(self.starts, code_point) - 1]
        return letter


_WORD_LETTERS = _Letters(data.WORD_STARTS, data.WORD_LETTERS)
_GRAPHEME_LETTERS = _Letters(data.GRAPHEME_STARTS, data.GRAPHEME_LETTERS)


# --------------------------------------------------------------------------------------------
# Normalization: NFKC, full case folding, NFKC (rouge-score-rs's ``normalize``)

def normalize(text: str) -> str:
    """NFKC, then full case folding, then NFKC, by Unicode 17.0."""
    if text.isascii():  # NFKC leaves ASCII as it is, and folds A-Z only
        return text.lower()
    if _NEW.search(text) is None:  # Python's data agree with 17.0 on every character here
        return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return _nfkc(_fold(_nfkc(text)))


def _fold(text: str) -> str:
    # folding is idempotent: Python's casefold leaves what NEW_FOLD gives as it is
    return _NEW.sub(lambda m: data.NEW_FOLD.get(m.group(), m.group()), text).casefold()


def _is_new(ch: str) -> bool:
    return _NEW.match(ch) is not None


def _nfkc(text: str) -> str:
    """NFKC by Unicode 17.0: Python's decompositions, classes and compositions, and the 17.0
    ones of the characters in NEW_RANGES (the algorithm of UAX #15)."""
    chars: list[str] = []
    for ch in text:
        if _is_new(ch):
            chars.extend(data.NEW_NFKD.get(ch, ch))
        else:
            chars.extend(unicodedata.normalize("NFKD", ch))
    classes = [data.NEW_CCC.get(ch, 0) if _is_new(ch) else unicodedata.combining(ch)
               for ch in chars]
    # canonical order: each run of non-starters sorted by class, stably
    i = 0
    while i < len(chars):
        if classes[i] == 0:
            i += 1
            continue
        j = i
        while j < len(chars) and classes[j] != 0:
            j += 1
        run = sorted(zip(classes[i:j], chars[i:j]), key=lambda pair: pair[0])
        classes[i:j] = [c for c, _ in run]
        chars[i:j] = [ch for _, ch in run]
        i = j
    # canonical composition: each character with the last starter, unless blocked
    out: list[str] = []
    starter, last = -1, 0
    for ch, cls in zip(chars, classes):
        if starter >= 0 and (len(out) - 1 == starter or 0 < last < cls):
            composite = _compose(out[starter], ch)
            if composite is not None:
                out[starter] = composite
                continue
        if cls == 0:
            starter = len(out)
        last = cls
        out.append(ch)
    return "".join(out)


def _compose(first: str, second: str) -> str | None:
    if _is_new(first) or _is_new(second):
        return data.NEW_COMPOSE.get(first + second)
    composed = unicodedata.normalize("NFC", first + second)
    return composed if len(composed) == 1 else None


# --------------------------------------------------------------------------------------------
# Words: unicode-segmentation's forward word-boundary state machine as one expression over the
# Word_Break letters (uax29_data's key). Extend, Format and ZWJ are skipped inside a segment
# (WB4, J below); a step to the next letter, digit, katakana or connector looks back at the
# character it follows (the state). A ZWJ right before an Extended_Pictographic character
# (a, e) sends any state but the first character's to "emoji" (WB3c): the segment takes it,
# and further ZWJ + emoji, and ends.

_J = "[XFZ]*"
_EMOJI = _J + "(?<=Z)[ae](?:[XFZ]|(?<=Z)[ae])*"
_LETTER = "(?:[AH]|(?<!Z)a)"  # (a: an emoji letter after a ZWJ is the emoji rule's)
_STEP = ("(?:"
         f"(?<=[AHNUa]){_J}(?:[AHN]|(?<!Z)a)"  # WB5, WB8, WB9, WB10, WB13b
         f"|(?<=[AHNUKa]){_J}U"  # WB13a
         f"|(?<=[KU]){_J}K"  # WB13, WB13b
         f"|(?<=[AHa]){_J}[MPS]{_J}{_LETTER}"  # WB6, WB7
         f"|(?<=H){_J}D{_J}H"  # WB7b, WB7c
         f"|(?<=N){_J}[mPS]{_J}N"  # WB11, WB12
         ")")
# a middle character still waiting for its letter or digit when the emoji rule comes
_PENDING = f"(?:(?<=[AHa]){_J}[MPS]|(?<=H){_J}[DS]|(?<=N){_J}[mPS])"
_WORD = (f"[AHNKUa]{_STEP}*"
         f"(?:{_PENDING}?{_EMOJI}"
         f"|(?<=H){_J}S{_J}"  # WB7a: a Hebrew letter keeps a following apostrophe
         f"|{_J})")
_WORD_SEGMENT = re.compile(  # (alternatives by their first letter: words first, as most are)
    f"{_WORD}"
    f"|W+(?:{_EMOJI}|{_J})"  # WB3d (spaces stop at an Extend, Format or ZWJ: the crate's way)
    "|CL?|[Ln]"  # WB3, WB3a, WB3b
    f"|R(?:{_J}R)?(?:{_EMOJI}|{_J})"  # WB15, WB16
    f"|Z(?:{_EMOJI}|{_J})"  # WB3c
    f"|.(?:{_EMOJI}|{_J})",  # WB4 (a first character takes the Extend ... after it), WB999
    re.S)

# unicode-segmentation's own path for an ASCII text: runs of [A-Za-z0-9_] with the middle
# characters of WB6, WB7, WB11 and WB12 between two letters or two digits
_ASCII_WORD = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_]|(?<=[0-9])[.,;'](?=[0-9])"
                         r"|(?<=[A-Za-z])['.:](?=[A-Za-z]))*")


def unicode_words(text: str) -> list[str]:
    """Tokens of unicode-v1: the words (UAX #29) of the normalized text that hold an
    alphabetic character or a number."""
    text = normalize(text)
    if text.isascii():
        words = _ASCII_WORD.findall(text)
        if "_" in text:  # a run of underscores holds neither
            words = [w for w in words if w.strip("_")]
        return words
    letters = text.translate(_WORD_LETTERS)
    search = _ALNUM.search
    return [text[m.start():m.end()] for m in _WORD_SEGMENT.finditer(letters)
            if search(text, m.start(), m.end())]


# --------------------------------------------------------------------------------------------
# Characters: extended grapheme clusters (UAX #29's rules, as unicode-segmentation's cursor
# applies them pair by pair) over the Grapheme_Cluster_Break letters

_CLUSTER = re.compile(
    "CL|[cCL]"  # GB3, GB4, GB5
    "|P*"  # GB9b
    "(?:l*(?:v+|Vv*|T)t*|l+|t+"  # GB6, GB7, GB8
    "|RR?"  # GB12, GB13
    "|E(?:[XYN]*ZE)*"  # GB11
    "|K(?:[YNZ]*N[YNZ]*K)*"  # GB9c
    "|[^cCL])"
    "[XYNZS]*",  # GB9, GB9a
    re.S)


def characters(text: str) -> list[str]:
    """Tokens of character-v1: the grapheme clusters of the normalized text that hold an
    alphabetic character or a number."""
    text = normalize(text)
    if text.isascii():
        # (CR LF is the only ASCII cluster of two characters, and holds neither)
        return [ch for ch in text if ch.isalnum()]
    letters = text.translate(_GRAPHEME_LETTERS)
    search = _ALNUM.search
    return [text[m.start():m.end()] for m in _CLUSTER.finditer(letters)
            if search(text, m.start(), m.end())]
