"""The package's version: in the signature, in a state's header, and checked against the
versions the evaluate script accepts."""

__version__ = "0.7.0"


def installed_version(distribution: str) -> str:
    """The installed version of a distribution, as importlib.metadata.version() gives it,
    without importing importlib.metadata (12-20 ms with the email parser it brings, more
    than a small call's work) where the package's ``NAME-VERSION.dist-info`` folder lies
    beside it, as pip installs it; anywhere else (eggs, other installers), by
    importlib.metadata. Raises importlib.metadata.PackageNotFoundError where it is absent."""
    import importlib.util
    import os

    spec = importlib.util.find_spec(distribution)  # (finds, without importing it)
    if spec is not None and spec.origin and spec.submodule_search_locations:
        folder = os.path.dirname(os.path.dirname(spec.origin))
        prefix = distribution.replace("-", "_").lower() + "-"
        try:
            found = [name[len(prefix):-len(".dist-info")] for name in os.listdir(folder)
                     if name.endswith(".dist-info") and name.lower().startswith(prefix)]
        except OSError:
            found = []
        if len(found) == 1:
            return found[0]
    import importlib.metadata

    return importlib.metadata.version(distribution)
