"""Every code example in the README runs: the python blocks in order in one namespace (with a
stand-in tokenizer for the Trainer example), and the CLI lines of the bash blocks."""
import os
import re
import shlex
import subprocess
import sys
import warnings

import numpy as np

from conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


class StandInTokenizer:
    """What the Trainer example needs of a Hugging Face tokenizer: ids <-> words."""

    pad_token_id = 0
    vocab = ["<pad>", "the", "cat", "sat", "on", "mat", ".", "a", "dog", "ran"]

    def batch_decode(self, rows, skip_special_tokens=True):
        return [" ".join(self.vocab[i] for i in row if i != self.pad_token_id) for row in rows]


def test_python_examples_run(monkeypatch):
    monkeypatch.chdir(REPO)
    namespace = {"tokenizer": StandInTokenizer()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for code in blocks("python"):
            exec(compile(code, "README.md", "exec"), namespace)
        predictions = np.array([[1, 2, 3, 4, 1, 5, 6, 7, 8, 9, 6]])
        labels = np.array([[1, 2, 3, 4, 1, 5, 6, -100, -100, -100, -100]])
        scores = namespace["compute_metrics"]((predictions, labels))
    # no example warns unless it is there to show a warning (none is)
    assert [str(w.message) for w in caught if type(w.message).__name__ == "RougeWarning"] == []
    assert set(scores) == {"rouge1", "rouge2", "rougeL", "rougeLsum"}
    # prediction "the cat sat on the mat . a dog ran ." vs "the cat sat on the mat .":
    # 6 of 6 reference tokens, 6 of 9 prediction tokens -> F = 2 * (2/3) / (5/3) = 0.8
    assert abs(scores["rouge1"] - 0.8) < 1e-12
    assert namespace["result"]["count"] == 2


def test_cli_examples_run():
    lines = [line for code in blocks("bash") for line in code.splitlines()
             if line.startswith("python rouge_cli.py")]
    assert len(lines) >= 2
    for line in lines:
        argv = [sys.executable] + shlex.split(line)[1:]
        done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=600,
                              env=dict(os.environ))
        assert done.returncode == 0, (line, done.stderr[-2000:])
        assert "warning" not in done.stderr, (line, done.stderr[-2000:])
        assert "version:" in done.stdout


def test_engine_excerpts_are_the_example_files():
    """The README's ```py blocks (Spark, Ray) are excerpts of examples/*.py, which
    tests/test_engines.py runs: what the README shows is what runs."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "examples").glob("*.py"))
    excerpts = blocks("py")
    assert len(excerpts) == 2
    for excerpt in excerpts:
        assert excerpt in sources, excerpt
