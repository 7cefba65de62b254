"""The options schema: every setting that changes a number, its default, its bound, and the
signature that records it.

``OPTIONS`` declares each option of ``compute()`` once: its type, default, allowed values or
bounds and a one-line help. The compute() docs (``options_doc``), the CLI's flags
(cli/main.py), the README's options table (``options_table``) and the Space's controls are
made from it; tests/test_schema.py holds them equal. The rouge types' part of it (their
grammar, ``ROUGE_TYPE_GRAMMAR``, and examples), ``parse_rouge_type`` and the README's kinds
table (``kinds_table``) are made from the kinds (``kinds.KINDS``). ``RougeOptions``
holds one call's options once checked: ``RougeOptions.build`` checks every value against the
schema's bounds before any work, and resolves names to objects: the rouge types to
``RougeType``, the profile to a ``Profile``, the tokenizer to a ``TokenizerProfile``.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import textwrap
from dataclasses import dataclass

import numpy as np

from .text.lang import (
    LANGUAGE_CODES,
    LanguageTokenizer,
    language_tokenizer,
    resolve_language,
    segmenter,
    stemmer_signature,
)
from .profiles import (
    PROFILES,
    Profile,
)
from .kinds import (
    KIND_MEMOS,
    KINDS,
    RougeType,  # (re-exported: the type of a parsed name is the kinds')
)
from .text.tokenizers import (
    TOKENIZERS,
    TokenizerProfile,
    callable_tokenizer,
    nltk_version,
)

from .version import __version__

DEFAULT_ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
DEFAULT_SEED = 12345
MULTI_REF_MODES = ("max", "average", "best", "max_pr", "mean_prf")
AGGREGATIONS = ("macro", "micro")

# Bounds (each checked before any work; see the README's option table). The bounds of the type
# names (MAX_NGRAM, MAX_SKIP, MAX_W_WEIGHT) are their kinds', in kinds.
MAX_SAMPLES = 100_000  # n_samples: memory grows with it (not with n_samples x examples)
MAX_SEED = 2 ** 64 - 1
MAX_LENGTH_LIMIT = 2 ** 62  # length_limit_*: fits an int64, and no text is longer


def rouge_type_grammar(profile=None) -> str:
    """The type names allowed, in words: each kind's grammar, in KINDS' order (with a
    profile or its name: the kinds that profile scores)."""
    return ", ".join(kind.grammar for kind in KINDS.values()
                     if profile is None or kind.scored_by(profile))


ROUGE_TYPE_GRAMMAR = rouge_type_grammar()  # the schema's rule: this package's kinds


# --------------------------------------------------------------------------------------------
# The schema: each option of compute() declared once


@dataclass(frozen=True)
class Option:
    """One option of compute(), with what a front end needs to show and check it.

    ``type``: what a caller passes (``list``: a list of str). ``choices``: the closed list of
    allowed values (besides None when that is the default); ``examples``: common values of an
    open option, for a menu. ``low``/``high``: the bounds of a number, included unless
    ``strict``. ``none``: what the default None means. ``rule``: what is allowed, in words,
    where choices and bounds do not say it all. ``cli``: False for the options the CLI sets
    itself (it always aggregates, in detail)."""

    name: str
    type: type
    default: object
    help: str
    choices: tuple = ()
    examples: tuple = ()
    low: int | float | None = None
    high: int | float | None = None
    strict: bool = False
    none: str = ""
    rule: str = ""
    cli: bool = True

    @property
    def allowed(self) -> str:
        """What is allowed, in words: the end of this option's error messages and of its doc."""
        if self.rule:
            return self.rule
        if self.type is bool:
            return "True or False"
        return ", ".join(([] if self.default is not None else ["None"]) + list(self.choices))

    def default_text(self) -> str:
        """The default as the docs show it: what None means, or the Python literal."""
        if self.default is None:
            return f"None: {self.none}" if self.none else "None"
        return repr(self.default)


_LIMIT_RULE = ("None or an integer >= 1; at most one of the two limits; 0 (no limit) with "
               "profile py_rouge only")
OPTIONS = (
    Option("rouge_types", list, None, "the ROUGE types to score",
           examples=tuple(name for kind in KINDS.values() for name in kind.examples),
           none=", ".join(DEFAULT_ROUGE_TYPES) + ", or the profile's",
           rule=f"a list of {ROUGE_TYPE_GRAMMAR}"),
    Option("use_aggregator", bool, True, "True: one score per type, over all examples; False: "
           "a list of per-example scores", cli=False),
    Option("use_stemmer", bool, None, "stem tokens longer than 3 characters: Porter (nltk's, "
           "as rouge_score; rouge155: Lin's variant with WordNet's exceptions; py_rouge: "
           "py-rouge's, nltk's original Porter with WordNet's exceptions and its own), or the "
           "stemmer of lang", none="the profile's: True with py_rouge, else False",
           rule="None, True or False"),
    Option("tokenizer", str, None, "how text becomes tokens: default (rouge_score's: "
           "lowercase runs of [a-z0-9]), unicode (letters and digits of every script), "
           "unicode-v1 and character-v1 (rouge-score-rs 0.2.1's: Unicode words, UAX #29, or "
           "characters; never stemmed), whitespace, or a callable str -> list[str]", choices=tuple(TOKENIZERS),
           none="the profile's: default, or rouge155's own",
           rule=f"None, a callable str -> list[str] or one of {', '.join(TOKENIZERS)}"),
    Option("alpha", float, None, "the weight of precision in F = 1 / (alpha / P + "
           "(1 - alpha) / R); 0.5 is F1, 1/(1+1.2^2) is pycocoevalcap's beta = 1.2", low=0.0,
           high=1.0,
           none="the profile's: 0.5, coco's 1/(1+1.2^2)",
           rule="None or a number with 0 <= alpha <= 1"),
    Option("multi_ref", str, None, "several references: max (per type, the reference with "
           "the best F; torchmetrics' accumulate=\"best\"), average (counts pooled, "
           "ROUGE-1.5.5's -f A, py-rouge's apply_avg), best (the best recall: -f B, py-rouge's "
           "apply_best), max_pr (precision and recall each the maximum "
           "over the references, as pycocoevalcap) or mean_prf (precision, recall and F each "
           "the mean over the references; torchmetrics' accumulate=\"avg\")",
           choices=MULTI_REF_MODES, none="max; average with rouge155 or py_rouge; max_pr "
           "with coco"),
    Option("remove_stopwords", bool, False, "drop ROUGE-1.5.5's SMART stopwords (English) "
           "before scoring"),
    Option("n_samples", int, 1000, "bootstrap samples of the interval (memory grows with "
           "it, not with the examples)", low=1, high=MAX_SAMPLES,
           rule=f"an integer with 1 <= n_samples <= {MAX_SAMPLES:,}"),
    Option("confidence", float, 0.95, "the confidence level of the bootstrap interval",
           low=0.0, high=1.0, strict=True, rule="a number with 0 < confidence < 1"),
    Option("seed", int, DEFAULT_SEED, "the bootstrap's seed (profile rouge155 seeds as the "
           "Perl script does)", low=0, high=MAX_SEED, rule="an integer with 0 <= seed < 2**64"),
    Option("detailed", bool, False, "also return precision, recall, the interval, the "
           "signature and the count", cli=False),
    Option("profile", str, "rouge_score", "whose numbers: rouge_score 0.1.2's (evaluate's "
           "rouge), the ROUGE-1.5.5 Perl script's (rouge155), pycocoevalcap's ROUGE-L "
           "(coco: image captioning's), pltrdy's rouge 1.0.1 (pltrdy: LongBench's), the "
           "rouge_chinese package 1.0.3 (LLaMA-Factory's), torchmetrics 1.9.0's ROUGEScore "
           "(torchmetrics: float32 scores, Punkt sentences for rougeLsum) or py-rouge 1.1's "
           "(py_rouge: it stems and keeps 665 characters unless told otherwise)",
           choices=tuple(PROFILES)),
    Option("aggregation", str, "macro", "macro: the mean of the examples' scores; micro: the "
           "scores of the counts summed over all examples (not with multi_ref max_pr or "
           "mean_prf, nor profile py_rouge)", choices=AGGREGATIONS),
    Option("length_limit_words", int, None, "keep the first N words of every text "
           "(ROUGE-1.5.5's -l; profile py_rouge: py-rouge's length_limit_type=\"words\", "
           "line by line)", low=1, high=MAX_LENGTH_LIMIT, none="no limit",
           rule=_LIMIT_RULE),
    Option("length_limit_bytes", int, None, "keep the first N bytes of every text "
           "(ROUGE-1.5.5's -b; profile py_rouge: py-rouge's length_limit_type=\"bytes\", "
           "which counts characters, line by line)", low=1, high=MAX_LENGTH_LIMIT,
           none="no limit; py_rouge's: 665 characters",
           rule=_LIMIT_RULE),
    Option("split_sentences", bool, False, "split sentences with a rule-based splitter "
           "before rougeLsum and rougeW (which compare sentence by sentence)"),
    Option("lang", str, None, "XL-Sum's multilingual ROUGE of a language: its tokenizer, "
           "segmenter and stemmer; with profile pltrdy or rouge_chinese, zh cuts the text "
           "with jieba first, as LongBench and LLaMA-Factory do", examples=LANGUAGE_CODES,
           none="the tokenizer option applies", rule="None, an ISO 639-1 code (zh, hi, ar, "
           "...) or XL-Sum's language name (chinese_simplified, ...); with profile "
           "rouge_score and no tokenizer, or zh with profile pltrdy or rouge_chinese"),
)
OPTION = {option.name: option for option in OPTIONS}


def options_doc(indent: int = 4, width: int = 100) -> str:
    """The options' part of compute()'s Args docs: one entry per option, in signature order."""
    lines = []
    for option in OPTIONS:
        text = (f"{option.name} ({option.type.__name__}, default {option.default_text()}): "
                f"{option.help}. Allowed: {option.allowed}.")
        lines += textwrap.wrap(text, width, initial_indent=" " * indent,
                               subsequent_indent=" " * (indent + 4))
    return "\n".join(lines) + "\n"


def options_table() -> str:
    """The README's options table, in markdown."""
    rows = ["| option | default | allowed | what it does |", "|---|---|---|---|"]
    for option in OPTIONS:
        default = f"`{option.default!r}`" + (f" ({_markdown(option.none)})" if option.none
                                              else "")
        rows.append(f"| `{option.name}` | {default} | {_markdown(option.allowed)} | "
                    f"{_markdown(option.help)} |")
    return "\n".join(rows) + "\n"


def kinds_table() -> str:
    """The README's table of the ROUGE kinds (those of KINDS now), in markdown."""
    rows = ["| kind | names | what it counts |", "|---|---|---|"]
    for kind in KINDS.values():
        profiles = "" if kind.profiles is None else \
            f" (profile {' or '.join(kind.profiles)} only)"
        rows.append(f"| {kind.label} | {_markdown(kind.grammar)} | "
                    f"{_markdown(kind.unit + profiles)} |")
    return "\n".join(rows) + "\n"


def _markdown(text: str) -> str:
    """Plain text as it reads in a markdown table cell: "|" does not end the cell, "2**64"
    starts no bold, and "rouge<N>" is not an HTML tag (only a "<" before a letter starts one)."""
    text = text.replace("|", "\\|").replace("*", "\\*")
    return re.sub(r"<(?=[A-Za-z])", r"\\<", text)


class RougeWarning(UserWarning):
    """Valid input that probably does not mean what the caller thinks."""


def parse_rouge_type(name: object) -> RougeType:
    """Parse one rouge type name: the first kind of KINDS whose parse takes it
    (``ROUGE_TYPE_GRAMMAR`` says which names they take); ValueError otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"rouge_types: each type must be a str, got {name!r} "
                        f"({type(name).__name__}); allowed: {rouge_type_grammar()}")
    for kind in KINDS.values():
        parsed = kind.parse(name)
        if parsed is not None:
            return parsed
    near = did_you_mean(name, OPTION["rouge_types"].examples)
    raise ValueError(f"rouge_types: invalid type {name[:60]!r}{near}; "
                     f"allowed: {rouge_type_grammar()}")


def _number(option: Option, value):
    """value as the option's int or float, within its bounds; TypeError/ValueError otherwise."""
    kinds = (int, np.integer) if option.type is int else (int, float, np.integer, np.floating)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, kinds):
        raise TypeError(f"{option.name}: got {value!r} ({type(value).__name__}); allowed: "
                        f"{option.allowed}")
    try:
        value = option.type(value)
    except OverflowError:  # an int too large for a float (alpha=10**400): out of bounds
        raise ValueError(f"{option.name}: got {value!r:.80}; allowed: {option.allowed}") \
            from None
    inside = (option.low < value < option.high) if option.strict else \
        (option.low <= value <= option.high)
    if not inside:  # also rejects NaN
        raise ValueError(f"{option.name}: got {value!r:.80}; allowed: {option.allowed}")
    return value


def _flag(option: Option, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{option.name}: got {value!r} ({type(value).__name__}); allowed: "
                        f"{option.allowed}")
    return bool(value)


def _choice(option: Option, value) -> str:
    if not isinstance(value, str) or value not in option.choices:
        raise ValueError(f"{option.name}: got {value!r}{did_you_mean(value, option.choices)}; "
                         f"allowed: {', '.join(option.choices)}")
    return value


_BUILT: dict = {}  # memo key -> RougeOptions (frozen, so shared safely between threads)
KIND_MEMOS.append(_BUILT)  # (options hold parsed types: forgotten when a kind comes or goes)
_BUILT_MAX = 256
_PLAIN = (str, int, float, bool, type(None))


def _memo_key(given: dict):
    """A hashable key of plain option values, or None where one is not plain (a callable
    tokenizer, a Profile object): those are checked on every call. Types are part of the key,
    so True and 1 (which compare equal) are never confused, and floats are keyed by their
    bits (-0.0 and 0.0 compare equal but sign the signature differently). (A test that hides
    a language's package empties the memo too.)"""
    key = []
    for name, value in sorted(given.items()):
        if type(value) is float:
            key.append((name, float, value.hex()))
        elif type(value) in _PLAIN:
            key.append((name, type(value), value))
        elif type(value) in (list, tuple) and all(type(v) is str for v in value):
            key.append((name, type(value), tuple(value)))
        else:
            return None
    return tuple(key)


@dataclass(frozen=True)
class RougeOptions:
    """One call's options, checked (``build``): the fields are OPTIONS' names, in order, and
    hold the resolved objects: RougeType tuples, a Profile, a TokenizerProfile."""

    rouge_types: tuple
    use_aggregator: bool
    use_stemmer: bool
    tokenizer: TokenizerProfile
    alpha: float
    multi_ref: str
    remove_stopwords: bool
    n_samples: int
    confidence: float
    seed: int
    detailed: bool
    profile: Profile
    aggregation: str
    length_limit_words: int | None
    length_limit_bytes: int | None
    split_sentences: bool
    lang: str | None  # the ISO code of XL-Sum's multilingual ROUGE (text.lang)

    @classmethod
    def names(cls) -> tuple:
        """The option names, in the order of compute()'s parameters."""
        return tuple(OPTION)

    @classmethod
    def defaults(cls) -> dict:
        return {option.name: option.default for option in OPTIONS}

    @classmethod
    def build(cls, **given) -> RougeOptions:
        """The checked options of compute()'s keyword arguments; ValueError/TypeError naming
        the argument. Options given as plain values (names, numbers, lists of names) are
        checked once per process and then looked up (a small call pays ~1 us, not ~50)."""
        key = _memo_key(given)
        options = _BUILT.get(key) if key is not None else None
        if options is None:
            options = cls._build(**given)
            if key is not None:
                if len(_BUILT) >= _BUILT_MAX:
                    _BUILT.clear()  # a bound, not an LRU: a process uses a few option sets
                _BUILT[key] = options
        return options

    @classmethod
    def _build(cls, **given) -> RougeOptions:
        """build's work, uncached: each option checked in turn; the first bad one is reported."""
        _check_names(given, cls.names())
        raw = {**cls.defaults(), **given}
        profile = _profile(raw["profile"])
        rouge_types = _rouge_types(raw["rouge_types"], profile)
        if raw["use_stemmer"] is None:  # the profile's (py-rouge stems unless told not to)
            raw["use_stemmer"] = profile.stems_by_default
        flags = {option.name: _flag(option, raw[option.name]) for option in OPTIONS
                 if option.type is bool}
        tokenizer, lang = _tokenizer_and_lang(raw["tokenizer"], raw["lang"], profile)
        alpha = profile.alpha if raw["alpha"] is None else _number(OPTION["alpha"], raw["alpha"])
        multi_ref = _multi_ref(raw["multi_ref"], profile)
        n_samples = _number(OPTION["n_samples"], raw["n_samples"])
        confidence = _number(OPTION["confidence"], raw["confidence"])
        seed = _number(OPTION["seed"], raw["seed"])
        aggregation = _aggregation(raw["aggregation"], multi_ref, profile)
        limits = _length_limits(raw, profile)
        return cls(rouge_types=rouge_types, tokenizer=tokenizer, alpha=alpha,
                   multi_ref=multi_ref, n_samples=n_samples, confidence=confidence, seed=seed,
                   profile=profile, aggregation=aggregation,
                   length_limit_words=limits.get("length_limit_words"),
                   length_limit_bytes=limits.get("length_limit_bytes"), lang=lang, **flags)

    @property
    def stemmer(self) -> str | None:
        """The stemmer the tokenizer applies: the profile's ('porter' as rouge_score,
        'rouge155' Lin's Porter + WordNet exceptions, 'py_rouge' py-rouge's nltk original
        Porter + WordNet exceptions + its own) when use_stemmer is set and the
        tokenizer stems, a language's own (None for a language without one); None
        otherwise."""
        if not (self.use_stemmer and self.tokenizer.stems):
            return None
        if isinstance(self.tokenizer, LanguageTokenizer):
            return self.tokenizer.stemmer_name
        return self.profile.stemmer

    def _alpha_label(self) -> str:
        """alpha as the signature shows it: the profile's own label at its own weight (coco's
        F is not the alpha formula's at any printed alpha), else the number."""
        if self.profile.alpha_label and self.alpha == self.profile.alpha:
            return self.profile.alpha_label
        return f"{self.alpha:g}"

    def fscore(self, p: np.ndarray, r: np.ndarray) -> np.ndarray:
        """F of these P and R, by the profile's rule at this alpha."""
        return self.profile.f_rule(p, r, self.alpha)

    @property
    def micro(self) -> bool:
        return self.aggregation == "micro"

    def as_kwargs(self) -> dict:
        """The options as compute()'s keyword arguments (names, not objects): what
        ``build`` turns back into these options. A callable tokenizer cannot be named."""
        if self.tokenizer is not self.profile.tokenizer and self.lang is None and \
                TOKENIZERS.get(self.tokenizer.name) is not self.tokenizer:
            raise ValueError(f"tokenizer: {self.tokenizer.name} cannot be serialized; allowed: "
                             f"a named tokenizer ({', '.join(TOKENIZERS)})")
        kwargs = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        kwargs.update(rouge_types=[t.name for t in self.rouge_types],
                      profile=self.profile.name,
                      tokenizer=None if self.profile.tokenizer or self.lang else
                      self.tokenizer.name)
        return kwargs

    def signature(self) -> str:
        """Every setting that changes a number, in the style of sacrebleu's signatures."""
        if isinstance(self.tokenizer, LanguageTokenizer):
            stem = stemmer_signature(self.tokenizer) if self.use_stemmer else "no"
        elif self.stemmer == "porter":
            stem = f"porter-nltk{nltk_version()}"
        elif self.stemmer == "rouge155":
            stem = "rouge155-porter+wordnet2.0"
        elif self.stemmer == "py_rouge":  # nltk's Porter may change with nltk's version
            stem = f"py_rouge-porter_original-nltk{nltk_version()}+wordnet2.0+138"
        else:
            stem = f"ignored(tok:{self.tokenizer.name})" if self.use_stemmer else "no"
        parts = [
            "+".join(t.name for t in self.rouge_types),
            f"profile:{self.profile.name}",
            *([f"lang:{self.lang}"] if self.lang is not None else []),
            f"tok:{self.tokenizer.signature()}",
            f"stem:{stem}",
            f"stop:{'smart' if self.remove_stopwords else 'no'}",
            f"multiref:{self.multi_ref}",
            f"alpha:{self._alpha_label()}",
            f"agg:{self.aggregation if self.use_aggregator else 'none'}",
        ]
        words, chars = self.length_limit_words, self.length_limit_bytes
        if self.profile.truncators is not None:
            # the program's own limits, on by default: always shown; c for characters
            parts.append(f"limit:{words}w" if words else f"limit:{chars}c" if chars
                         else "limit:none")
        elif words is not None:
            parts.append(f"limit:{words}w")
        elif chars is not None:
            parts.append(f"limit:{chars}b")
        if self.split_sentences:
            parts.append("split:rules")
        if self.use_aggregator:
            parts.append(f"bs:{self.n_samples}")
            parts.append(f"ci:{self.confidence:g}")
            parts.append(self.profile.seed_label(self.seed))
        parts.append(f"version:{__version__}")
        return "|".join(parts)


def did_you_mean(given, names) -> str:
    """" (did you mean 'use_aggregator'?)" for the names nearest a misspelled one (difflib's
    ratio, as Python's own NameError hints), or "" where none is near."""
    if not isinstance(given, str):
        return ""
    names = list(names)
    folded = {name.lower(): name for name in names}  # "rougel", "ROUGE-L": case and dashes
    key = given.lower().replace("-", "")
    near = [folded[key]] if key in folded else \
        difflib.get_close_matches(given[:100], names, n=2, cutoff=0.75)
    return f" (did you mean {' or '.join(map(repr, near))}?)" if near else ""


def _check_names(given: dict, names: tuple) -> None:
    """A TypeError naming the first (sorted) keyword that is not an option."""
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise TypeError(f"{unknown[0]}: not an option{did_you_mean(unknown[0], names)}; "
                        f"allowed: {', '.join(names)}")


def _profile(value) -> Profile:
    """The profile option as a Profile: one, or the name of one."""
    profile = value
    if not isinstance(profile, Profile):
        profile = PROFILES.get(profile) if isinstance(profile, str) else None
        if profile is None:
            raise ValueError(f"profile: got {value!r}{did_you_mean(value, PROFILES)}; "
                             f"allowed: {', '.join(PROFILES)}")
    return profile


def _rouge_types(value, profile: Profile) -> tuple:
    """The rouge_types option (None: the profile's or the default) as distinct RougeTypes."""
    rouge_types = (profile.rouge_types or DEFAULT_ROUGE_TYPES) if value is None else value
    if isinstance(rouge_types, str):
        rouge_types = [rouge_types]
    if not isinstance(rouge_types, (list, tuple)) or not rouge_types:
        raise ValueError(f"rouge_types: got {rouge_types!r}; expected a non-empty list of "
                         f"names: {rouge_type_grammar()}")
    parsed = tuple(t if isinstance(t, RougeType) else parse_rouge_type(t)
                   for t in rouge_types)
    names = [t.name for t in parsed]
    if len(set(names)) != len(names):
        raise ValueError(f"rouge_types: got duplicates in {names!r}")
    for t in parsed:
        if not t.spec.scored_by(profile):
            raise ValueError(f"rouge_types: got {t.name!r} with profile={profile.name!r}, "
                             f"which does not score {t.spec.label}; allowed with that "
                             f"profile: {rouge_type_grammar(profile)}")
    return parsed


def _tokenizer_and_lang(tokenizer, lang, profile: Profile) -> tuple:
    """(TokenizerProfile, ISO code or None) of the tokenizer and lang options."""
    if lang is not None:
        return _language_tokenizer(tokenizer, lang, profile)
    resolved = _tokenizer_profile(tokenizer, profile)
    if isinstance(resolved, LanguageTokenizer):
        return resolved, resolved.language.code
    return resolved, None


def _language_tokenizer(tokenizer, lang, profile: Profile) -> tuple:
    """(TokenizerProfile, ISO code) of a lang option, which chooses the tokenizer."""
    language = resolve_language(lang)
    if profile.tokenizer is not None and language.code not in profile.languages:
        allowed = ", ".join(repr(code) for code in profile.languages)
        raise ValueError(f"lang: got {lang!r} with profile={profile.name!r}, "
                         f"which has its own tokenizer; allowed: "
                         f"{allowed + ' or ' if allowed else ''}lang=None with the "
                         f"{profile.name} profile, or lang with profile='rouge_score'")
    if tokenizer not in (None, "default"):
        raise ValueError(f"tokenizer: got {tokenizer!r} with lang="
                         f"{lang!r}; the language chooses the tokenizer "
                         "(allowed: tokenizer=None with lang)")
    if profile.tokenizer is not None:  # its scripts cut the text into words first
        cut, cut_name = segmenter(language)
        resolved = dataclasses.replace(profile.tokenizer, segmenter=cut,
                                       name=f"{profile.tokenizer.name}+{cut_name}")
    else:
        resolved = language_tokenizer(language)
    return resolved, language.code


def _multi_ref(value, profile: Profile) -> str:
    """The multi_ref option, one the profile allows (None: the profile's default)."""
    multi_ref = value if value is not None else profile.multi_ref_default
    theirs = dict(profile.foreign_modes)
    if multi_ref in theirs and multi_ref not in profile.multi_ref_allowed:
        # a name of the program's own (torchmetrics' accumulate="best") that means another
        # mode here, or none: name ours
        raise ValueError(f"multi_ref: got {multi_ref!r}; the {profile.name} profile allows "
                         f"{', '.join(profile.multi_ref_allowed)} ({profile.program}'s own "
                         f"{multi_ref!r} mode is multi_ref={theirs[multi_ref]!r} here)")
    _choice(OPTION["multi_ref"], multi_ref)
    if multi_ref not in profile.multi_ref_allowed:
        raise ValueError(f"multi_ref: got {multi_ref!r}; the {profile.name} profile allows "
                         f"{', '.join(profile.multi_ref_allowed)}")
    return multi_ref


def _aggregation(value, multi_ref: str, profile: Profile) -> str:
    """The aggregation option: micro only where multi_ref leaves counts to pool, and the
    profile has it (py-rouge averages the examples' scores only)."""
    aggregation = _choice(OPTION["aggregation"], value)
    if aggregation not in profile.aggregations:
        raise ValueError(f"aggregation: got {aggregation!r} with profile={profile.name!r}; "
                         f"allowed: {', '.join(map(repr, profile.aggregations))} "
                         f"({profile.program} has no other)")
    if aggregation == "micro" and multi_ref in ("max_pr", "mean_prf"):
        raise ValueError(f"aggregation: got 'micro' with multi_ref={multi_ref!r}; allowed: "
                         f"'macro' ({multi_ref}'s scores are not those of one set of counts: "
                         "there are no counts to pool), or another multi_ref")
    return aggregation


def _length_limits(raw: dict, profile: Profile) -> dict:
    """The length limit given, if any: {name: limit}, at most one of the two. A profile with
    limits of its own (py_rouge) takes 0 for no limit (py-rouge's length_limit=0), and cuts
    at its default where none is given."""
    limits = {}
    for name in ("length_limit_words", "length_limit_bytes"):
        if raw[name] is not None:
            option = OPTION[name]
            if profile.truncators is not None:
                option = dataclasses.replace(option, low=0)
            limits[name] = _number(option, raw[name])
    if len(limits) == 2:
        raise ValueError("length_limit_words and length_limit_bytes: got both; allowed: "
                         "at most one (as ROUGE-1.5.5's -l and -b)")
    if not limits and profile.default_length_limit is not None:
        limits["length_limit_bytes"] = profile.default_length_limit
    return limits


def _tokenizer_profile(tokenizer, profile: Profile) -> TokenizerProfile:
    """The tokenizer option as a TokenizerProfile; a profile with its own tokenizer refuses
    any other."""
    named = ", ".join(TOKENIZERS)
    if isinstance(tokenizer, TokenizerProfile):
        resolved = tokenizer
    elif tokenizer is None:
        resolved = profile.tokenizer or TOKENIZERS["default"]
    elif isinstance(tokenizer, str):
        if tokenizer not in TOKENIZERS:
            raise ValueError(f"tokenizer: got {tokenizer!r}; allowed: a callable "
                             f"str -> list[str] or one of {named}")
        resolved = TOKENIZERS[tokenizer]
    elif callable(tokenizer):
        resolved = callable_tokenizer(tokenizer)
    else:
        raise TypeError(f"tokenizer: got {tokenizer!r} ({type(tokenizer).__name__}); "
                        f"allowed: a callable str -> list[str] or one of {named}")
    if profile.tokenizer is not None and resolved is not profile.tokenizer \
            and resolved is not TOKENIZERS["default"]:
        raise ValueError(f"tokenizer: got {resolved.name!r}; the {profile.name} profile uses "
                         f"its own tokenizer (tokenizer=None or 'default')")
    return profile.tokenizer or resolved
