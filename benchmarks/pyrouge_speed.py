#!/usr/bin/env python3
"""rouge_exact.pyrouge.Rouge155 against pyrouge 0.1.3 running ROUGE-1.5.5.pl, on the same
folders of N documents of REALSumm (tests/data/realsumm.jsonl; default 1,000: each system
summary against its reference), pyrouge's default options (-c 95 -2 -1 -U -r 1000 -n 4 -w 1.2
-a -m), convert_and_evaluate() timed in both.

    .venv/bin/python benchmarks/pyrouge_speed.py              # ~1 min on 2 cores
    .venv/bin/python benchmarks/pyrouge_speed.py --docs 200 --runs 5 --args "-c 95 -r 1000 -n 2 -a"

Needs pyrouge==0.1.3 in the venv (requirements-dev.txt) and the Perl script
(bash tests/rouge155/setup.sh). Each run is a fresh process, the two taking turns: pyrouge's
call (conversion + Perl), and ours twice: the first call of the process (the package's import
and its kernels loaded from the warm kernel cache, which a first run fills) and a second one.
The outputs must be equal byte for byte, or the script stops (exit 1). Prints medians (min-max)
and the ratios.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")


def prepare(work: str, docs: int) -> None:
    """pyrouge's layout: systems/doc.I.txt and models/doc.A.I.txt, one sentence a line."""
    with open(DATA, encoding="utf-8") as f:
        rows = [json.loads(line) for _, line in zip(range(docs), f)]
    if len(rows) < docs:
        sys.exit(f"--docs {docs}: {DATA} has {len(rows)} rows")
    for folder in ("systems", "models"):
        os.makedirs(os.path.join(work, folder))
    for i, row in enumerate(rows):
        for path, text in ((f"systems/doc.{i}.txt", row["prediction"]),
                           (f"models/doc.A.{i}.txt", row["references"][0])):
            with open(os.path.join(work, path), "w", encoding="utf-8") as f:
                f.write(text)


def rouge_home(work: str) -> str:
    """A ROUGE home for pyrouge: an executable ROUGE-1.5.5.pl that runs the installed script,
    and its data/ (tests/rouge155/setup.sh installs them)."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    from oracle import rouge_pl

    script = rouge_pl()
    if script is None:
        sys.exit("ROUGE-1.5.5.pl not found: run bash tests/rouge155/setup.sh")
    home = os.path.join(work, "rouge_home")
    os.makedirs(home)
    with open(os.path.join(home, "ROUGE-1.5.5.pl"), "w") as f:
        f.write(f'#!/bin/sh\nexec perl "{script}" "$@"\n')
    os.chmod(os.path.join(home, "ROUGE-1.5.5.pl"), 0o755)
    os.symlink(os.path.join(os.path.dirname(script), "data"), os.path.join(home, "data"))
    return home


def child(which: str, work: str, args: str) -> None:
    """One measured process: prints {"seconds": [...], "output": str} as JSON."""
    began = time.perf_counter()
    if which == "pyrouge":
        import logging

        import pyrouge

        os.environ["HOME"] = work  # its settings file: ~/.pyrouge/settings.ini
        r = pyrouge.Rouge155(rouge_dir=os.path.join(work, "rouge_home"),
                             rouge_args=args and f"-e {work}/rouge_home/data {args}")
        logging.getLogger("global").setLevel(logging.ERROR)
    else:
        from rouge_exact.pyrouge import Rouge155

        r = Rouge155(rouge_args=args or None)
    r.system_dir, r.model_dir = os.path.join(work, "systems"), os.path.join(work, "models")
    r.system_filename_pattern, r.model_filename_pattern = r"doc.(\d+).txt", "doc.[A-Z].#ID#.txt"
    seconds, output = [], None
    for _ in range(1 if which == "pyrouge" else 2):
        output = r.convert_and_evaluate()
        seconds.append(time.perf_counter() - began)
        began = time.perf_counter()
    print(json.dumps({"seconds": seconds, "output": output}))


def measure(which: str, work: str, args: str) -> dict:
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", which, work,
                           "--args", args], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{which} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def summary(values: list) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs", type=int, default=1000)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--args", default="", help="rouge_args (default: pyrouge's own)")
    p.add_argument("--child", nargs=2, metavar=("WHICH", "WORK"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        return child(a.child[0], a.child[1], a.args)
    with tempfile.TemporaryDirectory(prefix="pyrouge_speed_") as work:
        prepare(work, a.docs)
        rouge_home(work)
        measure("ours", work, a.args)  # fills the kernel cache, if empty: not timed
        perl, first, warm = [], [], []
        for _ in range(a.runs):
            theirs, ours = measure("pyrouge", work, a.args), measure("ours", work, a.args)
            if ours["output"] != theirs["output"]:
                sys.exit("the outputs differ:\n" + theirs["output"] + "\n----\n" + ours["output"])
            perl.append(theirs["seconds"][0])
            first.append(ours["seconds"][0])
            warm.append(ours["seconds"][1])
    print(f"{a.docs} documents, rouge_args {a.args or 'pyrouge default'}, {a.runs} runs; "
          "outputs equal byte for byte")
    print("| call | seconds, median (min-max) | pyrouge + Perl / this |")
    print("|---|---|---|")
    print(f"| pyrouge 0.1.3 + ROUGE-1.5.5.pl | {summary(perl)} | 1 |")
    for name, values in (("rouge_exact.pyrouge, the process's first call", first),
                         ("rouge_exact.pyrouge, a later call", warm)):
        ratio = statistics.median(perl) / statistics.median(values)
        print(f"| {name} | {summary(values)} | {ratio:.0f}x |")


if __name__ == "__main__":
    main()
