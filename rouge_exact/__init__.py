"""rouge_exact: ROUGE-N, L, Lsum, W, S and SU, exact to rouge_score 0.1.2 and to the ROUGE-1.5.5
Perl script, with a seeded bootstrap interval, paired significance tests and a signature.

    >>> import rouge_exact
    >>> rouge_exact.compute(["the cat sat on the mat"], ["the cat lay on the mat"],
    ...                     rouge_types=["rouge1", "rougeL"])
    {'rouge1': 0.8333333333333334, 'rougeL': 0.8333333333333334}

The same functions serve every door: this API, ``evaluate.load(rouge_exact.EVALUATE_SCRIPT)``
(the evaluate metric), the ``rouge`` command, ``rouge_exact.rouge_scorer`` (rouge_score's API)
and the Hub Space. Importing the package imports neither evaluate nor datasets.

This file exists only in the installed package: evaluate's loader stages the flat modules
beside rouge_metric.py without it, and the Space imports them through the metric.
"""
from os import path as _path

from .rouge_api import (
    RESULT_FIELDS,
    check_inputs,
    compare,
    compile_kernels,
    compute,
    finalize,
    merge,
    partial,
    score_ray,
    score_spark,
    state_from_bytes,
)
from .rouge_options import (
    OPTIONS,
    RougeWarning,
    __version__,
    parse_rouge_type,
)
from .rouge_pipeline import (
    Scorer,
)
from .rouge_profiles import (
    PROFILES,
)
from .rouge_significance import (
    DEFAULT_SAMPLES,
    DEFAULT_TEST,
    TESTS,
    format_comparison,
)

EVALUATE_SCRIPT = _path.join(_path.dirname(_path.abspath(__file__)), "rouge_metric.py")
"""The evaluate metric's script in this installation: ``evaluate.load(EVALUATE_SCRIPT)``."""

__all__ = [
    "DEFAULT_SAMPLES", "DEFAULT_TEST", "EVALUATE_SCRIPT", "OPTIONS", "PROFILES",
    "RESULT_FIELDS", "RougeWarning", "Scorer", "TESTS",
    "__version__", "check_inputs", "compare", "compile_kernels", "compute", "finalize",
    "format_comparison", "merge", "parse_rouge_type", "partial", "score_ray", "score_spark",
    "state_from_bytes",
]
