"""Tokenizers and the sentence splitter, on hand-written expectations."""
import re
import warnings

import pytest
from hypothesis import given, settings, strategies as st

from conftest import staged

T = staged("text.tokenizers")


@pytest.mark.parametrize("text,tokens", [
    ("今天天气很好", ["今", "天", "天", "气", "很", "好"]),
    ("Hello, Wörld! 123", ["hello", "wörld", "123"]),
    ("안녕하세요", ["안", "녕", "하", "세", "요"]),
    ("नमस्ते दुनिया", ["नमस्ते", "दुनिया"]),  # vowel signs and virama stay in the word
    ("ｆｕｌｌ　ｗｉｄｔｈ", ["full", "width"]),  # NFKC
    ("Straße", ["strasse"]),  # case folding
    ("東京 is big", ["東", "京", "is", "big"]),
    ("مرحبا بالعالم", ["مرحبا", "بالعالم"]),
    ("", []),
])
def test_unicode_tokenizer(text, tokens):
    assert T.unicode_tokenize(text) == tokens


def test_whitespace_tokenizer():
    assert T.whitespace_tokenize("The cat,  sat.\nOK") == ["the", "cat,", "sat.", "ok"]


@pytest.mark.parametrize("text,lines", [
    ("Dr. Smith went home. He slept! Then? no.", ["Dr. Smith went home.", "He slept!", "Then? no."]),
    ("It cost $3.5 million. Prices rose.", ["It cost $3.5 million.", "Prices rose."]),
    ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ("J. R. R. Tolkien wrote it. It sold.", ["J. R. R. Tolkien wrote it.", "It sold."]),
    ("One.\nTwo. Three.", ["One.", "Two.", "Three."]),
    ("今天很好。明天下雨。", ["今天很好。", "明天下雨。"]),
    ("no end", ["no end"]),
])
def test_sentence_splitter(text, lines):
    assert T.split_sentences(text).split("\n") == lines


def test_unicode_tokenizer_scores_cjk(metric):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        default = metric.compute(predictions=["今天天气很好"], references=["今天天气不好"],
                                 rouge_types=["rouge1"])
    assert default["rouge1"] == 0.0
    assert any('tokenizer="unicode"' in str(w.message) for w in caught)
    out = metric.compute(predictions=["今天天气很好"], references=["今天天气不好"],
                         rouge_types=["rouge1"], tokenizer="unicode", detailed=True)
    assert out["rouge1"]["fmeasure"]["mid"] == pytest.approx(5 / 6)  # 5 of 6 characters
    assert "tok:unicode" in out["signature"]


def test_split_sentences_changes_rouge_lsum_only(metric):
    pred = "The cat sat. The dog ran."
    ref = "The dog ran. The cat sat."
    plain = metric.compute(predictions=[pred], references=[ref],
                           rouge_types=["rougeL", "rougeLsum"], use_aggregator=False)
    split = metric.compute(predictions=[pred], references=[ref], split_sentences=True,
                           rouge_types=["rougeL", "rougeLsum"], use_aggregator=False)
    assert split["rougeL"] == plain["rougeL"]
    assert split["rougeLsum"] == [1.0] and plain["rougeLsum"][0] < 1.0


# The splitter as it was before it was made linear (its regex backtracked over every start
# position of a run of end marks, and each skipped abbreviation re-split the line from the
# last cut): the reference for the linear one, which must cut exactly the same places.
_OLD_END = re.compile(r"([.!?。！？]+[\"')\]»”’]*)(\s+)(?=[\"'(\[«“‘]?[A-Z0-9\u00C0-\u024F\u0370-\u04FF])")


def _split_sentences_quadratic(text):
    out_lines = []
    for line in text.split("\n"):
        pieces = []
        last = 0
        for match in _OLD_END.finditer(line):
            before = line[last:match.start(1)].rsplit(None, 1)
            word = before[-1].lower().rstrip(".") if before else ""
            if match.group(1).startswith(".") and (word in T._ABBREVIATIONS or len(word) == 1):
                continue
            pieces.append(line[last:match.end(1)])
            last = match.end(2)
        pieces.append(line[last:])
        out_lines.extend(T._CJK_END.sub("\\1\n", p) for p in pieces)
    return "\n".join(out_lines)


_PIECES = [".", "..", "!", "?", "。", "！", " ", "  ", "\t", "\n", "\u3000", "A", "a", "Mr", "e.g",
           "U.S", "x", "Bob", "9", '"', "'", "(", ")", "»", "“", "”", "É", "Ω", "「", "す"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_linear_splitter_cuts_where_the_backtracking_one_did(pieces):
    text = "".join(pieces)
    assert T.split_sentences(text) == _split_sentences_quadratic(text)


@pytest.mark.parametrize("text", [".", "Mr. A ", ". ", "a. B", '."', " "])
def test_linear_splitter_on_long_repeats(text):
    # the inputs that made the old one quadratic, short enough for it to finish here
    long = text * 2000
    assert T.split_sentences(long) == _split_sentences_quadratic(long)


def test_stem_memo_stems_each_word_once_across_threads():
    # two chunks of one call share most new words; with the memo's lock each word is stemmed
    # once, every thread gets nltk's stem, and the table holds each code once
    import threading
    import time

    import numpy as np
    from nltk.stem import porter

    K = staged("kernels.registry")  # plain Python: the package's, not compiled

    nltk_stem = porter.PorterStemmer().stem
    calls = []

    def counted(word):
        calls.append(word)
        time.sleep(0.002)  # lets the other threads run, as a long stemming loop would
        return nltk_stem(word)

    memo = T.StemMemo(counted)
    words = ["running", "generously", "cats", "abilities", "hopping", "relational"] * 50
    codes = np.array(sorted({T.encode_token(w) for w in words}), dtype=np.int64)
    results = []
    barrier = threading.Barrier(4)

    def work():
        barrier.wait()
        stems = memo.stem_codes(codes)
        # the plain-Python kernel's hash wraps as the compiled one does; numpy's scalars warn
        # of it unless told (as kernels.backend does for its plain-Python runs)
        with np.errstate(over="ignore"):
            memo.add_to_table(codes, stems, K.stem_table_insert)
        results.append([T.decode_token(s) for s in stems])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = [nltk_stem(T.decode_token(int(c))) for c in codes]
    assert results == [expected] * 4
    assert sorted(calls) == sorted(T.decode_token(int(c)) for c in codes)
    keys, vals = memo.table
    assert sorted(keys[keys != 0].tolist()) == codes.tolist()
