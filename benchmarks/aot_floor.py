#!/usr/bin/env python3
"""The floor of ahead-of-time compiled kernels: what the 10,000-pair whole-process run of
benchmarks/process.py would take if its kernels came from a module compiled before install,
with no numba to import. Nothing here is part of the package; all is built in a private
temporary folder (mkdtemp), removed at the end unless --keep.

    python3 benchmarks/aot_floor.py                  # ~3 min on 2 busy cores (builds included)
    python3 benchmarks/aot_floor.py --runs 9 --twins --out /tmp/aot.md
    python3 benchmarks/aot_floor.py --all-kernels    # pycc builds all 17 kernels, not only the
                                                     # 10 of a default run (a longer build)

What it builds (children run with --python, default benchmarks/.venv/bin/python, the
checkout first on PYTHONPATH, as process.py's):
  pycc  numba.pycc (pending deprecation since numba 0.57, still shipped) compiles the numba
        kernels a default 4-type stemmed run uses (scan, dense ids, stem table, Porter, n-gram,
        LCS, union LCS, column sums, P/R/F, Poisson bootstrap) from a copy of
        rouge_exact/kernels/*.py, each with the one signature the package compiles (taken from
        the kernel's example call, kernels.registry.EXAMPLES), the GIL released as numba's
        nogil does (the scorer calls them from its threads). Build time: the whole build
        process, split into the JIT pass that finds the signatures and pycc's compile.
  C     benchmarks/aot_floor.c: the scan and the LCS written by hand, built with gcc -O2.
What it measures:
  check   one process (ROUGE_METRIC_BACKEND=numba, one thread) runs the command's code on the
          10,000 pairs; every kernel call is also run on copies of its arguments by the pycc
          module and (scan, LCS) the C module: results (and arrays changed in place) must be
          equal to the last bit, or the script stops (exit 1). The seconds of each kernel per
          implementation (the least of 3 runs of each call, summed over the calls).
  import  fresh processes, taking turns: `import numba` + loading the run's kernels from the
          warm kernel cache (kernels.backend.start), against importing the pycc module and
          the C module (numpy and rouge_exact.kernels.backend imported before the clock).
  10k     fresh processes, taking turns: `python -m rouge_exact --jsonl FILE --use-stemmer`
          (numba, warm kernel cache), the same command with its kernels from the pycc module
          (a runner that swaps kernels.backend's choice of implementation, then runs the
          command; it checks that numba was never imported), the same with the scan and the
          LCS from the C module, rouge-score-rs's score_batch (process.py's PEER_RS), and with
          --twins the numpy twins alone (ROUGE_METRIC_BACKEND=numpy). Every variant of ours
          must print the numba run's output byte for byte, and rs's mean rouge1 F to 5
          decimals.
Medians (min-max) of --runs runs (default 7); peak RSS from os.wait4.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from process import (  # noqa: E402 - the 10k file, the peer and the timed spawn, shared
    BENCH_PYTHON, PEER_RS, ROOT, Failed, command_rouge1, pairs_file, result_line, spawn)

C_SOURCE = os.path.join(HERE, "aot_floor.c")
KERNEL_FILES = ("registry", "scan", "score", "union", "sums", "sets", "porter")
# the kernels of a default run (4 types, stemmed, the default interval): what the command
# resolves on the 10,000 pairs (the runner's check that numba is never imported holds it)
RUN_KERNELS = ("scan_stem_tokens", "dense_ids", "stem_table_insert", "porter_stem_codes",
               "ngram_stats", "lcs_stats", "union_lcs_stats", "exact_column_sums",
               "example_prf", "poisson_bootstrap_sums")
# kernels that are plain Python around one numba function: that function is compiled
WRAPPED = {"scan_stem_tokens": "_scan_stem", "scan_ascii_tokens": "_scan_stem",
           "dense_ids": "pair_dense_ids"}

# ---- children (run with --python) ----------------------------------------------------------

BUILD_PYCC = """\
import importlib, json, os, shutil, sys, time, types, warnings
began = time.perf_counter()
source, out, names = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
wrapped, files, cpu = json.loads(sys.argv[4]), json.loads(sys.argv[5]), sys.argv[6]
copy = os.path.join(out, "aot_kernel_sources")  # a copy, as kernels.backend compiles one
os.makedirs(copy)
for name in files:
    shutil.copy(os.path.join(source, name + ".py"), copy)
package = types.ModuleType("aot_kernel_sources")
package.__path__ = [copy]
sys.modules["aot_kernel_sources"] = package
K = importlib.import_module("aot_kernel_sources.registry")
K.use_numba()
import numpy as np
import numba
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from numba.pycc import CC
import numba.pycc.compiler as pycc_compiler
from numba.core.compiler import Flags


class NoGilFlags(Flags):  # pycc's wrappers hold the GIL; numba's nogil kernels release it
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.release_gil = True


pycc_compiler.Flags = NoGilFlags
with np.errstate(all="ignore"):  # the JIT pass: each kernel's signature from its example
    for name in names:
        K.EXAMPLES[name](K)
jitted = time.perf_counter()
cc = CC("rouge_aot_kernels")
cc.output_dir = out
cc.verbose = False
cc.target_cpu = cpu  # "": LLVM's generic model of the machine (what a portable wheel holds)
exported = {}
for name in names:
    function = wrapped.get(name, name)
    if function in exported:
        continue
    signatures = getattr(K, function).nopython_signatures
    exported[function] = [str(s) for s in signatures]
    for i, signature in enumerate(signatures):
        symbol = function if len(signatures) == 1 else f"{function}_{i}"
        cc.export(symbol, signature)(getattr(K, function).py_func)
cc.compile()
done = time.perf_counter()
print("RESULT " + json.dumps({"jit": jitted - began, "pycc": done - jitted, "numba": numba.__version__,
                              "exported": exported, "warning": [str(w.message)[:60] for w in caught]}))
"""

# swaps kernels.backend's choice for the kernels the AOT modules have (AOT_PYCC: the pycc
# module's folder, AOT_C: the C module's, scan and LCS), then runs the command
KERNELS_CODE = """\
import os, sys
import numpy as np
from rouge_exact.kernels import backend
from rouge_exact.kernels.scan import _WORD_BYTE_FOLD


def aot_kernels(pycc_dir, c_dir=None):
    sys.path.insert(0, pycc_dir)
    import rouge_aot_kernels as aot
    kernels = {name: getattr(aot, name) for name in (
        "stem_table_insert", "porter_stem_codes", "ngram_stats", "lcs_stats", "union_lcs_stats",
        "exact_column_sums", "example_prf", "poisson_bootstrap_sums")}
    kernels["scan_stem_tokens"] = lambda buf, size, keys, vals, stem: aot._scan_stem(
        buf, _WORD_BYTE_FOLD, size, keys, vals, stem, False)[:7]  # (kernels.scan's wrapper)
    kernels["dense_ids"] = lambda values: aot.pair_dense_ids(
        np.ascontiguousarray(values, dtype=np.int64))  # (kernels.registry's wrapper)
    c = {}
    if c_dir:
        sys.path.insert(0, c_dir)
        import rouge_c_kernels as cmod
        c["scan_stem_tokens"] = lambda buf, size, keys, vals, stem: cmod.scan_stem(
            buf, _WORD_BYTE_FOLD, size, keys, vals, stem)
        c["lcs_stats"] = cmod.lcs_stats
    return kernels, c
"""

RUNNER = KERNELS_CODE + """\
import atexit
kernels, c = aot_kernels(os.environ["AOT_PYCC"], os.environ.get("AOT_C"))
kernels.update(c)
package_choice = backend._implementation
backend._implementation = lambda name, chosen: kernels.get(name) or package_choice(name, chosen)
atexit.register(lambda: print(f"AOT-RUN numba imported: {'numba' in sys.modules}"))
from rouge_exact.cli.main import console
sys.argv = ["rouge-exact", *sys.argv[1:]]
console()
"""

CHECK = KERNELS_CODE + """\
import contextlib, io, json, time
kernels, c = aot_kernels(sys.argv[1], sys.argv[2])
seconds, calls, unequal = {}, {}, []


def same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a, b))
    return type(a) is type(b) and a == b


def copies(args):
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            b = a.copy()
            b.flags.writeable = a.flags.writeable  # (numba: the signature's readonly buffer)
            a = b
        out.append(a)
    return out


def compared(name, jitted):
    sides = [("numba", jitted), ("pycc", kernels[name])] + ([("c", c[name])] if name in c else [])

    def run(*args):
        calls[name] = calls.get(name, 0) + 1
        results, best = {}, {}
        for turn in range(3):  # taking turns, each on copies (some change their arguments)
            for label, function in sides[turn % len(sides):] + sides[:turn % len(sides)]:
                given = copies(args)
                began = time.perf_counter()
                out = function(*given)
                took = time.perf_counter() - began
                best[label] = min(best.get(label, took), took)
                results[label] = (out, given)
        for label, took in best.items():
            seconds.setdefault(name, {}).setdefault(label, 0.0)
            seconds[name][label] += took
        for label in results:
            if label != "numba" and not (same(results[label][0], results["numba"][0]) and all(
                    same(x, y) for x, y in zip(results[label][1], results["numba"][1]))):
                unequal.append(f"{name} ({label}), call {calls[name]}")
        return jitted(*args)  # the run goes on with numba's, on its own arguments
    return run


package_choice = backend._implementation
wrapped = {}


def choice(name, chosen):
    function = package_choice(name, chosen)
    if name in kernels:
        wrapped.setdefault(name, compared(name, function))
        return wrapped[name]
    return function


backend._implementation = choice
from rouge_exact.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(["--jsonl", sys.argv[3], "--use-stemmer"])
print("RESULT " + json.dumps({"status": status, "stdout": out.getvalue(), "seconds": seconds,
                              "calls": calls, "unequal": unequal}))
"""

IMPORT_NUMBA = """\
import json, sys, time
import numpy
from rouge_exact.kernels import backend
names = json.loads(sys.argv[1])
began = time.perf_counter()
import numba
imported = time.perf_counter()
backend.start(tuple(names))  # each kernel loaded from the warm cache, as a run loads them
loaded = time.perf_counter()
assert set(names) <= set(backend._compiled), sorted(set(names) - set(backend._compiled))
print("RESULT " + json.dumps({"numba": imported - began, "kernels": loaded - imported,
                              "total": loaded - began}))
"""

IMPORT_MODULE = """\
import json, sys, time
import numpy
from rouge_exact.kernels import backend
sys.path.insert(0, sys.argv[1])
began = time.perf_counter()
__import__(sys.argv[2])
took = time.perf_counter() - began
assert "numba" not in sys.modules
print("RESULT " + json.dumps({"total": took}))
"""


# ---- the parent: standard library only ------------------------------------------------------

def log(message):
    sys.stderr.write(f"[aot_floor {time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


def child_env(args, work):
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("ROUGE_METRIC_BACKEND", None)
    env.update(PYTHONPATH=os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")])),
               PYTHONWARNINGS="ignore")
    if args.kernel_cache:
        env["ROUGE_METRIC_CACHE_DIR"] = os.path.abspath(args.kernel_cache)
    return env


def size_of(path):
    """(bytes, bytes stripped of symbols, or None without strip)."""
    stripped = None
    if shutil.which("strip"):
        copy = path + ".stripped"
        subprocess.run(["strip", "-o", copy, path], check=True)
        stripped = os.path.getsize(copy)
        os.remove(copy)
    return os.path.getsize(path), stripped


def build_pycc(args, env, work, names):
    out = os.path.join(work, "pycc")
    os.makedirs(out)
    # a numba cache of its own: the JIT pass neither reads nor writes the package's
    build_env = dict(env, NUMBA_CACHE_DIR=os.path.join(work, "pycc-numba-cache"))
    seconds, _, stdout = spawn([args.python, "-c", BUILD_PYCC, os.path.join(ROOT, "rouge_exact",
                                "kernels"), out, json.dumps(names), json.dumps(WRAPPED),
                                json.dumps(KERNEL_FILES), args.target_cpu], build_env, 1800)
    built = result_line(stdout)
    found = [f for f in os.listdir(out) if f.startswith("rouge_aot_kernels.")]
    if len(found) != 1:
        raise Failed(f"pycc: no module in {out}: {os.listdir(out)}")
    built.update(seconds=seconds, path=os.path.join(out, found[0]))
    built["bytes"], built["stripped"] = size_of(built["path"])
    return out, built


def build_c(args, work):
    out = os.path.join(work, "c")
    os.makedirs(out)
    info = subprocess.run([args.python, "-c", "import json, sysconfig, numpy; print(json.dumps("
                           "[sysconfig.get_paths()['include'], numpy.get_include(), "
                           "sysconfig.get_config_var('EXT_SUFFIX')]))"],
                          capture_output=True, text=True, check=True)
    python_include, numpy_include, suffix = json.loads(info.stdout)
    target = os.path.join(out, "rouge_c_kernels" + suffix)
    command = [shutil.which("gcc") or "cc", "-O2", "-shared", "-fPIC",
               "-I" + python_include, "-I" + numpy_include, C_SOURCE, "-o", target]
    began = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    built = {"seconds": time.perf_counter() - began, "path": target,
             "command": "gcc -O2 -shared -fPIC aot_floor.c"}
    built["bytes"], built["stripped"] = size_of(target)
    return out, built


def spread(values):
    values = sorted(values)
    return f"{statistics.median(values):.3f} s ({values[0]:.3f}-{values[-1]:.3f})"


def check(args, env, work, pycc_dir, c_dir, pairs):
    log("check: every kernel call of the 10k run against numba's, one thread")
    _, _, stdout = spawn([args.python, "-c", CHECK, pycc_dir, c_dir, pairs],
                         dict(env, ROUGE_METRIC_BACKEND="numba", ROUGE_METRIC_THREADS="1"), 1800)
    out = result_line(stdout)
    if out["unequal"]:
        raise Failed("results differ from numba's: " + "; ".join(out["unequal"][:10]))
    if out["status"] != 0 or sorted(out["calls"]) != sorted(RUN_KERNELS):
        raise Failed(f"check: exit {out['status']}, kernels called {sorted(out['calls'])}, "
                     f"expected {sorted(RUN_KERNELS)}")
    return out


def import_rows(args, env, pycc_dir, c_dir):
    numba_runs, pycc_runs, c_runs = [], [], []
    for i in range(args.runs):
        numba_runs.append(result_line(spawn([args.python, "-c", IMPORT_NUMBA,
                                             json.dumps(RUN_KERNELS)], env, 600)[2]))
        pycc_runs.append(result_line(spawn([args.python, "-c", IMPORT_MODULE, pycc_dir,
                                            "rouge_aot_kernels"], env, 600)[2])["total"])
        c_runs.append(result_line(spawn([args.python, "-c", IMPORT_MODULE, c_dir,
                                         "rouge_c_kernels"], env, 600)[2])["total"])
        log(f"import {i + 1}/{args.runs}: numba + kernels {numba_runs[-1]['total']:.3f} s, "
            f"pycc {pycc_runs[-1] * 1e3:.2f} ms, C {c_runs[-1] * 1e3:.2f} ms")
    return numba_runs, pycc_runs, c_runs


def whole_rows(args, env, pycc_dir, c_dir, pairs):
    command = ["--jsonl", pairs, "--use-stemmer"]
    variants = [
        ("numba, warm kernel cache (the command as shipped)",
         [args.python, "-m", "rouge_exact", *command], env),
        ("pycc module (all 10 kernels)", [args.python, "-c", RUNNER, *command],
         dict(env, AOT_PYCC=pycc_dir)),
        ("pycc module, scan + LCS from the C module", [args.python, "-c", RUNNER, *command],
         dict(env, AOT_PYCC=pycc_dir, AOT_C=c_dir)),
        ("rouge-score-rs score_batch (no interval)", [args.python, "-c", PEER_RS, pairs], env),
    ]
    if args.twins:
        variants.append(("numpy twins alone (ROUGE_METRIC_BACKEND=numpy)",
                         [args.python, "-m", "rouge_exact", *command],
                         dict(env, ROUGE_METRIC_BACKEND="numpy")))
    runs = {name: [] for name, _, _ in variants}
    outputs = {}
    for i in range(args.runs):
        for name, argv, variant_env in variants:
            seconds, rss, stdout = spawn(argv, variant_env, 1800)
            runs[name].append((seconds, rss))
            outputs.setdefault(name, stdout)
        log(f"10k {i + 1}/{args.runs}: " + ", ".join(
            f"{runs[name][-1][0]:.3f}" for name, _, _ in variants) + " s")
    reference = outputs[variants[0][0]]
    checked = []
    for name, argv, _ in variants:
        text = outputs[name]
        if "RESULT " in text:  # the peer
            peer = result_line(text)
            ours = command_rouge1(reference)
            if ours is None or ours[0] != peer["count"] or abs(ours[1] - peer["rouge1_f"]) > 0.5e-5:
                raise Failed(f"rs gives {peer}; ours {ours}")
            checked.append(f"rs: count {peer['count']}, rouge1 F {peer['rouge1_f']:.5f}, "
                           "ours the same to 5 decimals")
            continue
        lines = text.splitlines(keepends=True)
        flags = [x for x in lines if x.startswith("AOT-RUN ")]
        body = "".join(x for x in lines if not x.startswith("AOT-RUN "))
        if body != reference:
            raise Failed(f"{name}: its output differs from the numba run's:\n{body}\n---\n{reference}")
        if flags and flags[-1].strip() != "AOT-RUN numba imported: False":
            raise Failed(f"{name}: {flags[-1].strip()} (a kernel came from numba)")
        if argv[1] == "-c":
            checked.append(f"{name}: output equal to the numba run's byte for byte; numba "
                           "never imported")
    return variants, runs, checked


def kib(n):
    return f"{n / 1024:,.0f} KiB" if n is not None else "-"


def report(args, built, checked_kernels, imports, whole, load_before):
    pycc, c = built
    numba_runs, pycc_runs, c_runs = imports
    variants, runs, checked = whole
    lines = [f"`python3 benchmarks/aot_floor.py {' '.join(sys.argv[1:])}`".replace(" `", "`"),
             "",
             f"{os.cpu_count()} CPUs, load average {load_before} before, "
             f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after; children {args.python} "
             f"(numba {pycc['numba']}); medians (min-max) of {args.runs} fresh processes a row, "
             "taking turns", "",
             "**10,000 pairs, the whole process** (`rouge-exact --jsonl FILE --use-stemmer`, "
             "rouge1/2/L/Lsum, default interval; process.py's file)", "",
             "| kernels from | seconds | / numba run | peak RSS |", "|---|---|---|---|"]
    base = statistics.median(s for s, _ in runs[variants[0][0]])
    for name, _, _ in variants:
        seconds = [s for s, _ in runs[name]]
        rss = statistics.median(r for _, r in runs[name]) / 1e6
        lines.append(f"| {name} | {spread(seconds)} | {statistics.median(seconds) / base:.2f}x "
                     f"| {rss:.0f} MB |")
    lines += ["", "**Import** (fresh processes; numpy and rouge_exact.kernels.backend imported "
              "before the clock)", "", "| what | seconds |", "|---|---|",
              f"| `import numba` | {spread([r['numba'] for r in numba_runs])} |",
              f"| + loading the run's 10 kernels from the warm cache | "
              f"{spread([r['kernels'] for r in numba_runs])} |",
              f"| both | {spread([r['total'] for r in numba_runs])} |",
              f"| import the pycc module | {spread(pycc_runs)} |",
              f"| import the C module | {spread(c_runs)} |", "",
              "**Kernels in one process** (the 10k run on one thread; the least of 3 runs of "
              "each call, summed; results equal to numba's to the last bit)", "",
              "| kernel | calls | numba (JIT, host CPU) | pycc "
              f"({args.target_cpu or 'generic'} CPU) | C (gcc -O2, generic) |",
              "|---|---|---|---|---|"]
    for name in RUN_KERNELS:
        s = checked_kernels["seconds"][name]
        by_c = f"{s['c']:.4f} s" if "c" in s else "-"
        lines.append(f"| {name} | {checked_kernels['calls'][name]} | {s['numba']:.4f} s | "
                     f"{s['pycc']:.4f} s | {by_c} |")
    lines += ["", "**Build** (in a temporary folder)", "",
              "| module | seconds | .so | stripped | needs to build | needs to run |",
              "|---|---|---|---|---|---|",
              f"| pycc, {sum(len(v) for v in pycc['exported'].values())} functions | "
              f"{pycc['seconds']:.1f} (JIT pass for the signatures {pycc['jit']:.1f}, pycc "
              f"{pycc['pycc']:.1f}) | {kib(pycc['bytes'])} | {kib(pycc['stripped'])} | numba, "
              "llvmlite, setuptools, a C compiler | numpy |",
              f"| C (scan, LCS), `{c['command']}` | {c['seconds']:.2f} | {kib(c['bytes'])} | "
              f"{kib(c['stripped'])} | a C compiler, numpy headers | numpy |", ""]
    lines += [f"checked: {x}" for x in checked]
    lines.append(f"checked: {sum(checked_kernels['calls'].values())} kernel calls of the 10k "
                 "run, pycc (and C for scan, LCS) equal to numba's, arrays changed in place too")
    if pycc["warning"]:
        lines.append(f"pycc warns on import: {pycc['warning'][0]}...")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="runs a row (default 7)")
    ap.add_argument("--python", default=BENCH_PYTHON if os.path.exists(BENCH_PYTHON)
                    else sys.executable, help="the children's interpreter (default "
                    "benchmarks/.venv/bin/python)")
    ap.add_argument("--kernel-cache", help="the warm kernel cache (default "
                    "ROUGE_METRIC_CACHE_DIR, else the package's own)")
    ap.add_argument("--twins", action="store_true", help="a row for the numpy twins alone")
    ap.add_argument("--all-kernels", action="store_true",
                    help="pycc builds all 17 kernels (the runs use the same 10)")
    ap.add_argument("--target-cpu", default="", help="pycc's CPU model: '' (default: "
                    "generic x86-64, as a portable wheel), 'host', 'x86-64-v3' (AVX2)...")
    ap.add_argument("--keep", action="store_true", help="keep the build folder (printed)")
    ap.add_argument("--out", help="write the tables to this file too")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    work = tempfile.mkdtemp(prefix="rouge-aot-floor-")
    try:
        env = child_env(args, work)
        pairs = pairs_file(work, 10_000)
        log("kernels: --compile into the warm cache (instant when it is compiled)")
        spawn([args.python, "-m", "rouge_exact", "--compile"], env, 1800)
        names = list(RUN_KERNELS)
        if args.all_kernels:
            names = json.loads(subprocess.run(
                [args.python, "-c", "import json; from rouge_exact.kernels import registry; "
                 "print(json.dumps(list(registry.EXAMPLES)))"], env=env, capture_output=True,
                text=True, check=True).stdout)
        log(f"build: pycc ({len(names)} kernels)")
        pycc_dir, pycc = build_pycc(args, env, work, names)
        log(f"build: pycc {pycc['seconds']:.1f} s; C")
        c_dir, c = build_c(args, work)
        checked_kernels = check(args, env, work, pycc_dir, c_dir, pairs)
        imports = import_rows(args, env, pycc_dir, c_dir)
        whole = whole_rows(args, env, pycc_dir, c_dir, pairs)
    except (Failed, subprocess.CalledProcessError) as error:
        sys.exit(f"aot_floor.py: {error}")
    finally:
        if args.keep:
            log(f"kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    text = report(args, (pycc, c), checked_kernels, imports, whole, load_before)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
