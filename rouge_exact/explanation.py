"""Which ROUGE is this number? ``explain`` scores the same texts under every convention the
package reproduces and says what separates them.

* ``explain(predictions, references)`` -> ``Explanation``: one ``Row`` per convention (each
  profile of ``profiles.PROFILES`` at its defaults, and the settings people vary), each with
  the options that reproduce it (``compute(**row.options)``), its signature and its corpus P,
  R and F per type.
* ``Explanation.walk(a, b)`` (or ``walk(...)``): from convention a to b, one setting at a time
  in the order of ``SETTINGS``; how much each step moves each score (exact ``Fraction``
  differences: the steps add up to the whole gap exactly), and the examples that move most.
* ``explain(..., match={"rouge1": 44.16, ...})`` / ``Explanation.match(...)``: the conventions
  whose scores round to every reported figure, nearest first (or none, and the nearest).
"""

# rouge_exact.explain is this module's explain (the module has another name: a submodule named
# explain, once imported, would stand in the package's namespace for the function).
#
# Work is shared between conventions: identical rows are scored once, each text is tokenized
# once per tokenizer view (tokenizer, stemmer, stopwords, splitting, limit), each column of
# counts is counted once per counting rule and view, and conventions that differ only after
# the counts (multi-reference rule, F, rounding, aggregation) reuse them. Intermediate states
# of a walk are hybrids: a Profile made with dataclasses.replace of one profile's fields by the
# other's, run by the same scorer functions as every call.

from __future__ import annotations

import dataclasses
import decimal
import hashlib
import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .api import check_inputs
from .arithmetic import MEASURES, exact_sums
from .kinds import kind_of
from .options import (
    DEFAULT_ROUGE_TYPES,
    MULTI_REF_MODES,
    OPTION,
    RougeOptions,
    parse_rouge_type,
)
from .profiles import PROFILES
from .scorer.aggregate import corpus_means, perl_aggregate, pooled_scores
from .kernels.backend import threads_here
from .kernels.pool import run_parts
from .scorer.pipeline import example_statistics, text_pair_statistics, texts_as_read
from .text.tokenizers import split_sentences as split_sentences_rule_based

__all__ = ["Explanation", "Match", "Row", "SETTINGS", "Step", "Walk", "explain", "walk"]

_CHUNK_ROWS = 256  # distinct rows a span of a job gets at least, on the kept pool

# The length limits ROUGE-1.5.5 was run with in the DUC evaluations: -l 100 (100 words), and
# DUC 2004's -b 665 and -b 75 (bytes), for the profile whose bootstrap is the script's own
# (bootstrap "perl": the script whose -l and -b these are); a profile with a limit of its own by
# default (py-rouge's 665 characters) varies it by turning it off (0).
DUC_LENGTH_LIMITS = ({"length_limit_words": 100}, {"length_limit_bytes": 665},
                     {"length_limit_bytes": 75})


def _length_limits(profile) -> tuple:
    if profile.default_length_limit is not None:
        return ({"length_limit_bytes": 0},)
    return DUC_LENGTH_LIMITS if profile.bootstrap == "perl" else ()


# --------------------------------------------------------------------------------------------
# The settings a walk changes, in the order it changes them


@dataclass(frozen=True)
class Setting:
    """One setting of a convention: the RougeOptions fields and Profile fields that make it."""

    name: str
    options: tuple = ()
    profile: tuple = ()


SETTINGS = (
    Setting("tokenizer", ("tokenizer", "lang"), ("tokenizer", "languages")),
    Setting("stemmer", ("use_stemmer",), ("stemmer", "stems_by_default")),
    Setting("stopwords", ("remove_stopwords",)),
    Setting("sentence splitting", ("split_sentences",)),
    Setting("length limit", ("length_limit_words", "length_limit_bytes"),
            ("truncators", "default_length_limit")),
    Setting("counting", (), ("counting", "signed_ngram_counts")),
    Setting("ROUGE-L definition", (), ("rouge_l", "clip_from_flat")),
    Setting("multi-reference rule", ("multi_ref",),
            ("sequential_sums", "reference_mean", "weighted_best_key")),
    Setting("F rule", ("alpha",), ("f_rule", "alpha")),
    Setting("rounding", (), ("rounding", "f_from_rounded", "power")),
    Setting("aggregation", ("aggregation", "n_samples", "confidence", "seed"),
            ("bootstrap", "corpus_mean", "aggregations")),
)
"""A walk's settings, in its order: the text first (what is counted), then how it is counted,
then how the counts become one number. Any other field in which two conventions differ is a
last step, "other"."""

# fields that change no number: names, messages, the signature's labels, what build() allows
_LABEL_OPTIONS = frozenset({"rouge_types", "use_aggregator", "detailed", "profile"})
_LABEL_PROFILE = frozenset({"name", "program", "kinds", "rouge_types", "multi_ref_default",
                            "multi_ref_allowed", "foreign_modes", "seed_label",
                            "alpha_label"})


def _same(x, y) -> bool:
    if x is y:
        return True
    try:
        return bool(x == y)
    except Exception:  # arrays and the like: only identity counts
        return False


def _differing(a: RougeOptions, b: RougeOptions) -> list:
    """The settings (SETTINGS' names, then "other") in which two option sets differ."""
    out = []
    for setting in SETTINGS:
        if any(not _same(getattr(a, f), getattr(b, f)) for f in setting.options) or any(
                not _same(getattr(a.profile, f), getattr(b.profile, f))
                for f in setting.profile):
            out.append(setting.name)
    if _other_fields(a, b):
        out.append("other")
    return out


def _other_fields(a: RougeOptions, b: RougeOptions) -> list:
    """The fields of the options and of their profiles that no setting names and that
    differ: a field a profile gained after SETTINGS was written."""
    named_options = set(_LABEL_OPTIONS).union(*(s.options for s in SETTINGS))
    named_profile = set(_LABEL_PROFILE).union(*(s.profile for s in SETTINGS))
    out = [f.name for f in dataclasses.fields(a) if f.name not in named_options
           and not _same(getattr(a, f.name), getattr(b, f.name))]
    out += [f"profile.{f.name}" for f in dataclasses.fields(a.profile)
            if f.name not in named_profile
            and not _same(getattr(a.profile, f.name), getattr(b.profile, f.name))]
    return out


def _hybrid(a: RougeOptions, b: RougeOptions, done: set) -> RougeOptions:
    """a with b's fields of the settings in ``done`` ("other": every field no setting names
    and no label), run as one option set: a Profile made by dataclasses.replace, which the
    scorer runs like any (it reads the profile's fields, never its name)."""
    from_b_options, from_b_profile = set(), set()
    for setting in SETTINGS:
        if setting.name in done:
            from_b_options.update(setting.options)
            from_b_profile.update(setting.profile)
    if "other" in done:
        for name in _other_fields(a, b):
            if name.startswith("profile."):
                from_b_profile.add(name.removeprefix("profile."))
            else:
                from_b_options.add(name)
    profile = dataclasses.replace(
        a.profile, name=f"{a.profile.name}>{b.profile.name}", kinds=None,
        multi_ref_allowed=MULTI_REF_MODES,
        **{f: getattr(b.profile, f) for f in from_b_profile})
    return dataclasses.replace(a, profile=profile,
                               **{f: getattr(b, f) for f in from_b_options})


def _name(value) -> str:
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(map(_name, value)) + ")"
    if isinstance(value, str):
        return value
    return getattr(value, "__name__", None) or getattr(value, "name", None) or repr(value)


# What a profile field's value does, in words (a walk's steps show them): the field, then
# the value (a function by its name) -> its words. A field not here shows as field=value.
_WORDS = {
    "rouge_l": {"lcs": "the LCS of the whole texts",
                "union": "summary-level: each reference sentence's union LCS with the "
                         "summary's sentences",
                "set_union": "pltrdy's: the distinct words on the LCS of each pair of "
                             "sentences"},
    "clip_from_flat": {True: "union-LCS hits capped by the whole texts' word counts",
                       False: "union-LCS hits capped by the sentences' word counts"},
    "counting": {"clipped": "n-grams counted with repeats, hits clipped",
                 "distinct": "distinct n-grams (each counted once)"},
    "signed_ngram_counts": {True: "a text of fewer than n tokens counts len - n + 1 "
                                  "n-grams (0 or fewer)",
                            False: "a text of fewer than n tokens has no n-grams"},
    "sequential_sums": {True: "references' counts added left to right",
                        False: "references' counts added in numpy's order"},
    "reference_mean": {"reference_means": "means of references in float64",
                       "torch_float32_means": "means of references in float32, as torch"},
    "weighted_best_key": {None: "best ROUGE-W reference by its recall",
                          "py_rouge_weighted_key": "best ROUGE-W reference by py-rouge's key"},
    "f_rule": {"fscore": "F = PR / ((1 - alpha) P + alpha R)",
               "coco_fscore": "coco's F, (1 + beta^2) PR / (R + beta^2 P)",
               "eps_fscore": "F = 2PR / (P + R + 1e-8)",
               "py_rouge_fscore": "py-rouge's F, 0 where P or R is 0"},
    "rounding": {"no_rounding": "no rounding",
                 "_perl_round5": "P, R and F rounded to 5 decimals (the script's %.5f)",
                 "float32_rounding": "P, R and F as float32 (torch tensors)"},
    "f_from_rounded": {True: "F of the rounded P and R", False: "F rounded on its own"},
    "bootstrap": {"poisson": "interval: Poisson bootstrap",
                  "perl": "the script's bootstrap (drand48 draws)"},
    "corpus_mean": {"exact": "corpus mean: exact", "sequential":
                    "corpus mean: added left to right in input order (py-rouge's)"},
    "aggregations": {"(macro, micro)": "macro or micro", "(macro)": "macro only"},
}


def _field_words(name: str, value) -> str:
    words = _WORDS.get(name, {})
    key = value if value is None or isinstance(value, (bool, str)) else _name(value)
    return words.get(key, f"{name}={_name(value)}")


def _stemmer_words(options: RougeOptions, other: RougeOptions) -> str:
    profile = options.profile
    if options.use_stemmer:
        words = options.stemmer or f"none ({options.tokenizer.name} does not stem)"
    else:
        words = "none"
        if profile.stemmer != other.profile.stemmer:
            words += f" (when on: {profile.stemmer})"
    if profile.stems_by_default != other.profile.stems_by_default:
        words += ", on by default" if profile.stems_by_default else ", off by default"
    return words


def _limit_words(options: RougeOptions, other: RougeOptions) -> str:
    profile = options.profile
    words_limit, bytes_limit = options.length_limit_words, options.length_limit_bytes
    own = profile.truncators is not None  # the program's own cut (py-rouge's)
    if words_limit:
        words = f"{words_limit} words"
    elif bytes_limit:
        words = f"{bytes_limit} characters" if own else f"{bytes_limit} bytes"
    else:
        words = "none"
    if own and words != "none":
        words += ", counted line by line"
    default = profile.default_length_limit
    if default and default != other.profile.default_length_limit:
        words += " (the default)" if bytes_limit == default and not words_limit \
            else f" (default: {default} characters)"
    return words


def _describe(setting: str, options: RougeOptions, other: RougeOptions) -> str:
    """A setting's value in words, with those of its profile fields that differ from
    other's."""
    profile = options.profile
    words = {
        "tokenizer": options.tokenizer.signature(),
        "stemmer": _stemmer_words(options, other),
        "stopwords": "SMART removed" if options.remove_stopwords else "kept",
        "sentence splitting": "rule-based" if options.split_sentences
        else "the lines as given",
        "length limit": _limit_words(options, other),
        "counting": _field_words("counting", profile.counting),
        "ROUGE-L definition": _field_words("rouge_l", profile.rouge_l),
        "multi-reference rule": options.multi_ref,
        "F rule": f"{_field_words('f_rule', profile.f_rule)}, alpha {options.alpha:.6g}",
        "rounding": _field_words("rounding", profile.rounding),
        "aggregation": f"{options.aggregation}, " + (
            f"mean of {options.n_samples} bootstrap samples (the script's draws)"
            if profile.keeps_rows else "exact mean"),
    }.get(setting, "")
    named = next((s for s in SETTINGS if s.name == setting), None)
    if named is None:  # "other": the fields no setting names
        fields = [name.removeprefix("profile.") for name in _other_fields(options, other)]
    else:  # those of the profile's fields the words above do not show
        shown = {"tokenizer", "languages", "stemmer", "stems_by_default", "truncators",
                 "default_length_limit", "counting", "rouge_l", "f_rule", "alpha",
                 "rounding", "bootstrap"}
        fields = [f for f in named.profile if f not in shown]
    extra = []
    for f in fields:
        mine = getattr(profile if hasattr(profile, f) else options, f)
        theirs = getattr(other.profile if hasattr(other.profile, f) else other, f)
        if not _same(mine, theirs):
            extra.append(_field_words(f, mine))
    return ", ".join(part for part in [words, *extra] if part)


# --------------------------------------------------------------------------------------------
# Scoring many conventions of the same rows


def _tokenizer_key(tokenizer, sentences: bool):
    """What a tokenizer's token view depends on: its class's batch method (and sentence
    method when the kind reads sentences) and its fields but the name, so that two tokenizers
    with the same flat tokens (torchmetrics' and the default: rouge_score's scan) share them."""
    if not dataclasses.is_dataclass(tokenizer):
        return ("object", id(tokenizer))
    cls = type(tokenizer)
    methods = (cls.batch,) + ((cls.sentence_batch, cls.has_sentences, cls.own_sentences,
                               cls.line_sentences) if sentences else ())
    key = (methods, tuple((f.name, getattr(tokenizer, f.name))
                          for f in dataclasses.fields(tokenizer) if f.name != "name"))
    try:
        hash(key)
    except TypeError:
        return ("object", id(tokenizer))
    return key


def _distinct_pairs(preds: list, refs: list) -> tuple:
    """(the distinct texts of these rows, each pair's prediction and reference as positions
    in them), the pairs in pair_statistics' order: row by row, each reference in turn."""
    at: dict = {}
    pred_at = [at.setdefault(t, len(at)) for t in preds]
    if all(isinstance(r, str) for r in refs):
        ref_at = [at.setdefault(t, len(at)) for t in refs]
    else:
        pred_at = [p for p, r in zip(pred_at, refs)
                   for _ in range(1 if isinstance(r, str) else len(r))]
        ref_at = [at.setdefault(t, len(at)) for r in refs
                  for t in ([r] if isinstance(r, str) else r)]
    return (list(at), np.array(pred_at, dtype=np.int64), np.array(ref_at, dtype=np.int64))


class _Scoring:
    """The distinct rows of one input and the columns of counts already counted for them."""

    def __init__(self, predictions, references):
        predictions, references = check_inputs(predictions, references)
        self.count = len(predictions)
        index, rows = {}, []
        inverse = np.empty(self.count, dtype=np.int64)
        for i, (p, r) in enumerate(zip(predictions, references)):
            key = (p, r if isinstance(r, str) else tuple(r))
            k = index.get(key)
            if k is None:
                k = index[key] = len(rows)
                rows.append(i)
            inverse[i] = k
        self.inverse = inverse  # input row -> its distinct row
        self.first = np.array(rows, dtype=np.int64)  # distinct row -> its first input row
        self.preds = [predictions[i] for i in rows]
        self.refs = [references[i] for i in rows]
        self.multi = any(not isinstance(r, str) and len(r) > 1 for r in self.refs)
        self.ref_counts = np.array([1 if isinstance(r, str) else len(r) for r in self.refs],
                                   dtype=np.int64)
        self._columns = {}  # column key -> float64[pairs, 3]
        self._split_changes = None
        self._bootstraps = {}  # the script's bootstrap means of rows already aggregated
        self._cuts = {}  # (a length limit's rule, text, limit...) -> the text it keeps

    def splitting_changes(self) -> bool:
        """Whether the rule-based splitter changes any text (else split rows count as
        unsplit ones)."""
        if self._split_changes is None:
            texts = itertools.chain(self.preds, *([r] if isinstance(r, str) else r
                                                  for r in self.refs))
            self._split_changes = any(self.cut(split_sentences_rule_based, t) != t
                                      for t in texts)
        return self._split_changes

    def _column_key(self, options: RougeOptions, rouge_type):
        kind = kind_of(options, rouge_type)
        split = options.split_sentences and self.splitting_changes()
        view = (_tokenizer_key(options.tokenizer, kind.sentences), options.stemmer,
                options.remove_stopwords, split, options.length_limit_words,
                options.length_limit_bytes)
        clip = options.profile.clip_from_flat if kind.sentences else None
        return (view, kind.kernel, kind.arguments, rouge_type.n, rouge_type.weight,
                rouge_type.max_skip, clip)

    def count_columns(self, many: list) -> None:
        """Count the columns these option sets need that are not counted yet: one job per
        option set that needs some, of the columns no other needs first, each text split and
        cut once for all (cut); every job's chunks on the kept pool at once, so that one job's
        Python (a string tokenizer, Punkt) runs beside another's kernels, which release the
        GIL (5-7% on 2 cores)."""
        jobs, claimed = [], set()
        for options in many:
            missing = {}
            for t in options.rouge_types:
                key = self._column_key(options, t)
                if key not in self._columns and key not in claimed:
                    claimed.add(key)
                    missing[key] = t
            if missing:
                jobs.append((dataclasses.replace(options, rouge_types=tuple(missing.values())),
                             list(missing)))
        if not jobs:
            return
        n = len(self.preds)
        parts = max(1, min(2 * threads_here(), n // _CHUNK_ROWS))
        bounds = np.linspace(0, n, parts + 1).astype(np.int64).tolist()
        spans = list(zip(bounds[:-1], bounds[1:]))
        chunks = run_parts(self._chunk_statistics,
                           [(todo, span) for todo, _ in jobs for span in spans])
        for k, (_, keys) in enumerate(jobs):
            stats = np.concatenate(chunks[k * len(spans):(k + 1) * len(spans)])
            for j, key in enumerate(keys):
                self._columns[key] = stats[:, j]
        self._cuts.clear()  # (the counts are kept; the texts as cut are not needed again:
        # splitting_changes() keeps its answer)

    def pair_values(self, options: RougeOptions) -> np.ndarray:
        """float64[pairs, types, 3]: pair_statistics' counts, each column counted once."""
        self.count_columns([options])
        return np.stack([self._columns[self._column_key(options, t)]
                         for t in options.rouge_types], axis=1)

    def _chunk_statistics(self, item: tuple) -> np.ndarray:
        """pair_statistics (float64[pairs, types, 3]) of one span of the distinct rows under
        one job's options, each distinct text of the span tokenized once (a reference is read
        by many rows; token ids are a tokenizer call's own, so a span's texts are tokenized
        together): a pair's counts are its own, whatever the span."""
        options, (lo, hi) = item
        return text_pair_statistics(
            options, *_distinct_pairs(self.preds[lo:hi], self.refs[lo:hi]), cut=self.cut)

    def cut(self, rule, text: str, *limit) -> str:
        """rule(text, *limit), each once: a text's split and cut by a length limit are the
        same for the rows with and without stemming (a dict's get and set are atomic: chunks
        on threads share it)."""
        key = (rule, text, *limit)
        out = self._cuts.get(key)
        if out is None:
            out = self._cuts[key] = rule(text, *limit)
        return out

    def examples(self, options: RougeOptions) -> tuple:
        """(scores, counts), float64[distinct rows, types, 3] each (example_statistics)."""
        return example_statistics(options, options.rouge_types, self.pair_values(options),
                                  self.ref_counts)

    def _column_bootstrap(self, options: RougeOptions, scores: np.ndarray,
                          counts: np.ndarray, j: int) -> tuple:
        """What the script's bootstrap means of type j's column depend on (its draws depend on
        the row count alone): a type whose numbers another type or convention has (rouge155's
        rougeL and rougeLsum; a limit that cuts no text) is aggregated once. (The distinct
        rows' numbers: every input row is one of them, so equal ones give equal columns.)"""
        return (hashlib.blake2b(scores[:, j].tobytes() + counts[:, j].tobytes()).digest(),
                self.count, options.micro, options.n_samples, options.confidence,
                options.alpha, options.profile.f_rule)

    def script_means(self, jobs: list) -> list:
        """The script's bootstrap means (mids) of each type of these (options, scores,
        counts) (per distinct row, as examples() gives them), over every input row: one pass
        of draws for all the columns not aggregated yet that share the option values the
        means depend on (aggregate.perl_aggregate: each column summed in draw order, as in a
        pass of its own). Returns each job's {type: {measure: mean}}."""
        groups: dict = {}
        keys = []
        for options, scores, counts in jobs:
            keys.append([self._column_bootstrap(options, scores, counts, j)
                         for j in range(scores.shape[1])])
            for j, key in enumerate(keys[-1]):
                if key not in self._bootstraps:  # the input rows' column (the counts
                    # under micro, else the scores: what perl_aggregate reads)
                    group = groups.setdefault(key[1:], (options, {}))
                    if key not in group[1]:
                        used = counts if options.micro else scores
                        group[1][key] = used[self.inverse, j]
        for options, columns in groups.values():
            result = perl_aggregate(options, columns, columns)
            for key, bounds in result.items():
                self._bootstraps[key] = {m: bounds[m][1] for m in MEASURES}
        return [{t.name: dict(self._bootstraps[key]) for t, key in
                 zip(options.rouge_types, job_keys)}
                for (options, _, _), job_keys in zip(jobs, keys)]

    def corpus(self, options: RougeOptions, scores: np.ndarray, counts: np.ndarray) -> dict:
        """{type: {measure: float}}: compute()'s corpus P, R and F (its detailed mids) of
        these per-example statistics (distinct rows), for every input row."""
        if options.profile.keeps_rows:  # the script's bootstrap: its mean of sample means
            return self.script_means([(options, scores, counts)])[0]
        scores, counts = scores[self.inverse], counts[self.inverse]
        names = [t.name for t in options.rouge_types]
        if options.micro:  # the scores of the summed counts (scorer.aggregate, exactly)
            sums, _ = exact_sums(counts.reshape(len(counts), -1))
            return {name: dict(zip(MEASURES, pooled_scores(options, *sums[3 * j:3 * j + 3])))
                    for j, name in enumerate(names)}
        means = corpus_means(options, scores.reshape(len(scores), -1)).tolist()
        return {name: dict(zip(MEASURES, means[3 * j:3 * j + 3]))
                for j, name in enumerate(names)}


# --------------------------------------------------------------------------------------------
# Rows


@dataclass(frozen=True)
class Row:
    """One convention: its name, the options that reproduce it (``compute(**options)``), its
    signature and its corpus scores ``{type: {"precision"|"recall"|"fmeasure": float}}``."""

    name: str
    options: dict
    signature: str
    scores: dict

    def as_dict(self) -> dict:
        return {"name": self.name, "options": dict(self.options), "signature": self.signature,
                "scores": {t: dict(s) for t, s in self.scores.items()}}


def _row_name(options: dict) -> str:
    """A convention's name: its profile, then its other options but the types."""
    rest = [f"{k}={v}" for k, v in options.items() if k not in ("profile", "rouge_types")]
    return " ".join([str(options.get("profile", OPTION["profile"].default)), *rest])


def _variants(profile, scoring: _Scoring, types) -> list:
    """The option dicts of one profile's rows: its defaults, and each setting people vary,
    one at a time, with stemming off and on (where its tokenizer stems)."""
    base = {"profile": profile.name}
    if types is not None:
        base["rouge_types"] = list(types)
    opts = RougeOptions.build(**base)
    stems = [profile.stems_by_default, not profile.stems_by_default] if opts.tokenizer.stems \
        else [profile.stems_by_default]
    reads_sentences = any(kind_of(opts, t).sentences for t in opts.rouge_types)
    out = []
    for stem in stems:
        # the profile's own stemming unsaid (py-rouge stems by default), the other said
        start = dict(base) if stem == profile.stems_by_default else {**base, "use_stemmer": stem}
        out.append(start)
        if reads_sentences and opts.tokenizer.has_sentences and \
                not opts.tokenizer.own_sentences:
            out.append({**start, "split_sentences": True})
        if scoring.multi:
            out += [{**start, "multi_ref": mode} for mode in MULTI_REF_MODES
                    if mode in profile.multi_ref_allowed and mode != opts.multi_ref]
        out += [{**start, **limit} for limit in _length_limits(profile)]
    return out


def _profile_types(profile, rouge_types) -> tuple | None:
    """The types of rouge_types a profile scores (None: its defaults); () if none."""
    if rouge_types is None:
        return None
    return tuple(name for name in rouge_types
                 if parse_rouge_type(name).spec.scored_by(profile))


# --------------------------------------------------------------------------------------------
# Walks


@dataclass(frozen=True)
class Moved:
    """An example that moves in a step: its index in the input, the type it moves most and
    its F before and after, and the tokens counted either side of the step, each text's as
    a list of sentences of tokens (``reference_tokens``: one (before, after) per reference).
    The tokens are the flat view's (under a byte limit, the sentence kinds read a little
    more of the text: pipeline.pair_statistics)."""

    index: int
    rouge_type: str
    before: float
    after: float
    prediction_tokens: tuple  # (before, after)
    reference_tokens: tuple  # ((before, after) per reference)

    def as_dict(self) -> dict:
        return {"index": self.index, "rouge_type": self.rouge_type, "before": self.before,
                "after": self.after,
                "prediction_tokens": {"before": self.prediction_tokens[0],
                                      "after": self.prediction_tokens[1]},
                "reference_tokens": [{"before": b, "after": a}
                                     for b, a in self.reference_tokens]}


@dataclass(frozen=True)
class Step:
    """One setting changed: its values before and after, the scores after the step, and how
    much it moved each score (``delta[type][measure]``, an exact Fraction)."""

    setting: str
    before: str
    after: str
    scores: dict
    delta: dict
    moved: tuple = ()
    state: RougeOptions | None = field(default=None, repr=False, compare=False)  # after it

    def as_dict(self) -> dict:
        return {"setting": self.setting, "before": self.before, "after": self.after,
                "scores": self.scores,
                "delta": {t: {m: float(d) for m, d in v.items()}
                          for t, v in self.delta.items()},
                "delta_exact": {t: {m: f"{d.numerator}/{d.denominator}"
                                    for m, d in v.items()} for t, v in self.delta.items()},
                "moved": [m.as_dict() for m in self.moved]}


@dataclass(frozen=True)
class Walk:
    """From convention ``start`` to ``end``, one setting at a time (SETTINGS' order): the
    scores of both, the steps, and the whole gap (exact Fractions; the steps' deltas add up
    to it exactly)."""

    start: str
    end: str
    start_scores: dict
    end_scores: dict
    steps: tuple
    gap: dict
    start_state: RougeOptions | None = field(default=None, repr=False, compare=False)

    @property
    def order(self) -> tuple:
        return tuple(step.setting for step in self.steps)

    def as_dict(self) -> dict:
        return {"start": self.start, "end": self.end, "start_scores": self.start_scores,
                "end_scores": self.end_scores, "steps": [s.as_dict() for s in self.steps],
                "gap": {t: {m: float(d) for m, d in v.items()} for t, v in self.gap.items()},
                "gap_exact": {t: {m: f"{d.numerator}/{d.denominator}" for m, d in v.items()}
                              for t, v in self.gap.items()}}

    def table(self, measure: str = "fmeasure", scale: float = 100.0) -> str:
        types = list(self.gap)
        width = max([len("start: " + self.start), len("end: " + self.end)] +
                    [len(s.setting) + 4 for s in self.steps] + [20])
        head = f"{'':{width}}" + "".join(f"{t:>12}" for t in types)
        lines = [f"{measure} x {scale:g}", head]

        def line(label, values, signed=False):
            fmt = "{:>+12.4f}" if signed else "{:>12.4f}"
            return f"{label:{width}}" + "".join(fmt.format(float(v) * scale) for v in values)

        lines.append(line("start: " + self.start,
                          [self.start_scores[t][measure] for t in types]))
        for s in self.steps:
            lines.append(line(s.setting, [s.delta[t][measure] for t in types], True))
            lines.append(f"    {s.before} -> {s.after}")
        lines.append(line("end: " + self.end, [self.end_scores[t][measure] for t in types]))
        lines.append(line("gap", [self.gap[t][measure] for t in types], True))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _tokens(options: RougeOptions, text: str) -> list:
    """The text's tokens as the scorer counts them (its flat view: texts_as_read)."""
    flat_text = texts_as_read(options, [text])[1][0]
    return options.tokenizer.tokens(flat_text, stemmer=options.stemmer,
                                    stopwords=options.remove_stopwords)


def _fractions(scores: dict) -> dict:
    return {t: {m: Fraction(v) for m, v in s.items()} for t, s in scores.items()}


def _minus(a: dict, b: dict) -> dict:
    return {t: {m: a[t][m] - b[t][m] for m in a[t]} for t in a}


# --------------------------------------------------------------------------------------------
# Reverse lookup


_SUFFIXES = {"precision": "precision", "recall": "recall", "fmeasure": "fmeasure",
             "f": "fmeasure", "p": "precision", "r": "recall"}


@dataclass(frozen=True)
class Figure:
    """One reported figure: the type and measure, the value as printed, its decimals."""

    key: str
    rouge_type: str
    measure: str
    value: decimal.Decimal
    decimals: int


def _figures(match) -> list:
    """The figures of ``match``, checked: ValueError naming the argument otherwise."""
    if not isinstance(match, Mapping) or not match:
        raise ValueError(f"match: got {match!r:.80}; allowed: a non-empty dict of reported "
                         "figures, e.g. {'rouge1': 44.16, 'rougeL_recall': '40.90'}")
    out = []
    for key, value in match.items():
        if not isinstance(key, str):
            raise ValueError(f"match: got the key {key!r}; allowed: a rouge type name, "
                             "optionally with _precision, _recall or _fmeasure")
        name, measure = key, "fmeasure"
        head, _, tail = key.rpartition("_")
        if head and tail in _SUFFIXES:
            name, measure = head, _SUFFIXES[tail]
        try:
            rouge_type = parse_rouge_type(name).name
        except (TypeError, ValueError):
            raise ValueError(f"match: got the key {key!r}, not a rouge type; allowed: "
                             f"{OPTION['rouge_types'].rule[len('a list of '):]}, optionally "
                             "followed by _precision, _recall or _fmeasure (F by default)") \
                from None
        out.append(Figure(key, rouge_type, measure, *_decimal(key, value)))
    scale_100 = any(f.value > 1 for f in out)
    for f in out:
        if f.value > (100 if scale_100 else 1):
            raise ValueError(f"match: got {f.key}={match[f.key]!r}; allowed: scores between "
                             "0 and 1, or 0 and 100")
    return out


def _decimal(key: str, value) -> tuple:
    """(Decimal, decimals) of a figure: a str keeps its trailing zeros; a float has its
    repr's decimals."""
    allowed = ("allowed: a number from 0 to 100 (or 0 to 1), as a float, an int or a "
               "string such as '40.90'")
    if isinstance(value, bool) or not isinstance(value, (int, float, str, decimal.Decimal)):
        raise ValueError(f"match: got {key}={value!r:.60} ({type(value).__name__}); {allowed}")
    text = value.strip() if isinstance(value, str) else repr(value) \
        if isinstance(value, float) else str(value)
    try:
        number = decimal.Decimal(text)
    except decimal.InvalidOperation:
        raise ValueError(f"match: got {key}={value!r:.60}, not a number; {allowed}") from None
    if not number.is_finite() or number < 0:
        raise ValueError(f"match: got {key}={value!r:.60}; {allowed}")
    return number, max(0, -number.as_tuple().exponent)


@dataclass(frozen=True)
class Match:
    """The reverse lookup of reported figures: ``matches``, the rows whose scores round to
    every figure; ``nearest``, the closest rows when none does (else the matches); each as
    (row name, distance), nearest first. The distance: the largest |score - figure| over the
    figures, on their scale (a row matches when each figure is within half a unit of its last
    printed decimal)."""

    figures: dict
    scale: int
    matches: tuple  # ((row name, distance), ...)
    nearest: tuple
    considered: int

    @property
    def found(self) -> bool:
        return bool(self.matches)

    def summary(self) -> str:
        def listed(rows):
            return ", ".join(f"{name} (off by {d:.4g})" for name, d in rows)

        if self.matches:
            return f"{len(self.matches)} convention(s) give these figures: " \
                f"{listed(self.matches)}"
        if not self.considered:
            types = ", ".join(dict.fromkeys(key.split("_")[0] for key in self.figures))
            return (f"no convention here scores every type of these figures ({types}): "
                    "explain with rouge_types that include them")
        return (f"none of the {self.considered} conventions gives these figures"
                + (f"; the nearest: {listed(self.nearest)}" if self.nearest else ""))

    def as_dict(self) -> dict:
        return {"figures": self.figures, "scale": self.scale, "found": self.found,
                "matches": [{"name": n, "distance": d} for n, d in self.matches],
                "nearest": [{"name": n, "distance": d} for n, d in self.nearest],
                "summary": self.summary()}


def _lookup(rows, match, nearest: int = 3) -> Match:
    figures = _figures(match)
    scale = 100 if any(f.value > 1 for f in figures) else 1
    ranked = []
    for order, row in enumerate(rows):
        if not all(f.rouge_type in row.scores for f in figures):
            continue
        distance, inside = Fraction(0), True
        for f in figures:
            off = abs(Fraction(row.scores[f.rouge_type][f.measure]) * scale
                      - Fraction(f.value))
            distance = max(distance, off)
            inside = inside and off <= Fraction(1, 2 * 10 ** f.decimals)
        ranked.append((distance, order, row.name, inside))
    ranked.sort()
    found = tuple((name, float(d)) for d, _, name, inside in ranked if inside)
    return Match(figures={f.key: str(f.value) for f in figures}, scale=scale, matches=found,
                 nearest=found or tuple((name, float(d)) for d, _, name, _ in ranked[:nearest]),
                 considered=len(ranked))


# --------------------------------------------------------------------------------------------
# The explanation


class Explanation:
    """explain()'s result: ``rows`` (one Row per convention), ``count`` (examples),
    ``matched`` (the reverse lookup of explain's ``match``, or None); ``walk(a, b)``,
    ``match(figures)``, ``table()`` (also ``str()``) and ``as_dict()`` (JSON-ready)."""

    def __init__(self, scoring: _Scoring, rows: tuple, matched: Match | None):
        self._scoring = scoring
        self.rows = rows
        self.count = scoring.count
        self.matched = matched

    def row(self, name: str) -> Row:
        for row in self.rows:
            if row.name == name:
                return row
        raise ValueError(f"name: got {name!r}; allowed: one of the rows' names "
                         f"({', '.join(repr(r.name) for r in self.rows[:8])}, ...)")

    def match(self, figures: Mapping) -> Match:
        """The rows whose scores round to every figure (see explain's ``match``)."""
        return _lookup(self.rows, figures)

    def walk(self, a, b, examples: int = 3) -> Walk:
        """From convention a to b (each a row's name, a Row or compute()'s options as a
        dict), one setting at a time in SETTINGS' order; ``examples``: how many of the
        examples that move most each step reports."""
        return _walk(self._scoring, self._options(a, "a"), self._options(b, "b"), examples)

    def _options(self, which, argument: str) -> dict:
        if isinstance(which, Row):
            return dict(which.options)
        if isinstance(which, str):
            for row in self.rows:
                if row.name == which:
                    return dict(row.options)
            raise ValueError(f"{argument}: got {which!r}, not a row's name; allowed: a row's "
                             "name, a Row, or compute()'s options as a dict")
        if isinstance(which, Mapping):
            return dict(which)
        raise TypeError(f"{argument}: got {type(which).__name__}; allowed: a row's name, a "
                        "Row, or compute()'s options as a dict")

    def types(self) -> list:
        seen = {}
        for row in self.rows:
            seen.update(dict.fromkeys(row.scores))
        return list(seen)

    def table(self, measure: str = "fmeasure", scale: float = 100.0, decimals: int = 2,
              signatures: bool = False) -> str:
        """The rows as a text table of one measure (F by default) per type, x scale."""
        if measure not in MEASURES:
            raise ValueError(f"measure: got {measure!r}; allowed: {', '.join(MEASURES)}")
        types = self.types()
        width = max(len(r.name) for r in self.rows)
        cell = max(8, max(map(len, types)) + 1, decimals + 6)
        lines = [f"{'convention':{width}}" + "".join(f"{t:>{cell}}" for t in types),
                 f"{'':{width}}" + f"{measure} x {scale:g}, {self.count} examples".rjust(
                     cell * len(types))]
        for row in self.rows:
            cells = "".join(
                f"{row.scores[t][measure] * scale:>{cell}.{decimals}f}" if t in row.scores
                else f"{'-':>{cell}}" for t in types)
            lines.append(f"{row.name:{width}}{cells}")
            if signatures:
                lines.append(f"{'':4}{row.signature}")
        if self.matched is not None:
            lines.append(self.matched.summary())
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return f"<Explanation of {self.count} examples: {len(self.rows)} conventions>"

    def as_dict(self) -> dict:
        return {"count": self.count, "rows": [r.as_dict() for r in self.rows],
                "match": None if self.matched is None else self.matched.as_dict()}


def _rows(scoring: _Scoring, many: list) -> list:
    """The Rows of these option dicts: every column counted first, then each row's
    examples and corpus scores."""
    built = [RougeOptions.build(**options) for options in many]
    scoring.count_columns(built)
    examples = [scoring.examples(opts) for opts in built]
    # the script's bootstraps of all rows first, in passes of draws they share
    scoring.script_means([(opts, *ex) for opts, ex in zip(built, examples)
                          if opts.profile.keeps_rows])
    return [Row(_row_name(options), options, opts.signature(), scoring.corpus(opts, *ex))
            for options, opts, ex in zip(many, built, examples)]


def explain(predictions, references, *, rouge_types=None, match=None) -> Explanation:
    """Score the same texts under every convention the package reproduces.

    Args:
        predictions, references: as in compute().
        rouge_types: the types to score (each profile scores those of them it can); None:
            each profile's defaults.
        match: reported figures to look up, ``{"rouge1": 44.16, "rougeL_recall": "40.90",
            ...}``: F unless the key ends in _precision or _recall, on a 0-1 or a 0-100 scale
            (0-100 when a figure is above 1), each rounded to the decimals it is written
            with (a str keeps its trailing zeros; a float has its repr's decimals).

    Returns:
        An Explanation: ``rows`` (name, options for compute(), signature, P/R/F per type),
        ``walk(a, b)``, ``match(figures)``, ``matched`` (the lookup of ``match``),
        ``table()`` and ``as_dict()``.
    """
    figures = None if match is None else _figures(match)  # bad figures: before any work
    if rouge_types is not None:
        if isinstance(rouge_types, str):
            rouge_types = [rouge_types]
        if not isinstance(rouge_types, (list, tuple)) or not rouge_types:
            raise ValueError(f"rouge_types: got {rouge_types!r:.80}; allowed: None or a "
                             "non-empty list of type names")
        rouge_types = [parse_rouge_type(t).name for t in rouge_types]
    needed = [] if figures is None else list(dict.fromkeys(f.rouge_type for f in figures))
    if rouge_types is not None or any(t not in DEFAULT_ROUGE_TYPES for t in needed):
        # the figures' types are scored too
        chosen = list(DEFAULT_ROUGE_TYPES) if rouge_types is None else rouge_types
        rouge_types = chosen + [t for t in needed if t not in chosen]
    scoring = _Scoring(predictions, references)
    wanted = {}
    for profile in PROFILES.values():
        types = _profile_types(profile, rouge_types)
        if types != ():
            for options in _variants(profile, scoring, types):
                wanted.setdefault(_row_name(options), options)
    rows = tuple(_rows(scoring, list(wanted.values())))
    matched = None if figures is None else _lookup(rows, match)
    return Explanation(scoring, rows, matched)


def walk(predictions, references, a: Mapping, b: Mapping, examples: int = 3) -> Walk:
    """explain(...).walk(a, b) for two option dicts, without scoring every convention."""
    scoring = _Scoring(predictions, references)
    return _walk(scoring, dict(a), dict(b), examples)


def _walk(scoring: _Scoring, a: dict, b: dict, examples: int) -> Walk:
    first, last = (RougeOptions.build(**a), RougeOptions.build(**b))
    names_b = {t.name for t in last.rouge_types}
    common = tuple(t for t in first.rouge_types if t.name in names_b)
    if not common:
        names_a = ", ".join(t.name for t in first.rouge_types)
        raise ValueError(f"b: scores none of a's types ({names_a}); allowed: two conventions "
                         "with a type in common")
    first = dataclasses.replace(first, rouge_types=common)
    last = dataclasses.replace(last, rouge_types=common)
    settings = _differing(first, last)
    states, done = [first], set()
    for setting in settings[:-1]:
        done.add(setting)
        states.append(_hybrid(first, last, done))
    if settings:
        states.append(last)  # the last step ends at b itself
    scoring.count_columns(states)
    per_state = [scoring.examples(opts) for opts in states]
    # the script's bootstraps of all states first, in passes of draws they share (as _rows)
    scoring.script_means([(opts, *ex) for opts, ex in zip(states, per_state)
                          if opts.profile.keeps_rows])
    results = [(ex[0], scoring.corpus(opts, *ex)) for opts, ex in zip(states, per_state)]
    steps = []
    for k, setting in enumerate(settings):
        before, after = states[k], states[k + 1]
        delta = _minus(_fractions(results[k + 1][1]), _fractions(results[k][1]))
        moved = _moved(scoring, before, after, results[k][0], results[k + 1][0], examples)
        steps.append(Step(setting, _describe(setting, before, after),
                          _describe(setting, after, before),
                          results[k + 1][1], delta, moved, after))
    gap = _minus(_fractions(results[-1][1]), _fractions(results[0][1]))
    return Walk(_row_name(a), _row_name(b), results[0][1], results[-1][1], tuple(steps), gap,
                first)


def _moved(scoring: _Scoring, before: RougeOptions, after: RougeOptions,
           scores_before: np.ndarray, scores_after: np.ndarray, top: int) -> tuple:
    """The ``top`` examples whose F moves most in a step (first on ties), with their tokens."""
    if top <= 0:
        return ()
    change = np.abs(scores_after[..., 2] - scores_before[..., 2])  # [distinct rows, types]
    largest = change.max(axis=1)
    order = [int(k) for k in np.argsort(-largest, kind="stable")[:top] if largest[k] > 0]
    out = []
    for k in order:
        j = int(np.argmax(change[k]))
        refs = scoring.refs[k]
        refs = [refs] if isinstance(refs, str) else refs
        out.append(Moved(
            index=int(scoring.first[k]), rouge_type=before.rouge_types[j].name,
            before=float(scores_before[k, j, 2]), after=float(scores_after[k, j, 2]),
            prediction_tokens=(_tokens(before, scoring.preds[k]),
                               _tokens(after, scoring.preds[k])),
            reference_tokens=tuple((_tokens(before, r), _tokens(after, r)) for r in refs)))
    return tuple(out)
