"""The Options panel's choices, and the checked options of a request: the metric checks them
(``metric.options``); the Space adds its bounds on the ROUGE types."""

import math
import re

from .limits import CLI, MAX_NGRAM, MAX_SKIP, MAX_TYPES, refused, user_error
from .metric import metric

ROUGE_TYPE_CHOICES = ["rouge1", "rouge2", "rouge3", "rouge4", "rougeL", "rougeLsum", "rougeW",
                      "rougeS4", "rougeSU4", "rougeS", "rougeSU"]
DEFAULT_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
# the Language menu, (label, value): "none" is lang=None (rouge_score's tokenizer)
NO_LANGUAGE = "none"
LANGUAGE_CHOICES = [("none (rouge_score's English tokenizer)", NO_LANGUAGE)] + [
    (f"{language.code} — {language.name}" + (" (right to left)" if language.rtl else ""),
     language.code) for language in sorted(metric.LANGUAGES, key=lambda lg: lg.code)]
# the Options panel's controls, by the name page_options gives their values
OPTION_NAMES = ("rouge_types", "extra_types", "use_stemmer", "remove_stopwords", "profile",
                "alpha", "multi_ref", "tokenizer", "split_sentences", "lang")


def type_order(rouge_type) -> tuple:
    """Rows in type order: N by N, L, Lsum, W by weight, S and SU by distance."""
    rank = {"n": 0, "L": 1, "Lsum": 2, "W": 3, "S": 4, "SU": 5}[rouge_type.kind]
    distance = math.inf if rouge_type.max_skip < 0 else rouge_type.max_skip
    return rank, rouge_type.n, rouge_type.weight, distance, rouge_type.name


def parse_types(selected, extra: str = "") -> list:
    """The requested type names in type order, within the Space's bounds."""
    names = [n for n in list(selected or []) + re.split(r"[\s,;]+", extra or "") if n]
    if not names:
        raise user_error("Pick at least one ROUGE type under Options → ROUGE types.",
                         title="No ROUGE type")
    parsed = {}
    for name in names:
        try:
            t = metric.parse_rouge_type(name)
        except (TypeError, ValueError) as problem:
            raise user_error(f"Options → More types: {problem}",
                             title="Invalid type") from None
        if t.kind == "n" and t.n > MAX_NGRAM:
            raise refused("rouge_types", name, f"rouge1 … rouge{MAX_NGRAM}",
                          f"{CLI} --rouge-types {name} PREDICTIONS REFERENCES")
        if t.kind in ("S", "SU") and t.max_skip > MAX_SKIP:
            raise refused("rouge_types", name, f"rouge{t.kind}0 … rouge{t.kind}{MAX_SKIP}, "
                          f"or rouge{t.kind} (any distance)",
                          f"{CLI} --rouge-types {name} PREDICTIONS REFERENCES")
        parsed[name] = t
    if len(parsed) > MAX_TYPES:
        raise refused("rouge_types", f"{len(parsed)} types", f"{MAX_TYPES} types",
                      f"{CLI} --rouge-types {','.join(parsed)} PREDICTIONS REFERENCES")
    return [t.name for t in sorted(parsed.values(), key=type_order)]


def build_options(rouge_types, use_stemmer=False, remove_stopwords=False,
                  profile="rouge_score", alpha=0.5, multi_ref=None, tokenizer="default",
                  split_sentences=False, lang=None, **extra):
    """The metric's checked options (its ValueError/TypeError shown as they are)."""
    try:
        return metric.options(
            rouge_types=list(rouge_types), use_stemmer=bool(use_stemmer),
            remove_stopwords=bool(remove_stopwords), profile=profile or "rouge_score",
            alpha=float(0.5 if alpha is None else alpha), multi_ref=multi_ref or None,
            tokenizer=tokenizer or "default", split_sentences=bool(split_sentences),
            lang=lang or None, **extra)
    except (ValueError, TypeError) as problem:
        raise user_error(str(problem), title="Invalid option") from None


def page_options(rouge_types, extra_types, use_stemmer, remove_stopwords, profile, alpha,
                 multi_ref, tokenizer, split_sentences, lang) -> dict:
    """The Options panel's values (named as OPTION_NAMES) as the metric's keyword options."""
    return dict(rouge_types=parse_types(rouge_types, extra_types), use_stemmer=use_stemmer,
                remove_stopwords=remove_stopwords, profile=profile, alpha=alpha,
                multi_ref=multi_ref, tokenizer=tokenizer, split_sentences=split_sentences,
                lang=None if lang in (None, "", NO_LANGUAGE) else lang)


def cli_flags(options: dict) -> str:
    """The CLI's flags for these options (the command a refusal offers)."""
    flags = [f"--rouge-types {','.join(options['rouge_types'])}"]
    for key in ("use_stemmer", "remove_stopwords", "split_sentences"):
        if options.get(key):
            flags.append(f"--{key.replace('_', '-')}")
    for key in ("profile", "multi_ref", "tokenizer", "lang"):
        if options.get(key) and options[key] not in ("rouge_score", "default"):
            flags.append(f"--{key.replace('_', '-')} {options[key]}")
    return " ".join(flags)
