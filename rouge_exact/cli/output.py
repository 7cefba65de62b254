"""What the ``rouge-exact`` command writes: the summary (a line saying what the numbers are, a
table of precision, recall and F per type, the signature and the count), the per-example JSON
lines, the progress bar on stderr, and the ``--per-example`` file (``OutputFile``: written to a
temporary file renamed onto its path when the run succeeds; ``refuse_overwriting_inputs``:
never an input).

Standard library only (tqdm, for the progress bar, when it is shown).
"""

import json
import os
import secrets
import stat
import sys

from .errors import PROG, CliError


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
            raise CliError('--progress needs tqdm: pip install tqdm (or '
                           '"rouge-exact[progress]")') from None
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
