#!/usr/bin/env python3
"""Whole processes: the command and the first call against their peers, each run a fresh
process, ours and the peer taking turns (ours, peer, ours, peer, ...), medians, a markdown
table with each target and whether it holds.

    python3 benchmarks/process.py                        # the default rows (1.5-5 min on 2 busy cores)
    python3 benchmarks/process.py --only 8-warm,help --runs 9
    python3 benchmarks/process.py --big --out /tmp/process.md    # and the 100,000-pair row
    python3 benchmarks/process.py --ours-command .venv/bin/rouge-exact \
        --ours-python .venv/bin/python                   # ours from the project's venv

The parent uses the standard library only. Children run with --python (default
benchmarks/.venv/bin/python: rouge-score 0.1.2, rouge-score-rs 0.2.1, evaluate), in the
checkout's root with the root first on PYTHONPATH, so both sides use that interpreter and
ours is the checkout's rouge_exact, run as `PYTHON -m rouge_exact ...` (the same as the
`rouge-exact` command). --ours-python moves ours (the command, evaluate's row) to another
interpreter, --ours-command replaces `PYTHON -m rouge_exact` by an executable. The peers'
texts are PEER_ROUGE_SCORE and PEER_RS below, run as `PYTHON -c TEXT FILE`.

Rows (--only takes their names; every pair is stemmed, types rouge1, rouge2, rougeL, rougeLsum):
  8-warm, 8-empty  examples/pairs.jsonl: `rouge_exact --jsonl FILE --use-stemmer` (README's
           command, default interval) on the warm kernel cache (ROUGE_METRIC_CACHE_DIR or
           --kernel-cache, `--compile`d before anything is timed) / on an empty one (a new
           mkdtemp folder a run, removed after), against rouge_score (RougeScorer +
           BootstrapAggregator, as evaluate's rouge): ours <= 0.5x its time; and the peak
           memory of ours (ru_maxrss from os.wait4: the process and the children it waited
           for) <= 100 MB (10^6 bytes)
  10k      10,000 pairs (a file built once from tests/data/realsumm.jsonl, rows drawn with
           replacement, seeded): the command (default interval) against rouge-score-rs's
           score_batch (no interval): ours <= 2x its time; and against rouge_score: ours >=
           5x faster (--slow-runs runs of it only, default 1: 34-65 s a run on 2 busy cores)
  100k     (--big, or --only 100k) 100,000 pairs the same way, against score_batch: ours
           >= 1.5x faster (one run a side ~15 s)
  help     `rouge_exact --help` <= 0.1 s (`PYTHON -c pass` shown for reference)
  evaluate one child a run, a new HF_MODULES_CACHE each (offline): it times `import
           evaluate`, then evaluate.load(<checkout>/rouge_metric.py) + compute() of the 8
           pairs (warm kernel cache): the latter <= 0.3 s
  vocab    one child: --runs calls of rouge_exact.compute() and of score_batch on the 10,000
           pairs, alternated, each call on texts whose every word ([A-Za-z0-9]+) is mapped to
           a new random word of (about) its length that the process has never seen (seeded;
           a map a call); only the call is timed: ours >= 2x faster
Ours must give the peer's mean rouge1 F (to the 5 decimals the command prints, rouge_score's
and rs's score per pair): the script stops (exit status 1) if it does not, or if a child
fails. A FAIL exits 1 only with --strict.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THIS = os.path.abspath(__file__)
DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")  # REALSumm: tests/data/DATA.md
EXAMPLES = os.path.join(ROOT, "examples", "pairs.jsonl")
SCRIPT = os.path.join(ROOT, "rouge_metric.py")
BENCH_PYTHON = os.path.join(HERE, ".venv", "bin", "python")
SEED = 20261129
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
ROWS = ("8-warm", "8-empty", "10k", "100k", "help", "evaluate", "vocab")
MB = 10**6

# The peers: what a user of rouge_score / rouge-score-rs writes to score a JSONL file. Both
# print the mean rouge1 F, which ours must match.
PEER_ROUGE_SCORE = """\
import json, sys
from rouge_score import rouge_scorer, scoring
with open(sys.argv[1], encoding="utf-8") as f:
    rows = [json.loads(line) for line in f]
scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
aggregator = scoring.BootstrapAggregator()
f1 = 0.0
for row in rows:
    refs = row["references"]
    refs = [refs] if isinstance(refs, str) else refs
    scores = (scorer.score(refs[0], row["prediction"]) if len(refs) == 1  # as evaluate's
              else scorer.score_multi(refs, row["prediction"]))
    aggregator.add_scores(scores)
    f1 += scores["rouge1"].fmeasure
aggregator.aggregate()
print("RESULT " + json.dumps({"count": len(rows), "rouge1_f": f1 / len(rows)}))
"""
PEER_RS = """\
import json, sys
from rouge_score_rs import rouge_scorer
with open(sys.argv[1], encoding="utf-8") as f:
    rows = [json.loads(line) for line in f]
scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
refs = [r["references"] if isinstance(r["references"], str) else r["references"][0]
        for r in rows]
scores = scorer.score_batch(refs, [r["prediction"] for r in rows])
f1 = sum(s["rouge1"].fmeasure for s in scores) / len(scores)
print("RESULT " + json.dumps({"count": len(rows), "rouge1_f": f1}))
"""
# evaluate's row: both times in one child (import evaluate, then load + the first call)
EVALUATE_CHILD = """\
import json, sys, time
with open(sys.argv[2], encoding="utf-8") as f:
    rows = [json.loads(line) for line in f]
start = time.perf_counter()
import warnings
warnings.simplefilter("ignore")  # evaluate's deprecations
import evaluate
imported = time.perf_counter()
metric = evaluate.load(sys.argv[1])
result = metric.compute(predictions=[r["prediction"] for r in rows],
                        references=[r["references"] for r in rows], use_stemmer=True)
done = time.perf_counter()
print("RESULT " + json.dumps({"import": imported - start, "load_call": done - imported,
                              "rouge1_f": float(result["rouge1"])}))
"""


# ---- the vocab row's child (runs with --python: rouge_exact and rouge_score_rs) -------------

WORD = re.compile(r"[A-Za-z0-9]+")
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def read_pairs(path):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return [r["prediction"] for r in rows], [r["references"][0] for r in rows]


def fresh_vocabulary(texts, rng, used):
    """texts with every word replaced by a new one (lowercase letters, the word's length, 3 at
    least, longer when the draws keep hitting used words); used: every word the process has
    seen, added to. A word keeps its capital; one word, one replacement, within the call."""
    table = {}

    def replace(match):
        word = match.group(0)
        key = word.lower()
        new = table.get(key)
        if new is None:
            size, tries = max(len(key), 3), 0
            new = "".join(rng.choices(LETTERS, k=size))
            while new in used:  # short words run out: grow after a few draws
                tries += 1
                size += tries % 8 == 0
                new = "".join(rng.choices(LETTERS, k=size))
            used.add(new)
            table[key] = new
        return new.capitalize() if word[0].isupper() else new

    return [WORD.sub(replace, text) for text in texts]


def child_vocab(spec):
    """Seconds of each compute() and score_batch call on a vocabulary of its own."""
    import warnings

    warnings.simplefilter("ignore")
    import rouge_exact
    from rouge_score_rs import rouge_scorer

    predictions, references = read_pairs(spec["file"])
    used = {w.lower() for text in predictions + references for w in WORD.findall(text)}
    rng = random.Random(spec["seed"])

    def fresh(n):
        texts = fresh_vocabulary(predictions[:n] + references[:n], rng, used)
        return texts[:n], texts[n:]

    rouge_exact.compile_kernels(wait=True)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    # one small call each first, on the same new words (kernels loaded, rs's thread pool
    # made), the two results compared
    p, r = fresh(64)
    check = [rouge_exact.compute(predictions=p, references=r, use_stemmer=True)["rouge1"],
             statistics.fmean(s["rouge1"].fmeasure for s in scorer.score_batch(r, p))]
    ours, rs, n = [], [], len(predictions)
    for _ in range(spec["runs"]):
        p, r = fresh(n)
        start = time.perf_counter()
        rouge_exact.compute(predictions=p, references=r, use_stemmer=True)
        ours.append(time.perf_counter() - start)
        p, r = fresh(n)
        start = time.perf_counter()
        scores = scorer.score_batch(r, p)
        rs.append(time.perf_counter() - start)
    return {"ours": ours, "peer": rs, "check": check, "pairs": n, "scored": len(scores),
            "words": len(used)}


# ---- the parent: standard library only ------------------------------------------------------

class Failed(Exception):
    pass


def spawn(argv, env, timeout):
    """(wall seconds, peak RSS bytes, stdout) of a fresh process in its own session; whatever
    it leaves running (a kernel compile) is killed after it, so that it loads no next run."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=ROOT,
                                start_new_session=True)
        timer = threading.Timer(timeout, _kill_group, (proc.pid,))
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        _kill_group(proc.pid)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        if proc.returncode != 0:
            raise Failed(f"{' '.join(argv)[:300]} failed (exit {proc.returncode}):\n"
                         f"{err.read().decode('utf-8', 'replace')[-3000:]}")
    return seconds, usage.ru_maxrss * 1024, stdout


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def result_line(stdout):
    lines = [x for x in stdout.splitlines() if x.startswith("RESULT ")]
    if not lines:
        raise Failed(f"no RESULT line in:\n{stdout[-2000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def command_rouge1(stdout):
    """(count, rouge1's F mid) of the command's table, or None where it does not read."""
    count = re.search(r"^count: (\d+)$", stdout, re.M)
    row = re.search(r"^rouge1\s+(\S+)\s+\S+\s+(\S+)\s+\S+\s+(\S+)\s", stdout, re.M)
    if not count or not row:
        return None
    return int(count.group(1)), float(row.group(3))


class Bench:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.ours_python = args.ours_python or args.python
        self.ours = ([args.ours_command] if args.ours_command
                     else [self.ours_python, "-m", "rouge_exact"])
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # an install has its bytecode
        env.update(PYTHONPATH=os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")])),
                   HF_HOME=os.path.join(work, "hf-home"), HF_HUB_OFFLINE="1",
                   HF_EVALUATE_OFFLINE="1", HF_DATASETS_OFFLINE="1", TQDM_DISABLE="1")
        if args.kernel_cache:
            env["ROUGE_METRIC_CACHE_DIR"] = os.path.abspath(args.kernel_cache)
        self.env = env
        self.checks = []

    def time(self, argv, env=None, timeout=1800):
        return spawn(argv, env or self.env, timeout)

    def check(self, what, ours, peer):
        """ours and the peer's (count, mean rouge1 F): equal to the command's 5 decimals."""
        if ours is None:
            self.checks.append(f"{what}: the command's output did not read; not checked")
            return
        if ours[0] != peer["count"] or abs(ours[1] - peer["rouge1_f"]) > 0.5e-5 + 1e-12:
            raise Failed(f"{what}: ours gives count {ours[0]}, rouge1 F {ours[1]}; the peer "
                         f"{peer['count']}, {peer['rouge1_f']:.7f}")
        self.checks.append(f"{what}: count {ours[0]}, rouge1 F {ours[1]:.5f} on both sides")


def pairs_file(work, n):
    """n pairs drawn with replacement from REALSumm (seeded), written once to work."""
    path = os.path.join(work, f"pairs{n}.jsonl")
    if not os.path.exists(path):
        with open(DATA, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f]
        rng = random.Random(SEED)
        with open(path, "w", encoding="utf-8") as f:
            for _ in range(n):
                row = rows[rng.randrange(len(rows))]
                f.write(json.dumps({"prediction": row["prediction"],
                                    "references": row["references"][:1]}) + "\n")
    return path


def log(message):
    sys.stderr.write(f"[process {time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


def alternate(bench, runs, ours, peer, what):
    """runs of ours() and peer(), taking turns; each returns (seconds, rss, stdout)."""
    a, b = [], []
    for i in range(runs):
        a.append(ours())
        b.append(peer())
        log(f"{what} {i + 1}/{runs}: ours {a[-1][0]:.3f} s, peer {b[-1][0]:.3f} s")
    return a, b


def row_8(bench, empty):
    """The README's 8 pairs: the command (warm or empty kernel cache) against rouge_score."""
    args = bench.args

    def ours():
        if not empty:
            return bench.time([*bench.ours, "--jsonl", EXAMPLES, "--use-stemmer"])
        folder = tempfile.mkdtemp(prefix="kernels-", dir=bench.work)
        try:
            return bench.time([*bench.ours, "--jsonl", EXAMPLES, "--use-stemmer"],
                              dict(bench.env, ROUGE_METRIC_CACHE_DIR=folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def peer():
        return bench.time([args.python, "-c", PEER_ROUGE_SCORE, EXAMPLES])

    name = "8 pairs, " + ("empty kernel cache" if empty else "warm kernel cache")
    a, b = alternate(bench, args.runs, ours, peer, name)
    bench.check(name, command_rouge1(a[0][2]), result_line(b[0][2]))
    return [
        timed_row(f"{name}: the command vs rouge_score", a, b, "rouge_score", 0.5,
                  "ours <= 0.5x"),
        memory_row(f"{name}: peak memory", a, b, "rouge_score"),
    ]


def row_pairs(bench, n, rouge_score_runs):
    """n pairs: the command against rs's score_batch (and rouge_score: rouge_score_runs)."""
    args = bench.args
    path = pairs_file(bench.work, n)

    def ours():
        return bench.time([*bench.ours, "--jsonl", path, "--use-stemmer"])

    def rs():
        return bench.time([args.python, "-c", PEER_RS, path])

    a, b = alternate(bench, args.runs, ours, rs, f"{n:,} pairs vs rs")
    bench.check(f"{n:,} pairs vs rs", command_rouge1(a[0][2]), result_line(b[0][2]))
    if n >= 100_000:
        rows = [timed_row(f"{n:,} pairs: the command vs rs score_batch", a, b, "rs",
                          1 / 1.5, "ours >= 1.5x faster")]
    else:
        rows = [timed_row(f"{n:,} pairs: the command vs rs score_batch", a, b, "rs", 2.0,
                          "ours <= 2x")]
    if rouge_score_runs:
        c, d = alternate(bench, rouge_score_runs, ours,
                         lambda: bench.time([args.python, "-c", PEER_ROUGE_SCORE, path]),
                         f"{n:,} pairs vs rouge_score")
        bench.check(f"{n:,} pairs vs rouge_score", command_rouge1(c[0][2]),
                    result_line(d[0][2]))
        rows.append(timed_row(f"{n:,} pairs: the command vs rouge_score ({len(d)} run"
                              f"{'s' * (len(d) > 1)} of it)", a + c, d,
                              "rouge_score", 1 / 5, "ours >= 5x faster"))
    return rows


def row_help(bench):
    def ours():
        return bench.time([*bench.ours, "--help"])

    def peer():
        return bench.time([bench.ours_python, "-c", "pass"])

    a, b = alternate(bench, bench.args.runs, ours, peer, "--help")
    ok = statistics.median(x[0] for x in a) <= 0.1
    return [("`--help` (a fresh process)", spread(a), f"python -c pass {spread(b)}", "",
             "<= 0.1 s", ok)]


def row_evaluate(bench):
    """evaluate.load + the first call, beyond `import evaluate`, in one child a run."""
    times = []
    for i in range(bench.args.runs):
        modules = tempfile.mkdtemp(prefix="modules-", dir=bench.work)
        try:
            _, _, stdout = bench.time([bench.ours_python, "-c", EVALUATE_CHILD, SCRIPT,
                                       EXAMPLES], dict(bench.env, HF_MODULES_CACHE=modules))
        finally:
            shutil.rmtree(modules, ignore_errors=True)
        times.append(result_line(stdout))
        log(f"evaluate {i + 1}/{bench.args.runs}: import {times[-1]['import']:.3f} s, "
            f"load + call {times[-1]['load_call']:.3f} s")
    load = [(t["load_call"],) for t in times]
    imp = [(t["import"],) for t in times]
    ok = statistics.median(t["load_call"] for t in times) <= 0.3
    return [("evaluate.load + first call, 8 pairs (beyond `import evaluate`)", spread(load),
             f"import evaluate {spread(imp)}", "", "<= 0.3 s", ok)]


def row_vocab(bench):
    """The vocab row: one child on --python (it needs rouge_exact and rouge_score_rs)."""
    spec = {"file": pairs_file(bench.work, 10_000), "runs": bench.args.runs, "seed": SEED}
    log(f"vocab: one process, {bench.args.runs} calls a side")
    _, _, stdout = bench.time([bench.args.python, THIS, "--child", json.dumps(spec)])
    out = result_line(stdout)
    if out["pairs"] != 10_000 or out["scored"] != 10_000:
        raise Failed(f"vocab: {out['pairs']} pairs, rs scored {out['scored']}, not 10,000")
    ours_f, rs_f = out["check"]
    if abs(ours_f - rs_f) > 1e-9:
        raise Failed(f"vocab: on 64 pairs of new words ours gives rouge1 F {ours_f}, rs {rs_f}")
    bench.checks.append(f"vocab: 64 pairs of new words, rouge1 F {ours_f:.5f} on both sides; "
                        f"{out['words']:,} words made or seen in the process")
    a, b = [(t,) for t in out["ours"]], [(t,) for t in out["peer"]]
    return [timed_row("10,000 pairs of new words a call, in one process: compute() vs rs "
                      "score_batch (the call only)", a, b, "rs", 0.5, "ours >= 2x faster")]


def spread(runs):
    values = sorted(x[0] for x in runs)
    return f"{statistics.median(values):.3f} s ({values[0]:.3f}-{values[-1]:.3f})"


def timed_row(what, ours, peer, peer_name, limit, target):
    ratio = statistics.median(x[0] for x in ours) / statistics.median(x[0] for x in peer)
    return (what, spread(ours), f"{peer_name} {spread(peer)}", f"{ratio:.2f}x", target,
            ratio <= limit)


def memory_row(what, ours, peer, peer_name):
    a = statistics.median(x[1] for x in ours) / MB
    b = statistics.median(x[1] for x in peer) / MB
    return (what, f"{a:.0f} MB (max {max(x[1] for x in ours) / MB:.0f})",
            f"{peer_name} {b:.0f} MB", f"{a / b:.2f}x", "<= 100 MB", a <= 100)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def version_of(python):
    done = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"],
                          capture_output=True, text=True)
    return done.stdout.strip() or "?"


def measure(bench, only):
    """Every row asked for, in order: a list of (what, ours, peer, ratio, target, ok)."""
    rows = []
    if "8-warm" in only:
        rows += row_8(bench, empty=False)
    if "8-empty" in only:
        rows += row_8(bench, empty=True)
    if "10k" in only:
        rows += row_pairs(bench, 10_000, bench.args.slow_runs)
    if "100k" in only:
        rows += row_pairs(bench, 100_000, 0)
    if "help" in only:
        rows += row_help(bench)
    if "evaluate" in only:
        rows += row_evaluate(bench)
    if "vocab" in only:
        rows += row_vocab(bench)
    return rows


def table(args, bench, rows, load_before):
    ours_python = (f" (evaluate's row: {bench.ours_python})" if args.ours_command
                   and bench.ours_python != args.python else "")
    lines = [
        "`" + " ".join(["python3 benchmarks/process.py", *sys.argv[1:]]) + "`",
        "",
        f"{os.cpu_count()} CPUs, load average {load_before} before, {loadavg()} after; "
        f"children: {args.python} (Python {version_of(args.python)}), ours: "
        f"{' '.join(bench.ours)}{ours_python}; median (min-max) of {args.runs} runs a side, fresh "
        "processes taking turns (the vocab row: calls in one process)",
        "",
        "| row | ours | peer | ours / peer | target | holds |",
        "|---|---|---|---|---|---|",
    ]
    for what, ours, peer, ratio, target, ok in rows:
        lines.append(f"| {what} | {ours} | {peer} | {ratio or '-'} | {target} | "
                     f"{'PASS' if ok else 'FAIL'} |")
    lines += [""] + [f"checked: {c}" for c in bench.checks]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--runs", type=int, default=7, help="runs a side (default 7)")
    ap.add_argument("--only", help="rows, separated by commas: " + ",".join(ROWS))
    ap.add_argument("--big", action="store_true", help="the 100,000-pair row too")
    ap.add_argument("--slow-runs", type=int, default=1,
                    help="runs of rouge_score on 10,000 pairs (default 1; 0: none)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target fails")
    ap.add_argument("--out", help="write the table to this file too")
    ap.add_argument("--python", default=BENCH_PYTHON if os.path.exists(BENCH_PYTHON)
                    else sys.executable, help="the children's interpreter (default "
                    "benchmarks/.venv/bin/python)")
    ap.add_argument("--ours-python", help="ours' interpreter (default --python)")
    ap.add_argument("--ours-command", help="an executable run instead of `PYTHON -m "
                    "rouge_exact` (e.g. .venv/bin/rouge-exact)")
    ap.add_argument("--kernel-cache", help="the warm kernel cache (default "
                    "ROUGE_METRIC_CACHE_DIR, else the package's own)")
    ap.add_argument("--work", help="a folder for the pairs files (default a temporary one)")
    args = ap.parse_args()
    if args.child:
        print("RESULT " + json.dumps(child_vocab(json.loads(args.child))))
        return
    only = args.only.split(",") if args.only else [r for r in ROWS if r != "100k" or args.big]
    unknown = sorted(set(only) - set(ROWS))
    if unknown or args.runs < 1 or args.slow_runs < 0:
        ap.error(f"--only: {', '.join(unknown)} not a row (allowed: {', '.join(ROWS)})"
                 if unknown else "--runs must be >= 1 and --slow-runs >= 0")
    load_before = loadavg()
    work = args.work or tempfile.mkdtemp(prefix="rouge-process-")
    os.makedirs(work, exist_ok=True)
    try:
        bench = Bench(args, work)
        log("kernels: --compile into the warm cache (instant when it is compiled)")
        bench.time([*bench.ours, "--compile"])
        rows = measure(bench, only)
    except Failed as error:
        sys.exit(f"process.py: {error}")
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    text = table(args, bench, rows, load_before)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    if args.strict and not all(row[-1] for row in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
