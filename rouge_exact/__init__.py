"""rouge_exact: ROUGE-N, L, Lsum, W, S and SU, exact to rouge_score 0.1.2 and to the ROUGE-1.5.5
Perl script, with a seeded bootstrap interval, paired significance tests and a signature.

    >>> import rouge_exact
    >>> rouge_exact.compute(["the cat sat on the mat"], ["the cat lay on the mat"],
    ...                     rouge_types=["rouge1", "rougeL"])
    {'rouge1': 0.8333333333333334, 'rougeL': 0.8333333333333334}

The same functions serve every door: this API, ``evaluate.load(rouge_exact.EVALUATE_SCRIPT)``
(the evaluate metric, ``rouge_exact.hf``), the ``rouge-exact`` command (``rouge_exact.cli``),
``rouge_exact.rouge_scorer`` (rouge_score's API) and the Hub Space. The names below are imported
at their first use, so that ``import rouge_exact`` costs no numpy; nothing here imports
evaluate or datasets.
"""
from __future__ import annotations

from os import path as _path

from .version import __version__

# (typing's own constant costs the import of typing: this module is the first the command
# imports, and stays small so that a Ctrl-C meets the command's handler, not a traceback)
TYPE_CHECKING = False

EVALUATE_SCRIPT = _path.join(_path.dirname(_path.abspath(__file__)), "rouge_metric.py")
"""The evaluate metric's script in this installation: ``evaluate.load(EVALUATE_SCRIPT)``."""

if TYPE_CHECKING:  # what a type checker and "go to definition" see; at run time: __getattr__
    from .api import (
        RESULT_FIELDS,
        check_inputs,
        compare,
        compile_kernels,
        compute,
        finalize,
        merge,
        partial,
        state_from_bytes,
    )
    from .engines import score_ray, score_spark
    from .explanation import explain
    from .options import OPTIONS, RougeWarning, parse_rouge_type
    from .profiles import PROFILES
    from .scorer.pipeline import Scorer
    from .significance import DEFAULT_SAMPLES, DEFAULT_TEST, TESTS, format_comparison

__all__ = [
    "DEFAULT_SAMPLES", "DEFAULT_TEST", "EVALUATE_SCRIPT", "OPTIONS", "PROFILES",
    "RESULT_FIELDS", "RougeWarning", "Scorer", "TESTS",
    "__version__", "check_inputs", "compare", "compile_kernels", "compute", "explain",
    "finalize", "format_comparison", "merge", "parse_rouge_type", "partial", "score_ray", "score_spark",
    "state_from_bytes",
]


def __getattr__(name: str) -> object:
    """The public names, each imported from its module at its first use (PEP 562)."""
    if name in ("RESULT_FIELDS", "check_inputs", "compare", "compile_kernels", "compute",
                "finalize", "merge", "partial", "state_from_bytes"):
        from . import api
        value = getattr(api, name)
    elif name in ("score_ray", "score_spark"):
        from . import engines
        value = getattr(engines, name)
    elif name in ("OPTIONS", "RougeWarning", "parse_rouge_type"):
        from . import options
        value = getattr(options, name)
    elif name == "PROFILES":
        from .profiles import PROFILES as value
    elif name == "explain":
        from .explanation import explain as value
    elif name == "Scorer":
        from .scorer.pipeline import Scorer as value
    elif name in ("DEFAULT_SAMPLES", "DEFAULT_TEST", "TESTS", "format_comparison"):
        from . import significance
        value = getattr(significance, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # (the next look-up finds it without this function)
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
