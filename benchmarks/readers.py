"""Reading time of every file reader against the rows, to check that each is linear (issue 27,
contract 5): the time ratio per doubling of the rows must be at most 2.5 (2 when linear).

    .venv/bin/python benchmarks/readers.py                      # 25k, 50k, 100k, 200k rows
    .venv/bin/python benchmarks/readers.py --rows 25000,50000 --runs 5 --readers jsonl,csv
    .venv/bin/python benchmarks/readers.py --code /tmp/old      # rouge_io/rouge_cli of a folder
                                                                # (e.g. git archive of a commit)

Readers: ``rouge_io.Rows`` for jsonl, json, csv, tsv and text (one reference file), jsonl and
csv again reading ``Rows.extra`` after each row, ``rouge_io.read_system_rows`` on a compare
file, and the CLI's ``read_systems`` (``--compare``) on one JSONL file and on one text file
per system with ``--references``. Each reader is run to the end (the CLI's builds its lists, as
``--compare`` does before scoring).

Rows are realsumm-like: the 3,500 rows of tests/data/realsumm.jsonl, cycled (about 330
bytes of prediction and 260 of reference a row, "\\n" between sentences); the jsonl, json, csv
and tsv rows keep the ``doc`` and ``system`` fields as other fields (csv/tsv: columns ``doc``,
``system``, ``prediction``, ``reference``); text files have the sentences joined by spaces.
Compare rows are one document each with 3 systems (abs/bart, abs/t5/out_11B, ext/matchsumm)
and its reference, plus ``doc`` (not with --no-doc). The files are written to a temporary folder, one size at a
time, and removed. JSON is read whole, so ``max_record_bytes`` is its size for it.

Timed: one full read, in this process, runs interleaved (every reader on every size once, then
again). Tables of the CPU time of this process (time.process_time; on a shared machine the wall
time also measures the neighbours) and of the wall time, for each statistic of --stat (the
least of RUNS, and the median), with the ratio of each size's to the previous (half) size's.
The first table (CPU, the least of the runs by default) is checked: exit status 1 when one of
its ratios is over --max-ratio. The least, because on a shared machine other processes only
ever add time, and the median of 7 runs moved by up to 1.4x between sizes at a load of 6 on 2
CPUs (docs/performance.md, "Readers").
"""
import argparse
import csv
import gc
import json
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


def reader(name: str, paths: dict, rouge_io, rouge_cli):
    """A function that reads the file(s) of ``name`` to the end and returns the row count."""
    def rows_of(path, *args, extra=False, **kwargs):
        def read():
            count = 0
            with rouge_io.Rows(path, *args, **kwargs) as rows:
                for _ in rows:
                    if extra:
                        rows.extra
                    count += 1
            return count
        return read

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="25000,50000,100000,200000",
                        help="row counts, each double the one before (default %(default)s)")
    parser.add_argument("--runs", type=int, default=3, help="runs per size (default 3)")
    parser.add_argument("--readers", default=",".join(READERS),
                        help=f"some of {','.join(READERS)}")
    parser.add_argument("--code", default=str(REPO),
                        help="the folder to import rouge_io and rouge_cli from (default: this "
                             "checkout)")
    parser.add_argument("--stat", default="min,median",
                        help="min, median or both: a table for each, of the runs; the first is "
                             "checked (default %(default)s: min is steadier on a busy machine, "
                             "where the neighbours only ever add time)")
    parser.add_argument("--no-doc", action="store_true",
                        help='compare rows without "doc" (for code before it was an id)')
    parser.add_argument("--max-ratio", type=float, default=2.5,
                        help="the largest CPU-time ratio per doubling allowed (default 2.5)")
    args = parser.parse_args()
    sizes = [int(n) for n in args.rows.split(",")]
    names = args.readers.split(",")
    unknown = sorted(set(names) - set(READERS))
    if unknown:
        parser.error(f"--readers: got {unknown}; allowed: {', '.join(READERS)}")
    sys.path.insert(0, args.code)
    import rouge_cli
    import rouge_io

    stats = {"median": statistics.median, "min": min}
    if not args.stat or set(args.stat.split(",")) - set(stats):
        parser.error(f"--stat: got {args.stat!r}; allowed: min, median, or both separated by "
                     "a comma")
    rows = realsumm()
    clocks = {"cpu": time.process_time, "wall": time.perf_counter}
    times = {(clock, name, n): [] for clock in clocks for name in names for n in sizes}
    with tempfile.TemporaryDirectory(prefix="rouge-readers-") as folder:
        readers = {}
        for n in sizes:
            (Path(folder) / str(n)).mkdir()
            paths = write_files(Path(folder) / str(n), n, rows, not args.no_doc)
            readers.update({(name, n): reader(name, paths, rouge_io, rouge_cli)
                            for name in names})
        for run in range(args.runs):  # sizes interleaved too: a busy spell hits all of them
            for (name, n), read in readers.items():
                gc.collect()
                cpu, wall = time.process_time(), time.perf_counter()
                count = read()
                times["cpu", name, n].append(time.process_time() - cpu)
                times["wall", name, n].append(time.perf_counter() - wall)
                assert count == n, (name, count, n)
            print(f"run {run + 1} of {args.runs} done", file=sys.stderr, flush=True)

    print(f"{args.runs} runs, in one process; {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}; code from {args.code}")
    over = False
    tables = [(clock, name) for name in args.stat.split(",") for clock in clocks]
    for clock, stat_name in tables:
        stat, checked = stats[stat_name], (clock, stat_name) == tables[0]
        print(f"\n{clock} seconds, {stat_name} of {args.runs} runs (ratio to the size before)"
              f"{' (checked)' * checked}\n")
        print("| reader | " + " | ".join(f"{n:,} rows" for n in sizes) + " | largest ratio |")
        print("|---" * (len(sizes) + 2) + "|")
        for name in names:
            medians = [stat(times[clock, name, n]) for n in sizes]
            ratios = [b / a for a, b in zip(medians, medians[1:])]
            cells = [f"{medians[0]:.3f}"] + [f"{t:.3f} ({r:.2f}x)"
                                             for t, r in zip(medians[1:], ratios)]
            worst = max(ratios, default=0.0)
            verdict = "ok" if worst <= args.max_ratio else f"OVER {args.max_ratio}"
            over |= checked and worst > args.max_ratio
            print(f"| {name} | " + " | ".join(cells) + f" | {worst:.2f}x {verdict} |")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
