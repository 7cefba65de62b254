#!/usr/bin/env python3
"""The package layout (0.7.0: rouge_exact/ with subpackages, a lazy ``import rouge_exact``, a
thin evaluate script) against 0.6.0 (flat modules at the root, mapped as the package), in one
run, the two versions taking turns (old, new, old, new, ...), each run a fresh process.

    .venv/bin/python benchmarks/layout.py            # 9 runs a workload (3-5 min on 2 cores)
    .venv/bin/python benchmarks/layout.py --quick    # 3 runs (2-3 min)
    .venv/bin/python benchmarks/layout.py --old /tmp/rouge_old   # a checkout of 0.6.0

Old: ``--old FOLDER`` (a checkout of 0.6.0), else ``git archive`` of ``--old-rev`` (02b7964,
0.6.0) unpacked into the work folder. New: a copy of this checkout's rouge_exact/ and
rouge_metric.py, made at the start (edits made during the run change nothing). Each version
is imported as the package ``rouge_exact`` from a folder of its own, first on the children's
PYTHONPATH (0.6.0: a link ``rouge_exact`` to its root), with its own kernel cache
(ROUGE_METRIC_CACHE_DIR) and evaluate module cache (HF_MODULES_CACHE), both filled before
anything is timed; the children run in the work folder, so the checkout is not on their path.

Workloads, on pairs of tests/data/realsumm.jsonl (10,000 drawn with replacement, seeded; the
smaller calls take the first N of them), default rouge types, use_stemmer=True:

* warm ``rouge_exact.compute()`` of 10,000, 512, 64, 8 and 1 pairs: in one process per
  version (kernels compiled and loaded, each size called once first), every size timed in
  each of --rounds rounds (small sizes: the mean of a batch of calls, about 2,000 pairs'
  worth); --processes process pairs, old and new alternated; the median of all rounds (a
  process's small calls may all run some 50% slower than another's, whichever the version:
  hence 8 processes each);
* ``import rouge_exact``: the wall time of a fresh ``python -c "import rouge_exact"``;
* the command's ``--help``: the wall time of a fresh process running the command's entry
  (0.6.0: ``rouge_exact.rouge_cli.console``, 0.7.0: ``rouge_exact.cli.main.console``, what
  ``rouge-exact`` runs);
* ``evaluate.load`` + the first ``compute()`` of 10 pairs, warm caches (``import evaluate``
  done before the clock starts);
* the first ``rouge_exact.compute()`` of 10 pairs on an empty kernel cache (a new
  ROUGE_METRIC_CACHE_DIR a run): the call runs on the numpy twins while the kernels compile
  in a background process; only the call is timed (the function is looked up first), and
  the compile process is killed after it.

Both versions must give the same numbers on every workload that scores (the results of each
warm size, of evaluate's first call and of the empty-cache call): the script stops with an
error (exit status 1) if they differ. It prints a markdown table: workload, old median, new
median, new / old, runs. Children run with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE and
PYTHONDONTWRITEBYTECODE unset (the priming runs write each version's bytecode, as an install
does), HF_HUB_OFFLINE=1 and PYTHONHASHSEED=0.
"""

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THIS = os.path.abspath(__file__)
DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")  # REALSumm: tests/data/DATA.md
OLD_REV = "02b7964"  # 0.6.0, the last flat layout
SEED = 20261122
WARM_SIZES = (10_000, 512, 64, 8, 1)
FIRST_PAIRS = 10  # evaluate.load's first call, and the first call on an empty kernel cache
HELP = {"old": "from rouge_exact.rouge_cli import console; console()",
        "new": "from rouge_exact.cli.main import console; console()"}


# ---- children: one version, one measurement, in a fresh process -----------------------------

def pairs(n):
    with open(DATA, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    rng = random.Random(SEED)
    drawn = [rows[rng.randrange(len(rows))] for _ in range(max(n, max(WARM_SIZES)))][:n]
    return [r["prediction"] for r in drawn], [r["references"][0] for r in drawn]


def child_warm(spec):
    import rouge_exact

    compute = rouge_exact.compute
    rouge_exact.compile_kernels(wait=True)
    P, R = pairs(max(spec["sizes"]))
    results = {str(n): compute(P[:n], R[:n], use_stemmer=True) for n in spec["sizes"]}
    times = {str(n): [] for n in spec["sizes"]}
    for _ in range(spec["rounds"]):
        for n in spec["sizes"]:
            reps = max(1, 2000 // (4 * n))
            p, r = P[:n], R[:n]
            start = time.perf_counter()
            for _ in range(reps):
                compute(p, r, use_stemmer=True)
            times[str(n)].append((time.perf_counter() - start) / reps)
    return {"times": times, "results": results, "version": rouge_exact.__version__,
            "file": rouge_exact.__file__}


def child_evaluate(spec):
    import warnings

    warnings.simplefilter("ignore")  # evaluate's deprecations
    import evaluate

    P, R = pairs(FIRST_PAIRS)
    start = time.perf_counter()
    metric = evaluate.load(spec["script"])
    result = metric.compute(predictions=P, references=R, use_stemmer=True)
    return {"seconds": time.perf_counter() - start, "result": result}


def child_empty(spec):
    import rouge_exact

    compute = rouge_exact.compute  # (0.7.0 imports the API here: not the call's time)
    P, R = pairs(FIRST_PAIRS)
    start = time.perf_counter()
    result = compute(P, R, use_stemmer=True)
    return {"seconds": time.perf_counter() - start, "result": result}


def _kill_children():
    """The compile process a first call started: killed, so that it takes no CPU from the
    next run (and its cache folder can go)."""
    me = str(os.getpid())
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = f.read().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue
        if ppid == me:
            try:
                os.kill(int(pid), signal.SIGKILL)
                os.waitpid(int(pid), 0)
            except (OSError, ChildProcessError):
                pass


def child_main(spec_json):
    spec = json.loads(spec_json)
    out = {"warm": child_warm, "evaluate": child_evaluate, "empty": child_empty}[spec["task"]](
        spec)
    sys.stdout.write("\nRESULT " + json.dumps(out) + "\n")
    sys.stdout.flush()
    _kill_children()
    os._exit(0)  # (nothing left to wait for: no compile process, no atexit)


# ---- parent ----------------------------------------------------------------------------------

class Version:
    def __init__(self, name, work, package, script):
        """package: the folder imported as rouge_exact (0.6.0: the checkout's root)."""
        self.name = name
        self.folder = os.path.join(work, name)
        self.path = os.path.join(self.folder, "path")
        os.makedirs(self.path)
        link = os.path.join(self.path, "rouge_exact")
        if os.path.abspath(package) != os.path.abspath(link):
            os.symlink(os.path.abspath(package), link)
        self.script = script
        self.env = dict(os.environ)
        # PYTHONDONTWRITEBYTECODE too: an installed package has its bytecode, written here by
        # the priming runs (else every process would compile the modules' source anew)
        for name_ in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "PYTHONPATH",
                      "PYTHONDONTWRITEBYTECODE"):
            self.env.pop(name_, None)
        self.env.update({
            "PYTHONPATH": self.path,
            "ROUGE_METRIC_CACHE_DIR": os.path.join(self.folder, "kernels"),
            "HF_MODULES_CACHE": os.path.join(self.folder, "modules"),
            "HF_HOME": os.path.join(work, "hf-home"),
            "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "PYTHONHASHSEED": "0", "TQDM_DISABLE": "1",
        })


def run(args, argv, env, what):
    """(wall seconds, CompletedProcess) of a fresh process; exits when it fails."""
    start = time.perf_counter()
    done = subprocess.run([args.python, *argv], env=env, cwd=args.work, capture_output=True,
                          text=True, timeout=1800)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"layout.py: {what} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return seconds, done


def child(args, version, spec, env=None):
    _, done = run(args, [THIS, "--child", json.dumps(spec)], env or version.env,
                  f"{version.name}: {spec['task']}")
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def same(what, old, new):
    if json.dumps(old, sort_keys=True) != json.dumps(new, sort_keys=True):
        sys.exit(f"layout.py: the versions differ on {what}:\n  old: "
                 f"{json.dumps(old, sort_keys=True)[:1500]}\n  new: "
                 f"{json.dumps(new, sort_keys=True)[:1500]}")


def fmt(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} us"


def log(message):
    sys.stderr.write(f"[layout {time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


def prepare(args):
    """The two versions, in args.work: old (a checkout, or a git archive of --old-rev) and a
    copy of this checkout's package and thin script."""
    if os.path.exists(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    old_root = args.old
    if old_root is None:
        old_root = os.path.join(args.work, "old-src")
        os.makedirs(old_root)
        archive = subprocess.run(["git", "-C", ROOT, "archive", args.old_rev],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", old_root], input=archive, check=True)
    old_root = os.path.abspath(old_root)
    for name in ("__init__.py", "rouge_cli.py", "rouge_metric.py"):
        if not os.path.exists(os.path.join(old_root, name)):
            sys.exit(f"--old: {old_root} has no {name}: not a checkout of the flat layout "
                     "(0.6.0)")
    old = Version("old", args.work, old_root, os.path.join(old_root, "rouge_metric.py"))
    new_src = os.path.join(args.work, "new-src")
    shutil.copytree(os.path.join(ROOT, "rouge_exact"), os.path.join(new_src, "rouge_exact"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy2(os.path.join(ROOT, "rouge_metric.py"), new_src)
    new = Version("new", args.work, os.path.join(new_src, "rouge_exact"),
                  os.path.join(new_src, "rouge_metric.py"))
    return old, new


def prime(args, version):
    """Kernels compiled into the version's cache, evaluate's module cache filled, bytecode
    written: what the warm workloads find. Returns the version string and where it is from."""
    _, done = run(args, ["-c", "import rouge_exact; rouge_exact.compile_kernels(wait=True); "
                         "print(rouge_exact.__version__, rouge_exact.__file__)"],
                  version.env, f"{version.name}: compile_kernels")
    child(args, version, {"task": "evaluate", "script": version.script})
    run(args, ["-c", HELP[version.name], "--help"], version.env, f"{version.name}: --help")
    return done.stdout.split()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--old", help="a checkout of 0.6.0 (default: git archive of --old-rev)")
    ap.add_argument("--old-rev", default=OLD_REV, help="default %(default)s (0.6.0)")
    ap.add_argument("--quick", action="store_true",
                    help="3 runs a workload, 3 warm process pairs of 3 rounds")
    ap.add_argument("--runs", type=int, help="fresh processes per version and workload "
                    "(default 9; --quick 3)")
    ap.add_argument("--processes", type=int,
                    help="warm: process pairs (default 8; --quick 3)")
    ap.add_argument("--rounds", type=int, help="warm: rounds per process (default 5; --quick 3)")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "rouge-layout"),
                    help="scratch folder, emptied first (default %(default)s)")
    ap.add_argument("--python", default=sys.executable,
                    help="the children's interpreter (default: this one; it needs numpy, numba, "
                         "nltk and evaluate)")
    ap.add_argument("--out", help="also write the table to this file")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child_main(args.child)
        return 0
    runs = args.runs or (3 if args.quick else 9)
    processes = args.processes or (3 if args.quick else 8)
    rounds = args.rounds or (3 if args.quick else 5)
    args.work = os.path.abspath(args.work)
    start_load, started = os.getloadavg()[0], time.monotonic()

    log(f"preparing the two versions in {args.work}")
    old, new = prepare(args)
    versions = (old, new)
    about = {}
    for v in versions:
        log(f"{v.name}: compiling the kernels, filling the caches")
        about[v.name] = prime(args, v)
        log(f"{v.name}: rouge_exact {' from '.join(about[v.name])}")
    times = {}  # (workload, version) -> [seconds]
    counts = {}  # workload -> what "runs" says

    log(f"warm compute(): {processes} process pairs of {rounds} rounds")
    results = {}
    for i in range(processes):
        for v in versions:
            got = child(args, v, {"task": "warm", "sizes": list(WARM_SIZES), "rounds": rounds})
            for n in WARM_SIZES:
                times.setdefault((f"warm {n}", v.name), []).extend(got["times"][str(n)])
                results.setdefault(v.name, got["results"])
                same(f"warm {n} pairs (process {i + 1})", results[v.name][str(n)],
                     got["results"][str(n)])
    for n in WARM_SIZES:
        same(f"warm compute() of {n} pairs", results["old"][str(n)], results["new"][str(n)])
        counts[f"warm {n}"] = f"{processes} processes x {rounds} rounds, each version"

    log(f"fresh processes: {runs} runs a workload")
    firsts = {}
    for i in range(runs):
        for v in versions:
            seconds, _ = run(args, ["-c", "import rouge_exact"], v.env, f"{v.name}: import")
            times.setdefault(("import", v.name), []).append(seconds)
        for v in versions:
            seconds, done = run(args, ["-c", HELP[v.name], "--help"], v.env,
                                f"{v.name}: --help")
            if "usage" not in done.stdout.lower():
                sys.exit(f"layout.py: {v.name}: --help printed no usage:\n{done.stdout[:500]}")
            times.setdefault(("help", v.name), []).append(seconds)
        for v in versions:
            got = child(args, v, {"task": "evaluate", "script": v.script})
            times.setdefault(("evaluate", v.name), []).append(got["seconds"])
            firsts.setdefault(("evaluate", v.name), got["result"])
            same("evaluate.load + first call (a run to the next)",
                 firsts["evaluate", v.name], got["result"])
        for v in versions:
            cache = tempfile.mkdtemp(prefix=f"empty-{v.name}-", dir=args.work)
            try:
                got = child(args, v, {"task": "empty"},
                            dict(v.env, ROUGE_METRIC_CACHE_DIR=cache))
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            times.setdefault(("empty", v.name), []).append(got["seconds"])
            firsts.setdefault(("empty", v.name), got["result"])
            same("the first call on an empty kernel cache (a run to the next)",
                 firsts["empty", v.name], got["result"])
        log(f"run {i + 1}/{runs} done")
    for what in ("evaluate", "empty"):
        same(what, firsts[what, "old"], firsts[what, "new"])
    for what in ("import", "help", "evaluate", "empty"):
        counts[what] = f"{runs} processes, each version"

    labels = {f"warm {n}": f"compute(), {n:,} pair{'s' if n > 1 else ''}, warm"
              for n in WARM_SIZES}
    labels.update({
        "import": "`import rouge_exact` (a fresh process: start, import, exit)",
        "help": "the command's `--help` (a fresh process)",
        "evaluate": f"`evaluate.load` + first compute() ({FIRST_PAIRS} pairs), warm caches",
        "empty": f"first compute() ({FIRST_PAIRS} pairs) on an empty kernel cache "
                 "(numpy twins; compiling in the background)",
    })
    lines = [f"| workload | {about['old'][0]} (old) | {about['new'][0]} (new) | new / old | "
             "runs |", "|---|---|---|---|---|"]
    for key, label in labels.items():
        a, b = (statistics.median(times[key, v]) for v in ("old", "new"))
        lines.append(f"| {label} | {fmt(a)} | {fmt(b)} | {b / a:.2f}x | {counts[key]} |")
    python = subprocess.run([args.python, "-c", "import platform; print(platform."
                             "python_version())"], capture_output=True, text=True).stdout.strip()
    head = (f"Medians; default rouge types, use_stemmer=True, pairs of tests/data/realsumm.jsonl; "
            f"the same numbers from both versions on every scoring workload. Python {python}, "
            f"{len(os.sched_getaffinity(0))} cores, load average {start_load:.1f} at the "
            f"start and {os.getloadavg()[0]:.1f} at the end; "
            f"{(time.monotonic() - started) / 60:.1f} min"
            f"{' (--quick)' if args.quick else ''}.")
    table = head + "\n\n" + "\n".join(lines) + "\n"
    print(table)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
