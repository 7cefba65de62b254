"""Score files with ROUGE from the command line.

    python rouge_cli.py PREDICTIONS REFERENCES [REFERENCES ...]
    python rouge_cli.py --jsonl PAIRS.jsonl

Text files hold one text per line, aligned line by line; several reference files give several
references per prediction. A line cannot hold a newline, so a text file has no sentence breaks:
rougeLsum and rougeW need JSONL (``"\\n"`` inside a JSON string separates sentences) or
``--split-sentences``. A JSONL file holds one object per line,
``{"prediction": str, "references": [str, ...] or str}`` (other keys are ignored, blank lines
skipped). The options are the metric's (``rouge_metric.py``), spelled with dashes.

The input is read in chunks (``--chunk-size`` rows): each chunk is scored with
``example_scores`` and added to the metric's ``Aggregate``, which keeps sums (the mean and a
Poisson bootstrap) rather than rows: memory grows by 12 bytes per distinct example, not by the
texts or the scores (the ``rouge155`` profile keeps the per-example scores: its bootstrap
resamples rows by index). The
result is exactly that of one ``metric.compute`` over all rows. RougeWarnings are collected per
chunk and printed once each, totalled over the chunks.

Output: a table of precision, recall and F (mid and low-high interval) per type, then the
signature and the count; ``--json`` prints the detailed result dict instead. ``--per-example
PATH`` writes one JSON object per example (``-``: stdout, before the summary). Exit status 2
with one line ``rouge_cli: error: ...`` on bad input files or options.
"""

import argparse
import json
import os
import re
import sys
import warnings
from itertools import chain, islice
from pathlib import Path

PROG = "rouge_cli"
DEFAULT_CHUNK_SIZE = 10_000
METRIC_SCRIPT = Path(__file__).resolve().with_name("rouge_metric.py")


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


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="rouge_cli.py", allow_abbrev=False, formatter_class=argparse.RawTextHelpFormatter,
        description="ROUGE scores of predictions against references, read from files.",
        epilog="examples:\n"
               "  python rouge_cli.py preds.txt refs.txt\n"
               "  python rouge_cli.py preds.txt refs_a.txt refs_b.txt --use-stemmer\n"
               "  python rouge_cli.py --jsonl pairs.jsonl --json --per-example scores.jsonl\n"
               "exit status: 0, or 2 with one line 'rouge_cli: error: ...' on bad files or "
               "options")
    p.add_argument("files", nargs="*", metavar="PREDICTIONS REFERENCES",
                   help="text files, one text per line, aligned; several REFERENCES files\n"
                        "give several references per prediction (a line has no sentence\n"
                        "breaks: for rougeLsum use --jsonl or --split-sentences)")
    p.add_argument("--jsonl", metavar="PAIRS.jsonl",
                   help='one object per line: {"prediction": str,\n'
                        '"references": [str, ...] or str}; "\\n" separates sentences')
    m = p.add_argument_group("metric options (rouge_metric.py's, with dashes)")
    m.add_argument("--rouge-types", metavar="TYPES",
                   help="comma or space separated: rouge<N>, rougeL, rougeLsum,\n"
                        "rougeW[-<weight>], rougeS[<d>], rougeSU[<d>]\n"
                        "(default rouge1,rouge2,rougeL,rougeLsum)")
    m.add_argument("--use-stemmer", action="store_true", default=None,
                   help="Porter stemming of tokens longer than 3 characters")
    m.add_argument("--tokenizer", metavar="NAME", help="default, unicode or whitespace")
    m.add_argument("--alpha", type=_number, metavar="X",
                   help="F = 1 / (alpha / P + (1 - alpha) / R) (0.5: F1)")
    m.add_argument("--multi-ref", metavar="MODE",
                   help="max, average or best (default max; average with rouge155)")
    m.add_argument("--remove-stopwords", action="store_true", default=None,
                   help="drop ROUGE-1.5.5's SMART stopwords")
    m.add_argument("--n-samples", type=_number, metavar="N", help="bootstrap samples (1000)")
    m.add_argument("--confidence", type=_number, metavar="X",
                   help="confidence of the interval (0.95)")
    m.add_argument("--seed", type=_number, metavar="N", help="bootstrap seed (12345)")
    m.add_argument("--profile", metavar="NAME", help="rouge_score (default) or rouge155")
    m.add_argument("--aggregation", metavar="MODE", help="macro (default) or micro")
    m.add_argument("--length-limit-words", type=_number, metavar="N",
                   help="keep the first N words of each text (ROUGE-1.5.5 -l)")
    m.add_argument("--length-limit-bytes", type=_number, metavar="N",
                   help="keep the first N bytes of each text (ROUGE-1.5.5 -b)")
    m.add_argument("--split-sentences", action="store_true", default=None,
                   help="split sentences with a rule-based splitter first")
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true",
                   help="print the detailed result dict as one line of JSON")
    o.add_argument("--per-example", metavar="PATH",
                   help="write each example's precision, recall and F per type\n"
                        "as JSON lines to PATH ('-': stdout, before the summary)")
    o.add_argument("--progress", action="store_true",
                   help="show the progress bar on stderr even when it is not a terminal")
    o.add_argument("--chunk-size", type=_positive_int, default=DEFAULT_CHUNK_SIZE, metavar="N",
                   help=f"rows read and scored at a time ({DEFAULT_CHUNK_SIZE})")
    return p


_OPTION_NAMES = ("rouge_types", "use_stemmer", "tokenizer", "alpha", "multi_ref",
                 "remove_stopwords", "n_samples", "confidence", "seed", "profile",
                 "aggregation", "length_limit_words", "length_limit_bytes", "split_sentences")


def metric_kwargs(args) -> dict:
    """The options the user gave, as the metric's keyword arguments (the rest keep the
    metric's defaults, some of which depend on others, e.g. multi_ref on profile)."""
    kwargs = {name: getattr(args, name) for name in _OPTION_NAMES
              if getattr(args, name) is not None}
    if "rouge_types" in kwargs:
        kwargs["rouge_types"] = [t for t in re.split(r"[,\s]+", kwargs["rouge_types"]) if t]
    return kwargs


# --------------------------------------------------------------------------------------------
# Input: rows (prediction, [reference, ...]) read lazily, with file:line in every message


def _open(path: str):
    try:
        return open(path, "rb")
    except OSError as error:
        raise CliError(f"{path}: {error.strerror or error}") from None


def _decode(raw: bytes, path: str, lineno: int) -> str:
    if raw.endswith(b"\n"):
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CliError(f"{path}:{lineno}: not valid UTF-8 (byte {error.start + 1} of the "
                       f"line)") from None
    return text[1:] if lineno == 1 and text.startswith("\ufeff") else text


class _Source:
    """Rows (prediction, [reference, ...]) read lazily from files; `consumed` counts the bytes
    read from the first file (for the progress bar: pipes can't tell() their position)."""

    def __init__(self, paths):
        self.paths = list(paths)
        self.files = []
        try:
            for path in self.paths:
                self.files.append(_open(path))
        except CliError:
            self.close()
            raise
        stat = os.fstat(self.files[0].fileno())
        self.size = stat.st_size if stat.st_size > 0 else None  # None: a pipe, unknown
        self.consumed = 0

    def close(self):
        for f in self.files:
            f.close()


class TextSource(_Source):
    """Aligned text files: one prediction file and one or more reference files."""

    def rows(self):
        lineno = 0
        while True:
            raws = [f.readline() for f in self.files]
            self.consumed += len(raws[0])
            if not any(raws):
                return
            if not all(raws):
                counts = [lineno + bool(raw) + sum(1 for _ in f)
                          for raw, f in zip(raws, self.files)]
                listed = ", ".join(f"{p} has {c} line{'s' * (c != 1)}"
                                   for p, c in zip(self.paths, counts))
                raise CliError(f"the files must have one line per example, but {listed}")
            lineno += 1
            texts = [_decode(raw, path, lineno) for raw, path in zip(raws, self.paths)]
            yield texts[0], texts[1:]


def _json_type(value) -> str:
    for kind, name in ((dict, "an object"), (list, "an array"), (str, "a string"),
                       (bool, "a boolean"), ((int, float), "a number")):
        if isinstance(value, kind):
            return name
    return "null"


class JsonlSource(_Source):
    """A JSONL file of {"prediction": str, "references": [str, ...] or str} objects."""

    def rows(self):
        path = self.paths[0]
        for lineno, raw in enumerate(self.files[0], 1):
            self.consumed += len(raw)
            if not raw.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                obj = json.loads(_decode(raw, path, lineno))
            except json.JSONDecodeError as error:
                raise CliError(f"{where}: invalid JSON: {error.msg} (column {error.colno})") \
                    from None
            if not isinstance(obj, dict):
                raise CliError(f'{where}: expected an object {{"prediction": ..., '
                               f'"references": ...}}, got {_json_type(obj)}')
            for key in ("prediction", "references"):
                if key not in obj:
                    raise CliError(f"{where}: missing key {key!r}")
            prediction, references = obj["prediction"], obj["references"]
            if not isinstance(prediction, str):
                raise CliError(f'{where}: "prediction" must be a string, got '
                               f"{_json_type(prediction)}")
            if isinstance(references, str):
                references = [references]
            elif not isinstance(references, list) or not references:
                raise CliError(f'{where}: "references" must be a string or a non-empty array '
                               f"of strings, got {_json_type(references)}"
                               f"{' (empty)' if references == [] else ''}")
            else:
                for j, ref in enumerate(references):
                    if not isinstance(ref, str):
                        raise CliError(f'{where}: "references"[{j}] must be a string, got '
                                       f"{_json_type(ref)}")
            yield prediction, references


def chunks(rows, size: int):
    """Lists (predictions, references) of at most `size` rows."""
    while True:
        batch = list(islice(rows, size))
        if not batch:
            return
        yield [p for p, _ in batch], [r for _, r in batch]


# --------------------------------------------------------------------------------------------
# Warnings: printed once each, totalled over the chunks

# --------------------------------------------------------------------------------------------
# Output


def format_table(result: dict) -> str:
    names = [k for k in result if k not in ("signature", "count")]
    width = max(len("type"), *(len(n) for n in names))
    header = f"{'type':<{width}}"
    for key in ("precision", "recall", "fmeasure"):
        header += f"  {key + ' (low-high)':<25}"
    lines = [header.rstrip()]
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


def progress_bar(args, total_bytes: int):
    if not (args.progress or sys.stderr.isatty()):
        return _NoBar()
    from tqdm import tqdm  # a dependency of evaluate and datasets

    return tqdm(total=total_bytes, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
                desc=PROG, delay=0 if args.progress else 1.0, dynamic_ncols=True)


# --------------------------------------------------------------------------------------------
# Main


def load_metric_module():
    """The staged rouge_metric module (it can't be imported directly: relative imports)."""
    import evaluate

    metric = evaluate.load(str(METRIC_SCRIPT))
    return sys.modules[type(metric).__module__]


def open_source(args) -> _Source:
    if args.jsonl is not None and args.files:
        raise CliError("give either --jsonl PAIRS.jsonl or PREDICTIONS REFERENCES..., not both")
    if args.jsonl is not None:
        return JsonlSource([args.jsonl])
    if len(args.files) < 2:
        raise CliError("expected PREDICTIONS and at least one REFERENCES file "
                       "(or --jsonl PAIRS.jsonl)")
    for path in args.files:
        if _ROUGE_TYPE_LIKE.fullmatch(path) and not os.path.exists(path):
            raise CliError(f"{path}: No such file or directory{_TYPES_HINT}")
    return TextSource(args.files)


def run(args, stdout, stderr) -> None:
    source = open_source(args)
    try:
        batches = chunks(source.rows(), args.chunk_size)
        first = next(batches, None)  # errors near the top of a file come before slow imports
        if first is None:
            raise CliError(f"{source.paths[0]}: no examples (the file is empty)")
        module = load_metric_module()
        try:
            options = module.RougeOptions.build(detailed=True, **metric_kwargs(args))
        except (ValueError, TypeError) as error:
            raise CliError(str(error)) from None
        scorer = score_chunks(module, options, chain([first], batches), source, args, stdout)
    finally:
        source.close()
    result = scorer.result()
    for message in scorer.warnings():
        stderr.write(f"{PROG}: warning: {' '.join(message.split())}\n")
    stdout.write(json.dumps(result) + "\n" if args.json else format_table(result))
    stdout.flush()


def score_chunks(module, options, batches, source, args, stdout):
    """Each chunk added to the metric's Scorer (returned); per-example lines are written as
    they come; the warnings are those of one compute over the whole input."""
    scorer = module.Scorer(options)
    per_example = None
    if args.per_example is not None:
        per_example = stdout if args.per_example == "-" else _open_output(args.per_example)
    bar = progress_bar(args, source.size)
    rows = 0
    try:
        for predictions, references in batches:
            batch = scorer.add(predictions, references)
            if per_example is not None:
                write_per_example(per_example, batch.scores)
            rows += len(predictions)
            bar.update(source.consumed - bar.n)
            bar.set_postfix_str(f"{rows:,} rows", refresh=False)
    finally:
        bar.close()
        if per_example is not None and per_example is not stdout:
            per_example.close()
    return scorer


def _open_output(path: str):
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as error:
        raise CliError(f"{path}: {error.strerror or error}") from None


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        run(args, sys.stdout, sys.stderr)
    except CliError as error:
        sys.stderr.write(f"{PROG}: error: {' '.join(str(error).split())}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. piped into head: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
