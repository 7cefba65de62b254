"""The Space's API for ``gradio_client``: ``/rouge``, ``/rouge_corpus``, ``/rouge_compare``,
``/rouge_explain``.
The same checks, limits and numbers as the page (both go through ``scoring``); the options are
keyword arguments named as the metric's. Gradio builds each endpoint's schema from these
signatures, so their type hints are part of the API."""

# annotations left unevaluated, as app.py had them: Gradio then gives each endpoint's result
# the schema it always had (any JSON), which gradio_client users see
from __future__ import annotations


from rouge_exact.significance import DEFAULT_TEST

from .limits import user_error
from .options import OPTION, parse_types, profile_types
from .render import MEASURES
from .scoring import (WALK_FROM, WALK_TO, compare_lists, explain_lists, score_corpus_lists,
                      score_example)


# each default is the metric's (its schema, OPTIONS), so that the API's schema shows it
D = {name: option.default for name, option in OPTION.items()}


def _api_options(rouge_types, **options) -> dict:
    """The metric's keyword options of an API call, its types within the Space's bounds. No
    types (None, []): the profile's, as compute() scores them (pltrdy's have no rougeLsum);
    one name alone is a list of it, as compute() takes it."""
    if isinstance(rouge_types, str):
        rouge_types = [rouge_types]
    elif rouge_types is not None and not isinstance(rouge_types, (list, tuple)):
        raise user_error(f"rouge_types: got {rouge_types!r:.80} ({type(rouge_types).__name__}); "
                         "allowed: None, a type name or a list of them", title="Invalid option")
    return dict(rouge_types=parse_types(rouge_types or profile_types(options["profile"])),
                **options)


def rouge(prediction: str, references: list[str], rouge_types: list[str] | None = None,
          use_stemmer: bool = D["use_stemmer"], remove_stopwords: bool = D["remove_stopwords"],
          profile: str = D["profile"], alpha: float = D["alpha"],
          multi_ref: str | None = D["multi_ref"], tokenizer: str | None = D["tokenizer"],
          split_sentences: bool = D["split_sentences"], lang: str | None = D["lang"]) -> dict:
    """Score one prediction against one or more references: {type: {"precision", "recall",
    "fmeasure"}, "signature", "warnings"} (compute(detailed=True, use_aggregator=False)'s
    numbers for the one example). rouge_types=None: the profile's, as compute() picks them."""
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


def rouge_corpus(predictions: list[str], references: list[str | list[str]],
                 rouge_types: list[str] | None = None,
                 use_stemmer: bool = D["use_stemmer"],
                 remove_stopwords: bool = D["remove_stopwords"], profile: str = D["profile"],
                 alpha: float = D["alpha"], multi_ref: str | None = D["multi_ref"],
                 tokenizer: str | None = D["tokenizer"],
                 split_sentences: bool = D["split_sentences"],
                 aggregation: str = D["aggregation"], n_samples: int = D["n_samples"],
                 confidence: float = D["confidence"], seed: int = D["seed"],
                 lang: str | None = D["lang"]) -> dict:
    """Score a corpus: compute(detailed=True)'s result ({type: {"precision"|"recall"|
    "fmeasure": {"low", "mid", "high"}}, "signature", "count"})."""
    options = _api_options(rouge_types, use_stemmer=use_stemmer,
                           remove_stopwords=remove_stopwords, profile=profile, alpha=alpha,
                           multi_ref=multi_ref, tokenizer=tokenizer,
                           split_sentences=split_sentences, lang=lang)
    result, _, _ = score_corpus_lists(predictions, references, options, aggregation,
                                      n_samples, confidence, seed)
    return result


def rouge_compare(predictions: dict, references: list[str | list[str]],
                  baseline: str | None = None, test: str = DEFAULT_TEST,
                  n_samples: int | None = None, rouge_types: list[str] | None = None,
                  use_stemmer: bool = D["use_stemmer"], profile: str = D["profile"],
                  multi_ref: str | None = D["multi_ref"],
                  aggregation: str = D["aggregation"], confidence: float = D["confidence"],
                  seed: int = D["seed"], lang: str | None = D["lang"]) -> dict:
    """Compare 2+ systems with a baseline: the metric's compare() result (test: one of the
    metric's TESTS, by default its DEFAULT_TEST; n_samples=None: the test's default count).
    Each system's entries carry per-comparison and family-wise intervals, the raw and
    Holm-adjusted p-values, a decision and a verdict line. The result's own fields,
    "signature" and "count", sit beside the systems: a system named like one is refused."""
    options = _api_options(rouge_types, use_stemmer=use_stemmer, profile=profile,
                           multi_ref=multi_ref, aggregation=aggregation, lang=lang)
    result, _ = compare_lists(predictions, references, options, baseline, test, n_samples,
                              seed, confidence)
    return result


def rouge_explain(predictions: list[str], references: list[str | list[str]],
                  rouge_types: list[str] | None = None, match: dict | str | None = None,
                  a: str = WALK_FROM, b: str = WALK_TO) -> dict:
    """Which ROUGE? rouge_exact.explain's result as_dict() ({"count", "rows": [{"name",
    "options", "signature", "scores"}, ...], "match"}), with "walk", the walk from convention
    a to b (two rows' names) as_dict(), and the "warnings" and "notes" the page shows.
    match: reported figures, {"rouge1": "44.16", ...} or "rouge1=44.16, rougeL=40.90"."""
    state = explain_lists(predictions, references, rouge_types, match, a, b, strict=True)
    out = state["explained"].as_dict()
    out["walk"] = state["walk"].as_dict()
    out["warnings"] = state["warnings"]
    out["notes"] = state["notes"]
    return out
