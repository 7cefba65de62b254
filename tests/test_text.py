"""Tokenizers and the sentence splitter, on hand-written expectations."""
import warnings

import pytest

import rouge_text as T


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
