"""Read (prediction, references) rows from files: the one reader of the command and the Space.
Standard library only; it knows no ROUGE. ``rows`` (the readers), ``values`` (a row's values
and ``RowError``), ``json_format`` and ``delimited`` (csv, tsv)."""

from .json_format import MAX_JSON_DEPTH
from .rows import (
    DEFAULT_MAX_RECORD_BYTES,
    FORMATS,
    ID_KEYS,
    Rows,
    detect_format,
    read_rows,
    read_system_rows,
)
from .values import RowError

__all__ = ["DEFAULT_MAX_RECORD_BYTES", "FORMATS", "ID_KEYS", "MAX_JSON_DEPTH", "RowError",
           "Rows", "detect_format", "read_rows", "read_system_rows"]
