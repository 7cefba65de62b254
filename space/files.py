"""The uploads of the Corpus and Compare tabs, read by ``rouge_io`` (the CLI's reader: JSONL,
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
from typing import Optional

from rouge_io import RowError, Rows, read_system_rows

from .limits import (CLI, DOWNLOADS_KEPT, MAX_RECORD_BYTES, MAX_ROWS, MAX_UPLOAD_BYTES, refused,
                     user_error)
from .render import MEASURES


def _file_path(file) -> Optional[str]:
    if file is None:
        return None
    if isinstance(file, (list, tuple)):
        return _file_path(file[0]) if file else None
    return file if isinstance(file, str) else getattr(file, "name", None) or file.get("path")


def _display_name(path: str) -> str:
    return Path(path).name


def _read_rows(rows: Rows, shown: str) -> tuple:
    """Up to MAX_ROWS rows; RowError (with the upload's temporary path replaced by the file's
    name) as a readable error."""
    predictions, references, extra = [], [], []
    try:
        with rows:
            for prediction, refs in rows:
                if len(predictions) == MAX_ROWS:
                    raise refused("the corpus", f"more than {MAX_ROWS:,} examples",
                                  f"{MAX_ROWS:,} examples", f"{CLI} --input {shown}")
                predictions.append(prediction)
                references.append(refs)
                extra.append(rows.extra)  # the row's other columns
    except RowError as error:
        message = str(error)
        for path in rows.paths:
            message = message.replace(path, _display_name(path))
        raise user_error(message, title="Unreadable file") from None
    if not predictions:
        raise user_error(f"{shown} has no examples.", title="Empty corpus")
    return predictions, references, extra


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


def load_corpus(corpus_file, pred_file, ref_files) -> tuple:
    """(predictions, references, description, the other columns of each row: rouge_io's
    Rows.extra) from the uploads (rouge_io reads every format); gr.Error on any problem."""
    path = _file_path(corpus_file)
    ref_paths = [_file_path(p) for p in (ref_files if isinstance(ref_files, list)
                                         else [ref_files] if ref_files else [])]
    ref_paths = [p for p in ref_paths if p]
    pred_path = _file_path(pred_file)
    if path:
        _check_upload(path)
        name = _display_name(path)
        preds, refs, extra = _read_rows(_open_rows(path), name)
        return preds, refs, name, extra
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
    preds, refs, extra = _read_rows(_open_rows(pred_path, format="text",
                                               reference_paths=ref_paths), shown)
    return preds, refs, shown, extra


def load_systems(systems_file, system_files, ref_files) -> tuple:
    """({system: predictions}, references) from a JSONL with one key per system, or one
    predictions text file per system plus reference text files."""
    path = _file_path(systems_file)
    if path:
        _check_upload(path)
        predictions, references = {}, []
        try:
            for row, refs in read_system_rows(path, max_record_bytes=MAX_RECORD_BYTES):
                if len(references) == MAX_ROWS:
                    raise refused("the file", f"more than {MAX_ROWS:,} rows",
                                  f"{MAX_ROWS:,} rows", f"{CLI} --compare {_display_name(path)}")
                for name, text in row.items():
                    predictions.setdefault(name, []).append(text)
                references.append(refs)
        except RowError as error:
            raise user_error(str(error).replace(path, _display_name(path)),
                             title="Unreadable file") from None
        if not references:
            raise user_error(f"{_display_name(path)} has no rows.", title="Empty file")
        return predictions, references
    paths = [_file_path(f) for f in (system_files or [])]
    refs_paths = [_file_path(f) for f in (ref_files or [])]
    if len(paths) < 2 or not refs_paths:
        raise user_error("Upload a JSONL file with a key per system, or two or more system "
                         "files (.txt, one prediction per line) and the reference file(s).",
                         title="Nothing to compare")
    predictions, references = {}, None
    for p in paths + refs_paths:
        _check_upload(p)
    for p in paths:
        name = Path(p).stem
        name = name if name not in predictions else _display_name(p)
        preds, refs, _ = _read_rows(_open_rows(p, format="text", reference_paths=refs_paths),
                                    _display_name(p))
        predictions[name], references = preds, refs
    return predictions, references


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
