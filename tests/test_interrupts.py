"""Ctrl-C in the command line (issue 38, "Interrupts are clean"): at any moment it exits with
status 130 and one line, ``rouge-exact: interrupted``; the ``--per-example`` file is then the old
one, untouched, or the new one, whole, and no temporary file is left beside it; no process of
the run outlives it.

- A Ctrl-C that surfaces wrapped: numba's ``SystemError: CPUDispatcher(...) returned a result
  with an exception set``, raised from the KeyboardInterrupt when it lands while a compiled
  kernel loads (it exited 1 with a traceback), also from a worker thread of the scorer's pool.
- A Ctrl-C that lands inside a finalizer, where CPython swallows the KeyboardInterrupt
  (evaluate's ``__del__`` once turned one into exit 0 and a replaced --per-example file).
- SIGINT sent to the run's process group, as a terminal's Ctrl-C is, at 24 seeded offsets
  spread over a run on a fresh kernel cache (the compile process runs meanwhile) and 12 over
  one on a full cache (the kernels load in the main thread): the slow tier.

The subprocesses run the installed command, ``python -m rouge_exact`` (the environment of
tests/test_cli.py: its ``env`` fixture).
"""
import os
import random
import select
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from test_cli import env  # noqa: F401 - fixture: the subprocesses' environment

ROOT = Path(__file__).resolve().parent.parent
REALSUMM = ROOT / "tests" / "data" / "realsumm.jsonl"
ROWS = 1500  # of REALSUMM's: a run of about a second on a fresh cache (2 vCPUs, no load)
PAIRS = b"".join(REALSUMM.read_bytes().splitlines(keepends=True)[:ROWS])
INTERRUPTED = "rouge-exact: interrupted\n"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def write_lines(path, texts):
    path.write_text("".join(t + "\n" for t in texts), encoding="utf-8")


# --------------------------------------------------------------------------------------------
# A Ctrl-C that surfaces wrapped (issue 38, row 5), main() in-process


def _interrupt_wrapped():
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as error:  # what CPython does when a call returns with it set
        raise SystemError("CPUDispatcher(<function poisson_bootstrap_sums at 0x7f0>) returned "
                          "a result with an exception set") from error


def _in_a_worker(function):
    """function() run in a worker thread of a ThreadPoolExecutor, as the scorer runs its
    spans: what it raises comes back in this thread."""
    with ThreadPoolExecutor(2) as pool:
        return pool.submit(function).result()


def _twice_wrapped():  # as numba's unpickling callback reported it: SystemError from SystemError
    try:
        _interrupt_wrapped()
    except SystemError as error:
        raise SystemError("<function _numba_unpickle> returned a result with an exception "
                          "set") from error


@pytest.mark.parametrize("raise_it", [
    _interrupt_wrapped,
    _twice_wrapped,
    lambda: _in_a_worker(_interrupt_wrapped),
    lambda: _in_a_worker(_twice_wrapped),
], ids=["SystemError", "SystemError-twice", "worker-SystemError", "worker-SystemError-twice"])
def test_a_wrapped_interrupt_exits_130_with_one_line(tmp_path, monkeypatch, capsys, raise_it):
    """The issue's row 5 (exit 1 and a traceback): a SystemError whose cause is a
    KeyboardInterrupt, raised by the scorer (here after it wrote a chunk's rows), in this
    thread or in a worker of a pool, is an interrupt: status 130, one line, the old
    --per-example file untouched and no temporary file."""
    from rouge_exact.cli import main as rouge_cli

    write_lines(tmp_path / "p.txt", ["the cat sat", "a dog"] * 3)
    write_lines(tmp_path / "r.txt", ["a cat sat", "the dog"] * 3)
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "scores.jsonl"
    target.write_text("old\n", encoding="utf-8")
    real = rouge_cli.score_rows
    calls = []

    def scorer_interrupted(module, options, batches, path, on_batch):
        def on_chunk(predictions, scores):
            on_batch(predictions, scores)
            calls.append(len(predictions))
            if len(calls) == 2:
                raise_it()

        return real(module, options, batches, path, on_chunk)

    monkeypatch.setattr(rouge_cli, "score_rows", scorer_interrupted)
    code = rouge_cli.main([str(tmp_path / "p.txt"), str(tmp_path / "r.txt"), "--per-example",
                           str(target), "--chunk-size", "2"])
    out, err = capsys.readouterr()
    assert (code, out, err) == (130, "", INTERRUPTED)
    assert calls == [2, 2]
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["scores.jsonl"]


def test_a_plain_interrupt_from_a_worker_exits_130(tmp_path, monkeypatch, capsys):
    """A KeyboardInterrupt that a worker thread of the scorer's pool raises comes back in the
    main thread as itself: 130 (this one held before the issue too)."""
    from rouge_exact.cli import main as rouge_cli

    write_lines(tmp_path / "p.txt", ["the cat sat"])
    write_lines(tmp_path / "r.txt", ["a cat sat"])

    def interrupted(module, options, batches, path, on_batch):
        def worker():
            raise KeyboardInterrupt

        _in_a_worker(worker)

    monkeypatch.setattr(rouge_cli, "score_rows", interrupted)
    assert rouge_cli.main([str(tmp_path / "p.txt"), str(tmp_path / "r.txt")]) == 130
    assert capsys.readouterr() == ("", INTERRUPTED)


def test_main_installs_no_signal_handler(tmp_path, capsys):
    """main() is called in-process (tests, notebooks): SIGINT and the unraisable hook stay
    the caller's. Only console(), the process's entry, takes them over."""
    from rouge_exact.cli import main as rouge_cli

    write_lines(tmp_path / "p.txt", ["the cat sat"])
    write_lines(tmp_path / "r.txt", ["a cat sat"])
    handler, hook = signal.getsignal(signal.SIGINT), sys.unraisablehook
    assert rouge_cli.main([str(tmp_path / "p.txt"), str(tmp_path / "r.txt")]) == 0
    assert signal.getsignal(signal.SIGINT) is handler and sys.unraisablehook is hook
    assert "count: 1" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# A Ctrl-C that lands inside a finalizer (issue 38, row 4), in a process of its own

_FINALIZER = textwrap.dedent("""
    import os, signal, sys, time
    from rouge_exact.cli import main as rouge_cli
    log = sys.argv[1]

    class Finalized:
        def __del__(self):  # the Ctrl-C lands here, where CPython swallows what it raises
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(2)  # (the handler runs during it)

    real, chunks = rouge_cli.write_per_example, []

    def write_per_example(stream, scores):
        chunks.append(1)
        if len(chunks) == 2:
            Finalized()  # dropped at once: its __del__ runs now
        real(stream, scores)
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"chunk {len(chunks)}\\n")

    rouge_cli.write_per_example = write_per_example
    sys.argv = ["rouge-exact", *sys.argv[2:]]
    rouge_cli.console()
""")


def test_an_interrupt_inside_a_finalizer_is_not_swallowed(env, tmp_path):
    """The issue's row 4: a Ctrl-C that arrives while a finalizer (a ``__del__``) runs raises
    its KeyboardInterrupt there, where CPython prints it and goes on: the run finished with
    status 0 and replaced the --per-example file. Now: status 130, one line, the old file
    untouched, no temporary file, and the run stops at its next chunk (of 4)."""
    write_lines(tmp_path / "p.txt", ["the cat sat", "a dog"] * 4)
    write_lines(tmp_path / "r.txt", ["a cat sat", "the dog"] * 4)
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "scores.jsonl"
    target.write_text("old\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", _FINALIZER, "chunks.log", "p.txt", "r.txt",
                           "--per-example", str(target), "--chunk-size", "2"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert (proc.returncode, proc.stderr) == (130, INTERRUPTED)
    # the third chunk's rows were not written
    assert (tmp_path / "chunks.log").read_text(encoding="utf-8") == "chunk 1\nchunk 2\n"
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["scores.jsonl"]


# --------------------------------------------------------------------------------------------
# SIGINT at many moments of real runs (the contract), the slow tier

# The command, started so that the test knows when its code starts: the interpreter's own
# start (site, before any line of the command runs) is not the command's to answer. A byte on
# the pipe says the command starts; it then runs as `python -m rouge_exact` runs it (runpy:
# rouge_exact/__main__.py as __main__, whose first lines take SIGINT over before the command's
# modules import). No core files from the compile process.
# The command's moments start at its own first line: the package (rouge_exact/__init__.py,
# which imports nothing heavy and installs no handler, as a library must not) is imported
# before "ready". Until then a Ctrl-C is the interpreter's and the import system's (Python's
# own traceback, as for any program), a window of 10-80 ms that a fast run's early offsets
# reached: 1 of 24 runs, SIGINT at 0.077 s inside runpy's import of the package.
_LAUNCH = textwrap.dedent("""
    import os, resource, runpy, signal, sys  # (signal: imported by __main__'s first line)
    import rouge_exact  # (see above)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    ready = int(sys.argv[1])
    sys.argv = ["rouge-exact", *sys.argv[2:]]
    os.write(ready, b"."), os.close(ready)
    runpy.run_module("rouge_exact", run_name="__main__", alter_sys=True)
""")


def _group_members(pgid: int) -> list:
    """The processes of a process group that are alive (not zombies), from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry))
    return members


def _run_interrupted(env, workdir: Path, args, offset):
    """Run the command in a process group of its own; ``offset`` seconds after its code
    starts, SIGINT to the group (None: no signal). (status, stderr, seconds from the signal
    to its exit, seconds the last other process of the group lived on after that, the
    processes of the group alive when it had exited: the kernel compile process must not
    outlive it)."""
    read, write = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, str(write), *args], cwd=workdir, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(write,),
            start_new_session=True)
    finally:
        os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], 120)
        assert ready and os.read(read, 1) == b".", "the command did not start"
    finally:
        os.close(read)
    sent = None
    if offset is not None:
        time.sleep(offset)
        sent = time.monotonic()
        try:
            os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:  # (it exited and was reaped meanwhile: cannot be, but)
            pass
    try:
        _, stderr = proc.communicate(timeout=300)
    finally:
        proc.kill()
    exited = time.monotonic()
    took = None if sent is None else exited - sent
    left = _group_members(proc.pid)
    while _group_members(proc.pid) and time.monotonic() < exited + 5:
        time.sleep(0.01)
    lingered = time.monotonic() - exited
    for pid in _group_members(proc.pid):  # (not ours to leave running)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return proc.returncode, stderr.decode("utf-8", "replace"), took, lingered, left


def _problems(run, complete: bytes) -> list:
    """What is wrong with one interrupted run: [] if nothing."""
    where = (f"SIGINT at {run['offset']} s: status {run['code']}, "
             f"stderr {run['stderr'][-1500:]!r}")  # (its start: what printed a traceback)
    problems = []
    if run["code"] == 130:
        if run["stderr"] != INTERRUPTED:
            problems.append("not one line")
        if run["now"] not in (run["old"], complete):
            problems.append("the per-example file is neither the old one nor the new one whole")
    elif (run["code"], run["stderr"], run["now"]) != (0, "", complete):
        problems.append("neither interrupted (130) nor finished (0, the new file whole)")
    if run["files"] != (["scores.jsonl"] if run["now"] is not None else []):
        problems.append(f"files beside the output: {run['files']}")
    if run["left"]:
        problems.append(f"processes that outlived it: {run['left']} (gone "
                        f"{run['lingered']:.2f} s later)")
    return [f"{where}: {', '.join(problems)}"] if problems else []


def _sweep(env, tmp_path, kind, n_offsets, seed):
    """One uninterrupted run (its output and its duration), then runs interrupted at
    ``n_offsets`` seeded offsets spread over that duration (stratified: one in each of
    ``n_offsets`` equal slices from 0.02 s to a little past the end), two at a time."""
    def prepared(name, old: bool):
        workdir = tmp_path / name
        (workdir / "out").mkdir(parents=True)
        (workdir / "pairs.jsonl").write_bytes(PAIRS)
        if old:
            (workdir / "out" / "scores.jsonl").write_text("old\n", encoding="utf-8")
        run_env = dict(env)
        if kind == "fresh":  # a cache of its own: every kernel is compiled anew
            run_env["ROUGE_METRIC_CACHE_DIR"] = str(workdir / "kernels")
        return workdir, run_env

    args = ["--input", "pairs.jsonl", "--per-example", "out/scores.jsonl", "--chunk-size", "250"]
    workdir, run_env = prepared("baseline", old=False)
    started = time.monotonic()
    code, stderr, _, _, left = _run_interrupted(run_env, workdir, args, None)
    duration = time.monotonic() - started
    assert (code, stderr, left) == (0, "", [])
    complete = (workdir / "out" / "scores.jsonl").read_bytes()
    assert complete.count(b"\n") == ROWS

    rng = random.Random(seed)
    first, span = 0.02, 1.1 * duration
    offsets = [first + (i + rng.random()) * (span - first) / n_offsets for i in range(n_offsets)]

    def one(i):
        workdir, run_env = prepared(f"run{i}", old=i % 3 != 2)  # every third: no old file
        old = (workdir / "out" / "scores.jsonl").read_bytes() if i % 3 != 2 else None
        code, stderr, took, lingered, left = _run_interrupted(run_env, workdir, args, offsets[i])
        now = workdir / "out" / "scores.jsonl"
        return dict(offset=round(offsets[i], 3), code=code, stderr=stderr, took=took,
                    lingered=lingered, left=left, old=old,
                    now=now.read_bytes() if now.exists() else None,
                    files=sorted(p.name for p in (workdir / "out").iterdir()))

    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(one, range(n_offsets)))
    problems = [problem for run in runs for problem in _problems(run, complete)]
    assert not problems, f"{kind} cache, {len(problems)} of {n_offsets} runs:\n" + \
        "\n".join(problems)
    interrupted = [run for run in runs if run["code"] == 130]  # (the others had finished)
    assert len(interrupted) >= n_offsets // 3, [(r["offset"], r["code"]) for r in runs]
    return duration, runs


def _report(kind, duration, runs):  # (pytest -s shows it)
    print(f"\n{kind} cache: a run {duration:.2f} s; SIGINT at (s): status "
          + ", ".join(f"{r['offset']}: {r['code']}" for r in runs)
          + f"; exit at most {max(r['took'] for r in runs):.2f} s after the signal")


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc (Linux)")


@pytest.mark.slow
@needs_proc
def test_sigint_at_any_moment_of_a_fresh_cache_run(env, tmp_path):
    """24 runs on REALSumm (1,500 rows, --per-example in chunks of 250) on a fresh kernel
    cache each, so that the compile process runs beside them, SIGINT to the process group at
    seeded offsets over the first seconds: 130 and one line (or 0: it had finished), the
    per-example file old or whole, no temporary file, no process left."""
    _report("fresh", *_sweep(env, tmp_path, "fresh", 24, seed=38))


@pytest.mark.slow
@needs_proc
def test_sigint_at_any_moment_of_a_full_cache_run(env, tmp_path, metric):
    """The same on the session's full kernel cache (``metric`` compiles it), where the run
    loads the kernels it needs from it once their twins have run long enough: a Ctrl-C
    during a load came out of numba as a SystemError (row 5)."""
    _report("full", *_sweep(env, tmp_path, "full", 12, seed=5))
