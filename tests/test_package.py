"""The package rouge_exact: what `import rouge_exact` costs and gives, and that every door
(the package API, the evaluate face, the rouge-exact command and `python -m rouge_exact`)
returns the same results.

The wheel's install into a fresh venv, outside the checkout, is checked by
tests/install_check.sh, which .ci/run runs."""
import json
import os
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

from conftest import REPO, load_metric

OPTIONS = dict(rouge_types=["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW-1.2", "rougeSU4"],
               use_stemmer=True, n_samples=200, seed=7)


@pytest.fixture(scope="module")
def rows(realsumm):
    return [r["prediction"] for r in realsumm[:300]], [r["references"] for r in realsumm[:300]]


def test_import_needs_neither_evaluate_nor_datasets(tmp_path):
    # the package's API scores without the evaluate stack (2 s here, 12-18 s beside torch)
    code = ("import sys, rouge_exact\n"
            "heavy = sorted(m for m in ('evaluate', 'datasets', 'pyarrow', 'pandas', 'numba',"
            " 'torch') if m in sys.modules)\n"
            "print(heavy)\n"
            "out = rouge_exact.compute(['a b c'], ['a b'], rouge_types=['rouge1'])\n"
            "print(sorted(m for m in ('evaluate', 'datasets') if m in sys.modules), out)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    imported, scored = proc.stdout.splitlines()
    assert imported == "[]"
    assert scored == "[] {'rouge1': 0.8}"  # P 2/3, R 2/2: F = 2 * (2/3) / (5/3) = 0.8


def test_version_is_the_distributions():
    import rouge_exact

    with open(REPO / "pyproject.toml", "rb") as f:
        assert tomllib.load(f)["project"]["version"] == rouge_exact.__version__ == "0.7.0"
    assert (REPO / "CHANGELOG.md").read_text(encoding="utf-8").count("0.4.0") >= 1


@pytest.mark.parametrize("extra", [{}, {"use_aggregator": False}, {"detailed": True},
                                   {"aggregation": "micro", "detailed": True}])
def test_compute_is_the_metrics(metric, rows, extra):
    face = load_metric()
    got = metric.compute(*rows, **OPTIONS, **extra)
    assert got == face.compute(predictions=rows[0], references=rows[1], **OPTIONS, **extra)


def test_compare_is_the_metrics(metric, rows):
    predictions, references = rows
    systems = {"a": predictions, "b": predictions[1:] + predictions[:1]}
    kwargs = dict(rouge_types=["rouge1", "rougeL"], n_samples=300, seed=3)
    got = metric.compare(systems, references, **kwargs)
    assert got == load_metric().compare(predictions=systems, references=references, **kwargs)


def test_states_merge_to_the_metrics_compute(metric, rows):
    predictions, references = rows
    states = [metric.partial(predictions[i:i + 70], references[i:i + 70], **OPTIONS)
              for i in range(0, len(predictions), 70)]
    states.append(metric.partial([], [], **OPTIONS))  # an empty partition: merge's identity
    merged = metric.merge(*[metric.state_from_bytes(s.to_bytes()) for s in states])
    face = load_metric()
    assert metric.finalize(merged) == face.finalize(face.partial(
        predictions=predictions, references=references, **OPTIONS)) == face.compute(
        predictions=predictions, references=references, **OPTIONS)
    with pytest.raises(ValueError, match="^states: got none"):
        metric.merge()
    with pytest.raises(TypeError, match=r"^states\[1\]: got dict"):
        metric.merge(states[0], {})


def test_evaluate_loads_the_installed_script_from_any_folder(tmp_path, monkeypatch):
    import evaluate
    import rouge_exact

    monkeypatch.chdir(tmp_path)  # evaluate.load("rouge_metric.py") only works beside it
    face = evaluate.load(rouge_exact.EVALUATE_SCRIPT)
    assert face.compute(predictions=["a b c"], references=["a b"]) == rouge_exact.compute(
        ["a b c"], ["a b"])


def test_the_command_is_ours_alone():
    """The distribution installs one command, rouge-exact, and no `rouge` (the name of other
    packages' commands: pltrdy's rouge, py-rouge)."""
    from importlib.metadata import distribution

    scripts = {e.name: e.value for e in distribution("rouge-exact").entry_points
               if e.group == "console_scripts"}
    assert scripts == {"rouge-exact": "rouge_exact.cli.main:console"}


def test_the_rouge_exact_command_is_the_cli(tmp_path):
    rouge = Path(sys.executable).with_name("rouge-exact")
    assert rouge.exists(), "pip install -e . installs the rouge-exact command"
    pairs = str(REPO / "examples" / "pairs.jsonl")
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    command = subprocess.run([str(rouge), "--jsonl", pairs, "--use-stemmer", "--json"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    module = subprocess.run([sys.executable, "-m", "rouge_exact", "--jsonl", pairs,
                             "--use-stemmer", "--json"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, env=env)
    assert command.returncode == module.returncode == 0, command.stderr + module.stderr
    assert command.stdout == module.stdout and command.stderr == module.stderr
    assert json.loads(command.stdout) == json.loads(module.stdout)
    rows = [json.loads(line) for line in open(pairs, encoding="utf-8")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import rouge_exact
        want = rouge_exact.compute([r["prediction"] for r in rows],
                                   [r["references"] for r in rows], use_stemmer=True,
                                   detailed=True)
    assert json.loads(command.stdout) == json.loads(json.dumps(want))
    # an error: one line, the same from both, starting with the command's name
    for argv in ([str(rouge)], [sys.executable, "-m", "rouge_exact"]):
        bad = subprocess.run([*argv, "--jsonl", pairs, "--alpha", "2"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
        assert bad.returncode == 2 and bad.stdout == "", bad.stderr
        assert bad.stderr.startswith("rouge-exact: error: alpha"), bad.stderr
        assert bad.stderr.count("\n") == 1, bad.stderr
    # no arguments: the same usage, named rouge-exact, exit status 2
    usage = [subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)
             for argv in ([str(rouge)], [sys.executable, "-m", "rouge_exact"])]
    assert [(u.returncode, u.stderr) for u in usage] == [(2, ""), (2, "")]
    assert usage[0].stdout == usage[1].stdout
    assert usage[0].stdout.startswith("usage: rouge-exact ")
