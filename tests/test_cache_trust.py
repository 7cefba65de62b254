"""The kernel cache is used only where nobody but the user could have written it.

numba's index files (*.nbi) are pickles, and a pickle runs code as it loads. Each case copies
the session's complete kernel cache, replaces every index in the copy with a pickle that
writes a marker file as it loads, makes the copy untrusted (its folder writable by others; as
root, which can chown, the copy owned by another uid) and runs compute() in a fresh process
on it (ROUGE_METRIC_CACHE_DIR), on the default backend and (slow) on numba's:

* the marker is never written, and nothing in the copy changes;
* one UntrustedCacheWarning names the folder and why;
* the numbers are rouge_score's, and the private folder used instead is gone once it ends.

The same planted copy, trusted, runs the pickle: the owner and mode check is what stops it.
Each file and folder deep in the copy is checked as its root is, and the folders the package
makes are 0700 whatever the umask.
"""
import glob
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest
from rouge_score import rouge_scorer

from conftest import compiled_kernels, staged

backend = staged("kernels.backend")
ROOT = os.geteuid() == 0  # root can chown a folder to another uid; another user cannot
OTHER_UID = 12345
PREDICTIONS = ["the cats sat on the mat", "a dog ran.\nIt was fast"]
REFERENCES = ["the cat lay on the mat", "the dog ran fast"]
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]

_RUN = textwrap.dedent("""
    import json, os, sys, warnings
    os.umask(int(sys.argv[2], 8))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import rouge_exact
        from rouge_exact.kernels import backend
        # a call that brings its kernels at once, as a large one does (a small one runs on
        # the twins and reads nothing of the cache: backend.worth_compiling)
        backend.NUMBA_IMPORT_SECONDS = backend.SPAWN_SECONDS = 0.0
        backend.LOAD_SECONDS_DEFAULT = 0.0
        backend.LOAD_SECONDS.clear()
        predictions, references, types = json.loads(sys.argv[1])
        out = rouge_exact.compute(predictions, references, rouge_types=types,
                                  use_aggregator=False)
    folder = backend._folder()
    print(json.dumps(dict(
        out=out, folder=folder, modes=[backend.untrusted(os.path.dirname(folder), folder)],
        warnings=[[w.category.__name__, str(w.message)] for w in caught])))
""")


class _Marker:
    """Unpickled, it writes the marker file (as a planted index could run anything)."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _start(root, mode="", umask=0o022):
    env = {k: v for k, v in os.environ.items() if k != "ROUGE_METRIC_BACKEND"}
    env["ROUGE_METRIC_CACHE_DIR"] = str(root)
    if mode:
        env["ROUGE_METRIC_BACKEND"] = mode
    return subprocess.Popen(
        [sys.executable, "-c", _RUN, json.dumps([PREDICTIONS, REFERENCES, TYPES]), f"{umask:o}"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(process, timeout=300) -> dict:
    stdout, stderr = process.communicate(timeout=timeout)
    assert process.returncode == 0, stderr[-3000:]
    return json.loads(stdout.splitlines()[-1])


def _listing(root) -> list:
    """Every path under root with its size, time and mode: what a run may not change."""
    out = []
    for top, folders, files in os.walk(root):
        for name in sorted(folders + files):
            found = os.lstat(os.path.join(top, name))
            out.append((os.path.relpath(os.path.join(top, name), root), found.st_size,
                        found.st_mtime_ns, found.st_mode, found.st_uid))
    return out


@pytest.fixture(scope="module")
def session_folder():
    """The session's kernel cache folder, every kernel compiled into it."""
    compiled_kernels()
    folder = backend._folder()
    assert all(os.path.exists(os.path.join(folder, k + ".cached")) for k in backend.KERNELS)
    return folder


def _planted(session_folder, where, marker):
    """A copy of the session's cache in `where`, the user's and 0700/0600 (whatever the
    session's umask), every index replaced by the marker's pickle."""
    root = os.path.join(where, "cache")
    folder = os.path.join(root, os.path.basename(session_folder))
    shutil.copytree(session_folder, folder)
    os.chmod(root, 0o700)
    for top, folders, files in os.walk(root):
        for name in folders:
            os.chmod(os.path.join(top, name), 0o700)
        for name in files:
            os.chmod(os.path.join(top, name), 0o600)
    indexes = sorted(glob.glob(os.path.join(folder, "__pycache__", "*.nbi")))
    assert len(indexes) >= len(backend.KERNELS)
    for path in indexes:
        with open(path, "wb") as f:
            pickle.dump(_Marker(marker), f)
    return root, folder, indexes


def _expected():
    scorer = rouge_scorer.RougeScorer(TYPES)
    scores = [scorer.score(r, p) for p, r in zip(PREDICTIONS, REFERENCES)]
    return {t: [s[t].fmeasure for s in scores] for t in TYPES}


def _untrust(how, root, indexes) -> str:
    """Make the planted copy untrusted one way; the path the warning should name."""
    change, what, value = how
    paths = {"root": [root], "index": [indexes[0]],
             "all": [root] + [os.path.join(top, name) for top, folders, files in os.walk(root)
                              for name in folders + files]}[what]
    for path in paths:
        if change == "mode":
            os.chmod(path, value)
        else:
            os.chown(path, value, -1)
    return paths[0]


# (case, how the copy is made untrusted, what the warning says of the path it names); a file
# deep in the folder is checked as the root is (test_every_file_in_the_folder_is_checked)
CASES = [("root writable by others", ("mode", "root", 0o777),
          "writable by group and others (mode 0777)")]
if ROOT:  # (another user cannot chown; the mode case runs everywhere)
    CASES += [("the copy owned by another uid", ("owner", "all", OTHER_UID),
               f"owned by uid {OTHER_UID}, not you (uid 0)")]


def _check_untrusted(got, named, why, root, before, marker):
    assert not os.path.exists(marker)  # no planted pickle ran
    assert _listing(root) == before  # nothing read into, set aside in or written to the copy
    assert got["out"] == _expected()
    said = [w for w in got["warnings"] if w[0].endswith("CacheWarning")]
    assert len(said) == 1 and said[0][0] == "UntrustedCacheWarning", said
    assert f"{named}: {why}" in said[0][1]
    private = os.path.dirname(got["folder"])
    assert os.path.dirname(private) == tempfile.gettempdir() and private in said[0][1]
    assert got["modes"] == [None]  # what this process wrote, the next one would trust
    assert not os.path.exists(private)  # removed when the process ended


def test_an_untrusted_cache_is_not_loaded(session_folder, tmp_path):
    """Each case (and the trusted control) in its own process, all at once: the default
    backend, told that loading costs nothing, loads a complete cache's kernels at the first
    call, where the pickle would run."""
    runs = []
    for n, (case, how, why) in enumerate(CASES + [("trusted", None, None)]):
        marker = str(tmp_path / f"marker-{n}")
        root, folder, indexes = _planted(session_folder, tmp_path / str(n), marker)
        named = _untrust(how, root, indexes) if how else None
        runs.append((case, named, why, root, folder, _listing(root), marker, _start(root)))
    for case, named, why, root, folder, before, marker, process in runs:
        got = _result(process)
        if why is None:  # trusted: the user's own files are loaded, pickles and all
            assert got["folder"] == folder  # (the planted one: the same kernels' key)
            assert os.path.exists(marker), case
            assert got["out"] == _expected()
        else:
            _check_untrusted(got, named, why, root, before, marker)


@pytest.mark.slow
def test_an_untrusted_cache_under_the_numba_backend(session_folder, tmp_path):
    """ROUGE_METRIC_BACKEND=numba, umask 002: the call compiles its kernels in the caller, into
    the private folder (10-30 s), not from the planted indexes; what numba wrote there with that
    umask is not writable by group, so a cache made so is trusted by the next process."""
    marker = str(tmp_path / "marker")
    root, _, _ = _planted(session_folder, tmp_path, marker)
    os.chmod(root, 0o770)
    before = _listing(root)
    got = _result(_start(root, mode="numba", umask=0o002))
    _check_untrusted(got, root, "writable by group (mode 0770)", root, before, marker)


def test_the_folders_made_are_the_users_alone(tmp_path):
    """Under umask 002 (group-writable by default) the folders the package makes, those above
    the cache root included, are 0700 and the kernels' copies 0644: the next process trusts
    them."""
    root = tmp_path / "made" / "here"
    code = ("import os, sys; os.umask(0o002); from rouge_exact.kernels import backend; "
            "print(backend._folder())")
    env = {**os.environ, "ROUGE_METRIC_CACHE_DIR": str(root)}
    folder = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                            text=True, check=True).stdout.strip()
    for path in (tmp_path / "made", root, folder, os.path.join(folder, "__pycache__")):
        assert oct(os.stat(path).st_mode & 0o777) == oct(0o700), path
    assert oct(os.stat(os.path.join(folder, "registry.py")).st_mode & 0o777) == oct(0o644)
    assert backend.untrusted(str(root), folder) is None


def test_every_file_in_the_folder_is_checked(session_folder, tmp_path):
    """In a copy of the session's cache, one thing at a time: an index writable by group, or
    by others, or owned by another uid (as root), numba's folder writable by group, a
    symbolic link in it. Each is named, with why; put back, the copy is trusted again."""
    root, folder, indexes = _planted(session_folder, tmp_path, str(tmp_path / "marker"))
    cache = os.path.join(folder, "__pycache__")
    link = os.path.join(cache, "elsewhere.nbi")
    # (path, its change, its undo, why it is named)
    changes = [(indexes[-1], ("chmod", 0o620), ("chmod", 0o600), "writable by group (mode 0620)"),
               (indexes[0], ("chmod", 0o602), ("chmod", 0o600), "writable by others (mode 0602)"),
               (cache, ("chmod", 0o770), ("chmod", 0o700), "writable by group (mode 0770)"),
               (link, ("symlink", indexes[0]), ("remove",), "a symbolic link")]
    if ROOT:
        changes.append((indexes[1], ("chown", OTHER_UID, -1), ("chown", 0, -1),
                        f"owned by uid {OTHER_UID}, not you (uid 0)"))
    assert backend.untrusted(root, folder) is None
    for path, change, undo, why in changes:
        if change[0] == "symlink":
            os.symlink(change[1], path)
        else:
            getattr(os, change[0])(path, *change[1:])
        assert backend.untrusted(root, folder) == f"{path}: {why}"
        getattr(os, undo[0])(path, *undo[1:])
        assert backend.untrusted(root, folder) is None
