"""``rouge-exact --files2rouge REFERENCE SUMMARY [options]``: files2rouge's command (pltrdy's,
2.1.0 at its head of 2021-07-08, d3d09c8) without Perl: its flags, its defaults, its lines.

files2rouge writes line i of each file (stripped) as ``s.i.txt`` / ``m.A.i.txt`` with a newline
after each " " + eos, and has its fork of pyrouge run ROUGE-1.5.5 with ``-c 95 -r 1000 -n 2 -a``
(or ``--args``), ``-m`` unless ``--no_stemming``. Here the same lines become the same rows
(``rouge_exact.pyrouge``) and the same output is printed. A flag, not a word: ``rouge-exact
files2rouge ref.txt`` already scores a predictions file named files2rouge. Standard library
only until it scores. docs/pyrouge.md is the manual.
"""

import argparse
import logging
import time
import warnings

from .errors import PROG, CliError

FLAG = "--files2rouge"
DEFAULT_ROUGE_N = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(f"{FLAG}: {message}")


def build_parser() -> argparse.ArgumentParser:
    """files2rouge's parser: its arguments, spelled and defaulted as files2rouge's main()."""
    p = _Parser(prog=f"{PROG} {FLAG}",
                description="Calculating ROUGE score between two files (line-by-line), as "
                            "files2rouge 2.1.0 does, without Perl")
    p.add_argument("reference", help="Path of references file")
    p.add_argument("summary", help="Path of summary file")
    p.add_argument("-v", "--verbose", action="store_true", help="Prints ROUGE logs")
    p.add_argument("-n", "--rouge_n", type=int, default=DEFAULT_ROUGE_N,
                   help="Maximum n_gram size to consider")
    p.add_argument("-nol", "--no_rouge_l", action="store_true", help="Do not calculate ROUGE-L")
    p.add_argument("-a", "--args", help="ROUGE Arguments")
    p.add_argument("-s", "--saveto", dest="saveto", help="File to save scores")
    p.add_argument("-e", "--eos", dest="eos", default=".",
                   help='End of sentence separator (for multisentence). Default: "."')
    p.add_argument("-m", "--stemming", action="store_true",
                   help="DEPRECATED: stemming is now default behavior")
    p.add_argument("-nm", "--no_stemming", action="store_true", help="Switch off stemming")
    p.add_argument("-ir", "--ignore_empty_reference", action="store_true")
    p.add_argument("-is", "--ignore_empty_summary", action="store_true")
    return p


def _lines(path: str) -> list:
    """The file's lines as files2rouge reads them (text mode: \\n, \\r\\n and \\r end a line)."""
    try:
        with open(path, encoding="utf-8") as f:
            return list(f)
    except UnicodeDecodeError as error:
        raise CliError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    except OSError as error:
        raise CliError(f"{path}: {error.strerror}") from None


def documents(args) -> tuple:
    """([(system units, [model units])] in pyrouge's order, the ignored line numbers), of
    files2rouge's split_files(): the lines stripped, an empty one refused or ignored, each
    written with a newline after every " " + eos, then read back by pyrouge."""
    from ..pyrouge import see_units

    references, summaries = _lines(args.reference), _lines(args.summary)
    if not references:  # (files2rouge's line count fails on an empty file)
        raise CliError(f"{args.reference}: no lines; allowed: one reference a line")
    if len(references) != len(summaries):
        raise CliError(f"Model and System line counts must match, {len(references)} != "
                       f"{len(summaries)}")
    ignored, kept = [], []
    cut, joint = f" {args.eos}", f" {args.eos}\n"
    for i, (reference, summary) in enumerate(zip(references, summaries)):
        reference, summary = reference.strip(), summary.strip()
        if reference == "" and args.ignore_empty_reference:
            ignored.append(i + 1)
        elif reference == "":
            raise CliError(f"Empty reference at line {i + 1}. Use `--ignore_empty_reference` "
                           "to ignore it")
        elif summary == "" and args.ignore_empty_summary:
            ignored.append(i + 1)
        elif summary == "":
            raise CliError(f"Empty summary at line {i + 1}. Use `--ignore_empty_summary` to "
                           "ignore it")
        else:
            kept.append((f"s.{i}.txt", see_units(joint.join(summary.split(cut))),
                         [see_units(joint.join(reference.split(cut)))]))
    if not kept:  # (pyrouge finds no system file then)
        raise CliError(f"every line was ignored ({len(ignored)}); allowed: at least one "
                       "line with a reference and a summary")
    kept.sort(key=lambda doc: doc[0])  # pyrouge lists the system files sorted by name
    return [(summary, models) for _, summary, models in kept], ignored


def rouge_args(args) -> list:
    """The script's options: files2rouge's, or --args; then -m unless --no_stemming (its
    "-e DATA" names data that is not read here)."""
    if args.args is not None:  # files2rouge's checks: on an empty --args too
        if args.rouge_n != DEFAULT_ROUGE_N:
            raise CliError("-n/--rouge_n: should not be set with -a/--args")
        if args.no_rouge_l:
            raise CliError("-nol/--no_rouge_l: should not be set with -a/--args")
    if args.args:
        words = args.args.split()
    else:
        words = ["-c", "95", "-r", "1000", "-n", str(args.rouge_n), "-a"]
        words += ["-x"] if args.no_rouge_l else []
    return words + ([] if args.no_stemming else ["-m"])


def main(argv: list, stdout, stderr) -> None:
    """files2rouge's run() on argv (without --files2rouge): its lines on stdout, and with
    --saveto the ROUGE output in that file too."""
    args = build_parser().parse_args(argv)
    if args.stemming:
        raise CliError("-m/--stemming: files2rouge stems by default, so --stemming is "
                       "deprecated; turn stemming off with -nm/--no_stemming")
    began = time.time()
    words = rouge_args(args)
    docs, ignored = documents(args)
    from .. import pyrouge

    logger = logging.getLogger(pyrouge.__name__)
    handler = logging.StreamHandler(stderr)  # -v: files2rouge shows pyrouge's log lines
    handler.setFormatter(logging.Formatter("%(asctime)s [%(levelname)-5.5s]  %(message)s"))
    level = logger.level
    if args.verbose:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            output = pyrouge.rouge155_output(docs, pyrouge.perl_options(words), "1")
    except ValueError as error:  # about an option of --args (or of the defaults)
        raise CliError(str(error).replace("rouge_args:", "-a/--args:", 1)) from None
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    for warning in caught:
        stderr.write(f"{PROG}: warning: {' '.join(str(warning.message).split())}\n")
    stdout.write(f"Preparing documents... {len(ignored)} line(s) ignored\n")
    stdout.write("Running ROUGE...\n")
    stdout.write(output + "\n")
    if args.saveto is not None:
        try:
            with open(args.saveto, "w", encoding="utf-8") as f:
                f.write(output + "\n")
        except OSError as error:
            raise CliError(f"{args.saveto}: {error.strerror}") from None
    stdout.write("Elapsed time: %.3f seconds\n" % (time.time() - began))
    stdout.flush()
