"""ROUGE for Hugging Face evaluate: ROUGE-N, L, Lsum, W, S and SU with precision, recall and F, a
seeded bootstrap interval and a signature; rouge_score's numbers by default, the ROUGE-1.5.5
Perl script's with profile="rouge155".

This script is the metric's face on the Hub; the metric is the rouge-exact package, which
evaluate imports as it loads this file (as evaluate's own rouge imports rouge_score):

    pip install rouge-exact
    python -c "import evaluate; print(evaluate.load('rouge_metric.py').compute(
        predictions=['the cat sat'], references=['the cat lay']))"

The package holds the same file: evaluate.load(rouge_exact.EVALUATE_SCRIPT).
"""

import rouge_exact.hf  # From: rouge-exact

rouge_exact.hf.check_script_version(">=0.7,<0.8")


class RougeMetric(rouge_exact.hf.RougeMetric):
    """ROUGE-N/L/Lsum/W/S/SU with P/R/F, a seeded bootstrap and a signature."""
