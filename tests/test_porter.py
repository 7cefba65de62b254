"""rouge_kernels.porter_stem_codes (compiled, and as plain Python) against nltk's
PorterStemmer().stem in its default mode (NLTK_EXTENSIONS), word for word: realsumm's
vocabulary, random words (hypothesis), and systematic words (stems x every suffix of the
rules, nltk's irregular forms, every word of 1..3 characters)."""
import itertools
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from nltk.stem.porter import PorterStemmer

import rouge_kernels as PY  # imported directly: plain Python (rouge_backend compiles a copy)
from conftest import DATA, compiled_kernels, staged

K = compiled_kernels()
decode_token, encode_token = staged("rouge_text").decode_token, staged("rouge_text").encode_token

STEMMER = PorterStemmer()
ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"

IMPLEMENTATIONS = {
    "compiled": lambda codes: K.porter_stem_codes(codes),
    "python": lambda codes: PY.porter_stem_codes(codes),
}

# every suffix and replacement of nltk's rules (steps 1a .. 5b, with the NLTK extensions)
SUFFIXES = sorted({
    "sses", "ies", "ss", "s", "ied", "ie", "i", "eed", "ee", "ed", "ing", "at", "ate", "bl",
    "ble", "iz", "ize", "y", "ational", "tional", "tion", "enci", "ence", "anci", "ance", "izer",
    "bli", "abli", "able", "alli", "al", "entli", "ent", "eli", "e", "ousli", "ous", "ization",
    "ation", "ator", "alism", "iveness", "ive", "fulness", "ful", "ousness", "aliti", "iviti",
    "biliti", "fulli", "logi", "log", "icate", "ic", "ative", "alize", "iciti", "ical", "ness",
    "er", "ible", "ant", "ement", "ment", "ion", "ou", "ism", "iti", "ll", "l", "",
})
# stems chosen to hit each condition both ways: m = 0, 1, 2, 3; *v* or not; *d (with and
# without l, s, z); *o (and its w, x, y exception, and nltk's 2-letter form); 'y' as a vowel
# and as a consonant; digits (consonants); s / t before 'ion'
STEMS = [
    "", "a", "b", "e", "y", "2", "by", "ay", "ya", "yy", "tr", "ee", "sk", "sp", "fl", "di",
    "ab", "oa", "ox", "aw", "tree", "toy", "syzyg", "happ", "enjo", "hop", "hopp", "fil", "fail",
    "tann", "fall", "hiss", "fizz", "bow", "box", "play", "rel", "rat", "condit", "valen",
    "hesit", "digit", "conform", "radic", "differ", "vil", "analog", "vietnam", "predic",
    "oper", "feud", "decis", "hope", "call", "form", "sensi", "sensib", "geo", "theo", "arch",
    "triplic", "electr", "good", "reviv", "allow", "infer", "airlin", "gyroscop", "adjust",
    "defens", "irrit", "replac", "depend", "adopt", "ado", "homolog", "commun", "activ",
    "angular", "effect", "bowdler", "prob", "r", "ceas", "controll", "roll", "agr", "f", "pl",
    "motor", "s", "troubl", "conflat", "siz", "cr", "sens", "gener", "nation", "x9", "a1",
    "9a9", "12", "b2b", "cy", "ty", "oy", "yoy", "str", "sc", "ot", "ut", "ion", "ll", "ss",
    "tt", "ff", "dd", "in", "out", "proc", "exc", "succ", "sky", "ly",
]
ENDINGS = ["", "s", "ly", "e", "es", "ed", "ing", "ness", "y", "ies"]


def _check(words, implementation):
    words = sorted(set(words))
    codes = np.array([encode_token(w) for w in words], dtype=np.int64)
    expected = [encode_token(STEMMER.stem(w)) for w in words]
    got = IMPLEMENTATIONS[implementation](codes)
    assert got.dtype == np.int64 and got.shape == codes.shape
    diffs = [(w, STEMMER.stem(w), decode_token(int(g)))
             for w, g, e in zip(words, got, expected) if g != e]
    assert not diffs, f"{len(diffs)} of {len(words)} differ (word, nltk, kernel): {diffs[:20]}"


def _realsumm_words():
    words = set()
    with open(DATA, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            for text in [row["prediction"], *row["references"]]:
                words.update(w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) <= 12)
    return words


@pytest.fixture(scope="module")
def realsumm_words():
    return _realsumm_words()


@pytest.mark.parametrize("implementation", sorted(IMPLEMENTATIONS))
def test_realsumm_vocabulary(realsumm_words, implementation):
    assert len(realsumm_words) > 1000
    _check(realsumm_words, implementation)


def _systematic_words():
    words = set(STEMMER.pool)
    for stem, suffix, ending in itertools.product(STEMS, SUFFIXES, ENDINGS):
        word = stem + suffix + ending
        if 1 <= len(word) <= 12:
            words.add(word)
    for n in (1, 2, 3):
        words.update("".join(t) for t in itertools.product(ALPHABET, repeat=n))
    # 4 characters over letters that matter to the rules (ies, ied, eed, ll, *o, 'y')
    words.update("".join(t) for t in itertools.product("aeiysdlnwx1", repeat=4))
    return words


@pytest.mark.parametrize("implementation", sorted(IMPLEMENTATIONS))
def test_systematic_words(implementation):
    words = _systematic_words()
    assert set(STEMMER.pool) <= words and len(words) > 50_000
    _check(words, implementation)


def test_pool_and_short_words_as_nltk():
    """A few fixed answers, so that a change in nltk itself shows here too."""
    words = ["skies", "dying", "news", "innings", "proceed", "sky", "ies", "dies", "spied",
             "died", "a", "is", "as", "happy", "enjoy", "nationalize", "generalli", "oscillators"]
    codes = np.array([encode_token(w) for w in words], dtype=np.int64)
    got = [decode_token(int(c)) for c in K.porter_stem_codes(codes)]
    assert got == ["sky", "die", "news", "inning", "proceed", "sky", "i", "die", "spi", "die",
                   "a", "is", "as", "happi", "enjoy", "nation", "gener", "oscil"]


def test_codes_that_are_not_words_stay():
    codes = np.array([0, -5, 1, 1368], dtype=np.int64)
    for implementation in IMPLEMENTATIONS:
        assert IMPLEMENTATIONS[implementation](codes).tolist() == [0, -5, 1, 1368]
        assert IMPLEMENTATIONS[implementation](codes[:0]).shape == (0,)


# random words: letters (vowels and 'y' more often) and some digits, often ending in a suffix
# of the rules or a common English ending
_CHARS = list("abcdefghijklmnopqrstuvwxyz") * 3 + list("aeiouy") * 3 + list(ALPHABET[26:])
_TAILS = SUFFIXES + ["ings", "ingly", "edly", "ations", "izations", "fully", "ously",
                     "lessness", "ities", "ements", "ance", "ers", "ies", "ied", "ying"]
word = st.builds(
    lambda head, tail: (head + tail)[-12:],
    st.text(alphabet=st.sampled_from(_CHARS), min_size=0, max_size=12),
    st.one_of(st.just(""), st.sampled_from(_TAILS)),
).filter(lambda w: 1 <= len(w) <= 12)


@settings(max_examples=2500, deadline=None, derandomize=True)
@given(words=st.lists(word, min_size=1, max_size=8))
def test_random_words(words):
    for implementation in IMPLEMENTATIONS:
        _check(words, implementation)
