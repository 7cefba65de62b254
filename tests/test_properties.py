"""Properties every type must have (hypothesis), through the metric as users call it."""
import warnings

import pytest
from hypothesis import given, settings, strategies as st

from conftest import COMPILED, staged

K = COMPILED  # (compiled at the first test that reads a kernel)

TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum", "rougeW", "rougeW-2.0",
         "rougeS4", "rougeSU4", "rougeS", "rougeSU", "rougeS0"]
SYMMETRIC = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeS4", "rougeSU4", "rougeS", "rougeSU"]
word = st.sampled_from("the a cat dog sat on mat big red ran".split())
sentence = st.lists(word, min_size=0, max_size=8).map(" ".join)
text = st.lists(sentence, min_size=1, max_size=3).map("\n".join)


def per_example(metric, preds, refs, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return metric.compute(predictions=preds, references=refs, rouge_types=TYPES,
                              use_aggregator=False, detailed=True, **options)


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(text, text), min_size=1, max_size=5),
       profile=st.sampled_from(["rouge_score", "rouge155"]),
       alpha=st.sampled_from([0.0, 0.3, 0.5, 1.0]))
def test_scores_are_in_unit_interval(metric, pairs, profile, alpha):
    out = per_example(metric, [p for p, _ in pairs], [r for _, r in pairs], profile=profile,
                      alpha=alpha)
    for t in TYPES:
        for key in ("precision", "recall", "fmeasure"):
            assert all(0.0 <= v <= 1.0 for v in out[t][key]), (t, key)


@settings(max_examples=60, deadline=None)
@given(t=text)
def test_identical_texts_score_one_where_the_definition_allows(metric, t):
    out = per_example(metric, [t], [t])
    n_tokens = len(t.split())
    for name, needs in (("rouge1", 1), ("rouge2", 2), ("rouge3", 3), ("rougeL", 1),
                        ("rougeLsum", 1), ("rougeS4", 2), ("rougeSU4", 2), ("rougeS", 2),
                        ("rougeSU", 2), ("rougeS0", 2)):
        expected = 1.0 if n_tokens >= needs else 0.0
        assert out[name]["fmeasure"][0] == expected, name
    # ROUGE-W weights the reference twice (ROUGE-1.5.5): for one sentence, precision 1 and
    # recall m ** (1 - w) (SPEC §4.4); runs end at sentence breaks, so only one sentence
    if n_tokens and "\n" not in t.strip():
        assert abs(out["rougeW"]["precision"][0] - 1.0) < 1e-12
        assert abs(out["rougeW"]["recall"][0] - n_tokens ** (1 - 1.2)) < 1e-12


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(text, text), min_size=1, max_size=4))
def test_swapping_prediction_and_reference_swaps_p_and_r(metric, pairs):
    preds = [p for p, _ in pairs]
    refs = [r for _, r in pairs]
    fwd = per_example(metric, preds, refs)
    back = per_example(metric, refs, preds)
    for t in SYMMETRIC:
        assert fwd[t]["precision"] == back[t]["recall"], t
        assert fwd[t]["recall"] == back[t]["precision"], t


# Text that exercises the byte scanner: case, long words (> 12 characters do not pack),
# digits, NUL, newlines, non-ASCII letters (İ and the Kelvin sign lower to ASCII), and words
# whose stems differ from the word or do not pack.
scanner_word = st.sampled_from(
    "The CATS Running ran runs universality Internationalization électricité İstanbul "
    "\u212aelvin 2024 x42 ab-cd generalizations orderly connection \x00 \n . , "
    "abcdefghijklmnopqrstuvwxyz".split(" "))
scanner_text = st.lists(scanner_word, min_size=0, max_size=12).map(" ".join)


def _first_appearance_ids(tokens):
    """Token ids relabelled 0, 1, ... by first appearance: equal tokens, equal ids."""
    seen = {}
    return [seen.setdefault(t, len(seen)) for t in tokens.tolist()]


@settings(max_examples=80, deadline=None)
@given(texts=st.lists(scanner_text, min_size=1, max_size=6),
       stemmer=st.sampled_from([None, "porter", "rouge155"]),
       unicode_lower=st.booleans())
def test_one_pass_scan_and_stem_equals_scan_then_stem(metric_module, texts, stemmer,
                                                      unicode_lower):
    # the fast path (scan_stem_tokens with the memo's hash table) against the plain scan plus
    # the Python stem memo; twice, so that the second call reads stems from the table
    M = staged("text.tokenizers")

    def memo():
        if stemmer is None:
            return None
        return M.StemMemo(staged("text.tokenizers")._porter_nltk() if stemmer == "porter"
                          else staged("text.rouge155_lexicon").stem_token_rouge155)

    plain = M.tokenize_ascii_batch(texts, K.scan_ascii_tokens, unicode_lower=unicode_lower,
                                   stem_memo=memo(), dense_ids=K.dense_ids)
    fast_memo = memo()
    for _ in range(2):
        fast = M.tokenize_ascii_batch(texts, K.scan_ascii_tokens, unicode_lower=unicode_lower,
                                      stem_memo=fast_memo, dense_ids=K.dense_ids,
                                      scan_stem=K.scan_stem_tokens,
                                      table_insert=K.stem_table_insert)
        assert _first_appearance_ids(fast.tokens) == _first_appearance_ids(plain.tokens)
        # packed words (ids >= 0) are the words themselves; negative ids number long words
        assert [max(t, -1) for t in fast.tokens.tolist()] == \
            [max(t, -1) for t in plain.tokens.tolist()]
        assert fast.sent_offsets.tolist() == plain.sent_offsets.tolist()
        assert fast.text_sent_offsets.tolist() == plain.text_sent_offsets.tolist()


@settings(max_examples=80, deadline=None)
@given(pairs=st.lists(st.tuples(scanner_text, scanner_text), min_size=1, max_size=6),
       profile=st.sampled_from(["rouge_score", "rouge155"]),
       limits=st.sampled_from([{}, {"length_limit_words": 3}, {"length_limit_bytes": 7},
                               {"split_sentences": True}]))
@pytest.mark.slow
def test_texts_with_newline_is_a_count_of_texts_holding_one(pairs, profile, limits):
    # the byte tokenizer reads the count from its sentences; the plain count of the texts
    # as scored (after split_sentences and the word limit, which apply before tokenizing)
    P = staged("scorer.pipeline")
    R = staged("options")
    options = R.RougeOptions.build(rouge_types=["rouge1", "rougeLsum"], profile=profile,
                                   **limits)
    for copies in (1, 1 + 300 // len(pairs)):  # a few texts, and over 256 (read from the scan)
        preds, refs = [p for p, _ in pairs] * copies, [r for _, r in pairs] * copies
        scorer = P.Scorer(options)
        scorer.add(preds, refs, rows=False)
        texts = preds + refs
        if limits.get("split_sentences"):
            texts = [P.split_sentences_rule_based(t) for t in texts]
        if "length_limit_words" in limits:
            texts = [P.truncate_words(t, limits["length_limit_words"]) for t in texts]
        assert scorer.notes.texts_with_newline == sum("\n" in t for t in texts)


piece = st.sampled_from(["the cat", " sat", "caf\u00e9", "\u4e2d\u6587", "\n", "\U0001f600",
                         "\x00", "\u0130", "\u212a"])
clean = st.lists(piece, min_size=0, max_size=4).map("".join)
lone = st.sampled_from(["\ud800", "\udce9", "\udfff", "\ud83d\ude00"])  # (a pair written
# as two code points is two lone surrogates to Python: not text either)
# where to put a lone surrogate: (row, 0 for the prediction or 1 + which reference, position)
injection = st.tuples(st.integers(0, 11), st.integers(0, 3), st.integers(0, 40), lone)


def _first_lone_surrogate(predictions, references):
    """A plain walk in check_inputs' order: (argument name, its first surrogate code point)."""
    def bad(text):
        return next((ch for ch in text if 0xD800 <= ord(ch) <= 0xDFFF), None)
    for i, text in enumerate(predictions):
        if bad(text):
            return f"predictions[{i}]", bad(text)
    for i, row in enumerate(references):
        for j, text in enumerate([row] if isinstance(row, str) else row):
            if bad(text):
                return (f"references[{i}]" if isinstance(row, str)
                        else f"references[{i}][{j}]"), bad(text)
    return None


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(st.tuples(clean, st.lists(clean, min_size=1, max_size=3)), min_size=1,
                    max_size=12),
       injections=st.lists(injection, max_size=3),
       lists=st.booleans(),
       options=st.sampled_from([{}, {"profile": "rouge155"}, {"tokenizer": "unicode"},
                                {"split_sentences": True}, {"remove_stopwords": True}]),
       cap=st.sampled_from([1, 3, 50_000]))
def test_a_lone_surrogate_is_named_as_check_inputs_would_on_any_chunking(
        metric, evaluate_metric, rows, injections, lists, options, cap):
    # the scorer finds it chunk by chunk (the byte tokenizers as they encode): it names the
    # first one in the order check_inputs looks, whatever the chunks; add_batch's full check
    # before storing names the same one
    import pytest
    predictions = [p for p, _ in rows]
    references = [list(refs) if lists else refs[0] for _, refs in rows]
    for row, which, at, char in injections:  # a few, anywhere: most rows stay clean
        row %= len(rows)
        if which == 0 or not lists:
            texts, k = (predictions, row) if which == 0 else (references, row)
        else:
            texts, k = references[row], (which - 1) % len(references[row])
        texts[k] = texts[k][:at] + char + texts[k][at:]
    expected = _first_lone_surrogate(predictions, references)
    pipeline = staged("scorer.pipeline")
    saved = pipeline._CHUNK_EXAMPLES
    pipeline._CHUNK_EXAMPLES = cap
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if expected is None:
                metric.compute(predictions=predictions, references=references,
                               rouge_types=["rouge1", "rougeLsum"], **options)
                return
            where, char = expected
            message = f"{where}: holds {char!r}, a lone surrogate"
            with pytest.raises(ValueError) as raised:
                metric.compute(predictions=predictions, references=references,
                               rouge_types=["rouge1", "rougeLsum"], **options)
            assert str(raised.value).startswith(message)
            with pytest.raises(ValueError) as stored:
                evaluate_metric.add_batch(predictions=predictions, references=references)
            assert str(stored.value).startswith(message)
    finally:
        pipeline._CHUNK_EXAMPLES = saved
