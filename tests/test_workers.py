"""Where Spark and Ray workers get the code they run (engines.staged_pipeline).

A worker imports the installed package when it holds the driver's sources; otherwise the
sources (shipped with the task) are written into a folder of the worker process's own
(mkdtemp: mode 0700, a fresh name) and imported from there under a private package name. The
old scheme imported whatever sat at a predictable path under the shared temporary folder:
these tests plant a module there and show that nothing from it is imported."""
import importlib
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import staged

PLANTED = "raise RuntimeError('planted code was imported')\n"


@pytest.fixture
def engines():
    module = staged("engines")
    saved = dict(module._STAGED)
    module._STAGED.clear()
    yield module
    module._STAGED.clear()
    module._STAGED.update(saved)


@pytest.fixture
def planted(engines):
    """A package planted where the old scheme looked (the shared temporary folder, named by
    the sources' digest), holding code that raises on import."""
    sources = engines.metric_sources()
    digests = {engines._digest(sources), engines._digest(_edited(sources))}
    root = Path(tempfile.gettempdir()) / "rouge_metric_workers"
    folders = [root / f"rouge_metric_worker_{digest}" for digest in digests]
    made = []
    for folder in folders:
        if folder.exists():  # not ours: leave it (the test still shows it is not read)
            continue
        folder.mkdir(parents=True)
        made.append(folder)
        for name in ["__init__.py", *sources]:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(PLANTED, encoding="utf-8")
    yield root
    for folder in made:
        shutil.rmtree(folder)


def _edited(sources: dict) -> dict:
    """The sources of another version of the package (as a driver of another version ships)."""
    edited = dict(sources)
    edited["scorer/pipeline.py"] += "\n# another version\n"
    return edited


def _nothing_from(root: Path) -> None:
    assert str(root) not in sys.path
    for module in list(sys.modules.values()):
        assert not str(getattr(module, "__file__", None) or "").startswith(str(root)), module


def test_a_worker_with_the_package_imports_the_installed_package(engines, planted):
    pipeline = engines.staged_pipeline(engines.metric_sources())
    assert pipeline is importlib.import_module("rouge_exact.scorer.pipeline")
    _nothing_from(planted)


def test_other_sources_are_imported_from_a_private_folder(engines, planted, metric):
    path_before = list(sys.path)
    sources = _edited(engines.metric_sources())
    pipeline = engines.staged_pipeline(sources)
    folder = Path(pipeline.__file__).parent.parent  # <folder>/scorer/pipeline.py
    assert pipeline.__name__.endswith(".scorer.pipeline")
    assert pipeline is not importlib.import_module("rouge_exact.scorer.pipeline")
    assert folder.name.startswith("rouge_exact_worker_") and folder.parent != planted
    info = os.stat(folder)
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.getuid()
    for inner in (p for p in folder.rglob("*") if p.is_dir()):  # scorer/, kernels/, ...
        assert stat.S_IMODE(os.stat(inner).st_mode) & 0o077 == 0, inner
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.py")) == \
        sorted(sources)
    assert sys.path == path_before  # imported by package name, not through sys.path
    _nothing_from(planted)
    # the private copy scores as the package does (its modules are the package's, edited)
    options = pipeline.RougeOptions.build(rouge_types=["rouge1", "rougeL"], detailed=True)
    scorer = pipeline.Scorer(options)
    scorer.add(["the cat sat on the mat"], ["the cat lay on the mat"], rows=False)
    assert scorer.result() == metric.compute(predictions=["the cat sat on the mat"],
                                             references=["the cat lay on the mat"],
                                             rouge_types=["rouge1", "rougeL"], detailed=True)
    assert engines.staged_pipeline(sources) is pipeline  # once per process and version


def test_each_process_gets_a_new_folder(engines):
    sources = _edited(engines.metric_sources())
    first = Path(engines._private_pipeline("a" * 16, sources).__file__).parent.parent
    second = Path(engines._private_pipeline("b" * 16, sources).__file__).parent.parent
    assert first != second  # mkdtemp: never a name another user could have made first
