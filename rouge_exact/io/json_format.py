"""The json format: a whole JSON file, a list of row objects or an object of parallel
lists (``rows``' docstring defines it), walked by hand so that each row's message names its
line; nesting deeper than ``MAX_JSON_DEPTH`` is refused before json parses anything.

Standard library only; its one module of the package is ``values`` (see ``rows``'
docstring).
"""

import json
import re

from .values import (
    ROW_SHAPE,
    RowError,
    is_text,
    references_of,
    row_of_object,
    text_error,
)

# A corpus needs 3 levels (list > object > references list); deeper is never one, and
# json.loads would recurse once per level.
MAX_JSON_DEPTH = 32

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


class JsonDocument:
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
                yield line, *row_of_object(item, self.path, line), item
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
            if not is_text(prediction):
                raise text_error(prediction, f"{self.path}:{p_line}", f'"predictions"[{k}]')
            yield p_line, prediction, references_of(refs, f"{self.path}:{r_line}",
                                                  f'"references"[{k}]'), None
