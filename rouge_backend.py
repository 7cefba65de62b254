"""The one seam between the scorer and its kernels: which implementation of a kernel runs.

``kernel(name)`` gives the numba-compiled kernel of ``rouge_kernels`` once this process has it,
until then its numpy twin of the same name in ``rouge_vectorized`` (a first call never waits
for numba), and for a kernel without a twin the compiled one, waited for. The numbers are the
same to the last digit (tests/test_backend.py). The choice is made when a compiled kernel
arrives, not per call. ``ROUGE_METRIC_BACKEND=numpy`` never uses numba (kernels without a twin,
and calls past what a twin does, run as plain Python: slow, exact); ``=numba`` always does,
compiling in the caller's thread.

``start()`` (evaluate.load) loads the cached kernels when the cache has them all, else starts
one compile process that caches them, most needed first, while a thread here adopts each as
it arrives. The process exits when its stdin, a pipe from this process, closes: it cannot
outlive this process. The cache is content-keyed in the user cache directory, through numba's
public behaviour only. No signals, priorities or process-wide state. docs/design.md has the
details; an ahead-of-time compiled extension could replace the numba half behind this seam.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
import importlib.util
import os
import shutil
import subprocess
import sys
import threading

import numpy as np

from . import rouge_kernels as _python_kernels
from . import rouge_vectorized as _twins

BACKEND_ENV = "ROUGE_METRIC_BACKEND"  # "numba", "numpy", or unset: compiled when it is there
CACHE_ENV = "ROUGE_METRIC_CACHE_DIR"
KERNELS = tuple(_python_kernels.EXAMPLES)  # compile order: a first call's kernels first


def thread_count() -> int:
    """Threads the kernels run on (they release the GIL): the CPUs this process may use
    (os.sched_getaffinity, so taskset and container CPU sets count), and at most
    NUMBA_NUM_THREADS or OMP_NUM_THREADS when either is a positive integer."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        usable = os.cpu_count() or 1
    for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            usable = min(usable, int(value))
    return max(1, usable)


THREADS = thread_count()


class _Budget(threading.local):
    threads = 0  # 1 in a worker of the scorer's pool (one level of threads); 0: THREADS
    # (a class default: getattr with a default on a plain local raises and catches an
    # AttributeError, ~1 us, and a small call asks five times)


_budget = _Budget()


def threads_here() -> int:
    """The threads a kernel call may spread over from this thread: THREADS, or 1 inside a
    worker of the scorer's pool (a pool inside a pool would start THREADS² threads)."""
    return _budget.threads or THREADS


def pool_worker() -> None:  # called first in a worker thread of the scorer's pool
    _budget.threads = 1


def mode() -> str:
    value = os.environ.get(BACKEND_ENV, "").strip().lower()
    if value not in ("", "numba", "numpy"):
        raise ValueError(f"{BACKEND_ENV}: got {value!r}; allowed: 'numba', 'numpy' or unset")
    return value or "auto"


# --------------------------------------------------------------------------------------------
# The state of this process: plain assignments, read without the lock, which is held only around
# a few assignments (and is new in a forked child: _after_fork_in_child).

_lock = threading.Lock()
_module_lock = threading.Lock()  # held alone (never with _lock): the compiled module's import
_compiled: dict = {}  # name -> compiled kernel, once this process has it
_arrived: dict = {}  # name -> threading.Event, set when the kernel is compiled (or failed)
# loading: _load calls under way (numba holds its compiler lock meanwhile); no_compile: this
# process was forked while one was, so numba's lock may be held by a thread it does not have
_state = {"module": None, "process": None, "pid": os.getpid(), "loading": 0, "no_compile": False}


def _folder() -> str | None:
    """The content-keyed cache folder, holding a copy of the kernels file (made once), or None
    where there is none (no numba, or no writable cache directory)."""
    if "folder" not in _state:
        root = os.environ.get(CACHE_ENV) or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
            "rouge_metric")
        try:
            with open(_python_kernels.__file__, "rb") as f:
                source = f.read()
            key = source + f"|{metadata.version('numba')}|{sys.version}".encode()
            folder = os.path.join(root, "kernels-" + hashlib.sha256(key).hexdigest()[:16])
            target = os.path.join(folder, "rouge_kernels.py")
            if not os.path.exists(target):
                os.makedirs(folder, exist_ok=True)
                partial = f"{target}.{os.getpid()}.tmp"
                shutil.copyfile(_python_kernels.__file__, partial)
                os.replace(partial, target)  # whole or absent, for a concurrent process
        except (OSError, metadata.PackageNotFoundError):
            folder = None
        _state["folder"] = folder
    return _state["folder"]


def _module_name(folder: str | None) -> str:
    return "rouge_metric_kernels_" + (os.path.basename(folder)[8:] if folder else "uncached")


def _compiled_module():
    """The kernels file imported from the cache folder, its kernels numba dispatchers (numba
    caches beside a file: its default locator, so the cache is keyed by content)."""
    if _state["module"] is not None:
        return _state["module"]
    # one thread imports it: a second one would find the half-run module in sys.modules (the
    # first call of a process may come from several scoring threads at once)
    with _module_lock:
        if _state["module"] is None:
            _import_compiled_module()
    return _state["module"]


def _import_compiled_module() -> None:
    folder = _folder()
    path = os.path.join(folder, "rouge_kernels.py") if folder else _python_kernels.__file__
    name = _module_name(folder)
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # numba finds a kernel's module by name
        spec.loader.exec_module(module)
    module.use_numba()
    _state["module"] = module


def _load(name: str) -> None:
    """Compile kernel `name` in this thread, or load it from numba's cache, and adopt it."""
    with _lock:
        _state["loading"] += 1
    try:
        module = _compiled_module()
        with np.errstate(all="ignore"):
            module.EXAMPLES[name](module)  # compiles (or loads) the signature calls use
        _compiled[name] = getattr(module, name)
    finally:
        with _lock:
            _state["loading"] -= 1
    _event(name).set()


def _event(name: str) -> threading.Event:
    return _arrived.setdefault(name, threading.Event())  # atomic in CPython: no lock needed


# --------------------------------------------------------------------------------------------
# What the scorer calls


def kernel(name: str, chosen: str | None = None):  # chosen: mode(), read by the caller
    """The implementation of kernel `name` to run now (see the module docstring)."""
    chosen = chosen or mode()
    if chosen == "numpy":  # past what a twin can do (OutOfScope), plain Python, never numba
        return _twin(name, numba=False) if hasattr(_twins, name) else _python(name)
    function = _compiled.get(name)
    if function is not None:
        return function
    if chosen == "numba" or not hasattr(_twins, name):
        return _wait(name)
    start()
    return _twin(name)


def compiled_kernels():  # rouge_kernels as numba dispatchers: tests and benchmarks
    return _compiled_module()


def helper(name: str):
    """A compiled function of rouge_kernels outside EXAMPLES (the Space's traceback,
    _union_pair), compiled at its first call in the caller's thread; plain Python under
    ROUGE_METRIC_BACKEND=numpy or where compiling is unsafe (see _wait)."""
    if mode() == "numpy" or _state["no_compile"]:
        return _python(name)
    return getattr(_compiled_module(), name)


def _twin(name: str, numba: bool = True):
    """The numpy twin of a kernel (the compiled one once it is here); past what the twin can
    do (OutOfScope), the compiled one, or without numba (numba=False) the plain Python one."""
    def run(*args, **kwargs):
        try:
            return ((_compiled.get(name) if numba else None) or getattr(_twins, name))(
                *args, **kwargs)
        except _twins.OutOfScope:
            return (_wait(name) if numba else _python(name))(*args, **kwargs)
    return run


def _python(name: str):
    """rouge_kernels' kernel run as plain Python: numpy's fixed-width scalars wrap on overflow
    as the compiled code does (the hashes rely on it), without warning."""
    def run(*args, **kwargs):
        with np.errstate(over="ignore"):
            return getattr(_python_kernels, name)(*args, **kwargs)
    return run


def _wait(name: str):
    """The compiled kernel: from the compile process when one is running for this process,
    else compiled (or loaded from the cache) here."""
    if name not in _compiled and _state["no_compile"]:
        return _python(name)
    if name not in _compiled:
        process = _state["process"]
        if process is not None and _state["pid"] == os.getpid() and mode() != "numba":
            while not _event(name).wait(0.1):
                if process.poll() is not None and not _event(name).is_set():
                    break  # it ended without this kernel (killed, or failed): compile here
        if name not in _compiled:
            _load(name)
    return _compiled[name]


# --------------------------------------------------------------------------------------------
# The compile process

_CHILD = """\
import importlib.util, os, sys, threading
# stdin is a pipe from the process that started this one: its end means that process is gone
threading.Thread(target=lambda: (sys.stdin.buffer.read(), os._exit(0)), daemon=True).start()
folder, name = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location(name, os.path.join(folder, "rouge_kernels.py"))
module = importlib.util.module_from_spec(spec)
sys.modules[name] = module
spec.loader.exec_module(module)
module.use_numba()
import numpy as np
for kernel in sys.argv[3:]:
    with np.errstate(all="ignore"):
        module.EXAMPLES[kernel](module)
    open(os.path.join(folder, kernel + ".cached"), "w").close()
    print(kernel, flush=True)
"""


def start() -> None:
    """Make the compiled kernels arrive: load them now when the cache has them all, else start
    the compile process (once per process) and adopt each kernel as it is cached."""
    if mode() == "numpy" or _state["process"] is not None or len(_compiled) == len(KERNELS):
        return
    if _state["pid"] != os.getpid():
        return  # a forked child: it uses twins, and compiles here only what it must wait for
    folder = _folder()
    if folder is None:
        return  # no cache: numba compiles at first need (_wait), as it does by itself
    missing = [k for k in KERNELS if not os.path.exists(os.path.join(folder, k + ".cached"))]
    if not missing:
        for name in KERNELS:
            if name not in _compiled:
                _load(name)
        return
    with _lock:
        if _state["process"] is not None:
            return
        env = dict(os.environ, PYTHONWARNINGS="ignore")
        # LLVM at -O1: ~15% less compile time, the kernels as fast (measured: within 3%); no
        # kernel lets LLVM reorder float arithmetic except _dot2, whose sums are exact
        env.setdefault("NUMBA_OPT", "1")
        try:
            _state["process"] = subprocess.Popen(
                [sys.executable, "-c", _CHILD, folder, _module_name(folder), *missing],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                env=env, close_fds=True, text=True)
        except OSError:
            return  # _wait compiles here what a call needs
    threading.Thread(target=_adopt, args=(_state["process"],), daemon=True,
                     name="rouge-metric-adopt").start()


def _adopt(process) -> None:
    """Load each kernel into this process as the compile process caches it, then reap it."""
    for line in process.stdout:
        name = line.strip()
        if name in KERNELS and name not in _compiled and _state["pid"] == os.getpid():
            try:
                _load(name)
            except Exception:  # noqa: BLE001 - the call that needs it compiles it and raises
                pass
    process.wait()
    process.stdin.close(), process.stdout.close()
    for name in KERNELS:  # anyone still waiting compiles the kernel itself
        _event(name).set()


def compile_all() -> None:
    """Every kernel compiled (or loaded from the cache) and adopted: the wait is here."""
    if mode() == "numpy":
        return
    start()
    for name in KERNELS:
        _wait(name)


def _after_fork_in_child() -> None:
    """A forked child owns neither the compile process nor the parent's lock: it keeps the
    kernels adopted so far and compiles for itself only what it must wait for."""
    global _lock, _module_lock
    _lock = threading.Lock()
    _module_lock = threading.Lock()
    _arrived.clear()
    _state.update(pid=os.getpid(), no_compile=_state["loading"] > 0, loading=0)
    process, _state["process"] = _state["process"], None
    if process is not None:
        process.stdin.close()  # the compile process ends with its parent, not with us


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
