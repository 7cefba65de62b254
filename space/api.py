"""The Space's API for ``gradio_client``: ``/rouge``, ``/rouge_corpus``, ``/rouge_compare``.
The same checks, limits and numbers as the page (both go through ``scoring``); the options are
keyword arguments named as the metric's. Gradio builds each endpoint's schema from these
signatures, so their type hints are part of the API."""

# annotations left unevaluated, as app.py had them: Gradio then gives each endpoint's result
# the schema it always had (any JSON), which gradio_client users see
from __future__ import annotations

from typing import Optional, Union

from .options import DEFAULT_TYPES, parse_types
from .render import MEASURES
from .scoring import compare_lists, score_corpus_lists, score_example


def _api_options(rouge_types, **options) -> dict:
    return dict(rouge_types=parse_types(rouge_types or DEFAULT_TYPES), **options)


def rouge(prediction: str, references: list[str], rouge_types: Optional[list[str]] = None,
          use_stemmer: bool = False, remove_stopwords: bool = False,
          profile: str = "rouge_score", alpha: float = 0.5, multi_ref: Optional[str] = None,
          tokenizer: str = "default", split_sentences: bool = False,
          lang: Optional[str] = None) -> dict:
    """Score one prediction against one or more references: {type: {"precision", "recall",
    "fmeasure"}, "signature", "warnings"} (compute(detailed=True, use_aggregator=False)'s
    numbers for the one example)."""
    if isinstance(references, str):
        references = [references]
    options = _api_options(rouge_types, use_stemmer=use_stemmer,
                           remove_stopwords=remove_stopwords, profile=profile, alpha=alpha,
                           multi_ref=multi_ref, tokenizer=tokenizer,
                           split_sentences=split_sentences, lang=lang)
    scored = score_example(prediction, references, options)
    out: dict = {name: dict(zip(MEASURES, values)) for name, values in scored["scores"].items()}
    out["signature"] = scored["signature"]
    out["warnings"] = scored["warnings"]
    return out


def rouge_corpus(predictions: list[str], references: list[Union[str, list[str]]],
                 rouge_types: Optional[list[str]] = None, use_stemmer: bool = False,
                 remove_stopwords: bool = False, profile: str = "rouge_score",
                 alpha: float = 0.5, multi_ref: Optional[str] = None,
                 tokenizer: str = "default", split_sentences: bool = False,
                 aggregation: str = "macro", n_samples: int = 1000,
                 confidence: float = 0.95, seed: int = 12345,
                 lang: Optional[str] = None) -> dict:
    """Score a corpus: compute(detailed=True)'s result ({type: {"precision"|"recall"|
    "fmeasure": {"low", "mid", "high"}}, "signature", "count"})."""
    options = _api_options(rouge_types, use_stemmer=use_stemmer,
                           remove_stopwords=remove_stopwords, profile=profile, alpha=alpha,
                           multi_ref=multi_ref, tokenizer=tokenizer,
                           split_sentences=split_sentences, lang=lang)
    result, _, _ = score_corpus_lists(predictions, references, options, aggregation,
                                      n_samples, confidence, seed)
    return result


def rouge_compare(predictions: dict, references: list[Union[str, list[str]]],
                  baseline: Optional[str] = None, test: str = "bootstrap",
                  n_samples: Optional[int] = None, rouge_types: Optional[list[str]] = None,
                  use_stemmer: bool = False, profile: str = "rouge_score",
                  multi_ref: Optional[str] = None, aggregation: str = "macro",
                  confidence: float = 0.95, seed: int = 12345,
                  lang: Optional[str] = None) -> dict:
    """Compare 2+ systems with a baseline: the metric's compare() result."""
    options = _api_options(rouge_types, use_stemmer=use_stemmer, profile=profile,
                           multi_ref=multi_ref, aggregation=aggregation, lang=lang)
    result, _ = compare_lists(predictions, references, options, baseline, test, n_samples,
                              seed, confidence)
    return result
