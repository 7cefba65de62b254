"""An experiment, not the metric: what a small compute() would cost if a batch were scored in
fewer steps. Issue "Every core" asks small batches to beat rouge-score-rs; a call's fixed cost
is some forty Python steps (docs/performance.md). Three contenders, default options
(rouge1+rouge2+rougeL+rougeLsum, stemmed), on realsumm-like pairs (scaling.py's corpus):

* compute: the metric as it is;
* fused stats: compute() with its pair statistics (the n-gram, LCS and union-LCS kernels, three
  calls and their Python) replaced, in this process only, by one compiled call of the same
  kernels;
* one call: the options lookup, the input check and the tokenizer as they are, then one compiled
  call for the statistics, P/R/F and the exact column sums, and the F means: no Scorer,
  aggregate, notes or warnings (which a real path would still need);

* fused spans: compute() with its kernel calls (pipeline._kernel_calls) replaced by one
  compiled call of the same kernels per span of pairs, and every call under 2^30 pairs kept in
  one chunk, so that from 32 pairs the spans go to the kept pool with one GIL round trip each
  (not one per kernel, nor a chunk's tokenizing and sums each);

* parallel stats: as fused stats, but the one compiled call spreads spans of 4 pairs over
  numba's own threads (parallel=True, prange): no GIL between them; its compile time is
  printed;

and rs's score_batch. Each result is checked equal to compute()'s (1, 8, 64, 512 pairs), then
all take turns in one process; medians. (The prototypes run serially and take the flat tokens
as the sentence view: right for these options and the byte tokenizer, not in general.)

    benchmarks/.venv/bin/python benchmarks/small_calls_experiment.py
"""

import os
import statistics
import sys
import time
import warnings

import numba
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]  # scaling.py; this checkout's rouge_exact
import scaling  # noqa: E402

warnings.simplefilter("ignore")
import evaluate  # noqa: E402

pairs = scaling.corpus(os.path.join(os.path.dirname(HERE), "tests", "data", "realsumm.jsonl"), 2000)
P, R = [p for p, _ in pairs], [r for _, r in pairs]
metric = evaluate.load(os.path.join(os.path.dirname(HERE), "rouge_metric.py"))
metric.compile_kernels(wait=True)
from rouge_exact import api  # noqa: E402  (the modules the thin script's metric runs)
from rouge_exact import options as options_module  # noqa: E402
from rouge_exact.kernels import backend  # noqa: E402
from rouge_exact.scorer import aggregate, pipeline  # noqa: E402

K = backend.compiled_kernels()
ngram_stats, lcs_stats, union_lcs_stats = K.ngram_stats, K.lcs_stats, K.union_lcs_stats
example_prf, exact_column_sums = K.example_prf, K.exact_column_sums
KW = dict(rouge_types=scaling.TYPES, use_stemmer=True)
ORDERS = np.array([1, 2], dtype=np.int64)
UNIT = aggregate.EXACT_UNIT


@numba.njit(nogil=True)
def fused_stats(tokens, text_offsets, sent_offsets, text_sent_offsets, pair_pred, pair_ref):
    n = pair_pred.shape[0]
    by_order = ngram_stats(tokens, text_offsets, pair_pred, pair_ref, ORDERS)
    lcs = lcs_stats(tokens, text_offsets, pair_pred, pair_ref)
    union = union_lcs_stats(tokens, sent_offsets, text_sent_offsets, tokens, text_offsets,
                            pair_pred, pair_ref)
    stats = np.empty((n, 4, 3), dtype=np.float64)
    for k in range(n):
        for c in range(3):
            stats[k, 0, c] = by_order[k, 0, c]
            stats[k, 1, c] = by_order[k, 1, c]
            stats[k, 2, c] = lcs[k, c]
            stats[k, 3, c] = union[k, c]
    return stats


@numba.njit(nogil=True)
def fused_sums(tokens, text_offsets, sent_offsets, text_sent_offsets, pair_pred, pair_ref):
    stats = fused_stats(tokens, text_offsets, sent_offsets, text_sent_offsets, pair_pred,
                        pair_ref)
    return exact_column_sums(example_prf(stats, 0.5).reshape(pair_pred.shape[0], 12))


@numba.njit(nogil=True, parallel=True)
def parallel_stats(tokens, text_offsets, sent_offsets, text_sent_offsets, pair_pred, pair_ref):
    n = pair_pred.shape[0]
    stats = np.empty((n, 4, 3), dtype=np.float64)
    for q in numba.prange((n + 3) // 4):
        lo = 4 * q
        hi = min(n, lo + 4)
        stats[lo:hi] = fused_stats(tokens, text_offsets, sent_offsets, text_sent_offsets,
                                   pair_pred[lo:hi], pair_ref[lo:hi])
    return stats


def _batch(options, predictions, references):
    n = len(predictions)
    texts = [*predictions, *references]
    flat = options.tokenizer.batch(texts, stemmer=options.stemmer, stopwords=False)
    head = (flat.tokens, flat.text_offsets, flat.sent_offsets, flat.text_sent_offsets,
            np.arange(n, dtype=np.int64), np.arange(n, 2 * n, dtype=np.int64))
    return texts, flat, head


def pair_statistics(options, predictions, references, plan=None, kernels=None):  # (its place)
    texts, flat, head = _batch(options, predictions, references)
    return fused_stats(*head), np.ones(len(predictions), dtype=np.int64), texts, flat, flat


def parallel_pair_statistics(options, predictions, references, plan=None, kernels=None):
    texts, flat, head = _batch(options, predictions, references)
    return parallel_stats(*head), np.ones(len(predictions), dtype=np.int64), texts, flat, flat


def one_call(predictions, references):
    options = options_module.RougeOptions.build(**KW)
    predictions, references = api.check_inputs(predictions, references, encodable=False)
    _, _, head = _batch(options, predictions, references)
    parts, common = fused_sums(*head)
    assert common
    whole, high, low = parts.tolist()
    units = len(predictions) << UNIT
    return {name: (((whole[3 * j + 2] << 64) + (high[3 * j + 2] << 32) + low[3 * j + 2])
                   << (UNIT - 64)) / units for j, name in enumerate(scaling.TYPES)}


def compute(predictions, references):
    return metric.compute(predictions=predictions, references=references, **KW)


def main() -> None:
    def patched(**names):
        """compute() with these names of rouge_exact.scorer.pipeline replaced, for the call."""
        def run(predictions, references):
            saved = {name: getattr(pipeline, name) for name in names}
            vars(pipeline).update(names)
            try:
                return compute(predictions, references)
            finally:
                vars(pipeline).update(saved)
        return run

    def spans(options, plan, flat, sent, kernels):  # _kernel_calls' place: one call
        return [(fused_stats, (flat.tokens, flat.text_offsets, sent.sent_offsets,
                               sent.text_sent_offsets), (), (slice(None), slice(None)))]

    fused = patched(_pair_statistics_of=pair_statistics)
    parallel = patched(_pair_statistics_of=parallel_pair_statistics)
    fused_spans = patched(_kernel_calls=spans, _EXAMPLE_CHUNKS_FROM=1 << 30)
    start = time.perf_counter()
    parallel(P[:1], R[:1])
    print(f"parallel stats compiled in {time.perf_counter() - start:.1f} s "
          f"({numba.config.NUMBA_NUM_THREADS} threads, layer {numba.threading_layer()})")

    from rouge_score_rs import rouge_scorer
    rs = rouge_scorer.RougeScorer(scaling.TYPES, use_stemmer=True)
    contenders = {"compute": compute, "fused stats": fused, "one call": one_call,
                  "fused spans": fused_spans, "parallel stats": parallel,
                  "rs": lambda p, r: rs.score_batch(r, p)}
    sizes = (1, 8, 64, 128, 512)
    for b in sizes:
        truth = compute(P[:b], R[:b])
        if any(f(P[:b], R[:b]) != truth for f in (fused, one_call, fused_spans, parallel)):
            raise AssertionError(f"{b} pairs: a contender's result differs from compute()'s")
    times = {}
    for _ in range(7):
        for b in sizes:
            for name, f in contenders.items():
                for _ in range(max(3, 400 // b)):
                    t = time.perf_counter()
                    f(P[:b], R[:b])
                    times.setdefault((name, b), []).append(time.perf_counter() - t)
    print(f"results equal to compute()'s at {', '.join(map(str, sizes))} pairs; "
          f"{time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.1f}\n")
    print("| pairs | " + " | ".join(contenders) + " | rs / one call | rs / fused spans |")
    print("|---" * (len(contenders) + 3) + "|")
    for b in sizes:
        us = {name: statistics.median(times[name, b]) * 1e6 for name in contenders}
        print(f"| {b} | " + " | ".join(f"{us[n]:.1f} us" for n in contenders)
              + f" | {us['rs'] / us['one call']:.2f}x | {us['rs'] / us['fused spans']:.2f}x |")


if __name__ == "__main__":
    main()
