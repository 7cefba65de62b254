"""The segmenters of XL-Sum's multilingual ROUGE (text.lang's step 3): Chinese with jieba,
Japanese with MeCab (fugashi) and UniDic (unidic-lite), Thai with pythainlp's newmm, Burmese
with XL-Sum's syllable rules (``burmese_segment``). ``SEGMENTERS`` maps a Language's
``segmenter`` to its loader, which imports the package when a language first needs it and
returns the segmenter and its name for the signature.
"""

from __future__ import annotations

import logging
import os
import threading

from ...kernels.backend import cache_root, untrusted
from .languages import Language, require_package, package_version


# --------------------------------------------------------------------------------------------
# Segmenters: str (words joined by spaces) -> list of tokens

def _jieba_cache_dir() -> str | None:
    """Where jieba keeps its dictionary's cache: a folder of this package's own cache
    (kernels.backend.cache_root), not jieba's default, the system's shared temporary folder,
    where another user could leave a jieba.cache that jieba would load in place of its
    dictionary. None where it cannot be made, or where another user could have written in
    it (kernels.backend.untrusted: jieba's cache is a marshal of its dictionary, which it
    loads as it is): _jieba then loads in a private folder."""
    root = cache_root()
    folder = os.path.join(root, "jieba")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return None if untrusted(root, folder) else folder


class _OtherThreads(logging.Filter):
    """Drops the records logged from one thread: jieba logs four lines to stderr as its
    dictionary loads, and a run that succeeds prints nothing but its own lines. A filter on
    jieba's logger for the load alone, not its level: the user's own jieba calls on other
    threads keep logging, and nothing stays changed."""

    def __init__(self) -> None:
        super().__init__()
        self.thread = threading.get_ident()

    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread != self.thread


def _quiet_initialize(jieba, tokenizer) -> None:
    quiet = _OtherThreads()
    logger = jieba.default_logger
    logger.addFilter(quiet)
    try:
        tokenizer.initialize()
    finally:
        logger.removeFilter(quiet)


def _jieba(lang: Language):
    jieba = require_package("jieba", "jieba", lang)
    tokenizer = jieba.Tokenizer()  # jieba's own dictionary, not the global one a user may edit
    folder = _jieba_cache_dir()
    if folder is not None:
        tokenizer.tmp_dir = folder
        _quiet_initialize(jieba, tokenizer)
    else:  # a private folder of its own, for this process only
        import shutil
        import tempfile

        tokenizer.tmp_dir = tempfile.mkdtemp(prefix="rouge_jieba_")
        try:
            _quiet_initialize(jieba, tokenizer)
        finally:
            shutil.rmtree(tokenizer.tmp_dir, ignore_errors=True)
    return lambda text: list(tokenizer.cut(text)), f"jieba{package_version('jieba')}"


def _fugashi(lang: Language):
    import os

    fugashi = require_package("fugashi", "fugashi", lang)
    unidic_lite = require_package("unidic_lite", "unidic-lite", lang)
    dicdir = unidic_lite.DICDIR
    # the dictionary named explicitly: fugashi would otherwise prefer the package "unidic",
    # whose dictionary is a separate download
    tagger = fugashi.Tagger(f'-r "{os.path.join(dicdir, "mecabrc")}" -d "{dicdir}" '
                            "-O wakati -b 50000")
    return (lambda text: tagger.parse(text).split(),
            f"fugashi{package_version('fugashi')}+unidic-lite{package_version('unidic-lite')}")


def _pythainlp(lang: Language):
    tokenize = require_package("pythainlp.tokenize", "pythainlp", lang)
    word_tokenize = tokenize.word_tokenize
    return (lambda text: word_tokenize(text, engine="newmm"),
            f"pythainlp{package_version('pythainlp')}-newmm")


ASAT = "\u103a"  # X
DOT_BELOW = "\u1037"  # T
_VIRAMA = "\u1039"  # STACK
_MYANMAR_DEPENDENT = frozenset(
    [chr(0x102B + i) for i in range(8)] + [chr(0x1036 + i) for i in range(3)]
    + [chr(0x103B + i) for i in range(4)] + [ASAT])


def burmese_segment(text: str) -> list:
    """XL-Sum's Burmese syllable rules (Ding et al. 2019, TALLIP, doi 10.1145/3325885):
    a unit is a character with the dependent signs after it; a short unit with an asat joins
    the unit before it (unless that one was joined itself); a lone virama glues its neighbours.
    Whitespace does not separate."""
    text = text.replace("\u200c", " ").replace(DOT_BELOW + ASAT, ASAT + DOT_BELOW)
    units = []
    for ch in "".join(text.lower().strip().split()):
        if ch in _MYANMAR_DEPENDENT and units:
            units[-1] += ch
        else:
            units.append(ch)
    for i in range(1, len(units)):
        if ASAT in units[i] and len(units[i]) < 4:
            units[i - 1] += units[i]
            units[i] = ""
    joined = " ".join(" ".join(units).split())
    return joined.replace(" " + _VIRAMA + " ", _VIRAMA).split()


def _burmese(lang: Language):
    return burmese_segment, "burmese-rules"


SEGMENTERS = {"jieba": _jieba, "fugashi": _fugashi, "pythainlp": _pythainlp,
               "burmese": _burmese}

