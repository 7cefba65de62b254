"""Issue 38, row 2: rouge_io reads a row of N fields in time linear in N, every field and every
reader: a CSV/TSV header of N columns (its duplicate-name check, its column lookups, its error
messages), Rows.extra of such a row, a JSONL or JSON object of N keys, a compare line of N
systems. A header of 10k / 20k / 40k columns took 5.0 / 7.4 / 17.4 s in the CLI before
(``names.count`` per column); a 0.9 MB upload of 100k columns held the Space for 155 s.

Checked three ways, none against an absolute time: the list scans made while a header is read
are counted (sys.setprofile sees every C call; the quadratic scanned the header once per
column); the CPU time of 16,000 columns against 1,000 in the same run (16x the fields: about 16x
the time when linear, 190x before); and what is read is Python's csv module's reading of the
same file, with messages that stay one short line however wide the header.
"""
import csv
import json
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rouge_exact.io.rows import RowError, Rows, read_system_rows  # noqa: E402


def _write_csv(path, header, rows, delimiter=","):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _wide_csv(folder, n, delimiter=",", name=None):
    """A header of n columns (prediction, reference, c2, c3, ...) and one row."""
    header = ["prediction", "reference"] + [f"c{k}" for k in range(2, n)]
    row = ["the cat sat", "the cat"] + [f"v{k}" for k in range(2, n)]
    suffix = ".csv" if delimiter == "," else ".tsv"
    return _write_csv(folder / (name or f"wide{n}{suffix}"), header, [row], delimiter)


def _read_all(path, extra=False):
    out = []
    with Rows(path) as rows:
        for prediction, references in rows:
            out.append((prediction, references, rows.extra if extra else None))
    return out


def _systems_file(folder, n, renamed=False):
    line = {"references": ["the cat"], **{f"s{k}": "the cat sat" for k in range(1, n)}}
    second = dict(line)
    if renamed:
        second[f"t{n}"] = second.pop(f"s{n - 1}")
    path = folder / f"systems{n}{'-renamed' * renamed}.jsonl"
    path.write_text(json.dumps(line) + "\n" + json.dumps(second) + "\n", encoding="utf-8")
    return path


def _raises(call):
    def run():
        with pytest.raises(RowError):
            call()
    return run


# every reader of one wide row: (name, function of (folder, n) giving a function that reads)
READERS = {
    "csv": lambda folder, n: lambda p=_wide_csv(folder, n): _read_all(p),
    "tsv": lambda folder, n: lambda p=_wide_csv(folder, n, "\t"): _read_all(p),
    "csv+extra": lambda folder, n: lambda p=_wide_csv(folder, n): _read_all(p, extra=True),
    "csv-duplicate": lambda folder, n: _raises(lambda p=_write_csv(
        folder / f"dup{n}.csv", ["prediction", "reference"] + [f"c{k}" for k in range(2, n - 1)]
        + ["Prediction"], []): _read_all(p)),
    "csv-no-prediction": lambda folder, n: _raises(lambda p=_write_csv(
        folder / f"nopred{n}.csv", ["reference"] + [f"c{k}" for k in range(1, n)],
        [["x"] * n]): _read_all(p)),
    "jsonl+extra": lambda folder, n: lambda p=_jsonl(folder, n): _read_all(p, extra=True),
    "json": lambda folder, n: lambda p=_json(folder, n): _read_all(p, extra=True),
    "systems": lambda folder, n: lambda p=_systems_file(folder, n): list(read_system_rows(p)),
    "systems-differ": lambda folder, n: _raises(
        lambda p=_systems_file(folder, n, renamed=True): list(read_system_rows(p))),
}


def _row_object(n):
    return {"prediction": "the cat sat", "references": ["the cat"],
            **{f"k{k}": (k if k % 3 == 0 else [k] if k % 3 == 1 else f"v{k}")
               for k in range(2, n)}}


def _jsonl(folder, n):
    path = folder / f"wide{n}.jsonl"
    path.write_text(json.dumps(_row_object(n)) + "\n", encoding="utf-8")
    return path


def _json(folder, n):
    path = folder / f"wide{n}.json"
    path.write_text(json.dumps([_row_object(n)]), encoding="utf-8")
    return path


def _scanned(call) -> int:
    """Elements of lists scanned by list.count, .index and .remove (C calls, seen by
    sys.setprofile) while ``call`` runs."""
    scanned = [0]

    def profile(frame, event, arg):
        if event == "c_call" and getattr(arg, "__name__", "") in ("count", "index", "remove") \
                and type(getattr(arg, "__self__", None)) is list:
            scanned[0] += len(arg.__self__)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return scanned[0]


@pytest.mark.parametrize("name", ["csv", "tsv", "csv+extra", "csv-duplicate",
                                  "csv-no-prediction"])
def test_a_wide_header_is_scanned_a_fixed_number_of_times(tmp_path, name):
    """Reading a header of 20,000 columns scans lists (count/index/remove) for at most a few
    passes over the header: 2 (names.index of prediction and of the reference column) where
    names.count per column scanned 20,000 x 20,000 = 400,000,000 before."""
    n = 20_000
    read = READERS[name](tmp_path, n)
    scanned = _scanned(read)
    assert scanned <= 4 * n, f"{scanned:,} list elements scanned for {n:,} columns"


def _cpu_per_read(read, repeats: int, trials: int = 5) -> float:
    best = float("inf")
    for _ in range(trials):
        start = time.process_time()
        for _ in range(repeats):
            read()
        best = min(best, (time.process_time() - start) / repeats)
    return best


@pytest.mark.parametrize("name", list(READERS))
def test_reading_one_row_is_linear_in_its_fields(tmp_path, name):
    """The CPU of 16,000 fields against 1,000 in one run (each the least of 5 timings, the
    small one read 16 times a timing): 16x when linear, 190x for the CSV header before. A
    bound of 64 leaves 4x for the caches and the neighbours on either side."""
    read_small, read_large = READERS[name](tmp_path, 1_000), READERS[name](tmp_path, 16_000)
    read_small(), read_large()  # warm: imports, compiled regexes
    small = _cpu_per_read(read_small, repeats=16)
    large = _cpu_per_read(read_large, repeats=1, trials=3)
    ratio = large / max(small, 1e-9)
    assert ratio < 64, (f"{name}: 16,000 fields took {ratio:.0f}x the CPU of 1,000 "
                        f"({large * 1e3:.1f} ms against {small * 1e3:.2f} ms)")


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_a_wide_row_reads_as_the_csv_module_reads_it(tmp_path, delimiter):
    """100,000 columns (one unnamed, as pandas' index; the prediction and the reference in
    the middle): the row and its other columns are csv.DictReader's (unnamed: column_N)."""
    n = 100_000
    header = ["", "doc"] + [f"Col {k}" for k in range(2, n // 2)] + [" Prediction ", "reference"] \
        + [f"c{k}" for k in range(n // 2 + 2, n)]
    row = [str(k * 7 % 1000) for k in range(n)]
    path = _write_csv(tmp_path / ("wide.csv" if delimiter == "," else "wide.tsv"), header, [row],
                      delimiter)
    with open(path, newline="", encoding="utf-8") as handle:
        want = next(csv.DictReader(handle, delimiter=delimiter))
    got = _read_all(path, extra=True)
    prediction, reference = want.pop(" Prediction "), want.pop("reference")
    want["column_1"] = want.pop("")
    assert len(got) == 1 and got[0][:2] == (prediction, [reference])
    assert got[0][2] == {name.strip(): value for name, value in want.items()}


def test_numbered_references_by_number_not_by_int(tmp_path):
    """reference_N are ordered by N, compared as digits: a 5,000-digit N (int() refuses over
    4,300 digits, a ValueError that was not a RowError before) sorts after reference_10."""
    big = "9" * 5_000
    header = ["prediction", f"reference_{big}", "reference_10", "reference_2", "reference_1"]
    path = _write_csv(tmp_path / "numbered.csv", header, [["p", "d", "c", "b", "a"]])
    assert _read_all(path) == [("p", ["a", "b", "c", "d"], None)]  # by hand: 1, 2, 10, big
    path = _write_csv(tmp_path / "gap.csv", ["prediction", f"reference_{big}"], [["p", "r"]])
    with pytest.raises(RowError) as caught:
        _read_all(path)
    message = str(caught.value)
    assert "start at reference_99999" in message and "(5,010 characters)" in message, message
    assert len(message) < 400, len(message)


def _one_line(error) -> str:
    message = str(error.value)
    assert isinstance(error.value, ValueError) and "\n" not in message
    assert len(message) < 2_000, f"a message of {len(message):,} characters"
    return message


def test_messages_about_a_wide_header_stay_one_short_line(tmp_path):
    """100,000 columns, or a name of 1 MB: the message names the file, the line, the first
    20 names and how many there are (hand-written), never all of them."""
    n = 100_000
    path = _write_csv(tmp_path / "nopred.csv", ["reference"] + [f"c{k}" for k in range(1, n)],
                      [["x"] * n])
    with pytest.raises(RowError) as caught:
        _read_all(path)
    message = _one_line(caught)
    names = ", ".join(["'reference'"] + [f"'c{k}'" for k in range(1, 20)])
    assert message.startswith(f"{path}:1: the first record is the header and it has no "
                              f"prediction column (found: {names}, ... (100,000 in all)); "
                              "allowed: "), message
    path = _write_csv(tmp_path / "dup.csv", ["prediction", "reference"]
                      + [f"c{k}" for k in range(2, n - 1)] + [" PREDICTION"], [])
    with pytest.raises(RowError) as caught:
        _read_all(path)
    assert "the column 'prediction' twice (columns 1 and 100,000)" in _one_line(caught)
    long_name = "n" * 2 ** 20
    path = _write_csv(tmp_path / "long.csv", [long_name, "prediction", long_name.upper()], [])
    with pytest.raises(RowError) as caught:
        _read_all(path)
    assert f"{'n' * 30}...{'n' * 30}' (1,048,576 characters) twice" in _one_line(caught)


def test_messages_about_wide_json_rows_stay_one_short_line(tmp_path):
    """A JSONL row of 100,000 keys without "references"; a compare line whose 100,000
    systems differ from the first line's by one: what differs, not every name."""
    row = {"prediction": "a", **{f"k{k:06d}": 1 for k in range(100_000)}}
    path = tmp_path / "keys.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(RowError) as caught:
        _read_all(path)
    message = _one_line(caught)
    assert "missing key 'references' (keys found: k000000, k000001" in message, message
    assert "... (100,001 keys)" in message, message
    path = _systems_file(tmp_path, 100_001, renamed=True)
    with pytest.raises(RowError) as caught:
        list(read_system_rows(path))
    message = _one_line(caught)
    assert ("the systems differ from the first line's (100,000 systems here, 100,000 there): "
            "new here ['t100001'], missing here ['s100000']") in message, message
    path = tmp_path / "surrogate.jsonl"
    path.write_text(json.dumps({"references": "r", "x" * 10_000: "\ud800"}) + "\n",
                    encoding="utf-8")
    with pytest.raises(RowError) as caught:
        list(read_system_rows(path))
    assert "(10,000 characters) holds a lone surrogate" in _one_line(caught)


def test_extra_of_json_values_is_what_json_dumps_writes(tmp_path):
    """Rows.extra writes a number, a boolean, null and NaN as json.dumps does (the fast
    paths for them skip json's encoder), and an array or object as compact JSON."""
    values = [0, -7, 10 ** 30, 1.5, -0.0, 1e300, float("nan"), float("inf"), float("-inf"),
              True, False, None, [1, "é"], {"a": [None]}, "é", ""]
    row = {"prediction": "p", "references": ["r"], **{f"k{k}": v for k, v in enumerate(values)}}
    path = tmp_path / "values.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    want = {f"k{k}": v if isinstance(v, str) else
            json.dumps(v, ensure_ascii=False, separators=(",", ":"))
            for k, v in enumerate(values)}
    assert _read_all(path, extra=True) == [("p", ["r"], want)]
