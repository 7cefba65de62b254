"""compare()'s result keeps its systems apart from its own fields ("signature", "count"): a
system named like a field is refused by name, in the API, the Space (its /rouge_compare
function and its uploads) and the rouge-exact command (tests/test_cli.py runs the command; here
its naming of system files is called directly).

Expectations are written by hand: every prediction is its reference or a text sharing no word
with it, so each system's ROUGE-1 F is the share of its rows that are the reference."""
import json
import os

import pytest
from hypothesis import given, settings, strategies as st

from conftest import needed

FIELDS = ("signature", "count")  # what compare() adds beside the systems
REFERENCES = ["a b", "c d", "e f"]
MISS = "x y"  # no word of any reference: ROUGE-1 F = 0


def predictions_of(hits):
    """A system's predictions: the reference where hits[k], else MISS (F = 1 or 0 per row)."""
    return [ref if hit else MISS for ref, hit in zip(REFERENCES, hits)]


def test_the_reserved_names_are_what_compare_adds(metric):
    import rouge_exact.api as api

    assert api.RESULT_FIELDS == FIELDS and metric.RESULT_FIELDS == FIELDS
    out = metric.compare(predictions={"a": predictions_of([1, 1, 0]),
                                      "b": predictions_of([1, 0, 0])},
                         references=REFERENCES, rouge_types=["rouge1"], n_samples=50)
    assert list(out) == ["a", "b", *FIELDS]
    assert out["count"] == 3 and out["signature"].endswith("|baseline:a")


NAMES = st.one_of(st.sampled_from(FIELDS), st.sampled_from(["Signature", "count ", "counts",
                                                            "signature.txt", "", "baseline"]),
                  st.text(max_size=8))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(systems=st.lists(st.tuples(NAMES, st.tuples(st.booleans(), st.booleans(),
                                                   st.booleans())),
                        min_size=2, max_size=4, unique_by=lambda s: s[0]))
def test_no_system_name_overwrites_a_result_field(metric, systems):
    """Either the name is refused (ValueError naming the argument, the name and what is
    allowed), or the result holds every system, with its own score, and both fields intact."""
    predictions = {name: predictions_of(hits) for name, hits in systems}
    reserved = [name for name in predictions if name in FIELDS]
    if reserved:
        with pytest.raises(ValueError) as refused:
            metric.compare(predictions=predictions, references=REFERENCES,
                           rouge_types=["rouge1"], n_samples=40)
        message = str(refused.value)
        assert message.startswith(f"predictions: the system name {reserved[0]!r} is one of "
                                  "the result's own fields ('signature', 'count'); allowed: "
                                  "any other name"), message
        return
    out = metric.compare(predictions=predictions, references=REFERENCES,
                         rouge_types=["rouge1"], n_samples=40)
    first = systems[0][0]
    assert list(out) == [name for name, _ in systems] + list(FIELDS)
    assert out["count"] == 3
    assert isinstance(out["signature"], str) and out["signature"].endswith(f"|baseline:{first}")
    for name, hits in systems:
        cell = out[name]["rouge1"]["fmeasure"]
        assert cell["score"] == pytest.approx(sum(hits) / 3, abs=1e-12)
        if name == first:
            assert set(cell) == {"score", "low", "high"}  # the baseline
        else:
            assert cell["delta"] == pytest.approx((sum(hits) - sum(systems[0][1])) / 3,
                                                  abs=1e-12)


# --------------------------------------------------------------------------------------------
# The rouge-exact command's names for its system files (its runs: tests/test_cli.py)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _files(folder, *names):
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("a b\n", encoding="utf-8")


@pytest.mark.parametrize("paths, names", [
    (["a.txt", "b.txt"], ["a", "b"]),
    (["out.txt", "out", "b.txt"], ["out.txt", "out", "b"]),  # base names collide: paths
    (["runs/1/out.txt", "runs/2/out.txt"], ["runs/1/out.txt", "runs/2/out.txt"]),
    (["signature.txt", "a.txt"], ["signature.txt", "a"]),  # a field's name: the path
    (["count.jsonl", "b.txt"], ["count.jsonl", "b"]),
    (["signature", "a.txt"], ["<resolved>signature", "a"]),  # even the path is a field's
    (["a.b.txt", "a.b", "a.txt"], ["<resolved>a.b.txt", "<resolved>a.b", "a.txt"]),
])
def test_cli_names_system_files_apart(in_tmp, paths, names):
    from rouge_exact.cli import main as rouge_cli

    _files(in_tmp, *paths)
    want = [os.path.join(os.path.realpath(in_tmp), n.removeprefix("<resolved>"))
            if n.startswith("<resolved>") else n for n in names]
    got = rouge_cli.system_names(paths, FIELDS)
    assert got == want and len(set(got)) == len(got)


def test_cli_refuses_a_system_file_given_twice(in_tmp):
    from rouge_exact.cli import main as rouge_cli

    _files(in_tmp, "a.txt", "b.txt")
    os.symlink("a.txt", in_tmp / "link.txt")
    os.link(in_tmp / "b.txt", in_tmp / "hard.txt")
    for paths, message in [
            (["a.txt", "a.txt", "a.txt"], "--compare a.txt: given twice"),
            (["a.txt", "./a.txt"], "--compare ./a.txt: the same file as a.txt"),
            (["a.txt", "link.txt"], "--compare link.txt: the same file as a.txt"),
            (["b.txt", "a.txt", "hard.txt"], "--compare hard.txt: the same file as b.txt")]:
        with pytest.raises(rouge_cli.CliError) as refused:
            rouge_cli.system_names(paths, FIELDS)
        assert str(refused.value) == f"{message}; allowed: each system's file once"


# --------------------------------------------------------------------------------------------
# The Space: /rouge_compare and the Compare tab's uploads


@pytest.fixture(scope="module")
def space():
    needed("gradio")
    import importlib
    from types import SimpleNamespace

    return SimpleNamespace(**{name: importlib.import_module(f"space.{name}")
                              for name in ("api", "files", "handlers", "scoring")})


@pytest.mark.parametrize("name", FIELDS)
def test_space_api_refuses_a_system_named_like_a_field(space, name):
    import gradio as gr

    with pytest.raises(gr.Error) as refused:
        space.api.rouge_compare({"a": predictions_of([1, 1, 1]), name: predictions_of([0, 0, 0])},
                                REFERENCES, rouge_types=["rouge1"], n_samples=40)
    assert refused.value.message == (
        f"predictions: the system name {name!r} is one of the result's own fields "
        "('signature', 'count'); allowed: any other name (rename the system)")


def test_space_api_keeps_every_system_and_field(space):
    predictions = {"signature.txt": predictions_of([1, 1, 0]), "Count": predictions_of([1, 0, 0]),
                   "a": predictions_of([0, 0, 0])}
    out = space.api.rouge_compare(predictions, REFERENCES, rouge_types=["rouge1"], n_samples=40)
    assert list(out) == ["signature.txt", "Count", "a", *FIELDS]
    assert [out[s]["rouge1"]["fmeasure"]["score"] for s in predictions] == \
        pytest.approx([2 / 3, 1 / 3, 0.0], abs=1e-12)
    assert out["count"] == 3 and out["signature"].endswith("|baseline:signature.txt")
    # the Space scores with the package (no metric of its own): its reserved names are compare()'s
    import rouge_exact

    assert space.scoring.RESULT_FIELDS == space.files._reserved_fields() == \
        rouge_exact.RESULT_FIELDS == FIELDS


def _upload(folder, name, hits):
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(p + "\n" for p in predictions_of(hits)), encoding="utf-8")
    return str(path)


def test_space_names_uploads_apart_and_keeps_the_first_as_baseline(space, tmp_path):
    refs = tmp_path / "refs.txt"
    refs.write_text("".join(r + "\n" for r in REFERENCES), encoding="utf-8")
    files = [_upload(tmp_path / "1", "out.txt", [1, 1, 1]),
             _upload(tmp_path / "2", "out", [0, 0, 0]),
             _upload(tmp_path / "3", "signature.txt", [1, 0, 0]),
             _upload(tmp_path / "4", "b.txt", [1, 1, 0])]
    predictions, references = space.files.load_systems(None, files, [str(refs)])
    assert list(predictions) == ["out.txt", "out", "signature.txt", "b"]
    assert references == [[r] for r in REFERENCES]
    options = dict(rouge_types=["rouge1"], extra_types="", use_stemmer=False,
                   remove_stopwords=False, profile="rouge_score", alpha=0.5, multi_ref="max",
                   tokenizer="default", split_sentences=False, lang="none")  # as the page sends
    html, signature = space.handlers.compare_page(None, files, [str(refs)], options, "",
                                                  "randomization", 40, 0.95, 1)
    assert 'class="error-panel"' not in html, html
    assert signature["value"].endswith("|baseline:out.txt"), signature


def test_space_names_a_stem_that_is_another_uploads_file_name_apart(space):
    """a, a.txt and a.txt.txt: the stems (a, a, a.txt) would name the third like the second;
    every upload is then named by its file name."""
    assert space.files.system_names(["/u/1/a", "/u/2/a.txt", "/u/3/a.txt.txt"]) == \
        ["a", "a.txt", "a.txt.txt"]


def test_space_refuses_uploads_it_cannot_name_apart(space, tmp_path):
    import gradio as gr

    refs = [_upload(tmp_path, "refs.txt", [1, 1, 1])]
    for files, message in [
            ([_upload(tmp_path / "1", "out.txt", [1, 1, 1]),
              _upload(tmp_path / "2", "out.txt", [0, 0, 0])],
             "the system files: two are named out.txt; allowed: one file per system, each "
             "with its own file name (rename one)"),
            ([_upload(tmp_path, "a.txt", [1, 1, 1]), _upload(tmp_path, "count", [0, 0, 0])],
             "the system files: count is named like one of the comparison's own fields "
             "(signature, count); allowed: any other file name (rename it, e.g. with an "
             "extension)")]:
        with pytest.raises(gr.Error) as refused:
            space.files.load_systems(None, files, refs)
        assert refused.value.message == message


def test_space_refuses_a_systems_file_with_a_field_as_key(space, tmp_path):
    import gradio as gr

    path = tmp_path / "systems.jsonl"
    path.write_text("".join(json.dumps({"references": r, "a": r, "signature": MISS}) + "\n"
                            for r in REFERENCES), encoding="utf-8")
    with pytest.raises(gr.Error) as refused:
        space.files.load_systems(str(path), None, None)
    assert refused.value.message == (
        "systems.jsonl: the system key 'signature' is one of the comparison's own fields "
        "('signature', 'count'); allowed: any other key for a system (rename it in the file)")
