"""evaluate's conventions (issue 11 items 5, 8, 10): the options schema, the input types evaluate
accepts, both spellings of add, threads. References are rouge_score itself and evaluate's own
combine()."""
import inspect
import os
import subprocess
import sys
import threading
import warnings

import evaluate
import numpy as np
from conftest import needed  # (an optional test package: a skip with its reason outside CI)
pd = needed("pandas")
import pytest
rouge_scorer = needed("rouge_score.rouge_scorer")

from conftest import REPO, load_metric, staged

TYPES = ["rouge1", "rouge2", "rougeL"]
ROWS = [
    ("the cat sat on the mat", ["the cat lay on the mat", "a cat on a mat"]),
    ("hello there general kenobi", ["hello there", "general kenobi says hello"]),
    ("nothing in common", ["entirely different words"]),
]


def rouge_score_f(prediction, references, rouge_type):
    """rouge_score's max over the references (what evaluate's rouge computes per example)."""
    scorer = rouge_scorer.RougeScorer([rouge_type])
    return scorer.score_multi(references, prediction)[rouge_type].fmeasure


def expected_means():
    return {t: sum(rouge_score_f(p, refs, t) for p, refs in ROWS) / len(ROWS) for t in TYPES}


def test_compute_parameters_are_the_options_schema(metric_module):
    schema = staged("options").RougeOptions
    params = inspect.signature(type(load_metric())._compute).parameters
    names = [n for n in params if n not in ("self", "predictions", "references")]
    assert tuple(names) == schema.names()
    assert {n: params[n].default for n in names} == schema.defaults()


def test_evaluate_combine_add_works(metric):
    # evaluate.combine calls add(predictions=..., references=...) with one example each
    combined = evaluate.combine([load_metric()])
    for prediction, references in ROWS:
        combined.add(prediction=prediction, reference=references)
    out = combined.compute(rouge_types=TYPES)
    for t, value in expected_means().items():
        assert out[t] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("wrap_rows, wrap_refs", [
    (tuple, tuple),
    (np.array, lambda refs: np.array(refs, dtype=object)),
    (lambda xs: pd.Series(xs, index=range(7, 7 + len(xs))), tuple),
])
def test_array_like_inputs(wrap_rows, wrap_refs):
    metric = load_metric()
    predictions = wrap_rows([p for p, _ in ROWS])
    references = wrap_rows([wrap_refs(refs) for _, refs in ROWS]) if wrap_rows is not np.array \
        else [np.array(refs) for _, refs in ROWS]
    expected = expected_means()
    out = metric.compute(predictions=predictions, references=references, rouge_types=TYPES)
    assert out == pytest.approx(expected, abs=1e-12)
    metric.add_batch(predictions=predictions, references=references)  # any index, any type
    assert metric.compute(rouge_types=TYPES) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("bad", [{"a": "b"}, {"a b"}, "a string", 3])
def test_dicts_sets_and_scalars_are_refused(metric, bad):
    with pytest.raises(TypeError, match="^predictions: got (dict|set|str|int)"):
        metric.compute(predictions=bad, references=["a"])
    with pytest.raises(TypeError, match="^references"):
        metric.compute(predictions=["a"], references=bad if not isinstance(bad, str) else 3)


def test_lone_surrogates_are_refused_the_same_way_everywhere():
    metric = load_metric()
    text = "caf\udce9"
    for call in (lambda: metric.compute(predictions=[text], references=["a"]),
                 lambda: metric.add_batch(predictions=[text], references=["a"]),
                 lambda: metric.add(prediction=text, reference="a")):
        with pytest.raises(ValueError, match=r"^predictions\[0\]: holds '\\udce9', a lone surrogate"):
            call()
    with pytest.raises(ValueError, match=r"^references\[0\]\[1\]: holds"):
        metric.compute(predictions=["a"], references=[["a", text]])


@pytest.mark.parametrize("options", [
    {},  # the byte tokenizers find it as they encode, chunk by chunk
    {"profile": "rouge155"},
    {"tokenizer": "unicode"},  # the scorer looks at each chunk's texts before tokenizing
    {"split_sentences": True},
    {"length_limit_words": 5},
])
@pytest.mark.parametrize("bad_row", [3, 1234])
def test_a_lone_surrogate_is_named_by_its_row_in_any_chunk(monkeypatch, options, bad_row):
    # 2,000 rows are scored in chunks of at most 500 (on 2+ threads, and here on any machine):
    # the error names the row in the whole input, whichever chunk holds it, and the metric
    # keeps nothing of the call
    metric = load_metric()
    pipeline = staged("scorer.pipeline")  # evaluate's staged copy, which it runs
    monkeypatch.setattr(pipeline, "_CHUNK_EXAMPLES", 500)
    text = "caf\udce9 au lait"
    predictions = [f"the cat {i} sat" for i in range(2000)]
    references = [f"a cat {i} sat on the mat" for i in range(2000)]
    single = ["is it ", "x"]
    cases = [
        (predictions[:bad_row] + [text] + predictions[bad_row + 1:], references,
         rf"^predictions\[{bad_row}\]: holds '\\udce9', a lone surrogate"),
        (predictions, references[:bad_row] + [text] + references[bad_row + 1:],
         rf"^references\[{bad_row}\]: holds '\\udce9', a lone surrogate"),
        (predictions, [single] * bad_row + [["fine", text]] + [single] * (1999 - bad_row),
         rf"^references\[{bad_row}\]\[1\]: holds '\\udce9', a lone surrogate"),
    ]
    for preds, refs, message in cases:
        with pytest.raises(ValueError, match=message):
            metric.compute(predictions=preds, references=refs, rouge_types=["rouge1"],
                           **options)
        if not options:
            with pytest.raises(ValueError, match=message):
                metric.partial(predictions=preds, references=refs, rouge_types=["rouge1"])
            # the shared references are met first with system a, a prediction with b's
            system = "b" if message.startswith("^predictions") else "a"
            with pytest.raises(ValueError, match=rf"^predictions\['{system}'\]: " + message[1:]):
                metric.compare(predictions={"a": predictions, "b": preds}, references=refs,
                               rouge_types=["rouge1"], n_samples=10)
    # nothing was stored or kept: the next compute() scores exactly its own rows
    out, fresh = (m.compute(predictions=predictions[:2], references=references[:2],
                            rouge_types=["rouge1"], **options) for m in (metric, load_metric()))
    assert out == fresh
    if not options:
        assert out["rouge1"] == pytest.approx(np.mean([
            rouge_score_f(p, [r], "rouge1") for p, r in zip(predictions[:2], references[:2])]))


@pytest.mark.parametrize("options", [{}, {"tokenizer": "whitespace"}])
def test_the_first_lone_surrogate_is_named_whatever_the_chunks(monkeypatch, options):
    # as check_inputs looks (the predictions, then the references): predictions[1999] is
    # named, not references[0], though the chunk of references[0] is scored first
    predictions = [f"the cat {i} sat" for i in range(1999)] + ["caf\udce9"]
    references = ["caf\udc80"] + [f"a cat {i} sat" for i in range(1999)]
    metric = load_metric()
    pipeline = staged("scorer.pipeline")  # evaluate's staged copy, which it runs
    for cap in (100, 500, 50_000):
        monkeypatch.setattr(pipeline, "_CHUNK_EXAMPLES", cap)
        with pytest.raises(ValueError, match=r"^predictions\[1999\]: holds '\\udce9'"):
            metric.compute(predictions=predictions, references=references,
                           rouge_types=["rouge1"], **options)
    with pytest.raises(ValueError, match=r"^predictions\[1999\]: holds '\\udce9'"):
        metric.add_batch(predictions=predictions, references=references)


def test_the_lone_surrogate_error_pickles():
    # a process pool (or Ray) sends a worker's error back pickled: it arrives as it was
    import pickle
    metric = load_metric()
    with pytest.raises(ValueError) as raised:
        metric.compute(predictions=["caf\udce9"], references=["a"])
    back = pickle.loads(pickle.dumps(raised.value))
    assert type(back) is type(raised.value) and str(back) == str(raised.value)
    assert str(back).startswith("predictions[0]: holds '\\udce9', a lone surrogate")


def test_a_lone_surrogate_is_refused_before_evaluate_stores_it():
    # compute(predictions=...) after add_batch goes through evaluate's storage: checked first
    metric = load_metric()
    metric.add_batch(predictions=["a b"], references=["a c"])
    with pytest.raises(ValueError, match=r"^predictions\[0\]: holds '\\udce9'"):
        metric.compute(predictions=["caf\udce9"], references=["a"], rouge_types=["rouge1"])


def test_concurrent_add_batch_loses_no_row(realsumm):
    metric = load_metric()
    rows = realsumm[:800]
    shards = [rows[k::4] for k in range(4)]

    def worker(shard):
        for start in range(0, len(shard), 25):
            batch = shard[start:start + 25]
            metric.add_batch(predictions=[r["prediction"] for r in batch],
                             references=[r["references"] for r in batch])

    threads = [threading.Thread(target=worker, args=(shard,)) for shard in shards]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = metric.compute(rouge_types=["rouge1"], detailed=True)
        whole = load_metric().compute(predictions=[r["prediction"] for r in rows],
                                      references=[r["references"] for r in rows],
                                      rouge_types=["rouge1"], detailed=True)
    assert out["count"] == 800
    assert out == whole


@pytest.mark.parametrize("prefix, env, expected", [
    (["taskset", "-c", "0"], {}, 1),
    ([], {"OMP_NUM_THREADS": "1"}, 1),
    ([], {"NUMBA_NUM_THREADS": "1"}, 1),
    (["taskset", "-c", "0,1"], {}, min(2, len(os.sched_getaffinity(0)))),
])
@pytest.mark.slow
def test_thread_count_honours_affinity_and_env(prefix, env, expected):
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS",
                                                              "NUMBA_NUM_THREADS")}
    out = subprocess.run(prefix + [sys.executable, "-c",
                                   "import sys; sys.path.insert(0, 'tests'); from conftest import staged; "
                                   "print(staged('kernels.backend').THREADS)"],
                         cwd=REPO, env={**clean, **env}, capture_output=True, text=True,
                         check=True)
    assert int(out.stdout) == expected


def test_tokens_of_is_what_scoring_compares(metric_module):
    # the profile's tokens(), the one source of truth, against rouge_score's tokenizer
    from rouge_score import tokenize
    from nltk.stem import porter

    text = "The cats were running, quickly! Über-fast 42nd"
    stemmer = porter.PorterStemmer()
    assert staged("scorer.display").tokens_of(text, use_stemmer=True) == [tokenize.tokenize(text, stemmer)]
    assert staged("text.tokenizers").TOKENIZERS["default"].tokens(
        text, stemmer=None, stopwords=False) == [tokenize.tokenize(text, None)]
