"""Score files with ROUGE from the command line.

    rouge PREDICTIONS REFERENCES [REFERENCES ...]
    rouge --input PAIRS.{jsonl,json,csv,tsv} [--format FORMAT]
    rouge --jsonl PAIRS.jsonl
    rouge --compile

``rouge`` is the installed command (``rouge_exact.rouge_cli:main``); from a checkout without
installing, ``python rouge_cli.py`` runs the same code on the files beside it.

Every file is read by ``rouge_io.py`` (the reader the Space uses too; its docstring defines the
formats): text files hold one text per line, aligned line by line, several reference files
giving several references per prediction; ``--input`` reads JSONL, JSON, CSV or TSV, the
format from the file's suffix unless ``--format`` names it. A line of a text file cannot
hold a newline, so it has no sentence breaks: rougeLsum and rougeW need JSONL/JSON/CSV
("\\n" inside a text separates sentences) or ``--split-sentences``. A record over
``--max-record-bytes`` (16 MiB) is refused before it is read whole.

The metric options are made from the metric's options schema (``rouge_options.OPTIONS``):
one flag per option, spelled with dashes, with its help, choices and default
(tests/test_schema.py checks them against the schema).

``--compile`` compiles every kernel into the kernel cache and exits, for a Dockerfile or a
Space's build step: later runs then load the kernels instead of compiling them.

The input is read in chunks (``--chunk-size`` rows) and scored by ``score_rows``, the one
function that calls the metric: each chunk is scored and added to an aggregate that keeps
sums rather than rows, so memory does not grow with the texts; the result is exactly that of
one ``compute`` over all rows, and the input warnings are those of that compute. Nothing here
imports evaluate: the CLI calls the package's functions (rouge_api) directly.

Output: a line saying what the numbers are (``mid``: the mean over N examples, or P/R/F of
the summed counts under micro aggregation; ``(low-high)``: the bootstrap interval, with its
confidence, samples and seed), a table of precision, recall and F per type, then the
signature and the count; ``--json`` prints the detailed result dict instead. ``--per-example
PATH`` writes one JSON object per example (``-``: stdout, before the summary), to a
temporary file renamed onto PATH when the run succeeds; PATH may not be an input.

Exit status: 0; 2 with one line ``rouge_cli: error: ...`` on bad input files or options, an
output that is an input, or a failed write (no input file gives a traceback); 2 with the
usage on stdout when called without arguments. ``rouge`` prefixes its lines with ``rouge:``,
``python rouge_cli.py`` with ``rouge_cli:``.
"""

import argparse
import importlib
import json
import os
import re
import secrets
import stat
import sys
import textwrap
import types
import warnings
from itertools import chain, islice
from pathlib import Path

PROG = "rouge" if __package__ else "rouge_cli"
DEFAULT_CHUNK_SIZE = 10_000
METRIC_SCRIPT = Path(__file__).resolve().with_name("rouge_metric.py")
INPUT_FORMATS = ("jsonl", "json", "csv", "tsv")  # --input's; text pairs are positional


class CliError(Exception):
    """A problem with the user's files or options: one line on stderr, exit status 2."""


# --------------------------------------------------------------------------------------------
# Arguments


_ROUGE_TYPE_LIKE = re.compile(r"rouge\w+(-[\d.]+)?")
_TYPES_HINT = " (several --rouge-types are separated by commas: --rouge-types rouge1,rouge2)"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse prints the usage too; we print one line
        if message.startswith("unrecognized arguments") and any(
                _ROUGE_TYPE_LIKE.fullmatch(word) for word in message.split()[2:]):
            message += _TYPES_HINT
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


def sibling(name: str):
    """A module of the package (rouge_io, rouge_options, rouge_api, ...). Installed, the
    ``rouge`` command is a module of the package rouge_exact. Run as a script from a checkout
    (``python rouge_cli.py``), it imports the files beside it as a package of a private name:
    the modules import each other relatively, and the code run is the checkout's, whatever
    else is installed."""
    if __package__:
        return importlib.import_module(f"{__package__}.{name}")
    package = "_rouge_cli_files"
    if package not in sys.modules:
        module = types.ModuleType(package)
        module.__path__ = [str(METRIC_SCRIPT.parent)]
        sys.modules[package] = module
    return importlib.import_module(f"{package}.{name}")


_io = sibling("rouge_io")  # no third-party imports: --help and a bad flag stay fast
DEFAULT_MAX_RECORD_BYTES, RowError = _io.DEFAULT_MAX_RECORD_BYTES, _io.RowError
Rows, read_system_rows = _io.Rows, _io.read_system_rows


def schema():
    """rouge_options, the module of the options schema."""
    return sibling("rouge_options")


# What each of the metric's significance tests is, for --test's help; the names, the default
# and the sample counts are the metric's (rouge_significance), so the help cannot drift.
_TEST_HELP = {
    "randomization": "approximate randomization ({default}{n:,} trials)",
    "bootstrap": "the centred paired bootstrap ({default}{n:,})",
    "sacrebleu-bootstrap": "sacrebleu-bootstrap (sacrebleu's rule, {default}{n:,}; not "
                           "calibrated: ~12% false positives at 0.05)",
}


def test_help(significance) -> str:
    """--test's help, e.g. "approximate randomization (default; 10,000 trials), ..."."""
    parts = [_TEST_HELP.get(name, name + " ({default}{n:,})").format(
        default="default; " if name == significance.DEFAULT_TEST else "",
        n=significance.DEFAULT_SAMPLES[name]) for name in significance.TESTS]
    return ", ".join(parts[:-1]) + ", or " + parts[-1] + "; --n-samples sets the count"


def metric_options() -> tuple:
    """The schema's options that are flags: all but use_aggregator and detailed (the CLI always
    aggregates, in detail)."""
    return tuple(option for option in schema().OPTIONS if option.cli)


def flag_spec(option) -> dict:
    """argparse's keywords for one option of the schema. The default stays None, so that an
    option not given keeps the metric's default, some of which depend on others (multi_ref on
    profile; compare()'s n_samples on its test); the help shows the schema's default."""
    if option.type is bool:
        spec = dict(action="store_true")
    elif option.type in (int, float):
        # _number, not the option's type: the metric's own check then names the option and
        # what it allows (e.g. "n_samples: got 2.5 (float); allowed: an integer ...")
        spec = dict(type=_number, metavar="N" if option.type is int else "X")
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
    spec["help"] = "\n".join(textwrap.wrap(text, 56))
    return spec


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="rouge" if __package__ else "rouge_cli.py", allow_abbrev=False,
        formatter_class=argparse.RawTextHelpFormatter,
        description="ROUGE scores of predictions against references, read from files.",
        epilog="examples:\n"
               "  python rouge_cli.py preds.txt refs.txt\n"
               "  python rouge_cli.py preds.txt refs_a.txt refs_b.txt --use-stemmer\n"
               "  python rouge_cli.py --input pairs.csv --rouge-types rouge1,rougeLsum\n"
               "  python rouge_cli.py --jsonl pairs.jsonl --json --per-example scores.jsonl\n"
               "  python rouge_cli.py --compile\n"
               "exit status: 0; 2 with one line 'rouge_cli: error: ...' on bad files or "
               "options;\n2 with this help when called without arguments")
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
    p.add_argument("--compile", action="store_true",
                   help="compile every kernel into the kernel cache and exit (for a\n"
                        "Dockerfile or a Space's build step); takes no input")
    p.add_argument("--max-record-bytes", type=_positive_int, default=DEFAULT_MAX_RECORD_BYTES,
                   metavar="N", help="refuse a record (a line of JSONL or text, a CSV record,\n"
                                     "a whole JSON file) over N bytes (default "
                                     f"{DEFAULT_MAX_RECORD_BYTES:,})")
    c = p.add_argument_group("comparing systems (paired significance tests)")
    c.add_argument("--compare", nargs="+", metavar="SYSTEM",
                   help="one predictions file per system (text, one per line, with\n"
                        "--references), or one JSONL file with a key per system:\n"
                        '  {"references": [...] or str, "bart": str, "t5": str};\n'
                        '  "doc" and "id" are ids (a number or a string), not systems')
    c.add_argument("--references", nargs="+", metavar="REFERENCES",
                   help="the reference text files of --compare's text files")
    c.add_argument("--baseline", metavar="NAME", help="the system the others are compared with\n"
                                                      "(default: the first)")
    significance = sibling("rouge_significance")
    test_text = "\n".join(textwrap.wrap(test_help(significance), 60))
    c.add_argument("--test", choices=significance.TESTS, default=significance.DEFAULT_TEST,
                   help=test_text.replace("%", "%%"))  # argparse formats help with %
    m = p.add_argument_group("metric options (rouge_metric.py's, with dashes)")
    for option in metric_options():
        m.add_argument("--" + option.name.replace("_", "-"), dest=option.name, default=None,
                       **flag_spec(option))
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true",
                   help="print the detailed result dict as one line of JSON")
    o.add_argument("--per-example", metavar="PATH",
                   help="write each example's precision, recall and F per type\n"
                        "as JSON lines to PATH ('-': stdout, before the summary)")
    o.add_argument("--progress", action="store_true",
                   help="show the progress bar on stderr even when it is not a terminal")
    o.add_argument("--chunk-size", type=_positive_int, default=DEFAULT_CHUNK_SIZE, metavar="N",
                   help=f"rows read and scored at a time (default {DEFAULT_CHUNK_SIZE:,})")
    return p


def metric_kwargs(args) -> dict:
    """The options the user gave, as the metric's keyword arguments (the rest keep the
    metric's defaults, some of which depend on others, e.g. multi_ref on profile)."""
    kwargs = {option.name: getattr(args, option.name) for option in metric_options()
              if getattr(args, option.name) is not None}
    if "rouge_types" in kwargs:
        kwargs["rouge_types"] = [t for t in re.split(r"[,\s]+", kwargs["rouge_types"]) if t]
    return kwargs


# --------------------------------------------------------------------------------------------
# Input: rouge_io's rows, in chunks


def open_rows(args) -> Rows:
    given = [name for name, value in (("--input", args.input), ("--jsonl", args.jsonl),
                                      ("PREDICTIONS REFERENCES...", args.files)) if value]
    if len(given) > 1:
        raise CliError(f"give one of --input PATH, --jsonl PATH or PREDICTIONS REFERENCES..., "
                       f"not both {' and '.join(given)}")
    if args.format is not None and args.input is None:
        raise CliError("--format goes with --input (text files are given as PREDICTIONS "
                       "REFERENCES...)")
    limits = dict(max_record_bytes=args.max_record_bytes, limit_name="--max-record-bytes")
    try:
        if args.input is not None:
            return Rows(args.input, args.format, **limits)
        if args.jsonl is not None:
            return Rows(args.jsonl, "jsonl", **limits)
        if len(args.files) < 2:
            raise CliError("expected PREDICTIONS and at least one REFERENCES file (or --input "
                           "PAIRS.jsonl/.json/.csv/.tsv)")
        for path in args.files:
            if _ROUGE_TYPE_LIKE.fullmatch(path) and not os.path.exists(path):
                raise CliError(f"{path}: No such file or directory{_TYPES_HINT}")
        return Rows(args.files[0], "text", reference_paths=args.files[1:], **limits)
    except RowError as error:
        raise CliError(str(error)) from None


def chunks(rows: Rows, size: int):
    """(predictions, references, lines) of at most ``size`` rows; lines: where each row
    starts in the file (for messages about a row)."""
    while True:
        predictions, references, lines = [], [], []
        try:
            for prediction, refs in islice(rows, size):
                predictions.append(prediction)
                references.append(refs)
                lines.append(rows.line)
        except RowError as error:
            raise CliError(str(error)) from None
        if not predictions:
            return
        yield predictions, references, lines


# --------------------------------------------------------------------------------------------
# Scoring: the only function that calls the metric


def score_rows(module, options, batches, path: str, on_batch):
    """Score (predictions, references, lines) batches; ``on_batch(predictions, scores)``
    after each ({type: float64[N, 3]} per-example P, R, F). Returns (compute()'s result
    dict, the input warnings' messages): those of one compute over all the rows."""
    scorer = module.Scorer(options)
    for predictions, references, lines in batches:
        try:
            batch = scorer.add(predictions, references)
        except (ValueError, TypeError) as error:  # about one row's text: say where it is
            raise CliError(_located(str(error), path, lines)) from None
        on_batch(predictions, batch.scores)
    return scorer.result(), scorer.warnings()


def _located(message: str, path: str, lines: list) -> str:
    """The metric's message about predictions[i] / references[i] of a chunk, prefixed with
    the file and line of that row."""
    found = re.search(r"\b(?:predictions|references)\[(\d+)\]", message)
    if found and int(found.group(1)) < len(lines):
        return f"{path}:{lines[int(found.group(1))]}: {message}"
    return f"{path}:{lines[0]}-{lines[-1]}: {message}"


# --------------------------------------------------------------------------------------------
# Output


def _signature_fields(signature: str) -> dict:
    """{"agg": "macro", "bs": "1000", "ci": "0.95", "seed": "12345", ...} of a signature."""
    return dict(part.split(":", 1) for part in signature.split("|") if ":" in part)


def describe_numbers(result: dict) -> str:
    """What mid and (low-high) are, e.g. "P/R/F: mid = mean over 3,500 examples,
    (low-high) = 95% bootstrap interval (1,000 samples, seed 12345)"."""
    sig = _signature_fields(result["signature"])
    n = result["count"]
    examples = f"{n:,} example{'s' * (n != 1)}"
    mid = (f"computed from the counts summed over {examples} (micro)"
           if sig.get("agg") == "micro" else f"mean over {examples}")
    if "bs" not in sig:
        return f"P/R/F: mid = {mid}"
    ci = f"{100 * float(sig['ci']):g}%"
    return (f"P/R/F: mid = {mid}, (low-high) = {ci} bootstrap interval "
            f"({int(sig['bs']):,} samples, seed {sig.get('seed', '?')})")


def format_table(result: dict) -> str:
    names = [k for k in result if k not in ("signature", "count")]
    width = max(len("type"), *(len(n) for n in names))
    header = f"{'type':<{width}}"
    for key in ("precision", "recall", "fmeasure"):
        header += f"  {key + ' mid (low-high)':<25}"
    lines = [describe_numbers(result), header.rstrip()]
    for name in names:
        row = f"{name:<{width}}"
        for key in ("precision", "recall", "fmeasure"):
            v = result[name][key]
            row += f"  {v['mid']:.5f} ({v['low']:.5f}-{v['high']:.5f})"
        lines.append(row)
    lines.append(f"signature: {result['signature']}")
    lines.append(f"count: {result['count']}")
    return "\n".join(lines) + "\n"


def write_per_example(stream, scores: dict) -> None:
    names = list(scores)
    columns = [scores[name].tolist() for name in names]
    for row in zip(*columns):
        stream.write(json.dumps({
            name: {"precision": p, "recall": r, "fmeasure": f}
            for name, (p, r, f) in zip(names, row)}) + "\n")


class _NoBar:
    n = 0

    def update(self, n):
        pass

    def set_postfix_str(self, text, refresh=True):
        pass

    def close(self):
        pass


def progress_bar(args, total_bytes):
    if not (args.progress or sys.stderr.isatty()):
        return _NoBar()
    try:
        from tqdm import tqdm  # optional: pip install "rouge-exact[progress]"
    except ImportError:
        if args.progress:
            raise CliError("--progress needs tqdm: pip install tqdm") from None
        return _NoBar()

    return tqdm(total=total_bytes, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
                desc=PROG, delay=0 if args.progress else 1.0, dynamic_ncols=True)


def refuse_overwriting_inputs(args) -> None:
    """CliError if --per-example names one of the input files (the same file: through a
    symlink or a hard link too), checked before anything is opened for writing: the input
    would be overwritten while it is read."""
    if args.per_example in (None, "-"):
        return
    inputs = [args.input, args.jsonl, *(args.files or ())]
    for path in filter(None, inputs):
        try:
            same = os.path.samefile(args.per_example, path)
        except OSError:  # one of them does not exist (yet): not the same file
            continue
        if same:
            raise CliError(f"--per-example {args.per_example}: the same file as the input "
                           f"{path}; allowed: an output path that is not an input (it would "
                           "be overwritten while it is read)")


class OutputFile:
    """A text output written to a temporary file beside it, renamed into place by
    ``close(keep=True)``: a failed run leaves no half file, and an existing file stays whole
    until the new one is. A path that is not a regular file (a FIFO, /dev/stdout) is written
    directly: renaming onto it would replace it. Errors are CliErrors naming the path."""

    def __init__(self, path: str):
        self.path, self.temporary = path, None
        target = os.path.realpath(path)  # through a symlink: replace the file, not the link
        try:
            try:
                mode = stat.S_IMODE(os.stat(target).st_mode)
            except FileNotFoundError:
                mode = None
            if mode is not None and not os.path.isfile(target):
                self.file = open(path, "w", encoding="utf-8")
                return
            folder, name = os.path.split(target)
            self.temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
            fd = os.open(self.temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            if mode is not None:  # the existing file's permissions (new ones: the umask's)
                os.fchmod(fd, mode)
            self.file, self.target = os.fdopen(fd, "w", encoding="utf-8"), target
        except OSError as error:
            raise self.error(error) from None

    def error(self, error: OSError) -> CliError:
        return CliError(f"{self.path}: {error.strerror or error}")

    def write(self, text: str) -> None:
        try:
            self.file.write(text)
        except OSError as error:  # e.g. a full disk
            raise self.error(error) from None

    def close(self, keep: bool) -> None:
        """Close; with a temporary file, rename it into place if ``keep``, else remove it."""
        try:
            self.file.close()
            if self.temporary is not None and keep:
                os.replace(self.temporary, self.target)
                self.temporary = None
        except OSError as error:
            raise self.error(error) from None
        finally:
            if self.temporary is not None:
                try:
                    os.unlink(self.temporary)
                except OSError:
                    pass


# --------------------------------------------------------------------------------------------
# Main


def api():
    """rouge_api, the package's functions (compute, compare, compile_kernels, Scorer)."""
    return sibling("rouge_api")


def read_systems(args) -> tuple:
    """({system: [prediction, ...]}, [references, ...]) of --compare's files."""
    limits = dict(max_record_bytes=args.max_record_bytes, limit_name="--max-record-bytes")
    predictions, references = {}, []
    try:
        if len(args.compare) == 1 and not args.references:
            for row, refs in read_system_rows(args.compare[0], **limits):
                for name, text in row.items():
                    predictions.setdefault(name, []).append(text)
                references.append(refs)
            return predictions, references
        if not args.references:
            raise CliError("--compare: give --references REFERENCES... with one predictions "
                           "file per system (or one JSONL file with a key per system)")
        for path in args.compare:
            name = Path(path).stem if Path(path).stem not in predictions else path
            with Rows(path, "text", reference_paths=args.references, **limits) as rows:
                system_rows = list(rows)
            predictions[name] = [prediction for prediction, _ in system_rows]
            references = [refs for _, refs in system_rows]
        return predictions, references
    except RowError as error:
        raise CliError(str(error)) from None


def run_compare(args, stdout, stderr) -> None:
    """--compare: the metric's compare() on the systems' files; sacrebleu-style tables."""
    if args.input or args.jsonl or args.files:
        raise CliError("--compare takes its own files; give no --input, --jsonl or "
                       "PREDICTIONS REFERENCES with it")
    if args.per_example:
        raise CliError("--per-example: --compare writes no per-example file (it prints the "
                       "comparison); allowed: --per-example without --compare")
    predictions, references = read_systems(args)
    kwargs = metric_kwargs(args)
    module = api()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", module.RougeWarning)
            result = module.compare(predictions, references, baseline=args.baseline,
                                    test=args.test, **kwargs)
    except (ValueError, TypeError) as error:
        raise CliError(str(error)) from None
    for warning in caught:
        stderr.write(f"{PROG}: warning: {' '.join(str(warning.message).split())}\n")
    if args.json:
        stdout.write(json.dumps(result) + "\n")
    else:
        confidence = kwargs.get("confidence", 0.95)
        stdout.write(sibling("rouge_significance").format_comparison(
            result, confidence=confidence) + "\n")
    stdout.flush()


def run_compile(args, stdout) -> None:
    """--compile: every kernel compiled into the cache (or found there) before this returns."""
    if args.input or args.jsonl or args.files or args.compare:
        raise CliError(f"--compile takes no input; run it alone: {PROG} --compile")
    api().compile_kernels(wait=True)
    stdout.write("every kernel is compiled and cached\n")
    stdout.flush()


def run(args, stdout, stderr) -> None:
    refuse_overwriting_inputs(args)
    if args.compile:
        return run_compile(args, stdout)
    if args.compare:
        return run_compare(args, stdout, stderr)
    rows = open_rows(args)
    per_example = bar = None
    scored_all = False
    try:
        batches = chunks(rows, args.chunk_size)
        first = next(batches, None)  # errors near the top of a file come before slow imports
        if first is None:
            raise CliError(f"{rows.paths[0]}: no examples; allowed: at least one row")
        module = api()
        try:
            options = module.RougeOptions.build(detailed=True, **metric_kwargs(args))
        except (ValueError, TypeError) as error:
            raise CliError(str(error)) from None
        if args.per_example is not None:
            per_example = stdout if args.per_example == "-" else OutputFile(args.per_example)
        bar = progress_bar(args, rows.size)
        scored = 0

        def on_batch(predictions, scores):
            nonlocal scored
            if per_example is not None:
                write_per_example(per_example, scores)
            scored += len(predictions)
            bar.update(rows.bytes_read - bar.n)
            bar.set_postfix_str(f"{scored:,} rows", refresh=False)

        result, messages = score_rows(module, options, chain([first], batches), rows.paths[0],
                                      on_batch)
        scored_all = True
    finally:
        rows.close()
        if bar is not None:
            bar.close()
        if per_example is not None and per_example is not stdout:
            per_example.close(keep=scored_all)
    for message in messages:
        stderr.write(f"{PROG}: warning: {' '.join(message.split())}\n")
    stdout.write(json.dumps(result) + "\n" if args.json else format_table(result))
    stdout.flush()


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if not argv:  # the usage, not an error line: what a first try needs
        parser.print_help(sys.stdout)
        return 2
    try:
        run(parser.parse_args(argv), sys.stdout, sys.stderr)
    except CliError as error:
        sys.stderr.write(f"{PROG}: error: {' '.join(str(error).split())}\n")
        return 2
    except MemoryError:
        sys.stderr.write(f"{PROG}: error: out of memory (MemoryError); lower --n-samples or "
                         "--chunk-size\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        return 1
    except OSError as error:  # writing stdout failed, e.g. on a full disk
        sys.stderr.write(f"{PROG}: error: {error.filename or 'output'}: "
                         f"{error.strerror or error}\n")
        return 2
    return 0


def console() -> None:
    """The process's entry: the ``rouge`` command and ``python rouge_cli.py``."""
    code = main()
    try:
        sys.stdout.flush()
    except OSError:  # a closed pipe or a full disk: drop what is left rather than fail at
        # exit (Python's recipe; only here, so that main() never touches a caller's stdout)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(code)


if __name__ == "__main__":
    console()
