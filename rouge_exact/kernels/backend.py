"""The one seam between the scorer and its kernels: which implementation of a kernel runs.

``resolve(names)`` (and ``kernel(name)``) gives each kernel's numba-compiled version once this
process has it, until then its numpy twin (``twins``, ``twins_sets``): a first call never
waits for numba, and the numbers are the same to the last digit. A kernel is brought only when
its work is worth it (``worth_compiling``: a ski rental of the twins' seconds against loading
it); ``ROUGE_METRIC_BACKEND`` (``numpy``, ``numba``) forces one side. ``start(names)`` loads
those kernels from the cache, or starts one compile process that cannot outlive this one; the
cache is content-keyed, used only where nobody but the user could have written it (else a
private one), and heals a file that does not read by setting it aside and recompiling once.
docs/design.md, "The backend", has the details.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import importlib
import io
import os
import pickle
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import types
import uuid
import warnings

import numpy as np

from . import registry as _python_kernels
from . import twins as _twins
from . import twins_sets as _twins_sets
from ..version import installed_version

BACKEND_ENV = "ROUGE_METRIC_BACKEND"  # "numba", "numpy", or unset: compiled when it is there
CACHE_ENV = "ROUGE_METRIC_CACHE_DIR"
KERNELS = tuple(_python_kernels.EXAMPLES)  # compile order: a first call's kernels first
# the kernels' files, copied into the cache folder: kernels.registry.MODULES, beside it
KERNEL_FILES = tuple(name + ".py" for name in _python_kernels.MODULES)
_HERE = os.path.dirname(os.path.abspath(_python_kernels.__file__))
SET_ASIDE = "set-aside"  # in a cache folder: the files that did not read, kept to look at


class KernelCacheWarning(RuntimeWarning):
    """The kernel cache folder named in the message could not give some kernels (a file that
    does not read, an index of another numba, a marker without its files, an altered copy of
    a kernels file): what did not read is set aside and they are recompiled once; meanwhile
    their numpy twins give the same numbers."""


class UntrustedCacheWarning(KernelCacheWarning):
    """The kernel cache folder named in the message is not used: something in it could have
    been written by another user (the file named, and why); this process compiles the kernels
    into a private folder, removed when it ends. The numbers are the same."""


THREADS_ENV = "ROUGE_METRIC_THREADS"  # the documented cap on the kept pool's threads


class SettingWarning(RuntimeWarning):
    """An environment variable of this library (ROUGE_METRIC_THREADS) has a value it refuses:
    the value is ignored, as if unset (check_settings raises instead, for a program that
    refuses it before it starts)."""


def threads_setting() -> int | None:
    """ROUGE_METRIC_THREADS, checked (as mode() checks ROUGE_METRIC_BACKEND).

    Returns:
        The cap it sets on the threads, or None where it is unset or empty.

    Raises:
        ValueError: for any value but a positive integer ('abc', '0', '-1', '2.5').
    """
    given = os.environ.get(THREADS_ENV, "")
    value = given.strip()
    if not value:
        return None
    if value.isascii() and value.isdigit() and int(value) > 0:
        return int(value)
    raise ValueError(f"{THREADS_ENV}: got {given!r}; allowed: a positive integer or unset")


def thread_count() -> int:
    """Threads the kernels run on (they release the GIL): the CPUs this process may use
    (os.sched_getaffinity, so taskset and container CPU sets count), at most
    ROUGE_METRIC_THREADS (threads_setting; an invalid value is ignored, and said once, at
    the first call), and at most NUMBA_NUM_THREADS or OMP_NUM_THREADS when one is a positive
    integer (ROUGE_METRIC_THREADS=1: every call on the caller's thread)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        usable = os.cpu_count() or 1
    with contextlib.suppress(ValueError):
        usable = min(usable, threads_setting() or usable)
    # other libraries' variables, which they check themselves: a positive integer caps, as
    # it caps their threads; anything else is theirs to refuse
    for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            usable = min(usable, int(value))
    return max(1, usable)


THREADS = thread_count()


def cache_dir_setting() -> str | None:
    """ROUGE_METRIC_CACHE_DIR, checked: the folder it names (made when it is first needed), or
    None where it is unset or empty.

    Raises:
        ValueError: where it names something that is not a folder (a file, a device).
    """
    value = os.environ.get(CACHE_ENV, "")
    if not value:
        return None
    if os.path.exists(value) and not os.path.isdir(value):
        raise ValueError(f"{CACHE_ENV}: got {value!r}, which is not a folder; allowed: a "
                         "folder (made if missing) or unset")
    return value


def _refused_settings() -> list:
    refused = []
    try:
        threads_setting()
    except ValueError as error:
        refused.append(f"{error}; ignored, as if unset: the kernels run on {THREADS} threads")
    try:
        cache_dir_setting()
    except ValueError as error:
        refused.append(f"{error}; ignored, as if unset")
    return refused


# said once, at the first kernel a call asks for (_say_settings), not at import: a program that
# checks the settings first (the rouge command: check_settings) refuses the value in one line
_UNSAID = _refused_settings()


def _say_settings() -> None:
    while _UNSAID:
        try:
            message = _UNSAID.pop()  # (atomic: two threads calling at once say it once)
        except IndexError:
            return
        warnings.warn(message, SettingWarning, stacklevel=4)


def check_settings() -> None:
    """Every environment variable this library reads and checks, checked now: for a program
    that refuses a bad value before it starts (the rouge command), where the library would
    warn and ignore it (ROUGE_METRIC_THREADS, ROUGE_METRIC_CACHE_DIR) or raise at the first
    call (ROUGE_METRIC_BACKEND).

    Raises:
        ValueError: naming the first variable whose value is refused, and what is allowed.
    """
    mode()
    threads_setting()
    cache_dir_setting()


class _Budget(threading.local):
    threads = 0  # 1 in a worker of the scorer's pool (one level of threads); 0: THREADS
    # (a class default: getattr with a default on a plain local raises and catches an
    # AttributeError, ~1 us, and a small call asks five times)


_budget = _Budget()


def threads_here() -> int:
    """The threads a kernel call may spread over from this thread: THREADS, or 1 inside a
    worker of the scorer's pool (a pool inside a pool would start THREADS² threads)."""
    return _budget.threads or THREADS


def pool_worker() -> None:  # called first in a worker thread of the kept pool
    _budget.threads = 1


@contextlib.contextmanager
def one_thread():
    """The caller's share of a pool's work: kernels called inside stay on this thread."""
    before = _budget.threads
    _budget.threads = 1
    try:
        yield
    finally:
        _budget.threads = before


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
# process was forked while one was, so numba's lock may be held by a thread it does not have;
# adopter: the thread that adopts what the compile process caches; healed: the kernels this
# process had recompiled (once each) because the cache could not give them; tightened: the
# helpers whose first call (which compiles) was followed by _tighten
_state = {"module": None, "process": None, "pid": os.getpid(), "loading": 0, "no_compile": False,
          "adopter": None, "healed": set(), "tightened": set(), "spent": 0.0, "compiled_in": {}}
# spent: the seconds this process's twins have run (worth_compiling); compiled_in: kernel ->
# the seconds the compile process took on it (compile_all's report)
_wanted: dict = {}  # the kernels worth loading (start's names): adopted as they are cached
_asked: dict = {}  # the kernels calls asked for, in order: the compile process's first ones
_guards: list = []  # the no-compile listeners registered with numba now (_loads_only)


def cache_root() -> str:
    """This package's cache folder: ROUGE_METRIC_CACHE_DIR, else ~/.cache/rouge_metric (under
    XDG_CACHE_HOME where set). The kernel cache and jieba's dictionary cache live in it."""
    with contextlib.suppress(ValueError):  # (refused: said once, by _say_settings)
        chosen = cache_dir_setting()
        if chosen:
            return chosen
    return os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "rouge_metric")


def _folder() -> str | None:
    """The content-keyed cache folder, holding a copy of each kernels file (made once, and
    restored where it is not the package's text), or None where there is none (no numba, or
    no writable cache directory). It is in cache_root() when that is trusted (untrusted),
    else in a private folder of this process (_private_root), with one warning."""
    if "folder" not in _state:
        altered = []
        try:
            sources = {}
            for file in KERNEL_FILES:
                with open(os.path.join(_HERE, file), "rb") as f:
                    sources[file] = f.read()
            key = b"".join(f"{file}|{len(source)}|".encode() + source
                           for file, source in sources.items())
            key += f"|{installed_version('numba')}|{sys.version}".encode()
            name = "kernels-" + hashlib.sha256(key).hexdigest()[:16]
            # checked before anything in it is read: numba's indexes are pickles, which run
            # code as they load, and so do the kernels' copies
            folder = os.path.join(_trusted_root(name), name)
            _makedirs(os.path.join(folder, "__pycache__"))  # (numba's, made here: 0700)
            for file, source in sources.items():
                target = os.path.join(folder, file)
                try:
                    with open(target, "rb") as f:
                        copy = f.read()
                except FileNotFoundError:
                    copy = None
                if copy != source:  # absent, or altered: the folder's name promises this text
                    if copy is not None:
                        altered.append(file)
                        _write(os.path.join(folder, SET_ASIDE, _aside_name(file)), copy)
                    _write(target, source)  # whole or absent, for a concurrent process
            if altered:
                # numba keys a kernel's files to its own file (size and time), but its machine
                # code holds what it calls from the other files too: all are written anew, so
                # that nothing compiled from the other text is loaded again
                for file, source in sources.items():
                    if file not in altered:
                        _write(os.path.join(folder, file), source)
        except (OSError, ImportError):  # (ImportError: numba not installed)
            folder = None
        _state["folder"] = folder
        if altered:
            # numba keys its files to the copy's text: what a process made from the other
            # text is stale; the compile process remakes it (and reuses what is not)
            for name in KERNELS:
                _forget_marker(folder, name)
            _warn(f"{folder}: its copy of the kernels ({', '.join(altered)}) was not the "
                  f"package's; restored (what was there is in {SET_ASIDE}/), and every kernel "
                  "is compiled again once, by a compile process; calls meanwhile run on the "
                  "numpy twins, which give the same numbers")
    return _state["folder"]


# --------------------------------------------------------------------------------------------
# Whose files the cache holds: numba's indexes are pickles, and a pickle runs code as it loads,
# as the kernels' copies run as they import. The cache is used where nobody but this user (or
# root, who can write anything anyway) could have written it, as ssh checks ~/.ssh.


def _trusted_root(name: str) -> str:
    """cache_root(), where it and its folder `name` are trusted (untrusted); else, with one
    UntrustedCacheWarning naming what is not and why, a private folder of this process."""
    root = cache_root()
    why = untrusted(root, os.path.join(root, name))
    if why is None:
        return root
    private = _private_root()
    warnings.warn(
        f"rouge_exact's kernel cache {root} is not used: {why}. This process compiles the "
        f"kernels into a private folder, {private}, removed when it ends; the numbers are the "
        "same. A cache folder is used when it and everything in it are yours (or root's) and "
        "not writable by group or others (`chmod -R go-w` on it, or delete it)",
        UntrustedCacheWarning, stacklevel=5)
    return private


def untrusted(root: str, folder: str) -> str | None:
    """Why what someone other than this user wrote could be in the cache root or its folder
    (the path, "owned by uid 1234, not you (uid 1000)" or "writable by others (mode 0777)"),
    or None: both, and everything in the folder, are this user's (or root's), none writable
    by group or others, and none a symbolic link (numba makes none). The folders above the
    root (~, ~/.cache) are not the package's: not checked."""
    if not hasattr(os, "geteuid"):
        # Windows: no owner uid or mode bits to check; who may write a folder is its access
        # list's, and a user's cache (under %LOCALAPPDATA%) is that user's by default
        return None
    try:
        for path in (root, folder):
            why = _distrusted(os.stat(path))  # (a link to either: the user's choice, followed)
            if why:
                return f"{path}: {why}"
    except FileNotFoundError:
        return None  # not made yet: this process makes it, 0700
    for top, folders, files in os.walk(folder):
        for name in sorted(folders + files):
            path = os.path.join(top, name)
            try:
                found = os.lstat(path)
            except FileNotFoundError:
                continue  # replaced since listed (numba renames whole files over others)
            why = "a symbolic link" if stat.S_ISLNK(found.st_mode) else _distrusted(found)
            if why:
                return f"{path}: {why}"
    return None


def _distrusted(found: os.stat_result) -> str | None:
    """Why another user could have written this file or folder (its owner, or its group's or
    others' write bit), or None."""
    me = os.geteuid()
    if found.st_uid not in (me, 0):
        return f"owned by uid {found.st_uid}, not you (uid {me})"
    loose = found.st_mode & 0o022
    if loose:
        who = {0o020: "group", 0o002: "others", 0o022: "group and others"}[loose]
        return f"writable by {who} (mode {stat.S_IMODE(found.st_mode):04o})"
    return None


def _private_root() -> str:
    """A cache root for this process alone (mkdtemp: 0700), removed when it ends."""
    root = tempfile.mkdtemp(prefix="rouge_metric-")
    atexit.register(_remove_private, root, os.getpid())  # (runs no code at a fork)
    return root


def _remove_private(root: str, pid: int) -> None:
    if os.getpid() != pid:
        return  # a forked child's exit: the folder is its parent's
    stop()  # the compile process, which writes there (killed and reaped: it does not block)
    # the adopter thread then loads, heals and starts nothing more, as in a forked child: what
    # it would read is going
    _state["pid"] = None
    shutil.rmtree(root, ignore_errors=True)


def _makedirs(path: str) -> None:
    """Folder `path`, and any missing above it, made 0700 (os.makedirs gives the folders above
    the umask's mode: 0775 under umask 002, which untrusted then refuses)."""
    if os.path.isdir(path):
        return
    parent = os.path.dirname(os.path.abspath(path))
    if parent != path:
        _makedirs(parent)
    with contextlib.suppress(FileExistsError):  # (made meanwhile by a concurrent process)
        os.mkdir(path, 0o700)


def _tighten(folder: str | None) -> None:
    """numba writes its files in this process with this process's umask (002: group-writable,
    which untrusted refuses in the next process): the folder's files lose group's and others'
    write bit. The folder is trusted or private, so they are this process's or were checked."""
    if folder is None or not hasattr(os, "geteuid") or not _umask_loose():
        return
    for top, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(top, name)
            with contextlib.suppress(OSError):  # (replaced or set aside meanwhile)
                found = os.lstat(path)
                if found.st_mode & 0o022 and stat.S_ISREG(found.st_mode) \
                        and found.st_uid == os.geteuid():
                    os.chmod(path, stat.S_IMODE(found.st_mode) & ~0o022)


def _umask_loose() -> bool:
    """Whether this process's umask lets group or others write what it makes (Linux says, in
    /proc, at ~30 us; elsewhere it is taken to)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8) & 0o022 != 0o022
    except (OSError, ValueError, IndexError):
        pass
    return True


def _write(path: str, data: bytes) -> None:
    """`data` in file `path`, whole or not at all: written beside it, then renamed over it.
    Its folders are made 0700 and the file 0644, whatever the umask."""
    _makedirs(os.path.dirname(path))
    partial = f"{path}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp"
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        with os.fdopen(os.open(partial, flags, 0o644), "wb") as f:
            f.write(data)
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.remove(partial)


def _aside_name(name: str) -> str:
    return f"{name}.{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _forget_marker(folder: str, name: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(os.path.join(folder, name + ".cached"))


def _warn(message: str) -> None:
    warnings.warn(f"rouge_exact's kernel cache {message}", KernelCacheWarning, stacklevel=3)


def _module_name(folder: str | None) -> str:
    return "rouge_metric_kernels_" + (os.path.basename(folder)[8:] if folder else "uncached")


def _compiled_module():
    """kernels.registry imported from the cache folder, its kernels (and those of the other
    kernel modules) numba dispatchers: numba caches beside a file (its default locator), so
    the cache is keyed by content."""
    if _state["module"] is not None:
        return _state["module"]
    # one thread imports it: a second one would find the half-run module in sys.modules (the
    # first call of a process may come from several scoring threads at once)
    with _module_lock:
        if _state["module"] is None:
            _import_compiled_module()
    return _state["module"]


def _import_compiled_module() -> None:
    # The folder is a package of its own name (sys.modules: numba finds a kernel's module by
    # name as it loads it), whose modules are the kernel files, as in the package: each keeps
    # its name, its lines and its relative imports (numba names a file's cache files after
    # it, and a traceback the file), and use_numba makes every kernel a dispatcher in every
    # module that names it. One module made from the files would need their imports of each
    # other taken out of their text; several cost nothing measurable (medians of alternated
    # runs against the one file: a new process with a warm cache, import and a first call of
    # 8 pairs, 0.708 s against 0.719 s; compiling every kernel, 22.1 s against 22.2 s).
    folder = _folder()
    name = _module_name(folder)
    if name not in sys.modules:
        package = types.ModuleType(name)
        package.__path__ = [folder or _HERE]  # (no cache: the package's files, compiled)
        sys.modules[name] = package
    module = importlib.import_module(f"{name}.registry")  # (the compiled copy: a run-time name)
    module.use_numba()
    _state["module"] = module


# Functions saying whether this process was interrupted by a Ctrl-C that something swallowed
# (the rouge command's: a KeyboardInterrupt raised in a finalizer while numba loads a kernel is
# only printed by CPython, and the load then fails in another way). Empty in a user's process.
INTERRUPT_CHECKS: list = []


def _swallowed_interrupt() -> bool:
    return any(check() for check in INTERRUPT_CHECKS)


def _load(name: str, failed: dict | None = None) -> None:
    """Compile kernel `name` in this thread, or load it from numba's cache, and adopt it.
    failed: a kernel the cache should hold, only loaded: where numba raises as it loads it (a
    file that does not read), or would compile it instead (_NotCached), failed[name] is that
    error and the kernel is not adopted."""
    with _lock:
        _state["loading"] += 1
    try:
        module = _compiled_module()
        with np.errstate(all="ignore"):
            if failed is None:
                module.EXAMPLES[name](module)  # compiles (or loads) the signature calls use
                _tighten(_state["folder"])  # (what it compiled, written with our umask)
            else:
                try:
                    with _loads_only():
                        module.EXAMPLES[name](module)
                except Exception as error:  # noqa: BLE001 - whatever numba raised as it loaded
                    if _swallowed_interrupt():
                        raise KeyboardInterrupt from error  # (see below)
                    if _interrupted(error):
                        raise
                    failed[name] = error
                    return
        if _swallowed_interrupt():
            # a Ctrl-C came and something swallowed it, perhaps inside this load, which may
            # have left numba's compiler lock taken: stop here, before any other thread waits
            raise KeyboardInterrupt
        _compiled[name] = getattr(module, name)
    finally:
        with _lock:
            _state["loading"] -= 1
    _event(name).set()


def _event(name: str) -> threading.Event:
    return _arrived.setdefault(name, threading.Event())  # atomic in CPython: no lock needed


# --------------------------------------------------------------------------------------------
# The cache heals


class _NotCached(Exception):
    """numba was about to compile, in a load that should only read the cache."""


class _NotCompiled(Exception):
    """The compile process could not compile a kernel (its line on stdout)."""


@functools.cache
def _guard_class():
    from numba.core import event  # numba's event API: "numba:compile" comes after a cache miss

    class NoCompile(event.Listener):
        def __init__(self):
            self.thread, self.pid = threading.get_ident(), os.getpid()

        def on_start(self, event):  # only in the thread that loads: others compile as usual
            if threading.get_ident() == self.thread and os.getpid() == self.pid:
                function = getattr(event.data.get("dispatcher"), "py_func", None)
                raise _NotCached(getattr(function, "__name__", "a kernel"))

        def on_end(self, event):
            pass

    return NoCompile


@contextlib.contextmanager
def _loads_only():
    """In this thread, numba loads from its cache but does not compile (_NotCached)."""
    from numba.core import event

    guard = _guard_class()()
    event.register("numba:compile", guard)
    _guards.append(guard)
    try:
        yield
    finally:
        event.unregister("numba:compile", guard)
        _guards.remove(guard)


def _unreadable(folder: str) -> list:
    """numba's files of the kernels in `folder` that do not unpickle as numba reads them (an
    index is two pickles, a data file one): garbage, cut short, empty. (path, inode) each."""
    _compiled_module()  # the data name the kernels' module, which must be imported
    cache = os.path.join(folder, "__pycache__")
    try:
        entries = sorted(os.listdir(cache))
    except OSError:
        return []
    bad = []
    for entry in entries:  # numba's: <kernels file>.<function>-<line>.<python>[.n].nbi/nbc
        if not (entry.split(".")[0] + ".py" in KERNEL_FILES
                and entry.endswith((".nbi", ".nbc"))):
            continue
        path = os.path.join(cache, entry)
        try:
            with open(path, "rb") as f:
                inode, data = os.fstat(f.fileno()).st_ino, f.read()
        except OSError:
            continue  # gone: replaced, or set aside by another process
        stream = io.BytesIO(data)  # (in memory: a length read as garbage allocates nothing)
        try:
            if not data:
                raise EOFError
            while stream.tell() < len(data):
                pickle.load(stream)
        except Exception:  # noqa: BLE001 - anything a garbled pickle raises
            bad.append((path, inode))
    return bad


def _set_aside(folder: str, bad: list) -> list:
    """Move these files to the folder's set-aside/ (numba then writes new ones): a process
    that has one open keeps reading its own copy. Their names, where moved."""
    moved = []
    for path, inode in bad:
        try:
            if os.stat(path).st_ino != inode:
                continue  # replaced since it was read (numba writes whole files by renaming)
            _makedirs(os.path.join(folder, SET_ASIDE))
            os.replace(path, os.path.join(folder, SET_ASIDE, _aside_name(os.path.basename(path))))
            moved.append(os.path.basename(path))
        except OSError:
            pass  # gone already: another process set it aside
    return moved


def _interrupted(error: BaseException) -> bool:
    """A Ctrl-C (or exit) inside the error, as numba wraps one that lands while a kernel loads
    (SystemError: ... returned a result with an exception set), or numba's own import cut short
    by one (numba half there: "module 'numba' has no attribute 'core'" at the next kernel), or
    one that INTERRUPT_CHECKS saw: not the cache's fault."""
    if _swallowed_interrupt():
        return True
    numba = sys.modules.get("numba")
    if numba is not None and not hasattr(numba, "core"):
        return True
    seen = set()
    while error is not None and id(error) not in seen:
        if not isinstance(error, Exception):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def _why(error: Exception) -> str:
    if isinstance(error, _NotCached):
        return ("not in it for this numba and this copy of the kernels (an index of another "
                "numba, or files missing)")
    if isinstance(error, _NotCompiled):
        return f"the compile process raised {error}"
    return f"{type(error).__name__}: {error}".splitlines()[0][:160]


def _heal(failed: dict, here: bool = False, compiling: bool = False) -> list:
    """The cache could not give these kernels (name -> what numba raised as it loaded them,
    _NotCached where it would have compiled them, _NotCompiled where the compile process could
    not): set aside its files that do not read, forget the kernels' markers (a later process
    compiles them as it does missing ones) and warn naming the folder. Returns the kernels to
    recompile, each at most once in a process. here: they are recompiled in this thread (else
    by a compile process). A failed compile (compiling: the errors come from loads that may
    compile; or _NotCompiled) is the cache's only where a file did not read."""
    folder = _folder()
    if folder is None or not failed:
        return []
    moved = []
    if any(not isinstance(error, _NotCached) for error in failed.values()):
        moved = _set_aside(folder, _unreadable(folder))
    failed = {name: error for name, error in failed.items()
              if moved or not (compiling or isinstance(error, _NotCompiled))}
    for name in failed:
        _forget_marker(folder, name)
    again = [name for name in failed if name not in _state["healed"]]
    _state["healed"].update(failed)
    if again:
        why = sorted({_why(error) for error in failed.values()})
        aside = f"; what did not read ({', '.join(moved)}) is in {SET_ASIDE}/" if moved else ""
        how = ("recompiled here, once" if here else "recompiled once, by a compile process; "
               "calls meanwhile run on their numpy twins, which give the same numbers")
        _warn(f"{folder} could not give {', '.join(again)} ({'; '.join(why)}){aside}: {how}")
    return again


# --------------------------------------------------------------------------------------------
# What a call loads: a ski rental. The twins are rented (their seconds, measured around each
# run), the compiled kernel is bought (numba's import and the kernel's load from the cache): a
# kernel is brought once the seconds spent in twins plus the run now asked for reach the cost
# of bringing it, so a process never pays more than twice what the better choice would have
# cost it, whatever its calls. Figures: benchmarks/cost_model.py prints them (docs/performance.md,
# "What a call loads").

# measured by `python benchmarks/cost_model.py --runs 5 --pairs 1000` (2 CPUs, load average 0.9)
NUMBA_IMPORT_SECONDS = 0.140  # `import numba`, in a fresh process that has numpy
# the first kernel's load from a warm cache (the compiled copy's import included), per kernel
LOAD_SECONDS = {
    "scan_stem_tokens": 0.1476, "scan_ascii_tokens": 0.1494, "dense_ids": 0.1446,
    "stem_table_insert": 0.1404, "porter_stem_codes": 0.146, "ngram_stats": 0.1497,
    "union_lcs_stats": 0.1568, "lcs_stats": 0.1533, "exact_column_sums": 0.1431,
    "example_prf": 0.1422, "poisson_bootstrap_sums": 0.1478, "wlcs_stats": 0.1516,
    "skip_bigram_stats": 0.1564, "perl_bootstrap_means": 0.1487, "distinct_ngram_stats": 0.1444,
    "set_union_lcs_stats": 0.1547, "scan_words": 0.1473,
}
LOAD_SECONDS_DEFAULT = 0.1568  # a kernel not measured: the slowest one's
# what starting the compile process adds to this process's whole run (its fork and exec, and
# what the process pays by its end: 3 ms to return from start(), 31 ms in all), measured as
# whole processes by the same script (load average 1.0): it then compiles on another core, and
# its kernels are adopted only once they are worth loading
SPAWN_SECONDS = 0.0312
# the twins' seconds per item (the total size of a run's array arguments), on realsumm's pairs
TWIN_SECONDS_PER_ITEM = {
    "dense_ids": 6.57e-08, "distinct_ngram_stats": 2.39e-07, "exact_column_sums": 1.94e-08,
    "example_prf": 1.66e-08, "lcs_stats": 1.86e-07, "ngram_stats": 2.72e-07,
    "poisson_bootstrap_sums": 1.58e-07, "porter_stem_codes": 2.97e-05,
    "scan_ascii_tokens": 3.64e-08, "scan_stem_tokens": 3.13e-08, "scan_words": 3.55e-08,
    "set_union_lcs_stats": 1.15e-06, "skip_bigram_stats": 1.11e-06,
    "stem_table_insert": 1.48e-08, "union_lcs_stats": 6.64e-07, "wlcs_stats": 6.74e-07,
}
TWIN_SECONDS_PER_ITEM_DEFAULT = 2.97e-05  # a twin not measured: the slowest one's


def twin_seconds(name: str, args) -> float:
    """The seconds kernel `name`'s twin is expected to take on these arguments: their items
    (the total size of the numpy arrays among them) times its measured seconds per item."""
    items = 0
    for arg in args:
        if isinstance(arg, np.ndarray):
            items += arg.size
    return items * TWIN_SECONDS_PER_ITEM.get(name, TWIN_SECONDS_PER_ITEM_DEFAULT)


def worth_compiling(name: str, args, spent: float | None = None, cached: bool = True) -> bool:
    """Whether the compiled kernel `name` is worth bringing before its twin runs on `args`:
    the seconds the twins have run in this process (spent; None: this process's) plus this
    run's (twin_seconds) reach the cost of bringing it: with the cache holding it (cached),
    numba's import (unless numba is imported) and its load; without, starting the compile
    process (SPAWN_SECONDS). Below it the twin runs and numba is not imported.

    Returns:
        True where it is worth bringing (kernels.backend then loads it, or starts the compile
        process), False where the twin should run.
    """
    if spent is None:
        spent = _state["spent"]
    if cached:
        cost = LOAD_SECONDS.get(name, LOAD_SECONDS_DEFAULT)
        if "numba" not in sys.modules:
            cost += NUMBA_IMPORT_SECONDS
    else:
        cost = SPAWN_SECONDS
    return spent + twin_seconds(name, args) >= cost


def _bring(name: str, args):
    """The compiled kernel `name`, where it is worth bringing for a run on `args` and it can
    be here now (loaded from the cache in this thread), else None: its twin runs. On a cache
    that lacks kernels the compile process starts first (a lower cost: see worth_compiling);
    a kernel asked for is then adopted as the compile process caches it."""
    if not worth_compiling(name, args, cached=False) or _state["pid"] != os.getpid():
        return None  # (cheap: most small calls stop here, without a look at the cache)
    if _state["process"] is None and not _complete():
        start()  # the compile process, which costs this process little; nothing loaded yet
    if name in _wanted and _state["process"] is not None:
        return _compiled.get(name)  # asked for: the adopter brings it when it is cached
    if worth_compiling(name, args):  # (adopting it as it is cached costs the same as a load)
        start((name,))
    return _compiled.get(name)


def _marked(name: str) -> bool:
    """Whether the cache folder has kernel `name` (its marker, written once it is cached)."""
    folder = _folder()
    return folder is not None and os.path.exists(os.path.join(folder, name + ".cached"))


def _complete() -> bool:
    """Whether the cache folder has every kernel (or there is none: nothing to compile)."""
    if not _state.get("complete"):
        _state["complete"] = _folder() is None or all(_marked(k) for k in KERNELS)
    return _state["complete"]


# --------------------------------------------------------------------------------------------
# What the scorer calls


_REGISTERED: dict = {}  # kernel name -> a function outside this package (register_kernel)


def register_kernel(name: str, function) -> None:
    """Serve ``function`` as the kernel ``name``, in every backend: a kernel that is not
    kernels.registry' own (a kind added with kinds.registered), which no compile
    process knows. Its result must be what a kernel of the package would give."""
    if name in KERNELS or _has_twin(name) or name in _REGISTERED:
        raise ValueError(f"name: got {name!r}, a kernel already; allowed: a new name")
    _REGISTERED[name] = function


def unregister_kernel(name: str) -> None:
    _REGISTERED.pop(name, None)


def resolve(names, chosen: str | None = None) -> dict:
    """{name: the implementation of that kernel to run now} for the kernels a call needs, in
    one look-up (chosen: mode(), read by the caller): the call then runs what was chosen for
    it, whatever arrives meanwhile."""
    if _UNSAID:
        _say_settings()
    chosen = chosen or mode()
    return {name: _implementation(name, chosen) for name in names}


def kernel(name: str, chosen: str | None = None):  # chosen: mode(), read by the caller
    """The implementation of kernel `name` to run now (see the module docstring)."""
    if _UNSAID:
        _say_settings()
    return _implementation(name, chosen or mode())


def _implementation(name: str, chosen: str):
    if _REGISTERED and name in _REGISTERED:
        return _REGISTERED[name]
    if chosen == "numpy":  # past what a twin can do (OutOfScope), plain Python, never numba
        return _twin(name, numba=False) if _has_twin(name) else _python(name)
    function = _compiled.get(name)
    if function is not None:
        return function
    if chosen == "numba" or not _has_twin(name):
        return _wait(name)
    _asked[name] = None
    return _twin(name)


def compiled_kernels():  # kernels.registry (every kernel by name) as numba dispatchers: tests
    return _compiled_module()


def helper(name: str):
    """A compiled function of the kernel modules outside EXAMPLES (the Space's traceback,
    _union_pair), compiled at its first call in the caller's thread; plain Python under
    ROUGE_METRIC_BACKEND=numpy or where compiling is unsafe (see _wait)."""
    if mode() == "numpy" or _state["no_compile"]:
        return _python(name)
    function = getattr(_compiled_module(), name)

    def run(*args):
        try:
            out = function(*args)
        except Exception as error:
            if _interrupted(error) or not _heal({name: error}, here=True, compiling=True):
                raise  # (healed: a file of the cache did not read)
            out = function(*args)  # compiled here, once (its files were set aside)
        if name not in _state["tightened"]:  # its first call compiled it here (or loaded it)
            _state["tightened"].add(name)
            _tighten(_state["folder"])
        return out
    return run


def _twin_of(name: str):
    """The numpy twin of kernel ``name``: in ``twins``, or for the profiles that count sets in
    ``twins_sets``."""
    return getattr(_twins, name, None) or getattr(_twins_sets, name, None)


def _has_twin(name: str) -> bool:
    return _twin_of(name) is not None


def _twin(name: str, numba: bool = True):
    """The numpy twin of a kernel, timed (worth_compiling); the compiled one once it is here,
    or once it is worth bringing (_bring). Past what the twin can do (OutOfScope), the
    compiled one, or without numba (numba=False) the plain Python one."""
    def run(*args, **kwargs):
        if numba:
            function = _compiled.get(name) or _bring(name, args)
            if function is not None:
                return function(*args, **kwargs)
        began = time.perf_counter()
        try:
            out = _twin_of(name)(*args, **kwargs)
        except _twins.OutOfScope:
            return (_wait(name) if numba else _python(name))(*args, **kwargs)
        # (unlocked: two threads adding at once may lose one run's seconds, which only
        # delays a load a little)
        _state["spent"] += time.perf_counter() - began
        return out
    return run


def _python(name: str):
    """The package's kernel run as plain Python: numpy's fixed-width scalars wrap on overflow
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
    if name not in _compiled and mode() != "numba":
        start((name,))  # loaded from the cache now, or asked of the compile process
        adopter = _state["adopter"]
        if adopter is not None and _state["pid"] == os.getpid():
            while name not in _compiled and not _event(name).wait(0.1):
                if not adopter.is_alive() and not _event(name).is_set():
                    break  # it ended without this kernel (killed, or failed): compile here
                if _marked(name):  # cached before it was asked for: the adopter passed it
                    start((name,))
    if name not in _compiled:
        try:
            _load(name)
        except Exception as error:
            if _interrupted(error) or not _heal({name: error}, here=True, compiling=True):
                raise  # (healed: a file of the cache did not read)
            _load(name)  # compiled here, once (its files were set aside)
    return _compiled[name]


# --------------------------------------------------------------------------------------------
# The compile process

_CHILD = """\
import importlib, os, sys, threading, time, types
os.umask(os.umask(0o022) | 0o022)  # numba's files here: not writable by group or others
folder, name, todo = sys.argv[1], sys.argv[2], sys.argv[3:]
asked = []  # kernels the parent asks for meanwhile, one a line on stdin: compiled next


def listen():  # stdin is a pipe from the process that started this one: its end means it is gone
    for line in sys.stdin:
        asked.append(line.strip())
    os._exit(0)


threading.Thread(target=listen, daemon=True).start()
package = types.ModuleType(name)  # the folder as a package, as _import_compiled_module does
package.__path__ = [folder]
sys.modules[name] = package
module = importlib.import_module(name + ".registry")  # (the copy to compile: a run-time name)
module.use_numba()
import numpy as np
done = set()
while True:
    kernel = next((k for k in asked + todo if k in module.EXAMPLES and k not in done), None)
    if kernel is None:
        break
    done.add(kernel)
    began = time.perf_counter()
    try:
        with np.errstate(all="ignore"):
            module.EXAMPLES[kernel](module)
    except Exception as error:  # a cache file that does not read, most likely: the parent heals
        print("!" + kernel, type(error).__name__, flush=True)
        continue
    open(os.path.join(folder, kernel + ".cached"), "w").close()
    print(kernel, round(time.perf_counter() - began, 3), flush=True)
"""


def start(names=()) -> None:
    """Make the compiled kernels `names` arrive: each loaded now where the cache has it; and
    where the cache lacks any kernel, one compile process that compiles every missing one,
    the kernels calls asked for first (`names` are adopted as it caches them; another one
    starts only for names asked for once it has ended). No names (compile_kernels): the
    compile process only, nothing loaded."""
    if mode() == "numpy" or _state["pid"] != os.getpid():
        return  # (a forked child uses twins, and compiles here only what it must wait for)
    if _swallowed_interrupt() or sys.is_finalizing():
        # on its way out (a Ctrl-C the command saw, or the interpreter ending while a pool
        # thread still runs a twin): a process or thread started now would fail or outlive it
        return
    folder = _folder()
    if folder is None:
        return  # no cache: numba compiles at first need (_wait), as it does by itself
    failed = {}
    for name in names:
        if name not in _compiled:
            _wanted[name] = None
            if _marked(name):
                _load(name, failed)
    here = mode() == "numba"  # (under =numba, _wait compiles them in the caller's thread)
    again = _heal(failed, here=here)
    if again:
        _state["complete"] = False
    with _lock:
        process, adopter = _state["process"], _state["adopter"]
        if process is not None and adopter is not None and adopter.is_alive():
            _ask(process, [name for name in names if name not in _compiled])
            return  # running: what is asked for now is compiled next
        if process is not None and not names:
            return  # (compile_kernels after one ended: what it could not compile waits)
        if here and names:
            return
        missing = [k for k in KERNELS if not _marked(k)]
        if not missing:
            return
        first = [k for k in (*names, *_asked) if k in missing]
        process = _spawn(folder, list(dict.fromkeys(first + missing)))
        if process is None:
            return  # _wait compiles here what a call needs
        _state["adopter"] = threading.Thread(target=_adopt, args=(process,), daemon=True,
                                             name="rouge-metric-adopt")
    _state["adopter"].start()


def _ask(process, names: list) -> None:
    """The running compile process compiles these kernels next (a line each on its stdin)."""
    with contextlib.suppress(OSError, ValueError):  # (ended meanwhile: the adopter heals)
        for name in names:
            process.stdin.write(name + "\n")
        process.stdin.flush()


def _spawn(folder: str, kernels: list):
    """A compile process for these kernels (None where none starts); _lock is held."""
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    # LLVM at -O1: ~15% less compile time, the kernels as fast (measured: within 3%); no
    # kernel lets LLVM reorder float arithmetic except _dot2, whose sums are exact
    env.setdefault("NUMBA_OPT", "1")
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", _CHILD, folder, _module_name(folder), *kernels],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, close_fds=True, text=True)
    except OSError:
        return None
    _state["process"] = process
    return process


def _adopt(process) -> None:
    """Load into this process each kernel the compile process caches that was asked for
    (_wanted: the others stay in the cache until a call needs them), then reap it; what the
    cache could not give is healed and recompiled once, by a second compile process."""
    try:
        failed = {}
        while process is not None:
            for line in process.stdout:
                word = line.split() or [""]
                name = word[0].lstrip("!")
                if name not in KERNELS or name in _compiled or _state["pid"] != os.getpid():
                    continue
                if word[0].startswith("!"):
                    failed[name] = _NotCompiled(" ".join(word[1:]))
                    continue
                with contextlib.suppress(IndexError, ValueError):
                    _state["compiled_in"][name] = float(word[1])
                if name in _wanted:
                    _load(name, failed)
            process.wait()
            # (a child killed by the user's Ctrl-C leaves its stdin a broken pipe: closing it
            # flushes nothing anyone reads)
            with contextlib.suppress(OSError):
                process.stdin.close()
            process.stdout.close()
            process, again = None, _heal(failed) if _state["pid"] == os.getpid() else []
            failed = {}
            if again:
                with _lock:
                    if _state["pid"] == os.getpid():
                        process = _spawn(_folder(), again)
    finally:
        for name in KERNELS:  # anyone still waiting compiles the kernel itself
            _event(name).set()


def stop() -> None:
    """End this process's compile process now (killed and reaped), for a program on its way
    out (the rouge command after Ctrl-C). Nothing is lost that its own end would keep: numba
    writes each cache file whole, and a kernel not cached yet is compiled by a later run."""
    for _ in range(3):  # (healing may start a second one as the first ends)
        process = _state["process"]
        if process is None or _state["pid"] != os.getpid() or process.poll() is not None:
            return
        try:
            process.kill()
            process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            return


def compile_all() -> list:
    """Every kernel compiled (or loaded from the cache) and adopted: the wait is here.

    Returns:
        (name, seconds, how) per kernel, in compile order: how is "cached" where the cache
        had it (seconds: its load here), else "compiled" (seconds: its compile, by the
        compile process or here); [] under ROUGE_METRIC_BACKEND=numpy.
    """
    if mode() == "numpy":
        return []
    had = [name for name in KERNELS if _marked(name)]
    start()  # the compile process, for what the cache lacks, compiling while the rest loads
    failed, took = {}, {}
    for name in had:  # all loaded before any is healed: one warning for what did not read
        began = time.perf_counter()
        if name not in _compiled and _state["pid"] == os.getpid():
            _load(name, failed)
        took[name] = time.perf_counter() - began
    again = _heal(failed, here=mode() == "numba")
    if again:
        start(tuple(again))  # recompiled by the compile process (or, under =numba, here)
    report = []
    for name in KERNELS:
        began = time.perf_counter()
        _wait(name)
        took[name] = took.get(name, 0.0) + time.perf_counter() - began
        if name in _state["compiled_in"]:
            report.append((name, _state["compiled_in"][name], "compiled"))
        else:
            fresh = name in had and name not in _state["healed"]
            report.append((name, took[name], "cached" if fresh else "compiled"))
    return report


def _after_fork_in_child() -> None:
    """A forked child owns neither the compile process nor the parent's lock: it keeps the
    kernels adopted so far and compiles for itself only what it must wait for."""
    global _lock, _module_lock
    _lock = threading.Lock()
    _module_lock = threading.Lock()
    _arrived.clear()
    _state.update(pid=os.getpid(), no_compile=_state["loading"] > 0, loading=0, adopter=None)
    process, _state["process"] = _state["process"], None
    if process is not None:
        with contextlib.suppress(OSError):  # (a pipe already broken: nothing to flush)
            process.stdin.close()  # the compile process ends with its parent, not with us
    event = sys.modules.get("numba.core.event")
    for guard in _guards[:]:  # a load was under way in another thread: its guard goes
        with contextlib.suppress(ValueError):
            event.unregister("numba:compile", guard)
    _guards.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
