"""The options schema: every setting that changes a number, its default, its bound, and the
signature that records it.

``RougeOptions`` is the schema: its fields and their defaults are the options of
``compute()``, ``add``/``add_batch`` + ``compute()``, the CLI and the Space (the tests check
``_compute``'s parameter list and the CLI against these fields). ``RougeOptions.build`` checks
every value against its bound before any work, and resolves names to objects: the rouge types
to ``RougeType``, the profile to a ``Profile``, the tokenizer to a ``TokenizerProfile``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional, Union

import numpy as np

from .rouge_lang import (
    LanguageTokenizer,
    language_tokenizer,
    resolve_language,
    stemmer_signature,
)
from .rouge_profiles import (
    PROFILES,
    TOKENIZERS,
    Profile,
    TokenizerProfile,
    callable_tokenizer,
    nltk_version,
)

__version__ = "0.3.0"

DEFAULT_ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
DEFAULT_SEED = 12345
MULTI_REF_MODES = ("max", "average", "best")
AGGREGATIONS = ("macro", "micro")

# Bounds (each checked before any work; see the README's option table)
MAX_NGRAM = 1000  # N of rouge<N>
MAX_SKIP = 2 ** 40  # d of rougeS<d>/rougeSU<d> at or above this is the unlimited count
# ROUGE-W's w. ROUGE-1.5.5 weights the reference twice: its recall divides by (sum of
# len^w)^w, up to n^(w^2) for n tokens (summed over examples under micro aggregation, still at
# most total^(w^2)). With w <= 5 and at most 2^40 tokens that is <= 2^1000: finite, and the
# ratio hit / den >= 2^-1000 a normal float, so f and f^-1 stay accurate. (w = 10 overflowed
# to inf, a silent recall of 0, from 1,250 tokens on.)
MAX_W_WEIGHT = 5.0
MAX_SAMPLES = 100_000  # n_samples: memory grows with it (not with n_samples x examples)
MAX_SEED = 2 ** 64 - 1

ROUGE_TYPE_GRAMMAR = (
    f"rouge<N> (1 <= N <= {MAX_NGRAM}), rougeL, rougeLsum, rougeW or rougeW-<weight> "
    f"(1 < weight <= {MAX_W_WEIGHT:g}, e.g. rougeW-1.5), rougeS<d> / rougeSU<d> (d >= 0 tokens "
    "may lie between the two words) or rougeS / rougeSU (no distance limit)"
)


class RougeWarning(UserWarning):
    """Valid input that probably does not mean what the caller thinks."""


@dataclass(frozen=True)
class RougeType:
    """One requested type, parsed: kind is 'n', 'L', 'Lsum', 'W', 'S' or 'SU'."""

    name: str
    kind: str
    n: int = 0
    weight: float = 0.0
    max_skip: int = -1  # S/SU: tokens allowed between the two words; -1 means no limit


def parse_rouge_type(name: object) -> RougeType:
    """Parse one rouge type name per ``ROUGE_TYPE_GRAMMAR``; ValueError otherwise."""
    if not isinstance(name, str):
        raise TypeError(f"rouge_types: each type must be a str, got {name!r} "
                        f"({type(name).__name__}); allowed: {ROUGE_TYPE_GRAMMAR}")
    bad = ValueError(f"rouge_types: invalid type {name[:60]!r}; allowed: {ROUGE_TYPE_GRAMMAR}")
    if name == "rougeL":
        return RougeType(name, "L")
    if name == "rougeLsum":
        return RougeType(name, "Lsum")
    rest = name[5:] if name.startswith("rouge") else ""
    if rest.isdigit() and rest.isascii():
        if rest.startswith("0") or len(rest) > len(str(MAX_NGRAM)) or int(rest) > MAX_NGRAM:
            raise bad
        return RougeType(name, "n", n=int(rest))
    if rest == "W":
        return RougeType(name, "W", weight=1.2)
    if rest.startswith("W-"):
        try:
            weight = float(rest[2:])
        except ValueError:
            raise bad from None
        if not (1.0 < weight <= MAX_W_WEIGHT):  # also rejects NaN and inf
            raise bad
        return RougeType(name, "W", weight=weight)
    for kind in ("SU", "S"):
        if rest.startswith(kind):
            distance = rest[len(kind):]
            if distance == "":
                return RougeType(name, kind, max_skip=-1)
            if not (distance.isdigit() and distance.isascii()):
                raise bad
            # a distance at or above any text's length counts every skip-bigram: stored
            # bounded, so that no kernel index can overflow (int() of a long string, too)
            far = len(distance) > len(str(MAX_SKIP)) or int(distance) >= MAX_SKIP
            return RougeType(name, kind, max_skip=MAX_SKIP if far else int(distance))
    raise bad


def _real(name, value, lo, hi, allowed) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                     np.floating)):
        raise TypeError(f"{name}: got {value!r} ({type(value).__name__}); allowed: {allowed}")
    value = float(value)
    if not (lo <= value <= hi):  # also rejects NaN
        raise ValueError(f"{name}: got {value!r}; allowed: {allowed}")
    return value


def _integer(name, value, lo, hi, allowed) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: got {value!r} ({type(value).__name__}); allowed: {allowed}")
    if not lo <= value <= hi:
        raise ValueError(f"{name}: got {value!r}; allowed: {allowed}")
    return int(value)


def _flag(name, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: got {value!r} ({type(value).__name__}); allowed: True or False")
    return bool(value)


def _choice(name, value, allowed) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name}: got {value!r}; allowed: {', '.join(allowed)}")
    return value


@dataclass(frozen=True)
class RougeOptions:
    """The options and their defaults (the schema); ``build`` validates and resolves them."""

    rouge_types: Optional[tuple] = None  # None: DEFAULT_ROUGE_TYPES, as evaluate's rouge
    use_aggregator: bool = True
    use_stemmer: bool = False
    tokenizer: Union[None, str, Callable, TokenizerProfile] = None
    alpha: float = 0.5
    multi_ref: Optional[str] = None  # None: the profile's default ("max"; rouge155: "average")
    remove_stopwords: bool = False
    n_samples: int = 1000
    confidence: float = 0.95
    seed: int = DEFAULT_SEED
    detailed: bool = False
    profile: Union[str, Profile] = "rouge_score"
    aggregation: str = "macro"
    length_limit_words: Optional[int] = None
    length_limit_bytes: Optional[int] = None
    split_sentences: bool = False
    lang: Optional[str] = None  # XL-Sum's multilingual ROUGE of a language (rouge_lang)

    @classmethod
    def names(cls) -> tuple:
        """The option names, in the order of compute()'s parameters."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def defaults(cls) -> dict:
        return {f.name: f.default for f in dataclasses.fields(cls)}

    @classmethod
    def build(cls, **given) -> "RougeOptions":
        unknown = sorted(set(given) - set(cls.names()))
        if unknown:
            raise TypeError(f"{unknown[0]}: not an option; allowed: {', '.join(cls.names())}")
        raw = {**cls.defaults(), **given}
        if raw["rouge_types"] is None:
            raw["rouge_types"] = DEFAULT_ROUGE_TYPES

        profile = raw["profile"]
        if not isinstance(profile, Profile):
            profile = PROFILES.get(profile) if isinstance(profile, str) else None
            if profile is None:
                raise ValueError(f"profile: got {raw['profile']!r}; allowed: "
                                 f"{', '.join(PROFILES)}")

        rouge_types = raw["rouge_types"]
        if isinstance(rouge_types, str):
            rouge_types = [rouge_types]
        if not isinstance(rouge_types, (list, tuple)) or not rouge_types:
            raise ValueError(f"rouge_types: got {rouge_types!r}; expected a non-empty list of "
                             f"names: {ROUGE_TYPE_GRAMMAR}")
        parsed = tuple(t if isinstance(t, RougeType) else parse_rouge_type(t)
                       for t in rouge_types)
        names = [t.name for t in parsed]
        if len(set(names)) != len(names):
            raise ValueError(f"rouge_types: got duplicates in {names!r}")

        flags = {name: _flag(name, raw[name]) for name in (
            "use_aggregator", "use_stemmer", "remove_stopwords", "detailed", "split_sentences")}

        lang = None
        if raw["lang"] is not None:
            language = resolve_language(raw["lang"])
            if profile.tokenizer is not None:
                raise ValueError(f"lang: got {raw['lang']!r} with profile={profile.name!r}, "
                                 f"which has its own tokenizer; allowed: lang=None with the "
                                 f"{profile.name} profile, or lang with profile='rouge_score'")
            if raw["tokenizer"] not in (None, "default"):
                raise ValueError(f"tokenizer: got {raw['tokenizer']!r} with lang="
                                 f"{raw['lang']!r}; the language chooses the tokenizer "
                                 "(allowed: tokenizer=None with lang)")
            tokenizer = language_tokenizer(language)
            lang = language.code
        else:
            tokenizer = _tokenizer_profile(raw["tokenizer"], profile)
            if isinstance(tokenizer, LanguageTokenizer):
                lang = tokenizer.language.code
        alpha = _real("alpha", raw["alpha"], 0.0, 1.0, "a number with 0 <= alpha <= 1")
        multi_ref = raw["multi_ref"] if raw["multi_ref"] is not None else profile.multi_ref_default
        _choice("multi_ref", multi_ref, MULTI_REF_MODES)
        if multi_ref not in profile.multi_ref_allowed:
            raise ValueError(f"multi_ref: got {multi_ref!r}; the {profile.name} profile allows "
                             f"{', '.join(profile.multi_ref_allowed)}")
        n_samples = _integer("n_samples", raw["n_samples"], 1, MAX_SAMPLES,
                             f"an integer with 1 <= n_samples <= {MAX_SAMPLES:,}")
        confidence = _real("confidence", raw["confidence"], 0.0, 1.0,
                           "a number with 0 < confidence < 1")
        if not 0.0 < confidence < 1.0:
            raise ValueError(f"confidence: got {confidence!r}; allowed: 0 < confidence < 1")
        seed = _integer("seed", raw["seed"], 0, MAX_SEED, "an integer with 0 <= seed < 2**64")
        aggregation = _choice("aggregation", raw["aggregation"], AGGREGATIONS)
        limits = {}
        for name in ("length_limit_words", "length_limit_bytes"):
            if raw[name] is not None:
                limits[name] = _integer(name, raw[name], 1, 2 ** 62, "None or an integer >= 1")
        if len(limits) == 2:
            raise ValueError("length_limit_words and length_limit_bytes: got both; allowed: "
                             "at most one (as ROUGE-1.5.5's -l and -b)")
        return cls(rouge_types=parsed, tokenizer=tokenizer, alpha=alpha, multi_ref=multi_ref,
                   n_samples=n_samples, confidence=confidence, seed=seed, profile=profile,
                   aggregation=aggregation, length_limit_words=limits.get("length_limit_words"),
                   length_limit_bytes=limits.get("length_limit_bytes"), lang=lang, **flags)

    @property
    def stemmer(self) -> Optional[str]:
        """The stemmer the tokenizer applies: the profile's ('porter' as rouge_score,
        'rouge155' Lin's Porter + WordNet exceptions) when use_stemmer is set and the
        tokenizer stems, a language's own (None for a language without one); None
        otherwise."""
        if not (self.use_stemmer and self.tokenizer.stems):
            return None
        if isinstance(self.tokenizer, LanguageTokenizer):
            return self.tokenizer.stemmer_name
        return self.profile.stemmer

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
        if self.lang is not None:
            stem = stemmer_signature(self.tokenizer) if self.use_stemmer else "no"
        elif self.stemmer == "porter":
            stem = f"porter-nltk{nltk_version()}"
        elif self.stemmer == "rouge155":
            stem = "rouge155-porter+wordnet2.0"
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
            f"alpha:{self.alpha:g}",
            f"agg:{self.aggregation if self.use_aggregator else 'none'}",
        ]
        if self.length_limit_words is not None:
            parts.append(f"limit:{self.length_limit_words}w")
        if self.length_limit_bytes is not None:
            parts.append(f"limit:{self.length_limit_bytes}b")
        if self.split_sentences:
            parts.append("split:rules")
        if self.use_aggregator:
            parts.append(f"bs:{self.n_samples}")
            parts.append(f"ci:{self.confidence:g}")
            parts.append(self.profile.seed_label(self.seed))
        parts.append(f"version:{__version__}")
        return "|".join(parts)


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
