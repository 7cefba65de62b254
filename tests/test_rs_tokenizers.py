"""tokenizer="unicode-v1" and "character-v1" against rouge-score-rs 0.2.1 itself.

The peer is rouge-score-rs run here: ``rouge_score_rs.tokenizers.UnicodeTokenizer`` and
``CharacterTokenizer`` (its Rust tokenizer profiles of those names) for the tokens, and its
``RougeScorer`` with them for every per-example P/R/F of rouge1, rouge2, rougeL and rougeLsum,
which must be equal bit for bit. Its Unicode profiles never stem: with use_stemmer=True the
numbers are those of use_stemmer=False on both sides.

Texts: REALSumm (English), the language samples of tests/test_lang.py (every script of the
language profiles, with their punctuation, digits, symbols, emoji, control and format
characters), hand-picked edge cases, seeded random strings over characters of every Word_Break
and Grapheme_Cluster_Break value, and the code points on both sides of every range boundary of
text.uax29_data's tables (so a wrong table entry shows here).
"""
import random
import warnings

import pytest

from conftest import needed, staged
from test_lang import SCRIPTS, language_pairs

rs = needed("rouge_score_rs")  # the peer: a skip outside CI where it is missing, a failure in CI
uax29 = staged("text.uax29")
data = staged("text.uax29_data")

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
KEYS = ("precision", "recall", "fmeasure")
TOKENIZERS = ("unicode-v1", "character-v1")
OURS = {"unicode-v1": uax29.unicode_words, "character-v1": uax29.characters}


def test_the_peer_is_the_pinned_version():
    assert rs.__version__ == "0.2.1"  # the profiles' data are pinned by the version


def theirs_tokens(name):
    from rouge_score_rs import tokenizers

    tokenizer = {"unicode-v1": tokenizers.UnicodeTokenizer,
                 "character-v1": tokenizers.CharacterTokenizer}[name]()
    assert tokenizer.profile == name
    return tokenizer.tokenize


def differences(metric, name, predictions, references, use_stemmer=False):
    """(i, type, key, ours, theirs) where a per-example score differs from rouge-score-rs's
    (references: one str, or a list of them: score_multi, the best F per type)."""
    from rouge_score_rs import rouge_scorer, tokenizers

    with warnings.catch_warnings():  # (texts of punctuation only, use_stemmer ignored)
        warnings.simplefilter("ignore")
        ours = metric.compute(predictions=predictions, references=references,
                              rouge_types=TYPES, tokenizer=name, use_stemmer=use_stemmer,
                              use_aggregator=False, detailed=True)
    tokenizer = {"unicode-v1": tokenizers.UnicodeTokenizer,
                 "character-v1": tokenizers.CharacterTokenizer}[name]()
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=use_stemmer, tokenizer=tokenizer)
    theirs = [scorer.score_multi(r, p) if isinstance(r, list) else scorer.score(r, p)
              for p, r in zip(predictions, references)]
    return [(i, t, k, ours[t][k][i], getattr(row[t], k)) for i, row in enumerate(theirs)
            for t in TYPES for k in KEYS if ours[t][k][i] != getattr(row[t], k)]


# --------------------------------------------------------------------------------------------
# Scores

@pytest.mark.parametrize("name", TOKENIZERS)
def test_realsumm_equals_rouge_score_rs(metric, realsumm, name):
    """700 REALSumm examples (English news summaries): one reference, use_stemmer off and on,
    and 1-4 references (the other systems' summaries of the article: score_multi)."""
    rows = realsumm[::5]
    predictions = [r["prediction"] for r in rows]
    references = [r["references"][0] for r in rows]
    assert differences(metric, name, predictions, references) == []
    assert differences(metric, name, predictions, references, use_stemmer=True) == []
    by_doc = {}
    for r in realsumm:
        by_doc.setdefault(r["doc"], []).append(r["prediction"])
    several = [[r["references"][0]] + [p for p in by_doc[r["doc"]] if p != r["prediction"]]
               [:i % 4] for i, r in enumerate(rows)]
    assert differences(metric, name, predictions, several) == []


def _thai_words():
    # test_lang draws Thai words from pythainlp's list; here from its hand-written sentences
    sentences = SCRIPTS["th"][3]
    return sorted({s[i:i + k] for s in sentences for i in range(0, len(s), 3) for k in (2, 4)
                   if " " not in s[i:i + k]})


@pytest.mark.parametrize("name", TOKENIZERS)
def test_every_script_equals_rouge_score_rs(metric, name):
    """test_lang's generated pairs of every language (50 each: 2,650 pairs), each line a
    sentence for rougeLsum."""
    thai = _thai_words()
    predictions, references = [], []
    for code in SCRIPTS:
        for prediction, reference in language_pairs(code, thai, n=50):
            predictions.append(prediction)
            references.append(reference)
    assert differences(metric, name, predictions, references) == []


EDGE_TEXTS = [
    "", " ", "\n", "\n\n", "...", "!!! ?? —", "\u200b", "\u200d", "\u00ad", "\ufeff",
    "Don't pay $3.50 for e-mail, U.S. users.", "3.5 1,000 1.000,5 12:30 2024-05-01 1'000",
    "rock'n'roll o'clock 'quoted' \"double\" l'homme ’curly’ it’s", "state-of-the-art e‑mail",
    "ＧＰＵ ２０２４ ｓｔｒａｓｓｅ ｶﾀｶﾅ ㈱ ① ½ x² ﬁne ㎒ 𝐀𝐁𝐂",
    "Straße STRASSE straße ẞ İstanbul ISTANBUL ıi ǅemal ΣΑΣ σας ﬀ ŉ",
    "Cafe\u0301 café e\u0301\u0323 a\u0308\u0304 \u0915\u093c\u094d\u0937",
    "👨‍👩‍👧‍👦 🏳️‍🌈 👍🏽 🇫🇷🇩🇪🇬 a‍😀 a‍ℹb 1.‍😀 ☺️ 🅰🅱 ℹ️",
    "我爱北京天安门。今天天气很好！", "東京オリンピックは2021年に開催された。カタカナ_テスト",
    "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย ประชากรประมาณ ๑๐ ล้านคน",
    "नमस्ते दुनिया क्षत्रिय श्री", "ශ්‍රී ලංකාව", "മലയാളം ന്‍", "שלום עולם א\"ב א'ב צה\"ל",
    "مرحبا بالعالم ١٢٣٫٤٥ ۱۲۳", "한국어 텍스트 각", "Привет, мир! Ёлка",
    "foo_bar __ _x_ a_1 ‿", "\r\n\t\x0b\x0c\x85\u2028 \u3000 \u00a0",
    "\U00016ea0\U00016ebb \U000105d2\u0307 \U0001e030 \U0001ccd6 \ua7f1 \U00011382\U000113c9",
    "\U0001611e\U0001611e \U0001611e\U0001611f \U00016d67\U00016d67",
]


@pytest.mark.parametrize("name", TOKENIZERS)
def test_edge_cases_equal_rouge_score_rs(metric, name):
    """Tokens of each text equal; scores of every text against every other (and itself)."""
    theirs = theirs_tokens(name)
    for text in EDGE_TEXTS:
        assert OURS[name](text) == theirs(text), text
    pairs = [(p, r) for p in EDGE_TEXTS for r in EDGE_TEXTS[::3]]
    assert differences(metric, name, [p for p, _ in pairs], [r for _, r in pairs]) == []


def test_use_stemmer_changes_nothing(metric):
    """rouge-score-rs's Unicode profiles never stem; the options say it was ignored."""
    predictions, references = ["The cats were running quickly"], ["the cat runs quick"]
    for name in TOKENIZERS:
        with pytest.warns(Warning, match="no effect"):
            stemmed = metric.compute(predictions=predictions, references=references,
                                     tokenizer=name, use_stemmer=True, detailed=True)
        plain = metric.compute(predictions=predictions, references=references, tokenizer=name,
                               detailed=True)
        assert stemmed["rouge1"] == plain["rouge1"]
        assert f"tok:{name}" in stemmed["signature"]
        assert f"stem:ignored(tok:{name})" in stemmed["signature"]


# --------------------------------------------------------------------------------------------
# Tokens

CHARACTERS = ["a", "b", "Z", "1", "٣", "א", "ב", "カ", "ｶ", "_", "‿", ".", ",", ";", "'", '"',
              ":", "·", "’", " ", "\u1680", "\u3000", "\t", "\u200d", "\u200c", "\u00ad",
              "\u093e", "\u0903", "\u0301", "\u0323", "😀", "☺", "\ufe0f", "🏽", "🅰", "ℹ", "🇦",
              "🇧", "\n", "\r", "\x0b", "中", "-", "!", "\u0600", "\u094d", "क", "ष", "\u093c",
              "ᄀ", "ᅡ", "ᆨ", "가", "각", "ß", "İ", "ﬁ", "①", "\U00016ea0", "\U000105d2",
              "\u0307", "\U0001611e", "\U0001611f", "\U00016129"]


@pytest.mark.parametrize("name", TOKENIZERS)
def test_generated_strings_equal_rouge_score_rs(name):
    """4,000 seeded strings of up to 12 characters drawn from CHARACTERS (a character of each
    Word_Break and Grapheme_Cluster_Break value, ZWJ and emoji, Hangul jamo, Devanagari
    conjuncts, characters that NFKC or case folding changes)."""
    rng = random.Random(20261129)
    theirs = theirs_tokens(name)
    for _ in range(4000):
        text = "".join(rng.choice(CHARACTERS) for _ in range(rng.randint(0, 12)))
        assert OURS[name](text) == theirs(text), ascii(text)


def _boundaries():
    """The code points on both sides of every range boundary of the tables, and every
    character of NEW_RANGES."""
    points = set()
    for starts in (data.WORD_STARTS, data.GRAPHEME_STARTS):
        points.update(s for start in starts for s in (start - 1, start))
    for lo, hi in data.ALNUM_RANGES:
        points.update((lo - 1, lo, hi, hi + 1))
    for lo, hi in data.NEW_RANGES:
        points.update(range(lo - 1, hi + 2))
    return sorted(p for p in points if 0 <= p < 0x110000 and not 0xD800 <= p < 0xE000)


@pytest.mark.parametrize("name", TOKENIZERS)
def test_tables_equal_rouge_score_rs_at_every_boundary(name):
    """Each of those code points alone, between two letters, two digits, two Devanagari
    consonants and twice in a row, one per line (a line break separates tokens on both sides),
    tokenized 2,048 lines at a time."""
    theirs = theirs_tokens(name)
    points = _boundaries()
    for context in ("{0}", "a{0}a", "1{0}1", "\u0915{0}\u0915", "{0}{0}"):
        lines = [context.format(chr(p)) for p in points]
        for i in range(0, len(lines), 2048):
            text = "\n".join(lines[i:i + 2048])
            if OURS[name](text) != theirs(text):
                first = next(line for line in lines[i:i + 2048]
                             if OURS[name](line) != theirs(line))
                pytest.fail(f"{name}: {ascii(first)}: ours {OURS[name](first)}, "
                            f"rouge-score-rs {theirs(first)}")


def test_normalization_of_new_characters():
    """Characters newer than Python's unicodedata: the 17.0 folding, decomposition, ordering
    and composition (rouge-score-rs's own examples and hand-checked ones)."""
    words = uax29.unicode_words
    assert words("\U00016ea0") == ["\U00016ebb"]  # BERIA ERFE CAPITAL LETTER ARKAB (17.0)
    assert words("\ua7f1") == ["s"]  # MODIFIER LETTER CAPITAL S: <super> S, folded
    assert words("\U000105d2\u0307") == ["\U000105c9"]  # TODHRI LETTER EI (16.0)
    assert words("\U0001611e\U0001611e") == ["\U00016121"]  # GURUNG KHEMA VOWEL SIGN U
    assert uax29.normalize("\U0001e030") == "\u0430"  # <super> CYRILLIC SMALL A (15.0)
    assert uax29.normalize("a\u0301\u0323") == "\u1ea1\u0301"  # ordered, then composed
    assert uax29.normalize("Straße ǅ İ") == "strasse dž i\u0307"
