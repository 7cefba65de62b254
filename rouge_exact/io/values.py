"""A row's values, for each of rouge_exact.io's readers: ``RowError`` and how its one-line messages
show names; one record's JSON text parsed (``parse_record``); a prediction and its references
checked (``is_text``, ``references_of``, ``row_of_object``).

Standard library only, and no other module of the package: ``rows``, ``json_format`` and
``delimited`` import it (see ``rows``' docstring).
"""

import json
import re

ROW_SHAPE = '{"prediction": str, "references": [str, ...] or str}'


class RowError(ValueError):
    """A problem with an input file; the message is one line, ``PATH:LINE: ...``."""


SHOWN_NAMES = 20  # header cells a message lists (a header may have 400,000)
_SHOWN_CHARS = 60  # characters of one name a message shows


def shown_name(name: str, quote: bool = True) -> str:
    """A name for a one-line message: its repr (or, not quoted, itself when it is all
    printable), cut in the middle past _SHOWN_CHARS characters with its full length said."""
    cut = name if len(name) <= _SHOWN_CHARS else \
        f"{name[:_SHOWN_CHARS // 2]}...{name[-(_SHOWN_CHARS // 2):]}"
    cut = cut if not quote and cut.isprintable() else repr(cut)
    return cut if len(name) <= _SHOWN_CHARS else f"{cut} ({len(name):,} characters)"


def shown_list(names, brackets: bool = False) -> str:
    """The first SHOWN_NAMES names (their reprs), and how many there are in all when that
    is more; in [] with brackets."""
    names = list(names)
    if not names and not brackets:
        return "none"
    shown = ", ".join(shown_name(n) for n in names[:SHOWN_NAMES])
    if len(names) > SHOWN_NAMES:
        shown += f", ... ({len(names):,} in all)"
    return f"[{shown}]" if brackets else shown


def json_kind(value) -> str:
    for kind, name in ((dict, "an object"), (list, "an array"), (str, "a string"),
                       (bool, "a boolean"), ((int, float), "a number")):
        if isinstance(value, kind):
            return name
    return "null"


# json.loads turns a "\ud800" escape without its pair into a lone surrogate, which no UTF-8
# text can hold: such strings are refused, with their line (an ASCII string holds none).
_SURROGATE = re.compile("[\ud800-\udfff]")


def is_text(value) -> bool:
    return type(value) is str and (value.isascii() or not _SURROGATE.search(value))


def text_error(value, where: str, name: str) -> RowError:
    if isinstance(value, str):
        found = _SURROGATE.search(value).group()
        return RowError(f"{where}: {name} holds a lone surrogate \\u{ord(found):04x} (a JSON "
                        "escape that is half of a pair); allowed: Unicode text, which UTF-8 "
                        "can encode")
    return RowError(f"{where}: {name} must be a string, got {json_kind(value)}")


def references_of(value, where: str, name: str = '"references"') -> list:
    """A references value (str or non-empty list of str) as a list; RowError otherwise."""
    if type(value) is list and value and all(map(is_text, value)):
        return value
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        empty = " (empty)" if value == [] else ""
        raise RowError(f"{where}: {name} must be a string or a non-empty array of strings, got "
                       f"{json_kind(value)}{empty}")
    for j, item in enumerate(value):
        if not is_text(item):
            raise text_error(item, where, f"{name}[{j}]")
    return value


def row_of_object(obj, path: str, line: int):
    """(prediction, references) of one JSON row object; RowError naming path:line."""
    if type(obj) is dict:  # the common case, checked quickly
        prediction, references = obj.get("prediction"), obj.get("references")
        if is_text(prediction) and type(references) is list and references and \
                all(map(is_text, references)):
            return prediction, references
    where = f"{path}:{line}"
    if not isinstance(obj, dict):
        raise RowError(f"{where}: expected an object {ROW_SHAPE}, got {json_kind(obj)}")
    for key in ("prediction", "references"):
        if key not in obj:
            keys = sorted(obj)
            found = ", ".join(shown_name(k, quote=False) for k in keys[:10]) + \
                (f", ... ({len(keys):,} keys)" if len(keys) > 10 else "") or "none"
            raise RowError(f"{where}: missing key {key!r} (keys found: {found}); each row is "
                           f"{ROW_SHAPE}")
    if not is_text(obj["prediction"]):
        raise text_error(obj["prediction"], where, '"prediction"')
    return obj["prediction"], references_of(obj["references"], where)


_DECODER = json.JSONDecoder()


def parse_record(text: str, where, shape: str):
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
