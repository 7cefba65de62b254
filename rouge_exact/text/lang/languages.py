"""The languages of XL-Sum's multilingual ROUGE (text.lang): the table (``LANGUAGES``: each
language's code, names, segmenter, stemmer and direction), ``lang=``'s resolution
(``resolve_language``), the scripts' hints for the warning about texts whose letters the
default tokenizer drops (``script_of``, ``script_hint``), and the import of the optional packages
a language needs (``require_package``: an ImportError naming the pip command).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


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
    segmenter: str | None = None  # "jieba", "fugashi", "pythainlp", "burmese"
    stemmer: str | None = None  # "snowball", "hindi", "bengali", "turkish"
    rtl: bool = False  # written right to left (the Space shows it so)


SNOWBALL = "snowball"
LANGUAGES = (
    # XL-Sum's 45 languages (csebuetnlp/xl-sum), in its order
    Language("am", "amharic"),
    Language("ar", "arabic", stemmer=SNOWBALL, rtl=True),
    Language("az", "azerbaijani"),
    Language("bn", "bengali", ("bangla",), stemmer="bengali"),
    Language("my", "burmese", segmenter="burmese"),
    Language("zh", "chinese", ("chinese_simplified", "chinese_traditional", "zh_cn", "zh_tw",
                               "zh_hans", "zh_hant"), segmenter="jieba"),
    Language("en", "english", stemmer=SNOWBALL),
    Language("fr", "french", stemmer=SNOWBALL),
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
    Language("pt", "portuguese", stemmer=SNOWBALL),
    Language("pa", "punjabi"),
    Language("ru", "russian", stemmer=SNOWBALL),
    Language("gd", "scottish_gaelic"),
    Language("sr", "serbian_cyrillic", ("sr_cyrl",)),
    Language("sr-latn", "serbian_latin"),
    Language("si", "sinhala"),
    Language("so", "somali"),
    Language("es", "spanish", ("mundo",), stemmer=SNOWBALL),
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
    *(Language(code, name, stemmer=SNOWBALL) for code, name in (
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
# Optional packages

# the extra, not requirements-lang.txt: a user who installed from PyPI has no such file
INSTALL_LANG = 'pip install "rouge-exact[lang]"'


def require_package(module: str, package: str, lang: Language):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"lang={lang.code!r} ({lang.name}) needs the package {package}: "
                          f"pip install {package} ({INSTALL_LANG}: every language's)") from error


def package_version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"

