"""The package's version: in the signature, in a state's header, and checked against the
versions the evaluate script accepts."""

__version__ = "0.7.0"
