"""The one scorer: ``pipeline`` (tokenize, kernels, references combined), ``aggregate`` (exact
means, the bootstrap interval), ``state`` (a state's bytes), ``notes`` (input warnings),
``limits`` (ROUGE-1.5.5's length limits) and ``display`` (what the Space shows behind a
number)."""
