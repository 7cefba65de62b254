"""Read (prediction, references) rows from files: one reader for the CLI and the Space.

Standard library only, no relative imports (a flat sibling module, see EVALUATE.md).

API::

    from rouge_io import read_rows, Rows, RowError, detect_format, FORMATS

    for prediction, references in read_rows("pairs.csv"):          # format from the suffix
        ...                                                          # str, list[str]
    for prediction, references in read_rows("preds.txt", "text",
                                            reference_paths=["refs_a.txt", "refs_b.txt"]):
        ...
    with Rows("corpus.json", max_record_bytes=64 * 2**20) as rows:   # rows.bytes_read, rows.size
        batch = list(itertools.islice(rows, 10_000))

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
  deeper than ``MAX_JSON_DEPTH`` is refused before parsing.
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
  Blank lines between records are skipped.
- ``text``: a predictions file and one or more reference files (``reference_paths``), one
  text per line, aligned line by line (split on ``b"\\n"``, a ``"\\r"`` before it is dropped).
  Different line counts are an error naming every file's count.

Limits: a record (a line of JSONL or text, one CSV record with its quoted newlines, a whole
JSON file) longer than ``max_record_bytes`` (``DEFAULT_MAX_RECORD_BYTES`` = 16 MiB) is refused
after reading at most that many bytes of it, so memory stays bounded by the limit whatever the
file holds. Files are UTF-8 (a leading BOM is dropped); invalid UTF-8 is reported with the
line and the byte offset in the file.

The csv module refuses fields longer than ``csv.field_size_limit()`` (128 KiB by default, a
process-wide setting): reading CSV raises that setting to ``max_record_bytes`` when it is
lower (it is never lowered).
"""

import codecs
import csv
import json
import os
import re
from pathlib import Path

__all__ = ["DEFAULT_MAX_RECORD_BYTES", "FORMATS", "MAX_JSON_DEPTH", "RowError", "Rows",
           "detect_format", "read_rows"]

DEFAULT_MAX_RECORD_BYTES = 16 * 2 ** 20
# A corpus needs 3 levels (list > object > references list); deeper is never one, and
# json.loads would recurse once per level.
MAX_JSON_DEPTH = 32
FORMATS = ("jsonl", "json", "csv", "tsv", "text")
SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv",
            ".tsv": "tsv", ".txt": "text"}
_DELIMITERS = {"csv": ",", "tsv": "\t"}
_READ_PIECE = 1 << 20  # bytes per read when only counting lines

ROW_SHAPE = '{"prediction": str, "references": [str, ...] or str}'
CSV_COLUMNS = ("a header naming the columns prediction and one of: reference; reference_1, "
               "reference_2, ...; references (JSON arrays of strings)")


class RowError(ValueError):
    """A problem with an input file; the message is one line, ``PATH:LINE: ...``."""


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


def _json_kind(value) -> str:
    for kind, name in ((dict, "an object"), (list, "an array"), (str, "a string"),
                       (bool, "a boolean"), ((int, float), "a number")):
        if isinstance(value, kind):
            return name
    return "null"


# json.loads turns a "\ud800" escape without its pair into a lone surrogate, which no UTF-8
# text can hold: such strings are refused here, with their line. The escape is looked for
# in the source first (cheap), the strings only when one is there.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_surrogate(text: str, where: str, name: str) -> str:
    found = _SURROGATE.search(text)
    if found:
        raise RowError(f"{where}: {name} holds a lone surrogate \\u{ord(found.group()):04x} (a "
                       "JSON escape that is half of a pair); allowed: Unicode text, which UTF-8 "
                       "can encode")
    return text


def _references(value, where: str, name: str = '"references"', escapes: bool = False) -> list:
    """A references value (str or non-empty list of str) as a list; RowError otherwise.
    escapes: the source has surrogate escapes (look for lone surrogates)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        empty = " (empty)" if value == [] else ""
        raise RowError(f"{where}: {name} must be a string or a non-empty array of strings, got "
                       f"{_json_kind(value)}{empty}")
    for j, item in enumerate(value):
        if not isinstance(item, str):
            raise RowError(f"{where}: {name}[{j}] must be a string, got {_json_kind(item)}")
        if escapes:
            _no_surrogate(item, where, f"{name}[{j}]")
    return value


def _row_of_object(obj, where: str, escapes: bool):
    """(prediction, references) of one JSON row object; RowError naming ``where``."""
    if not isinstance(obj, dict):
        raise RowError(f"{where}: expected an object {ROW_SHAPE}, got {_json_kind(obj)}")
    for key in ("prediction", "references"):
        if key not in obj:
            keys = sorted(obj)
            found = ", ".join(keys[:10]) + (", ..." if len(keys) > 10 else "") or "none"
            raise RowError(f"{where}: missing key {key!r} (keys found: {found}); each row is "
                           f"{ROW_SHAPE}")
    if not isinstance(obj["prediction"], str):
        raise RowError(f'{where}: "prediction" must be a string, got '
                       f"{_json_kind(obj['prediction'])}")
    if escapes:
        _no_surrogate(obj["prediction"], where, '"prediction"')
    return obj["prediction"], _references(obj["references"], where, escapes=escapes)


# A JSON string (with its escapes) or a bracket: strings are skipped when measuring depth.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)
_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _too_deep(text: str):
    """The position where brackets nest deeper than MAX_JSON_DEPTH, or None (a linear scan
    before json parses anything: json.loads recurses once per level)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:  # fast path for ordinary rows
        return None
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


def _loads(text: str, where: str, shape: str):
    """json.loads for one record; RowError naming ``where`` and the expected shape."""
    if _too_deep(text) is not None:
        raise _depth_error(where)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RowError(f"{where}: invalid JSON: {error.msg} (column {error.colno}); allowed: "
                       f"{shape}") from None
    except (ValueError, RecursionError) as error:  # e.g. an integer of 5,000 digits
        raise RowError(f"{where}: invalid JSON: {' '.join(str(error).split())}; allowed: "
                       f"{shape}") from None


class _LineFile:
    """A binary file read line by line (split on b"\\n" only), never more than a budget of
    bytes per line, each line decoded as UTF-8 with its position in every message."""

    def __init__(self, path: str, limit: int, limit_name: str):
        self.path, self.limit, self.limit_name = path, limit, limit_name
        if os.path.isdir(path):
            raise RowError(f"{path}: Is a directory; allowed: a file")
        try:
            self.file = open(path, "rb")
        except OSError as error:
            raise RowError(f"{path}: {error.strerror or error}") from None
        self.lineno = 0  # lines read so far
        self.offset = 0  # bytes read so far
        self.line_start = 0  # byte offset of the last line read

    def close(self):
        self.file.close()

    def too_long(self, lineno: int, what: str) -> RowError:
        return RowError(f"{self.path}:{lineno}: {what} is longer than {self.limit:,} bytes; "
                        f"allowed: at most {self.limit_name}={self.limit} bytes per record")

    def readline(self, budget=None, record_start=None) -> bytes:
        """The next line with its b"\\n" (b"" at the end of the file). RowError as soon as
        it is longer than ``budget`` bytes (default: the limit): at most budget + 1 bytes
        are read. ``record_start``: the line the record began on (CSV), for the message."""
        budget = self.limit if budget is None else budget
        raw = self.file.readline(budget + 1)
        if len(raw) > budget and not raw.endswith(b"\n"):
            if record_start is None:
                raise self.too_long(self.lineno + 1, "the line")
            raise self.too_long(record_start, f"the record (lines {record_start}-"
                                              f"{self.lineno + 1} and on)")
        if raw:
            self.lineno += 1
            if self.lineno == 1 and raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
                raise RowError(f"{self.path}:1: the file starts with a UTF-16 byte order mark; "
                               "allowed: UTF-8 text")
        self.line_start = self.offset
        self.offset += len(raw)
        return raw

    def decode(self, raw: bytes, keep_end: bool = False, first_line=None) -> str:
        """The last line read (or a whole file: first_line=1) as text, without its
        "\\n" or "\\r\\n" unless keep_end; RowError with the line and byte offset."""
        if not keep_end and raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            first = self.lineno if first_line is None else first_line
            line = first + raw.count(b"\n", 0, error.start)
            raise RowError(f"{self.path}:{line}: not valid UTF-8 (byte offset "
                           f"{self.line_start + error.start} in the file: "
                           f"{raw[error.start:error.start + 4]!r}...); allowed: UTF-8 "
                           "text") from None
        return text[1:] if self.line_start == 0 and text.startswith("\ufeff") else text

    def lines(self):
        """(line number, text without its line end) up to the end of the file."""
        while True:
            raw = self.readline()
            if not raw:
                return
            yield self.lineno, self.decode(raw)

    def count_rest(self) -> int:
        """Lines left in the file, counted in bounded pieces (a final line without "\\n"
        counts)."""
        count, last = 0, b"\n"
        while True:
            piece = self.file.read(_READ_PIECE)
            if not piece:
                return count + (last != b"\n")
            count += piece.count(b"\n")
            last = piece[-1:]


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
    last row returned starts (for messages about a row)."""

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
        self._rows = getattr(self, "_" + self.format)()  # yields (line, prediction, references)

    @property
    def bytes_read(self) -> int:
        return self.files[0].offset

    def __iter__(self):
        return self

    def __next__(self):
        self.line, prediction, references = next(self._rows)
        return prediction, references

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
        for lineno, text in f.lines():
            if not text.strip():
                continue
            where = f"{f.path}:{lineno}"
            obj = _loads(text, where, f"one object per line, {ROW_SHAPE}")
            yield lineno, *_row_of_object(obj, where, bool(_SURROGATE_ESCAPE.search(text)))

    def _text(self):
        while True:
            raws = [f.readline() for f in self.files]
            if not any(raws):
                return
            if not all(raws):
                ended = next(f for f, raw in zip(self.files, raws) if not raw)
                counts = [f.lineno + f.count_rest() for f in self.files]
                listed = ", ".join(f"{f.path} has {c:,} line{'s' * (c != 1)}"
                                   for f, c in zip(self.files, counts))
                raise RowError(f"{ended.path}:{ended.lineno + 1}: no such line: {listed}; "
                               "allowed: one line per example in every file, so the same "
                               "number of lines")
            texts = [f.decode(raw) for f, raw in zip(self.files, raws)]
            yield self.files[0].lineno, texts[0], texts[1:]

    def _json(self):
        f = self.files[0]
        raw = f.file.read(self.limit + 1)
        if len(raw) > self.limit:
            raise RowError(f"{f.path}:1: a JSON file is read whole and this one is larger than "
                           f"{self.limit:,} bytes; allowed: at most {f.limit_name}={self.limit}"
                           " bytes (use JSONL, one row per line, for larger corpora)")
        f.offset = len(raw)
        yield from _JsonDocument(f.decode(raw, keep_end=True, first_line=1), f.path).rows()

    def _csv(self):
        yield from _CsvReader(self.files[0], _DELIMITERS["csv"]).rows()

    def _tsv(self):
        yield from _CsvReader(self.files[0], _DELIMITERS["tsv"]).rows()


class _JsonDocument:
    """A whole JSON corpus: its top level is walked by hand (json's raw_decode per item) so
    that each row's message names its line."""

    def __init__(self, text: str, path: str):
        self.text, self.path = text, path

    def line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

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
            escapes = bool(_SURROGATE_ESCAPE.search(self.text))
            for pos, item in items:
                yield self.line(pos), *_row_of_object(item, self.where(pos), escapes)
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
        escapes = bool(_SURROGATE_ESCAPE.search(self.text))
        if len(predictions) != len(references):
            raise RowError(f"{self.where(start)}: \"predictions\" has {len(predictions):,} "
                           f"items and \"references\" has {len(references):,}; allowed: one "
                           "reference entry per prediction")
        for k, ((p_pos, prediction), (r_pos, refs)) in enumerate(zip(predictions, references)):
            if not isinstance(prediction, str):
                raise RowError(f"{self.where(p_pos)}: \"predictions\"[{k}] must be a string, "
                               f"got {_json_kind(prediction)}")
            if escapes:
                _no_surrogate(prediction, self.where(p_pos), f'"predictions"[{k}]')
            yield self.line(p_pos), prediction, _references(refs, self.where(r_pos),
                                                            f'"references"[{k}]', escapes)


class _CsvReader:
    """RFC 4180 records through Python's csv module (strict, delimiter fixed), fed physical
    lines with a byte budget per record."""

    def __init__(self, file: _LineFile, delimiter: str):
        self.file, self.delimiter = file, delimiter
        self.record_start = 1  # line of the record being read
        self.record_bytes = 0
        if csv.field_size_limit() < file.limit:
            csv.field_size_limit(file.limit)

    def physical_lines(self):
        f = self.file
        while True:
            start = self.record_start if self.record_bytes else None
            raw = f.readline(f.limit - self.record_bytes, record_start=start)
            if not raw:
                return
            if not self.record_bytes:
                self.record_start = f.lineno
            self.record_bytes += len(raw)
            yield f.decode(raw, keep_end=True)

    def records(self):
        """(line, cells) of each non-blank record."""
        reader = csv.reader(self.physical_lines(), delimiter=self.delimiter, strict=True)
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as error:
                raise RowError(f"{self.file.path}:{self.record_start}: not valid CSV: {error}; "
                               "allowed: RFC 4180 (a cell holding a quote, delimiter or "
                               'newline is quoted with ", and a quote inside it doubled: "")') \
                    from None
            self.record_bytes = 0
            if cells:
                yield self.record_start, cells

    def columns(self, header: list, where: str):
        """(prediction column, how references are read, their columns) from the header."""
        names = [name.strip().lower() for name in header]
        found = ", ".join(repr(n) for n in header) or "none"
        for name in set(names):
            if name and names.count(name) > 1:
                raise RowError(f"{where}: the header names the column {name!r} twice; "
                               f"allowed: {CSV_COLUMNS}")
        numbered = sorted((int(name[10:]), k) for k, name in enumerate(names)
                          if re.fullmatch(r"reference_[1-9][0-9]*", name))
        ways = [w for w in ("reference", "references") if w in names] + \
            ["reference_1, ..."] * bool(numbered)
        if "prediction" not in names or len(ways) != 1:
            problem = (f"it names {' and '.join(ways)}" if len(ways) > 1
                       else "it has no prediction column" if "prediction" not in names
                       else "it has no reference column")
            raise RowError(f"{where}: the first record is the header and {problem} (found: "
                           f"{found}); allowed: {CSV_COLUMNS}")
        if numbered:
            if numbered[0][0] != 1:
                raise RowError(f"{where}: the reference columns start at "
                               f"reference_{numbered[0][0]}; allowed: reference_1, reference_2,"
                               " ...")
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
                references = _references(value, where, 'column "references"',
                                         bool(_SURROGATE_ESCAPE.search(cells[reference_at[0]])))
            else:
                first, *rest = reference_at
                references = [cells[first]] + [cells[k] for k in rest if cells[k] != ""]
            yield line, cells[prediction_at], references
