"""Issue 12's adversarial table: inputs and options an attacker would try on the kernels, the
text functions and the option parser. Each case runs in its own process under a memory limit
(RLIMIT_AS) and a time limit, and must end in the correct number (from rouge_score, naive_rouge
or a hand-computed Fraction) or in a ValueError that names the argument. A crash, a hang, a
MemoryError or a wrong number fails the case.

Kernel cases run both the numba-compiled kernels and the package's as plain Python, and require
the same result from each."""
import json
import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the full tier only: subprocesses under memory limits, large inputs

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
MEMORY_LIMIT = 3 << 30  # bytes of address space per case (numba and threads need ~1 GB)

PRELUDE = f"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT}))
sys.path[:0] = [{str(TESTS)!r}, {str(REPO)!r}]
import numpy as np


def metric():
    from conftest import load_metric
    return load_metric()

def kernels():
    from conftest import compiled_kernels, staged
    # the package's kernels: plain Python (rouge_backend compiles a copy)
    return compiled_kernels(), staged("kernels.registry")

def both_tiers(name, *args):
    # the compiled kernel and its plain-Python twin must agree exactly
    K, twin = kernels()
    compiled = getattr(K, name)(*args)
    with np.errstate(over="ignore"):
        python = getattr(twin, name)(*args)
    assert np.array_equal(compiled, python), (name, compiled, python)
    return compiled.tolist()

def flat_batch(*texts):
    tokens = np.concatenate([np.asarray(t, dtype=np.int64) for t in texts])
    offsets = np.cumsum([0] + [len(t) for t in texts]).astype(np.int64)
    return tokens, offsets

PAIR = (np.array([0], dtype=np.int64), np.array([1], dtype=np.int64))

def words(n, start=0):
    # n space-separated distinct tokens w<start>..w<start + n - 1>
    return " ".join(f"w{{i}}" for i in range(start, start + n))

def report(value):
    print("RESULT " + json.dumps(value))
"""


def run_case(code: str, timeout: float):
    """Run PRELUDE + code in a fresh interpreter; return what it report()ed, or
    {"error": type, "message": ...} for an exception it let out."""
    body = PRELUDE + "\ntry:\n" + textwrap.indent(textwrap.dedent(code), "    ") + """
except (ValueError, TypeError) as error:
    report({"error": type(error).__name__, "message": str(error)})
"""
    proc = subprocess.run([sys.executable, "-"], input=body, capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, (
        f"exit {proc.returncode}\nstdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


# ------------------------------------------------------------------------------------------
# cases: (id, code, expected, timeout seconds). expected is a float (the reported number),
# a list (the reported structure, exactly) or ("ValueError", "argument name").

N_SHIFT = 100_000
W_SHIFT = 20_000
W = 1.2

CASES = [
    # --- options: bounds checked before any work
    ("skip_distance_past_int64_overflow_was_sigsegv", f"""
        t = words({1000})
        report(metric().compute(predictions=[t], references=[t],
                                rouge_types=["rougeS9223372036854775000"])["rougeS9223372036854775000"])
     """, 1.0, 120),
    ("skip_distance_huge_digits", f"""
        t = words({300})
        name = "rougeSU" + "9" * 5000
        report(metric().compute(predictions=[t], references=[t], rouge_types=[name])[name])
     """, 1.0, 120),
    ("weight_400_was_nan", """
        t = "the cat sat on the mat"
        report(metric().compute(predictions=[t] * 3, references=[t] * 3,
                                rouge_types=["rougeW-400"]))
     """, ("ValueError", "rouge_types"), 60),
    ("weight_1e308_was_silent_zero", """
        report(metric().compute(predictions=["a b"], references=["a b"],
                                rouge_types=["rougeW-1e308"]))
     """, ("ValueError", "rouge_types"), 60),
    ("weight_10_overflowed_recall_to_zero", """
        report(metric().compute(predictions=["a b"], references=["a b"],
                                rouge_types=["rougeW-10"]))
     """, ("ValueError", "rouge_types"), 60),
    # the largest weight on a text where w = 10 gave inf: R = (n^w / (n^w)^w)^(1/w) = n^(1-w)
    ("weight_5_on_1300_tokens_is_finite", f"""
        t = words({1300})
        out = metric().compute(predictions=[t], references=[t], rouge_types=["rougeW-5"],
                               use_aggregator=False, detailed=True)["rougeW-5"]
        report(out["recall"][0])
     """, float(Fraction(1, 1300 ** 4)), 120),
    ("ngram_order_1e8_was_2_5_gb", """
        report(metric().compute(predictions=["a b"], references=["a b"],
                                rouge_types=["rouge100000000"]))
     """, ("ValueError", "rouge_types"), 60),
    ("n_samples_1e9_was_89_gib", """
        report(metric().compute(predictions=["a b"], references=["a b"], n_samples=10 ** 9))
     """, ("ValueError", "n_samples"), 60),
    # --- kernels: cost grows with the problem
    # rouge1000 on 2 x 100k tokens: pred = w0..w99999, ref = w1..w100000 share 99,000
    # 1000-grams of 99,001
    ("ngram_order_1000_on_100k_tokens", f"""
        out = metric().compute(predictions=[words({N_SHIFT})],
                               references=[words({N_SHIFT}, start=1)],
                               rouge_types=["rouge1000"])
        report(out["rouge1000"])
     """, float(Fraction(N_SHIFT - 1000, N_SHIFT - 999)), 120),
    # every skip-bigram within d = 15000 of 20k distinct tokens matches in the identical
    # text (listing them was 4.6 GB at 10k tokens), none in the reversed one
    ("skip_distance_15000_on_20k_tokens", f"""
        t = words({20_000})
        rev = " ".join(reversed(t.split()))
        out = metric().compute(predictions=[t, t], references=[t, rev],
                               rouge_types=["rougeS15000"], use_aggregator=False)
        report(out["rougeS15000"])
     """, [1.0, 0.0], 120),
    # one word repeated: the unlimited and the finite count, hand-computed
    ("skip_bigrams_of_one_repeated_word", """
        n = 200_000
        tokens = np.zeros(2 * n - 1, dtype=np.int64)
        offsets = np.array([0, n, 2 * n - 1], dtype=np.int64)
        K, _ = kernels()
        out = [K.skip_bigram_stats(tokens, offsets, *PAIR, d, False)[0].tolist()
               for d in (-1, 100_000, 2 ** 40)]
        report(out)
     """, None, 120),
    ("split_sentences_on_100k_periods_was_246_s", """
        from rouge_score import rouge_scorer
        pred = "." * 100_000 + " cat sat"
        ref = "the cat sat"
        out = metric().compute(predictions=[pred], references=[ref], split_sentences=True,
                               rouge_types=["rouge1", "rougeLsum"], use_aggregator=False)
        scorer = rouge_scorer.RougeScorer(["rouge1", "rougeLsum"])
        expected = scorer.score(ref, pred)
        report([out["rouge1"][0] - expected["rouge1"].fmeasure,
                out["rougeLsum"][0] - expected["rougeLsum"].fmeasure])
     """, [0.0, 0.0], 60),
    ("split_sentences_on_many_abbreviations", """
        from conftest import staged
        rouge_text = staged("text.tokenizers")
        text = "Mr. A " * 50_000 + "x"
        report(rouge_text.split_sentences(text) == text)
     """, True, 60),
    # one 100k-token sentence each, shifted by one: LCS n - 1 (was 37-41 s and +0.9-1.2 GB)
    ("lsum_one_sentence_of_100k_tokens", f"""
        out = metric().compute(predictions=[words({N_SHIFT})],
                               references=[words({N_SHIFT}, start=1)],
                               rouge_types=["rougeLsum"])
        report(out["rougeLsum"])
     """, float(Fraction(N_SHIFT - 1, N_SHIFT)), 120),
    # W over one 20k-token sentence each, shifted: one run of n - 1, so
    # P = (n-1)/n, R = (n-1) / n^w
    ("w_one_sentence_of_20k_tokens", f"""
        out = metric().compute(predictions=[words({W_SHIFT})],
                               references=[words({W_SHIFT}, start=1)],
                               rouge_types=["rougeW"], use_aggregator=False, detailed=True)
        report([out["rougeW"]["precision"][0], out["rougeW"]["recall"][0]])
     """, [(W_SHIFT - 1) / W_SHIFT, (W_SHIFT - 1) / W_SHIFT ** W], 120),
    # 50,000 one-token sentences each (was 254 s: 2.5e9 sentence pairs): 50,000 runs of 1,
    # so P = R = (50000 / 50000^w)^(1/w)
    ("w_and_lsum_on_50k_one_token_sentences", """
        t = "a\\n" * 50_000
        out = metric().compute(predictions=[t], references=[t],
                               rouge_types=["rougeW", "rougeLsum"], use_aggregator=False)
        report([out["rougeW"][0], out["rougeLsum"][0]])
     """, [50_000 ** ((1 - W) / W), 1.0], 120),
    # NFKC makes each U+3316 six katakana: 120k tokens in one sentence
    ("unicode_expansion_lsum", """
        t = "\\u3316" * 20_000
        out = metric().compute(predictions=[t], references=[t + "\\u30ad"],
                               rouge_types=["rougeL", "rougeLsum"], tokenizer="unicode",
                               use_aggregator=False, detailed=True)
        report([out["rougeL"]["recall"][0], out["rougeLsum"]["recall"][0]])
     """, [float(Fraction(120_000, 120_001))] * 2, 120),
    # --- both tiers, at the edges of what the kernels accept
    ("tiers_agree_on_skip_distances_up_to_int64_max", """
        rng = np.random.default_rng(1)
        tokens, offsets = flat_batch(rng.integers(0, 5, 60), rng.integers(0, 5, 50))
        import naive_rouge
        out = []
        for d in (0, 1, 59, 60, 2 ** 40, 2 ** 63 - 1):
            for su in (False, True):
                got = both_tiers("skip_bigram_stats", tokens, offsets, *PAIR, d, su)[0]
                want = naive_rouge.skip_bigram_stats(tokens[:60].tolist(), tokens[60:].tolist(),
                                                     d, su)
                out.append(got == list(want))
        report(all(out))
     """, True, 120),
    ("tiers_agree_on_empty_and_one_token_texts", """
        out = []
        for a, b in (([], []), ([1], []), ([], [1]), ([1], [1]), ([1], [2])):
            tokens, offsets = flat_batch(a, b)
            sent = np.array([0, len(a), len(a) + len(b)], dtype=np.int64)
            tso = np.array([0, 1, 2], dtype=np.int64)
            out.append([
                both_tiers("ngram_stats", tokens, offsets, *PAIR, np.array([1, 2, 1000])),
                both_tiers("lcs_stats", tokens, offsets, *PAIR),
                both_tiers("union_lcs_stats", tokens, sent, tso, tokens, offsets, *PAIR),
                both_tiers("wlcs_stats", tokens, sent, tso, tokens, offsets, *PAIR, 5.0),
                both_tiers("skip_bigram_stats", tokens, offsets, *PAIR, 2 ** 40, True)])
        report(out[3])
     """, [[[[1, 1, 1], [0, 0, 0], [0, 0, 0]]], [[1, 1, 1]], [[1, 1, 1]], [[1.0, 1.0, 1.0]],
           [[0, 0, 0]]], 120),
    ("tiers_agree_on_long_sentences", """
        import naive_rouge
        rng = np.random.default_rng(2)
        pred = rng.integers(0, 3, 150)
        ref = rng.integers(0, 3, 140)
        tokens, offsets = flat_batch(pred, ref)
        tso = np.array([0, 1, 2], dtype=np.int64)
        u = both_tiers("union_lcs_stats", tokens, offsets, tso, tokens, offsets, *PAIR)[0]
        w = both_tiers("wlcs_stats", tokens, offsets, tso, tokens, offsets, *PAIR, 5.0)[0]
        n = both_tiers("ngram_stats", tokens, offsets, *PAIR, np.array([1, 3, 7, 64, 140]))[0]
        hit, _, base = naive_rouge.wlcs_stats([ref.tolist()], [pred.tolist()], 5.0)
        report([u == list(naive_rouge.union_lcs_stats([pred.tolist()], [ref.tolist()])),
                abs(w[0] - naive_rouge.wlcs_stats([pred.tolist()], [ref.tolist()], 5.0)[0])
                <= 1e-9 * w[0],
                n == [list(naive_rouge.ngram_stats(pred.tolist(), ref.tolist(), k))
                      for k in (1, 3, 7, 64, 140)]])
     """, [True, True, True], 120),
    # --- text: tokens the scanner must not trip on
    ("one_token_of_a_million_letters", """
        t = "x" * 1_000_000
        report(metric().compute(predictions=[t + " b"], references=[t + " c"],
                                rouge_types=["rouge1"]))
     """, {"rouge1": 0.5}, 60),
    ("text_holding_nul_and_only_punctuation", """
        out = metric().compute(predictions=["a\\x00b", "!!! ..."], references=["a b", "a"],
                               rouge_types=["rouge1"], use_aggregator=False)
        report(out)
     """, {"rouge1": [1.0, 0.0]}, 60),
]

# the repeated-word case: hand-computed counts (n tokens of one word: n(n-1)/2 skip-bigrams
# without a limit; with d: sum over i of min(n - 1 - i, d + 1)); all of them match between the
# two texts up to the shorter text's count


def _skip_count(n, d):
    return sum(min(n - 1 - i, d + 1) for i in range(n - 1))


def _repeated_word_expected():
    p, r = 200_000, 199_999
    out = []
    for d in (None, 100_000, 2 ** 40):
        cp = p * (p - 1) // 2 if d is None else _skip_count(p, d)
        cr = r * (r - 1) // 2 if d is None else _skip_count(r, d)
        out.append([min(cp, cr), cp, cr])
    return out


CASES = [(name, code, _repeated_word_expected() if expected is None else expected, timeout)
         for name, code, expected, timeout in CASES]


@pytest.mark.parametrize("name,code,expected,timeout", CASES, ids=[c[0] for c in CASES])
def test_adversarial_case(name, code, expected, timeout):
    got = run_case(code, timeout)
    if isinstance(expected, tuple):  # a clear error naming the argument
        kind, argument = expected
        assert isinstance(got, dict) and got.get("error") == kind, got
        assert got["message"].startswith(argument) or argument in got["message"], got
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-9), got
    elif isinstance(expected, list) and expected and isinstance(expected[0], float):
        assert got == pytest.approx(expected, rel=1e-9), got
    else:
        assert got == expected
