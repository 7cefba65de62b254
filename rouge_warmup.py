"""Cold start: where numba keeps the compiled kernels, how they get compiled without making a
caller wait, and which tier runs a kernel call until they are there.

numba compiles a kernel on its first call (0.2-9 s each; 14-18 s for the default types on a
quiet core, depending on the machine), once per machine, then loads it from its disk cache
(~0.3 s for the first kernel of a process, ~0.01 s for each further one). Four tiers serve a
call, chosen per call:

1. compiled: the numba kernel, once this process has it;
2. wait: load it from the disk cache when it is there (or, for a batch too big for the tiers
   below, wait for the compiler);
3. vectorised: the same statistics computed on the whole batch with numpy (rouge_vectorized),
   within bounds (VECTOR_MAX_*) past which waiting for the compiler is quicker;
4. plain Python: rouge_kernels run once more as plain Python (pure_python_twin), for small
   batches of the kernels without a numpy twin (the bootstraps).

The numbers are the same on every tier (tests/test_tiers.py, tests/test_coldstart.py).

Compiling: ``evaluate.load`` (``start_at_load``) loads the kernels of the default types and of
rougeW/rougeSU when the disk cache has them, and otherwise starts a compile *process* (``python
-c ...`` on this same file, ``start_new_session``) that fills the disk cache: it shares no GIL
with the caller, holds nothing across a fork, and finishes even when the caller exits first.
It compiles in two phases: at nice 5 what a first call of the default types needs (lcs_stats
excepted: union_lcs_stats stands in for it, STAND_INS), then at nice 19 lcs_stats and rougeW's
and rougeSU's kernels. Calls stop a process in its nice-19 phase while they score
(``compile_paused``); a call that must wait for one of its kernels hands that kernel to a new
nice-5 process (``_hurry``). A thread of the caller (``_adopt``) loads each kernel as soon as a
process has cached it, so a call made after the compile finds it ready. A call that finds
another kernel missing starts a process for it. One nice-5 phase at a time per cache folder (an
flock).
Where numba cannot cache, or with ROUGE_METRIC_BACKGROUND_COMPILE=thread, a thread compiles
instead; =0 turns background compiling off (numba's own behaviour: compile at first use).
``warm_up(types)`` compiles or loads what the types need and waits (the Space, at start-up).
numba itself is imported at the first use of a kernel (``lazy_njit``), not at import.

The cache: ``<user cache dir>/rouge_metric/kernels-<key>`` (``~/.cache/rouge_metric`` on Linux,
``$XDG_CACHE_HOME`` honoured; ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows),
where the key hashes the kernels' source, the module name evaluate gives them, numba's and
Python's versions. New copies of the same version share it; the newest ``CACHE_KEEP`` folders
are kept, older ones removed. ``ROUGE_METRIC_CACHE_DIR=/path`` moves it;
``ROUGE_METRIC_CACHE_DIR=none`` (or setting ``NUMBA_CACHE_DIR``) leaves numba's own choice.

Fork: a process forked while this process compiles (a thread, or a foreground compile)
inherits numba's compiler lock held by a thread it does not have. Such a child never compiles:
it runs what was compiled before the fork and the vectorised / plain Python tiers for the
rest. A fork waits for the nltk import of start_at_load's thread to finish first.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import os
import queue
import shutil
import signal
import sys
import threading
import time

import numpy as np

CACHE_ENV = "ROUGE_METRIC_CACHE_DIR"
CACHE_KEEP = 4  # kernel cache folders kept (one per version/copy name in use)
BACKGROUND_ENV = "ROUGE_METRIC_BACKGROUND_COMPILE"  # "0": compile in the foreground, as numba does

# Above this much work a call waits for the compiler rather than run the vectorised tier
# (measured on realsumm: the vectorised tier does ~1,000 pairs in 0.1-0.3 s, a compile takes
# 2-8 s per kernel).
VECTOR_MAX_TOKENS = 800_000  # tokens of the pairs of one call (n-grams, skip-bigrams)
VECTOR_MAX_CELLS = 25_000_000  # prediction x reference tokens of one call (LCS kinds)
VECTOR_MAX_BYTES = 16_000_000  # bytes scanned by the tokenizer in one call

# What each rouge type needs compiled (beyond the tokenizer kernels)
_TOKENIZER_KERNELS = ("scan_stem_tokens", "dense_ids", "stem_table_insert",
                      "porter_stem_codes")
DEFAULT_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
AT_LOAD_EXTRA = ("rougeW", "rougeSU4")  # also compiled (after the defaults) from evaluate.load

# Kernels whose work another compiled kernel can do until they are compiled themselves (see
# stand_in). evaluate.load's compile leaves them to its low-priority phase, so that what a first
# call needs is there sooner: lcs_stats (rougeL) is union_lcs_stats over one sentence per text,
# with the same counts (an LCS uses each token at most as often as both texts hold it, so the
# union's clipping never binds). That runs ~1.4x slower than lcs_stats on realsumm, and the
# first call no longer waits for the 3-3.5 s lcs_stats takes to compile.
STAND_INS = {"lcs_stats": "union_lcs_stats"}


def kernels_for(rouge_types=DEFAULT_TYPES, profile: str = "rouge_score",
                detailed: bool = False, remove_stopwords: bool = False) -> list:
    """Kernel names that scoring ``rouge_types`` calls, tokenizer first (the order they run);
    detailed: the bootstrap interval; remove_stopwords: the scanner that path uses."""
    names = list(_TOKENIZER_KERNELS) + (["scan_ascii_tokens"] if remove_stopwords else [])
    for name in rouge_types or DEFAULT_TYPES:
        name = str(name)
        if name.startswith("rougeLsum"):
            names.append("union_lcs_stats")
        elif name.startswith("rougeL"):
            names.append("lcs_stats" if profile != "rouge155" else "union_lcs_stats")
        elif name.startswith("rougeW"):
            names.append("wlcs_stats")
        elif name.startswith("rougeS"):
            names.append("skip_bigram_stats")
        else:
            names.append("ngram_stats")
    if detailed:
        names.append("perl_bootstrap_means" if profile == "rouge155" else "poisson_bootstrap_sums")
    return list(dict.fromkeys(names))


# --------------------------------------------------------------------------------------------
# The cache directory


def _user_cache_root() -> str:
    """The user's cache directory (as appdirs gives it), + rouge_metric."""
    if sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Caches")
    elif os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    else:
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
    return os.path.join(base, "rouge_metric")


@functools.lru_cache(maxsize=None)
def _numba_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("numba")
    except metadata.PackageNotFoundError:
        return "none"


def cache_dir_for(kernels_file: str, module_name: str):
    """The folder numba caches this kernels file in, or None for numba's own choice."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() in ("none", "off", "0"):
        return None
    if not chosen and os.environ.get("NUMBA_CACHE_DIR"):
        return None
    with open(kernels_file, "rb") as f:
        source = f.read()
    # the module name is part of the key: numba's cached code names the module it was compiled
    # in, and loading it imports that module by name
    key = hashlib.sha256(b"\0".join([
        source, module_name.encode(), _numba_version().encode(), sys.version.encode(),
        sys.platform.encode()])).hexdigest()[:16]
    return os.path.join(chosen or _user_cache_root(), "kernels-" + key)


def _prune(root: str, keep: str) -> None:
    """Remove all but the CACHE_KEEP most recently used kernels-* folders under root."""
    try:
        folders = [os.path.join(root, d) for d in os.listdir(root) if d.startswith("kernels-")]
        folders.sort(key=os.path.getmtime, reverse=True)
        for old in folders[CACHE_KEEP:]:
            if os.path.abspath(old) != os.path.abspath(keep):
                shutil.rmtree(old, ignore_errors=True)
    except OSError:
        pass


_cache_dirs = {}  # absolute path of a kernels file -> its cache folder (registered at numba import)


def use_cache_dir(kernels_file: str, module_name: str):
    """The folder numba will cache the @njit(cache=True) functions of kernels_file in
    (cache_dir_for), created; None when numba's default applies (or it is not writable). The
    locator that tells numba is registered when numba is imported (lazy_njit)."""
    path = cache_dir_for(kernels_file, module_name)
    if path is None:
        return None
    try:
        os.makedirs(path, exist_ok=True)
        os.utime(path)  # most recently used
    except OSError:
        return None
    _prune(os.path.dirname(path), path)
    _cache_dirs[os.path.abspath(kernels_file)] = path
    return path


@functools.lru_cache(maxsize=None)
def _locator_class():
    from numba.core import caching

    class RougeKernelsCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """numba's cache locator for the registered kernels files: their own folder, in the
        user cache directory, keyed by their content (not by where the copy lives)."""

        files = {}  # absolute path of a kernels file -> its cache folder

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = self.files[os.path.abspath(py_file)]

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.abspath(py_file) not in cls.files:
                return None
            return super().from_function(py_func, py_file)

    RougeKernelsCacheLocator.files = _cache_dirs  # the same dict: later files count too
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    impl._locator_classes.insert(0, RougeKernelsCacheLocator)
    return RougeKernelsCacheLocator


# --------------------------------------------------------------------------------------------
# numba, imported at the first use of a kernel


class LazyKernel:
    """An @njit function of a kernels module before numba is imported. The first use (a call,
    or an attribute such as .signatures) imports numba and replaces every LazyKernel of the
    module by its numba dispatcher, all at once: compiled kernels find each other as module
    globals, so they must all be dispatchers before the first compile."""

    def __init__(self, py_func, options):
        self.py_func = py_func
        self.options = options
        functools.update_wrapper(self, py_func)

    def real(self):
        module = sys.modules[self.py_func.__module__]
        materialize(module)
        return module.__dict__[self.py_func.__name__]

    def __call__(self, *args, **kwargs):
        return self.real()(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.real(), name)


def lazy_njit(*args, **options):
    """numba.njit, deferred: see LazyKernel."""
    if args and callable(args[0]) and not options:
        return LazyKernel(args[0], {})
    return lambda function: LazyKernel(function, options)


_materialize_lock = threading.RLock()


def materialize(module) -> None:
    """Import numba and turn the module's LazyKernels into numba dispatchers (once)."""
    if module.__dict__.get("_NUMBA_READY"):
        return
    with _materialize_lock:
        if module.__dict__.get("_NUMBA_READY"):
            return
        import numba

        if _cache_dirs:
            _locator_class()  # before the dispatchers: numba picks their cache folder now
        for name, value in list(module.__dict__.items()):
            if isinstance(value, LazyKernel):
                # no C-callable wrapper: nothing calls the kernels through ctypes, and making
                # one for each function was ~13% of their compile time (measured)
                options = dict(no_cfunc_wrapper=True, **value.options)
                module.__dict__[name] = numba.njit(**options)(value.py_func)
        module.__dict__["_NUMBA_READY"] = True


def numba_imported() -> bool:
    return _K is not None and bool(_K.__dict__.get("_NUMBA_READY"))


# --------------------------------------------------------------------------------------------
# The background compiler

_K = None  # the rouge_kernels module (attach())
_lock = threading.Lock()
_queue: "queue.Queue" = queue.Queue()
_state = {"thread": None, "busy": None, "forked_midcompile": False, "stop": False,
          "tier_calls": 0, "tier_end": time.monotonic(), "processes": [], "started": set(),
          "prefetch": None, "low_priority": {}}
DEFER_QUIET = 0.25  # seconds without a vectorised / Python tier call before a compile starts
DEFER_MAX_SECONDS = 5.0  # at most this long per kernel (a stream of small calls)
compile_seconds: dict = {}  # kernel name -> seconds its compile (or cache load) took here
_done = threading.Condition(_lock)


def attach(kernels_module) -> None:
    """Called once by rouge_kernels at the end of its import."""
    global _K
    _K = kernels_module


def _dispatcher(name: str):
    return getattr(_K, _K._COMPILED_BY.get(name, name))


def ready(name: str) -> bool:
    """Whether this process has kernel `name` compiled (or loaded from the cache)."""
    dispatcher = _dispatcher(name)
    if isinstance(dispatcher, LazyKernel):
        return False
    return bool(getattr(dispatcher, "signatures", True))


def _index_path(name: str):
    """numba's cache index file of kernel `name`, or None when it cannot cache it. Before
    numba is imported: known for the folder of use_cache_dir (numba's file naming), else
    numba is imported to ask it."""
    dispatcher = _dispatcher(name)
    if isinstance(dispatcher, LazyKernel):
        folder = _cache_dirs.get(os.path.abspath(_K.__file__))
        if folder is not None:
            function = dispatcher.py_func
            base = os.path.splitext(os.path.basename(_K.__file__))[0]
            return os.path.join(folder, "%s.%s-%d.py%d%d%s.nbi" % (
                base, function.__qualname__.replace("<", "").replace(">", ""),
                function.__code__.co_firstlineno, sys.version_info[0], sys.version_info[1],
                getattr(sys, "abiflags", "")))
        dispatcher = dispatcher.real()
    cache = getattr(dispatcher, "_cache", None)
    return getattr(getattr(cache, "_cache_file", None), "_index_path", None)


def cached(name: str) -> bool:
    """Whether numba's disk cache has kernel `name` (then loading it takes ~0.01 s, or ~0.3 s
    for the first kernel of a process: better than any other tier)."""
    index = _index_path(name)
    return bool(index) and os.path.exists(index)


def _tiny_calls():
    """One call per kernel on a tiny input, with the argument types the pipeline uses (one
    compiled signature each: readonly uint8 buffers, C-contiguous int64 arrays)."""
    K = _K
    i64 = functools.partial(np.array, dtype=np.int64)
    tokens, offsets = i64([1, 2, 3, 4, 1, 3, 2]), i64([0, 4, 7])
    sent, text_sent = i64([0, 2, 4, 7]), i64([0, 2, 3])
    pred, ref = i64([0]), i64([1])
    buf = np.frombuffer(b"The cats sat\nthe mat\x00a dog", dtype=np.uint8)
    table = np.zeros(64, dtype=np.int64)
    cdf = (np.array([0.36787944, 0.73575888, 0.9196986, 0.98101184, 0.99634015, 0.99940582,
                     0.99991676, 0.99998975, 0.99999887, 1.0]) * 2.0 ** 32).astype(np.uint64)
    return {
        "scan_stem_tokens": lambda: K.scan_stem_tokens(buf, 12, table, table.copy(), True),
        "scan_ascii_tokens": lambda: K.scan_ascii_tokens(buf, 12),
        "dense_ids": lambda: K.dense_ids(tokens),
        "stem_table_insert": lambda: K.stem_table_insert(table.copy(), table.copy(), i64([60000]),
                                                         i64([5])),
        "porter_stem_codes": lambda: K.porter_stem_codes(i64([60000, 2000000])),
        "ngram_stats": lambda: K.ngram_stats(tokens, offsets, pred, ref, i64([1, 2])),
        "lcs_stats": lambda: K.lcs_stats(tokens, offsets, pred, ref),
        "union_lcs_stats": lambda: K.union_lcs_stats(tokens, sent, text_sent, tokens, offsets,
                                                     pred, ref),
        "wlcs_stats": lambda: K.wlcs_stats(tokens, sent, text_sent, tokens, offsets, pred, ref,
                                           1.2),
        "skip_bigram_stats": lambda: K.skip_bigram_stats(tokens, offsets, pred, ref, 4, True),
        "poisson_bootstrap_sums": lambda: K.poisson_bootstrap_sums(
            np.ones((3, 3)), np.arange(3, dtype=np.uint64), i64([0, 0, 0]), np.uint64(1), 4,
            cdf),
        "perl_bootstrap_means": lambda: K.perl_bootstrap_means(np.ones((3, 3)), 4, True, 0),
    }


def compile_now(name: str) -> float:
    """Compile (or cache-load) kernel `name` in this thread; the seconds it took."""
    start = time.perf_counter()
    with np.errstate(all="ignore"):
        _tiny_calls()[name]()
    seconds = time.perf_counter() - start
    compile_seconds.setdefault(name, seconds)
    return seconds


def _prefetch_imports() -> None:
    """Import what a first call with stemming imports (nltk: 0.2-0.4 s), off the caller's time."""
    try:
        import nltk.stem.porter  # noqa: F401
    except Exception:  # noqa: BLE001 - not installed: the call that stems says so
        pass


def background_mode() -> str:
    """'process' (default), 'thread' or 'off' (ROUGE_METRIC_BACKGROUND_COMPILE)."""
    value = os.environ.get(BACKGROUND_ENV, "process").strip().lower()
    if value in ("0", "off", "false", "no", "none"):
        return "off"
    return "thread" if value == "thread" else "process"


def _cache_folder(name: str):
    """The folder numba caches kernel `name` in, or None when it cannot cache it."""
    index = _index_path(name)
    return os.path.dirname(index) if index else None


# -- in a separate process: no GIL shared with the caller, nothing held across a fork, and the
#    disk cache is filled even when the caller exits first


def _start_compile_process(names: list, later: list = ()) -> bool:
    folder = _cache_folder((names or later)[0])
    if folder is None:
        return False
    parts = _K.__name__.split(".")
    root = os.path.dirname(os.path.abspath(_K.__file__))
    for _ in parts[1:]:
        root = os.path.dirname(root)
    script = ("import importlib, sys; sys.path.insert(0, sys.argv[1]); "
              "kernels = importlib.import_module(sys.argv[2]); "
              "names = [a.split(',') if a else [] for a in sys.argv[3:5]]; "
              "kernels._warmup.compile_in_child(names[0], sys.argv[5], names[1])")
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    # LLVM at -O1 rather than numba's -O3: ~15% less compile time, and the kernels ran as fast
    # (10,000 realsumm pairs, default types, W+S+SU, bootstrap: within 3%, in both directions).
    # The numbers cannot differ: no kernel lets LLVM reorder float arithmetic except _dot2,
    # whose sums are exact in any order.
    env.setdefault("NUMBA_OPT", "1")
    import subprocess

    try:
        process = subprocess.Popen(
            [sys.executable, "-c", script, root, _K.__name__, ",".join(names),
             ",".join(later), folder],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=env, start_new_session=True, close_fds=True)
    except OSError:
        return False
    process.urgent, process.later = list(names), list(later)
    _state["processes"].append(process)
    with _lock:
        _state["low_priority"].update((name, process) for name in later)
    threading.Thread(target=_adopt, args=(process, list(names) + list(later)),
                     name="rouge-metric-adopt", daemon=True).start()
    return True


ADOPT_POLL = 0.1  # seconds between looks at the disk cache while the compile process runs
_adopt_lock = threading.Lock()  # held while _adopt loads kernels; a fork waits for it


def _adopt(process, names: list) -> None:
    """Load each kernel of `names` into this process as soon as the compile process has put it
    in the disk cache, then reap the process. Without this, the first call after the compile
    pays numba's import and the cache loads (0.3-0.8 s on 2 cores) although the compile was
    done long before (a Trainer that loads the metric, generates, then computes)."""
    pending = list(names)
    while pending and not _state["stop"]:
        running = process.poll() is None
        while pending and (ready(pending[0]) or cached(pending[0])):
            with _adopt_lock:
                if _state["stop"] or _state["forked_midcompile"]:
                    return
                try:
                    if not ready(pending[0]):
                        compile_now(pending[0])
                except Exception:  # noqa: BLE001 - the call that needs it loads it and raises
                    pass
            pending.pop(0)
        if pending and not running:
            break  # it could not compile the rest: a call that needs one compiles it
        time.sleep(ADOPT_POLL)
    if len(pending) < len(names):
        _collect_garbage()
    process.wait()  # reap it (no zombie while this process lives)


def _collect_garbage() -> None:
    """A full garbage collection, now rather than in the first call. Loading numba's kernels
    makes ~10^6 objects; the next full collection then takes ~0.08 s (measured inside a first
    compute() of 10,000 pairs: a third of its time). Collecting here (background thread, or
    evaluate.load) resets the collector's count, so the first call does not pay it."""
    import gc

    gc.collect()


def compile_in_child(names: list, folder: str, later: list = ()) -> None:
    """The compile process: every kernel of `names` that the cache does not have yet, one
    such process at a time per cache folder (an flock), at nice 5; then those of `later` at
    nice 19, without the lock: kernels no call is known to need yet, compiled on what the
    caller's own work leaves (and stopped while calls score: compile_paused)."""
    try:
        os.nice(5)  # background work: the caller's own work first
    except (AttributeError, OSError):
        pass
    lock = None
    try:
        import fcntl

        lock = open(os.path.join(folder, ".compile.lock"), "w")
        fcntl.flock(lock, fcntl.LOCK_EX)
    except (ImportError, OSError):
        pass
    try:
        for name in names:
            if not cached(name):
                compile_now(name)
    finally:
        if lock is not None:
            lock.close()  # a process waiting for it must not wait for our nice-19 phase
    if later:
        try:
            os.nice(19)  # the kernel caps it at 19; a process cannot lower its nice again
        except (AttributeError, OSError):
            pass
        _continue_when_orphaned()
        for name in later:
            if not cached(name):
                compile_now(name)


def _continue_when_orphaned() -> None:
    """Linux: have the kernel send this process SIGCONT when its parent ends, so that one
    that ends while it holds this process stopped (compile_paused) leaves no stopped orphan;
    the compile then finishes, as it does when the parent exits."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGCONT), 0, 0, 0)  # PDEATHSIG
    except (OSError, AttributeError):
        pass


def _in_low_priority_phase(process) -> bool:
    return process.poll() is None and bool(getattr(process, "later", ())) and all(
        cached(n) for n in process.urgent)


_pause = {"calls": 0, "stopped": []}


@contextlib.contextmanager
def compile_paused():
    """Stop the compile processes that are in their nice-19 phase while calls score, and let
    them go on when the last call under way ends. Measured beside a first call of 10,000
    pairs on 2 cores, such a process made it 1.7x-1.8x slower at nice 19 and at SCHED_IDLE
    alike (it runs whenever one of the call's two threads waits, and it comes back slowed),
    1.12x when stopped. A process a call waits for is never stopped: its nice-5 phase, or
    one that _hurry started."""
    if not hasattr(signal, "SIGSTOP"):
        yield
        return
    with _lock:
        if _pause["calls"] == 0:
            _pause["stopped"] = [p for p in _state["processes"] if _in_low_priority_phase(p)]
            for process in _pause["stopped"]:
                _signal(process, signal.SIGSTOP)
        _pause["calls"] += 1
    try:
        yield
    finally:
        with _lock:
            _pause["calls"] -= 1
            if _pause["calls"] == 0:
                for process in _pause["stopped"]:
                    _signal(process, signal.SIGCONT)
                _pause["stopped"] = []


def _signal(process, signum) -> None:
    try:
        process.send_signal(signum)  # nothing once it has been reaped (its pid may be reused)
    except OSError:
        pass  # it has ended


def _wait_for_process(name: str, deadline: float | None = None) -> None:
    """When a compile process is making kernel `name`, wait for it to reach the disk cache
    rather than compile it here as well (on 2 cores the two compiles would halve each other).
    A kernel left to a process's nice-19 phase is handed to a new nice-5 process first: a busy
    machine would starve the old one, and this call would wait for ever."""
    if name not in _state["started"] or _state["forked_midcompile"]:
        return
    while not cached(name) and any(p.poll() is None for p in _state["processes"]):
        if deadline is not None and time.monotonic() >= deadline:
            return
        process = _state["low_priority"].get(name)
        if process is not None and (process.poll() is not None
                                    or _in_low_priority_phase(process)):
            _hurry(process, name)  # it is in its nice-19 phase (or ended without `name`)
        time.sleep(0.02)


def _hurry(process, name: str) -> None:
    """Stop a compile process in its nice-19 phase (its partial compile is lost; numba writes
    a cache file whole or not at all), and start a new one: kernel `name` at nice 5, what
    else it had left at nice 19."""
    with _lock:
        left = [n for n, p in _state["low_priority"].items() if p is process]
        for other in left:
            del _state["low_priority"][other]
        if process in _pause["stopped"]:
            _pause["stopped"].remove(process)
    try:
        if process.poll() is None and hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)  # its own session: it and nothing else
            # (stopped by compile_paused or not: SIGKILL ends a stopped process too)
        elif process.poll() is None:
            process.kill()
    except OSError:
        pass
    left = [n for n in left if not cached(n)]
    with _lock:
        _state["started"].difference_update(left)
    start_background_compile(names=[name], later=[n for n in left if n != name])


# -- on a thread of this process (no usable disk cache, or ROUGE_METRIC_BACKGROUND_COMPILE=thread)


def _worker() -> None:
    while True:
        name = _queue.get()
        # let calls on the vectorised / Python tiers finish first: a compile beside them holds
        # the GIL in numba's typing and lowering; a call that cannot wait compiles itself
        deadline = time.monotonic() + (0.0 if cached(name) else DEFER_MAX_SECONDS)
        while time.monotonic() < deadline and not _state["stop"] and (
                _state["tier_calls"] > 0 or time.monotonic() - _state["tier_end"] < DEFER_QUIET):
            time.sleep(0.02)
        with _lock:
            if _state["stop"]:
                _state["thread"] = None
                _done.notify_all()
                return
            _state["busy"] = name
        try:
            if not ready(name):
                compile_now(name)
        except Exception:  # noqa: BLE001 - the call that needs it compiles again and raises
            pass
        finally:
            with _lock:
                _state["busy"] = None
                if _queue.empty():
                    _state["thread"] = None
                    _done.notify_all()
                    return


def _start_thread(names: list) -> None:
    with _lock:
        if _state["stop"]:
            return
        for name in names:
            _queue.put(name)
        if _state["thread"] is None:
            thread = threading.Thread(target=_worker, name="rouge-metric-compile", daemon=True)
            _state["thread"] = thread
            thread.start()


def start_background_compile(rouge_types=DEFAULT_TYPES, names=None, later=(), **kind) -> list:
    """Compile the kernels `rouge_types` need (tokenizer first) in the background: in a
    separate process that fills the disk cache (this process then loads them from there,
    ~0.01 s each), or on a thread when numba cannot cache them; then those of `later`, at the
    lowest priority (compile_in_child). Returns the names started. Does nothing with
    ROUGE_METRIC_BACKGROUND_COMPILE=0, or in a child forked mid-compile."""
    mode = background_mode()
    if _K is None or _state["forked_midcompile"] or mode == "off":
        return []
    known = _tiny_calls()  # the kernels this module knows how to compile on a tiny input

    def new(names):
        return [n for n in dict.fromkeys(names) if n in known and not ready(n)
                and not cached(n) and n not in _state["started"]]

    with _lock:
        wanted = new(names or kernels_for(rouge_types, **kind))
        _state["started"].update(wanted)
        later = new(later)
        _state["started"].update(later)
    if not wanted and not later:
        return []
    if mode == "thread" or not _start_compile_process(wanted, later):
        _start_thread(wanted + later)
    return wanted + later


def load_cached(names) -> list:
    """Load the kernels of `names` that the disk cache has (in this thread); their names."""
    loaded = [n for n in names if not ready(n) and cached(n)]
    for name in loaded:
        compile_now(name)
    return loaded


def start_at_load() -> None:
    """evaluate.load's hook. Kernels of the default types in the disk cache are loaded now
    (~0.3 s for all: a new process's first compute() runs at warm speed); the others start
    compiling in the background; nltk (stemming) is imported on a thread."""
    if _K is None or _state["forked_midcompile"]:
        return
    if background_mode() != "off" and _state["prefetch"] is None:
        thread = threading.Thread(target=_prefetch_imports, name="rouge-metric-prefetch",
                                  daemon=True)
        _state["prefetch"] = thread
        thread.start()
    # the default types first, then the others a later call may ask for (a Trainer's
    # rougeW/S/SU): loaded now when cached (~0.01 s each after the first; on a thread they
    # slowed the first compute() beside them), else compiled between load and compute
    urgent = [n for n in kernels_for(DEFAULT_TYPES) if n not in STAND_INS]
    later = [n for n in kernels_for(DEFAULT_TYPES + AT_LOAD_EXTRA) if n not in urgent]
    if load_cached(urgent + later):
        _collect_garbage()
    start_background_compile(names=urgent, later=later)


def wait(timeout: float | None = None) -> bool:
    """Wait until the background compiler (thread or process) is done; whether it is."""
    deadline = None if timeout is None else time.monotonic() + timeout

    def left():
        return None if deadline is None else max(0.0, deadline - time.monotonic())

    for process in list(_state["processes"]):
        try:
            process.wait(left())
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired
            return False
    with _lock:
        while _state["thread"] is not None:
            if left() == 0.0:
                return False
            _done.wait(left())
    return True


def warm_up(rouge_types=DEFAULT_TYPES, profile: str = "rouge_score", detailed: bool = False,
            remove_stopwords: bool = False, timeout: float | None = None) -> dict:
    """Compile (or load from the disk cache) what scoring `rouge_types` needs, and wait: after
    this the first call runs at warm speed. Returns {kernel: seconds} of what this process
    compiled or loaded. For a server (the Space), call it on a thread at start-up."""
    names = kernels_for(rouge_types, profile=profile, detailed=detailed,
                        remove_stopwords=remove_stopwords)
    if not _state["forked_midcompile"]:
        start_background_compile(names=names)
        deadline = None if timeout is None else time.monotonic() + timeout
        for name in names:  # not for the rest of a process's work (its nice-19 phase)
            _wait_for_process(name, deadline)
        for name in names:  # load what the process compiled; compile what it could not
            if not ready(name):
                compile_now(name)
    return {n: compile_seconds[n] for n in names if n in compile_seconds}


@atexit.register
def _stop_at_exit() -> None:
    with _lock:
        _state["stop"] = True  # the kernel being compiled finishes; no further one starts
        for process in _pause["stopped"]:  # exiting mid-call: let them finish the cache
            _signal(process, signal.SIGCONT)


# --------------------------------------------------------------------------------------------
# Fork

def _compiler_busy() -> bool:
    if _state["busy"] is not None or _state["thread"] is not None:
        return True
    if "numba.core.compiler_lock" not in sys.modules:
        return False
    try:  # a foreground compile on another thread holds numba's compiler lock
        from numba.core.compiler_lock import global_compiler_lock as numba_lock
        lock = numba_lock._lock
        if lock.acquire(blocking=False):
            lock.release()
            return False
        return True
    except Exception:  # noqa: BLE001
        return False


# How long a fork waits for an import on another thread of this process to end. A module half
# imported at the fork is locked for ever in the child: its first import of it hangs. Under a
# load average of 50 on 2 cores nltk's import took more than the 5 s this used to be, and every
# forked child of tests/test_coldstart hung on "import nltk.stem". The imports finish (they
# wait on nothing the forking thread holds), so the bound is only against the unforeseen.
FORK_WAIT_SECONDS = 600.0


def _before_fork() -> None:
    prefetch = _state["prefetch"]
    if prefetch is not None and prefetch.is_alive():
        prefetch.join(FORK_WAIT_SECONDS)  # nltk's import, on a thread the child will not have
    # nor a kernel half loaded by _adopt (numba's import, its compiler lock): wait for that
    # load to end, and hold the lock so that none starts until the fork is done
    _state["adopt_held"] = _adopt_lock.acquire(timeout=FORK_WAIT_SECONDS)
    _state["fork_busy"] = _compiler_busy()


def _after_fork_parent() -> None:
    if _state.pop("adopt_held", False):
        _adopt_lock.release()


def _after_fork_child() -> None:
    global _lock, _done, _queue, _adopt_lock
    _lock = threading.Lock()
    _adopt_lock = threading.Lock()  # the parent's adopter is not in this process
    _state.pop("adopt_held", None)
    _done = threading.Condition(_lock)
    _queue = queue.Queue()
    if _state.pop("fork_busy", False):
        _state["forked_midcompile"] = True
    _state["thread"] = None
    _state["busy"] = None
    _state["tier_calls"] = 0
    _state["processes"] = []  # the parent's to wait for, not ours
    _state["started"] = set()
    _state["low_priority"] = {}
    _pause.update(calls=0, stopped=[])  # the parent's, stopped and continued by the parent
    if _K is not None:
        _K._pure_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_parent,
                        after_in_child=_after_fork_child)


# --------------------------------------------------------------------------------------------
# Tier choice


def _vector_tier():
    try:
        from . import rouge_vectorized
    except ImportError:
        import rouge_vectorized
    return rouge_vectorized


def _work(name: str, args) -> tuple:
    """(kind of bound, amount) of one call's work, for the vectorised tier's bounds."""
    if name in ("scan_stem_tokens", "scan_ascii_tokens"):
        return VECTOR_MAX_BYTES, args[0].shape[0]
    if name in ("dense_ids", "stem_table_insert"):
        return VECTOR_MAX_TOKENS, args[0].shape[0] // 4
    if name in ("ngram_stats", "skip_bigram_stats", "lcs_stats", "union_lcs_stats",
                "wlcs_stats"):
        pred, ref = args[-2:] if name in ("lcs_stats", "union_lcs_stats") else (
            args[-3:-1] if name == "wlcs_stats" else (args[2], args[3]))
        offsets = args[1] if name in ("ngram_stats", "skip_bigram_stats", "lcs_stats") else args[4]
        lengths = np.diff(offsets)
        lp, lr = lengths[pred], lengths[ref]
        if name in ("ngram_stats", "skip_bigram_stats"):
            return VECTOR_MAX_TOKENS, int(lp.sum() + lr.sum())
        return VECTOR_MAX_CELLS, int((lp * lr).sum())
    return 0, 1


def pick(name: str, small: bool):
    """Kernel `name` for one batch: the compiled one when this process has it; else a function
    that, per call, takes the compiled kernel if it has arrived meanwhile, else the vectorised
    tier (within its bounds), else for a small batch the plain Python twin, else waits for the
    compiler. A missing kernel is queued for the background compiler."""
    compiled = getattr(_K, name)
    if ready(name):
        return compiled
    start_background_compile(names=[name])
    return functools.partial(_tiered, name, small)


def compiled_or_none(name: str):
    """Kernel `name` when this process has it or can load it from the disk cache, else None
    (and it is queued for the background compiler): for a kernel whose fallback is not its
    plain Python twin (porter_stem_codes: nltk's stemmer is faster than the twin)."""
    if ready(name):
        return getattr(_K, name)
    if cached(name) and not _state["forked_midcompile"]:
        return getattr(_K, name)  # its first call loads it (~0.01 s)
    start_background_compile(names=[name])
    return None


def stand_in(name: str) -> str:
    """The kernel to run for `name` now: its stand-in (STAND_INS) while this process has that
    one compiled (or in the disk cache) and not `name`; else `name` itself."""
    other = STAND_INS.get(name)
    if other is None or ready(name) or background_mode() == "off":
        return name
    forked = _state["forked_midcompile"]
    if (cached(name) and not forked) or not (ready(other) or (cached(other) and not forked)):
        return name
    start_background_compile(names=[name])  # started already by evaluate.load, as a rule
    return other


def tier_of(name: str, small: bool, args) -> str:
    """'compiled', 'vectorised', 'python' or 'wait' (compile, or wait for the background)."""
    if ready(name):
        return "compiled"
    forked = _state["forked_midcompile"]
    if cached(name) and not forked:
        return "wait"
    vector = _vector_tier()
    if hasattr(vector, name):
        bound, amount = _work(name, args)
        if forked or amount <= bound:
            return "vectorised"
    if small or forked:
        return "python"
    return "wait"


def _tiered(name: str, small: bool, *args, **kwargs):
    tier = tier_of(name, small, args)
    if tier == "wait":
        _wait_for_process(name)
    if tier in ("compiled", "wait"):
        return getattr(_K, name)(*args, **kwargs)
    with _lock:
        _state["tier_calls"] += 1
    try:
        return _interpreted(tier, name, small, args, kwargs)
    finally:
        with _lock:
            _state["tier_calls"] -= 1
            _state["tier_end"] = time.monotonic()


def _interpreted(tier, name, small, args, kwargs):
    if tier == "vectorised":
        vector = _vector_tier()
        try:
            return getattr(vector, name)(*args, **kwargs)
        except vector.OutOfScope:
            tier = "python" if small or _state["forked_midcompile"] else "wait"
            if tier == "wait":
                _wait_for_process(name)
    if tier == "python":
        function = getattr(_K.pure_python_twin(), name)
        # compiled code wraps integer overflow silently (the hashes rely on it); numpy's
        # scalars warn
        with np.errstate(over="ignore"):
            return function(*args, **kwargs)
    return getattr(_K, name)(*args, **kwargs)
