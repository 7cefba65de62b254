"""The stemmers of XL-Sum's multilingual ROUGE (text.lang's step 4): nltk's Snowball stemmers
with NLTK's stopword lists left unstemmed (``stopword_list``), XL-Sum's Hindi (``hindi_stem``)
and Bengali (``BengaliStemmer``: Rafi Kamal's rules, vendored in text.lang.data) stemmers, and
TurkishStemmer. ``STEMMERS`` maps a Language's ``stemmer`` to its loader, which imports nltk or
TurkishStemmer when a language first needs it and returns the stemmer and its name for the
signature.
"""

from __future__ import annotations

import re

from .data import BENGALI_RULES, STOPWORDS
from .languages import SNOWBALL, Language, require_package, package_version


# --------------------------------------------------------------------------------------------
# Stemmers: token -> stem

HINDI_SUFFIXES = {
    1: ["ो", "े", "ू", "ु", "ी", "ि", "ा"],
    2: ["कर", "ाओ", "िए", "ाई", "ाए", "ने", "नी", "ना", "ते", "ीं", "ती", "ता", "ाँ", "ां", "ों",
        "ें"],
    3: ["ाकर", "ाइए", "ाईं", "ाया", "ेगी", "ेगा", "ोगी", "ोगे", "ाने", "ाना", "ाते", "ाती",
        "ाता", "तीं", "ाओं", "ाएं", "ुओं", "ुएं", "ुआं"],
    4: ["ाएगी", "ाएगा", "ाओगी", "ाओगे", "एंगी", "ेंगी", "एंगे", "ेंगे", "ूंगी", "ूंगा", "ातीं",
        "नाओं", "नाएं", "ताओं", "ताएं", "ियाँ", "ियों", "ियां"],
    5: ["ाएंगी", "ाएंगे", "ाऊंगी", "ाऊंगा", "ाइयाँ", "ाइयों", "ाइयां"],
}


# per class (longest first): its suffixes grouped by their length, as sets
_HINDI_CLASSES = tuple(
    (size, tuple((length, frozenset(s for s in HINDI_SUFFIXES[size] if len(s) == length))
                 for length in sorted({len(s) for s in HINDI_SUFFIXES[size]})))
    for size in (5, 4, 3, 2, 1))


def hindi_stem(token: str) -> str:
    """Ramanathan & Rao (2003)'s light suffix stripper, as XL-Sum: a suffix of the longest
    class that leaves more than one character; a class-L suffix removes L characters (which
    suffix of the class matched does not matter: one set look-up per suffix length)."""
    for size, by_length in _HINDI_CLASSES:
        if len(token) > size + 1:
            for length, suffixes in by_length:
                if token[-length:] in suffixes:
                    return token[:-size]
    return token


_BENGALI_VOWEL_SIGNS = frozenset("ািীেুূো")


class BengaliStemmer:
    """Rafi Kamal's (2014) rule-based Bengali stemmer, as XL-Sum runs it: groups of suffixes
    tried in order; in each group the first suffix the word ends with is removed (if something
    other than vowel signs is left) or rewritten by its '->' rule ('.' keeps a character)."""

    def __init__(self, rules: str = BENGALI_RULES):
        lines, self.replace = [], {}
        for line in rules.splitlines():
            line = re.sub(r"#.*", "", re.sub(r"\s*", "", line.strip()))
            if not line:
                continue
            rule = None
            if re.fullmatch(r".*->.*", line):
                parts = line.split("->")
                if len(parts) != 2:  # the original parser skips such a line
                    continue
                rule = parts[1]
            line = re.sub(r"->.*", "", line)
            if line:
                lines.append(line)
            if rule:
                self.replace[line] = rule
        self.groups, group = [], None
        for line in lines:
            if line == "{":
                group = []
                self.groups.append(group)
            elif line == "}":
                group = None
            elif group is not None:
                group.append(line)

    def _rewrite(self, index: int, suffix: str, word: str) -> str:
        rule = self.replace[suffix]
        chars = list(word)
        for k, ch in enumerate(rule):
            if ch != ".":
                chars[index + k] = ch
        return "".join(chars[:index + len(rule)])

    def __call__(self, word: str) -> str:
        for group in self.groups:
            for suffix in group:
                if not word.endswith(suffix):
                    continue
                index = len(word) - len(suffix)
                if suffix in self.replace:
                    word = self._rewrite(index, suffix, word)
                elif any(ch not in _BENGALI_VOWEL_SIGNS for ch in word[:index]):
                    word = word[:index]
                break
        return word


def stopword_list(language: str) -> list:
    """NLTK's stopword list of a language, read as nltk's corpus reader reads it."""
    text = STOPWORDS[language][1]
    return [line for line in text.splitlines() if line.rstrip()]


def _snowball(lang: Language):
    import nltk
    from nltk.stem.snowball import SnowballStemmer

    stemmer = SnowballStemmer(lang.name).stemmer  # ignore_stopwords=False: reads no corpus
    stemmer.stopwords = set(stopword_list(lang.name))  # what ignore_stopwords=True would read
    return stemmer.stem, (f"snowball-{lang.name}-nltk{nltk.__version__}"
                          "+stopwords-nltk_data@4d5ecb6")


def _hindi(lang: Language):
    return hindi_stem, "hindi-xlsum"


def _bengali(lang: Language):
    return BengaliStemmer(), "bengali-rafikamal2014"


def _turkish(lang: Language):
    module = require_package("TurkishStemmer", "TurkishStemmer", lang)
    return module.TurkishStemmer().stem, f"turkishstemmer{package_version('TurkishStemmer')}"


STEMMERS = {SNOWBALL: _snowball, "hindi": _hindi, "bengali": _bengali, "turkish": _turkish}
