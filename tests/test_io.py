"""rouge_exact.io, the one row reader of the CLI and the Space, against real writers: files written
by Python's csv module, pandas (``DataFrame.to_csv``) and json must read back as exactly the rows
that were written, and pandas' own ``read_csv`` must see the same cells. Then every kind of bad
file gives one RowError line naming ``file:line`` and what is allowed, and a record far over
the limit (a 2 GiB sparse line) is refused within a bounded address space, in a subprocess.
"""
import csv
import io
import json
import os
import re
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import needed  # (an optional test package: a skip with its reason outside CI)
pd = needed("pandas")
import pytest
from hypothesis import assume, given, settings, strategies as st

from rouge_exact.io import delimited, rows as rouge_io
from rouge_exact.io.rows import RowError, Rows, detect_format, read_rows

ROOT = Path(__file__).resolve().parent.parent

# Texts a reader gets wrong when it guesses the quote character, splits on str.splitlines or
# on commas: apostrophes, commas, doubled quotes, CRLF and LF and lone CR inside a cell, line and
# paragraph separators, other scripts, a cell that looks like a JSON array, empty cells.
TRICKY = [
    ("It's the model's output, isn't it?", ["The cat's mat, the dog's bone.", "it's"]),
    ('She said "no", then "yes".', ['"quoted" start', 'end "quoted"']),
    ("line one\nline two\r\nline three\rline four", ["multi\nline\nreference"]),
    ("raw \u2028 line separator and \u2029 paragraph", ["\u2028", "x\u0085y"]),
    ("日本語のテキスト, 中文, ελληνικά, العربية", ["ünïcödé, ½ ≠ 2"]),
    ("[1] looks like a JSON array", ["[\"not\", \"a list\"]"]),
    ("", [""]),
    ("tabs\tinside\tcells", ["a\tb", "; semi; colon"]),
    ("   leading and trailing spaces   ", ["  "]),
]


def write_file(tmp_path, name, data):
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8", newline="")
    return path


def written(rows):
    return [(p, list(r)) for p, r in rows]


def max_refs(rows):
    return max(len(r) for _, r in rows)


# --------------------------------------------------------------------------------------------
# CSV and TSV: files written by Python's csv module and by pandas


def write_numbered_csv(path, rows, **writer_kw):
    k = max_refs(rows)
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, **writer_kw)
        writer.writerow(["prediction"] + [f"reference_{j}" for j in range(1, k + 1)])
        for p, refs in rows:
            writer.writerow([p, *refs, *[""] * (k - len(refs))])
    return path


@pytest.mark.parametrize("writer_kw", [
    {}, {"quoting": csv.QUOTE_ALL}, {"lineterminator": "\n"},
    {"delimiter": "\t"}, {"delimiter": "\t", "quoting": csv.QUOTE_NONNUMERIC},
], ids=["excel-crlf", "quote-all", "lf", "tsv", "tsv-quote-nonnumeric"])
def test_csv_module_round_trip(tmp_path, writer_kw):
    suffix = ".tsv" if writer_kw.get("delimiter") == "\t" else ".csv"
    path = write_numbered_csv(tmp_path / f"rows{suffix}", TRICKY, **writer_kw)
    assert list(read_rows(path)) == written(TRICKY)


def test_csv_single_reference_column_and_extra_columns(tmp_path):
    path = tmp_path / "single.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", " Reference ", "PREDICTION", "notes"])  # any order, any case
        for k, (p, refs) in enumerate(TRICKY):
            writer.writerow([k, refs[0], p, "ignored, \"really\""])
    assert list(read_rows(path)) == [(p, [refs[0]]) for p, refs in TRICKY]


@pytest.mark.parametrize("layout", ["numbered", "json-references", "single"])
@pytest.mark.parametrize("sep", [",", "\t"], ids=["csv", "tsv"])
def test_pandas_to_csv_round_trip(tmp_path, layout, sep):
    k = max_refs(TRICKY)
    frame = pd.DataFrame({"prediction": [p for p, _ in TRICKY]})
    if layout == "numbered":  # missing references are NaN, written as empty cells
        for j in range(k):
            frame[f"reference_{j + 1}"] = [refs[j] if j < len(refs) else None
                                           for _, refs in TRICKY]
        expected = [(p, [refs[0], *[r for r in refs[1:] if r != ""]]) for p, refs in TRICKY]
    elif layout == "json-references":
        frame["references"] = [json.dumps(refs, ensure_ascii=False) for _, refs in TRICKY]
        expected = written(TRICKY)
    else:
        frame["reference"] = [refs[0] for _, refs in TRICKY]
        expected = [(p, [refs[0]]) for p, refs in TRICKY]
    path = tmp_path / ("pandas.csv" if sep == "," else "pandas.tsv")
    frame.to_csv(path, index=False, sep=sep)
    rows = list(read_rows(path))
    assert rows == expected
    # pandas reading its own file sees the same cells
    back = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)
    assert list(back["prediction"]) == [p for p, _ in rows]


def test_pandas_index_column_is_ignored(tmp_path):
    frame = pd.DataFrame({"prediction": ["a, b", "c"], "reference": ["it's", "d\ne"]})
    path = tmp_path / "indexed.csv"
    frame.to_csv(path)  # a first, unnamed index column
    assert list(read_rows(path)) == [("a, b", ["it's"]), ("c", ["d\ne"])]


def test_csv_blank_lines_bom_and_crlf(tmp_path):
    path = write_file(tmp_path, "bom.csv",
                   b'\xef\xbb\xbfprediction,reference\r\n\r\n"a ""b""",c\r\n\r\nd,"e\r\nf"\r\n')
    assert list(read_rows(path)) == [('a "b"', ["c"]), ("d", ["e\r\nf"])]


printable = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
one_line = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
                   max_size=40)


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.tuples(printable, st.lists(printable, min_size=1, max_size=3)),
                     min_size=1, max_size=8),
       lines=st.lists(one_line, min_size=1, max_size=8), piece=st.sampled_from([1, 3, 7, 1 << 20]))
def test_any_text_round_trips_in_any_block_size(tmp_path_factory, rows, lines, piece):
    """CSV, JSONL and text written by csv and json, read in blocks of ``piece`` bytes (1 byte:
    every line and multi-byte character is cut by a block boundary)."""
    d = tmp_path_factory.mktemp("hyp")
    expected = [(p, [refs[0], *[r for r in refs[1:] if r != ""]]) for p, refs in rows]
    jsonl = d / "h.jsonl"
    with open(jsonl, "w", encoding="utf-8", newline="") as f:
        for p, refs in rows:
            f.write(json.dumps({"prediction": p, "references": refs}, ensure_ascii=False) + "\n")
    text = write_file(d, "h.txt", "\n".join(lines) + "\n")
    saved = rouge_io._READ_PIECE
    rouge_io._READ_PIECE = piece
    try:
        assert list(read_rows(write_numbered_csv(d / "h.csv", rows))) == expected
        assert list(read_rows(jsonl)) == written(rows)
        # a U+FEFF that starts a file is its byte order mark, which the reader drops (as
        # Python's utf-8-sig does): the first line is read without it
        read_lines = [lines[0].removeprefix("\ufeff"), *lines[1:]]
        assert list(read_rows(text, reference_paths=[text])) == [(t, [t]) for t in read_lines]
    finally:
        rouge_io._READ_PIECE = saved


@pytest.mark.parametrize("piece", [1, 5, 64, 1 << 20])
def test_limit_is_exact_in_bytes_in_any_block_size(tmp_path, piece, monkeypatch):
    """A line of exactly max_record_bytes bytes (multi-byte characters, CRLF) is read; one
    byte more is refused, with its line."""
    monkeypatch.setattr(rouge_io, "_READ_PIECE", piece)
    limit = 40
    fits = "é" * 20  # 40 bytes
    over = "a" + fits  # 41 bytes
    path = write_file(tmp_path, "p.txt", f"a\r\n{fits}\r\nb\n{fits}")
    assert list(read_rows(path, reference_paths=[path], max_record_bytes=limit)) == \
        [(t, [t]) for t in ("a", fits, "b", fits)]
    path = write_file(tmp_path, "q.txt", f"a\n{fits}\n{over}\nb\n")
    with pytest.raises(RowError, match=r"q.txt:3: the line is longer than 40 bytes"):
        list(read_rows(path, reference_paths=[path], max_record_bytes=limit))
    path = write_file(tmp_path, "q.csv", f'prediction,reference\n"{fits[:10]}\n{fits[:9]}",x\n')
    with pytest.raises(RowError, match=r"q.csv:2: the record \(lines 2-3\) is longer than 40"):
        list(read_rows(path, max_record_bytes=limit))


# --------------------------------------------------------------------------------------------
# JSONL, JSON and text pairs


def test_jsonl_keeps_raw_line_separators_and_carriage_returns(tmp_path):
    lines = [json.dumps({"prediction": p, "references": refs, "id": k}, ensure_ascii=False)
             for k, (p, refs) in enumerate(TRICKY)]
    body = "\ufeff" + lines[0] + "\r\n\n  \n" + "\n".join(lines[1:])  # BOM, CRLF, blanks, no
    path = write_file(tmp_path, "raw.jsonl", body)                         # final newline
    assert "\u2028" in path.read_text(encoding="utf-8")  # written raw, not escaped
    assert list(read_rows(path)) == written(TRICKY)
    # str.splitlines would have cut the file at U+2028, U+0085 and lone CRs
    assert len(body.splitlines()) > len(body.split("\n"))


def test_jsonl_single_reference_string(tmp_path):
    path = write_file(tmp_path, "one.ndjson", '{"prediction": "a", "references": "b c"}\n')
    assert list(read_rows(path)) == [("a", ["b c"])]


def test_json_list_and_parallel_lists(tmp_path):
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps([{"prediction": p, "references": r} for p, r in TRICKY],
                                  indent=2, ensure_ascii=False), encoding="utf-8")
    parallel = tmp_path / "parallel.json"
    parallel.write_text(json.dumps({"meta": {"x": [1, {"y": 2}]},
                                    "predictions": [p for p, _ in TRICKY],
                                    "references": [r if len(r) > 1 else r[0] for _, r in TRICKY]
                                    }, indent=1), encoding="utf-8")
    assert list(read_rows(as_list)) == written(TRICKY)
    assert list(read_rows(parallel)) == written(TRICKY)
    assert list(read_rows(write_file(tmp_path, "empty.json", " [ ] "))) == []


def test_text_pairs_several_reference_files(tmp_path):
    single = [(p.replace("\n", " ").replace("\r", " "), r) for p, r in TRICKY]
    flat = [(p, [x.replace("\n", " ").replace("\r", " ") for x in refs]) for p, refs in single]
    preds = write_file(tmp_path, "p.txt", "\r\n".join(p for p, _ in flat) + "\r\n")
    ref_a = write_file(tmp_path, "a.txt", "\n".join(r[0] for _, r in flat))  # no final newline
    ref_b = write_file(tmp_path, "b.txt", "\n".join(r[-1] for _, r in flat) + "\n")
    rows = list(read_rows(preds, reference_paths=[ref_a, ref_b]))
    assert rows == [(p, [r[0], r[-1]]) for p, r in flat]


def test_escaped_surrogate_pairs_are_characters(tmp_path):
    path = write_file(tmp_path, "emoji.jsonl", json.dumps({"prediction": "smile \U0001F600",
                                                           "references": ["\U0001F600"]}))
    assert "\\ud83d\\ude00" in path.read_text()  # json.dumps escapes it as a pair
    assert list(read_rows(path)) == [("smile \U0001F600", ["\U0001F600"])]


def test_line_of_each_row(tmp_path):
    csv_path = write_numbered_csv(tmp_path / "lines.csv", TRICKY)
    with Rows(csv_path) as rows:
        lines = [rows.line for _ in rows]
    # each record starts one line after the last one ends; count the newlines written
    starts, line = [], 2
    for p, refs in TRICKY:
        starts.append(line)
        line += sum(cell.count("\n") for cell in [p, *refs]) + 1
    assert lines == starts
    jsonl = write_file(tmp_path, "lines.jsonl", f"\n{_GOOD}\n\n{_GOOD}\n")
    with Rows(jsonl) as rows:
        assert [rows.line for _ in rows] == [2, 4]


def test_detect_format_and_rows_attributes(tmp_path):
    assert [detect_format(f"x{s}") for s in (".jsonl", ".NDJSON", ".json", ".csv", ".tsv",
                                             ".txt")] == ["jsonl", "jsonl", "json", "csv",
                                                          "tsv", "text"]
    path = write_file(tmp_path, "pairs.data", '{"prediction": "a", "references": ["b"]}\n')
    with Rows(path, "jsonl") as rows:
        assert rows.size == path.stat().st_size and rows.bytes_read == 0
        assert list(rows) == [("a", ["b"])]
        assert rows.bytes_read == rows.size
    assert rows.files[0].file.closed


# --------------------------------------------------------------------------------------------
# Rows.extra: the other fields of the last row


def extras(path, *args, **kwargs):
    """[(row, extra)] of a file, extra read after each row."""
    with Rows(path, *args, **kwargs) as rows:
        assert rows.extra == {}  # before the first row
        return [(row, rows.extra) for row in rows]


def test_extra_of_jsonl_and_json_objects(tmp_path):
    objects = [
        {"doc": 0, "system": "abs/bart", "prediction": "a", "references": ["b"]},
        {"references": "c", "id": "x-1", "prediction": "d", "doc": 1.5},
        {"prediction": "e", "references": ["f"], "meta": {"k": [1, "é"]}, "n": None,
         "ok": True, "note": "it's, \"quoted\"\n2nd line", "empty": ""},
        {"prediction": "g", "references": ["h"]},
    ]
    expected = [  # written by hand: strings as they are, the rest as compact JSON
        {"doc": "0", "system": "abs/bart"},
        {"id": "x-1", "doc": "1.5"},
        {"meta": '{"k":[1,"é"]}', "n": "null", "ok": "true",
         "note": "it's, \"quoted\"\n2nd line", "empty": ""},
        {},
    ]
    rows = [("a", ["b"]), ("d", ["c"]), ("e", ["f"]), ("g", ["h"])]
    jsonl = write_file(tmp_path, "x.jsonl", "".join(json.dumps(o) + "\n" for o in objects))
    as_list = write_file(tmp_path, "x.json", json.dumps(objects, indent=2))
    assert extras(jsonl) == list(zip(rows, expected))
    assert extras(as_list) == list(zip(rows, expected))


def test_extra_of_a_lone_surrogate_is_escaped_json(tmp_path):
    path = write_file(tmp_path, "s.jsonl", '{"prediction": "a", "references": ["b"], '
                                           '"tag": "\\ud800x", "deep": ["\\udc00"]}\n')
    [(row, extra)] = extras(path)
    assert extra == {"tag": '"\\ud800x"', "deep": '["\\udc00"]'}
    assert json.loads(extra["tag"]) == "\ud800x"  # the JSON text gives the value back
    extra["tag"].encode("utf-8")  # and UTF-8 can write it


def test_extra_of_csv_equals_the_csv_module(tmp_path):
    path = tmp_path / "extra.csv"
    header = ["id", " Reference ", "PREDICTION", "notes", " doc "]
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for k, (p, refs) in enumerate(TRICKY):
            writer.writerow([k, refs[0], p, refs[-1] + ', "really"', p[:5]])
    with open(path, encoding="utf-8", newline="") as f:
        records = list(csv.reader(f))
    expected = [{"id": r[0], "notes": r[3], "doc": r[4]} for r in records[1:]]
    got = extras(path)
    assert [row for row, _ in got] == [(p, [refs[0]]) for p, refs in TRICKY]
    assert [extra for _, extra in got] == expected
    assert expected[1] == {"id": "1", "notes": 'end "quoted", "really"',
                           "doc": 'She s'}  # hand-checked


@pytest.mark.parametrize("sep", [",", "\t"], ids=["csv", "tsv"])
def test_extra_of_pandas_index_and_numbered_references(tmp_path, sep):
    frame = pd.DataFrame({"prediction": ["a, b", "c"], "reference_1": ["it's", "d\ne"],
                          "reference_2": ["x", ""], "system": ["t5", "bart\tlarge"]})
    path = tmp_path / ("indexed.csv" if sep == "," else "indexed.tsv")
    frame.to_csv(path, sep=sep)  # a first, unnamed index column
    assert extras(path) == [(("a, b", ["it's", "x"]), {"column_1": "0", "system": "t5"}),
                            (("c", ["d\ne"]), {"column_1": "1", "system": "bart\tlarge"})]


def test_extra_of_unnamed_columns_never_collide(tmp_path):
    path = write_file(tmp_path, "u.csv", "column_1,prediction,,reference,\n1,a,2,b,3\n")
    assert extras(path) == [(("a", ["b"]), {"column_1": "1", "column_3": "2",
                                            "column_5": "3"})]
    path = write_file(tmp_path, "v.csv", ",column_1,prediction,reference\n1,2,a,b\n")
    assert extras(path) == [(("a", ["b"]), {"column_1_": "1", "column_1": "2"})]


def test_extra_of_text_and_parallel_lists_is_empty(tmp_path):
    preds = write_file(tmp_path, "p.txt", "a\nb\n")
    refs = write_file(tmp_path, "r.txt", "c\nd\n")
    assert extras(preds, reference_paths=[refs]) == [(("a", ["c"]), {}), (("b", ["d"]), {})]
    parallel = write_file(tmp_path, "par.json", json.dumps(
        {"meta": 1, "predictions": ["a"], "references": ["b"]}))
    assert extras(parallel) == [(("a", ["b"]), {})]


def test_extra_is_a_new_dict_each_time(tmp_path):
    path = write_file(tmp_path, "n.jsonl", '{"prediction": "a", "references": ["b"], '
                                           '"doc": "1"}\n')
    with Rows(path) as rows:
        next(rows)
        first = rows.extra
        first["doc"] = "changed"
        assert rows.extra == {"doc": "1"}


# --------------------------------------------------------------------------------------------
# read_system_rows: compare files; "doc" and "id" are ids, every other key but "references"
# is a system


def test_system_rows_ids_are_not_systems(tmp_path):
    path = write_file(tmp_path, "systems.jsonl", "\n".join([
        '{"doc": 0, "references": ["r a"], "bart": "b a", "t5": "t a"}',
        '{"t5": "t b", "id": "x-7", "references": "r b", "doc": "doc 1", "bart": "b b"}',
        '',
        '{"bart": "b c", "t5": "t c", "references": ["r c", "r d"], "id": 2.5}',
        '{"bart": "b d", "t5": "t d", "references": ["r e"]}',
    ]) + "\n")
    assert list(rouge_io.read_system_rows(path)) == [
        ({"bart": "b a", "t5": "t a"}, ["r a"]),
        ({"t5": "t b", "bart": "b b"}, ["r b"]),
        ({"bart": "b c", "t5": "t c"}, ["r c", "r d"]),
        ({"bart": "b d", "t5": "t d"}, ["r e"]),
    ]


SYSTEM_KEYS = 'every key except "references", "doc" and "id" is read as a system'


@pytest.mark.parametrize("text, message", [
    ('{"references": "r", "a": "x", "rank": 3}',
     "systems.jsonl:1: 'rank' must be a string, got a number; allowed: a string per system ("
     + SYSTEM_KEYS + ")"),
    ('{"references": "r", "a": "x", "b": null}',
     "systems.jsonl:1: 'b' must be a string, got null; allowed: a string per system ("
     + SYSTEM_KEYS + ")"),
    ('{"references": "r", "a": "x", "doc": [1]}',
     "systems.jsonl:1: the id 'doc' must be a number or a string, got an array; allowed: "),
    ('{"references": "r", "a": "x", "id": true}',
     "systems.jsonl:1: the id 'id' must be a number or a string, got a boolean; allowed: "),
    ('{"references": "r", "doc": 1, "id": "a"}',
     "systems.jsonl:1: no system key (" + SYSTEM_KEYS + "); allowed: "),
    ('{"references": "r", "a": "x", "b": "y"}\n{"references": "r", "a": "x", "c": "y"}',
     "systems.jsonl:2: the systems ['a', 'c'] differ from the first line's ['a', 'b']; "
     "allowed: the same systems on every line (" + SYSTEM_KEYS + ")"),
    ('{"references": "r", "a": "\\ud800"}',
     "systems.jsonl:1: 'a' holds a lone surrogate \\ud800"),
], ids=["number-system", "null-system", "array-doc", "boolean-id", "only-ids", "other-systems",
        "surrogate"])
def test_system_rows_errors(tmp_path, text, message):
    path = write_file(tmp_path, "systems.jsonl", text + "\n")
    with pytest.raises(RowError) as caught:
        list(rouge_io.read_system_rows(path))
    found = str(caught.value).replace(str(tmp_path) + os.sep, "")
    assert found.startswith(message) and "\n" not in found, found


# --------------------------------------------------------------------------------------------
# Bad files: one line, file:line, what is allowed


_GOOD = '{"prediction": "a", "references": ["b"]}'
BAD = {
    # name: (file name, bytes, reference files, expected "file:line", fragment of the message)
    "jsonl-syntax": ("x.jsonl", f"{_GOOD}\n\n{{oops\n", None, "x.jsonl:3",
                     "invalid JSON"),
    "jsonl-not-object": ("x.jsonl", f'{_GOOD}\n["a", ["b"]]\n', None, "x.jsonl:2",
                         "expected an object"),
    "jsonl-missing-key": ("x.jsonl", '{"prediction": "a", "refs": ["b"]}\n', None, "x.jsonl:1",
                          "missing key 'references' (keys found: prediction, refs)"),
    "jsonl-prediction-type": ("x.jsonl", '{"prediction": 3, "references": "b"}', None,
                              "x.jsonl:1", '"prediction" must be a string, got a number'),
    "jsonl-references-empty": ("x.jsonl", '{"prediction": "a", "references": []}', None,
                               "x.jsonl:1", "non-empty array of strings, got an array (empty)"),
    "jsonl-reference-item": ("x.jsonl", '{"prediction": "a", "references": ["b", null]}', None,
                             "x.jsonl:1", '"references"[1] must be a string, got null'),
    "jsonl-huge-int": ("x.jsonl", '{"prediction": "a", "references": ["b"], "n": ' + "9" * 5000
                       + "}", None, "x.jsonl:1", "invalid JSON"),
    "jsonl-deep": ("x.jsonl", f"{_GOOD}\n" + "[" * 100_000 + "]" * 100_000, None, "x.jsonl:2",
                   "JSON nested too deep to parse"),
    "jsonl-deep-unclosed": ("x.jsonl", '{"a": ' * 1_000_000, None, "x.jsonl:1",
                            "JSON nested too deep to parse"),
    "jsonl-lone-surrogate": ("x.jsonl", f'{_GOOD}\n{{"prediction": "a\\ud800", "references": '
                             '"b"}', None, "x.jsonl:2", '"prediction" holds a lone surrogate '
                             "\\ud800"),
    "json-lone-surrogate": ("x.json", '{"predictions": ["a"],\n "references": [["b", '
                            '"\\udfff c"]]}', None, "x.json:2",
                            '"references"[0][1] holds a lone surrogate \\udfff'),
    "csv-lone-surrogate": ("x.csv", 'prediction,references\na,"[""\\ud83d""]"\n', None,
                           "x.csv:2", 'column "references"[0] holds a lone surrogate'),
    "jsonl-utf16": ("x.jsonl", _GOOD, "utf-16", "x.jsonl:1", "UTF-16"),
    "json-deep": ("x.json", "\n\n" + "[" * 100_000 + "]" * 100_000, None, "x.json:3",
                  "nested deeper than 32"),
    "json-deep-in-string-ok-then-bad": ("x.json", '[{"prediction": "[[[[' + "[" * 40 + '", '
                                        '"references": ["b"]},\n 7]', None, "x.json:2",
                                        "expected an object"),
    "json-syntax": ("x.json", f"[{_GOOD},\n{_GOOD}\n{_GOOD}]", None, "x.json:3",
                    "expected ',' or ']'"),
    "json-jsonl-content": ("x.json", f"{_GOOD}\n{_GOOD}\n", None, "x.json:2",
                           "extra data after the corpus"),
    "json-scalar": ("x.json", "\n 42", None, "x.json:2", "neither a list nor an object"),
    "json-empty": ("x.json", "", None, "x.json:1", "found nothing"),
    "json-item": ("x.json", f'[{_GOOD},\n  {{"prediction": "a", "references": 5}}]', None,
                  "x.json:2", "got a number"),
    "json-parallel-lengths": ("x.json", '{"predictions": ["a", "b"],\n"references": ["c"]}',
                              None, "x.json:1", '"predictions" has 2 items and "references" has 1'),
    "json-parallel-missing": ("x.json", '{"predictions": ["a"]}', None, "x.json:1",
                              "missing key 'references'"),
    "json-parallel-item": ("x.json", '{"predictions": ["a",\n 2], "references": ["c", "d"]}',
                           None, "x.json:2", '"predictions"[1] must be a string'),
    "json-parallel-not-array": ("x.json", '{"predictions": "a", "references": ["c"]}', None,
                                "x.json:1", '"predictions" must be an array'),
    "json-bad-utf8": ("x.json", b'[{"prediction": "a",\n "references": ["caf\xe9"]}]', None,
                      "x.json:2", "not valid UTF-8 (byte offset {offset} in the file"),
    "csv-unclosed-quote": ("x.csv", 'prediction,reference\na,b\n"c,d\ne,f\n', None, "x.csv:3",
                           "not valid CSV: unexpected end of data"),
    "csv-text-after-quote": ("x.csv", 'prediction,reference\n"a"b,c\n', None, "x.csv:2",
                             "not valid CSV"),
    "csv-unquoted-comma": ("x.csv", "prediction,reference\nhello, world,ref\n", None, "x.csv:2",
                           "3 cells, the header has 2"),
    "csv-short-row": ("x.csv", "prediction,reference\nonly\n", None, "x.csv:2",
                      "1 cells, the header has 2"),
    "csv-no-header": ("x.csv", "the prediction,the reference\n", None, "x.csv:1",
                      "no prediction column"),
    "csv-no-reference": ("x.csv", "prediction,target\n", None, "x.csv:1",
                         "no reference column"),
    "csv-two-ways": ("x.csv", "prediction,reference,references\n", None, "x.csv:1",
                     "names reference and references"),
    "csv-duplicate": ("x.csv", "prediction,Prediction,reference\n", None, "x.csv:1",
                      "'prediction' twice"),
    "csv-numbering": ("x.csv", "prediction,reference_2\n", None, "x.csv:1",
                      "start at reference_2"),
    "csv-references-plain-text": ("x.csv", 'prediction,references\n"a","b, c"\n', None,
                                  "x.csv:2", 'name the column "reference"'),
    "csv-references-not-array": ("x.csv", 'prediction,references\na,"""b"""\n', None,
                                 "x.csv:2", "must hold a JSON array"),
    "csv-references-item": ("x.csv", 'prediction,references\na,"[""b"", 1]"\n', None, "x.csv:2",
                            '"references"[1] must be a string'),
    "csv-references-deep": ("x.csv", "prediction,references\na," + "[" * 5000 + "\n", None,
                            "x.csv:2", "nested too deep to parse"),
    "csv-references-nested": ("x.csv", 'prediction,references\na,"[[""b""]]"\n', None,
                              "x.csv:2", 'column "references"[0] must be a string, got an '
                              "array"),
    "csv-bad-utf8-line-3": ("x.csv", b'prediction,reference\n"a\nb\xff",c\n', None, "x.csv:3",
                            "not valid UTF-8 (byte offset {offset} in the file"),
    "tsv-comma-is-a-cell": ("x.tsv", "prediction\treference\na,b\n", None, "x.tsv:2",
                            "1 cells, the header has 2; allowed: as many cells as the header "
                            "(quote a cell that holds a tab)"),
    "text-fewer-reference-lines": ("x.txt", "a\nb\nc\n", ["a\nb\n"], "r0.txt:3",
                                   "x.txt has 3 lines, r0.txt has 2 lines"),
    "text-more-reference-lines": ("x.txt", "a\nb", ["a\nb\n", "a\nb\nc\nd"], "x.txt:3",
                                  "x.txt has 2 lines, r0.txt has 2 lines, r1.txt has 4 lines"),
    # the second reference file has the bad byte
    "text-bad-utf8": ("x.txt", "a\nb\n", ["ok\nok\n", b"ok\ncaf\xe9\n"], "r1.txt:2",
                      "not valid UTF-8 (byte offset {offset} in the file"),
    "unknown-suffix": ("x.xlsx", "", None, "x.xlsx", "allowed: the suffixes .jsonl"),
    "missing-file": ("missing", None, None, "nope.jsonl", "No such file"),
    "directory": ("sub.jsonl", None, None, "sub.jsonl", "Is a directory"),
    "text-without-references": ("x.txt", "a\n", None, "x.txt", "one or more reference files"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_file_gives_one_line_with_file_and_line(tmp_path, case, monkeypatch):
    name, content, references, where, fragment = BAD[case]
    monkeypatch.chdir(tmp_path)
    if case == "missing-file":
        name = "nope.jsonl"
    elif case == "directory":
        os.mkdir(name)
    else:
        data = content if isinstance(content, bytes) else (
            content.encode("utf-16") if references == "utf-16" else content.encode())
        Path(name).write_bytes(data)
    ref_paths = []
    for k, ref in enumerate(references if isinstance(references, list) else []):
        Path(f"r{k}.txt").write_bytes(ref if isinstance(ref, bytes) else ref.encode())
        ref_paths.append(f"r{k}.txt")
    with pytest.raises(RowError) as caught:
        list(read_rows(name, reference_paths=ref_paths))
    message = str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert "\n" not in message and message.startswith(where + ":"), message
    non_utf8 = [b for b in [content, *(references or [])] if isinstance(b, bytes)]
    if non_utf8:  # the offset of the one byte that is not UTF-8, counted here
        fragment = fragment.format(offset=next(k for k, b in enumerate(non_utf8[0]) if b > 127))
    assert fragment in message, message
    # and what is allowed, unless the path itself is wrong
    assert re.search(r"allowed: |expected |must (be|hold) |each row is ", message) or \
        case == "missing-file", message


def test_bad_arguments():
    with pytest.raises(ValueError, match="max_record_bytes: got 0"):
        Rows("x.jsonl", max_record_bytes=0)
    with pytest.raises(ValueError, match="format: got 'xml'"):
        Rows("x.jsonl", "xml")


# --------------------------------------------------------------------------------------------
# Limits: a record over max_record_bytes is refused after reading at most that much


@pytest.mark.parametrize("fmt", ["jsonl", "json", "csv", "text"])
def test_record_over_the_limit(tmp_path, fmt):
    limit = 1000
    long = "x" * 1500
    content = {"jsonl": f"{_GOOD}\n" + json.dumps({"prediction": long, "references": ["b"]}),
               "json": json.dumps([{"prediction": long, "references": ["b"]}]),
               "csv": f'prediction,reference\na,b\n"{"y" * 600}\n{"z" * 600}",c\n',
               "text": f"a\n{long}\n"}[fmt]
    path = write_file(tmp_path, f"x.{fmt}", content)
    refs = [write_file(tmp_path, "r.txt", "a\nb\n")] if fmt == "text" else []
    with pytest.raises(RowError) as caught:
        list(read_rows(path, fmt, reference_paths=refs, max_record_bytes=limit,
                       limit_name="--max-record-bytes"))
    message = str(caught.value)
    line = {"jsonl": 2, "json": 1, "csv": 3, "text": 2}[fmt]
    assert message.startswith(f"{path}:{line}: ")
    assert "longer than 1,000 bytes" in message or "larger than 1,000 bytes" in message
    assert "--max-record-bytes=1000" in message
    # the same file under a limit it fits in reads fine
    assert len(list(read_rows(path, fmt, reference_paths=refs, max_record_bytes=5000))) >= 1


def test_csv_field_size_limit_is_left_alone(tmp_path):
    """A 1 MB cell (over csv's default field limit of 128 KiB) reads right, and the process-wide
    csv.field_size_limit() is the same after (issue 25: a reader changes no global state)."""
    before = csv.field_size_limit()
    big = "w " * 500_000
    path = tmp_path / "big.csv"
    pd.DataFrame({"prediction": [big, "p"], "reference": ["r", big + "\n" + big]}).to_csv(
        path, index=False)
    assert list(read_rows(path)) == [(big, ["r"]), ("p", [big + "\n" + big])]
    assert csv.field_size_limit() == before


def csv_lines(text):
    """Lines as rouge_exact.io.rows' _LineFile gives them to the CSV parser: split on "\n" only, each
    keeping its end."""
    return [line for line in re.split("(?<=\n)", text) if line]


def csv_module(text, delimiter):
    """(records, error message) of Python's csv.reader(strict=True) on those lines: the
    reference (the texts here are far under its field size limit)."""
    records = []
    try:
        for record in csv.reader(csv_lines(text), delimiter=delimiter, strict=True):
            records.append(record)
    except csv.Error as error:  # its advice on a stray "\r" is reworded (and varies)
        stray_cr = str(error).startswith("new-line character seen in unquoted field")
        return records, delimited._CSV_STRAY_CR if stray_cr else str(error)
    return records, None


def ours(text, delimiter):
    records = []
    try:
        for record in delimited._csv_records(csv_lines(text), delimiter):
            records.append(record)
    except delimited._CsvError as error:
        return records, str(error)
    return records, None


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=[",", "\t", '"', "\r", "\n", "a", " ", "\0", "é"], max_size=40),
       st.sampled_from([",", "\t"]))
def test_csv_parser_equals_the_csv_module(text, delimiter):
    """Records and errors (csv's messages; a stray "\\r" reworded) are those of
    csv.reader(strict=True), on any mix of delimiters, quotes, CR, LF and NUL."""
    assert ours(text, delimiter) == csv_module(text, delimiter)


@pytest.mark.parametrize("text", [
    'a,b\r\n"x\r\ny",""""\n', '"a"b\n', 'a"b",c\n', '"a\n', "a\rb\n", "\r\n\n,\n",
    "a,\n", "a,", '"a"', 'a,""', '"a""\n"', "\rx\n", 'x,"a"\r\r\n'])
def test_csv_parser_cases(text):
    assert ours(text, ",") == csv_module(text, ",")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.text(max_size=30), min_size=1, max_size=4), max_size=5),
       st.sampled_from(["\r\n", "\n"]), st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]),
       st.integers(130_000, 300_000))
def test_csv_parser_reads_what_csv_writer_wrote_with_long_fields(rows, end, quoting, long):
    """Cells longer than csv's default field limit read back exactly as csv.writer wrote
    them (Python's csv writes any size; its reader would need the process-wide limit raised)."""
    rows = [["x" * long + "\n\"," + cells[0], *cells[1:]] for cells in rows]
    # csv.writer leaves a "\r" unquoted when it is not in lineterminator, and csv.reader
    # itself then reads it as a line end: no round trip to hold us to
    assume(end == "\r\n" or quoting == csv.QUOTE_ALL or
           not any("\r" in cell for cells in rows for cell in cells))
    out = io.StringIO()
    csv.writer(out, lineterminator=end, quoting=quoting).writerows(rows)
    assert ours(out.getvalue(), ",") == ([row if row != [""] else [] for row in rows], None)


_BOUNDED = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from rouge_exact.io.rows import read_rows, RowError
    path, fmt, refs = sys.argv[2], sys.argv[3], sys.argv[4:]
    try:
        for row in read_rows(path, fmt, reference_paths=refs):
            pass
    except RowError as error:
        print(error)
    # the peak RSS of this process (VmHWM: ru_maxrss would include the forking parent's)
    status = open("/proc/self/status").read()
    print(int(status.split("VmHWM:")[1].split()[0]) // 1024)  # MiB
""")
PREFIX = {"jsonl": _GOOD + "\n", "json": "[", "csv": "prediction,reference\r\na,b\r\n",
          "tsv": "prediction\treference\n", "text": "first line\n"}


@pytest.mark.parametrize("fmt", list(PREFIX))
def test_two_gib_line_is_refused_in_bounded_memory(tmp_path, fmt):
    """A 2 GiB line (a sparse file: no disk used) under the default 16 MiB limit: one line, in
    a process whose address space is capped at 600 MiB; its peak RSS stays under 64 MiB."""
    path = tmp_path / f"huge.{fmt}"
    with open(path, "wb") as f:
        f.write(PREFIX[fmt].encode())
        f.seek(2 ** 31)
        f.write(b"x\n")
    ref = tmp_path / "ref.txt"
    ref.write_text("a\nb\n")
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (600 * 2 ** 20, 600 * 2 ** 20))

    args = [sys.executable, "-c", _BOUNDED, str(ROOT), str(path), fmt]
    if fmt == "text":
        args.append(str(ref))
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120, preexec_fn=cap)
    assert proc.returncode == 0, proc.stderr
    message, peak_mib = proc.stdout.splitlines()
    line = {"jsonl": 2, "json": 1, "csv": 3, "tsv": 2, "text": 2}[fmt]
    assert message.startswith(f"{path}:{line}: "), message
    assert f"max_record_bytes={16 * 2 ** 20}" in message
    assert int(peak_mib) < 64, peak_mib  # about 43 MiB: the interpreter and 2 x 16 MiB


def test_json_limit_counts_the_whole_file(tmp_path):
    rows = [{"prediction": "p" * 100, "references": ["r"]}] * 20
    path = tmp_path / "x.json"
    path.write_text(json.dumps(rows))
    assert len(list(read_rows(path, max_record_bytes=path.stat().st_size))) == 20
    with pytest.raises(RowError, match="use JSONL"):
        list(read_rows(path, max_record_bytes=path.stat().st_size - 1))
