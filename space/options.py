"""The Options panel's controls and the checked options of a request. Every control of a
metric option is made from the metric's schema (``OPTIONS``): its choices, default,
bounds and help (``control``); the metric checks the values (``RougeOptions.build``); the Space
adds its own bounds on the ROUGE types and the sample counts (``limits``)."""

import math
import re
import shlex

from rouge_exact.options import OPTIONS, RougeOptions, parse_rouge_type
from rouge_exact.profiles import PROFILES
from rouge_exact.text.lang import LANGUAGES

from .limits import (CLI, INPUT_ERRORS, MAX_NGRAM, MAX_SKIP, MAX_TYPES, input_error, refused,
                     user_error)

OPTION = {option.name: option for option in OPTIONS}
# the metric's defaults as it resolves them (None is a default that depends on other
# options: the rouge types, multi_ref and the tokenizer of the default profile)
RESOLVED = RougeOptions.build()
DEFAULT_TYPES = [t.name for t in RESOLVED.rouge_types]
# the Language menu's value for lang=None (rouge_score's tokenizer)
NO_LANGUAGE = "none"
_LANGUAGE = {language.code: language for language in LANGUAGES}
# the Options panel's controls, by the name page_options gives their values
OPTION_NAMES = ("rouge_types", "extra_types", "use_stemmer", "remove_stopwords", "profile",
                "alpha", "multi_ref", "tokenizer", "split_sentences", "lang")


def language_name(code: str) -> str:
    """A language's name as a person writes it ("scottish_gaelic" -> "Scottish Gaelic")."""
    return " ".join(w.capitalize() for w in _LANGUAGE[code].name.replace("_", " ").split())


def _language_label(code: str) -> str:
    language = _LANGUAGE[code]
    return f"{code} — {language_name(code)}" + (" (right to left)" if language.rtl else "")


def _default(name: str):
    """The option's default as a control shows it: the schema's, or the metric's resolved
    value where the schema's is None."""
    default = OPTION[name].default
    if default is not None:
        return default
    if name == "rouge_types":
        return list(DEFAULT_TYPES)
    if name == "lang":
        return NO_LANGUAGE
    resolved = getattr(RESOLVED, name)
    return getattr(resolved, "name", resolved)


def control(name: str, step=None, cap=None) -> dict:
    """The keyword arguments of the control of the metric option ``name``, from its schema:
    ``info`` (its help), ``value`` (its default), ``choices`` (its choices, or the examples of
    an open option) and ``minimum`` / ``maximum`` (its bounds; a strict bound moved in by one
    ``step``; ``cap``: the Space's own limit, where lower than the schema's bound)."""
    option = OPTION[name]
    kwargs = {"info": option.help, "value": _default(name)}
    if name == "lang":
        kwargs["choices"] = [(f"{NO_LANGUAGE} (English: rouge_score's)", NO_LANGUAGE)] + [(_language_label(c), c) for c in option.examples]
    elif option.choices or option.examples:
        kwargs["choices"] = list(option.choices or option.examples)
    if option.low is not None:
        kwargs["minimum"] = option.low + (step if option.strict else 0)
    if option.high is not None:
        high = option.high if cap is None else min(option.high, cap)
        kwargs["maximum"] = high - (step if option.strict and high == option.high else 0)
    if step is not None:
        kwargs["step"] = step
    return kwargs


LANGUAGE_CHOICES = control("lang")["choices"]


def type_order(rouge_type) -> tuple:
    """Rows in type order: by kind, in the metric's order of its kinds (N, L, Lsum, W, S,
    SU, ...), then N by N, W by weight, S and SU by distance."""
    distance = math.inf if rouge_type.max_skip < 0 else rouge_type.max_skip
    return rouge_type.spec.order, rouge_type.n, rouge_type.weight, distance, rouge_type.name


def profile_types(profile) -> list:
    """The types the metric scores with ``profile`` when none are asked for (its own, such as
    pltrdy's rouge1, rouge2 and rougeL, else DEFAULT_TYPES): what compute() scores without
    rouge_types. An unknown profile gets DEFAULT_TYPES (build_options then names it)."""
    try:
        return [t.name for t in RougeOptions.build(profile=profile).rouge_types]
    except INPUT_ERRORS:
        return list(DEFAULT_TYPES)


def parse_types(selected, extra: str = "") -> list:
    """The requested type names in type order, within the Space's bounds."""
    # (a name given as a list item is the metric's to check: None or 5 is refused as
    # compute() refuses it; only the More types box's separators leave empty pieces)
    names = list(selected or []) + [n for n in re.split(r"[\s,;]+", extra or "") if n]
    if not names:
        raise user_error("Pick at least one ROUGE type under Options → ROUGE types.",
                         title="No ROUGE type")
    parsed = {}
    for name in names:
        try:
            t = parse_rouge_type(name)
        except (TypeError, ValueError) as problem:
            raise user_error(f"Options → More types: {problem}",
                             title="Invalid type") from None
        # the Space's bounds on the types' parameters, whatever their kind: N, and the
        # distance of a skip-bigram (-1 where a kind has none)
        if t.n > MAX_NGRAM:
            raise refused("rouge_types", name, f"rouge1 … rouge{MAX_NGRAM}",
                          f"{CLI} --rouge-types {name} PREDICTIONS REFERENCES")
        if t.max_skip > MAX_SKIP:
            raise refused("rouge_types", name, f"rouge{t.kind}0 … rouge{t.kind}{MAX_SKIP}, "
                          f"or rouge{t.kind} (any distance)",
                          f"{CLI} --rouge-types {name} PREDICTIONS REFERENCES")
        parsed[name] = t
    if len(parsed) > MAX_TYPES:
        raise refused("rouge_types", f"{len(parsed)} types", f"{MAX_TYPES} types",
                      f"{CLI} --rouge-types {','.join(parsed)} PREDICTIONS REFERENCES")
    return [t.name for t in sorted(parsed.values(), key=type_order)]


def build_options(rouge_types, **options):
    """The metric's checked options (its ValueError/TypeError shown as they are). A value the
    page leaves empty (None, "", the Language menu's "none") is the metric's default."""
    given = {"rouge_types": list(rouge_types)}
    for name, value in options.items():
        if value is None or value == "" or (name == "lang" and value == NO_LANGUAGE):
            continue
        kind = OPTION[name].type if name in OPTION else None
        # Gradio's checkboxes and sliders may send 0/1 and ints for booleans and floats;
        # any other value is the metric's to refuse ("false" is not False)
        if kind is bool and isinstance(value, int) and value in (0, 1):
            value = bool(value)
        elif kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        given[name] = value
    try:
        return RougeOptions.build(**given)
    except INPUT_ERRORS as problem:
        raise input_error(problem, title="Invalid option") from None


def page_options(rouge_types, extra_types, use_stemmer, remove_stopwords, profile, alpha,
                 multi_ref, tokenizer, split_sentences, lang) -> dict:
    """The Options panel's values (named as OPTION_NAMES) as the metric's keyword options."""
    if profile in PROFILES and alpha is not None and \
            math.isclose(alpha, PROFILES[profile].alpha, rel_tol=1e-12):
        alpha = None  # the profile's own F (coco's beta = 1.2, in coco-caption's arithmetic)
    return dict(rouge_types=parse_types(rouge_types, extra_types), use_stemmer=use_stemmer,
                remove_stopwords=remove_stopwords, profile=profile, alpha=alpha,
                multi_ref=multi_ref, tokenizer=tokenizer, split_sentences=split_sentences,
                lang=None if lang in (None, "", NO_LANGUAGE) else lang)


def cli_flags(opts) -> str:
    """The CLI's flags that reproduce these checked options (the command a refusal offers),
    made from the schema: every option the CLI takes (``Option.cli``) whose value differs
    from what the metric resolves without it (so a profile's own defaults are not repeated).
    An option the others cannot be built without is given: micro needs its multi_ref, and
    profile="rouge_chinese" with lang="zh" needs only jieba while lang="zh" alone (the
    default profile) needs pyonmttok too, whose ImportError is no reason to refuse."""
    given = opts.as_kwargs()
    flags = []
    for option in OPTIONS:
        if not option.cli:
            continue
        value = given[option.name]
        without = {k: v for k, v in given.items() if k != option.name}
        try:
            if value == RougeOptions.build(**without).as_kwargs()[option.name]:
                continue
        except (TypeError, ValueError, ImportError):  # the others need this one
            pass
        flag = "--" + option.name.replace("_", "-")
        if option.type is bool:  # (off by default, or the profile's: use_stemmer's --no-)
            flags.append(flag if value else "--no-" + flag[2:])
        elif option.type is list:
            flags.append(f"{flag} {','.join(value)}")
        else:
            flags.append(f"{flag} {shlex.quote(str(value))}")
    return " ".join(flags)


# a reported figure: a type (with _precision, _recall or _fmeasure, or _p, _r, _f) and a number
_FIGURE = re.compile(r"\s*([^\s=:,;]+)\s*[=:]\s*([^\s,;]+)\s*[,;]?")
_MEASURE_SUFFIXES = ("_precision", "_recall", "_fmeasure", "_p", "_r", "_f")


def parse_figures(text) -> dict | None:
    """The Reported figures box ("rouge1=44.16, rouge2=21.28, rougeL=40.90"; = or :, commas,
    semicolons or spaces between them) as explain's ``match``, each figure kept as written (a
    string keeps its decimals: "40.90" stands for 40.895 to 40.905); a dict as it is; None
    when empty. explain() checks the numbers; the types are checked here, before any work,
    because they are scored too."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    if isinstance(text, dict):
        figures = dict(text)
    elif isinstance(text, str):
        figures, at = {}, 0
        while at < len(text):
            found = _FIGURE.match(text, at)
            if found is None or found.end() == at:
                rest = text[at:].strip()
                raise user_error(f"Reported figures: could not read {rest[:40]!r}; allowed: "
                                 "TYPE=FIGURE pairs, e.g. rouge1=44.16, rouge2=21.28, "
                                 "rougeL=40.90", title="Invalid figures")
            key, value = found.groups()
            if key in figures:
                raise user_error(f"Reported figures: {key} given twice; allowed: each type "
                                 "once", title="Invalid figures")
            figures[key] = value
            at = found.end()
    else:
        raise user_error(f"match: got {type(text).__name__}; allowed: a dict of figures or a "
                         "string such as 'rouge1=44.16, rougeL=40.90'", title="Invalid figures")
    return figures


def figure_types(figures: dict | None) -> list:
    """The ROUGE types the figures name (explain scores them too), each checked."""
    names = []
    for key in figures or {}:
        name = str(key)
        for suffix in _MEASURE_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name = name[:-len(suffix)]
                break
        try:
            names.append(parse_rouge_type(name).name)
        except (TypeError, ValueError):
            raise user_error(f"Reported figures: {key!r} is not a ROUGE type; allowed: a type "
                             "such as rouge1, rouge2, rougeL or rougeLsum, optionally followed "
                             "by _precision or _recall (F by default)",
                             title="Invalid figures") from None
    return names
