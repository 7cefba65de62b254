"""ROUGE for Hugging Face `evaluate`: ROUGE-N, L, Lsum, W, S and SU with precision, recall and F,
a seeded bootstrap interval, a reproducibility signature, and two exact profiles:
``profile="rouge_score"`` (the default: the numbers of rouge_score 0.1.2, which
``evaluate.load("rouge")`` runs) and ``profile="rouge155"`` (the numbers the official
ROUGE-1.5.5 Perl script prints).

This class is an adapter. The work is done by flat sibling modules, in the order data flows:

* ``rouge_options``: the options schema (defaults, bounds, signature);
* ``rouge_profiles``: the named profiles and tokenizer profiles;
* ``rouge_text``: text to token ids (byte scanner, stemmer memo, sentence splitter);
* ``rouge_kernels``: numba kernels on token ids, returning integer statistics;
* ``rouge_pipeline``: the one ``Scorer`` (tokenize, kernels, combine references, warnings);
* ``rouge_aggregate``: exact means and the bootstrap interval.
"""

import functools
import threading
import warnings

import datasets
import evaluate
import importlib.util

# numba compiles the kernels; it is imported when they are compiled (rouge_backend), not here:
# evaluate.load imports every library the script imports, and a first call served by the numpy
# twins does without numba's 0.3-0.7 s import. Still named at load when missing:
if importlib.util.find_spec("numba") is None:
    raise ImportError("rouge_metric needs numba: pip install numba")

# -- Staging. evaluate's loader copies beside this script only the helper modules that it imports
#    relatively, one `from .module import` line each (shared/design/EVALUATE.md). Every helper is
#    named here once, in data-flow order, whether or not this script uses a name from it.
from .rouge155_lexicon import __name__ as _staged_rouge155_lexicon
from .rouge_options import __name__ as _staged_rouge_options
from .rouge_profiles import __name__ as _staged_rouge_profiles
from .rouge_text import __name__ as _staged_rouge_text
from .rouge_lang import __name__ as _staged_rouge_lang
from .rouge_lang_data import __name__ as _staged_rouge_lang_data
from .rouge_kernels import __name__ as _staged_rouge_kernels
from .rouge_vectorized import __name__ as _staged_rouge_vectorized
from .rouge_backend import __name__ as _staged_rouge_backend
from .rouge_registry import __name__ as _staged_rouge_registry
from .rouge_pipeline import __name__ as _staged_rouge_pipeline
from .rouge_aggregate import __name__ as _staged_rouge_aggregate
from .rouge_significance import __name__ as _staged_rouge_significance
from .rouge_engines import __name__ as _staged_rouge_engines

HELPER_MODULES = (
    _staged_rouge155_lexicon, _staged_rouge_options, _staged_rouge_profiles, _staged_rouge_text,
    _staged_rouge_lang, _staged_rouge_lang_data, _staged_rouge_kernels, _staged_rouge_vectorized,
    _staged_rouge_backend, _staged_rouge_registry, _staged_rouge_pipeline,
    _staged_rouge_aggregate, _staged_rouge_significance, _staged_rouge_engines)

# -- What this adapter uses.
from .rouge_backend import (
    compile_all,
    start,
)
from .rouge_engines import (
    score_ray as _score_ray,
    score_spark as _score_spark,
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
    not_text,
    pair_marks,
    reference_scores,
    skip_bigram_matches,
    tokens_of,
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
    mean_scores,
    paired_test,
    pooled_scores,
)
from .rouge_text import (
    TOKENIZERS,
    ForkSafeLock,
    NotText,
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


# --------------------------------------------------------------------------------------------
# Inputs: what evaluate accepts, checked before evaluate stores anything


def _as_list(name: str, value) -> list:
    """A list of the items of a list, tuple, numpy array or pandas Series (any index)."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if type(value).__module__.startswith(("numpy", "pandas")) and hasattr(value, "tolist") \
            and getattr(value, "ndim", 1) == 1:
        return value.tolist()
    raise TypeError(f"{name}: got {type(value).__name__}; allowed: a list, tuple, numpy array "
                    "or pandas Series")


def _texts(name: str, values: list) -> list:
    """values, if every item is a str (in C for the common list of str); else a TypeError
    naming the first that is not."""
    if not set(map(type, values)) <= {str}:
        for i, value in enumerate(values):  # a str subclass is fine
            if not isinstance(value, str):
                raise TypeError(f"{name}[{i}]: got {value!r:.80} ({type(value).__name__}); "
                                "allowed: str")
    return values


def _of_system(name: str, error: Exception) -> Exception:
    """compare()'s input error about one system's predictions, saying which system."""
    if isinstance(error, NotText):
        return NotText(f"predictions[{name!r}]: {error.where}", error.bad)
    return type(error)(f"predictions[{name!r}]: {error}")


def check_inputs(predictions, references, allow_empty: bool = False,
                 encodable: bool = True) -> tuple:
    """(predictions, references) as lists of str and of str or list of str, or a TypeError /
    ValueError that names the argument. allow_empty: no rows is fine (partial(): an empty
    partition's state is merge's identity). encodable=False: no look for lone surrogates,
    for inputs scored at once (the scorer finds them, named the same way)."""
    for name, value in (("predictions", predictions), ("references", references)):
        if value is None:
            raise TypeError(f"{name}: got None; allowed: a list of strings")
    predictions = _as_list("predictions", predictions)
    references = _as_list("references", references)
    if len(predictions) != len(references):
        raise ValueError(f"predictions and references: got {len(predictions)} predictions and "
                         f"{len(references)} references; they must have the same length")
    if len(predictions) == 0 and not allow_empty:
        raise ValueError("predictions: got an empty list; allowed: at least one example "
                         "(or call compute() with no arguments after add/add_batch)")
    predictions = _texts("predictions", predictions)
    if set(map(type, references)) != {str}:  # else one reference each (the common case), in C
        references = _reference_rows(references)
    found = not_text(predictions, references) if encodable else None  # (the scorer looks)
    if found is not None:
        raise found
    return predictions, references


def _reference_rows(references: list) -> list:
    """references, each row a str or a non-empty list of str, all of one kind (lists become
    lists); else a TypeError / ValueError that names the row."""
    shapes = set()
    for i, row in enumerate(references):
        if isinstance(row, str):
            shapes.add("str")
            continue
        try:
            row = _as_list(f"references[{i}]", row)
        except TypeError:
            raise TypeError(f"references[{i}]: got {row!r:.80} ({type(row).__name__}); "
                            "allowed: a str or a list of str") from None
        shapes.add("list")
        if len(row) == 0:
            raise ValueError(f"references[{i}]: got an empty list; allowed: at least one "
                             "reference string per prediction")
        references[i] = _texts(f"references[{i}]", row)
    if len(shapes) > 1:
        raise TypeError("references: got a mix of strings and lists; allowed: all strings "
                        "(one reference each) or all lists of strings")
    return references


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

    @staticmethod
    def compile_kernels(wait: bool = False) -> None:
        """Compile every kernel into the disk cache (a Docker build step, a Space's start);
        wait=False starts the compile process and returns at once."""
        if wait:
            compile_all()
        else:
            start()

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
            codebase_urls=["https://github.com/google-research/google-research/tree/master/rouge"],
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
                return self._score(options, predictions, references)
            return super().compute(predictions=predictions, references=references, **kwargs)

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
        prediction = predictions if prediction is None else prediction
        reference = references if reference is None else reference
        (prediction,), (reference,) = check_inputs([prediction], [reference])
        with self._lock:
            return super().add(prediction=prediction, reference=reference, **kwargs)

    def _compute(self, predictions, references, rouge_types=None, use_aggregator=True,
                 use_stemmer=False, tokenizer=None, alpha=0.5, multi_ref=None,
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
        return self._score(options, predictions, references)

    @staticmethod
    def _score(options: RougeOptions, predictions, references) -> dict:
        """compute()'s result for checked inputs (from compute() directly, or from evaluate's
        stored batches through _compute)."""
        if len(predictions) == 0:
            raise ValueError("predictions: no examples were given (add/add_batch/compute got "
                             "none); allowed: at least one")
        scorer = Scorer(options)
        scorer.add(predictions, references, rows=False)
        for message in scorer.warnings():
            warnings.warn(message, RougeWarning, stacklevel=3)
        return scorer.result()

    def compare(self, *, predictions, references, baseline=None, test=DEFAULT_TEST,
                n_samples=None, seed=DEFAULT_SEED, confidence=0.95, **options):
        """Which system is better: paired significance tests of 2+ systems against a baseline on
        ROUGE's per-example statistics: approximate randomization (the default), the centred
        paired bootstrap, or sacrebleu 2.6.0's bootstrap rule (test="sacrebleu-bootstrap",
        for reproducing published numbers: not calibrated; docs/significance.md). Gives each
        system's score and interval, its difference from the baseline with per-comparison and
        family-wise intervals, the two-sided p-value raw and Holm-adjusted, and a verdict.

        predictions: {system name: [prediction per row]}, rows aligned with references (as in
        compute()). Every compute() option applies (both profiles, macro and micro).
        Returns {system: {type: {"precision"|"recall"|"fmeasure": {...}}}, "signature",
        "count"}."""
        if not isinstance(predictions, dict):
            raise TypeError(f"predictions: got {type(predictions).__name__}; allowed: a dict "
                            "{system name: list of predictions} of two or more systems")
        if len(predictions) < 2:
            raise ValueError(f"predictions: got {len(predictions)} system(s); allowed: two or "
                             "more systems to compare")
        for name in predictions:
            if not isinstance(name, str):
                raise ValueError(f"predictions: the system name {name!r} is a "
                                 f"{type(name).__name__}; allowed: str names")
        baseline = next(iter(predictions)) if baseline is None else baseline
        if baseline not in predictions:
            raise ValueError(f"baseline: got {baseline!r}; allowed: one of the systems "
                             f"{', '.join(map(repr, predictions))}")
        if test not in TESTS:
            raise ValueError(f"test: got {test!r}; allowed: {', '.join(TESTS)}")
        n_samples = DEFAULT_SAMPLES[test] if n_samples is None else n_samples
        opts = RougeOptions.build(**{**options, "n_samples": n_samples, "seed": seed,
                                     "confidence": confidence, "use_aggregator": True,
                                     "detailed": True})
        if opts.use_aggregator is not True or options.get("use_aggregator") is False:
            raise ValueError("use_aggregator: compare() aggregates; allowed: True")
        stats, count, messages = {}, None, []
        for name, rows in predictions.items():
            try:
                rows, refs = check_inputs(rows, references, encodable=False)
            except (TypeError, ValueError) as error:
                raise _of_system(name, error) from None
            scorer = Scorer(opts)
            try:
                batch = scorer.add(rows, refs)
            except NotText as error:  # a lone surrogate, found as it scored
                raise _of_system(name, error) from None
            stats[name] = batch.counts if opts.micro else batch.scores
            count = len(rows)
            messages += [m for m in scorer.warnings() if m not in messages]
        for message in messages:
            warnings.warn(message, RougeWarning, stacklevel=2)
        score_of = functools.partial(pooled_scores, alpha=opts.alpha) if opts.micro \
            else mean_scores
        result = paired_test(stats, baseline, score_of, test=test, n_samples=opts.n_samples,
                             seed=opts.seed, confidence=opts.confidence)
        result["signature"] = f"{opts.signature()}|test:{test}|baseline:{baseline}"
        result["count"] = count
        return result

    # -- a mergeable state, for engines that score partitions (Spark, Ray) ------------------

    def partial(self, *, predictions, references, **options):
        """A small, mergeable state of these rows: ``state.merge(other)``,
        ``state.to_bytes()`` / ``rouge.state_from_bytes(data)``, and ``rouge.finalize(state)``,
        which returns exactly what compute() returns on all the rows. States must hold
        disjoint examples (identical rows in one state: partition by the texts). No rows
        (an empty partition, as Spark and Ray make) give the identity of merge."""
        opts = RougeOptions.build(**options)
        if not opts.use_aggregator:
            raise ValueError("use_aggregator: got False; partial states aggregate (for "
                             "per-example scores use compute(use_aggregator=False) or the "
                             "engines, which return the rows)")
        if opts.profile.keeps_rows:
            raise ValueError(f"profile: got {opts.profile.name!r}, whose bootstrap depends on "
                             "the order of all rows: its states cannot be merged; allowed: "
                             "the rouge_score profile")
        predictions, references = check_inputs(predictions, references, allow_empty=True,
                                               encodable=False)  # the scorer looks
        state = Scorer(opts)
        if predictions:  # else the empty state: merging it changes nothing
            state.add(predictions, references, rows=False)
        return state

    def state_from_bytes(self, data):
        """The state that ``state.to_bytes()`` wrote (ValueError if corrupted, or of another
        version of the metric)."""
        return Scorer.from_bytes(data)

    def finalize(self, state):
        """compute()'s result (and warnings) for everything in the state."""
        if not isinstance(state, Scorer):
            raise TypeError(f"state: got {type(state).__name__}; allowed: a state from "
                            "partial(), merge() or state_from_bytes()")
        if state.aggregate.count == 0:  # only empty partitions: as compute() of no rows
            raise ValueError("state: holds no examples (every partial() it was merged from "
                             "had empty predictions); allowed: a state of at least one "
                             "example")
        for message in state.warnings():
            warnings.warn(message, RougeWarning, stacklevel=2)
        return state.result()

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

    def score_spark(self, df, prediction_col="prediction", references_col="references",
                    **options):
        """ROUGE of a Spark DataFrame's rows (see rouge_engines.score_spark)."""
        return _score_spark(self, df, prediction_col, references_col, **options)

    def score_ray(self, dataset, prediction_col="prediction", references_col="references",
                  **options):
        """ROUGE of a Ray Dataset's rows (see rouge_engines.score_ray)."""
        return _score_ray(self, dataset, prediction_col, references_col, **options)
