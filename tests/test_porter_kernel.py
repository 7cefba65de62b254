"""The Porter kernels (rouge_exact.kernels.porter) against their reference, NLTK's
``PorterStemmer()`` (mode NLTK_EXTENSIONS: rouge_score's stemmer), word for word.

The kernel file runs two ways, each on a private copy of the module (kernels.registry's
``use_numba`` would change the package's own modules): compiled with numba, the functions
marked ``@njit`` made dispatchers with their marks' options, as kernels.backend compiles them
(slow tier: a vocabulary of over 1,000,000 distinct words), and as plain Python (fast tier:
10,000 words). NLTK stems each distinct word once.

Vocabulary: the words of the text in tests/data (rouge_score's tokenization: lowercase, every
character but [a-z0-9] a separator), every [a-z0-9] string of 1 to 4 characters, seeded random
strings of up to 40 characters, and seeded stems with the suffixes that Porter's steps handle.
The kernel reads a word's bytes as Latin-1 (its module docstring): random bytes check that too.
"""
import importlib.util
import itertools
import json
import random
import re
import string

import numpy as np
import pytest
from nltk.stem.porter import PorterStemmer

from conftest import REPO

KERNEL_FILE = REPO / "rouge_exact" / "kernels" / "porter.py"
ALNUM = string.ascii_lowercase + string.digits
MAX_CODE = 37 ** 12  # text.tokenizers: tokens of up to 12 characters pack below it

# every suffix that a rule of NLTK's Porter steps names (and a few that end in one)
SUFFIXES = (
    "ational tional enci anci izer bli abli alli entli eli ousli ization ation ator alism "
    "iveness fulness ousness aliti iviti biliti fulli logi icate ative alize iciti ical ful ness "
    "al ance ence er ic able ible ant ement ment ent ion sion tion ou ism ate iti ous ive ize "
    "sses ies ss s eed ied ed ing y e ll at bl iz ly li ying es ings ments ations "
    "alities ers ously ingly ably").split()
# stems that meet the rules' conditions and edge cases: m = 0, 1, 2; y as vowel and consonant;
# double consonants (l, s, z among them); consonant-vowel-consonant endings in w, x, y
STEMS = ("", "a", "y", "by", "sy", "tr", "tree", "hop", "hopp", "fil", "fall", "hiss", "fizz",
         "conflat", "troubl", "siz", "rel", "condi", "valen", "hesit", "digit", "conform",
         "radic", "differ", "vil", "analog", "vietnam", "predic", "oper", "feud", "decis",
         "hope", "callous", "formal", "sensitiv", "sensib", "geo", "theo", "archaeo", "tripl",
         "electr", "good", "reviv", "allow", "infer", "airlin", "gyroscop", "adjust", "defens",
         "irrit", "replac", "depend", "adopt", "homolog", "commun", "activ", "angular",
         "effect", "bowdler", "prob", "rat", "ceas", "control", "ro", "toy", "syzyg", "enjoy",
         "happ", "sk", "d", "l", "t", "spi", "fl", "agr", "pl", "bl", "mot", "sing", "fe",
         "ov", "ax", "ow", "oy", "yy", "yay", "xyz", "sses", "ie", "a*", "a*d", "ba*d", "inn",
         "out")
# NLTK's irregular forms (its pool) and words next to them; stems that end in "*d" (NLTK's
# rule list names the double consonant rule "*d", which a stem ending in those two matches)
EDGE_WORDS = ("sky skies dying lying tying news innings inning outings outing cannings canning "
              "howe proceed exceed succeed skys skied dies died lies tied howes proceeds "
              "exceeded succeeding newsy a*ded ba*ding o*ded *ded *ding").split()


def load_kernels(compiled: bool):
    """A fresh module object of the kernel file (a name of its own, in the package
    rouge_exact.kernels, so its relative import finds the registry's marker); compiled: each
    marked function replaced by numba.njit of it with its mark's options, as kernels.registry's
    use_numba does (the functions find each other as the module's globals). cache=False:
    nothing is written beside the package's files."""
    name = "rouge_exact.kernels.porter_" + ("numba" if compiled else "python") + "_under_test"
    spec = importlib.util.spec_from_file_location(name, KERNEL_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if compiled:
        import numba

        for key, value in list(vars(module).items()):
            if callable(value) and hasattr(value, "njit_options"):
                options = dict(value.njit_options, cache=False)
                setattr(module, key, numba.njit(no_cfunc_wrapper=True, **options)(value))
    return module


@pytest.fixture(scope="module")
def compiled():
    return load_kernels(compiled=True)


@pytest.fixture(scope="module")
def python():
    return load_kernels(compiled=False)


def as_bytes(words: list) -> tuple:
    """The words' Latin-1 bytes end to end (uint8), and each word's (starts, ends)."""
    lengths = np.array(list(map(len, words)), dtype=np.int64)
    ends = np.cumsum(lengths)
    return np.frombuffer("".join(words).encode("latin-1"), dtype=np.uint8), ends - lengths, ends


def stem_words(kernels, words: list) -> list:
    """porter_stem of str words (Latin-1), as str."""
    out, out_ends = kernels.porter_stem(*as_bytes(words))
    assert out.dtype == np.uint8 and out_ends.dtype == np.int64 and len(out_ends) == len(words)
    text = out.tobytes().decode("latin-1")
    bounds = [0, *out_ends.tolist()]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def encode(words: list) -> tuple:
    """text.tokenizers.encode_token's base-37 codes, written out again from its definition
    (a-z: digits 1-26, 0-9: 27-36), vectorized: (codes, packs), packs[i] True where words[i]
    is a [a-z0-9] word of 1 to 12 characters (codes[i] is 0 elsewhere)."""
    digit = np.zeros(256, dtype=np.uint8)
    digit[np.frombuffer(ALNUM.encode(), dtype=np.uint8)] = np.arange(1, 37)
    buf, starts, ends = as_bytes(words)
    lengths = ends - starts
    columns = np.arange(12)
    inside = columns < lengths[:, None]
    at = np.minimum(starts[:, None] + columns, max(len(buf) - 1, 0)).astype(np.int32)
    digits = np.where(inside, digit[buf[at]] if len(buf) else 0, 0).astype(np.int64)
    packs = (lengths >= 1) & (lengths <= 12) & ((digits > 0).sum(axis=1) == lengths)
    full = np.zeros(len(words), dtype=np.int64)
    for j in range(12):  # < 37**12 < 2**63: no overflow; then drop the trailing zero digits
        full = full * 37 + digits[:, j]
    codes = full // 37 ** (12 - np.clip(lengths, 0, 12))
    return np.where(packs, codes, 0), packs


def decode(code: int) -> str:
    chars = []
    while code:
        code, digit = divmod(code, 37)
        chars.append(ALNUM[digit - 1])
    return "".join(reversed(chars))


def corpus_words() -> set:
    """rouge_score's tokens of every text in tests/data (the JSONL files' strings, and the
    other files as text)."""
    texts = []
    for path in sorted((REPO / "tests" / "data").iterdir()):
        if path.suffix == ".jsonl":
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                texts += [v for v in row.values() if isinstance(v, str)]
                texts += [v for v in row.get("references", []) if isinstance(v, str)]
        elif path.is_file():
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
    return {w for text in texts for w in re.sub(r"[^a-z0-9]+", " ", text.lower()).split()}


def suffixed_words(rng: random.Random, count: int, corpus: list) -> set:
    """Stems (STEMS, corpus words and their prefixes, random letters) with one or two
    suffixes."""
    words: set = set()
    while len(words) < count:
        pick = rng.random()
        if pick < 0.3:
            stem = rng.choice(STEMS)
        elif pick < 0.7:
            word = rng.choice(corpus)
            stem = word[:rng.randint(1, len(word))]
        else:
            stem = "".join(rng.choice("bcdfglmnprstvwxyz" if i % 2 else "aeiouy")
                           for i in range(rng.randint(1, 8)))
        word = stem + rng.choice(SUFFIXES)
        if rng.random() < 0.3:
            word += rng.choice(SUFFIXES)
        words.add(word)
    return words


def random_words(rng: random.Random, count: int, max_len: int = 40) -> set:
    """Strings of 1 to max_len characters: [a-z0-9] with extra vowels, y and the letters the
    rules name (so that suffixes meet), and a few of other ASCII characters."""
    letters = ALNUM + "aeiouyyyeeslltdgnzi" * 2 + "*"
    return {"".join(rng.choice(letters) for _ in range(rng.randint(1, max_len)))
            for _ in range(count)}


def vocabulary() -> list:
    """Over 1,000,000 distinct words."""
    rng = random.Random(20240611)
    corpus = sorted(corpus_words())
    words = set(corpus) | set(EDGE_WORDS)
    for n in range(1, 5):
        words.update(map("".join, itertools.product(ALNUM, repeat=n)))
    words |= random_words(rng, 40_000)
    words |= suffixed_words(rng, 120_000, corpus)
    return list(words)


def latin1_words(rng: random.Random, count: int) -> list:
    """Random byte strings read as Latin-1 (every byte value; capitals too), with suffixes."""
    words = ["", "SKIES", "Dying", "RELATIONAL", "\xc0ies", "\xdeing", "\xd7ed"]
    for _ in range(count):
        word = "".join(chr(rng.randrange(256)) for _ in range(rng.randint(0, 12)))
        if rng.random() < 0.5:
            word += rng.choice(SUFFIXES)
        if rng.random() < 0.3 and word.upper().isascii():
            word = word.upper()  # (the capitals of some Latin-1 letters are not Latin-1)
        words.append(word)
    return words


def check_words(kernels, words: list, want: list) -> None:
    """porter_stem of the words, and porter_stem_codes of those that pack, against NLTK's
    stems (want: the stem of each word)."""
    got = stem_words(kernels, words)
    if got != want:
        bad = [(w, g, s) for w, g, s in zip(words, got, want) if g != s]
        assert bad == [], (len(bad), bad[:20])
    codes, packs = encode(words)
    got = kernels.porter_stem_codes(codes[packs])
    assert got.dtype == np.int64
    expected, stem_packs = encode(want)
    assert stem_packs[packs].all()  # the stem of a word that packs packs too (NLTK's)
    chosen = np.flatnonzero(packs)
    bad = [(words[chosen[i]], decode(int(got[i])), want[chosen[i]])
           for i in np.flatnonzero(got != expected[packs])[:20]]
    assert bad == []


def check_bad_input(kernels) -> None:
    """ValueError naming the argument for spans outside the buffer and non-codes."""
    buf = np.frombuffer(b"cats", dtype=np.uint8)
    i64 = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    for starts, ends in (([0], [5]), ([2], [1]), ([-1], [2]), ([0, 1], [1])):
        with pytest.raises(ValueError, match="porter_stem: .*(span|length)"):
            kernels.porter_stem(buf, i64(starts), i64(ends))
    cats, ab = encode(["cats", "ab"])[0].tolist()
    for code in (0, -5, MAX_CODE, 37, ab * 37):  # 37 and ab * 37: a digit 0
        with pytest.raises(ValueError, match="porter_stem_codes: a code is not a packed token"):
            kernels.porter_stem_codes(i64([cats, code]))
    out, out_ends = kernels.porter_stem(buf, i64([]), i64([]))
    assert len(out) == 0 and len(out_ends) == 0


@pytest.mark.slow
def test_compiled_kernel_equals_nltk_on_a_million_words(compiled):
    words = vocabulary()
    assert len(words) >= 1_000_000
    check_words(compiled, words, list(map(PorterStemmer().stem, words)))


@pytest.mark.slow
def test_compiled_kernel_reads_bytes_as_latin1_and_checks_its_input(compiled):
    words = latin1_words(random.Random(7), 20_000)
    check_words(compiled, words, list(map(PorterStemmer().stem, words)))
    check_bad_input(compiled)


def test_plain_python_kernel_equals_nltk(python):
    rng = random.Random(11)
    corpus = sorted(corpus_words())
    words = sorted(set(rng.sample(corpus, 3_500)) | random_words(rng, 2_000, 20)
                   | suffixed_words(rng, 4_000, corpus) | set(EDGE_WORDS)) \
        + latin1_words(rng, 1_000)
    assert len(words) >= 10_000
    check_words(python, words, list(map(PorterStemmer().stem, words)))
    check_bad_input(python)
