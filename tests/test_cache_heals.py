"""The kernel cache heals (issue 38, row 6 and "The cache heals").

Each test copies one complete kernel cache folder (compiled once for the module), damages one
kind of file in the copy, and runs two fresh processes on it (ROUGE_METRIC_CACHE_DIR):

* the first returns the right numbers (the numpy twins' and the hand-computed ones), warns
  once with a KernelCacheWarning that names the folder, serves the damaged kernel from its
  twin at first (a kernel without a twin waits for its recompile, as on an empty cache), and
  has every kernel compiled once `compile_kernels(wait=True)` returns;
* the second finds a healthy cache: no warning, every kernel loaded once it is asked for
  (the first call, of one pair, loads none: its twins cost less);
* no process is left behind.

And a Ctrl-C that lands while a kernel loads is no damage: it goes up, the cache untouched.

Before the fix, a garbled index or data file killed every run (UnpicklingError), an altered
copy of the kernels was compiled and run (wrong numbers, or a SyntaxError every run), and a
marker without its files or an index of another numba made the first call compile in the
caller's thread, silently.
"""
import glob
import json
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import staged
from test_backend import _alive  # the pids whose command line holds a marker

# the full tier only: every case runs fresh processes on a copied cache (5-35 s each)
pytestmark = pytest.mark.slow


KERNELS = sorted(staged("kernels.backend").KERNELS)  # every kernel of every kernel module
# the kernels' files the backend copies into the cache folder (registry.py, scan.py, ...)
KERNEL_FILES = staged("kernels.backend").KERNEL_FILES
assert {"registry.py", "score.py"} <= set(KERNEL_FILES)
assert {"ngram_stats", "perl_bootstrap_means", "scan_stem_tokens", "set_union_lcs_stats",
        "wlcs_stats"} <= set(KERNELS)
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW", "rougeSU4"]
PRED, REF = "the cats sat on the mat", "the cat lay on the mat"

# One process on the cache: the first call (default profile: the twins serve what is not
# compiled yet), the kernels it had compiled then, a ROUGE-1.5.5 interval (its bootstrap has no
# twin), every kernel compiled, the first call again; the warnings of all of it.
_RUN = textwrap.dedent("""
    import json, sys, warnings
    import rouge_exact
    from rouge_exact.kernels import backend as backend
    pred, ref, types = json.loads(sys.argv[1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = rouge_exact.compute([pred], [ref], rouge_types=types, use_stemmer=True)
        first = sorted(backend._compiled)
        perl = rouge_exact.compute([pred, ref], [ref, pred], rouge_types=["rouge1"],
                                   profile="rouge155", detailed=True, n_samples=30)
        rouge_exact.compile_kernels(wait=True)
        again = rouge_exact.compute([pred], [ref], rouge_types=types, use_stemmer=True)
    print(json.dumps(dict(
        out=out, again=again, perl=perl["rouge1"], first=first,
        compiled=sorted(backend._compiled), folder=backend._folder(),
        warnings=[[w.category.__name__, str(w.message)] for w in caught])))
""")

# The Space's traceback helper, compiled at its first call (not a kernel: no marker, no twin)
_HELPER = textwrap.dedent("""
    import json, warnings
    import numpy as np
    from rouge_exact.kernels import backend as backend
    from rouge_exact.kernels import registry as plain
    args = lambda: (np.array([1, 2, 3, 1, 3, 2]), np.array([0, 3, 6]), 0, 1, 1, 2,
                    np.array([1, 2, 3, 1, 3, 2]), 0, 3, 3, 6, None, np.zeros(3, dtype=np.bool_))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = args()
        hit = backend.helper("_union_pair")(*got)
        want = args()
        want_hit = plain._union_pair(*want)
    print(json.dumps(dict(hit=float(hit), marks=got[-1].tolist(), want=[float(want_hit),
                                                                        want[-1].tolist()],
                          warnings=[[w.category.__name__, str(w.message)] for w in caught])))
""")


def _env(cache_root, **extra) -> dict:
    """A subprocess's environment: the package as installed, this cache root."""
    env = {k: v for k, v in os.environ.items() if k != "ROUGE_METRIC_BACKEND"}
    env.update(ROUGE_METRIC_CACHE_DIR=str(cache_root), **extra)
    return env


def _none_left(folder) -> None:
    deadline = time.monotonic() + 10
    while _alive(str(folder)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(str(folder)) == []


def _run(cache_root, script=_RUN, **extra) -> dict:
    done = subprocess.run([sys.executable, "-c", script, json.dumps([PRED, REF, TYPES])],
                          env=_env(cache_root, **extra), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A complete kernel cache folder: the session's (compiled here if it is not)."""
    root = os.environ["ROUGE_METRIC_CACHE_DIR"]
    folder = _run(root)["folder"]
    if not all(os.path.exists(os.path.join(folder, k + ".cached")) for k in KERNELS):
        root = tmp_path_factory.mktemp("kernels")  # (the session's is being written)
        folder = _run(root)["folder"]
    assert all(os.path.exists(os.path.join(folder, k + ".cached")) for k in KERNELS)
    return folder


@pytest.fixture(scope="module")
def expected():
    """The numbers of the numpy twins (ROUGE_METRIC_BACKEND=numpy), and by hand."""
    code = textwrap.dedent("""
        import json, sys, rouge_exact
        pred, ref, types = json.loads(sys.argv[1])
        out = rouge_exact.compute([pred], [ref], rouge_types=types, use_stemmer=True)
        perl = rouge_exact.compute([pred, ref], [ref, pred], rouge_types=["rouge1"],
                                   profile="rouge155", detailed=True, n_samples=30)
        print(json.dumps([out, perl["rouge1"]]))
    """)
    done = subprocess.run([sys.executable, "-c", code, json.dumps([PRED, REF, TYPES])],
                          env=_env(os.environ["ROUGE_METRIC_CACHE_DIR"],
                                   ROUGE_METRIC_BACKEND="numpy"),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out, perl = json.loads(done.stdout)
    # cats -> cat: 5 of 6 unigrams, 3 of 5 bigrams, an LCS of 5 (the cat on the mat)
    assert (out["rouge1"], out["rouge2"], out["rougeL"]) == (5 / 6, 3 / 5, 5 / 6)
    return out, perl


@pytest.fixture
def cache(base, tmp_path):
    """A copy of the complete cache folder, for one test to damage: (root, folder)."""
    root = tmp_path / "kernels"
    folder = root / os.path.basename(base)
    shutil.copytree(base, folder, ignore=shutil.ignore_patterns("set-aside", "*.tmp"))
    return root, folder


def _files(folder, function: str, suffix: str) -> list:
    # (numba names a function's files after its kernels file: score.ngram_stats-...)
    found = sorted(path for file in KERNEL_FILES for path in glob.glob(
        str(folder / "__pycache__" / f"{file[:-len('.py')]}.{function}-*{suffix}")))
    assert found, (function, suffix)
    return found


def _cache_warnings(result) -> list:
    return [message for category, message in result["warnings"]
            if category == "KernelCacheWarning"]


def _heals(cache, expected, damaged: list, twin_first=True, where="by a compile process",
           loads_all=True, several=False, **extra):
    """Run twice on the damaged copy: the first run heals (see the module's docstring), the
    second finds the cache healthy. Returns the first run's warning (several: its warnings,
    one a line: kernels load as calls need them, each load that finds damage says so once,
    naming what it found)."""
    root, folder = cache
    first = _run(root, **extra)
    out, perl = expected
    assert first["out"] == out and first["again"] == out
    assert first["perl"] == perl
    found = _cache_warnings(first)
    assert found if several else len(found) == 1, found  # one warning, naming the folder
    assert all(str(folder) in warning and where in warning for warning in found)
    warning = "\n".join(found)
    for name in damaged:
        assert name in warning
        if twin_first:  # its twin served the first call while it was recompiled
            assert name not in first["first"]
    assert first["compiled"] == KERNELS
    _none_left(folder)
    second = _run(root, **extra)
    assert second["out"] == out and second["perl"] == perl
    assert _cache_warnings(second) == []
    if loads_all:  # the first call (one pair) runs on the twins: no kernel loaded for it
        assert second["first"] == [] and second["compiled"] == KERNELS
    else:  # (=numba: each at its first use)
        assert set(damaged) <= set(second["first"])
    _none_left(folder)
    return warning


def _aside(folder) -> list:
    return sorted(os.listdir(folder / "set-aside")) if (folder / "set-aside").exists() else []


def _garble(path) -> None:
    with open(path, "wb") as f:
        f.write(bytes(range(7, 251)) * 3)  # no pickle: byte 7 is no opcode


def _truncate(path) -> None:
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:len(data) // 2])


@pytest.mark.parametrize("kernel, suffix, damage", [
    ("ngram_stats", ".nbi", _garble),
    ("lcs_stats", ".nbi", _truncate),
    ("skip_bigram_stats", ".nbc", _garble),
    ("wlcs_stats", ".nbc", _truncate),
], ids=["garbled-index", "truncated-index", "garbled-data", "truncated-data"])
def test_a_damaged_cache_file_is_set_aside_and_recompiled(cache, expected, kernel, suffix,
                                                          damage):
    _, folder = cache
    files = _files(folder, kernel, suffix)
    assert files and (suffix == ".nbc" or len(files) == 1), files  # one index a kernel
    damage(files[0])
    warning = _heals(cache, expected, [kernel])
    if damage is _garble and suffix == ".nbi":
        assert "UnpicklingError" in warning
    [aside] = _aside(folder)
    assert aside.startswith(os.path.basename(files[0]) + ".")


def test_a_kernel_without_a_twin_waits_for_its_recompile(cache, expected):
    """ROUGE-1.5.5's bootstrap has no twin: its call waits for the recompile (as on an empty
    cache) and gives the numbers of the plain-Python kernel (ROUGE_METRIC_BACKEND=numpy)."""
    _, folder = cache
    [index] = _files(folder, "perl_bootstrap_means", ".nbi")
    _garble(index)
    _heals(cache, expected, ["perl_bootstrap_means"])


def test_a_marker_without_its_files_is_recompiled_off_the_caller(cache, expected):
    """The files went, the marker stayed: the first call used to compile the kernel in the
    caller's thread, silently; now its twin serves while a compile process makes them."""
    _, folder = cache
    for path in _files(folder, "ngram_stats", ".nbi") + _files(folder, "ngram_stats", ".nbc"):
        os.remove(path)
    warning = _heals(cache, expected, ["ngram_stats"])
    assert "files missing" in warning and _aside(folder) == []


def test_an_index_of_another_numba_is_recompiled(cache, expected):
    """numba ignores an index that another numba wrote (the version it records first): that
    kernel would compile in the caller's thread; now its twin serves meanwhile."""
    _, folder = cache
    [index] = _files(folder, "ngram_stats", ".nbi")
    with open(index, "rb") as f:
        version = pickle.load(f)
        rest = f.read()
    assert isinstance(version, str)
    with open(index, "wb") as f:
        pickle.dump("0.50.0", f)
        f.write(rest)
    warning = _heals(cache, expected, ["ngram_stats"])
    assert "another numba" in warning


@pytest.mark.parametrize("file, alteration", [
    # runs, with the wrong numbers: every n-gram count zero
    ("score.py",
     "\n_counted = ngram_stats\n\ndef ngram_stats(*args):\n    return _counted(*args) * 0\n"),
    ("registry.py", "\ndef broken(:\n"),  # does not even import
])
def test_an_altered_copy_of_the_kernels_is_restored(cache, expected, file, alteration):
    """The altered file is set aside and restored; the others are written anew too (numba
    keys a kernel's cache to its own file, and its code holds what it calls from the
    others), so every kernel is compiled again once."""
    root, folder = cache
    copy = folder / file
    original = copy.read_bytes()
    with open(copy, "a") as f:
        f.write(alteration)
    others = {folder / name: (folder / name).stat().st_mtime_ns for name in KERNEL_FILES
              if folder / name != copy}
    assert len(others) >= 4
    first = _run(root)
    out, perl = expected
    assert first["out"] == out and first["again"] == out and first["perl"] == perl
    [warning] = _cache_warnings(first)
    assert str(folder) in warning and file in warning
    assert first["compiled"] == KERNELS
    assert copy.read_bytes() == original
    assert all(path.stat().st_mtime_ns != before for path, before in others.items())
    [aside] = _aside(folder)
    assert (folder / "set-aside" / aside).read_bytes() == original + alteration.encode()
    _none_left(folder)
    second = _run(root)
    assert second["out"] == out and _cache_warnings(second) == []
    assert second["first"] == [] and second["compiled"] == KERNELS
    _none_left(folder)


def test_under_the_numba_backend_it_is_recompiled_in_the_caller(cache, expected):
    """ROUGE_METRIC_BACKEND=numba compiles in the caller's thread: so does the heal."""
    _, folder = cache
    _garble(_files(folder, "ngram_stats", ".nbi")[0])
    _heals(cache, expected, ["ngram_stats"], twin_first=False, where="recompiled here",
           loads_all=False, ROUGE_METRIC_BACKEND="numba")


@pytest.mark.slow
def test_a_garbled_callee_found_by_the_compile_process_is_healed(cache, expected):
    """Two kernels missing (no marker, no index) and the index of a function they call
    garbled: the compile process fails on both and says so; the files are set aside and a
    second compile process makes them. Before, the compile process died, and the kernels'
    compile in the caller (compile_kernels(wait=True)) raised UnpicklingError."""
    _, folder = cache
    for name in ("union_lcs_stats", "wlcs_stats"):
        os.remove(folder / f"{name}.cached")
        for path in _files(folder, name, ".nbi"):
            os.remove(path)
    _garble(_files(folder, "_union_pairs", ".nbi")[0])
    warning = _heals(cache, expected, ["union_lcs_stats", "wlcs_stats"])
    assert "the compile process raised" in warning


@pytest.mark.slow
def test_every_index_garbled_at_once(cache, expected):
    """Garbage in every index file: all of them are set aside, every kernel recompiled."""
    _, folder = cache
    indexes = glob.glob(str(folder / "__pycache__" / "*.nbi"))
    for path in indexes:
        _garble(path)
    _heals(cache, expected, KERNELS, several=True)  # (the ROUGE-1.5.5 call's kernel, then
    assert len(_aside(folder)) == len(indexes)    # the rest as compile_kernels loads them)


def test_the_space_helper_heals_where_it_compiles(cache):
    """helper('_union_pair') (the Space's traceback) compiles at its first call, in the
    caller's thread: a garbled index of it is set aside there and it compiles again."""
    root, folder = cache

    def run():
        done = subprocess.run([sys.executable, "-c", _HELPER], env=_env(root),
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        result = json.loads(done.stdout.splitlines()[-1])
        # the union LCS of [1 2 3] and [1 3 2]: 2 tokens, as the plain-Python kernel finds
        assert [result["hit"], result["marks"]] == result["want"]
        assert result["hit"] == 2 and sum(result["marks"]) == 2
        return _cache_warnings(result)

    assert run() == []  # compiled and cached
    _garble(_files(folder, "_union_pair", ".nbi")[0])
    [warning] = run()
    assert str(folder) in warning and "_union_pair" in warning
    assert run() == []
    _none_left(folder)


@pytest.mark.slow
def test_two_processes_heal_the_same_cache_at_once(cache, expected):
    """Both find the garbled index, one sets it aside, both give the right numbers; the
    cache is healthy afterwards."""
    root, folder = cache
    _garble(_files(folder, "ngram_stats", ".nbi")[0])
    runs = [subprocess.Popen([sys.executable, "-c", _RUN, json.dumps([PRED, REF, TYPES])],
                             env=_env(root), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]
    for process in runs:
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stderr[-3000:]
        result = json.loads(stdout.splitlines()[-1])
        assert result["out"] == expected[0] and result["compiled"] == KERNELS
    _none_left(folder)
    again = _run(root)
    assert _cache_warnings(again) == [] and again["compiled"] == KERNELS
    _none_left(folder)


_INTERRUPTED = textwrap.dedent("""
    import json, os, sys, warnings
    from rouge_exact.kernels import backend as backend
    module = backend._compiled_module()

    def interrupted(K):  # as numba surfaces a Ctrl-C that lands while a kernel loads
        if sys.argv[1] == "swallowed":  # the Ctrl-C went to a finalizer: the rouge command
            backend.INTERRUPT_CHECKS.append(lambda: True)  # saw it, the load just fails
            raise EOFError("Ran out of input")
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as error:
            raise SystemError("CPUDispatcher(...) returned a result with an exception set") \\
                from error

    module.EXAMPLES["ngram_stats"] = interrupted
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            backend.start(("ngram_stats",))  # (loaded now: the cache has it)
            raised = None
        except BaseException as error:
            raised = type(error).__name__
    folder = backend._folder()
    print(json.dumps(dict(raised=raised, warnings=[str(w.message) for w in caught],
                          marker=os.path.exists(os.path.join(folder, "ngram_stats.cached")),
                          process=backend._state["process"] is not None)))
""")


@pytest.mark.parametrize("how, raised", [("wrapped", "SystemError"),
                                         ("swallowed", "KeyboardInterrupt")])
def test_a_ctrl_c_while_a_kernel_loads_is_no_damage(cache, how, raised):
    """A Ctrl-C that numba wraps in a SystemError as a kernel loads goes up to the caller (the
    command line exits 130 on it): it is not taken for a damaged cache, healed and swallowed.
    Nor is a load that fails after a Ctrl-C that something swallowed and the rouge command
    saw (kernels.backend.INTERRUPT_CHECKS): the load stops with KeyboardInterrupt."""
    root, folder = cache
    done = subprocess.run([sys.executable, "-c", _INTERRUPTED, how], env=_env(root),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result == dict(raised=raised, warnings=[], marker=True, process=False)
    assert _aside(folder) == []
    _none_left(folder)
