#!/usr/bin/env python3
"""Benchmarks of the rouge-exact metric against its peers; see benchmarks/README.md.

    python3 benchmarks/run.py            # full run (about 15-25 min on 2 cores), writes RESULTS.md
    python3 benchmarks/run.py --quick    # a smoke run of every target (a few minutes)

The parent process (this file, standard library only, any python3 >= 3.8) builds the benchmark
venv (benchmarks/.venv, from benchmarks/requirements.txt), the Perl oracle (tests/rouge155),
a snapshot of the package (rouge_exact/ and the thin rouge_metric.py, first on the children's
PYTHONPATH) and the workloads, then runs every measurement in a fresh child
process of the venv's python (this same file with ``--child SPEC``), contenders alternating
(A B C A B C ...). A child reports its timings (time.perf_counter around the measured call only)
and its peak RSS (resource.getrusage) as one JSON line.
"""

import argparse
import hashlib
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THIS = os.path.abspath(__file__)
VENV = os.path.join(HERE, ".venv")
VENV_PY = os.path.join(VENV, "bin", "python")
REQUIREMENTS = os.path.join(HERE, "requirements.txt")
DEFAULT_DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")  # REALSumm: tests/data/DATA.md
ORACLE_DIR = os.path.join(ROOT, "tests", "rouge155")  # setup.sh and the driver perl_rouge.py

SEED = 20261122
TOKEN = re.compile(r"[a-z0-9]+")
THREADS = 2  # rouge-score-rs's RAYON_NUM_THREADS; numba uses all cores (2 here) by default

T1_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
T2_TYPES = ["rougeL", "rougeLsum"]
T3_TYPES = ["rougeW-1.2", "rougeS4", "rougeSU4"]
T4_TYPES = ["rouge1", "rouge2", "rougeL"]
PERL_T3 = "-x -w 1.2 -2 4 -U -m -c 95 -r 1000 -f A -p 0.5 -t 0 -a -d"
PERL_T4 = "-n 2 -m -c 95 -r 1000 -f A -p 0.5 -t 0 -a -d"
PERL_NAMES = {"ROUGE-1": "rouge1", "ROUGE-2": "rouge2", "ROUGE-L": "rougeL",
              "ROUGE-W-1.2": "rougeW-1.2", "ROUGE-S4": "rougeS4", "ROUGE-SU4": "rougeSU4"}


# ================================================================================================
# Child side: runs inside benchmarks/.venv; one measurement per process.
# ================================================================================================

def _maxrss_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _cpu():
    """CPU seconds (user + system) of this process so far, all threads."""
    import resource
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


class _Clock:
    """times[name] = wall seconds (time.perf_counter), cpu[name] = CPU seconds, of a block."""

    def __init__(self):
        self.times, self.cpu = {}, {}

    def __call__(self, name):
        clock = self

        class _Block:
            def __enter__(self):
                from time import perf_counter
                self.t, self.c = perf_counter(), _cpu()

            def __exit__(self, *exc):
                from time import perf_counter
                clock.times[name] = perf_counter() - self.t
                clock.cpu[name] = _cpu() - self.c
        return _Block()


def _read_pairs(path, limit=None):
    preds, refs = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            preds.append(row["prediction"])
            refs.append(row["references"][0])
            if limit is not None and len(preds) >= limit:
                break
    return preds, refs


def _dump(path, per_type):
    with open(path, "w") as fh:
        json.dump(per_type, fh)


def child_ours(spec):
    """Our metric through evaluate: import, evaluate.load, then `calls` compute() calls."""
    import warnings
    warnings.simplefilter("ignore")  # the metric's RougeWarnings, evaluate's deprecations
    clock = _Clock()
    with clock("import"):
        import evaluate
    with clock("load"):
        metric = evaluate.load(spec["metric"])
    preds, refs = _read_pairs(spec["data"], spec.get("limit"))
    kwargs = spec["kwargs"]
    rss_before = None
    if spec.get("warmup_tiny"):  # memory mode: kernels loaded on a tiny pair first
        metric.compute(predictions=["a b c\nd e"], references=["a b d\ne c"], **kwargs)
        rss_before = _maxrss_mb()
    result = None
    for i in range(spec.get("calls", 2)):
        with clock("call%d" % (i + 1)):
            result = metric.compute(predictions=preds, references=refs, **kwargs)
    if spec.get("dump"):
        _dump(spec["dump"], {k: v for k, v in result.items() if isinstance(v, list)})
        result = None
    return {"times": clock.times, "cpu": clock.cpu, "rss_before_mb": rss_before,
            "info": {"result": result} if result is not None else {}}


def child_rs(spec):
    """rouge-score-rs: score_batch (rayon threads) or a per-pair loop; then aggregation."""
    import numpy as np
    from rouge_score_rs import rouge_scorer, scoring
    preds, refs = _read_pairs(spec["data"], spec.get("limit"))
    scorer = rouge_scorer.RougeScorer(spec["types"], use_stemmer=spec["stemmer"])
    rss_before = None
    if spec.get("warmup_tiny"):
        scorer.score_batch(["a b d\ne c"], ["a b c\nd e"])
        rss_before = _maxrss_mb()
    clock = _Clock()
    res = None
    for i in range(spec.get("calls", 2)):
        with clock("call%d" % (i + 1)):
            if spec["mode"] == "batch":
                res = scorer.score_batch(refs, preds)
            else:
                res = [scorer.score(r, p) for r, p in zip(refs, preds)]
    if spec.get("aggregate"):
        with clock("mean"):
            {k: float(np.mean([s[k].fmeasure for s in res])) for k in spec["types"]}
        np.random.seed(0)
        with clock("bootstrap"):
            agg = scoring.BootstrapAggregator()
            for s in res:
                agg.add_scores(s)
            agg.aggregate()
    if spec.get("dump"):
        _dump(spec["dump"], {k: [s[k].fmeasure for s in res] for k in spec["types"]})
    return {"times": clock.times, "cpu": clock.cpu, "rss_before_mb": rss_before}


def child_rouge_score(spec):
    """rouge_score 0.1.2 as evaluate's rouge runs it: score() per pair + BootstrapAggregator."""
    import numpy as np
    from rouge_score import rouge_scorer, scoring
    preds, refs = _read_pairs(spec["data"], spec.get("limit"))
    scorer = rouge_scorer.RougeScorer(spec["types"], use_stemmer=spec["stemmer"])
    rss_before = None
    if spec.get("warmup_tiny"):
        scorer.score("a b d\ne c", "a b c\nd e")
        rss_before = _maxrss_mb()
    clock = _Clock()
    with clock("score"):
        res = [scorer.score(r, p) for r, p in zip(refs, preds)]
    if spec.get("aggregate"):
        np.random.seed(0)
        with clock("bootstrap"):
            agg = scoring.BootstrapAggregator()
            for s in res:
                agg.add_scores(s)
            agg.aggregate()
    if spec.get("dump"):
        _dump(spec["dump"], {k: [s[k].fmeasure for s in res] for k in spec["types"]})
    return {"times": clock.times, "cpu": clock.cpu, "rss_before_mb": rss_before}


def child_pyrouge(spec):
    """py-rouge 1.1 (import name `rouge`). Its word tokenizer is nltk.word_tokenize, whose
    sentence splitter needs NLTK's punkt_tab data, which cannot be downloaded here; the texts
    are one sentence per line already, so we call word_tokenize(preserve_line=True), which skips
    that splitter (the same Treebank tokenizer, a bit less work: favours py-rouge)."""
    import nltk
    import rouge
    rouge.Rouge.tokenize_text = staticmethod(
        lambda text, language="english": nltk.word_tokenize(text, language, preserve_line=True))
    preds, refs = _read_pairs(spec["data"], spec.get("limit"))
    evaluator = rouge.Rouge(metrics=spec["metrics"], max_n=2, limit_length=False,
                            apply_avg=True, stemming=True, alpha=0.5, weight_factor=1.2)
    clock = _Clock()
    with clock("score"):
        evaluator.get_scores(preds, refs)
    return {"times": clock.times, "cpu": clock.cpu}


def child_perl(spec):
    """The official ROUGE-1.5.5.pl through tests/rouge155/perl_rouge.py, on the first `limit`
    pairs: wall time of the whole run (file writing + perl), peak RSS of its processes."""
    import resource
    from time import perf_counter
    work = tempfile.mkdtemp(prefix="perl-")
    try:
        subset = os.path.join(work, "pairs.jsonl")
        with open(spec["data"], encoding="utf-8") as fh, open(subset, "w", encoding="utf-8") as out:
            for i, line in enumerate(fh):
                if i >= spec["limit"]:
                    break
                out.write(line)
        cmd = [sys.executable, spec["perl_rouge"], subset, "-o", spec["options"],
               "--rouge-script", spec["script"]]
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = perf_counter() - t
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (ru1.ru_utime + ru1.ru_stime) - (ru0.ru_utime + ru0.ru_stime)
        if proc.returncode != 0:
            raise RuntimeError("perl_rouge.py failed: %s" % proc.stderr[-2000:])
        out = json.loads(proc.stdout)
        if out.get("returncode", 0) != 0:
            raise RuntimeError("ROUGE-1.5.5.pl failed: %s" % out.get("stderr", "")[-2000:])
        if spec.get("dump"):
            per = {}
            for name, entry in out["scores"].items():
                if name in PERL_NAMES and "per_pair" in entry:
                    per[PERL_NAMES[name]] = [p["F"] for p in entry["per_pair"]]
            _dump(spec["dump"], per)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
        return {"times": {"wall": wall}, "cpu": {"wall": cpu}, "child_rss_mb": rss}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def child_peer_startup(spec):
    """A peer's import + scorer + first scores of a few pairs, for context next to target 5."""
    clock = _Clock()
    with clock("import"):
        if spec["peer"] == "rs":
            from rouge_score_rs import rouge_scorer
        else:
            from rouge_score import rouge_scorer
    preds, refs = _read_pairs(spec["data"])
    with clock("first"):
        scorer = rouge_scorer.RougeScorer(spec["types"], use_stemmer=True)
        if spec["peer"] == "rs":
            scorer.score_batch(refs, preds)
        else:
            [scorer.score(r, p) for r, p in zip(refs, preds)]
    return {"times": clock.times, "cpu": clock.cpu}


def child_versions(spec):
    import importlib.metadata as md
    out = {"python": sys.version.split()[0]}
    for name in ("evaluate", "datasets", "numpy", "numba", "llvmlite", "nltk", "pyarrow",
                 "rouge-score", "rouge-score-rs", "py-rouge"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = None
    import numpy  # noqa: F401
    import numba
    try:
        import threadpoolctl
        out["blas"] = [{k: d.get(k) for k in ("internal_api", "version", "architecture",
                                                "num_threads")}
                       for d in threadpoolctl.threadpool_info()]
    except Exception as exc:  # pragma: no cover
        out["blas"] = repr(exc)
    out["numba_threads"] = numba.config.NUMBA_NUM_THREADS
    out["numba_threading_layer"] = numba.config.THREADING_LAYER
    return {"times": {}, "info": out}


def child_profile(spec):
    """cProfile (or pyinstrument) of our second (warm) compute() on the workload."""
    import warnings
    warnings.simplefilter("ignore")
    import evaluate
    metric = evaluate.load(spec["metric"])
    preds, refs = _read_pairs(spec["data"], spec.get("limit"))
    kwargs = spec["kwargs"]
    metric.compute(predictions=preds, references=refs, **kwargs)
    if spec["profiler"] == "pyinstrument":
        from pyinstrument import Profiler
        prof = Profiler(interval=0.001)
        prof.start()
        metric.compute(predictions=preds, references=refs, **kwargs)
        prof.stop()
        text = prof.output_text(unicode=False, color=False, show_all=False)

        from pyinstrument.renderers import JSONRenderer

        def tree(frame):  # the processed tree (repeated calls aggregated), as the text shows it
            return {"f": frame["function"], "file": frame["file_path"] or "", "t": frame["time"],
                    "c": [tree(c) for c in frame["children"]]}
        root = json.loads(prof.output(JSONRenderer()))["root_frame"]
        return {"times": {}, "info": {"text": text, "tree": tree(root)}}
    import cProfile
    import pstats
    prof = cProfile.Profile()
    prof.enable()
    metric.compute(predictions=preds, references=refs, **kwargs)
    prof.disable()
    stats = pstats.Stats(prof)
    rows = []
    for (fn, line, name), (_cc, nc, tt, ct, _callers) in stats.stats.items():
        rows.append({"file": fn, "line": line, "name": name, "calls": nc, "tottime": tt,
                     "cumtime": ct})
    return {"times": {"total": stats.total_tt}, "info": {"rows": rows}}


CHILD_TASKS = {"ours": child_ours, "rs": child_rs, "rouge_score": child_rouge_score,
               "pyrouge": child_pyrouge, "perl": child_perl, "peer_startup": child_peer_startup,
               "versions": child_versions, "profile": child_profile}


def child_main(spec_json):
    spec = json.loads(spec_json)
    out = CHILD_TASKS[spec["task"]](spec)
    out["maxrss_mb"] = _maxrss_mb()
    sys.stdout.write("\nRESULT " + json.dumps(out) + "\n")
    sys.stdout.flush()


# ================================================================================================
# Parent side: standard library only.
# ================================================================================================

def log(msg):
    sys.stderr.write("[bench %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stderr.flush()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---- setup -------------------------------------------------------------------------------------

def ensure_venv(python):
    want = sha256_file(REQUIREMENTS)
    stamp = os.path.join(VENV, ".requirements.sha256")
    have = open(stamp).read().strip() if os.path.exists(stamp) else None
    if os.path.exists(VENV_PY) and have == want:
        return
    if not os.path.exists(VENV_PY):
        log("creating %s" % VENV)
        subprocess.check_call([python, "-m", "venv", VENV])
    log("pip install -r %s" % REQUIREMENTS)
    subprocess.check_call([VENV_PY, "-m", "pip", "install", "-q", "-r", REQUIREMENTS])
    with open(stamp, "w") as fh:
        fh.write(want + "\n")


def ensure_oracle():
    setup = os.path.join(ORACLE_DIR, "setup.sh")
    proc = subprocess.run(["bash", setup], capture_output=True, text=True)
    m = re.search(r"^ROUGE_SCRIPT=(.+)$", proc.stdout, re.M)
    if proc.returncode != 0 or not m:
        return None, "oracle setup failed: %s" % proc.stderr[-500:]
    return m.group(1).strip(), None


def _tree_files(folder):
    """The package's files under folder (relative paths, sorted), caches left out."""
    out = []
    for here, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out += [os.path.relpath(os.path.join(here, n), folder) for n in names
                if not n.endswith((".pyc", ".pyo"))]
    return sorted(out)


def snapshot_metric(dest):
    """Copy the package (rouge_exact/) and the thin evaluate script (rouge_metric.py) into dest,
    so that edits made while we run change nothing: the children put dest first on their
    PYTHONPATH (Bench.env), so the script's `import rouge_exact.hf` imports the snapshot.
    Returns the script's path, {name: sha256} (the script's, and one over the package's files)
    and dest."""
    os.makedirs(dest, exist_ok=True)
    package = os.path.join(ROOT, "rouge_exact")
    shutil.copytree(package, os.path.join(dest, "rouge_exact"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy2(os.path.join(ROOT, "rouge_metric.py"), dest)
    tree = hashlib.sha256()
    for name in _tree_files(os.path.join(dest, "rouge_exact")):
        tree.update(name.encode() + b"\0")
        tree.update(sha256_file(os.path.join(dest, "rouge_exact", name)).encode())
    files = {"rouge_metric.py": sha256_file(os.path.join(dest, "rouge_metric.py"))[:12],
             "rouge_exact/": tree.hexdigest()[:12]}
    return os.path.join(dest, "rouge_metric.py"), files, dest


def git_state():
    def git(*args):
        try:
            return subprocess.run(["git", "-C", ROOT] + list(args), stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True).stdout.rstrip()
        except OSError:
            return ""
    head = git("rev-parse", "--short", "HEAD")
    dirty = [line[3:] for line in git("status", "--porcelain", "--", "rouge_metric.py",
                                      "rouge_exact").splitlines()]
    return head, dirty


# ---- workloads ---------------------------------------------------------------------------------

def ntok(text):
    return len(TOKEN.findall(text.lower()))


def _chain(rng, pool, target):
    """Sentences drawn from `pool` (shuffled, without replacement, reshuffled when used up)
    until the text has at least `target` tokens; one sentence per line."""
    out, count, order = [], 0, []
    while count < target:
        if not order:
            order = list(range(len(pool)))
            rng.shuffle(order)
        sentence = pool[order.pop()]
        out.append(sentence)
        count += ntok(sentence)
    return "\n".join(out), count


def make_workloads(data_path, dest, long_pairs=200, long_tokens=4000,
                   single_sizes=(1000, 4000, 16000, 100000)):
    os.makedirs(dest, exist_ok=True)
    with open(data_path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    files, info = {}, {}

    def write(name, pairs):
        path = os.path.join(dest, name + ".jsonl")
        with open(path, "w", encoding="utf-8") as out:
            for pred, ref in pairs:
                out.write(json.dumps({"prediction": pred, "references": [ref]}) + "\n")
        files[name] = path
        toks = [(ntok(p), ntok(r)) for p, r in pairs]
        info[name] = {"pairs": len(pairs), "sha256": sha256_file(path)[:12],
                      "pred_tokens_mean": round(sum(t[0] for t in toks) / len(toks)),
                      "ref_tokens_mean": round(sum(t[1] for t in toks) / len(toks))}

    # (a) 10,000 pairs resampled with replacement from the 3,500 rows
    rng = random.Random(SEED)
    w10k = [rows[rng.randrange(len(rows))] for _ in range(10000)]
    write("w10k", [(r["prediction"], r["references"][0]) for r in w10k])
    write("tiny10", [(r["prediction"], r["references"][0]) for r in w10k[:10]])
    write("prime", [(r["prediction"], r["references"][0]) for r in w10k[:50]])

    # (b) 200 pairs of ~4,000 tokens: the sentences of random docs (their 35 systems' outputs and
    # their reference, distinct sentences; docs added until the pool holds 1.25x the length, so
    # that no sentence is used twice in a text), chained in two independent random orders (prediction, reference)
    by_doc = {}
    for r in rows:
        pool = by_doc.setdefault(r["doc"], {})  # distinct sentences, first-seen order
        for text in [r["prediction"]] + r["references"]:
            pool.update((s, None) for s in text.split("\n") if s.strip())
    by_doc = {d: list(p) for d, p in by_doc.items()}
    docs = sorted(by_doc)
    rng = random.Random(SEED + 1)
    long = []
    for _ in range(long_pairs):
        chosen, pool = set(), []
        while sum(ntok(x) for x in pool) < 1.25 * long_tokens:
            d = docs[rng.randrange(len(docs))]
            if d not in chosen:
                chosen.add(d)
                pool += by_doc[d]
        long.append((_chain(rng, pool, long_tokens)[0], _chain(rng, pool, long_tokens)[0]))
    write("long200", long)

    # (c) single pairs for memory: sentences of the whole corpus, two independent orders
    corpus = [s for r in rows for t in [r["prediction"]] + r["references"]
              for s in t.split("\n") if s.strip()]
    for size in single_sizes:
        rng = random.Random(SEED + size)
        write("single%d" % size, [(_chain(rng, corpus, size)[0], _chain(rng, corpus, size)[0])])
    return files, info


# ---- running children --------------------------------------------------------------------------

class ChildFailed(Exception):
    pass


def cpu_stat():
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    try:
        with open("/proc/stat") as fh:
            vals = [int(v) for v in fh.readline().split()[1:9]]
    except OSError:
        return None
    tick = float(os.sysconf("SC_CLK_TCK"))
    idle = vals[3] + vals[4]
    return (sum(vals) - idle) / tick, sum(vals) / tick


def others_busy(seconds=1.0):
    """Share of the machine's CPU that other processes used over the next `seconds`."""
    a = cpu_stat()
    time.sleep(seconds)
    b = cpu_stat()
    if a is None or b is None or b[1] <= a[1]:
        return 0.0
    return (b[0] - a[0]) / (b[1] - a[1])


def run_child(spec, env, timeout, rss_limit_mb, cwd):
    """Run one child; returns its RESULT dict plus "_others": the share of the machine's CPU
    that other processes used while it ran (machine busy time minus the child's own)."""
    cmd = [VENV_PY, THIS, "--child", json.dumps(spec)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        stat0 = cpu_stat()
        start = time.monotonic()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, cwd=cwd)
        killed = None
        child_cpu = 0.0
        while True:
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                proc.returncode = (-os.WTERMSIG(status) if os.WIFSIGNALED(status)
                                   else os.WEXITSTATUS(status))
                child_cpu = ru.ru_utime + ru.ru_stime
                break
            time.sleep(0.1)
            try:
                with open("/proc/%d/status" % proc.pid) as fh:
                    m = re.search(r"VmRSS:\s+(\d+) kB", fh.read())
                rss = int(m.group(1)) / 1024.0 if m else 0.0
            except OSError:
                rss = 0.0
            if rss > rss_limit_mb:
                killed = "killed: RSS above %.0f MB" % rss_limit_mb
            elif time.monotonic() - start > timeout:
                killed = "killed: over the %.0f s time-out" % timeout
            if killed:
                proc.kill()
                proc.wait()
                break
        stat1 = cpu_stat()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if killed:
        raise ChildFailed(killed)
    lines = [ln for ln in stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        tail = (stderr.strip().splitlines() or ["(no stderr)"])[-1]
        raise ChildFailed("exit %s: %s" % (proc.returncode, tail[-300:]))
    res = json.loads(lines[-1][len("RESULT "):])
    res["_others"] = None
    if stat0 and stat1 and stat1[1] > stat0[1]:
        res["_others"] = max(0.0, (stat1[0] - stat0[0] - child_cpu) / (stat1[1] - stat0[1]))
    return res


class Bench:
    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.rows = {}        # row id -> dict(label, times, rss, ...)
        self.row_order = []
        self.failures = []
        self.dumps = os.path.join(workdir, "dumps")
        os.makedirs(self.dumps, exist_ok=True)
        self.warm_caches = os.path.join(workdir, "warm-caches")
        self.waited = 0.0

    # environment of a child: "warm" = the primed caches, "cold" = fresh empty ones
    def env(self, caches):
        env = dict(os.environ)
        # README (env): these slow a current numpy; unset both together for benchmarks
        env.pop("OPENBLAS_CORETYPE", None)
        env.pop("OPENBLAS_L2_SIZE", None)
        # the snapshot's bytecode is written once, as an install has it: no child compiles the
        # package's source (an environment may set this)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update({
            "HF_HUB_OFFLINE": "1", "HF_EVALUATE_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": os.path.join(self.workdir, "hf-home"),
            "HF_MODULES_CACHE": os.path.join(caches, "modules"),
            "ROUGE_METRIC_CACHE_DIR": os.path.join(caches, "kernels"),
            "RAYON_NUM_THREADS": str(THREADS),
            "PYTHONHASHSEED": "0",
            "TQDM_DISABLE": "1",
            # the snapshot's rouge_exact first: the thin script imports it (snapshot_metric)
            "PYTHONPATH": os.pathsep.join(
                p for p in (getattr(self.args, "snapshot", None), env.get("PYTHONPATH")) if p),
        })
        return env

    def wait_for_quiet(self):
        """Before a measured run: wait (within the budget) until other processes use less than
        --quiet-share of the machine's CPU, measured over 1 s."""
        a = self.args
        waited = 0.0
        while True:
            share = others_busy(1.0)
            if share <= a.quiet_share or waited >= a.quiet_wait or self.waited >= a.quiet_budget:
                return share
            time.sleep(2.0)
            waited += 3.0
            self.waited += 3.0

    def child(self, spec, cold=False, timeout=None):
        if cold:
            caches = tempfile.mkdtemp(prefix="cold-", dir=self.workdir)
        else:
            caches = self.warm_caches
        try:
            return run_child(spec, self.env(caches), timeout or self.args.timeout,
                             self.args.rss_limit_gb * 1024, self.workdir)
        finally:
            if cold:
                shutil.rmtree(caches, ignore_errors=True)

    def row(self, rid, label, **meta):
        if rid not in self.rows:
            self.rows[rid] = dict(label=label, times=[], cpu=[], rss=[], rss_before=[], notes=[],
                                  others=[], **meta)
            self.row_order.append(rid)
        return self.rows[rid]

    def measure(self, target, items):
        """items: dicts with spec, runs, cold, rows=[(rid, label, keys, scale, meta)].
        Runs item 0 run 0, item 1 run 0, ..., item 0 run 1, ... (alternating)."""
        for it in items:
            for rid, label, _keys, _scale, meta in it["rows"]:
                self.row(rid, label, target=target, runs_planned=it["runs"], **meta)
        max_runs = max(it["runs"] for it in items)
        for i in range(max_runs):
            for it in items:
                if i >= it["runs"] or it.get("dead"):
                    continue
                spec = dict(it["spec"])
                if i == 0 and it.get("dump"):
                    spec["dump"] = it["dump"]
                desc = it["rows"][0][1]
                log("target %s, run %d/%d: %s" % (target, i + 1, it["runs"], desc))
                if self.args.quiet_share < 1:
                    self.wait_for_quiet()
                try:
                    res = self.child(spec, cold=it.get("cold", False), timeout=it.get("timeout"))
                except ChildFailed as exc:
                    log("  FAILED: %s" % exc)
                    self.failures.append((target, desc, str(exc)))
                    for rid, *_ in it["rows"]:
                        self.rows[rid]["notes"].append(str(exc))
                    it["dead"] = True  # a failure repeats: do not spend the time again
                    continue
                for rid, _label, keys, scale, _meta in it["rows"]:
                    t = sum(res["times"][k] for k in keys) * scale
                    r = self.rows[rid]
                    r["times"].append(t)
                    if all(k in res.get("cpu", {}) for k in keys):
                        r["cpu"].append(sum(res["cpu"][k] for k in keys) * scale)
                    r["rss"].append(res.get("child_rss_mb") or res["maxrss_mb"])
                    if res.get("_others") is not None:
                        r["others"].append(res["_others"])
                    if res.get("rss_before_mb") is not None:
                        r["rss_before"].append(res["rss_before_mb"])
                    if it.get("keep_result") and res.get("info"):
                        r["info"] = res["info"]
                log("  " + ", ".join("%s %.3f s" % (k, v) for k, v in res["times"].items())
                    + "; others' CPU %.0f%%" % (100 * (res.get("_others") or 0)))


# ---- the plan ----------------------------------------------------------------------------------

def plan(args, files, metric, oracle):
    q = args.quick
    fast = 3 if q else 5          # runs of the fast contenders
    ours_kw = lambda types, **kw: dict(rouge_types=types, use_stemmer=True, **kw)  # noqa: E731
    n10k = 10000
    targets = []

    # ---- 1. 10k pairs, 1+2+L+Lsum, stemmer, aggregated -------------------------------------
    rs_n = 1000 if q else n10k
    rs_runs = 1 if q else 3
    t1 = [
        dict(spec=dict(task="ours", metric=metric, data=files["w10k"], kwargs=ours_kw(T1_TYPES),
                       calls=2), runs=fast,
             rows=[("1.ours.warm", "ours: compute(), warm process (2nd call)", ["call2"], 1,
                    dict(ref=True)),
                   ("1.ours.first", "ours: compute(), new process, disk caches warm (1st call)",
                    ["call1"], 1, {})]),
        dict(spec=dict(task="ours", metric=metric, data=files["w10k"],
                       kwargs=ours_kw(T1_TYPES, detailed=True), calls=2), runs=fast,
             rows=[("1.ours.boot", "ours: compute(detailed=True), warm (2nd call): also P/R and "
                    "the bootstrap interval (1,000 resamples)", ["call2"], 1, {})]),
        dict(spec=dict(task="ours", metric=metric, data=files["w10k"], kwargs=ours_kw(T1_TYPES),
                       calls=1), runs=1 if q else 5, cold=True,
             rows=[("1.ours.cold", "ours: compute(), cold process, empty numba cache (1st call)",
                    ["call1"], 1, {}),
                   ("1.ours.cold.load", "ours: evaluate.load() in that cold process", ["load"], 1,
                    dict(noratio=True))]),
        dict(spec=dict(task="rs", data=files["w10k"], types=T1_TYPES, stemmer=True, mode="batch",
                       calls=2, aggregate=True), runs=fast, dump=os.path.join(args.dumps, "rs_w10k.json"),
             rows=[("1.rs.batch", "rouge-score-rs: score_batch, %d threads (no aggregation)"
                    % THREADS, ["call2"], 1, {}),
                   ("1.rs.batch.mean", "rouge-score-rs: score_batch + numpy mean", ["call2", "mean"],
                    1, {}),
                   ("1.rs.batch.boot", "rouge-score-rs: score_batch + its BootstrapAggregator",
                    ["call2", "bootstrap"], 1, {})]),
        dict(spec=dict(task="rs", data=files["w10k"], types=T1_TYPES, stemmer=True, mode="loop",
                       calls=2), runs=fast,
             rows=[("1.rs.loop", "rouge-score-rs: score() per pair, 1 thread (no aggregation)",
                    ["call2"], 1, {})]),
        dict(spec=dict(task="rouge_score", data=files["w10k"], types=T1_TYPES, stemmer=True,
                       aggregate=True, limit=rs_n), runs=rs_runs,
             dump=os.path.join(args.dumps, "rouge_score_w10k.json"),
             rows=[("1.rouge_score", "rouge_score: score() per pair + BootstrapAggregator "
                    "(evaluate's rouge)" + (" [%d pairs, extrapolated x%d]" % (rs_n, n10k // rs_n)
                                            if rs_n < n10k else ""),
                    ["score", "bootstrap"], n10k / rs_n, dict(extrapolated=rs_n < n10k))]),
        dict(spec=dict(task="pyrouge", data=files["w10k"], metrics=["rouge-n", "rouge-l"],
                       limit=1000 if q else 2000), runs=1 if q else 3,
             rows=[("1.pyrouge", "py-rouge: rouge-1/2/L, no Lsum, averaged [%d pairs, "
                    "extrapolated x%d]" % ((1000, 10) if q else (2000, 5)), ["score"],
                    10.0 if q else 5.0, dict(extrapolated=True))]),
    ]
    targets.append(("1", "10,000 pairs: rouge1 + rouge2 + rougeL + rougeLsum, use_stemmer=True, "
                    "aggregated", t1))

    # ---- 2. 200 pairs x 4,000 tokens, L + Lsum ------------------------------------------------
    rs_long = 1 if q else 3
    t2 = [
        dict(spec=dict(task="ours", metric=metric, data=files["long200"], kwargs=ours_kw(T2_TYPES),
                       calls=2), runs=fast,
             rows=[("2.ours.warm", "ours: compute(), warm process (2nd call)", ["call2"], 1,
                    dict(ref=True)),
                   ("2.ours.first", "ours: compute(), new process, disk caches warm (1st call)",
                    ["call1"], 1, {})]),
        dict(spec=dict(task="rs", data=files["long200"], types=T2_TYPES, stemmer=True,
                       mode="batch", calls=2, aggregate=True), runs=fast,
             dump=os.path.join(args.dumps, "rs_long200.json"),
             rows=[("2.rs.batch", "rouge-score-rs: score_batch, %d threads (no aggregation)"
                    % THREADS, ["call2"], 1, {}),
                   ("2.rs.batch.boot", "rouge-score-rs: score_batch + its BootstrapAggregator",
                    ["call2", "bootstrap"], 1, {})]),
        dict(spec=dict(task="rouge_score", data=files["long200"], types=T2_TYPES, stemmer=True,
                       aggregate=True, limit=rs_long), runs=1 if q else 2, timeout=3600,
             dump=os.path.join(args.dumps, "rouge_score_long200.json"),
             rows=[("2.rouge_score", "rouge_score: score() per pair + BootstrapAggregator "
                    "[%d of 200 pairs, extrapolated x%.0f]" % (rs_long, 200 / rs_long),
                    ["score", "bootstrap"], 200 / rs_long, dict(extrapolated=True))]),
    ]
    targets.append(("2", "200 pairs x ~4,000 tokens: rougeL + rougeLsum, use_stemmer=True, "
                    "aggregated", t2))

    # ---- 2b. memory: single pairs ---------------------------------------------------------
    sizes = [1000, 4000, 16000] + ([] if q else [100000])
    mem = []
    for size in sizes:
        data = files["single%d" % size]
        runs = 1 if (q or size >= 100000) else 3
        mem.append(dict(spec=dict(task="ours", metric=metric, data=data,
                                  kwargs=ours_kw(T2_TYPES), calls=1, warmup_tiny=True),
                        runs=runs, timeout=1800,
                        rows=[("m.ours.%d" % size, "ours", ["call1"], 1, dict(size=size))]))
        mem.append(dict(spec=dict(task="rs", data=data, types=T2_TYPES, stemmer=True,
                                  mode="batch", calls=1, warmup_tiny=True), runs=runs,
                        timeout=1800,
                        rows=[("m.rs.%d" % size, "rouge-score-rs", ["call1"], 1,
                               dict(size=size))]))
        if size <= 4000:
            mem.append(dict(spec=dict(task="rouge_score", data=data, types=T2_TYPES,
                                      stemmer=True, warmup_tiny=True), runs=1,
                            rows=[("m.rouge_score.%d" % size, "rouge_score", ["score"], 1,
                                   dict(size=size))]))
    targets.append(("2b", "single pairs of 1k/4k/16k/100k tokens: rougeL + rougeLsum "
                    "(peak RSS)", mem))

    # ---- 3. W + S4 + SU4 ------------------------------------------------------------------
    perl_n = 200 if q else 1000
    t3 = [
        dict(spec=dict(task="ours", metric=metric, data=files["w10k"], kwargs=ours_kw(T3_TYPES),
                       calls=2), runs=fast,
             rows=[("3.ours.warm", "ours, default profile: compute(), warm (2nd call)",
                    ["call2"], 1, dict(ref=True))]),
        dict(spec=dict(task="ours", metric=metric, data=files["w10k"],
                       kwargs=ours_kw(T3_TYPES, profile="rouge155"), calls=2), runs=fast,
             rows=[("3.ours155.warm", "ours, profile=\"rouge155\": compute(), warm (2nd call)",
                    ["call2"], 1, {})]),
    ]
    if oracle:
        t3.append(dict(spec=dict(task="perl", data=files["w10k"], limit=perl_n, options=PERL_T3,
                                 perl_rouge=oracle["perl_rouge"], script=oracle["script"]),
                       runs=1 if q else 3, timeout=3600,
                       dump=os.path.join(args.dumps, "perl_t3.json"),
                       rows=[("3.perl", "ROUGE-1.5.5.pl `%s` [%d pairs, extrapolated x%d]"
                              % (PERL_T3, perl_n, n10k // perl_n), ["wall"], n10k / perl_n,
                              dict(extrapolated=True))]))
    pr_n = 1000 if q else 2000
    t3.append(dict(spec=dict(task="pyrouge", data=files["w10k"], metrics=["rouge-w"], limit=pr_n),
                   runs=1 if q else 3,
                   rows=[("3.pyrouge", "py-rouge: rouge-w (weight 1.2) only; it has no ROUGE-S/SU"
                          + (" [%d pairs, extrapolated x%d]" % (pr_n, n10k // pr_n)
                             if pr_n < n10k else ""), ["score"], n10k / pr_n,
                          dict(extrapolated=pr_n < n10k))]))
    targets.append(("3", "10,000 pairs: rougeW-1.2 + rougeS4 + rougeSU4, use_stemmer=True, "
                    "aggregated", t3))

    # ---- 4. profile rouge155 vs default ---------------------------------------------------
    t4 = [
        dict(spec=dict(task="ours", metric=metric, data=files["w10k"], kwargs=ours_kw(T4_TYPES),
                       calls=2), runs=fast,
             rows=[("4.ours.warm", "ours, default profile (rouge_score numbers)", ["call2"], 1,
                    dict(ref=True))]),
        dict(spec=dict(task="ours", metric=metric, data=files["w10k"],
                       kwargs=ours_kw(T4_TYPES, profile="rouge155"), calls=2), runs=fast,
             rows=[("4.ours155.warm", "ours, profile=\"rouge155\" (ROUGE-1.5.5 numbers)",
                    ["call2"], 1, {})]),
    ]
    if oracle:
        t4.append(dict(spec=dict(task="perl", data=files["w10k"], limit=perl_n, options=PERL_T4,
                                 perl_rouge=oracle["perl_rouge"], script=oracle["script"]),
                       runs=1 if q else 3, timeout=3600,
                       dump=os.path.join(args.dumps, "perl_t4.json"),
                       rows=[("4.perl", "ROUGE-1.5.5.pl `%s` [%d pairs, extrapolated x%d]"
                              % (PERL_T4, perl_n, n10k // perl_n), ["wall"], n10k / perl_n,
                              dict(extrapolated=True))]))
    targets.append(("4", "10,000 pairs: rouge1 + rouge2 + rougeL, use_stemmer=True, aggregated: "
                    "profile=\"rouge155\" vs the default", t4))

    # ---- 5. evaluate.load + first compute on 10 pairs -------------------------------------
    t5 = [
        dict(spec=dict(task="ours", metric=metric, data=files["tiny10"], kwargs=ours_kw(T1_TYPES),
                       calls=1), runs=1 if q else 5, cold=True,
             rows=[("5.cold.total", "empty caches: evaluate.load + first compute()",
                    ["load", "call1"], 1, {}),
                   ("5.cold.load", "empty caches: evaluate.load", ["load"], 1, {}),
                   ("5.cold.first", "empty caches: first compute()", ["call1"], 1, {}),
                   ("5.import.cold", "import evaluate (same processes)", ["import"], 1, {})]),
        dict(spec=dict(task="ours", metric=metric, data=files["tiny10"], kwargs=ours_kw(T1_TYPES),
                       calls=1), runs=fast,
             rows=[("5.warm.total", "warm caches: evaluate.load + first compute()",
                    ["load", "call1"], 1, {}),
                   ("5.warm.load", "warm caches: evaluate.load", ["load"], 1, {}),
                   ("5.warm.first", "warm caches: first compute()", ["call1"], 1, {})]),
        dict(spec=dict(task="peer_startup", peer="rs", data=files["tiny10"], types=T1_TYPES),
             runs=fast,
             rows=[("5.rs", "context: rouge-score-rs import + RougeScorer + score_batch",
                    ["import", "first"], 1, {})]),
        dict(spec=dict(task="peer_startup", peer="rouge_score", data=files["tiny10"],
                       types=T1_TYPES), runs=fast,
             rows=[("5.rouge_score", "context: rouge_score import + RougeScorer + score()",
                    ["import", "first"], 1, {})]),
    ]
    targets.append(("5", "evaluate.load + first compute() on 10 pairs in a fresh process "
                    "(on top of `import evaluate`)", t5))
    return targets


def prime_warm_caches(bench, metric, files):
    """Fill the shared warm caches (HF_MODULES_CACHE, ROUGE_METRIC_CACHE_DIR) with every signature."""
    shutil.rmtree(bench.warm_caches, ignore_errors=True)
    configs = [dict(rouge_types=T1_TYPES), dict(rouge_types=T1_TYPES, detailed=True),
               dict(rouge_types=T2_TYPES), dict(rouge_types=T3_TYPES),
               dict(rouge_types=T3_TYPES, profile="rouge155"), dict(rouge_types=T4_TYPES),
               dict(rouge_types=T4_TYPES, profile="rouge155")]
    for cfg in configs:
        for agg in (True, False):
            kw = dict(cfg, use_stemmer=True, use_aggregator=agg)
            bench.child(dict(task="ours", metric=metric, data=files["prime"], kwargs=kw, calls=1))


def per_example_dumps(bench, args, metric, files):
    """Our per-example F (use_aggregator=False) on the agreement workloads (not timed)."""
    perl_n = 200 if args.quick else 1000
    jobs = [
        ("ours_w10k", files["w10k"], dict(rouge_types=T1_TYPES), None),
        ("ours_long200", files["long200"], dict(rouge_types=T2_TYPES), None),
        ("ours155_t3", files["w10k"], dict(rouge_types=T3_TYPES, profile="rouge155"), perl_n),
        ("ours155_t4", files["w10k"], dict(rouge_types=T4_TYPES, profile="rouge155"), perl_n),
    ]
    for name, data, kw, limit in jobs:
        kw = dict(kw, use_stemmer=True, use_aggregator=False)
        spec = dict(task="ours", metric=metric, data=data, kwargs=kw, calls=1, limit=limit,
                    dump=os.path.join(args.dumps, name + ".json"))
        try:
            bench.child(spec)
        except ChildFailed as exc:
            bench.failures.append(("agreement", name, str(exc)))


def agreement(args):
    def load(name):
        path = os.path.join(args.dumps, name + ".json")
        return json.load(open(path)) if os.path.exists(path) else None

    out = []
    checks = [
        ("10k pairs", "rouge_score 0.1.2", "ours_w10k", "rouge_score_w10k", 0.0),
        ("10k pairs", "rouge-score-rs", "ours_w10k", "rs_w10k", 0.0),
        ("200 x 4k tokens", "rouge_score 0.1.2 (the pairs it ran)", "ours_long200",
         "rouge_score_long200", 0.0),
        ("200 x 4k tokens", "rouge-score-rs", "ours_long200", "rs_long200", 0.0),
        ("W/S4/SU4, profile rouge155", "ROUGE-1.5.5.pl (5 decimals)", "ours155_t3", "perl_t3",
         5e-6),
        ("1/2/L, profile rouge155", "ROUGE-1.5.5.pl (5 decimals)", "ours155_t4", "perl_t4", 5e-6),
    ]
    ok_all = True
    for workload, peer, ours_name, peer_name, tol in checks:
        ours, theirs = load(ours_name), load(peer_name)
        if ours is None or theirs is None:
            out.append((workload, peer, "not run", "", ""))
            continue
        for rtype in theirs:
            a, b = ours.get(rtype), theirs[rtype]
            if a is None:
                continue
            n = min(len(a), len(b))
            diffs = [abs(x - y) for x, y in zip(a[:n], b[:n])]
            worst = max(diffs) if diffs else 0.0
            bad = sum(d > tol for d in diffs)
            ok = bad == 0
            ok_all &= ok
            out.append((workload, peer, "%s, %d pairs" % (rtype, n), "%.3g" % worst,
                        "yes" if ok else "NO: %d pairs differ by more than %g" % (bad, tol)))
    return out, ok_all


# ---- report ------------------------------------------------------------------------------------

def loadavg():
    try:
        return open("/proc/loadavg").read().split()[0]
    except OSError:
        return "?"


def fmt_s(t):
    if t >= 100:
        return "%.0f s" % t
    if t >= 10:
        return "%.1f s" % t
    if t >= 1:
        return "%.2f s" % t
    return "%.3f s" % t


def fmt_share(shares):
    return "%.0f%%" % (100 * statistics.median(shares)) if shares else ""


def fmt_mb(mb):
    return "%.0f MB" % mb if mb < 10000 else "%.1f GB" % (mb / 1024)


def machine_info():
    info = {}
    info["date"] = subprocess.run(["date"], stdout=subprocess.PIPE, text=True).stdout.strip()
    info["nproc"] = subprocess.run(["nproc"], stdout=subprocess.PIPE, text=True).stdout.strip()
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                info["mem"] = "%.1f GiB" % (int(line.split()[1]) / 1024 / 1024)
    except OSError:
        pass
    info["cpu"] = cpu
    info["kernel"] = platform.release()
    info["openblas_env"] = {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    return info


def render(bench, targets, machine, versions, workloads, snapshot, agree, profile_text, wall,
           loads, loads_by_target):
    L = []
    a = bench.args
    L.append("# Benchmarks: rouge_metric vs its peers%s" % (" (--quick)" if a.quick else ""))
    L.append("")
    L.append("Written by `benchmarks/run.py%s`; see `benchmarks/README.md` to re-run. "
             "Timings are medians of the runs shown, each run a fresh process; contenders were "
             "run alternately (A B C A B C ...). `x ours` = that row's median divided by our "
             "reference row's median (marked *): above 1, we are faster. Peak RSS is the "
             "process's `ru_maxrss` (interpreter + imports + data + the work). CPU time is user + "
             "system time of the process over the measured part, all threads (Perl: its "
             "processes). This machine is shared with other work: before each run the harness "
             "waits (within a budget) until other processes use at most %d%% of the CPU, and "
             "`others' CPU` is the median share of the machine's CPU that other processes used "
             "during the runs (2 cores: 50%% = one core taken). Rows marked "
             "*extrapolated* ran on a subset and were scaled linearly to the full workload."
             % (" --quick" if a.quick else "", 100 * a.quiet_share))
    L.append("")
    L.append("## Machine")
    L.append("")
    L.append("| | |")
    L.append("|---|---|")
    L.append("| date | %s |" % machine["date"])
    L.append("| cores (`nproc`) | %s |" % machine["nproc"])
    L.append("| CPU | %s |" % machine["cpu"])
    L.append("| memory | %s |" % machine.get("mem", "?"))
    L.append("| kernel | %s |" % machine["kernel"])
    L.append("| load average at start / end | %s / %s |" % loads)
    L.append("| whole run | %.1f min, of which %.0f s waiting for other processes to quiet "
             "down |" % (wall / 60, bench.waited))
    if versions:
        L.append("| python | %s |" % versions.get("python"))
        pk = ", ".join("%s %s" % (k, versions.get(k)) for k in
                       ("evaluate", "datasets", "numpy", "numba", "llvmlite", "nltk", "pyarrow",
                        "rouge-score", "rouge-score-rs", "py-rouge"))
        L.append("| packages | %s |" % pk)
        L.append("| threads | numba %s (layer %s), rouge-score-rs RAYON_NUM_THREADS=%d |"
                 % (versions.get("numba_threads"), versions.get("numba_threading_layer"),
                    THREADS))
        blas = versions.get("blas")
        if isinstance(blas, list):
            blas = "; ".join("%s %s %s (%s threads)" % (b["internal_api"], b["version"],
                                                          b["architecture"], b["num_threads"])
                             for b in blas)
        L.append("| numpy BLAS (children run with OPENBLAS_CORETYPE/L2_SIZE unset; here they "
                 "were %s) | %s |" % (
                     "unset" if not any(machine["openblas_env"].values())
                     else machine["openblas_env"], blas))
    L.append("| metric measured | git %s%s; files %s |" % (
        snapshot["head"], (", uncommitted changes in " + ", ".join(snapshot["dirty"]))
        if snapshot["dirty"] else "", ", ".join("%s %s" % kv for kv in snapshot["files"].items())))
    L.append("")
    L.append("Workloads (generated by run.py from `tests/data/realsumm.jsonl`, seeded): "
             + "; ".join("%s: %d pairs, ~%d/%d tokens (prediction/reference), sha256 %s"
                         % (k, v["pairs"], v["pred_tokens_mean"], v["ref_tokens_mean"],
                            v["sha256"]) for k, v in workloads.items()
                         if k not in ("prime",)) + ".")
    L.append("")

    for tid, title, items in targets:
        rids = []
        for it in items:
            for rid, *_ in it["rows"]:
                if rid not in rids:
                    rids.append(rid)
        L.append("## %s. %s" % (tid, title))
        L.append("")
        if tid == "2b":
            L.append("| tokens per text | contender | time (median) | runs | peak RSS | "
                     "RSS added by the call | others' CPU |")
            L.append("|---|---|---|---|---|---|---|")
            for rid in rids:
                r = bench.rows[rid]
                if not r["times"]:
                    L.append("| %s | %s | %s | 0 | | | |" % (
                        format(r["size"], ","), r["label"], "; ".join(r["notes"]) or "not run"))
                    continue
                med = statistics.median(r["times"])
                peak = max(r["rss"])
                added = (peak - min(r["rss_before"])) if r["rss_before"] else None
                L.append("| %s | %s | %s | %d | %s | %s | %s |" % (
                    format(r["size"], ","), r["label"], fmt_s(med), len(r["times"]),
                    fmt_mb(peak), fmt_mb(added) if added is not None else "",
                    fmt_share(r["others"])))
            if 100000 not in {bench.rows[r]["size"] for r in rids}:
                L.append("")
                L.append("(100k tokens: not run in --quick mode.)")
            L.append("")
            L.append("rouge_score is not run at 16k/100k tokens: its LCS table is a Python list "
                     "of lists of (m+1)(n+1) entries (about 2 GB and minutes at 16k, 80 GB at "
                     "100k).")
            L.append("")
            continue
        ref = next((bench.rows[r] for r in rids if bench.rows[r].get("ref")), None)
        ref_med = statistics.median(ref["times"]) if ref and ref["times"] else None
        head = ("| contender | median | min - max | CPU time (median) | runs | peak RSS | "
                "others' CPU |")
        L.append(head + (" x ours |" if ref_med else ""))
        L.append("|---" * (head.count("|") - 1 + (1 if ref_med else 0)) + "|")
        for rid in rids:
            r = bench.rows[rid]
            label = r["label"] + (" *" if r.get("ref") else "")
            if r.get("extrapolated"):
                label += " *extrapolated*"
            if not r["times"]:
                L.append("| %s | %s | | | 0 | | |%s" % (label, "; ".join(r["notes"]) or "not run",
                                                       " |" if ref_med else ""))
                continue
            med = statistics.median(r["times"])
            cpu = fmt_s(statistics.median(r["cpu"])) if r["cpu"] else ""
            line = "| %s | %s | %s - %s | %s | %d | %s | %s |" % (
                label, fmt_s(med), fmt_s(min(r["times"])), fmt_s(max(r["times"])), cpu,
                len(r["times"]), fmt_mb(max(r["rss"])), fmt_share(r["others"]))
            if ref_med and r.get("noratio"):
                line += " |"
            elif ref_med:
                ratio = med / ref_med
                line += " %s |" % ("%.1f" % ratio if ratio >= 10 else "%.2f" % ratio)
            L.append(line)
        L.append("")
        if tid in loads_by_target:
            L.append("Load average (1 min) before / after this target: %s / %s." %
                     loads_by_target[tid])
            L.append("")

    L.append("## Agreement (per-example F, use_aggregator=False)")
    L.append("")
    L.append("| workload | peer | type | max abs diff | equal |")
    L.append("|---|---|---|---|---|")
    for row in agree:
        L.append("| %s |" % " | ".join(row))
    L.append("")
    if profile_text:
        L.append("## Where our time goes (warm 10k compute, rouge1+2+L+Lsum, stemmer)")
        L.append("")
        L.append(profile_text)
        L.append("")
    if bench.failures:
        L.append("## Failures")
        L.append("")
        for f in bench.failures:
            L.append("- target %s, %s: %s" % f)
        L.append("")
    return "\n".join(L) + "\n"


# ---- profile -----------------------------------------------------------------------------------

def _short_path(text, workdir):
    text = re.sub(r"[^\s`]*evaluate_modules/metrics/rouge_metric/[0-9a-f]+/", "", text)
    return text.replace(os.path.join(VENV, "lib", ""), "").replace(workdir, "")


def _outermost(node, pred):
    """Total time of the outermost frames matching pred (no double counting of recursion)."""
    if pred(node):
        return node["t"]
    return sum(_outermost(c, pred) for c in node["c"])


def _find(node, pred):
    if pred(node):
        return node
    for c in node["c"]:
        hit = _find(c, pred)
        if hit:
            return hit
    return None


def _is(func, file_end):
    return lambda n: n["f"] == func and n["file"].replace(os.sep, "/").endswith(file_end)


def profile_buckets(tree, min_share=0.03, max_depth=6):
    """Where the time of one compute() goes: the frames under it (pyinstrument's processed tree)
    that take at least min_share of it, indented by depth."""
    harness = _find(tree, _is("child_profile", "run.py"))
    total = max((c for c in harness["c"] if c["f"] != "[self]"), key=lambda c: c["t"],
                default=None) if harness else None
    if not total:
        return []
    rows = []

    def walk(node, depth):
        if node["t"] < min_share * total["t"] or depth > max_depth:
            return
        where = os.path.basename(node["file"]) if node["file"] else ""
        label = node["f"] + (" (%s)" % where if where and node["f"] != "[self]" else "")
        if node["f"] == "[self]":
            label = "[self] (own time of the caller: numba kernels called from it count here)"
        rows.append(("&nbsp;&nbsp;" * depth + label, node["t"]))
        for c in sorted(node["c"], key=lambda c: -c["t"]):
            walk(c, depth + 1)
    walk(total, 0)
    return rows


def profile_report(bench, metric, files):
    spec = dict(task="profile", metric=metric, data=files["w10k"],
                kwargs=dict(rouge_types=T1_TYPES, use_stemmer=True), profiler="pyinstrument")
    res = bench.child(spec)
    text, tree = res["info"]["text"], res["info"]["tree"]
    lines = ["pyinstrument (1 ms sampling) of the second compute() in one process (numba "
             "kernels run in C: their time is the self time of the Python function that calls "
             "them). Run under the load shown above, so absolute times are inflated; the shares "
             "are what matters.", "", "| part | time | share |", "|---|---|---|"]
    buckets = profile_buckets(tree)
    whole = buckets[0][1] if buckets else 0
    for label, t in buckets:
        lines.append("| %s | %s | %.0f%% |" % (label, fmt_s(t), 100 * t / whole if whole else 0))
    lines += ["", "```", _short_path(text.strip(), bench.workdir), "```"]
    res2 = bench.child(dict(spec, profiler="cprofile"))
    rows = res2["info"]["rows"]
    lines += ["", "cProfile of the same call, top 12 functions by own time (cProfile's "
              "per-call overhead inflates Python-heavy parts):", "",
              "| own time | cumulative | calls | function |", "|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: -r["tottime"])[:12]:
        lines.append("| %s | %s | %d | `%s:%d %s` |" % (
            fmt_s(r["tottime"]), fmt_s(r["cumtime"]), r["calls"],
            _short_path(r["file"], bench.workdir), r["line"], r["name"]))
    return "\n".join(lines)


# ---- main --------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="fewer runs and subsets: a smoke run of every target in a few minutes")
    ap.add_argument("--targets", default="1,2,2b,3,4,5",
                    help="comma-separated subset of 1,2,2b,3,4,5 (default: all)")
    ap.add_argument("--out", default=None,
                    help="report path (default: benchmarks/RESULTS.md; with --quick, "
                         "<workdir>/RESULTS-quick.md)")
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "rouge-bench"),
                    help="scratch: workloads, metric snapshot, caches, dumps (default %(default)s)")
    ap.add_argument("--data", default=DEFAULT_DATA,
                    help="the corpus the workloads are drawn from (default: tests/data/realsumm.jsonl)")
    ap.add_argument("--python", default=sys.executable, help="python used to create the venv")
    ap.add_argument("--no-profile", action="store_true", help="skip the cProfile/pyinstrument run")
    ap.add_argument("--timeout", type=float, default=1800.0, help="per child process, seconds")
    ap.add_argument("--rss-limit-gb", type=float, default=16.0,
                    help="kill a child whose RSS goes above this")
    ap.add_argument("--quiet-share", type=float, default=0.25,
                    help="before each measured run, wait until other processes use at most this "
                         "share of the machine's CPU (1 = never wait; default %(default)s)")
    ap.add_argument("--quiet-wait", type=float, default=30.0,
                    help="longest wait before one run, seconds (default %(default)s)")
    ap.add_argument("--quiet-budget", type=float, default=180.0,
                    help="longest total wait over the whole run, seconds (default %(default)s)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child_main(args.child)
        return 0

    t_start = time.monotonic()
    load_start = loadavg()
    workdir = os.path.abspath(args.workdir)
    if os.path.exists(workdir):
        shutil.rmtree(workdir)
    os.makedirs(workdir)
    args.dumps = os.path.join(workdir, "dumps")
    out_path = args.out or (os.path.join(workdir, "RESULTS-quick.md") if args.quick
                            else os.path.join(HERE, "RESULTS.md"))

    ensure_venv(args.python)
    script, why = ensure_oracle()
    oracle = None
    if script:
        oracle = {"script": script, "perl_rouge": os.path.join(ORACLE_DIR, "perl_rouge.py")}
    else:
        log("Perl oracle unavailable (%s): its rows are skipped" % why)

    metric, files_sha, args.snapshot = snapshot_metric(os.path.join(workdir, "metric"))
    head, dirty = git_state()
    snapshot = {"head": head, "dirty": dirty, "files": files_sha}
    log("metric snapshot: git %s%s" % (head, " + uncommitted " + ",".join(dirty) if dirty else ""))

    log("generating workloads")
    files, workloads = make_workloads(args.data, os.path.join(workdir, "data"))
    bench = Bench(args, workdir)
    versions = bench.child(dict(task="versions")).get("info")
    log("priming the warm caches (numba compilation, ~20 s)")
    prime_warm_caches(bench, metric, files)

    wanted = set(args.targets.split(","))
    targets = [t for t in plan(args, files, metric, oracle) if t[0] in wanted]
    loads_by_target = {}
    for tid, title, items in targets:
        log("=== target %s: %s" % (tid, title))
        before = loadavg()
        bench.measure(tid, items)
        loads_by_target[tid] = (before, loadavg())

    log("agreement: our per-example scores")
    per_example_dumps(bench, args, metric, files)
    agree, agree_ok = agreement(args)

    profile_text = None
    if not args.no_profile:
        log("profiling our warm 10k compute")
        try:
            profile_text = profile_report(bench, metric, files)
        except ChildFailed as exc:
            bench.failures.append(("profile", "cProfile/pyinstrument", str(exc)))

    load_end = loadavg()
    report = render(bench, targets, machine_info(), versions, workloads, snapshot, agree,
                    profile_text, time.monotonic() - t_start, (load_start, load_end),
                    loads_by_target)
    with open(out_path, "w") as fh:
        fh.write(report)
    sys.stdout.write(report)
    log("wrote %s" % out_path)
    if not agree_ok:
        log("AGREEMENT CHECK FAILED (see the table)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
