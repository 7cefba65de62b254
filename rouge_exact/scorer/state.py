"""The state file format: what Scorer.to_bytes writes and Scorer.from_bytes reads (a JSON
header of format, metric version, options, input notes and exact sums; raw little-endian
arrays; a SHA-256 of it all, or an HMAC-SHA256 under a key the user holds), every field
checked before use, and each against the options; and what must agree for two states to
merge (the options, callables by identity)."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import struct
import types

import numpy as np

from .aggregate import (
    Aggregate,
    NOTE_COUNTS,
    InputNotes,
    wants_poisson_bootstrap,
)
from ..options import (
    RougeOptions,
    __version__,
)
from ..profiles import (
    PROFILES,
)
from ..kinds import (
    kind_of,
)
from ..text.lang import (
    LanguageTokenizer,
)
from ..text.tokenizers import (
    StringTokenizer,
)
from ..arithmetic import (
    EXACT_UNIT,
    LIMBS,
)

STATE_MAGIC = b"ROUGE-METRIC-STATE\0"
SIGNED_STATE_MAGIC = b"ROUGE-METRIC-KEYED\0"  # (the same length) to_bytes(key=...): an HMAC
_KEY_MIN_BYTES = 16  # 128 bits: HMAC-SHA256's security is the key's, up to 256 bits
_STATE_FORMAT = 1
# A state file is an input (its SHA-256 is a checksum, not a key: an edited state re-hashes):
# from_bytes checks every field's type and bounds before any use, and every field against
# what the options say the state holds. Only a keyed state (HMAC) tells an edit that is
# consistent (a seed, an alpha, pltrdy for rouge_chinese) from a state as written.
_STATE_FIELDS = ("format", "version", "options", "notes", "count", "exact", "arrays")
# name: ndim (rows and row_keys: a profile of sequential means, py_rouge's)
_STATE_ARRAYS = {"sample_sums": 2, "sample_weights": 1, "keys": 1, "copies": 1, "rows": 2,
                 "row_keys": 1}
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


def _state_notes(notes, count: int, options: RougeOptions) -> InputNotes:
    """The header's input notes: a count each, none above the texts scored, at least a
    prediction and a reference per example, a prediction per example, the counts of a side
    within that side (the counts of a part within the whole), and none the options cannot
    count (see _notes_options_count)."""
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
    if notes["predictions"] != count:
        raise ValueError(f"data: corrupted state (notes.predictions: got "
                         f"{notes['predictions']}; allowed: count = {count}, a prediction per "
                         "example)")
    references = texts - count
    for name, most, what in (
            ("ptb_predictions", count, "the predictions"),
            ("tagged_predictions", count, "the predictions"),
            ("long_predictions", count, "the predictions"),
            ("ptb_references", references, "the references (notes.texts - count)"),
            ("tagged_references", references, "the references (notes.texts - count)"),
            *((name, notes["tagged_predictions"] + notes["tagged_references"],
               "the texts with tags (notes.tagged_predictions + notes.tagged_references)")
              for name in ("tag_q_texts", "tag_n_texts", "tag_t_texts")),
            # a flag set only in a batch whose multi_sentence_texts flag is set
            ("spaced_period_texts", notes["multi_sentence_texts"],
             "notes.multi_sentence_texts")):
        if notes[name] > most:
            raise ValueError(f"data: corrupted state (notes.{name}: got {notes[name]}; "
                             f"allowed: at most {most}, {what})")
    for name, why in _notes_options_count(options).items():
        if notes[name]:
            raise ValueError(f"data: corrupted state (notes.{name}: got {notes[name]}; "
                             f"allowed: 0, as {why})")
    return InputNotes(**notes)


def _notes_options_count(options: RougeOptions) -> dict:
    """{note: why it stays 0 under these options} for the notes that scorer.notes counts
    only under some options: ROUGE-W's tokenless references, a language tokenizer's
    segmenter fallbacks, and texts the sentence splitter would split (only where a type
    reads sentences and they are the lines of the text)."""
    zero = {}
    if not any(t.spec.weighted for t in options.rouge_types):
        zero["tokenless_w_references"] = "options.rouge_types has no rougeW"
    if not isinstance(options.tokenizer, LanguageTokenizer):
        zero["segmenter_fallbacks"] = "only XL-Sum's language tokenizers (options.lang " \
            "with profile rouge_score) fall back"
    tokenizer = options.tokenizer
    if options.split_sentences or not tokenizer.has_sentences or tokenizer.own_sentences \
            or not any(kind_of(options, t).sentences for t in options.rouge_types):
        zero["multi_sentence_texts"] = zero["spaced_period_texts"] = "these options read " \
            "no sentences from lines (options.split_sentences, options.rouge_types, the " \
            "tokenizer's sentences)"
    return zero


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


def _state_options(given) -> RougeOptions:
    """The header's options, checked, and written as to_bytes writes them: each resolves to
    itself through RougeOptions.build. ValueError naming the first that does not; when
    another profile would resolve them all to themselves (a profile swapped: rouge_score's
    tokenizer 'default' under coco, which has its own), naming options.profile."""
    if not isinstance(given, dict) or sorted(given) != sorted(RougeOptions.names()):
        got = sorted(given) if isinstance(given, dict) else type(given).__name__
        raise ValueError(f"data: corrupted state (options: got {got}; allowed: every "
                         f"option of compute(): {', '.join(RougeOptions.names())})")
    try:
        options = RougeOptions.build(**given)
    except (TypeError, ValueError, OverflowError) as error:  # (alpha=10**400: Overflow)
        raise ValueError(f"data: corrupted state (options: {error})") from None
    written = options.as_kwargs()
    differ = [name for name in RougeOptions.names() if not _same(written[name], given[name])]
    if not differ:
        return options
    name = differ[0]
    profiles = [p for p in PROFILES if p != given["profile"] and _writes_itself(given, p)]
    if profiles:
        raise ValueError(f"data: corrupted state (options.profile: got {given['profile']!r}, "
                         f"under which to_bytes writes options.{name} as "
                         f"{written[name]!r:.60}, not {given[name]!r:.60}; allowed: "
                         f"{', '.join(profiles)}, under which these options are as written)")
    raise ValueError(f"data: corrupted state (options.{name}: got {given[name]!r:.60}; "
                     f"allowed: {written[name]!r:.60}, as to_bytes writes it under profile "
                     f"{given['profile']!r})")


def _writes_itself(given: dict, profile: str) -> bool:
    """Whether these header options, under this profile, are as to_bytes writes them."""
    given = {**given, "profile": profile}
    try:
        written = RougeOptions.build(**given).as_kwargs()
    except (TypeError, ValueError, OverflowError):
        return False
    return all(_same(written[name], given[name]) for name in RougeOptions.names())


def _same(a, b) -> bool:
    """Equal and of one type: alpha 1 is not 1.0, nor detailed 1 True (to_bytes writes the
    option's own type; a list's items are names, checked by build)."""
    return type(a) is type(b) and a == b


def _state_layout(options: RougeOptions, exact: list, arrays: dict) -> None:
    """The options against what the state holds, each mismatch naming the option: 3 exact
    sums per rouge type; the bootstrap's arrays with detailed=True only; n_samples rows;
    sample_sums columns of the aggregation (macro: LIMBS limbs per sum). Any other
    mismatch Aggregate.from_arrays names by its array."""
    types = len(options.rouge_types)
    if len(exact) != 3 * types:
        fit = len(exact) // 3
        allowed = f"{fit} type{'s' * (fit != 1)}" if len(exact) % 3 == 0 else "3 sums a type"
        raise ValueError(f"data: corrupted state (options.rouge_types: got {types} "
                         f"type{'s' * (types != 1)}, "
                         f"{[t.name for t in options.rouge_types]!r:.80}, but exact holds "
                         f"{len(exact)} sums, 3 per type; allowed: {allowed})")
    if not options.use_aggregator or options.profile.keeps_rows:
        return  # no state (Aggregate.from_arrays says so)
    if options.profile.corpus_mean == "sequential":
        return  # its rows (Aggregate.from_arrays checks them against the sums)
    names = ("sample_sums", "sample_weights", "keys", "copies")  # the bootstrap's arrays
    bootstrap = set(names)
    if wants_poisson_bootstrap(options) != (set(arrays) == bootstrap) and \
            set(arrays) in (set(), bootstrap):
        held = "holds" if arrays else "has none of"
        raise ValueError(f"data: corrupted state (options.detailed: got {options.detailed}, "
                         f"but the state {held} the bootstrap's arrays ({', '.join(names)}"
                         f"), which detailed=True keeps; allowed: {not options.detailed})")
    if set(arrays) != bootstrap or not wants_poisson_bootstrap(options):
        return
    sums, weights = arrays["sample_sums"], arrays["sample_weights"]
    if len(sums) == len(weights) != options.n_samples:
        raise ValueError(f"data: corrupted state (options.n_samples: got {options.n_samples}, "
                         f"but sample_sums and sample_weights hold {len(sums)} samples; "
                         f"allowed: {len(sums)})")
    width = {"macro": 3 * types * LIMBS, "micro": 3 * types}
    other = "macro" if options.micro else "micro"
    if sums.shape[1:] == (width[other],) != (width[options.aggregation],):
        raise ValueError(f"data: corrupted state (options.aggregation: got "
                         f"{options.aggregation!r}, but sample_sums has {width[other]} "
                         f"columns, those of {other} ({types} type{'s' * (types != 1)} x 3 sums"
                         f"{f' x {LIMBS} limbs' if other == 'macro' else ''}); allowed: "
                         f"{other!r})")


def _micro_counts(options: RougeOptions, exact: list, arrays: dict) -> None:
    """Under micro aggregation the sums are counts: whole numbers for every type but
    ROUGE-W, whose counts are weighted lengths (a macro state relabelled micro holds sums of
    scores, rarely whole; a rougeW relabelled rougeL, weighted lengths)."""
    if not options.micro:
        return
    for i, value in enumerate(exact):
        t = options.rouge_types[i // 3]
        part = value % (1 << EXACT_UNIT)
        if part and not t.spec.weighted:
            measure = ("hit", "den_p", "den_r")[i % 3]
            raise ValueError(f"data: corrupted state (exact[{i}], the {t.name} {measure} "
                             f"sum: got a fractional part, {part / (1 << EXACT_UNIT):.6g}; "
                             f"allowed: a whole number: under options.aggregation 'micro' "
                             f"the sums are {t.name}'s counts)")
    sums = arrays.get("sample_sums")
    if sums is not None:
        whole = np.repeat([not t.spec.weighted for t in options.rouge_types], 3)
        if np.any(sums[:, whole] != np.floor(sums[:, whole])):
            raise ValueError("data: corrupted state (sample_sums: got a fractional count; "
                             "allowed: whole numbers in the columns of every type but "
                             "rougeW: under options.aggregation 'micro' they are counts)")


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


def _state_key(key) -> bytes | None:
    """The key of a signed state, checked: None (a SHA-256 checksum) or bytes, at least
    _KEY_MIN_BYTES of them; TypeError/ValueError naming key otherwise."""
    if key is None:
        return None
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"key: got {type(key).__name__}; allowed: None or bytes, at least "
                        f"{_KEY_MIN_BYTES} of them (secrets.token_bytes(32) makes one)")
    key = bytes(key)
    if len(key) < _KEY_MIN_BYTES:
        raise ValueError(f"key: got {len(key)} bytes; allowed: at least {_KEY_MIN_BYTES} "
                         "(secrets.token_bytes(32) makes one)")
    return key


def _digest(body: bytes, key: bytes | None) -> bytes:
    """The 32 bytes that end a state: HMAC-SHA256 under the key, or a SHA-256 without one."""
    if key is None:
        return hashlib.sha256(body).digest()
    return hmac.new(key, body, hashlib.sha256).digest()


def encode_state(options: RougeOptions, notes: dict, data: dict, key=None) -> bytes:
    """The state of a Scorer in the versioned plain format (Scorer.to_bytes): its options, its
    input notes ({name: count}) and its aggregate's arrays (Aggregate.arrays()); signed
    (HMAC-SHA256) under key (bytes, see _state_key), else checksummed (SHA-256)."""
    key = _state_key(key)
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
    magic = STATE_MAGIC if key is None else SIGNED_STATE_MAGIC
    body = magic + struct.pack("<I", len(head)) + head + b"".join(blobs)
    return body + _digest(body, key)  # a flipped bit anywhere is refused


def _state_body(data, key) -> bytes:
    """The state's bytes without its digest, once the digest is the one its magic names:
    a SHA-256 (no key given), or the HMAC under key (a key given: a state without one is
    refused, so an attacker cannot strip a signature); ValueError otherwise."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data: got {type(data).__name__}; allowed: bytes from "
                        "state.to_bytes()")
    key = _state_key(key)
    data = bytes(data)
    magic = data[:len(STATE_MAGIC)]
    if magic not in (STATE_MAGIC, SIGNED_STATE_MAGIC) or len(data) < len(magic) + 4 + 32:
        raise ValueError("data: not a rouge_metric state (no magic)")
    if magic == SIGNED_STATE_MAGIC and key is None:
        raise ValueError("data: a state signed with a key (to_bytes(key=...)), and key: got "
                         "None; allowed: the key it was signed with")
    if magic == STATE_MAGIC and key is not None:
        raise ValueError("key: got a key, but data is a state without a signature (to_bytes() "
                         "without key), which anyone could have written; allowed: a state of "
                         "to_bytes(key=...) with this key, or key=None to trust this one")
    body, digest = data[:-32], data[-32:]
    if not hmac.compare_digest(_digest(body, key), digest):
        raise ValueError("data: corrupted state (checksum mismatch)" if key is None else
                         "data: signature mismatch (signed with another key, or edited "
                         "since); allowed: a state to_bytes(key=...) signed with this key")
    return body


def decode_state(data, key=None) -> tuple:
    """(options, Aggregate, InputNotes) of a state from encode_state (Scorer.from_bytes),
    checked (with key: its signature first): ValueError naming what is wrong."""
    data = _state_body(data, key)
    header, offset = _state_header(data, len(STATE_MAGIC) + 4)
    options = _state_options(header["options"])
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
    exact = [int(v) for v in exact]
    arrays = _state_arrays(data, offset, header["arrays"])
    _state_layout(options, exact, arrays)
    aggregate = Aggregate.from_arrays(options, {
        "count": header["count"], "exact": exact, **arrays})
    _micro_counts(options, exact, arrays)
    return options, aggregate, _state_notes(header["notes"], aggregate.count, options)
