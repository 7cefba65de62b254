"""The naive reference (naive_rouge.py) against the real ROUGE-1.5.5 Perl script.

Expectations come only from the Perl script (run live through oracle.py, or its stored outputs
in tests/rouge155/vectors.jsonl, which a test here checks against a live run), never from
numbers computed by us. Every per-pair R, P and F printed by the script (``-d``) must be equal,
digit for digit, to the value computed from the naive statistics with the script's rounding
(SPEC §5; SPEC is tests/rouge155/SPEC.md throughout):

    R = round5(hit / den_R), P = round5(hit / den_P), F = round5(fscore(P, R, alpha))

The random corpora change on every run. The seed is in every failure message; rerun a failure
with ``ROUGE_TEST_SEED=<seed>``.
"""
import os
import random
import re
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pytest  # noqa: E402

import naive_rouge as nr  # noqa: E402
from oracle import oracle_vectors, perl_rouge, require_oracle, stored_output  # noqa: E402

pytestmark = pytest.mark.slow  # the full tier only: the ROUGE-1.5.5 Perl script on every case

SEED = int(os.environ.get("ROUGE_TEST_SEED") or time.time_ns() % (2 ** 32))
SEED_MSG = "seed=%d (rerun with ROUGE_TEST_SEED=%d)" % (SEED, SEED)

N_SINGLE = 600  # single-reference pairs
N_MULTI = 250  # multi-reference pairs (2-4 references)


def round5(x):
    return float("%.5f" % x)


# --------------------------------------------------------------------------- tokenizer


def perl_sentences(text):
    """Token lists per sentence, as ROUGE-1.5.5 sees an SPL file without -m/-s/-l/-b.

    SPEC §2.1/§2.3: raw UTF-8 bytes; one sentence per line, lines of length 0 skipped (a
    whitespace-only line is a sentence without tokens); ASCII A-Z -> a-z only; then every byte
    outside [a-z0-9] (after lowercasing; '-' is split off and the lone '-' dropped; bytes >= 0x80
    included) separates tokens. The joined text of readText has the same tokens in order.
    """
    sents = []
    for line in text.encode("utf-8").split(b"\n"):
        if len(line) == 0:
            continue
        sents.append([t.decode("ascii") for t in re.findall(rb"[a-z0-9]+", line.lower())])
    return sents


def flat(sents):
    return [t for s in sents for t in s]


# --------------------------------------------------------------------------- options -> expectations


def parse_options(options):
    """The subset of ROUGE-1.5.5 options these tests model (no -m/-s/-l/-b, -t 0, -f A)."""
    o = {"n": None, "w": None, "skip": None, "u": False, "x": False, "alpha": 0.5}
    toks = shlex.split(options)
    k = 0
    while k < len(toks):
        t = toks[k]
        if t in ("-n", "-w", "-2", "-p", "-f", "-t", "-c", "-r", "-e"):
            v = toks[k + 1]
            k += 2
            if t == "-n":
                o["n"] = int(v)
            elif t == "-w":
                o["w"] = v  # kept as typed: it is part of the printed metric name
            elif t == "-2":
                o["skip"] = int(v)
            elif t == "-p":
                o["alpha"] = float(v)
            elif t == "-f" and v != "A":
                raise NotImplementedError("only -f A is modelled")
            elif t == "-t" and v != "0":
                raise NotImplementedError("only -t 0 is modelled")
            continue
        if t == "-u":
            o["u"] = True
        elif t == "-x":
            o["x"] = True
        elif t not in ("-a", "-d"):
            raise NotImplementedError("option %s is not modelled here" % t)
        k += 1
    return o


def metric_names(o):
    """Printed metric names in the script's order (SPEC §1.3, §7)."""
    names = []
    if o["n"]:
        names += ["ROUGE-%d" % i for i in range(1, o["n"] + 1)]
    if not o["x"]:
        names.append("ROUGE-L")
    if o["w"] is not None:
        names.append("ROUGE-W-%s" % o["w"])
    if o["skip"] is not None:
        d = "*" if o["skip"] < 0 else str(o["skip"])
        names.append(("ROUGE-SU%s" if o["u"] else "ROUGE-S%s") % d)
    return names


def _prf_counts(stats, alpha):
    """-f A pooling for count metrics (SPEC §5): sum hits, sum ref counts, peer count per ref."""
    hit = den_r = den_p = 0
    for h, pc, rc in stats:
        hit += h
        den_r += rc
        den_p += pc
    r = round5(hit / den_r) if den_r != 0 else 0.0
    p = round5(hit / den_p) if den_p != 0 else 0.0
    return r, p, round5(nr.fscore(p, r, alpha))


def _prf_wlcs(stats, weight, alpha):
    """ROUGE-W per pair; one reference through wlcs_prf, several pooled like computeWLCSScore:
    HIT = sum hit_j, DEN_R = sum f(ref_base_j), DEN_P = f(|X|) added once per reference."""
    if len(stats) == 1:
        r, p = nr.wlcs_prf(*stats[0], weight)
    else:
        hit = den_r = den_p = 0
        for h, pred_total, ref_base in stats:
            hit += h
            den_r += ref_base ** weight
            den_p += pred_total ** weight
        r = (hit / den_r) ** (1 / weight) if den_r != 0 else 0.0
        p = (hit / den_p) ** (1 / weight) if den_p != 0 else 0.0
    r, p = round5(r), round5(p)
    return r, p, round5(nr.fscore(p, r, alpha))


def expected_scores(pairs_sents, o):
    """{metric name: [(R, P, F) per pair]} from the naive statistics.

    pairs_sents: [(pred_sentences, [ref_sentences, ...]), ...] (token lists per sentence).
    """
    out = {}
    alpha = o["alpha"]
    if o["n"]:
        for n in range(1, o["n"] + 1):
            out["ROUGE-%d" % n] = [
                _prf_counts([nr.ngram_stats(flat(p), flat(r), n) for r in refs], alpha)
                for p, refs in pairs_sents]
    if not o["x"]:
        out["ROUGE-L"] = [_prf_counts([nr.union_lcs_stats(p, r) for r in refs], alpha)
                          for p, refs in pairs_sents]
    if o["w"] is not None:
        w = float(o["w"])
        name = "ROUGE-W-%s" % o["w"]
        out[name] = []
        for p, refs in pairs_sents:
            if any(not flat(r) for r in refs):
                out[name].append("DIES")  # SPEC §4.4.4: perl dies, the run prints no ROUGE-W
            else:
                out[name].append(_prf_wlcs([nr.wlcs_stats(p, r, w) for r in refs], w, alpha))
    if o["skip"] is not None:
        name = metric_names(dict(o, n=None, x=True, w=None))[0]
        d = None if o["skip"] < 0 else o["skip"]
        out[name] = [
            _prf_counts([nr.skip_bigram_stats(flat(p), flat(r), d, o["u"]) for r in refs], alpha)
            for p, refs in pairs_sents]
    return out


def compare(pairs_text, pairs_sents, options, result, limit=8, o=None):
    """List of human-readable mismatches between Perl's -d output and the naive values.

    ``o`` overrides the parsed options (used for runs where perl died half-way)."""
    o = o or parse_options(options)
    exp = expected_scores(pairs_sents, o)
    bad = []
    scores = result["scores"]
    if result["returncode"] != 0:
        bad.append("perl exit %s: %s" % (result["returncode"], result["stderr"][-500:]))
    if list(scores) != metric_names(o):
        bad.append("metrics printed %s, expected %s" % (list(scores), metric_names(o)))
    for name, rows in exp.items():
        got = scores.get(name, {}).get("per_pair") or [None] * len(rows)
        for i, (e, g) in enumerate(zip(rows, got)):
            g = None if g is None else (g["R"], g["P"], g["F"])
            if g != e:
                bad.append("%s pair %d: perl R/P/F=%s naive=%s\n    pred=%r\n    refs=%r" % (
                    name, i, g, e, pairs_text[i][0], pairs_text[i][1]))
    if bad:
        head = "%d mismatches for options %r, %s" % (len(bad), options, SEED_MSG)
        return [head] + bad[:limit]
    return []


# --------------------------------------------------------------------------- random corpora

BASE_VOCAB = ("the cat sat on mat dog ran a of and to in is it big red was by".split())


def _rand_text(rng, vocab, p_empty=0.06):
    if rng.random() < p_empty:
        return ""
    sents = []
    for _ in range(rng.randint(1, 4)):
        sents.append(" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 12))))
    return "\n".join(sents)


def _mutate(rng, text, vocab):
    """A prediction close to a reference: long common runs, repeats, reordered sentences."""
    sents = [s.split() for s in text.split("\n")]
    out = []
    for s in sents:
        new = []
        for tok in s:
            x = rng.random()
            if x < 0.12:
                continue
            new.append(rng.choice(vocab) if x < 0.25 else tok)
            if rng.random() < 0.1:
                new.append(rng.choice(vocab))
        out.append(new)
    if rng.random() < 0.3:
        rng.shuffle(out)
    if rng.random() < 0.3:  # re-cut the token stream into 1-4 sentences
        toks = [t for s in out for t in s]
        cuts = sorted(rng.randint(0, len(toks)) for _ in range(rng.randint(0, 3)))
        bounds = [0] + cuts + [len(toks)]
        out = [toks[a:b] for a, b in zip(bounds, bounds[1:])]
    return "\n".join(" ".join(s[:12]) for s in out[:4])


def _pair(rng, n_refs):
    vocab = rng.sample(BASE_VOCAB, rng.randint(2, 8))
    refs = [_rand_text(rng, vocab) for _ in range(n_refs)]
    if rng.random() < 0.5 and refs[0]:
        pred = _mutate(rng, refs[rng.randrange(n_refs)] or refs[0], vocab)
    else:
        pred = _rand_text(rng, vocab)
    return pred, refs


def _corpus(tag, size, min_refs, max_refs):
    rng = random.Random("%d-%s" % (SEED, tag))
    return [_pair(rng, rng.randint(min_refs, max_refs)) for _ in range(size)]


def _sents_simple(text):
    # the generated texts are lowercase ASCII words, single spaces, "\n" between sentences
    return [line.split() for line in text.split("\n") if line]


SINGLE = _corpus("single", N_SINGLE, 1, 1)
MULTI = _corpus("multi", N_MULTI, 2, 4)


def _has_tokens_everywhere(pair):
    return all(flat(_sents_simple(r)) for r in pair[1])


def _run_and_compare(corpus, options):
    require_oracle()
    pairs_sents = [(_sents_simple(p), [_sents_simple(r) for r in refs]) for p, refs in corpus]
    result = perl_rouge(corpus, options)
    bad = compare(corpus, pairs_sents, options, result)
    assert not bad, "\n".join(bad)


SINGLE_OPTIONS = [
    ("all", "-n 4 -w 1.2 -2 4 -u -a -d"),
    ("all_noW_emptyrefs", "-n 4 -2 4 -u -a -d"),
    ("w1.5_SUstar", "-w 1.5 -2 -1 -u -a -d"),
    ("Sstar", "-2 -1 -a -d"),
    ("SU0", "-2 0 -u -a -d"),
    ("S0", "-2 0 -a -d"),
    ("SU1", "-2 1 -u -a -d"),
    ("S1", "-2 1 -a -d"),
    ("S4_alpha0.25", "-n 2 -w 1.2 -2 4 -p 0.25 -a -d"),
]

MULTI_OPTIONS = [
    ("all", "-n 4 -w 1.2 -2 4 -u -f A -a -d"),
    ("w1.5_Sstar", "-n 2 -w 1.5 -2 -1 -f A -a -d"),
    ("SU1_emptyrefs", "-n 2 -2 1 -u -f A -a -d"),
]


def _select(corpus, options):
    # ROUGE-W dies on a reference without tokens (SPEC §4.4.4), killing the whole run
    if parse_options(options)["w"] is not None:
        return [p for p in corpus if _has_tokens_everywhere(p)]
    return corpus


@pytest.mark.parametrize("options", [o for _, o in SINGLE_OPTIONS], ids=[i for i, _ in SINGLE_OPTIONS])
def test_single_reference(options):
    _run_and_compare(_select(SINGLE, options), options)


@pytest.mark.parametrize("options", [o for _, o in MULTI_OPTIONS], ids=[i for i, _ in MULTI_OPTIONS])
def test_multi_reference_f_A(options):
    _run_and_compare(_select(MULTI, options), options)


def test_corpora_cover_edge_cases():
    """The random corpora really contain the cases the comparisons are meant to exercise."""
    empty_pred = sum(not flat(_sents_simple(p)) for p, _ in SINGLE + MULTI)
    empty_ref = sum(not _has_tokens_everywhere(x) for x in SINGLE + MULTI)
    multi_sent = sum(len(_sents_simple(p)) > 1 for p, _ in SINGLE)
    assert empty_pred > 0 and empty_ref > 0 and multi_sent > N_SINGLE // 4, SEED_MSG
    # the simple split equals the faithful tokenizer on these texts
    for p, refs in SINGLE[:50] + MULTI[:20]:
        for t in [p] + refs:
            assert _sents_simple(t) == perl_sentences(t), (t, SEED_MSG)


# --------------------------------------------------------------------------- stored vectors


VECTORS = oracle_vectors()
NON_STEMMING = ("std", "std_noW")  # std_m / std_m_noW need the stemmer (another module)


def test_vectors_present():
    assert VECTORS and all(v["options"].get("std") for v in VECTORS)


def test_vectors_are_the_scripts_outputs():
    """The outputs stored in vectors.jsonl are what the installed script prints today, for every
    case and option set: the stored expectations stay the script's own, never ours."""
    require_oracle()
    bad = []
    for vec in VECTORS:
        pairs = [(p["prediction"], p["references"]) for p in vec["pairs"]]
        for name, options in vec["options"].items():
            if stored_output(perl_rouge(pairs, options)) != vec["outputs"][name]:
                bad.append("%s (%s)" % (vec["id"], name))
    assert not bad, "vectors.jsonl differs from the script's output for: %s (regenerate it with " \
        "tests/rouge155/make_vectors.py if the set-up changed on purpose)" % ", ".join(bad)


@pytest.mark.parametrize("vec", VECTORS, ids=[v["id"] for v in VECTORS])
def test_oracle_vectors(vec):
    pairs_text = [(p["prediction"], p["references"]) for p in vec["pairs"]]
    pairs_sents = [(perl_sentences(p), [perl_sentences(r) for r in refs]) for p, refs in pairs_text]
    checked = 0
    for key in NON_STEMMING:
        if key not in vec["options"]:
            continue
        options = vec["options"][key]
        assert "-m" not in shlex.split(options)
        result = vec["outputs"][key]
        o = parse_options(options)
        names = metric_names(o)
        if result["returncode"] != 0:
            # perl died; it must be ROUGE-W on a reference without tokens (SPEC §4.4.4), after
            # printing every metric that comes before W
            assert o["w"] is not None and any(not flat(r) for _, refs in pairs_sents for r in refs)
            assert "Illegal division by zero" in result["stderr"]
            names = names[:names.index("ROUGE-W-%s" % o["w"])]
            assert list(result["scores"]) == names
            bad = compare(pairs_text, pairs_sents, options, dict(result, returncode=0),
                          o=dict(o, w=None, skip=None))
        else:
            if o["w"] is not None:
                assert all(flat(r) for _, refs in pairs_sents for r in refs)
            bad = compare(pairs_text, pairs_sents, options, result)
        assert not bad, "\n".join(bad)
        checked += 1
    assert checked > 0
