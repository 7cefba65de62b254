"""py-rouge 1.1's text handling (rouge_exact.text.py_rouge) against py-rouge itself, run in a
subprocess from its own folder (tests/py_rouge_oracle.py: it shares the import name
``rouge`` with pltrdy's package). For every text: the tokens of each line (its
_preprocess_summary_per_sentence, what its ROUGE-L and W read) and of the whole text (its
_preprocess_summary_as_a_whole, ROUGE-N's), with and without stemming, with and without its
length limits; and its stemmer on a vocabulary. Texts: a seeded sample of realsumm and
seeded generated edge cases (contractions, "cannot", Unicode case and whitespace,
punctuation, empty lines, limits at their boundaries)."""

import json
import random
import re

import pytest

from conftest import DATA, py_rouge_answers, staged

py_rouge = staged("text.py_rouge")
lexicon = staged("text.rouge155_lexicon")
TOKENIZER = py_rouge.PY_ROUGE_TOKENIZER
STEMMERS = {False: None, True: "py_rouge"}

# --------------------------------------------------------------------------------------------
# The texts (seeded)

_WORDS = (
    "cannot Cannot CANNOT cannots xcannot cannotx cannotcannot can't can not won't 'tis 'Twas "
    "d'ye more'n whaddya whatcha gimme Gonna GOTTA lemme wanna Wanna wannabe gonnagonna gon na "
    "better men children comics geese went revolutionarize experiments accidentally visibly "
    "running runs ran sky skies dying lying agreed feed generalization oscillators "
    "2015 3.5 1,000 abc123 x1y2 _under_score_ a an the of I A "
    "\u0130stanbul \u212aelvin caf\u00e9 na\u00efve stra\u00dfe \ufb01ne \u03a3\u0391\u03a3 "
    "\u4e2d\u6587 e\u0301t \U0001f642 \u216b \u00b9\u00b2\u00b3 \u2460").split()
_SEPARATORS = [" ", " ", " ", "  ", "\t", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\xa0",
               "\u2028", "\u3000", "", ".", ",", ";", ":", "!", "?", "-", "\u2014", "'", '"',
               "(", ")", "[", "/", "\\", "@", "#", "$", "%", "&", "*", "+", "=", "~", "`",
               "\n", "\n", "\n\n", "\r\n", " \n ", "...", "--"]
_FIXED = ["", " ", "\n", "\n\n", "...", "cannot", "gonna", "wanna", "a\n\nb\n", " x \n y "]


def _generated(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 25)):
        parts += [rng.choice(_WORDS), rng.choice(_SEPARATORS)]
    return "".join(parts)


def _realsumm_texts() -> list:
    with open(DATA, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    texts = [row["prediction"] for row in rows] + sorted({r for row in rows
                                                          for r in row["references"]})
    return random.Random(7).sample(texts, 400)


def _cases() -> list:
    """(text, py-rouge's Rouge() options, our text after the limit, stemmer)."""
    rng = random.Random(20240611)
    generated = _FIXED + [_generated(rng) for _ in range(300)]
    cases = []
    for stem in (False, True):
        for text in _realsumm_texts() + generated:
            cases.append((text, {"limit_length": False, "stemming": stem}, text, stem))
    # its defaults: 665 "bytes" (characters), stemming
    for text in _realsumm_texts()[:100]:
        cases.append((text, {}, py_rouge.truncate_chars(text, 665), True))
    # random limits, and every limit around the boundaries of two small texts
    limited = [(text, rng.choice(("bytes", "words")), rng.random() < 0.5) for text in generated]
    limited = [(text, unit, stem, rng.randint(1, 90 if unit == "bytes" else 18))
               for text, unit, stem in limited]
    limited += [("ab\ncd ef\n\n g", "bytes", False, limit) for limit in range(1, 13)]
    limited += [("a b\nc, d e\n\nf", "words", True, limit) for limit in range(1, 9)]
    for text, unit, stem, limit in limited:
        cut = (py_rouge.truncate_chars if unit == "bytes" else py_rouge.truncate_words)(text, limit)
        cases.append((text, {"length_limit": limit, "length_limit_type": unit,
                             "stemming": stem}, cut, stem))
    return cases


CASES = _cases()


def _vocabulary() -> list:
    """The words py-rouge stems: realsumm's (longer than 3 characters) and the lexicon's."""
    words = set()
    for text in _realsumm_texts():
        words.update(re.findall(r"[a-z0-9]+", text.lower()))
    words.update(w for w in lexicon.WORDNET_EXCEPTIONS if re.fullmatch(r"[a-z0-9]+", w))
    words.update(py_rouge.SPECIAL_CASES)
    return sorted(w for w in words if len(w) > 3)


VOCABULARY = _vocabulary()


@pytest.fixture(scope="module")
def oracle():
    """py-rouge's answers to every case, from one subprocess (py_rouge_answers: a failure
    with CI set, else a skip saying how to install it)."""
    requests = [{"op": "preprocess", "texts": [text], "options": options}
                for text, options, _, _ in CASES]
    requests.append({"op": "stem", "words": VOCABULARY})
    return py_rouge_answers(requests)


# --------------------------------------------------------------------------------------------
# Against py-rouge


def test_tokens_equal_py_rouge(oracle):
    """Every case: the tokens of each line and of the whole text, as py-rouge's."""
    bad = []
    for (text, options, cut, stem), [answer] in zip(CASES, oracle):
        lines = TOKENIZER.tokens(cut, stemmer=STEMMERS[stem], stopwords=False)
        theirs = [line.split() for line in answer["lines"]]
        whole = [token for line in lines for token in line]
        if lines != theirs or whole != answer["whole"][0].split():
            bad.append((text, options, lines, answer))
    assert bad == [], f"{len(bad)} of {len(CASES)} differ, first: {bad[0]!r}"


def test_the_cases_reach_what_they_test(oracle):
    """The cases hold what the rules are about: a kept "cannot", split contractions,
    WordNet's and the special cases' stems, Unicode lowered into ASCII, texts cut mid-word."""
    tokens = {t for (_, _, cut, stem) in CASES
              for line in TOKENIZER.tokens(cut, stemmer=STEMMERS[stem], stopwords=False)
              for t in line}
    assert {"cannot", "xcannot", "gon", "na", "wan", "gim", "lem", "got", "ta"} <= tokens
    # the Kelvin sign lowers to "k"; "\u0130" to "i" and a combining dot, which cuts the word
    assert {"comic_strip", "child", "revolutionari", "experi", "kelvin", "stanbul"} <= tokens
    limits = [(text, cut) for text, options, cut, _ in CASES if "length_limit" in options]
    assert any(re.sub(r"\s", "", cut) != re.sub(r"\s", "", text) for text, cut in limits)


def test_stems_equal_py_rouge(oracle):
    """stem_py_rouge on realsumm's vocabulary and the lexicon's words: WordNet's exceptions,
    the 138 special cases, nltk's original Porter stemmer."""
    theirs = oracle[-1]
    bad = [(w, s, py_rouge.stem_py_rouge(w)) for w, s in zip(VOCABULARY, theirs)
           if py_rouge.stem_py_rouge(w) != s]
    assert len(theirs) == len(VOCABULARY) > 5000
    assert bad == []


# --------------------------------------------------------------------------------------------
# Without the oracle: nltk's own word tokenizer, the batch, bad input


def test_contractions_are_nltks():
    """On text of [a-z0-9_ ] (all that reaches nltk in py-rouge), nltk's word tokenizer
    splits only its contractions: the words word_tokens splits (punkt, the other half of
    nltk.word_tokenize, finds no sentence end in such text)."""
    from nltk.tokenize import NLTKWordTokenizer

    rng = random.Random(3)
    words = ["gimme", "gonna", "gotta", "lemme", "wanna", "cannot", "xcannot", "cannotcannot",
             "wannabe", "gonnagonna", "gon", "can", "not", "a1", "9", "tis", "twas", "dye"]
    nltk_tokenize = NLTKWordTokenizer().tokenize
    for _ in range(300):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 8)))
        mine = [t for w in text.split() for t in py_rouge.word_tokens(w, stem=False)]
        # py-rouge's steps 4 and 6 around nltk: "cannot" hidden as "_cannot_", then restored
        theirs = nltk_tokenize(text.replace("cannot", "_cannot_"))
        assert [t.replace("_cannot_", "cannot") for t in theirs] == mine, text


def test_batch_is_the_tokens():
    """batch() (one compiled scan, then each distinct word once): a sentence per line (empty
    lines too) holding tokens(), one id per string; with and without stopwords and stems,
    words too long to pack, and a text holding NUL."""
    texts = [text for text, _, _, _ in CASES[:200]] + [
        "a\x00b gimme\x00", "internationalization internationalizations the me\n\nCANNOT",
        "x" * 40 + " " + "comics " * 3, "\x00"]
    for stemmer, stopwords in ((None, False), ("py_rouge", False), ("py_rouge", True),
                               ("rouge155", True), ("porter", False)):
        batch = TOKENIZER.batch(texts, stemmer=stemmer, stopwords=stopwords)
        strings = {}
        for k, text in enumerate(texts):
            lines = TOKENIZER.tokens(text, stemmer=stemmer, stopwords=stopwords)
            first, last = batch.text_sent_offsets[k], batch.text_sent_offsets[k + 1]
            assert last - first == len(lines) == text.count("\n") + 1
            for s, line in zip(range(first, last), lines):
                ids = batch.tokens[batch.sent_offsets[s]:batch.sent_offsets[s + 1]].tolist()
                assert len(ids) == len(line)
                for i, token in zip(ids, line):
                    assert strings.setdefault(i, token) == token
        assert len(set(strings.values())) == len(strings)
    empty = TOKENIZER.batch([], stemmer="py_rouge", stopwords=False)  # no texts, no tokens
    assert empty.text_sent_offsets.tolist() == [0] and len(empty.tokens) == 0


def test_stopwords_dropped_before_stemming():
    """remove_stopwords (not py-rouge's): ROUGE-1.5.5's SMART words, before stemming."""
    # they, cannot, be, better, go: SMART words; geese -> goose (WordNet), running -> run
    tokens = TOKENIZER.tokens("They cannot be running better geese\nwanna go",
                              stemmer="py_rouge", stopwords=True)
    assert tokens == [["run", "goose"], ["wan", "na"]]


@pytest.mark.parametrize("limit", [0, -1, 1.5, True, "665"])
def test_bad_limit(limit):
    for cut in (py_rouge.truncate_chars, py_rouge.truncate_words):
        with pytest.raises(ValueError, match=r"limit: got .*allowed: an integer >= 1"):
            cut("some text", limit)


def test_other_profiles_stemmers():
    """Another profile's stemmer (a convention between two, as rouge_exact.explain walks)
    stems py-rouge's tokens longer than 3 characters as that stemmer does; ROUGE-1.5.5's
    Porter is not nltk's original one ("accid" for "accident"); a name of no stemmer is
    refused."""
    stem_memo = staged("text.tokenizers").stem_memo
    text = "Accidental experimental running cannot\ngonna geese cats"
    words = [["accidental", "experimental", "running", "cannot"], ["gon", "na", "geese", "cats"]]
    for name in ("rouge155", "porter"):
        stem = stem_memo(name).stem
        assert TOKENIZER.tokens(text, stemmer=name, stopwords=False) == \
            [[stem(w) if len(w) > 3 else w for w in line] for line in words]
    assert TOKENIZER.tokens(text, stemmer="rouge155", stopwords=False)[0][:2] == \
        ["accid", "experi"]
    assert TOKENIZER.tokens(text, stemmer="py_rouge", stopwords=False)[0][:2] == \
        ["accident", "experiment"]
    with pytest.raises(ValueError, match=r"stemmer: got 'snowball'; allowed: None, 'py_rouge' "
                                         r"or another profile's: 'porter', 'rouge155'"):
        TOKENIZER.tokens("text", stemmer="snowball", stopwords=False)
