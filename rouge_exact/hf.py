"""ROUGE for Hugging Face `evaluate`: ROUGE-N, L, Lsum, W, S and SU with precision, recall and F,
a seeded bootstrap interval, a reproducibility signature, and exact profiles:
``profile="rouge_score"`` (the default: the numbers of rouge_score 0.1.2, which
``evaluate.load("rouge")`` runs), ``profile="rouge155"`` (the numbers the official
ROUGE-1.5.5 Perl script prints) and ``profile="coco"`` (coco-caption's ROUGE-L).

This class is an adapter over ``rouge_api``, whose functions it binds. The work is done by flat
sibling modules, in the order data flows (docs/design.md has the whole table):

* ``rouge_options``: the options schema (defaults, bounds, signature);
* ``rouge_profiles`` and ``rouge_registry``: the named profiles, and the ROUGE kinds;
* ``rouge_text`` (and ``rouge_lang*``): text to token ids;
* ``rouge_kernels`` and the kernel modules it lists (``rouge_kernels_*``; their numpy twins:
  ``rouge_vectorized``), chosen by ``rouge_backend`` and run on ``rouge_pool``'s threads:
  integer statistics per pair;
* ``rouge_pipeline``: the one ``Scorer`` (tokenize, kernels, combine references), with
  ``rouge_limits``, ``rouge_notes`` (warnings) and ``rouge_state`` (the state's bytes);
* ``rouge_aggregate``: exact means and the bootstrap interval; ``rouge_significance``:
  ``compare()``'s tests; ``rouge_display``: what the Space shows behind a number.
"""

import threading

import datasets
import evaluate
import importlib.util

# numba compiles the kernels; it is imported when they are compiled (rouge_backend), not here:
# evaluate.load imports every library the script imports, and a first call served by the numpy
# twins does without numba's 0.3-0.7 s import. Still named at load when missing:
if importlib.util.find_spec("numba") is None:
    raise ImportError("rouge_metric needs numba: pip install numba")

# -- Staging. evaluate's loader copies beside this script only the helper modules that it imports
#    relatively, one `from .module import` line each (docs/design.md, "evaluate's loader"). Every helper is
#    named here once, in data-flow order, whether or not this script uses a name from it.
from .rouge155_lexicon import __name__ as _staged_rouge155_lexicon
from .rouge_options import __name__ as _staged_rouge_options
from .rouge_profiles import __name__ as _staged_rouge_profiles
from .rouge_text import __name__ as _staged_rouge_text
from .rouge_text_peers import __name__ as _staged_rouge_text_peers
from .rouge_lang import __name__ as _staged_rouge_lang
from .rouge_lang_data import __name__ as _staged_rouge_lang_data
from .rouge_lang_languages import __name__ as _staged_rouge_lang_languages
from .rouge_lang_segmenters import __name__ as _staged_rouge_lang_segmenters
from .rouge_lang_stemmers import __name__ as _staged_rouge_lang_stemmers
from .rouge_lang_lines import __name__ as _staged_rouge_lang_lines
from .rouge_kernels import __name__ as _staged_rouge_kernels
from .rouge_kernels_scan import __name__ as _staged_rouge_kernels_scan
from .rouge_kernels_score import __name__ as _staged_rouge_kernels_score
from .rouge_kernels_union import __name__ as _staged_rouge_kernels_union
from .rouge_kernels_sums import __name__ as _staged_rouge_kernels_sums
from .rouge_kernels_sets import __name__ as _staged_rouge_kernels_sets
from .rouge_vectorized import __name__ as _staged_rouge_vectorized
from .rouge_vectorized_sets import __name__ as _staged_rouge_vectorized_sets
from .rouge_backend import __name__ as _staged_rouge_backend
from .rouge_pool import __name__ as _staged_rouge_pool
from .rouge_registry import __name__ as _staged_rouge_registry
from .rouge_limits import __name__ as _staged_rouge_limits
from .rouge_notes import __name__ as _staged_rouge_notes
from .rouge_state import __name__ as _staged_rouge_state
from .rouge_pipeline import __name__ as _staged_rouge_pipeline
from .rouge_display import __name__ as _staged_rouge_display
from .rouge_aggregate import __name__ as _staged_rouge_aggregate
from .rouge_significance import __name__ as _staged_rouge_significance
from .rouge_engines import __name__ as _staged_rouge_engines
from .rouge_api import __name__ as _staged_rouge_api

HELPER_MODULES = (
    _staged_rouge155_lexicon, _staged_rouge_options, _staged_rouge_profiles, _staged_rouge_text,
    _staged_rouge_text_peers, _staged_rouge_lang, _staged_rouge_lang_data,
    _staged_rouge_lang_languages, _staged_rouge_lang_segmenters, _staged_rouge_lang_stemmers,
    _staged_rouge_lang_lines,
    _staged_rouge_kernels, _staged_rouge_kernels_scan, _staged_rouge_kernels_score,
    _staged_rouge_kernels_union, _staged_rouge_kernels_sums, _staged_rouge_kernels_sets,
    _staged_rouge_vectorized, _staged_rouge_vectorized_sets, _staged_rouge_backend,
    _staged_rouge_pool, _staged_rouge_registry, _staged_rouge_limits, _staged_rouge_notes,
    _staged_rouge_state, _staged_rouge_pipeline, _staged_rouge_display, _staged_rouge_aggregate,
    _staged_rouge_significance, _staged_rouge_engines, _staged_rouge_api)

# -- What this adapter uses.
from .rouge_api import (
    RESULT_FIELDS,
    check_inputs,
    compare,
    compile_kernels,
    finalize,
    partial,
    score,
    score_ray,
    score_spark,
    state_from_bytes,
)
from .rouge_backend import (
    start,
)
from .rouge_display import (
    pair_marks,
    reference_scores,
    skip_bigram_matches,
    tokens_of,
)
from .rouge_lang import (
    LANGUAGES,
    language_tokenizer,
)
from .rouge_options import (
    DEFAULT_SEED,
    OPTIONS,
    RougeOptions,
    RougeWarning,
    __version__,
    options_doc,
    parse_rouge_type,
)
from .rouge_pipeline import (
    Scorer,
    example_scores,
)
from .rouge_profiles import (
    PROFILES,
)
from .rouge_registry import (
    estimate_cost,
    resampling_cost,
    text_sizes,
)
from .rouge_significance import (
    DEFAULT_SAMPLES,
    DEFAULT_TEST,
    TESTS,
    format_comparison,
)
from .rouge_text import (
    TOKENIZERS,
    ForkSafeLock,
    import_stemmer,
    split_sentences as split_sentences_rule_based,
)

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
    >>> rouge = evaluate.load(__file__)  # this script; yours: evaluate.load("path/to/rouge_metric.py")
    >>> rouge.compute(predictions=["the cat sat on the mat"], references=["the cat lay on the mat"],
    ...               rouge_types=["rouge1", "rougeL"])
    {'rouge1': 0.8333333333333334, 'rougeL': 0.8333333333333334}
    >>> out = rouge.compute(predictions=["a b c"], references=[["a b", "c"]], rouge_types=["rouge1"],
    ...                     detailed=True)
    >>> out["rouge1"]["recall"]["mid"], out["count"]
    (1.0, 1)
"""

# The options' entries come from the schema (rouge_options.OPTIONS), as do the CLI's flags and
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
    """ROUGE-N/L/Lsum/W/S/SU with P/R/F, a seeded bootstrap and a signature."""

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
        # evaluate.load calls this: load the compiled kernels from the disk cache, or start the
        # one compile process (the first compute() runs on the numpy twins meanwhile); and import
        # nltk's stemmer, so that no call imports it (rouge_text.import_stemmer)
        start()
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
        """Validate the options (and the inputs, when given) before evaluate stores anything,
        so that a typo fails at once with a message that names the argument."""
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
        """Add a batch of examples (checked at once; scored at compute())."""
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
                 use_stemmer=False, tokenizer=None, alpha=None, multi_ref=None,
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

    # -- the package's API, the same functions (rouge_api) -------------------------------

    compare = staticmethod(compare)
    partial = staticmethod(partial)  # a mergeable state, for engines that score partitions
    state_from_bytes = staticmethod(state_from_bytes)
    finalize = staticmethod(finalize)
    score_spark = staticmethod(score_spark)
    score_ray = staticmethod(score_ray)

    # -- for front ends (the Space, the CLI): options, costs and explanations --------------
    # They reach the metric's modules through these names only, so that evaluate's staging
    # (a hashed package) stays the metric's business.

    RougeWarning = RougeWarning
    OPTIONS = OPTIONS
    check_inputs = staticmethod(check_inputs)
    parse_rouge_type = staticmethod(parse_rouge_type)
    PROFILES = PROFILES
    TOKENIZERS = TOKENIZERS
    LANGUAGES = LANGUAGES
    version = __version__

    options = staticmethod(RougeOptions.build)  # the checked options of a call
    text_sizes = staticmethod(text_sizes)  # rouge_registry's cost model, before scoring
    estimate_cost = staticmethod(estimate_cost)
    resampling_cost = staticmethod(resampling_cost)
    DEFAULT_TEST = DEFAULT_TEST
    TESTS = TESTS
    RESULT_FIELDS = RESULT_FIELDS  # compare()'s own keys, which no system may be named
    DEFAULT_SAMPLES = DEFAULT_SAMPLES
    tokens = staticmethod(tokens_of)
    example_scores = staticmethod(example_scores)
    format_comparison = staticmethod(format_comparison)
    reference_scores = staticmethod(reference_scores)
    pair_marks = staticmethod(pair_marks)
    skip_bigram_matches = staticmethod(skip_bigram_matches)
    split_sentences = staticmethod(split_sentences_rule_based)
    language_tokenizer = staticmethod(language_tokenizer)
    Scorer = Scorer
