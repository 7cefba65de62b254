"""The uploads of the Corpus and Compare tabs, read by ``rouge_exact.io`` (the CLI's reader: JSONL,
JSON, CSV, TSV and text files), within the Space's limits; and the per-example CSV offered
for download."""

import atexit
import csv
import os
import shutil
import tempfile
import threading
import uuid
from collections import deque
from pathlib import Path
from typing import NamedTuple

from rouge_exact.io import RowError, Rows, detect_format, read_system_rows

from rouge_exact.api import RESULT_FIELDS

from .limits import (CLI, CPU_BUDGET_SECONDS, DOWNLOADS_KEPT, MAX_RECORD_BYTES, MAX_ROWS,
                     MAX_SYSTEMS, MAX_UPLOAD_BYTES, MEMORY_BUDGET_BYTES, download_cost,
                     read_cost, refused, user_error)
from .render import MEASURES


def _file_path(file) -> str | None:
    if file is None:
        return None
    if isinstance(file, (list, tuple)):
        return _file_path(file[0]) if file else None
    return file if isinstance(file, str) else getattr(file, "name", None) or file.get("path")


def _display_name(path: str) -> str:
    return Path(path).name


class Corpus(NamedTuple):
    """An uploaded corpus, read (load_corpus gives its first four fields)."""
    predictions: list
    references: list
    shown: str  # the file name(s), as the page shows them
    extra: list  # each row's other columns (rouge_exact.io's Rows.extra)
    seconds: float  # estimated CPU of reading it and writing its per-example CSV
    note: str  # what those seconds are, for a refusal of the request they are part of


# the bytes that end a field of each format (rouge_exact.io's): a count of them bounds the fields
# (a delimiter inside a quoted cell or a JSON string is counted too, which only overestimates);
# and the marks of a slower field: a quote in CSV/TSV, an opening bracket in JSON
_FIELD_ENDS = {"csv": (b",", b"\n"), "tsv": (b"\t", b"\n"), "text": (b"\n",),
               "jsonl": (b":", b",", b"\n"), "json": (b":", b",", b"\n")}
_SLOW_MARKS = {"csv": (b'"',), "tsv": (b'"',), "text": (), "jsonl": (b"[", b"{"),
               "json": (b"[", b"{")}


def count_fields(path: str, fmt: str) -> tuple:
    """(fields, marks): at most how many fields (cells, keys, array items, lines) rouge_exact.io
    makes of this file in the format ``fmt``, from a count of the bytes that end one, and
    the count of the marks of a slower field (_SLOW_MARKS). Read in 1 MiB pieces, at C speed
    (a few ms for a 20 MB upload), before any row is parsed."""
    fields, marks = 1, 0
    with open(path, "rb") as handle:
        while piece := handle.read(1 << 20):
            fields += sum(piece.count(end) for end in _FIELD_ENDS[fmt])
            marks += sum(piece.count(mark) for mark in _SLOW_MARKS[fmt])
    return fields, marks


def check_read_cost(paths: list, fmt: str, local: str) -> tuple:
    """Refuse, before reading, files whose reading is estimated over the CPU or memory
    budget: bytes and fields (count_fields: a CSV header of 400,000 columns is 400,000
    fields, as is a row of them). A CSV or TSV file's other cells are at most its fields, so
    the per-example CSV they make is costed here too (a JSON file's other keys may be
    sparse: they are costed once read, by _read_rows). (seconds, fields) of the reading."""
    size = fields = marks = 0
    for path in paths:
        size += os.path.getsize(path)
        counted = count_fields(path, fmt)
        fields, marks = fields + counted[0], marks + counted[1]
    seconds, peak = read_cost(fmt, size, fields, marks)
    written = download_cost(1, fields) if fmt in ("csv", "tsv") else 0.0
    what = "the upload" if len(paths) == 1 else "the uploads"
    if seconds + written > CPU_BUDGET_SECONDS:
        task = "to read and to write as a per-example CSV" if written else "to read"
        raise refused(what, f"{fields:,} fields (cells, keys, array items or lines) in "
                      f"{size / 2 ** 20:.1f} MB, an estimated {seconds + written:,.1f} s of "
                      f"CPU {task}", f"about {CPU_BUDGET_SECONDS:g} s of CPU per request",
                      local)
    if peak > MEMORY_BUDGET_BYTES:
        raise refused(what, f"{fields:,} fields (cells, keys, array items or lines) in "
                      f"{size / 2 ** 20:.1f} MB, an estimated {peak / 2 ** 30:,.1f} GiB of "
                      "memory to read", f"{MEMORY_BUDGET_BYTES / 2 ** 30:g} GiB per request",
                      local)
    return seconds, fields


def _read_rows(rows: Rows, shown: str, read_seconds: float = 0.0) -> tuple:
    """Up to MAX_ROWS rows; RowError (with the upload's temporary path replaced by the file's
    name) as a readable error. Then the per-example CSV's cost (every row has a cell for each
    other column of any row): refused when reading (``read_seconds``, estimated) and writing
    it are over the CPU budget. (predictions, references, extra, seconds, note)."""
    predictions, references, extra = [], [], []
    columns: dict = {}  # the other columns of any row, as write_scores_csv makes them
    try:
        with rows:
            for prediction, refs in rows:
                if len(predictions) == MAX_ROWS:
                    raise refused("the corpus", f"more than {MAX_ROWS:,} examples",
                                  f"{MAX_ROWS:,} examples", f"{CLI} --input {shown}")
                predictions.append(prediction)
                references.append(refs)
                row = rows.extra  # the row's other columns
                extra.append(row)
                columns.update(row)  # (only its keys, in order, are used)
    except RowError as error:
        message = str(error)
        for path in rows.paths:
            message = message.replace(path, _display_name(path))
        raise user_error(message, title="Unreadable file") from None
    if not predictions:
        raise user_error(f"{shown} has no examples.", title="Empty corpus")
    write_seconds = download_cost(len(predictions), len(columns))
    cells = (f"{len(predictions):,} row{'s' * (len(predictions) != 1)} × {len(columns):,} "
             f"other column{'s' * (len(columns) != 1)}")
    note = (f"{read_seconds:,.1f} s of it reading {shown}"
            + (f" and {write_seconds:,.1f} s writing its per-example CSV, {cells}"
               if columns else ""))
    if read_seconds + write_seconds > CPU_BUDGET_SECONDS:
        raise refused("the per-example CSV", f"{cells} (each row has a cell for every other "
                      f"column of any row), an estimated {read_seconds + write_seconds:,.1f} s "
                      "of CPU to read and write", f"about {CPU_BUDGET_SECONDS:g} s of CPU per "
                      "request", f"{CLI} --input {shown} --per-example scores.jsonl")
    return predictions, references, extra, read_seconds + write_seconds, note


def _check_upload(path: str) -> None:
    size = os.path.getsize(path)
    if size > MAX_UPLOAD_BYTES:
        raise refused(_display_name(path), f"{size / 2 ** 20:.1f} MB",
                      f"{MAX_UPLOAD_BYTES // 2 ** 20} MB per file",
                      f"{CLI} --input {_display_name(path)}")


def _open_rows(path: str, **kwargs) -> Rows:
    try:
        return Rows(path, max_record_bytes=MAX_RECORD_BYTES, **kwargs)
    except RowError as error:
        raise user_error(str(error).replace(path, _display_name(path)),
                         title="Unreadable file") from None


def _format(path: str) -> str:
    try:
        return detect_format(path)
    except RowError as error:
        raise user_error(str(error).replace(path, _display_name(path)),
                         title="Unreadable file") from None


def load_corpus(corpus_file, pred_file, ref_files) -> tuple:
    """(predictions, references, description, the other columns of each row: rouge_exact.io's
    Rows.extra) from the uploads (rouge_exact.io reads every format); gr.Error on any problem."""
    return read_corpus(corpus_file, pred_file, ref_files)[:4]


def read_corpus(corpus_file, pred_file, ref_files) -> Corpus:
    """load_corpus's, with the estimated CPU of reading the uploads and writing their
    per-example CSV (Corpus.seconds, for the request's budget). Uploads are refused before
    any row is read when their size, or the estimate of reading their fields
    (check_read_cost), is over a limit; after reading, when reading and writing the
    per-example CSV are estimated over the budget."""
    path = _file_path(corpus_file)
    ref_paths = [_file_path(p) for p in (ref_files if isinstance(ref_files, list)
                                         else [ref_files] if ref_files else [])]
    ref_paths = [p for p in ref_paths if p]
    pred_path = _file_path(pred_file)
    if path:
        _check_upload(path)
        name = _display_name(path)
        seconds, _ = check_read_cost([path], _format(path), f"{CLI} --input {name}")
        preds, refs, extra, seconds, note = _read_rows(_open_rows(path), name, seconds)
        return Corpus(preds, refs, name, extra, seconds, note)
    if not pred_path and not ref_paths:
        raise user_error("Upload a corpus file (JSONL, JSON, CSV or TSV), or a predictions text "
                         "file with one or more reference text files, each up to "
                         f"{MAX_UPLOAD_BYTES // 2 ** 20} MB.", title="No corpus")
    if not pred_path or not ref_paths:
        missing = "predictions" if not pred_path else "reference"
        raise user_error(f"Upload the {missing} text file too (one example per line).",
                         title="Missing file")
    for p in [pred_path, *ref_paths]:
        _check_upload(p)
    shown = " + ".join(_display_name(p) for p in [pred_path, *ref_paths])
    seconds, _ = check_read_cost([pred_path, *ref_paths], "text",
                                 f"{CLI} {' '.join(map(_display_name, [pred_path, *ref_paths]))}")
    preds, refs, extra, seconds, note = _read_rows(
        _open_rows(pred_path, format="text", reference_paths=ref_paths), shown, seconds)
    return Corpus(preds, refs, shown, extra, seconds, note)


def _reserved_fields() -> tuple:
    """The comparison's own result fields ("signature", "count"), which no system may be
    named: the metric's compare() refuses them."""
    return RESULT_FIELDS


def system_names(paths: list) -> list:
    """The name of each uploaded system file, in order: its base name without the extension
    (``out.txt``: ``out``), or its file name when that name is another upload's too or one of
    the comparison's own fields. gr.Error when two uploads have the same file name (the results
    could not tell them apart) or a file name is itself such a field."""
    shown = [_display_name(p) for p in paths]
    reserved = _reserved_fields()
    for k, name in enumerate(shown):
        if name in shown[:k]:
            raise user_error(f"the system files: two are named {name}; allowed: one file per "
                             "system, each with its own file name (rename one)",
                             title="Invalid input")
        if name in reserved:
            raise user_error(f"the system files: {name} is named like one of the comparison's "
                             f"own fields ({', '.join(reserved)}); allowed: any other file name "
                             "(rename it, e.g. with an extension)", title="Invalid input")
    stems = [Path(p).stem for p in paths]
    names = [name if stems.count(stem) > 1 or stem in reserved else stem
             for stem, name in zip(stems, shown)]
    if len(set(names)) < len(names):  # a stem that is another upload's file name (a, a.txt)
        names = shown  # the file names, distinct (checked above)
    return names


def _reserved_keys(name: str, systems) -> None:
    """gr.Error when a key of an uploaded systems JSONL, a system, is one of the comparison's
    own fields."""
    reserved = _reserved_fields()
    for system in systems:
        if system in reserved:
            raise user_error(f"{name}: the system key {system!r} is one of the comparison's "
                             f"own fields ({', '.join(map(repr, reserved))}); allowed: any "
                             "other key for a system (rename it in the file)",
                             title="Invalid input")


def load_systems(systems_file, system_files, ref_files) -> tuple:
    """({system: predictions}, references) from a JSONL with one key per system, or one
    predictions text file per system plus reference text files."""
    return read_systems(systems_file, system_files, ref_files)[:2]


def read_systems(systems_file, system_files, ref_files) -> tuple:
    """load_systems's, with the estimated CPU of reading the uploads (seconds, for the
    request's budget) and a note naming it: (predictions, references, seconds, note). The
    uploads are refused before any row is read when their size or the estimate of reading
    them (check_read_cost) is over a limit, or when there are more than MAX_SYSTEMS system
    files; a JSONL file once its first line names more than MAX_SYSTEMS systems. The systems
    are the JSONL's keys, or the text files named by system_names, in the order given; a
    system named like one of the comparison's own fields is refused (a key) or renamed (a
    file)."""
    path = _file_path(systems_file)
    if path:
        _check_upload(path)
        name = _display_name(path)
        seconds, _ = check_read_cost([path], "jsonl", f"{CLI} --compare {name}")
        predictions, references = {}, []
        try:
            for row, refs in read_system_rows(path, max_record_bytes=MAX_RECORD_BYTES):
                if len(references) == MAX_ROWS:
                    raise refused("the file", f"more than {MAX_ROWS:,} rows",
                                  f"{MAX_ROWS:,} rows", f"{CLI} --compare {name}")
                if not references:  # every line names the same systems
                    if len(row) > MAX_SYSTEMS:
                        raise refused(name, f"{len(row):,} systems on its first line",
                                      f"{MAX_SYSTEMS} systems", f"{CLI} --compare {name}")
                    _reserved_keys(name, row)
                for system, text in row.items():
                    predictions.setdefault(system, []).append(text)
                references.append(refs)
        except RowError as error:
            raise user_error(str(error).replace(path, name), title="Unreadable file") from None
        if not references:
            raise user_error(f"{name} has no rows.", title="Empty file")
        return predictions, references, seconds, f"{seconds:,.1f} s of it reading {name}"
    paths = [_file_path(f) for f in (system_files or [])]
    refs_paths = [_file_path(f) for f in (ref_files or [])]
    if len(paths) < 2 or not refs_paths:
        raise user_error("Upload a JSONL file with a key per system, or two or more system "
                         "files (.txt, one prediction per line) and the reference file(s).",
                         title="Nothing to compare")
    local = f"{CLI} --compare SYSTEM.txt ... --references REFS.txt"
    if len(paths) > MAX_SYSTEMS:
        raise refused("the system files", f"{len(paths)} files", f"{MAX_SYSTEMS} systems",
                      local)
    predictions, references = {}, None
    names = system_names(paths)  # distinct: each system keeps its own rows
    for p in paths + refs_paths:
        _check_upload(p)
    # each system's file is read with every reference file
    seconds, _ = check_read_cost(paths + refs_paths * len(paths), "text", local)
    for p, name in zip(paths, names):
        preds, refs, _, _, _ = _read_rows(_open_rows(p, format="text",
                                                     reference_paths=refs_paths),
                                          _display_name(p))
        predictions[name], references = preds, refs
    return predictions, references, seconds, f"{seconds:,.1f} s of it reading the files"


def safe_cell(value: str) -> str:
    """OWASP's rule against CSV injection: a cell a spreadsheet would read as a formula
    (starting with = + - @, a tab or a carriage return) gets a leading apostrophe."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


class Downloads:
    """The per-example CSVs: one folder for the process, the newest DOWNLOADS_KEPT files kept
    (older ones are deleted as new ones come), the folder removed at exit."""

    def __init__(self):
        self.folder = None
        self.files: deque = deque()
        self.lock = threading.Lock()

    def new_path(self, name: str) -> str:
        with self.lock:
            if self.folder is None or not os.path.isdir(self.folder):
                self.folder = tempfile.mkdtemp(prefix="rouge_app_downloads_")
                atexit.register(shutil.rmtree, self.folder, True)
            while len(self.files) >= DOWNLOADS_KEPT:
                shutil.rmtree(self.files.popleft(), ignore_errors=True)
            folder = os.path.join(self.folder, uuid.uuid4().hex)
            os.mkdir(folder)
            self.files.append(folder)
            return os.path.join(folder, name)


DOWNLOADS = Downloads()


def write_scores_csv(state: dict) -> str:
    """The per-example scores of a corpus run as a CSV file: the row number, the input's other
    columns (state["extra"]: doc, id, system, ..., as the file had them, so that the scores
    join back), the texts, then the exact floats. A cell that would start a formula gets a
    leading apostrophe (safe_cell); no other cell is changed. Its path."""
    path = DOWNLOADS.new_path("rouge_per_example.csv")
    types = list(state["scores"])
    extra = state["extra"]
    columns: dict = {}
    for row in extra:
        columns.update(dict.fromkeys(row))
    taken = {"example", "prediction", "references"}
    names = [c if c not in taken else f"input_{c}" for c in columns]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["example"] + [safe_cell(n) for n in names] + ["prediction", "references"]
                        + [f"{t}_{k}" for t in types for k in MEASURES])
        for k, (p, refs) in enumerate(zip(state["predictions"], state["references"])):
            writer.writerow([k + 1] + [safe_cell(str(extra[k].get(c, ""))) for c in columns]
                            + [safe_cell(p), " ||| ".join(safe_cell(r) for r in refs)]
                            + [repr(float(v)) for t in types for v in state["scores"][t][k]])
    return path
