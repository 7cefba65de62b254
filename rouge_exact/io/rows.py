"""Read (prediction, references) rows from files: the one reader of the command and the Space.

``read_rows(path, fmt=None, reference_paths=None)`` and ``Rows`` (a context manager that also
gives each row's line and other columns) read JSONL, JSON, CSV, TSV and text files (the format
from the suffix unless named: ``FORMATS``, ``detect_format``). Every problem with a file is a
``RowError`` (a ValueError) of one line, ``PATH:LINE: what is wrong; what is allowed``, and
nothing else escapes for any content. A record over ``max_record_bytes`` is refused before it
is read whole, so memory stays within a few times the limit. Standard library only.
docs/cli.md defines the formats; docs/design.md, "The readers", has the details.
"""

import codecs
import itertools
import json
import os
from pathlib import Path

from .delimited import CsvReader
from .json_format import JsonDocument
from .values import (
    SHOWN_NAMES,
    ROW_SHAPE,
    RowError,
    is_text,
    json_kind,
    parse_record,
    references_of,
    row_of_object,
    shown_name,
    shown_list,
    text_error,
)

DEFAULT_MAX_RECORD_BYTES = 16 * 2 ** 20
FORMATS = ("jsonl", "json", "csv", "tsv", "text")
SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv",
            ".tsv": "tsv", ".txt": "text"}
_DELIMITERS = {"csv": ",", "tsv": "\t"}
_READ_PIECE = 1 << 20  # bytes per read


def detect_format(path) -> str:
    """The format for ``path`` from its suffix (see the module docstring); RowError if the
    suffix is not one of them."""
    suffix = Path(str(path)).suffix.lower()
    if suffix not in SUFFIXES:
        known = ", ".join(f"{s} ({f})" for s, f in SUFFIXES.items())
        raise RowError(f"{path}: cannot tell the format from the suffix {suffix or '(none)'!r}"
                       f"; allowed: the suffixes {known}, or name the format: "
                       f"{', '.join(FORMATS)}")
    return SUFFIXES[suffix]


def read_rows(path, format=None, *, reference_paths=(),
              max_record_bytes=DEFAULT_MAX_RECORD_BYTES, limit_name="max_record_bytes"):
    """Yield (prediction, references) from ``path``; the files are closed when the generator
    ends or is closed. Arguments as ``Rows``."""
    with Rows(path, format, reference_paths=reference_paths, max_record_bytes=max_record_bytes,
              limit_name=limit_name) as rows:
        yield from rows


SYSTEMS_SHAPE = ('{"references": [str, ...] or str, "<system>": str, "<system>": str, ...}, '
                 'optionally with an id, "doc" and/or "id": a number or a string')
ID_KEYS = ("doc", "id")  # keys of a compare file that identify the row, not a system
_SYSTEM_KEYS = 'every key except "references", "doc" and "id" is read as a system'


def read_system_rows(path, *, max_record_bytes=DEFAULT_MAX_RECORD_BYTES,
                     limit_name="max_record_bytes"):
    """Yield ({system: prediction}, references) from a JSONL file of several systems' outputs
    (for comparisons): one object per line, ``SYSTEMS_SHAPE``; every line names the same
    systems. ``doc`` and ``id`` (``ID_KEYS``) are ids, not systems: they are not yielded,
    and each may hold a number or a string; every other key but ``references`` is a system,
    whose value must be a string. Lines, limits and errors as ``Rows``' jsonl."""
    f = _LineFile(os.fspath(path), _check_limit(max_record_bytes), limit_name)
    shape = f"one object per line, {SYSTEMS_SHAPE}"
    systems = None
    try:
        for lineno, text in f.lines():
            if not text or text.isspace():
                continue
            obj = parse_record(text, lambda lineno=lineno: f"{f.path}:{lineno}", shape)
            where = f"{f.path}:{lineno}"
            if not isinstance(obj, dict) or "references" not in obj:
                raise RowError(f"{where}: expected {shape}")
            predictions = {k: v for k, v in obj.items()
                           if k != "references" and k not in ID_KEYS}
            if systems is None:
                systems = set(predictions)
                if not systems:
                    raise RowError(f"{where}: no system key ({_SYSTEM_KEYS}); allowed: "
                                   f"{SYSTEMS_SHAPE}")
            if predictions.keys() != systems:  # as sets: a line may list them in any order
                raise RowError(f"{where}: {_systems_differ(predictions.keys(), systems)}; "
                               f"allowed: the same systems on every line ({_SYSTEM_KEYS})")
            for name, value in predictions.items():
                if not is_text(value):
                    error = text_error(value, where, shown_name(name))
                    raise (RowError(f"{error}; allowed: a string per system ({_SYSTEM_KEYS})")
                           if type(value) is not str else error)
            for key in ID_KEYS:
                if key in obj and (type(obj[key]) not in (int, float, str)):
                    raise RowError(f"{where}: the id {key!r} must be a number or a string, "
                                   f"got {json_kind(obj[key])}; allowed: {SYSTEMS_SHAPE}")
            yield predictions, references_of(obj["references"], where)
    finally:
        f.close()


def _systems_differ(found, first) -> str:
    """What differs between a line's systems and the first line's, for a one-line message:
    both lists when short, else the systems new and missing (at most SHOWN_NAMES each)."""
    if len(found) <= SHOWN_NAMES and len(first) <= SHOWN_NAMES:
        return (f"the systems {shown_list(sorted(found), True)} differ from the first "
                f"line's {shown_list(sorted(first), True)}")
    new, missing = sorted(found - first), sorted(first - found)
    return (f"the systems differ from the first line's ({len(found):,} systems here, "
            f"{len(first):,} there): new here {shown_list(new, brackets=True)}, missing "
            f"here {shown_list(missing, brackets=True)}")


class _LineFile:
    """A binary file read as lines (split on b"\\n" only) in blocks: a line longer than the
    limit is refused as soon as more than the limit of it has been read, so at most the limit
    plus a block is held. Lines are decoded as UTF-8, a whole block at a time, with the line
    and byte offset in every message."""

    def __init__(self, path: str, limit: int, limit_name: str):
        self.path, self.limit, self.limit_name = path, limit, limit_name
        if os.path.isdir(path):
            raise RowError(f"{path}: Is a directory; allowed: a file")
        try:
            self.file = open(path, "rb")
        except OSError as error:
            raise RowError(f"{path}: {error.strerror or error}") from None
        self.lineno = 0  # lines returned so far
        self.offset = 0  # bytes read so far

    def close(self):
        self.file.close()

    def too_long(self, lineno: int, what: str = "the line") -> RowError:
        return RowError(f"{self.path}:{lineno}: {what} is longer than {self.limit:,} bytes; "
                        f"allowed: at most {self.limit_name}={self.limit} bytes per record")

    def decode(self, data: bytes, first_line: int, offset: int) -> str:
        """``data`` (read from byte ``offset``, starting on line ``first_line``) as text;
        RowError with the line and byte offset of the first byte that is not UTF-8."""
        if offset == 0 and data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise RowError(f"{self.path}:1: the file starts with a UTF-16 byte order mark; "
                           "allowed: UTF-8 text")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = first_line + data.count(b"\n", 0, error.start)
            raise RowError(f"{self.path}:{line}: not valid UTF-8 (byte offset "
                           f"{offset + error.start} in the file: "
                           f"{data[error.start:error.start + 4]!r}...); allowed: UTF-8 "
                           "text") from None
        return text[1:] if offset == 0 and text.startswith("\ufeff") else text

    def read_whole(self) -> str:
        """The whole file as text (for JSON); RowError when it is larger than the limit."""
        data = self.file.read(self.limit + 1)
        self.offset = len(data)
        if len(data) > self.limit:
            raise RowError(f"{self.path}:1: a JSON file is read whole and this one is larger "
                           f"than {self.limit:,} bytes; allowed: at most {self.limit_name}="
                           f"{self.limit} bytes (use JSONL, one row per line, for larger "
                           "corpora)")
        return self.decode(data, 1, 0)

    def lines(self, keep_end: bool = False):
        """(line number, text) of each line, without its "\\n" or "\\r\\n" unless
        keep_end (a last line without "\\n" counts)."""
        carry, carried = [], 0  # the start of an unfinished line
        while True:
            block = self.file.read(_READ_PIECE)
            start = self.offset - carried  # file offset of carry + block
            self.offset += len(block)
            end = block.rfind(b"\n") + 1
            if not block or end:
                data = b"".join([*carry, block[:end]]) if block else b"".join(carry)
                carry = [block[end:]] if block and end < len(block) else []
                carried = len(carry[0]) if carry else 0
                yield from self._split(data, start, keep_end)
                if not block:
                    return
            else:
                carry.append(block)
                carried += len(block)
            if carried and carried - carry[-1].endswith(b"\r") > self.limit:
                raise self.too_long(self.lineno + 1)

    def _split(self, data: bytes, start: int, keep_end: bool, checked: bool = False):
        """The lines of ``data`` (complete lines, or the file's last line), from ``start``."""
        if len(data) > self.limit and not checked:  # a line may be too long: one by one
            *complete, last = data.split(b"\n")
            for k, raw in enumerate(complete + [last]):
                if len(raw) - raw.endswith(b"\r") > self.limit:
                    raise self.too_long(self.lineno + k + 1)
            for line in [raw + b"\n" for raw in complete] + [last] * bool(last):
                yield from self._split(line, start, keep_end, checked=True)
                start += len(line)
            return
        pieces = self.decode(data, self.lineno + 1, start).split("\n")
        last = pieces.pop()  # "" after a final "\n"; else the file's last line
        for piece in pieces:
            self.lineno += 1
            if keep_end:
                yield self.lineno, piece + "\n"
            else:
                yield self.lineno, piece[:-1] if piece.endswith("\r") else piece
        if last:
            self.lineno += 1
            yield self.lineno, last if keep_end or not last.endswith("\r") else last[:-1]


def _count_lines(path: str) -> int:
    """The lines of a file, counted in bounded pieces (a last line without "\\n" counts)."""
    count, last = 0, b"\n"
    with open(path, "rb") as file:
        while piece := file.read(_READ_PIECE):
            count += piece.count(b"\n")
            last = piece[-1:]
    return count + (last != b"\n")


def _check_limit(max_record_bytes) -> int:
    if isinstance(max_record_bytes, bool) or not isinstance(max_record_bytes, int) \
            or max_record_bytes < 1:
        raise ValueError(f"max_record_bytes: got {max_record_bytes!r}; allowed: an integer "
                         ">= 1")
    return max_record_bytes


class Rows:
    """(prediction, references) rows of one input, read lazily: an iterator and a context
    manager (``close()`` closes the files).

    path: the file (for ``text``: the predictions). format: one of FORMATS, or None to use
    ``detect_format(path)``. reference_paths: the reference files of ``text`` (one or more;
    several give several references per row). max_record_bytes: the limit on one record.
    limit_name: how messages name that limit (the CLI passes its option's name).

    ``size``: the bytes of ``path`` (None when unknown, e.g. a pipe); ``bytes_read``: the
    bytes read from it so far (for a progress bar); ``line``: the line of ``path`` where the
    last row returned starts (for messages about a row); ``extra``: the other fields of the
    last row returned, a new ``{name: str}`` dict (``{}`` before the first row):

    - jsonl, and json's list of objects: the object's keys other than ``prediction`` and
      ``references``, in the object's order; a string value as it is, any other value (or a
      string with a lone surrogate) as compact JSON text, e.g. ``3``, ``null``, ``[1,2]``;
    - csv/tsv: the columns other than the prediction and reference columns, named by their
      header cell without its surrounding spaces (an unnamed column, such as pandas' index,
      is ``column_N``, N its position from 1), each cell as it is;
    - text, and json's parallel lists: ``{}``.

    It is made when read, from the row the reader already holds (nothing is kept for
    earlier rows)."""

    def __init__(self, path, format=None, *, reference_paths=(),
                 max_record_bytes=DEFAULT_MAX_RECORD_BYTES, limit_name="max_record_bytes"):
        self.limit = _check_limit(max_record_bytes)
        path = os.fspath(path)
        if isinstance(reference_paths, (str, bytes, os.PathLike)):
            reference_paths = [reference_paths]
        reference_paths = [os.fspath(p) for p in reference_paths]
        self.format = detect_format(path) if format is None else format
        if self.format not in FORMATS:
            raise ValueError(f"format: got {format!r}; allowed: {', '.join(FORMATS)}")
        if self.format == "text" and not reference_paths:
            raise RowError(f"{path}: no reference files; allowed: text needs one or more "
                           "reference files, one text per line aligned with the predictions")
        if self.format != "text" and reference_paths:
            raise RowError(f"{path}: reference files given for {self.format}; allowed: reference"
                           " files with the text format only (the other formats hold both)")
        self.paths = [path, *reference_paths]
        self.files = []
        try:
            for p in self.paths:
                self.files.append(_LineFile(p, self.limit, limit_name))
        except RowError:
            self.close()
            raise
        size = os.fstat(self.files[0].file.fileno()).st_size
        self.size = size if size > 0 else None
        self.line = 0
        self._raw = None  # the last row's object (jsonl/json) or cells (csv/tsv), for extra
        self._extra_columns = ((), ())  # csv/tsv: _extra_columns(), the other columns
        self._rows = self._unpack(getattr(self, "_" + self.format)())

    @property
    def bytes_read(self) -> int:
        return self.files[0].offset

    def _unpack(self, rows):
        """(prediction, references) of each (line, prediction, references, raw), keeping
        line and raw (what extra is made from)."""
        for self.line, prediction, references, self._raw in rows:
            yield prediction, references

    @property
    def extra(self) -> dict:
        raw = self._raw
        if type(raw) is dict:
            return {key: _extra_text(value) for key, value in raw.items()
                    if key != "prediction" and key != "references"}
        if raw is None:
            return {}
        keep, names = self._extra_columns
        return dict(zip(names, itertools.compress(raw, keep)))

    def __iter__(self):
        return self._rows

    def __next__(self):
        return next(self._rows)

    def close(self):
        for f in self.files:
            f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # one generator per format ---------------------------------------------------------------

    def _jsonl(self):
        f = self.files[0]
        shape = f"one object per line, {ROW_SHAPE}"
        for lineno, text in f.lines():
            if not text or text.isspace():
                continue
            obj = parse_record(text, lambda lineno=lineno: f"{f.path}:{lineno}", shape)
            yield lineno, *row_of_object(obj, f.path, lineno), obj

    def _text(self):
        lines = [f.lines() for f in self.files]
        while True:
            found = [next(each, None) for each in lines]
            if None in found:
                if found.count(None) == len(found):
                    return
                ended = self.files[found.index(None)]
                counts = [_count_lines(f.path) for f in self.files]
                listed = ", ".join(f"{f.path} has {c:,} line{'s' * (c != 1)}"
                                   for f, c in zip(self.files, counts))
                raise RowError(f"{ended.path}:{ended.lineno + 1}: no such line: {listed}; "
                               "allowed: one line per example in every file, so the same "
                               "number of lines")
            yield found[0][0], found[0][1], [text for _, text in found[1:]], None

    def _json(self):
        f = self.files[0]
        yield from JsonDocument(f.read_whole(), f.path).rows()

    def _csv(self):
        yield from CsvReader(self.files[0], _DELIMITERS["csv"], self).rows()

    def _tsv(self):
        yield from CsvReader(self.files[0], _DELIMITERS["tsv"], self).rows()


_JSON_CONSTANTS = {None: "null", True: "true", False: "false", "nan": "NaN",
                   "inf": "Infinity", "-inf": "-Infinity"}
# json.dumps(value, ensure_ascii=..., separators=(",", ":")), its encoder made once (json.dumps
# makes one per call when given arguments: most of the time of a short value)
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_COMPACT_ASCII = json.JSONEncoder(separators=(",", ":")).encode


def _extra_text(value) -> str:
    """A field of Rows.extra: a string as it is, anything else (or a string with a lone
    surrogate, which UTF-8 cannot write) as compact JSON text."""
    if is_text(value):
        return value
    if type(value) is int:  # json's own text for an int, without its encoder
        return int.__repr__(value)
    if value is None or type(value) is bool:
        return _JSON_CONSTANTS[value]
    if type(value) is float:  # json's text: repr, or NaN / Infinity / -Infinity
        return float.__repr__(value) if value - value == 0 else _JSON_CONSTANTS[repr(value)]
    text = _COMPACT(value)
    if is_text(text):
        return text
    return _COMPACT_ASCII(value)  # lone surrogates as \u escapes
