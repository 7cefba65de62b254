"""Score files with ROUGE from the command line: ``rouge-exact`` (``console``, the installed
command) and ``python -m rouge_exact`` (``__main__.py``, which takes SIGINT over before it
imports this module) are the same command.

This module is its entry (``main``, ``console``) and its runs: the input read in chunks by
``rouge_exact.io`` and scored by ``score_rows``, the one function that calls the library (into
an aggregate of sums, so memory does not grow with the input), ``--explain`` (every
convention's scores: ``rouge_exact.explain``), ``--compare``, ``--compile``
(``--files2rouge``: ``files2rouge``'s command). Beside it: ``parser`` (the flags, made from the
options schema), ``output`` (the table, the per-example lines and file, the progress bar) and
``errors`` (``CliError``: one line and status 2; Ctrl-C: one line and status 130, at any
moment). Nothing here imports evaluate. docs/cli.md is the command's manual; docs/design.md,
"The command", has the rest.
"""

import collections
import json
import os
import re
import signal
import sys
import warnings
from itertools import chain, islice
from pathlib import Path

# The command's modules and the reader: standard library only, so that --help and a bad flag
# stay fast; the library (numpy, the kernels) is imported by library(), when a run needs it
from ..io.rows import RowError, Rows, read_system_rows
from . import files2rouge
from .errors import INTERRUPTS, PROG, CliError, interrupted_by
from .output import (
    OutputFile,
    format_table,
    progress_bar,
    refuse_overwriting_inputs,
    write_per_example,
)
from .parser import (
    COMPARE_ONLY,
    EXPLAIN_ONLY,
    ROUGE_TYPE_LIKE,
    TYPES_HINT,
    build_parser,
    metric_kwargs,
)

# --------------------------------------------------------------------------------------------
# Input: io.rows' rows, in chunks


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
            if ROUGE_TYPE_LIKE.fullmatch(path) and not os.path.exists(path):
                raise CliError(f"{path}: No such file or directory{TYPES_HINT}")
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
# Main


def api():
    """The package's functions (compute, compare, compile_kernels, Scorer): imported at the
    first run that scores, not with the command (numpy, the kernels)."""
    from .. import api

    return api


def library():
    """rouge_exact.api, once the settings the library reads from the environment are checked;
    a Ctrl-C that something swallowed while a kernel loaded is not taken for a damaged cache
    (kernels.backend.INTERRUPT_CHECKS: the run stops at its next checkpoint)."""
    module = api()
    check_environment()
    from ..kernels import backend

    checks = backend.INTERRUPT_CHECKS
    if _interrupt_seen not in checks:
        checks.append(_interrupt_seen)
    return module


def _interrupt_seen() -> bool:
    return INTERRUPTS.seen


def check_environment() -> None:
    """CliError if an environment variable the library reads has a value it refuses
    (``ROUGE_METRIC_BACKEND=junk``): checked before anything is scored or compiled, so that
    the line names the variable alone, not the rows being scored when it is read."""
    from ..kernels import backend

    try:
        backend.check_settings()
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
    from .. import significance

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
                                    test=args.test or significance.DEFAULT_TEST, **kwargs)
    except (ValueError, TypeError) as error:
        raise CliError(str(error)) from None
    for warning in caught:
        stderr.write(f"{PROG}: warning: {' '.join(str(warning.message).split())}\n")
    if args.json:
        stdout.write(json.dumps(result) + "\n")
    else:
        confidence = kwargs.get("confidence", 0.95)
        stdout.write(significance.format_comparison(
            result, confidence=confidence) + "\n")
    stdout.flush()


def parse_match(text: str) -> dict:
    """--match's figures, {"rouge1": "44.16", ...}: each figure kept as written (a string
    keeps its decimals, which say what it rounds from); explain() checks the types and the
    numbers."""
    figures = {}
    for part in filter(None, (part.strip() for part in text.split(","))):
        key, equals, value = (side.strip() for side in part.partition("="))
        if not equals or not key or not value:
            raise CliError(f"--match: got {part!r}; allowed: TYPE=FIGURE pairs separated by "
                           "commas, e.g. --match rouge1=44.16,rouge2=21.28,rougeL=40.90")
        if key in figures:
            raise CliError(f"--match: {key} given twice; allowed: each type once")
        figures[key] = value
    if not figures:
        raise CliError(f"--match: got {text!r}; allowed: TYPE=FIGURE pairs separated by "
                       "commas, e.g. --match rouge1=44.16,rouge2=21.28,rougeL=40.90")
    return figures


def parse_walk(text: str) -> list:
    """--walk's one or two convention names (A,B or B)."""
    names = [name.strip() for name in text.split(",")]
    if not 1 <= len(names) <= 2 or not all(names):
        raise CliError(f"--walk: got {text!r}; allowed: two conventions' names as the table "
                       "prints them, separated by a comma (--walk 'rouge_score,rouge155 "
                       "use_stemmer=True'), or one, to walk from the convention the metric "
                       "options given make")
    return names


def explain_start(kwargs: dict, walk) -> dict | None:
    """The options the metric flags given make (profile first, as a row's name has it): the
    start of ``--walk B``; None with no --walk or two names, where CliError refuses the
    flags but --rouge-types (every convention is scored: one flag would choose none)."""
    given = {name: value for name, value in kwargs.items() if name != "rouge_types"}
    if walk is not None and len(walk) == 1:
        start = {"profile": given.pop("profile")} if "profile" in given else {}
        return {**start, **given, **({"rouge_types": kwargs["rouge_types"]}
                                     if "rouge_types" in kwargs else {})}
    if given:
        flags = ", ".join("--" + name.replace("_", "-") for name in given)
        raise CliError(f"{flags}: --explain scores every convention, and of the metric options "
                       "takes only --rouge-types; allowed: these with --walk NAME, where they "
                       "make the convention the walk starts from")
    return None


def run_explain(args, stdout, stderr) -> None:
    """--explain: rouge_exact.explain of the input's rows; its table (with the matches of
    --match, and the walk of --walk), or its as_dict() as one line of JSON."""
    if args.compare:
        raise CliError("--explain and --compare: give one of the two")
    if args.per_example:
        raise CliError("--per-example: --explain writes no per-example file (it prints one "
                       "row per convention); allowed: --per-example without --explain")
    figures = None if args.match is None else parse_match(args.match)
    walk = None if args.walk is None else parse_walk(args.walk)
    kwargs = metric_kwargs(args)
    start = explain_start(kwargs, walk)
    predictions, references, lines = [], [], []
    with open_rows(args) as rows:
        for batch in chunks(rows, args.chunk_size):
            for have, more in zip((predictions, references, lines), batch):
                have.extend(more)
    path = rows.paths[0]
    if not predictions:
        raise CliError(f"{path}: no examples; allowed: at least one row")
    module = library()
    from .. import explanation

    def failed(error) -> CliError:
        message = str(error)
        if message.startswith("match: "):  # the library's argument is this flag
            message = "--match: " + message.removeprefix("match: ")
        if re.search(r"\b(?:predictions|references)\[\d+\]", message):
            message = _located(message, path, lines)
        return CliError(message)

    try:
        if start is not None:  # a bad option is refused before every convention is scored
            module.RougeOptions.build(**start)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", module.RougeWarning)
            explained = explanation.explain(predictions, references,
                                            rouge_types=kwargs.get("rouge_types"),
                                            match=figures)
            walked = None
            if walk is not None:
                names = [row.name for row in explained.rows]
                for name in walk:
                    if name not in names:
                        raise CliError(f"--walk: {name!r} is not a convention of the table; "
                                       f"allowed: {', '.join(map(repr, names))}")
                try:
                    walked = explained.walk(*([start] if len(walk) == 1 else []), *walk)
                except (ValueError, TypeError) as error:  # e.g. no type in common
                    raise CliError(f"--walk {args.walk}: {error}") from None
    except (ValueError, TypeError) as error:
        raise failed(error) from None
    for message in dict.fromkeys(str(w.message) for w in caught):  # each convention's: once
        stderr.write(f"{PROG}: warning: {' '.join(message.split())}\n")
    if args.json:
        out = explained.as_dict()
        if walked is not None:
            out["walk"] = walked.as_dict()
        stdout.write(json.dumps(out) + "\n")
    else:
        stdout.write(explained.table() + "\n")
        if walked is not None:
            stdout.write("\n" + walked.table() + "\n" + moved_table(walked, path, lines))
    stdout.flush()


def moved_table(walked, path: str, lines: list) -> str:
    """The examples each step of a walk moves most: their index in the input (from 0), the
    file and line where they start, the type they move most and its F x 100 before and after
    the step."""
    out = []
    for step in walked.steps:
        if step.moved:
            out.append(step.setting)
            out += [f"    example {m.index} ({path}:{lines[m.index]}) {m.rouge_type} "
                    f"{100 * m.before:.4f} -> {100 * m.after:.4f}" for m in step.moved]
    if not out:
        return ""
    return ("\nthe examples each step moves most (F x 100; an example's index in the input "
            "counts from 0):\n" + "\n".join(out) + "\n")


def run_compile(args, stdout) -> None:
    """--compile: every kernel compiled into the cache (or found there) before this returns."""
    if args.input or args.jsonl or args.files or args.compare or args.explain:
        raise CliError(f"--compile takes no input; run it alone: {PROG} --compile")
    import time  # (here: the only use of a clock in this module)

    module = library()
    began = time.perf_counter()
    try:
        report = module.compile_kernels(wait=True) or []
    except (ValueError, TypeError) as error:
        raise CliError(str(error)) from None
    width = max((len(name) for name, _, _ in report), default=0)
    for name, seconds, how in report:  # how: "compiled", or "cached" (found, loaded here)
        done = "compiled in" if how == "compiled" else "found in the cache, loaded in"
        stdout.write(f"{name:{width}}  {done} {seconds:.2f} s\n")
    if report:
        compiled = sum(how == "compiled" for _, _, how in report)
        stdout.write(f"{compiled} compiled, {len(report) - compiled} found in the cache: "
                     f"{time.perf_counter() - began:.1f} s in all\n")
    stdout.write("every kernel is compiled and cached\n")
    stdout.flush()


def run(args, stdout, stderr) -> None:
    refuse_overwriting_inputs(args)
    given = [name for name in COMPARE_ONLY if getattr(args, name) is not None]
    if given and not args.compare:
        flags = ", ".join("--" + name for name in given)
        raise CliError(f"{flags}: given without --compare; allowed: only with --compare "
                       f"SYSTEM...")
    given = [name for name in EXPLAIN_ONLY if getattr(args, name) is not None]
    if given and not args.explain:
        flags = ", ".join("--" + name for name in given)
        raise CliError(f"{flags}: given without --explain; allowed: only with --explain")
    if args.compile:
        return run_compile(args, stdout)
    if args.explain:
        return run_explain(args, stdout, stderr)
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
        if files2rouge.FLAG in argv:  # files2rouge's command line: its own flags
            argv.remove(files2rouge.FLAG)
            files2rouge.main(argv, sys.stdout, sys.stderr)
        else:
            parser = build_parser()  # (standard library only: flags.py holds the schema's)
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
    """Whether the error comes from the library (api, scorer, ...): the innermost frame of
    this package in its traceback is not the command's own (a module of ``cli/``)."""
    command = os.path.dirname(os.path.realpath(__file__))
    package = os.path.dirname(command)
    innermost = None
    tb = error.__traceback__
    while tb is not None:
        filename = os.path.realpath(tb.tb_frame.f_code.co_filename)
        if filename.startswith(package + os.sep):
            innermost = filename
        tb = tb.tb_next
    return innermost is not None and os.path.dirname(innermost) != command


def console(early: bool = False) -> None:
    """The process's entry: the ``rouge-exact`` command and ``python -m rouge_exact``. It takes
    SIGINT over for the rest of the process (``Interrupts``): Ctrl-C at any moment gives one
    line and exit status 130; once the exit status is decided, Ctrl-C is ignored while the
    interpreter exits (Python's own handler would end it by the signal, without the line)."""
    INTERRUPTS.install(early=early)
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
    """console(), on its way out: the kernel compile process that kernels.backend started for
    this run, if it still runs, ended (kernels.backend.stop), so that no process outlives the
    command. (It ends by itself when its stdin, a pipe from this process, closes; but a
    terminal's Ctrl-C reaches it too, and it then took up to a second to go.)"""
    backend = sys.modules.get(f"{__package__.rpartition('.')[0]}.kernels.backend")
    if backend is not None:  # (not imported: nothing was started)
        backend.stop()


def _drop_stdout() -> None:
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # no stdout to speak of (closed, or not a file)
        pass


if __name__ == "__main__":  # python -m rouge_exact.cli.main: the same command
    console()
