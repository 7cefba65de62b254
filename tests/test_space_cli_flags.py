"""The command the Space prints ("run it locally") reproduces the request: its flags are made
from the options' schema, and the CLI given them prints the numbers compute() gives for the
same keyword options, for every option the CLI takes."""

import importlib
import json
import shlex
import sys

import pytest

from conftest import REPO, needed

PREDICTIONS = ["The cat sat on the mat. It was happy.", "A dog ran in the park today.",
               "Rain fell on the quiet town all night.", "Markets rose after the report."]
REFERENCES = [["The cat was sitting on the mat. It purred.", "A cat sat on a mat."],
              ["The dog ran in a park.", "Dogs run in parks."],
              ["It rained on the town during the night.", "Rain in the town at night."],
              ["Stocks rose after the jobs report.", "The report lifted markets."]]
# one request per option the CLI takes, each with a value other than the default
REQUESTS = [
    dict(rouge_types=["rouge1", "rougeW-1.5", "rougeSU4"]),
    dict(use_stemmer=True),
    dict(tokenizer="unicode"),
    dict(alpha=0.25),
    dict(multi_ref="average"),
    dict(remove_stopwords=True),
    dict(n_samples=37),
    dict(confidence=0.8),
    dict(seed=7),
    dict(profile="rouge155"),
    dict(profile="rouge155", multi_ref="best", alpha=0.3),
    dict(profile="coco"),
    dict(profile="coco", multi_ref="average", aggregation="micro"),
    dict(aggregation="micro"),
    dict(length_limit_words=4),
    dict(length_limit_bytes=20),
    dict(split_sentences=True),
    dict(lang="fr", use_stemmer=True),
    # a profile that cuts with a language's segmenter: the flags need both (jieba)
    dict(profile="rouge_chinese", lang="zh"),
    # a profile that stems by default, told not to: --no-use-stemmer; and its limit off
    dict(profile="py_rouge", use_stemmer=False),
    dict(profile="py_rouge", length_limit_bytes=0),
    dict(profile="torchmetrics", multi_ref="mean_prf"),
]


@pytest.fixture(scope="module")
def space():
    sys.path.insert(0, str(REPO))
    return importlib.import_module("space.options")


def test_every_cli_option_is_requested():
    from rouge_exact import OPTIONS

    requested = {name for request in REQUESTS for name in request}
    assert requested == {option.name for option in OPTIONS if option.cli}


@pytest.mark.parametrize("request_options", REQUESTS, ids=lambda r: ",".join(r))
def test_printed_command_reproduces_the_request(space, request_options, metric, tmp_path,
                                                 monkeypatch, capsys):
    from rouge_exact.cli import main as rouge_cli
    from rouge_exact.options import RougeOptions

    if request_options.get("lang") == "zh":
        needed("jieba")
    kwargs = {"rouge_types": ["rouge1", "rougeL"], **request_options}
    # the checked options as the Space builds them: the package's own (no copy of them)
    assert space.RougeOptions is RougeOptions
    opts = RougeOptions.build(**kwargs, use_aggregator=True, detailed=True)
    flags = shlex.split(space.cli_flags(opts))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"prediction": p, "references": r}) + "\n"
                            for p, r in zip(PREDICTIONS, REFERENCES)), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert rouge_cli.main(["--jsonl", str(rows), "--json", *flags]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = metric.compute(predictions=PREDICTIONS, references=REFERENCES, detailed=True,
                              **kwargs)
    assert printed["signature"] == expected["signature"]
    for name in opts.as_kwargs()["rouge_types"]:
        assert printed[name] == expected[name], name
