"""The evaluate face: ``RougeMetric``, an ``evaluate.Metric`` over the package's API (``api``),
and the only module of the package that imports evaluate or datasets. The evaluate script
(``rouge_metric.py``, ``EVALUATE_SCRIPT``) subclasses it; ``check_script_version`` holds the
installed package to the versions that script accepts.
"""

import threading

import datasets
import evaluate
from packaging.specifiers import SpecifierSet  # (evaluate requires packaging)

from .api import (
    check_inputs,
    compare,
    compile_kernels,
    finalize,
    partial,
    score,
    state_from_bytes,
)
from .engines import score_ray, score_spark
from .explanation import explain
from .options import DEFAULT_SEED, RougeOptions, __version__, options_doc
from .kernels.pool import ForkSafeLock
from .text.tokenizers import import_stemmer


def check_script_version(accepted: str, script: str = "rouge_metric.py") -> None:
    """ImportError naming the pip command unless this package's version is in ``accepted``
    (a version specifier, ``">=0.7,<0.8"``)."""
    if __version__ not in SpecifierSet(accepted):
        raise ImportError(f"{script} needs rouge-exact{accepted}; this is {__version__}: "
                          f"pip install 'rouge-exact{accepted}'")


_CITATION = """\
@inproceedings{lin-2004-rouge,
    title = "{ROUGE}: A Package for Automatic Evaluation of Summaries",
    author = "Lin, Chin-Yew",
    booktitle = "Text Summarization Branches Out",
    month = jul,
    year = "2004",
    address = "Barcelona, Spain",
    publisher = "Association for Computational Linguistics",
    url = "https://www.aclweb.org/anthology/W04-1013",
    pages = "74--81",
}
"""

_DESCRIPTION = """\
ROUGE (Recall-Oriented Understudy for Gisting Evaluation) compares a generated text with one or
more references by overlapping units: n-grams (ROUGE-N), the longest common subsequence of the
whole text (ROUGE-L) or of its newline-separated sentences (ROUGE-Lsum), the weighted LCS that
favours consecutive matches (ROUGE-W) and skip-bigrams (ROUGE-S, plus unigrams in ROUGE-SU).
Called with evaluate's rouge arguments it returns the same numbers as `rouge_score` 0.1.2;
`profile="rouge155"` reproduces the official ROUGE-1.5.5 Perl script digit for digit.
"""

_RETURNS_AND_EXAMPLES = """Returns:
    {type: F} (aggregated) or {type: [F, ...]} (per example); with detailed=True
    {type: {"precision": {"low", "mid", "high"}, "recall": ..., "fmeasure": ...},
     "signature": str, "count": int}.
Examples:
    >>> import evaluate
    >>> import rouge_exact
    >>> rouge = evaluate.load(rouge_exact.EVALUATE_SCRIPT)  # or the Hub's id, or your copy's path
    >>> rouge.compute(predictions=["the cat sat on the mat"], references=["the cat lay on the mat"],
    ...               rouge_types=["rouge1", "rougeL"])
    {'rouge1': 0.8333333333333334, 'rougeL': 0.8333333333333334}
    >>> out = rouge.compute(predictions=["a b c"], references=[["a b", "c"]], rouge_types=["rouge1"],
    ...                     detailed=True)
    >>> out["rouge1"]["recall"]["mid"], out["count"]
    (1.0, 1)
"""

# The options' entries come from the schema (options.OPTIONS), as do the CLI's flags and
# the README's table; tests/test_schema.py holds them equal.
_KWARGS_DESCRIPTION = (
    "\nArgs:\n"
    "    predictions: list of predictions, one string each (sentences separated by \"\\n\").\n"
    "    references: list of references: one string or a list of strings per prediction.\n"
    + options_doc() + _RETURNS_AND_EXAMPLES)


# evaluate's compute() reads the added rows and resets its storage before the metric's own code
# runs, and keeps nothing when that code fails (a tokenizer that raises, say): the error says so
_ROWS_GONE = ("The examples added with add()/add_batch() were consumed by this compute() and "
              "are gone (evaluate keeps none after a failed compute): add them again, or "
              "score them with compute(predictions=..., references=...).")


# --------------------------------------------------------------------------------------------
# The evaluate.Metric


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RougeMetric(evaluate.Metric):
    """ROUGE-N/L/Lsum/W/S/SU with P/R/F, a seeded bootstrap and a signature, for evaluate.

    Loaded by ``evaluate.load(rouge_exact.EVALUATE_SCRIPT)`` (or the Hub's id, or a clone's
    rouge_metric.py), whose script subclasses this class. Its methods are the package's
    functions (``rouge_exact.api``, and ``explain``), plus evaluate's ``add``/``add_batch``.

    Args:
        *args, **kwargs: evaluate.Metric's (``keep_in_memory``, ``experiment_id``, ...).
    """

    def __init__(self, *args, **kwargs):
        # add/add_batch/compute from several threads: one at a time, so no row is lost
        # (evaluate's writer is not thread-safe); reentrant: compute() calls add_batch. Fresh
        # in a forked child and in a copy (ForkSafeLock), so the metric pickles.
        self._lock = ForkSafeLock(threading.RLock)
        super().__init__(*args, **kwargs)

    def __getstate__(self):
        # evaluate keeps the file locks of the cache files it wrote (each holds a thread lock,
        # which cannot be pickled) after compute() released them: a copy starts without them,
        # as a new metric does, and makes its own when it writes
        state = self.__dict__.copy()
        for name in ("filelock", "filelocks", "rendez_vous_lock"):
            state[name] = None
        return state

    def _download_and_prepare(self, dl_manager):
        # evaluate.load calls this: import nltk's stemmer, so that no call imports it
        # (text.tokenizers.import_stemmer). No kernel is loaded here: a call loads the ones
        # worth loading for its work (kernels.backend.worth_compiling), most calls none
        import_stemmer()

    compile_kernels = staticmethod(compile_kernels)

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=[
                datasets.Features({
                    "predictions": datasets.Value("string", id="sequence"),
                    "references": datasets.Sequence(datasets.Value("string", id="sequence")),
                }),
                datasets.Features({
                    "predictions": datasets.Value("string", id="sequence"),
                    "references": datasets.Value("string", id="sequence"),
                }),
            ],
            codebase_urls=["https://pypi.org/project/rouge-exact/"],
            reference_urls=["https://aclanthology.org/W04-1013/"],
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """ROUGE of the given or added examples (the options are validated, and the inputs
        when given, before evaluate stores anything, so that a typo fails at once with a
        message that names the argument).

        Args:
            predictions, references: as in ``rouge_exact.compute``; None: the examples added
                with add()/add_batch().
            **kwargs: compute()'s options (``rouge_exact.OPTIONS``).

        Returns:
            What ``rouge_exact.compute`` returns on the same examples and options.
        """
        options = RougeOptions.build(**kwargs)
        if predictions is not None or references is not None:
            # a lone surrogate: the scorer finds it, or add_batch below before evaluate
            # stores anything
            predictions, references = check_inputs(predictions, references, encodable=False)
        with self._lock:
            nothing_added = getattr(self, "writer", None) is None
            if predictions is None and nothing_added:
                raise ValueError("predictions: nothing to score; pass predictions= and "
                                 "references= or call add/add_batch before compute()")
            if predictions is not None and nothing_added and self.num_process == 1:
                # Everything is in hand and nothing was added before: evaluate would only
                # write the inputs to Arrow and read them back. Score them directly.
                return score(options, predictions, references, stacklevel=2)
            try:
                return super().compute(predictions=predictions, references=references,
                                       **kwargs)
            except Exception as error:
                if not nothing_added:  # evaluate has read them and reset its storage
                    error.add_note(_ROWS_GONE)
                raise

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of examples (checked at once; scored at compute()).

        Args:
            predictions, references: as in compute().
            **kwargs: evaluate's.
        """
        predictions, references = check_inputs(predictions, references)
        with self._lock:
            return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, predictions=None, references=None,
            **kwargs):
        """Add one example (checked at once; scored at compute()). Both spellings work, as in
        evaluate: add(prediction=..., reference=...) and add(predictions=..., references=...),
        which evaluate.combine uses."""
        for one, many, name in ((prediction, predictions, "prediction"),
                                (reference, references, "reference")):
            if one is not None and many is not None:  # which one to score? neither, silently
                raise ValueError(f"{name}= and {name}s=: got both; allowed: one of the two "
                                 "spellings")
        prediction = predictions if prediction is None else prediction
        reference = references if reference is None else reference
        (prediction,), (reference,) = check_inputs([prediction], [reference])
        with self._lock:
            return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, predictions, references, rouge_types=None, use_aggregator=True,
                 use_stemmer=None, tokenizer=None, alpha=None, multi_ref=None,
                 remove_stopwords=False, n_samples=1000, confidence=0.95, seed=DEFAULT_SEED,
                 detailed=False, profile="rouge_score", aggregation="macro",
                 length_limit_words=None, length_limit_bytes=None, split_sentences=False,
                 lang=None):
        # evaluate forbids **kwargs here: the list is RougeOptions' fields (a test checks it)
        options = RougeOptions.build(
            rouge_types=rouge_types, use_aggregator=use_aggregator, use_stemmer=use_stemmer,
            tokenizer=tokenizer, alpha=alpha, multi_ref=multi_ref,
            remove_stopwords=remove_stopwords, n_samples=n_samples, confidence=confidence,
            seed=seed, detailed=detailed, profile=profile, aggregation=aggregation,
            length_limit_words=length_limit_words, length_limit_bytes=length_limit_bytes,
            split_sentences=split_sentences, lang=lang)
        return score(options, predictions, references, stacklevel=4)

    # -- the package's API, the same functions (api) -------------------------------

    compare = staticmethod(compare)
    # which convention is a number: every convention's scores of the same examples (a method,
    # not a compute() option: it returns an Explanation, not compute()'s dict)
    explain = staticmethod(explain)
    partial = staticmethod(partial)  # a mergeable state, for engines that score partitions
    state_from_bytes = staticmethod(state_from_bytes)
    finalize = staticmethod(finalize)
    score_spark = staticmethod(score_spark)
    score_ray = staticmethod(score_ray)
