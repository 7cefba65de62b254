"""The `rouge_metric` Space behind app.py: app.py lays the page out, this package does the rest.

* every number, option, cost, token and match comes from the ``rouge_exact`` package, imported
  by name where it is used (the folder beside app.py in a clone);
* ``limits``: the Space's own limits and the budget check made before any scoring;
* ``options``: the Options panel's choices and the checked options of a request;
* ``files``: uploads read with ``rouge_exact.io`` (the command's reader) and the per-example CSV;
* ``render`` and ``charts``: the HTML, SVG and text the page shows (styles in ``assets/``);
* ``explain_view``: the Which ROUGE? tab's table, walk chart and examples (``rouge_exact.explain``);
  ``explain_tab``: that tab's components below its file inputs, and its wiring;
* ``handlers``: the page's event handlers; ``api``: the endpoints for ``gradio_client``;
* ``page``: the page's fixed text (intro, usage, examples, empty states, scripts);
* ``wiring``: calls a handler by parameter name from its components, and marks results stale;
* ``startup``: what ``python app.py`` starts before serving, and the note while it warms up.
"""

import os

# before any of its modules imports gradio: gradio sends no usage reports from the Space
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

# before the package loads its kernels: on a Hub Space with persistent storage (/data,
# which outlives restarts and rebuilds), the compiled kernels are cached there, so that a
# restarted Space loads them (~0.5 s) instead of compiling them again (~1-2 minutes).
# ROUGE_METRIC_CACHE_DIR, when set, wins. Only on the Hub (SPACE_ID is set there): another
# machine's /data is not this Space's to write in.
PERSISTENT = "/data"
if "SPACE_ID" in os.environ and "ROUGE_METRIC_CACHE_DIR" not in os.environ \
        and os.path.isdir(PERSISTENT) and os.access(PERSISTENT, os.W_OK):
    os.environ["ROUGE_METRIC_CACHE_DIR"] = os.path.join(PERSISTENT, "rouge_metric_cache")
