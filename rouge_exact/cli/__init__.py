"""The ``rouge-exact`` command: ``main`` (its entry and runs), ``parser`` (its arguments, made
from the options schema), ``output`` (the table, per-example lines, progress) and ``errors``
(``CliError``, Ctrl-C)."""
