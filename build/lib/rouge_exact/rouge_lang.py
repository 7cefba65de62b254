"""Language profiles: the tokenization and stemming of XL-Sum's multilingual ROUGE.

``lang=`` (an ISO 639-1 code or XL-Sum's language name) selects a ``LanguageTokenizer`` that
gives the tokens csebuetnlp/xl-sum's ``multilingual_rouge_scoring`` (PyPI
``multilingual-rouge`` 0.0.1) compares, so that every per-example score equals that of its
``RougeScorer(types, use_stemmer=..., lang=...)``. What that scorer does to a text:

1. lowercase (``str.lower``);
2. the punctuation rule (BERT's BasicTokenizer): drop control and format characters (Unicode
   category C*, except tab and line ends), NUL and U+FFFD; split on whitespace and on
   punctuation (Unicode category P*, and every ASCII character that is not a letter or a digit),
   which is dropped;
3. segment the words, joined by spaces: Chinese with jieba, Japanese with MeCab (fugashi) and
   UniDic, Thai with pythainlp's newmm, Burmese with syllable rules. A segmenter that returns no
   tokens for a non-empty text, and every other language, falls back to OpenNMT's aggressive
   pre-tokenizer (pyonmttok), then a space around each CJK ideograph; that fallback warns;
4. with use_stemmer, stem every token longer than 3 characters: nltk's Snowball stemmers with
   NLTK's stopword lists left unstemmed (``ignore_stopwords=True``), or XL-Sum's Hindi, Bengali
   (Rafi Kamal's rules) and Turkish stemmers; a language without a stemmer stems nothing;
5. drop empty tokens.

The rougeLsum quirk: for rougeLsum each non-empty line goes through steps 1, 2, 4 and 5 only:
neither the segmenter nor the pre-tokenizer (so a Chinese line without spaces is one token).

The segmenters, pyonmttok and TurkishStemmer are optional (requirements-lang.txt); they are
imported when a language needs them, with an ImportError naming the package otherwise.
Nothing is downloaded at run time: UniDic is unidic-lite's, the stopword lists and the Bengali
rules are vendored in rouge_lang_data.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import threading
import unicodedata
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .rouge155_lexicon import SMART_STOPWORDS
from .rouge_text import ForkSafeLock, TokenizerProfile
from .rouge_lang_data import BENGALI_RULES, STOPWORDS
from .rouge_text import TokenizedBatch


# --------------------------------------------------------------------------------------------
# The languages

@dataclass(frozen=True)
class Language:
    """One language: ``name`` is the language multilingual-rouge selects (after its aliases),
    ``code`` the ISO code the signature records."""

    code: str
    name: str
    # XL-Sum's dataset names and multilingual-rouge's aliases (bangla, turkce, mundo), and
    # the ISO code with a script (zh-hans, sr-cyrl)
    other_names: tuple = ()
    segmenter: Optional[str] = None  # "jieba", "fugashi", "pythainlp", "burmese"
    stemmer: Optional[str] = None  # "snowball", "hindi", "bengali", "turkish"
    rtl: bool = False  # written right to left (the Space shows it so)


_SNOWBALL = "snowball"
LANGUAGES = (
    # XL-Sum's 45 languages (csebuetnlp/xl-sum), in its order
    Language("am", "amharic"),
    Language("ar", "arabic", stemmer=_SNOWBALL, rtl=True),
    Language("az", "azerbaijani"),
    Language("bn", "bengali", ("bangla",), stemmer="bengali"),
    Language("my", "burmese", segmenter="burmese"),
    Language("zh", "chinese", ("chinese_simplified", "chinese_traditional", "zh_cn", "zh_tw",
                               "zh_hans", "zh_hant"), segmenter="jieba"),
    Language("en", "english", stemmer=_SNOWBALL),
    Language("fr", "french", stemmer=_SNOWBALL),
    Language("gu", "gujarati"),
    Language("ha", "hausa"),
    Language("hi", "hindi", stemmer="hindi"),
    Language("ig", "igbo"),
    Language("id", "indonesian"),
    Language("ja", "japanese", segmenter="fugashi"),
    Language("rn", "kirundi"),
    Language("ko", "korean"),
    Language("ky", "kyrgyz"),
    Language("mr", "marathi"),
    Language("ne", "nepali"),
    Language("om", "oromo"),
    Language("ps", "pashto", rtl=True),
    Language("fa", "persian", rtl=True),
    Language("pcm", "pidgin"),
    Language("pt", "portuguese", stemmer=_SNOWBALL),
    Language("pa", "punjabi"),
    Language("ru", "russian", stemmer=_SNOWBALL),
    Language("gd", "scottish_gaelic"),
    Language("sr", "serbian_cyrillic", ("sr_cyrl",)),
    Language("sr-latn", "serbian_latin"),
    Language("si", "sinhala"),
    Language("so", "somali"),
    Language("es", "spanish", ("mundo",), stemmer=_SNOWBALL),
    Language("sw", "swahili"),
    Language("ta", "tamil"),
    Language("te", "telugu"),
    Language("th", "thai", segmenter="pythainlp"),
    Language("ti", "tigrinya"),
    Language("tr", "turkish", ("turkce",), stemmer="turkish"),
    Language("uk", "ukrainian"),
    Language("ur", "urdu", rtl=True),
    Language("uz", "uzbek"),
    Language("vi", "vietnamese"),
    Language("cy", "welsh"),
    Language("yo", "yoruba"),
    # the other languages multilingual-rouge stems (nltk's Snowball stemmers)
    *(Language(code, name, stemmer=_SNOWBALL) for code, name in (
        ("da", "danish"), ("nl", "dutch"), ("fi", "finnish"), ("de", "german"),
        ("hu", "hungarian"), ("it", "italian"), ("no", "norwegian"), ("ro", "romanian"),
        ("sv", "swedish"))),
)


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


_BY_NAME = {}
for _language in LANGUAGES:
    for _name in (_language.code, _language.name, *_language.other_names):
        assert _key(_name) not in _BY_NAME, _name
        _BY_NAME[_key(_name)] = _language

LANGUAGE_CODES = tuple(language.code for language in LANGUAGES)


def resolve_language(lang) -> Language:
    """The Language of an ISO code or a name (case, '-' and '_' do not matter); ValueError
    listing the allowed codes otherwise."""
    if isinstance(lang, Language):
        return lang
    if not isinstance(lang, str):
        raise TypeError(f"lang: got {lang!r} ({type(lang).__name__}); allowed: None or one of "
                        f"{', '.join(LANGUAGE_CODES)} (or XL-Sum's language name)")
    language = _BY_NAME.get(_key(lang))
    if language is None:
        raise ValueError(f"lang: got {lang[:60]!r}; allowed: None or one of "
                         f"{', '.join(LANGUAGE_CODES)}, or XL-Sum's language name (e.g. "
                         "'chinese_simplified', 'bengali', 'scottish_gaelic')")
    return language


# The languages of each script without ASCII letters (the first word of a letter's Unicode
# name), for the warning about texts whose letters the default tokenizer drops
_SCRIPT_LANGUAGES = {
    "ARABIC": ("ar", "fa", "ps", "ur"), "BENGALI": ("bn",), "CJK": ("zh", "ja"),
    "CYRILLIC": ("ru", "uk", "sr", "ky", "uz"), "DEVANAGARI": ("hi", "mr", "ne"),
    "ETHIOPIC": ("am", "ti"), "GUJARATI": ("gu",), "GURMUKHI": ("pa",), "HANGUL": ("ko",),
    "HIRAGANA": ("ja",), "KATAKANA": ("ja",), "MYANMAR": ("my",), "SINHALA": ("si",),
    "TAMIL": ("ta",), "TELUGU": ("te",), "THAI": ("th",),
}


def script_of(text: str) -> str:
    """The script of the first non-ASCII letter of ``text`` ("ARABIC", "CJK", ...), or ""."""
    for ch in text:
        if not ch.isascii() and ch.isalpha():
            return unicodedata.name(ch, "").split(" ")[0]
    return ""


def script_hint(script: str) -> str:
    """What to pass for texts in ``script``: the lang codes of its languages, as a sentence
    ("" for a script no language profile covers)."""
    codes = _SCRIPT_LANGUAGES.get(script)
    if not codes:
        return ""
    more = f" (or {', '.join(codes[1:])})" if len(codes) > 1 else ""
    name = script if script == "CJK" else script.title()
    return f"for texts in {name} script pass lang=\"{codes[0]}\"{more}"


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
# Optional packages

_INSTALL = "pip install -r requirements-lang.txt"


def _require(module: str, package: str, lang: Language):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"lang={lang.code!r} ({lang.name}) needs the package {package}: "
                          f"pip install {package} (or {_INSTALL})") from error


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------------------------
# Segmenters: str (words joined by spaces) -> list of tokens

def _jieba(lang: Language):
    jieba = _require("jieba", "jieba", lang)
    tokenizer = jieba.Tokenizer()  # jieba's own dictionary, not the global one a user may edit
    tokenizer.initialize()
    return lambda text: list(tokenizer.cut(text)), f"jieba{_version('jieba')}"


def _fugashi(lang: Language):
    import os

    fugashi = _require("fugashi", "fugashi", lang)
    unidic_lite = _require("unidic_lite", "unidic-lite", lang)
    dicdir = unidic_lite.DICDIR
    # the dictionary named explicitly: fugashi would otherwise prefer the package "unidic",
    # whose dictionary is a separate download
    tagger = fugashi.Tagger(f'-r "{os.path.join(dicdir, "mecabrc")}" -d "{dicdir}" '
                            "-O wakati -b 50000")
    return (lambda text: tagger.parse(text).split(),
            f"fugashi{_version('fugashi')}+unidic-lite{_version('unidic-lite')}")


def _pythainlp(lang: Language):
    tokenize = _require("pythainlp.tokenize", "pythainlp", lang)
    word_tokenize = tokenize.word_tokenize
    return (lambda text: word_tokenize(text, engine="newmm"),
            f"pythainlp{_version('pythainlp')}-newmm")


_ASAT = "\u103a"  # X
_DOT_BELOW = "\u1037"  # T
_VIRAMA = "\u1039"  # STACK
_MYANMAR_DEPENDENT = frozenset(
    [chr(0x102B + i) for i in range(8)] + [chr(0x1036 + i) for i in range(3)]
    + [chr(0x103B + i) for i in range(4)] + [_ASAT])


def burmese_segment(text: str) -> list:
    """XL-Sum's Burmese syllable rules (Ding et al. 2019, TALLIP, doi 10.1145/3325885):
    a unit is a character with the dependent signs after it; a short unit with an asat joins
    the unit before it (unless that one was joined itself); a lone virama glues its neighbours.
    Whitespace does not separate."""
    text = text.replace("\u200c", " ").replace(_DOT_BELOW + _ASAT, _ASAT + _DOT_BELOW)
    units = []
    for ch in "".join(text.lower().strip().split()):
        if ch in _MYANMAR_DEPENDENT and units:
            units[-1] += ch
        else:
            units.append(ch)
    for i in range(1, len(units)):
        if _ASAT in units[i] and len(units[i]) < 4:
            units[i - 1] += units[i]
            units[i] = ""
    joined = " ".join(" ".join(units).split())
    return joined.replace(" " + _VIRAMA + " ", _VIRAMA).split()


def _burmese(lang: Language):
    return burmese_segment, "burmese-rules"


_SEGMENTERS = {"jieba": _jieba, "fugashi": _fugashi, "pythainlp": _pythainlp,
               "burmese": _burmese}


# --------------------------------------------------------------------------------------------
# Stemmers: token -> stem

_HINDI_SUFFIXES = {
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
    (size, tuple((length, frozenset(s for s in _HINDI_SUFFIXES[size] if len(s) == length))
                 for length in sorted({len(s) for s in _HINDI_SUFFIXES[size]})))
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
    module = _require("TurkishStemmer", "TurkishStemmer", lang)
    return module.TurkishStemmer().stem, f"turkishstemmer{_version('TurkishStemmer')}"


_STEMMERS = {_SNOWBALL: _snowball, "hindi": _hindi, "bengali": _bengali, "turkish": _turkish}

_STEM_MIN_LENGTH = 3  # multilingual-rouge stems tokens longer than this
# distinct words a memo (stems, pre-tokenizer pieces) holds before it is cleared, and the
# characters of its words: ~200 bytes a short word, and a long word its length, so each memo
# stays within ~50 MB (issue 27: with 1,000,000 words and no character bound, a server's RSS
# grew by 1 GB on three requests of fresh long words, and stayed there)
_MEMO_MAX = 200_000
_MEMO_MAX_CHARS = 8_000_000


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
        text = text.replace(_DOT_BELOW + _ASAT, _ASAT + _DOT_BELOW)
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


# --------------------------------------------------------------------------------------------
# The tokenizer profile

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
        pyonmttok = _require("pyonmttok", "pyonmttok", language)
        self._pretokenize = pyonmttok.Tokenizer("aggressive").tokenize
        self.pretokenizer_name = f"onmt-aggressive{_version('pyonmttok')}"
        self._segment, self.segmenter_name = None, None
        if language.segmenter:
            self._segment, self.segmenter_name = _SEGMENTERS[language.segmenter](language)
        self._stem, self.stemmer_name = None, None
        if language.stemmer:
            self._stem, self.stemmer_name = _STEMMERS[language.stemmer](language)
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

    def _form(self, word: str, stem: bool, stopwords: bool) -> Optional[str]:
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

    def _word_pieces(self, word: str) -> Optional[tuple]:
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

    def _lines(self, text: str, cleaned: Optional[str] = None) -> list:
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


@functools.lru_cache(maxsize=None)
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
