"""What the torchmetrics vectors are made of, shared by make_vectors.py (which runs
torchmetrics 1.9.0 on them) and the tests that compare the torchmetrics profile with them.

The inputs are rebuilt here, deterministically (seeded), not stored: vectors.jsonl holds
torchmetrics' numbers and a digest of each set's inputs, so that a change here is caught
("regenerate the vectors"), and the file stays small (realsumm's texts are 4 MB).
"""

import hashlib
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "vectors.jsonl"
REALSUMM = HERE.parent / "data" / "realsumm.jsonl"
TORCHMETRICS_VERSION = "1.9.0"
MEASURES = ("precision", "recall", "fmeasure")
KEYS = ("rouge1", "rouge2", "rougeL", "rougeLsum")  # torchmetrics' default rouge_keys

# sha256 of the English Punkt model's canonical form (model_digest), made from nltk_data's own
# punkt_tab/english files: those of nltk_data's punkt_tab.zip (dated 2024-07-09) as the wheel
# of llama-index-core 0.14.25 on PyPI bundles it (llama_index/core/_static/nltk_cache), which
# agree with the copy open-webui's repository keeps in nltk_data/tokenizers/punkt_tab/english/
# (the same sizes, lines and order where compared). make_vectors.py --digest DIR prints it.
OFFICIAL_PUNKT_DIGEST = "f2260b33cc8cc6d40528bf3992e07768ad6837dec676dde60dfccc6dcd9f9fa7"

# Texts the peers' profiles were tested on, and what Punkt and torchmetrics' regex meet:
# empty and blank texts, punctuation only, non-ASCII (İ and the Kelvin sign lower to ASCII
# letters), abbreviations and initials, quotes and brackets around sentence ends, newlines,
# NUL, numbers with points, PEGASUS's "<n>"
EDGE_TEXTS = [
    "", " ", "\n\n", "\t \n ", "...", "!?", "— – …", "#$%^&*() []{}", ". . .",
    "Café déjà vu. Naïve coöperation!", "İstanbul and İzmir. The KELVİN sign: \u212a.",
    "東京は晴れ。今日は良い天気です。", "Привет мир. Hello world.", "emoji 😀 test. 🚀 launch!",
    "ﬁne ligatures ﬂow", "ß STRASSE straße.", "x\u0300y combining marks",
    "Mr. Smith went to Washington. He said hi.", "The U.S. economy grew 3.5%. Analysts, e.g. "
    "Dr. Jones, disagree.", "(Sent1.) Sent2.", "\"Quoted sentence.\" Next one!",
    "What?! Really? Yes...", "no sentence end here", "line one\nline two\nline three.",
    "a.b.c. d.e.f. Ghi.", "He left at 5 p.m. Then he slept.", "word\x00other. Next one",
    "1999 2000 3.14159 10,000 and 1,000,000.", "The cat sat on the mat. The cat sat.",
    "  leading and trailing blanks.   Second sentence.  ", "ALL CAPS SENTENCE. another one",
    "running runs ran easily easier generously generalization.",
    # PEGASUS's line marker: torchmetrics' re.sub("<n>", "", x) drops its result, so "<n>"
    # stays (a token "n") and Punkt splits no sentence at it
    "Pegasus style.<n>Its lines end with a marker.<n>Third line. <n> Fourth.",
]


def realsumm_rows() -> list:
    with open(REALSUMM, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def _long_text(rng: random.Random, rows: list, words: int) -> str:
    """A text of about this many words: realsumm's sentences in a random order."""
    sentences = [s for row in rows for s in row["prediction"].split("\n")]
    out, count = [], 0
    while count < words:
        sentence = rng.choice(sentences)
        out.append(sentence)
        count += len(sentence.split())
    return " ".join(out)


def _mutated(rng: random.Random, text: str) -> str:
    """A variant of a text: sentences joined on one line or kept on lines, case changed,
    punctuation dropped or doubled (what a model's output does to its sentences)."""
    choice = rng.randrange(5)
    if choice == 0:
        return text.replace("\n", " ")
    if choice == 1:
        return text.upper()
    if choice == 2:
        return text.replace(" .", "").replace(".", "")
    if choice == 3:
        return text.replace(" .", "!!").replace(",", " ,,")
    return text


def build_sets() -> list:
    """The sets of examples, each {"name", "options" (torchmetrics' keyword arguments),
    "predictions", "references" (a list of references per example)}."""
    rows = realsumm_rows()
    rng = random.Random(20260901)
    predictions = [row["prediction"] for row in rows]
    references = [[row["references"][0]] for row in rows]
    sets = [dict(name="realsumm", options=dict(accumulate="best", use_stemmer=False),
                 predictions=predictions, references=references)]
    every_third = range(0, len(rows), 3)
    sets.append(dict(name="realsumm_stemmed", options=dict(accumulate="best", use_stemmer=True),
                     predictions=[predictions[i] for i in every_third],
                     references=[references[i] for i in every_third]))
    # several references: other systems' summaries of the same article, and its reference;
    # counts around torch's 8-float vectors (its mean of 8 or more adds in lanes)
    by_doc, doc_reference = {}, {}
    for row in rows:
        by_doc.setdefault(row["doc"], []).append(row["prediction"])
        doc_reference[row["doc"]] = row["references"][0]
    docs = sorted(by_doc)
    multi_p, multi_r = [], []
    for _ in range(400):
        doc = rng.choice(docs)
        texts = by_doc[doc]
        count = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 33])
        pool = texts + [doc_reference[doc]]
        multi_p.append(_mutated(rng, rng.choice(texts)))
        multi_r.append([_mutated(rng, rng.choice(pool)) for _ in range(count)])
    # ties: a reference twice, and two whose F differ in float64 but not in float32 (the
    # first is torchmetrics' pick: torch.argmax of float32 F; the second has the higher F in
    # float64); a prediction equal to a reference
    multi_p += ["a b", "the cat sat on the mat", "the cat sat on the mat"]
    multi_r += [["a x y z", "a b c d e f g h i j"],
                ["the cat sat", "the cat sat", "a cat on a mat"],
                ["the cat sat on the mat", "the dog sat"]]
    for mode in ("best", "avg"):
        sets.append(dict(name=f"multi_{mode}",
                         options=dict(accumulate=mode, use_stemmer=False,
                                      rouge_keys=("rouge1", "rouge2", "rouge3", "rougeL",
                                                  "rougeLsum")),
                         predictions=multi_p, references=multi_r))
    # the edge texts against each other and against realsumm's, one to four references, with
    # and without the stemmer; long texts (3,000 and 300 words), and duplicates
    edge_p, edge_r = [], []
    pool = EDGE_TEXTS + [_mutated(rng, rng.choice(predictions)) for _ in range(20)]
    for text in EDGE_TEXTS:
        for _ in range(3):
            edge_p.append(text)
            edge_r.append([rng.choice(pool) for _ in range(rng.randint(1, 4))])
        edge_p.append(text)
        edge_r.append([text])
    long_text = _long_text(rng, rows, 3000)
    edge_p += [long_text, _long_text(rng, rows, 300), long_text]
    edge_r += [[_long_text(rng, rows, 300)], [long_text], [long_text, long_text[::2]]]
    for mode in ("best", "avg"):
        for stem in (False, True):
            sets.append(dict(name=f"edge_{mode}{'_stemmed' if stem else ''}",
                             options=dict(accumulate=mode, use_stemmer=stem),
                             predictions=edge_p, references=edge_r))
    return sets


def inputs_digest(one_set: dict) -> str:
    """sha256 of a set's options and texts (vectors.jsonl records it)."""
    data = json.dumps([one_set["options"], one_set["predictions"], one_set["references"]],
                      ensure_ascii=True, sort_keys=True)
    return hashlib.sha256(data.encode("ascii")).hexdigest()


def model_digest(params) -> str:
    """sha256 of a Punkt model's canonical form (nltk's PunktParameters): its four tables
    sorted (ortho_context without the zeros that lookups leave in nltk's defaultdict)."""
    canonical = json.dumps({
        "abbrev_types": sorted(params.abbrev_types),
        "collocations": sorted(map(list, params.collocations)),
        "sent_starters": sorted(params.sent_starters),
        "ortho_context": sorted([k, v] for k, v in params.ortho_context.items() if v),
    }, ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def f32_hex(value: float) -> str:
    """A float32 number as its 8 hex digits (big-endian bits)."""
    import struct

    return struct.pack(">f", value).hex()


def from_f32_hex(text: str) -> float:
    import struct

    return struct.unpack(">f", bytes.fromhex(text))[0]


def scores_of(hex_digits: str, keys) -> dict:
    """{type: (P, R, F)} of a vectors line's float32 hex digits (type by type, P, R, F)."""
    values = [from_f32_hex(hex_digits[k:k + 8]) for k in range(0, len(hex_digits), 8)]
    return {key: tuple(values[3 * j:3 * j + 3]) for j, key in enumerate(keys)}


def load_vectors() -> tuple:
    """(header, {set name: its line}, {set name: [each example's {type: (P, R, F)}]}) of
    vectors.jsonl."""
    with open(VECTORS, encoding="ascii") as f:
        lines = [json.loads(line) for line in f]
    header, sets, examples = lines[0], {}, {}
    for line in lines[1:]:
        if isinstance(line, dict):
            sets[line["set"]] = line
            examples[line["set"]] = []
        else:
            name, index, digits = line
            assert index == len(examples[name]), (name, index)
            examples[name].append(scores_of(digits, sets[name]["options"]["rouge_keys"]))
    return header, sets, examples
