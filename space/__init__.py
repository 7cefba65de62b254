"""The `rouge_metric` Space behind app.py: app.py lays the page out, this package does the rest.

* ``metric``: the metric, loaded once with ``evaluate.load`` as every user loads it; the Space
  asks it for everything (scores, options, costs, tokens, matches) through its public names;
* ``limits``: the Space's own limits and the budget check made before any scoring;
* ``options``: the Options panel's choices and the checked options of a request;
* ``files``: uploads read with ``rouge_io`` (the CLI's reader) and the per-example CSV;
* ``render`` and ``charts``: the HTML, SVG and text the page shows (styles in ``assets/``);
* ``handlers``: the page's event handlers; ``api``: the endpoints for ``gradio_client``;
* ``page``: the page's fixed text (intro, usage, examples, empty states, scripts);
* ``wiring``: calls a handler by parameter name from its components, and marks results stale;
* ``startup``: what ``python app.py`` starts before serving, and the note while it warms up.

Not staged by evaluate's loader (only the metric's own files are), so it can be a package.
"""

import os

# before any of its modules imports gradio: gradio sends no usage reports from the Space
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

# before the metric is loaded (space.metric): on a Hub Space with persistent storage (/data,
# which outlives restarts and rebuilds), the compiled kernels are cached there, so that a
# restarted Space loads them (~0.5 s) instead of compiling them again (~1-2 minutes).
# ROUGE_METRIC_CACHE_DIR, when set, wins. Only on the Hub (SPACE_ID is set there): another
# machine's /data is not this Space's to write in.
PERSISTENT = "/data"
if "SPACE_ID" in os.environ and "ROUGE_METRIC_CACHE_DIR" not in os.environ \
        and os.path.isdir(PERSISTENT) and os.access(PERSISTENT, os.W_OK):
    os.environ["ROUGE_METRIC_CACHE_DIR"] = os.path.join(PERSISTENT, "rouge_metric_cache")
