"""The mergeable state (issue 16): rouge.partial() on any partitioning of the rows, merged in
any order and tree shape, through bytes or pickle, finalizes to exactly compute() on all the
rows, whose per-example numbers are rouge_score's (checked here too, with Fractions)."""
import hashlib
import pickle
import random
import warnings
from fractions import Fraction

import pytest
from rouge_score import rouge_scorer

from conftest import staged

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeSU4"]


def rows_with_copies(realsumm, n=120, seed=3):
    """n realsumm rows plus exact copies of some of them (copies must land in one state)."""
    rng = random.Random(seed)
    rows = realsumm[:n]
    rows = rows + [rows[rng.randrange(n)] for _ in range(n // 4)]
    rng.shuffle(rows)
    return [(r["prediction"], r["references"]) for r in rows]


def partition(rows, parts, seed):
    """Rows split into `parts` groups by a hash of their texts (as the engines do), each
    group in a random order."""
    groups = [[] for _ in range(parts)]
    for row in rows:
        key = hashlib.sha256(repr(row).encode("utf-8")).digest()
        groups[int.from_bytes(key[:8], "little") % parts].append(row)
    rng = random.Random(seed)
    for group in groups:
        rng.shuffle(group)
    return groups


def state_of(metric, group, **options):
    return metric.partial(predictions=[p for p, _ in group],
                          references=[r for _, r in group], **options)


def merge_randomly(states, seed):
    """A random merge tree: pick two states, merge (sometimes through bytes or pickle)."""
    rng = random.Random(seed)
    states = list(states)
    while len(states) > 1:
        a = states.pop(rng.randrange(len(states)))
        b = states.pop(rng.randrange(len(states)))
        way = rng.randrange(3)
        if way == 1:
            a = type(a).from_bytes(a.to_bytes())
        elif way == 2:
            b = pickle.loads(pickle.dumps(b))
        states.append(a.merge(b))
    return states[0]


@pytest.mark.parametrize("parts", [1, 3, 17])
@pytest.mark.parametrize("aggregation", ["macro", "micro"])
def test_partitions_finalize_to_compute(metric, realsumm, parts, aggregation):
    rows = rows_with_copies(realsumm)
    options = dict(rouge_types=TYPES, use_stemmer=True, detailed=True, seed=7,
                   n_samples=400, aggregation=aggregation)
    expected = metric.compute(predictions=[p for p, _ in rows],
                              references=[r for _, r in rows], **options)
    states = [state_of(metric, g, **options) for g in partition(rows, parts, seed=parts)]
    for tree in range(2):
        merged = merge_randomly(states, seed=tree)
        assert metric.finalize(merged) == expected
    assert metric.finalize(merged)["count"] == len(rows)


def test_mid_is_the_exact_mean_of_rouge_score(metric, realsumm):
    rows = rows_with_copies(realsumm, n=60)
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    states = [state_of(metric, g, rouge_types=["rouge1", "rougeL"], use_stemmer=True)
              for g in partition(rows, 5, seed=1)]
    result = metric.finalize(merge_randomly(states, seed=4))
    for name in ("rouge1", "rougeL"):
        # the default reports F; one reference per realsumm row
        exact = sum(Fraction(scorer.score_multi(r, p)[name].fmeasure) for p, r in rows)
        assert result[name] == float(exact / len(rows))


def test_merge_is_commutative_and_leaves_operands_alone(metric, realsumm):
    rows = rows_with_copies(realsumm, n=40)
    a, b = (state_of(metric, g, rouge_types=["rouge1"]) for g in partition(rows, 2, seed=0))
    before = a.to_bytes(), b.to_bytes()
    assert metric.finalize(a.merge(b)) == metric.finalize(b.merge(a))
    assert (a.to_bytes(), b.to_bytes()) == before


def test_bytes_round_trip(metric, realsumm):
    rows = rows_with_copies(realsumm, n=30)
    state = state_of(metric, rows, rouge_types=TYPES)
    data = state.to_bytes()
    again = metric.state_from_bytes(data)
    assert again.to_bytes() == data
    assert pickle.loads(pickle.dumps(state)).to_bytes() == data
    assert len(data) < 200_000  # small: sums and 1000 bootstrap samples, not the rows


def test_states_sharing_an_example_are_refused_with_intervals(metric):
    # a copy's bootstrap weights depend on how many copies came before it
    a = metric.partial(predictions=["a b c"], references=["a b"], detailed=True)
    b = metric.partial(predictions=["a b c", "x"], references=["a b", "x y"], detailed=True)
    with pytest.raises(ValueError, match="both states"):
        a.merge(b)
    # without intervals the state is sums only, and copies may be anywhere
    a = metric.partial(predictions=["a b c"], references=["a b"])
    b = metric.partial(predictions=["a b c", "x"], references=["a b", "x y"])
    assert metric.finalize(a.merge(b)) == metric.compute(
        predictions=["a b c", "a b c", "x"], references=["a b", "a b", "x y"])


def test_different_options_are_refused(metric):
    a = metric.partial(predictions=["a b c"], references=["a b"], rouge_types=["rouge1"])
    b = metric.partial(predictions=["x"], references=["x y"], rouge_types=["rouge2"])
    with pytest.raises(ValueError, match="different options"):
        a.merge(b)
    c = metric.partial(predictions=["x"], references=["x y"], rouge_types=["rouge1"], seed=1)
    with pytest.raises(ValueError, match="different options"):
        a.merge(c)
    with pytest.raises(TypeError, match="other"):
        a.merge({"count": 1})
    with pytest.raises(TypeError, match="state"):
        metric.finalize(b"not a state")


@pytest.mark.parametrize("options, match", [
    (dict(use_aggregator=False), "use_aggregator"),
    (dict(profile="rouge155"), "profile"),
])
def test_unmergeable_options_are_refused(metric, options, match):
    with pytest.raises(ValueError, match=match):
        metric.partial(predictions=["a"], references=["a"], **options)


def test_corrupted_or_foreign_bytes_are_refused(metric):
    data = metric.partial(predictions=["a b c", "d"], references=["a b", "d e"]).to_bytes()
    rng = random.Random(0)
    for _ in range(200):  # a flipped bit anywhere
        at = rng.randrange(len(data))
        bad = bytearray(data)
        bad[at] ^= 1 << rng.randrange(8)
        with pytest.raises(ValueError, match="data"):
            metric.state_from_bytes(bytes(bad))
    for bad in (b"", data[:10], data[:-1], data + b"\0", b"x" * 100):
        with pytest.raises(ValueError, match="data"):
            metric.state_from_bytes(bad)
    with pytest.raises(TypeError, match="data"):
        metric.state_from_bytes("a string")


def test_another_version_is_refused(metric):
    pipeline = staged("rouge_pipeline")
    data = metric.partial(predictions=["a"], references=["a"]).to_bytes()
    body = data[:-32].replace(f'"version": "{pipeline.__version__}"'.encode(),
                              b'"version": "0.0.1"')
    forged = body + hashlib.sha256(body).digest()
    with pytest.raises(ValueError, match="0.0.1"):
        metric.state_from_bytes(forged)


def test_finalize_warns_as_compute_does(metric):
    predictions, references = ["Привет мир", "a b"], ["Привет", "a"]
    with warnings.catch_warnings(record=True) as direct:
        warnings.simplefilter("always")
        expected = metric.compute(predictions=predictions, references=references)
    a = metric.partial(predictions=predictions[:1], references=references[:1])
    b = metric.partial(predictions=predictions[1:], references=references[1:])
    with warnings.catch_warnings(record=True) as merged:
        warnings.simplefilter("always")
        assert metric.finalize(a.merge(b)) == expected
    assert [str(w.message) for w in merged] == [str(w.message) for w in direct]
    assert direct  # Cyrillic under the default tokenizer: no tokens, and a warning says so
