"""Conformance of ``profile="rouge155"`` with the real ROUGE-1.5.5.pl: every printed number.

For each (corpus, option set) the official Perl script is run (through ``oracle.py``) with
``-a -d`` and every number it prints is compared with ours, digit for digit:

* per example: the ``-d`` lines. Under ``-t 0`` they are R/P/F, compared with
  ``compute(..., use_aggregator=False, detailed=True)``; under ``-t 1`` they are the raw counts
  (model count, peer count, hit; ROUGE-W's are weighted floats printed with 15 digits), compared
  with the counts of the module's ``example_scores``;
* per corpus: ``Average_R/P/F`` and their confidence interval, compared with
  ``compute(..., detailed=True)[type][key]`` ``mid`` / ``low`` / ``high``.

Options map as ``_OptionSet.kwargs`` says (rouge<N> = ``-n N``, rougeL/rougeLsum = ROUGE-L,
rougeW-<w> = ``-w w``, rougeS<d>/rougeSU<d> = ``-2 d [-u]``, ``-m`` use_stemmer, ``-s``
remove_stopwords, ``-f A/B`` multi_ref average/best, ``-p`` alpha, ``-r`` n_samples, ``-c``
confidence, ``-t 0/1`` aggregation macro/micro, ``-l``/``-b`` length_limit_words/bytes).

Corpora: rows of REALSumm (``tests/data/realsumm.jsonl``; single reference, and several
references = the reference + other systems' summaries of the same document), random corpora
full of tricky tokens, and every vector of ``tests/rouge155/vectors.jsonl``.

The one deliberate difference: the script dies (division by zero) on ROUGE-W against a
reference without tokens; we score such a reference 0 and warn. Pairs with such a reference
are run through the script without ``-w`` (every other number is still compared), and our
0 + warning is asserted separately.

The samples change from run to run; the seed is in every failure message. Rerun a failure with
``ROUGE_TEST_SEED=<seed>``.
"""
import concurrent.futures
import contextlib
import json
import os
import random
import re
import shlex
import sys
import tempfile
import types
import time
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from oracle import oracle_available, oracle_vectors, perl_rouge, require_oracle, rouge_pl  # noqa: E402
from conftest import DATA, staged  # noqa: E402

pytestmark = pytest.mark.slow  # the full tier only: the ROUGE-1.5.5 Perl script on every case

SEED = int(os.environ.get("ROUGE_TEST_SEED") or time.time_ns() % (2 ** 32))
SEED_MSG = "seed=%d (rerun with ROUGE_TEST_SEED=%d)" % (SEED, SEED)

N_REALSUMM_SINGLE = 300  # rows, one reference each
N_REALSUMM_MULTI = 100  # rows, 2-4 references each
N_RANDOM = 240  # random pairs, 1-4 references each
MAX_REPORTED = 15  # mismatches printed per failing comparison


# --------------------------------------------------------------------------- option sets


@dataclass(frozen=True)
class _OptionSet:
    """One ROUGE-1.5.5 command line and the equivalent keyword arguments of ours."""

    perl: str  # the script's options, without -a -d (added)
    corpora: tuple  # names of the corpora it runs on
    l_types: tuple = ("rougeL",)  # which of our names are checked against ROUGE-L
    w_name: str | None = None  # our name for -w (default: rougeW-<w>)
    n: int = 0
    w: str | None = None
    skip: int | None = None
    u: bool = False
    m: bool = False
    s: bool = False
    f: str = "A"
    p: str = "0.5"
    word_limit: int | None = None  # -l
    byte_limit: int | None = None  # -b
    r: int = 1000
    c: str = "95"
    t: int = 0

    @classmethod
    def parse(cls, perl: str, corpora=(), **extra) -> "_OptionSet":
        values = {}
        toks = shlex.split(perl)
        k = 0
        while k < len(toks):
            opt = toks[k]
            if opt in ("-u", "-m", "-s"):
                values[opt[1]] = True
                k += 1
                continue
            if opt in ("-a", "-d"):
                k += 1
                continue
            arg = toks[k + 1]
            k += 2
            if opt == "-n":
                values["n"] = int(arg)
            elif opt == "-w":
                values["w"] = arg
            elif opt == "-2":
                values["skip"] = int(arg)
            elif opt in ("-f", "-p", "-c"):
                values[opt[1]] = arg
            elif opt in ("-r", "-t"):
                values[opt[1]] = int(arg)
            elif opt == "-l":
                values["word_limit"] = int(arg)
            elif opt == "-b":
                values["byte_limit"] = int(arg)
            else:
                raise ValueError("option %s is not mapped by this test" % opt)
        perl = " ".join(t for t in toks if t not in ("-a", "-d"))
        return cls(perl=perl, corpora=tuple(corpora), **values, **extra)

    @property
    def command(self) -> str:
        return self.perl + " -a -d"

    def types(self, with_w=True):
        """[(our type name, the script's printed name)] in the script's order."""
        out = [("rouge%d" % k, "ROUGE-%d" % k) for k in range(1, self.n + 1)]
        out += [(name, "ROUGE-L") for name in self.l_types]
        if self.w is not None and with_w:
            out.append((self.w_name or "rougeW-%s" % self.w, "ROUGE-W-%s" % self.w))
        if self.skip is not None:
            kind = "SU" if self.u else "S"
            d = "" if self.skip < 0 else str(self.skip)
            out.append(("rouge%s%s" % (kind, d), "ROUGE-%s%s" % (kind, d or "*")))
        return out

    def kwargs(self, with_w=True) -> dict:
        return dict(
            rouge_types=[ours for ours, _ in self.types(with_w)], profile="rouge155",
            use_stemmer=self.m, remove_stopwords=self.s,
            multi_ref={"A": "average", "B": "best"}[self.f], alpha=float(self.p),
            n_samples=self.r, confidence=float(self.c) / 100.0,
            aggregation={0: "macro", 1: "micro"}[self.t],
            length_limit_words=self.word_limit, length_limit_bytes=self.byte_limit)

    def without_w(self) -> "_OptionSet":
        perl = re.sub(r"\s*-w \S+", "", self.perl)
        return replace(self, perl=perl, w=None, w_name=None)


RS1, RSM, RND = "realsumm_single", "realsumm_multi", "random"
_O = _OptionSet.parse
# A covering set, not the cartesian product: -n 1..4; -w 1.2 (as rougeW and rougeW-1.2), 1.5
# and 2; -2 0/1/4/-1 each with and without -u; -m and -s on/off; -f A/B; -p 0/0.3/0.5/1;
# -l and -b (small limits that cut inside sentences, words and UTF-8 sequences, and large
# ones); -r/-c other than 1000/95; -t 0 and -t 1; rougeL, rougeLsum and both.
OPTION_SETS = [
    _O("-n 2 -w 1.2 -2 4 -u -c 95 -r 1000 -f A -p 0.5 -t 0", (RS1, RSM, RND), w_name="rougeW"),
    _O("-n 2 -w 1.2 -2 4 -u -m", (RS1, RSM, RND), l_types=("rougeLsum",)),
    _O("-n 4 -m -s -f B -p 0.3", (RSM, RND), l_types=("rougeL", "rougeLsum")),
    _O("-n 1 -w 1.5 -2 0 -p 0 -t 1", (RS1, RND)),
    _O("-n 3 -2 -1 -u -f B -p 1 -r 37 -c 90", (RSM, RND)),
    _O("-n 2 -2 1 -l 10", (RS1, RND)),
    _O("-n 2 -w 1.2 -2 4 -u -b 75", (RS1, RND)),
    _O("-n 1 -w 2 -2 -1 -s -t 1 -f B", (RSM, RND)),
    _O("-n 4 -w 1.2 -2 4 -m -s -l 30 -c 99.9", (RND,), l_types=("rougeLsum",)),
    _O("-n 2 -2 1 -u -b 40 -m -t 1", (RSM, RND)),
    _O("-n 3 -w 1.2 -f B -b 200 -s", (RSM, RND)),
    _O("-n 1 -2 0 -u -l 5 -f B -t 1 -p 0.3", (RND,)),
    _O("-n 2 -2 -1 -m -p 1 -r 200 -c 80", (RND, RS1)),
    _O("-n 4 -w 1.5 -2 4 -u -m -s -f B -p 0 -l 20 -t 1", (RND,)),
    _O("-n 2 -2 0 -s -r 37 -c 90 -t 1", (RND,)),
    _O("-n 1 -w 1.2 -m -b 12", (RND,), w_name="rougeW-1.2"),
    _O("-n 2 -w 1.2 -l 1 -p 0.3", (RND,)),
    _O("-n 3 -2 4 -m -f B -b 120 -t 1", (RND,)),
    _O("-n 1 -w 1.2 -2 1 -r 1 -c 99", (RND,)),
    _O("-n 2 -w 2 -2 -1 -u -l 60 -f A -p 0.5 -r 500 -c 97.5 -t 1 -m", (RSM,)),
]


# --------------------------------------------------------------------------- corpora


def _realsumm_rows():
    with open(DATA, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _realsumm_corpora(rng):
    rows = _realsumm_rows()
    single = [(r["prediction"], [r["references"][0]]) for r in rng.sample(rows, N_REALSUMM_SINGLE)]
    by_doc = {}
    for r in rows:
        by_doc.setdefault(r["doc"], []).append(r)
    multi = []
    for r in rng.sample(rows, N_REALSUMM_MULTI):
        others = [o["prediction"] for o in by_doc[r["doc"]] if o is not r]
        multi.append((r["prediction"], [r["references"][0]] + rng.sample(others, rng.randint(1, 3))))
    return single, multi


_PLAIN = ("the a of and to in on at cat cats dog dogs sat mat bed home ran runs run running "
          "quickly slowly found hidden under over was were is be said well new one two news "
          "may sat reuters com zero big small red green house houses time times year years "
          "government police president world people children mice went left data media "
          "agreement statement departmental accidental generalizations ponies caresses hopping "
          "relational conditional happiness better best comics axes offer testes leaves "
          "city cities report reported reporting study studies win wins won").split()
_LONG = ["internationalization", "counterrevolutionaries", "responsibilities",
         "characteristically", "uncharacteristically", "institutionalizations",
         "electroencephalographs", "abcdefghijklm", "a1b2c3d4e5f6g7"]
_DIGITS = ["2019", "3.5%", "$10,000", "1st", "42", "007", "1,000,000", "v2", "mp3", "x86-64",
           "24/7", "0"]
_HYPHEN = ["state-of-the-art", "well-known", "--", "-", "e-mail", "co-operate", "-leading",
           "trailing-", "a-b-c", "---x---"]
_APOS = ["don't", "it's", "O'Neill", "rock'n'roll", "'quoted'", "cats'", "won't", "y'all"]
_CAPS = ["The", "CAT", "NASA", "McDonald", "iPhone", "USA", "U.S.", "Mr.", "DOG", "Sat", "MAY",
         "Reuters", "COMICS", "Children"]
_NON_ASCII = ["café", "naïve", "über", "Straße", "İstanbul", "ÅNGSTRÖM", "猫が好き", "Ελληνικά",
              "résumé", "ﬁne", "\u212aelvin", "naïve-ly", "日本", "Ｆｕｌｌ", "cat\u00a0dog",
              "mat\u2003sat", "emoji😀cat", "Ωmega", "coöperate", "dog\u3000house"]
_PUNCT = [",", ".", "!", "?", ";", ":", "(", ")", "\"", "...", "&", "%", "$", "#", "@", "_",
          "under_score", "a_b", "*", "/", "<s>", "[1]", "{x}", "\\", "|"]
_GAPS = [" "] * 30 + ["  ", "\t", "\u00a0", "\u2003", "\u3000", "\x0b", "\x0c", "\r", "\x1c",
                      "\x1f", "\x85", " \t ", "\x00"]


def _word(rng):
    x = rng.random()
    if x < 0.62:
        return rng.choice(_PLAIN)
    pool = rng.choice([_LONG, _DIGITS, _HYPHEN, _APOS, _CAPS, _NON_ASCII, _PUNCT])
    return rng.choice(pool)


def _sentence(rng, long=False):
    n = rng.randint(0, 60 if long else 16)
    words = []
    for _ in range(n):
        if words and rng.random() < 0.06:
            words.extend([words[-1]] * rng.randint(1, 3))  # repeated words
        words.append(_word(rng))
    out = ""
    for k, w in enumerate(words):
        out += (rng.choice(_GAPS) if k else "") + w
    if rng.random() < 0.15:
        out = rng.choice([" ", "  ", "\t"]) + out  # leading whitespace: -l counts an empty word
    if rng.random() < 0.1:
        out += rng.choice([" ", "\t", "\r"])
    return out


def _special(rng):
    return rng.choice(["", "", " ", "   \n\t ", "\n\n", "...", "!!! -- ,,, - :-)", "- - -",
                       "猫が好きです。", "Ελληνικά κείμενα", "\u00a0\u3000", "'", "$ % &",
                       "\r\n\r\n", "a", "A", "cat", "comics", "the the the", "0"])


def _text(rng):
    if rng.random() < 0.12:
        return _special(rng)
    long = rng.random() < 0.12
    lines = []
    for _ in range(rng.randint(1, 10 if long else 4)):
        x = rng.random()
        if x < 0.06:
            lines.append("")  # empty line: skipped by the script
        elif x < 0.12:
            lines.append(rng.choice([" ", "\t", "  ", "\r", " \u00a0 "]))  # whitespace-only
        else:
            lines.append(_sentence(rng, long))
    return "\n".join(lines) + ("\n" if rng.random() < 0.2 else "")


def _mutate(rng, text):
    """A reference that overlaps the prediction: word edits, case and punctuation changes,
    sentence shuffles."""
    lines = text.split("\n")
    if rng.random() < 0.3:
        rng.shuffle(lines)
    out = []
    for line in lines:
        words = line.split(" ")
        edited = []
        for w in words:
            x = rng.random()
            if x < 0.12:
                continue
            if x < 0.22:
                edited.append(_word(rng))
            elif x < 0.28:
                edited.append(w.upper())
            elif x < 0.32:
                edited.extend([w, _word(rng)])
            elif x < 0.35:
                edited.append(w + rng.choice([",", ".", "'s", "-", "ing", "s"]))
            else:
                edited.append(w)
        out.append(" ".join(edited))
    if rng.random() < 0.2:
        out.insert(rng.randint(0, len(out)), _sentence(rng))
    return "\n".join(out)


def _random_corpus(rng, n):
    pairs = []
    for _ in range(n):
        pred = _text(rng)
        n_refs = rng.choices([1, 2, 3, 4], weights=[45, 25, 17, 13])[0]
        refs = []
        for _ in range(n_refs):
            x = rng.random()
            if x < 0.5:
                refs.append(_mutate(rng, pred))
            elif x < 0.93:
                refs.append(_text(rng))
            else:
                refs.append(_special(rng))
        pairs.append((pred, refs))
    return pairs


# --------------------------------------------------------------------------- the script's tokens
# An independent model of which references have no token for ROUGE-W (SPEC §2, §4.4): the
# script's readText_LCS sentences, after -l/-b, cleanup and -s. Used only to keep the pairs on
# which the script would die out of its runs.

_PERL_SPACE = re.compile(rb"[ \t\n\r\f\x0b]+")  # Perl's \s on a byte string
_STOPWORDS = None


def _stopwords():
    global _STOPWORDS
    if _STOPWORDS is None:
        path = Path(rouge_pl()).parent / "data" / "smart_common_words.txt"
        _STOPWORDS = {line.rstrip(b"\n") for line in path.read_bytes().split(b"\n")}
    return _STOPWORDS


def _lcs_sentences_tokens(text, o: _OptionSet):
    # raw bytes, lines of length 0 skipped, A-Z -> a-z only (bytes.lower() is ASCII-only)
    lines = [line.lower() for line in text.encode("utf-8").split(b"\n") if len(line) > 0]
    if o.word_limit is not None:
        kept, count = [], 0
        for line in lines:
            words = _PERL_SPACE.split(line)
            while words and words[-1] == b"":
                words.pop()
            if count + len(words) < o.word_limit:
                kept.append(line)
                count += len(words)
            else:
                kept.append(b" ".join(words[:o.word_limit - count]))
                break
        lines = kept
    elif o.byte_limit is not None:
        kept = []
        for line in lines:  # readText_LCS never increases its byte count (SPEC §2.2)
            if len(line) < o.byte_limit:
                kept.append(line)
            else:
                kept.append(line[:o.byte_limit])
                break
        lines = kept
    sentences = []
    for line in lines:
        tokens = re.findall(rb"[a-z0-9]+", line)
        if o.s:
            tokens = [t for t in tokens if t not in _stopwords()]
        sentences.append(tokens)
    return sentences


def _w_dies(pair, o: _OptionSet) -> bool:
    """True when the script's ROUGE-W dies on this pair (a reference without tokens)."""
    return o.w is not None and any(
        not any(_lcs_sentences_tokens(ref, o)) for ref in pair[1])


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def m155():
    """The metric (loaded as users load it) and the package's modules it runs."""
    require_oracle()
    if not os.environ.get("HF_MODULES_CACHE"):
        os.environ["HF_MODULES_CACHE"] = tempfile.mkdtemp(prefix="hf_modules_")
    import evaluate

    metric = evaluate.load(str(REPO / "rouge_metric.py"))
    return metric, types.SimpleNamespace(RougeWarning=staged("options").RougeWarning,
                                         RougeOptions=staged("options").RougeOptions,
                                         example_scores=staged("scorer.pipeline").example_scores)


@pytest.fixture(scope="module")
def corpora():
    if not oracle_available():
        return {}
    rng = random.Random(SEED)
    single, multi = _realsumm_corpora(rng)
    return {RS1: single, RSM: multi, RND: _random_corpus(rng, N_RANDOM)}


_TALLY = {"outputs": 0, "pairs": 0, "numbers": 0}  # script outputs compared, and their size


@pytest.fixture(scope="module")
def perl_runs(corpora, request):
    """Every Perl run of this module, started at once on a small thread pool (the script is
    the slow part); {(corpus, option set index): (kept pairs, future, dead pairs, future)}."""
    if not corpora:
        return {}
    selected = {(item.callspec.params["corpus"], item.callspec.params["index"])
                for item in request.session.items
                if getattr(item, "originalname", None) == "test_every_printed_number"}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
    jobs = {}
    for index, o in enumerate(OPTION_SETS):
        for name in o.corpora:
            if (name, index) not in selected:
                continue
            pairs = corpora[name]
            dead = [p for p in pairs if _w_dies(p, o)]
            kept = [p for p in pairs if not _w_dies(p, o)]
            jobs[name, index] = (
                kept, pool.submit(perl_rouge, kept, o.command) if kept else None,
                dead, pool.submit(perl_rouge, dead, o.without_w().command) if dead else None)

    def report():
        pool.shutdown(wait=False, cancel_futures=True)
        tr = request.config.pluginmanager.get_plugin("terminalreporter")
        capture = request.config.pluginmanager.get_plugin("capturemanager")
        if tr is not None and capture is not None and _TALLY["outputs"]:
            with capture.global_and_fixture_disabled():
                tr.write_line("rouge155 conformance: %(outputs)d outputs of the script "
                              "(%(pairs)d pairs in all), %(numbers)d printed numbers compared"
                              % _TALLY + "; " + SEED_MSG)

    request.addfinalizer(report)
    return jobs


# --------------------------------------------------------------------------- comparison


def _fmt15(x):
    return float("%.15g" % x)


def _ours(m155, pairs, o: _OptionSet, with_w=True):
    """Our numbers in the shape of perl_rouge.py's "scores" (per_pair and corpus)."""
    metric, module = m155
    preds = [p for p, _ in pairs]
    refs = [list(r) for _, r in pairs]
    if all(len(r) == 1 for r in refs):
        refs = [r[0] for r in refs]  # one reference each: the plain-string form
    kw = o.kwargs(with_w)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", module.RougeWarning)  # asserted in _check_w_zero
        agg = metric.compute(predictions=preds, references=refs, detailed=True, **kw)
        if o.t == 0:
            per = metric.compute(predictions=preds, references=refs, detailed=True,
                                 use_aggregator=False, **kw)
        else:
            options = module.RougeOptions.build(detailed=True, use_aggregator=False, **kw)
            counts = module.example_scores(options, preds, refs)[0].counts
    for ours, perl_name in o.types(with_w):
        entry = {}
        for key, letter in (("recall", "R"), ("precision", "P"), ("fmeasure", "F")):
            bounds = agg[ours][key]
            entry[letter] = bounds["mid"]
            entry[letter + "_ci"] = [bounds["low"], bounds["high"]]
        if o.t == 0:
            entry["per_pair"] = [
                {"R": r, "P": p, "F": f} for r, p, f in zip(
                    per[ours]["recall"], per[ours]["precision"], per[ours]["fmeasure"])]
        else:
            c = counts[ours]  # columns: hit, den_p, den_r
            entry["per_pair"] = [{"model_count": _fmt15(row[2]), "peer_count": _fmt15(row[1]),
                                  "hit": _fmt15(row[0])} for row in c.tolist()]
        out.setdefault(perl_name, {})[ours] = entry
    return out


def _pair_repr(pair):
    pred, refs = pair
    return "pred=%r refs=%r" % (pred[:300], [r[:300] for r in refs])


def _compare(label, o: _OptionSet, pairs, perl, ours, with_w=True):
    """Mismatch messages; also counts the numbers compared."""
    bad = []
    expected_names = [p for _, p in o.types(with_w)]
    scores = perl["scores"]
    if perl["returncode"] != 0:
        bad.append("perl exit %s: %s" % (perl["returncode"], perl["stderr"][-400:]))
    if list(scores) != list(dict.fromkeys(expected_names)):
        bad.append("the script printed %s, expected %s" % (list(scores), expected_names))
    numbers = 0
    for perl_name, by_ours in ours.items():
        theirs = scores.get(perl_name)
        if theirs is None:
            continue
        for ours_name, mine in by_ours.items():
            for key in ("R", "P", "F"):
                for what, a, b in ((key, theirs[key], mine[key]),
                                   (key + " low", theirs[key + "_ci"][0], mine[key + "_ci"][0]),
                                   (key + " high", theirs[key + "_ci"][1], mine[key + "_ci"][1])):
                    numbers += 1
                    if a != b:
                        bad.append("%s (%s) corpus %s: perl %r, ours %r" % (
                            perl_name, ours_name, what, a, b))
            per_perl = theirs.get("per_pair") or []
            if len(per_perl) != len(pairs):
                bad.append("%s: the script printed %d -d lines for %d pairs" % (
                    perl_name, len(per_perl), len(pairs)))
                continue
            for i, (a, b) in enumerate(zip(per_perl, mine["per_pair"])):
                for key in a:
                    numbers += 1
                    if a[key] != b[key]:
                        bad.append("%s (%s) pair %d %s: perl %r, ours %r\n      %s" % (
                            perl_name, ours_name, i, key, a[key], b[key],
                            _pair_repr(pairs[i])))
    _TALLY["numbers"] += numbers
    _TALLY["outputs"] += 1
    _TALLY["pairs"] += len(pairs)
    if bad:
        head = "%s: %d mismatches with `ROUGE-1.5.5.pl %s`; %s" % (
            label, len(bad), o.command, SEED_MSG)
        return [head] + bad[:MAX_REPORTED]
    return []


def _check_w_zero(m155, dead, o: _OptionSet, label):
    """Our ROUGE-W on pairs whose reference has no token: 0 (single reference, or every
    reference empty) and a RougeWarning; never an exception."""
    metric, module = m155
    ours_w = next(ours for ours, perl in o.types() if perl.startswith("ROUGE-W-"))
    preds = [p for p, _ in dead]
    refs = [list(r) for _, r in dead]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        per = metric.compute(predictions=preds, references=refs, detailed=True,
                             use_aggregator=False, **dict(o.kwargs(), aggregation="macro"))
    bad = []
    messages = [str(w.message) for w in caught if issubclass(w.category, module.RougeWarning)]
    if not any("rougeW" in m and "no tokens" in m for m in messages):
        bad.append("%s: no RougeWarning about ROUGE-W references without tokens (got %s)" % (
            label, messages))
    for i, (_pred, rs) in enumerate(dead):
        all_empty = all(not any(_lcs_sentences_tokens(r, o)) for r in rs)
        for key in ("recall", "precision", "fmeasure"):
            v = per[ours_w][key][i]
            if not (0.0 <= v <= 1.0) or (all_empty and v != 0.0):
                bad.append("%s: %s %s = %r on a pair with an empty reference: %s" % (
                    label, ours_w, key, v, _pair_repr(dead[i])))
    return bad


def _run_case(m155, label, o: _OptionSet, kept, kept_perl, dead, dead_perl):
    bad = []
    if kept:
        bad += _compare(label, o, kept, kept_perl, _ours(m155, kept, o))
    if dead:
        # the script dies on ROUGE-W here: compare everything else, then our W = 0 + warning
        no_w = o.without_w()
        bad += _compare(label + " [pairs with a reference without tokens, no -w]", no_w, dead,
                        dead_perl, _ours(m155, dead, no_w))
        bad += _check_w_zero(m155, dead, o, label)
    return bad


# --------------------------------------------------------------------------- tests


@contextlib.contextmanager
def _seed_in_errors():
    """Every failure names the seed: mismatch lists carry it; so does any other exception."""
    try:
        yield
    except AssertionError:
        raise
    except Exception as error:
        raise AssertionError("%s: %s; %s" % (type(error).__name__, error, SEED_MSG)) from error


CASES = [(name, index) for index, o in enumerate(OPTION_SETS) for name in o.corpora]


@pytest.mark.parametrize("corpus,index", CASES, ids=["%s-%d" % c for c in CASES])
def test_every_printed_number(m155, perl_runs, corpus, index):
    o = OPTION_SETS[index]
    kept, kept_future, dead, dead_future = perl_runs[corpus, index]
    with _seed_in_errors():
        bad = _run_case(m155, "%s [%s]" % (corpus, o.perl), o, kept,
                        kept_future.result() if kept_future else None, dead,
                        dead_future.result() if dead_future else None)
    assert not bad, "\n".join([SEED_MSG] + bad)


@pytest.mark.parametrize("vector", oracle_vectors(), ids=lambda v: v["id"])
def test_oracle_vectors(m155, vector):
    """Every stored output of vectors.jsonl (std, std_m and, where the script dies on
    ROUGE-W, the outputs it printed before dying plus the *_noW runs)."""
    pairs = [(p["prediction"], p["references"]) for p in vector["pairs"]]
    bad = []
    for name, command in vector["options"].items():
        result = vector["outputs"][name]
        o = _OptionSet.parse(command, w_name="rougeW" if "-w 1.2" in command else None)
        label = "vector %s (%s)" % (vector["id"], name)
        if result["returncode"] == 0:
            bad += _compare(label, o, pairs, result, _ours(m155, pairs, o))
            continue
        # the script died on ROUGE-W: it printed the metrics before it
        assert any(_w_dies(p, o) for p in pairs), label
        printed = dict(result, returncode=0)
        no_w = o.without_w()
        no_s = replace(no_w, skip=None, u=False)  # S/SU come after W: never printed
        bad += _compare(label + " [printed before dying]", no_s, pairs, printed,
                        _ours(m155, pairs, no_s))
        bad += _check_w_zero(m155, pairs, o, label)
    assert not bad, "\n".join([SEED_MSG] + bad)


def test_many_references(m155):
    """9 to 12 references per example: -f A sums the references' ROUGE-W floats left to right
    (the -t 1 counts show 15 digits); -f B picks the first best of many."""
    require_oracle()
    rng = random.Random(SEED + 1)
    pairs = []
    for _ in range(25):
        pred = _text(rng)
        refs = [_mutate(rng, pred) if rng.random() < 0.6 else _text(rng)
                for _ in range(rng.randint(9, 12))]
        pairs.append((pred, refs))
    bad = []
    for perl in ("-n 2 -w 1.2 -2 4 -u -t 1", "-n 1 -w 1.5 -m -t 0", "-n 2 -w 1.2 -f B -t 1"):
        o = _OptionSet.parse(perl)
        kept = [p for p in pairs if not _w_dies(p, o)]
        with _seed_in_errors():
            bad += _compare("many references [%s]" % perl, o, kept,
                            perl_rouge(kept, o.command), _ours(m155, kept, o))
    assert not bad, "\n".join([SEED_MSG] + bad)


def test_round5_is_perls_sprintf(metric_module):
    # sprintf("%.5f") rounds the exact binary value; numpy's round(x, 5) does not
    rng = np.random.default_rng(5)
    values = np.concatenate([
        rng.random(200_000),
        rng.integers(0, 100_001, 50_000) / 1e5 + 5e-6,  # at decimal midpoints, as written
        np.arange(0, 64 * 64 + 1) / (64 * 64),  # exact binary ties (k/4096) and neighbours
        np.nextafter(np.arange(0, 64 * 64 + 1) / (64 * 64), 2.0),
        [0.0, 1.0, 123.456785, 999.999995, 1e6 + 0.123455, -0.000005, -0.123456],
    ])
    expected = [float("%.5f" % v) for v in values.tolist()]
    assert staged("profiles")._perl_round5(values).tolist() == expected
