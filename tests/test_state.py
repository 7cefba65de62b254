"""The mergeable state (issue 16): rouge.partial() on any partitioning of the rows, merged in
any order and tree shape, through bytes or pickle, finalizes to exactly compute() on all the
rows, whose per-example numbers are rouge_score's (checked here too, with Fractions)."""
import hashlib
import pickle
import random
import warnings
import zlib
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st
from conftest import needed  # (an optional test package: a skip with its reason outside CI)
rouge_scorer = needed("rouge_score.rouge_scorer")

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
    pipeline = staged("scorer.pipeline")
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


# -- issue 27: an empty partition's state, and row keys that cannot collide ------------------


@pytest.mark.parametrize("detailed", [False, True])
def test_an_empty_state_is_the_identity_of_merge(metric, realsumm, detailed):
    rows = [(r["prediction"], r["references"]) for r in realsumm[:40]]
    state = state_of(metric, rows, detailed=detailed)
    empty = metric.partial(predictions=[], references=[], detailed=detailed)
    expected = metric.compute(predictions=[p for p, _ in rows],
                              references=[r for _, r in rows], detailed=detailed)
    assert metric.finalize(state) == expected
    through_bytes = metric.state_from_bytes(empty.to_bytes())
    for merged in (empty.merge(state), state.merge(empty), through_bytes.merge(state),
                   pickle.loads(pickle.dumps(empty)).merge(empty).merge(state)):
        assert metric.finalize(merged) == expected


def test_only_empty_states_finalize_to_a_clear_error(metric):
    empty = metric.partial(predictions=[], references=[])
    for state in (empty, empty.merge(metric.partial(predictions=[], references=[]))):
        with pytest.raises(ValueError, match="state: holds no examples.*at least one example"):
            metric.finalize(state)
    with pytest.raises(ValueError, match="at least one example"):  # as compute() says
        metric.compute(predictions=[], references=[])
    with pytest.raises(TypeError, match="predictions: got None"):  # still checked when empty
        metric.partial(predictions=None, references=[])


def old_key(prediction, references):
    """The key as it was before issue 27 (NUL-joined texts): a plain reimplementation, which
    ordinary rows must still get (their bootstrap weights, hence intervals, come from it)."""
    refs = [references] if isinstance(references, str) else references
    data = "\0".join([prediction, *refs]).encode("utf-8")
    return zlib.crc32(data) << 32 | zlib.adler32(data)


def test_keys_of_rows_without_nul_are_unchanged(realsumm):
    pipeline = staged("scorer.pipeline")
    rows = [(r["prediction"], r["references"]) for r in realsumm[:500]]
    rows += [("x", "a b"), ("", [""]), ("é", ["", "ü"])]
    keys = pipeline._row_keys([p for p, _ in rows], [r for _, r in rows])
    assert keys.tolist() == [old_key(p, r) for p, r in rows]


@pytest.mark.parametrize("a, b", [(("a\0b", "c"), ("a", "b\0c")),
                                  (("x", ["a", "b"]), ("x", "a\0b")),
                                  (("x", ["a", "b"]), ("x", ["a\0b"])),
                                  (("a\0", ["b"]), ("a", ["\0b"]))])
def test_rows_that_joined_alike_merge_with_intervals(metric, a, b):
    sa = metric.partial(predictions=[a[0]], references=[a[1]], detailed=True)
    sb = metric.partial(predictions=[b[0]], references=[b[1]], detailed=True)
    refs = [r if isinstance(r, list) else [r] for r in (a[1], b[1])]  # str is [str]
    assert metric.finalize(sa.merge(sb)) == metric.compute(
        predictions=[a[0], b[0]], references=refs, detailed=True)


TEXT = st.text(alphabet="ab\0\xff", max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, st.lists(TEXT, min_size=1, max_size=3)), min_size=2,
                max_size=6, unique_by=lambda row: (row[0], tuple(row[1]))))
def test_distinct_rows_get_distinct_keys(rows):
    keys = staged("scorer.pipeline")._row_keys([p for p, _ in rows], [r for _, r in rows])
    assert len(set(keys.tolist())) == len(rows)


def test_merged_warnings_do_not_depend_on_the_merge_order(metric):
    # the script hint of tokenless texts: either order names Arabic ("ARABIC" < "CJK", the
    # least script name), as a commutative merge must
    import warnings
    zh = metric.partial(predictions=["北京"], references=["a"], rouge_types=["rouge1"])
    ar = metric.partial(predictions=["مرحبا"], references=["a"], rouge_types=["rouge1"])
    said = []
    for state in (zh.merge(ar), ar.merge(zh)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            metric.finalize(state)
        said.append([str(w.message) for w in caught])
    assert said[0] == said[1]
    assert 'for texts in Arabic script pass lang="ar"' in said[0][0]


def test_the_scorer_refuses_an_example_without_references_and_takes_no_rows():
    # compute() checks its inputs first; the engines' partitions reach the Scorer directly, so
    # the Scorer refuses an empty reference list itself (it used to pair the rows up wrongly:
    # rouge1 1.0 for a row with no reference), and a partition of no rows adds nothing
    pipeline = staged("scorer.pipeline")
    for detailed in (False, True):
        options = pipeline.RougeOptions.build(rouge_types=["rouge1"], detailed=detailed,
                                              n_samples=20)
        scorer = pipeline.Scorer(options)
        with pytest.raises(ValueError, match=r"references\[1\]: got an empty list; allowed: "
                                             "at least one reference"):
            scorer.add(["a b", "x y"], [["a b", "a b"], []])
        batch = scorer.add([], [])
        assert batch.score_array.shape == (0, 1, 3) and batch.scores["rouge1"].shape == (0, 3)
        assert scorer.aggregate.count == 0
        scorer.add(["a b"], [["a b", "c"]])
        assert scorer.aggregate.count == 1
        result = scorer.result()["rouge1"]
        assert (result["fmeasure"]["mid"] if detailed else result) == 1.0
