"""Issue 38, rows 1, 3 and 8: states that cannot deadlock, cannot be confused and cannot lie.

* Row 1: ``a.merge(b)`` and ``b.merge(a)`` on two threads took the two locks in opposite
  orders and could wait on each other forever; every pair is now taken in one order.
* Row 3: the tokenizer of a state is a callable's name in the signature (``callable:<lambda>``),
  so states of two different lambdas merged; callables are now compared by identity.
* Row 8: a state file's SHA-256 is a checksum, not a key: an edited, re-hashed state was
  loaded as it came (negative sums gave rouge1 F = -0.318, 10**4000 an OverflowError, a header
  nested 100,000 deep a RecursionError). Every field is now checked at load.
* A header's options must agree with what the state holds: a profile swapped (rouge_score's
  state relabelled coco loaded, and signed its numbers as coco's), the rouge types, detailed,
  n_samples and the aggregation against the sums and arrays, the notes against the options.
  What no check can tell (pltrdy for rouge_chinese, a seed) only a keyed state (HMAC-SHA256,
  ``to_bytes(key=...)``) refuses.

Every expected number here is worked out by hand in a comment.
"""
import hashlib
import hmac
import json
import math
import os
import random
import struct
import subprocess
import sys
import textwrap
import threading
import warnings
from fractions import Fraction

import numpy as np
import pytest

from conftest import edited, join_state, needed, split_state, staged

UNIT = 2 ** 1130  # the exact sums' unit is 2^-1130 (arithmetic.EXACT_UNIT)


# -- row 1: no deadlock --------------------------------------------------------------------

def test_crossed_merges_on_two_threads_finish(metric):
    """Many rounds of a.merge(b) on one thread against b.merge(a) on another, started
    together, with the interpreter switching threads as often as it can. The old merge
    (``with self._lock, other._lock``) hung within a few rounds."""
    rng = random.Random(38)
    # a: "a b" against "a b": F = 1; b: "a b" against "a c": P = R = F = 1/2; the mean 3/4
    a = metric.partial(predictions=["a b"], references=["a b"], rouge_types=["rouge1"])
    b = metric.partial(predictions=["a b"], references=["a c"], rouge_types=["rouge1"])
    results, errors = [], []

    def crossed(x, y, start, rounds):
        try:
            start.wait()
            for _ in range(rounds):
                results.append(metric.finalize(x.merge(y))["rouge1"])
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(100):
            start = threading.Barrier(2)
            rounds = rng.randrange(20, 60)
            pair = [(a, b), (b, a)]
            rng.shuffle(pair)  # which thread starts which merge
            threads = [threading.Thread(target=crossed, args=(x, y, start, rounds), daemon=True)
                       for x, y in pair]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=5)  # a round takes milliseconds
            assert not any(t.is_alive() for t in threads), "a.merge(b) / b.merge(a) hung"
    finally:
        sys.setswitchinterval(switch)
    assert not errors
    assert results and set(results) == {0.75}


def test_a_state_merged_with_itself(metric):
    """a.merge(a) takes a's one lock once: its sums twice (without intervals); with them, the
    examples are in both operands, which is refused as for any two states that share one."""
    a = metric.partial(predictions=["a b c"], references=["a b"], rouge_types=["rouge1"])
    # P = 2/3, R = 1, F = 2 * (2/3) / (5/3) = 4/5, twice: the mean of two copies is 4/5
    doubled = a.merge(a)
    assert metric.finalize(doubled) == {"rouge1": 0.8}
    assert doubled.aggregate.count == 2
    detailed = metric.partial(predictions=["a b c"], references=["a b"], detailed=True,
                              rouge_types=["rouge1"], n_samples=10)
    with pytest.raises(ValueError, match="scored in both states"):
        detailed.merge(detailed)
    empty = metric.partial(predictions=[], references=[], detailed=True)
    assert empty.merge(empty).aggregate.count == 0


_FORK_WHILE_MERGING = textwrap.dedent("""
    import os, sys, threading
    import rouge_exact
    a = rouge_exact.partial(predictions=["a b"], references=["a b"], rouge_types=["rouge1"])
    b = rouge_exact.partial(predictions=["a b"], references=["a c"], rouge_types=["rouge1"])
    held, release = threading.Event(), threading.Event()

    def merging():  # holds both locks, as a merge on another thread does at the fork
        with a._lock, b._lock:
            held.set()
            release.wait()

    thread = threading.Thread(target=merging)
    thread.start()
    held.wait()
    pid = os.fork()
    if pid == 0:
        print(rouge_exact.finalize(b.merge(a))["rouge1"], flush=True)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    release.set()
    thread.join()
    print(status, flush=True)
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_child_forked_during_a_merge_can_merge(metric):
    """The parent's merging thread held both locks at the fork: the child's locks are fresh
    (ForkSafeLock), so its own merge finishes: (1 + 1/2) / 2 = 0.75."""
    done = subprocess.run([sys.executable, "-c", _FORK_WHILE_MERGING], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0.75", "0"]


# -- row 3: tokenizer callables are compared by identity -----------------------------------

def test_states_of_two_lambdas_are_refused(metric):
    first = lambda text: text.split()  # noqa: E731  (two lambdas: one name, <lambda>)
    second = lambda text: list(text)  # noqa: E731
    a = metric.partial(predictions=["a b"], references=["a b"], tokenizer=first)
    b = metric.partial(predictions=["a b"], references=["a c"], tokenizer=second)
    for x, y in ((a, b), (b, a)):
        with pytest.raises(ValueError, match=r"other: .*different tokenizers of one name, "
                                             r"callable:<lambda> \(<function .*<lambda>.* vs "
                                             r"<function .*<lambda>.*identity"):
            x.merge(y)
        with pytest.raises(ValueError, match="different tokenizers"):
            metric.merge(x, y)


def test_states_of_one_callable_merge(metric):
    def words(text):
        return text.split()

    class Tokenizer:
        def tokenize(self, text):
            return text.split()

    tok = Tokenizer()
    # "A b" against "A b": F = 1 (no lowercasing: the callable's tokens); "x y" against
    # "x z": P = R = F = 1/2; the mean 3/4
    for one, other in ((words, words), (tok.tokenize, tok.tokenize)):  # a new bound method
        a = metric.partial(predictions=["A b"], references=["A b"], tokenizer=one,
                           rouge_types=["rouge1"])
        b = metric.partial(predictions=["x y"], references=["x z"], tokenizer=other,
                           rouge_types=["rouge1"])
        assert metric.finalize(a.merge(b)) == {"rouge1": 0.75}
        assert metric.finalize(a.merge(a)) == {"rouge1": 1.0}  # no bytes round trip needed
    other_object = metric.partial(predictions=["x y"], references=["x z"],
                                  tokenizer=Tokenizer().tokenize, rouge_types=["rouge1"])
    with pytest.raises(ValueError, match="different tokenizers"):
        a.merge(other_object)


def test_a_callable_state_does_not_leave_its_process(metric):
    """Across processes nothing shows that two callables are one: a state of a callable is
    not written (to_bytes, pickle), and a state file cannot name one."""
    import pickle

    state = metric.partial(predictions=["a b"], references=["a b"], tokenizer=str.split)
    with pytest.raises(ValueError, match="tokenizer: callable:split cannot be serialized"):
        state.to_bytes()
    with pytest.raises(ValueError, match="callable:split"):
        pickle.dumps(state)
    data = metric.partial(predictions=["a b"], references=["a b"]).to_bytes()
    forged = edited(data, lambda h, _: h["options"].update(tokenizer="callable:<lambda>"))
    with pytest.raises(ValueError, match=r"data: corrupted state \(options: tokenizer: got "
                                         r"'callable:<lambda>'"):
        metric.state_from_bytes(forged)


def test_named_tokenizers_still_merge_across_bytes(metric):
    # "x y" against "x z" under whitespace tokens: F = 1/2; "a b" against itself: 1
    a = metric.partial(predictions=["x y"], references=["x z"], tokenizer="whitespace",
                       rouge_types=["rouge1"])
    b = metric.partial(predictions=["a b"], references=["a b"], tokenizer="whitespace",
                       rouge_types=["rouge1"])
    merged = metric.state_from_bytes(a.to_bytes()).merge(metric.state_from_bytes(b.to_bytes()))
    assert metric.finalize(merged) == {"rouge1": 0.75}


# -- row 8: a state checks its values at load ------------------------------------------------

@pytest.fixture(scope="module")
def one_row(metric):
    """"a b c" against "a b": P = 2/3, R = 1, F = 4/5 (rouge1), one example."""
    return metric.partial(predictions=["a b c"], references=["a b"],
                          rouge_types=["rouge1"]).to_bytes()


def test_an_untouched_state_loads(metric, one_row):
    assert metric.finalize(metric.state_from_bytes(one_row)) == {"rouge1": 0.8}


def test_negative_sums_are_refused(metric, one_row):
    def negative_f(header, _):
        header["exact"][2] = str(-int(header["exact"][2]))

    with pytest.raises(ValueError, match=r"exact\[2\], the rouge1 fmeasure sum: got -0\.8; "
                                         r"allowed: 0 to the count, 1"):
        metric.state_from_bytes(edited(one_row, negative_f))


@pytest.mark.parametrize("value, match", [
    (str(10 ** 4000), r"exact\[0\]: got '1000.*'; allowed: a decimal integer of at most 700 "
                      "digits"),
    (str(10 ** 500), r"exact\[0\], the rouge1 precision sum: got 6\.8\d+e\+159; allowed: 0 to "
                     "the count, 1"),  # 10^500 / 2^1130 = 10^(500 - 340.17) = 6.8e159
    (str(2 * UNIT), r"exact\[0\], the rouge1 precision sum: got 2; allowed: 0 to the count"),
    ("1_0", r"exact\[0\]: got '1_0'"),
    (" 1", r"exact\[0\]: got ' 1'"),
    (5, r"exact\[0\]: got 5"),
])
def test_sums_beyond_the_count_are_refused(metric, one_row, value, match):
    def set_precision(header, _):
        header["exact"][0] = value

    with pytest.raises(ValueError, match=match):
        metric.state_from_bytes(edited(one_row, set_precision))


def test_micro_hits_above_their_denominators_are_refused(metric):
    # micro sums (hit, den_p, den_r) of "a b c" against "a b": (2, 3, 2); a hit of 3 > den_r
    data = metric.partial(predictions=["a b c"], references=["a b"], rouge_types=["rouge1"],
                          aggregation="micro").to_bytes()
    header, _ = split_state(data)
    assert [int(v) for v in header["exact"]] == [2 * UNIT, 3 * UNIT, 2 * UNIT]

    def hit_of_three(header, _):
        header["exact"][0] = str(3 * UNIT)

    with pytest.raises(ValueError, match=r"exact\[0\], the rouge1 hit sum: got 3; allowed: 0 "
                                         r"to its den_p and den_r sums, 2"):
        metric.state_from_bytes(edited(data, hit_of_three))


def test_a_deeply_nested_header_is_refused(metric, one_row):
    header, arrays = split_state(one_row)
    nested = json.dumps(header).encode()[:-1] + b', "x": ' + b"[" * 100_000 + \
        b"]" * 100_000 + b"}"
    with pytest.raises(ValueError, match=r"data: corrupted state header \(nested 100001 deep; "
                                         r"allowed: at most 4\)"):
        metric.state_from_bytes(join_state(header, arrays, raw_header=nested))
    # brackets inside strings are text, not depth
    quoted = json.dumps(header).encode()[:-1] + b', "x": "' + b"[" * 10 + b'"}'
    with pytest.raises(ValueError, match=r"fields: got \[.*'x'\]"):
        metric.state_from_bytes(join_state(header, arrays, raw_header=quoted))


def test_a_header_larger_than_the_state_is_refused(metric, one_row):
    magic = staged("scorer.pipeline").STATE_MAGIC
    body = bytearray(one_row[:-32])
    body[len(magic):len(magic) + 4] = struct.pack("<I", 2 ** 32 - 1)
    body = bytes(body)
    with pytest.raises(ValueError, match=r"header \(its size: got 4294967295 bytes"):
        metric.state_from_bytes(body + hashlib.sha256(body).digest())


@pytest.mark.parametrize("name, value, match", [
    ("tokenless_letters", 99, r"notes\.tokenless_letters: got 99; allowed: an integer from 0 "
                              "to notes.texts = 2"),  # one prediction and one reference
    ("texts", 1, r"notes\.texts: got 1; allowed: an integer from 2 \* count = 2"),
    ("texts_with_newline", -1, r"notes\.texts_with_newline: got -1"),
    ("segmenter_fallbacks", 0.5, r"notes\.segmenter_fallbacks: got 0\.5"),
])
def test_notes_beyond_the_texts_are_refused(metric, one_row, name, value, match):
    def set_note(header, _):
        header["notes"][name] = value

    with pytest.raises(ValueError, match=match):
        metric.state_from_bytes(edited(one_row, set_note))


@pytest.fixture(scope="module")
def with_intervals(metric):
    """Two examples with 40 bootstrap samples (macro): each sample sums at most 1 per draw."""
    return metric.partial(predictions=["a b c", "x y"], references=["a b", "x z"],
                          rouge_types=["rouge1"], detailed=True, n_samples=40).to_bytes()


def test_bootstrap_samples_beyond_their_draws_are_refused(metric, with_intervals):
    def negative(header, arrays):
        arrays["sample_sums"][0, 0] = -1.0

    def too_many_draws(header, arrays):  # at most 16 draws of each of the 2 examples
        arrays["sample_weights"][0] = 33

    def above_one(header, arrays):  # the top limb of F in a sample that drew once: 2^57 > 1
        arrays["sample_weights"][0] = 1
        arrays["sample_sums"][0, :] = 0.0
        arrays["sample_sums"][0, 11] = 2.0 ** 19

    def drew_nothing(header, arrays):
        arrays["sample_weights"][0] = 0
        arrays["sample_sums"][0, :] = 0.0
        arrays["sample_sums"][0, 0] = 1.0

    for edit, match in ((negative, "sample_sums: allowed: finite non-negative integers"),
                        (too_many_draws, r"sample_weights: allowed: 0 to 16 \* count = 32"),
                        (above_one, "sample_sums: allowed: sums of at most 1 per draw"),
                        (drew_nothing, "0 in a sample of weight 0")):
        with pytest.raises(ValueError, match=match):
            metric.state_from_bytes(edited(with_intervals, edit))
    assert metric.finalize(metric.state_from_bytes(with_intervals))["count"] == 2


def test_arrays_the_options_do_not_have_are_refused(metric, one_row, with_intervals):
    _, arrays = split_state(with_intervals)
    header, _ = split_state(one_row)
    header["arrays"] = [["keys", "<u8", [len(arrays["keys"])]]]
    with pytest.raises(ValueError, match=r"arrays: got \['keys'\]; allowed: \[\]"):
        metric.state_from_bytes(join_state(header, {"keys": arrays["keys"]}))
    for entry, match in (([["keys", "O", [1]]], r"arrays\[0\]"),
                         ([[["keys"], "<u8", [1]]], r"arrays\[0\]"),
                         ([["keys", "<u8", [-1]]], r"arrays\[0\]"),
                         ([["keys", "<u8", [2 ** 62]]], "needs more bytes")):
        header["arrays"] = entry
        with pytest.raises(ValueError, match=match):
            metric.state_from_bytes(join_state(header, {}, blobs=b""))


def test_edited_headers_load_as_valid_states_or_are_refused(metric, with_intervals):
    """A seeded fuzz of the header: each field set to a value of another type or size. Each
    state is refused with a ValueError, or loads and finalizes to scores in [0, 1] (up to
    the 2^-20 that rounding may add)."""
    rng = random.Random(8)
    micro = metric.partial(predictions=["a b c", "x y"], references=["a b", "x z"],
                           rouge_types=["rouge2", "rougeW"], detailed=True, n_samples=8,
                           aggregation="micro").to_bytes()
    values = [0, -1, 1, 10 ** 400, 1.5, 1e308, "x", "-5", "", None, True, [], {}, [[1]],
              {"a": [1]}, "9" * 700]

    def leaves(x, path=()):
        yield path
        children = x.items() if isinstance(x, dict) else enumerate(x) \
            if isinstance(x, list) else ()
        for key, child in children:
            yield from leaves(child, path + (key,))

    for _ in range(400):
        data = rng.choice([with_intervals, micro])
        header, arrays = split_state(data)
        blobs = join_state(header, arrays)[-32 - sum(a.nbytes for a in arrays.values()):-32]
        path = rng.choice([p for p in leaves(header) if p])
        place = header
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = rng.choice(values)
        try:
            state = metric.state_from_bytes(join_state(header, arrays, blobs=blobs))
        except ValueError:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = metric.finalize(state)
            except ValueError as error:  # a count of 0
                assert "holds no examples" in str(error)
                continue
        scores = [v for name, entry in result.items() if name not in ("count", "signature")
                  for measure in entry.values() for v in measure.values()]
        assert all(0.0 <= v <= 1.0 + 2.0 ** -19 and not math.isnan(v) for v in scores), path


def test_states_of_many_options_load_as_written(metric):
    """The checks refuse no state that to_bytes wrote: random corpora under seeded random
    options (micro and macro, ROUGE-W near and far from 1, limits, intervals)."""
    rng = random.Random(3)
    words = "a b c d e the cat".split()

    def text():
        return "\n".join(" ".join(rng.choice(words) for _ in range(rng.randrange(12)))
                         for _ in range(rng.randrange(1, 4)))

    types = ["rouge1", "rouge2", "rougeL", "rougeLsum", "rougeW", "rougeW-1.0000001",
             "rougeW-5", "rougeS4", "rougeSU4"]
    for _ in range(12):
        options = dict(rouge_types=rng.sample(types, 3), multi_ref=rng.choice(["max", "average"]),
                       aggregation=rng.choice(["micro", "macro"]), detailed=rng.random() < 0.7,
                       alpha=rng.choice([0.5, 0.1, 0.9, 0.0, 1.0]), n_samples=50,
                       use_stemmer=rng.random() < 0.5)
        if rng.random() < 0.3:
            options["length_limit_bytes"] = rng.randrange(1, 40)
        n = rng.randrange(1, 60)
        state = metric.partial(predictions=[text() for _ in range(n)],
                               references=[[text() for _ in range(rng.randrange(1, 4))]
                                           for _ in range(n)], **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert metric.finalize(metric.state_from_bytes(state.to_bytes())) == \
                metric.finalize(state)


# -- the options against what the state holds -----------------------------------------------

@pytest.mark.parametrize("options, profile, match", [
    # rouge_score's tokenizer is written 'default'; coco's own tokenizer is written None
    ({}, "coco", r"options\.profile: got 'coco', under which to_bytes writes "
                 r"options\.tokenizer as None, not 'default'; allowed: rouge_score,"),
    (dict(profile="coco", rouge_types=["rougeL"]), "rouge_score",
     r"options\.profile: got 'rouge_score', under which to_bytes writes options\.tokenizer as "
     r"'default', not None; allowed: coco,"),
    # pltrdy's header (its tokenizer None, alpha 0.5, multi_ref max) is also coco's and
    # rouge_chinese's: the message names all three
    (dict(profile="pltrdy"), "rouge_score",
     r"options\.profile: got 'rouge_score', .*; allowed: coco, pltrdy, rouge_chinese,"),
])
def test_a_swapped_profile_is_refused(metric, options, profile, match):
    data = metric.partial(predictions=["a b c"], references=["a b"], **options).to_bytes()
    forged = edited(data, lambda h, _: h["options"].update(profile=profile))
    with pytest.raises(ValueError, match=match):
        metric.state_from_bytes(forged)


@pytest.mark.parametrize("alpha, name, value, match", [
    (0.5, "multi_ref", None, r"options\.multi_ref: got None; allowed: 'max', as to_bytes "
                             r"writes it under profile 'rouge_score'"),
    (0.5, "alpha", None, r"options\.alpha: got None; allowed: 0\.5"),  # the profile's alpha
    (0.5, "rouge_types", "rouge1", r"options\.rouge_types: got 'rouge1'; allowed: "
                                   r"\['rouge1'\]"),
    (1.0, "alpha", 1, r"options\.alpha: got 1; allowed: 1\.0"),  # JSON: an int, not a float
])
def test_options_not_as_written_are_refused(metric, alpha, name, value, match):
    """Options that build the same RougeOptions but are not what to_bytes writes."""
    data = metric.partial(predictions=["a b c"], references=["a b"], rouge_types=["rouge1"],
                          alpha=alpha).to_bytes()
    forged = edited(data, lambda h, _: h["options"].update({name: value}))
    with pytest.raises(ValueError, match=match):
        metric.state_from_bytes(forged)


def test_rouge_types_the_sums_do_not_hold_are_refused(metric, one_row):
    def two_types(header, _):  # one_row holds rouge1's 3 sums
        header["options"]["rouge_types"] = ["rouge1", "rouge2"]

    with pytest.raises(ValueError, match=r"options\.rouge_types: got 2 types, \['rouge1', "
                                         r"'rouge2'\], but exact holds 3 sums, 3 per type; "
                                         r"allowed: 1 type\)"):
        metric.state_from_bytes(edited(one_row, two_types))


def test_detailed_against_the_bootstrap_arrays(metric, one_row, with_intervals):
    def flip(header, _):
        header["options"]["detailed"] = not header["options"]["detailed"]

    arrays = r"the bootstrap's arrays \(sample_sums, sample_weights, keys, copies\)"
    with pytest.raises(ValueError, match=rf"options\.detailed: got False, but the state holds "
                                         rf"{arrays}, which detailed=True keeps; allowed: True"):
        metric.state_from_bytes(edited(with_intervals, flip))
    with pytest.raises(ValueError, match=rf"options\.detailed: got True, but the state has "
                                         rf"none of {arrays}.*; allowed: False"):
        metric.state_from_bytes(edited(one_row, flip))


def test_n_samples_against_the_samples(metric, with_intervals):
    with pytest.raises(ValueError, match=r"options\.n_samples: got 50, but sample_sums and "
                                         r"sample_weights hold 40 samples; allowed: 40"):
        metric.state_from_bytes(edited(with_intervals,
                                       lambda h, _: h["options"].update(n_samples=50)))


def test_the_aggregation_against_the_sums(metric, one_row, with_intervals):
    """Macro samples hold each of a type's 3 sums as 4 limbs of 19 bits (1 type: 12 columns),
    micro samples one count each (3 columns); without samples, micro sums are whole counts."""
    to_micro = lambda h, _: h["options"].update(aggregation="micro")  # noqa: E731
    with pytest.raises(ValueError, match=r"options\.aggregation: got 'micro', but sample_sums "
                                         r"has 12 columns, those of macro \(1 type x 3 sums "
                                         r"x 4 limbs\); allowed: 'macro'"):
        metric.state_from_bytes(edited(with_intervals, to_micro))
    micro = metric.partial(predictions=["a b c", "x y"], references=["a b", "x z"],
                           rouge_types=["rouge1"], detailed=True, n_samples=40,
                           aggregation="micro").to_bytes()
    with pytest.raises(ValueError, match=r"options\.aggregation: got 'macro', but sample_sums "
                                         r"has 3 columns, those of micro .*allowed: 'micro'"):
        metric.state_from_bytes(edited(micro, lambda h, _: h["options"].update(
            aggregation="macro")))
    # one_row's macro sums P = 2/3, R = 1, F = 4/5 pass as micro (hit 2/3 <= 1 and 4/5),
    # but a hit count of 2/3 is not a count
    with pytest.raises(ValueError, match=r"exact\[0\], the rouge1 hit sum: got a fractional "
                                         r"part, 0\.666667; allowed: a whole number"):
        metric.state_from_bytes(edited(one_row, to_micro))


def test_weighted_counts_relabelled_are_refused(metric):
    """Micro rougeW-1.2 of "a b c" against "a b": the hit is f(2) = 2^1.2 (one run of 2), the
    denominators f(3) = 3^1.2 and f(2): as rougeL's counts, 2^1.2 is not whole."""
    data = metric.partial(predictions=["a b c"], references=["a b"], rouge_types=["rougeW-1.2"],
                          aggregation="micro").to_bytes()
    header, _ = split_state(data)
    assert int(header["exact"][0]) / UNIT == pytest.approx(2 ** 1.2, rel=1e-15)
    frac = f"{2 ** 1.2 - 2:.6f}"  # 0.297397
    with pytest.raises(ValueError, match=rf"exact\[0\], the rougeL hit sum: got a fractional "
                                         rf"part, {frac}; allowed: a whole number"):
        metric.state_from_bytes(edited(data, lambda h, _: h["options"].update(
            rouge_types=["rougeL"])))
    # with rougeW beside rouge1 the samples may hold fractions, but not in rouge1's columns
    mixed = metric.partial(predictions=["a b c", "x y"], references=["a b", "x z"],
                           rouge_types=["rouge1", "rougeW"], detailed=True, n_samples=8,
                           aggregation="micro").to_bytes()

    def half_a_token(header, arrays):  # rouge1's den_p (column 1) of a sample that drew
        sample = int(np.flatnonzero(arrays["sample_weights"])[0])
        arrays["sample_sums"][sample, 1] += 0.5

    with pytest.raises(ValueError, match=r"sample_sums: got a fractional count; allowed: "
                                         r"whole numbers in the columns of every type but "
                                         r"rougeW"):
        metric.state_from_bytes(edited(mixed, half_a_token))


@pytest.mark.parametrize("name, match", [
    ("tokenless_w_references", "options.rouge_types has no rougeW"),
    ("segmenter_fallbacks", "only XL-Sum's language tokenizers"),
    ("multi_sentence_texts", "these options read no sentences from lines"),  # rouge1 only
])
def test_notes_the_options_cannot_count_are_refused(metric, one_row, name, match):
    with pytest.raises(ValueError, match=rf"notes\.{name}: got 1; allowed: 0, as {match}"):
        metric.state_from_bytes(edited(one_row, lambda h, _: h["notes"].update({name: 1})))


def test_notes_the_options_count_load(metric):
    """The same notes in states that counted them: a rougeW reference without tokens ("."),
    and texts of two sentences on one line read by rougeLsum (a note per batch: 1)."""
    w = metric.partial(predictions=["a b"], references=["."], rouge_types=["rougeW"])
    two = "The cat sat. The dog ran."
    lsum = metric.partial(predictions=[two], references=[two], rouge_types=["rougeLsum"])
    for state, name in ((w, "tokenless_w_references"), (lsum, "multi_sentence_texts")):
        data = state.to_bytes()
        assert split_state(data)[0]["notes"][name] == 1
        assert metric.state_from_bytes(data).notes == state.notes


def test_states_of_every_profile_load_as_written(metric):
    """Every profile with a state, with and without intervals, macro and micro, and a lang
    under rouge_score (its own tokenizer) and under pltrdy (jieba cuts before pltrdy's)."""
    preds, refs = ["the cat sat. on the mat", "a b c"], [["the cat sat on a mat."], ["a b d"]]
    cases = [dict(profile=p, detailed=d, aggregation=a, multi_ref="max")
             for p in ("rouge_score", "coco", "pltrdy", "rouge_chinese")
             for d in (False, True) for a in ("macro", "micro")]
    cases += [dict(profile="coco"), dict(lang="ru", use_stemmer=True, detailed=True)]
    # py_rouge's states hold its rows (its mean adds them in order), with and without keys
    cases += [dict(profile="py_rouge", detailed=d) for d in (False, True)]
    needed("jieba")
    cases += [dict(profile="pltrdy", lang="zh")]
    for options in cases:
        texts = (["猫坐在垫子上", "今天天气很好"], [["猫在垫子上"], ["天气很好"]]) \
            if options.get("lang") == "zh" else (preds, refs)
        state = metric.partial(predictions=texts[0], references=texts[1], n_samples=20,
                               **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert metric.finalize(metric.state_from_bytes(state.to_bytes())) == \
                metric.finalize(state), options


def test_a_consistent_forgery_loads_unless_signed(metric):
    """pltrdy's and rouge_chinese's headers and sums look alike (the same options written, the
    same arrays): a relabelled state loads and signs itself rouge_chinese's. Signed with a
    key, the same edit is refused."""
    state = metric.partial(predictions=["a b c"], references=["a b"], profile="pltrdy",
                           detailed=True, n_samples=40)
    relabel = lambda h, _: h["options"].update(profile="rouge_chinese")  # noqa: E731
    forged = metric.state_from_bytes(edited(state.to_bytes(), relabel))
    assert "|profile:rouge_chinese|" in metric.finalize(forged)["signature"]
    # (edited() re-hashes with SHA-256 under the unsigned magic: all an attacker can make)
    with pytest.raises(ValueError, match="key: got a key, but data is a state without a "
                                         "signature"):
        metric.state_from_bytes(edited(state.to_bytes(key=KEY), relabel), key=KEY)


# -- a keyed signature: to_bytes(key=...) / state_from_bytes(data, key=...) -----------------

KEY = bytes(range(32))
SIGNED_MAGIC = b"ROUGE-METRIC-KEYED\0"


def test_a_signed_state_is_an_hmac_of_the_same_body(metric, one_row):
    state = metric.state_from_bytes(one_row)
    signed = state.to_bytes(key=KEY)
    magic = staged("scorer.pipeline").STATE_MAGIC
    body = signed[:-32]
    assert body[:len(magic)] == SIGNED_MAGIC and len(SIGNED_MAGIC) == len(magic)
    assert body[len(magic):] == one_row[len(magic):-32]  # header and arrays as unsigned
    assert signed[-32:] == hmac.new(KEY, body, hashlib.sha256).digest()  # the stdlib's HMAC
    for key in (KEY, bytearray(KEY), memoryview(KEY)):
        assert metric.finalize(metric.state_from_bytes(signed, key=key)) == {"rouge1": 0.8}


def test_a_signed_state_needs_its_key_and_a_key_needs_a_signed_state(metric, one_row):
    signed = metric.state_from_bytes(one_row).to_bytes(key=KEY)
    with pytest.raises(ValueError, match=r"data: a state signed with a key \(to_bytes\(key="
                                         r"\.\.\.\)\), and key: got None; allowed: the key it "
                                         r"was signed with"):
        metric.state_from_bytes(signed)
    with pytest.raises(ValueError, match=r"data: signature mismatch \(signed with another key, "
                                         r"or edited since\)"):
        metric.state_from_bytes(signed, key=bytes(32))
    with pytest.raises(ValueError, match=r"key: got a key, but data is a state without a "
                                         r"signature"):
        metric.state_from_bytes(one_row, key=KEY)
    # the signature stripped (the unsigned magic, a SHA-256): refused where a key is given
    magic = staged("scorer.pipeline").STATE_MAGIC
    stripped = magic + signed[len(magic):-32]
    stripped += hashlib.sha256(stripped).digest()
    with pytest.raises(ValueError, match="key: got a key, but data is a state without"):
        metric.state_from_bytes(stripped, key=KEY)
    assert metric.finalize(metric.state_from_bytes(stripped)) == {"rouge1": 0.8}
    # an edit re-hashed with SHA-256 under the signed magic: the HMAC does not match
    header, arrays = split_state(signed)
    header["exact"][2] = str(UNIT)  # F sum 1 instead of 4/5
    body = join_state(header, arrays)[:-32]
    body = SIGNED_MAGIC + body[len(magic):]
    with pytest.raises(ValueError, match="data: signature mismatch"):
        metric.state_from_bytes(body + hashlib.sha256(body).digest(), key=KEY)


@pytest.mark.parametrize("key, error, match", [
    ("a long passphrase of text", TypeError, r"key: got str; allowed: None or bytes, at least "
                                             r"16 of them"),
    (b"short", ValueError, r"key: got 5 bytes; allowed: at least 16"),
    (bytes(15), ValueError, r"key: got 15 bytes"),
    (12345, TypeError, r"key: got int"),
])
def test_a_bad_key_is_refused(metric, one_row, key, error, match):
    state = metric.state_from_bytes(one_row)
    with pytest.raises(error, match=match):
        state.to_bytes(key=key)
    with pytest.raises(error, match=match):
        metric.state_from_bytes(state.to_bytes(key=KEY), key=key)


def test_signed_states_merge(metric):
    # "a b" against "a b": F = 1; "a b" against "a c": F = 1/2; the mean 3/4
    a = metric.partial(predictions=["a b"], references=["a b"], rouge_types=["rouge1"],
                       detailed=True, n_samples=40)
    b = metric.partial(predictions=["a b"], references=["a c"], rouge_types=["rouge1"],
                       detailed=True, n_samples=40)
    loaded = [metric.state_from_bytes(s.to_bytes(key=KEY), key=KEY) for s in (a, b)]
    assert metric.finalize(metric.merge(*loaded))["rouge1"]["fmeasure"]["mid"] == 0.75


# -- py_rouge's states: its rows, in order --------------------------------------------------

def _py_rouge_state(metric, detailed=True) -> bytes:
    # "a b c" against "a b c" and "": rouge2 P 1/2, R 2, F 4/5 (py-rouge's signed counts:
    # the empty reference counts 0 - 1 bigrams); "a b" against "a b": 1, 1, 1
    return metric.partial(predictions=["a b c", "a b"], references=[["a b c", ""], ["a b"]],
                          profile="py_rouge", rouge_types=["rouge2"], detailed=detailed,
                          n_samples=40).to_bytes()


def test_py_rouge_states_hold_their_rows(metric):
    """The rows (scores outside [0, 1] too) and, with intervals, a key per row; merged in
    order, identical rows in both states allowed."""
    data = _py_rouge_state(metric)
    header, arrays = split_state(data)
    assert sorted(arrays) == ["row_keys", "rows"] and arrays["rows"].tolist() == \
        [[0.5, 2.0, 0.8], [1.0, 1.0, 1.0]]
    # the exact sums: 1/2 + 1, 2 + 1, and the double nearest 0.8, plus 1
    assert [int(v) for v in header["exact"]] == [3 * UNIT // 2, 3 * UNIT,
                                                int((Fraction(0.8) + 1) * UNIT)]
    state = metric.state_from_bytes(data)
    twice = metric.finalize(state.merge(state))
    assert twice["rouge2"]["recall"]["mid"] == 1.5 and twice["count"] == 4
    assert sorted(split_state(_py_rouge_state(metric, detailed=False))[1]) == ["rows"]


@pytest.mark.parametrize("edit, match", [
    (lambda h, a: a["rows"].__setitem__((0, 1), 3.0), r"rows: allowed: finite scores whose "
                                                       r"exact sums are the state's"),
    (lambda h, a: a["rows"].__setitem__((0, 1), math.nan), r"rows: allowed: finite"),
    (lambda h, a: h["exact"].__setitem__(0, str(UNIT)), r"rows: allowed: finite scores whose "
                                                        r"exact sums"),
    (lambda h, a: a.__setitem__("row_keys", a["row_keys"][:1]) or h["arrays"][1][2].__setitem__(
        0, 1), r"row_keys: got uint64 of shape \(1,\); allowed: uint64 of shape \(2,\)"),
    (lambda h, a: h.__setitem__("count", 3), r"rows: got float64 of shape \(2, 3\); allowed: "
                                             r"float64 of shape \(3, 3\)"),
    (lambda h, a: h["arrays"].pop(), r"arrays: got \['rows'\]; allowed: \['row_keys', "
                                     r"'rows'\] for these options"),
])
def test_py_rouge_states_edited_are_refused(metric, edit, match):
    """The rows against the exact sums, their shape against the count, the keys against the
    rows, and the arrays against detailed; re-hashed as an attacker would."""
    with pytest.raises(ValueError, match=match):
        metric.state_from_bytes(edited(_py_rouge_state(metric), edit))
