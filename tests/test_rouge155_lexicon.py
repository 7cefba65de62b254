"""Check ``rouge155_lexicon`` against the real ROUGE-1.5.5 Perl script and its data files.

* The Porter port and ``MorphStem`` are compared word by word with the script's own ``stem``,
  ``MorphStem`` and ``initialise`` subs, which are cut out of the installed ``ROUGE-1.5.5.pl``
  at test time and run by a small Perl driver, on the REALSumm vocabulary plus generated words
  (more than 50,000 distinct words, one Perl process).
* The stopword set and the exception table are compared with ``smart_common_words.txt`` (read as
  the script reads it) and with a ``DB_File`` dump of ``WordNet-2.0.exc.db``.
* A few hand examples written in ``tests/rouge155/SPEC.md`` section 3 need no Perl.

The script is the one ``tests/rouge155/setup.sh`` installs, found as ``tests/oracle.py`` finds
it (``$ROUGE_SCRIPT``, else under ``$ORACLE_HOME``). Without it the Perl tests are skipped,
except when ``$CI`` is set, where they fail.
"""

import hashlib
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conftest import DATA  # noqa: E402
from oracle import SETUP_HINT, oracle_home, rouge_pl  # noqa: E402
from rouge_exact.text.rouge155_lexicon import (  # noqa: E402
    SMART_STOPWORDS,
    WORDNET_EXCEPTIONS,
    morph_stem_rouge155,
    porter_stem_rouge155,
    stem_token_rouge155,
)

# md5 of the sorted "key<TAB>value\n" dump of the WordNet-2.0.exc.db of the original ROUGE-1.5.5
# tarball (the same constant as in tests/rouge155/setup.sh).
EXPECTED_DB_DUMP_MD5 = "d8c672f5ef4aae9a8e04c3eeaca34ac9"
MIN_WORDS = 50_000

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_TOKEN_RE = re.compile("[a-z0-9]+")


# ------------------------------------------------------------------------------------------
# Locating the script and running Perl
# ------------------------------------------------------------------------------------------


def _missing(message: str) -> None:
    """Fail in CI (a missing oracle must never pass silently there), skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(message + " ($CI is set, so this is a failure, not a skip)")
    pytest.skip(message + f"; run `{SETUP_HINT}` to install it")


@pytest.fixture(scope="module")
def rouge_script() -> Path:
    """The installed ROUGE-1.5.5.pl, with Perl and DB_File usable."""
    found = rouge_pl()
    if not found:
        _missing("ROUGE-1.5.5.pl not found (ROUGE_SCRIPT="
                 f"{os.environ.get('ROUGE_SCRIPT')!r}, ORACLE_HOME {oracle_home()})")
    script = Path(found)
    try:
        subprocess.run(["perl", "-MDB_File", "-e", "1"], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        _missing("perl with DB_File is not available")
    for name in ("smart_common_words.txt", "WordNet-2.0.exc.db"):
        if not (script.parent / "data" / name).is_file():
            _missing(f"{script.parent / 'data' / name} not found")
    return script


@pytest.fixture(scope="module")
def data_dir(rouge_script: Path) -> Path:
    return rouge_script.parent / "data"


def extract_perl_sub(source: str, name: str) -> str:
    """Return the text of ``sub NAME { ... }`` from the script, by brace matching.

    The three subs we need contain no braces in strings or comments other than balanced
    ``${var}`` interpolations and blocks, so counting braces is enough; the driver compiling and
    the sanity checks below guard against a wrong cut.
    """
    match = re.search(r"^\s*sub\s+" + re.escape(name) + r"\b", source, re.MULTILINE)
    assert match, f"sub {name} not found in the script"
    start = match.start()
    open_at = source.index("{", match.end())
    depth = 0
    for i in range(open_at, len(source)):
        if source[i] == "{":
            depth += 1
        elif source[i] == "}":
            depth -= 1
            if depth == 0:
                return source[start : i + 1]
    raise AssertionError(f"unbalanced braces in sub {name}")


# The only Perl kept in the repository: tie the DB as the script does (l.486-492), paste the
# script's own subs, call initialise() as the script does (l.495), then stem every stdin line.
PERL_DRIVER = r"""
use DB_File;
tie %exceptiondb, 'DB_File', $ARGV[0], O_RDONLY, 0440, $DB_HASH
  or die "Cannot open exception db file for reading: $ARGV[0]\n";
@SCRIPT_SUBS@
&initialise();
binmode(STDIN);
binmode(STDOUT);
while (defined(my $word = <STDIN>)) {
  chomp($word);
  my $tok = length($word) > 3 ? MorphStem($word) : $word;
  print stem($word), "\t", MorphStem($word), "\t", $tok, "\n";
}
"""


def run_perl_stemmer(
    script: Path, db: Path, words: list[str], tmp_dir: Path
) -> list[tuple[str, str, str]]:
    """Run the script's stem / MorphStem / (length > 3 rule) on every word, in one process."""
    source = script.read_text(encoding="latin-1")
    subs = [extract_perl_sub(source, name) for name in ("stem", "MorphStem", "initialise")]
    assert "Step 4" in subs[0] and "CYL" in subs[0], "the cut of sub stem looks wrong"
    assert "exceptiondb" in subs[1] and "mgr1" in subs[2]
    driver = tmp_dir / "stem_driver.pl"
    driver.write_text(PERL_DRIVER.replace("@SCRIPT_SUBS@", "\n".join(subs)), encoding="latin-1")
    proc = subprocess.run(
        ["perl", str(driver), str(db)],
        input="".join(w + "\n" for w in words).encode("ascii"),
        capture_output=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr.decode("latin-1")
    lines = proc.stdout.decode("ascii").split("\n")
    assert lines[-1] == ""
    rows = [tuple(line.split("\t")) for line in lines[:-1]]
    assert len(rows) == len(words), (len(rows), len(words))
    assert all(len(r) == 3 for r in rows)
    return rows  # type: ignore[return-value]


# ------------------------------------------------------------------------------------------
# Word list
# ------------------------------------------------------------------------------------------

_PREFIXES = [
    "", "", "", "re", "un", "dis", "pre", "over", "under", "inter", "counter", "non", "mis",
    "out", "sub", "super", "trans", "anti", "de", "con", "y", "yo", "ye",
]  # fmt: skip
_ROOTS = [
    "nation", "relat", "condition", "valen", "hesit", "digit", "conform", "radic", "differ",
    "analog", "vietnam", "predic", "electr", "hope", "form", "sens", "rat", "generat", "oper",
    "feud", "decis", "vari", "fals", "formal", "sensitiv", "triplic", "electric", "spec", "war",
    "revival", "allow", "infer", "irrit", "ador", "homolog", "commun", "activ", "bowdler",
    "effect", "depend", "adopt", "adjust", "agre", "state", "depart", "accid", "govern", "move",
    "settle", "fail", "fil", "hop", "tan", "fizz", "troubl", "siz", "happ", "sky", "cry", "toy",
    "enjoy", "play", "say", "lay", "control", "roll", "call", "fall", "tell", "cat", "capt",
    "agree", "feed", "need", "bleed", "plaster", "bore", "sing", "mat", "plan", "cook", "bat",
    "rubb", "hiss", "pass", "care", "poss", "ration", "ment", "cement", "element", "argu",
    "judge", "quest", "adapt", "gener", "observ", "prob", "respons", "ration", "technolog",
    "ox", "box", "fix", "tax", "mess", "buzz", "ye", "you", "yell", "yield", "young", "yacht",
]  # fmt: skip
_SUFFIXES = [
    "", "s", "es", "ies", "sses", "ss", "ed", "eed", "ing", "ings", "y", "ly", "ily", "ational",
    "tional", "enci", "ency", "anci", "ancy", "izer", "izers", "bli", "ble", "bly", "alli",
    "ally", "entli", "ently", "eli", "ely", "ousli", "ously", "ization", "izations", "ation",
    "ations", "ator", "ators", "alism", "alisms", "iveness", "fulness", "ousness", "aliti",
    "ality", "alities", "iviti", "ivity", "biliti", "bility", "logi", "logy", "icate", "icated",
    "ative", "atives", "alize", "alized", "iciti", "icity", "ical", "ically", "ful", "fully",
    "ness", "nesses", "al", "als", "ance", "ances", "ence", "ences", "er", "ers", "ic", "ics",
    "able", "ible", "ant", "ants", "ement", "ements", "ment", "ments", "ent", "ents", "ently",
    "ou", "ism", "isms", "ate", "ates", "ated", "iti", "ous", "ive", "ives", "ize", "izes",
    "ized", "izing", "ion", "ions", "sion", "tion", "tions", "e", "ll", "le", "ental",
    "mental", "ementally", "ication", "ications", "ify", "ified", "ifying", "ist", "ists",
    "ship", "hood", "less", "lessly", "est", "ier", "iest", "eer", "ee", "ees", "yed", "ying",
]  # fmt: skip


def generated_words(seed: int = 20040214) -> list[str]:
    """Deterministic English-like and random words that exercise every rule of the stemmer."""
    rng = random.Random(seed)
    words: list[str] = []
    # Every root with every suffix, then random prefix + root + two suffixes (rationalizations).
    for root in _ROOTS:
        for suffix in _SUFFIXES:
            words.append(root + suffix)
    for _ in range(30_000):
        words.append(
            rng.choice(_PREFIXES)
            + rng.choice(_ROOTS)
            + rng.choice(_SUFFIXES)
            + rng.choice(_SUFFIXES)
        )
    # Random [a-z] strings of length 1..15, some biased to the letters the rules care about.
    letters = "abcdefghijklmnopqrstuvwxyz"
    biased = "aeiouyyssleedintmc"
    for _ in range(20_000):
        words.append("".join(rng.choice(letters) for _ in range(rng.randint(1, 15))))
    for _ in range(10_000):
        words.append("".join(rng.choice(biased) for _ in range(rng.randint(1, 15))))
    # Tokens may contain digits (1990s, 10th, mp3s).
    for _ in range(3_000):
        words.append("".join(rng.choice(letters + "0123456789") for _ in range(rng.randint(1, 10))))
    return words


def realsumm_vocabulary() -> list[str]:
    """Maximal runs of [a-z0-9] in the ASCII-lowercased REALSumm texts (the ROUGE tokens)."""
    vocab = set()
    with DATA.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            for text in [row["prediction"], *row["references"]]:
                vocab.update(_TOKEN_RE.findall(text.translate(_ASCII_LOWER)))
    return sorted(vocab)


@pytest.fixture(scope="module")
def words() -> list[str]:
    vocab = set(generated_words())
    vocab.update(realsumm_vocabulary())
    vocab.update(WORDNET_EXCEPTIONS)  # all keys, including those with _ - ' .
    vocab.discard("")
    assert all("\n" not in w and "\t" not in w and w.isascii() for w in vocab)
    return sorted(vocab)


@pytest.fixture(scope="module")
def perl_rows(
    rouge_script: Path, data_dir: Path, words: list[str], tmp_path_factory: pytest.TempPathFactory
) -> list[tuple[str, str, str]]:
    return run_perl_stemmer(
        rouge_script, data_dir / "WordNet-2.0.exc.db", words, tmp_path_factory.mktemp("perl")
    )


def _report(mismatches: list[tuple[str, str, str]], what: str, total: int) -> str:
    shown = "\n".join(f"  {w!r}: perl={p!r} python={q!r}" for w, p, q in mismatches[:20])
    return f"{len(mismatches)} of {total} words differ ({what}); first ones:\n{shown}"


# ------------------------------------------------------------------------------------------
# Stemmer parity with the Perl script
# ------------------------------------------------------------------------------------------


def test_word_list_is_large_enough(words: list[str]) -> None:
    assert len(words) >= MIN_WORDS, len(words)


def test_porter_stem_matches_perl_stem(
    words: list[str], perl_rows: list[tuple[str, str, str]]
) -> None:
    mismatches = [
        (w, perl[0], ours)
        for w, perl in zip(words, perl_rows)
        if (ours := porter_stem_rouge155(w)) != perl[0]
    ]
    assert not mismatches, _report(mismatches, "stem", len(words))


def test_morph_stem_matches_perl_morphstem(
    words: list[str], perl_rows: list[tuple[str, str, str]]
) -> None:
    mismatches = [
        (w, perl[1], ours)
        for w, perl in zip(words, perl_rows)
        if (ours := morph_stem_rouge155(w)) != perl[1]
    ]
    assert not mismatches, _report(mismatches, "MorphStem", len(words))


def test_stem_token_matches_perl_tokenizer_rule(
    words: list[str], perl_rows: list[tuple[str, str, str]]
) -> None:
    mismatches = [
        (w, perl[2], ours)
        for w, perl in zip(words, perl_rows)
        if (ours := stem_token_rouge155(w)) != perl[2]
    ]
    assert not mismatches, _report(mismatches, "length > 3 ? MorphStem : token", len(words))


def test_extracted_subs_are_the_ones_in_the_script(rouge_script: Path) -> None:
    source = rouge_script.read_text(encoding="latin-1")
    stem = extract_perl_sub(source, "stem")
    # CYL's 2004 step 4, which is what makes this stemmer differ from standard Porter.
    assert "if ($w =~ /ment$/)" in stem and "if ($w =~ /ent$/)" in stem
    assert re.search(r"return \$w;\s*\}\Z", stem), stem[-200:]


# ------------------------------------------------------------------------------------------
# Data parity with the installed files
# ------------------------------------------------------------------------------------------


def _perl_stopwords(path: Path) -> frozenset[str]:
    """Load the stopword file with the script's own loop (l.478-484)."""
    program = (
        'open(STOP,$ARGV[0])||die "Cannot open $ARGV[0]\\n";'
        "while(defined($line=<STOP>)) { chomp($line); $stopwords{$line}=1; }"
        'close(STOP); print "$_\\n" for sort keys %stopwords;'
    )
    out = subprocess.run(
        ["perl", "-e", program, str(path)], check=True, capture_output=True
    ).stdout.decode("latin-1")
    return frozenset(out.split("\n")[:-1])


def test_stopwords_match_smart_file(data_dir: Path) -> None:
    path = data_dir / "smart_common_words.txt"
    assert SMART_STOPWORDS == _perl_stopwords(path)
    # Same thing in Python: lines without their "\n" (Perl chomp).
    raw = path.read_bytes().decode("latin-1")
    lines = raw.split("\n")
    if raw.endswith("\n"):
        lines.pop()
    assert SMART_STOPWORDS == frozenset(lines)


def _perl_db_dump(db: Path) -> str:
    program = (
        'tie %h,"DB_File",$ARGV[0],O_RDONLY,0440,$DB_HASH or die "cannot open $ARGV[0]\\n";'
        'print "$_\\t$h{$_}\\n" for sort keys %h'
    )
    return subprocess.run(
        ["perl", "-MDB_File", "-e", program, str(db)], check=True, capture_output=True
    ).stdout.decode("latin-1")


def test_exceptions_match_db(data_dir: Path) -> None:
    dump = _perl_db_dump(data_dir / "WordNet-2.0.exc.db")
    assert hashlib.md5(dump.encode("latin-1")).hexdigest() == EXPECTED_DB_DUMP_MD5
    from_db: dict[str, str] = {}
    for line in dump.split("\n")[:-1]:
        key, value = line.split("\t")
        from_db[key] = value
    assert len(from_db) == 5930
    assert WORDNET_EXCEPTIONS == from_db
    ours = "".join(f"{k}\t{WORDNET_EXCEPTIONS[k]}\n" for k in sorted(WORDNET_EXCEPTIONS))
    assert hashlib.md5(ours.encode("ascii")).hexdigest() == EXPECTED_DB_DUMP_MD5


def test_exceptions_match_exc_files_in_adj_adv_noun_verb_order(data_dir: Path) -> None:
    built: dict[str, str] = {}
    for name in ("adj", "adv", "noun", "verb"):
        path = data_dir / "WordNet-2.0-Exceptions" / f"{name}.exc"
        for line in path.read_text(encoding="latin-1").splitlines():
            fields = line.split()
            built[fields[0]] = fields[1]
    assert WORDNET_EXCEPTIONS == built


# ------------------------------------------------------------------------------------------
# Hand examples written in tests/rouge155/SPEC.md (sections 2.4 and 3); no Perl needed
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "word, expected",
    [("departmental", "depart"), ("agreement", "agreem"), ("statement", "statem"),
     ("accidental", "accid")],
)  # fmt: skip
def test_spec_cyl_step4_examples(word: str, expected: str) -> None:
    assert porter_stem_rouge155(word) == expected
    assert stem_token_rouge155(word) == expected


@pytest.mark.parametrize(
    "word, expected",
    [("found", "find"), ("hidden", "hide"), ("were", "be"), ("children", "child"),
     ("mice", "mouse"), ("went", "go"), ("data", "datum"), ("media", "medium"),
     ("left", "leave"), ("axes", "ax"), ("best", "well"), ("better", "well"),
     ("testes", "testes"), ("offer", "offer"), ("involucra", "involucrum")],
)  # fmt: skip
def test_spec_exception_examples(word: str, expected: str) -> None:
    assert WORDNET_EXCEPTIONS[word] == expected
    assert morph_stem_rouge155(word) == expected
    assert stem_token_rouge155(word) == expected


def test_spec_length_rule() -> None:
    # Only tokens longer than 3 characters are stemmed: `was`, `ran` never; `cats`, `were` are.
    assert stem_token_rouge155("was") == "was"
    assert stem_token_rouge155("ran") == "ran"
    assert stem_token_rouge155("cats") == "cat"
    assert stem_token_rouge155("were") == "be"
    # `is` -> `be` is in the DB but never used by the script; morph_stem itself has no length rule.
    assert WORDNET_EXCEPTIONS["is"] == "be"
    assert stem_token_rouge155("is") == "is"
    assert morph_stem_rouge155("is") == "be"


def test_spec_stopword_facts() -> None:
    assert len(SMART_STOPWORDS) == 596
    assert sum(1 for w in SMART_STOPWORDS if re.fullmatch("[a-z0-9]+", w)) == 543
    assert set("abcdefghijklmnopqrstuvwxyz") <= SMART_STOPWORDS
    notable = (
        "reuters ap tech news index may sat one two new said well best better com zero a's e.g. mr."
    )
    for word in notable.split():
        assert word in SMART_STOPWORDS, word
    months = "jan feb mar apr may jun jul aug sep oct nov dec".split()
    days = "mon tue wed thu fri sat".split()
    assert set(months + days) <= SMART_STOPWORDS


def test_morph_stem_lowercases_ascii_only() -> None:
    # MorphStem does tr/A-Z/a-z/ before the lookup and the stem.
    assert morph_stem_rouge155("Children") == "child"
    assert morph_stem_rouge155("RUNNING") == "run"
    assert morph_stem_rouge155("") == ""
