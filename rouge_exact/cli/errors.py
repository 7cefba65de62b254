"""How the ``rouge-exact`` command fails, in each of its modules: ``CliError``, a problem with
the user's files or options (one line on stderr, exit status 2), and Ctrl-C (``Interrupts``: one
line, exit status 130); ``PROG``, the name those lines start with (the installed command and
``python -m rouge_exact`` alike). The command's modules (``cli.main``, ``cli.parser``,
``cli.output``) share this module's one ``CliError`` and one ``INTERRUPTS``.

Standard library only.
"""

import signal
import sys
import threading

PROG = "rouge-exact"  # the command, and `python -m rouge_exact`


class CliError(Exception):
    """A problem with the user's files or options: one line on stderr, exit status 2."""


# --------------------------------------------------------------------------------------------
# Ctrl-C


class Interrupts:
    """Ctrl-C in the ``rouge-exact`` process. ``console()`` installs ``on_signal`` as the SIGINT
    handler for its run; ``main()`` alone (in-process) leaves SIGINT to the caller, and then
    nothing here changes anything.

    - Ctrl-C raises KeyboardInterrupt, as Python's own handler does, and is remembered
      (``seen``): a KeyboardInterrupt raised inside a finalizer (``__del__``, a weakref or
      ctypes callback) is swallowed by CPython, which only prints it (evaluate's ``__del__``
      once turned a Ctrl-C into exit 0). ``unraisable`` silences that print; the run stops
      at its next ``checkpoint()`` (each chunk), and the output is not renamed into place
      once ``seen`` is set (``committing``).
    - Inside ``held()`` (creating, renaming or removing the temporary output) a Ctrl-C waits
      until the section ends, so that no temporary file is left and no rename is half done.
    - ``quiet()``: once the interrupt is being reported, or the run is over, later Ctrl-Cs
      only count (the exit is 130 or 0 already decided, and a KeyboardInterrupt during the
      interpreter's exit would kill it without its line)."""

    def __init__(self):
        self.installed = False
        self.seen = False  # a Ctrl-C came (only ever set while installed)
        self.pending = False  # one came inside held(): raised when the section ends
        self.depth = 0  # held() sections open
        self.raising = True

    def on_signal(self, signum, frame):
        self.seen = True
        if not self.raising:
            return
        if self.depth:
            self.pending = True
            return
        raise KeyboardInterrupt

    def unraisable(self, hook, unraisable) -> None:
        """sys.unraisablehook while installed: a KeyboardInterrupt swallowed in a finalizer is
        not printed (the one line is main()'s; ``seen`` is set). (Raising it again from here
        cannot work: the handler would run inside this hook, which swallows it too.)"""
        if issubclass(unraisable.exc_type, KeyboardInterrupt) and self.installed:
            return
        hook(unraisable)

    def checkpoint(self) -> None:
        """KeyboardInterrupt if a Ctrl-C came that something swallowed (ordinary code, where
        raising it stops the run)."""
        if self.seen and self.raising and not self.depth:
            raise KeyboardInterrupt

    def install(self, early: bool = False) -> None:
        """console(): the SIGINT handler and the unraisable hook of this process (not undone:
        the process ends with console()). early: a Ctrl-C came before (the imports)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self.__init__()
        self.seen = early
        signal.signal(signal.SIGINT, self.on_signal)
        hook = sys.unraisablehook
        sys.unraisablehook = lambda unraisable: self.unraisable(hook, unraisable)
        self.installed = True

    def held(self):
        return _Held(self)

    def quiet(self) -> None:
        self.raising = False

    def committing(self) -> bool:
        """Whether an output may replace the old one now: not after a Ctrl-C."""
        return not self.seen


class _Held:
    def __init__(self, interrupts: Interrupts):
        self.interrupts = interrupts

    def __enter__(self):
        self.interrupts.depth += 1

    def __exit__(self, *exc_info):
        interrupts = self.interrupts
        interrupts.depth -= 1
        if interrupts.depth == 0 and interrupts.pending and interrupts.raising:
            interrupts.pending = False
            raise KeyboardInterrupt
        return False


INTERRUPTS = Interrupts()


def interrupted_by(error: BaseException) -> bool:
    """Whether a KeyboardInterrupt is in the exception's chain (its ``__cause__`` and
    ``__context__``, and theirs): numba's compiled dispatchers, for one, report a Ctrl-C that
    arrives while they call back into Python as ``SystemError: CPUDispatcher(...) returned a
    result with an exception set``, raised from the KeyboardInterrupt."""
    stack, seen = [error], set()
    while stack:
        error = stack.pop()
        if error is None or id(error) in seen:
            continue
        if isinstance(error, KeyboardInterrupt):
            return True
        seen.add(id(error))
        stack += [error.__cause__, error.__context__]
    return False
