"""The pltrdy and rouge_chinese profiles against the packages they reproduce, in one process:
pltrdy's rouge 1.0.1 and rouge-chinese 1.0.3 (test dependencies: pip install -r
requirements-dev.txt), on 10,000 pairs.

    .venv/bin/python benchmarks/llm_profiles.py            # English and Chinese, 10,000 pairs
    .venv/bin/python benchmarks/llm_profiles.py --pairs 2000

Workloads (seeded, from the repository's data):

* English: realsumm's 3,500 summaries against their reference, cycled to the count, each
  later round with its sentences rotated (so that no pair repeats);
* Chinese: generated pairs of 10-40 words and punctuation, cut with jieba and joined with
  spaces (the scripts' recipe), given to both as cut text; and the whole recipe, jieba
  included on both sides: the package after jieba against the profile on the raw text with
  lang="zh".

rouge1, rouge2 and rougeL; per-example scores (the packages' get_scores, once; our compute()
with use_aggregator=False, kernels compiled before timing, the median of --rounds runs). The two are checked equal first. Where
a package raises (a text without words) the pair is scored 0, as LongBench and LLaMA-Factory
do; pltrdy's RecursionError on a long sentence pair (Chinese without ".") is counted and left
out of the check.
"""

import argparse
import json
import os
import random
import statistics
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "tests", "data", "realsumm.jsonl")
THEIRS = ["rouge-1", "rouge-2", "rouge-l"]
OURS = ["rouge1", "rouge2", "rougeL"]
WORDS = ["我们", "今天", "天气", "很", "好", "的", "是", "模型", "训练", "数据", "中国", "北京",
         "人工智能", "学习", "了", "不", "在", "和", "一个", "问题", "。", "！", "？", "，", "AI"]


def english(n: int) -> tuple:
    with open(DATA, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    predictions, references = [], []
    for k in range(n):
        row = rows[k % len(rows)]
        sentences = row["prediction"].split("\n")
        turn = (k // len(rows)) % max(1, len(sentences))
        predictions.append("\n".join(sentences[turn:] + sentences[:turn]))
        references.append(row["references"][0])
    return predictions, references


def chinese(n: int) -> tuple:
    rng = random.Random(20261127)
    text = lambda: "".join(rng.choice(WORDS) for _ in range(rng.randint(10, 40)))  # noqa: E731
    return [text() for _ in range(n)], [text() for _ in range(n)]


def theirs(scorer, predictions, references) -> tuple:
    """(F per example and metric, RecursionErrors), timed by the caller."""
    out, recursion = [], 0
    for p, r in zip(predictions, references):
        try:
            scores = scorer.get_scores(p, r)[0]
            out.append([scores[m]["f"] for m in THEIRS])
        except ValueError:
            out.append([0.0] * len(THEIRS))
        except RecursionError:
            out.append(None)
            recursion += 1
    return out, recursion


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=5, help="our runs (the median is shown)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    import jieba
    import rouge as pltrdy
    import rouge_chinese

    import rouge_exact

    jieba.setLogLevel(60)  # (this script's own process: jieba's start-up lines are noise)
    jieba.initialize()
    rouge_exact.compile_kernels(wait=True)
    packages = {"pltrdy": pltrdy.Rouge(metrics=THEIRS),
                "rouge_chinese": rouge_chinese.Rouge(metrics=THEIRS)}
    print(f"{args.pairs:,} pairs, rouge1+rouge2+rougeL, per-example scores; seconds")
    print("| workload | profile | package | ours | package / ours |")
    print("|---|---|---|---|---|")
    zh_p, zh_r = chinese(args.pairs)
    cut = lambda texts: [" ".join(jieba.cut(t)) for t in texts]  # noqa: E731
    start = time.perf_counter()
    cut_p, cut_r = cut(zh_p), cut(zh_r)
    jieba_time = time.perf_counter() - start
    workloads = (("English (realsumm)", *english(args.pairs), {}, 0.0),
                 ("Chinese, cut text", cut_p, cut_r, {}, 0.0),
                 ("Chinese, raw text (jieba on both sides)", zh_p, zh_r, {"lang": "zh"},
                  jieba_time))
    for workload, predictions, references, lang, their_extra in workloads:
        given_p, given_r = (cut_p, cut_r) if lang else (predictions, references)
        for profile, scorer in packages.items():
            start = time.perf_counter()
            expected, recursion = theirs(scorer, given_p, given_r)
            their_time = time.perf_counter() - start + their_extra
            rouge_exact.compute(predictions=predictions[:50], references=references[:50],
                                profile=profile, rouge_types=OURS, use_aggregator=False,
                                **lang)  # warm: the tokenizer's first call
            times = []
            for _ in range(args.rounds):  # ours is quick: the median of a few runs
                start = time.perf_counter()
                ours = rouge_exact.compute(predictions=predictions, references=references,
                                           profile=profile, rouge_types=OURS,
                                           use_aggregator=False, **lang)
                times.append(time.perf_counter() - start)
            our_time = statistics.median(times)
            differing = sum(1 for k, row in enumerate(expected) if row is not None and
                            row != [ours[t][k] for t in OURS])
            assert differing == 0, (workload, profile, differing)
            note = f" ({recursion} RecursionError)" if recursion else ""
            print(f"| {workload}{note} | {profile} | {their_time:.2f} | {our_time:.3f} | "
                  f"{their_time / our_time:.0f}x |")

if __name__ == "__main__":
    main()
