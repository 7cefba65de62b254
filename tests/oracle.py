"""Run the official ROUGE-1.5.5 Perl script (the "oracle") from tests.

Its driver and set-up live in ``tests/rouge155/``: install the script with
``bash tests/rouge155/setup.sh`` (idempotent; it installs into ``$ORACLE_HOME``, by default
``${XDG_CACHE_HOME:-~/.cache}/rouge_exact_oracle``). ``$ROUGE_SCRIPT`` points at another
ROUGE-1.5.5.pl.

* ``perl_rouge(pairs, options)`` -> the JSON printed by ``perl_rouge.py`` (see its docstring),
  cached in-process per (input, options).
* ``oracle_available()`` -> bool.
* ``require_oracle()`` -> skip the calling test when the oracle is missing, but FAIL instead
  when the environment variable ``CI`` is set (CI must never skip oracle tests).
* ``rouge_pl()`` -> the installed ROUGE-1.5.5.pl (its ``data/`` folder beside it), or None;
  ``oracle_home()`` -> the folder setup.sh installs into.
* ``oracle_vectors()`` -> the cases of ``tests/rouge155/vectors.jsonl`` with the script's outputs;
  ``stored_output(perl_rouge(...))`` -> a live run in the shape stored there.
"""
import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ORACLE_DIR = Path(__file__).resolve().parent / "rouge155"
SETUP_HINT = "bash tests/rouge155/setup.sh"
_CACHE = {}


@functools.cache
def _tool(name: str):
    """A script of tests/rouge155 as a module (they are standard library only): the tests look
    for the Perl script where perl_rouge.py does, and read vectors.jsonl as make_vectors.py
    wrote it."""
    spec = importlib.util.spec_from_file_location("rouge155_" + name, ORACLE_DIR / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_DRIVER = _tool("perl_rouge")


def oracle_home() -> str:
    """Where setup.sh installs the script: $ORACLE_HOME, else a folder of the user's cache."""
    return _DRIVER.oracle_home()


def rouge_pl():
    """ROUGE-1.5.5.pl as perl_rouge.py finds it ($ROUGE_SCRIPT, else under $ORACLE_HOME), or None."""
    return _DRIVER.installed_script()


def _python() -> str:
    return shutil.which("python3") or sys.executable


def oracle_available() -> bool:
    """True when perl and the installed ROUGE-1.5.5.pl are both there."""
    return shutil.which("perl") is not None and rouge_pl() is not None


def require_oracle():
    """Skip the test if the oracle is missing; with ``CI`` set, fail it instead."""
    if oracle_available():
        return
    msg = ("ROUGE-1.5.5 Perl oracle not available (looked for perl, and for ROUGE-1.5.5.pl via "
           "$ROUGE_SCRIPT or under %s); install it with: %s" % (oracle_home(), SETUP_HINT))
    import pytest

    if os.environ.get("CI"):
        pytest.fail(msg + " [CI is set: oracle tests must not be skipped]", pytrace=False)
    pytest.skip(msg)


def perl_rouge(pairs, options: str) -> dict:
    """Score ``pairs`` = [(prediction, [reference, ...]), ...] with the Perl script.

    ``options`` is one string of ROUGE-1.5.5 options, e.g. ``"-n 2 -w 1.2 -2 4 -u -a -d"``.
    Texts use ``"\\n"`` between sentences. Returns the parsed JSON of perl_rouge.py (keys
    ``returncode``, ``scores``, ``stderr``, ...); a non-zero ``returncode`` (e.g. ROUGE-W dying on
    a reference without tokens) is returned, not raised. Results are cached in-process.
    """
    lines = []
    for pred, refs in pairs:
        if isinstance(refs, str):
            refs = [refs]
        lines.append(json.dumps({"prediction": pred, "references": list(refs)}, ensure_ascii=False))
    data = "\n".join(lines) + "\n"
    key = (data, options)
    if key in _CACHE:
        return _CACHE[key]
    cmd = [_python(), _DRIVER.__file__]
    pl = rouge_pl()
    if pl:
        cmd += ["--rouge-script", pl]
    with tempfile.TemporaryDirectory(prefix="rouge_oracle_") as tmp:
        path = os.path.join(tmp, "pairs.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(data)
        proc = subprocess.run(cmd + [path, "-o", options], capture_output=True)
    try:
        result = json.loads(proc.stdout.decode("utf-8"))
    except ValueError:
        raise RuntimeError("perl_rouge.py failed (exit %d): %s" % (
            proc.returncode, proc.stderr.decode("utf-8", "replace")[-2000:])) from None
    _CACHE[key] = result
    return result


def oracle_vectors() -> list:
    """The hand-picked cases of ``tests/rouge155/vectors.jsonl``, each with the outputs the Perl
    script printed for it (make_vectors.py wrote them)."""
    with open(ORACLE_DIR / "vectors.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def stored_output(result: dict) -> dict:
    """What vectors.jsonl keeps of a ``perl_rouge()`` result (make_vectors.py's rule)."""
    return _tool("make_vectors").stored_output(result)
