"""Language profiles (lang=) against multilingual-rouge 0.0.1 (XL-Sum's multilingual ROUGE).

    .venv/bin/python benchmarks/lang.py [--pairs 10000] [--peer-pairs 2000] [--runs 3]
                                        [--langs en,ru,hi,bn,zh,ja,th,my] [--out FILE]

Run with the project's venv (requirements-dev.txt: multilingual-rouge and requirements-lang.txt).
Workloads (seeded): ``en`` is 10,000 (prediction, reference) pairs resampled from
tests/data/realsumm.jsonl; the other languages are 10,000 pairs from the generator of
tests/test_lang.py: a Zipfian vocabulary of 5,000 of its words (the language's script with its
stemmer's suffixes, hand-written sentences, digits, mixed scripts), with punctuation. Every measurement is a fresh child process:
ours times the second of two identical compute() calls (warm: the first loads the segmenter
and numba's kernels; the stem and pre-tokenizer memos are emptied before the timed call); the peer
times RougeScorer.score over --peer-pairs pairs, scaled linearly to --pairs (marked
extrapolated). Wall and CPU seconds (CPU: all threads; the honest figure on a busy
machine). rouge1, rouge2, rougeL, rougeLsum; use_stemmer=True (--no-stem: False). Medians of --runs, the
contenders alternating. The per-example F of both must agree on the peer's pairs (exit 1 if not).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "realsumm.jsonl"
TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
CACHE = "/tmp/rouge-bench-lang"  # ROUGE_TEST_CACHE of the children (their module and kernel caches)
WORKLOAD_ENV = "ROUGE_BENCH_WORKLOAD"  # a JSON file of the pairs, written once per language


def workload(lang: str, n: int) -> list:
    if lang == "en":
        rows = [json.loads(line) for line in DATA.open(encoding="utf-8")]
        rng = random.Random(12345)
        return [(row["prediction"], row["references"][0])
                for row in (rng.choice(rows) for _ in range(n))]
    import test_lang

    thai = []
    if lang == "th":
        from pythainlp.corpus import thai_words

        thai = sorted(thai_words())
    # a Zipfian vocabulary of 5,000 words of the language (as in real text, most tokens are
    # frequent words), 15-60 words a text in 1-3 lines; predictions are perturbed references
    rng = random.Random(f"bench-{lang}")
    vocabulary = [test_lang._word(rng, lang, thai) for _ in range(5000)]
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(len(vocabulary))]

    def text(words):
        return test_lang._text(rng, lang, thai, words)

    pairs = []
    for _ in range(n):
        lines = [rng.choices(vocabulary, weights, k=rng.randint(5, 20))
                 for _ in range(rng.randint(1, 3))]
        pred = [[w if rng.random() > 0.2 else test_lang._inflect(rng, lang, w)
                 for w in line if rng.random() > 0.3] for line in lines]
        pairs.append(("\n".join(map(text, pred)), "\n".join(map(text, lines))))
    return pairs


def child(contender: str, lang: str, pairs: int, peer_pairs: int, stem: bool) -> dict:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]
    warnings.simplefilter("ignore")
    # the parent's copy of the workload (generating it takes 2-4 s a language)
    data = [tuple(pair) for pair in json.loads(Path(os.environ[WORKLOAD_ENV]).read_text(
        encoding="utf-8"))] if os.environ.get(WORKLOAD_ENV) else workload(lang, pairs)
    preds, refs = [p for p, _ in data], [r for _, r in data]
    if contender == "ours":
        from conftest import load_metric, staged

        metric = load_metric()
        # warm: the same call once before (segmenter loaded, numba's kernels compiled/loaded)
        metric.compute(predictions=preds, references=refs, rouge_types=TYPES,
                       lang=lang, use_stemmer=stem, use_aggregator=False)
        # compiled kernels, not the numpy tier the first call may have used while the
        # background compile ran (a fresh cache: ~30 s)
        metric.compile_kernels(wait=True)
        tokenizer = staged("text.lang").language_tokenizer(lang)
        tokenizer._memo.clear()  # no stem and no word's pre-tokens known: as a first call
        tokenizer._pieces.clear()
        start, cpu = time.perf_counter(), time.process_time()
        out = metric.compute(predictions=preds, references=refs, rouge_types=TYPES, lang=lang,
                             use_stemmer=stem, use_aggregator=False)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        f = {t: out[t][:peer_pairs] for t in TYPES}
        return {"seconds": seconds, "cpu": cpu, "pairs": len(preds), "f": f}
    import test_lang

    rouge_scorer = test_lang.prepare_peer()
    name = test_lang.lang_module.resolve_language(lang).name
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem, lang=name)
    scorer.score(refs[0], preds[0])  # loads the segmenter
    start, cpu = time.perf_counter(), time.process_time()
    rows = [scorer.score(r, p) for p, r in zip(preds[:peer_pairs], refs[:peer_pairs])]
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    f = {t: [row[t].fmeasure for row in rows] for t in TYPES}
    scale = len(preds) / peer_pairs
    return {"seconds": seconds * scale, "cpu": cpu * scale, "pairs": peer_pairs, "f": f}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--peer-pairs", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--langs", default="en,ru,hi,bn,ar,zh,ja,th,my")
    parser.add_argument("--out")
    parser.add_argument("--no-stem", action="store_true", help="use_stemmer=False")
    parser.add_argument("--child", nargs=5, metavar=("CONTENDER", "LANG", "PAIRS", "PEER", "STEM"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        contender, lang, pairs, peer, stem = args.child
        print(json.dumps(child(contender, lang, int(pairs), int(peer), stem == "1")))
        return 0

    lines = [f"lang= against multilingual-rouge 0.0.1: {args.pairs:,} pairs, {', '.join(TYPES)}, "
             f"use_stemmer={not args.no_stem}; median of {args.runs} runs (fresh process each); the peer "
             f"ran {args.peer_pairs:,} pairs, scaled linearly.", "",
             "| lang | segmenter | ours: wall (CPU) s | multilingual-rouge: wall (CPU) s, "
             "extrapolated | speed-up wall (CPU) | per-example F |", "|---|---|---|---|---|---|"]
    failed = False
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]  # workload()'s test_lang generator
    import test_lang

    for lang in args.langs.split(","):
        times = {"ours": [], "peer": []}
        cpus = {"ours": [], "peer": []}
        results = {}
        pairs_file = Path(CACHE) / f"workload-{lang}-{args.pairs}.json"
        pairs_file.parent.mkdir(parents=True, exist_ok=True)
        pairs_file.write_text(json.dumps(workload(lang, args.pairs)), encoding="utf-8")
        for _ in range(args.runs):
            for contender in ("ours", "peer"):
                env = dict(os.environ, ROUGE_TEST_CACHE=CACHE,  # numba compiles once
                           **{WORKLOAD_ENV: str(pairs_file)})
                run = subprocess.run([sys.executable, __file__, "--child", contender, lang,
                                      str(args.pairs), str(args.peer_pairs),
                                      "0" if args.no_stem else "1"],
                                     capture_output=True, text=True, cwd=ROOT, env=env)
                if run.returncode:
                    sys.stderr.write(run.stderr)
                    return 1
                result = json.loads(run.stdout.strip().splitlines()[-1])
                times[contender].append(result["seconds"])
                cpus[contender].append(result["cpu"])
                results[contender] = result["f"]
        agree = all(results["ours"][t] == results["peer"][t] for t in TYPES)
        failed |= not agree
        segmenter = test_lang.lang_module.resolve_language(lang).segmenter or "-"
        ours, peer = statistics.median(times["ours"]), statistics.median(times["peer"])
        ours_cpu, peer_cpu = statistics.median(cpus["ours"]), statistics.median(cpus["peer"])
        lines.append(f"| {lang} | {segmenter} | {ours:.2f} ({ours_cpu:.2f}) | {peer:.1f} "
                     f"({peer_cpu:.1f}) | {peer / ours:.1f}x ({peer_cpu / ours_cpu:.1f}x) | "
                     f"{'equal' if agree else 'DIFFERENT'} |")
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
