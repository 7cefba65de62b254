"""The pltrdy and rouge_chinese profiles against the packages themselves: pltrdy's rouge 1.0.1
(LongBench's and lm-evaluation-harness's ROUGE) and rouge-chinese 1.0.3 (LLaMA-Factory's and
ChatGLM's), run here on the same text. Per example, P, R and F bit for bit; the corpus score
is the exact mean of their per-example numbers (their avg=True adds left to right, within a
few ulps of it); raw Chinese under lang="zh" against the scripts' own jieba recipe."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from conftest import needed, pltrdy_rouge, staged

# the peers: a skip with its reason where one is missing (outside CI, where it must be there)
jieba = needed("jieba")
pltrdy = pltrdy_rouge()
rouge_chinese = needed("rouge_chinese")

PACKAGES = {"pltrdy": pltrdy.Rouge, "rouge_chinese": rouge_chinese.Rouge}
THEIR_METRICS = ["rouge-1", "rouge-2", "rouge-3", "rouge-4", "rouge-5", "rouge-l"]
OUR_TYPES = ["rouge1", "rouge2", "rouge3", "rouge4", "rouge5", "rougeL"]
ZERO = {"p": 0.0, "r": 0.0, "f": 0.0}


def _theirs(profile: str, predictions, references):
    """The package's per-example {metric: {p, r, f}}; where it raises on an empty text
    ("Hypothesis is empty.", "Reference is empty.", "Collections must contain at least 1
    sentence."), zeros: what LongBench's except: and LLaMA-Factory's guard print."""
    scorer = PACKAGES[profile](metrics=THEIR_METRICS)
    out = []
    for p, r in zip(predictions, references):
        try:
            out.append(scorer.get_scores(p, r)[0])
        except ValueError as error:
            assert "empty" in str(error) or "at least 1 sentence" in str(error), error
            out.append({m: ZERO for m in THEIR_METRICS})
    return out


def _ours(metric, profile: str, predictions, references, **options):
    return metric.compute(predictions=predictions, references=references, profile=profile,
                          rouge_types=OUR_TYPES, use_aggregator=False, detailed=True, **options)


def _differing(ours, theirs) -> list:
    bad = []
    for ours_type, their_metric in zip(OUR_TYPES, THEIR_METRICS):
        for k, scores in enumerate(theirs):
            mine = tuple(ours[ours_type][key][k] for key in ("precision", "recall", "fmeasure"))
            if mine != (scores[their_metric]["p"], scores[their_metric]["r"],
                        scores[their_metric]["f"]):
                bad.append((k, ours_type, mine, scores[their_metric]))
    return bad


@pytest.mark.slow  # the packages' own Python on 3,500 rows: 15-18 s each
@pytest.mark.parametrize("profile", ["pltrdy", "rouge_chinese"])
def test_realsumm_equals_the_package(metric, realsumm, profile):
    """realsumm's 3,500 summaries (35 systems, 100 articles): ROUGE-1..5 and L, every P, R, F
    equal; the corpus means are the exact means of the package's numbers."""
    predictions = [row["prediction"] for row in realsumm]
    references = [row["references"][0] for row in realsumm]
    theirs = _theirs(profile, predictions, references)
    assert _differing(_ours(metric, profile, predictions, references), theirs) == []
    corpus = metric.compute(predictions=predictions, references=references, profile=profile,
                            rouge_types=OUR_TYPES)
    for ours_type, their_metric in zip(OUR_TYPES, THEIR_METRICS):
        exact = sum(Fraction(s[their_metric]["f"]) for s in theirs) / len(theirs)
        assert corpus[ours_type] == float(exact)
    # their avg=True: the same numbers added left to right, then divided (on the first 700
    # rows: a second run of the package over all 3,500 took 10-15 s and checks the same sum)
    part = metric.compute(predictions=predictions[:700], references=references[:700],
                          profile=profile, rouge_types=OUR_TYPES)
    averaged = PACKAGES[profile](metrics=THEIR_METRICS).get_scores(
        predictions[:700], references[:700], avg=True)
    for ours_type, their_metric in zip(OUR_TYPES, THEIR_METRICS):
        assert math.isclose(part[ours_type], averaged[their_metric]["f"], rel_tol=1e-13)


# Chinese words and characters, the sentence ends both packages know (。！？ and "?", closing
# quotes, six dots, two ellipses), dots, spaces, newlines and Latin words
WORDS = ["我们", "今天", "天气", "很", "好", "的", "是", "模型", "训练", "数据", "中国", "北京",
         "人工智能", "学习", "了", "不", "在", "和", "一个", "问题", "。", "！", "？", "?", "，",
         "”", "’", "“", "……", "......", ".", " ", "\n", "AI", "GPT-4", "3.5", "abc def"]


def _chinese(rng: random.Random, longest: int) -> str:
    return "".join(rng.choice(WORDS) for _ in range(rng.randint(0, longest)))


def _jieba_joined(text: str) -> str:
    """The scripts' cut: jieba's default dictionary, precise mode, words joined by spaces."""
    return " ".join(jieba.cut(text))


def test_generated_chinese_equals_the_llama_factory_recipe(metric):
    """2,000 generated Chinese pairs, raw text in, lang="zh": LLaMA-Factory's compute_metrics
    (jieba, then rouge-chinese's get_scores; zeros where a text has no words) per example."""
    rng = random.Random(20261127)
    predictions = [_chinese(rng, 30) for _ in range(2000)]
    references = [_chinese(rng, 30) for _ in range(2000)]
    theirs = []
    for p, r in zip(predictions, references):
        hypothesis, reference = _jieba_joined(p), _jieba_joined(r)
        if not hypothesis.split() or not reference.split():  # LLaMA-Factory's guard
            theirs.append({m: ZERO for m in THEIR_METRICS})
        else:
            theirs.append(rouge_chinese.Rouge(metrics=THEIR_METRICS).get_scores(
                hypothesis, reference)[0])
    ours = _ours(metric, "rouge_chinese", predictions, references, lang="zh")
    assert _differing(ours, theirs) == []
    assert "lang:zh" in ours["signature"] and "tok:rouge_chinese+jieba" in ours["signature"]


def test_generated_chinese_equals_the_longbench_recipe(metric):
    """2,000 generated pairs with 1-3 answers each, lang="zh": LongBench's rouge_zh_score
    (jieba, then pltrdy's get_scores, 0.0 where it raises), the maximum over the answers."""
    rng = random.Random(42)
    predictions = [_chinese(rng, 30) for _ in range(2000)]
    references = [[_chinese(rng, 30) for _ in range(rng.randint(1, 3))] for _ in range(2000)]

    def rouge_zh_score(prediction, ground_truth):
        prediction, ground_truth = _jieba_joined(prediction), _jieba_joined(ground_truth)
        try:
            scores = pltrdy.Rouge().get_scores([prediction], [ground_truth], avg=True)
        except ValueError:  # (LongBench: a bare except)
            return 0.0
        return scores["rouge-l"]["f"]

    theirs = [max(rouge_zh_score(p, gt) for gt in gts) for p, gts in zip(predictions, references)]
    ours = metric.compute(predictions=predictions, references=references, profile="pltrdy",
                          lang="zh", rouge_types=["rougeL"], use_aggregator=False)
    assert ours["rougeL"] == theirs
    corpus = metric.compute(predictions=predictions, references=references, profile="pltrdy",
                            lang="zh", rouge_types=["rougeL"])["rougeL"]
    assert corpus == float(sum(map(Fraction, theirs)) / len(theirs))


@pytest.mark.parametrize("profile", ["pltrdy", "rouge_chinese"])
@pytest.mark.parametrize("prediction, reference", [
    ("", "a b"), ("a b", ""), ("", ""),          # the package raises: 0 here
    (".", "a"), ("...", "a . b"),                # dots alone: no sentence for pltrdy
    ("   ", "a"), ("   ", "   "), ("a\n \nb", "a b"),  # a sentence of spaces: one "" word
    ("a. . b", "a b"), ("a b a b a", "a b"),     # sets: "a b" counted once
    ("3.5 apples", "3 5 apples"), ("e.g. this", "e g this"),
    ("你好。世界！", "你好 世界"), ("“好。”他说", "好 他说"),
])
def test_edge_cases_equal_the_package(metric, profile, prediction, reference):
    theirs = _theirs(profile, [prediction], [reference])
    assert _differing(_ours(metric, profile, [prediction], [reference]), theirs) == []


def test_hand_computed_scores(metric):
    """pltrdy, by hand. "a b a c" against "a b d": distinct unigrams {a, b, c} and {a, b, d},
    2 shared: P = 2/3, R = 2/3, F = 2 (4/9) / (4/3 + 1e-8). ROUGE-L: one sentence each, the
    LCS "a b" (words {a, b}): 2 of 3 distinct words either way, the same numbers."""
    scores = metric.compute(predictions=["a b a c"], references=["a b d"], profile="pltrdy",
                            rouge_types=["rouge1", "rougeL"], use_aggregator=False,
                            detailed=True)
    f = 2.0 * ((2 / 3 * (2 / 3)) / (2 / 3 + 2 / 3 + 1e-8))
    for name in ("rouge1", "rougeL"):
        assert scores[name] == {"precision": [2 / 3], "recall": [2 / 3], "fmeasure": [f]}
    # a perfect match is not 1: 2 (1 / (2 + 1e-8))
    assert metric.compute(predictions=["a b"], references=["a b"], profile="rouge_chinese",
                          rouge_types=["rouge1"])["rouge1"] == 2.0 * (1.0 / (2.0 + 1e-8))


def test_profiles_declare_their_conventions(metric, metric_module):
    """The signature names the profile, its tokenizer and its F; kinds the packages do not
    have, and languages without their jieba recipe, are refused by name."""
    options = staged("options").RougeOptions.build
    signature = options(profile="pltrdy").signature()
    assert "profile:pltrdy" in signature and "tok:pltrdy" in signature
    assert "alpha:f1+1e-8" in signature and "multiref:max" in signature
    with pytest.raises(ValueError, match="rouge_types: got 'rougeLsum' with "
                                         "profile='rouge_chinese'"):
        options(profile="rouge_chinese", rouge_types=["rougeLsum"])
    with pytest.raises(ValueError, match="rouge_types: got 'rougeW' with profile='pltrdy'"):
        options(profile="pltrdy", rouge_types=["rougeW"])
    with pytest.raises(ValueError, match="lang: got 'ja' with profile='pltrdy'.*'zh'"):
        options(profile="pltrdy", lang="ja")
    with pytest.raises(ValueError, match="tokenizer"):
        options(profile="pltrdy", tokenizer="unicode")
    # an explicit alpha is the alpha F of the other profiles
    f = metric.compute(predictions=["a b a c"], references=["a b d"], profile="pltrdy",
                       rouge_types=["rouge1"], alpha=0.25)["rouge1"]
    assert f == (2 / 3) * (2 / 3) / (0.25 * (2 / 3) + 0.75 * (2 / 3))


def test_every_surface_takes_the_profiles(metric, realsumm):
    """The interval and compare() score the package's numbers: the interval's mid and each
    system's compare() score are the exact means of pltrdy's F; the CLI prints them."""
    rows = [row for row in realsumm if row["system"] in ("abs/bart/out", "ext/bart/out")]
    by_system: dict = {}
    for row in rows:
        by_system.setdefault(row["system"], {})[row["doc"]] = row
    docs = sorted(set(by_system["abs/bart/out"]) & set(by_system["ext/bart/out"]))
    references = [by_system["abs/bart/out"][d]["references"][0] for d in docs]
    systems = {name: [by_system[name][d]["prediction"] for d in docs] for name in by_system}
    means = {}
    for name, predictions in systems.items():
        theirs = _theirs("pltrdy", predictions, references)
        means[name] = float(sum(Fraction(s["rouge-l"]["f"]) for s in theirs) / len(theirs))
    detailed = metric.compute(predictions=systems["abs/bart/out"], references=references,
                              profile="pltrdy", rouge_types=["rougeL"], detailed=True)
    assert detailed["rougeL"]["fmeasure"]["mid"] == means["abs/bart/out"]
    result = metric.compare(systems, references, profile="pltrdy", rouge_types=["rougeL"],
                            n_samples=200)
    assert "profile:pltrdy" in result["signature"]
    for name in systems:  # compute()'s exact mean, and the difference of two of them
        assert result[name]["rougeL"]["fmeasure"]["score"] == means[name]
    assert result["ext/bart/out"]["rougeL"]["fmeasure"]["delta"] == \
        means["ext/bart/out"] - means["abs/bart/out"]


def test_twins_equal_the_compiled_kernels():
    """The two new kernels against their numpy twins on seeded random batches (sentences of
    0-8 tokens from 6 words, so that repeats and ties abound)."""
    from rouge_exact.kernels import backend
    from rouge_exact.kernels import twins_sets

    kernels = backend.compiled_kernels()
    rng = np.random.default_rng(20261127)
    for _ in range(300):
        tokens, sent_offsets, text_sent_offsets = [], [0], [0]
        for _ in range(8):
            for _ in range(rng.integers(0, 4)):
                tokens += rng.integers(0, 6, int(rng.integers(0, 9))).tolist()
                sent_offsets.append(len(tokens))
            text_sent_offsets.append(len(sent_offsets) - 1)
        tokens, sent_offsets = np.array(tokens, np.int64), np.array(sent_offsets, np.int64)
        text_sent_offsets = np.array(text_sent_offsets, np.int64)
        pred = rng.integers(0, 8, 6).astype(np.int64)
        ref = rng.integers(0, 8, 6).astype(np.int64)
        args = (tokens, sent_offsets, text_sent_offsets, pred, ref)
        assert np.array_equal(kernels.set_union_lcs_stats(*args),
                              twins_sets.set_union_lcs_stats(*args))
        args = (tokens, sent_offsets[text_sent_offsets], pred, ref,
                np.array([1, 2, 3, 5], np.int64))
        assert np.array_equal(kernels.distinct_ngram_stats(*args),
                              twins_sets.distinct_ngram_stats(*args))


def test_space_takes_the_profiles(metric):
    """The Space's profile menu lists both; choosing one unticks the types its package does
    not have (rougeLsum), keeps the F weight at 0.5, and the page's options score them."""
    import importlib

    gr = pytest.importorskip("gradio")
    handlers = importlib.import_module("space.handlers")
    options = importlib.import_module("space.options")
    assert {"pltrdy", "rouge_chinese"} <= set(options.control("profile")["choices"])
    changed = handlers.profile_changed("pltrdy", "max", 0.5,
                                       ["rouge1", "rouge2", "rougeL", "rougeLsum"])
    assert changed == (gr.update(), gr.update(), gr.update(value=["rouge1", "rouge2", "rougeL"]))
    page = options.page_options(["rouge1", "rougeL"], "", False, False, "rouge_chinese", 0.5,
                                "max", None, False, None)
    scored = metric.compute(predictions=["a b a c"], references=["a b d"], **page)
    assert scored["rouge1"] == 2.0 * ((2 / 3 * (2 / 3)) / (2 / 3 + 2 / 3 + 1e-8))


def test_cli_prints_the_profile(tmp_path):
    """`rouge-exact --profile pltrdy`: the package's corpus F of two lines, and the signature."""
    import json
    import subprocess
    import sys

    (tmp_path / "p.txt").write_text("a b a c\nthe cat sat. on the mat\n", encoding="utf-8")
    (tmp_path / "r.txt").write_text("a b d\nthe cat. sat on a mat\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "rouge_exact", str(tmp_path / "p.txt"),
                          str(tmp_path / "r.txt"), "--profile", "pltrdy", "--json"],
                         capture_output=True, text=True, check=True).stdout
    result = json.loads(out)
    theirs = pltrdy.Rouge().get_scores(["a b a c", "the cat sat. on the mat"],
                                       ["a b d", "the cat. sat on a mat"])
    for name, their_metric in (("rouge1", "rouge-1"), ("rouge2", "rouge-2"),
                               ("rougeL", "rouge-l")):
        exact = sum(Fraction(s[their_metric]["f"]) for s in theirs) / 2
        assert result[name]["fmeasure"]["mid"] == float(exact)
    assert "profile:pltrdy" in result["signature"]


def _docs_example(k: int) -> tuple:
    """docs/llm.md's k-th ```python block, run: (its namespace, what it printed)."""
    import contextlib
    import io
    import pathlib
    import re

    page = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "llm.md").read_text("utf-8")
    code = re.findall(r"```python\n(.*?)```", page, re.S)[k]
    namespace: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/llm.md", "exec"), namespace)
    return namespace, printed.getvalue()


def test_docs_example_prints_what_llama_factory_prints(metric):
    """docs/llm.md's recipe against LLaMA-Factory's compute_metrics, run on the same pairs:
    jieba, rouge-chinese, 0 where a text has no words, each F x 100 rounded to 4 decimals,
    then np.mean. The page's printed dict is theirs."""
    namespace, printed = _docs_example(0)
    score_dict: dict = {"rouge-1": [], "rouge-2": [], "rouge-l": []}
    for pred, label in zip(namespace["predictions"], namespace["references"]):
        hypothesis, reference = list(jieba.cut(pred)), list(jieba.cut(label))
        if len(" ".join(hypothesis).split()) == 0 or len(" ".join(reference).split()) == 0:
            result = {"rouge-1": {"f": 0.0}, "rouge-2": {"f": 0.0}, "rouge-l": {"f": 0.0}}
        else:
            result = rouge_chinese.Rouge().get_scores(" ".join(hypothesis),
                                                      " ".join(reference))[0]
        for k, v in result.items():
            score_dict[k].append(round(v["f"] * 100, 4))
    assert printed == f"{ {k: float(np.mean(v)) for k, v in score_dict.items()} }\n"


def test_docs_example_prints_what_longbench_prints(metric):
    """docs/llm.md's LongBench recipe against LongBench's own scorer on the same pairs:
    rouge_zh_score for the Chinese prediction, rouge_score for the English one, the best
    answer each, round(100 * total / n, 2)."""
    namespace, printed = _docs_example(1)

    def rouge_score(prediction, ground_truth):
        try:
            return pltrdy.Rouge().get_scores([prediction], [ground_truth],
                                             avg=True)["rouge-l"]["f"]
        except Exception:
            return 0.0

    zh = lambda p, g: rouge_score(_jieba_joined(p), _jieba_joined(g))  # noqa: E731
    (p_zh, p_en), (a_zh, a_en) = namespace["predictions"], namespace["answers"]
    total = max(zh(p_zh, g) for g in a_zh) + max(rouge_score(p_en, g) for g in a_en)
    assert printed == f"{round(100 * total / 2, 2)}\n"


def test_what_the_space_shows_is_what_pltrdy_counts(metric_module):
    """By hand, "a b c. d a" against "a c d": pltrdy's sentences "a b c" and "d a"; the LCS
    with the first is "a c", with the second "d" (its traceback goes left on the tie at the
    corner, then meets d = d): the words {a, c, d}, 3 of the prediction's 4 distinct words and
    all 3 of the reference's. The highlights mark every token of those words; ROUGE-1 marks
    the tokens of the unigrams both texts have (the same here)."""
    opts = staged("options").RougeOptions.build(profile="pltrdy", rouge_types=["rouge1", "rougeL"])
    assert staged("scorer.display").tokens_of("a b c. d a", profile="pltrdy") == [["a", "b", "c"],
                                                                         ["d", "a"]]
    for rouge_type in opts.rouge_types:
        marks_p, marks_r, words_p, words_r = staged("scorer.display").pair_marks(
            opts, "a b c. d a", "a c d", rouge_type)
        assert list(words_p) == ["a", "b", "c", "d", "a"] and list(words_r) == ["a", "c", "d"]
        assert marks_p.tolist() == [True, False, True, True, True]
        assert marks_r.tolist() == [True, True, True]
    theirs = pltrdy.Rouge(metrics=["rouge-l"]).get_scores("a b c. d a", "a c d")[0]["rouge-l"]
    assert (theirs["p"], theirs["r"]) == (3 / 4, 1.0)


def test_long_sentences_equal_pltrdy_given_stack(metric):
    """Sentences of 700 words: pltrdy's recursive traceback raises RecursionError at Python's
    default limit (LongBench then prints 0); with a deeper limit, for this test only, it
    scores them, and so does the profile, equally (the kernel's traceback is checkpointed)."""
    import sys

    rng = random.Random(3)
    words = [str(k) for k in range(30)]
    prediction = " ".join(rng.choice(words) for _ in range(700))
    reference = " ".join(rng.choice(words) for _ in range(700))
    scorer = pltrdy.Rouge(metrics=["rouge-l"])
    with pytest.raises(RecursionError):
        scorer.get_scores(prediction, reference)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        theirs = scorer.get_scores(prediction, reference)[0]["rouge-l"]
    finally:
        sys.setrecursionlimit(limit)
    ours = metric.compute(predictions=[prediction], references=[reference], profile="pltrdy",
                          rouge_types=["rougeL"], use_aggregator=False, detailed=True)
    assert ours["rougeL"] == {"precision": [theirs["p"]], "recall": [theirs["r"]],
                              "fmeasure": [theirs["f"]]}


def test_jieba_never_loads_a_cache_from_the_shared_temporary_folder(tmp_path):
    """jieba's default cache is TMPDIR/jieba.cache, loaded without a check: another user of
    the machine could plant one that cuts text differently. lang="zh" keeps jieba's cache in
    the package's own cache folder: a planted cache (whose dictionary makes the text one
    word) in TMPDIR changes nothing, and the cache is written where the package caches."""
    import marshal
    import os
    import subprocess
    import sys

    planted = tmp_path / "tmp"
    planted.mkdir()
    text = "今天天气很好"
    with open(planted / "jieba.cache", "wb") as f:  # a dictionary of one word: the text
        marshal.dump(({**{text[:k]: 0 for k in range(1, len(text))}, text: 1000}, 1000), f)
    cache = tmp_path / "cache"
    env = {**os.environ, "TMPDIR": str(planted), "ROUGE_METRIC_CACHE_DIR": str(cache)}
    code = ("import rouge_exact.scorer.display as d; "
            f"print(d.tokens_of({text!r}, profile='pltrdy', lang='zh'))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    tokenizer = jieba.Tokenizer()  # jieba's own dictionary, built here
    tokenizer.tmp_dir = str(tmp_path / "own")
    os.makedirs(tokenizer.tmp_dir)
    assert out.strip() == str([list(tokenizer.cut(text))]) != str([[text]])
    assert (cache / "jieba" / "jieba.cache").is_file()


# rouge-chinese's sentence ends, quotes, dots and ellipses, pltrdy's ".", and whitespace (a
# few of str.split's non-ASCII ones), so that every rule, its non-overlapping matches and the
# empty pieces come up often
_SCAN_ALPHABET = list("。！？?”’.…，\n \t\u3000\xa0\x1fab中") + ["......", "……", "”。"]


def _scanned_both(texts, rule):
    """(compiled scan_words, its Python twin) on the texts."""
    from rouge_exact.kernels import backend
    from rouge_exact.kernels import twins_sets

    points = np.frombuffer("".join(texts).encode("utf-32-le"), dtype="<u4")
    ends = np.cumsum(np.array([len(t) for t in texts], dtype=np.int64))
    return (backend.compiled_kernels().scan_words(points, ends, rule),
            twins_sets.scan_words(points, ends, rule))


@pytest.mark.parametrize("rule", [0, 1])
def test_word_scanner_equals_the_packages_python(rule):
    """The compiled scanner against its twin, the profiles' own Python (whose sentence
    functions are the packages' own splitting: the tests above), on 3,000 seeded random
    batches of texts drawn from the characters every rule reads."""
    rng = random.Random(20261127 + rule)
    for _ in range(3000):
        texts = ["".join(rng.choice(_SCAN_ALPHABET) for _ in range(rng.randint(0, 14)))
                 for _ in range(rng.randint(0, 4))]
        compiled, twin = _scanned_both(texts, rule)
        for got, want in zip(compiled, twin):
            assert np.array_equal(got, want), (texts, rule)


def test_word_scanner_whitespace_is_str_split_s():
    """Every code point between two letters: a word break exactly where str.split() breaks
    (all 1,114,112 less the surrogates, which no str the scanner gets holds)."""
    text = "".join("a" + chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF) + "a"
    compiled, twin = _scanned_both([text], 0)
    assert compiled[0].shape == twin[0].shape == (len(text.replace(".", " ").split()),)
    for got, want in zip(compiled, twin):
        assert np.array_equal(got, want)
