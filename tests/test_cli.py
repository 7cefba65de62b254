"""The rouge-exact command, run as a subprocess as users run it (``python -m rouge_exact``, the
same command as the installed ``rouge-exact``: tests/test_package.py compares the two): its
numbers against ``metric.compute`` over the same rows, text files, JSONL, JSON, CSV and TSV
(written by json, pandas and Python's csv module) against each other, chunked streaming against
one compute, warnings, the table's description of its numbers, the metric options against the
metric's options schema, and the one-line errors (exit status 2) on bad files and options,
including a 2 GiB line under a capped address space.

Expectations come from ``metric.compute`` (run in a subprocess too, with the same caches), never
from numbers written here: the CLI must reproduce the metric, whose own correctness is tested
against rouge_score and the Perl script elsewhere.

Every subprocess runs the installed package (``pip install -e .``: the command and compute() run
the same code), and shares one temporary HF_HOME / HF_MODULES_CACHE (and the session's
ROUGE_METRIC_CACHE_DIR), so that only the first use of each numba kernel compiles it (about 30 s
of CPU in all).

The 1,000,000-row streaming run is opt-in (always on with $CI set): ``ROUGE_SLOW=1 pytest -s -m slow tests/test_cli.py``
(it prints rows/s and the child's peak RSS; the ``slow`` marker is registered in pytest.ini).
"""
import csv
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from itertools import cycle, islice
from pathlib import Path

from conftest import needed  # (an optional test package: a skip with its reason outside CI)
pd = needed("pandas")
import pytest

ROOT = Path(__file__).resolve().parent.parent
EVALUATE_SCRIPT = ROOT / "rouge_metric.py"  # the thin evaluate script: it imports rouge_exact.hf
COMMAND = [sys.executable, "-m", "rouge_exact"]  # the rouge-exact command, from this venv
EXAMPLES = ROOT / "examples"
REALSUMM = ROOT / "tests" / "data" / "realsumm.jsonl"

# opt-in locally; with $CI set it always runs (CI never skips a test)
slow = pytest.mark.skipif(os.environ.get("ROUGE_SLOW") != "1" and not os.environ.get("CI"),
                          reason="1M-row streaming run: set ROUGE_SLOW=1 (and -m slow)")


# --------------------------------------------------------------------------------------------
# Helpers


@pytest.fixture(scope="session")
def env(tmp_path_factory):
    """Environment for every subprocess: caches shared by the whole session."""
    cache = tmp_path_factory.mktemp("rouge_cli_cache")
    out = dict(os.environ)
    out.update(HF_HOME=str(cache / "hf"), HF_MODULES_CACHE=str(cache / "modules"),
               PYTHONIOENCODING="utf-8")
    return out


def run_cli(env, *args, cwd=None):
    return subprocess.run([*COMMAND, *map(str, args)], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc


_COMPUTE = textwrap.dedent("""
    import json, sys, warnings
    import evaluate
    jobs = json.load(open(sys.argv[1], encoding="utf-8"))
    from rouge_exact import RougeWarning as rouge_warning  # the metric's warnings
    metric = evaluate.load(sys.argv[2])
    out = []
    for job in jobs:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = metric.compute(predictions=job["predictions"],
                                    references=job["references"], **job["kwargs"])
        out.append({"result": result, "warnings": [str(w.message) for w in caught
                                                   if issubclass(w.category, rouge_warning)]})
    json.dump(out, sys.stdout)
""")


def compute_many(env, tmp_path, jobs):
    """metric.compute(predictions, references, **kwargs) for each job, in one subprocess:
    [{"result": dict, "warnings": [RougeWarning messages]}]."""
    spec = tmp_path / "jobs.json"
    spec.write_text(json.dumps(jobs), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", _COMPUTE, str(spec), str(EVALUATE_SCRIPT)],
                          env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def job(rows, **kwargs):
    return {"predictions": [r["prediction"] for r in rows],
            "references": [r["references"] for r in rows], "kwargs": kwargs}


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({"prediction": r["prediction"], "references": r["references"]})
                    + "\n")
    return path


def write_lines(path, texts):
    assert all("\n" not in t and "\r" not in t for t in texts)
    path.write_text("".join(t + "\n" for t in texts), encoding="utf-8")
    return path


def flat(text):
    return text.replace("\n", " ")


def warning_lines(messages):
    return ["rouge-exact: warning: " + " ".join(m.split()) for m in messages]


def per_example_from_compute(result):
    """compute(use_aggregator=False, detailed=True) as the CLI's per-example JSON lines."""
    names = [k for k in result if k not in ("signature", "count")]
    n = result["count"]
    return [{name: {key: result[name][key][i] for key in ("precision", "recall", "fmeasure")}
             for name in names} for i in range(n)]


# --------------------------------------------------------------------------------------------
# Data: 300 rows spread over the 35 systems of realsumm.jsonl, with a second reference
# (another system's summary of the same document) for the multi-reference cases


@pytest.fixture(scope="module")
def realsumm():
    return [json.loads(line) for line in REALSUMM.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def rows(realsumm):
    return [{"prediction": r["prediction"], "references": r["references"]}
            for r in realsumm[::11][:300]]


@pytest.fixture(scope="module")
def multi_rows(realsumm):
    by_doc = {}
    for r in realsumm:
        by_doc.setdefault(r["doc"], []).append(r["prediction"])
    picked = realsumm[5::11][:300]
    return [{"prediction": r["prediction"],
             "references": r["references"] + [by_doc[r["doc"]][(i * 7) % 35]]}
            for i, r in enumerate(picked)]


CONFIGS = {
    "defaults": ([], {}),
    "stem-micro-best-alpha": (
        ["--use-stemmer", "--multi-ref", "best", "--aggregation", "micro", "--rouge-types",
         "rouge1 rougeL rougeW-1.5 rougeSU4", "--alpha", "0.3", "--remove-stopwords",
         "--n-samples", "300", "--seed", "7", "--confidence", "0.9"],
        dict(use_stemmer=True, multi_ref="best", aggregation="micro",
             rouge_types=["rouge1", "rougeL", "rougeW-1.5", "rougeSU4"], alpha=0.3,
             remove_stopwords=True, n_samples=300, seed=7, confidence=0.9)),
    "rouge155-limit-split": (
        ["--profile", "rouge155", "--rouge-types", "rouge1,rouge2,rougeL,rougeSU4",
         "--length-limit-words", "40", "--split-sentences", "--use-stemmer", "--n-samples",
         "200"],
        dict(profile="rouge155", rouge_types=["rouge1", "rouge2", "rougeL", "rougeSU4"],
             length_limit_words=40, split_sentences=True, use_stemmer=True, n_samples=200)),
    "unicode-bytes-average": (
        ["--tokenizer", "unicode", "--length-limit-bytes", "200", "--multi-ref", "average",
         "--rouge-types", "rouge3, rougeLsum, rougeS"],
        dict(tokenizer="unicode", length_limit_bytes=200, multi_ref="average",
             rouge_types=["rouge3", "rougeLsum", "rougeS"])),
}


def no_token_rows(rows, flatten):
    """Rows with texts that have no tokens in several chunks (RougeWarnings to total), and
    newlines in all chunks but the first (flatten=False) or in none (flatten=True)."""
    out = []
    for i, r in enumerate(rows[:150]):
        pred, refs = r["prediction"], list(r["references"])
        if i % 23 == 5:
            pred = "!!! ..."
        if i % 31 == 7:
            refs = ["-- ?"]
        if flatten or i < 37:
            pred, refs = flat(pred), [flat(x) for x in refs]
        out.append({"prediction": pred, "references": refs})
    return out


@pytest.fixture(scope="module")
def expected(env, tmp_path_factory, rows, multi_rows):
    """Every metric.compute these tests compare with, in one subprocess."""
    jobs = {}
    for name, (_, kwargs) in CONFIGS.items():
        jobs[name] = job(rows if name == "defaults" else multi_rows, detailed=True, **kwargs)
    flat_multi = [{"prediction": flat(r["prediction"]),
                   "references": [flat(x) for x in r["references"]]} for r in multi_rows]
    jobs["multi-text"] = job(flat_multi, detailed=True, use_stemmer=True)
    jobs["multi-stemmed"] = job(multi_rows, detailed=True, use_stemmer=True)
    jobs["multi-text-per-example"] = job(flat_multi, detailed=True, use_stemmer=True,
                                         use_aggregator=False)
    jobs["defaults-per-example"] = job(rows, detailed=True, use_aggregator=False)
    for flatten in (False, True):
        jobs[f"warnings-{flatten}"] = job(no_token_rows(rows, flatten), detailed=True,
                                          rouge_types=["rouge1", "rougeLsum", "rougeW"])
    names = list(jobs)
    results = compute_many(env, tmp_path_factory.mktemp("compute"), [jobs[n] for n in names])
    return dict(zip(names, results))


# --------------------------------------------------------------------------------------------
# The bundled example


def test_bundled_example_files_are_aligned():
    preds = (EXAMPLES / "predictions.txt").read_text(encoding="utf-8").splitlines()
    refs = (EXAMPLES / "references.txt").read_text(encoding="utf-8").splitlines()
    pairs = [json.loads(line) for line in
             (EXAMPLES / "pairs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(preds) == len(refs) == len(pairs) >= 5
    for p, r, pair in zip(preds, refs, pairs):
        assert p == flat(pair["prediction"]) and [r] == [flat(x) for x in pair["references"]]
        assert "\n" in pair["prediction"]  # JSONL keeps the sentence breaks for rougeLsum


def test_text_files_and_jsonl_give_the_same_output(env, tmp_path):
    preds = (EXAMPLES / "predictions.txt").read_text(encoding="utf-8").splitlines()
    refs = (EXAMPLES / "references.txt").read_text(encoding="utf-8").splitlines()
    pairs = write_jsonl(tmp_path / "same.jsonl", [{"prediction": p, "references": [r]}
                                                  for p, r in zip(preds, refs)])
    text = ok(run_cli(env, EXAMPLES / "predictions.txt", EXAMPLES / "references.txt"))
    jsonl = ok(run_cli(env, "--jsonl", pairs))
    assert text.stdout == jsonl.stdout
    assert text.stderr == jsonl.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == (f"P/R/F: mid = mean over {len(preds)} examples, (low-high) = 95% "
                        "bootstrap interval (1,000 samples, seed 12345)")
    assert lines[1].split() == ["type", "precision", "mid", "(low-high)", "recall", "mid",
                                "(low-high)", "fmeasure", "mid", "(low-high)"]
    assert [line.split()[0] for line in lines[2:6]] == ["rouge1", "rouge2", "rougeL",
                                                        "rougeLsum"]
    assert lines[6].startswith("signature: rouge1+rouge2+rougeL+rougeLsum|profile:rouge_score")
    assert lines[7] == f"count: {len(preds)}"
    # no newline in a text file: rougeLsum is rougeL, and the metric says so once
    assert lines[4].split()[1:] == lines[5].split()[1:]
    assert text.stderr.count("rouge-exact: warning:") == 1 and "rougeLsum" in text.stderr


def write_inputs(d: Path, rows) -> dict:
    """The same rows as JSONL, JSON (a list and parallel lists), CSV and TSV written by pandas
    (references as JSON arrays, and as reference_1..k columns) and by Python's csv module."""
    k = max(len(r["references"]) for r in rows)
    frame = pd.DataFrame({"prediction": [r["prediction"] for r in rows]})
    for j in range(k):
        frame[f"reference_{j + 1}"] = [r["references"][j] if j < len(r["references"]) else None
                                       for r in rows]
    as_json = pd.DataFrame({"prediction": frame["prediction"],
                            "references": [json.dumps(r["references"]) for r in rows]})
    paths = {"jsonl": write_jsonl(d / "rows.jsonl", rows),
             "json-list": d / "rows.json", "json-parallel": d / "parallel.json",
             "pandas-csv": d / "pandas.csv", "pandas-tsv": d / "pandas.tsv",
             "pandas-json-cells": d / "cells.csv", "csv-module": d / "module.csv"}
    paths["json-list"].write_text(json.dumps(rows, indent=1), encoding="utf-8")
    paths["json-parallel"].write_text(json.dumps({
        "predictions": [r["prediction"] for r in rows],
        "references": [r["references"] for r in rows]}), encoding="utf-8")
    frame.to_csv(paths["pandas-csv"], index=False)
    frame.to_csv(paths["pandas-tsv"], index=False, sep="\t")
    as_json.to_csv(paths["pandas-json-cells"], index=False)
    with open(paths["csv-module"], "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["prediction"] + [f"reference_{j + 1}" for j in range(k)])
        for r in rows:
            writer.writerow([r["prediction"], *r["references"],
                             *[""] * (k - len(r["references"]))])
    return paths


INPUT_KINDS = ["jsonl", "json-list", "json-parallel", "pandas-csv", "pandas-tsv",
               "pandas-json-cells", "csv-module"]


@pytest.fixture(scope="module")
def input_runs(env, tmp_path_factory, multi_rows):
    """The CLI on each input kind of the same multi-reference rows (with apostrophes,
    commas, quotes and newlines in the texts), in parallel."""
    d = tmp_path_factory.mktemp("inputs")
    paths = write_inputs(d, multi_rows)
    assert any("'" in r["prediction"] and "," in r["prediction"] for r in multi_rows)
    assert any("\n" in r["prediction"] for r in multi_rows)
    with ThreadPoolExecutor(max_workers=2) as pool:
        procs = pool.map(lambda kind: run_cli(env, "--input", paths[kind], "--json",
                                              "--use-stemmer", "--chunk-size", "64"),
                         INPUT_KINDS)
    return dict(zip(INPUT_KINDS, procs))


@pytest.mark.parametrize("kind", INPUT_KINDS)
@pytest.mark.slow
def test_every_input_format_equals_compute(input_runs, expected, kind):
    proc = ok(input_runs[kind])
    assert json.loads(proc.stdout) == expected["multi-stemmed"]["result"]
    assert proc.stderr == "".join(line + "\n" for line in
                                  warning_lines(expected["multi-stemmed"]["warnings"]))


def test_table_says_what_the_numbers_are(env, tmp_path, multi_rows, expected):
    """The table's first line against the options given, its numbers against compute's."""
    pairs = write_jsonl(tmp_path / "pairs.jsonl", multi_rows)
    config = "stem-micro-best-alpha"
    proc = ok(run_cli(env, "--jsonl", pairs, *CONFIGS[config][0]))
    lines = proc.stdout.splitlines()
    kwargs = CONFIGS[config][1]
    assert kwargs["aggregation"] == "micro"
    assert lines[0] == (f"P/R/F: mid = computed from the counts summed over "
                        f"{len(multi_rows)} examples (micro), (low-high) = "
                        f"{kwargs['confidence']:.0%} bootstrap interval ({kwargs['n_samples']} "
                        f"samples, seed {kwargs['seed']})")
    want = expected[config]["result"]
    for line, name in zip(lines[2:], kwargs["rouge_types"]):
        cells = [name] + [f"{want[name][key][b]:.5f}" for key in ("precision", "recall",
                                                                    "fmeasure")
                          for b in ("mid", "low", "high")]
        got = re.fullmatch(r"(\S+)" + r"\s+(\S+) \((\S+)-(\S+)\)" * 3, line).groups()
        assert list(got) == cells


def test_no_arguments_prints_the_usage(env):
    proc = run_cli(env)
    assert proc.returncode == 2 and proc.stderr == ""
    assert proc.stdout.startswith("usage: rouge-exact ")
    for option in ("--input", "--format", "--jsonl", "--max-record-bytes", "--n-samples"):
        assert option in proc.stdout


_SCHEMA = textwrap.dedent("""
    import importlib, json, sys
    import evaluate
    metric = evaluate.load(sys.argv[1])
    # the package of the Metric class the script subclasses (rouge_exact.hf's): its schema
    face = next(c for c in type(metric).__mro__ if c.__name__ == "RougeMetric"
                and c.__module__ != type(metric).__module__)
    package = face.__module__.rpartition(".")[0]
    options = importlib.import_module(package + ".options").OPTIONS
    print(json.dumps({option.name: option.cli for option in options}))
""")


def test_metric_options_are_the_options_schema(env):
    """The help lists a flag for each option of the schema the metric loads with (as evaluate
    stages it), but use_aggregator and detailed (tests/test_schema.py checks each flag's
    default and choices)."""
    proc = subprocess.run([sys.executable, "-c", _SCHEMA, str(EVALUATE_SCRIPT)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    schema = json.loads(proc.stdout)
    assert {name for name, cli in schema.items() if not cli} == {"use_aggregator", "detailed"}
    flags = set(re.findall(r"^  (--[a-z-]+)", run_cli(env).stdout, flags=re.M))
    for name, cli in schema.items():
        assert ("--" + name.replace("_", "-") in flags) == cli, name


def test_compile_exits_after_compiling_every_kernel(env):
    """--compile (for a Dockerfile or a Space's build step) calls the metric's
    compile_kernels(wait=True), says per kernel whether it compiled it or found it in the
    cache and how long that took, then the total, and exits 0, reading no input."""
    from rouge_exact.kernels.backend import KERNELS

    proc = run_cli(env, "--compile")
    assert proc.returncode == 0, proc.stderr
    *kernels, total, last = proc.stdout.splitlines()
    assert last == "every kernel is compiled and cached"
    said = [re.fullmatch(r"(\w+) +(compiled|found in the cache, loaded) in (\d+\.\d\d) s",
                         line) for line in kernels]
    assert all(said), kernels
    assert [m[1] for m in said] == list(KERNELS)  # each kernel once, in compile order
    compiled = sum(m[2] == "compiled" for m in said)
    assert re.fullmatch(rf"{compiled} compiled, {len(KERNELS) - compiled} found in the cache: "
                        r"\d+\.\d s in all", total), total


def test_metric_errors_name_the_row_and_line():
    from rouge_exact.cli import main as rouge_cli

    assert rouge_cli._located("references[2]: got an empty list", "x.jsonl", [3, 5, 9]) == \
        "x.jsonl:9: references[2]: got an empty list"
    assert rouge_cli._located("texts too long", "x.csv", [3, 5, 9]) == \
        "x.csv:3-9: texts too long"


# --------------------------------------------------------------------------------------------
# Numbers: equal to metric.compute, exactly


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.slow
def test_json_output_equals_compute(env, tmp_path, rows, multi_rows, expected, config):
    data = rows if config == "defaults" else multi_rows
    pairs = write_jsonl(tmp_path / "pairs.jsonl", data)
    proc = ok(run_cli(env, "--jsonl", pairs, "--json", *CONFIGS[config][0]))
    assert json.loads(proc.stdout) == expected[config]["result"]
    assert proc.stderr == "".join(line + "\n" for line in
                                  warning_lines(expected[config]["warnings"]))


def test_multiple_reference_files(env, tmp_path, multi_rows, expected):
    preds = write_lines(tmp_path / "p.txt", [flat(r["prediction"]) for r in multi_rows])
    ref_a = write_lines(tmp_path / "a.txt", [flat(r["references"][0]) for r in multi_rows])
    ref_b = write_lines(tmp_path / "b.txt", [flat(r["references"][1]) for r in multi_rows])
    proc = ok(run_cli(env, preds, ref_a, ref_b, "--use-stemmer", "--json", "--per-example",
                      "-"))
    lines = proc.stdout.splitlines()
    assert len(lines) == len(multi_rows) + 1
    assert json.loads(lines[-1]) == expected["multi-text"]["result"]
    assert [json.loads(line) for line in lines[:-1]] == per_example_from_compute(
        expected["multi-text-per-example"]["result"])


def test_chunked_streaming_equals_one_compute(env, tmp_path, rows, expected):
    pairs = write_jsonl(tmp_path / "pairs.jsonl", rows)
    out = tmp_path / "per_example.jsonl"
    proc = ok(run_cli(env, "--jsonl", pairs, "--json", "--chunk-size", "37", "--per-example",
                      out, "--progress"))
    assert json.loads(proc.stdout) == expected["defaults"]["result"]
    per_example = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert per_example == per_example_from_compute(expected["defaults-per-example"]["result"])
    assert "300 rows" in proc.stderr  # the progress bar, forced on a pipe


@pytest.mark.parametrize("flatten", [False, True], ids=["newlines-after-chunk-1", "no-newlines"])
def test_warnings_are_printed_once_with_totals(env, tmp_path, rows, expected, flatten):
    pairs = write_jsonl(tmp_path / "pairs.jsonl", no_token_rows(rows, flatten))
    proc = ok(run_cli(env, "--jsonl", pairs, "--json", "--chunk-size", "37", "--rouge-types",
                      "rouge1,rougeLsum,rougeW"))
    want = expected[f"warnings-{flatten}"]
    assert json.loads(proc.stdout) == want["result"]
    assert proc.stderr.splitlines() == warning_lines(want["warnings"])
    assert len(want["warnings"]) == (3 if flatten else 2)  # the case really warns


# --------------------------------------------------------------------------------------------
# Bad files and options: exit status 2, one line on stderr, no traceback


def _bad_inputs(d: Path) -> None:
    (d / "p.txt").write_text("a b\nc d\ne f\n", encoding="utf-8")
    (d / "r2.txt").write_text("a b\nc d\n", encoding="utf-8")
    (d / "r3.txt").write_text("a b\nc d\ne f\n", encoding="utf-8")
    (d / "r4.txt").write_text("a b\nc d\ne f\ng h\n", encoding="utf-8")
    (d / "empty.txt").write_text("", encoding="utf-8")
    (d / "blank.jsonl").write_text("\n  \n", encoding="utf-8")
    (d / "latin1.txt").write_bytes(b"caf\xe9\n")
    (d / "long_p.txt").write_text("".join(f"w{i} x\n" for i in range(100)), encoding="utf-8")
    (d / "long_r.txt").write_text("".join(f"w{i} y\n" for i in range(99)), encoding="utf-8")
    good = json.dumps({"prediction": "a b", "references": ["a c"]})
    lines = {
        "badjson": [good, '{"prediction": "a", "references": ["b"]'],
        "notobject": [good, '["a", ["b"]]'],
        "nopred": ['{"references": ["b"]}'],
        "norefs": ['{"prediction": "a", "refs": ["b"]}'],
        "predtype": ['{"prediction": ["a"], "references": ["b"]}'],
        "refstype": ['{"prediction": "a", "references": 3}'],
        "refsempty": ['{"prediction": "a", "references": []}'],
        "refitem": ['{"prediction": "a", "references": ["b", null]}'],
        "latedbad": [good] * 95 + ["{oops"],
    }
    for name, content in lines.items():
        (d / f"{name}.jsonl").write_text("\n".join(content) + "\n", encoding="utf-8")
    (d / "deep.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (d / "apostrophe.csv").write_text("prediction,reference\nit's,\"a, b\"\n'c, d',e\n",
                                      encoding="utf-8")
    (d / "header-only.csv").write_text("prediction,reference\r\n", encoding="utf-8")
    (d / "long.jsonl").write_text(good + "\n" + json.dumps({"prediction": "x" * 500,
                                                             "references": "y"}) + "\n",
                                  encoding="utf-8")
    (d / "surrogate.jsonl").write_text('{"prediction": "\\udc80", "references": "a"}\n',
                                       encoding="utf-8")
    (d / "pairs.xml").write_text("<pairs/>", encoding="utf-8")


BAD = {
    # case: (arguments, a fragment the message must contain). The option cases import evaluate
    # (about 1 s each), so only a few of the metric's own checks are repeated here.
    "missing-file": (["nope.txt", "r3.txt"], "nope.txt: No such file"),
    "missing-reference-file": (["p.txt", "r3.txt", "nope.txt"], "nope.txt: No such file"),
    "directory": (["--jsonl", "."], "Is a directory"),
    "fewer-reference-lines": (["p.txt", "r2.txt"], "p.txt has 3 lines, r2.txt has 2 lines"),
    "more-reference-lines": (["p.txt", "r3.txt", "r4.txt"], "r4.txt has 4 lines"),
    "mismatch-after-chunks": (["long_p.txt", "long_r.txt", "--chunk-size", "10"],
                              "long_r.txt has 99 lines"),
    "empty-text": (["empty.txt", "empty.txt"], "no examples"),
    "empty-jsonl": (["--jsonl", "blank.jsonl"], "no examples"),
    "not-utf8": (["latin1.txt", "latin1.txt"], "latin1.txt:1: not valid UTF-8"),
    "invalid-json": (["--jsonl", "badjson.jsonl"], "badjson.jsonl:2: invalid JSON"),
    "invalid-json-after-chunks": (["--jsonl", "latedbad.jsonl", "--chunk-size", "10"],
                                  "latedbad.jsonl:96: invalid JSON"),
    "not-an-object": (["--jsonl", "notobject.jsonl"], "notobject.jsonl:2: expected an object"),
    "missing-prediction": (["--jsonl", "nopred.jsonl"], "missing key 'prediction'"),
    "missing-references": (["--jsonl", "norefs.jsonl"], "missing key 'references'"),
    "prediction-type": (["--jsonl", "predtype.jsonl"], '"prediction" must be a string'),
    "references-type": (["--jsonl", "refstype.jsonl"], "got a number"),
    "references-empty": (["--jsonl", "refsempty.jsonl"], "(empty)"),
    "reference-item-type": (["--jsonl", "refitem.jsonl"], '"references"[1] must be a string'),
    "options-but-no-files": (["--use-stemmer"], "expected PREDICTIONS"),
    "json-deep": (["--input", "deep.json"], "deep.json:1: JSON nested deeper than 32 levels"),
    "csv-row-split-at-comma": (["--input", "apostrophe.csv"],
                               "apostrophe.csv:3: 3 cells, the header has 2"),
    "csv-no-rows": (["--input", "header-only.csv"], "header-only.csv: no examples"),
    "record-too-long": (["--input", "long.jsonl", "--max-record-bytes", "100"],
                        "long.jsonl:2: the line is longer than 100 bytes; allowed: at most "
                        "--max-record-bytes=100 bytes per record"),
    "lone-surrogate": (["--jsonl", "surrogate.jsonl"], "surrogate.jsonl:1: \"prediction\" holds"
                       " a lone surrogate \\udc80"),
    "unknown-suffix": (["--input", "pairs.xml"], "pairs.xml: cannot tell the format"),
    "format-without-input": (["p.txt", "r3.txt", "--format", "csv"], "--format goes with "
                             "--input"),
    "format-unknown": (["--input", "pairs.xml", "--format", "xml"], "invalid choice: 'xml'"),
    "input-and-jsonl": (["--input", "badjson.jsonl", "--jsonl", "badjson.jsonl"],
                        "not both --input and --jsonl"),
    "max-record-bytes-zero": (["p.txt", "r3.txt", "--max-record-bytes", "0"],
                              "--max-record-bytes: expected an integer >= 1"),
    "one-file": (["p.txt"], "expected PREDICTIONS"),
    "jsonl-and-files": (["--jsonl", "badjson.jsonl", "p.txt"], "not both --jsonl and "
                        "PREDICTIONS"),
    "unknown-option": (["p.txt", "r3.txt", "--stemmer"], "unrecognized arguments: --stemmer"),
    "compile-with-input": (["--compile", "p.txt", "r3.txt"], "--compile takes no input"),
    "choice": (["p.txt", "r3.txt", "--aggregation", "mean"],
               "argument --aggregation: invalid choice: 'mean'"),
    "types-by-space-last": (["p.txt", "r3.txt", "--rouge-types", "rouge1", "rougeL"],
                            "separated by commas"),
    "types-by-space-first": (["--rouge-types", "rouge1", "rougeL", "p.txt", "r3.txt"],
                             "rougeL: No such file or directory (several --rouge-types"),
    "not-a-number": (["p.txt", "r3.txt", "--alpha", "half"], "--alpha: expected a number"),
    "chunk-size": (["p.txt", "r3.txt", "--chunk-size", "0"], "--chunk-size"),
    "n-samples-zero": (["p.txt", "r3.txt", "--n-samples", "0"], "n_samples: got 0"),
    "n-samples-float": (["p.txt", "r3.txt", "--n-samples", "2.5"], "n_samples: got 2.5 (float)"),
    "rouge-type": (["p.txt", "r3.txt", "--rouge-types", "rouge1,rougeX"], "'rougeX'"),
    "both-limits": (["p.txt", "r3.txt", "--length-limit-words", "5", "--length-limit-bytes",
                     "9"], "length_limit_words and length_limit_bytes"),
}


@pytest.fixture(scope="module")
def bad_runs(env, tmp_path_factory):
    """All the bad cases at once, in parallel: most exit before importing evaluate."""
    d = tmp_path_factory.mktemp("bad")
    _bad_inputs(d)
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        procs = pool.map(lambda args: run_cli(env, *args, cwd=d), [a for a, _ in BAD.values()])
    return dict(zip(BAD, procs))


@pytest.mark.parametrize("case", list(BAD))
@pytest.mark.slow
def test_bad_input_exits_2_with_one_line(bad_runs, case):
    proc = bad_runs[case]
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rouge-exact: error: "), proc.stderr
    assert BAD[case][1] in lines[0]
    assert proc.stdout == ""


_CAPPED = textwrap.dedent("""
    import resource, subprocess, sys
    cap = int(sys.argv[1])
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    proc = subprocess.run(sys.argv[2:], preexec_fn=limit, capture_output=True, text=True)
    sys.stdout.write(proc.stderr)
    sys.exit(proc.returncode)
""")


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "json", "text"])
@pytest.mark.slow
def test_two_gib_line_is_one_line_error_in_bounded_memory(env, tmp_path, fmt):
    """A file of one 2 GiB line (sparse: no disk used) with the default limit: exit 2 and one
    line, from a CLI whose address space is capped at 400 MiB (reading the line whole would
    need 2 GiB: a MemoryError, which says "out of memory" instead)."""
    path = tmp_path / f"huge.{fmt}"
    with open(path, "wb") as f:
        f.write({"jsonl": b"", "csv": b"prediction,reference\n", "json": b"[",
                 "text": b""}[fmt])
        f.seek(2 ** 31)
        f.write(b"x\n")
    args = ["--input", path] if fmt != "text" else [path, path]
    proc = subprocess.run([sys.executable, "-c", _CAPPED, str(400 * 2 ** 20), *COMMAND,
                           *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc.stdout
    line = {"jsonl": 1, "csv": 2, "json": 1, "text": 1}[fmt]
    limit = 16 * 2 ** 20
    assert proc.stdout.startswith(f"rouge-exact: error: {path}:{line}: "), proc.stdout
    assert f"allowed: at most --max-record-bytes={limit}" in proc.stdout
    assert len(proc.stdout.splitlines()) == 1 and "Traceback" not in proc.stdout


# --------------------------------------------------------------------------------------------
# 1,000,000 rows, streaming (opt-in)


ADD_BATCH_SCRIPT = """
import json, sys, warnings
import evaluate
warnings.simplefilter("ignore")
script, path, n_samples = sys.argv[1], sys.argv[2], int(sys.argv[3])
metric = evaluate.load(script)
batch = []
with open(path, encoding="utf-8") as f:
    for line in f:
        row = json.loads(line)
        batch.append(row)
        if len(batch) == 10_000:
            metric.add_batch(predictions=[r["prediction"] for r in batch],
                             references=[r["references"] for r in batch])
            batch = []
if batch:
    metric.add_batch(predictions=[r["prediction"] for r in batch],
                     references=[r["references"] for r in batch])
print(json.dumps(metric.compute(detailed=True, n_samples=n_samples)))
"""


def _run_measured(env, args, out_path):
    """Run the CLI; (seconds, peak RSS in MiB of that child, exit status)."""
    with open(out_path, "w") as out, open(str(out_path) + ".err", "w") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([*COMMAND, *map(str, args)], env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss / 1024.0, proc.returncode  # ru_maxrss: KiB on Linux


@pytest.mark.slow
@slow
@pytest.mark.parametrize("n_samples", [1000, 1])
def test_one_million_rows_streaming(env, tmp_path, realsumm, n_samples):
    # 300,000 rows in CI (its time budget); ROUGE_STREAM_ROWS=1000000 for the full run. Either
    # way the texts (700 bytes a row) would pass the memory bound below many times over.
    n = int(os.environ.get("ROUGE_STREAM_ROWS", "300000"))
    lines = [json.dumps({"prediction": r["prediction"], "references": r["references"]})
             for r in realsumm]
    big = tmp_path / "big.jsonl"
    small = tmp_path / "small.jsonl"  # the first tenth of the rows: the baseline
    n_small = n // 10
    with open(big, "w", encoding="utf-8") as f, open(small, "w", encoding="utf-8") as g:
        for i, line in enumerate(islice(cycle(lines), n)):
            # every row distinct (a row number ends each prediction), so that nothing is
            # saved by rows repeating
            row = line.replace('", "references"', f' r{i}", "references"', 1) + "\n"
            f.write(row)
            if i < n_small:
                g.write(row)
    args = ["--json", "--n-samples", n_samples]
    _, base_rss, status = _run_measured(env, ["--jsonl", small, *args], tmp_path / "small.out")
    assert status == 0
    try:
        seconds, peak_rss, status = _run_measured(env, ["--jsonl", big, *args],
                                                  tmp_path / "big.out")
        assert status == 0, (tmp_path / "big.out.err").read_text()
        if n_samples > 1:
            # the same rows through evaluate's add_batch, in batches, give the CLI's numbers
            by_add_batch = subprocess.run(
                [sys.executable, "-c", ADD_BATCH_SCRIPT, str(EVALUATE_SCRIPT),
                 str(big), str(n_samples)], env=env, capture_output=True, text=True,
                timeout=3600)
            assert by_add_batch.returncode == 0, by_add_batch.stderr[-3000:]
            assert json.loads(by_add_batch.stdout.splitlines()[-1]) == \
                json.loads((tmp_path / "big.out").read_text())
    finally:
        big_mib = big.stat().st_size / 2 ** 20
        big.unlink()  # 680 MiB; pytest keeps the last three sessions' tmp dirs
    result = json.loads((tmp_path / "big.out").read_text())
    assert result["count"] == n
    print(f"\n{n:,} rows, n_samples={n_samples}: {seconds:.1f} s, {n / seconds:,.0f} rows/s, "
          f"peak RSS {peak_rss:,.0f} MiB ({n_small:,} rows: {base_rss:,.0f} MiB; input "
          f"{big_mib:,.0f} MiB)")
    # what may grow with the rows: the bootstrap's register of example keys (12 bytes per
    # distinct example, twice while it is extended); not the texts (700 bytes a row) nor the
    # per-example scores (0.5 KB a row, 430 MiB here, before they went). The peak of the
    # same run varies by up to ~55 MiB (thread arenas of malloc): 64 MiB of margin.
    allowed = (n - n_small) * 2 * 12 / 2 ** 20 + 64
    assert peak_rss - base_rss < allowed, (peak_rss, base_rss, allowed)


# --------------------------------------------------------------------------------------------
# --compare: the metric's compare() on files (compare() itself is tested against rouge_score's
# statistics and sacrebleu in test_compare.py / test_significance.py)


@pytest.mark.slow
def test_compare_text_files_and_jsonl_equal_compare(env, tmp_path, metric, realsumm):
    by = {}
    for r in realsumm:
        by.setdefault(r["system"], {})[r["doc"]] = r
    systems = ["abs/t5/out_11B", "abs/t5/out_base", "abs/t5/out_small"]
    docs = sorted(by[systems[0]])[:60]
    flat = {s.rsplit("/", 1)[1]: [by[s][d]["prediction"].replace("\n", " ") for d in docs]
            for s in systems}
    references = [by[systems[0]][d]["references"][0].replace("\n", " ") for d in docs]
    for name, texts in flat.items():
        write_lines(tmp_path / f"{name}.txt", texts)
    write_lines(tmp_path / "refs.txt", references)
    with open(tmp_path / "systems.jsonl", "w", encoding="utf-8") as f:
        for i in range(len(docs)):
            # "doc" and "id" are ids, not systems (a number or a string)
            f.write(json.dumps({"doc": docs[i], "references": references[i],
                                **{name: texts[i] for name, texts in flat.items()},
                                "id": f"row {i}"}) + "\n")
    options = ["--rouge-types", "rouge1,rougeL", "--test", "randomization", "--n-samples", "500",
               "--baseline", "out_base", "--aggregation", "micro"]
    expected = metric.compare(predictions=flat, references=references, baseline="out_base",
                              rouge_types=["rouge1", "rougeL"], test="randomization",
                              n_samples=500, aggregation="micro")
    from_text = ok(run_cli(env, "--compare", *(f"{n}.txt" for n in flat), "--references",
                           "refs.txt", *options, "--json", cwd=tmp_path))
    from_jsonl = ok(run_cli(env, "--compare", "systems.jsonl", *options, "--json", cwd=tmp_path))
    assert json.loads(from_text.stdout) == expected == json.loads(from_jsonl.stdout)
    table = ok(run_cli(env, "--compare", "systems.jsonl", *options, cwd=tmp_path)).stdout
    assert "Baseline: out_base" in table and "Holm p" in table and "signature:" in table


@pytest.mark.parametrize("args, message", [
    (["--compare", "a.txt", "b.txt"], "--compare: give --references"),
    (["--compare", "bad.jsonl"], "bad.jsonl:2: the systems"),
    (["--compare", "rank.jsonl"], "rank.jsonl:1: 'rank' must be a string, got a number; allowed:"
     ' a string per system (every key except "references", "doc" and "id" is read as a '
     "system)"),
    (["--compare", "a.txt", "--references", "r.txt"], "predictions: got 1 system"),
    (["--compare", "a.txt", "b.txt", "--references", "r.txt", "--baseline", "zz"],
     "baseline: got 'zz'"),
    # --compare's own flags without it: refused, not ignored
    (["a.txt", "r.txt", "--baseline", "a"], "--baseline: given without --compare"),
    (["a.txt", "r.txt", "--test", "bootstrap"], "--test: given without --compare"),
    (["a.txt", "--references", "r.txt"], "--references: given without --compare"),
    (["--compile", "--baseline", "a", "--test", "bootstrap"],
     "--baseline, --test: given without --compare"),
])
def test_compare_errors_are_one_line(env, tmp_path, args, message):
    for name in ("a.txt", "b.txt", "r.txt"):
        write_lines(tmp_path / name, ["the cat sat", "a dog"])
    (tmp_path / "bad.jsonl").write_text('{"references": "x", "a": "x", "b": "y"}\n'
                                        '{"references": "x", "a": "x"}\n', encoding="utf-8")
    (tmp_path / "rank.jsonl").write_text('{"doc": 1, "references": "x", "a": "x", "rank": 2}\n',
                                         encoding="utf-8")
    proc = run_cli(env, *args, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr


# --------------------------------------------------------------------------------------------
# Issue 27: no command overwrites what it reads; outputs appear whole or not at all; write
# errors are one line; --compare reads in linear time; --test is the metric's


def one_line_error(proc):
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rouge-exact: error: "), proc.stderr
    return lines[0]


def test_an_output_that_is_an_input_is_refused(env, tmp_path):
    """The issue's case (30,000 rows, --chunk-size 1000: the input was truncated while read),
    by the same path, a symlink and a hard link; text inputs too (--compare refuses
    --per-example outright). Nothing is written: every input keeps its bytes."""
    rows = [{"prediction": f"the cat sat {i}", "references": ["a cat sat"]} for i in range(30_000)]
    write_jsonl(tmp_path / "same.jsonl", rows)
    write_lines(tmp_path / "p.txt", ["a b"] * 3)
    write_lines(tmp_path / "r.txt", ["a c"] * 3)
    os.symlink("same.jsonl", tmp_path / "link.jsonl")
    os.link(tmp_path / "same.jsonl", tmp_path / "hard.jsonl")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    cases = [(["--input", "same.jsonl", "--per-example", "same.jsonl"], "same.jsonl"),
             (["--jsonl", "same.jsonl", "--per-example", "link.jsonl"], "same.jsonl"),
             (["--input", "link.jsonl", "--per-example", "hard.jsonl"], "link.jsonl"),
             (["p.txt", "r.txt", "--per-example", "r.txt"], "r.txt")]
    for args, found in cases:
        message = one_line_error(run_cli(env, *args, "--chunk-size", "1000", cwd=tmp_path))
        assert f"the same file as the input {found}" in message, message
    # --compare writes no per-example file: the option is refused, not silently ignored
    message = one_line_error(run_cli(env, "--compare", "same.jsonl", "--per-example",
                                     "hard.jsonl", cwd=tmp_path))
    assert "--per-example: --compare writes no per-example file" in message, message
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_per_example_file_is_replaced_only_when_whole(env, tmp_path):
    """A run that fails after writing some rows leaves the old file as it was and no temporary
    file; a run that succeeds replaces it (through a symlink: its target), keeping its mode."""
    rows = [{"prediction": f"the cat sat {i}", "references": ["a cat sat"]} for i in range(2500)]
    write_jsonl(tmp_path / "bad.jsonl", rows)
    with open(tmp_path / "bad.jsonl", "a", encoding="utf-8") as f:
        f.write("{not json\n")
    write_jsonl(tmp_path / "good.jsonl", rows)
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "scores.jsonl"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o640)
    os.symlink(target, tmp_path / "scores.jsonl")
    message = one_line_error(run_cli(env, "--input", "bad.jsonl", "--per-example",
                                     "scores.jsonl", "--chunk-size", "1000", cwd=tmp_path))
    assert "bad.jsonl:2501: invalid JSON" in message
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["scores.jsonl"]
    ok(run_cli(env, "--input", "good.jsonl", "--per-example", "scores.jsonl", "--chunk-size",
               "1000", cwd=tmp_path))
    assert (tmp_path / "scores.jsonl").is_symlink()
    lines = target.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2500 and set(json.loads(lines[0])) == {"rouge1", "rouge2", "rougeL",
                                                                "rougeLsum"}
    assert sorted(p.name for p in target.parent.iterdir()) == ["scores.jsonl"]
    assert target.stat().st_mode & 0o777 == 0o640


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_is_one_line(env, tmp_path):
    write_lines(tmp_path / "p.txt", ["the cat sat"] * 5)
    write_lines(tmp_path / "r.txt", ["a cat sat"] * 5)
    message = one_line_error(run_cli(env, "p.txt", "r.txt", "--per-example", "/dev/full",
                                     cwd=tmp_path))
    assert message == "rouge-exact: error: /dev/full: No space left on device"
    with open("/dev/full", "w") as full:
        proc = subprocess.run([*COMMAND, "p.txt", "r.txt"], env=env,
                              cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=600)
    assert one_line_error(proc) == "rouge-exact: error: output: No space left on device"


def test_compare_reads_one_jsonl_file_in_linear_time(tmp_path, monkeypatch):
    """read_systems keeps one list of references and one list per system, appended to: the
    old code copied the references for every row (quadratic: 0.87 s for 25k rows, 106 s for
    200k). Counted, not timed: at each row the reader hands over, the caller's lists are the
    same objects as at the first row, holding the rows before it (benchmarks/readers.py times
    every reader)."""
    from rouge_exact.cli import main as rouge_cli

    n = 1000
    path = tmp_path / "systems.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"doc": i, "references": [f"r {i}"], "a": f"a {i}", "b": "b"})
                    + "\n")
    real = rouge_cli.read_system_rows
    seen = []

    def watched(*args, **kwargs):
        for k, row in enumerate(real(*args, **kwargs)):
            caller = sys._getframe(1).f_locals  # read_systems, which asked for this row
            references, predictions = caller["references"], caller["predictions"]
            assert len(references) == k and all(len(v) == k for v in predictions.values())
            seen.append((id(references), *(id(v) for v in predictions.values())))
            yield row

    monkeypatch.setattr(rouge_cli, "read_system_rows", watched)
    args = rouge_cli.build_parser().parse_args(["--compare", str(path)])
    predictions, references = rouge_cli.read_systems(args)
    assert references == [[f"r {i}"] for i in range(n)]
    assert predictions == {"a": [f"a {i}" for i in range(n)], "b": ["b"] * n}
    assert len(seen) == n and len(set(seen[1:])) == 1  # from the 2nd row on, the same lists
    assert seen[-1] == (id(references), id(predictions["a"]), id(predictions["b"]))


def test_test_option_is_the_metrics(metric):
    from rouge_exact.cli import main as rouge_cli

    test = next(a for a in rouge_cli.build_parser()._actions if a.dest == "test")
    assert tuple(test.choices) == tuple(metric.TESTS)
    # None: --test without --compare is refused; compare() then runs its default test
    assert test.default is None and metric.DEFAULT_TEST == "randomization"
    assert {n: metric.DEFAULT_SAMPLES[n] for n in metric.TESTS} == {
        "randomization": 10_000, "bootstrap": 1_000, "sacrebleu-bootstrap": 1_000,
        "sacrebleu-randomization": 10_000}
    assert " ".join(test.help.split()).replace("%%", "%") == (
        "approximate randomization (default; 10,000 trials), the centred paired bootstrap "
        "(1,000), sacrebleu-bootstrap (sacrebleu's rule, 1,000; not calibrated: ~12% false "
        "positives at 0.05), or sacrebleu-randomization (sacrebleu's rule, 10,000 trials; ties "
        "not counted: not calibrated where few documents differ); --n-samples sets the count")


# --------------------------------------------------------------------------------------------
# Issue 38: every ValueError or TypeError of the library, a bad environment variable included,
# is one line and exit status 2 (Ctrl-C: tests/test_interrupts.py)

BAD_BACKEND = ("rouge-exact: error: ROUGE_METRIC_BACKEND: got 'junk'; allowed: 'numba', 'numpy' "
               "or unset")


def test_a_bad_backend_variable_is_one_line_naming_it(env, tmp_path):
    """ROUGE_METRIC_BACKEND=junk: the library's ValueError, as one line that names the
    variable (not a row of the input: it was read while the first chunk was scored, and came
    out as "p.txt:1-3: ROUGE_METRIC_BACKEND: ..."), in every mode: --compile gave a
    traceback and exit 1. The --per-example file is left as it was."""
    write_lines(tmp_path / "p.txt", ["the cat sat", "a dog", "x y"])
    write_lines(tmp_path / "r.txt", ["a cat sat", "the dog", "y"])
    write_jsonl(tmp_path / "pairs.jsonl", [{"prediction": "a b", "references": ["a c"]}])
    (tmp_path / "old.jsonl").write_text("old\n", encoding="utf-8")
    junk = dict(env, ROUGE_METRIC_BACKEND="junk")
    for args in (["p.txt", "r.txt"], ["--input", "pairs.jsonl", "--per-example", "old.jsonl"],
                 ["--compile"], ["--compare", "p.txt", "r.txt", "--references", "r.txt"]):
        proc = run_cli(junk, *args, cwd=tmp_path)
        assert one_line_error(proc) == BAD_BACKEND, args
        assert proc.stdout == ""
    assert (tmp_path / "old.jsonl").read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.jsonl", "p.txt", "pairs.jsonl",
                                                          "r.txt"]


@pytest.mark.parametrize("value", ["abc", "0", "-1", "2.5"])
def test_a_bad_threads_variable_is_one_line_naming_it(env, tmp_path, value):
    """ROUGE_METRIC_THREADS, as ROUGE_METRIC_BACKEND: the library warns and ignores it, the
    command refuses it in one line before it reads or scores anything."""
    write_jsonl(tmp_path / "pairs.jsonl", [{"prediction": "a b", "references": ["a c"]}])
    proc = run_cli(dict(env, ROUGE_METRIC_THREADS=value), "--input", "pairs.jsonl",
                   cwd=tmp_path)
    assert one_line_error(proc) == (f"rouge-exact: error: ROUGE_METRIC_THREADS: got "
                                    f"{value!r}; allowed: a positive integer or unset")
    assert proc.stdout == ""


def test_a_cache_variable_that_names_a_file_is_one_line(env, tmp_path):
    """ROUGE_METRIC_CACHE_DIR naming a file: refused by the command in one line; the library
    warns once and keeps its default cache."""
    write_jsonl(tmp_path / "pairs.jsonl", [{"prediction": "a b", "references": ["a c"]}])
    (tmp_path / "a_file").write_text("x", encoding="utf-8")
    bad = dict(env, ROUGE_METRIC_CACHE_DIR=str(tmp_path / "a_file"))
    proc = run_cli(bad, "--input", "pairs.jsonl", cwd=tmp_path)
    assert one_line_error(proc) == (f"rouge-exact: error: ROUGE_METRIC_CACHE_DIR: got "
                                    f"{str(tmp_path / 'a_file')!r}, which is not a folder; "
                                    "allowed: a folder (made if missing) or unset")
    code = ("import warnings, rouge_exact\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.simplefilter('always')\n"
            "    out = rouge_exact.compute(predictions=['a b'] * 2, references=['a c'] * 2,\n"
            "                              rouge_types=['rouge1'])\n"
            "print(out['rouge1'], [type(w.message).__name__ for w in caught])\n")
    done = subprocess.run([sys.executable, "-c", code], env=bad, capture_output=True,
                          text=True, timeout=300)
    assert done.stdout.split(None, 1) == ["0.5", "['SettingWarning']\n"], done  # 1 of 2 words


def test_library_value_and_type_errors_are_one_line_in_process(tmp_path, monkeypatch, capsys):
    """A ValueError or TypeError raised in a module of the library, where the CLI makes no
    check of its own first, is still one line and exit status 2 (main() in-process); one
    raised by the CLI's own code is a bug and keeps its traceback."""
    from rouge_exact.cli import main as rouge_cli

    write_lines(tmp_path / "p.txt", ["the cat sat"])
    write_lines(tmp_path / "r.txt", ["a cat sat"])
    args = [str(tmp_path / "p.txt"), str(tmp_path / "r.txt")]

    def library_refuses(module, options, batches, path, on_batch):
        module.check_inputs(["a"], [])  # a ValueError from rouge_exact.api

    with pytest.raises(ValueError) as refused:
        rouge_cli.api().check_inputs(["a"], [])
    monkeypatch.setattr(rouge_cli, "score_rows", library_refuses)
    assert rouge_cli.main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"rouge-exact: error: {' '.join(str(refused.value).split())}\n"

    def library_type_error(module, options, batches, path, on_batch):
        module.check_inputs(None, ["a"])  # a TypeError from rouge_exact.api

    monkeypatch.setattr(rouge_cli, "score_rows", library_type_error)
    assert rouge_cli.main(args) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("rouge-exact: error: predictions: "), err

    def cli_bug(module, options, batches, path, on_batch):
        return None  # run() then unpacks None: a TypeError of cli.main itself

    monkeypatch.setattr(rouge_cli, "score_rows", cli_bug)
    with pytest.raises(TypeError):
        rouge_cli.main(args)


# --------------------------------------------------------------------------------------------
# --compare names its systems apart: never like a field of the result ("signature", "count"),
# never two files by one name, and the first file given is the baseline unless --baseline
# names another. Each prediction is its reference or shares no word with it, so each system's
# ROUGE-1 F is by hand the share of its rows that are the reference.

NAMES_REFS = ["a b", "c d", "e f"]


def write_system(path, hits):
    return write_lines(path, [r if hit else "x y" for r, hit in zip(NAMES_REFS, hits)])


def compare_json(env, tmp_path, *files):
    proc = ok(run_cli(env, "--compare", *files, "--references", "r.txt", "--rouge-types",
                      "rouge1", "--n-samples", "40", "--json", cwd=tmp_path))
    out = json.loads(proc.stdout)
    scores = {k: v["rouge1"]["fmeasure"]["score"] for k, v in out.items() if isinstance(v, dict)}
    return out, scores


def test_compare_names_files_apart_and_keeps_the_first_as_baseline(env, tmp_path):
    write_lines(tmp_path / "r.txt", NAMES_REFS)
    write_system(tmp_path / "out.txt", [1, 1, 1])
    write_system(tmp_path / "out", [0, 0, 0])
    write_system(tmp_path / "b.txt", [1, 1, 0])
    # out.txt and out share the base name out: both are named by their paths, two systems
    out, scores = compare_json(env, tmp_path, "out.txt", "out")
    assert list(out) == ["out.txt", "out", "signature", "count"]
    assert scores == {"out.txt": 1.0, "out": 0.0} and out["count"] == 3
    # a third file: the baseline is still the first given (out.txt, F = 1)
    out, scores = compare_json(env, tmp_path, "out.txt", "out", "b.txt")
    assert list(out) == ["out.txt", "out", "b", "signature", "count"]
    assert scores == pytest.approx({"out.txt": 1.0, "out": 0.0, "b": 2 / 3}, abs=1e-12)
    assert out["signature"].endswith("|baseline:out.txt")
    assert set(out["out.txt"]["rouge1"]["fmeasure"]) == {"score", "low", "high"}
    assert out["b"]["rouge1"]["fmeasure"]["delta"] == pytest.approx(-1 / 3, abs=1e-12)
    assert out["out"]["rouge1"]["fmeasure"]["delta"] == -1.0
    # --baseline names another, by the name the table shows
    out, _ = compare_json(env, tmp_path, "out.txt", "out", "b.txt", "--baseline", "b")
    assert out["signature"].endswith("|baseline:b")
    assert set(out["b"]["rouge1"]["fmeasure"]) == {"score", "low", "high"}


def test_compare_a_file_named_like_a_result_field(env, tmp_path):
    """signature.txt is the system signature.txt: the result's signature and count stay, the
    table has its baseline row and one comparison."""
    write_lines(tmp_path / "r.txt", NAMES_REFS)
    write_system(tmp_path / "signature.txt", [1, 0, 0])
    write_system(tmp_path / "a.txt", [1, 1, 1])
    out, scores = compare_json(env, tmp_path, "signature.txt", "a.txt")
    assert list(out) == ["signature.txt", "a", "signature", "count"]
    assert scores == pytest.approx({"signature.txt": 1 / 3, "a": 1.0}, abs=1e-12)
    assert out["count"] == 3 and out["signature"].endswith("|baseline:signature.txt")
    table = ok(run_cli(env, "--compare", "signature.txt", "a.txt", "--references", "r.txt",
                       "--rouge-types", "rouge1", "--n-samples", "40", cwd=tmp_path)).stdout
    assert "Bonferroni over 1 comparison;" in table and "Baseline: signature.txt |" in table
    assert "\ncount: 3" in table and "\nsignature: rouge1|" in table


def test_compare_refuses_what_it_cannot_name_apart(env, tmp_path):
    """The same file twice, and a systems JSONL with a result field as a key: one line, exit
    status 2, nothing on stdout."""
    write_lines(tmp_path / "r.txt", NAMES_REFS)
    write_system(tmp_path / "a.txt", [1, 0, 0])
    (tmp_path / "systems.jsonl").write_text("".join(
        json.dumps({"references": r, "a": r, "count": "x y"}) + "\n" for r in NAMES_REFS),
        encoding="utf-8")
    for args, message in [
            (["a.txt", "a.txt", "a.txt", "--references", "r.txt"],
             "--compare a.txt: given twice; allowed: each system's file once"),
            (["systems.jsonl"],
             "systems.jsonl: the system key 'count' is one of the comparison's own fields "
             "('signature', 'count'); allowed: any other key for a system (rename it in the "
             "file)")]:
        proc = run_cli(env, "--compare", *args, cwd=tmp_path)
        assert one_line_error(proc) == f"rouge-exact: error: {message}" and proc.stdout == ""


def test_compare_help_names_the_result_fields(metric):
    from rouge_exact.cli import main as rouge_cli

    action = next(a for a in rouge_cli.build_parser()._actions if a.dest == "compare")
    assert metric.RESULT_FIELDS == ("signature", "count")
    assert all(field in action.help for field in metric.RESULT_FIELDS)
