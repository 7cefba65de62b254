"""pltrdy's ROUGE-L on sentences past 64 words, where each row of the bit-parallel LCS takes
several machine words: against pltrdy's rouge 1.0.1 itself, per example bit for bit, on seeded
sentences crossing 64, 128 and 200 words with repeated words and ties everywhere; a tie worked
out by hand; and the numpy twin against the compiled kernel on long sentences.

pltrdy counts the distinct words on its traceback: over a few equally likely words every LCS
holds them all, whichever path breaks the ties, so the random sentences draw from 3-100 words
with Zipf weights (a few frequent words, many rare ones), where a wrong tie rule shows."""

import random
import sys

import numpy as np

from conftest import pltrdy_rouge

pltrdy = pltrdy_rouge()


def _theirs(predictions, references) -> list:
    """rouge 1.0.1's (p, r, f) of ROUGE-L per pair. Its traceback (_recon_lcs) recurses once
    per step, up to len(reference) + len(prediction) deep: the limit is raised around it."""
    scorer = pltrdy.Rouge(metrics=["rouge-l"])
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        scores = [scorer.get_scores(p, r)[0]["rouge-l"] for p, r in zip(predictions, references)]
    finally:
        sys.setrecursionlimit(limit)
    return [(s["p"], s["r"], s["f"]) for s in scores]


def _ours(metric, predictions, references) -> list:
    scores = metric.compute(predictions=predictions, references=references, profile="pltrdy",
                            rouge_types=["rougeL"], use_aggregator=False, detailed=True)
    return list(zip(*(scores["rougeL"][key] for key in ("precision", "recall", "fmeasure"))))


def _sentence(rng: random.Random, size: int, lo: int, hi: int) -> str:
    """lo to hi words drawn from w0 .. w{size - 1}, wi with weight 1 / (i + 1)."""
    weights = [1 / (i + 1) for i in range(size)]
    return " ".join(f"w{i}" for i in rng.choices(range(size), weights, k=rng.randint(lo, hi)))


def _text(rng: random.Random, size: int) -> str:
    """1-3 sentences (pltrdy splits at "."), each of 1 to 70, 140 or 260 words."""
    return " . ".join(_sentence(rng, size, 1, rng.choice([70, 140, 260]))
                      for _ in range(rng.choice([1, 1, 2, 3])))


def _long_pairs(rng: random.Random, n: int) -> tuple:
    """n pairs of _text over 3-100 words; every fifth prediction is its reference reversed."""
    predictions, references = [], []
    for k in range(n):
        size = rng.choice([3, 10, 30, 100])
        reference = _text(rng, size)
        prediction = (" ".join(reversed(reference.split())) if k % 5 == 0
                      else _text(rng, size))
        predictions.append(prediction)
        references.append(reference)
    return predictions, references


def test_long_sentences_equal_rouge_1_0_1(metric):
    """60 seeded pairs of sentences up to 260 words, sentences at the word boundaries of the
    bit rows (64, 65, 127, 128, 129, 200 words) and one long sentence of distinct words
    against its reverse: P, R and F equal to rouge 1.0.1's, bit for bit."""
    rng = random.Random(20260514)
    predictions, references = _long_pairs(rng, 60)
    for n in (64, 65, 127, 128, 129, 200):  # one sentence each, lengths at word boundaries
        predictions.append(_sentence(rng, 30, n - 1, n + 1))
        references.append(_sentence(rng, 30, n, n))
    sentence = " ".join(f"w{i}" for i in range(300))  # distinct words, against its reverse
    predictions.append(" ".join(reversed(sentence.split())))
    references.append(sentence)
    assert max(len(r.split()) for r in references) > 200
    assert _ours(metric, predictions, references) == _theirs(predictions, references)


def test_a_tie_past_64_words_by_hand(metric):
    """A 140-word reference a^70 b1..b70 against the prediction b1..b70 a^70: both LCS of
    length 70, one of 70 distinct words (the b's), one of one (a). pltrdy's traceback, on
    ties, drops the prediction's last word (``else: j - 1``), so it keeps the matches early
    in the prediction: the b's here, 70 of the 71 distinct words of each text; with the texts
    swapped, the a's: 1 of 71."""
    a = " ".join(["a"] * 70)
    b = " ".join(f"b{i}" for i in range(70))
    ours = _ours(metric, [f"{b} {a}", f"{a} {b}"], [f"{a} {b}", f"{b} {a}"])
    for (p, r, f), words in zip(ours, (70, 1)):
        assert p == r == words / 71
        assert f == 2.0 * ((p * r) / (p + r + 1e-8))


def test_twin_equals_the_kernel_on_long_sentences():
    """set_union_lcs_stats' numpy twin against the compiled kernel on seeded batches of
    sentences of 1-260 tokens from 3-100 words with Zipf weights (several bit-row words
    each, repeats and ties everywhere)."""
    from conftest import compiled_kernels
    from rouge_exact.kernels import twins_sets

    kernel = compiled_kernels().set_union_lcs_stats
    rng = np.random.default_rng(20260514)
    for _ in range(12):
        tokens, sent_offsets, text_sent_offsets = [], [0], [0]
        for _ in range(6):
            size = int(rng.choice([3, 10, 30, 100]))
            weights = 1 / np.arange(1, size + 1)
            for _ in range(rng.integers(1, 3)):
                length = int(rng.integers(1, rng.choice([40, 130, 260])))
                tokens += rng.choice(size, length, p=weights / weights.sum()).tolist()
                sent_offsets.append(len(tokens))
            text_sent_offsets.append(len(sent_offsets) - 1)
        args = (np.array(tokens, np.int64), np.array(sent_offsets, np.int64),
                np.array(text_sent_offsets, np.int64), rng.integers(0, 6, 8).astype(np.int64),
                rng.integers(0, 6, 8).astype(np.int64))
        ours = kernel(*args)
        assert ours[:, 0].max() > 0
        assert np.array_equal(ours, twins_sets.set_union_lcs_stats(*args))
