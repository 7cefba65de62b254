"""Cold start (rouge_warmup): forking while the kernels compile in the background is safe, the
kernel cache folder is keyed by content and bounded, and a new copy of the same version finds
the kernels another process compiled.

Each scenario runs in a fresh Python process with empty caches of its own (evaluate's module
cache and the kernel cache in a temporary user cache directory), as on a new machine.
"""
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import rouge_warmup as W
from conftest import DATA, REPO

TIMEOUT = 600  # a compile on 2 busy cores takes ~20 s; far above that means a hang


def _run(script: str, tmp_path: Path, **env) -> dict:
    """Run script in a fresh process with empty caches; its last stdout line as JSON."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("NUMBA_CACHE_DIR", "HF_MODULES_CACHE", W.CACHE_ENV,
                                W.BACKGROUND_ENV)}
    environment.update(HF_MODULES_CACHE=str(tmp_path / "modules"),
                       XDG_CACHE_HOME=str(tmp_path / "user_cache"), HF_EVALUATE_OFFLINE="1",
                       HF_HUB_OFFLINE="1", PYTHONWARNINGS="ignore", **env)
    prelude = textwrap.dedent(f"""
        import importlib, json, sys, time, warnings
        warnings.simplefilter("ignore")
        sys.path.insert(0, {str(REPO / "tests")!r})
        rows = [json.loads(line) for line in open({str(DATA)!r}, encoding="utf-8")][:40]
        predictions = [r["prediction"] for r in rows]
        references = [r["references"][0] for r in rows]
        TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
        import evaluate
        metric = evaluate.load({str(REPO / "rouge_metric.py")!r})
        package = type(metric).__module__.rpartition(".")[0]
        W = importlib.import_module(package + ".rouge_warmup")

        def worst_vs_rouge_score():
            # ours (per example, stemming) against rouge_score's F: the largest difference
            out = metric.compute(predictions=predictions, references=references,
                                 rouge_types=TYPES, use_stemmer=True, use_aggregator=False)
            from rouge_score import rouge_scorer
            scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
            theirs = [scorer.score(r, p) for p, r in zip(predictions, references)]
            return max(abs(out[t][i] - theirs[i][t].fmeasure)
                       for t in TYPES for i in range(len(theirs)))
    """)
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(script)],
                          env=environment, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


FORK_CHILD = textwrap.dedent("""
    import multiprocessing

    def score_in_child(queue):
        # evaluate's own writer is per process: score through compute() directly
        queue.put({"worst": worst_vs_rouge_score(),
                   "forked_midcompile": W._state["forked_midcompile"]})

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=score_in_child, args=(queue,))
    child.start()
    result = queue.get(timeout=300)
    child.join(60)
    result.update(exitcode=child.exitcode, busy_at_fork=busy_at_fork)
    # the parent goes on scoring too
    metric.compute(predictions=predictions, references=references, rouge_types=TYPES)
    print(json.dumps(result))
""")


def test_fork_while_a_compile_process_runs(tmp_path):
    # default: evaluate.load started a compile process; this process holds no compiler lock
    result = _run(textwrap.dedent("""
        busy_at_fork = any(p.poll() is None for p in W._state["processes"])
    """) + FORK_CHILD, tmp_path)
    assert result["busy_at_fork"], "the compile process had ended before the fork"
    assert result["exitcode"] == 0
    assert result["worst"] <= 1e-12
    assert result["forked_midcompile"] is False


def test_fork_while_this_process_compiles_on_a_thread(tmp_path):
    # a thread of this process holds numba's compiler lock at the fork: the child, which does
    # not have that thread, must not compile (it would wait for the lock for ever); it scores
    # on the numpy and Python tiers
    result = _run(textwrap.dedent("""
        deadline = time.monotonic() + 120
        while W._state["busy"] is None and time.monotonic() < deadline:
            time.sleep(0.01)
        busy_at_fork = W._state["busy"] is not None
    """) + FORK_CHILD, tmp_path, ROUGE_METRIC_BACKGROUND_COMPILE="thread")
    assert result["busy_at_fork"], "the compile thread never started"
    assert result["exitcode"] == 0
    assert result["worst"] <= 1e-12
    assert result["forked_midcompile"] is True


def test_a_new_copy_of_the_same_version_finds_the_compiled_kernels(tmp_path):
    # first process: compile the default types' kernels (into the user cache directory)
    first = _run("""
        W.warm_up(TYPES)
        W.wait()  # and the rest evaluate.load started (rougeW/SU, at nice 19)
        K = importlib.import_module(package + ".rouge_kernels")
        print(json.dumps({"cache_dir": K.CACHE_DIR}))
    """, tmp_path)
    assert first["cache_dir"].startswith(str(tmp_path / "user_cache"))
    # second process, another copy (evaluate's module cache emptied): everything is loaded at
    # evaluate.load, nothing compiled, nothing left to start
    import shutil
    shutil.rmtree(tmp_path / "modules")
    second = _run("""
        names = W.kernels_for(TYPES)
        print(json.dumps({"ready": [W.ready(n) for n in names],
                          "started": sorted(W._state["started"]),
                          "processes": len(W._state["processes"])}))
    """, tmp_path)
    assert all(second["ready"]) and second["started"] == [] and second["processes"] == 0


def test_cache_folder_is_keyed_by_content_and_name(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv(W.CACHE_ENV, str(tmp_path))
    source = tmp_path / "rouge_kernels.py"
    source.write_text("x = 1\n")
    a = W.cache_dir_for(str(source), "pkg.a.rouge_kernels")
    assert a == W.cache_dir_for(str(source), "pkg.a.rouge_kernels")
    assert os.path.dirname(a) == str(tmp_path)
    assert a != W.cache_dir_for(str(source), "pkg.b.rouge_kernels")
    source.write_text("x = 2\n")
    assert a != W.cache_dir_for(str(source), "pkg.a.rouge_kernels")
    # NUMBA_CACHE_DIR alone, or ROUGE_METRIC_CACHE_DIR=none: numba's own choice
    monkeypatch.setenv(W.CACHE_ENV, "none")
    assert W.cache_dir_for(str(source), "pkg.a.rouge_kernels") is None
    monkeypatch.delenv(W.CACHE_ENV)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert W.cache_dir_for(str(source), "pkg.a.rouge_kernels") is None


def test_cache_keeps_the_most_recent_folders(tmp_path):
    for i in range(W.CACHE_KEEP + 3):
        folder = tmp_path / f"kernels-{i:016x}"
        folder.mkdir()
        os.utime(folder, (1_000_000 + i, 1_000_000 + i))
    (tmp_path / "unrelated").mkdir()
    W._prune(str(tmp_path), str(tmp_path / "kernels-0000000000000000"))
    left = sorted(p.name for p in tmp_path.iterdir())
    newest = [f"kernels-{i:016x}" for i in range(3, W.CACHE_KEEP + 3)]
    # the newest CACHE_KEEP, the folder in use (here the oldest), and nothing else of ours
    assert left == sorted(["kernels-0000000000000000"] + newest + ["unrelated"])


@pytest.mark.parametrize("types, profile, expected", [
    (None, "rouge_score", ["ngram_stats", "lcs_stats", "union_lcs_stats"]),
    (["rougeL"], "rouge155", ["union_lcs_stats"]),
    (["rougeW-1.2", "rougeS4", "rougeSU4"], "rouge_score", ["wlcs_stats", "skip_bigram_stats"]),
])
def test_kernels_for_types(types, profile, expected):
    assert W.kernels_for(types, profile=profile) == \
        ["scan_stem_tokens", "dense_ids", "stem_table_insert", "porter_stem_codes"] + expected


def test_empty_caches_first_call_needs_neither_numba_nor_a_wait(tmp_path):
    # evaluate.load and a first small compute() run on the numpy tier: numba is not even
    # imported (its import alone costs 0.3-0.7 s); the compile runs in another process
    result = _run("""
        after_load = "numba" in sys.modules
        worst = worst_vs_rouge_score()
        print(json.dumps({"after_load": after_load, "after_compute": "numba" in sys.modules,
                          "worst": worst, "processes": len(W._state["processes"])}))
    """, tmp_path)
    assert not result["after_load"] and not result["after_compute"]
    assert result["worst"] <= 1e-12
    assert result["processes"] >= 1  # the compile process evaluate.load started


def test_compiled_kernels_arrive_without_a_call(tmp_path):
    # evaluate.load's compile process fills the disk cache; a thread of this process loads each
    # kernel from there as it arrives, so the first compute() after a wait (a Trainer that
    # generates before it scores) pays neither numba's import nor the loads
    result = _run("""
        names = W.kernels_for(TYPES)
        W.wait(600)  # the compile process is done
        deadline = time.monotonic() + 120
        while not all(W.ready(n) for n in names) and time.monotonic() < deadline:
            time.sleep(0.05)
        ready = [W.ready(n) for n in names]
        print(json.dumps({"ready": ready, "worst": worst_vs_rouge_score()}))
    """, tmp_path)
    assert all(result["ready"])
    assert result["worst"] <= 1e-12


def test_a_call_that_needs_a_nice_19_kernel_hands_it_to_a_nice_5_process(tmp_path):
    # evaluate.load compiles the default types' kernels at nice 5, then lcs_stats, rougeW's and
    # rougeSU's at nice 19. A call that must wait for one of the latter does not wait for a
    # process a busy machine may starve: it stops it and compiles the rest at nice 5.
    result = _run("""
        import os
        process, = W._state["processes"]
        while not all(W.cached(n) for n in process.urgent):  # its nice-5 phase
            time.sleep(0.05)
        time.sleep(0.5)
        nice = os.getpriority(os.PRIO_PROCESS, process.pid)
        W.warm_up(["rougeW-1.2", "rougeSU4"])  # waits for wlcs_stats and skip_bigram_stats
        print(json.dumps({"urgent": process.urgent, "nice": nice,
                          "returncode": process.wait(), "processes": len(W._state["processes"]),
                          "ready": [W.ready(n) for n in ("wlcs_stats", "skip_bigram_stats")],
                          "low_priority": sorted(W._state["low_priority"]),
                          "worst": worst_vs_rouge_score()}))
    """, tmp_path)
    assert "lcs_stats" not in result["urgent"] and "union_lcs_stats" in result["urgent"]
    assert result["nice"] == 19
    assert result["returncode"] == -9 and result["processes"] >= 2  # stopped, and replaced
    assert result["ready"] == [True, True]
    assert set(result["low_priority"]) <= {"lcs_stats"}  # the one left to a nice-19 phase
    assert result["worst"] <= 1e-12


WAIT_FOR_LOW_PRIORITY_PHASE = """
    import os
    process, = W._state["processes"]
    while not all(W.cached(n) for n in process.urgent):  # its nice-5 phase
        time.sleep(0.05)
    time.sleep(0.5)

    def state(pid):  # R running, S sleeping, T stopped, Z ended
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return "gone"
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_calls_stop_a_nice_19_compile_while_they_score(tmp_path):
    # beside a call, a compile process in its nice-19 phase made the call ~1.8x slower: it is
    # stopped while calls score (nested and overlapping calls: until the last one ends)
    result = _run(WAIT_FOR_LOW_PRIORITY_PHASE + """
    seen = [state(process.pid)]
    with W.compile_paused():
        seen.append(state(process.pid))
        with W.compile_paused():
            worst = worst_vs_rouge_score()  # a call inside: compute() pauses it too
        seen.append(state(process.pid))
    time.sleep(0.2)
    seen.append(state(process.pid))
    print(json.dumps({"seen": seen, "worst": worst}))
    """, tmp_path)
    before, inside, after_inner, after = result["seen"]
    assert before in "RS" and inside == "T" and after_inner == "T" and after in "RS"
    assert result["worst"] <= 1e-12


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_caller_that_dies_mid_call_leaves_no_stopped_compile(tmp_path):
    # the caller ends (os._exit: no atexit) while it holds the compile process stopped: the
    # kernel sends that process SIGCONT (its parent-death signal), and it goes on compiling
    result = _run(WAIT_FOR_LOW_PRIORITY_PHASE + """
    print(json.dumps({"pid": process.pid}), flush=True)
    with W.compile_paused():
        assert state(process.pid) == "T"
        os._exit(0)
    """, tmp_path)
    pid = result["pid"]
    time.sleep(1.0)
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        state = "gone"  # it finished compiling already
    if state != "gone":
        os.kill(pid, 9)
    assert state in ("R", "S", "D", "gone")


def test_fork_waits_for_an_import_in_progress(tmp_path):
    # a fork while a thread of this process is importing a module (start_at_load's nltk
    # prefetch; a slow import under load): the child must not inherit the module half imported,
    # or its own import of it waits for ever. Here the import takes 8 s, more than the 5 s the
    # fork used to wait.
    (tmp_path / "slow_module_for_fork.py").write_text("import time\ntime.sleep(8)\nVALUE = 42\n")
    result = _run(f"""
        import multiprocessing, threading
        sys.path.insert(0, {str(tmp_path)!r})
        importer = threading.Thread(target=importlib.import_module,
                                    args=("slow_module_for_fork",), daemon=True)
        importer.start()
        time.sleep(1.0)  # the import is under way
        W._state["prefetch"] = importer  # as start_at_load's prefetch thread

        def child(queue):
            import slow_module_for_fork
            queue.put(slow_module_for_fork.VALUE)

        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        process = context.Process(target=child, args=(queue,))
        process.start()
        try:
            value = queue.get(timeout=120)
        except Exception:
            value = None
            process.kill()
        process.join(30)
        print(json.dumps({{"value": value, "exitcode": process.exitcode}}))
    """, tmp_path)
    assert result == {"value": 42, "exitcode": 0}
