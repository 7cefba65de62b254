"""One options schema (rouge_exact.options.OPTIONS), and what is made from it: compute()'s
parameters and docs, the CLI's flags, the README's options table, and RougeOptions.build's
bounds.

The schema is read from the installed package (conftest's ``staged``); the CLI's flags are made
by its parser (``rouge_exact.cli.parser``) and compared with the schema as data.

After a change to the schema, rewrite the README's table with ``python tests/test_schema.py``.
"""
import inspect
import math
import re
import sys

import pytest

from conftest import REPO, staged

README = REPO / "README.md"
TABLE_START = "<!-- options table: made by rouge_exact.options.options_table(); " \
              "python tests/test_schema.py rewrites it -->\n"
TABLE_END = "<!-- end of the options table -->\n"


def schema():
    return staged("options")


def test_compute_parameters_are_the_schema(evaluate_metric):
    metric = evaluate_metric
    """evaluate forbids **kwargs in _compute, so its signature lists the options by hand:
    same names, order and defaults as the schema."""
    parameters = list(inspect.signature(type(metric)._compute).parameters.values())
    assert [p.name for p in parameters[:3]] == ["self", "predictions", "references"]
    options = schema().OPTIONS
    assert [p.name for p in parameters[3:]] == [option.name for option in options]
    assert [p.default for p in parameters[3:]] == [option.default for option in options]


def test_checked_options_have_the_schema_fields():
    options = schema()
    assert options.RougeOptions.names() == tuple(o.name for o in options.OPTIONS)
    built = options.RougeOptions.build()
    assert tuple(built.as_kwargs()) == options.RougeOptions.names()


def test_compute_docs_are_made_from_the_schema(evaluate_metric):
    """compute()'s Args docs hold options_doc(): one entry per option, with its default and
    what is allowed."""
    options = schema()
    doc = options.options_doc()
    entries = [line.strip() for line in doc.splitlines() if not line.startswith(" " * 8)]
    assert [entry.split(" ", 1)[0] for entry in entries] == [o.name for o in options.OPTIONS]
    for option in options.OPTIONS:
        assert f"{option.name} ({option.type.__name__}, default {option.default_text()})" in doc
    assert doc in evaluate_metric.inputs_description


def cli_parser():
    """The command's parser module (its flag types and metric_options) and the parser it
    builds."""
    parser = staged("cli.parser")
    return parser, parser.build_parser()


def test_cli_flags_are_made_from_the_schema():
    """Every option but use_aggregator and detailed is a flag with the schema's choices, a
    number type for numbers, a plain switch for booleans and the schema's default in its help.
    The flag's own default is None: an option not given keeps the metric's default."""
    cli, parser = cli_parser()
    flags = {action.dest: action for action in parser._actions}
    for option in schema().OPTIONS:
        flag = "--" + option.name.replace("_", "-")
        if not option.cli:
            assert option.name not in flags and flag not in parser._option_string_actions
            continue
        action = parser._option_string_actions[flag]
        assert action.dest == option.name and action.default is None, flag
        assert tuple(action.choices or ()) == option.choices, flag
        if option.type is bool:
            assert action.nargs == 0 and action.const is True, flag
        elif option.type in (int, float):
            assert action.type is cli._number, flag
        help_text = " ".join(action.help.split())
        assert " ".join(option.help.split()) in help_text, flag
        if option.type is not bool:
            shown = option.none if option.default is None else option.default
            assert help_text.endswith(f"(default {shown})"), flag
    assert {name for name, _ in staged("cli.flags").METRIC_FLAGS} == \
        {o.name for o in schema().OPTIONS if o.cli}


def test_the_written_flags_are_what_the_schema_makes_now():
    """cli/flags.py (the flags --help shows without importing the schema) is the text
    parser.flags_text() makes from the schema and the significance tests: after a change to
    either, ``python -m rouge_exact.cli.parser`` writes it anew."""
    cli, _ = cli_parser()
    path = staged("cli.flags").__file__
    with open(path, encoding="utf-8") as written:
        assert written.read() == cli.flags_text(), "run: python -m rouge_exact.cli.parser"


def test_cli_flags_become_the_metric_options():
    cli, parser = cli_parser()
    args = parser.parse_args(["p.txt", "r.txt", "--rouge-types", "rouge1,rougeW-1.5",
                              "--alpha", "0.25", "--n-samples", "20", "--profile", "rouge155",
                              "--multi-ref", "best", "--use-stemmer", "--length-limit-words",
                              "9"])
    kwargs = cli.metric_kwargs(args)
    assert kwargs == dict(rouge_types=["rouge1", "rougeW-1.5"], alpha=0.25, n_samples=20,
                          profile="rouge155", multi_ref="best", use_stemmer=True,
                          length_limit_words=9)
    built = schema().RougeOptions.build(**kwargs).as_kwargs()
    assert {name: built[name] for name in kwargs} == kwargs


def between(text, start, end, what):
    """The text between a README table's two marker comments."""
    assert text.count(start) == 1 and text.count(end) == 1, \
        f"the README's {what} lost its marker comments"
    return text[text.index(start) + len(start):text.index(end)]


def readme_table(text):
    return between(text, TABLE_START, TABLE_END, "options table")


def test_readme_table_is_made_from_the_schema():
    table = readme_table(README.read_text(encoding="utf-8"))
    assert table == schema().options_table(), "run: python tests/test_schema.py"


def test_readme_table_has_a_row_per_option():
    rows = schema().options_table().splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == [o.name for o in schema().OPTIONS]


@pytest.mark.parametrize("name", ["alpha", "n_samples", "confidence", "seed",
                                  "length_limit_words", "length_limit_bytes"])
def test_numbers_are_checked_against_the_schema_bounds(name):
    """A value at a bound is accepted (refused when the bounds are strict); one beyond it is a
    ValueError that names the option and says what the schema allows."""
    options = schema()
    option = options.OPTION[name]
    step = 1 if option.type is int else 1e-9
    for bound, beyond in ((option.low, option.low - step), (option.high, option.high + step)):
        if option.strict:
            beyond = bound
        else:
            assert getattr(options.RougeOptions.build(**{name: bound}), name) == bound
        with pytest.raises(ValueError, match=f"^{name}: got .*; allowed: "
                                             f"{re.escape(option.allowed)}$"):
            options.RougeOptions.build(**{name: beyond})
    if option.type is float:
        with pytest.raises(ValueError, match=f"^{name}: got nan"):
            options.RougeOptions.build(**{name: math.nan})


@pytest.mark.parametrize("name", ["tokenizer", "multi_ref", "profile", "aggregation"])
def test_every_choice_is_accepted_and_no_other(name):
    options = schema()
    for choice in options.OPTION[name].choices:
        options.RougeOptions.build(**{name: choice})
    with pytest.raises(ValueError, match=f"^{name}: got 'nope'"):
        options.RougeOptions.build(**{name: "nope"})


def test_examples_of_open_options_are_valid():
    """rouge_types' and lang's examples (what a menu offers) are accepted."""
    options = schema()
    options.RougeOptions.build(rouge_types=list(options.OPTION["rouge_types"].examples))
    for code in options.OPTION["lang"].examples:
        assert options.RougeOptions.build(lang=code).lang == code


# the Space's controls of metric options, by element id (the Corpus and Compare tabs each
# have their own n_samples, confidence and seed), and the Space's own caps on the counts
SPACE_CONTROLS = {
    "rouge-types": "rouge_types", "use-stemmer": "use_stemmer",
    "remove-stopwords": "remove_stopwords", "profile": "profile", "multi-ref": "multi_ref",
    "alpha": "alpha", "tokenizer": "tokenizer", "split-sentences": "split_sentences",
    "lang": "lang", "aggregation": "aggregation", "n-samples": "n_samples",
    "confidence": "confidence", "seed": "seed", "compare-n-samples": "n_samples",
    "compare-confidence": "confidence", "compare-seed": "seed"}


def test_space_controls_are_made_from_the_schema():
    """Each Space control of a metric option shows the schema's help, its choices (an open
    option's examples; the Language menu adds "none" for lang=None), its default (where the
    schema's is None, what RougeOptions.build() resolves it to) and its bounds (a strict bound
    one step inside; the Space's own cap where lower). The Compare tab's test menu offers the
    metric's TESTS, set to DEFAULT_TEST, with that test's DEFAULT_SAMPLES."""
    pytest.importorskip("gradio")
    sys.path.insert(0, str(REPO))
    try:
        import app
        from space import limits
    finally:
        sys.path.remove(str(REPO))
    controls = {block.elem_id: block for block in app.demo.blocks.values()
                if getattr(block, "elem_id", None)}
    options, resolved = schema(), schema().RougeOptions.build()
    significance = staged("significance")
    caps = {"n-samples": limits.MAX_SAMPLES, "compare-n-samples": limits.MAX_COMPARE_SAMPLES}
    for elem_id, name in SPACE_CONTROLS.items():
        option, control = options.OPTION[name], controls[elem_id]
        # compare()'s n_samples counts its test's trials or resamples, not compute()'s
        # bootstrap samples: it has its own help (its bounds and default are checked below)
        if elem_id != "compare-n-samples":
            assert control.info == option.help, elem_id
        if option.choices or option.examples:
            values = [value for _, value in control.choices]
            assert values == (["none"] if name == "lang" else []) + \
                list(option.choices or option.examples), elem_id
        default = option.default
        if name == "rouge_types":
            default = [t.name for t in resolved.rouge_types]
        elif name == "lang":
            default = "none"
        elif default is None:
            default = getattr(getattr(resolved, name), "name", getattr(resolved, name))
        if elem_id == "compare-n-samples":
            default = significance.DEFAULT_SAMPLES[significance.DEFAULT_TEST]
        assert control.value == default, elem_id
        if option.low is not None:
            step = getattr(control, "step", 0) if option.strict else 0
            high = min(option.high, caps.get(elem_id, option.high))
            assert control.minimum == option.low + step, elem_id
            assert control.maximum == high - (step if high == option.high else 0), elem_id
    test = controls["compare-test"]
    assert [value for _, value in test.choices] == list(significance.TESTS)
    assert test.value == significance.DEFAULT_TEST


def write_readme_tables():
    """Put options_table() and kinds_table() between their README markers."""
    options = schema()
    text = README.read_text(encoding="utf-8")
    for start, end, read, table in ((TABLE_START, TABLE_END, readme_table, options.options_table()),
                                    (KINDS_START, KINDS_END, readme_kinds_table,
                                     options.kinds_table())):
        text = text.replace(start + read(text) + end, start + table + end)
    README.write_text(text, encoding="utf-8")


# The README's kinds table: one row per ROUGE kind, made from rouge_exact.kinds.KINDS

KINDS_START = "<!-- kinds table: made by rouge_exact.options.kinds_table(); " \
              "python tests/test_schema.py rewrites it -->\n"
KINDS_END = "<!-- end of the kinds table -->\n"


def readme_kinds_table(text):
    return between(text, KINDS_START, KINDS_END, "kinds table")


def test_readme_kinds_table_is_made_from_the_kinds():
    table = readme_kinds_table(README.read_text(encoding="utf-8"))
    assert table == schema().kinds_table(), "run: python tests/test_schema.py"


def test_kinds_table_has_a_row_per_kind():
    kinds = staged("kinds").KINDS
    rows = schema().kinds_table().splitlines()[2:]
    assert [row.split(" | ")[0].lstrip("| ") for row in rows] == \
        [kind.label for kind in kinds.values()]


def test_grammar_and_examples_are_made_from_the_kinds():
    """The schema's rule for rouge_types and its examples are the kinds' own; each kind's
    examples parse as that kind, and an unknown name's error gives the grammar."""
    options, kinds = schema(), staged("kinds").KINDS
    assert options.ROUGE_TYPE_GRAMMAR == ", ".join(k.grammar for k in kinds.values())
    assert options.OPTION["rouge_types"].rule == f"a list of {options.ROUGE_TYPE_GRAMMAR}"
    assert options.OPTION["rouge_types"].examples == \
        tuple(name for k in kinds.values() for name in k.examples)
    for key, kind in kinds.items():
        assert [options.parse_rouge_type(name).kind for name in kind.examples] == \
            [key] * len(kind.examples)
    with pytest.raises(ValueError, match="rouge_types: invalid type 'meteor'; allowed: "
                                         + re.escape(options.ROUGE_TYPE_GRAMMAR) + "$"):
        options.parse_rouge_type("meteor")  # near no type's name: no guess


if __name__ == "__main__":
    write_readme_tables()
