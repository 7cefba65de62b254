"""The ``rouge-exact`` command's arguments: ``build_parser``, whose metric options are made from
the metric's options schema (``rouge_exact.options.OPTIONS``): one flag per option, spelled with
dashes, with its help, choices and default (tests/test_schema.py checks them against the
schema); and ``metric_kwargs``, the options given as the metric's keyword arguments.

Standard library only until ``build_parser`` runs (the schema and the significance tests'
names are imported then: --help and a bad flag stay fast).
"""

import argparse
import re
import textwrap

from . import flags
from .errors import PROG, CliError
from ..version import __version__
from ..io.rows import DEFAULT_MAX_RECORD_BYTES

DEFAULT_CHUNK_SIZE = 10_000
INPUT_FORMATS = ("jsonl", "json", "csv", "tsv")  # --input's; text pairs are positional

ROUGE_TYPE_LIKE = re.compile(r"rouge\w+(-[\d.]+)?")
TYPES_HINT = " (several --rouge-types are separated by commas: --rouge-types rouge1,rouge2)"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse prints the usage too; we print one line
        if message.startswith("unrecognized arguments") and any(
                ROUGE_TYPE_LIKE.fullmatch(word) for word in message.split()[2:]):
            message += TYPES_HINT
        raise CliError(message)


def _number(text: str):
    """int when the text is one, else float: the metric's own checks then name the option
    and what it allows (e.g. "n_samples: got 1.5 (float); allowed: an integer >= 1")."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}")
    return value


def schema():
    """rouge_exact.options, the module of the options schema."""
    from .. import options  # (imported when needed: it imports numpy)

    return options


# What each of the metric's significance tests is, for --test's help; the names, the default
# and the sample counts are the metric's (rouge_exact.significance), so the help cannot drift.
_TEST_HELP = {
    "randomization": "approximate randomization ({default}{n:,} trials)",
    "bootstrap": "the centred paired bootstrap ({default}{n:,})",
    "sacrebleu-bootstrap": "sacrebleu-bootstrap (sacrebleu's rule, {default}{n:,}; not "
                           "calibrated: ~12% false positives at 0.05)",
    "sacrebleu-randomization": "sacrebleu-randomization (sacrebleu's rule, {default}{n:,} "
                               "trials; ties not counted: not calibrated where few documents "
                               "differ)",
}


def test_help(significance) -> str:
    """--test's help, e.g. "approximate randomization (default; 10,000 trials), ..."."""
    parts = [_TEST_HELP.get(name, name + " ({default}{n:,})").format(
        default="default; " if name == significance.DEFAULT_TEST else "",
        n=significance.DEFAULT_SAMPLES[name]) for name in significance.TESTS]
    return ", ".join(parts[:-1]) + ", or " + parts[-1] + "; --n-samples sets the count"


def flag_spec(option) -> dict:
    """argparse's keywords for one option of the schema, as flags.py holds them (a type is
    named: "number" is _number). The default stays None, so that an option not given keeps
    the metric's default, some of which depend on others (multi_ref on profile; compare()'s
    n_samples on its test); the help shows the schema's default."""
    if option.type is bool:
        # a switch whose default is the profile's (use_stemmer) can also be turned off:
        # --no-<flag> (build_parser adds it)
        spec = dict(action="store_true", negatable=option.default is None)
    elif option.type in (int, float):
        # _number, not the option's type: the metric's own check then names the option and
        # what it allows (e.g. "n_samples: got 2.5 (float); allowed: an integer ...")
        spec = dict(type="number", metavar="N" if option.type is int else "X")
    elif option.choices:
        spec = dict(choices=option.choices)
    else:
        spec = dict(metavar=option.name.upper())
    text = option.help
    if option.type is list:
        text += ", separated by commas"
    if option.type is not bool and not option.choices:
        text += f"; allowed: {option.allowed}"
    if option.type is not bool:
        text += f" (default {option.none if option.default is None else option.default})"
    elif option.default is None:
        text += f" (default {option.none}; --no-{option.name.replace('_', '-')}: off)"
    spec["help"] = "\n".join(textwrap.wrap(text, 56, break_on_hyphens=False))
    return spec


def flags_text() -> str:
    """The text of flags.py, made now from the options schema and the significance tests."""
    import pprint

    from .. import significance

    metric = tuple((option.name, flag_spec(option)) for option in schema().OPTIONS
                   if option.cli)
    test = dict(choices=significance.TESTS,
                help="\n".join(textwrap.wrap(test_help(significance), 60)))
    return (f'''"""{_FLAGS_DOC}"""

METRIC_FLAGS = {pprint.pformat(metric, width=100, sort_dicts=False)}

TEST_FLAG = {pprint.pformat(test, width=100, sort_dicts=False)}

DEFAULT_TEST = {significance.DEFAULT_TEST!r}
''')


_FLAGS_DOC = """The metric's options as the command's flags, and --test's: made from the options
schema (rouge_exact.options.OPTIONS, the "cli" ones) and rouge_exact.significance by
``python -m rouge_exact.cli.parser``, which writes this file; tests/test_schema.py checks
that it is what they make now. Written out so that --help and a bad flag import neither
numpy nor the schema: the command answers them at once."""


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG, allow_abbrev=False,
        formatter_class=argparse.RawTextHelpFormatter,
        description="ROUGE scores of predictions against references, read from files.",
        epilog="examples:\n"
               f"  {PROG} preds.txt refs.txt\n"
               f"  {PROG} preds.txt refs_a.txt refs_b.txt --use-stemmer\n"
               f"  {PROG} --input pairs.csv --rouge-types rouge1,rougeLsum\n"
               f"  {PROG} --jsonl pairs.jsonl --json --per-example scores.jsonl\n"
               f"  {PROG} --explain preds.txt refs.txt --match rouge1=44.16,rougeL=40.90\n"
               f"  {PROG} --compile\n"
               f"  {PROG} --files2rouge references.txt summaries.txt\n"
               "(python -m rouge_exact is the same command)\n"
               f"exit status: 0; 2 with one line '{PROG}: error: ...' on bad files or "
               "options;\n2 with this help when called without arguments; 130 on Ctrl-C")
    p.add_argument("files", nargs="*", metavar="PREDICTIONS REFERENCES",
                   help="text files, one text per line, aligned; several REFERENCES files\n"
                        "give several references per prediction (a line has no sentence\n"
                        "breaks: for rougeLsum use --input or --split-sentences)")
    p.add_argument("--input", metavar="PATH",
                   help="one file of rows: .jsonl, .json, .csv or .tsv (or --format):\n"
                        'JSONL: {"prediction": str, "references": [str, ...] or str}\n'
                        "  per line;\n"
                        'JSON: a list of those objects, or {"predictions": [...],\n'
                        '  "references": [...]};\n'
                        "CSV/TSV (RFC 4180, first row the header): a column prediction\n"
                        "  and reference, or reference_1, reference_2, ..., or references\n"
                        "  (JSON arrays of strings)")
    p.add_argument("--format", choices=INPUT_FORMATS,
                   help="the format of --input (default: from its suffix)")
    p.add_argument("--jsonl", metavar="PAIRS.jsonl", help="the same as --input PAIRS.jsonl "
                   "--format jsonl")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    p.add_argument("--compile", action="store_true",
                   help="compile every kernel into the kernel cache and exit (for a\n"
                        "Dockerfile or a Space's build step); takes no input")
    # (main() hands a command line with it to cli/files2rouge.py before this parser runs)
    p.add_argument("--files2rouge", action="store_true",
                   help="files2rouge's command, without Perl: rouge-exact --files2rouge\n"
                        "REFERENCE SUMMARY [its options: -a ARGS, -s SAVETO, -e EOS,\n"
                        "-n N, -nol, -nm, -ir, -is, -v]; rouge-exact --files2rouge -h\n"
                        "lists them")
    p.add_argument("--max-record-bytes", type=_positive_int, default=DEFAULT_MAX_RECORD_BYTES,
                   metavar="N", help="refuse a record (a line of JSONL or text, a CSV record,\n"
                                     "a whole JSON file) over N bytes (default "
                                     f"{DEFAULT_MAX_RECORD_BYTES:,})")
    _add_explain_and_compare(p)
    m = p.add_argument_group("metric options (compute()'s, with dashes)")
    for name, spec in flags.METRIC_FLAGS:
        spec = dict(spec, type=_number) if spec.get("type") == "number" else dict(spec)
        negatable = spec.pop("negatable", False)
        m.add_argument("--" + name.replace("_", "-"), dest=name, default=None, **spec)
        if negatable:
            m.add_argument("--no-" + name.replace("_", "-"), dest=name, default=None,
                           action="store_false", help=argparse.SUPPRESS)
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true",
                   help="print the detailed result dict as one line of JSON\n"
                        "(--explain: its explanation's as_dict(), and \"walk\")")
    o.add_argument("--per-example", metavar="PATH",
                   help="write each example's precision, recall and F per type\n"
                        "as JSON lines to PATH ('-': stdout, before the summary)")
    o.add_argument("--progress", action="store_true",
                   help="show the progress bar on stderr even when it is not a terminal")
    o.add_argument("--chunk-size", type=_positive_int, default=DEFAULT_CHUNK_SIZE, metavar="N",
                   help=f"rows read and scored at a time (default {DEFAULT_CHUNK_SIZE:,})")
    return p


def _add_explain_and_compare(p: argparse.ArgumentParser) -> None:
    """The flags of --explain and of --compare, each in its group."""
    e = p.add_argument_group("which ROUGE is this number? (rouge_exact.explain)")
    e.add_argument("--explain", action="store_true",
                   help="score the input under every convention the package\n"
                        "reproduces (each profile at its defaults and the settings\n"
                        "people vary) and print one row per convention, F x 100;\n"
                        "--rouge-types chooses the types")
    e.add_argument("--match", metavar="TYPE=FIGURE,...",
                   help="with --explain: the conventions whose scores round to these\n"
                        "reported figures, e.g. rouge1=44.16,rouge2=21.28,rougeL=40.90\n"
                        "(F unless TYPE ends in _precision or _recall; each figure\n"
                        "rounded at the decimals it is written with)")
    e.add_argument("--walk", metavar="A,B",
                   help="with --explain: from convention A to B (names as the table\n"
                        "prints them), one setting at a time, with what each step\n"
                        "moves; --walk B alone starts at the convention the metric\n"
                        "options given make (none given: rouge_score's defaults)")
    c = p.add_argument_group("comparing systems (paired significance tests)")
    c.add_argument("--compare", nargs="+", metavar="SYSTEM",
                   help="one predictions file per system (text, one per line, with\n"
                        "--references), each named by its base name (out.txt: out),\n"
                        "by its path when base names are the same or one is signature\n"
                        "or count (the result's own fields); or one JSONL file with a\n"
                        'key per system: {"references": [...] or str, "bart": str,\n'
                        '  "t5": str}; "doc" and "id" are ids (a number or a string),\n'
                        '  not systems; "signature" and "count" are refused')
    c.add_argument("--references", nargs="+", metavar="REFERENCES",
                   help="the reference text files of --compare's text files")
    c.add_argument("--baseline", metavar="NAME", help="the system the others are compared with\n"
                                                      "(default: the first)")
    # default None: a --test given without --compare is refused, not ignored
    c.add_argument("--test", choices=flags.TEST_FLAG["choices"], default=None,
                   help=flags.TEST_FLAG["help"].replace("%", "%%"))  # argparse formats with %


COMPARE_ONLY = ("references", "baseline", "test")  # flags that mean nothing without --compare
EXPLAIN_ONLY = ("match", "walk")  # and without --explain


def metric_kwargs(args) -> dict:
    """The options the user gave, as the metric's keyword arguments (the rest keep the
    metric's defaults, some of which depend on others, e.g. multi_ref on profile)."""
    kwargs = {name: getattr(args, name) for name, _ in flags.METRIC_FLAGS
              if getattr(args, name) is not None}
    if "rouge_types" in kwargs:
        kwargs["rouge_types"] = [t for t in re.split(r"[,\s]+", kwargs["rouge_types"]) if t]
    return kwargs


if __name__ == "__main__":  # python -m rouge_exact.cli.parser: flags.py made anew
    import pathlib

    pathlib.Path(flags.__file__).write_text(flags_text(), encoding="utf-8")
