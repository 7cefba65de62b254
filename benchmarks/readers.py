"""Reading time of every file reader against the rows, to check that each is linear (issue 27,
contract 5): the time ratio per doubling of the rows must be at most 2.5 (2 when linear).

    .venv/bin/python benchmarks/readers.py                      # 25k, 50k, 100k, 200k rows
    .venv/bin/python benchmarks/readers.py --rows 25000,50000 --runs 5 --readers jsonl,csv
    .venv/bin/python benchmarks/readers.py --code /tmp/old      # the readers of another checkout
                                                                # (e.g. git archive of a commit)
    .venv/bin/python benchmarks/readers.py --sweep columns      # 1k to 400k columns
    .venv/bin/python benchmarks/readers.py --sweep columns --columns 1000,2000,4000 --runs 1

Readers: ``rouge_exact.io.Rows`` for jsonl, json, csv, tsv and text (one reference file), jsonl
and csv again reading ``Rows.extra`` after each row, ``rouge_exact.io.read_system_rows`` on a
compare file, and the CLI's ``read_systems`` (``rouge_exact.cli.main``, ``--compare``) on one
JSONL file and on one text file per system with ``--references``. Each reader is run to the end (the CLI's builds its lists, as
``--compare`` does before scoring).

Rows are realsumm-like: the 3,500 rows of tests/data/realsumm.jsonl, cycled (about 330
bytes of prediction and 260 of reference a row, "\\n" between sentences); the jsonl, json, csv
and tsv rows keep the ``doc`` and ``system`` fields as other fields (csv/tsv: columns ``doc``,
``system``, ``prediction``, ``reference``); text files have the sentences joined by spaces.
Compare rows are one document each with 3 systems (abs/bart, abs/t5/out_11B, ext/matchsumm)
and its reference, plus ``doc`` (not with --no-doc). The files are written to a temporary folder, one size at a
time, and removed. JSON is read whole, so ``max_record_bytes`` is its size for it.

The column sweep (``--sweep columns``) reads ONE row of
N fields, N from 1,000 to 400,000 (``--columns``): csv and tsv (a header of N columns:
prediction, reference, c2, c3, ...; then one row), csv again reading ``Rows.extra``; a JSONL
line and a JSON list holding one object of N keys (prediction, references, k2, ...), jsonl
again reading ``Rows.extra``; a JSON object of parallel lists with N-2 other keys;
``read_system_rows`` and the CLI's ``read_systems`` on a compare file of two lines of N-1
systems; and the error paths: a header of N columns with no prediction column, a header whose
last column repeats the first, and a compare file whose second line renames its last system
(each read to its RowError, whose message must stay one short line). Small sizes are read
several times a run (each timing covers about 64,000 fields, then is divided), and the ratio
is per doubling: (t(b) / t(a)) ** (1 / log2(b / a)), so that 256,000 to 400,000 counts as
0.64 of a doubling.

Past some 30,000 fields the machine's own cost per field grows: the row's strings and dicts
outgrow the caches (json.loads alone took 120 ns a field at 16,000 fields and 380 ns at
512,000 on a 2-vCPU EPYC VM, with PYTHONMALLOC=malloc and glibc keeping its memory so that no
page faulted: 3.1x per doubling at the end), and a CPython dict's table doubles at 2/3 full,
so 400,000 keys take a table twice 256,000's. So each sweep also times two baselines, the
least any reader of the row does, in C: ``baseline-split`` (the CSV file read, its header and
row split, dict(zip(header, row))) for the csv/tsv readers and ``baseline-json`` (json.loads
of the JSONL line) for the JSON ones. A step of a reader passes when its ratio is at most
--max-ratio (2.5), or at most --max-excess (1.5) times its baseline's ratio at the same step
(the reader grows no more than 1.5 times as fast as the machine's own cost; two timings of a
busy machine are compared, so there is room for their noise): a quadratic step is 4x where
the baseline is 2x (2x it), and the old header check was 2.9x to 4.4x a doubling from 1,000
columns on. The last columns give each reader's ratio per doubling over the whole sweep
(t(last) / t(first) ** (1 / log2(last / first))), and its baseline's: the noise of single
steps averages out there.

Timed: one full read, in this process, runs interleaved (every reader on every size once, then
again). Tables of the CPU time of this process (time.process_time; on a shared machine the wall
time also measures the neighbours) and of the wall time, for each statistic of --stat (the
least of RUNS, and the median), with the ratio of each size's to the previous (half) size's.
The first table (CPU, the least of the runs by default) is checked: exit status 1 when one of
its ratios is over --max-ratio (the column sweep: when a step fails the rule above). The
least, because on a shared machine other processes only ever add time, and the median of 7
runs moved by up to 1.4x between sizes at a load of 6 on 2 CPUs (docs/performance.md,
"Readers").
"""
import argparse
import csv
import ctypes
import gc
import json
import math
import os
import statistics
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "realsumm.jsonl"
SYSTEMS = ["abs/bart/out", "abs/t5/out_11B", "ext/matchsumm/out"]
READERS = ["jsonl", "json", "csv", "tsv", "text", "jsonl+extra", "csv+extra",
           "read_system_rows", "read_systems-jsonl", "read_systems-text"]


def realsumm() -> list:
    with open(DATA, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def flat(text: str) -> str:
    return " ".join(text.split("\n"))


def write_files(folder: Path, n: int, rows: list, doc_key: bool = True) -> dict:
    """The files of n rows for every reader: {name: path or paths}; doc_key: compare rows
    carry "doc"."""
    picked = list(islice(cycle(rows), n))
    paths = {k: folder / f"rows.{k}" for k in ("jsonl", "json", "csv", "tsv")}
    with open(paths["jsonl"], "w", encoding="utf-8") as f:
        for r in picked:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    with open(paths["json"], "w", encoding="utf-8") as f:
        json.dump(picked, f, ensure_ascii=False, indent=1)
    for kind, delimiter in (("csv", ","), ("tsv", "\t")):
        with open(paths[kind], "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, delimiter=delimiter)
            writer.writerow(["doc", "system", "prediction", "reference"])
            for r in picked:
                writer.writerow([r["doc"], r["system"], r["prediction"], r["references"][0]])
    paths["text"] = (folder / "predictions.txt", folder / "references.txt")
    with open(paths["text"][0], "w", encoding="utf-8") as p, \
            open(paths["text"][1], "w", encoding="utf-8") as q:
        for r in picked:
            p.write(flat(r["prediction"]) + "\n")
            q.write(flat(r["references"][0]) + "\n")
    by_doc = {}
    for r in rows:
        by_doc.setdefault(r["doc"], {})[r["system"]] = r
    docs = [d for d in sorted(by_doc) if all(s in by_doc[d] for s in SYSTEMS)]
    compare = [by_doc[d] for d in islice(cycle(docs), n)]
    paths["systems"] = folder / "systems.jsonl"
    with open(paths["systems"], "w", encoding="utf-8") as f:
        for k, doc in enumerate(compare):
            row = {"doc": k} if doc_key else {}
            row["references"] = doc[SYSTEMS[0]]["references"]
            row.update({s: doc[s]["prediction"] for s in SYSTEMS})
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    paths["system_texts"] = [folder / f"{s.replace('/', '_')}.txt" for s in SYSTEMS]
    for s, path in zip(SYSTEMS, paths["system_texts"]):
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(flat(doc[s]["prediction"]) + "\n" for doc in compare)
    paths["system_refs"] = folder / "system_references.txt"
    with open(paths["system_refs"], "w", encoding="utf-8") as f:
        f.writelines(flat(doc[SYSTEMS[0]]["references"][0]) + "\n" for doc in compare)
    return paths


COLUMN_READERS = ["csv", "tsv", "csv+extra", "jsonl", "jsonl+extra", "json", "json-parallel",
                  "read_system_rows", "read_systems-jsonl", "csv-no-prediction",
                  "csv-duplicate", "systems-differ"]
# the least a reader of one row of N fields does, in C: the machine's own cost per field,
# which grows with N once the row's objects outgrow the caches (json.loads' own time per
# field grew 3x from 16k to 512k fields on a 2-vCPU EPYC VM, with no page faults)
BASELINES = {"baseline-split": "split the header and the row, dict(zip(header, row))",
             "baseline-json": "json.loads of the JSONL line"}
BASELINE_OF = {name: "baseline-json" if name.startswith(("json", "read_system", "systems"))
               else "baseline-split" for name in COLUMN_READERS}
COLUMN_ERRORS = {"csv-no-prediction": "no prediction column", "csv-duplicate": "twice",
                 "systems-differ": "differ from the first line"}


def write_wide_files(folder: Path, n: int) -> dict:
    """One row of n fields for every reader of the column sweep: {name: path}."""
    paths = {}
    other = [f"c{k}" for k in range(2, n)]
    for kind, delimiter in (("csv", ","), ("tsv", "\t")):
        paths[kind] = folder / f"wide.{kind}"
        with open(paths[kind], "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, delimiter=delimiter)
            writer.writerow(["prediction", "reference"] + other)
            writer.writerow(["the cat sat", "the cat"] + ["x"] * len(other))
    row = {"prediction": "the cat sat", "references": ["the cat"], **dict.fromkeys(other, "x")}
    paths["jsonl"] = folder / "wide.jsonl"
    paths["jsonl"].write_text(json.dumps(row) + "\n", encoding="utf-8")
    paths["json"] = folder / "wide.json"
    paths["json"].write_text(json.dumps([row]), encoding="utf-8")
    paths["json-parallel"] = folder / "parallel.json"
    paths["json-parallel"].write_text(json.dumps(
        {"predictions": ["the cat sat"], "references": [["the cat"]],
         **dict.fromkeys(other, 1)}), encoding="utf-8")
    systems = [f"s{k}" for k in range(1, n)]
    line = {"references": ["the cat"], **dict.fromkeys(systems, "the cat sat")}
    paths["systems"] = folder / "systems.jsonl"
    paths["systems"].write_text((json.dumps(line) + "\n") * 2, encoding="utf-8")
    paths["csv-no-prediction"] = folder / "noprediction.csv"
    paths["csv-no-prediction"].write_text(",".join(["reference"] + other + ["c" + str(n)])
                                          + "\n" + ",".join("x" * n) + "\n", encoding="utf-8")
    paths["csv-duplicate"] = folder / "duplicate.csv"
    paths["csv-duplicate"].write_text(",".join(["prediction", "reference"] + other[:-1]
                                               + ["Prediction"]) + "\n", encoding="utf-8")
    renamed = dict(line)
    renamed[f"t{n}"] = renamed.pop(systems[-1])
    paths["systems-differ"] = folder / "differ.jsonl"
    paths["systems-differ"].write_text(json.dumps(line) + "\n" + json.dumps(renamed) + "\n",
                                       encoding="utf-8")
    return paths


def wide_reader(name: str, paths: dict, rouge_io, rouge_cli):
    """A function that reads the one-row file of ``name`` (an error path: to its RowError,
    checked to be one short line) and returns the row count (1, or 0 for an error path)."""
    def rows_of(path, extra=False):
        return _rows_of(rouge_io, path, extra=extra, max_record_bytes=64 * 2 ** 20)

    if name == "baseline-split":
        def split():
            header, row = paths["csv"].read_bytes().decode("utf-8").split("\n")[:2]
            return len([dict(zip(header.split(","), row.split(",")))])
        return split
    if name == "baseline-json":
        return lambda: len([json.loads(paths["jsonl"].read_bytes().decode("utf-8"))])
    if name in COLUMN_ERRORS:
        def fail():
            try:
                if name == "systems-differ":
                    list(rouge_io.read_system_rows(paths[name], max_record_bytes=64 * 2 ** 20))
                else:
                    list(rouge_io.Rows(paths[name], max_record_bytes=64 * 2 ** 20))
            except rouge_io.RowError as error:
                message = str(error)
                assert COLUMN_ERRORS[name] in message, message[:300]
                assert "\n" not in message, message[:300]
                if len(message) > 3000:
                    print(f"{name}: a message of {len(message):,} characters", file=sys.stderr)
                return 0
            raise AssertionError(f"{name}: no RowError")
        return fail
    if name in ("csv", "tsv", "jsonl", "json", "json-parallel"):
        return rows_of(paths[name])
    if name.endswith("+extra"):
        return rows_of(paths[name.split("+")[0]], extra=True)
    if name == "read_system_rows":  # two lines, one row each
        return lambda: sum(1 for _ in rouge_io.read_system_rows(
            paths["systems"], max_record_bytes=64 * 2 ** 20)) // 2
    args = rouge_cli.build_parser().parse_args(
        ["--compare", str(paths["systems"]), "--max-record-bytes", str(64 * 2 ** 20)])
    return lambda: len(rouge_cli.read_systems(args)[1]) // 2


def _rows_of(rouge_io, path, *args, extra=False, **kwargs):
    """A function that reads path to the end with rouge_io.Rows (and each row's extra
    columns, with extra=True) and returns the row count."""
    def read():
        count = 0
        with rouge_io.Rows(path, *args, **kwargs) as rows:
            for _ in rows:
                if extra:
                    _ = rows.extra  # (built on access: the cost measured)
                count += 1
        return count
    return read


def reader(name: str, paths: dict, rouge_io, rouge_cli):
    """A function that reads the file(s) of ``name`` to the end and returns the row count."""
    def rows_of(path, *args, extra=False, **kwargs):
        return _rows_of(rouge_io, path, *args, extra=extra, **kwargs)

    if name in ("jsonl", "csv", "tsv"):
        return rows_of(paths[name])
    if name.endswith("+extra"):
        return rows_of(paths[name.split("+")[0]], extra=True)
    if name == "json":
        # one record, the whole file (the reader asks for the limit + 1 bytes at once)
        return rows_of(paths["json"], max_record_bytes=os.path.getsize(paths["json"]) + 1)
    if name == "text":
        return rows_of(paths["text"][0], "text", reference_paths=[paths["text"][1]])
    if name == "read_system_rows":
        return lambda: sum(1 for _ in rouge_io.read_system_rows(paths["systems"]))
    if name == "read_systems-jsonl":
        argv = ["--compare", str(paths["systems"])]
    else:
        argv = ["--compare", *map(str, paths["system_texts"]), "--references",
                str(paths["system_refs"])]
    args = rouge_cli.build_parser().parse_args(argv)
    return lambda: len(rouge_cli.read_systems(args)[1])


def trim() -> None:
    """Give the C heap's free memory back to the system (glibc's malloc_trim; nothing
    elsewhere), so that no read finds pages that the read before it left mapped."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweep", choices=("rows", "columns"), default="rows",
                        help="what grows: the rows (--rows) or the fields of one row "
                             "(--columns) (default %(default)s)")
    parser.add_argument("--rows", default="25000,50000,100000,200000",
                        help="row counts, each double the one before (default %(default)s)")
    parser.add_argument("--columns", default=",".join(str(1000 * 2 ** k) for k in range(9))
                        + ",400000",
                        help="fields of the one row of --sweep columns, ascending (default "
                             "%(default)s)")
    parser.add_argument("--runs", type=int, default=3, help="runs per size (default 3)")
    parser.add_argument("--readers", default=None,
                        help=f"some of {','.join(READERS)} (--sweep rows) or of "
                             f"{','.join(COLUMN_READERS)} (--sweep columns); default: all")
    parser.add_argument("--code", default=str(REPO),
                        help="the checkout to import the readers and the CLI from: its "
                             "rouge_exact/ (before 0.7.0: its flat rouge_io.py and rouge_cli.py) "
                             "(default: this checkout)")
    parser.add_argument("--stat", default="min,median",
                        help="min, median or both: a table for each, of the runs; the first is "
                             "checked (default %(default)s: min is steadier on a busy machine, "
                             "where the neighbours only ever add time)")
    parser.add_argument("--no-doc", action="store_true",
                        help='compare rows without "doc" (for code before it was an id)')
    parser.add_argument("--max-ratio", type=float, default=2.5,
                        help="the largest CPU-time ratio per doubling allowed (default 2.5)")
    parser.add_argument("--max-excess", type=float, default=1.5,
                        help="--sweep columns: a step over --max-ratio passes when its ratio is "
                             "at most this many times its baseline's (default 1.5)")
    args = parser.parse_args()
    columns = args.sweep == "columns"
    known = COLUMN_READERS if columns else READERS
    sizes = [int(n) for n in (args.columns if columns else args.rows).split(",")]
    names = (args.readers or ",".join(known)).split(",")
    unknown = sorted(set(names) - set(known))
    if unknown:
        parser.error(f"--readers: got {unknown}; allowed: {', '.join(known)}")
    if columns:  # the baselines first, each once
        names = [b for b in BASELINES if b in {BASELINE_OF[n] for n in names}] + names
    if any(b <= a for a, b in zip(sizes, sizes[1:])):
        parser.error(f"--{args.sweep}: got {sizes}; allowed: ascending sizes")
    sys.path.insert(0, args.code)
    if os.path.exists(os.path.join(args.code, "rouge_cli.py")):  # before 0.7.0: flat modules
        import rouge_cli
        import rouge_io
    else:
        from rouge_exact.cli import main as rouge_cli
        from rouge_exact.io import rows as rouge_io

    stats = {"median": statistics.median, "min": min}
    if not args.stat or set(args.stat.split(",")) - set(stats):
        parser.error(f"--stat: got {args.stat!r}; allowed: min, median, or both separated by "
                     "a comma")
    rows = None if columns else realsumm()
    clocks = {"cpu": time.process_time, "wall": time.perf_counter}
    times = {(clock, name, n): [] for clock in clocks for name in names for n in sizes}
    # the column sweep reads a small file several times per timing (about 64,000 fields)
    repeats = {n: max(1, round(64_000 / n)) if columns else 1 for n in sizes}
    with tempfile.TemporaryDirectory(prefix="rouge-readers-") as folder:
        readers = {}
        for n in sizes:
            (Path(folder) / str(n)).mkdir()
            if columns:
                paths = write_wide_files(Path(folder) / str(n), n)
                readers.update({(name, n): wide_reader(name, paths, rouge_io, rouge_cli)
                                for name in names})
            else:
                paths = write_files(Path(folder) / str(n), n, rows, not args.no_doc)
                readers.update({(name, n): reader(name, paths, rouge_io, rouge_cli)
                                for name in names})
        for run in range(args.runs):  # sizes interleaved too: a busy spell hits all of them
            for (name, n), read in readers.items():
                want = (0 if name in COLUMN_ERRORS else 1) if columns else n
                gc.collect()
                trim()  # each read starts from the same heap, whatever the one before left
                cpu, wall = time.process_time(), time.perf_counter()
                for _ in range(repeats[n]):
                    count = read()
                times["cpu", name, n].append((time.process_time() - cpu) / repeats[n])
                times["wall", name, n].append((time.perf_counter() - wall) / repeats[n])
                assert count == want, (name, count, want)
            print(f"run {run + 1} of {args.runs} done", file=sys.stderr, flush=True)

    unit = "columns" if columns else "rows"
    print(f"{args.runs} runs, in one process; {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}; code from {args.code}")
    if columns:
        print("\nbaselines: " + "; ".join(f"{k}: {v}" for k, v in BASELINES.items() if k in names)
              + f". A step passes when its ratio is at most {args.max_ratio} or at most "
              f"{args.max_excess:g} times its baseline's (the reader grows no more than "
              f"{args.max_excess:g} times as fast as the machine's own cost per field)")
    over = False
    tables = [(clock, name) for name in args.stat.split(",") for clock in clocks]
    for clock, stat_name in tables:
        stat, checked = stats[stat_name], (clock, stat_name) == tables[0]
        print(f"\n{clock} seconds, {stat_name} of {args.runs} runs (ratio to the size before"
              f"{', per doubling' * columns}){' (checked)' * checked}\n")
        print("| reader | " + " | ".join(f"{n:,} {unit}" for n in sizes) + " | largest ratio |"
              + " largest ratio / its baseline's | whole sweep (its baseline's) |" * columns)
        print("|---" * (len(sizes) + 2 + 2 * columns) + "|")
        whole = {}
        ratios = {}
        for name in names:
            medians = [stat(times[clock, name, n]) for n in sizes]
            # per doubling: a step of b/a = 1.5625 (256k to 400k) counts as log2(1.5625) of one
            ratios[name] = [(b / a) ** (1 / math.log2(m / k)) if a > 0 else math.inf
                            for (a, b), (k, m) in zip(zip(medians, medians[1:]),
                                                      zip(sizes, sizes[1:]))]
            cells = [f"{medians[0]:.4f}"] + [f"{t:.4f} ({r:.2f}x)"
                                             for t, r in zip(medians[1:], ratios[name])]
            worst = max(ratios[name], default=0.0)
            if len(sizes) > 1 and medians[0] > 0:
                whole[name] = (medians[-1] / medians[0]) ** (1 / math.log2(sizes[-1] / sizes[0]))
            line = f"| {name} | " + " | ".join(cells) + f" | {worst:.2f}x"
            if name in BASELINES:  # the machine's own growth: shown, not checked
                print(line + f" (the baseline) | | {whole.get(name, 0):.2f}x |")
                continue
            base = BASELINE_OF.get(name) if columns else None
            if base is None:
                verdict = "ok" if worst <= args.max_ratio else f"OVER {args.max_ratio}"
                over |= checked and worst > args.max_ratio
                print(line + f" {verdict} |" + " |" * columns)
                continue
            relative = [r / b for r, b in zip(ratios[name], ratios[base])]
            bad = [r > args.max_ratio and q > args.max_excess
                   for r, q in zip(ratios[name], relative)]
            verdict = ("ok" if worst <= args.max_ratio else "ok (the baseline's growth)"
                       if not any(bad) else "OVER")
            over |= checked and any(bad)
            print(line + f" {verdict} | {max(relative, default=0.0):.2f} | "
                  f"{whole.get(name, 0):.2f}x ({whole.get(base, 0):.2f}x) |")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
