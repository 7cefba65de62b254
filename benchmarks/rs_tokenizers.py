"""Time of the tokenizers unicode-v1 and character-v1 against rouge-score-rs's own (Rust).

10,000 REALSumm texts (predictions and references, 3.4 M characters, mostly ASCII) and 10,000
texts of tests/test_lang.py's language samples (every script but Thai, 0.7 M characters), each
tokenized one by one on one core: text.uax29's functions against
``rouge_score_rs._rougers.tokenize(text, False, profile)``, the call behind its
UnicodeTokenizer and CharacterTokenizer. Prints whether the tokens are equal, and the seconds.
With --every-code-point: the tokens of every code point (but surrogates) alone, between two
letters, two digits, two Devanagari consonants and twice in a row, against rouge-score-rs's
(about 90 s; tests/test_rs_tokenizers.py probes the tables' boundaries only).

    .venv/bin/python benchmarks/rs_tokenizers.py [--every-code-point]
    (rouge-score-rs==0.2.1 installed)
"""

import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from rouge_score_rs import _rougers  # noqa: E402

from rouge_exact.text import uax29  # noqa: E402
from test_lang import SCRIPTS, language_pairs  # noqa: E402


def every_code_point() -> None:
    points = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    for context in ("{0}", "a{0}a", "1{0}1", "\u0915{0}\u0915", "{0}{0}"):
        differing = 0
        for i in range(0, len(points), 4096):  # one point per line: a line break ends tokens
            text = "\n".join(context.format(chr(c)) for c in points[i:i + 4096])
            for profile, ours in (("unicode-v1", uax29.unicode_words),
                                  ("character-v1", uax29.characters)):
                differing += ours(text) != _rougers.tokenize(text, False, profile)
        print(f"{context!r}: {len(points):,} code points, {differing} chunks of 4,096 differ")


def main() -> None:
    if "--every-code-point" in sys.argv:
        every_code_point()
        return
    with open(REPO / "tests" / "data" / "realsumm.jsonl", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    realsumm = [r["prediction"] for r in rows] + [ref for r in rows for ref in r["references"]]
    realsumm = (realsumm * 3)[:10_000]
    lang = [t for code in SCRIPTS if code != "th"
            for pair in language_pairs(code, None, n=100) for t in pair]
    lang = (lang * 3)[:10_000]
    uax29.unicode_words("warm up")  # (the tables' import is not the tokenizer's time)
    for name, texts in (("realsumm", realsumm), ("languages", lang)):
        chars = sum(map(len, texts))
        for profile, ours in (("unicode-v1", uax29.unicode_words),
                              ("character-v1", uax29.characters)):
            start = time.perf_counter()
            theirs = [_rougers.tokenize(t, False, profile) for t in texts]
            middle = time.perf_counter()
            mine = [ours(t) for t in texts]
            end = time.perf_counter()
            print(f"{name:9} {len(texts):,} texts {chars:,} chars {profile:12} "
                  f"equal={mine == theirs} rouge-score-rs {middle - start:.2f} s, "
                  f"ours {end - middle:.2f} s")


if __name__ == "__main__":
    main()
