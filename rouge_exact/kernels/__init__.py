"""The kernels: pure functions on integer arrays that return integer statistics per pair.
``registry`` and the kernel modules it lists (``scan``, ``score``, ``union``, ``sums``,
``sets``) are compiled by numba; ``twins`` and ``twins_sets`` are their numpy twins;
``backend`` chooses which runs and keeps the compiled cache; ``pool`` runs a call's chunks
on threads."""
