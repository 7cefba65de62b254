"""The csv and tsv formats (``rows``' docstring defines them): RFC 4180 records read
with a byte budget per record, the header's columns, and each row's prediction, references
and other cells.

CSV is parsed by ``_csv_records``, not by the csv module: csv refuses fields longer than
``csv.field_size_limit()`` (128 KiB by default), a process-wide setting that a reader may not
change. ``_csv_records`` reads every record exactly as ``csv.reader(lines, delimiter=...,
strict=True)`` would with a large enough limit, errors and their messages included
(tests/test_io.py holds them equal), and leaves the limit to ``max_record_bytes``.

Standard library only; its one module of the package is ``values`` (see ``rows``'
docstring).
"""

import itertools
import re

from .values import RowError, parse_record, references_of, shown_name, shown_list

CSV_COLUMNS = ("a header naming the columns prediction and one of: reference; reference_1, "
               "reference_2, ...; references (JSON arrays of strings)")
_NUMBERED = re.compile(r"reference_[1-9][0-9]*")


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


class CsvReader:
    """RFC 4180 records (strict, delimiter fixed) from physical lines with a byte budget per
    record, parsed by _csv_records (the csv module's field size limit is process-wide);
    ``file``: ``rows``' _LineFile."""

    def __init__(self, file, delimiter: str, rows=None):
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
        looked for, and messages show at most SHOWN_NAMES names."""
        names = list(map(str.lower, map(str.strip, header)))
        if len(set(names)) < len(names):  # a name said twice, or several unnamed columns
            first = {}
            for k, name in enumerate(names):
                if name not in first:
                    first[name] = k
                elif name:
                    raise RowError(f"{where}: the header names the column {shown_name(name)} "
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
                           f"{shown_list(header)}); allowed: {CSV_COLUMNS}")
        if numbered:
            if numbered[0][0] != "1":
                raise RowError(f"{where}: the reference columns start at "
                               f"{shown_name('reference_' + numbered[0][0], quote=False)}; "
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
                value = parse_record(cells[reference_at[0]], where,
                               'a JSON array of strings such as ["a b", "c"] in the column '
                               '"references" (name the column "reference" for one plain-text '
                               "reference per row)")
                if not isinstance(value, list):
                    raise RowError(f'{where}: column "references" must hold a JSON array of '
                                   f"strings such as [\"a b\", \"c\"]; for one plain-text "
                                   'reference per row name the column "reference"')
                references = references_of(value, where, 'column "references"')
            else:
                first, *rest = reference_at
                references = [cells[first]] + [cells[k] for k in rest if cells[k] != ""]
            yield line, cells[prediction_at], references, cells
