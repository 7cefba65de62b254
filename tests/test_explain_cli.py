"""The two other doors of rouge_exact.explain: ``rouge-exact --explain`` (run as a subprocess,
as users run it, on 6 realsumm pairs written as JSONL, text files and CSV) and the evaluate
metric's ``explain`` method.

Expectations come from explain() run here on the same texts (the command must print what the
function returns, whatever the format it read) and, for ``--match``, from rouge_score itself:
its corpus F with its stemmer, rounded as a paper prints it, must be found as rouge_score's
convention. Bad input gives one line ``rouge-exact: error: ...`` and status 2, no traceback.
"""

import csv
import json
import os
import re
import shlex
import subprocess
import sys
from fractions import Fraction

import pytest

from conftest import REPO, needed, staged

rouge_scorer = needed("rouge_score.rouge_scorer")

COMMAND = [sys.executable, "-m", "rouge_exact"]  # the rouge-exact command, from this venv
WALK = ("rouge_score", "rouge155 use_stemmer=True")


def run_cli(*args, cwd):
    proc = subprocess.run([*COMMAND, *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def pairs(realsumm):
    """6 realsumm pairs (their texts have a sentence a line)."""
    rows = realsumm[:6]
    return [r["prediction"] for r in rows], [r["references"][0] for r in rows]


@pytest.fixture(scope="module")
def files(pairs, tmp_path_factory):
    """The pairs as JSONL and CSV, and as text files (one line a text: the sentences joined
    by spaces)."""
    folder = tmp_path_factory.mktemp("explain_cli")
    predictions, references = pairs
    with open(folder / "pairs.jsonl", "w", encoding="utf-8") as f:
        for p, r in zip(predictions, references):
            f.write(json.dumps({"prediction": p, "references": [r]}) + "\n")
    with open(folder / "pairs.csv", "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["prediction", "reference"])
        writer.writerows(zip(predictions, references))
    for name, texts in (("predictions.txt", predictions), ("references.txt", references)):
        (folder / name).write_text("".join(" ".join(t.split("\n")) + "\n" for t in texts),
                                   encoding="utf-8")
    return folder


def explain(*args, **kwargs):
    return staged("explanation").explain(*args, **kwargs)


def as_json(value):
    return json.loads(json.dumps(value))


def rouge_score_figures(pairs, types) -> dict:
    """rouge_score's own corpus F with its stemmer (the exact mean of its per-example F),
    x 100 with 2 decimals, as papers print it."""
    scorer = rouge_scorer.RougeScorer(list(types), use_stemmer=True)
    scores = [scorer.score(r, p) for p, r in zip(*pairs)]
    return {t: f"{float(sum(Fraction(s[t].fmeasure) for s in scores) / len(scores)) * 100:.2f}"
            for t in types}


# --------------------------------------------------------------------------------------------
# The command


def test_json_is_explains_dict_and_match_finds_rouge_score(metric, pairs, files):
    """--json: explain(...).as_dict() of the JSONL's pairs, with the lookup of rouge_score's
    own figures (found: rouge_score with its stemmer) and the walk's as_dict() under "walk"."""
    figures = rouge_score_figures(pairs, ("rouge1", "rouge2", "rougeLsum"))
    match = ",".join(f"{t}={v}" for t, v in figures.items())
    out = json.loads(ok(run_cli("--explain", "--jsonl", "pairs.jsonl", "--json", "--match",
                                match, "--walk", ",".join(WALK), cwd=files)))
    explained = explain(*pairs, match=figures)
    walk = out.pop("walk")
    assert out == as_json(explained.as_dict())
    assert walk == as_json(explained.walk(*WALK).as_dict())
    assert out["match"]["found"] and out["match"]["figures"] == figures
    assert "rouge_score use_stemmer=True" in [m["name"] for m in out["match"]["matches"]]
    assert "rouge_score" not in [m["name"] for m in out["match"]["matches"]]  # no stemmer


def test_text_files_print_the_table_the_walk_and_the_match(metric, pairs, files):
    """Text files, one text a line: the table of explain() on those lines (its last line the
    match's summary), then the walk's table, then the examples each step moves most, named by
    their index and their line in the predictions file."""
    lines = [open(files / name, encoding="utf-8").read().splitlines()
             for name in ("predictions.txt", "references.txt")]
    figures = rouge_score_figures(lines, ("rouge1", "rouge2"))
    match = ",".join(f"{t}={v}" for t, v in figures.items())
    out = ok(run_cli("--explain", "predictions.txt", "references.txt", "--match", match,
                     "--walk", ",".join(WALK), cwd=files))
    explained = explain(*lines, match=figures)
    walk = explained.walk(*WALK)
    assert out.startswith(explained.table() + "\n\n" + walk.table() + "\n")
    assert "rouge_score use_stemmer=True (off by" in explained.table().splitlines()[-1]
    tail = out[len(explained.table() + "\n\n" + walk.table() + "\n"):].splitlines()
    assert tail[0] == "" and tail[1].startswith("the examples each step moves most")
    moved = [(s.setting, m) for s in walk.steps for m in s.moved]
    assert moved and len(tail) == 2 + len(moved) + len({s for s, _ in moved})
    for setting, m in moved:
        line = f"    example {m.index} (predictions.txt:{m.index + 1}) {m.rouge_type} " \
               f"{100 * m.before:.4f} -> {100 * m.after:.4f}"
        assert setting in tail and line in tail


def test_csv_types_and_a_walk_from_the_options_given(metric, pairs, files):
    """CSV input; --rouge-types narrows every convention to its types; --walk NAME starts at
    the convention the metric flags make, whose scores are compute()'s with those options
    (here the table's row of the same options)."""
    out = json.loads(ok(run_cli("--explain", "--input", "pairs.csv", "--json", "--rouge-types",
                                "rouge1,rouge2", "--profile", "rouge155", "--use-stemmer",
                                "--walk", "coco", cwd=files)))
    explained = explain(*pairs, rouge_types=["rouge1", "rouge2"])
    start = {"profile": "rouge155", "use_stemmer": True, "rouge_types": ["rouge1", "rouge2"]}
    walk = out.pop("walk")
    assert out == as_json(explained.as_dict())
    assert walk == as_json(explained.walk(start, "coco").as_dict())
    assert walk["start"] == "rouge155 use_stemmer=True"
    assert walk["start_scores"] == out["rows"][[r["name"] for r in out["rows"]].index(
        "rouge155 use_stemmer=True")]["scores"]
    detailed = metric.compute(*pairs, detailed=True, **start)
    assert {t: detailed[t]["fmeasure"]["mid"] for t in ("rouge1", "rouge2")} == \
        {t: walk["start_scores"][t]["fmeasure"] for t in ("rouge1", "rouge2")}
    assert {t for row in out["rows"] for t in row["scores"]} == {"rouge1", "rouge2"}


def test_the_manual_prints_what_the_command_prints(metric):
    """docs/cli.md's --explain example (a ```sh block, then the ```text it prints), run."""
    page = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    section = page[page.index("## Explain: which ROUGE is this number"):]
    command, shown = re.search(r"```sh\n(.*?)\n```\n\n```text\n(.*?)```", section, re.S).groups()
    words = shlex.split(command)
    assert words[:2] == ["rouge-exact", "--explain"]
    assert ok(run_cli(*words[1:], cwd=REPO)) == shown


@pytest.mark.parametrize("args, words", [
    (["--explain", "predictions.txt", "references.txt", "--match", "rouge1"],
     "--match: got 'rouge1'; allowed: TYPE=FIGURE pairs"),
    (["--explain", "predictions.txt", "references.txt", "--match", "rouge1=4,rouge1=5"],
     "--match: rouge1 given twice"),
    (["--explain", "predictions.txt", "references.txt", "--match", "rougeQ=40.1"],
     "--match: got the key 'rougeQ', not a rouge type"),
    (["--explain", "predictions.txt", "references.txt", "--match", "rouge1=140"],
     "--match: got rouge1='140'; allowed: scores between 0 and 1, or 0 and 100"),
    (["predictions.txt", "references.txt", "--walk", "coco"],
     "--walk: given without --explain"),
    (["--explain", "predictions.txt", "references.txt", "--walk", "a,b,c"],
     "--walk: got 'a,b,c'"),
    (["--explain", "predictions.txt", "references.txt", "--walk", "rouge_score,nope"],
     "--walk: 'nope' is not a convention of the table; allowed: 'rouge_score', "),
    (["--explain", "predictions.txt", "references.txt", "--use-stemmer"],
     "--use-stemmer: --explain scores every convention"),
    (["--explain", "predictions.txt", "references.txt", "--walk", "coco", "--n-samples", "0"],
     "n_samples: got 0"),
    (["--explain", "predictions.txt", "references.txt", "--per-example", "out.jsonl"],
     "--per-example: --explain writes no per-example file"),
    (["--explain", "predictions.txt"], "expected PREDICTIONS and at least one REFERENCES"),
    (["--explain", "predictions.txt", "missing.txt"], "missing.txt: No such file"),
    (["--explain", "--input", "bad.jsonl"], "bad.jsonl:2: "),
    (["--explain", "--compare", "predictions.txt"], "--explain and --compare: give one"),
])
def test_bad_input_is_one_line_and_status_2(files, args, words):
    (files / "bad.jsonl").write_text('{"prediction": "a", "references": ["a"]}\n'
                                     '{"prediction": 3, "references": ["a"]}\n',
                                     encoding="utf-8")
    proc = run_cli(*args, cwd=files)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("rouge-exact: error: ") and proc.stderr.count("\n") == 1
    assert words in proc.stderr, proc.stderr


# --------------------------------------------------------------------------------------------
# evaluate


def test_the_evaluate_metric_explains(evaluate_metric, pairs):
    """evaluate's metric has explain (a method, as compare is): explain()'s result on the same
    examples, whose rows are the metric's own compute() of their options."""
    figures = rouge_score_figures(pairs, ("rouge1", "rouge2"))
    explained = evaluate_metric.explain(predictions=pairs[0], references=pairs[1],
                                        match=figures)
    assert explained.as_dict() == explain(*pairs, match=figures).as_dict()
    assert "rouge_score use_stemmer=True" in dict(explained.matched.matches)
    row = explained.row("rouge155 use_stemmer=True")
    computed = evaluate_metric.compute(predictions=pairs[0], references=pairs[1],
                                       **row.options)
    assert computed == {t: s["fmeasure"] for t, s in row.scores.items()}
