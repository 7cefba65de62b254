"""The state file format: what Scorer.to_bytes writes and Scorer.from_bytes reads (a JSON
header of format, metric version, options, input notes and exact sums; raw little-endian
arrays; a SHA-256 of it all), every field checked before use; and what must agree for two
states to merge (the options, callables by identity)."""

from __future__ import annotations

import hashlib
import json
import re
import struct
import types

import numpy as np

from .aggregate import (
    Aggregate,
    NOTE_COUNTS,
    InputNotes,
)
from ..options import (
    RougeOptions,
    __version__,
)
from ..text.tokenizers import (
    StringTokenizer,
)

STATE_MAGIC = b"ROUGE-METRIC-STATE\0"
_STATE_FORMAT = 1
# A state file is an input (its SHA-256 is a checksum, not a key: an edited state re-hashes):
# from_bytes checks every field's type and bounds before any use.
_STATE_FIELDS = ("format", "version", "options", "notes", "count", "exact", "arrays")
_STATE_ARRAYS = {"sample_sums": 2, "sample_weights": 1, "keys": 1, "copies": 1}  # name: ndim
_STATE_DEPTH = 4  # the header's nesting: {"arrays": [[name, dtype, [shape]]]}
_STATE_HEADER_MAX = 1 << 24  # bytes: a state of 1,000 rouge types has a header of ~1 MB
_EXACT_DIGITS = 700  # an exact sum below 2^63 * 2^1024 in units of 2^-1130 has <= 668 digits
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def _json_depth(text: bytes) -> int:
    """The deepest nesting of [ and { in JSON text (strings skipped), counted without
    recursion (json.loads recurses: a header nested 100,000 deep is a RecursionError)."""
    marks = np.frombuffer(_JSON_STRING.sub(b'""', text), dtype=np.uint8)
    steps = np.isin(marks, list(b"[{")).astype(np.int64) - np.isin(marks, list(b"]}"))
    return int(np.cumsum(steps).max(initial=0))


def _state_header(data: bytes, start: int) -> tuple:
    """(the JSON header of a state, where its arrays start), data without its digest:
    checked for size, depth, format, version and its fields; ValueError naming what is
    wrong."""
    (size,) = struct.unpack("<I", data[len(STATE_MAGIC):start])
    if size > min(_STATE_HEADER_MAX, len(data) - start):
        raise ValueError(f"data: corrupted state header (its size: got {size} bytes; allowed: "
                         f"at most {min(_STATE_HEADER_MAX, len(data) - start)})")
    text = data[start:start + size]
    depth = _json_depth(text)
    if depth > _STATE_DEPTH:
        raise ValueError(f"data: corrupted state header (nested {depth} deep; allowed: at "
                         f"most {_STATE_DEPTH})")
    try:
        header = json.loads(text.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise ValueError("data: corrupted state header") from None
    if not isinstance(header, dict):
        raise ValueError("data: corrupted state header (not a JSON object)")
    if header.get("format") != _STATE_FORMAT:
        raise ValueError(f"data: state format {header.get('format')!r}; allowed: "
                         f"{_STATE_FORMAT}")
    if header.get("version") != __version__:
        raise ValueError(f"data: a state of rouge_metric {header.get('version')!r}; this is "
                         f"{__version__}: its numbers would differ (allowed: the same version)")
    if sorted(header) != sorted(_STATE_FIELDS):
        raise ValueError(f"data: corrupted state header (fields: got {sorted(header)}; "
                         f"allowed: {', '.join(_STATE_FIELDS)})")
    return header, start + size


def _state_notes(notes, count: int) -> InputNotes:
    """The header's input notes: a count each, none above the texts scored, and at least a
    prediction and a reference per example."""
    if not isinstance(notes, dict) or sorted(notes) != sorted(NOTE_COUNTS):
        got = sorted(notes) if isinstance(notes, dict) else type(notes).__name__
        raise ValueError(f"data: corrupted state (notes: got {got}; allowed: "
                         f"{', '.join(NOTE_COUNTS)})")
    texts = notes["texts"]
    if type(texts) is not int or not 2 * count <= texts < 2 ** 63:
        raise ValueError(f"data: corrupted state (notes.texts: got {texts!r:.40}; allowed: an "
                         f"integer from 2 * count = {2 * count} to 2^63 - 1)")
    for name in NOTE_COUNTS:
        value = notes[name]
        if type(value) is not int or not 0 <= value <= texts:
            raise ValueError(f"data: corrupted state (notes.{name}: got {value!r:.40}; "
                             f"allowed: an integer from 0 to notes.texts = {texts})")
    return InputNotes(**notes)


def _state_arrays(data: bytes, offset: int, entries) -> dict:
    """The raw arrays that follow the header, as the header lists them ([name, dtype,
    shape]): known names, each once, and exactly the bytes there are."""
    if not isinstance(entries, list):
        raise ValueError(f"data: corrupted state (arrays: got {type(entries).__name__}; "
                         "allowed: a list)")
    arrays = {}
    for i, entry in enumerate(entries):
        ok = isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str) \
            and entry[0] in _STATE_ARRAYS \
            and entry[0] not in arrays and isinstance(entry[1], str) \
            and isinstance(entry[2], list) and len(entry[2]) == _STATE_ARRAYS[entry[0]] \
            and all(type(n) is int and n >= 0 for n in entry[2])
        if ok:
            try:
                dtype = np.dtype(entry[1])
            except (TypeError, ValueError):
                ok = False
        if not ok or dtype.hasobject:
            raise ValueError(f"data: corrupted state (arrays[{i}]: got {entry!r:.80}; "
                             f"allowed: [name, dtype, shape] of {', '.join(_STATE_ARRAYS)}, "
                             "each once)")
        name, _, shape = entry
        count = int(np.prod(shape, dtype=object))  # Python ints: no overflow
        if offset + count * dtype.itemsize > len(data):
            raise ValueError(f"data: corrupted state ({name}: shape {shape} of {dtype.str} "
                             f"needs more bytes than the state has)")
        array = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
        arrays[name] = array.astype(array.dtype.newbyteorder("=")).reshape(shape)
        offset += array.nbytes
    if offset != len(data):
        raise ValueError(f"data: corrupted state ({len(data) - offset} trailing bytes)")
    return arrays


def state_options(options: RougeOptions):
    """What must agree for two states to merge: every option (callables by identity: see
    same_callables)."""
    try:
        return options.as_kwargs()
    except ValueError:
        return options


def tokenizer_callables(tokenizer) -> tuple:
    """What a tokenizer without a name of its own runs (a user's callable, or a tokenizer
    object): the functions of a StringTokenizer, else the object itself."""
    if isinstance(tokenizer, StringTokenizer):
        return tokenizer.function, tokenizer.sentence_function
    return (tokenizer,)


def _same_callable(a, b) -> bool:
    """Identity: two lambdas share a name (and a signature) but not their tokens. A bound
    method is made anew at each ``obj.tokenize``: the same method of the same object is the
    same callable."""
    if isinstance(a, types.MethodType) and isinstance(b, types.MethodType):
        return a.__self__ is b.__self__ and a.__func__ is b.__func__
    return a is b


def same_callables(a: RougeOptions, b: RougeOptions) -> bool:
    return all(map(_same_callable, tokenizer_callables(a.tokenizer),
                   tokenizer_callables(b.tokenizer)))


def encode_state(options: RougeOptions, notes: dict, data: dict) -> bytes:
    """The state of a Scorer in the versioned plain format (Scorer.to_bytes): its options, its
    input notes ({name: count}) and its aggregate's arrays (Aggregate.arrays())."""
    header = {"format": _STATE_FORMAT, "version": __version__,
              "options": options.as_kwargs(),
              "notes": notes,
              "count": data.pop("count"),
              "exact": [str(v) for v in data.pop("exact")], "arrays": []}
    blobs = []
    for name, array in data.items():
        array = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
        header["arrays"].append([name, array.dtype.str, list(array.shape)])
        blobs.append(array.tobytes())
    head = json.dumps(header).encode("utf-8")
    body = STATE_MAGIC + struct.pack("<I", len(head)) + head + b"".join(blobs)
    return body + hashlib.sha256(body).digest()  # a flipped bit anywhere is refused



def decode_state(data) -> tuple:
    """(options, Aggregate, InputNotes) of a state from encode_state (Scorer.from_bytes),
    checked: ValueError naming what is wrong."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data: got {type(data).__name__}; allowed: bytes from "
                        "state.to_bytes()")
    data = bytes(data)
    start = len(STATE_MAGIC) + 4
    if not data.startswith(STATE_MAGIC) or len(data) < start + 32:
        raise ValueError("data: not a rouge_metric state (no magic)")
    data, digest = data[:-32], data[-32:]
    if hashlib.sha256(data).digest() != digest:
        raise ValueError("data: corrupted state (checksum mismatch)")
    header, offset = _state_header(data, start)
    options = header["options"]
    if not isinstance(options, dict) or sorted(options) != sorted(RougeOptions.names()):
        got = sorted(options) if isinstance(options, dict) else type(options).__name__
        raise ValueError(f"data: corrupted state (options: got {got}; allowed: every "
                         f"option of compute(): {', '.join(RougeOptions.names())})")
    try:
        options = RougeOptions.build(**options)
    except (TypeError, ValueError, OverflowError) as error:  # (alpha=10**400: Overflow)
        raise ValueError(f"data: corrupted state (options: {error})") from None
    exact = header["exact"]
    if not isinstance(exact, list):
        raise ValueError(f"data: corrupted state (exact: got {type(exact).__name__}; "
                         "allowed: a list of decimal strings)")
    for i, value in enumerate(exact):
        # decimal digits (int() would take " 1", "1_0" and 50 MB of digits too); the
        # aggregate checks the values, by name
        digits = value[value[:1] == "-":] if isinstance(value, str) else ""
        if not (0 < len(digits) <= _EXACT_DIGITS and digits.isascii() and digits.isdigit()):
            shown = repr(value[:40] + "..." if isinstance(value, str) and len(value) > 40
                         else value)
            raise ValueError(f"data: corrupted state (exact[{i}]: got {shown:.60}; "
                             f"allowed: a decimal integer of at most {_EXACT_DIGITS} "
                             "digits, as a string)")
    arrays = _state_arrays(data, offset, header["arrays"])
    aggregate = Aggregate.from_arrays(options, {
        "count": header["count"], "exact": [int(v) for v in exact], **arrays})
    return options, aggregate, _state_notes(header["notes"], aggregate.count)
