#!/usr/bin/env python3
"""Regenerate vectors.jsonl: hand-picked tricky inputs + the real ROUGE-1.5.5.pl outputs.

    python3 tests/rouge155/make_vectors.py > tests/rouge155/vectors.jsonl

Every number in vectors.jsonl is printed by the Perl script (through perl_rouge.py, after
setup.sh); nothing comes from this project's code. The tests read the stored outputs so that a
case is checked without running Perl for it, and tests/test_naive_vs_perl.py runs the script on
every case again to check that the stored outputs are still the script's.

Each line: {"id", "why", "pairs": [{"prediction", "references"}], "options": {name: str},
            "outputs": {name: {"returncode", "scores", "stderr"}}}
"scores" has the perl_rouge.py shape (R/P/F, *_ci, per_pair). Option sets:
  std    = -n 2 -w 1.2 -2 4 -u -c 95 -r 1000 -f A -p 0.5 -t 0 -a -d
  std_m  = std + -m
  and, for inputs on which ROUGE-W dies, the same two without "-w 1.2" (std_noW, std_m_noW).
"""
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STD = "-n 2 -w 1.2 -2 4 -u -c 95 -r 1000 -f A -p 0.5 -t 0 -a -d"
OPTS = {"std": STD, "std_m": STD + " -m"}
NOW = {"std_noW": STD.replace("-w 1.2 ", ""), "std_m_noW": STD.replace("-w 1.2 ", "") + " -m"}


def P(pred, *refs):
    return {"prediction": pred, "references": list(refs)}


VECTORS = [
    ("hand_cat", "hand-checkable: 6/7 unigrams, 4/6 bigrams, LCS 6/7; with -m 'found'->'find' and "
     "'hidden'->'hide' via the WordNet exception DB (not Porter)",
     [P("the cat was found under the bed", "the cat was hidden under the bed")]),
    ("repeated_words_clipping", "peer repeats 'the' 7 times: unigram hits are clipped at the reference count (2); "
     "LCS hits are also clipped through the unigram bookkeeping",
     [P("the the the the the the the", "the cat is on the mat")]),
    ("empty_prediction", "empty peer: every count is 0, every score 0, no crash",
     [P("", "the cat sat on the mat")]),
    ("empty_reference_dies_with_W", "empty reference: N/L/S give 0, but ROUGE-W divides by zero and perl DIES "
     "(exit 255, output cut after ROUGE-L); see the *_noW outputs",
     [P("the cat sat on the mat", "")]),
    ("punctuation_only_prediction", "punctuation-only peer has no token at all (every non [A-Za-z0-9] byte is a "
     "separator; lone '-' tokens are dropped)",
     [P("!!! ... ??? -- ,,, - :-)", "hello, world!")]),
    ("hyphens", "'-' is split off as its own token and then dropped, so 'state-of-the-art' == 'state of the art'",
     [P("a state-of-the-art, well-known model", "a state of the art well known model")]),
    ("digits_dollar_decimal", "'3.5%' -> '3' '5'; '$10,000' -> '10' '000'; digits are ordinary tokens",
     [P("revenue rose 3.5% to $10,000 in 2019", "in 2019 revenue rose to 10000 dollars, up 3.5 percent")]),
    ("uppercase_apostrophes", "ASCII case folded; \"don't\" -> 'don' 't', \"it's\" -> 'it' 's'",
     [P("Don't STOP: It's FINE", "do not stop it is fine")]),
    ("non_ascii_latin", "each UTF-8 byte >= 0x80 becomes a separator: 'caf\u00e9' -> 'caf', "
     "'na\u00efve' -> 'na' 've', '\u00fcber' -> 'ber' (no Unicode lowercasing either)",
     [P("le caf\u00e9 \u00e9tait tr\u00e8s na\u00efve \u00fcber", "le cafe etait tres naive uber")]),
    ("non_ascii_cjk_dies_with_W", "CJK-only text has no token; identical texts still score 0 and ROUGE-W dies "
     "(reference without tokens)",
     [P("\u732b\u304c\u597d\u304d\u3067\u3059", "\u732b\u304c\u597d\u304d\u3067\u3059")]),
    ("multi_ref_average", "-f A: R = sum(hits)/sum(ref counts); P = sum(hits)/(n_refs * peer count)",
     [P("the cat sat on the mat", "the cat sat on a mat", "a dog lay on the rug", "the cat")]),
    ("multi_sentence_swapped", "sentences swapped: ROUGE-L is per reference sentence (union LCS) = 1.0, "
     "while bigrams/skip-bigrams run across the sentence boundary of the joined text",
     [P("the dog ran home.\nthe cat sat down.", "the cat sat down.\nthe dog ran home.")]),
    ("union_lcs_paper_example", "Lin 2004 union-LCS example: ref 'w1 w2 w3 w4 w5', peer sentences "
     "'w1 w2 w6 w7 w8' and 'w1 w3 w8 w9 w5' -> LCS hits 4 (R = 4/5, P = 4/10)",
     [P("w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5", "w1 w2 w3 w4 w5")]),
    ("stemming_irregular", "-m: tokens longer than 3 chars go through the WordNet exception list first "
     "(children->child, mice->mouse, were->be, better/best->well), else Porter; 'ran' (3 chars) untouched",
     [P("the children were running and mice ran better", "a child was run by the mouse, it runs best")]),
    ("porter_quirk_step4", "ROUGE's modified Porter step 4: departmental->depart, agreement->agreem, "
     "statement->statem (standard Porter/NLTK keep department/agreement/statement)",
     [P("departmental agreement statement", "depart agreem statem")]),
    ("single_token", "one token each: ROUGE-1 = 1 but ROUGE-SU4 = 0 (no skip-bigram, and the LAST token "
     "never contributes its unigram); ROUGE-2 = 0 (no bigram)",
     [P("cat", "cat")]),
    ("wlcs_runs_on_model_side", "ROUGE-W counts runs of consecutive hits on the reference side only; the "
     "reference length is weighted twice, so even identical texts get W-R < 1",
     [P("a x b c y d", "a b c d"), ]),
    ("whitespace_blank_lines", "tabs, repeated spaces, leading/trailing spaces and blank or "
     "whitespace-only lines: empty lines are skipped, whitespace-only lines are empty sentences",
     [P("  the cat\n\n\tsat   on\n   \nthe mat  ", "the cat sat on the mat")]),
    ("identical_long", "identical 12-token texts: all 1.0 except ROUGE-W R (double weighting of the reference)",
     [P("the quick brown fox jumps over the lazy dog near the river",
        "the quick brown fox jumps over the lazy dog near the river")]),
    ("corpus_bootstrap_mean", "7 pairs, scores [1,0,0,0,0,0,0]: the reported Average is the mean of the 1000 "
     "bootstrap-sample means (0.14300), not the plain mean 0.14286; CI = sorted samples [25] and [974]",
     [P("a b c", "a b c")] + [P("a b c", "x y z")] * 6),
]


def stored_output(result):
    """What vectors.jsonl keeps of one perl_rouge.py result: the exit status, the scores (without
    the confidence level, which the options give) and ROUGE's own messages, without the path
    the script was installed at (it differs from machine to machine)."""
    scores = {name: {k: v for k, v in d.items() if k != "confidence"}
              for name, d in result["scores"].items()}
    err = result["stderr"].strip()
    err = err.replace(os.path.dirname(shlex.split(result["command"])[1]) + "/", "")
    return {"returncode": result["returncode"], "scores": scores, "stderr": err}


def run(pairs, opts):
    data = "".join(json.dumps(p) + "\n" for p in pairs).encode("utf-8")
    out = subprocess.run([sys.executable, os.path.join(HERE, "perl_rouge.py"), "-", "-o", opts],
                         input=data, capture_output=True)
    return stored_output(json.loads(out.stdout.decode("utf-8")))


def main():
    for vid, why, pairs in VECTORS:
        opts = dict(OPTS)
        outputs = {k: run(pairs, v) for k, v in opts.items()}
        if any(o["returncode"] != 0 for o in outputs.values()):
            opts.update(NOW)
            for k in NOW:
                outputs[k] = run(pairs, NOW[k])
        sys.stdout.write(json.dumps({"id": vid, "why": why, "pairs": pairs, "options": opts,
                                     "outputs": outputs}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
