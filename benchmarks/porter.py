"""NLTK's Porter stemmer (rouge_score's: what a new word costs the stem memo today) against the
compiled Porter kernels of rouge_exact.kernels.porter, per distinct word.

    .venv/bin/python benchmarks/porter.py                 # 100,000 words, 5 rounds (~1 min)
    .venv/bin/python benchmarks/porter.py --words 20000 --rounds 3

Words (seeded): the distinct tokens longer than 3 characters of tests/data/realsumm.jsonl
(rouge_score's tokenization; it stems only those), then words made of a corpus word's prefix
and one or two English suffixes (-ational, -ization, -fulness, -ing, -ies, -s, ...), up to
--words distinct words of 4 to 12 characters (so every one also packs into a token code).

Contenders, each on the same words, the best of --rounds rounds:

* NLTK: ``PorterStemmer().stem`` on each word, as text.tokenizers.StemMemo calls it;
* kernel, bytes: ``porter_stem`` on the words end to end in one byte buffer (spans given);
* kernel, str in and out: the same, with the buffer made from the words and the stems cut
  back into str;
* kernel, codes: ``porter_stem_codes`` on the words' base-37 token codes (the stem memo's
  keys), giving the stems' codes.

Before timing, each kernel's stems are checked equal to NLTK's. The kernels are compiled
here with numba (their ``@njit`` marks' options, no cache): the first call's time is shown.
"""

import argparse
import json
import os
import random
import re
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, REPO)

SUFFIXES = ("ational tional enci anci izer bli alli entli eli ousli ization ation ator alism "
            "iveness fulness ousness aliti iviti biliti fulli logi icate ative alize iciti "
            "ical ful ness al ance ence er ic able ible ant ement ment ent ion ou ism ate iti "
            "ous ive ize sses ies ss s eed ied ed ing y e ly ings ers ations").split()


def words_of(count: int, seed: int = 0) -> list:
    """count distinct [a-z0-9] words of 4 to 12 characters (see the module's docstring)."""
    corpus = set()
    with open(os.path.join(REPO, "tests", "data", "realsumm.jsonl"), encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            for text in [row["prediction"], *row["references"]]:
                corpus.update(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())
    corpus = sorted(w for w in corpus if 3 < len(w) <= 12)
    rng = random.Random(seed)
    words = dict.fromkeys(corpus[:count])
    while len(words) < count:
        base = rng.choice(corpus)
        word = base[:rng.randint(2, len(base))] + rng.choice(SUFFIXES)
        if rng.random() < 0.3:
            word += rng.choice(SUFFIXES)
        if 3 < len(word) <= 12:
            words[word] = None
    return list(words)


def compiled_kernels():
    """rouge_exact.kernels.porter with each @njit-marked function compiled by numba (this
    process only; nothing is cached)."""
    import numba
    from rouge_exact.kernels import porter

    for name, value in list(vars(porter).items()):
        if callable(value) and hasattr(value, "njit_options"):
            options = dict(value.njit_options, cache=False)
            setattr(porter, name, numba.njit(no_cfunc_wrapper=True, **options)(value))
    return porter


def best(rounds: int, function) -> float:
    """The least wall time of a call of function over the rounds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--words", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    from nltk.stem.porter import PorterStemmer
    from rouge_exact.text.tokenizers import encode_token

    words = words_of(args.words)
    stem = PorterStemmer().stem
    want = [stem(w) for w in words]

    start = time.perf_counter()
    porter = compiled_kernels()
    tiny = np.frombuffer(b"cats", dtype=np.uint8)
    porter.porter_stem(tiny, np.array([0]), np.array([4]))
    first_bytes = time.perf_counter() - start
    start = time.perf_counter()
    porter.porter_stem_codes(np.array([1], dtype=np.int64))
    first_codes = time.perf_counter() - start

    lengths = np.array([len(w) for w in words], dtype=np.int64)
    ends = np.cumsum(lengths)
    starts = ends - lengths
    buf = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8)
    codes = np.array([encode_token(w) for w in words], dtype=np.int64)

    def str_in_out():
        lengths = np.array(list(map(len, words)), dtype=np.int64)
        ends = np.cumsum(lengths)
        data = np.frombuffer("".join(words).encode("latin-1"), dtype=np.uint8)
        out, out_ends = porter.porter_stem(data, ends - lengths, ends)
        text = out.tobytes().decode("latin-1")
        bounds = [0, *out_ends.tolist()]
        return [text[a:b] for a, b in zip(bounds, bounds[1:])]

    assert str_in_out() == want, "porter_stem differs from NLTK"
    assert porter.porter_stem_codes(codes).tolist() == [encode_token(s) for s in want], \
        "porter_stem_codes differs from NLTK"

    contenders = {
        "NLTK PorterStemmer().stem, a word a call": lambda: [stem(w) for w in words],
        "kernel porter_stem, bytes": lambda: porter.porter_stem(buf, starts, ends),
        "kernel porter_stem, str in and out": str_in_out,
        "kernel porter_stem_codes, token codes": lambda: porter.porter_stem_codes(codes),
    }
    rows = [(name, best(args.rounds, run)) for name, run in contenders.items()]
    print(f"# porter.py: {len(words):,} distinct words, mean length "
          f"{lengths.mean():.1f}; best of {args.rounds} rounds; load average "
          f"{os.getloadavg()[0]:.1f}\n")
    print("| stemmer | time | words/s | x NLTK |")
    print("|---|---|---|---|")
    nltk_time = rows[0][1]
    for name, seconds in rows:
        print(f"| {name} | {seconds * 1e3:.1f} ms | {len(words) / seconds:,.0f} | "
              f"{nltk_time / seconds:.1f}x |")
    print(f"\nFirst call (numba compiles it and the functions it calls): porter_stem "
          f"{first_bytes:.1f} s, then porter_stem_codes {first_codes:.1f} s.")


if __name__ == "__main__":
    main()
