"""Inputs mean one thing: both spellings of add()'s arguments at once are refused, a 2-D numpy
array of references is rows of references, and a compute() that fails after add_batch says
what became of the added rows."""
import numpy as np
import pytest


def test_add_refuses_both_spellings_at_once(evaluate_metric):
    # it scored 'a' and dropped 'b' without a word
    with pytest.raises(ValueError, match=r"^prediction= and predictions=: got both"):
        evaluate_metric.add(prediction="a", predictions="b", reference="a")
    with pytest.raises(ValueError, match=r"^reference= and references=: got both"):
        evaluate_metric.add(prediction="a", reference="a", references="b")
    evaluate_metric.add(predictions="a b", references="a c")  # evaluate.combine's spelling
    assert evaluate_metric.compute(rouge_types=["rouge1"]) == {"rouge1": 0.5}  # 1 of 2 each way


def test_a_2d_array_of_references_is_rows(metric, evaluate_metric):
    # it was refused by a message that listed "numpy array" as allowed
    references = np.array([["a b", "x"], ["c", "d"]])
    # row 0: "a b" against "a b" is 1.0; row 1: "c d" against "c" (P 1/2, R 1: F 2/3) or "d"
    # (the same): the best, 2/3
    want = {"rouge1": [1.0, 2 / 3]}
    got = metric.compute(["a b", "c d"], references, rouge_types=["rouge1"], use_aggregator=False)
    assert got == want
    assert evaluate_metric.compute(predictions=["a b", "c d"], references=references,
                                   rouge_types=["rouge1"], use_aggregator=False) == want
    with pytest.raises(TypeError, match=r"^predictions: got ndarray of 2 dimensions; allowed: "
                                        r"a list, tuple, 1-D numpy array or pandas Series$"):
        metric.compute(np.array([["a"]]), ["a"])
    with pytest.raises(TypeError, match=r"^references: got ndarray of 3 dimensions; allowed: .*"
                                        r"1-D or 2-D numpy array"):
        metric.compute(["a"], np.array([[["a"]]]))


def test_a_failed_compute_after_add_batch_says_the_rows_are_gone(load_fresh_metric):
    metric = load_fresh_metric()

    def tokenizer(text):
        raise RuntimeError("this tokenizer fails")

    metric.add_batch(predictions=["a b"], references=["a c"])
    with pytest.raises(ValueError, match="tokenizer") as raised:
        metric.compute(tokenizer=tokenizer)
    assert any("consumed by this compute() and are gone" in note
               for note in getattr(raised.value, "__notes__", []))
    # as the note says: nothing is left to score
    with pytest.raises(ValueError, match="nothing to score"):
        metric.compute()
    # an invalid option is refused before evaluate reads anything: the rows stay
    metric.add_batch(predictions=["a b"], references=["a c"])
    with pytest.raises(ValueError, match="^alpha"):
        metric.compute(alpha=2)
    assert metric.compute(rouge_types=["rouge1"]) == {"rouge1": 0.5}


@pytest.fixture
def load_fresh_metric():
    from conftest import compiled_kernels, load_metric

    compiled_kernels()
    return load_metric


@pytest.mark.parametrize("name", ["alpha", "confidence", "n_samples", "seed"])
def test_a_huge_integer_option_is_a_value_error(metric, name):
    # alpha=10**400 raised OverflowError (int -> float) instead of naming the option
    with pytest.raises(ValueError, match=rf"^{name}: got 1000000000"):
        metric.compute(["a"], ["a"], **{name: 10 ** 400})
