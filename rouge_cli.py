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
output that is an input, a failed write, or any ValueError or TypeError of the library (a bad
environment variable such as ``ROUGE_METRIC_BACKEND`` included; no input file gives a
traceback); 2 with the usage on stdout when called without arguments; 130 with one line
``rouge_cli: interrupted`` on Ctrl-C, at any moment, even when it surfaces wrapped (numba's
``SystemError: CPUDispatcher(...) returned a result with an exception set``) or inside a
finalizer that would swallow it: the ``--per-example`` file is then the old one, untouched,
or the new one, whole, and no temporary file is left. ``rouge`` prefixes its lines with
``rouge:``, ``python rouge_cli.py`` with ``rouge_cli:``.

Ctrl-C is the process's business, so only ``console()`` (the process's entry) takes SIGINT
over; ``main()``, which tests call in-process, installs no handler (see ``Interrupts``).
"""

import signal

if __name__ == "__main__":  # python rouge_cli.py: a Ctrl-C while the imports below run is
    # remembered, and console() answers it (exit 130, one line) as soon as it starts
    _EARLY_INTERRUPTS: list = []
    signal.signal(signal.SIGINT, lambda signum, frame: _EARLY_INTERRUPTS.append(signum))

import argparse
import collections
import importlib
import json
import os
import re
import secrets
import stat
import sys
import textwrap
import threading
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
# Ctrl-C


class Interrupts:
    """Ctrl-C in the ``rouge`` process. ``console()`` installs ``on_signal`` as the SIGINT
    handler for its run; ``main()`` alone (in-process) leaves SIGINT to the caller, and then
    nothing here changes anything.

    - Ctrl-C raises KeyboardInterrupt, as Python's own handler does, and is remembered
      (``seen``): a KeyboardInterrupt raised inside a finalizer (``__del__``, a weakref or
      ctypes callback) is swallowed by CPython, which only prints it (evaluate's ``__del__``
      once turned a Ctrl-C into exit 0). ``unraisable`` silences that print; the run stops
      at its next ``checkpoint()`` (each chunk), and the output is not renamed into place
      once ``seen`` is set (``committing``).
    - Inside ``held()`` (creating, renaming or removing the temporary output) a Ctrl-C waits
      until the section ends, so that no temporary file is left and no rename is half done.
    - ``quiet()``: once the interrupt is being reported, or the run is over, later Ctrl-Cs
      only count (the exit is 130 or 0 already decided, and a KeyboardInterrupt during the
      interpreter's exit would kill it without its line)."""

    def __init__(self):
        self.installed = False
        self.seen = False  # a Ctrl-C came (only ever set while installed)
        self.pending = False  # one came inside held(): raised when the section ends
        self.depth = 0  # held() sections open
        self.raising = True

    def on_signal(self, signum, frame):
        self.seen = True
        if not self.raising:
            return
        if self.depth:
            self.pending = True
            return
        raise KeyboardInterrupt

    def unraisable(self, hook, unraisable) -> None:
        """sys.unraisablehook while installed: a KeyboardInterrupt swallowed in a finalizer is
        not printed (the one line is main()'s; ``seen`` is set). (Raising it again from here
        cannot work: the handler would run inside this hook, which swallows it too.)"""
        if issubclass(unraisable.exc_type, KeyboardInterrupt) and self.installed:
            return
        hook(unraisable)

    def checkpoint(self) -> None:
        """KeyboardInterrupt if a Ctrl-C came that something swallowed (ordinary code, where
        raising it stops the run)."""
        if self.seen and self.raising and not self.depth:
            raise KeyboardInterrupt

    def install(self, early: bool = False) -> None:
        """console(): the SIGINT handler and the unraisable hook of this process (not undone:
        the process ends with console()). early: a Ctrl-C came before (the imports)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self.__init__()
        self.seen = early
        signal.signal(signal.SIGINT, self.on_signal)
        hook = sys.unraisablehook
        sys.unraisablehook = lambda unraisable: self.unraisable(hook, unraisable)
        self.installed = True

    def held(self):
        return _Held(self)

    def quiet(self) -> None:
        self.raising = False

    def committing(self) -> bool:
        """Whether an output may replace the old one now: not after a Ctrl-C."""
        return not self.seen


class _Held:
    def __init__(self, interrupts: Interrupts):
        self.interrupts = interrupts

    def __enter__(self):
        self.interrupts.depth += 1

    def __exit__(self, *exc_info):
        interrupts = self.interrupts
        interrupts.depth -= 1
        if interrupts.depth == 0 and interrupts.pending and interrupts.raising:
            interrupts.pending = False
            raise KeyboardInterrupt
        return False


INTERRUPTS = Interrupts()


def interrupted_by(error: BaseException) -> bool:
    """Whether a KeyboardInterrupt is in the exception's chain (its ``__cause__`` and
    ``__context__``, and theirs): numba's compiled dispatchers, for one, report a Ctrl-C that
    arrives while they call back into Python as ``SystemError: CPUDispatcher(...) returned a
    result with an exception set``, raised from the KeyboardInterrupt."""
    stack, seen = [error], set()
    while stack:
        error = stack.pop()
        if error is None or id(error) in seen:
            continue
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        stack += [error.__cause__, error.__context__]
    return False


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


def _module_name(name: str) -> str:
    """The name under which sibling(name) imports the module."""
    return f"{__package__}.{name}" if __package__ else f"_rouge_cli_files.{name}"


def sibling(name: str):
    """A module of the package (rouge_io, rouge_options, rouge_api, ...). Installed, the
    ``rouge`` command is a module of the package rouge_exact. Run as a script from a checkout
    (``python rouge_cli.py``), it imports the files beside it as a package of a private name:
    the modules import each other relatively, and the code run is the checkout's, whatever
    else is installed."""
    if __package__:
        return importlib.import_module(_module_name(name))
    package = "_rouge_cli_files"
    if package not in sys.modules:
        module = types.ModuleType(package)
        module.__path__ = [str(METRIC_SCRIPT.parent)]
        sys.modules[package] = module
    return importlib.import_module(_module_name(name))


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
    try:
        scorer = module.Scorer(options)
    except (ValueError, TypeError) as error:
        raise CliError(str(error)) from None
    for predictions, references, lines in batches:
        try:
            batch = scorer.add(predictions, references)
        except (ValueError, TypeError) as error:  # about one row's text: say where it is
            raise CliError(_located(str(error), path, lines)) from None
        on_batch(predictions, batch.scores)
    try:
        return scorer.result(), scorer.warnings()
    except (ValueError, TypeError) as error:
        raise CliError(str(error)) from None


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
            temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            self.temporary = temporary
            if mode is not None:  # the existing file's permissions (new ones: the umask's)
                os.fchmod(fd, mode)
            self.file, self.target = os.fdopen(fd, "w", encoding="utf-8"), target
        except OSError as error:
            if self.temporary is not None:  # made, but not usable: not left behind
                try:
                    os.close(fd)
                except OSError:
                    pass
                self._remove()
            raise self.error(error) from None

    def error(self, error: OSError) -> CliError:
        return CliError(f"{self.path}: {error.strerror or error}")

    def write(self, text: str) -> None:
        try:
            self.file.write(text)
        except OSError as error:  # e.g. a full disk
            raise self.error(error) from None

    def close(self, keep: bool) -> None:
        """Close; with a temporary file, rename it into place if ``keep``, else remove it.
        (Called inside ``INTERRUPTS.held()``: a Ctrl-C waits until the rename or removal is
        done.)"""
        try:
            self.file.close()
            if self.temporary is not None and keep:
                os.replace(self.temporary, self.target)
                self.temporary = None
        except OSError as error:
            raise self.error(error) from None
        finally:
            self._remove()

    def _remove(self) -> None:
        if self.temporary is not None:
            try:
                os.unlink(self.temporary)
            except OSError:
                pass
            self.temporary = None


# --------------------------------------------------------------------------------------------
# Main


def api():
    """rouge_api, the package's functions (compute, compare, compile_kernels, Scorer)."""
    return sibling("rouge_api")


def library():
    """rouge_api, once the settings the library reads from the environment are checked."""
    module = api()
    check_environment()
    return module


def check_environment() -> None:
    """CliError if an environment variable the library reads has a value it refuses
    (``ROUGE_METRIC_BACKEND=junk``): checked before anything is scored or compiled, so that
    the line names the variable alone, not the rows being scored when it is read."""
    try:
        sibling("rouge_backend").mode()
    except (ValueError, TypeError) as error:
        raise CliError(str(error)) from None


def system_names(paths: list, reserved) -> list:
    """The name of each of --compare's system files, in their order: its base name without the
    extension (``runs/out.txt``: ``out``); its path as given when that name is another file's
    too or one of compare()'s own result fields (``reserved``); its resolved path when even
    that is taken. The names are distinct. CliError for a file given twice (by the same path,
    another path to it, a symlink or a hard link): its two systems would be one."""
    seen = {}
    for path in paths:
        try:
            found = os.stat(path)
        except OSError:  # reading it reports the problem
            continue
        key = (found.st_dev, found.st_ino)
        if key in seen:
            same = "given twice" if seen[key] == path else f"the same file as {seen[key]}"
            raise CliError(f"--compare {path}: {same}; allowed: each system's file once")
        seen[key] = path
    names = [Path(path).stem for path in paths]
    for fallback in (list(paths), [os.path.realpath(path) for path in paths]):
        taken = collections.Counter(names)
        names = [other if taken[name] > 1 or name in reserved else name
                 for name, other in zip(names, fallback)]
    return names


def reserved_keys(path, systems, reserved) -> None:
    """CliError when a key of --compare's JSONL file, a system, is one of compare()'s own
    result fields (``reserved``): the file cannot name it otherwise."""
    for name in systems:
        if name in reserved:
            raise CliError(f"{path}: the system key {name!r} is one of the comparison's own "
                           f"fields ({', '.join(map(repr, reserved))}); allowed: any other key "
                           "for a system (rename it in the file)")


def read_systems(args) -> tuple:
    """({system: [prediction, ...]}, [references, ...]) of --compare's files: a system per
    key of one JSONL file, or per text file (named by system_names), in the order given."""
    limits = dict(max_record_bytes=args.max_record_bytes, limit_name="--max-record-bytes")
    reserved = api().RESULT_FIELDS
    predictions, references = {}, []
    try:
        if len(args.compare) == 1 and not args.references:
            for row, refs in read_system_rows(args.compare[0], **limits):
                if not references:  # every line names the same systems
                    reserved_keys(args.compare[0], row, reserved)
                for name, text in row.items():
                    predictions.setdefault(name, []).append(text)
                references.append(refs)
            return predictions, references
        if not args.references:
            raise CliError("--compare: give --references REFERENCES... with one predictions "
                           "file per system (or one JSONL file with a key per system)")
        for path, name in zip(args.compare, system_names(args.compare, reserved)):
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
    module = library()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", module.RougeWarning)
            # the first system given, unless --baseline names one (the names are distinct,
            # so the first given is the first system)
            baseline = next(iter(predictions), None) if args.baseline is None \
                else args.baseline
            result = module.compare(predictions, references, baseline=baseline,
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
    module = library()
    try:
        module.compile_kernels(wait=True)
    except (ValueError, TypeError) as error:
        raise CliError(str(error)) from None
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
        module = library()
        try:
            options = module.RougeOptions.build(detailed=True, **metric_kwargs(args))
        except (ValueError, TypeError) as error:
            raise CliError(str(error)) from None
        if args.per_example == "-":
            per_example = stdout
        elif args.per_example is not None:
            with INTERRUPTS.held():  # made and named here, or not at all
                per_example = OutputFile(args.per_example)
        bar = progress_bar(args, rows.size)
        scored = 0

        def on_batch(predictions, scores):
            nonlocal scored
            INTERRUPTS.checkpoint()  # (a Ctrl-C that a finalizer swallowed stops it here)
            if per_example is not None:
                write_per_example(per_example, scores)
            scored += len(predictions)
            bar.update(rows.bytes_read - bar.n)
            bar.set_postfix_str(f"{scored:,} rows", refresh=False)

        result, messages = score_rows(module, options, chain([first], batches), rows.paths[0],
                                      on_batch)
        scored_all = True
    finally:
        # a Ctrl-C meanwhile waits: the output is renamed into place whole (only if no Ctrl-C
        # came before: one that something swallowed counts too) or removed
        with INTERRUPTS.held():
            try:
                if per_example is not None and per_example is not stdout:
                    per_example.close(keep=scored_all and INTERRUPTS.committing())
            finally:
                try:
                    rows.close()
                finally:
                    if bar is not None:
                        bar.close()
    if not INTERRUPTS.committing():  # a Ctrl-C that something swallowed: the old file stays
        raise KeyboardInterrupt
    for message in messages:
        stderr.write(f"{PROG}: warning: {' '.join(message.split())}\n")
    stdout.write(json.dumps(result) + "\n" if args.json else format_table(result))
    stdout.flush()


def main(argv=None) -> int:
    """The command on ``argv``: its exit status (0, 2, or 130 on Ctrl-C), one line on stderr
    for every error of the user's files, options or environment, and for every ValueError or
    TypeError of the library. Installs no signal handler (``console()`` does)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser()  # (imports numpy, through rouge_significance: Ctrl-C may come)
        if not argv:  # the usage, not an error line: what a first try needs
            parser.print_help(sys.stdout)
            return 2
        run(parser.parse_args(argv), sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        return report_interrupt()
    except Exception as error:  # noqa: BLE001 - each kind is answered below, or re-raised
        if INTERRUPTS.seen or interrupted_by(error):  # e.g. numba's SystemError, raised from
            return report_interrupt()  # the KeyboardInterrupt
        if isinstance(error, CliError):
            return report_error(str(error))
        if isinstance(error, MemoryError):
            return report_error("out of memory (MemoryError); lower --n-samples or "
                                "--chunk-size")
        if isinstance(error, BrokenPipeError):  # e.g. piped into head: stop quietly
            return 1
        if isinstance(error, OSError):  # writing stdout failed, e.g. on a full disk
            return report_error(f"{error.filename or 'output'}: {error.strerror or error}")
        if isinstance(error, (ValueError, TypeError)) and raised_by_library(error):
            return report_error(str(error))  # e.g. a check the CLI does not make first
        raise  # a bug of this file: its traceback
    if INTERRUPTS.seen:  # a Ctrl-C that something swallowed (--compile, --compare)
        return report_interrupt()
    return 0


def report_error(message: str) -> int:
    sys.stderr.write(f"{PROG}: error: {' '.join(message.split())}\n")
    return 2


def report_interrupt() -> int:
    INTERRUPTS.quiet()  # a second Ctrl-C does not cut this line short
    sys.stderr.write(f"{PROG}: interrupted\n")
    return 130


def raised_by_library(error: BaseException) -> bool:
    """Whether the error comes from a module of the library (rouge_api, rouge_pipeline, ...):
    the innermost frame of this package in its traceback is not this file's."""
    here = os.path.realpath(__file__)
    innermost = None
    tb = error.__traceback__
    while tb is not None:
        filename = os.path.realpath(tb.tb_frame.f_code.co_filename)
        if os.path.dirname(filename) == os.path.dirname(here):
            innermost = filename
        tb = tb.tb_next
    return innermost not in (None, here)


def console() -> None:
    """The process's entry: the ``rouge`` command and ``python rouge_cli.py``. It takes
    SIGINT over for the rest of the process (``Interrupts``): Ctrl-C at any moment gives one
    line and exit status 130; once the exit status is decided, Ctrl-C is ignored while the
    interpreter exits (Python's own handler would end it by the signal, without the line)."""
    INTERRUPTS.install(early=bool(globals().get("_EARLY_INTERRUPTS")))
    try:
        code = report_interrupt() if INTERRUPTS.seen else main()
    except KeyboardInterrupt:  # outside main()'s try, or while main() was answering
        code = report_interrupt()
    INTERRUPTS.quiet()
    if INTERRUPTS.seen and code == 0:  # after main()'s last look
        code = report_interrupt()
    if code == 130:  # what stdout still holds is not waited for (a full pipe would block)
        _drop_stdout()
    else:
        INTERRUPTS.raising = True  # (a write that blocks on a full pipe can be interrupted)
        try:
            sys.stdout.flush()
        except KeyboardInterrupt:
            _drop_stdout()
            code = report_interrupt()
        except (OSError, ValueError):  # a closed pipe or a full disk: drop what is left
            # rather than fail at exit (Python's recipe; only here, so that main() never
            # touches a caller's stdout)
            _drop_stdout()
        INTERRUPTS.quiet()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the status is decided: the exit is quiet
    end_compile_process()
    sys.exit(code)


def end_compile_process() -> None:
    """console(), on its way out: the kernel compile process that rouge_backend started for
    this run, if it still runs, ended (rouge_backend.stop), so that no process outlives the
    command. (It ends by itself when its stdin, a pipe from this process, closes; but a
    terminal's Ctrl-C reaches it too, and it then took up to a second to go.)"""
    backend = sys.modules.get(_module_name("rouge_backend"))
    if backend is not None:  # (not imported: nothing was started)
        backend.stop()


def _drop_stdout() -> None:
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no stdout to speak of (closed, or not a file)
        pass


if __name__ == "__main__":
    console()
