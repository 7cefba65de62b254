"""The metric, loaded once for the whole Space, as users load it: ``evaluate.load`` of
``rouge_metric.py`` beside app.py. Every number the Space shows comes from this object, through
its public names (``options``, ``Scorer``, ``reference_scores``, ``pair_marks``, ``compare``,
``estimate_cost``, ...): never from its modules, which evaluate stages in a package of its own."""

from pathlib import Path

import evaluate

ROOT = Path(__file__).resolve().parents[1]

# keep_in_memory: the Space never writes evaluate's Arrow cache (many visitors, one process)
metric = evaluate.load(str(ROOT / "rouge_metric.py"), keep_in_memory=True)
