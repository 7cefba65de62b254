"""The package's shape, as a user and a reader meet it: the thin evaluate script (loaded alone
from an empty folder, as the Hub serves it, with numbers equal to rouge_exact.compute), the
loader's pip hint without the package, the version window, a light
``import rouge_exact``, and no import circle inside the package (imports inside functions
included). The layers themselves are pyproject.toml's import-linter contracts (.ci/run).
"""
import ast
import importlib.metadata
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, load_metric, staged

import rouge_exact
import rouge_exact.hf
import rouge_exact.rouge_scorer

SCRIPT = REPO / "rouge_metric.py"
PREDICTIONS = ["the cat sat on the mat", "a dog ran.\nIt was fast", "cats were running"]
REFERENCES = [["the cat lay on the mat"], ["the dog ran fast", "a fast dog"], ["a cat ran"]]


def test_the_script_is_thin_and_the_package_holds_the_same_file():
    text = SCRIPT.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 30
    imports = [node for node in ast.walk(ast.parse(text))
               if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [ast.unparse(node) for node in imports] == ["import rouge_exact.hf"]
    # evaluate's loader reads the pip hint from the text after "# From:" on the import line;
    # the hint is pasted into a shell as it stands: no > or <
    line = next(line for line in text.splitlines() if line.startswith("import "))
    assert line == "import rouge_exact.hf  # From: rouge-exact"
    assert SCRIPT.read_bytes() == open(rouge_exact.EVALUATE_SCRIPT, "rb").read()


@pytest.mark.parametrize("where", ["a copy alone in an empty folder", "EVALUATE_SCRIPT"])
def test_the_script_loads_and_scores_as_the_package_does(tmp_path, where):
    if where == "EVALUATE_SCRIPT":
        path = rouge_exact.EVALUATE_SCRIPT
    else:
        folder = tmp_path / "rouge_metric"
        folder.mkdir()
        path = folder / "rouge_metric.py"
        shutil.copy(SCRIPT, path)
    metric = load_metric(path)
    assert type(metric).__name__ == "RougeMetric"
    assert isinstance(metric, rouge_exact.hf.RougeMetric)
    for options in ({}, dict(use_stemmer=True, rouge_types=["rouge1", "rougeLsum"]),
                    dict(profile="rouge155", use_stemmer=True, remove_stopwords=True),
                    dict(detailed=True, rouge_types=["rouge2", "rougeSU4"]),
                    dict(use_aggregator=False, profile="pltrdy")):
        got = metric.compute(predictions=PREDICTIONS, references=REFERENCES, **options)
        assert got == rouge_exact.compute(PREDICTIONS, REFERENCES, **options), options
    # evaluate's own path (add_batch, then compute) gives the same
    metric.add_batch(predictions=PREDICTIONS, references=REFERENCES)
    assert metric.compute() == rouge_exact.compute(PREDICTIONS, REFERENCES)
    # hand-checked: rouge155 removes the stopwords "a" and "were" and stems "cats"->"cat",
    # "running"->"run"; "ran" (3 letters) stays: {cat, run} against {cat, ran}
    out = metric.compute(predictions=["cats were running"], references=["a cat ran"],
                         rouge_types=["rouge1"], use_stemmer=True, profile="rouge155",
                         remove_stopwords=True, use_aggregator=False)
    assert out["rouge1"] == [0.5]


def test_without_the_package_the_loader_names_the_pip_command(tmp_path):
    shutil.copy(SCRIPT, tmp_path / "rouge_metric.py")
    code = (
        "import sys\n"
        "sys.modules['rouge_exact'] = None  # as if it were not installed\n"
        "import evaluate\n"
        "try:\n"
        "    evaluate.load(sys.argv[1])\n"
        "except ImportError as error:\n"
        "    print(error)\n"
        "else:\n"
        "    print('loaded')\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "rouge_metric.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "pip install rouge-exact" in done.stdout, done.stdout


def test_a_script_for_another_version_says_what_to_install():
    rouge_exact.hf.check_script_version(">=0.7,<0.8")  # this package's window
    for window in (">=0.8,<0.9", ">=0.1,<0.7", "==0.6.0"):
        with pytest.raises(ImportError, match=re.escape(f"pip install 'rouge-exact{window}'")):
            rouge_exact.hf.check_script_version(window)


def test_import_rouge_exact_loads_no_numpy():
    code = ("import sys, rouge_exact\n"
            "heavy = [m for m in ('numpy', 'numba', 'evaluate', 'nltk') if m in sys.modules]\n"
            "print(heavy, rouge_exact.__version__)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.split() == ["[]", importlib.metadata.version("rouge-exact")], done


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["--bogus"],
                                  ["--rouge-types", "rouge1", "--n-samples"]])
def test_the_command_answers_help_version_and_bad_flags_without_numpy(argv):
    """--help, --version and an argument error are answered from the standard library:
    cli/flags.py holds the schema's flags (tests/test_schema.py checks it is current)."""
    code = ("import runpy, sys\n"
            f"sys.argv = ['rouge-exact', *{argv!r}]\n"
            "try:\n"
            "    runpy.run_module('rouge_exact', run_name='__main__')\n"
            "except SystemExit as end:\n"
            "    status = end.code\n"
            "heavy = [m for m in ('numpy', 'numba', 'nltk') if m in sys.modules]\n"
            "print(status, heavy, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    status, heavy = done.stderr.splitlines()[-1].split(" ", 1)
    assert heavy == "[]", done.stderr
    assert status == ("0" if argv[0] in ("--help", "--version") else "2"), done
    version = f"rouge-exact {importlib.metadata.version('rouge-exact')}\n"
    assert (done.stdout == version) == (argv == ["--version"]), done.stdout


def _modules() -> dict:
    """{module name: the names of the package's modules it imports}, imports inside functions
    included, read from the sources."""
    root = REPO / "rouge_exact"
    graph = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = name if parts[-1] == "__init__" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:  # `from . import api`: the module api
                    found.add(f"{target}.{alias.name}" if not node.module else target)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""])
                found.update(n for n in names if n.startswith("rouge_exact"))
        graph[name] = found
    return {name: {t for t in targets if t in graph and t != name}
            for name, targets in graph.items()}


def test_no_import_circle_inside_the_package():
    graph = _modules()
    assert "rouge_exact.scorer.pipeline" in graph["rouge_exact.api"]  # (the reader reads)
    state: dict = {}
    circles = []

    def visit(name, path):
        state[name] = "open"
        for target in sorted(graph[name]):
            if state.get(target) == "open":
                circles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    # a package's __init__ importing its own modules is not a circle (importing a submodule
    # runs its package's __init__ first by design): only circles between modules count
    circles = [c for c in circles
               if not any(b.startswith(a + ".") or a.startswith(b + ".") for a, b in
                          zip(c, c[1:]))]
    assert circles == []


def test_a_call_resolves_its_kernels_once(metric, monkeypatch):
    """A one-pair compute() asks the backend for its kernels at most 3 times (the tokenizer's,
    the scorer's, and room for one more), not once per kernel."""
    backend = staged("kernels.backend")
    looked_up = []
    for name in ("kernel", "resolve"):
        real = getattr(backend, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            looked_up.append((_name, args[0]))
            return _real(*args, **kwargs)

        for module in [m for n, m in sys.modules.items() if n.startswith("rouge_exact")]:
            if vars(module).get(name) is real:
                monkeypatch.setattr(module, name, counted)
    for options in ({}, dict(use_stemmer=True, rouge_types=["rouge1", "rouge2", "rougeL",
                                                             "rougeLsum", "rougeW", "rougeSU4"])):
        looked_up.clear()
        got = metric.compute(["the cat sat on the mat"], ["the cat lay on the mat"], **options)
        assert got["rouge1"] == 5 / 6  # hand-counted: 5 of 6 unigrams both ways
        assert 1 <= len(looked_up) <= 3, looked_up


def _package_sources():
    root = REPO / "rouge_exact"
    return {path.relative_to(REPO).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
            for path in sorted(root.rglob("*.py"))}


def test_no_module_imports_another_modules_private_names():
    private = [(name, node.module, alias.name)
               for name, tree in _package_sources().items() for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom) and node.level
               for alias in node.names
               if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert private == []


def test_readable_at_a_glance():
    """Module docstrings of at most 15 lines (the rest is in docs/design.md), and no function
    over 80 lines but the numba kernels (@njit: one compiled loop each)."""
    long_docs, long_functions = [], []
    for name, tree in _package_sources().items():
        doc = ast.get_docstring(tree, clean=False)
        if doc and len(doc.splitlines()) > 15:
            long_docs.append((name, len(doc.splitlines())))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                compiled = any("njit" in ast.unparse(d) for d in node.decorator_list)
                if lines > 80 and not compiled:
                    long_functions.append((name, node.name, lines))
    assert long_docs == [] and long_functions == []


def test_the_public_api_documents_its_arguments():
    import inspect

    for function in (rouge_exact.compute, rouge_exact.compare, rouge_exact.partial,
                     rouge_exact.merge, rouge_exact.finalize,
                     rouge_exact.rouge_scorer.RougeScorer,
                     rouge_exact.rouge_scorer.RougeScorer.score, rouge_exact.hf.RougeMetric,
                     rouge_exact.hf.RougeMetric.compute):
        doc = inspect.getdoc(function)
        assert "Args:" in doc, function
        assert "Returns:" in doc or inspect.isclass(function), function
