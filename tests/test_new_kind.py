"""A new ROUGE kind is one Kind, its kernel and its numpy twin: nothing else changes.

This file declares a kind of its own, rougeX (ROUGE-X: distinct unigrams, each word counted
once in each text), with a numpy twin and no compiled kernel, and registers it for each test
only (``rouge_exact.kinds.registered``, a context manager: the kinds are as they were after
it). Without touching any other file, the kind then scores through compute(), the command
(rouge_exact.cli.main, in-process) and the Space's API (space.api.rouge, which imports the
package itself: the one registration serves it too); it is listed in the generated kinds table
and grammar; and a profile that does not score it refuses it by name.
"""
import json

import numpy as np
import pytest

from conftest import needed, staged

PREDICTION = "the cat sat on the mat"
REFERENCES = ["the cat lay on a mat", "a dog sat there"]
# by hand: {the cat sat on mat} against {the cat lay on a mat}: 4 shared, of 5 and 6; against
# {a dog sat there}: 1 shared, of 5 and 4. max mode takes the reference with the best F.
P, R = 4 / 5, 4 / 6
F = 2 * P * R / (P + R)


def distinct_unigram_stats(tokens, text_offsets, pair_pred, pair_ref):
    """(shared distinct tokens, distinct tokens of the prediction, of the reference) per
    pair: the numpy twin of ROUGE-X's kernel (there is no compiled one)."""
    out = np.zeros((len(pair_pred), 3), dtype=np.int64)
    for i, (p, r) in enumerate(zip(pair_pred.tolist(), pair_ref.tolist())):
        a = np.unique(tokens[text_offsets[p]:text_offsets[p + 1]])
        b = np.unique(tokens[text_offsets[r]:text_offsets[r + 1]])
        out[i] = len(np.intersect1d(a, b)), len(a), len(b)
    return out


def rouge_x(registry):
    """ROUGE-X as a Kind of this registry (rouge_exact.kinds): its types are its RougeType."""
    def marks(t, flat, view, clip):
        a, b = registry.text_ids(view)
        return [np.isin(a, b), np.isin(b, a)]

    return registry.Kind(
        key="X", label="ROUGE-X", grammar="rougeX", unit="distinct unigrams",
        examples=("rougeX",),
        parse=lambda name: registry.RougeType(name, "X") if name == "rougeX" else None,
        kernel="distinct_unigram_stats",
        arguments=lambda t, flat, sent, clip: ((flat.tokens, flat.text_offsets), ()),
        sentences=False, cost=lambda t, p, repeats, traceback: (
            1e-8 * repeats * float((p.lp + p.lr).sum()), 0.0),
        best_key=registry.recall_key, marks=marks,
        explanation="tokens the two texts both have", profiles=("rouge_score",))


def registered_x(registry):
    """ROUGE-X registered in the package's registry (with its twin) until the block ends:
    the package, its command and the Space all score with this one registry."""
    return registry.registered(rouge_x(registry), twin=distinct_unigram_stats)


@pytest.fixture
def package():
    """The package (rouge_exact) with ROUGE-X registered for the test."""
    import rouge_exact

    with registered_x(staged("kinds")):
        yield rouge_exact


def test_compute_scores_the_new_kind(package):
    result = package.compute(predictions=[PREDICTION], references=[REFERENCES],
                             rouge_types=["rouge1", "rougeX"], detailed=True)
    assert result["rougeX"]["precision"]["mid"] == pytest.approx(P, abs=1e-15)
    assert result["rougeX"]["recall"]["mid"] == pytest.approx(R, abs=1e-15)
    assert result["rougeX"]["fmeasure"]["mid"] == pytest.approx(F, abs=1e-15)
    assert result["signature"].startswith("rouge1+rougeX|")
    # the kinds declared before it are as they were
    alone = package.compute(predictions=[PREDICTION], references=[REFERENCES],
                            rouge_types=["rouge1"], detailed=True)
    assert result["rouge1"] == alone["rouge1"]
    # per example, and under micro aggregation (the counts summed: the same for one example)
    rows = package.compute(predictions=[PREDICTION, "a b"], references=[REFERENCES, ["b c"]],
                           rouge_types=["rougeX"], use_aggregator=False)
    assert rows["rougeX"] == pytest.approx([F, 0.5], abs=1e-15)
    micro = package.compute(predictions=[PREDICTION], references=[REFERENCES[0]],
                            rouge_types=["rougeX"], aggregation="micro")
    assert micro["rougeX"] == pytest.approx(F, abs=1e-15)


def test_the_command_scores_the_new_kind(package, tmp_path, capsys):
    from rouge_exact.cli import main as rouge_cli

    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"prediction": PREDICTION, "references": REFERENCES}) + "\n",
                     encoding="utf-8")
    assert rouge_cli.main(["--jsonl", str(pairs), "--rouge-types", "rougeX", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["rougeX"]["fmeasure"]["mid"] == pytest.approx(F, abs=1e-15)
    assert rouge_cli.main(["--jsonl", str(pairs), "--rouge-types", "rougeX", "--profile",
                           "rouge155"]) == 2
    assert "rougeX" in capsys.readouterr().err


def test_the_space_scores_the_new_kind():
    """The Space's API and its highlights, on the package it imports."""
    needed("gradio")
    import importlib

    api = importlib.import_module("space.api")
    options = importlib.import_module("space.options")
    scoring = importlib.import_module("space.scoring")
    with registered_x(staged("kinds")):
        got = api.rouge(PREDICTION, REFERENCES, ["rougeX", "rouge1"])
        assert got["rougeX"]["fmeasure"] == pytest.approx(F, abs=1e-15)
        assert list(got)[:2] == ["rouge1", "rougeX"]  # rows in the kinds' order: it is last
        assert options.parse_types(["rougeX", "rougeSU4", "rouge2"]) == \
            ["rouge2", "rougeSU4", "rougeX"]
        panel = scoring.highlights(PREDICTION, REFERENCES, dict(rouge_types=["rougeX"]),
                                   "rougeX")
        assert "marked are the tokens the two texts both have" in panel
        # the prediction against reference 1 (the/cat/on/the/mat), reference 1 (the/cat/on/mat),
        # reference 2 (sat)
        assert panel.count('class="m"') == 5 + 4 + 1
    with pytest.raises(Exception, match="rougeX"):
        api.rouge(PREDICTION, REFERENCES, ["rougeX"])


def test_the_docs_list_the_new_kind(package):
    options = staged("options")
    assert options.kinds_table().splitlines()[-1] == \
        "| ROUGE-X | rougeX | distinct unigrams (profile rouge_score only) |"
    assert options.rouge_type_grammar().endswith(", rougeX")
    assert "rougeX" not in options.rouge_type_grammar("rouge155")
    assert [t.name for t in options.RougeOptions.build(rouge_types=["rougeX"]).rouge_types] \
        == ["rougeX"]


def test_a_profile_that_does_not_score_it_refuses_it_by_name(package):
    grammar = staged("options").rouge_type_grammar("rouge155")
    with pytest.raises(ValueError) as refused:
        package.compute(predictions=[PREDICTION], references=[REFERENCES],
                        rouge_types=["rouge1", "rougeX"], profile="rouge155")
    assert str(refused.value) == (
        "rouge_types: got 'rougeX' with profile='rouge155', which does not score ROUGE-X; "
        f"allowed with that profile: {grammar}")


def test_registration_is_undone():
    import rouge_exact

    registry, backend = staged("kinds"), staged("kernels.backend")
    kinds = dict(registry.KINDS)
    kwargs = dict(predictions=[PREDICTION], references=[REFERENCES], rouge_types=["rougeX"])
    with registered_x(registry):
        rouge_exact.compute(**kwargs)  # (its checked options are memoized meanwhile)
        with pytest.raises(ValueError, match="'X', already a kind"):
            with registered_x(registry):
                pass
    assert registry.KINDS == kinds and "distinct_unigram_stats" not in backend._REGISTERED
    with pytest.raises(ValueError, match=r"rouge_types: invalid type 'rougeX'( \(did you mean "
                                         r"[^)]*\))?; allowed: "):
        rouge_exact.compute(**kwargs)


def test_a_registered_kind_scores_under_every_backend(monkeypatch):
    """Its kernel is served as registered whatever ROUGE_METRIC_BACKEND says (no compile
    process knows it, so none is waited for)."""
    import rouge_exact

    registry = staged("kinds")
    expected = None
    for backend in ("numba", "numpy", ""):
        monkeypatch.setenv("ROUGE_METRIC_BACKEND", backend)
        with registered_x(registry):
            got = rouge_exact.compute(predictions=[PREDICTION], references=[REFERENCES],
                                      rouge_types=["rougeX"])
        expected = got if expected is None else expected
        assert got == expected
