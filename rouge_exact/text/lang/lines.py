"""Tokens by line, for the Space's highlights: ``token_lines`` gives the line of each token of a
text that text.lang's LanguageTokenizer tokenized whole, through the pre-tokenizer's escapes
and substitutions and the Burmese rules' reordering.
"""

from __future__ import annotations

import bisect
import functools
import re

from .segmenters import ASAT, DOT_BELOW


# --------------------------------------------------------------------------------------------
# Tokens by line (the Space's highlights)

# What the pre-tokenizer (pyonmttok's aggressive mode; OpenNMT/Tokenizer's src/Tokenizer.cc,
# checked with pyonmttok 1.38.1) writes in its tokens that is not the text, so that tokens()
# can find them in the text:
# - a separator (Unicode Zs, Zl, Zp) that combining marks follow is kept, with the marks, as a
#   token of its own, written "％" (U+FF05) and its code point in 4 lowercase hex digits. The
#   pre-tokenizer sees words joined by single spaces (clean_text makes every Zs a space and
#   str.split splits on Zl and Zp), so the escape it gives here is "％0020"; "％" is
#   punctuation (Po), never left in a clean text, so in a token it always starts an escape;
# - six reserved characters are substituted, one character for one: ▁ → _, ￭ → ■, ￨ → │
#   (category So: a clean text keeps them) and ％ → %, ＃ → #, ： → : (Po: never in a clean
#   text). The placeholder marks ｟ ｠ (Ps, Pe) never reach it.
_ONMT_ESCAPE = re.compile("\uff05([0-9a-f]{4})")
_ONMT_SUBSTITUTES = str.maketrans({"\u2581": "_", "\uffed": "\u25a0", "\uffe8": "\u2502",
                                   "\uff05": "%", "\uff03": "#", "\uff1a": ":"})


def _unescape(token: str) -> str:
    """A pre-tokenizer token with its escapes undone ("％0020" -> " ")."""
    if "\uff05" not in token:
        return token
    return _ONMT_ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), token)


@functools.lru_cache(maxsize=4096)
def _spaced(key: str):
    """A pattern of a token whose characters may lie apart by spaces in the text (the Burmese
    rules join units across whitespace)."""
    return re.compile(" *".join(map(re.escape, key)))


def token_lines(tokens: list, cleaned: str, swap_burmese: bool = False) -> list:
    """The line (of ``cleaned.split("\\n")``) of each token of a text, from its clean_text:
    the line of the first character of the token that is not a space, and for a token of
    spaces only (jieba and newmm keep a space as a token) the line of the word before it.

    The tokens are looked for, in order, in the text's words joined by spaces (what the
    segmenter and the pre-tokenizer saw), each after the one before: the pre-tokenizer's
    escapes undone and its substitutions made on both sides (_ONMT_SUBSTITUTES: one
    character for one, so positions hold); with ``swap_burmese`` (burmese_segment's tokens)
    the text's dot below and asat swapped as burmese_segment swaps them, and a token's
    characters may lie apart by spaces. A token not found there (none of the tokenizers here
    gives one) goes to the line of the text's next character after the token before it, and
    the token after it may be found anywhere further on: the search moves on."""
    lines = cleaned.split("\n")
    word_lines, starts, at = [], [], 0  # starts: of the words in text
    for number, line in enumerate(lines):
        for word in line.split():
            word_lines.append(number)
            starts.append(at)
            at += len(word) + 1
    text = " ".join(cleaned.split())  # the words joined by spaces, as the tokenizer saw them
    if swap_burmese:
        text = text.replace(DOT_BELOW + ASAT, ASAT + DOT_BELOW)
    substituted = text.translate(_ONMT_SUBSTITUTES)
    substitute = substituted != text  # a token holds a reserved character only if text does
    text, size = substituted, len(substituted)

    def line_at(index: int) -> int:
        return word_lines[bisect.bisect_right(starts, index) - 1]

    out, number, position, lost = [], 0, 0, False
    for token in tokens:
        key = _unescape(token)
        if substitute:
            key = key.translate(_ONMT_SUBSTITUTES)
        body = key.lstrip(" ")
        start = position
        if body is key:  # the spaces before the token are not its own
            while start < size and text[start] == " ":
                start += 1
        end = start + len(key) if key and text.startswith(key, start) else -1
        if end < 0 and key and swap_burmese:  # its characters may lie apart by spaces
            pattern = _spaced(key)
            match = pattern.match(text, start)
            if match is None and lost:  # after a token not found: anywhere further on
                match = pattern.search(text, position)
            if match is not None:
                start, end = match.span()
        elif end < 0 and key and lost:  # after a token not found: anywhere further on
            found = text.find(key, position)
            if found >= 0:
                start, end = found, found + len(key)
        if end < 0:
            lost = True
            if body and start < size:
                number = line_at(start)
        else:
            lost = False
            position = end
            first = start
            while first < end and text[first] == " ":
                first += 1
            number = line_at(start if first == end else first)
        out.append(number)
    return out
