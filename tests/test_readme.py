"""Every code example in the README and in docs/ runs, and prints what the page shows.

A ```python block runs (a page's blocks in order, in one namespace; the README's Trainer example
with a stand-in tokenizer). A ```bash block's `rouge-exact ...` lines run (the installed command:
this venv's bin/rouge-exact, which `pip install -e .` makes) and so do its
`python -m rouge_exact ...` lines (the same command, run by this interpreter). When a block is followed by a ```text block, that text is the
block's output and must equal what it printed. Links to files must resolve, and so must their
#anchors (GitHub's heading anchors).
The ```py blocks (Spark, Ray) are excerpts of examples/*.py, which tests/test_engines.py runs.
Figures of speed are not checked here: the pages give the benchmark command beside them.
"""
import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO

# the pages whose examples and links this file checks: every page a user reads
PAGES = ["README.md", "CHANGELOG.md"] + sorted(
    p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))
CLI = "python -m rouge_exact"  # the same command as a module: run with this interpreter
COMMAND = "rouge-exact"  # the installed command: run from this venv
COMMAND_PATH = Path(sys.executable).with_name(COMMAND)


def blocks(page):
    """[(language, code), ...] of a page's fenced blocks, in order."""
    text = (REPO / page).read_text(encoding="utf-8")
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, flags=re.S | re.M)


def shown_outputs(page, language):
    """(code, the ```text block right after it or None) of a page's blocks in a language."""
    found = blocks(page)
    return [(code, found[i + 1][1] if i + 1 < len(found) and found[i + 1][0] == "text"
             else None) for i, (lang, code) in enumerate(found) if lang == language]


class StandInTokenizer:
    """What the Trainer example needs of a Hugging Face tokenizer: ids <-> words."""

    pad_token_id = 0
    vocab = ["<pad>", "the", "cat", "sat", "on", "mat", ".", "a", "dog", "ran"]

    def batch_decode(self, rows, skip_special_tokens=True):
        return [" ".join(self.vocab[i] for i in row if i != self.pad_token_id) for row in rows]


def run_python_blocks(page, namespace):
    """Run a page's python blocks; each one's output must equal the text block shown after it.
    Returns the RougeWarnings given."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for code, shown in shown_outputs(page, "python"):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(code, page, "exec"), namespace)
            if shown is not None:
                assert printed.getvalue() == shown, (page, code)
    return [str(w.message) for w in caught if type(w.message).__name__ == "RougeWarning"]


@pytest.mark.parametrize("page", [p for p in PAGES if shown_outputs(p, "python")])
def test_python_examples_print_what_the_page_shows(page, monkeypatch):
    monkeypatch.chdir(REPO)
    # no example warns unless it is there to show a warning (none is)
    assert run_python_blocks(page, {"tokenizer": StandInTokenizer()}) == []


def test_readme_trainer_example_scores_as_computed_by_hand(monkeypatch):
    monkeypatch.chdir(REPO)
    namespace = {"tokenizer": StandInTokenizer()}
    run_python_blocks("README.md", namespace)
    predictions = np.array([[1, 2, 3, 4, 1, 5, 6, 7, 8, 9, 6]])
    labels = np.array([[1, 2, 3, 4, 1, 5, 6, -100, -100, -100, -100]])
    scores = namespace["compute_metrics"]((predictions, labels))
    assert set(scores) == {"rouge1", "rouge2", "rougeL", "rougeLsum"}
    # prediction "the cat sat on the mat . a dog ran ." vs "the cat sat on the mat .":
    # 6 of 6 reference tokens, 6 of 9 prediction tokens -> F = 2 * (2/3) / (5/3) = 0.8
    assert abs(scores["rouge1"] - 0.8) < 1e-12
    assert namespace["result"]["count"] == 2


def test_readme_first_example_is_rouge_score(monkeypatch):
    """The README's first printed scores are rouge_score's: the mean over the examples of the
    best F among each one's references (rouge_score 0.1.2's score_multi)."""
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    monkeypatch.chdir(REPO)
    namespace = {}
    code, shown = shown_outputs("README.md", "python")[0]
    exec(compile(code, "README.md", "exec"), namespace)  # prints; the other test checks that
    types = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types)
    rows = [scorer.score_multi(refs, pred)
            for pred, refs in zip(namespace["predictions"], namespace["references"])]
    expected = {t: sum(row[t].fmeasure for row in rows) / len(rows) for t in types}
    assert shown == f"{expected}\n"


def is_cli(part):
    return part.startswith(CLI + " ") or part == COMMAND or part.startswith(COMMAND + " ")


def cli_lines(code):
    """The `rouge-exact ...` and `python -m rouge_exact ...` commands of a block (also after
    `&&`, comments dropped)."""
    parts = [part.split("  #")[0].strip() for line in code.splitlines()
             for part in line.split("&&")]
    return [part for part in parts if is_cli(part)]


def cli_argv(line):
    """The argv that runs a page's command line here: `rouge-exact` is this venv's installed
    command, `python -m rouge_exact` this interpreter on the installed package."""
    words = shlex.split(line)
    if words[0] == COMMAND:
        assert COMMAND_PATH.exists(), f"{COMMAND_PATH} is missing: pip install -e ."
        return [str(COMMAND_PATH)] + words[1:]
    return [sys.executable] + words[1:]


@pytest.mark.parametrize("page", [p for p in PAGES
                                  if any(cli_lines(code) for code, _ in shown_outputs(p, "bash"))])
def test_cli_examples_print_what_the_page_shows(page):
    for code, shown in shown_outputs(page, "bash"):
        lines = cli_lines(code)
        for line in lines:
            if "--compile" in line:  # compiles every kernel: tests/test_cli.py runs it
                continue
            argv = cli_argv(line)
            done = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=600,
                                  env=dict(os.environ))
            assert done.returncode == 0, (line, done.stderr[-2000:])
            assert "warning" not in done.stderr, (line, done.stderr[-2000:])
            assert "version:" in done.stdout
            if shown is not None and len(lines) == 1:
                assert done.stdout == shown, line


def test_no_page_runs_the_old_command():
    """`rouge` and `python rouge_cli.py` are gone (the command is rouge-exact, or python -m
    rouge_exact): a page's command line that still used them would not be run above."""
    for page in PAGES:
        for lang, code in blocks(page):
            if lang not in ("bash", "sh", "console", "shell"):
                continue
            parts = [part.split("  #")[0].strip() for line in code.splitlines()
                     for part in line.split("&&")]
            old = [part for part in parts if re.match(r"(\$ )?(rouge( |$)|python3? rouge_cli)",
                                                      part) or "rouge_cli.py" in part]
            assert old == [], (page, old)


def test_readme_has_the_two_commands_first():
    """Right after the card and the title: the install + command line, then the tests; the
    first line's output is the text block after it (test_cli_examples_print_what_the_page_shows
    runs its `rouge-exact` part)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    after_card = text.split("---\n", 2)[2].lstrip().splitlines()
    assert after_card[0] == "# rouge-exact" and after_card[2] == "```bash"
    assert after_card[3] == ("python3 -m venv .venv && . .venv/bin/activate && pip install -e . "
                             "&& rouge-exact --jsonl examples/pairs.jsonl --use-stemmer")
    assert after_card[4].startswith("bash .ci/run   #")
    assert after_card[5] == "```"
    code, shown = shown_outputs("README.md", "bash")[0]
    assert cli_lines(code) == ["rouge-exact --jsonl examples/pairs.jsonl --use-stemmer"]
    assert shown is not None and shown.startswith("P/R/F: mid = mean over 8 examples")


def anchors(path):
    """The anchors GitHub gives a Markdown file's headings: lowercased, punctuation other
    than - and _ dropped, spaces to -, a repeat suffixed -1, -2, ... (code blocks skipped)."""
    text = re.sub(r"^```.*?^```$", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6} +(.+?) *#* *$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return found


def test_readme_is_short_and_links_resolve():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    assert text.startswith("---\n")
    for page in PAGES:
        text = (REPO / page).read_text(encoding="utf-8")
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
            if target.startswith("http"):
                continue
            path = (REPO / page).parent / target if target else REPO / page
            assert path.exists(), (page, target)
            if anchor and path.suffix == ".md":
                assert anchor in anchors(path), (page, target, anchor)


def test_engine_excerpts_are_the_example_files():
    """docs/engines.md's ```py blocks (Spark, Ray) are excerpts of examples/*.py, which
    tests/test_engines.py runs: what the page shows is what runs."""
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "examples").glob("*.py"))
    excerpts = [code for lang, code in blocks("docs/engines.md") if lang == "py"]
    assert len(excerpts) == 2
    for excerpt in excerpts:
        assert excerpt in sources, excerpt
