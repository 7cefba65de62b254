#!/usr/bin/env python3
"""What ``rouge_exact.explain`` costs against one ``compute()`` of the default convention, on
the same 10,000 pairs.

    .venv/bin/python benchmarks/explain_speed.py                 # ~30 s on 2 cores
    .venv/bin/python benchmarks/explain_speed.py --runs 5 --pairs 2000 --json /tmp/e.json

Workloads (both from tests/data/realsumm.jsonl, seeded):
  drawn     --pairs rows drawn with replacement from its 3,500 (random.Random(--seed)), as
            benchmarks/run.py's w10k: rows repeat (explain scores a repeated row once) and
            each article's reference is shared by the 35 systems' summaries.
  distinct  realsumm's rows, then variants (each prediction's sentences rotated and a line
            added): no two pairs alike (benchmarks/peers_speed.py's pairs).

Timed in this process, warm (the kernels loaded and every convention run once on 50 pairs
first): compute() with its defaults (F only), compute(detailed=True) (P, R, F and the
bootstrap interval), and explain() (every convention: P, R, F each). Each figure is the
fastest of --runs calls (the machine's other work only adds). Prints a markdown table: the
seconds and explain's ratio to each compute().

--floor adds a second table, in one thread (so that seconds add up): compute(), explain(),
and the time explain() spends in the counting kernels alone (ROUGE-N's n-grams, ROUGE-L's
LCS, rougeLsum's union LCS), counting a kernel call whose inputs (token ids, offsets, pairs)
an earlier call of the same explain() had only once: what explain() would cost if every
tokenizer were free and no count were made twice (it wraps the scorer's kernel step,
rouge_exact.scorer.pipeline._over_pairs, in this process to time it); and the time of
tokenizing the workload's distinct texts once per tokenizer and stemmer that explain()'s rows
use (no splitting, no length limits: each row's own views only add to it).
"""

import argparse
import json
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")
sys.path.insert(0, ROOT)

from peers_speed import variants  # noqa: E402  (beside this file: every pair distinct)


def realsumm() -> list:
    with open(DATA, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def drawn(rows: list, n: int, seed: int) -> tuple:
    rng = random.Random(seed)
    picked = [rng.choice(rows) for _ in range(n)]
    return [r["prediction"] for r in picked], [r["references"][0] for r in picked]


def fastest(function, runs: int) -> float:
    from rouge_exact.text.peers import forget_punkt_lines

    best = float("inf")
    for _ in range(runs):
        forget_punkt_lines()  # each call splits its texts with Punkt itself
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--floor", action="store_true",
                        help="also time the counting kernels alone, in one thread")
    args = parser.parse_args()

    import rouge_exact
    from rouge_exact.explanation import explain

    rows = realsumm()
    workloads = {"drawn": drawn(rows, args.pairs, args.seed),
                 "distinct": variants(rows, args.pairs)}
    warm = workloads["drawn"][0][:50], workloads["drawn"][1][:50]
    explain(*warm)  # every convention's kernels loaded, Punkt's model read
    rouge_exact.compute(*warm, detailed=True)

    figures = {}
    for name, (predictions, references) in workloads.items():
        conventions = len(explain(predictions[:50], references[:50]).rows)
        plain = fastest(lambda: rouge_exact.compute(predictions, references), args.runs)
        detailed = fastest(lambda: rouge_exact.compute(predictions, references,
                                                       detailed=True), args.runs)
        whole = fastest(lambda: explain(predictions, references), args.runs)
        figures[name] = {"pairs": len(predictions),
                         "distinct_rows": len(set(zip(predictions, references))),
                         "conventions": conventions, "compute_s": plain,
                         "compute_detailed_s": detailed, "explain_s": whole,
                         "ratio": whole / plain, "ratio_detailed": whole / detailed}

    print(f"explain() against compute() on {args.pairs:,} pairs from realsumm "
          f"(fastest of {args.runs}; {os.cpu_count()} CPUs)\n")
    print("| workload | distinct rows | conventions | compute() s | compute(detailed) s "
          "| explain() s | explain / compute() | explain / compute(detailed) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, f in figures.items():
        print(f"| {name} | {f['distinct_rows']:,} | {f['conventions']} | {f['compute_s']:.3f} "
              f"| {f['compute_detailed_s']:.3f} | {f['explain_s']:.3f} | {f['ratio']:.1f}x "
              f"| {f['ratio_detailed']:.1f}x |")
    floors = {}
    if args.floor:
        floors = {name: floor(*pairs, args.runs) for name, pairs in workloads.items()}
        print(f"\nIn one thread (fastest of {args.runs}): the counting kernels explain() runs "
              "(each distinct call once; each pair's texts once per kernel), and its tokenizers\n")
        print("| workload | compute() s | explain() s | explain / compute() | kernel calls "
              "(distinct) | kernels s | / compute() | kernels, each pair once s | / compute() "
              "| tokenizers s | / compute() | floor / compute() |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name, f in floors.items():
            c = f["compute_s"]
            print(f"| {name} | {c:.3f} | {f['explain_s']:.3f} | {f['explain_s'] / c:.1f}x "
                  f"| {f['calls']} ({f['distinct_calls']}) | {f['kernels_s']:.3f} "
                  f"| {f['kernels_s'] / c:.1f}x | {f['kernel_pairs_s']:.3f} "
                  f"| {f['kernel_pairs_s'] / c:.1f}x | {f['tokenizers_s']:.3f} "
                  f"| {f['tokenizers_s'] / c:.1f}x "
                  f"| {(f['kernel_pairs_s'] + f['tokenizers_s']) / c:.1f}x |")
        print("\nEach tokenizer and stemmer once on the distinct texts (one thread, seconds):\n")
        for name, f in floors.items():
            print(f"- {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in f["tokenizers"].items()))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"args": vars(args), "figures": figures, "floor": floors}, f, indent=2)
    return 0


def floor(predictions: list, references: list, runs: int) -> dict:
    """In one thread: compute() and explain(), and the seconds of explain()'s kernel calls
    whose inputs no earlier call of the same explain() had."""
    import hashlib

    import numpy as np

    import rouge_exact
    from rouge_exact.explanation import explain
    from rouge_exact.kernels.backend import one_thread
    from rouge_exact.scorer import pipeline

    over_pairs = pipeline._over_pairs
    seen, seen_pairs, timed = set(), set(), {"s": 0.0, "pairs_s": 0.0, "calls": 0}

    def digest(x) -> bytes:
        data = x.tobytes() if isinstance(x, np.ndarray) else repr(x).encode()
        return hashlib.blake2b(data, digest_size=16).digest()

    def text_keys(head) -> list:
        """What a kernel reads of each text: its flat tokens, or its sentences (tokens and
        bounds) and the tokens of its clipping view."""
        if len(head) == 2:
            tokens, offsets = head
            return [tokens[a:b].tobytes() for a, b in zip(offsets[:-1], offsets[1:])]
        tokens, sent_offsets, text_sent_offsets = head[:3]
        keys = []
        for a, b in zip(text_sent_offsets[:-1], text_sent_offsets[1:]):
            bounds = sent_offsets[a:b + 1]
            keys.append(tokens[bounds[0]:bounds[-1]].tobytes() + (bounds - bounds[0]).tobytes())
        if len(head) == 5:  # the clipping view's tokens
            clip, offsets = head[3:]
            keys = [k + b"|" + clip[a:b].tobytes()
                    for k, a, b in zip(keys, offsets[:-1], offsets[1:])]
        return keys

    def kernels_timed(calls, stats, pair_pred, pair_ref, tokens):
        for call in calls:
            function, head, tail, _ = call
            key = (function, *map(digest, (*head, *tail, pair_pred, pair_ref)))
            start = time.perf_counter()
            over_pairs([call], stats, pair_pred, pair_ref, tokens)
            if key not in seen:
                timed["s"] += time.perf_counter() - start
            seen.add(key)
            timed["calls"] += 1
            # the same call on the pairs whose texts (as this kernel reads them) no earlier
            # call of this kernel with these arguments had
            keys, signature = text_keys(head), (function, *map(digest, tail))
            fresh = []
            for k, (p, r) in enumerate(zip(pair_pred, pair_ref)):
                pair = (signature, keys[p], keys[r])
                if pair not in seen_pairs:
                    seen_pairs.add(pair)
                    fresh.append(k)
            if fresh:
                fresh = np.array(fresh, dtype=np.int64)
                scratch = np.empty((len(fresh), *stats.shape[1:]))
                start = time.perf_counter()
                over_pairs([call], scratch, pair_pred[fresh], pair_ref[fresh], tokens)
                timed["pairs_s"] += time.perf_counter() - start

    from rouge_exact.text.peers import forget_punkt_lines

    best = {"compute_s": float("inf"), "explain_s": float("inf"), "kernels_s": float("inf"),
            "kernel_pairs_s": float("inf")}
    with one_thread():
        for _ in range(runs):
            start = time.perf_counter()
            rouge_exact.compute(predictions, references)
            best["compute_s"] = min(best["compute_s"], time.perf_counter() - start)
            forget_punkt_lines()
            start = time.perf_counter()
            explain(predictions, references)
            best["explain_s"] = min(best["explain_s"], time.perf_counter() - start)
            seen.clear()
            seen_pairs.clear()
            timed.update(s=0.0, pairs_s=0.0, calls=0)
            pipeline._over_pairs = kernels_timed
            try:
                explain(predictions, references)
            finally:
                pipeline._over_pairs = over_pairs
            best["kernels_s"] = min(best["kernels_s"], timed["s"])
            best["kernel_pairs_s"] = min(best["kernel_pairs_s"], timed["pairs_s"])
        tokenizers = tokenizer_seconds(predictions, references, runs)
    return {**best, "calls": timed["calls"], "distinct_calls": len(seen),
            "tokenizers_s": sum(tokenizers.values()), "tokenizers": tokenizers}


def tokenizer_seconds(predictions: list, references: list, runs: int) -> dict:
    """{tokenizer and stemmer: seconds} of tokenizing the distinct texts once (the flat
    tokens; the sentences too where a tokenizer cuts its own and a row's type reads them),
    for each tokenizer and stemmer of explain()'s rows, the fastest of runs."""
    from rouge_exact.explanation import explain
    from rouge_exact.kinds import kind_of
    from rouge_exact.options import RougeOptions
    from rouge_exact.text.peers import forget_punkt_lines

    texts = list(dict.fromkeys([*predictions, *references]))
    views = {}
    for row in explain(predictions[:50], references[:50]).rows:
        options = RougeOptions.build(**row.options)
        sentences = options.tokenizer.own_sentences and any(
            kind_of(options, t).sentences for t in options.rouge_types)
        key = f"{options.tokenizer.name}+{options.stemmer or 'no stemmer'}"
        if options.remove_stopwords:
            key += "+stopwords"
        views[key] = views.get(key, False) or sentences, options
    seconds = {key: float("inf") for key in views}
    for _ in range(runs):
        forget_punkt_lines()  # Punkt splits each text once a run (as in one explain() call)
        for key, (sentences, options) in views.items():
            token_options = {"stemmer": options.stemmer, "stopwords": options.remove_stopwords}
            start = time.perf_counter()
            options.tokenizer.batch(texts, **token_options)
            if sentences:
                options.tokenizer.sentence_batch(texts, **token_options)
            seconds[key] = min(seconds[key], time.perf_counter() - start)
    return seconds


if __name__ == "__main__":
    sys.exit(main())
