"""Read (prediction, references) rows from files: one reader for the CLI and the Space.

Standard library only, no relative imports (a flat sibling module: docs/design.md, the loader's rules).

API::

    from rouge_io import read_rows, Rows, RowError, detect_format, FORMATS

    for prediction, references in read_rows("pairs.csv"):          # format from the suffix
        ...                                                          # str, list[str]
    for prediction, references in read_rows("preds.txt", "text",
                                            reference_paths=["refs_a.txt", "refs_b.txt"]):
        ...
    with Rows("corpus.json", max_record_bytes=64 * 2**20) as rows:   # rows.bytes_read, rows.size
        batch = list(itertools.islice(rows, 10_000))
    with Rows("pairs.csv") as rows:
        for prediction, references in rows:
            rows.line, rows.extra    # where the row starts; its other fields {name: str}

Every problem with a file raises ``RowError`` (a ValueError) whose message is one line,
``PATH:LINE: what is wrong; what is allowed``. Nothing else escapes for any file content
(OSError from opening a path is turned into a RowError too).

Formats (``FORMATS``; ``detect_format`` picks one from the suffix: ``.jsonl``/``.ndjson`` →
jsonl, ``.json`` → json, ``.csv`` → csv, ``.tsv`` → tsv, ``.txt`` → text):

- ``jsonl``: one object per line, ``{"prediction": str, "references": [str, ...] or str}``;
  other keys are ignored, blank lines skipped. Lines are split on ``b"\\n"`` only (a raw
  U+2028 or ``"\\r"`` inside a JSON string is valid JSONL), a ``"\\r"`` before it is dropped.
- ``json``: the whole file is one value, either a list of such objects or an object of
  parallel lists ``{"predictions": [str, ...], "references": [[str, ...] or str, ...]}``.
  It is not streamed: the file counts as one record (``max_record_bytes``), and nesting
  deeper than ``MAX_JSON_DEPTH`` is refused before parsing (a JSONL line or a CSV cell is
  parsed at once, and nesting too deep for json's parser is refused as it is found).
- ``csv`` / ``tsv``: RFC 4180 (``"`` quotes a cell, ``""`` is a quote inside it, commas,
  tabs and newlines are allowed in quoted cells, CRLF or LF line ends); the delimiter is ``,``
  for csv and a tab for tsv, never guessed. The first record names the columns
  (case-insensitive, surrounding spaces ignored; other columns are ignored):

  - ``prediction``: the prediction, as it is;
  - and exactly one way of giving the references:

    - ``reference``: one reference per row, as it is;
    - ``reference_1``, ``reference_2``, ...: several references per row; ``reference_1``
      is always kept (even empty), an empty cell in the others means "no reference", so rows
      may have different numbers of references;
    - ``references``: each cell is a JSON array of strings, e.g. ``["a b", "c"]`` (a JSON
      array, never plain text: the column's name decides how a cell is read, so a reference
      that happens to look like ``[1]`` is never misread).

  This is what Python's ``csv.writer`` and ``pandas.DataFrame.to_csv(index=False)`` write.
  Blank lines between records are skipped. Every step on the header is linear in its
  columns, and a message lists at most 20 of them (a header of 400,000 columns is read
  in about 0.2 s: ``benchmarks/readers.py --sweep columns``).
- ``text``: a predictions file and one or more reference files (``reference_paths``), one
  text per line, aligned line by line (split on ``b"\\n"``, a ``"\\r"`` before it is dropped).
  Different line counts are an error naming every file's count.

Limits: a record longer than ``max_record_bytes`` (``DEFAULT_MAX_RECORD_BYTES`` = 16 MiB) is
refused. A record is a line of JSONL or text (its bytes without the "\\n" or "\\r\\n"), one CSV
record (with the line ends inside and after it), or a whole JSON file. Files are read in
blocks of 1 MiB and a line is refused as soon as more than the limit of it has been read, so
memory stays within a few times the limit whatever the file holds (a 2 GiB line: refused in
0.05 s at a peak RSS of 43 MiB, interpreter included). Files are UTF-8 (a leading BOM is
dropped); invalid UTF-8 is reported with its line and byte offset in the file, a UTF-16 file
as such. A JSON string escape that is half a surrogate pair (``"\\ud800"``) is refused: no
UTF-8 text can hold it.

For the Space: an uploaded file keeps its suffix, so ``read_rows(path)`` picks the format;
``RowError``'s message is meant to be shown as it is.

CSV is parsed by ``_csv_records``, not by the csv module: csv refuses fields longer than
``csv.field_size_limit()`` (128 KiB by default), a process-wide setting that a reader may not
change. ``_csv_records`` reads every record exactly as ``csv.reader(lines, delimiter=...,
strict=True)`` would with a large enough limit, errors and their messages included
(tests/test_io.py holds them equal), and leaves the limit to ``max_record_bytes``.
"""

import codecs
import itertools
import json
import os
import re
from pathlib import Path

__all__ = ["DEFAULT_MAX_RECORD_BYTES", "FORMATS", "ID_KEYS", "MAX_JSON_DEPTH", "RowError",
           "Rows", "detect_format", "read_rows", "read_system_rows"]

DEFAULT_MAX_RECORD_BYTES = 16 * 2 ** 20
# A corpus needs 3 levels (list > object > references list); deeper is never one, and
# json.loads would recurse once per level.
MAX_JSON_DEPTH = 32
FORMATS = ("jsonl", "json", "csv", "tsv", "text")
SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv",
            ".tsv": "tsv", ".txt": "text"}
_DELIMITERS = {"csv": ",", "tsv": "\t"}
_READ_PIECE = 1 << 20  # bytes per read

ROW_SHAPE = '{"prediction": str, "references": [str, ...] or str}'
CSV_COLUMNS = ("a header naming the columns prediction and one of: reference; reference_1, "
               "reference_2, ...; references (JSON arrays of strings)")


class RowError(ValueError):
    """A problem with an input file; the message is one line, ``PATH:LINE: ...``."""


_NUMBERED = re.compile(r"reference_[1-9][0-9]*")
_SHOWN_NAMES = 20  # header cells a message lists (a header may have 400,000)
_SHOWN_CHARS = 60  # characters of one name a message shows


def _shown(name: str, quote: bool = True) -> str:
    """A name for a one-line message: its repr (or, not quoted, itself when it is all
    printable), cut in the middle past _SHOWN_CHARS characters with its full length said."""
    cut = name if len(name) <= _SHOWN_CHARS else \
        f"{name[:_SHOWN_CHARS // 2]}...{name[-(_SHOWN_CHARS // 2):]}"
    cut = cut if not quote and cut.isprintable() else repr(cut)
    return cut if len(name) <= _SHOWN_CHARS else f"{cut} ({len(name):,} characters)"


def _shown_list(names, brackets: bool = False) -> str:
    """The first _SHOWN_NAMES names (their reprs), and how many there are in all when that
    is more; in [] with brackets."""
    names = list(names)
    if not names and not brackets:
        return "none"
    shown = ", ".join(_shown(n) for n in names[:_SHOWN_NAMES])
    if len(names) > _SHOWN_NAMES:
        shown += f", ... ({len(names):,} in all)"
    return f"[{shown}]" if brackets else shown


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
            obj = _loads(text, lambda: f"{f.path}:{lineno}", shape)
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
                if not _is_text(value):
                    error = _text_error(value, where, _shown(name))
                    raise (RowError(f"{error}; allowed: a string per system ({_SYSTEM_KEYS})")
                           if type(value) is not str else error)
            for key in ID_KEYS:
                if key in obj and (type(obj[key]) not in (int, float, str)):
                    raise RowError(f"{where}: the id {key!r} must be a number or a string, "
                                   f"got {_json_kind(obj[key])}; allowed: {SYSTEMS_SHAPE}")
            yield predictions, _references(obj["references"], where)
    finally:
        f.close()


def _systems_differ(found, first) -> str:
    """What differs between a line's systems and the first line's, for a one-line message:
    both lists when short, else the systems new and missing (at most _SHOWN_NAMES each)."""
    if len(found) <= _SHOWN_NAMES and len(first) <= _SHOWN_NAMES:
        return (f"the systems {_shown_list(sorted(found), True)} differ from the first "
                f"line's {_shown_list(sorted(first), True)}")
    new, missing = sorted(found - first), sorted(first - found)
    return (f"the systems differ from the first line's ({len(found):,} systems here, "
            f"{len(first):,} there): new here {_shown_list(new, brackets=True)}, missing "
            f"here {_shown_list(missing, brackets=True)}")


def _json_kind(value) -> str:
    for kind, name in ((dict, "an object"), (list, "an array"), (str, "a string"),
                       (bool, "a boolean"), ((int, float), "a number")):
        if isinstance(value, kind):
            return name
    return "null"


# json.loads turns a "\ud800" escape without its pair into a lone surrogate, which no UTF-8
# text can hold: such strings are refused, with their line (an ASCII string holds none).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _is_text(value) -> bool:
    return type(value) is str and (value.isascii() or not _SURROGATE.search(value))


def _text_error(value, where: str, name: str) -> RowError:
    if isinstance(value, str):
        found = _SURROGATE.search(value).group()
        return RowError(f"{where}: {name} holds a lone surrogate \\u{ord(found):04x} (a JSON "
                        "escape that is half of a pair); allowed: Unicode text, which UTF-8 "
                        "can encode")
    return RowError(f"{where}: {name} must be a string, got {_json_kind(value)}")


def _references(value, where: str, name: str = '"references"') -> list:
    """A references value (str or non-empty list of str) as a list; RowError otherwise."""
    if type(value) is list and value and all(map(_is_text, value)):
        return value
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        empty = " (empty)" if value == [] else ""
        raise RowError(f"{where}: {name} must be a string or a non-empty array of strings, got "
                       f"{_json_kind(value)}{empty}")
    for j, item in enumerate(value):
        if not _is_text(item):
            raise _text_error(item, where, f"{name}[{j}]")
    return value


def _row_of_object(obj, path: str, line: int):
    """(prediction, references) of one JSON row object; RowError naming path:line."""
    if type(obj) is dict:  # the common case, checked quickly
        prediction, references = obj.get("prediction"), obj.get("references")
        if _is_text(prediction) and type(references) is list and references and \
                all(map(_is_text, references)):
            return prediction, references
    where = f"{path}:{line}"
    if not isinstance(obj, dict):
        raise RowError(f"{where}: expected an object {ROW_SHAPE}, got {_json_kind(obj)}")
    for key in ("prediction", "references"):
        if key not in obj:
            keys = sorted(obj)
            found = ", ".join(_shown(k, quote=False) for k in keys[:10]) + \
                (f", ... ({len(keys):,} keys)" if len(keys) > 10 else "") or "none"
            raise RowError(f"{where}: missing key {key!r} (keys found: {found}); each row is "
                           f"{ROW_SHAPE}")
    if not _is_text(obj["prediction"]):
        raise _text_error(obj["prediction"], where, '"prediction"')
    return obj["prediction"], _references(obj["references"], where)


# A JSON string (with its escapes) or a bracket: strings are skipped when measuring depth.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _too_deep(text: str):
    """The position where brackets nest deeper than MAX_JSON_DEPTH, or None (a linear scan
    before json parses anything: json.loads recurses once per level)."""
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        char = text[match.start()]
        if char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return match.start()
        elif char in "]}":
            depth -= 1
    return None


def _depth_error(where: str) -> RowError:
    return RowError(f"{where}: JSON nested deeper than {MAX_JSON_DEPTH} levels; allowed: a "
                    f"corpus needs 3 (a list of {ROW_SHAPE})")


_DECODER = json.JSONDecoder()


def _loads(text: str, where, shape: str):
    """json.loads for one record (a JSONL line, a CSV cell); RowError naming ``where`` (a
    str, or a callable giving it) and the expected shape. Depth is checked while parsing:
    json's decoder raises RecursionError a thousand levels down, in C, whatever the depth
    of the text, and that is reported as too deep."""
    try:  # the common case, fast: an object from the first character to the last
        value, end = _DECODER.raw_decode(text)
        if end == len(text):
            return value
    except (ValueError, RecursionError):
        pass
    try:  # spaces around the value, or an error to report
        return _DECODER.decode(text)
    except RecursionError:
        where = where if isinstance(where, str) else where()
        raise RowError(f"{where}: JSON nested too deep to parse; allowed: {shape}") from None
    except ValueError as error:  # JSONDecodeError, or e.g. an integer of 5,000 digits
        problem = (f"{error.msg} (column {error.colno})"
                   if isinstance(error, json.JSONDecodeError) else " ".join(str(error).split()))
        where = where if isinstance(where, str) else where()
        raise RowError(f"{where}: invalid JSON: {problem}; allowed: {shape}") from None


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
            obj = _loads(text, lambda: f"{f.path}:{lineno}", shape)
            yield lineno, *_row_of_object(obj, f.path, lineno), obj

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
        yield from _JsonDocument(f.read_whole(), f.path).rows()

    def _csv(self):
        yield from _CsvReader(self.files[0], _DELIMITERS["csv"], self).rows()

    def _tsv(self):
        yield from _CsvReader(self.files[0], _DELIMITERS["tsv"], self).rows()


class _JsonDocument:
    """A whole JSON corpus: its top level is walked by hand (json's raw_decode per item) so
    that each row's message names its line."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path

    def line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def lines_at(self, positions: list) -> list:
        """The line of each position (ascending): one pass over the text."""
        out, line, last = [], 1, 0
        for pos in positions:
            line += self.text.count("\n", last, pos)
            last = pos
            out.append(line)
        return out

    def where(self, pos: int) -> str:
        return f"{self.path}:{self.line(pos)}"

    def fail(self, pos: int, problem: str) -> RowError:
        return RowError(f"{self.where(pos)}: invalid JSON: {problem} (column "
                        f"{pos - self.text.rfind(chr(10), 0, pos)}); allowed: a list of "
                        f"{ROW_SHAPE}, or {{\"predictions\": [...], \"references\": [...]}}")

    def space(self, pos: int) -> int:
        return _JSON_SPACE.match(self.text, pos).end()

    def value(self, pos: int):
        """(value, end) of the JSON value at pos."""
        try:
            return json.JSONDecoder().raw_decode(self.text, pos)
        except json.JSONDecodeError as error:
            raise self.fail(error.pos, error.msg) from None
        except (ValueError, RecursionError) as error:
            raise self.fail(pos, " ".join(str(error).split())) from None

    def members(self, pos: int, close: str, read) -> int:
        """Walk the array or object opening at pos: ``read(position)`` reads one member and
        returns where it ends; returns the position after the closing bracket."""
        pos = self.space(pos + 1)
        if self.text.startswith(close, pos):
            return pos + 1
        while True:
            pos = self.space(read(pos))
            if self.text.startswith(close, pos):
                return pos + 1
            if not self.text.startswith(",", pos):
                raise self.fail(pos, f"expected ',' or '{close}'")
            pos = self.space(pos + 1)

    def array(self, pos: int):
        """([(position, item), ...], end) of the array at pos."""
        out = []

        def read(at):
            item, end = self.value(at)
            out.append((at, item))
            return end

        return out, self.members(pos, "]", read)

    def rows(self):
        if (deep := _too_deep(self.text)) is not None:
            raise _depth_error(self.where(deep))
        start = self.space(0)
        if self.text.startswith("[", start):
            items, end = self.array(start)
            self.check_end(end)
            lines = self.lines_at([pos for pos, _ in items])
            for line, (_, item) in zip(lines, items):
                yield line, *_row_of_object(item, self.path, line), item
        elif self.text.startswith("{", start):
            yield from self.parallel_lists(start)
        else:
            kind = "nothing" if start == len(self.text) else "neither a list nor an object"
            raise self.fail(start, f"found {kind}")

    def check_end(self, end: int):
        end = self.space(end)
        if end != len(self.text):
            raise self.fail(end, "extra data after the corpus (one JSON value per file; JSON "
                                 "Lines need the jsonl format)")

    def parallel_lists(self, start: int):
        found = {}

        def read(at):
            key, pos = self.value(at)
            if not isinstance(key, str):
                raise self.fail(at, "expected a key")
            pos = self.space(pos)
            if not self.text.startswith(":", pos):
                raise self.fail(pos, "expected ':'")
            pos = self.space(pos + 1)
            if key not in ("predictions", "references"):
                return self.value(pos)[1]
            if not self.text.startswith("[", pos):
                raise RowError(f"{self.where(pos)}: \"{key}\" must be an array")
            found[key], end = self.array(pos)
            return end

        self.check_end(self.members(start, "}", read))
        for key in ("predictions", "references"):
            if key not in found:
                raise RowError(f"{self.where(start)}: missing key {key!r}; allowed: a list of "
                               f"{ROW_SHAPE}, or {{\"predictions\": [str, ...], "
                               "\"references\": [[str, ...] or str, ...]}")
        predictions, references = found["predictions"], found["references"]
        if len(predictions) != len(references):
            raise RowError(f"{self.where(start)}: \"predictions\" has {len(predictions):,} "
                           f"items and \"references\" has {len(references):,}; allowed: one "
                           "reference entry per prediction")
        p_lines = self.lines_at([pos for pos, _ in predictions])
        r_lines = self.lines_at([pos for pos, _ in references])
        for k, (p_line, r_line) in enumerate(zip(p_lines, r_lines)):
            prediction, refs = predictions[k][1], references[k][1]
            if not _is_text(prediction):
                raise _text_error(prediction, f"{self.path}:{p_line}", f'"predictions"[{k}]')
            yield p_line, prediction, _references(refs, f"{self.path}:{r_line}",
                                                  f'"references"[{k}]'), None


_JSON_CONSTANTS = {None: "null", True: "true", False: "false", "nan": "NaN",
                   "inf": "Infinity", "-inf": "-Infinity"}
# json.dumps(value, ensure_ascii=..., separators=(",", ":")), its encoder made once (json.dumps
# makes one per call when given arguments: most of the time of a short value)
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_COMPACT_ASCII = json.JSONEncoder(separators=(",", ":")).encode


def _extra_text(value) -> str:
    """A field of Rows.extra: a string as it is, anything else (or a string with a lone
    surrogate, which UTF-8 cannot write) as compact JSON text."""
    if _is_text(value):
        return value
    if type(value) is int:  # json's own text for an int, without its encoder
        return int.__repr__(value)
    if value is None or type(value) is bool:
        return _JSON_CONSTANTS[value]
    if type(value) is float:  # json's text: repr, or NaN / Infinity / -Infinity
        return float.__repr__(value) if value - value == 0 else _JSON_CONSTANTS[repr(value)]
    text = _COMPACT(value)
    if _is_text(text):
        return text
    return _COMPACT_ASCII(value)  # lone surrogates as \u escapes


def _extra_columns(header: list, used: set) -> tuple:
    """(keep, names): a list of len(header) booleans, True for the columns not in ``used``,
    and the names of those columns in order: the cell without its surrounding spaces, or
    column_N (N from 1, with "_" added until no other column has the name) for an unnamed
    one. Linear in the header's characters: a "_" is added only past a column named so."""
    names = list(map(str.strip, header))
    keep = [True] * len(names)
    for k in used:
        keep[k] = False
    if "" in names:
        taken = set(names)
        for k, name in enumerate(names):
            if not name:
                name = f"column_{k + 1}"
                while name in taken:
                    name += "_"
                taken.add(name)
                names[k] = name
    return keep, list(itertools.compress(names, keep))


class _CsvError(Exception):
    """A record that csv.reader(strict=True) refuses; the message is csv's, but for
    _CSV_STRAY_CR (csv's advice there, to open the file in another newline mode, is not the
    user's to follow, and its wording differs between Python versions)."""


_CSV_STRAY_CR = 'a "\\r" (carriage return) outside quotes with more text after it on its line'


def _csv_after_field(line: str, pos: int, delimiter: str) -> bool:
    """After a field, at line[pos]: True if another field follows (a delimiter, skipped by the
    caller), False if the record ends here (the line's end, or "\r"/"\n" and nothing but
    them to the line's end, as csv's state after a line end allows)."""
    c = line[pos:pos + 1]
    if c == delimiter:
        return True
    if c and line[pos:].strip("\r\n"):
        raise _CsvError(_CSV_STRAY_CR)
    return False


def _csv_records(lines, delimiter: str):
    """The records of ``lines`` (physical lines, each ending with "\n" but perhaps the last),
    as csv.reader(lines, delimiter=delimiter, strict=True) gives them with no field size
    limit: lists of cells, [] for a blank line; _CsvError where csv raises.
    Its rules (_csv.c): a cell starting with '"' is quoted, ends at a '"' not doubled, may
    span lines, and must be followed by the delimiter or the line's end; any other cell runs
    to the delimiter, "\r" or "\n" ('"' inside it is kept); after "\r" or "\n" outside
    quotes only line ends may follow; a quote open at the end of the input is an error."""
    lines = iter(lines)
    unquoted = re.compile(f"[^{re.escape(delimiter)}\r\n]*")
    for line in lines:
        if '"' not in line:  # the common case: split at once
            body = line.rstrip("\r\n")
            if "\r" not in body and "\n" not in body:
                yield body.split(delimiter) if body else []
                continue
        if line[0] in "\r\n":  # a blank line, or "\r" then more: an error
            _csv_after_field(line, 0, delimiter)
            yield []
            continue
        record, pos = [], 0
        while True:  # at the start of a cell
            if line.startswith('"', pos):
                parts, pos = [], pos + 1
                while (quote := line.find('"', pos)) < 0 or line.startswith('"', quote + 1):
                    if quote < 0:  # the cell goes on on the next line
                        parts.append(line[pos:])
                        line, pos = next(lines, None), 0
                        if line is None:
                            raise _CsvError("unexpected end of data")
                    else:  # "" is a quote
                        parts.append(line[pos:quote + 1])
                        pos = quote + 2
                parts.append(line[pos:quote])
                record.append("".join(parts))
                pos = quote + 1
                if line[pos:pos + 1] not in ("", delimiter, "\r", "\n"):
                    raise _CsvError(f"'{delimiter}' expected after '\"'")
            else:
                end = unquoted.match(line, pos).end()
                record.append(line[pos:end])
                pos = end
            if not _csv_after_field(line, pos, delimiter):
                break
            pos += 1
        yield record


class _CsvReader:
    """RFC 4180 records (strict, delimiter fixed) from physical lines with a byte budget per
    record, parsed by _csv_records (the csv module's field size limit is process-wide)."""

    def __init__(self, file: _LineFile, delimiter: str, rows=None):
        self.file, self.delimiter = file, delimiter
        self.owner = rows  # the Rows whose _extra_columns are set from the header
        self.record_start = 1  # line of the record being read
        self.record_bytes = 0

    def physical_lines(self):
        """The lines with their ends, as csv needs them; RowError when a record's lines add
        up to more than the limit (so at most twice the limit is held)."""
        f = self.file
        for lineno, text in f.lines(keep_end=True):
            if not self.record_bytes:
                self.record_start = lineno
            self.record_bytes += len(text) if text.isascii() else len(text.encode("utf-8"))
            if self.record_bytes > f.limit:
                raise f.too_long(self.record_start, f"the record (lines {self.record_start}-"
                                                    f"{lineno})")
            yield text

    def records(self):
        """(line, cells) of each non-blank record."""
        reader = _csv_records(self.physical_lines(), self.delimiter)
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except _CsvError as error:
                raise RowError(f"{self.file.path}:{self.record_start}: not valid CSV: {error}; "
                               "allowed: RFC 4180 (a cell holding a quote, delimiter or "
                               'newline is quoted with ", and a quote inside it doubled: "")') \
                    from None
            self.record_bytes = 0
            if cells:
                yield self.record_start, cells

    def columns(self, header: list, where: str):
        """(prediction column, how references are read, their columns) from the header.
        Linear in the header: a set finds a name said twice, a scan each of the few names
        looked for, and messages show at most _SHOWN_NAMES names."""
        names = list(map(str.lower, map(str.strip, header)))
        if len(set(names)) < len(names):  # a name said twice, or several unnamed columns
            first = {}
            for k, name in enumerate(names):
                if name not in first:
                    first[name] = k
                elif name:
                    raise RowError(f"{where}: the header names the column {_shown(name)} "
                                   f"twice (columns {first[name] + 1:,} and {k + 1:,}); allowed: "
                                   f"{CSV_COLUMNS}")
        present = {w for w in ("prediction", "reference", "references") if w in names}
        # reference_N as (digits, column), ordered by N without int(): the digits have no
        # leading zero, so the shorter is the smaller (and int() of 5,000 digits is an error)
        numbered = sorted(((name[10:], k) for k, name in enumerate(names)
                           if name[:10] == "reference_" and _NUMBERED.fullmatch(name)),
                          key=lambda d: (len(d[0]), d[0]))
        ways = [w for w in ("reference", "references") if w in present] + \
            ["reference_1, ..."] * bool(numbered)
        if "prediction" not in present or len(ways) != 1:
            problem = (f"it names {' and '.join(ways)}" if len(ways) > 1
                       else "it has no prediction column" if "prediction" not in present
                       else "it has no reference column")
            raise RowError(f"{where}: the first record is the header and {problem} (found: "
                           f"{_shown_list(header)}); allowed: {CSV_COLUMNS}")
        if numbered:
            if numbered[0][0] != "1":
                raise RowError(f"{where}: the reference columns start at "
                               f"{_shown('reference_' + numbered[0][0], quote=False)}; "
                               "allowed: reference_1, reference_2, ...")
            return names.index("prediction"), "numbered", [k for _, k in numbered]
        way = ways[0]
        return names.index("prediction"), way, [names.index(way)]

    def rows(self):
        records = self.records()
        header_line, header = next(records, (1, None))
        path = self.file.path
        if header is None:
            return
        prediction_at, way, reference_at = self.columns(header, f"{path}:{header_line}")
        if self.owner is not None:
            self.owner._extra_columns = _extra_columns(header, {prediction_at, *reference_at})
        for line, cells in records:
            where = f"{path}:{line}"
            if len(cells) != len(header):
                raise RowError(f"{where}: {len(cells)} cells, the header has {len(header)}; "
                               "allowed: as many cells as the header (quote a cell that holds "
                               f"{'a comma' if self.delimiter == ',' else 'a tab'})")
            if way == "references":
                value = _loads(cells[reference_at[0]], where,
                               'a JSON array of strings such as ["a b", "c"] in the column '
                               '"references" (name the column "reference" for one plain-text '
                               "reference per row)")
                if not isinstance(value, list):
                    raise RowError(f'{where}: column "references" must hold a JSON array of '
                                   f"strings such as [\"a b\", \"c\"]; for one plain-text "
                                   'reference per row name the column "reference"')
                references = _references(value, where, 'column "references"')
            else:
                first, *rest = reference_at
                references = [cells[first]] + [cells[k] for k in rest if cells[k] != ""]
            yield line, cells[prediction_at], references, cells
